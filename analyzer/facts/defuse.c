/* Def-use graph of a scope, for value flow: which values (bindings, dotted
 * names) lead, through the assignments and storing calls that read them,
 * to a backward call or a return of the scope, and from which byte on the
 * scope's assignments must start for them to.
 *
 * Value flow (valueflow.c) asks, for one value of a scope, whether its
 * taint reaches a backward call or a return; it followed the taint with a
 * fixpoint over the scope's assignments, one per question: a scope with
 * one question per statement (the same accumulating loop repeated, then
 * `return total`, issue 26) was quadratic. Here the scope's flow is built
 * once, as a graph whose nodes are
 * - each plain name's bindings in the scope, in position order, as the
 *   leaves of a segment tree (one per name): a read of the name at `x`
 *   sees a contiguous run of them (those from the latest binding whose
 *   block holds `x` up to `x`, and those later in the loops around `x`
 *   that do not re-bind the name before `x`: tl_facts__root_tainted), so
 *   it reads O(log n) tree nodes, not every binding it may see;
 * - dotted names (and names bound outside the scope), matched by prefix;
 * - the readers: assignments (an augmented one also reads its target),
 *   storing calls (`outer.append(inner)`, in a function that returns
 *   something), backward calls and return values,
 * and an edge runs from what a reader reads to what it makes. An
 * assignment or storing call that starts before the question's `from`
 * is not followed (its gate is its position), so each node keeps the
 * largest `from` for which its taint still reaches a backward call (and,
 * separately, a return): a widest path, found once per scope from the
 * sinks backwards (a max-heap). A question is then a lookup per value it
 * starts from. What it answers is what the fixpoint answered (the
 * fixpoint also stopped after 64 rounds, which real code never needs).
 *
 * Owns: tl_facts__defuse_reach. */
#include "facts/internal.h"

#include "base/strmap.h"
#include "syntax/reads.h"

#define TL_DU_NONE UINT32_MAX
#define TL_DU_INF UINT32_MAX

/* One plain name's bindings in the scope, in position order; the segment
 * tree's node i (1 <= i < 2 * size) is node `base + i` of the graph, its
 * leaves (i >= size) the bindings. */
typedef struct TlDuList {
	int32_t *binds;
	uint32_t size;
	uint32_t base;
	char *name;
} TlDuList;

struct TlDefUse {
	bool built;
	TlStrMap by_name;    /* plain name -> index into lists */
	TlDuList *lists;
	uint32_t list_count;
	/* The leaves: binding indices in increasing order, and their nodes. */
	int32_t *leaf_bind;
	uint32_t *leaf;
	uint32_t leaf_count;
	TlStrMap names;      /* dotted name (or prefix) -> node */
	uint32_t nodes;
	TlArray(uint32_t) gate;  /* per node: position + 1, TL_DU_INF ungated */
	TlArray(uint32_t) kids;  /* per node: first child (tree node), or TL_DU_NONE */
	/* Edges from -> to, then grouped by `to` (what each node is made from). */
	TlArray(uint32_t) efrom, eto;
	uint32_t *first;     /* per node + 1: into `pred` */
	uint32_t *pred;
	/* Per node: the largest `from` + 1 for which its taint reaches a
	 * backward call / a return (0: never). */
	uint32_t *to_backward, *to_return;
};

static uint32_t tl_du__node(TlDefUse *du, uint32_t gate, uint32_t kids)
{
	tl_array_push(&du->gate, gate);
	tl_array_push(&du->kids, kids);
	return du->nodes++;
}

static void tl_du__edge(TlDefUse *du, uint32_t from, uint32_t to)
{
	tl_array_push(&du->efrom, from);
	tl_array_push(&du->eto, to);
}

static uint32_t tl_du__name_node(TlDefUse *du, const char *s, size_t len)
{
	int32_t id;
	if (tl_strmap_get(&du->names, s, len, &id))
		return (uint32_t)id;
	uint32_t n = tl_du__node(du, TL_DU_INF, TL_DU_NONE);
	tl_strmap_put(&du->names, s, len, (int32_t)n);
	return n;
}

