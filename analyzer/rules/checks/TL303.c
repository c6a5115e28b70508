/* TL303's rule logic (host-round-trip-in-loop). Data a device tensor sent to
 * the host earlier in the same loop iteration, the model's answer
 * (model/host.c).
 *
 * Owns: tl_check_host_derived. */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

/* Data a device tensor copied to the host in this iteration, the model's
 * answer (model/host.c): in a loop, a copy made in the current round of
 * the innermost loop of its function; outside any, in the function's run. */
bool tl_check_host_derived(const TlIndex *idx, TSNode expr)
{
	int32_t loop = tl_index_loop_of(idx, expr);
	int32_t func = tl_index_func_of(idx, expr);
	if (loop >= 0 && idx->loops.items[loop].func != func)
		loop = -1;
	bool yes = false;
	TlVal v;
	TSNode data = tl_index_unparen(expr);
	if (!ts_node_is_null(data) && ts_node_symbol(data) == tl_syms()->keyword_argument)
		data = tl_tree_field(data, tl_syms()->f_value); /* data=lst */
	if ((loop >= 0 || func >= 0) && tl_model_value(idx, data, &v)) {
		unsigned bit = TL_VH_FUNC;
		if (loop >= 0) {
			uint32_t d = 0;
			for (int32_t l = idx->loops.items[loop].parent; l >= 0 && d < TL_VH_LOOPS - 1;
			     l = idx->loops.items[l].parent)
				d++;
			bit = 1u << d;
		}
		yes = (v.host & bit) != 0;
	}
	return yes;
}
