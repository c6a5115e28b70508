/* The parent table: open addressing on the node id, kept under 3/4 full. */
#include "parents.h"

#include <string.h>

#include "alloc.h"
#include "hash.h"


void tl_parents_init(TlParents *p)
{
	memset(p, 0, sizeof *p);
	tl_array_init(&p->nodes);
}

void tl_parents_release(TlParents *p)
{
	tl_free(p->slots);
	tl_array_release(&p->nodes);
	memset(p, 0, sizeof *p);
}

uint32_t tl_parents_add_parent(TlParents *p, TSNode parent)
{
	tl_array_push(&p->nodes, parent);
	return p->nodes.size - 1;
}

static void tl_parents__insert(TlParentSlot *slots, uint32_t mask, const TlParentSlot *from)
{
	uint32_t h = tl_hash_ptr(from->id) & mask;
	while (slots[h].id && slots[h].id != from->id)
		h = (h + 1) & mask;
	slots[h] = *from;
}

/* Grows the table to `size` slots (a power of two), keeping its entries. */
static void tl_parents__resize(TlParents *p, uint32_t size)
{
	uint32_t old = p->mask ? p->mask + 1 : 0;
	TlParentSlot *slots = tl_calloc(size, sizeof *slots);
	for (uint32_t i = 0; i < old; i++)
		if (p->slots[i].id)
			tl_parents__insert(slots, size - 1, &p->slots[i]);
	tl_free(p->slots);
	p->slots = slots;
	p->mask = size - 1;
}

void tl_parents_reserve(TlParents *p, uint32_t count)
{
	uint32_t size = p->mask ? p->mask + 1 : 0, want = 256;
	while (want < (1u << 30) && 3 * (uint64_t)want < 4 * (uint64_t)count)
		want *= 2;
	if (want > size)
		tl_parents__resize(p, want);
}

void tl_parents_put(TlParents *p, TSNode child, uint32_t parent)
{
	uint32_t size = p->mask ? p->mask + 1 : 0;
	if (4 * (uint64_t)(p->count + 1) > 3 * (uint64_t)size)
		tl_parents__resize(p, size ? 2 * size : 256);
	TlParentSlot slot = { child.id, parent };
	uint32_t h = tl_hash_ptr(child.id) & p->mask;
	while (p->slots[h].id && p->slots[h].id != child.id)
		h = (h + 1) & p->mask;
	if (!p->slots[h].id)
		p->count++;
	p->slots[h] = slot;
}

TSNode tl_parents_get(const TlParents *p, TSNode n)
{
	if (p->mask && n.id) {
		uint32_t h = tl_hash_ptr(n.id) & p->mask;
		while (p->slots[h].id) {
			if (p->slots[h].id == n.id)
				return p->nodes.items[p->slots[h].parent];
			h = (h + 1) & p->mask;
		}
	}
	return ts_node_parent(n);
}
