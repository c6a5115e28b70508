/* --fix, --unsafe-fixes and --add-noqa on one file: analyse, apply the
 * findings' fixes that do not overlap, analyse the result again, until
 * nothing is left to fix (at most TL_FIX_MAX_ROUNDS rounds). Notebooks are
 * fixed inside their cells: the `source` of each changed code cell is
 * rewritten in the .ipynb text, the rest of the file is kept byte for byte. */
#ifndef TL_FIXRUN_H
#define TL_FIXRUN_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"
#include "rules/fix.h"

/* Rounds of fix-then-analyse: a fix may reveal another (two fixes on one
 * line are applied one per round); a fix that keeps reproducing its own
 * finding must not loop forever. */
#define TL_FIX_MAX_ROUNDS 10

typedef struct TlFixRun {
	TlApplicability allowed; /* TL_FIX_SAFE, or TL_FIX_UNSAFE for --unsafe-fixes */
	bool add_noqa;           /* instead: a `# noqa: CODE` for every finding */
	/* --fixable / --unfixable: the rules whose fixes may apply (NULL: all). */
	const TlSelection *fixable;
} TlFixRun;

/* Whether --fixable and --unfixable let `rule`'s fixes apply. */
bool tl_fixrun_fixable(const TlFixRun *how, const TlRule *rule);

/* Fixes `len` bytes of `text`, the contents of `path` (a notebook when the
 * path ends in .ipynb; a Python file's text without its byte-order mark),
 * analysing it with `e` and `fo`. Returns the new text (caller frees), or
 * NULL when nothing changed or on error (then `why` says what, else it is
 * ""). *applied counts the fixes (or noqa comments) applied. */
char *tl_fixrun_text(TlEngine *e, const TlFileOptions *fo, const char *path, const char *text,
		     size_t len, const TlFixRun *how, uint32_t *applied, char *why, size_t why_size);

/* Writes `len` bytes of `text` (after a byte-order mark when `bom`) over
 * the file `path`, safely in a shared tree:
 *  - through a new temporary file in the same folder, created exclusively
 *    (O_CREAT|O_EXCL|O_NOFOLLOW, an unpredictable name that ends in .tmp,
 *    never .py), written, given the file's mode and (where permitted) its
 *    owner, fsync'ed, then renamed over the file: a reader sees the old
 *    text or the new, never a part;
 *  - a symbolic link is fixed at its target (the link stays a link);
 *  - a file with other hard links is refused (replacing it would split
 *    them), as is anything but a regular file;
 *  - temporary files that a killed run left for this file (their process
 *    is gone) are removed first.
 * False, with what failed in `why`, when the file was left as it was. */
bool tl_fixrun_write(const char *path, bool bom, const char *text, size_t len, char *why, size_t why_size);

/* How many fixes of one rule were applied (--show-fixes). */
typedef struct TlFixCount {
	const TlRule *rule; /* borrowed from the rule set */
	uint32_t count;
} TlFixCount;
typedef TlArray(TlFixCount) TlFixCounts;

/* tl_fixrun_text, also adding to `counts` (when not NULL) the fixes applied
 * per rule, in the order the rules were first fixed (noqa comments are
 * not counted). Only the rounds that were kept count. */
char *tl_fixrun_text_counted(TlEngine *e, const TlFileOptions *fo, const char *path, const char *text,
			     size_t len, const TlFixRun *how, uint32_t *applied, TlFixCounts *counts,
			     char *why, size_t why_size);
/* Adds `n` fixes of `rule` to `counts`. */
void tl_fix_counts_add(TlFixCounts *counts, const TlRule *rule, uint32_t n);

#endif
