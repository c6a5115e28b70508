/* TL205's rule logic (scaler-bypassed). Whether an optimizer divides its
 * update by a running scale of the gradients.
 *
 * Owns: tl_check_optimizer_adaptive. */
#include "rules/checks/checks.h"

#include "facts/internal.h"

/* Optimizers whose update divides by a running scale of the gradients
 * (Adam and its kin, RMSprop, Adagrad) or keeps only their sign (Lion): a
 * constant factor on every gradient mostly cancels. The table's `*.Adam`
 * rows, by the last part of the name, from any module but another
 * framework's. */
static bool tl_check__adaptive_qname(const char *q)
{
	const TlApiRow *r = tl_facts__foreign_qname(q) ? NULL : tl_api_any(q);
	return r && (r->sets & TL_APIS_ADAPTIVE_OPTIMIZER);
}

bool tl_check_optimizer_adaptive(const TlIndex *idx, TSNode expr)
{
	int decided;
	return tl_facts__binding_call_qname_is(idx, expr, tl_check__adaptive_qname, &decided);
}
