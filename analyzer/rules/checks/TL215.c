/* TL215's rule logic (sampler-epoch-not-set). Step loops that an outer loop
 * runs again and again.
 *
 * Owns: tl_check_repeated_step_loop. */
#include "rules/checks/checks.h"

#include "facts/internal.h"

/* True when function `f` is called from inside a loop: a loop of the
 * calling function around the call, or, through its callers, around a
 * call of that function (bounded by depth and budget). */
static bool tl_check__called_in_loop(const TlIndex *idx, int32_t f, int depth, int *budget)
{
	if (f < 0 || depth > TL_FACTS_DEPTH)
		return false;
	const TlFunc *fn = &idx->funcs.items[f];
	for (uint32_t i = 0; i < fn->call_sites.size; i++) {
		if (--*budget < 0)
			return false;
		const TlCall *c = &idx->calls.items[fn->call_sites.items[i]];
		if (c->func == f)
			continue;
		if (c->loop >= 0 || tl_check__called_in_loop(idx, c->func, depth + 1, budget))
			return true;
	}
	return false;
}

/* The loop whose statement is `loop`, or -1: among its scope's loops (in
 * source order) by halving on where they start (a scan of every loop of
 * the file per question was quadratic in a scope of many loops), else
 * (a loop the scope lists do not hold) by a scan. */
static int32_t tl_check__loop_at(const TlIndex *idx, TSNode loop)
{
	int32_t func = tl_index_func_of(idx, loop);
	uint32_t start = ts_node_start_byte(loop);
	if (func + 1 >= 0 && (uint32_t)(func + 1) < idx->scope_loops.size) {
		const TlIntArray *in = &idx->scope_loops.items[func + 1];
		uint32_t lo = 0, hi = in->size;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (ts_node_start_byte(idx->loops.items[in->items[mid]].node) < start)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < in->size && ts_node_start_byte(idx->loops.items[in->items[lo]].node) == start; lo++)
			if (ts_node_eq(idx->loops.items[in->items[lo]].node, loop))
				return in->items[lo];
	}
	for (uint32_t i = 0; i < idx->loops.size; i++)
		if (ts_node_eq(idx->loops.items[i].node, loop))
			return (int32_t)i;
	return -1;
}

bool tl_check_repeated_step_loop(const TlIndex *idx, TSNode loop)
{
	int32_t at = tl_check__loop_at(idx, tl_index_unparen(loop));
	if (at < 0)
		return false;
	const TlLoop *l = &idx->loops.items[at];
	if (!(l->step & TL_STEP_TRAIN))
		return false;
	if (l->parent >= 0)
		return true;
	int budget = TL_FACTS_BUDGET;
	return tl_check__called_in_loop(idx, l->func, 0, &budget);
}
