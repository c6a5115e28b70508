/* What a function backpropagates (model_internal.h): a value of unknown
 * history that a backward of its function consumes, or that what the
 * backward consumes keeps the history of, has history (eval.c's
 * tl_in__refine): the backward differentiates through it.
 *
 * Before any interpretation, the subjects' paths (m->backprop): `loss` of
 * `loss.backward()`, `scaler.scale(loss).backward()`,
 * `accelerator.backward(loss)`, and `out` of `out["loss"].backward()` (a
 * holder of history under that key). Then, from the flow graph (flow.c):
 * at each backward, the flow nodes of the subject's value are noted;
 * where the function's interpretation ends, the edges that keep history
 * (TL_FLOW_KEEP: arithmetic, bindings, containers, a call whose table row
 * keeps its receiver's or its arguments' history, a function of the
 * project whose summary follows that parameter's graph; not a forward, a
 * loss, a new leaf, an unknown call, grad-disabled code, a field read out
 * of an object) made while it was interpreted are followed back from
 * them, and each binding reached is marked, unless it is the batch a step
 * loop iterates (data). `loss = total / n` marks `total`'s binding,
 * `loss = sum(losses)` `losses`', `loss = helper(out).mean()` `out`'s
 * where the summary of `helper`, in this module or another, follows its
 * parameter's graph; `loss = crit(model(x), y)` neither `x`'s nor `y`'s.
 * A marked binding is refined where it binds. When a function's marks
 * grow, it is interpreted again at once (tl_model__interpret). Another
 * module's model records its flow graph only for the functions that run
 * a backward.
 *
 * Owns: m->backprop (the subjects' marks), the bindings' marks,
 * tl_model_backward_subject. */
#include "model/interp_internal.h"

#include <string.h>

#include "base/alloc.h"

typedef struct TlBpSeed {
	int32_t func;
	uint32_t node;
} TlBpSeed;

struct TlBackprop {
	TlScopeMap bound;      /* (flow node, 0) -> its path in `paths`: a binding's or a parameter's */
	TlIntArray at;         /* per path of a binding: its target's start byte (-1: a parameter's) */
	TlArray(TlPath) paths;
	TlScopeMap seen;       /* (function + 1, flow node) -> 1: a seed noted */
	TlScopeMap marked;     /* (flow node, 0) -> 1: a binding what a backward consumes keeps the history of */
	TlArray(TlBpSeed) seeds;
	bool active;           /* the function being interpreted runs a backward */
};

static TlBackprop *tl_bp__of(TlModel *m)
{
	if (!m->bp) {
		TlBackprop *bp = tl_calloc(1, sizeof *bp);
		tl_scopemap_init(&bp->bound);
		tl_array_init(&bp->paths);
		tl_array_init(&bp->at);
		tl_scopemap_init(&bp->seen);
		tl_scopemap_init(&bp->marked);
		tl_array_init(&bp->seeds);
		m->bp = bp;
	}
	return m->bp;
}

static int32_t tl_bp__path(TlBackprop *bp, const TlPath *p)
{
	tl_array_push(&bp->paths, *p);
	tl_array_push(&bp->at, -1);
	return (int32_t)bp->paths.size - 1;
}

/* Whether path `k` of `bp` is bound as the target of a `for` whose
 * iteration runs a backward, in function `func`: the batch a step loop
 * iterates over is data (as prov.c has it), no value with history. */
static bool tl_bp__batch(const TlModel *m, const TlBackprop *bp, int32_t func, int32_t k)
{
	const TlIndex *idx = m->idx;
	const TlPath *p = &bp->paths.items[k];
	int32_t at = bp->at.items[k];
	if (at < 0 || p->n || p->root < 0 || (uint32_t)p->root >= m->names.names.size)
		return false;
	const TlIntArray *bs = tl_index_bindings_of(idx, func, m->names.names.items[p->root]);
	for (uint32_t i = 0; bs && i < bs->size; i++) {
		const TlBinding *b = &idx->bindings.items[bs->items[i]];
		if (b->kind != TL_BIND_FOR || ts_node_is_null(b->stmt))
			continue;
		TSNode body = tl_tree_field(b->stmt, tl_syms()->f_body);
		if (ts_node_is_null(body) || (uint32_t)at < ts_node_start_byte(b->stmt) ||
		    (uint32_t)at >= ts_node_start_byte(body))
			continue;
		int32_t li = tl_index_loop_of(idx, body);
		return li >= 0 && ts_node_eq(idx->loops.items[li].node, b->stmt) &&
		       (idx->loops.items[li].events & TL_EV_BACKWARD);
	}
	return false;
}

