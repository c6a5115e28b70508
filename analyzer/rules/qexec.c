#include "rules/qexec.h"

#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/array.h"
#include "syntax/index.h"
#include "syntax/treewalk.h"

/* How many kept nodes ahead tl_qexec_run asks the memory for. */
#define TL_QEXEC_AHEAD 4

/* ---- which patterns are local -------------------------------------------------- */

static bool tl_qexec__ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.' || c == '?' || c == '!';
}

/* Skips blanks and `;` comments from `i`. */
static uint32_t tl_qexec__skip(const char *t, uint32_t n, uint32_t i)
{
	while (i < n) {
		if (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r') {
			i++;
		} else if (t[i] == ';') {
			while (i < n && t[i] != '\n')
				i++;
		} else {
			break;
		}
	}
	return i;
}

/* The index after the string that starts at t[i] == '"'. */
static uint32_t tl_qexec__string_end(const char *t, uint32_t n, uint32_t i)
{
	for (i++; i < n && t[i] != '"'; i++)
		if (t[i] == '\\')
			i++;
	return i < n ? i + 1 : n;
}

/* The index after the bracket that closes the one at t[i] ('(' or '['). */
static uint32_t tl_qexec__group_end(const char *t, uint32_t n, uint32_t i)
{
	uint32_t depth = 0;
	while (i < n) {
		char c = t[i];
		if (c == '"') {
			i = tl_qexec__string_end(t, n, i);
			continue;
		}
		if (c == ';') {
			i = tl_qexec__skip(t, n, i);
			continue;
		}
		if (c == '(' || c == '[')
			depth++;
		else if ((c == ')' || c == ']') && --depth == 0)
			return i + 1;
		i++;
	}
	return n;
}

static bool tl_qexec__quantified(const char *t, uint32_t n, uint32_t end)
{
	uint32_t k = tl_qexec__skip(t, n, end);
	return k < n && (t[k] == '+' || t[k] == '*' || t[k] == '?');
}

/* A node expression at t[i] that tree-sitter starts at its own node: a
 * string, `_`, `(_)`, or `(name ...)`; not quantified. Sets *end. */
static bool tl_qexec__plain_node(const char *t, uint32_t n, uint32_t i, uint32_t *end)
{
	if (t[i] == '"') {
		*end = tl_qexec__string_end(t, n, i);
	} else if (t[i] == '_' && (i + 1 >= n || !tl_qexec__ident(t[i + 1]))) {
		*end = i + 1;
	} else if (t[i] == '(') {
		uint32_t j = tl_qexec__skip(t, n, i + 1);
		if (j >= n)
			return false;
		*end = tl_qexec__group_end(t, n, i);
		if (t[j] == '_' && (j + 1 >= n || !tl_qexec__ident(t[j + 1]))) {
			/* tree-sitter starts a wildcard with children at a child */
			uint32_t k = tl_qexec__skip(t, n, j + 1);
			if (k >= n || t[k] != ')')
				return false;
		} else if (!((t[j] >= 'a' && t[j] <= 'z') || (t[j] >= 'A' && t[j] <= 'Z'))) {
			return false;
		}
	} else {
		return false;
	}
	return !tl_qexec__quantified(t, n, *end);
}

