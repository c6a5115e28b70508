#include "rules/fix.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/toml.h"

/* ---- specs ------------------------------------------------------------------- */

static const char *const tl_fix__ops[] = {
	"replace", "insert-before", "insert-after", "append-argument", "prepend-argument",
};

static bool tl_fix__error(FILE *err, const char *path, const TlTomlValue *at, const char *what)
{
	fprintf(err, "%s:%u:%u: error: %s\n", path, at ? at->line : 1, at ? at->column : 1, what);
	return false;
}

static char *tl_fix__capture_name(const char *s)
{
	return tl_strdup(s[0] == '@' ? s + 1 : s);
}

static bool tl_fix__strings(const TlTomlValue *v, TlStrArray *into, bool names)
{
	if (!v || v->type != TL_TOML_T_ARRAY)
		return false;
	for (uint32_t i = 0; i < v->items.size; i++) {
		if (v->items.items[i]->type != TL_TOML_T_STRING)
			return false;
		const char *t = v->items.items[i]->text;
		tl_array_push(into, names ? tl_fix__capture_name(t) : tl_strdup(t));
	}
	return true;
}

static bool tl_fix__edit(TlFixSpec *spec, const TlTomlValue *e, const char *path, FILE *err)
{
	if (e->type != TL_TOML_T_TABLE)
		return tl_fix__error(err, path, e, "each of a fix's 'edits' is a table such as { replace = \"_x\", text = \"...\" }");
	TlEditSpec es = { TL_EDIT_REPLACE, NULL, NULL };
	int ops = 0;
	for (uint32_t i = 0; i < e->members.size; i++) {
		const TlTomlMember *m = &e->members.items[i];
		bool known = false;
		for (int k = 0; k < 5; k++)
			if (strcmp(m->key, tl_fix__ops[k]) == 0) {
				known = true;
				ops++;
				es.op = (TlEditOp)k;
				if (m->value->type != TL_TOML_T_STRING) {
					tl_free(es.capture);
					tl_free(es.text);
					return tl_fix__error(err, path, m->value, "an edit's capture must be a string");
				}
				tl_free(es.capture);
				es.capture = tl_fix__capture_name(m->value->text);
			}
		if (strcmp(m->key, "text") == 0) {
			known = true;
			if (m->value->type != TL_TOML_T_STRING) {
				tl_free(es.capture);
				tl_free(es.text);
				return tl_fix__error(err, path, m->value, "an edit's 'text' must be a string");
			}
			es.text = tl_strdup(m->value->text);
		}
		if (!known) {
			tl_free(es.capture);
			tl_free(es.text);
			return tl_fix__error(err, path, m->value, "unknown key in an edit (replace, insert-before, "
								  "insert-after, append-argument, prepend-argument, text)");
		}
	}
	if (ops != 1 || !es.text) {
		tl_free(es.capture);
		tl_free(es.text);
		return tl_fix__error(err, path, e, "an edit needs exactly one operation (replace, insert-before, "
						   "insert-after, append-argument, prepend-argument) and a 'text'");
	}
	tl_array_push(&spec->edits, es);
	return true;
}

static void tl_fix__spec_release(TlFixSpec *s)
{
	tl_free(s->title);
	for (uint32_t i = 0; i < s->edits.size; i++) {
		tl_free(s->edits.items[i].capture);
		tl_free(s->edits.items[i].text);
	}
	tl_array_release(&s->edits);
	tl_str_array_release(&s->unless);
	for (uint32_t i = 0; i < s->when.size; i++) {
		tl_free(s->when.items[i].capture);
		tl_str_array_release(&s->when.items[i].texts);
	}
	tl_array_release(&s->when);
	tl_free(s->keyword_only);
}

