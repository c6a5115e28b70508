/* What an iteration makes afresh (TlVal.fresh): the answer to "does the
 * training or evaluation this loop's iteration runs involve state that
 * outlives the iteration?" (model.h: tl_model_fresh_run). A loop over a
 * few configurations that builds its model, its loss object and its data
 * in each iteration and takes one backward there (`for dtype in DTYPES:
 * loss_func = ArcFaceLoss(...); loss_func(torch.randn(...), labels)
 * .backward()`) runs one independent run per configuration: no step loop
 * (RULES.md, Definitions).
 *
 * Bit d of a value: made in the current round of the loop at depth d of
 * its function, on every path, from nothing that holds state from before
 * that round. Transfer:
 *
 * - A call computed in a loop gets the bit of every loop around it in its
 *   function, and of those only the bits every operand that may hold
 *   state holds too. Operands that may hold state: modules, wrappers,
 *   optimizers, scalers, criteria, parameters, tensors (one made with
 *   no history may be a leaf a later `p.requires_grad = True` over a
 *   list of them makes trainable: makemore's `C`, `W1`), objects of the
 *   project's classes, functions called, containers holding any of
 *   these, values of no known kind; numbers, strings, devices, classes,
 *   host arrays, loaders are data and configuration. Which operands: a method's
 *   receiver, and its arguments unless its row says the result is the
 *   receiver's values moved, cast or reshaped, or the receiver itself
 *   (`.to(device)`, `.type(dtype)`); a function's arguments; the callee
 *   itself when it is a value (an instance called, a module's forward, a
 *   function of the project, which may read a global model), not when it
 *   is a class (a construction), a builtin or a library name; a
 *   function of the project counts as a library's when its summary
 *   holds the run's bit (below), else the call holds no bit. A new
 *   leaf of the table (`torch.randn`, `torch.tensor(data,
 *   requires_grad=True)`: set new-leaf) reads no operand. A method that
 *   is handed such state (`model.load_state_dict(weights)`,
 *   `xs.append(old_model)`) leaves its receiver's path holding it.
 * - Operators and displays (`a * b`, `[m1, m2]`): the same over their
 *   operands. What is read out of a value (a field, an element, a
 *   position, an unpacked part) has the value's bits; a path of the
 *   state, its slot's.
 * - A name read from outside the function (a global, an import), a
 *   path bound on one side of a join only: none.
 * - The run's bit (TL_FRESH_RUN, bit 7; loops 7 deep or more hold none):
 *   the parameters hold it at the function's entry, so what its run
 *   computes from them and from what it makes itself keeps it; a
 *   summary that holds it says the function returns nothing it read
 *   from elsewhere (`lmu.logsumexp(mat, ...)`). What is stored into an
 *   attribute keeps no bits (model.c).
 * - Where a round of a loop begins, no value holds the loop's bit (nor a
 *   deeper loop's); what a `for` binds is an element of what it iterates,
 *   made before the loop.
 *
 * Owns: the interpreter's tl_in__fresh_* hooks, tl_model_fresh_run and
 * tl_model_loop_step. */
#include "model/interp_internal.h"

#include <string.h>

#include "model/apitable.h"
#include "syntax/syms.h"

/* The bits of the loops below depth `d` (TL_FRESH_LOOPS at most), and
 * the run's. */
static uint8_t tl_fresh__below(uint32_t d)
{
	d = d < TL_FRESH_LOOPS ? d : TL_FRESH_LOOPS;
	return (uint8_t)(((1u << d) - 1u) | TL_FRESH_RUN);
}

/* The bits of a value made now: every loop around the point, and the
 * function's run. */
static uint8_t tl_fresh__now(const In *in)
{
	return tl_fresh__below(in->loops);
}

/* True when `v` may hold state a step or a backward reaches (see the
 * head); a container when what it holds may (TL_VAL_NEST deep). */
