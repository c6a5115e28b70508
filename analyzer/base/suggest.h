/* "Did you mean ...?": the closest of a list of names to a word typed
 * wrong (an option, a subcommand).
 *
 * Owns: nothing (pure functions). */
#ifndef TL_SUGGEST_H
#define TL_SUGGEST_H

#include <stddef.h>

/* The edit distance (insertions, deletions, substitutions, and swaps of
 * two neighbours) between `a` and `b`, counted up to `cap`: any distance
 * above it is cap + 1. */
size_t tl_suggest_distance(const char *a, const char *b, size_t cap);

/* The name of `names` (`n` of them) closest to `word`, or NULL when none
 * is close: within a third of the word's length (at least 1, at most 3),
 * or one that starts with the word, or that the word starts with. Ties go
 * to the first. */
const char *tl_suggest(const char *word, const char *const *names, size_t n);

#endif
