/* TL204's rule logic (scaler-step-without-update). Whether a loop around a
 * step loop of a node (in its function, or around the calls of its function)
 * runs an event in its iteration.
 *
 * Owns: tl_check_outer_loop_has. */
#include "rules/checks/checks.h"

#include "facts/internal.h"

/* The loops around loop `l`, in its function and then around the calls of
 * that function: whether one of them runs one of `events`. */
static bool tl_check__outer_has(const TlIndex *idx, int32_t l, uint32_t events, int depth)
{
	int32_t func = idx->loops.items[l].func;
	for (int32_t p = idx->loops.items[l].parent; p >= 0; p = idx->loops.items[p].parent)
		if (idx->loops.items[p].events & events)
			return true;
	if (func < 0 || depth > TL_FACTS_DEPTH)
		return false;
	const TlFunc *f = &idx->funcs.items[func];
	for (uint32_t i = 0; i < f->call_sites.size && i < 64; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (c->func == func || c->loop < 0)
			continue;
		if (idx->loops.items[c->loop].events & events)
			return true;
		if (tl_check__outer_has(idx, c->loop, events, depth + 1))
			return true;
	}
	return false;
}

bool tl_check_outer_loop_has(const TlIndex *idx, TSNode node, uint32_t events)
{
	TlIntArray loops;
	tl_array_init(&loops);
	tl_facts__step_loop_list(idx, node, &loops);
	bool has = false;
	for (uint32_t i = 0; i < loops.size && !has; i++)
		has = tl_check__outer_has(idx, loops.items[i], events, 0);
	tl_array_release(&loops);
	return has;
}
