/* Analysis of one file: parse, index, run every selected rule, collect
 * findings in (line, column, code) order. Thread-safe: each worker owns a
 * TlEngine (a parser and scratch space); the rule set is shared read-only. */
#ifndef TL_ENGINE_H
#define TL_ENGINE_H

#include <stdbool.h>

#include <tree_sitter/api.h>

#include "array.h"
#include "rules.h"
#include "source.h"

typedef struct TlFinding {
	const TlRule *rule; /* borrowed from the rule set */
	uint32_t start_byte, end_byte;
	TlPosition start, end; /* end is exclusive */
	char *message;         /* rendered; owned */
} TlFinding;

typedef TlArray(TlFinding) TlFindings;

typedef struct TlEngine {
	TSParser *parser;
	TSQueryCursor *cursor;
	const TlRuleSet *rules;
	const TlSelection *selection;
} TlEngine;

void tl_engine_init(TlEngine *e, const TlRuleSet *rules, const TlSelection *sel);
void tl_engine_release(TlEngine *e);
/* Appends the findings of `src` to `out` (sorted). */
void tl_engine_analyze(TlEngine *e, const TlSource *src, TlFindings *out);
void tl_findings_release(TlFindings *f);

#endif