bool tl_qexec_pattern_local(const TSQuery *q, uint32_t p, const char *source, uint32_t len)
{
	if (p >= ts_query_pattern_count(q) || !ts_query_is_pattern_rooted(q, p) ||
	    ts_query_is_pattern_non_local(q, p))
		return false;
	uint32_t from = ts_query_start_byte_for_pattern(q, p);
	uint32_t to = ts_query_end_byte_for_pattern(q, p);
	if (from >= to || to > len)
		return false;
	const char *t = source + from;
	uint32_t n = to - from;
	uint32_t i = tl_qexec__skip(t, n, 0);
	/* Grouping parentheses around the root: `((call) @finding (#eq? ...))`. */
	while (i < n && t[i] == '(') {
		uint32_t j = tl_qexec__skip(t, n, i + 1);
		if (j >= n || (t[j] != '(' && t[j] != '[' && t[j] != '"'))
			break;
		if (tl_qexec__quantified(t, n, tl_qexec__group_end(t, n, i)))
			return false;
		i = j;
	}
	if (i >= n)
		return false;
	uint32_t end;
	if (t[i] != '[')
		return tl_qexec__plain_node(t, n, i, &end);
	/* An alternation at the root: each member a plain node. */
	uint32_t close = tl_qexec__group_end(t, n, i);
	if (tl_qexec__quantified(t, n, close))
		return false;
	uint32_t k = tl_qexec__skip(t, n, i + 1);
	while (k < n && t[k] != ']') {
		if (!tl_qexec__plain_node(t, n, k, &end))
			return false;
		k = tl_qexec__skip(t, n, end);
		while (k < n && t[k] == '@') { /* captures of the member */
			k++;
			while (k < n && tl_qexec__ident(t[k]))
				k++;
			k = tl_qexec__skip(t, n, k);
		}
	}
	return k < n;
}

/* True when t[from, to) holds captures (`@name`) and blanks only. */
static bool tl_qexec__only_captures(const char *t, uint32_t n, uint32_t from, uint32_t to)
{
	uint32_t k = tl_qexec__skip(t, n, from);
	while (k < to && t[k] == '@') {
		k++;
		while (k < to && tl_qexec__ident(t[k]))
			k++;
		k = tl_qexec__skip(t, n, k);
	}
	return k == to;
}

bool tl_qexec_text_local(const char *t, uint32_t n)
{
	/* Grouping parentheses around the root, each holding the root and
	 * captures only: `((call) @c0)`. */
	uint32_t i = tl_qexec__skip(t, n, 0), end = n;
	while (i < end && t[i] == '(') {
		uint32_t j = tl_qexec__skip(t, n, i + 1);
		if (j >= end || (t[j] != '(' && t[j] != '[' && t[j] != '"'))
			break;
		uint32_t close = tl_qexec__group_end(t, n, i);
		if (close > end || t[close - 1] != ')' || tl_qexec__quantified(t, n, close) ||
		    !tl_qexec__only_captures(t, n, close, end))
			return false;
		i = j;
		end = close - 1;
	}
	if (i >= end)
		return false;
	uint32_t root_end;
	if (t[i] == '[') {
		/* An alternation of plain nodes, each with its captures. */
		root_end = tl_qexec__group_end(t, n, i);
		if (root_end > end || t[root_end - 1] != ']' || tl_qexec__quantified(t, n, root_end))
			return false;
		uint32_t k = tl_qexec__skip(t, n, i + 1), members = 0;
		while (k < root_end - 1) {
			uint32_t e;
			if (!tl_qexec__plain_node(t, n, k, &e) || e > root_end - 1)
				return false;
			k = tl_qexec__skip(t, n, e);
			while (k < root_end - 1 && t[k] == '@') {
				k++;
				while (k < root_end - 1 && tl_qexec__ident(t[k]))
					k++;
				k = tl_qexec__skip(t, n, k);
			}
			members++;
		}
		if (!members || k != root_end - 1)
			return false;
	} else if (!tl_qexec__plain_node(t, n, i, &root_end) || root_end > end) {
		return false;
	}
	return tl_qexec__only_captures(t, n, root_end, end);
}

/* Adds to `roots` the symbol of the node expression at t[i] (see
 * tl_qexec__plain_node); false when it may start at any node: a wildcard,
 * a supertype, a name tree-sitter reads otherwise (`a/b`, MISSING, an
 * escaped string). */
