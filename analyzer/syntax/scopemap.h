/* A hash map from a pair of 32-bit integers to an int32. The index keeps
 * two: its name table (TlIndex.scoped: (scope code, name id) -> name list,
 * names interned once in TlIndex.name_ids, so that resolving a name in each
 * enclosing scope costs an integer probe, not a string built and hashed per
 * scope) and its calls by span (TlIndex.call_spans: (start byte, end byte)
 * -> call).
 *
 * Scope codes are the caller's (index.c: the scope's number and a tag, see
 * tl_index__scope_code); the second integer must be below UINT32_MAX.
 * Ownership: the map owns its slots; keys and values are plain integers.
 * Not thread-safe for writing. */
#ifndef TL_SCOPEMAP_H
#define TL_SCOPEMAP_H

#include <stdbool.h>
#include <stdint.h>

typedef struct TlScopeMapSlot {
	uint64_t key; /* (scope code << 32) | (name id + 1); 0: an empty slot */
	int32_t value;
} TlScopeMapSlot;

typedef struct TlScopeMap {
	TlScopeMapSlot *slots;
	uint32_t mask;  /* slots - 1 (a power of two), or 0 when empty */
	uint32_t count;
} TlScopeMap;

void tl_scopemap_init(TlScopeMap *m);
void tl_scopemap_release(TlScopeMap *m);
/* Inserts or replaces the value of (scope, name). */
void tl_scopemap_put(TlScopeMap *m, uint32_t scope, uint32_t name, int32_t value);
/* Stores the value of (scope, name) in *value and returns true if present. */
bool tl_scopemap_get(const TlScopeMap *m, uint32_t scope, uint32_t name, int32_t *value);

#endif
