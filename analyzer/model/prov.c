/* Where a value's history comes from (TlVal.old, prev, pold): the answer
 * to "does the graph this backward differentiates include one that an
 * earlier iteration, or code before the loop, made?" (model.h:
 * tl_model_graph_from_before).
 *
 * Bits are per loop around the value in its function, by depth (the
 * first 8, as carry.c counts them):
 *
 * - `old` bit d: history that was in the state when the iteration of the
 *   loop at depth d began. Where a loop is entered, every path of the
 *   state whose value holds history (a graph tensor, a container of
 *   them) gets the bit; so does the element of what a `for` iterates
 *   when it holds history (`for part in outs.unbind()`: pieces of one
 *   graph made before the loop).
 * - `prev` bit d: history the previous iteration of that loop handed on:
 *   where a round's body ends, every path it stored into that holds
 *   history and that no store of the round detached gets the bit (a
 *   recurrent state carried without `.detach()`).
 * - `pold` bit i, in a summary: the value is computed from parameter i
 *   (`return F.mse_loss(x, t)` of parameters 0 and 1: a loss's history
 *   is its own, but what it differentiates includes its operands'). A
 *   parameter that a `for` iterates gives data, not history: its
 *   elements lose the bit, as do the items `next()` returns.
 *
 * Transfer: arithmetic, a library call (its positional and keyword
 * arguments, and the receiver of a method that is no forward or loss
 * and not `self`'s), an element or a field read out of a container: the
 * union of the operands' bits; a function of the project: its summary's
 * `pold` bits name the arguments whose bits the result takes (its own
 * `old` and `prev` are of its loops, not the caller's, and are dropped);
 * a value without history (`.detach()`, `.item()`, what grad-disabled
 * code makes) has none.
 *
 * Owns: the interpreter's tl_in__prov_* hooks and
 * tl_model_graph_from_before. */
#include "model/interp_internal.h"

#include <string.h>

#include "syntax/walk.h"

/* True when `v` holds history itself (a graph tensor, a may-graph), or a
 * container's elements do (looked through TL_VAL_NEST deep). */
static bool tl_prov__history(const TlValPool *p, const TlVal *v)
{
	TlVal e = *v;
	for (int depth = 0; depth <= TL_VAL_NEST; depth++) {
		if (e.graph == TL_VG_MUST || e.graph == TL_VG_MAY)
			return true;
		if (e.kind != TL_VK_CONTAINER || e.elem < 0 || (uint32_t)e.elem >= p->vals.size)
			return false;
		e = p->vals.items[e.elem];
	}
	return false;
}

static void tl_prov__clear(TlVal *v)
{
	v->old = v->prev = v->kept = 0;
	v->pold = 0;
}

void tl_in__prov_entry(In *in, StFrame *f)
{
	if (f->depth >= 8)
		return;
	uint8_t bit = (uint8_t)(1u << f->depth);
	for (uint32_t i = 0; i < f->a.slots.size; i++) {
		if (f->a.slots.items[i].gone)
			continue;
		TlVal *v = &f->a.slots.items[i].val;
		v->prev &= (uint8_t)~bit; /* of an earlier loop at this depth */
		if (tl_prov__history(&in->m->pool, v))
			v->old |= bit;
	}
}

void tl_in__prov_back(In *in, const StFrame *f)
{
	if (f->depth >= 8 || in->st.dead)
		return;
	uint8_t bit = (uint8_t)(1u << f->depth);
	uint32_t loop = ts_node_start_byte(f->node);
	for (uint32_t i = 0; i < in->st.slots.size; i++) {
		TlSlot *s = &in->st.slots.items[i];
		if (s->gone || !(s->may & bit) || !tl_prov__history(&in->m->pool, &s->val))
			continue;
		bool detached = false;
		for (uint32_t k = 0; k < in->dstores.size && !detached; k++)
			detached = in->dstores.items[k].loop == loop && (in->dstores.items[k].how & TL_MCARRY_DETACHED) &&
				   tl_path_equal(&in->dstores.items[k].path, &s->path);
		if (!detached)
			s->val.prev |= bit;
	}
}

