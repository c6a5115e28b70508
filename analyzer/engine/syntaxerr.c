/* TL000: the syntax errors of a file, with the grammar's known gaps
 * (valid Python the pinned grammar cannot parse) told apart and left
 * unreported, the parser's nesting limit reported once, and each error's
 * span widened to what a reader would call the error. engine.c asks it
 * once per file and once per notebook cell. */
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "engine/engine_internal.h"
#include "syntax/syms.h"
#include "syntax/walk.h"

/* Syntax errors reported per file: past this many, the rest are noise. */
#define TL_MAX_SYNTAX_ERRORS 20
/* Error regions parsed again per file to tell a known grammar gap. */
#define TL_MAX_SYNTAX_RECHECKS 64

/* A PEP 696 type-parameter default (`def f[T = int]`, `class C[*Ts =
 * *tuple[int]]`, `type A[**P = [int]] = ...`; Python 3.13): valid Python
 * that the pinned grammar cannot parse. Its ERROR holds the parameter's
 * name and the `=` (`T =`, `*Ts = *`, `**P =`), inside the type
 * parameters of a definition or of a type alias's name. Not reported
 * until a grammar release parses it. */
static bool tl_engine__type_param_default(const TlSource *src, TSNode n)
{
	TSNode tp = ts_node_parent(n);
	if (ts_node_is_null(tp) || strcmp(ts_node_type(tp), "type_parameter") != 0)
		return false;
	TSNode owner = ts_node_parent(tp);
	if (ts_node_is_null(owner))
		return false;
	const char *ot = ts_node_type(owner);
	if (strcmp(ot, "generic_type") == 0) {
		TSNode alias = ts_node_parent(ts_node_parent(owner));
		if (ts_node_is_null(alias) || strcmp(ts_node_type(alias), "type_alias_statement") != 0 ||
		    ts_node_start_byte(owner) != ts_node_start_byte(alias) + 5)
			return false;
	} else if (strcmp(ot, "function_definition") != 0 && strcmp(ot, "class_definition") != 0) {
		return false;
	}
	const char *t = src->text;
	uint32_t k = ts_node_start_byte(n), end = ts_node_end_byte(n);
	for (int stars = 0; stars < 2 && k < end && t[k] == '*'; stars++)
		k++;
	uint32_t name = k;
	while (k < end && ((t[k] >= 'a' && t[k] <= 'z') || (t[k] >= 'A' && t[k] <= 'Z') || t[k] == '_' ||
			   (k > name && t[k] >= '0' && t[k] <= '9') || (unsigned char)t[k] >= 0x80))
		k++;
	if (k == name)
		return false;
	while (k < end && (t[k] == ' ' || t[k] == '\t'))
		k++;
	if (k >= end || t[k] != '=')
		return false;
	for (k++; k < end && (t[k] == ' ' || t[k] == '\t' || t[k] == '*'); k++)
		;
	return k == end;
}

/* A starred bracketed expression in a tuple without parentheses
 * (`return name, *(int(x) for x in parts)`, `shape = *((1,) * n), -1`,
 * `host, *rest = endpoint, *[]`): valid Python that the pinned grammar
 * cannot parse. True when the lines of ERROR `n` hold a unary `*` before
 * `(`, `[` or `{`, and they parse once each such operand is wrapped in the
 * starred call `*_(...)`, which the grammar takes (the lines dedented by
 * their first line's indentation). Not reported until a grammar release
 * parses it; the statement stays unanalysed. */
/* The index of the quote that closes the string literal opened by quote
 * `s[i]` (a backslash escapes the next byte), or `len` when none does. */
static uint32_t tl_engine__string_end(const char *s, uint32_t len, uint32_t i)
{
	char q = s[i];
	for (i++; i < len && s[i] != q; i++)
		if (s[i] == '\\')
			i++;
	return i < len ? i : len;
}

