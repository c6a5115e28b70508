/* The per-node answer table: open addressing on the node id, kept under 3/4
 * full (the same scheme as parents.c). */
#include "syntax/nodememo.h"

#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"


TlNodeMemo *tl_node_memo_new(void)
{
	return tl_calloc(1, sizeof(TlNodeMemo));
}

void tl_node_memo_free(TlNodeMemo *m)
{
	if (!m)
		return;
	tl_free(m->slots);
	tl_str_array_release(&m->strings);
	tl_free(m);
}

int32_t tl_node_memo_keep(TlNodeMemo *m, char *s)
{
	tl_array_push(&m->strings, s);
	return (int32_t)m->strings.size - 1;
}

const char *tl_node_memo_string(const TlNodeMemo *m, int32_t k)
{
	return m->strings.items[k];
}

bool tl_node_memo_get(const TlNodeMemo *m, TSNode n, TlMemoKind kind, int32_t *value)
{
	if (!m || !m->mask || !n.id)
		return false;
	uint32_t h = tl_hash_ptr(n.id) & m->mask;
	while (m->slots[h].id) {
		if (m->slots[h].id == n.id) {
			int32_t v = m->slots[h].value[kind];
			if (!v)
				return false;
			*value = v - 2;
			return true;
		}
		h = (h + 1) & m->mask;
	}
	return false;
}

static void tl_node_memo__grow(TlNodeMemo *m)
{
	uint32_t size = m->mask ? m->mask + 1 : 0, bigger = size ? 2 * size : 256;
	TlNodeMemoSlot *slots = tl_calloc(bigger, sizeof *slots);
	for (uint32_t i = 0; i < size; i++) {
		if (!m->slots[i].id)
			continue;
		uint32_t h = tl_hash_ptr(m->slots[i].id) & (bigger - 1);
		while (slots[h].id)
			h = (h + 1) & (bigger - 1);
		slots[h] = m->slots[i];
	}
	tl_free(m->slots);
	m->slots = slots;
	m->mask = bigger - 1;
}

void tl_node_memo_put(TlNodeMemo *m, TSNode n, TlMemoKind kind, int32_t value)
{
	if (!m || !n.id)
		return;
	uint32_t size = m->mask ? m->mask + 1 : 0;
	if (4 * (uint64_t)(m->count + 1) > 3 * (uint64_t)size)
		tl_node_memo__grow(m);
	uint32_t h = tl_hash_ptr(n.id) & m->mask;
	while (m->slots[h].id && m->slots[h].id != n.id)
		h = (h + 1) & m->mask;
	if (!m->slots[h].id) {
		m->slots[h].id = n.id;
		m->count++;
	}
	m->slots[h].value[kind] = value + 2;
}