static bool tl_fix__spec(TlFixSpec *spec, const TlTomlValue *t, const char *path, FILE *err)
{
	const TlTomlValue *title = tl_toml_table_get(t, "title");
	const TlTomlValue *app = tl_toml_table_get(t, "applicability");
	const TlTomlValue *edits = tl_toml_table_get(t, "edits");
	if (!title || title->type != TL_TOML_T_STRING)
		return tl_fix__error(err, path, t, "a [[fix]] needs a 'title' string");
	spec->title = tl_strdup(title->text);
	if (!app || app->type != TL_TOML_T_STRING ||
	    (strcmp(app->text, "safe") != 0 && strcmp(app->text, "unsafe") != 0))
		return tl_fix__error(err, path, app ? app : t, "a [[fix]] needs 'applicability' = \"safe\" or \"unsafe\"");
	spec->applicability = strcmp(app->text, "safe") == 0 ? TL_FIX_SAFE : TL_FIX_UNSAFE;
	if (!edits || edits->type != TL_TOML_T_ARRAY || !edits->items.size)
		return tl_fix__error(err, path, edits ? edits : t, "a [[fix]] needs a non-empty 'edits' list");
	for (uint32_t i = 0; i < edits->items.size; i++)
		if (!tl_fix__edit(spec, edits->items.items[i], path, err))
			return false;
	for (uint32_t i = 0; i < t->members.size; i++) {
		const TlTomlMember *m = &t->members.items[i];
		if (strcmp(m->key, "unless") == 0) {
			if (!tl_fix__strings(m->value, &spec->unless, true))
				return tl_fix__error(err, path, m->value, "'unless' is a list of capture names");
		} else if (strcmp(m->key, "keyword-arguments-only") == 0) {
			if (m->value->type != TL_TOML_T_STRING)
				return tl_fix__error(err, path, m->value, "'keyword-arguments-only' names a capture");
			spec->keyword_only = tl_fix__capture_name(m->value->text);
		} else if (strcmp(m->key, "when") == 0) {
			if (m->value->type != TL_TOML_T_TABLE)
				return tl_fix__error(err, path, m->value, "'when' is a table: { capture = [\"text\", ...] }");
			for (uint32_t k = 0; k < m->value->members.size; k++) {
				const TlTomlMember *w = &m->value->members.items[k];
				TlFixWhen fw;
				fw.capture = tl_fix__capture_name(w->key);
				tl_array_init(&fw.texts);
				bool ok = tl_fix__strings(w->value, &fw.texts, false);
				tl_array_push(&spec->when, fw);
				if (!ok)
					return tl_fix__error(err, path, w->value, "each 'when' entry is a list of strings");
			}
		} else if (strcmp(m->key, "title") != 0 && strcmp(m->key, "applicability") != 0 &&
			   strcmp(m->key, "edits") != 0) {
			return tl_fix__error(err, path, m->value, "unknown key in a [[fix]] (title, applicability, "
								  "edits, unless, when, keyword-arguments-only)");
		}
	}
	return true;
}

bool tl_fix_specs_load(TlFixSpecs *specs, const struct TlToml *doc, const char *path, FILE *err)
{
	const TlTomlValue *fixes = tl_toml_table_get(doc->root, "fix");
	if (!fixes)
		return true;
	if (fixes->type != TL_TOML_T_ARRAY)
		return tl_fix__error(err, path, fixes, "'fix' must be written as [[fix]] tables");
	for (uint32_t i = 0; i < fixes->items.size; i++) {
		const TlTomlValue *t = fixes->items.items[i];
		if (t->type != TL_TOML_T_TABLE)
			return tl_fix__error(err, path, t, "'fix' must be written as [[fix]] tables");
		TlFixSpec spec;
		memset(&spec, 0, sizeof spec);
		if (!tl_fix__spec(&spec, t, path, err)) {
			tl_fix__spec_release(&spec);
			return false;
		}
		tl_array_push(specs, spec);
	}
	return true;
}

/* Calls `fn` on every capture name `spec` mentions (edits, their templates,
 * conditions); stops and returns false when fn does. */
static bool tl_fix__each_capture(const TlFixSpec *spec, bool edits_only,
				 bool (*fn)(const char *name, size_t len, void *data), void *data)
{
	for (uint32_t i = 0; i < spec->edits.size; i++) {
		const TlEditSpec *e = &spec->edits.items[i];
		if (!fn(e->capture, strlen(e->capture), data))
			return false;
		for (const char *p = e->text; *p; p++) {
			if (p[0] == '{' && p[1] == '{') {
				p++;
				continue;
			}
			if (*p != '{')
				continue;
			const char *close = strchr(p, '}');
			if (!close)
				break;
			size_t len = strcspn(p + 1, "!}");
			if (!fn(p + 1, len, data))
				return false;
			p = close;
		}
	}
	if (edits_only)
		return true;
	for (uint32_t i = 0; i < spec->unless.size; i++)
		if (!fn(spec->unless.items[i], strlen(spec->unless.items[i]), data))
			return false;
	for (uint32_t i = 0; i < spec->when.size; i++)
		if (!fn(spec->when.items[i].capture, strlen(spec->when.items[i].capture), data))
			return false;
	return !spec->keyword_only || fn(spec->keyword_only, strlen(spec->keyword_only), data);
}

