/* TL216's rule logic (functional-dropout-always-on). Whether a call passes a
 * parameter a constant False, None or zero.
 *
 * Owns: tl_check_argument_off. */
#include "rules/checks/checks.h"

#include "facts/internal.h"

bool tl_check_argument_off(const TlIndex *idx, TSNode call, const char *name)
{
	const TlSyms *sy = tl_syms();
	TSNode v = tl_facts_argument(idx, call, name);
	if (ts_node_is_null(v))
		return false;
	TSNode lit = tl_facts_literal(idx, v);
	if (!ts_node_is_null(lit) &&
	    (ts_node_symbol(lit) == sy->false_ || ts_node_symbol(lit) == sy->none))
		return true;
	double d;
	return tl_facts_number(idx, v, &d) && d == 0.0;
}