static bool tl_engine__starred_paren(const TlSource *src, TSNode n, TSParser **parser)
{
	const char *t = src->text;
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	while (a > 0 && t[a - 1] != '\n' && t[a - 1] != '\r')
		a--;
	while (b < src->length && t[b] != '\n' && t[b] != '\r')
		b++;
	if (b - a > 4096)
		return false;
	uint32_t indent = 0;
	while (a + indent < b && (t[a + indent] == ' ' || t[a + indent] == '\t'))
		indent++;
	TlBuf text;
	tl_buf_init(&text);
	/* Each line without the first line's indentation (a line indented
	 * less: not one statement, left alone). */
	for (uint32_t i = a; i < b;) {
		uint32_t e = i;
		while (e < b && t[e] != '\n')
			e++;
		uint32_t skip = 0;
		while (skip < indent && i + skip < e && t[i + skip] == t[a + skip])
			skip++;
		tl_buf_addn(&text, t + i + skip, e - i - skip);
		tl_buf_addc(&text, '\n');
		i = e + 1;
	}
	const char *s = text.data;
	uint32_t len = (uint32_t)text.len;
	bool changed = false;
	TlArray(uint32_t) opens, closes; /* ascending, each */
	tl_array_init(&opens);
	tl_array_init(&closes);
	for (uint32_t i = 0; s && i + 1 < len; i++) {
		if (s[i] == '"' || s[i] == '\'') {
			i = tl_engine__string_end(s, len, i);
			continue;
		}
		if (s[i] == '#') {
			while (i + 1 < len && s[i + 1] != '\n')
				i++;
			continue;
		}
		if (s[i] != '*' || !strchr("([{", s[i + 1]) || (i > 0 && s[i - 1] == '*'))
			continue;
		uint32_t k = i;
		while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == '\t'))
			k--;
		bool unary = k == 0 || strchr("=,([{:\n", s[k - 1]) != NULL ||
			     (k >= 6 && memcmp(s + k - 6, "return", 6) == 0) ||
			     (k >= 5 && memcmp(s + k - 5, "yield", 5) == 0);
		if (!unary)
			continue;
		/* The operand's closing bracket (strings inside skipped). */
		int depth = 0;
		uint32_t j = i + 1;
		for (; j < len; j++) {
			if (s[j] == '"' || s[j] == '\'') {
				j = tl_engine__string_end(s, len, j);
			} else if (s[j] == '(' || s[j] == '[' || s[j] == '{') {
				depth++;
			} else if ((s[j] == ')' || s[j] == ']' || s[j] == '}') && --depth == 0) {
				break;
			}
		}
		if (j >= len)
			continue;
		/* `*X` becomes `*_(X)`: kept for the copy below (an operand
		 * starred inside this one closes first). */
		tl_array_push(&opens, i + 1);
		tl_array_push(&closes, j + 1);
		for (uint32_t m = closes.size - 1; m > 0 && closes.items[m - 1] > closes.items[m]; m--) {
			uint32_t swap = closes.items[m];
			closes.items[m] = closes.items[m - 1];
			closes.items[m - 1] = swap;
		}
		changed = true;
	}
	bool valid = false;
	if (changed) {
		TlBuf fixed;
		tl_buf_init(&fixed);
		uint32_t from = 0;
		/* Insertions in text order: `_(` before each operand, `)` after it. */
		uint32_t o = 0, c = 0;
		while (o < opens.size || c < closes.size) {
			bool open = o < opens.size && (c >= closes.size || opens.items[o] < closes.items[c]);
			uint32_t at = open ? opens.items[o++] : closes.items[c++];
			tl_buf_addn(&fixed, s + from, at - from);
			tl_buf_add(&fixed, open ? "_(" : ")");
			from = at;
		}
		tl_buf_addn(&fixed, s + from, len - from);
		if (!*parser) {
			*parser = ts_parser_new();
			ts_parser_set_language(*parser, tl_python_language());
		}
		TSTree *tree = ts_parser_parse_string(*parser, NULL, fixed.data, (uint32_t)fixed.len);
		valid = tree && !ts_node_has_error(ts_tree_root_node(tree));
		ts_tree_delete(tree);
		tl_buf_release(&fixed);
	}
	tl_array_release(&opens);
	tl_array_release(&closes);
	tl_buf_release(&text);
	return valid;
}