static bool tl_fresh__stateful(const TlValPool *p, const TlVal *v, unsigned nest)
{
	switch ((TlVKind)v->kind) {
	case TL_VK_BOT:
	case TL_VK_NUMBER:
	case TL_VK_BOOL:
	case TL_VK_STRING:
	case TL_VK_NONE:
	case TL_VK_DEVICE:
	case TL_VK_CLASS:
	case TL_VK_ARRAY:
	case TL_VK_LOADER:
	case TL_VK_SAMPLER:
		return false;
	case TL_VK_CONTAINER: {
		if (nest >= TL_VAL_NEST)
			return true;
		if (v->elem >= 0 && (uint32_t)v->elem < p->vals.size &&
		    tl_fresh__stateful(p, &p->vals.items[v->elem], nest + 1))
			return true;
		for (int32_t k = v->parts; k >= 0 && (uint32_t)k < p->vals.size; k = p->vals.items[k].next)
			if (tl_fresh__stateful(p, &p->vals.items[k], nest + 1))
				return true;
		return false;
	}
	default:
		return true;
	}
}

/* `bits` narrowed to what operand `v` holds, when it may hold state. */
static uint8_t tl_fresh__with(const In *in, uint8_t bits, const TlVal *v)
{
	return tl_fresh__stateful(&in->m->pool, v, 0) ? (uint8_t)(bits & v->fresh) : bits;
}

void tl_in__fresh_enter(In *in)
{
	/* the parameters: what the run is handed */
	for (uint32_t i = 0; i < in->st.slots.size; i++)
		in->st.slots.items[i].val.fresh = TL_FRESH_RUN;
}

void tl_in__fresh_head(In *in, const StFrame *f)
{
	uint8_t keep = tl_fresh__below(f->depth);
	for (uint32_t i = 0; i < in->st.slots.size; i++)
		in->st.slots.items[i].val.fresh &= keep;
}

void tl_in__fresh_elem(const StFrame *f, TlVal *e, const TlVal *of)
{
	e->fresh = (uint8_t)(of->fresh & tl_fresh__below(f ? f->depth : TL_FRESH_LOOPS));
}

void tl_in__fresh_part(TlVal *part, const TlVal *whole)
{
	part->fresh = whole->fresh;
}

/* The callee of call `c` is a construction, a builtin or a library name:
 * no operand. */
static bool tl_fresh__maker(In *in, const TlCall *c, const TlVal *fn)
{
	if (fn->kind == TL_VK_CLASS)
		return true;
	if (c->qname) {
		TlVal pv;
		if (tl_model__resolve(in->m, c->qname, &pv))
			return pv.kind == TL_VK_CLASS;
		return true; /* a library's */
	}
	/* a builtin the table knows (`dict(...)`, `list(...)`): an unknown
	 * name (a star import's) may be a function of the project */
	return !c->receiver.id && c->method && !tl_index_resolve_node(in->idx, c->callee) &&
	       tl_api_builtin(c->method) != NULL;
}

/* A method called on a path of the state with arguments that hold state
 * from before (`model.load_state_dict(global_weights)`, `xs.append(m)`):
 * the receiver holds it now, unless the row says the call moves, casts or
 * returns the receiver. */
static void tl_fresh__into(In *in, const TlCall *c, const TlVal *vals, uint32_t nv)
{
	uint8_t bits = 0xff;
	for (uint32_t i = 1; i < nv; i++)
		if (vals[i].kind != TL_VK_FUNCTION)
			bits = tl_fresh__with(in, bits, &vals[i]);
	TlPath p;
	if (bits == 0xff || !tl_path_of(&in->m->names, in->idx, c->receiver, &p))
		return;
	TlSlot *sl = (TlSlot *)tl_state_slot(&in->st, &p);
	if (sl)
		sl->val.fresh &= bits;
}

/* Function `fn` of the project (a function value) returns what its run
 * computes from its parameters and what it makes itself only: its
 * summary holds the run's bit (it reads no global, no attribute of an
 * object from outside, and calls nothing of the project that does). Of
 * this module, as the summary stands now (this function depends on it,
 * and runs again when it changes); of another, its model's. */
static bool tl_fresh__pure(In *in, const TlVal *fn)
{
	if (fn->kind != TL_VK_FUNCTION || fn->ref < 0 || !fn->mod)
		return false;
	if (fn->mod == (const void *)in->idx) {
		if ((uint32_t)fn->ref >= in->m->funcs.size)
			return false;
		tl_model__dep_summary(in->m, fn->ref, false);
		const TlFuncSum *s = &in->m->funcs.items[fn->ref];
		return s->status && s->ret.kind != TL_VK_BOT && (s->ret.fresh & TL_FRESH_RUN);
	}
	TlVal ret;
	return tl_model__summary(in->m, (const TlIndex *)fn->mod, fn->ref, &ret) && ret.kind != TL_VK_BOT &&
	       (ret.fresh & TL_FRESH_RUN);
}

