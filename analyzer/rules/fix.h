/* Fixes as data. A rule's metadata (rules/CODE-name.toml) may declare one
 * or more `[[fix]]` tables: edits over the captures of its query, which the
 * engine turns into byte-range edits on the source of each finding. No rule
 * has C code of its own for its fix.
 *
 *   [[fix]]
 *   title = "assign the moved tensor back"      # what the fix does (one line)
 *   applicability = "safe"                      # or "unsafe": only with --unsafe-fixes
 *   edits = [ { insert-before = "finding", text = "{_tensor} = " } ]
 *
 * An edit names one capture and one operation on it:
 *   replace = "@cap"          its bytes become `text`
 *   insert-before = "cap"     `text` goes right before it
 *   insert-after = "cap"      `text` goes right after it
 *   append-argument = "cap"   `cap` is an argument_list: `text` becomes its
 *                             last argument (commas handled, a trailing one kept)
 *   prepend-argument = "cap"  ... its first argument
 * (the leading '@' is optional). `text` is a template: `{name}` is the text
 * of capture `name`, `{name!primary}` the same in parentheses unless it is
 * a primary expression (a name, attribute, call, subscript, literal or
 * bracketed expression), `{name!indent}` the blanks before `name` on its
 * line when nothing else precedes it there (for a statement inserted on a
 * line of its own: `text = "x.f()\n{stmt!indent}"`), `{{` and `}}` are
 * braces.
 *
 * A fix applies to a match only when every capture its edits name is in
 * the match, and its conditions hold:
 *   unless = ["cap", ...]                 these captures are not in the match
 *   when = { cap = ["text", ...] }        the capture's text is one of these
 *   keyword-arguments-only = "cap"        the argument_list has no positional
 *                                         argument (`*args` included)
 * The first `[[fix]]` that applies is the finding's fix; none: no fix.
 * Capture names are checked against the query when the rule loads. When a
 * fix needs captures the reporting pattern does not have, the query adds a
 * pattern that matches the same node with them: the engine reports the node
 * once and keeps the match that carries a fix (TL402, TL501 do this).
 *
 * TL211 and TL403 show the two ways of a finer fix: a pattern that
 * captures more than the reporting one (the value of a module's
 * `requires_grad = v`; the tensor and dimension of a nested
 * `log(sum(exp(x), d))`), with node-type alternations that keep the
 * rewrite a valid call, and `when`/`unless` to choose among fixes.
 *
 * Findings carry their edits (TlFinding.edits, byte offsets into the
 * analysed text, with positions): an editor turns them into code actions
 * without this file; tl_fix_apply applies a set of them to a text. */
#ifndef TL_FIX_H
#define TL_FIX_H

#include <stdbool.h>
#include <stdio.h>

#include <tree_sitter/api.h>

#include "base/array.h"
#include "base/buf.h"
#include "base/source.h"

typedef enum TlApplicability {
	TL_FIX_NONE = 0, /* no fix */
	TL_FIX_SAFE,     /* keeps the program's meaning: applied by --fix */
	TL_FIX_UNSAFE,   /* may change what the program does: only with --unsafe-fixes */
} TlApplicability;

typedef enum TlEditOp {
	TL_EDIT_REPLACE,
	TL_EDIT_INSERT_BEFORE,
	TL_EDIT_INSERT_AFTER,
	TL_EDIT_APPEND_ARGUMENT,
	TL_EDIT_PREPEND_ARGUMENT,
} TlEditOp;

typedef struct TlEditSpec {
	TlEditOp op;
	char *capture;  /* without '@' */
	char *text;     /* template */
} TlEditSpec;

typedef struct TlFixWhen {
	char *capture;
	TlStrArray texts;
} TlFixWhen;

typedef struct TlFixSpec {
	char *title;
	TlApplicability applicability;
	TlArray(TlEditSpec) edits;
	TlStrArray unless;
	TlArray(TlFixWhen) when;
	char *keyword_only; /* capture of an argument_list, or NULL */
} TlFixSpec;

typedef TlArray(TlFixSpec) TlFixSpecs;

/* One edit of a finding's fix: bytes [start, end) of the analysed text
 * become `text` (an insertion when start == end). */
typedef struct TlEdit {
	uint32_t start, end;
	char *text;           /* owned */
	TlPosition start_pos, end_pos; /* of start and end (for a notebook: as
					* found on its program, then within the cell) */
} TlEdit;

typedef TlArray(TlEdit) TlEdits;

struct TlToml;
/* Reads the `[[fix]]` tables of a rule's metadata into `specs` (appends).
 * On error prints "path:line:col: error: ..." to `err` and returns false. */
bool tl_fix_specs_load(TlFixSpecs *specs, const struct TlToml *doc, const char *path, FILE *err);

/* Looks up capture `name` (`len` bytes, no '@'): for a check, whether the
 * rule's query has it (`out` NULL); for a match, its node. */
typedef bool (*TlFixCapture)(void *data, const char *name, size_t len, TSNode *out);

/* Checks that every capture the specs name exists (`has` with out NULL). */
bool tl_fix_specs_check(const TlFixSpecs *specs, TlFixCapture has, void *data, const char *path,
			FILE *err);
void tl_fix_specs_release(TlFixSpecs *specs);

/* The edits of the first spec of `specs` that applies to a match over
 * `src` whose captures `capture` finds, appended to `edits`; returns that
 * spec (borrowed), or NULL when none applies (then `edits` is unchanged). */
const TlFixSpec *tl_fix_build(const TlFixSpecs *specs, TlFixCapture capture, void *data,
			      const TlSource *src, TlEdits *edits);

void tl_edits_release(TlEdits *edits);

/* A fix to choose from: its edits and how safe it is. */
typedef struct TlFixChoice {
	const TlEdits *edits;
	TlApplicability applicability;
} TlFixChoice;

/* Applies to `text` (`len` bytes) the fixes among `choices` whose
 * applicability is at most `allowed`, in order of position, skipping a fix
 * whose edits overlap (or touch the same point as) an edit already taken.
 * Writes the result to `out` and
 * marks taken[i] for each fix applied (taken may be NULL). Returns the
 * number applied. */
uint32_t tl_fix_apply(const char *text, size_t len, const TlFixChoice *choices, uint32_t count,
		      TlApplicability allowed, TlBuf *out, bool *taken);

#endif
