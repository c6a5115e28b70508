#include "base/suggest.h"

#include <string.h>

#include "base/alloc.h"

size_t tl_suggest_distance(const char *a, const char *b, size_t cap)
{
	size_t la = strlen(a), lb = strlen(b);
	if ((la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	/* Three rows of the table: the one before the previous (swaps), the
	 * previous and the current. */
	size_t *rows = tl_calloc(3 * (lb + 1), sizeof *rows);
	size_t *pp = rows, *p = rows + lb + 1, *c = rows + 2 * (lb + 1);
	for (size_t j = 0; j <= lb; j++)
		p[j] = j;
	for (size_t i = 1; i <= la; i++) {
		c[0] = i;
		size_t low = c[0];
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t d = p[j - 1] + cost;
			if (p[j] + 1 < d)
				d = p[j] + 1;
			if (c[j - 1] + 1 < d)
				d = c[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < d)
				d = pp[j - 2] + 1;
			c[j] = d;
			if (d < low)
				low = d;
		}
		if (low > cap) {
			tl_free(rows);
			return cap + 1;
		}
		size_t *t = pp;
		pp = p;
		p = c;
		c = t;
	}
	size_t d = p[lb];
	tl_free(rows);
	return d > cap ? cap + 1 : d;
}

const char *tl_suggest(const char *word, const char *const *names, size_t n)
{
	size_t len = strlen(word);
	if (!len)
		return NULL;
	size_t cap = len / 3;
	if (cap < 1)
		cap = 1;
	if (cap > 3)
		cap = 3;
	const char *best = NULL;
	size_t best_d = cap + 1;
	for (size_t i = 0; i < n; i++) {
		size_t d = tl_suggest_distance(word, names[i], cap);
		if (d < best_d) {
			best = names[i];
			best_d = d;
		}
	}
	if (best)
		return best;
	/* A word cut short, or run on: --sel, --selectt. */
	for (size_t i = 0; i < n && len >= 3; i++) {
		size_t ln = strlen(names[i]);
		if ((ln > len && strncmp(names[i], word, len) == 0) || (len > ln && strncmp(word, names[i], ln) == 0))
			return names[i];
	}
	return NULL;
}
