/* TL106's rule logic (tensor-kept-with-graph). Whether a stored-to name
 * survives the iterations of its loop, the model's answer
 * (tl_model_carried).
 *
 * Owns: tl_check_outlives_iteration. */
#include "rules/checks/checks.h"

#include "facts/internal.h"

bool tl_check_outlives_iteration(const TlIndex *idx, TSNode expr)
{
	int32_t loop = tl_index_loop_of(idx, expr);
	if (loop < 0)
		return false;
	return tl_facts__kept_by_loop(idx, loop, tl_facts__root_node(idx, expr));
}
