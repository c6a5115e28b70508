/* Names: the dotted name an expression spells (`self.model.fc`), the
 * import-qualified name it stands for (`nn.Linear` -> `torch.nn.Linear`),
 * and name resolution: which binding a name refers to at a point of the
 * code, through the scoped name table the index fills (TlIndex.name_ids,
 * TlIndex.scoped, TlIndex.name_lists).
 *
 * Names the source spells out are read from the source text, without a
 * buffer; resolution probes one integer table per enclosing scope; the
 * binding a node resolves to is kept per node (TlIndex.memo). Everything
 * here reads the index only (the memo aside) and allocates only what it
 * returns.
 *
 * Owns: tl_index_dotted, tl_index_dotted_dup, tl_index_qualify,
 * tl_index_bindings_of, tl_index_attr_bindings, tl_index_method, tl_index_resolve,
 * tl_index_resolve_node, and the private helpers of index_internal.h. */
#include "syntax/index_internal.h"

#include <string.h>

#include "base/alloc.h"
#include "syntax/syms.h"
#include "syntax/treewalk.h"

/* Bounds on chains followed through bindings (alias of an alias of ...):
 * real code needs two or three steps; the bound keeps adversarial input
 * from making the walk long (as in index.c). */
#define TL_ALIAS_DEPTH 8

/* ASCII bytes of a plain dotted name: 1 a byte that may start a name (a
 * letter, '_'), 2 a digit, 3 a dot, 0 anything else. A byte >= 0x80 (part
 * of a non-ASCII letter) counts as 1. */
