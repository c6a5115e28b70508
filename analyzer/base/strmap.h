/* A string-keyed hash map from names to int32 values (open addressing).
 * Keys are copied; the map owns them. */
#ifndef TL_STRMAP_H
#define TL_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct TlStrMapSlot {
	char *key;
	int32_t value;
	uint32_t hash; /* the key's: compared before the key itself */
} TlStrMapSlot;

typedef struct TlStrMap {
	TlStrMapSlot *slots;
	uint32_t capacity; /* a power of two */
	uint32_t count;
} TlStrMap;

void tl_strmap_init(TlStrMap *m);
void tl_strmap_release(TlStrMap *m);
/* Inserts or replaces. `key` is `len` bytes, not necessarily NUL-ended. */
void tl_strmap_put(TlStrMap *m, const char *key, size_t len, int32_t value);
/* Stores the value in *value and returns true if `key` is present. */
bool tl_strmap_get(const TlStrMap *m, const char *key, size_t len, int32_t *value);

#endif
