/* Typed access paths (path.h). */
#include "model/path.h"

#include <string.h>

#include "base/alloc.h"
#include "syntax/syms.h"
#include "syntax/treewalk.h"

void tl_path_names_init(TlPathNames *t)
{
	tl_strmap_init(&t->ids);
	tl_array_init(&t->names);
}

void tl_path_names_release(TlPathNames *t)
{
	tl_strmap_release(&t->ids);
	tl_str_array_release(&t->names);
}

int32_t tl_path_intern(TlPathNames *t, const char *s, size_t len)
{
	int32_t id;
	if (tl_strmap_get(&t->ids, s, len, &id))
		return id;
	id = (int32_t)t->names.size;
	tl_array_push(&t->names, tl_strndup(s, len));
	tl_strmap_put(&t->ids, s, len, id);
	return id;
}

int32_t tl_path_lookup(const TlPathNames *t, const char *s, size_t len)
{
	int32_t id;
	return tl_strmap_get(&t->ids, s, len, &id) ? id : -1;
}

/* A constant key's selector: a string's or an integer's text. */
static bool tl_path__key(TlPathNames *t, const TlIndex *idx, TSNode k, int32_t *sel)
{
	const TlSyms *sy = tl_syms();
	k = tl_index_unparen(k);
	if (ts_node_is_null(k))
		return false;
	TSSymbol s = ts_node_symbol(k);
	if (s != sy->string && s != sy->integer)
		return false;
	uint32_t len = 0;
	const char *txt = tl_index_text(idx, k, &len);
	if (!txt || len > 256)
		return false;
	/* "loss" and 'loss' are one key. */
	if (s == sy->string && len >= 2 && (txt[0] == '\'' || txt[0] == '"') && txt[len - 1] == txt[0]) {
		char buf[260];
		buf[0] = '"';
		memcpy(buf + 1, txt + 1, len - 2);
		buf[len - 1] = '"';
		*sel = TL_PATH_KEY(tl_path_intern(t, buf, len));
		return true;
	}
	*sel = TL_PATH_KEY(tl_path_intern(t, txt, len));
	return true;
}

int32_t tl_path_key_id(TlPathNames *t, const TlIndex *idx, TSNode key)
{
	int32_t sel;
	return tl_path__key(t, idx, key, &sel) ? TL_PATH_KEY_ID(sel) : -1;
}

int32_t tl_path_name_key_id(TlPathNames *t, const char *name, size_t len)
{
	if (len > 256)
		return -1;
	char buf[260];
	buf[0] = '"';
	memcpy(buf + 1, name, len);
	buf[len + 1] = '"';
	return tl_path_intern(t, buf, len + 2);
}

bool tl_path_of(TlPathNames *t, const TlIndex *idx, TSNode n, TlPath *out)
{
	const TlSyms *sy = tl_syms();
	/* Walk down the chain to its root, keeping the selectors in reverse. */
	int32_t rev[32];
	uint32_t k = 0;
	bool cut = false;
	n = tl_index_unparen(n);
	for (;;) {
		if (ts_node_is_null(n))
			return false;
		TSSymbol s = ts_node_symbol(n);
		int32_t sel;
		if (s == sy->identifier) {
			uint32_t len = 0;
			const char *txt = tl_index_text(idx, n, &len);
			if (!txt)
				return false;
			memset(out, 0, sizeof *out);
			out->root = tl_path_intern(t, txt, len);
			/* The selectors nearest the root are kept. */
			uint32_t keep = k < TL_PATH_SELECTORS ? k : TL_PATH_SELECTORS;
			for (uint32_t i = 0; i < keep; i++)
				out->sel[i] = rev[k - 1 - i];
			out->n = (uint8_t)keep;
			out->cut = cut || keep < k;
			return true;
		}
		if (s == sy->attribute) {
			uint32_t len = 0;
			const char *txt = tl_index_text(idx, tl_tree_field(n, sy->f_attribute), &len);
			if (!txt)
				return false;
			sel = tl_path_intern(t, txt, len);
			n = tl_index_unparen(tl_tree_field(n, sy->f_object));
		} else if (s == sy->subscript) {
			TSNode key = tl_tree_field(n, sy->f_subscript);
			if (!tl_path__key(t, idx, key, &sel))
				sel = TL_PATH_ANY;
			n = tl_index_unparen(tl_tree_field(n, sy->f_value));
		} else {
			return false;
		}
		if (k < sizeof rev / sizeof *rev)
			rev[k++] = sel;
		else
			cut = true; /* deeper than 32: only the outermost 32 are seen, then cut */
	}
}

bool tl_path_of_dotted(TlPathNames *t, const char *dotted, TlPath *out)
{
	memset(out, 0, sizeof *out);
	const char *p = dotted;
	const char *dot = strchr(p, '.');
	size_t len = dot ? (size_t)(dot - p) : strlen(p);
	if (!len)
		return false;
	out->root = tl_path_intern(t, p, len);
	while (dot) {
		p = dot + 1;
		dot = strchr(p, '.');
		len = dot ? (size_t)(dot - p) : strlen(p);
		if (out->n >= TL_PATH_SELECTORS) {
			out->cut = true;
			break;
		}
		out->sel[out->n++] = tl_path_intern(t, p, len);
	}
	return true;
}

bool tl_path_equal(const TlPath *a, const TlPath *b)
{
	return a->root == b->root && a->n == b->n &&
	       memcmp(a->sel, b->sel, a->n * sizeof *a->sel) == 0;
}

bool tl_path_prefix(const TlPath *a, const TlPath *b)
{
	return a->root == b->root && a->n <= b->n &&
	       memcmp(a->sel, b->sel, a->n * sizeof *a->sel) == 0;
}

uint32_t tl_path_hash(const TlPath *p)
{
	uint32_t h = 2166136261u ^ (uint32_t)p->root;
	h *= 16777619u;
	for (uint32_t i = 0; i < p->n; i++) {
		h ^= (uint32_t)p->sel[i];
		h *= 16777619u;
	}
	return h;
}

bool tl_path_up(const TlPath *p, TlPath *out)
{
	if (!p->n)
		return false;
	*out = *p;
	out->n--;
	out->cut = false;
	return true;
}

void tl_path_print(const TlPathNames *t, const TlPath *p, TlBuf *out)
{
	if (p->root >= 0 && (uint32_t)p->root < t->names.size)
		tl_buf_add(out, t->names.items[p->root]);
	for (uint32_t i = 0; i < p->n; i++) {
		int32_t s = p->sel[i];
		if (s == TL_PATH_ANY) {
			tl_buf_add(out, "[*]");
		} else if (TL_PATH_IS_KEY(s)) {
			tl_buf_addc(out, '[');
			tl_buf_add(out, t->names.items[TL_PATH_KEY_ID(s)]);
			tl_buf_addc(out, ']');
		} else {
			tl_buf_addc(out, '.');
			tl_buf_add(out, t->names.items[s]);
		}
	}
	if (p->cut)
		tl_buf_add(out, "...");
}