static const uint8_t tl_index__name_class[128] = {
	['0'] = 2, ['1'] = 2, ['2'] = 2, ['3'] = 2, ['4'] = 2,
	['5'] = 2, ['6'] = 2, ['7'] = 2, ['8'] = 2, ['9'] = 2,
	['.'] = 3, ['_'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1,
	['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1,
	['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1,
	['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1,
	['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
	['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1,
	['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
};

/* The number of dots when the text is a plain dotted name (`self.model.fc`:
 * names that do not start with a digit, joined by single dots, nothing
 * else), or -1. */
static int32_t tl_index__plain_dots(const char *t, uint32_t len)
{
	int32_t dots = 0;
	bool start = true; /* at the start of a name */
	for (uint32_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)t[i];
		uint8_t k = c >= 0x80 ? 1 : tl_index__name_class[c];
		if (k == 1 || (k == 2 && !start)) {
			start = false;
		} else if (k == 3 && !start) {
			dots++;
			start = true;
		} else {
			return -1;
		}
	}
	return start ? -1 : dots;
}

/* The dotted name of `n` when the source spells it out (an identifier, or
 * an attribute chain written as a plain dotted name, with no parentheses,
 * spaces or comments in it): borrowed from the source, *len its length.
 * NULL otherwise (tl_index_dotted may still find one). */
const char *tl_index__plain_name(const TlIndex *idx, TSNode n, uint32_t *len)
{
	const TlSyms *sy = tl_syms();
	n = tl_index_unparen(n);
	if (ts_node_is_null(n))
		return NULL;
	TSSymbol s = ts_node_symbol(n);
	if (s == sy->identifier)
		return tl_index_text(idx, n, len);
	if (s != sy->attribute)
		return NULL;
	/* Check that it is such a chain (objects first children, down to an
	 * identifier, a dot for each level) without asking for fields. */
	const char *t = tl_index_text(idx, n, len);
	int32_t dots = tl_index__plain_dots(t, *len);
	if (dots <= 0)
		return NULL;
	TSNode r = n;
	int32_t levels = 0;
	while (levels <= dots && ts_node_symbol(r) == sy->attribute) {
		r = ts_node_child(r, 0);
		levels++;
	}
	if (levels == dots && !ts_node_is_null(r) && ts_node_symbol(r) == sy->identifier &&
	    ts_node_start_byte(r) == ts_node_start_byte(n))
		return t;
	return NULL;
}

bool tl_index_dotted(const TlIndex *idx, TSNode n, TlBuf *out)
{
	const TlSyms *sy = tl_syms();
	uint32_t len;
	const char *t = tl_index__plain_name(idx, n, &len);
	if (t) {
		tl_buf_addn(out, t, len);
		return true;
	}
	/* Collect the attribute names from the outside in, then emit them in
	 * reverse: iterative, whatever the chain's length. */
	TlArray(TSNode) parts;
	tl_array_init(&parts);
	bool ok = false;
	n = tl_index_unparen(n);
	while (!ts_node_is_null(n)) {
		TSSymbol s = ts_node_symbol(n);
		if (s == sy->identifier) {
			tl_array_push(&parts, n);
			ok = true;
			break;
		}
		if (s != sy->attribute)
			break;
		tl_array_push(&parts, tl_tree_field(n, sy->f_attribute));
		n = tl_index_unparen(tl_tree_field(n, sy->f_object));
	}
	if (ok) {
		for (uint32_t i = parts.size; i > 0; i--) {
			t = tl_index_text(idx, parts.items[i - 1], &len);
			tl_buf_addn(out, t, len);
			if (i > 1)
				tl_buf_addc(out, '.');
		}
	}
	tl_array_release(&parts);
	return ok;
}

char *tl_index_dotted_dup(const TlIndex *idx, TSNode n)
{
	TlBuf b;
	tl_buf_init(&b);
	if (!tl_index_dotted(idx, n, &b)) {
		tl_buf_release(&b);
		return NULL;
	}
	return tl_buf_detach(&b);
}

const char *tl_index_dotted_view(const TlIndex *idx, TSNode n, char *buf, size_t size,
				 char **owned)
{
	uint32_t len;
	const char *t = tl_index__plain_name(idx, n, &len);
	*owned = NULL;
	if (t && len < size) {
		memcpy(buf, t, len);
		buf[len] = '\0';
		return buf;
	}
	*owned = tl_index_dotted_dup(idx, n);
	return *owned;
}

/* True when parameter `bd` (named `torch`) is a notebook cell's: a
 * decorated function (marimo's `@app.cell def _(nn, torch): ...`) whose
 * parameters are the names other cells define, in a file where a cell
 * imports the torch module under that name. */
static bool tl_index__cell_param(const TlIndex *idx, const TlBinding *bd)
{
	if (bd->func < 0 || (uint32_t)bd->func >= idx->funcs.size || !ts_node_is_null(bd->value))
		return false;
	const TlFunc *fn = &idx->funcs.items[bd->func];
	if (fn->parent >= 0 || fn->cls >= 0 || ts_node_eq(fn->outer, fn->node))
		return false;
	for (int32_t f = -1; f < (int32_t)idx->funcs.size; f++) {
		const TlIntArray *bs = tl_index_bindings_of(idx, f, bd->name);
		for (uint32_t i = 0; bs && i < bs->size; i++) {
			const TlBinding *b = &idx->bindings.items[bs->items[i]];
			if (b->kind == TL_BIND_IMPORT && b->qname && strcmp(b->qname, "torch") == 0)
				return true;
		}
	}
	return false;
}

char *tl_index_qualify(const TlIndex *idx, TSNode n)
{
	/* The name is read from the source when spelled out there (most are):
	 * a buffer only once a root is replaced. */
	TlBuf b;
	bool buffered = false;
	uint32_t plen;
	const char *cur = tl_index__plain_name(idx, n, &plen);
	size_t cur_len = plen;
	if (!cur) {
		tl_buf_init(&b);
		if (!tl_index_dotted(idx, n, &b)) {
			tl_buf_release(&b);
			return NULL;
		}
		buffered = true;
		cur = b.data;
		cur_len = b.len;
	}
	char *result = NULL;
	/* Replace the root name by what it is bound to, a few times at most:
	 * `import torch.nn as nn`, then `F = nn.functional`. */
	TSNode at = n;
	for (int depth = 0; depth < TL_ALIAS_DEPTH; depth++) {
		const char *dot = memchr(cur, '.', cur_len);
		size_t root_len = dot ? (size_t)(dot - cur) : cur_len;
		if (root_len >= 256)
			break;
		const TlBinding *bd = tl_index__resolve_n(idx, cur, root_len, tl_index_func_of(idx, at),
							  ts_node_start_byte(at));
		if (!bd) {
			/* `torch` bound by no statement of a file that star-imports
			 * (`from utils import *`, whose module imports torch): the
			 * star import binds it, to the torch module. */
			if (depth == 0 && root_len == 5 && memcmp(cur, "torch", 5) == 0) {
				const TlIntArray *stars = tl_index_bindings_of(idx, -1, "*");
				if (stars && stars->size)
					result = tl_strndup(cur, cur_len);
			}
			break;
		}
		if (depth == 0 && bd->kind == TL_BIND_PARAM && root_len == 5 && memcmp(cur, "torch", 5) == 0 &&
		    tl_index__cell_param(idx, bd)) {
			result = tl_strndup(cur, cur_len);
			break;
		}
		const char *replacement = NULL;
		size_t rlen = 0;
		char *owned = NULL;
		if (bd->kind == TL_BIND_IMPORT) {
			replacement = bd->qname;
			rlen = replacement ? strlen(replacement) : 0;
		} else if (bd->kind == TL_BIND_ASSIGN && bd->elem < 0 &&
			   !ts_node_is_null(bd->value)) {
			TSNode v = tl_index_unparen(bd->value);
			TSSymbol s = ts_node_symbol(v);
			if (s == tl_syms()->attribute || s == tl_syms()->identifier) {
				uint32_t vl;
				replacement = tl_index__plain_name(idx, v, &vl);
				rlen = vl;
				if (!replacement) {
					owned = tl_index_dotted_dup(idx, v);
					replacement = owned;
					rlen = owned ? strlen(owned) : 0;
				}
				at = v;
			}
		}
		if (!replacement || (rlen == root_len && memcmp(replacement, cur, root_len) == 0)) {
			if (bd->kind == TL_BIND_IMPORT)
				result = tl_strndup(cur, cur_len);
			tl_free(owned);
			break;
		}
		TlBuf next;
		tl_buf_init(&next);
		tl_buf_addn(&next, replacement, rlen);
		tl_buf_addn(&next, cur + root_len, cur_len - root_len);
		if (buffered)
			tl_buf_release(&b);
		b = next;
		buffered = true;
		cur = b.data;
		cur_len = b.len;
		tl_free(owned);
		if (bd->kind == TL_BIND_IMPORT) {
			result = tl_buf_detach(&b);
			buffered = false;
			break;
		}
	}
	if (buffered)
		tl_buf_release(&b);
	return result;
}

const char *tl_index_qualified(const TlIndex *idx, TSNode n)
{
	int32_t k;
	if (tl_node_memo_get(idx->memo, n, TL_MEMO_CALLEE, &k))
		return idx->calls.items[k].qname;
	if (tl_node_memo_get(idx->memo, n, TL_MEMO_QUALIFY, &k))
		return k < 0 ? NULL : tl_node_memo_string(idx->memo, k);
	char *q = tl_index_qualify(idx, n);
	if (!idx->memo || !n.id) {
		/* (no table before the index is built: nowhere to keep it) */
		tl_free(q);
		return NULL;
	}
	k = q ? tl_node_memo_keep(idx->memo, q) : -1;
	tl_node_memo_put(idx->memo, n, TL_MEMO_QUALIFY, k);
	return q;
}

static uint32_t tl_index__scope_code(int tag, int32_t n)
{
	return (uint32_t)(n + 1) * 4u + (uint32_t)tag;
}

/* Whether a name of `len` bytes is looked up in scope `n` of kind `tag`:
 * the table was once keyed by "<tag><n>|<name>" strings built in a 512-byte
 * buffer, and longer keys were never found; kept, so that no answer
 * changes. */
static bool tl_index__key_fits(int tag, int32_t n, size_t len)
{
	size_t pl = tag == TL_SCOPE_FUNC ? 0 : 1;
	uint32_t v = n < 0 ? (uint32_t)-(int64_t)n : (uint32_t)n;
	if (n < 0)
		pl++;
	do {
		pl++;
		v /= 10;
	} while (v);
	return pl + 1 + len < 512;
}

/* The id of a binding name, or -1 when nothing binds it. */
static int32_t tl_index__name_id(const TlIndex *idx, const char *name, size_t len)
{
	int32_t id;
	return tl_strmap_get(&idx->name_ids, name, len, &id) ? id : -1;
}

/* The bindings of name `id` (of `len` bytes) in scope `n` of kind `tag`,
 * or NULL. */
static const TlIntArray *tl_index__named(const TlIndex *idx, int tag, int32_t n, int32_t id,
					 size_t len)
{
	int32_t slot;
	if (id < 0 || !tl_index__key_fits(tag, n, len) ||
	    !tl_scopemap_get(&idx->scoped, tl_index__scope_code(tag, n), (uint32_t)id, &slot))
		return NULL;
	return &idx->name_lists.items[slot];
}

/* Texts longer than this are not scanned (the answer is "may"): nested
 * calls would otherwise each scan the text of those inside them. */
#define TL_MENTIONS_SCAN_MAX 4096

void tl_index__name_set_init(TlNameSet *set, const TlIndex *idx)
{
	memset(set, 0, sizeof *set);
	set->ids = tl_calloc(idx->name_ids.count + 1, 1);
}

void tl_index__name_set_add(TlNameSet *set, const TlIndex *idx, const char *name)
{
	size_t len = strlen(name);
	int32_t id = tl_index__name_id(idx, name, len);
	if (id < 0 || !len)
		return;
	set->ids[id] = 1;
	set->lens |= 1ull << (len < 63 ? len : 63);
	unsigned char c = (unsigned char)name[0];
	if (c < 0x80)
		set->firsts[c >> 6] |= 1ull << (c & 63);
	else
		set->firsts[0] = set->firsts[1] = ~0ull; /* (not read: non-ASCII text is "may") */
}

void tl_index__name_set_release(TlNameSet *set)
{
	tl_free(set->ids);
	memset(set, 0, sizeof *set);
}

bool tl_index__may_mention(const TlIndex *idx, TSNode n, const TlNameSet *set)
{
	uint32_t len;
	const char *t = tl_index_text(idx, n, &len);
	if (len > TL_MENTIONS_SCAN_MAX)
		return true;
	uint32_t i = 0;
	while (i < len) {
		unsigned char c = (unsigned char)t[i];
		if (c >= 0x80)
			return true; /* a non-ASCII name: the lexer's bounds, not ours */
		if (tl_index__name_class[c] != 1) {
			i++; /* (digits too: `1if` is a number, then a name) */
			continue;
		}
		/* A name as the lexer reads it: the longest run of name bytes. */
		uint32_t start = i;
		while (i < len && (unsigned char)t[i] < 0x80 &&
		       (tl_index__name_class[(unsigned char)t[i]] == 1 ||
			tl_index__name_class[(unsigned char)t[i]] == 2))
			i++;
		if (i < len && (unsigned char)t[i] >= 0x80)
			return true;
		uint32_t wl = i - start;
		if (!(set->lens >> (wl < 63 ? wl : 63) & 1) || !(set->firsts[c >> 6] >> (c & 63) & 1))
			continue;
		int32_t id = tl_index__name_id(idx, t + start, wl);
		if (id >= 0 && set->ids[id])
			return true;
	}
	return false;
}

const TlIntArray *tl_index_bindings_of(const TlIndex *idx, int32_t func, const char *name)
{
	size_t len = strlen(name);
	return tl_index__named(idx, TL_SCOPE_FUNC, func, tl_index__name_id(idx, name, len), len);
}

const TlIntArray *tl_index_attr_bindings(const TlIndex *idx, int32_t cls, const char *name)
{
	size_t len = strlen(name);
	return tl_index__named(idx, TL_SCOPE_ATTRS, cls, tl_index__name_id(idx, name, len), len);
}

int32_t tl_index_method(const TlIndex *idx, int32_t cls, const char *name, size_t len)
{
	if (len >= 256) /* (as long as the name buffer this once used) */
		return -1;
	const TlIntArray *list = tl_index__named(idx, TL_SCOPE_METHODS, cls,
						 tl_index__name_id(idx, name, len), len);
	return list && list->size ? idx->bindings.items[list->items[list->size - 1]].ref : -1;
}

/* The latest binding of `list` visible at `pos` (UINT32_MAX: the latest). */
static const TlBinding *tl_index__latest(const TlIndex *idx, const TlIntArray *list, uint32_t pos)
{
	const TlBinding *best = NULL;
	uint32_t slot = list ? (uint32_t)(list - idx->name_lists.items) : 0;
	if (list && slot < idx->name_sorted.size && idx->name_sorted.items[slot]) {
		/* Sorted by pos: the last one at or before `pos` (the last of
		 * equals, as the scan below would take). */
		uint32_t lo = 0, hi = list->size;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (idx->bindings.items[list->items[mid]].pos <= pos)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo ? &idx->bindings.items[list->items[lo - 1]] : NULL;
	}
	for (uint32_t i = 0; list && i < list->size; i++) {
		const TlBinding *b = &idx->bindings.items[list->items[i]];
		if (b->pos <= pos && (!best || b->pos >= best->pos))
			best = b;
	}
	return best;
}

const TlBinding *tl_index__resolve_n(const TlIndex *idx, const char *name, size_t len,
					    int32_t func, uint32_t pos)
{
	int32_t id = tl_index__name_id(idx, name, len);
	if (id < 0)
		return NULL;
	/* "self.x" inside a method: this method's own earlier binding, else
	 * the class's (preferring __init__). */
	if (len >= 5 && memcmp(name, "self.", 5) == 0) {
		int32_t cls = -1;
		for (int32_t f = func; f >= 0; f = idx->funcs.items[f].parent)
			if (idx->funcs.items[f].cls >= 0) {
				cls = idx->funcs.items[f].cls;
				break;
			}
		if (cls < 0)
			return NULL;
		const TlIntArray *list = tl_index__named(idx, TL_SCOPE_ATTRS, cls, id, len);
		if (!list)
			return NULL;
		const TlBinding *own = NULL, *init = NULL, *any = NULL;
		for (uint32_t i = 0; i < list->size; i++) {
			const TlBinding *b = &idx->bindings.items[list->items[i]];
			if (b->func == func && b->pos <= pos && (!own || b->pos >= own->pos))
				own = b;
			if (b->func >= 0 && strcmp(idx->funcs.items[b->func].name, "__init__") == 0 && !init)
				init = b;
			if (!any)
				any = b;
		}
		return own ? own : init ? init : any;
	}
	uint32_t at = pos;
	for (int32_t f = func; f >= 0; f = idx->funcs.items[f].parent) {
		const TlBinding *b =
			tl_index__latest(idx, tl_index__named(idx, TL_SCOPE_FUNC, f, id, len), at);
		if (b)
			return b;
		/* A closure sees its enclosing function's bindings as they are
		 * when it is called: any of them, latest first. */
		at = UINT32_MAX;
	}
	/* Module level: code inside a function runs after the module body. */
	return tl_index__latest(idx, tl_index__named(idx, TL_SCOPE_FUNC, -1, id, len),
				func >= 0 ? UINT32_MAX : pos);
}

const TlBinding *tl_index_resolve(const TlIndex *idx, const char *name,
				  int32_t func, uint32_t pos)
{
	return tl_index__resolve_n(idx, name, strlen(name), func, pos);
}

const TlBinding *tl_index_resolve_node(const TlIndex *idx, TSNode n)
{
	/* The answer depends on the node alone (its name, function and
	 * offset) once the name tables are final: kept per node. */
	int32_t bi;
	if (tl_node_memo_get(idx->memo, n, TL_MEMO_RESOLVE, &bi))
		return bi < 0 ? NULL : &idx->bindings.items[bi];
	const TlBinding *r = NULL;
	uint32_t len;
	TSNode u = tl_index_unparen(n);
	if (!ts_node_is_null(u) && ts_node_symbol(u) == tl_syms()->attribute) {
		/* Most attribute chains (`torch.cat`, `x.shape`) name nothing the
		 * file binds: a plain one whose text is no binding name is
		 * unbound, whatever its shape (the shape's check costs a node
		 * step per dot). */
		const char *t = tl_index_text(idx, u, &len);
		if (tl_index__plain_dots(t, len) > 0 && tl_index__name_id(idx, t, len) < 0) {
			tl_node_memo_put(idx->memo, n, TL_MEMO_RESOLVE, -1);
			return NULL;
		}
	}
	const char *name = tl_index__plain_name(idx, n, &len);
	if (name) {
		r = tl_index__resolve_n(idx, name, len, tl_index_func_of(idx, n), ts_node_start_byte(n));
	} else {
		TlBuf b;
		tl_buf_init(&b);
		if (tl_index_dotted(idx, n, &b))
			r = tl_index__resolve_n(idx, b.data, b.len, tl_index_func_of(idx, n),
						ts_node_start_byte(n));
		tl_buf_release(&b);
	}
	tl_node_memo_put(idx->memo, n, TL_MEMO_RESOLVE, r ? (int32_t)(r - idx->bindings.items) : -1);
	return r;
}

const TlBinding *tl_index_resolve_prefix(const TlIndex *idx, TSNode n)
{
	const TlSyms *sy = tl_syms();
	n = tl_index_unparen(n);
	while (!ts_node_is_null(n)) {
		const TlBinding *b = tl_index_resolve_node(idx, n);
		if (b || ts_node_symbol(n) != sy->attribute)
			return b;
		n = tl_index_unparen(tl_tree_field(n, sy->f_object));
	}
	return NULL;
}

void tl_index__file(TlIndex *idx, int tag, int32_t n, const char *name, int32_t bi)
{
	size_t len = strlen(name);
	int32_t id, slot;
	if (!tl_strmap_get(&idx->name_ids, name, len, &id)) {
		id = (int32_t)idx->name_ids.count;
		tl_strmap_put(&idx->name_ids, name, len, id);
	}
	uint32_t code = tl_index__scope_code(tag, n);
	if (!tl_scopemap_get(&idx->scoped, code, (uint32_t)id, &slot)) {
		TlIntArray empty;
		tl_array_init(&empty);
		slot = (int32_t)idx->name_lists.size;
		tl_array_push(&idx->name_lists, empty);
		tl_scopemap_put(&idx->scoped, code, (uint32_t)id, slot);
	}
	tl_array_push(&idx->name_lists.items[slot], bi);
}

uint32_t tl_index_outer_names(const TlIndex *idx, TlStrMap *out)
{
	tl_strmap_init(out);
	for (uint32_t k = 0; k < idx->funcs.size; k++) {
		const TlFunc *f = &idx->funcs.items[k];
		if (f->parent >= 0 || !f->name)
			continue;
		if (f->cls >= 0 && idx->classes.items[f->cls].func >= 0)
			continue;
		tl_strmap_put(out, f->name, strlen(f->name), (int32_t)k);
	}
	return out->count;
}