typedef struct TlFixCheck {
	TlFixCapture has;
	void *data;
	const char *path;
	FILE *err;
} TlFixCheck;

static bool tl_fix__check_one(const char *name, size_t len, void *data)
{
	TlFixCheck *c = data;
	bool ok = c->has(c->data, name, len, NULL);
	if (!ok)
		fprintf(c->err, "%s: error: a [[fix]] names capture '@%.*s', which the rule's query does not have\n",
			c->path, (int)len, name);
	return ok;
}

bool tl_fix_specs_check(const TlFixSpecs *specs, TlFixCapture has, void *data, const char *path,
			FILE *err)
{
	TlFixCheck c = { has, data, path, err };
	for (uint32_t i = 0; i < specs->size; i++)
		if (!tl_fix__each_capture(&specs->items[i], false, tl_fix__check_one, &c))
			return false;
	return true;
}

void tl_fix_specs_release(TlFixSpecs *specs)
{
	for (uint32_t i = 0; i < specs->size; i++)
		tl_fix__spec_release(&specs->items[i]);
	tl_array_release(specs);
}

void tl_edits_release(TlEdits *edits)
{
	for (uint32_t i = 0; i < edits->size; i++)
		tl_free(edits->items[i].text);
	tl_array_release(edits);
}

/* ---- building a finding's edits --------------------------------------------------- */

typedef struct TlFixMatch {
	TlFixCapture capture;
	void *data;
	const TlSource *src;
} TlFixMatch;

static bool tl_fix__node(const TlFixMatch *fm, const char *name, size_t len, TSNode *out)
{
	return fm->capture(fm->data, name, len, out);
}

static bool tl_fix__present(const char *name, size_t len, void *data)
{
	TSNode n;
	return tl_fix__node(data, name, len, &n);
}

static bool tl_fix__text_is(const TlSource *src, TSNode n, const char *s)
{
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	return strlen(s) == b - a && memcmp(src->text + a, s, b - a) == 0;
}

/* Node types that need no parentheses before `.attr` or `(...)`. */
static bool tl_fix__primary(TSNode n)
{
	static const char *const types[] = {
		"identifier", "attribute", "call", "subscript", "parenthesized_expression", "list",
		"dictionary", "set", "tuple", "string", "concatenated_string", "integer", "float",
		"true", "false", "none", "list_comprehension", "dictionary_comprehension",
		"set_comprehension", "generator_expression",
	};
	const char *t = ts_node_type(n);
	for (size_t i = 0; i < sizeof types / sizeof *types; i++)
		if (strcmp(t, types[i]) == 0)
			return strcmp(t, "tuple") != 0 || (ts_node_child_count(n) && strcmp(ts_node_type(ts_node_child(n, 0)), "(") == 0);
	return false;
}

static void tl_fix__render(const TlFixMatch *fm, const char *template, TlBuf *out)
{
	for (const char *p = template; *p; p++) {
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			tl_buf_addc(out, *p++);
			continue;
		}
		const char *close = *p == '{' ? strchr(p, '}') : NULL;
		if (!close) {
			tl_buf_addc(out, *p);
			continue;
		}
		size_t len = strcspn(p + 1, "!}");
		bool primary = p[1 + len] == '!' && strncmp(p + 2 + len, "primary}", 8) == 0;
		bool indent = p[1 + len] == '!' && strncmp(p + 2 + len, "indent}", 7) == 0;
		TSNode n;
		if (indent && tl_fix__node(fm, p + 1, len, &n)) {
			/* The blanks that open the capture's line, when only blanks
			 * come before it there: a statement inserted before it on a
			 * line of its own gets the same indentation. */
			uint32_t a = ts_node_start_byte(n), k = a;
			while (k > 0 && (fm->src->text[k - 1] == ' ' || fm->src->text[k - 1] == '\t'))
				k--;
			if (k == 0 || fm->src->text[k - 1] == '\n')
				tl_buf_addn(out, fm->src->text + k, a - k);
		} else if (tl_fix__node(fm, p + 1, len, &n)) {
			uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
			bool wrap = primary && !tl_fix__primary(n);
			if (wrap)
				tl_buf_addc(out, '(');
			tl_buf_addn(out, fm->src->text + a, b - a);
			if (wrap)
				tl_buf_addc(out, ')');
		}
		p = close;
	}
}