static bool tl_qexec__root_symbol(const TSLanguage *lang, const char *t, uint32_t n, uint32_t i,
				  uint8_t *roots)
{
	const char *name;
	uint32_t len;
	bool named;
	if (t[i] == '"') {
		uint32_t end = tl_qexec__string_end(t, n, i);
		if (end < i + 2 || t[end - 1] != '"')
			return false;
		name = t + i + 1;
		len = end - i - 2;
		named = false;
		if (memchr(name, '\\', len))
			return false;
	} else if (t[i] == '(') {
		uint32_t j = tl_qexec__skip(t, n, i + 1), k = j;
		while (k < n && ((t[k] >= 'a' && t[k] <= 'z') || (t[k] >= 'A' && t[k] <= 'Z') ||
				 (t[k] >= '0' && t[k] <= '9') || t[k] == '_' || t[k] == '-' || t[k] == '.'))
			k++;
		if (k == j || (k < n && t[k] == '/') || (k - j == 1 && t[j] == '_'))
			return false;
		name = t + j;
		len = k - j;
		named = true;
	} else {
		return false;
	}
	TSSymbol sym = ts_language_symbol_for_name(lang, name, len, named);
	if (sym == 0 || (sym != (TSSymbol)-1 && ts_language_symbol_type(lang, sym) == TSSymbolTypeSupertype))
		return false;
	roots[sym >> 3] |= (uint8_t)(1u << (sym & 7));
	return true;
}

bool tl_qexec_text_roots(const TSLanguage *lang, const char *t, uint32_t n, uint8_t *roots)
{
	uint32_t i = tl_qexec__skip(t, n, 0);
	/* Grouping parentheses around the root, as tl_qexec_pattern_local reads them. */
	while (i < n && t[i] == '(') {
		uint32_t j = tl_qexec__skip(t, n, i + 1);
		if (j >= n || (t[j] != '(' && t[j] != '[' && t[j] != '"'))
			break;
		i = j;
	}
	if (i >= n)
		return false;
	if (t[i] != '[')
		return tl_qexec__root_symbol(lang, t, n, i, roots);
	uint32_t end, k = tl_qexec__skip(t, n, i + 1);
	while (k < n && t[k] != ']') {
		if (!tl_qexec__plain_node(t, n, k, &end) || !tl_qexec__root_symbol(lang, t, n, k, roots))
			return false;
		k = tl_qexec__skip(t, n, end);
		while (k < n && t[k] == '@') {
			k++;
			while (k < n && tl_qexec__ident(t[k]))
				k++;
			k = tl_qexec__skip(t, n, k);
		}
	}
	return k < n;
}

uint8_t *tl_qexec_roots(const TSQuery *q, bool split, const TSLanguage *lang, const char *source,
			uint32_t len)
{
	uint8_t *roots = tl_calloc(TL_QEXEC_ROOTS_BYTES, 1);
	uint32_t count = ts_query_pattern_count(q);
	for (uint32_t p = 0; p < count; p++) {
		bool local = tl_qexec_pattern_local(q, p, source, len);
		if (!local && split)
			continue; /* in the global query */
		uint32_t from = ts_query_start_byte_for_pattern(q, p);
		uint32_t to = ts_query_end_byte_for_pattern(q, p);
		if (!local || from >= to || to > len ||
		    !tl_qexec_text_roots(lang, source + from, to - from, roots)) {
			tl_free(roots);
			return NULL;
		}
	}
	return roots;
}

TSQuery *tl_qexec_split(TSQuery *q, const TSLanguage *lang, const char *source, uint32_t len)
{
	uint32_t count = ts_query_pattern_count(q);
	bool *local = tl_calloc(count ? count : 1, sizeof *local);
	uint32_t globals = 0;
	for (uint32_t p = 0; p < count; p++) {
		local[p] = tl_qexec_pattern_local(q, p, source, len);
		globals += !local[p];
	}
	TSQuery *global = NULL;
	if (globals) {
		uint32_t offset;
		TSQueryError err;
		global = ts_query_new(lang, source, len, &offset, &err);
		/* `q` compiled from the same text: so does the copy. If it could
		 * not, keep every pattern in the whole-tree run of `q` alone. */
		if (global) {
			for (uint32_t p = 0; p < count; p++) {
				if (local[p])
					ts_query_disable_pattern(global, p);
				else
					ts_query_disable_pattern(q, p);
			}
		}
	}
	tl_free(local);
	return global;
}