static void tl_prov__add_in(const TlValPool *p, TlVal *r, const TlVal *a);

/* `v` without `pold` bits, its elements' and positions' included (NEST
 * levels; a position rebuilt only when one has some). */
static TlVal tl_prov__no_params(In *in, const TlVal *pv, unsigned nest)
{
	TlVal v = *pv;
	v.pold = 0;
	if (v.kind != TL_VK_CONTAINER || nest >= TL_VAL_NEST)
		return v;
	TlValPool *p = &in->m->pool;
	if (v.elem >= 0 && (uint32_t)v.elem < p->vals.size) {
		TlVal e = p->vals.items[v.elem];
		TlVal ne = tl_prov__no_params(in, &e, nest + 1);
		if (!tl_val_equal(p, &e, &ne))
			v.elem = tl_val_pool_add(p, ne);
	}
	bool change = false;
	for (int32_t k = v.parts; k >= 0 && !change; k = p->vals.items[k].next)
		change = p->vals.items[k].pold || p->vals.items[k].kind == TL_VK_CONTAINER;
	if (!change)
		return v;
	int32_t first = -1, last = -1;
	for (int32_t k = v.parts; k >= 0; k = p->vals.items[k].next) {
		TlVal q = p->vals.items[k];
		TlVal nq = tl_prov__no_params(in, &q, nest + 1);
		nq.key = q.key;
		tl_val_chain_append(p, &first, &last, nq);
	}
	v.parts = first;
	return v;
}

/* True when `x` is cut into pieces where it is read: the value of a
 * subscript (`outs[i]`), or the receiver of unbind / split / chunk. */
static bool tl_prov__sliced(In *in, TSNode x)
{
	const TlSyms *sy = in->sy;
	TSNode p = tl_index_parent(in->idx, x);
	if (ts_node_is_null(p))
		return false;
	if (ts_node_symbol(p) == sy->subscript)
		return ts_node_eq(tl_tree_field(p, sy->f_value), x);
	if (ts_node_symbol(p) != sy->attribute || !ts_node_eq(tl_tree_field(p, sy->f_object), x))
		return false;
	TSNode a = tl_tree_field(p, sy->f_attribute);
	return tl_index_text_is(in->idx, a, "unbind") || tl_index_text_is(in->idx, a, "split") ||
	       tl_index_text_is(in->idx, a, "chunk") || tl_index_text_is(in->idx, a, "tensor_split");
}

/* True when what loop `f` iterates cuts into pieces a value the state held
 * before the loop that is no data: a tensor or a value of unknown kind made
 * by a call, whose history is not known to be none, no parameter's, no
 * loader's batch (`for part in rows.chunk(2)`, `zip([rows[i] for i in
 * ...], grads)` of `rows = hypernet(x)`). */
static bool tl_prov__pieces(In *in, const StFrame *f)
{
	const TlSyms *sy = in->sy;
	TSNode right = tl_tree_field(f->node, sy->f_right);
	if (ts_node_is_null(right))
		return false;
	bool yes = false;
	TSTreeCursor cur = ts_tree_cursor_new(right);
	bool descend = true;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		descend = true;
		if (ts_node_symbol(x) != sy->identifier || !tl_prov__sliced(in, x))
			continue;
		TlPath p;
		const TlVal *v = tl_path_of(&in->m->names, in->idx, x, &p) ? tl_state_get(&f->a, &p) : NULL;
		yes = v && (v->kind == TL_VK_TENSOR || v->kind == TL_VK_TOP) && v->graph != TL_VG_NONE && !v->pold &&
		      (!(v->made & TL_VM_LOADER) || v->made == TL_VM_TOP);
	} while (!yes && tl_walk_next(&cur, right, descend));
	ts_tree_cursor_delete(&cur);
	return yes;
}

