/* Loading a rule set with its query groups (ruleset.h). */
#include "rules/ruleset.h"

#include "rules/queryset.h"

bool tl_rules_load(TlRuleSet *set, const char *dir, FILE *err)
{
	bool ok = tl_rules_read(set, dir, err);
	if (ok)
		set->queries = tl_queryset_new(set);
	return ok;
}

void tl_rules_release(TlRuleSet *set)
{
	tl_rules_clear(set);
	tl_queryset_free(set->queries);
	set->queries = NULL;
}