/* Ends the member being read in a group or alternation (precheck). */
static void tl_qexec__fold(bool *all_null, bool *any_null, int8_t *cur)
{
	if (*cur >= 0) {
		*all_null = *all_null && *cur == 1;
		*any_null = *any_null || *cur == 1;
	}
	*cur = -1;
}

const char *tl_qexec_precheck(const TSLanguage *lang, const char *text, uint32_t len,
			      uint32_t *offset)
{
	/* Open brackets: 'g' a group, 'a' an alternation, 'n' a node, 'p' a
	 * predicate; with whether a member came before in it. */
	typedef struct {
		char kind;
		bool member;
		/* Whether the members seen may match nothing: all of them (a
		 * group), any of them (an alternation); `cur` is the member being
		 * read (-1 none, 0 no, 1 yes: a quantifier may still change it). */
		bool all_null, any_null;
		int8_t cur;
	} Frame;
	TlArray(Frame) st;
	tl_array_init(&st);
	const char *what = NULL;
	bool after_field = false;
	int8_t root_cur = -1;
	uint32_t root_start = 0; /* where the top-level pattern being read starts */
	uint32_t nodes_open = 0; /* 'n' frames on the stack */
	/* A NUL byte: tree-sitter 0.25.1 compares a string holding one as a
	 * node name past the grammar's name (a global-buffer-overflow read in
	 * ts_language_symbol_for_name; found by fuzz_rules). No query text
	 * needs one. */
	const char *nul = memchr(text, '\0', len);
	if (nul) {
		*offset = (uint32_t)(nul - text);
		tl_array_release(&st);
		return "a NUL byte is not allowed in a query";
	}
	uint32_t i = 0;
	while (i < len && !what) {
		char c = text[i];
		Frame *top = st.size ? tl_array_last(&st) : NULL;
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';') {
			i = tl_qexec__skip(text, len, i);
			continue;
		}
		bool field = after_field;
		after_field = false;
		if (c == '(' || c == '[') {
			uint32_t j = tl_qexec__skip(text, len, i + 1);
			/* tree-sitter reads `(#` and `(.` alike as a predicate. */
			char kind = c == '[' ? 'a' : j < len && (text[j] == '#' || text[j] == '.') ? 'p'
				  : j < len && (text[j] == '(' || text[j] == '[' || text[j] == '"') ? 'g' : 'n';
			/* A predicate where tree-sitter expects a pattern (after a
			 * field, in an alternation, first in a group): 0.25 reads
			 * past its steps (an assertion, or a bad read); `((.a))
			 * @finding` asserts in ts_query__parse_pattern (found by
			 * fuzz_rules, issue 26). */
			if (kind == 'p' && (field || (top && top->kind == 'a') ||
					    (top && top->kind == 'g' && !top->member))) {
				*offset = i;
				what = "invalid query syntax";
				break;
			}
			if (top && kind != 'p') {
				top->member = true;
				tl_qexec__fold(&top->all_null, &top->any_null, &top->cur);
			} else if (!top) {
				if (root_cur == 1)
					break; /* the previous pattern may match nothing */
				root_start = i;
			}
			Frame f = { kind, false, true, false, -1 };
			tl_array_push(&st, f);
			nodes_open += kind == 'n';
			i++;
			continue;
		}
		if (c == ')' || c == ']') {
			if (st.size) {
				Frame f = *tl_array_last(&st);
				st.size--;
				nodes_open -= f.kind == 'n';
				tl_qexec__fold(&f.all_null, &f.any_null, &f.cur);
				int8_t *parent = st.size ? &tl_array_last(&st)->cur : &root_cur;
				if (f.kind != 'p')
					*parent = f.kind == 'g' ? (f.member && f.all_null)
						: f.kind == 'a' ? f.any_null : 0;
			}
			i++;
			continue;
		}
		if (c == '*' || c == '?' || c == '+') {
			/* A quantifier on the member just read. `+` on a member that
			 * may match nothing, outside any node, never finishes compiling
			 * in tree-sitter 0.25.1 (`(_)*+`, `((_)?)+`, `[(a) (_)*]+`;
			 * found by fuzz_rules). */
			int8_t *cur = st.size ? &tl_array_last(&st)->cur : &root_cur;
			if (top && top->kind == 'p') {
				/* inside a predicate: not a quantifier */
			} else if (c != '+') {
				*cur = 1;
			} else if (*cur == 1 && !nodes_open) {
				*offset = i;
				what = "a repetition (+) of a pattern that may match nothing is not supported "
				       "outside a node (tree-sitter 0.25 does not finish compiling it); "
				       "use * on the pattern instead";
				break;
			}
			i++;
			continue;
		}
		if (c == '"') {
			/* An empty anonymous node `""`: tree-sitter 0.25 passes a null
			 * name to strncmp (undefined behaviour) before refusing it. */
			if (i + 1 < len && text[i + 1] == '"') {
				*offset = i;
				what = (!top || top->kind != 'p')
					       ? "unknown node type"
					       : "an empty string is not supported (tree-sitter 0.25 mishandles it); "
						 "use #match? with \"^$\"";
				break;
			}
			if (top && top->kind != 'p') {
				top->member = true;
				tl_qexec__fold(&top->all_null, &top->any_null, &top->cur);
				top->cur = 0;
			} else if (!top) {
				if (root_cur == 1)
					break;
				root_start = i;
				root_cur = 0;
			}
			i = tl_qexec__string_end(text, len, i);
			continue;
		}
		if (c == '@' || c == '#' || c == '!') {
			/* a capture, a predicate's name or a negated field: no field */
			for (i++; i < len && tl_qexec__ident(text[i]); i++)
				;
			continue;
		}
		/* An identifier as tree-sitter scans one: it starts with a letter,
		 * a digit, '_' or '-' (so "0value:" is a field name too). */
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '_' || c == '-') {
			uint32_t start = i;
			while (i < len && tl_qexec__ident(text[i]))
				i++;
			uint32_t k = tl_qexec__skip(text, len, i);
			if (k < len && text[k] == ':') {
				/* tree-sitter 0.25 leaks the captures already parsed in a
				 * field it then finds unknown. */
				if (!ts_language_field_id_for_name(lang, text + start, i - start)) {
					*offset = start;
					what = "unknown field name";
					break;
				}
				after_field = true;
				i = k + 1;
			} else if (top && top->kind != 'p' && text[start] == '_' && i - start == 1) {
				top->member = true; /* a bare wildcard */
				tl_qexec__fold(&top->all_null, &top->any_null, &top->cur);
				top->cur = 0;
			} else if (!top && text[start] == '_' && i - start == 1) {
				if (root_cur == 1) {
					i = start;
					break;
				}
				root_start = start;
				root_cur = 0;
			}
			continue;
		}
		i++;
	}
	/* A whole pattern that may match nothing (`((call) @x*)`, `(_)?`):
	 * tree-sitter 0.25.1 runs it into an assertion in
	 * ts_query_cursor__advance (found by fuzz_rules); no rule can report
	 * on nothing. */
	if (!what && root_cur == 1) {
		*offset = root_start;
		what = "a pattern that may match nothing is not supported; remove the * or ? "
		       "that makes the whole pattern optional";
	}
	tl_array_release(&st);
	return what;
}

