/* The project's Python files, listed once per run for the reverse
 * question (which modules import a given one: project.h), with the text of
 * their import statements only. A module's importers are then found by a
 * cheap word test over that text before anything is parsed.
 *
 * The walk is the one that lists the files to analyse (config/discover.h)
 * with the configured excludes, the default ones (version control,
 * caches, virtual environments, `build`) and what git ignores (.gitignore,
 * .git/info/exclude; unless the run says --no-gitignore): a gitignored
 * `data/` of 150,000 images is never listed. It is bounded: the walk stops
 * past TL_SCAN_MAX_ENTRIES directory entries of any kind and past
 * TL_SCAN_MAX_FILES files (.py and .ipynb), at most TL_SCAN_MAX_BYTES
 * bytes are read, and every entry and file is a step of the asking file's
 * bound (base/budget.h: its work budget, CPU time and cancel hook). A tree
 * over a bound is marked incomplete, and then no module below it has known
 * importers (a fact resting on "every caller agrees" must see every
 * caller); a scan the bound cut is marked cut, and is not kept.
 *
 * Owns: TlScan. */
#ifndef TL_PROJECT_SCAN_H
#define TL_PROJECT_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/array.h"
#include "base/buf.h"
#include "config/discover.h"

/* Files and bytes a scan reads at most. */
#define TL_SCAN_MAX_FILES 300u
#define TL_SCAN_MAX_BYTES (4u << 20)
/* Directory entries a scan looks at most: a walk of 20,000 measured 0.45 s
 * of CPU time beside 200,000 empty folders (six stat calls a folder) and
 * 0.06 s through folders of 150 files each; the 300-file bound stops most
 * big trees first. */
#define TL_SCAN_MAX_ENTRIES 10000u

typedef struct TlScanFile {
	char *path;    /* real path */
	char *imports; /* its lines whose first word is `import` or `from`, joined by '\n' */
} TlScanFile;

typedef struct TlScan {
	char *root;     /* the folder walked (real, ending in '/') */
	bool complete;  /* false: over a bound, or the walk failed */
	bool cut;       /* stopped by the asking file's bound: not to be kept */
	TlArray(TlScanFile) files; /* sorted by path */
} TlScan;

/* Lists the .py files below `root` (real, ending in '/') with `opt`'s
 * excludes (its configurations may be NULL: the defaults; its
 * respect_gitignore is kept) into `s`. */
void tl_scan_build(TlScan *s, const char *root, const TlDiscoverOptions *opt);
void tl_scan_release(TlScan *s);
/* Replaces the import lines the scan holds for the file at real path
 * `path` by `lines` (`len` bytes, as tl_scan_imports writes them: an
 * editor's unsaved document's), when the scan lists it: no walk again. */
void tl_scan_update(TlScan *s, const char *path, const char *text, size_t len);
/* The lines of `text` (`n` bytes) whose first word is `import` or `from`,
 * appended to `out`, each ending in '\n'. */
void tl_scan_imports(const char *text, size_t n, TlBuf *out);
/* The import lines of the file at `path` (its first TL_SCAN_MAX_BYTES),
 * appended to `out` as tl_scan_imports does; false when it cannot be read. */
bool tl_scan_file_imports(const char *path, TlBuf *out);
/* True when `text` holds `word` (`len` bytes) as a whole word (letters,
 * digits and '_' around it are not part of it). */
bool tl_scan_has_word(const char *text, const char *word, size_t len);

#endif