/* The pinned grammar's scanner keeps its stack of indentation widths in
 * tree-sitter's 1,024-byte state (two bytes a level): past about 510
 * nested blocks it cannot, and the parse fails from the top of the file.
 * Returns the byte where a line first opens a block past that depth (the
 * line that is reported), or UINT32_MAX. Approximate outside that case:
 * brackets and comments are followed, strings are not. */
#define TL_GRAMMAR_MAX_INDENTS 510
static uint32_t tl_engine__indent_limit(const TlSource *src)
{
	const char *t = src->text;
	uint32_t len = src->length, open = 0, top = 0;
	uint32_t *stack = tl_malloc((TL_GRAMMAR_MAX_INDENTS + 2) * sizeof *stack);
	stack[0] = 0;
	uint32_t found = UINT32_MAX;
	for (uint32_t i = 0; i < len && found == UINT32_MAX;) {
		uint32_t w = 0;
		while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\f'))
			w += t[i] == '\t' ? 8 : t[i] == ' ' ? 1 : 0, i++;
		bool content = i < len && t[i] != '\n' && t[i] != '\r' && t[i] != '#';
		if (content && !open) {
			if (w > stack[top]) {
				if (top + 1 > TL_GRAMMAR_MAX_INDENTS) {
					found = i;
					break;
				}
				stack[++top] = w;
			} else {
				while (top && stack[top] > w)
					top--;
			}
		}
		for (; i < len && t[i] != '\n' && t[i] != '\r'; i++) {
			if (t[i] == '#')
				while (i + 1 < len && t[i + 1] != '\n' && t[i + 1] != '\r')
					i++;
			else if (t[i] == '(' || t[i] == '[' || t[i] == '{')
				open++;
			else if ((t[i] == ')' || t[i] == ']' || t[i] == '}') && open)
				open--;
		}
		i += i < len;
	}
	tl_free(stack);
	return found;
}

/* True when error node `n`'s first line holds nothing but blanks. */
static bool tl_engine__blank_start(const TlSource *src, TSNode n)
{
	uint32_t a = ts_node_start_byte(n), end = ts_node_end_byte(n);
	for (uint32_t k = a; k < end && src->text[k] != '\n' && src->text[k] != '\r'; k++)
		if (src->text[k] != ' ' && src->text[k] != '\t')
			return false;
	return true;
}

/* A missing token has no width: its finding covers the character it is
 * missing before (at a line's end, the line end; at the end of the file,
 * the character before), so that every format shows a region (SARIF asks
 * for a non-empty one). Where it starts does not change but at the end of
 * the file. */
static void tl_engine__widen(const TlSource *src, TlFinding *f)
{
	const char *t = src->text;
	uint32_t a = f->start_byte, b = f->end_byte;
	if (b < src->length) {
		b += t[b] == '\r' && b + 1 < src->length && t[b + 1] == '\n' ? 2 : 1;
		while (b < src->length && ((unsigned char)t[b] & 0xC0) == 0x80)
			b++;
	} else if (a > 0) {
		a--;
		while (a > 0 && ((unsigned char)t[a] & 0xC0) == 0x80)
			a--;
	} else {
		return;
	}
	f->start_byte = a;
	f->end_byte = b;
	f->start = tl_source_position(src, a);
	f->end = tl_source_position(src, b);
	f->cell_start = f->start;
	f->cell_end = f->end;
}


/* The TL000 findings of the tree under `root`; `rest` ends each message
 * ("the rest of the file is still analysed"). */