/* ---- the backward subjects -------------------------------------------------- */

/* What a backward call consumes: `loss` of `loss.backward()`,
 * `scaler.scale(loss).backward()`, `accelerator.backward(loss)`,
 * `torch.autograd.backward(loss)`. */
TSNode tl_model_backward_subject(const TlIndex *idx, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	if (!(c->events & TL_EV_BACKWARD))
		return none;
	TSNode args = tl_tree_field(c->node, sy->f_arguments);
	TSNode a0 = !ts_node_is_null(args) && ts_node_named_child_count(args) ? ts_node_named_child(args, 0) : none;
	if (!c->receiver.id)
		return a0;
	TSNode r = tl_index_unparen(c->receiver);
	if (ts_node_symbol(r) == sy->call) {
		const TlCall *inner = tl_index_call_at(idx, r);
		if (inner && inner->method && strcmp(inner->method, "scale") == 0) {
			TSNode ia = tl_tree_field(r, sy->f_arguments);
			return !ts_node_is_null(ia) && ts_node_named_child_count(ia) ? ts_node_named_child(ia, 0) : none;
		}
		return r;
	}
	if (c->qname && strcmp(c->qname, "torch.autograd.backward") == 0)
		return a0;
	if (c->recv_name) {
		const char *last = strrchr(c->recv_name, '.');
		last = last ? last + 1 : c->recv_name;
		char low[64];
		size_t n = 0;
		for (; last[n] && n + 1 < sizeof low; n++)
			low[n] = (char)(last[n] >= 'A' && last[n] <= 'Z' ? last[n] + 32 : last[n]);
		low[n] = '\0';
		if (strstr(low, "accelerator") || strstr(low, "fabric") || strstr(low, "engine") ||
		    strcmp(low, "self") == 0 || strcmp(low, "trainer") == 0)
			return a0;
	}
	return r;
}

void tl_model__backprop(TlModel *m)
{
	const TlIndex *idx = m->idx;
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (!(c->events & TL_EV_BACKWARD))
			continue;
		TSNode subj = tl_index_unparen(tl_model_backward_subject(idx, c));
		TlPath p;
		if (ts_node_is_null(subj) || !tl_path_of(&m->names, idx, subj, &p))
			continue;
		tl_scopemap_put(&m->backprop, (uint32_t)(c->func + 1), tl_path_hash(&p), 1);
		/* `out["loss"].backward()`: `out` holds what is backpropagated. */
		TlPath up;
		if (tl_path_up(&p, &up) && p.sel[p.n - 1] != TL_PATH_ANY && TL_PATH_IS_KEY(p.sel[p.n - 1]))
			tl_scopemap_put(&m->backprop, (uint32_t)(c->func + 1), tl_path_hash(&up),
					2 + TL_PATH_KEY_ID(p.sel[p.n - 1]));
	}
}

/* ---- the interpreter's hooks -------------------------------------------------- */

/* Whether function `func` (-1: the module's code) runs a backward itself. */
static bool tl_bp__runs_backward(const TlIndex *idx, int32_t func)
{
	uint32_t scope = (uint32_t)(func + 1);
	const TlIntArray *calls = scope < idx->scope_calls.size ? &idx->scope_calls.items[scope] : NULL;
	for (uint32_t i = 0; calls && i < calls->size; i++)
		if (idx->calls.items[calls->items[i]].events & TL_EV_BACKWARD)
			return true;
	return false;
}

void tl_model__backprop_begin(TlModel *m, int32_t func)
{
	bool runs = tl_bp__runs_backward(m->idx, func);
	if (runs)
		tl_bp__of(m)->active = true;
	else if (m->bp)
		m->bp->active = false;
	tl_model__flow_begin(m, func, !m->quiet || runs);
}

void tl_in__backprop_bind(In *in, const TlPath *p, const TlVal *v, TSNode target)
{
	const uint32_t *ids;
	uint32_t k;
	TlBackprop *bp = in->m->bp;
	if (!bp || !bp->active || !tl_val_flow_nodes(&in->m->pool, v->flow, &ids, &k) || k != 1)
		return;
	int32_t at;
	if (!tl_scopemap_get(&bp->bound, ids[0], 0, &at)) {
		at = tl_bp__path(bp, p);
		if (!ts_node_is_null(target))
			bp->at.items[at] = (int32_t)ts_node_start_byte(target);
		tl_scopemap_put(&bp->bound, ids[0], 0, at);
	}
}

