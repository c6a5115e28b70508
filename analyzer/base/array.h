/* A typed growable array, in the spirit of tree-sitter's Array(T).
 *
 *   TlArray(int) xs; tl_array_init(&xs);
 *   tl_array_push(&xs, 42);
 *   tl_array_release(&xs);
 *
 * The array owns its buffer, not what the items point to. */
#ifndef TL_ARRAY_H
#define TL_ARRAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define TlArray(T)                                                             \
	struct {                                                               \
		T *items;                                                      \
		uint32_t size;                                                 \
		uint32_t capacity;                                             \
	}

#define tl_array_init(a) ((a)->items = NULL, (a)->size = 0, (a)->capacity = 0)
/* The capacity is compared here, so that a push into room already there
 * costs no call. */
#define tl_array_reserve(a, n)                                                 \
	((uint32_t)(n) > (a)->capacity                                         \
		 ? tl_array__grow((void **)&(a)->items, &(a)->capacity, (n),   \
				  sizeof(*(a)->items))                         \
		 : (void)0)
#define tl_array_push(a, v)                                                    \
	(tl_array_reserve((a), (a)->size + 1), (a)->items[(a)->size++] = (v))
#define tl_array_pop(a) ((a)->items[--(a)->size])
#define tl_array_last(a) (&(a)->items[(a)->size - 1])
#define tl_array_clear(a) ((a)->size = 0)
#define tl_array_release(a) (tl_array__free((a)->items), tl_array_init(a))
/* qsort over the items; an empty array (NULL items) is left alone. */
#define tl_array_sort(a, cmp)                                                  \
	do {                                                                   \
		if ((a)->size > 1)                                             \
			qsort((a)->items, (a)->size, sizeof(*(a)->items), (cmp));  \
	} while (0)

/* Grows *items so that it holds at least `need` elements of `elem` bytes. */
void tl_array__grow(void **items, uint32_t *capacity, uint32_t need, size_t elem);
void tl_array__free(void *items);

typedef TlArray(int32_t) TlIntArray;
typedef TlArray(char *) TlStrArray;
typedef TlArray(TlIntArray) TlIntLists;

/* Frees every string in `a`, then the array itself. */
void tl_str_array_release(TlStrArray *a);

/* Groups the pairs (key->items[k], item->items[k]), each key in [0, n), by
 * key, a counting sort: the items of key g are (*out)[(*first)[g]] up to
 * (*out)[(*first)[g + 1] - 1], in the order they were pushed. The caller
 * frees *first and *out (tl_free). Worklists over a graph read their edges
 * this way. */
void tl_int_group(const TlIntArray *key, const TlIntArray *item, uint32_t n, uint32_t **first,
		  int32_t **out);
/* A worklist over the edges (key->items[k], item->items[k]): item waits on
 * key, both in [0, n). From the nodes on `work` (already marked), a node
 * becomes marked (mark[f] = 1) and goes on the worklist once every node it
 * waits on is marked: pending[f] counts those still waiting (0: never
 * marked this way); with `pending` NULL, once any one of them is. */
void tl_int_propagate(const TlIntArray *key, const TlIntArray *item, uint32_t n, uint32_t *pending,
		      uint8_t *mark, TlIntArray *work);

#endif
