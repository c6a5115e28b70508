/* A loaded rule set: the rules (rules.h) together with the query groups
 * compiled on demand from them (queryset.h). This is the rule layer's entry
 * point for the engine's callers (main, the server, tests); it sits above
 * both rules.h and queryset.h so that neither needs the other's header. */
#ifndef TL_RULESET_H
#define TL_RULESET_H

#include <stdbool.h>
#include <stdio.h>

#include "rules/rules.h"

/* Loads the embedded rules and, if `dir` is not NULL, those in `dir`
 * (tl_rules_read), then attaches the set's query groups (compiled when a
 * file first needs them). On failure prints the errors to `err` and returns
 * false; the set is still released with tl_rules_release. */
bool tl_rules_load(TlRuleSet *set, const char *dir, FILE *err);
/* Frees the rules and the query set, whether loaded or filled by hand. */
void tl_rules_release(TlRuleSet *set);

#endif
