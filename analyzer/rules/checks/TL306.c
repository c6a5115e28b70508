/* TL306's rule logic (non-blocking-without-pinned-memory). Whether a tensor
 * comes from a DataLoader.
 *
 * Owns: tl_check_from_loader. */
#include "rules/checks/checks.h"

#include "facts/internal.h"

bool tl_check_from_loader(const TlIndex *idx, TSNode expr)
{
	TlLoaders ls;
	tl_facts__loaders_collect(idx, expr, &ls);
	bool yes = ls.calls.size > 0 && !ls.unknown;
	tl_array_release(&ls.calls);
	return yes;
}
