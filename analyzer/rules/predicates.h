/* The semantic predicate library: the facts a rule's query can ask of the
 * index, by name. A query writes `(#graph-tensor? @value)`; every predicate
 * also has a negated form `#not-NAME?`. `tl_predicates` is the one table of
 * them, with one line of meaning each (`torchlint --list-predicates`). */
#ifndef TL_PREDICATES_H
#define TL_PREDICATES_H

#include <stdbool.h>

#include <tree_sitter/api.h>

#include "syntax/index.h"

typedef struct TlPredicateDef {
	const char *name;             /* "graph-tensor": written #graph-tensor? */
	const char *arg_name;         /* name of the string argument, or NULL */
	const char *const *choices;   /* allowed values of that argument */
	/* What it asks: fn, with the argument's choice, or fact, a question of
	 * the facts layer taking none (the predicate is that fact by name). */
	bool (*fn)(const TlIndex *idx, TSNode node, int choice);
	bool (*fact)(const TlIndex *idx, TSNode node);
	const char *doc;
} TlPredicateDef;

extern const TlPredicateDef tl_predicates[];
extern const unsigned tl_predicate_count;

/* Whether `def` (with `choice`, -1 when it takes no argument) holds of `node`. */
static inline bool tl_predicate_holds(const TlPredicateDef *def, const TlIndex *idx, TSNode node,
				      int choice)
{
	return def->fact ? def->fact(idx, node) : def->fn(idx, node, choice);
}
/* True when `def` with `choice`, not negated, holds of no node of the file
 * `idx` indexes: a rule pattern that requires it cannot match there, and
 * the engine leaves it out of the file's plan (asked once per file, before
 * the rules run, so cheap: the index's tables, not the model). False when
 * it may hold somewhere, or the predicate has no such answer. */
bool tl_predicate_nowhere(const TlPredicateDef *def, int choice, const TlIndex *idx);
/* The definition named `name` (without '#', '?' and 'not-'), or NULL. */
const TlPredicateDef *tl_predicate_find(const char *name, size_t len);
/* Index of `value` among def->choices, or -1. */
int tl_predicate_choice(const TlPredicateDef *def, const char *value);
/* Identifiers one of which a file's text holds, as a whole word, wherever
 * `def` with `choice` holds (not negated): into out[0..cap), returning how
 * many; 0 when the predicate names none. The pre-filter skips, in a file
 * with none of them, a pattern that requires the predicate of a node
 * every match has. */
size_t tl_predicate_words(const TlPredicateDef *def, int choice, const char **out, size_t cap);

#endif