void tl_engine__syntax(const TlEngine *e, const TlSelection *sel, const TlSource *src, TSNode root, const char *rest,
		       TlFindings *out)
{
	const TlRule *rule = tl_rules_find(e->rules, "TL000");
	if (!rule || !tl_rule_selected(rule, sel) || !ts_node_has_error(root))
		return;
	unsigned reported = 0;
	/* Blocks nested past the grammar's limit: one TL000 where it is hit;
	 * the errors that region causes (from the top of the file) are that
	 * one. */
	uint32_t deep = tl_engine__indent_limit(src);
	if (deep != UINT32_MAX) {
		TlBuf m;
		tl_buf_init(&m);
		tl_buf_addf(&m, "syntax error: blocks nested more than %d deep (the parser's limit) from this line; the code around it cannot be analysed",
			    TL_GRAMMAR_MAX_INDENTS);
		TSNode at = ts_node_descendant_for_byte_range(root, deep, deep);
		tl_engine__add(out, src, rule, at, tl_buf_detach(&m));
		tl_buf_release(&m);
		TlFinding *f = tl_array_last(out);
		uint32_t ll;
		tl_source_line(src, tl_source_position(src, deep).line, &ll);
		f->start_byte = deep;
		f->start = tl_source_position(src, deep);
		f->end_byte = deep + ll;
		f->end = tl_source_position(src, f->end_byte);
		f->cell_start = f->start;
		f->cell_end = f->end;
		reported++;
	}
	/* Statements parsed again to tell a grammar gap (a small parse each,
	 * at most TL_MAX_SYNTAX_RECHECKS per file). */
	TSParser *parser = NULL;
	unsigned rechecked = 0;
	uint32_t last_row = 0; /* of the last error reported */
	TlWalk w;
	tl_walk_start(&w, root);
	bool descend = true;
	do {
		TSNode n = w.node;
		descend = ts_node_has_error(n);
		if (ts_node_is_error(n) &&
		    (tl_engine__type_param_default(src, n) ||
		     (rechecked++ < TL_MAX_SYNTAX_RECHECKS && tl_engine__starred_paren(src, n, &parser)))) {
			descend = false;
		} else if (deep != UINT32_MAX && (ts_node_is_error(n) || ts_node_is_missing(n)) &&
			   ts_node_start_byte(n) <= deep && ts_node_end_byte(n) >= deep) {
			descend = false; /* what the nesting limit causes */
		} else if (reported && ts_node_is_error(n) && ts_node_start_point(n).row <= last_row + 1 &&
			   tl_engine__blank_start(src, n)) {
			/* A region that starts with no text of its own (at a line's
			 * end) on the line of an error already reported or the next:
			 * the parser's way back from that error, not one more (the
			 * valid line after `ds[.get(x)]` is not reported again). */
			descend = false;
		} else if (ts_node_is_error(n) || ts_node_is_missing(n)) {
			TlBuf m;
			tl_buf_init(&m);
			if (ts_node_is_missing(n)) {
				tl_buf_addf(&m, "syntax error: missing '%s'; %s", ts_node_type(n), rest);
			} else {
				/* Quote the start of the text that does not parse (its
				 * first line, shortened): the parser knows the region, not
				 * which token in it is wrong. */
				uint32_t a = ts_node_start_byte(n), end = ts_node_end_byte(n), k = a, shown = 0;
				while (k < end && src->text[k] != '\n' && src->text[k] != '\r' && shown < 40) {
					k++;
					while (k < end && ((unsigned char)src->text[k] & 0xC0) == 0x80)
						k++;
					shown++;
				}
				while (k > a && (src->text[k - 1] == ' ' || src->text[k - 1] == '\t'))
					k--;
				if (k > a)
					tl_buf_addf(&m, "syntax error: cannot parse `%.*s%s`; %s",
						    (int)(k - a), src->text + a, k < end && shown >= 40 ? "..." : "", rest);
				else
					tl_buf_addf(&m, "syntax error; %s", rest);
			}
			/* Point at the error's first line only. */
			last_row = ts_node_start_point(n).row;
			tl_engine__add(out, src, rule, n, tl_buf_detach(&m));
			tl_buf_release(&m);
			TlFinding *f = tl_array_last(out);
			if (f->end.line != f->start.line) {
				uint32_t len;
				tl_source_line(src, f->start.line, &len);
				f->end_byte = src->line_starts.items[f->start.line - 1] + len;
				f->end = tl_source_position(src, f->end_byte);
			}
			if (f->end_byte == f->start_byte)
				tl_engine__widen(src, f);
			descend = false;
			if (++reported >= TL_MAX_SYNTAX_ERRORS)
				break;
		}
	} while (tl_walk_step(&w, descend));
	tl_walk_end(&w);
	if (parser)
		ts_parser_delete(parser);
}