/* The arguments of argument_list `args` that are not comments. */
static uint32_t tl_fix__arguments(TSNode args, TSNode *first, TSNode *last)
{
	uint32_t n = 0, count = ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(args, i);
		if (strcmp(ts_node_type(c), "comment") == 0)
			continue;
		if (!n++)
			*first = c;
		*last = c;
	}
	return n;
}

static bool tl_fix__keyword_only(TSNode args)
{
	uint32_t count = ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count; i++) {
		const char *t = ts_node_type(ts_node_named_child(args, i));
		if (strcmp(t, "comment") != 0 && strcmp(t, "keyword_argument") != 0 &&
		    strcmp(t, "dictionary_splat") != 0)
			return false;
	}
	return true;
}

static void tl_fix__push(TlEdits *edits, uint32_t start, uint32_t end, char *text)
{
	TlEdit e;
	memset(&e, 0, sizeof e);
	e.start = start;
	e.end = end;
	e.text = text;
	tl_array_push(edits, e);
}

/* The edit of `es` on `n`, with `text` rendered; takes `text`. */
static bool tl_fix__edit_on(const TlSource *src, const TlEditSpec *es, TSNode n, char *text, TlEdits *edits)
{
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	switch (es->op) {
	case TL_EDIT_REPLACE: tl_fix__push(edits, a, b, text); return true;
	case TL_EDIT_INSERT_BEFORE: tl_fix__push(edits, a, a, text); return true;
	case TL_EDIT_INSERT_AFTER: tl_fix__push(edits, b, b, text); return true;
	case TL_EDIT_APPEND_ARGUMENT:
	case TL_EDIT_PREPEND_ARGUMENT: {
		if (strcmp(ts_node_type(n), "argument_list") != 0 || b - a < 2 || src->text[b - 1] != ')') {
			tl_free(text);
			return false; /* a generator argument, or a broken list */
		}
		TSNode first, last;
		uint32_t count = tl_fix__arguments(n, &first, &last);
		TlBuf t;
		tl_buf_init(&t);
		if (!count) {
			tl_buf_add(&t, text);
			tl_fix__push(edits, b - 1, b - 1, tl_buf_detach(&t));
		} else if (es->op == TL_EDIT_PREPEND_ARGUMENT) {
			tl_buf_addf(&t, "%s, ", text);
			tl_fix__push(edits, ts_node_start_byte(first), ts_node_start_byte(first), tl_buf_detach(&t));
		} else {
			/* After the last argument, keeping a trailing comma last. */
			uint32_t at = ts_node_end_byte(last);
			uint32_t k = at;
			while (k < b - 1 && (src->text[k] == ' ' || src->text[k] == '\t'))
				k++;
			if (k < b - 1 && src->text[k] == ',') {
				tl_buf_addf(&t, " %s,", text);
				at = k + 1;
			} else {
				tl_buf_addf(&t, ", %s", text);
			}
			tl_fix__push(edits, at, at, tl_buf_detach(&t));
		}
		tl_buf_release(&t);
		tl_free(text);
		return true;
	}
	}
	tl_free(text);
	return false;
}

const TlFixSpec *tl_fix_build(const TlFixSpecs *specs, TlFixCapture capture, void *data,
			      const TlSource *src, TlEdits *edits)
{
	TlFixMatch fm = { capture, data, src };
	for (uint32_t i = 0; i < specs->size; i++) {
		const TlFixSpec *spec = &specs->items[i];
		/* Every capture the edits and their templates name is in the match. */
		bool ok = tl_fix__each_capture(spec, true, tl_fix__present, &fm);
		for (uint32_t k = 0; k < spec->unless.size && ok; k++)
			ok = !tl_fix__present(spec->unless.items[k], strlen(spec->unless.items[k]), &fm);
		for (uint32_t k = 0; k < spec->when.size && ok; k++) {
			const TlFixWhen *w = &spec->when.items[k];
			TSNode n;
			ok = tl_fix__node(&fm, w->capture, strlen(w->capture), &n);
			bool any = false;
			for (uint32_t j = 0; ok && j < w->texts.size && !any; j++)
				any = tl_fix__text_is(src, n, w->texts.items[j]);
			ok = ok && any;
		}
		if (ok && spec->keyword_only) {
			TSNode n;
			ok = tl_fix__node(&fm, spec->keyword_only, strlen(spec->keyword_only), &n) &&
			     tl_fix__keyword_only(n);
		}
		if (!ok)
			continue;
		uint32_t before = edits->size;
		for (uint32_t k = 0; k < spec->edits.size && ok; k++) {
			const TlEditSpec *e = &spec->edits.items[k];
			TSNode n;
			tl_fix__node(&fm, e->capture, strlen(e->capture), &n);
			TlBuf t;
			tl_buf_init(&t);
			tl_fix__render(&fm, e->text, &t);
			ok = tl_fix__edit_on(src, e, n, tl_buf_detach(&t), edits);
		}
		for (uint32_t k = before; ok && k < edits->size; k++) {
			edits->items[k].start_pos = tl_source_position(src, edits->items[k].start);
			edits->items[k].end_pos = tl_source_position(src, edits->items[k].end);
		}
		if (ok)
			return spec;
		while (edits->size > before)
			tl_free(edits->items[--edits->size].text);
	}
	return NULL;
}