void tl_in__prov_subscript(In *in, TSNode n, const TlVal *obj, TlVal *r)
{
	const TlSyms *sy = in->sy;
	if (r->kind != TL_VK_CONTAINER && r->graph == TL_VG_NONE)
		return;
	/* what is read out of a value keeps where the value's history comes
	 * from (`out["loss"]` of an opaque result is a fresh value) */
	tl_prov__add_in(&in->m->pool, r, obj);
	if (in->func < 0)
		return;
	TSNode v = n;
	for (int depth = 0; depth < 16 && !ts_node_is_null(v) && ts_node_symbol(v) == sy->subscript; depth++)
		v = tl_index_unparen(tl_tree_field(v, sy->f_value));
	if (ts_node_is_null(v))
		return;
	if (ts_node_symbol(v) == sy->attribute) {
		TSNode o = tl_index_unparen(tl_tree_field(v, sy->f_object));
		if (!ts_node_is_null(o) && ts_node_symbol(o) == sy->identifier && tl_index_text_is(in->idx, o, "self"))
			r->kept = 1;
		return;
	}
	if (ts_node_symbol(v) != sy->identifier)
		return;
	const TlBinding *b = tl_index_resolve_node(in->idx, v);
	if (b && b->kind == TL_BIND_PARAM && b->func == in->func)
		r->kept = 1;
}

/* True when loop `f`'s iteration runs a backward (the index's events). */
static bool tl_prov__step_loop(In *in, const StFrame *f)
{
	TSNode body = tl_tree_field(f->node, in->sy->f_body);
	int32_t li = ts_node_is_null(body) ? -1 : tl_index_loop_of(in->idx, body);
	return li >= 0 && ts_node_eq(in->idx->loops.items[li].node, f->node) &&
	       (in->idx->loops.items[li].events & TL_EV_BACKWARD);
}

void tl_in__prov_target(In *in, const StFrame *f, TlVal *e)
{
	/* the batches of a parameter a step loop iterates: data */
	if (tl_prov__step_loop(in, f))
		*e = tl_prov__no_params(in, e, 0);
	const TlValPool *p = &in->m->pool;
	TlVal leaf = *e;
	for (int depth = 0; depth < TL_VAL_NEST && leaf.kind == TL_VK_CONTAINER && leaf.elem >= 0; depth++)
		leaf = p->vals.items[leaf.elem];
	if (f->depth < 8 && (tl_prov__history(p, e) || (leaf.graph != TL_VG_NONE && tl_prov__pieces(in, f))))
		e->old |= (uint8_t)(1u << f->depth);
}

/* r takes a's bits, and those of a container's elements (NEST deep). */
static void tl_prov__add_in(const TlValPool *p, TlVal *r, const TlVal *a)
{
	TlVal e = *a;
	for (int depth = 0; depth <= TL_VAL_NEST; depth++) {
		r->old |= e.old;
		r->prev |= e.prev;
		r->pold |= e.pold;
		r->kept |= e.kept;
		if (e.kind != TL_VK_CONTAINER || e.elem < 0 || (uint32_t)e.elem >= p->vals.size)
			return;
		e = p->vals.items[e.elem];
	}
}

/* `v` with its bits (and its elements') taken from the arguments its
 * `pold` bits name; NEST levels of containers. */
