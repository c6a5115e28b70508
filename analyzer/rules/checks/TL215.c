/* TL215's rule logic (sampler-epoch-not-set). Step loops that an outer loop
 * runs again and again.
 *
 * Owns: tl_check_repeated_step_loop. */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

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
	/* Its function is called in a loop, here or in a module that
	 * imports it (an epoch loop calling `fit_one_epoch(...)`). */
	return tl_model_loop_around(idx, l->func);
}
