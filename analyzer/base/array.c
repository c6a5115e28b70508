#include "base/array.h"

#include "base/alloc.h"

void tl_array__grow(void **items, uint32_t *capacity, uint32_t need, size_t elem)
{
	uint32_t cap = *capacity;
	if (need <= cap)
		return;
	cap = cap ? cap : 8;
	while (cap < need)
		cap *= 2;
	*items = tl_realloc(*items, (size_t)cap * elem);
	*capacity = cap;
}

void tl_array__free(void *items)
{
	tl_free(items);
}

void tl_str_array_release(TlStrArray *a)
{
	for (uint32_t i = 0; i < a->size; i++)
		tl_free(a->items[i]);
	tl_array_release(a);
}

void tl_int_group(const TlIntArray *key, const TlIntArray *item, uint32_t n, uint32_t **first,
		  int32_t **out)
{
	uint32_t *f = tl_calloc((size_t)n + 2, sizeof *f);
	int32_t *o = tl_malloc((key->size ? key->size : 1) * sizeof *o);
	for (uint32_t k = 0; k < key->size; k++)
		f[key->items[k] + 2]++;
	for (uint32_t k = 2; k < n + 2; k++)
		f[k] += f[k - 1];
	for (uint32_t k = 0; k < key->size; k++)
		o[f[key->items[k] + 1]++] = item->items[k];
	*first = f;
	*out = o;
}

void tl_int_propagate(const TlIntArray *key, const TlIntArray *item, uint32_t n, uint32_t *pending,
		      uint8_t *mark, TlIntArray *work)
{
	uint32_t *first;
	int32_t *waiting;
	tl_int_group(key, item, n, &first, &waiting);
	while (work->size) {
		int32_t g = tl_array_pop(work);
		for (uint32_t k = first[g]; k < first[g + 1]; k++) {
			int32_t f = waiting[k];
			if (mark[f] != 1 && (!pending || (pending[f] && --pending[f] == 0))) {
				mark[f] = 1;
				tl_array_push(work, f);
			}
		}
	}
	tl_free(first);
	tl_free(waiting);
}