static TlVal tl_prov__rebase(In *in, const TlVal *pv, const TlVal *args, uint32_t nargs, uint32_t shift,
			     unsigned nest)
{
	TlVal v = *pv;
	uint16_t bits = v.pold;
	tl_prov__clear(&v);
	for (uint32_t i = shift; i < 16 && bits; i++)
		if ((bits & (1u << i)) && i - shift < nargs)
			tl_prov__add_in(&in->m->pool, &v, &args[i - shift]);
	if (v.kind != TL_VK_CONTAINER || nest >= TL_VAL_NEST)
		return v;
	TlValPool *p = &in->m->pool;
	if (v.elem >= 0 && (uint32_t)v.elem < p->vals.size) {
		TlVal e = p->vals.items[v.elem];
		if (e.old || e.prev || e.pold || e.kept || e.kind == TL_VK_CONTAINER) {
			TlVal ne = tl_prov__rebase(in, &e, args, nargs, shift, nest + 1);
			if (!tl_val_equal(p, &e, &ne))
				v.elem = tl_val_pool_add(p, ne);
		}
	}
	/* Positions: rebuilt when one of them changes. */
	bool change = false;
	for (int32_t k = v.parts; k >= 0 && !change; k = p->vals.items[k].next) {
		const TlVal *q = &p->vals.items[k];
		change = q->old || q->prev || q->pold || q->kept || q->kind == TL_VK_CONTAINER;
	}
	if (!change)
		return v;
	int32_t first = -1, last = -1;
	for (int32_t k = v.parts; k >= 0; k = p->vals.items[k].next) {
		TlVal q = p->vals.items[k];
		TlVal nq = tl_prov__rebase(in, &q, args, nargs, shift, nest + 1);
		nq.key = q.key;
		tl_val_chain_append(p, &first, &last, nq);
	}
	v.parts = first;
	return v;
}

void tl_in__prov_apply(In *in, const TlVal *ret, const TlVal *args, uint32_t nargs, uint32_t shift, TlVal *r)
{
	TlVal base = *r;
	base.pold = ret->pold;
	*r = tl_prov__rebase(in, &base, args, nargs, shift, 0);
}

void tl_in__prov_call(In *in, const TlCall *c, bool runs, const TlVal *recv, const TlVal *args, uint32_t nargs, TlVal *r)
{
	/* A summary applied says where its result comes from (its graph may
	 * read none where a container argument's elements were not followed:
	 * the bits stay). */
	if (in->applied && (!(r->made & TL_VM_OPAQUE) || r->made == TL_VM_TOP))
		return;
	for (uint32_t i = 0; i < nargs; i++)
		tl_prov__add_in(&in->m->pool, r, &args[i]);
	if (recv && !runs && recv->kind != TL_VK_MODULE &&
	    recv->kind != TL_VK_WRAPPER && recv->kind != TL_VK_OBJECT && recv->kind != TL_VK_CRITERION)
		tl_prov__add_in(&in->m->pool, r, recv);
	/* next(batches): an item of what is iterated, data */
	if (!c->receiver.id && !c->qname && c->method && strcmp(c->method, "next") == 0)
		r->pold = 0;
	if (r->kind != TL_VK_CONTAINER && r->graph == TL_VG_NONE)
		tl_prov__clear(r);
}

void tl_in__prov_none(TlVal *v)
{
	tl_prov__clear(v);
}

/* ---- the question ------------------------------------------------------------------ */

int tl_model_graph_from_before(const TlIndex *idx, int32_t loop, TSNode expr, TlProvInfo *out)
{
	memset(out, 0, sizeof *out);
	TlVal v;
	if (!tl_model_value(idx, expr, &v))
		return -1;
	const TlModel *m = tl_model_of(idx);
	/* a container differentiated whole (`torch.autograd.backward(losses)`) */
	TlVal e = tl_val_bot();
	if (m)
		tl_prov__add_in(tl_model_pool(m), &e, &v);
	out->params = e.pold;
	out->kept = e.kept != 0;
	if (loop < 0 || (uint32_t)loop >= idx->loops.size)
		return 1;
	/* The loop's depth in its function: the loops around it there. */
	uint32_t depth = 0;
	for (int32_t p = idx->loops.items[loop].parent; p >= 0; p = idx->loops.items[p].parent)
		if (idx->loops.items[p].func == idx->loops.items[loop].func)
			depth++;
	if (depth >= 8)
		return -1;
	uint8_t bit = (uint8_t)(1u << depth);
	out->before = (e.old & bit) != 0;
	out->carried = (e.prev & bit) != 0;
	return 1;
}