static void tl_fresh__call(In *in, TSNode n, const TlVal *vals, uint32_t nv, TlVal *r)
{
	const TlCall *c = tl_index_call_at(in->idx, n);
	uint8_t bits = tl_fresh__now(in);
	if (!c || nv == 0 || !bits) {
		r->fresh = 0;
		return;
	}
	bool args = true;
	if (c->qname) {
		const TlApiRow *q = tl_api_qualified(c->qname);
		if (q && (q->sets & TL_APIS_NEW_LEAF)) {
			r->fresh = bits;
			return;
		}
		TlVal pv;
		if (!tl_fresh__maker(in, c, &vals[0]) &&
		    !(tl_model__resolve(in->m, c->qname, &pv) && tl_fresh__pure(in, &pv)))
			bits = 0; /* a function of the project that reads more */
	} else if (c->receiver.id) {
		bits = tl_fresh__with(in, bits, &vals[0]);
		const TlApiRow *m = c->method ? tl_api_method(c->method) : NULL;
		if (m && (m->roles & (TL_APIR_RESHAPE | TL_APIR_MOVES | TL_APIR_RETURNS_SELF)))
			args = false;
		else
			tl_fresh__into(in, c, vals, nv);
	} else if (!tl_fresh__maker(in, c, &vals[0])) {
		/* an instance called, a forward, a function of the project */
		if (vals[0].kind == TL_VK_FUNCTION)
			bits = tl_fresh__pure(in, &vals[0]) ? bits : 0;
		else
			bits = tl_fresh__with(in, bits, &vals[0]);
	}
	/* the arguments; a function of the project handed to another runs
	 * there, reading what it may */
	bool runs = !c->receiver.id && !tl_fresh__maker(in, c, &vals[0]);
	for (uint32_t i = 1; args && i < nv && bits; i++)
		if (vals[i].kind != TL_VK_FUNCTION)
			bits = tl_fresh__with(in, bits, &vals[i]);
		else if (runs && vals[i].ref >= 0)
			bits = 0;
	r->fresh = bits;
}

void tl_in__fresh_expr(In *in, TSNode n, const TlVal *ops, uint32_t nv, TlVal *r)
{
	const TlSyms *sy = in->sy;
	TSSymbol s = ts_node_symbol(n);
	if (s == sy->call) {
		tl_fresh__call(in, n, ops, nv, r);
		return;
	}
	if (s == sy->identifier) {
		if (!in->path_read)
			r->fresh = 0; /* a global, an import, a builtin */
		return;
	}
	if (s == sy->attribute || s == sy->subscript) {
		if (!in->path_read)
			r->fresh = nv ? ops[0].fresh : 0;
		return;
	}
	if (s == sy->binary_operator || s == sy->unary_operator || s == sy->tuple || s == sy->list ||
	    s == sy->expression_list || s == sy->set || s == sy->dictionary) {
		uint8_t bits = tl_fresh__now(in);
		for (uint32_t i = 0; i < nv && bits; i++)
			bits = tl_fresh__with(in, bits, &ops[i]);
		r->fresh = bits;
	}
	/* keyword arguments, parentheses, splats, a walrus: their operand's;
	 * a boolean or conditional expression: the join of its arms'; a
	 * literal: no state */
}

void tl_in__fresh_op(In *in, const TlVal *l, const TlVal *rv, TlVal *v)
{
	uint8_t bits = tl_fresh__with(in, tl_fresh__now(in), l);
	v->fresh = tl_fresh__with(in, bits, rv);
}

/* ---- the question ------------------------------------------------------------------ */

/* True when what call `c` steps, differentiates or runs (its receiver,
 * else its callee) may be made in loop `l`'s iteration: a library's name
 * (`torch.autograd.backward`), or a name the loop's body binds (the
 * model is not asked of a loop whose model comes from a parameter, from
 * `self` or from before the loop: most step loops, whose file's model a
 * question may not need otherwise). */
