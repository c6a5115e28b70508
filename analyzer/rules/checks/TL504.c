/* TL504's rule logic (wrapped-state-dict-saved). Whether torch.save writes
 * an object, the model's answer (model/flow.c).
 *
 * Owns: tl_check_saved. */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

/* The model's answer (model/flow.c): a torch.save writes the object, a
 * copy of it with the same keys, or a container that holds it. */
bool tl_check_saved(const TlIndex *idx, TSNode node)
{
	return tl_model_stored(idx, node, TL_MODEL_SAVED, NULL) > 0;
}
