/* TL504's rule logic (wrapped-state-dict-saved). Whether torch.save writes
 * an object, the model's answer (model/flow.c); whether an expression is a
 * wrapper of a kind itself.
 *
 * Owns: tl_check_saved, tl_check_wrapped_by. */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

/* The model's answer (model/flow.c): a torch.save writes the object, a
 * copy of it with the same keys, or a container that holds it. */
bool tl_check_saved(const TlIndex *idx, TSNode node)
{
	/* Its sinks are the file's own torch.save calls: in a file without
	 * one, nothing is saved and no model is built (it would interpret the
	 * whole module). Found once per file. */
	TlFactsCache *fc = idx->facts_cache;
	int8_t any = fc ? fc->saves_called : 0;
	if (!any) {
		any = tl_model_calls_store(idx, TL_MODEL_SAVED) ? 1 : -1;
		if (fc)
			fc->saves_called = any;
	}
	return any > 0 && tl_model_stored(idx, node, TL_MODEL_SAVED, NULL) > 0;
}

bool tl_check_wrapped_by(const TlIndex *idx, TSNode e, TlWrapper kind)
{
	return tl_facts__model_wrapped(idx, e, kind, false) == 1;
}