/* ---- applying fixes ----------------------------------------------------------------------- */

typedef struct TlFixTaken {
	uint32_t start, end;
	const char *text;
} TlFixTaken;

static int tl_fix__cmp_taken(const void *a, const void *b)
{
	const TlFixTaken *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

typedef struct TlFixOrder {
	uint32_t index, start;
} TlFixOrder;

static int tl_fix__cmp_order(const void *a, const void *b)
{
	const TlFixOrder *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static bool tl_fix__overlaps(const TlFixTaken *t, uint32_t n, uint32_t start, uint32_t end)
{
	for (uint32_t i = 0; i < n; i++) {
		if (start < t[i].end && t[i].start < end)
			return true;
		/* Two edits at one point (two insertions, or an insertion at a
		 * replacement's edge) would depend on their order: one per round. */
		bool point = start == end, other_point = t[i].start == t[i].end;
		if (start == t[i].start || (point && start == t[i].end) || (other_point && t[i].start == end))
			return true;
	}
	return false;
}

uint32_t tl_fix_apply(const char *text, size_t len, const TlFixChoice *choices, uint32_t count,
		      TlApplicability allowed, TlBuf *out, bool *taken)
{
	TlArray(TlFixOrder) order;
	tl_array_init(&order);
	for (uint32_t i = 0; i < count; i++) {
		if (taken)
			taken[i] = false;
		const TlFixChoice *c = &choices[i];
		if (c->applicability == TL_FIX_NONE || c->applicability > allowed || !c->edits->size)
			continue;
		uint32_t start = UINT32_MAX;
		for (uint32_t k = 0; k < c->edits->size; k++)
			if (c->edits->items[k].start < start)
				start = c->edits->items[k].start;
		TlFixOrder o = { i, start };
		tl_array_push(&order, o);
	}
	tl_array_sort(&order, tl_fix__cmp_order);
	TlArray(TlFixTaken) all;
	tl_array_init(&all);
	uint32_t applied = 0;
	for (uint32_t i = 0; i < order.size; i++) {
		const TlEdits *e = choices[order.items[i].index].edits;
		bool ok = true;
		for (uint32_t k = 0; k < e->size && ok; k++) {
			const TlEdit *x = &e->items[k];
			ok = x->start <= x->end && x->end <= len && !tl_fix__overlaps(all.items, all.size, x->start, x->end);
			/* Edits of one fix must not overlap each other either. */
			for (uint32_t j = 0; j < k && ok; j++)
				ok = !(x->start < e->items[j].end && e->items[j].start < x->end) &&
				     !(x->start == e->items[j].start);
		}
		if (!ok)
			continue;
		for (uint32_t k = 0; k < e->size; k++) {
			TlFixTaken t = { e->items[k].start, e->items[k].end, e->items[k].text };
			tl_array_push(&all, t);
		}
		if (taken)
			taken[order.items[i].index] = true;
		applied++;
	}
	tl_array_sort(&all, tl_fix__cmp_taken);
	uint32_t at = 0;
	for (uint32_t i = 0; i < all.size; i++) {
		tl_buf_addn(out, text + at, all.items[i].start - at);
		tl_buf_add(out, all.items[i].text);
		at = all.items[i].end;
	}
	tl_buf_addn(out, text + at, len - at);
	tl_array_release(&all);
	tl_array_release(&order);
	return applied;
}
