/* A rule's guidance, as `torchlint --explain CODE` prints it and the
 * language server shows it on hover: a title line, the rule's section from
 * skills/ (Markdown), and the measured cost from validate/. */
#ifndef TL_EXPLAIN_H
#define TL_EXPLAIN_H

#include "base/buf.h"
#include "rules/rules.h"

/* Appends the explanation of `rule` (borrowed) to `out`; a built-in rule's
 * ends with "Documentation: " and its page. */
void tl_explain_render(const TlRule *rule, TlBuf *out);
/* Appends a built-in rule's page, HOMEPAGE/blob/main/docs/rules/CODE.md
 * (tools/gen_rule_docs.py writes it). */
void tl_explain_page_uri(const TlRule *rule, TlBuf *out);

#endif
