/* The roots each assignment value reads, and their readers (reads.h). */
#include "syntax/reads.h"

#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/strmap.h"
#include "syntax/index.h"
#include "syntax/syms.h"
#include "syntax/walk.h"

struct TlReads {
	TlStrMap ids;         /* root name -> id */
	TlStrArray names;     /* id -> root name */
	TlIntLists readers;   /* id -> assignments reading it */
	TlIntLists calls;     /* call index -> root ids (once asked) */
	uint8_t *call_done;   /* per call: its roots are in `calls` */
	uint8_t *scope_done;  /* per scope (function + 1): its readers are in */
};

static int32_t tl_reads__intern(TlReads *r, const char *name, size_t len)
{
	int32_t id;
	if (tl_strmap_get(&r->ids, name, len, &id))
		return id;
	id = (int32_t)r->names.size;
	tl_array_push(&r->names, tl_strndup(name, len));
	TlIntArray empty;
	tl_array_init(&empty);
	tl_array_push(&r->readers, empty);
	tl_strmap_put(&r->ids, name, len, id);
	return id;
}

static void tl_reads__add_unique(TlIntArray *a, int32_t v)
{
	for (uint32_t i = 0; i < a->size; i++)
		if (a->items[i] == v)
			return;
	tl_array_push(a, v);
}

bool tl_reads_each(const TlIndex *idx, TSNode n, TlReadFn fn, void *data)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_is_null(n))
		return false;
	TSTreeCursor cur = ts_tree_cursor_new(n);
	TlBuf b;
	tl_buf_init(&b);
	bool stopped = false, descend = true;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(x);
		descend = true;
		if (s == sy->identifier || s == sy->attribute) {
			tl_buf_clear(&b);
			if (tl_index_dotted(idx, x, &b)) {
				descend = false;
				stopped = fn(data, x, &b);
			}
		}
	} while (!stopped && tl_walk_next(&cur, n, descend));
	tl_buf_release(&b);
	ts_tree_cursor_delete(&cur);
	return stopped;
}

typedef struct TlRootsInto {
	TlReads *r;
	TlIntArray *out;
} TlRootsInto;

static bool tl_reads__add_root(void *data, TSNode node, TlBuf *dotted)
{
	(void)node;
	TlRootsInto *into = data;
	size_t len = strcspn(dotted->data, ".");
	tl_reads__add_unique(into->out, tl_reads__intern(into->r, dotted->data, len));
	return false;
}

/* Adds to `out` the ids of the roots the subtree of `n` reads. */
static void tl_reads__roots(const TlIndex *idx, TlReads *r, TSNode n, TlIntArray *out)
{
	TlRootsInto into = { r, out };
	tl_reads_each(idx, n, tl_reads__add_root, &into);
}

static TlReads *tl_reads__get(const TlIndex *cidx)
{
	TlIndex *idx = (TlIndex *)cidx; /* a cache: changes no answer */
	if (idx->reads)
		return idx->reads;
	TlReads *r = tl_calloc(1, sizeof *r);
	tl_strmap_init(&r->ids);
	tl_array_init(&r->names);
	tl_array_init(&r->readers);
	tl_array_init(&r->calls);
	r->call_done = tl_calloc(idx->calls.size ? idx->calls.size : 1, 1);
	r->scope_done = tl_calloc(idx->funcs.size + 1, 1);
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		TlIntArray empty;
		tl_array_init(&empty);
		tl_array_push(&r->calls, empty);
	}
	idx->reads = r;
	idx->reads_release = tl_reads_free;
	return r;
}

void tl_reads_scope(const TlIndex *idx, int32_t func)
{
	TlReads *r = tl_reads__get(idx);
	if (func < -1 || func >= (int32_t)idx->funcs.size || r->scope_done[func + 1])
		return;
	r->scope_done[func + 1] = 1;
	const TlIntArray *binds = tl_index_scope_binds(idx, func);
	TlIntArray roots;
	tl_array_init(&roots);
	TSNode last = { { 0 }, NULL, NULL };
	for (uint32_t k = 0; binds && k < binds->size; k++) {
		int32_t i = binds->items[k];
		const TlBinding *b = &idx->bindings.items[i];
		if (b->kind != TL_BIND_ASSIGN && b->kind != TL_BIND_AUG)
			continue;
		/* a = b = v: the targets share their value, read once. */
		if (ts_node_is_null(b->value) || !ts_node_eq(b->value, last)) {
			roots.size = 0;
			tl_reads__roots(idx, r, b->value, &roots);
			last = b->value;
		}
		for (uint32_t j = 0; j < roots.size; j++)
			tl_array_push(&r->readers.items[roots.items[j]], i);
		if (b->kind == TL_BIND_AUG) {
			/* `x += v` reads the x it updates. */
			int32_t own = tl_reads__intern(r, b->name, strcspn(b->name, "."));
			TlIntArray *list = &r->readers.items[own];
			if (!list->size || list->items[list->size - 1] != i)
				tl_array_push(list, i);
		}
	}
	tl_array_release(&roots);
}

int32_t tl_reads_root_id(const TlIndex *idx, const char *root, size_t len)
{
	TlReads *r = tl_reads__get(idx);
	int32_t id;
	return tl_strmap_get(&r->ids, root, len, &id) ? id : -1;
}

const TlIntArray *tl_reads_readers(const TlIndex *idx, int32_t id)
{
	TlReads *r = tl_reads__get(idx);
	return id >= 0 && (uint32_t)id < r->readers.size ? &r->readers.items[id] : NULL;
}

const TlIntArray *tl_reads_call_roots(const TlIndex *idx, uint32_t ci)
{
	TlReads *r = tl_reads__get(idx);
	if (ci >= idx->calls.size)
		return NULL;
	if (!r->call_done[ci]) {
		r->call_done[ci] = 1;
		tl_reads__roots(idx, r, idx->calls.items[ci].node, &r->calls.items[ci]);
	}
	return &r->calls.items[ci];
}

const char *tl_reads_root_name(const TlIndex *idx, int32_t id)
{
	TlReads *r = tl_reads__get(idx);
	return id >= 0 && (uint32_t)id < r->names.size ? r->names.items[id] : NULL;
}

void tl_reads_free(TlReads *r)
{
	if (!r)
		return;
	tl_strmap_release(&r->ids);
	tl_str_array_release(&r->names);
	for (uint32_t i = 0; i < r->readers.size; i++)
		tl_array_release(&r->readers.items[i]);
	tl_array_release(&r->readers);
	for (uint32_t i = 0; i < r->calls.size; i++)
		tl_array_release(&r->calls.items[i]);
	tl_array_release(&r->calls);
	tl_free(r->call_done);
	tl_free(r->scope_done);
	tl_free(r);
}