/* ---- running ----------------------------------------------------------------------- */

/* Work units per byte of source: measured on real code (qexec.c's budget
 * test), real files use well under 1 unit per byte; 64 is far above. */
#define TL_QEXEC_UNITS_PER_BYTE 64u
#define TL_QEXEC_UNITS_MIN 1000000u

uint64_t tl_qexec_budget_for(uint64_t bytes)
{
	return TL_QEXEC_UNITS_MIN + bytes * TL_QEXEC_UNITS_PER_BYTE;
}

double tl_qexec_seconds_for(uint64_t bytes)
{
	return tl_budget_seconds_for(bytes);
}

bool tl_qexec_out_of_time(TlQexec *x)
{
	if (!tl_bound_check(&x->bound))
		return false;
	/* The CPU time, or the step budget of the bound (base/budget.h). */
	x->status |= x->bound.hit == TL_BOUND_CANCELLED ? TL_QEXEC_CANCELLED : TL_QEXEC_TIME_SPENT;
	return true;
}

/* Called by tree-sitter every 100 cursor steps; true cancels the run. */
static bool tl_qexec__progress(TSQueryCursorState *state)
{
	TlQexec *x = state->payload;
	x->spent++;
	if (x->budget == 0) {
		x->status |= TL_QEXEC_BUDGET_SPENT;
		return true;
	}
	x->budget--;
	/* A cursor step costs as many in-progress states as there are, which
	 * no counter here sees: the CPU time bounds what the steps miss. */
	if ((x->spent & 15) == 0 && tl_qexec_out_of_time(x))
		return true;
	return false;
}

