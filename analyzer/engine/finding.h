/* What an analysis produces: findings (a rule's match, its message and its
 * fix) and notices (warnings about the file that are not findings). Shared by
 * the engine, which makes them, suppression (noqa.h), which filters them, and
 * every reporter above. Depends on the rule layer only for the rule a finding
 * points at and the fix it carries. */
#ifndef TL_FINDING_H
#define TL_FINDING_H

#include <stdint.h>

#include "base/array.h"
#include "base/source.h"
#include "rules/fix.h"
#include "rules/rules.h"

typedef struct TlFinding {
	const TlRule *rule; /* borrowed from the rule set */
	uint32_t start_byte, end_byte;
	TlPosition start, end; /* end is exclusive */
	char *message;         /* rendered; owned */
	char *fingerprint;     /* SARIF primaryLocationLineHash, when asked for; owned */
	uint32_t cell;         /* notebooks: 1-based cell of the finding, else 0 */
	TlPosition cell_start, cell_end; /* notebooks: position within the cell */
	uint32_t order;        /* the rule pattern that found it (ties in the sort) */
	/* The fix, from the rule's [[fix]] tables (fix.h): edits on the bytes of
	 * the analysed text (for a notebook, its program); empty when the rule
	 * has no fix for this match. An editor's code action or a reporter turns
	 * them into its own positions with tl_source_position. */
	TlEdits edits;
	TlApplicability applicability; /* TL_FIX_NONE when edits is empty */
	const char *fix_title;         /* borrowed from the rule, or NULL */
} TlFinding;

typedef TlArray(TlFinding) TlFindings;

/* A warning about the file that is not a finding (a `# noqa` that names a
 * family instead of codes, a misplaced file-level directive): printed on
 * standard error, and a SARIF tool notification. */
typedef struct TlNotice {
	uint32_t start_byte;
	TlPosition start;      /* in the analysed text (for notebooks: the program) */
	uint32_t cell;         /* notebooks: 1-based cell, else 0 */
	TlPosition cell_start; /* notebooks: position within the cell */
	char *message;         /* owned */
} TlNotice;

typedef TlArray(TlNotice) TlNotices;


/* Frees what one finding owns (not the finding itself). */
void tl_finding_release(TlFinding *f);
/* Frees every finding's contents and the array's storage. */
void tl_findings_release(TlFindings *f);
void tl_notices_release(TlNotices *n);

#endif