/* The first index of `l` whose binding's position is >= pos (after: > pos). */
static uint32_t tl_du__bound(const TlIndex *idx, const TlDuList *l, uint32_t pos, bool after)
{
	uint32_t lo = 0, hi = l->size;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint32_t p = idx->bindings.items[l->binds[mid]].pos;
		if (after ? p <= pos : p < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

typedef struct TlDuReads {
	const TlIndex *idx;
	TlDefUse *du;
	int32_t func;
	uint32_t to; /* the reader */
} TlDuReads;

/* Edges from the run [a, b) of list `l` (its segment tree's nodes that
 * cover it) to `to`. */
static void tl_du__run(TlDefUse *du, const TlDuList *l, uint32_t a, uint32_t b, uint32_t to)
{
	for (uint32_t lo = a + l->size, hi = b + l->size; lo < hi; lo >>= 1, hi >>= 1) {
		if (lo & 1)
			tl_du__edge(du, l->base + lo++, to);
		if (hi & 1)
			tl_du__edge(du, l->base + --hi, to);
	}
}

/* Edges from the bindings of plain name `root` that a read at `x` may see
 * (tl_facts__root_tainted, for any set of tainted bindings) to `to`. */
static void tl_du__root(const TlIndex *idx, TlDefUse *du, int32_t func, const char *root, TSNode x,
			uint32_t to)
{
	int32_t li;
	if (!tl_strmap_get(&du->by_name, root, strlen(root), &li))
		return;
	const TlDuList *l = &du->lists[li];
	uint32_t pos = ts_node_start_byte(x);
	uint32_t lo = tl_du__bound(idx, l, pos, true); /* made at or before x */
	/* Those from the latest one whose block holds x. */
	uint32_t cover = 0, a = 0;
	if (lo && tl_facts__covering(idx, tl_index_bindings_of(idx, func, root), pos, x, &cover))
		a = tl_du__bound(idx, l, cover, false);
	/* Those later in the loops around x whose body starts after the
	 * binding x sees (the previous iteration's value). */
	uint32_t b = lo;
	if (lo < l->size) {
		const TlBinding *seen = tl_index_resolve(idx, root, func, pos);
		int32_t outer = -1;
		for (int32_t k = tl_index_loop_of(idx, x); k >= 0; k = idx->loops.items[k].parent) {
			TSNode body = idx->loops.items[k].body;
			if (!tl_facts__contains(body, x))
				continue;
			if (seen && seen->func == func && seen->pos >= ts_node_start_byte(body))
				break;
			outer = k;
		}
		/* (A binding's position is where its statement ends: the
		 * last statement of the body ends where the body does.) */
		if (outer >= 0)
			b = tl_du__bound(idx, l, ts_node_end_byte(idx->loops.items[outer].body), true);
		if (b < lo)
			b = lo;
	}
	if (a < b)
		tl_du__run(du, l, a, b, to);
}

static bool tl_du__read(void *data, TSNode node, TlBuf *dotted)
{
	TlDuReads *r = data;
	const char *d = dotted->data;
	/* A tainted dotted name taints the reads of it and below it. */
	for (size_t i = 0;; i++) {
		if (d[i] == '.' || d[i] == '\0')
			tl_du__edge(r->du, tl_du__name_node(r->du, d, i), r->to);
		if (d[i] == '\0')
			break;
	}
	dotted->data[strcspn(dotted->data, ".")] = '\0';
	tl_du__root(r->idx, r->du, r->func, dotted->data, node, r->to);
	return false;
}

static void tl_du__reads(const TlIndex *idx, TlDefUse *du, int32_t func, TSNode n, uint32_t to)
{
	if (ts_node_is_null(n))
		return;
	TlDuReads r = { idx, du, func, to };
	tl_reads_each(idx, n, tl_du__read, &r);
}

/* qsort's comparison reads the index through this (one per thread). */
static _Thread_local const TlIndex *tl_du__sort_idx;
static int tl_du__cmp(const void *pa, const void *pb)
{
	int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
	uint32_t x = tl_du__sort_idx->bindings.items[a].pos, y = tl_du__sort_idx->bindings.items[b].pos;
	if (x != y)
		return x < y ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int tl_du__cmp64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	return a < b ? -1 : a > b;
}

/* The leaf of binding `bi` (an index into idx->bindings), or TL_DU_NONE. */
static uint32_t tl_du__leaf_of(const TlDefUse *du, int32_t bi)
{
	uint32_t lo = 0, hi = du->leaf_count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (du->leaf_bind[mid] < bi)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < du->leaf_count && du->leaf_bind[lo] == bi ? du->leaf[lo] : TL_DU_NONE;
}

/* Widest paths back from the sinks: val[n] = the largest from + 1 for which
 * a taint of n reaches one (0: none). */
typedef struct TlDuHeap {
	uint64_t *items; /* value << 32 | node */
	uint32_t size, capacity;
} TlDuHeap;

static void tl_du__heap_push(TlDuHeap *h, uint64_t v)
{
	if (h->size == h->capacity) {
		h->capacity = h->capacity ? 2 * h->capacity : 64;
		h->items = tl_realloc(h->items, h->capacity * sizeof *h->items);
	}
	uint32_t i = h->size++;
	while (i > 0 && h->items[(i - 1) / 2] < v) {
		h->items[i] = h->items[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->items[i] = v;
}

static uint64_t tl_du__heap_pop(TlDuHeap *h)
{
	uint64_t top = h->items[0], last = h->items[--h->size];
	uint32_t i = 0;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= h->size)
			break;
		if (c + 1 < h->size && h->items[c + 1] > h->items[c])
			c++;
		if (h->items[c] <= last)
			break;
		h->items[i] = h->items[c];
		i = c;
	}
	if (h->size)
		h->items[i] = last;
	return top;
}

static void tl_du__widest(const TlDefUse *du, const TlIntArray *sinks, uint32_t *val)
{
	TlDuHeap h = { NULL, 0, 0 };
	for (uint32_t i = 0; i < sinks->size; i++) {
		uint32_t s = (uint32_t)sinks->items[i];
		if (val[s] != TL_DU_INF) {
			val[s] = TL_DU_INF;
			tl_du__heap_push(&h, (uint64_t)TL_DU_INF << 32 | s);
		}
	}
	while (h.size) {
		uint64_t top = tl_du__heap_pop(&h);
		uint32_t n = (uint32_t)top, v = (uint32_t)(top >> 32);
		if (v != val[n])
			continue;
		/* Whatever makes n (a taint of it) passes n's gate. */
		uint32_t pass = v < du->gate.items[n] ? v : du->gate.items[n];
		uint32_t k0 = du->first[n], k1 = du->first[n + 1];
		uint32_t kid = du->kids.items[n];
		for (uint32_t k = k0; k < k1 + (kid != TL_DU_NONE ? 2 : 0); k++) {
			uint32_t p = k < k1 ? du->pred[k] : kid + (k - k1);
			if (pass > val[p]) {
				val[p] = pass;
				tl_du__heap_push(&h, (uint64_t)pass << 32 | p);
			}
		}
	}
	tl_free(h.items);
}

static void tl_du__build(const TlIndex *idx, TlDefUse *du, int32_t func)
{
	const TlIntArray *scope = tl_index_scope_binds(idx, func);
	uint32_t ns = scope ? scope->size : 0;
	/* The plain names' lists. */
	TlIntLists lists;
	tl_array_init(&lists);
	for (uint32_t i = 0; i < ns; i++) {
		const TlBinding *b = &idx->bindings.items[scope->items[i]];
		if (b->func != func || strchr(b->name, '.'))
			continue;
		int32_t li;
		if (!tl_strmap_get(&du->by_name, b->name, strlen(b->name), &li)) {
			TlIntArray empty;
			tl_array_init(&empty);
			li = (int32_t)lists.size;
			tl_array_push(&lists, empty);
			tl_strmap_put(&du->by_name, b->name, strlen(b->name), li);
		}
		tl_array_push(&lists.items[li], scope->items[i]);
	}
	du->list_count = lists.size;
	du->lists = tl_calloc(lists.size ? lists.size : 1, sizeof *du->lists);
	tl_du__sort_idx = idx;
	for (uint32_t li = 0; li < lists.size; li++) {
		TlDuList *l = &du->lists[li];
		l->binds = lists.items[li].items; /* taken over */
		l->size = lists.items[li].size;
		qsort(l->binds, l->size, sizeof *l->binds, tl_du__cmp);
		l->name = tl_strdup(idx->bindings.items[l->binds[0]].name);
		/* Nodes base + 1 .. base + 2 * size - 1 (base + 0 unused). */
		l->base = du->nodes;
		for (uint32_t i = 0; i < 2 * l->size; i++)
			tl_du__node(du, TL_DU_INF, i >= 1 && i < l->size ? l->base + 2 * i : TL_DU_NONE);
	}
	tl_array_release(&lists);
	/* Each binding's leaf, by binding index. */
	uint32_t total = 0;
	for (uint32_t li = 0; li < du->list_count; li++)
		total += du->lists[li].size;
	du->leaf_count = total;
	du->leaf_bind = tl_calloc(total ? total : 1, sizeof *du->leaf_bind);
	du->leaf = tl_calloc(total ? total : 1, sizeof *du->leaf);
	uint64_t *pairs = tl_calloc(total ? total : 1, sizeof *pairs);
	uint32_t at = 0;
	for (uint32_t li = 0; li < du->list_count; li++) {
		const TlDuList *l = &du->lists[li];
		for (uint32_t k = 0; k < l->size; k++)
			pairs[at++] = (uint64_t)(uint32_t)l->binds[k] << 32 | (l->base + l->size + k);
	}
	qsort(pairs, total, sizeof *pairs, tl_du__cmp64);
	for (uint32_t k = 0; k < total; k++) {
		du->leaf_bind[k] = (int32_t)(pairs[k] >> 32);
		du->leaf[k] = (uint32_t)pairs[k];
	}
	tl_free(pairs);
	TlIntArray to_backward, to_return;
	tl_array_init(&to_backward);
	tl_array_init(&to_return);
	/* Assignments: each makes its plain binding (its leaf) or a name. */
	for (uint32_t i = 0; i < ns; i++) {
		if (tl_bound_poll())
			goto done;
		const TlBinding *b = &idx->bindings.items[scope->items[i]];
		if (b->kind != TL_BIND_ASSIGN && b->kind != TL_BIND_AUG)
			continue;
		bool plain = b->func == func && !strchr(b->name, '.');
		uint32_t me = plain ? tl_du__leaf_of(du, scope->items[i]) : TL_DU_NONE;
		if (me == TL_DU_NONE) {
			me = tl_du__node(du, b->pos + 1, TL_DU_NONE);
			tl_du__edge(du, me, tl_du__name_node(du, b->name, strlen(b->name)));
		} else {
			du->gate.items[me] = b->pos + 1;
		}
		/* `x += v` also reads the x it updates. */
		if (b->kind == TL_BIND_AUG && plain)
			tl_du__root(idx, du, func, b->name, b->stmt, me);
		if (!ts_node_is_null(b->value) && !tl_facts__kills_graph(idx, b->value))
			tl_du__reads(idx, du, func, b->value, me);
	}
	const TlIntArray *calls = tl_index_scope_calls(idx, func);
	bool returns = func >= 0 && idx->funcs.items[func].returns.size;
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		if (tl_bound_poll())
			goto done;
		const TlCall *c = &idx->calls.items[calls->items[i]];
		/* `outer.append(inner)`: the container stored into. */
		if (returns && c->method && c->recv_name && IN(c->method, tl_facts__storing)) {
			uint32_t me = tl_du__node(du, ts_node_start_byte(c->node) + 1, TL_DU_NONE);
			tl_du__edge(du, me, tl_du__name_node(du, c->recv_name, strlen(c->recv_name)));
			tl_du__reads(idx, du, func, tl_tree_field(c->node, tl_syms()->f_arguments), me);
		}
		if ((c->events & TL_EV_DIFFERENTIATES) ||
		    (c->target >= 0 && (idx->funcs.items[c->target].reach_events & TL_EV_DIFFERENTIATES))) {
			uint32_t me = tl_du__node(du, TL_DU_INF, TL_DU_NONE);
			tl_array_push(&to_backward, (int32_t)me);
			tl_du__reads(idx, du, func, c->node, me);
		}
	}
	for (uint32_t i = 0; returns && i < idx->funcs.items[func].returns.size; i++) {
		uint32_t me = tl_du__node(du, TL_DU_INF, TL_DU_NONE);
		tl_array_push(&to_return, (int32_t)me);
		tl_du__reads(idx, du, func, idx->funcs.items[func].returns.items[i], me);
	}
	/* What each node is made from, grouped by node. */
	uint32_t n = du->nodes, e = du->efrom.size;
	du->first = tl_calloc((size_t)n + 1, sizeof *du->first);
	du->pred = tl_calloc(e ? e : 1, sizeof *du->pred);
	for (uint32_t k = 0; k < e; k++)
		du->first[du->eto.items[k] + 1]++;
	for (uint32_t k = 0; k < n; k++)
		du->first[k + 1] += du->first[k];
	uint32_t *fill = tl_calloc(n ? n : 1, sizeof *fill);
	for (uint32_t k = 0; k < e; k++) {
		uint32_t t = du->eto.items[k];
		du->pred[du->first[t] + fill[t]++] = du->efrom.items[k];
	}
	tl_free(fill);
	tl_array_release(&du->efrom);
	tl_array_release(&du->eto);
	du->to_backward = tl_calloc(n ? n : 1, sizeof *du->to_backward);
	du->to_return = tl_calloc(n ? n : 1, sizeof *du->to_return);
	tl_du__widest(du, &to_backward, du->to_backward);
	tl_du__widest(du, &to_return, du->to_return);
	du->built = true;
done:
	tl_array_release(&to_backward);
	tl_array_release(&to_return);
}

static void tl_du__free(TlDefUse *du)
{
	for (uint32_t i = 0; i < du->list_count; i++) {
		tl_free(du->lists[i].binds);
		tl_free(du->lists[i].name);
	}
	tl_free(du->lists);
	tl_strmap_release(&du->by_name);
	tl_strmap_release(&du->names);
	tl_free(du->leaf);
	tl_free(du->leaf_bind);
	tl_array_release(&du->gate);
	tl_array_release(&du->kids);
	tl_array_release(&du->efrom);
	tl_array_release(&du->eto);
	tl_free(du->first);
	tl_free(du->pred);
	tl_free(du->to_backward);
	tl_free(du->to_return);
	tl_free(du);
}

void tl_facts__defuse_release(TlFactsCache *fc)
{
	if (!fc->defuse)
		return;
	for (uint32_t i = 0; i < fc->defuse_count; i++)
		if (fc->defuse[i])
			tl_du__free(fc->defuse[i]);
	tl_free(fc->defuse);
	fc->defuse = NULL;
}

static const TlDefUse *tl_du__get(const TlIndex *idx, int32_t func)
{
	TlFactsCache *fc = idx->facts_cache;
	if (!fc || func < -1 || func >= (int32_t)idx->funcs.size)
		return NULL;
	if (!fc->defuse) {
		fc->defuse_count = idx->funcs.size + 1;
		fc->defuse = tl_calloc(fc->defuse_count, sizeof *fc->defuse);
	}
	if (!fc->defuse[func + 1]) {
		TlDefUse *du = tl_calloc(1, sizeof *du);
		tl_strmap_init(&du->by_name);
		tl_strmap_init(&du->names);
		tl_array_init(&du->gate);
		tl_array_init(&du->kids);
		tl_array_init(&du->efrom);
		tl_array_init(&du->eto);
		tl_du__build(idx, du, func);
		fc->defuse[func + 1] = du;
	}
	return fc->defuse[func + 1];
}

bool tl_facts__defuse_reach(const TlIndex *idx, int32_t func, const TlIntArray *binds,
			    const TlNames *names, uint32_t from, bool *backward, bool *returned)
{
	*backward = *returned = false;
	const TlDefUse *du = tl_du__get(idx, func);
	if (!du || !du->built)
		return false;
	uint32_t best_b = 0, best_r = 0;
	for (uint32_t i = 0; i < binds->size; i++) {
		uint32_t n = tl_du__leaf_of(du, binds->items[i]);
		if (n == TL_DU_NONE)
			continue;
		best_b = du->to_backward[n] > best_b ? du->to_backward[n] : best_b;
		best_r = du->to_return[n] > best_r ? du->to_return[n] : best_r;
	}
	for (uint32_t i = 0; i < names->size; i++) {
		int32_t n;
		if (!tl_strmap_get(&du->names, names->items[i], strlen(names->items[i]), &n))
			continue;
		best_b = du->to_backward[n] > best_b ? du->to_backward[n] : best_b;
		best_r = du->to_return[n] > best_r ? du->to_return[n] : best_r;
	}
	*backward = best_b > from;
	*returned = best_r > from;
	return true;
}

/* ---- the assignments whose value holds a node -------------------------------- */

/* A scope's assignment values as byte spans, sorted by start (longest
 * first), with `up`: the nearest earlier span that holds each one (spans
 * are syntax nodes: nested or apart). The spans that hold a node are the
 * latest one starting at or before it, then up the chain (a span that
 * does not hold the node cannot be held by one that does, unless it holds
 * the node itself): as many steps as values nest, where a scan of the
 * scope's bindings per question was quadratic (one question per call of
 * a long evaluation loop). */
typedef struct TlValueSpans {
	uint32_t size;
	uint32_t *start, *end;
	int32_t *bind, *up;
} TlValueSpans;

static _Thread_local const TlValueSpans *tl_du__spans_sort;
static int tl_du__span_cmp(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const TlValueSpans *v = tl_du__spans_sort;
	if (v->start[a] != v->start[b])
		return v->start[a] < v->start[b] ? -1 : 1;
	if (v->end[a] != v->end[b])
		return v->end[a] > v->end[b] ? -1 : 1;
	return v->bind[a] < v->bind[b] ? -1 : v->bind[a] > v->bind[b];
}

static void tl_du__spans_free(TlValueSpans *v)
{
	tl_free(v->start);
	tl_free(v->end);
	tl_free(v->bind);
	tl_free(v->up);
	tl_free(v);
}

void tl_facts__value_spans_release(TlFactsCache *fc)
{
	if (!fc->spans)
		return;
	for (uint32_t i = 0; i < fc->span_count; i++)
		if (fc->spans[i])
			tl_du__spans_free(fc->spans[i]);
	tl_free(fc->spans);
	fc->spans = NULL;
}

static const TlValueSpans *tl_du__spans(const TlIndex *idx, int32_t func)
{
	TlFactsCache *fc = idx->facts_cache;
	if (!fc || func < -1 || func >= (int32_t)idx->funcs.size)
		return NULL;
	if (!fc->spans) {
		fc->span_count = idx->funcs.size + 1;
		fc->spans = tl_calloc(fc->span_count, sizeof *fc->spans);
	}
	if (fc->spans[func + 1])
		return fc->spans[func + 1];
	const TlIntArray *binds = tl_index_scope_binds(idx, func);
	uint32_t n = 0, cap = binds ? binds->size : 0;
	TlValueSpans raw = { 0, NULL, NULL, NULL, NULL };
	raw.start = tl_calloc(cap ? cap : 1, sizeof *raw.start);
	raw.end = tl_calloc(cap ? cap : 1, sizeof *raw.end);
	raw.bind = tl_calloc(cap ? cap : 1, sizeof *raw.bind);
	for (uint32_t i = 0; i < cap; i++) {
		const TlBinding *b = &idx->bindings.items[binds->items[i]];
		if ((b->kind != TL_BIND_ASSIGN && b->kind != TL_BIND_AUG) || ts_node_is_null(b->value))
			continue;
		raw.start[n] = ts_node_start_byte(b->value);
		raw.end[n] = ts_node_end_byte(b->value);
		raw.bind[n] = binds->items[i];
		n++;
	}
	raw.size = n;
	uint32_t *order = tl_calloc(n ? n : 1, sizeof *order);
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	tl_du__spans_sort = &raw;
	qsort(order, n, sizeof *order, tl_du__span_cmp);
	TlValueSpans *v = tl_calloc(1, sizeof *v);
	v->size = n;
	v->start = tl_calloc(n ? n : 1, sizeof *v->start);
	v->end = tl_calloc(n ? n : 1, sizeof *v->end);
	v->bind = tl_calloc(n ? n : 1, sizeof *v->bind);
	v->up = tl_calloc(n ? n : 1, sizeof *v->up);
	int32_t *stack = tl_calloc(n ? n : 1, sizeof *stack);
	uint32_t depth = 0;
	for (uint32_t k = 0; k < n; k++) {
		v->start[k] = raw.start[order[k]];
		v->end[k] = raw.end[order[k]];
		v->bind[k] = raw.bind[order[k]];
		while (depth && !(v->start[stack[depth - 1]] <= v->start[k] && v->end[k] <= v->end[stack[depth - 1]]))
			depth--;
		v->up[k] = depth ? stack[depth - 1] : -1;
		stack[depth++] = (int32_t)k;
	}
	tl_free(stack);
	tl_free(order);
	tl_free(raw.start);
	tl_free(raw.end);
	tl_free(raw.bind);
	fc->spans[func + 1] = v;
	return v;
}

static int tl_du__int_cmp(const void *pa, const void *pb)
{
	int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
	return a < b ? -1 : a > b;
}

bool tl_facts__value_holders(const TlIndex *idx, int32_t func, TSNode n, TlIntArray *out)
{
	const TlValueSpans *v = tl_du__spans(idx, func);
	if (!v)
		return false;
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	uint32_t lo = 0, hi = v->size;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v->start[mid] <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int32_t k = (int32_t)lo - 1; k >= 0; k = v->up[k])
		if (v->start[k] <= s && e <= v->end[k])
			tl_array_push(out, v->bind[k]);
	if (out->size > 1)
		qsort(out->items, out->size, sizeof *out->items, tl_du__int_cmp);
	return true;
}
