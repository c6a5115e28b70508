/* What engine.c shares with the other files of the engine's analysis
 * (syntaxerr.c): appending a finding, and the TL000 findings of a tree. */
#ifndef TL_ENGINE_INTERNAL_H
#define TL_ENGINE_INTERNAL_H

#include "engine/engine.h"

/* Appends a finding of `rule` over bytes [start, end) of `src`, with
 * `message` (owned by the finding from then on). */
void tl_engine__add_span(TlFindings *out, const TlSource *src, const TlRule *rule, uint32_t start, uint32_t end,
			 char *message);
/* The same over node `n`'s bytes. */
void tl_engine__add(TlFindings *out, const TlSource *src, const TlRule *rule, TSNode n, char *message);

/* The TL000 findings of the tree under `root` (syntaxerr.c), when TL000 is
 * selected; `rest` ends each message ("the rest of the file is still
 * analysed"). */
void tl_engine__syntax(const TlEngine *e, const TlSelection *sel, const TlSource *src, TSNode root, const char *rest,
		       TlFindings *out);

#endif
