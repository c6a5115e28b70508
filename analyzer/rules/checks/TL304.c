/* TL304's rule logic (sync-in-hot-loop). A tensor in accelerator memory, the
 * model's answer.
 *
 * Owns: tl_check_on_device. */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

/* A tensor in accelerator memory, the model's answer: moved there, made
 * there, computed there (by a model, in a file that uses an accelerator;
 * from tensors there). */
bool tl_check_on_device(const TlIndex *idx, TSNode expr)
{
	TlVal v;
	return tl_model_value(idx, expr, &v) && v.device == TL_VD_ACCEL && v.kind != TL_VK_MODULE &&
	       v.kind != TL_VK_WRAPPER && v.kind != TL_VK_DEVICE;
}
