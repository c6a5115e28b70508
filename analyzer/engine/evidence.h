/* The measured cost of each rule, as validate/report.py summarises the
 * results of validate/cases/ in validate/results/summary.json. The build
 * embeds that file, so `--explain` cites the measurement without retyping
 * it; a rule with no entry has not been measured. */
#ifndef TL_EVIDENCE_H
#define TL_EVIDENCE_H

#include <stdbool.h>

/* The summary's text for `code` (Markdown lines: where it was measured, then
 * flagged vs fixed for each metric that shows the cost, then what is still to
 * be measured); caller frees. NULL when no summary is embedded or it has no
 * entry for `code`. *status, when not NULL, receives a copy of the entry's
 * status ("measured-gpu", "not-shown-gpu", "measured-cpu", "needs-gpu",
 * "not-measured"),
 * caller frees, or NULL. */
char *tl_evidence_text(const char *code, char **status);

#endif
