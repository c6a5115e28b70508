#include "toml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tree_sitter/api.h>

#include "alloc.h"
#include "buf.h"
#include "walk.h"

const TSLanguage *tree_sitter_toml(void);

typedef struct TlTomlCtx {
	const char *text;
	TlToml *doc;
	char *why;
	size_t why_size;
	bool failed;
} TlTomlCtx;

static bool tl_toml__is(TSNode n, const char *type)
{
	return strcmp(ts_node_type(n), type) == 0;
}

static void tl_toml__fail(TlTomlCtx *c, TSNode n, const char *what)
{
	if (c->failed)
		return;
	TSPoint p = ts_node_start_point(n);
	snprintf(c->why, c->why_size, "%u:%u: %s", p.row + 1, p.column + 1, what);
	c->failed = true;
}


/* The value of a string or quoted_key node, unescaped; caller frees. */
static char *tl_toml__string(TlTomlCtx *c, TSNode n)
{
	const char *s = c->text + ts_node_start_byte(n);
	size_t len = ts_node_end_byte(n) - ts_node_start_byte(n);
	size_t q = (len >= 6 && (strncmp(s, "\"\"\"", 3) == 0 || strncmp(s, "'''", 3) == 0)) ? 3 : 1;
	if (len < 2 * q)
		return tl_strdup("");
	bool literal = s[0] == '\'';
	const char *p = s + q, *end = s + len - q;
	/* A newline right after the opening delimiter is not part of the value. */
	if (q == 3 && p < end && *p == '\n')
		p++;
	else if (q == 3 && p + 1 < end && p[0] == '\r' && p[1] == '\n')
		p += 2;
	TlBuf b;
	tl_buf_init(&b);
	while (p < end) {
		if (literal || *p != '\\') {
			tl_buf_addc(&b, *p++);
			continue;
		}
		p++;
		if (p >= end)
			break;
		char e = *p++;
		switch (e) {
		case 'n': tl_buf_addc(&b, '\n'); break;
		case 't': tl_buf_addc(&b, '\t'); break;
		case 'r': tl_buf_addc(&b, '\r'); break;
		case 'b': tl_buf_addc(&b, '\b'); break;
		case 'f': tl_buf_addc(&b, '\f'); break;
		case '"': tl_buf_addc(&b, '"'); break;
		case '\\': tl_buf_addc(&b, '\\'); break;
		case 'u':
		case 'U': {
			int digits = e == 'u' ? 4 : 8;
			char hex[9] = { 0 };
			if (end - p < digits) {
				tl_toml__fail(c, n, "truncated unicode escape");
				p = end;
				break;
			}
			memcpy(hex, p, (size_t)digits);
			p += digits;
			tl_buf_add_utf8(&b, (uint32_t)strtoul(hex, NULL, 16));
			break;
		}
		case '\n':
		case '\r':
		case ' ':
		case '\t':
			/* Line-ending backslash: trim whitespace and newlines. */
			while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
				p++;
			break;
		default:
			tl_toml__fail(c, n, "invalid escape sequence in string");
		}
	}
	return tl_buf_detach(&b);
}

/* Appends a key node (bare, quoted or dotted) to `out`, dot-separated. */
static void tl_toml__key(TlTomlCtx *c, TSNode k, TlBuf *out)
{
	/* Dotted keys nest to the left: walk them without recursion. */
	TlArray(TSNode) parts;
	tl_array_init(&parts);
	TlArray(TSNode) todo;
	tl_array_init(&todo);
	tl_array_push(&todo, k);
	while (todo.size) {
		TSNode n = tl_array_pop(&todo);
		if (tl_toml__is(n, "dotted_key")) {
			uint32_t count = ts_node_named_child_count(n);
			for (uint32_t i = count; i > 0; i--)
				tl_array_push(&todo, ts_node_named_child(n, i - 1));
		} else {
			tl_array_push(&parts, n);
		}
	}
	for (uint32_t i = 0; i < parts.size; i++) {
		TSNode n = parts.items[i];
		if (out->len)
			tl_buf_addc(out, '.');
		if (tl_toml__is(n, "quoted_key")) {
			char *s = tl_toml__string(c, n);
			tl_buf_add(out, s);
			tl_free(s);
		} else {
			tl_buf_addn(out, c->text + ts_node_start_byte(n),
				    ts_node_end_byte(n) - ts_node_start_byte(n));
		}
	}
	tl_array_release(&parts);
	tl_array_release(&todo);
}

