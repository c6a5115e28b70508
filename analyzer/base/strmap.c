#include "base/strmap.h"

#include <string.h>

#include "base/alloc.h"

static uint32_t tl_strmap__hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static bool tl_strmap__same(const char *key, const char *s, size_t len)
{
	return strncmp(key, s, len) == 0 && key[len] == '\0';
}

void tl_strmap_init(TlStrMap *m)
{
	m->slots = NULL;
	m->capacity = 0;
	m->count = 0;
}

void tl_strmap_release(TlStrMap *m)
{
	for (uint32_t i = 0; i < m->capacity; i++)
		tl_free(m->slots[i].key);
	tl_free(m->slots);
	tl_strmap_init(m);
}

static void tl_strmap__grow(TlStrMap *m)
{
	uint32_t old_cap = m->capacity;
	TlStrMapSlot *old = m->slots;
	m->capacity = old_cap ? old_cap * 2 : 16;
	m->slots = tl_calloc(m->capacity, sizeof *m->slots);
	m->count = 0;
	for (uint32_t i = 0; i < old_cap; i++) {
		if (!old[i].key)
			continue;
		uint32_t j = old[i].hash & (m->capacity - 1);
		while (m->slots[j].key)
			j = (j + 1) & (m->capacity - 1);
		m->slots[j] = old[i];
		m->count++;
	}
	tl_free(old);
}

void tl_strmap_put(TlStrMap *m, const char *key, size_t len, int32_t value)
{
	/* Kept at most half full so probe chains stay short. */
	if ((m->count + 1) * 2 > m->capacity)
		tl_strmap__grow(m);
	uint32_t h = tl_strmap__hash(key, len), j = h & (m->capacity - 1);
	while (m->slots[j].key) {
		if (m->slots[j].hash == h && tl_strmap__same(m->slots[j].key, key, len)) {
			m->slots[j].value = value;
			return;
		}
		j = (j + 1) & (m->capacity - 1);
	}
	m->slots[j].key = tl_strndup(key, len);
	m->slots[j].value = value;
	m->slots[j].hash = h;
	m->count++;
}

bool tl_strmap_get(const TlStrMap *m, const char *key, size_t len, int32_t *value)
{
	if (!m->capacity)
		return false;
	uint32_t h = tl_strmap__hash(key, len), j = h & (m->capacity - 1);
	while (m->slots[j].key) {
		if (m->slots[j].hash == h && tl_strmap__same(m->slots[j].key, key, len)) {
			*value = m->slots[j].value;
			return true;
		}
		j = (j + 1) & (m->capacity - 1);
	}
	return false;
}
