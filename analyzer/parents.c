/* The parent table: open addressing on the node id, kept under 1/2 full. */
#include "parents.h"

#include <string.h>

#include "alloc.h"

static uint32_t tl_parents__hash(const void *id)
{
	uint64_t h = (uint64_t)(uintptr_t)id;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (uint32_t)h;
}

void tl_parents_init(TlParents *p)
{
	memset(p, 0, sizeof *p);
}

void tl_parents_release(TlParents *p)
{
	tl_free(p->slots);
	memset(p, 0, sizeof *p);
}

static void tl_parents__insert(TlParentSlot *slots, uint32_t mask, const void *id, TSNode parent)
{
	uint32_t h = tl_parents__hash(id) & mask;
	while (slots[h].id && slots[h].id != id)
		h = (h + 1) & mask;
	slots[h].id = id;
	slots[h].parent = parent;
}

void tl_parents_put(TlParents *p, TSNode child, TSNode parent)
{
	if (2 * (p->count + 1) > (p->mask ? p->mask + 1 : 0)) {
		uint32_t size = p->mask ? 2 * (p->mask + 1) : 256;
		TlParentSlot *slots = tl_calloc(size, sizeof *slots);
		for (uint32_t i = 0; p->mask && i <= p->mask; i++)
			if (p->slots[i].id)
				tl_parents__insert(slots, size - 1, p->slots[i].id, p->slots[i].parent);
		tl_free(p->slots);
		p->slots = slots;
		p->mask = size - 1;
	}
	uint32_t before = p->count;
	uint32_t h = tl_parents__hash(child.id) & p->mask;
	while (p->slots[h].id && p->slots[h].id != child.id)
		h = (h + 1) & p->mask;
	if (!p->slots[h].id)
		p->count = before + 1;
	p->slots[h].id = child.id;
	p->slots[h].parent = parent;
}

TSNode tl_parents_get(const TlParents *p, TSNode n)
{
	if (p->mask && n.id) {
		uint32_t h = tl_parents__hash(n.id) & p->mask;
		while (p->slots[h].id) {
			if (p->slots[h].id == n.id)
				return p->slots[h].parent;
			h = (h + 1) & p->mask;
		}
	}
	return ts_node_parent(n);
}
