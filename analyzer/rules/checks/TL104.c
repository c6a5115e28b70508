/* TL104's rule logic (retain-graph-in-loop). Graphs backpropagated more than
 * once. What a value's history is, and where it comes from (made before the
 * loop, handed on by the previous iteration, computed from which parameters:
 * model/prov.c, tl_model_graph_from_before), is the semantic model's. What
 * stays here: which parameters' callers pass a graph, and a helper's call
 * sites in the loop that calls it.
 *
 * Owns: tl_check_graph_reused, tl_check_graph_carried. */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

/* True when a parameter of a function may hold a graph tensor: some caller
 * passes a value with history on some path (or a container of them), or
 * the callers are unknown (precision first). */
static bool tl_check__param_graph(const TlIndex *idx, const TlBinding *b)
{
	if (b->func < 0)
		return true;
	const TlFunc *f = &idx->funcs.items[b->func];
	if (f->escapes || !f->call_sites.size)
		return true;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		TSNode arg = tl_facts__param_arg_of(idx, b, c);
		TlVal v;
		if (ts_node_is_null(arg) || !tl_model_value(idx, arg, &v))
			continue;
		unsigned g = tl_facts__history(idx, &v);
		if (g == TL_VG_MUST || g == TL_VG_MAY)
			return true;
	}
	return false;
}

/* True when every call of the function that parameter `b` belongs to sits
 * in the body of loop `l` (in its function) and passes an argument for it
 * that is no parameter of that function. */
static bool tl_check__args_in_loop(const TlIndex *idx, const TlBinding *b, const TlLoop *l)
{
	const TlFunc *f = &idx->funcs.items[b->func];
	if (f->escapes || !f->call_sites.size)
		return false;
	for (uint32_t k = 0; k < f->call_sites.size; k++) {
		const TlCall *site = &idx->calls.items[f->call_sites.items[k]];
		if (site->func != l->func || !tl_facts__contains(l->body, site->node))
			return false;
		TSNode arg = tl_facts__param_arg_of(idx, b, site);
		if (ts_node_is_null(arg))
			return false;
	}
	return true;
}

/* True when loop `l`'s body binds the name of parameter `b` (a state the
 * loop re-binds each iteration, not a value from before it). */
static bool tl_check__rebound_in(const TlIndex *idx, const TlBinding *b, const TlLoop *l)
{
	const TlIntArray *all = tl_index_bindings_of(idx, b->func, b->name);
	for (uint32_t i = 0; all && i < all->size; i++) {
		const TlBinding *o = &idx->bindings.items[all->items[i]];
		if (o != b && o->kind != TL_BIND_PARAM && tl_facts__contains(l->body, o->stmt))
			return true;
	}
	return false;
}

/* The binding of parameter `i` of function `func`, or NULL. */
static const TlBinding *tl_check__param_binding(const TlIndex *idx, int32_t func, uint32_t i)
{
	if (func < 0 || (uint32_t)func >= idx->funcs.size)
		return NULL;
	const TlFunc *f = &idx->funcs.items[func];
	return i < f->params.size ? &idx->bindings.items[f->params.items[i]] : NULL;
}

/* The model's answer (model/prov.c, tl_model_graph_from_before) to
 * whether the tensor `subject`, differentiated in loop `l` (or, when `l`
 * is NULL, in function `func`), depends on autograd history made before
 * the iteration began: history in the state when the loop's iteration
 * began, or a parameter of its function whose callers pass a graph (or
 * are not known) and that the loop does not re-bind. In a helper that a
 * loop of another function calls (every call in its body), what each call
 * passes for those parameters is asked in turn, as seen in that loop; an
 * element the helper reads out of a store it is handed or its object
 * holds was kept there by an earlier call (a pipeline schedule's saved
 * micro-batch outputs), which another call may backpropagate too.
 * *carried: history handed on by the previous iteration through a state
 * the loop carries without detaching. */
