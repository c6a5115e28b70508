/* TL213's rule logic (ddp-module-bypassed). Whether the training around a
 * node steps an optimizer.
 *
 * Owns: tl_check_updates_weights, tl_check_updates_weights_nowhere. */
#include "rules/checks/checks.h"

#include "facts/internal.h"

/* True when the code around `node` (in `loop` of `func`) steps an
 * optimizer: its function does (anywhere in it, the local functions it
 * calls included: that covers every loop around the node), else that holds
 * around a call site of the function; at module level, a loop around the
 * node does. Bounded by depth and budget. */
static bool tl_check__steps_around(const TlIndex *idx, int32_t func, int32_t loop, int depth,
				   int *budget)
{
	if (depth > TL_FACTS_DEPTH || --*budget < 0)
		return false;
	if (func < 0) {
		for (int32_t l = loop; l >= 0; l = idx->loops.items[l].parent)
			if (idx->loops.items[l].events & TL_EV_OPT_STEP)
				return true;
		return false;
	}
	const TlFunc *f = &idx->funcs.items[func];
	if (f->reach_events & TL_EV_OPT_STEP)
		return true;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (c->func != func && tl_check__steps_around(idx, c->func, c->loop, depth + 1, budget))
			return true;
	}
	return false;
}

bool tl_check_updates_weights(const TlIndex *idx, TSNode node)
{
	int budget = TL_FACTS_BUDGET;
	return tl_check__steps_around(idx, tl_index_func_of(idx, node), tl_index_loop_of(idx, node), 0,
				      &budget);
}

bool tl_check_updates_weights_nowhere(const TlIndex *idx)
{
	/* tl_check__steps_around reads a loop's events and a function's
	 * reach_events: both are made of the calls' events and callee_events
	 * and the sites' events (facts/build.c). */
	if (!tl_index_no_call_has(idx, TL_EV_OPT_STEP, TL_EV_OPT_STEP))
		return false;
	for (uint32_t i = 0; i < idx->sites.size; i++)
		if (idx->sites.items[i].events & TL_EV_OPT_STEP)
			return false;
	return true;
}
