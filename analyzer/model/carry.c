/* Loop-carried paths (model.h: tl_model_carried): what a loop's iteration
 * hands the next one.
 *
 * The interpreter runs a `for` or `while` body from the loop's head until
 * the state there stops changing (interp.c). Each slot of the state keeps,
 * per loop around the point (bit d for the loop at depth d of the function,
 * the first 8), whether the path was stored into since that loop's head on
 * every path (TlSlot.must) or on some path (TlSlot.may): a store sets every
 * bit, a loop's head clears its own, a join keeps must on both sides and
 * may on either. A read of a path whose must bit is clear for a loop, or
 * that the state has no slot for (an object's attribute, a global, read as
 * it stands), sees the value the head had (the previous iteration's, after
 * the first): the path is read before any store in that loop's iteration.
 * Where a round's body ends (the back edge, joined with its `continue`s),
 * each such path the body stores into on some path is loop-carried, with
 * the value it hands the next iteration; the last round's is kept (it ran
 * from the highest state). A path read so that the body never stores into
 * (a list filled through `setdefault`, an object whose method keeps what
 * it is given) is recorded too, without a value.
 *
 * A store that gives a path a value without history in a round of a loop
 * (`h = h.detach()`, `h = None`, a value of a call nothing is known of,
 * `h.detach_()`, a function of the project that detaches what it is given
 * for a parameter) marks the path for that loop: the record says the
 * iteration detaches it somewhere (TL_MCARRY_DETACHED). The same stores
 * into a function's parameters make its summary's `detaches` bits. A store
 * by a statement that does not read the path (`buf = []`; not `total +=
 * x`) marks it as reset (TL_MCARRY_RESET).
 *
 * Owns: tl_model_carried and the interpreter's tl_in__carry_* hooks. */
#include "model/interp_internal.h"

#include <string.h>

#include "base/alloc.h"

static uint32_t tl_carry__key(const TlPath *p)
{
	return (tl_path_hash(p) & 0x7fffffffu) + 1u;
}

void tl_in__carry_push(In *in, StFrame *f)
{
	f->depth = (uint8_t)(in->loops < 255 ? in->loops : 255);
	if (in->loops < 8)
		in->loop_frames[in->loops] = (int32_t)(in->frames.size - 1);
	in->loops++;
}

void tl_in__carry_pop(In *in, const StFrame *f)
{
	(void)f;
	if (in->loops)
		in->loops--;
	if (!in->loops) {
		/* No loop runs any more: what was read or detached in their
		 * iterations is recorded (m->carries), and no round of them
		 * comes again. Kept, each of a function's loops in a row would
		 * scan those of every loop before it. */
		in->exposed.size = 0;
		tl_scopemap_release(&in->exposed_seen);
		tl_scopemap_init(&in->exposed_seen);
		in->dstores.size = 0;
	}
}

void tl_in__carry_head(In *in, const StFrame *f)
{
	in->stmt_reads.size = 0; /* the target's store reads nothing */
	if (f->depth >= 8)
		return;
	tl_state_clear_stores(&in->st, (uint8_t)(1u << f->depth));
	/* a new round: its own detaching stores only (the records of the
	 * rounds before are stale) */
	in->loop_round[f->depth] = ++in->rounds;
}

/* The record of a store into `p` in the current round of the loop at
 * `loop` (depth d), or NULL. A chain is newest first, so the current
 * round's records come before any stale one. */
static TlCarryRead *tl_carry__dstore(In *in, uint32_t loop, uint32_t d, const TlPath *p, int32_t *head)
{
	*head = -1;
	if (!tl_scopemap_get(&in->dstores_at, loop, tl_carry__key(p), head))
		return NULL;
	for (int32_t i = *head; i >= 0; i = in->dstores.items[i].next) {
		TlCarryRead *r = &in->dstores.items[i];
		if (r->round != in->loop_round[d])
			break;
		if (tl_path_equal(&r->path, p))
			return r;
	}
	return NULL;
}

/* True when `v` (of pool `p`) has no history: its graph, or a container's
 * elements', is none or not known, and follows no parameter; an empty
 * container. */
static bool tl_carry__no_history(const TlValPool *p, const TlVal *v)
{
	TlVal e = *v;
	if (v->kind == TL_VK_CONTAINER) {
		e = tl_val_element(p, v);
		if (tl_val_is_bot(&e))
			return true; /* an empty container */
	}
	return !e.pgraph && !v->pgraph && (e.graph == TL_VG_NONE || e.graph == TL_VG_UNKNOWN);
}

