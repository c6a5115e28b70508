/* TL217's rule logic (softmax-implicit-dim). Whether the input of a softmax
 * is a numpy array on every path (`F.softmax(out.cpu().numpy())`), which
 * the rule leaves alone (docs/rules/TL217.md): the model's kind of the
 * value.
 *
 * Owns: tl_check_is_host_array (from facts/kinds.c). */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

/* ---- host arrays --------------------------------------------------------- */

/* True when the model knows `expr` holds a host (numpy) array on every
 * path: what `.numpy()` or a numpy factory made, through names. */
bool tl_check_is_host_array(const TlIndex *idx, TSNode expr)
{
	return tl_facts__model_kind_is(idx, tl_index_unparen(expr), 1u << TL_VK_ARRAY) == 1;
}

