/* Unified diffs of two texts, line by line (Myers' O(ND) algorithm), as
 * `diff -u` writes them: what `torchlint --diff` prints. */
#ifndef TL_DIFF_H
#define TL_DIFF_H

#include <stddef.h>

#include "base/buf.h"

/* Appends to `out` the unified diff (3 lines of context) that turns `a`
 * into `b`, with headers "--- a/PATH" and "+++ b/PATH". Nothing when they
 * are equal. A last line without a newline is marked as diff marks it. */
void tl_diff_unified(const char *path, const char *a, size_t alen, const char *b, size_t blen,
		     TlBuf *out);

#endif