/* Path `p` is stored into here as `how` says (TL_MCARRY_*). */
static void tl_carry__mark(In *in, const TlPath *p, uint8_t how)
{
	if (p->n == 0 && (how & TL_MCARRY_DETACHED))
		for (uint32_t i = 0; i < in->nparams && i < 16; i++)
			if (in->param_roots[i] == p->root)
				in->pdetached |= (uint16_t)(1u << i);
	if (in->m->quiet)
		return;
	uint32_t n = in->loops < 8 ? in->loops : 8;
	for (uint32_t d = 0; d < n; d++) {
		uint32_t loop = ts_node_start_byte(in->frames.items[in->loop_frames[d]].node);
		int32_t head;
		TlCarryRead *seen = tl_carry__dstore(in, loop, d, p, &head);
		if (seen) {
			seen->how |= how;
		} else {
			TlCarryRead r = { loop, (uint8_t)d, how, *p, head, in->loop_round[d] };
			tl_scopemap_put(&in->dstores_at, loop, tl_carry__key(p), (int32_t)in->dstores.size);
			tl_array_push(&in->dstores, r);
		}
	}
}

void tl_in__carry_enter(In *in, const TlFunc *fn)
{
	in->nparams = 0;
	for (uint32_t i = 0; i < fn->params.size && i < 16; i++) {
		const TlBinding *b = &in->idx->bindings.items[fn->params.items[i]];
		TlPath p;
		in->param_roots[i] = b->name && tl_path_of_dotted(&in->m->names, b->name, &p) && p.n == 0 ? p.root : -1;
		in->nparams = i + 1;
	}
}

void tl_in__carry_store(In *in, const TlPath *p, const TlVal *v)
{
	uint8_t how = 0;
	if ((in->loops || in->nparams) && tl_carry__no_history(&in->m->pool, v))
		how |= TL_MCARRY_DETACHED;
	if (in->loops) {
		bool read = false;
		for (uint32_t i = 0; i < in->stmt_reads.size && !read; i++)
			read = tl_path_equal(&in->stmt_reads.items[i], p);
		if (!read)
			how |= TL_MCARRY_RESET;
	}
	if (how)
		tl_carry__mark(in, p, how);
}

/* The path a detach_() call's receiver `r` names: subscripts looked
 * through (`h[0].detach_()` detaches part of h), and a `for` target
 * stands for what the loop iterates (`for s in h: s.detach_()`). */
static bool tl_carry__detached_path(In *in, TSNode r, TlPath *out)
{
	const TlSyms *sy = in->sy;
	r = tl_index_unparen(r);
	for (int i = 0; i < 8 && !ts_node_is_null(r) && ts_node_symbol(r) == sy->subscript; i++)
		r = tl_index_unparen(tl_tree_field(r, sy->f_value));
	if (ts_node_is_null(r))
		return false;
	if (ts_node_symbol(r) == sy->identifier) {
		const TlBinding *b = tl_index_resolve_node(in->idx, r);
		if (b && b->kind == TL_BIND_FOR && !ts_node_is_null(b->value) &&
		    tl_path_of(&in->m->names, in->idx, b->value, out))
			return true;
	}
	return tl_path_of(&in->m->names, in->idx, r, out);
}

void tl_in__carry_call(In *in, TSNode n, const TlCall *c)
{
	if (!in->loops && !in->nparams)
		return;
	TlPath p;
	if ((c->events & TL_EV_DETACH) && c->receiver.id && tl_carry__detached_path(in, c->receiver, &p))
		tl_carry__mark(in, &p, TL_MCARRY_DETACHED);
	if (!in->callee_mod || in->callee_ref < 0)
		return;
	const TlIndex *mod = in->callee_mod;
	const TlModel *cm = mod == in->idx ? in->m : mod->model;
	if (!cm || (uint32_t)in->callee_ref >= cm->funcs.size)
		return;
	if (cm == in->m)
		tl_model__dep_summary(in->m, in->callee_ref, false);
	uint16_t bits = cm->funcs.items[in->callee_ref].detaches;
	if (!bits)
		return;
	const TlSyms *sy = in->sy;
	TSNode al = tl_tree_field(n, sy->f_arguments);
	uint32_t na = ts_node_is_null(al) ? 0 : ts_node_named_child_count(al);
	for (uint32_t i = in->callee_shift; i < 16; i++) {
		if (!(bits & (1u << i)) || i - in->callee_shift >= na)
			continue;
		TSNode a = ts_node_named_child(al, i - in->callee_shift);
		TSSymbol s = ts_node_symbol(a);
		if (s == sy->keyword_argument || s == sy->list_splat || s == sy->dictionary_splat)
			continue;
		if (tl_path_of(&in->m->names, in->idx, a, &p))
			tl_carry__mark(in, &p, TL_MCARRY_DETACHED);
	}
}

