/* The program-point state (model_internal.h: the tl_state_* functions): a
 * value per access path, looked up from the newest slot, joined at
 * branches, compared and widened at loop heads. */
#include "model/model_internal.h"

#include <string.h>

void tl_state_init(TlState *s)
{
	tl_array_init(&s->slots);
	s->grad = TL_MGRAD_ON;
	s->dead = false;
}

void tl_state_release(TlState *s)
{
	tl_array_release(&s->slots);
}

void tl_state_copy(TlState *dst, const TlState *src)
{
	tl_array_clear(&dst->slots);
	tl_array_reserve(&dst->slots, src->slots.size);
	if (src->slots.size)
		memcpy(dst->slots.items, src->slots.items, src->slots.size * sizeof *src->slots.items);
	dst->slots.size = src->slots.size;
	dst->grad = src->grad;
	dst->dead = src->dead;
}

static int32_t tl_state__find(const TlState *s, const TlPath *path)
{
	for (uint32_t i = s->slots.size; i-- > 0;)
		if (tl_path_equal(&s->slots.items[i].path, path))
			return (int32_t)i;
	return -1;
}

const TlVal *tl_state_get(const TlState *s, const TlPath *path)
{
	int32_t i = tl_state__find(s, path);
	return i >= 0 ? &s->slots.items[i].val : NULL;
}

const TlSlot *tl_state_slot(const TlState *s, const TlPath *path)
{
	int32_t i = tl_state__find(s, path);
	return i >= 0 ? &s->slots.items[i] : NULL;
}

void tl_state_clear_stores(TlState *s, uint8_t bit)
{
	for (uint32_t i = 0; i < s->slots.size; i++) {
		s->slots.items[i].must &= (uint8_t)~bit;
		s->slots.items[i].may &= (uint8_t)~bit;
	}
}

void tl_state_kill(TlState *s, const TlPath *path)
{
	uint32_t w = 0;
	for (uint32_t i = 0; i < s->slots.size; i++)
		if (!tl_path_prefix(path, &s->slots.items[i].path))
			s->slots.items[w++] = s->slots.items[i];
	s->slots.size = w;
}

void tl_state_set(TlState *s, const TlPath *path, const TlVal *v)
{
	TlVal copy = *v;
	tl_state_kill(s, path);
	TlSlot slot = { *path, copy, 0xff, 0xff, 0 };
	tl_array_push(&s->slots, slot);
}

/* A join's stores: a slot of dst that src lacks is not stored into on
 * src's paths (its must bits cleared). The slots src matched are marked
 * while the join runs. */
static void tl_state__mark(TlSlot *d)
{
	d->mark = 1;
}

static void tl_state__unmarked(TlState *dst, uint32_t had)
{
	for (uint32_t i = 0; i < had; i++) {
		TlSlot *d = &dst->slots.items[i];
		if (!d->mark)
			d->must = 0;
		d->mark = 0;
	}
}

void tl_state_join(TlValPool *p, TlState *dst, const TlState *src)
{
	if (src->dead)
		return;
	if (dst->dead) {
		tl_state_copy(dst, src);
		return;
	}
	uint32_t had = dst->slots.size;
	for (uint32_t i = 0; i < src->slots.size; i++) {
		TlSlot s = src->slots.items[i];
		int32_t k = tl_state__find(dst, &s.path);
		if (k < 0) {
			s.must = 0; /* not stored into on dst's paths */
			tl_array_push(&dst->slots, s);
		} else {
			TlSlot *d = &dst->slots.items[k];
			TlVal old = d->val;
			TlVal j = tl_val_join(p, &old, &s.val);
			d->val = j;
			d->must &= s.must;
			d->may |= s.may;
			tl_state__mark(d);
		}
	}
	tl_state__unmarked(dst, had);
	if (dst->grad != src->grad)
		dst->grad = TL_MGRAD_ON; /* not known to be off on every path */
}

bool tl_state_equal(const TlValPool *p, const TlState *a, const TlState *b)
{
	if (a->dead != b->dead || a->grad != b->grad || a->slots.size != b->slots.size)
		return false;
	for (uint32_t i = 0; i < a->slots.size; i++) {
		/* The same slot at the same place, mostly: a search only otherwise. */
		const TlVal *v = tl_path_equal(&a->slots.items[i].path, &b->slots.items[i].path)
					 ? &b->slots.items[i].val : tl_state_get(b, &a->slots.items[i].path);
		if (!v || !tl_val_equal(p, &a->slots.items[i].val, v))
			return false;
	}
	return true;
}

void tl_state_widen(TlValPool *p, TlState *dst, const TlState *now)
{
	uint32_t had = dst->slots.size;
	for (uint32_t i = 0; i < now->slots.size; i++) {
		TlSlot s = now->slots.items[i];
		int32_t k = tl_state__find(dst, &s.path);
		if (k < 0) {
			s.must = 0;
			tl_array_push(&dst->slots, s);
		} else {
			TlSlot *d = &dst->slots.items[k];
			TlVal old = d->val;
			TlVal w = tl_val_widen(p, &old, &s.val);
			d->val = w;
			d->must &= s.must;
			d->may |= s.may;
			tl_state__mark(d);
		}
	}
	tl_state__unmarked(dst, had);
	if (now->dead == false)
		dst->dead = false;
}