void tl_qexec_init(TlQexec *x)
{
	memset(x, 0, sizeof *x);
	x->cursor = ts_query_cursor_new();
	x->options.payload = x;
	x->options.progress_callback = tl_qexec__progress;
	ts_query_cursor_set_match_limit(x->cursor, TL_QEXEC_MATCH_LIMIT);
}

void tl_qexec_release(TlQexec *x)
{
	ts_query_cursor_delete(x->cursor);
	x->cursor = NULL;
}

void tl_qexec_begin(TlQexec *x, uint64_t budget, double seconds)
{
	x->budget = budget;
	x->spent = 0;
	x->status = 0;
	tl_bound_begin(&x->bound, seconds, 0);
}

/* Runs the cursor (already executed on a node) to its end. */
static unsigned tl_qexec__drain(TlQexec *x, const TSQuery *q, TlQexecMatchFn fn, void *ctx)
{
	unsigned status = 0;
	TSQueryMatch m;
	while (ts_query_cursor_next_match(x->cursor, &m)) {
		if (!fn(ctx, q, &m)) {
			status |= TL_QEXEC_STOPPED;
			break;
		}
	}
	if (ts_query_cursor_did_exceed_match_limit(x->cursor))
		status |= TL_QEXEC_MATCH_LIMIT_HIT;
	return status;
}

unsigned tl_qexec_exec_at(TlQexec *x, const TSQuery *q, TSNode node, TlQexecMatchFn fn, void *ctx)
{
	ts_query_cursor_set_max_start_depth(x->cursor, 0);
	ts_query_cursor_exec_with_options(x->cursor, q, node, &x->options);
	unsigned status = tl_qexec__drain(x, q, fn, ctx);
	x->status |= status;
	return status;
}

/* Runs `local` at `node` (after `at` agrees); the TlQexecStatus bits. */
static unsigned tl_qexec__at(TlQexec *x, const TSQuery *local, TSNode node, TlQexecNodeFn at,
			     TlQexecMatchFn fn, void *ctx)
{
	unsigned status = 0;
	/* An exec of fewer than 100 cursor steps (the progress callback is
	 * not called) keeps few states: the units bound it. At a node no
	 * pattern starts at, an exec finds nothing: skipped; so is one the
	 * caller's `at` says cannot yield a match it wants. */
	if ((!at || at(ctx, node)) && local) {
		ts_query_cursor_exec_with_options(x->cursor, local, node, &x->options);
		status |= tl_qexec__drain(x, local, fn, ctx);
	}
	return status | x->status;
}

/* Charges `units` walk units (one per node walked): false, with the
 * budget spent, when fewer are left. */
static bool tl_qexec__walked(TlQexec *x, uint64_t units)
{
	if (x->budget < units) {
		x->spent += x->budget;
		x->budget = 0;
		return false;
	}
	x->budget -= units;
	x->spent += units;
	return true;
}

