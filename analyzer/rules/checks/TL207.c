/* TL207's rule logic (forward-called-directly). Wrapper modules whose
 * forward is their public entry point (DDP, DataParallel, FSDP,
 * RemoteModule).
 *
 * Owns: tl_check_is_wrapper_module. */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

static bool tl_check__wrapper_name(const char *name)
{
	char low[128];
	tl_facts__lower(tl_facts__last(name), low, sizeof low);
	return strstr(low, "remote") || strstr(low, "ddp");
}

bool tl_check_is_wrapper_module(const TlIndex *idx, TSNode expr)
{
	/* The model answers: a wrapper, or a value that is one on some path
	 * (`self.net = DataParallel(self.net)` under a test). A value it does
	 * not know (a parameter nobody in the module passes, a name it did not
	 * reach) is judged by its name. */
	TlVal v;
	bool known = tl_model_value(idx, expr, &v);
	if (known && v.kind == TL_VK_TOP && v.wrap)
		return true;
	if (known && v.kind != TL_VK_TOP && v.kind != TL_VK_BOT)
		return v.kind == TL_VK_WRAPPER;
	char *name = tl_facts__dotted(idx, expr);
	bool yes = name && tl_check__wrapper_name(name);
	tl_free(name);
	return yes;
}
