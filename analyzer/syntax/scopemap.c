/* The scoped-name map: open addressing on a 64-bit key, kept at most half
 * full (linear probing: at 3/4 a key that is not there took about eight
 * probes, and the model asks for its values before it records them). */
#include "syntax/scopemap.h"

#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"

static uint64_t tl_scopemap__key(uint32_t scope, uint32_t name)
{
	return ((uint64_t)scope << 32) | ((uint64_t)name + 1u);
}


void tl_scopemap_init(TlScopeMap *m)
{
	memset(m, 0, sizeof *m);
}

void tl_scopemap_release(TlScopeMap *m)
{
	tl_free(m->slots);
	memset(m, 0, sizeof *m);
}

void tl_scopemap_put(TlScopeMap *m, uint32_t scope, uint32_t name, int32_t value)
{
	uint32_t size = m->mask ? m->mask + 1 : 0;
	if (2 * (uint64_t)(m->count + 1) > (uint64_t)size) {
		uint32_t bigger = size ? 2 * size : 64;
		TlScopeMapSlot *slots = tl_calloc(bigger, sizeof *slots);
		for (uint32_t i = 0; i < size; i++) {
			if (!m->slots[i].key)
				continue;
			uint32_t h = tl_hash_mix(m->slots[i].key) & (bigger - 1);
			while (slots[h].key)
				h = (h + 1) & (bigger - 1);
			slots[h] = m->slots[i];
		}
		tl_free(m->slots);
		m->slots = slots;
		m->mask = bigger - 1;
	}
	uint64_t key = tl_scopemap__key(scope, name);
	uint32_t h = tl_hash_mix(key) & m->mask;
	while (m->slots[h].key && m->slots[h].key != key)
		h = (h + 1) & m->mask;
	if (!m->slots[h].key) {
		m->slots[h].key = key;
		m->count++;
	}
	m->slots[h].value = value;
}

bool tl_scopemap_get(const TlScopeMap *m, uint32_t scope, uint32_t name, int32_t *value)
{
	if (!m->mask)
		return false;
	uint64_t key = tl_scopemap__key(scope, name);
	uint32_t h = tl_hash_mix(key) & m->mask;
	while (m->slots[h].key) {
		if (m->slots[h].key == key) {
			*value = m->slots[h].value;
			return true;
		}
		h = (h + 1) & m->mask;
	}
	return false;
}