bool tl_in__backprop_marked(In *in, TSNode target)
{
	const TlBackprop *bp = in->m->bp;
	int32_t node, one;
	return bp && bp->marked.count && (node = tl_model__flow_bind_node(in->m, target)) >= 0 &&
	       tl_scopemap_get(&bp->marked, (uint32_t)node, 0, &one);
}

void tl_in__backprop_call(In *in, const TlCall *c)
{
	TSNode subj = tl_index_unparen(tl_model_backward_subject(in->idx, c));
	TlPath p;
	if (ts_node_is_null(subj) || !tl_path_of(&in->m->names, in->idx, subj, &p))
		return;
	/* the subject's value where a path binds it (`out["loss"]` of an
	 * object the model holds no key of marks `out` as a holder, above) */
	const TlVal *v = tl_state_get(&in->st, &p);
	const uint32_t *ids;
	uint32_t k;
	if (!v || !tl_val_flow_nodes(&in->m->pool, v->flow, &ids, &k))
		return;
	TlBackprop *bp = tl_bp__of(in->m);
	for (uint32_t i = 0; i < k; i++) {
		int32_t one;
		if (tl_scopemap_get(&bp->seen, (uint32_t)(in->func + 1), ids[i], &one))
			continue;
		tl_scopemap_put(&bp->seen, (uint32_t)(in->func + 1), ids[i], 1);
		TlBpSeed s = { in->func, ids[i] };
		tl_array_push(&bp->seeds, s);
	}
}

bool tl_model__backprop_end(TlModel *m, int32_t func)
{
	TlBackprop *bp = m->bp;
	if (!bp || !bp->active || !bp->seeds.size)
		return false;
	TlIntArray from, to, todo;
	tl_array_init(&from);
	tl_array_init(&to);
	tl_array_init(&todo);
	for (uint32_t i = 0; i < bp->seeds.size; i++)
		if (bp->seeds.items[i].func == func)
			tl_array_push(&todo, (int32_t)bp->seeds.items[i].node);
	bool grew = false;
	if (!todo.size)
		goto done;
	tl_model__flow_kept(m, func, &from, &to);
	/* the kept edges by their end: (end, 0) -> the first, chained */
	TlScopeMap into, seen;
	tl_scopemap_init(&into);
	tl_scopemap_init(&seen);
	int32_t *next = tl_malloc((from.size ? from.size : 1) * sizeof *next);
	for (uint32_t e = 0; e < from.size; e++) {
		int32_t first = -1;
		(void)tl_scopemap_get(&into, (uint32_t)to.items[e], 0, &first);
		next[e] = first;
		tl_scopemap_put(&into, (uint32_t)to.items[e], 0, (int32_t)e);
	}
	for (uint32_t i = 0; i < todo.size; i++)
		tl_scopemap_put(&seen, (uint32_t)todo.items[i], 0, 1);
	while (todo.size) {
		uint32_t x = (uint32_t)tl_array_pop(&todo);
		int32_t at, how;
		bool bound = tl_scopemap_get(&bp->bound, x, 0, &at);
		if (bound && tl_bp__batch(m, bp, func, at))
			continue; /* data: neither it nor what it is read out of */
		if (bound && !tl_scopemap_get(&bp->marked, x, 0, &how)) {
			tl_scopemap_put(&bp->marked, x, 0, 1);
			grew = true;
		}
		int32_t e = -1;
		(void)tl_scopemap_get(&into, x, 0, &e);
		for (; e >= 0; e = next[e]) {
			uint32_t y = (uint32_t)from.items[e];
			int32_t one;
			if (!tl_scopemap_get(&seen, y, 0, &one)) {
				tl_scopemap_put(&seen, y, 0, 1);
				tl_array_push(&todo, (int32_t)y);
			}
		}
	}
	tl_free(next);
	tl_scopemap_release(&into);
	tl_scopemap_release(&seen);
done:
	tl_array_release(&from);
	tl_array_release(&to);
	tl_array_release(&todo);
	return grew;
}

void tl_model__backprop_release(TlModel *m)
{
	TlBackprop *bp = m->bp;
	if (!bp)
		return;
	tl_scopemap_release(&bp->bound);
	tl_array_release(&bp->paths);
	tl_array_release(&bp->at);
	tl_scopemap_release(&bp->seen);
	tl_scopemap_release(&bp->marked);
	tl_array_release(&bp->seeds);
	tl_free(bp);
	m->bp = NULL;
}
