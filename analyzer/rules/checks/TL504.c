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
	return tl_model_stored(idx, node, TL_MODEL_SAVED, NULL) > 0;
}

bool tl_check_wrapped_by(const TlIndex *idx, TSNode e, TlWrapper kind)
{
	return tl_facts__model_wrapped(idx, e, kind, false) == 1;
}
