/* TL404's rule logic (half-overflow-constant). Whether a value was converted
 * to float32 or wider, the model's answer.
 *
 * Owns: tl_check_float32_value. */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

bool tl_check_float32_value(const TlIndex *idx, TSNode expr)
{
	TlVal v;
	return tl_model_value(idx, expr, &v) && (v.dtype == TL_VT_FLOAT32 || v.dtype == TL_VT_FLOAT64);
}
