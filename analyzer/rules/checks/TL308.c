/* TL308's rule logic (dataloader-in-main-process). Whether a DataLoader
 * feeds a training step loop.
 *
 * Owns: tl_check_feeds_step_loop, tl_check_file_uses_accelerator. */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

bool tl_check_feeds_step_loop(const TlIndex *idx, TSNode call, uint32_t kinds)
{
	const TlSyms *sy = tl_syms();
	call = tl_index_unparen(call);
	if (!tl_facts_is_api(idx, call, TL_API_DATA_LOADER) || ts_node_symbol(call) != sy->call)
		return false;
	bool feeds = false;
	for (uint32_t i = 0; i < idx->loops.size && !feeds; i++) {
		const TlLoop *l = &idx->loops.items[i];
		if (!(l->step & kinds) || !(tl_model_loop_step(idx, (int32_t)i) & kinds) ||
		    ts_node_symbol(l->node) != sy->for_statement)
			continue;
		bool enumerated = false;
		TSNode it = tl_facts__unwrap_iterable(idx, tl_tree_field(l->node, sy->f_right),
						      &enumerated);
		TlLoaders ls;
		tl_array_init(&ls.calls);
		ls.unknown = false;
		ls.budget = TL_FACTS_BUDGET;
		tl_facts__loader_source(idx, it, &ls);
		for (uint32_t k = 0; k < ls.calls.size && !feeds; k++)
			feeds = ts_node_eq(ls.calls.items[k].node, call);
		tl_array_release(&ls.calls);
	}
	return feeds;
}

bool tl_check_file_uses_accelerator(const TlIndex *idx)
{
	return idx->uses_device;
}