void tl_in__carry_read(In *in, const TlPath *path, const TlSlot *slot)
{
	if (in->m->quiet)
		return;
	tl_array_push(&in->stmt_reads, *path);
	uint32_t n = in->loops < 8 ? in->loops : 8;
	for (uint32_t d = 0; d < n; d++) {
		if (slot && (slot->must & (1u << d)))
			continue;
		const StFrame *lf = &in->frames.items[in->loop_frames[d]];
		uint32_t loop = ts_node_start_byte(lf->node);
		uint32_t key = tl_carry__key(path);
		int32_t at;
		if (tl_scopemap_get(&in->exposed_seen, loop, key, &at)) {
			if (tl_path_equal(&in->exposed.items[at].path, path))
				continue;
			/* another path of the same hash: the list decides */
			bool seen = false;
			for (uint32_t i = 0; i < in->exposed.size && !seen; i++)
				seen = in->exposed.items[i].loop == loop &&
				       tl_path_equal(&in->exposed.items[i].path, path);
			if (seen)
				continue;
		} else {
			tl_scopemap_put(&in->exposed_seen, loop, key, (int32_t)in->exposed.size);
		}
		/* (loop, 0): the loop's newest record */
		int32_t head = -1;
		if (!tl_scopemap_get(&in->exposed_seen, loop, 0, &head))
			head = -1;
		tl_scopemap_put(&in->exposed_seen, loop, 0, (int32_t)in->exposed.size);
		TlCarryRead r = { loop, (uint8_t)d, 0, *path, head, 0 };
		tl_array_push(&in->exposed, r);
	}
}

/* Records path `p` of the loop at `loop` with the value at pool index
 * `val` (-1: the body does not store into it). */
static void tl_carry__record(TlModel *m, uint32_t loop, const TlPath *p, int32_t val, uint8_t how)
{
	uint32_t key = tl_carry__key(p);
	int32_t first = -1;
	if (tl_scopemap_get(&m->carried, loop, key, &first)) {
		for (int32_t at = first; at >= 0; at = m->carries.items[at].next) {
			TlCarry *c = &m->carries.items[at];
			if (tl_path_equal(&c->path, p)) {
				c->val = val;
				c->how = how;
				return;
			}
		}
	}
	TlCarry c = { *p, val, first, how };
	tl_scopemap_put(&m->carried, loop, key, (int32_t)m->carries.size);
	tl_array_push(&m->carries, c);
}

void tl_in__carry_back(In *in, const StFrame *f)
{
	TlModel *m = in->m;
	if (m->quiet || f->depth >= 8)
		return;
	uint32_t loop = ts_node_start_byte(f->node);
	uint8_t bit = (uint8_t)(1u << f->depth);
	tl_scopemap_put(&m->carried, loop, 0, -1); /* its iteration ran */
	/* The loop's records, oldest first. */
	TlIntArray mine;
	tl_array_init(&mine);
	int32_t head;
	if (tl_scopemap_get(&in->exposed_seen, loop, 0, &head))
		for (int32_t i = head; i >= 0; i = in->exposed.items[i].next)
			tl_array_push(&mine, i);
	for (uint32_t j = mine.size; j-- > 0;) {
		const TlCarryRead *r = &in->exposed.items[mine.items[j]];
		const TlSlot *s = in->st.dead ? NULL : tl_state_slot(&in->st, &r->path);
		int32_t val = -1;
		if (s && (s->may & bit)) {
			int32_t old = -1;
			const TlCarry *c = NULL;
			if (tl_scopemap_get(&m->carried, loop, tl_carry__key(&r->path), &old))
				for (; old >= 0 && !c; old = m->carries.items[old].next)
					if (tl_path_equal(&m->carries.items[old].path, &r->path))
						c = &m->carries.items[old];
			if (c && c->val >= 0 && tl_val_equal(&m->pool, &m->pool.vals.items[c->val], &s->val))
				val = c->val;
			else
				val = tl_val_pool_add(&m->pool, s->val);
		}
		int32_t first;
		const TlCarryRead *st = tl_carry__dstore(in, loop, f->depth, &r->path, &first);
		tl_carry__record(m, loop, &r->path, val, st ? st->how : 0);
	}
	tl_array_release(&mine);
}

void tl_in__carry_release(In *in)
{
	tl_array_release(&in->exposed);
	tl_scopemap_release(&in->exposed_seen);
	tl_array_release(&in->dstores);
	tl_scopemap_release(&in->dstores_at);
	tl_array_release(&in->stmt_reads);
}

int tl_model_carried(const TlIndex *idx, TSNode loop, TSNode expr, TlCarryInfo *out)
{
	memset(out, 0, sizeof *out);
	const TlModel *cm = tl_model_of(idx);
	if (!cm || ts_node_is_null(loop))
		return -1;
	TlModel *m = (TlModel *)cm; /* computed on demand: no answer changes */
	tl_model__ensure(m, tl_index_func_of(idx, loop));
	uint32_t start = ts_node_start_byte(loop);
	int32_t at;
	if (!tl_scopemap_get(&m->carried, start, 0, &at))
		return -1;
	TlPath p;
	if (!tl_path_of(&m->names, idx, expr, &p) || !tl_scopemap_get(&m->carried, start, tl_carry__key(&p), &at))
		return 0;
	for (; at >= 0; at = m->carries.items[at].next) {
		const TlCarry *c = &m->carries.items[at];
		if (!tl_path_equal(&c->path, &p))
			continue;
		out->detached = (c->how & TL_MCARRY_DETACHED) != 0;
		out->reset = (c->how & TL_MCARRY_RESET) != 0;
		out->stored = c->val >= 0;
		if (out->stored)
			out->val = m->pool.vals.items[c->val];
		return 1;
	}
	return 0;
}