unsigned tl_qexec_run(TlQexec *x, const TSQuery *local, const uint8_t *roots,
		      const TSQuery *global, TSNode root, const TlQexecList *list,
		      TlQexecNodeFn at, TlQexecMatchFn fn, void *ctx)
{
	unsigned before = x->status;
	x->status = 0;
	unsigned status = 0;
	if ((local || at) && list) {
		/* The nodes the index kept, in preorder: the budget is charged as
		 * the walk below charges it, one unit per node passed. */
		ts_query_cursor_set_max_start_depth(x->cursor, 0);
		uint64_t walked = 0;
		for (uint32_t i = 0; i < list->count && !(status & TL_QEXEC_STOPPED); i++) {
			const struct TlIndexNode *n = &list->nodes[i];
			/* The nodes ahead, out of cache since the index's walk:
			 * their slots, then their data (treewalk.h). */
			if (i + 2 * TL_QEXEC_AHEAD < list->count)
				tl_tree_prefetch(list->nodes[i + 2 * TL_QEXEC_AHEAD].node, false);
			if (i + TL_QEXEC_AHEAD < list->count)
				tl_tree_prefetch(list->nodes[i + TL_QEXEC_AHEAD].node, true);
			if (!tl_qexec__walked(x, n->ordinal + 1 - walked)) {
				status |= TL_QEXEC_BUDGET_SPENT;
				break;
			}
			walked = n->ordinal + 1;
			if (roots && !((roots[n->symbol >> 3] >> (n->symbol & 7)) & 1))
				continue;
			status |= tl_qexec__at(x, local, n->node, at, fn, ctx);
			if (status & (TL_QEXEC_BUDGET_SPENT | TL_QEXEC_TIME_SPENT | TL_QEXEC_CANCELLED))
				break;
		}
		if (!(status & (TL_QEXEC_STOPPED | TL_QEXEC_BUDGET_SPENT | TL_QEXEC_TIME_SPENT | TL_QEXEC_CANCELLED)) &&
		    !tl_qexec__walked(x, list->total - walked))
			status |= TL_QEXEC_BUDGET_SPENT;
		ts_query_cursor_set_max_start_depth(x->cursor, UINT32_MAX);
	} else if (local || at) {
		ts_query_cursor_set_max_start_depth(x->cursor, 0);
		TSTreeCursor walk = ts_tree_cursor_new(root);
		bool more = true;
		while (more && !(status & TL_QEXEC_STOPPED)) {
			if (x->budget == 0) {
				status |= TL_QEXEC_BUDGET_SPENT;
				break;
			}
			x->budget--;
			x->spent++;
			TSNode node = ts_tree_cursor_current_node(&walk);
			TSSymbol sym = roots ? ts_node_symbol(node) : 0;
			if (!roots || (roots[sym >> 3] >> (sym & 7)) & 1) {
				status |= tl_qexec__at(x, local, node, at, fn, ctx);
				if (status & (TL_QEXEC_BUDGET_SPENT | TL_QEXEC_TIME_SPENT | TL_QEXEC_CANCELLED))
					break;
			}
			/* Next node in preorder, iteratively. */
			if (ts_tree_cursor_goto_first_child(&walk))
				continue;
			while (!ts_tree_cursor_goto_next_sibling(&walk)) {
				if (!ts_tree_cursor_goto_parent(&walk)) {
					more = false;
					break;
				}
			}
		}
		ts_tree_cursor_delete(&walk);
		ts_query_cursor_set_max_start_depth(x->cursor, UINT32_MAX);
	}
	if (global && !(status & (TL_QEXEC_STOPPED | TL_QEXEC_BUDGET_SPENT | TL_QEXEC_TIME_SPENT | TL_QEXEC_CANCELLED))) {
		ts_query_cursor_exec_with_options(x->cursor, global, root, &x->options);
		status |= tl_qexec__drain(x, global, fn, ctx);
		status |= x->status;
	}
	x->status = before | status;
	return status;
}
