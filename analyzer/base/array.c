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