static bool tl_check__graph_from_before(const TlIndex *idx, TSNode subject, const TlLoop *l, int32_t func,
				       bool *carried)
{
	int32_t li = l ? (int32_t)(l - idx->loops.items) : -1;
	bool own = l && l->func == func;
	TlProvInfo pi;
	if (tl_model_graph_from_before(idx, own ? li : -1, subject, &pi) < 0)
		return true; /* not known: precision first */
	if (pi.carried && carried)
		*carried = true;
	if (pi.before || (pi.kept && !own))
		return true;
	for (uint32_t i = 0; i < 16; i++) {
		if (!(pi.params & (1u << i)))
			continue;
		const TlBinding *b = tl_check__param_binding(idx, func, i);
		if (!b || !b->name)
			continue;
		if (own && tl_check__rebound_in(idx, b, l))
			continue; /* a recurrent state: carried above, or made afresh */
		if (l && !own && tl_check__args_in_loop(idx, b, l)) {
			/* A helper the iteration calls: what the calls in the
			 * loop body pass, as seen in that loop. */
			const TlFunc *pf = &idx->funcs.items[b->func];
			for (uint32_t k = 0; k < pf->call_sites.size; k++) {
				const TlCall *site = &idx->calls.items[pf->call_sites.items[k]];
				TSNode arg = tl_facts__param_arg_of(idx, b, site);
				TlProvInfo ai;
				if (tl_model_graph_from_before(idx, li, arg, &ai) < 0 || ai.before)
					return true;
				if (ai.carried && carried)
					*carried = true;
				for (uint32_t j = 0; j < 16; j++) {
					const TlBinding *pb = (ai.params & (1u << j)) ? tl_check__param_binding(idx, l->func, j) : NULL;
					if (pb && pb->name && !tl_check__rebound_in(idx, pb, l) && tl_check__param_graph(idx, pb))
						return true;
				}
			}
			continue;
		}
		if (tl_check__param_graph(idx, b))
			return true;
	}
	return false;
}

bool tl_check_graph_reused(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!c || !(c->events & TL_EV_BACKWARD))
		return false;
	/* Another backward (or autograd.grad) later in an iteration of the
	 * call, in program order: one that ran before it needs no retained
	 * graph (the last backward of a GAN step). When the call does not
	 * show in the iteration's order (it cannot be placed), any other
	 * backward counts. */
	TlIntArray loops;
	tl_array_init(&loops);
	tl_facts__step_loop_list(idx, c->node, &loops);
	bool again = false;
	for (uint32_t i = 0; i < loops.size && !again; i++) {
		const TlLoop *l = &idx->loops.items[loops.items[i]];
		TlSteps seq;
		tl_array_init(&seq);
		tl_facts__sequence(idx, l->func, l->body, TL_EV_BACKWARD | TL_EV_GRAD_CALL, &seq);
		uint32_t at = seq.size;
		for (uint32_t k = 0; k < seq.size && at == seq.size; k++)
			if (ts_node_eq(seq.items[k].node, c->node))
				at = k;
		again = at == seq.size ? seq.size > 1 : at + 1 < seq.size;
		tl_array_release(&seq);
	}
	TSNode subject = tl_facts__backward_tensor(idx, c);
	if (ts_node_is_null(subject))
		subject = tl_facts__arg(c->node, 0);
	if (again || ts_node_is_null(subject)) {
		tl_array_release(&loops);
		return true;
	}
	/* A graph made before the iteration, reached again by the next one:
	 * the loop of its own function, else (a helper the iteration calls)
	 * the step loops of its call sites. */
	int32_t loop = c->loop;
	while (loop >= 0 && !(idx->loops.items[loop].events & TL_EV_BACKWARD))
		loop = idx->loops.items[loop].parent;
	bool before = false;
	if (loop >= 0 || !loops.size)
		before = tl_check__graph_from_before(idx, subject,
						     loop >= 0 ? &idx->loops.items[loop] : NULL, c->func, NULL);
	for (uint32_t i = 0; loop < 0 && i < loops.size && !before; i++)
		before = tl_check__graph_from_before(idx, subject, &idx->loops.items[loops.items[i]],
						     c->func, NULL);
	tl_array_release(&loops);
	return before;
}

bool tl_check_graph_carried(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!c || !(c->events & TL_EV_BACKWARD))
		return false;
	TSNode subject = tl_facts__backward_tensor(idx, c);
	if (ts_node_is_null(subject))
		subject = tl_facts__arg(c->node, 0);
	if (ts_node_is_null(subject))
		return false;
	int32_t loop = c->loop;
	while (loop >= 0 && !(idx->loops.items[loop].events & TL_EV_BACKWARD))
		loop = idx->loops.items[loop].parent;
	bool carried = false;
	if (loop >= 0)
		tl_check__graph_from_before(idx, subject, &idx->loops.items[loop], c->func, &carried);
	return carried;
}