static void tl_toml__pair(TlTomlCtx *c, const char *table, TSNode pair)
{
	if (ts_node_named_child_count(pair) < 2) {
		tl_toml__fail(c, pair, "key without a value");
		return;
	}
	TSNode key = ts_node_named_child(pair, 0);
	TSNode val = ts_node_named_child(pair, ts_node_named_child_count(pair) - 1);
	TlTomlEntry e;
	memset(&e, 0, sizeof e);
	TlBuf kb;
	tl_buf_init(&kb);
	tl_toml__key(c, key, &kb);
	e.key = tl_buf_detach(&kb);
	tl_buf_release(&kb);
	e.table = tl_strdup(table);
	TSPoint p = ts_node_start_point(val);
	e.line = p.row + 1;
	e.column = p.column + 1;
	tl_array_init(&e.array);
	const char *vt = c->text + ts_node_start_byte(val);
	if (tl_toml__is(val, "string")) {
		e.kind = TL_TOML_STRING;
		e.str = tl_toml__string(c, val);
	} else if (tl_toml__is(val, "boolean")) {
		e.kind = TL_TOML_BOOL;
		e.boolean = vt[0] == 't';
	} else if (tl_toml__is(val, "integer")) {
		e.kind = TL_TOML_INT;
		TlBuf digits;
		tl_buf_init(&digits);
		for (const char *q = vt; q < c->text + ts_node_end_byte(val); q++)
			if (*q != '_')
				tl_buf_addc(&digits, *q);
		/* TOML integers: decimal, 0x hex, 0o octal, 0b binary. */
		const char *d = digits.data;
		int sign = 1;
		if (*d == '+' || *d == '-')
			sign = *d++ == '-' ? -1 : 1;
		int base = 10;
		if (d[0] == '0' && (d[1] == 'x' || d[1] == 'o' || d[1] == 'b')) {
			base = d[1] == 'x' ? 16 : d[1] == 'o' ? 8 : 2;
			d += 2;
		}
		e.integer = sign * strtoll(d, NULL, base);
		tl_buf_release(&digits);
	} else if (tl_toml__is(val, "array")) {
		e.kind = TL_TOML_STRING_ARRAY;
		uint32_t count = ts_node_named_child_count(val);
		for (uint32_t i = 0; i < count; i++) {
			TSNode item = ts_node_named_child(val, i);
			if (tl_toml__is(item, "comment"))
				continue;
			if (!tl_toml__is(item, "string")) {
				e.kind = TL_TOML_OTHER;
				continue;
			}
			tl_array_push(&e.array, tl_toml__string(c, item));
		}
	} else {
		e.kind = TL_TOML_OTHER;
	}
	for (uint32_t i = 0; i < c->doc->entries.size; i++) {
		const TlTomlEntry *o = &c->doc->entries.items[i];
		if (strcmp(o->table, e.table) == 0 && strcmp(o->key, e.key) == 0)
			tl_toml__fail(c, key, "duplicate key");
	}
	tl_array_push(&c->doc->entries, e);
}

static void tl_toml__first_error(TlTomlCtx *c, TSNode root)
{
	TSTreeCursor cur = ts_tree_cursor_new(root);
	do {
		TSNode n = ts_tree_cursor_current_node(&cur);
		if (ts_node_is_error(n) || ts_node_is_missing(n)) {
			tl_toml__fail(c, n, ts_node_is_missing(n) ? "incomplete value or key"
								 : "invalid TOML syntax");
			break;
		}
	} while (tl_walk_next(&cur, root, ts_node_has_error(ts_tree_cursor_current_node(&cur))));
	ts_tree_cursor_delete(&cur);
}

bool tl_toml_parse(TlToml *doc, const char *text, size_t len, char *why, size_t why_size)
{
	tl_array_init(&doc->entries);
	TlTomlCtx c = { text, doc, why, why_size, false };
	TSParser *parser = ts_parser_new();
	ts_parser_set_language(parser, tree_sitter_toml());
	TSTree *tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)len);
	TSNode root = ts_tree_root_node(tree);
	if (ts_node_has_error(root))
		tl_toml__first_error(&c, root);
	uint32_t count = ts_node_named_child_count(root);
	for (uint32_t i = 0; i < count && !c.failed; i++) {
		TSNode n = ts_node_named_child(root, i);
		if (tl_toml__is(n, "pair")) {
			tl_toml__pair(&c, "", n);
		} else if (tl_toml__is(n, "table") || tl_toml__is(n, "table_array_element")) {
			TlBuf name;
			tl_buf_init(&name);
			uint32_t kids = ts_node_named_child_count(n);
			uint32_t k = 0;
			if (kids && !tl_toml__is(ts_node_named_child(n, 0), "pair") &&
			    !tl_toml__is(ts_node_named_child(n, 0), "comment")) {
				tl_toml__key(&c, ts_node_named_child(n, 0), &name);
				k = 1;
			}
			for (; k < kids; k++) {
				TSNode p = ts_node_named_child(n, k);
				if (tl_toml__is(p, "pair"))
					tl_toml__pair(&c, name.data, p);
			}
			tl_buf_release(&name);
		}
	}
	ts_tree_delete(tree);
	ts_parser_delete(parser);
	if (c.failed) {
		tl_toml_release(doc);
		return false;
	}
	return true;
}

void tl_toml_release(TlToml *doc)
{
	for (uint32_t i = 0; i < doc->entries.size; i++) {
		TlTomlEntry *e = &doc->entries.items[i];
		tl_free(e->table);
		tl_free(e->key);
		tl_free(e->str);
		tl_str_array_release(&e->array);
	}
	tl_array_release(&doc->entries);
}

const TlTomlEntry *tl_toml_get(const TlToml *doc, const char *table, const char *key)
{
	for (uint32_t i = 0; i < doc->entries.size; i++) {
		const TlTomlEntry *e = &doc->entries.items[i];
		if (strcmp(e->table, table) == 0 && strcmp(e->key, key) == 0)
			return e;
	}
	return NULL;
}
