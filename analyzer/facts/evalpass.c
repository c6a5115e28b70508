/* The evaluation pass (RULES.md, "Evaluation pass"): a loop, or the function
 * holding it, that runs a model forward over a data loader, dataset or
 * batches while the same program trains, and whose forward results reach
 * no backward and no optimizer step: the validation or test pass of a
 * training program, whether or not it calls .eval() or disables gradients.
 *
 * Built on the step-loop facts (facts/loops.c: the pass around a node and
 * what its iteration runs), value flow to a backward (facts/valueflow.c),
 * the grad-disabled context joined over call sites (tl_facts_under) and
 * whether the program trains (facts/mode.c). Without a grad-disabled
 * context, the pass must iterate data: a for loop over something that is
 * no count (`range(n)`, `itertools.count()`), no literal list of objects
 * and no module's parameters or submodules; sampling, decoding and
 * rollout loops over a counter are no evaluation pass in this sense.
 *
 * Owns: tl_facts_evaluation_pass. */
#include "facts/internal.h"

/* Calls that hand on the items of their first argument. */
static bool tl_evalpass__wraps(const char *name)
{
	static const char *const names[] = { "enumerate", "tqdm", "zip", "iter", "list", "tuple",
					      "reversed", "sorted", "islice", "track", NULL };
	for (size_t i = 0; names[i]; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* True when `iter`, the iterable of a for loop, may hold data (batches,
 * samples): not a counter, a literal, or a module's own parts. */
static bool tl_evalpass__data_iterable(const TlIndex *idx, TSNode iter)
{
	static const char *const counters[] = { "range", "trange", "count", "repeat", "arange",
						"parameters", "named_parameters", "modules",
						"named_modules", "children", "named_children",
						"buffers", "named_buffers", "keys", "linspace", NULL };
	const TlSyms *sy = tl_syms();
	for (int depth = 0; depth < 8; depth++) {
		iter = tl_index_unparen(iter);
		if (ts_node_is_null(iter))
			return false;
		TSSymbol s = ts_node_symbol(iter);
		if (s == sy->list || s == sy->tuple || s == sy->string || s == sy->integer ||
		    s == sy->dictionary || s == sy->set)
			return false;
		if (s != sy->call)
			return true;
		const TlCall *c = tl_index_call_at(idx, iter);
		const char *name = c ? (c->qname ? tl_facts__last(c->qname) : c->method) : NULL;
		if (!name)
			return true;
		for (size_t i = 0; counters[i]; i++)
			if (strcmp(name, counters[i]) == 0)
				return false;
		if (!tl_evalpass__wraps(name))
			return true;
		TSNode args = tl_tree_field(iter, sy->f_arguments);
		if (ts_node_is_null(args) || ts_node_named_child_count(args) == 0)
			return false;
		iter = ts_node_named_child(args, 0);
	}
	return false;
}

/* True when loop `l` is a for loop over data. */
static bool tl_evalpass__data_loop(const TlIndex *idx, int32_t l)
{
	const TlSyms *sy = tl_syms();
	TSNode n = idx->loops.items[l].node;
	return ts_node_symbol(n) == sy->for_statement &&
	       tl_evalpass__data_iterable(idx, tl_tree_field(n, sy->f_right));
}

/* True when the pass of forward call `c` iterates data: the innermost loop
 * of its own function, else (the pass is its function) a step loop that
 * runs it through its call sites and trains nothing (a sample drawn once
 * every N steps of a training loop over data is no evaluation pass). */
static bool tl_evalpass__over_data(const TlIndex *idx, const TlCall *c)
{
	if (c->loop >= 0)
		return tl_evalpass__data_loop(idx, c->loop);
	TlIntArray loops;
	tl_array_init(&loops);
	tl_facts__step_loop_list(idx, c->node, &loops);
	bool data = false;
	for (uint32_t i = 0; i < loops.size && !data; i++)
		data = !(idx->loops.items[loops.items[i]].events & (TL_EV_BACKWARD | TL_EV_OPT_STEP)) &&
		       tl_evalpass__data_loop(idx, loops.items[i]);
	tl_array_release(&loops);
	return data;
}

enum { TL_EVALPASS_TRAINS = TL_EV_BACKWARD | TL_EV_OPT_STEP, TL_EVALPASS_DEPTH = 6 };

/* True when module-level code of `idx` trains: a call outside functions
 * runs a backward or an optimizer step, itself or through what it calls. */
static bool tl_evalpass__top_trains(const TlIndex *idx)
{
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *k = &idx->calls.items[i];
		if (k->func < 0 && ((k->events | k->callee_events) & TL_EVALPASS_TRAINS))
			return true;
	}
	return false;
}

/* True when training runs around function `func` (-1: module level): it
 * reaches a backward or an optimizer step itself, another method of its
 * class does, or a caller (in the file or in a module that imports it)
 * trains around its call. The pass of a model that only a freshly built,
 * never trained module runs (a prediction script, a test) is none. */
static bool tl_evalpass__trains_around(const TlIndex *idx, int32_t func, int depth)
{
	if (func < 0)
		return tl_evalpass__top_trains(idx);
	const TlFunc *f = &idx->funcs.items[func];
	if (f->reach_events & TL_EVALPASS_TRAINS)
		return true;
	if (f->cls >= 0)
		for (uint32_t i = 0; i < idx->funcs.size; i++)
			if (idx->funcs.items[i].cls == f->cls &&
			    (idx->funcs.items[i].reach_events & TL_EVALPASS_TRAINS))
				return true;
	if (depth >= TL_EVALPASS_DEPTH || !tl_facts__fan_step())
		return false;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		int32_t caller = idx->calls.items[f->call_sites.items[i]].func;
		if (caller != func && tl_evalpass__trains_around(idx, caller, depth + 1))
			return true;
	}
	if (f->call_sites.size || f->escapes || !idx->imports)
		return false;
	const TlExtSites *sites = tl_facts__ext_callers(idx, func);
	bool trains = false;
	if (sites) {
		tl_facts__ext_enter(idx);
		for (uint32_t i = 0; i < sites->size && !trains; i++) {
			const TlExtSite *s = &sites->items[i];
			int32_t caller = s->call->func;
			if (caller < 0)
				trains = tl_evalpass__top_trains(s->idx);
			else {
				const TlFunc *cf = &s->idx->funcs.items[caller];
				trains = (cf->reach_events & TL_EVALPASS_TRAINS) ||
					 (s->call->loop >= 0 &&
					  (s->idx->loops.items[s->call->loop].events & TL_EVALPASS_TRAINS));
				for (uint32_t k = 0; cf->cls >= 0 && k < s->idx->funcs.size && !trains; k++)
					trains = s->idx->funcs.items[k].cls == cf->cls &&
						 (s->idx->funcs.items[k].reach_events & TL_EVALPASS_TRAINS);
			}
		}
		tl_facts__ext_leave(idx);
	}
	return trains;
}

bool tl_facts_evaluation_pass(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!c || !(c->events & TL_EV_FORWARD))
		return false;
	if (!tl_facts_in_step_loop(idx, c->node, TL_STEP_TRAIN | TL_STEP_EVAL, false) ||
	    !tl_facts_pass_lacks(idx, c->node, TL_EV_BACKWARD | TL_EV_OPT_STEP) ||
	    tl_facts_reaches_backward(idx, c->node) || !tl_facts__program_trains(idx, c->func))
		return false;
	/* Grad-disabled code that trains nothing in a program that trains is
	 * evaluation; otherwise the pass must iterate data, with training
	 * around it. */
	if (tl_facts_under(idx, c->node, TL_CTX_GRAD_OFF))
		return true;
	if (!tl_evalpass__over_data(idx, c))
		return false;
	tl_facts__fan_begin();
	bool trains = tl_evalpass__trains_around(idx, c->func, 0);
	tl_facts__fan_end();
	return trains;
}