static bool tl_fresh__bound_in(const TlIndex *idx, const TlLoop *l, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	if (c->qname)
		return true;
	TSNode x = tl_index_unparen(ts_node_is_null(c->receiver) ? c->callee : c->receiver);
	for (int depth = 0; depth < 16 && !ts_node_is_null(x); depth++) {
		TSSymbol s = ts_node_symbol(x);
		if (s == sy->attribute)
			x = tl_index_unparen(tl_tree_field(x, sy->f_object));
		else if (s == sy->subscript)
			x = tl_index_unparen(tl_tree_field(x, sy->f_value));
		else if (s == sy->call) {
			const TlCall *k = tl_index_call_at(idx, x);
			if (k && k->qname)
				return true; /* `torch.mean(result)`: made here, of its arguments */
			x = tl_index_unparen(tl_tree_field(x, sy->f_function));
		} else
			break;
	}
	if (ts_node_is_null(x) || ts_node_symbol(x) != sy->identifier)
		return true; /* made where it is called: the model decides */
	uint32_t len = 0;
	const char *t = tl_index_text(idx, x, &len);
	char name[128];
	if (!t || len == 0 || len >= sizeof name)
		return false;
	memcpy(name, t, len);
	name[len] = '\0';
	const TlIntArray *all = tl_index_bindings_of(idx, l->func, name);
	uint32_t from = ts_node_start_byte(l->body), to = ts_node_end_byte(l->body);
	for (uint32_t i = 0; all && i < all->size; i++) {
		const TlBinding *b = &idx->bindings.items[all->items[i]];
		if (!ts_node_is_null(b->stmt) && ts_node_start_byte(b->stmt) >= from && ts_node_end_byte(b->stmt) <= to)
			return true;
	}
	return false;
}

/* True when the value at `expr` is known, and made in the current round
 * of the loop at depth `depth` (bit) or holds no state. */
static bool tl_fresh__at(const TlIndex *idx, const TlModel *m, TSNode expr, uint8_t bit)
{
	const TlSyms *sy = tl_syms();
	TlVal v;
	expr = tl_index_unparen(expr);
	if (ts_node_is_null(expr))
		return false;
	TSSymbol s = ts_node_symbol(expr);
	if (s == sy->true_ || s == sy->false_ || s == sy->none || s == sy->integer || s == sy->float_ ||
	    s == sy->string)
		return true; /* a literal (`retain_graph=True`): no value recorded, no state */
	if (!tl_model_value(idx, expr, &v))
		return false;
	return (v.fresh & bit) || !tl_fresh__stateful(tl_model_pool(m), &v, 0);
}

int tl_model_fresh_run(const TlIndex *idx, int32_t loop)
{
	const TlSyms *sy = tl_syms();
	if (loop < 0 || (uint32_t)loop >= idx->loops.size)
		return 0;
	const TlLoop *l = &idx->loops.items[loop];
	uint32_t depth = 0;
	for (int32_t p = l->parent; p >= 0; p = idx->loops.items[p].parent)
		if (idx->loops.items[p].func == l->func)
			depth++;
	if (depth >= TL_FRESH_LOOPS)
		return 0;
	const uint32_t steps = TL_EV_BACKWARD | TL_EV_OPT_STEP | TL_EV_FORWARD;
	/* First the index: a step the iteration runs in a function it calls
	 * is not known; an iteration that runs none of its own is none. */
	bool any = false;
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (c->loop != loop)
			continue;
		uint32_t inner = c->callee_flat;
		if (c->target >= 0)
			inner |= idx->funcs.items[c->target].flat_events;
		if (c->arg_target >= 0)
			inner |= idx->funcs.items[c->arg_target].flat_events;
		if (inner & (TL_EV_BACKWARD | TL_EV_OPT_STEP))
			return 0;
		if ((inner & TL_EV_FORWARD) && !(c->events & TL_EV_FORWARD))
			return 0;
		if ((c->events & steps) && !tl_fresh__bound_in(idx, l, c))
			return 0;
		any = any || (c->events & steps);
	}
	if (!any)
		return 0;
	if (idx->model && idx->model->building)
		return -1; /* being built: asked again once it is (another
			    * module's, read for its summaries, records the
			    * values asked here: tl_in__record) */
	const TlModel *m = tl_model_of(idx);
	if (!m)
		return 0;
	uint8_t bit = (uint8_t)(1u << depth);
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (c->loop != loop || !(c->events & steps))
			continue;
		/* what is differentiated, stepped or run forward: the receiver
		 * of a method (`loss.backward()`, `opt.step()`), else the callee
		 * (`model(x)`), and every argument (what a forward is run on:
		 * an item of what the loop iterates is no run of its own) */
		TSNode who = ts_node_is_null(c->receiver) ? c->callee : c->receiver;
		if (!tl_fresh__at(idx, m, who, bit))
			return 0;
		TSNode a = tl_tree_field(c->node, sy->f_arguments);
		uint32_t na = ts_node_is_null(a) ? 0 : ts_node_named_child_count(a);
		for (uint32_t k = 0; k < na; k++) {
			TSNode x = ts_node_named_child(a, k);
			if (ts_node_symbol(x) == sy->keyword_argument)
				x = tl_tree_field(x, sy->f_value);
			if (ts_node_symbol(x) == sy->comment)
				continue;
			if (!tl_fresh__at(idx, m, x, bit))
				return 0;
		}
	}
	return 1;
}

