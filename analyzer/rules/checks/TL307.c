/* TL307's rule logic (allocation-in-loop). Whether a value dies in its loop
 * iteration, the model's answer (model/vary.c).
 *
 * Owns: tl_check_dies_in_iteration. */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

bool tl_check_dies_in_iteration(const TlIndex *idx, TSNode expr)
{
	return tl_model_dies_in_iteration(idx, expr);
}
