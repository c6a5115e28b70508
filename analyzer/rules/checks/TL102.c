/* TL102's rule logic (eval-without-no-grad). Whether a module forward may
 * record an autograd graph, the model's answer (model/requiresgrad.c).
 *
 * Owns: tl_check_forward_records_graph. */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

/* The model answers (model/requiresgrad.c): the module holds no parameter that
 * requires grad and no input requires grad. */
bool tl_check_forward_records_graph(const TlIndex *idx, TSNode call)
{
	return !tl_model_forward_no_graph(idx, call);
}