/* The step kind of training loop `l` under the constant contexts its own
 * calls hand their callees (sitectx.c, tl_model_call_events): where the
 * index's training events of its iteration (a backward, an optimizer
 * step) all come from its calls, and no call runs one under the context
 * it hands its callee (`model.update(imgs, gt, training=False)`, whose
 * backward and step are under `if training:`), the loop does not train:
 * an evaluating loop when its iteration runs a forward and no loop or
 * callee inside it runs a step loop (and it does not iterate a literal
 * display), else none. -1: not known now (the model being built). */
static int tl_fresh__ctx_step(const TlIndex *idx, int32_t l)
{
	const TlSyms *sy = tl_syms();
	const TlLoop *lp = &idx->loops.items[l];
	const uint32_t train = TL_EV_BACKWARD | TL_EV_OPT_STEP;
	if (!(lp->step & TL_STEP_TRAIN))
		return (int)lp->step;
	for (uint32_t i = 0; i < idx->sites.size; i++)
		if (idx->sites.items[i].loop == l && (idx->sites.items[i].events & train))
			return (int)lp->step;
	if (idx->model && (idx->model->building || idx->model->quiet))
		return -1;
	uint32_t all = 0, kept = 0;
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (c->loop != l)
			continue;
		all |= tl_model_call_events(idx, c, train, false);
		kept |= tl_model_call_events(idx, c, train, true);
	}
	if ((lp->own_events & train & ~all) || (kept & train))
		return (int)lp->step;
	if (!(lp->own_events & TL_EV_FORWARD))
		return 0;
	if (ts_node_symbol(lp->node) == sy->for_statement) {
		TSNode r = tl_index_unparen(tl_tree_field(lp->node, sy->f_right));
		TSSymbol k = ts_node_is_null(r) ? 0 : ts_node_symbol(r);
		if (k == sy->list || k == sy->tuple || k == sy->set)
			return 0;
	}
	const uint32_t steps = TL_EV_BACKWARD | TL_EV_OPT_STEP | TL_EV_FORWARD;
	for (uint32_t i = 0; i < idx->loops.size; i++) {
		if ((int32_t)i == l || !(idx->loops.items[i].own_events & steps))
			continue;
		for (int32_t p = idx->loops.items[i].parent; p >= 0; p = idx->loops.items[p].parent)
			if (p == l)
				return 0;
	}
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		bool in = false;
		for (int32_t p = c->loop; p >= 0 && !in; p = idx->loops.items[p].parent)
			in = p == l;
		if (!in || (c->events & TL_EV_FORWARD))
			continue;
		if (c->callee_steps || (c->target >= 0 && idx->funcs.items[c->target].runs_step_loop) ||
		    (c->arg_target >= 0 && idx->funcs.items[c->arg_target].runs_step_loop))
			return 0;
	}
	return TL_STEP_EVAL;
}

uint32_t tl_model_loop_step(const TlIndex *idx, int32_t l)
{
	if (l < 0 || (uint32_t)l >= idx->loops.size)
		return 0;
	TlLoop *lp = (TlLoop *)&idx->loops.items[l]; /* a cache: no answer changes */
	if (!lp->step)
		return 0;
	if (!lp->run) {
		int fresh = tl_model_fresh_run(idx, l);
		if (fresh < 0)
			return lp->step; /* not kept: asked again */
		lp->run = fresh ? 2 : 1;
	}
	if (lp->run == 2)
		return 0;
	if (!lp->ctx) {
		int step = tl_fresh__ctx_step(idx, l);
		if (step < 0)
			return lp->step; /* not kept: asked again */
		lp->ctx = (uint8_t)(step + 1);
	}
	return (uint32_t)lp->ctx - 1u;
}
