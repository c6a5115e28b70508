/* Carried state: the history of a value, or of a container's elements,
 * which TL103's recurrent state and TL104's graphs backpropagated more
 * than once both read; those questions are the rules' own logic
 * (rules/checks/TL103.c, TL104.c).
 *
 * Owns: tl_facts__history. */
#include "model/model.h"
#include "facts/internal.h"

/* The graph of `v`, or of a container's elements (containers in it
 * looked through). */
unsigned tl_facts__history(const TlIndex *idx, const TlVal *v)
{
	const TlModel *m = v->kind == TL_VK_CONTAINER ? tl_model_of(idx) : NULL;
	if (!m)
		return v->graph;
	TlVal e = *v;
	for (int depth = 0; depth <= TL_VAL_NEST && e.kind == TL_VK_CONTAINER; depth++)
		e = tl_val_element(tl_model_pool(m), &e);
	return e.kind == TL_VK_CONTAINER ? TL_VG_UNKNOWN : e.graph;
}
