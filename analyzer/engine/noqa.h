/* Suppression directives in comments, as ruff and flake8 read them:
 *
 *   x = f()  # noqa               every finding on this line (a blanket)
 *   x = f()  # noqa: TL101, TL102 only these codes (case-insensitive, exact)
 *   # torchlint: noqa             every finding in the file; on a line of its own
 *   # torchlint: noqa: TL101      every TL101 in the file; on a line of its own
 *
 * A line directive applies to findings that start on its line, or whose
 * statement starts on its line. Codes match exactly (TL101, tl101); a
 * prefix (TL1), a family name (memory), ALL or a rule name in the list
 * suppresses nothing and draws a warning (never a blanket). Codes of other
 * tools (E501, F401, `# noqa B950` without a colon) are kept for those
 * tools: torchlint neither warns about them nor reports them, and TL001
 * reports neither a blanket line `# noqa` (other linters read it too) but
 * only unused torchlint codes and a `# torchlint: noqa` that hides
 * nothing (RULES.md TL001). A
 * `# torchlint: noqa` that shares its line with code is ignored, with a
 * warning. Text after the codes is a free comment (`# noqa: TL101 -- why`). */
#ifndef TL_NOQA_H
#define TL_NOQA_H

#include <stdbool.h>

#include <tree_sitter/api.h>

#include "base/array.h"
#include "base/source.h"
#include "engine/finding.h"
#include "rules/rules.h"

typedef struct TlNoqaContext {
	const TlRuleSet *rules;
	const TlSelection *sel;      /* TL001 reports only when selected */
	const TlSource *src;
	TSNode root;                 /* of src's tree */
	const TSNode *comments;      /* every comment node of the file, in order */
	uint32_t comment_count;
	const TlStrArray *external;  /* other tools' codes or prefixes (the `external`
				      * setting); TL001 leaves every other tool's code
				      * alone, so they change nothing; may be NULL */
	TlNotices *notices;          /* warnings about directives go here; may be NULL */
} TlNoqaContext;

/* Removes from out->items[first..] the findings the file's directives
 * suppress, then appends TL001 findings (when selected) for directives and
 * codes that suppressed nothing. */
void tl_noqa_apply(const TlNoqaContext *ctx, TlFindings *out, uint32_t first);

#endif
