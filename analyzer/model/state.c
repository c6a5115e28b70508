/* The program-point state (model_internal.h: the tl_state_* functions): a
 * value per access path, joined at branches, compared and widened at loop
 * heads.
 *
 * A state of a few slots is searched slot by slot. From TL_STATE_INDEXED
 * slots on it is indexed (model_internal.h, TlState): `index` finds a
 * path's slot; `ups` counts, for each proper prefix of a bound path, the
 * live slots below it, and a root's entry heads a chain through its slots
 * with selectors. Killing a path removes its slot through the index and
 * walks the root's chain only when the prefix table says something is
 * below the path (a store into `x` where nothing below `x` is bound costs
 * no walk). A removed slot is marked gone; its index entry becomes a
 * tombstone and the chain keeps it until the slots are compacted, which
 * happens once gone slots outnumber the live ones, so each kill costs
 * O(1) amortized besides the descendants it removes. The chains are walked
 * in a loop; nothing here recurses. */
#include "model/model_internal.h"

#include <string.h>

#include "base/alloc.h"

/* Slots from which a state is indexed. */
#define TL_STATE_INDEXED 24
/* Gone slots below which a state is never compacted. */
#define TL_STATE_COMPACT 16

#define TL_STATE_EMPTY 0u
#define TL_STATE_TOMB 1u

void tl_state_init(TlState *s)
{
	memset(s, 0, sizeof *s);
	tl_array_init(&s->slots);
	s->grad = TL_MGRAD_ON;
	s->dead = false;
}

void tl_state_release(TlState *s)
{
	tl_array_release(&s->slots);
	tl_free(s->index);
	tl_free(s->ups);
	s->index = NULL;
	s->ups = NULL;
	s->icap = s->iused = s->ucap = s->uused = s->live = 0;
	s->indexed = false;
}

static uint32_t tl_state__hash(const TlPath *p)
{
	uint32_t h = tl_path_hash(p);
	h ^= h >> 16;
	h *= 0x45d9f3bu;
	h ^= h >> 16;
	return h;
}

/* The prefix of `p` of `k` selectors. */
static TlPath tl_state__prefix(const TlPath *p, uint32_t k)
{
	TlPath q;
	memset(&q, 0, sizeof q);
	q.root = p->root;
	q.n = (uint8_t)k;
	memcpy(q.sel, p->sel, k * sizeof *q.sel);
	return q;
}

/* The index position of `path`'s slot, or -1. */
static int64_t tl_state__probe(const TlState *s, const TlPath *path)
{
	uint32_t mask = s->icap - 1;
	for (uint32_t h = tl_state__hash(path) & mask;; h = (h + 1) & mask) {
		uint32_t e = s->index[h];
		if (e == TL_STATE_EMPTY)
			return -1;
		if (e != TL_STATE_TOMB && tl_path_equal(&s->slots.items[e - 2].path, path))
			return h;
	}
}

static int32_t tl_state__find(const TlState *s, const TlPath *path)
{
	if (s->indexed) {
		int64_t h = tl_state__probe(s, path);
		return h < 0 ? -1 : (int32_t)(s->index[h] - 2);
	}
	for (uint32_t i = s->slots.size; i-- > 0;)
		if (tl_path_equal(&s->slots.items[i].path, path))
			return (int32_t)i;
	return -1;
}

/* The prefix entry of `path`, or NULL; made when `make` is set. */
static TlStateUp *tl_state__up(TlState *s, const TlPath *path, bool make)
{
	uint32_t mask = s->ucap - 1;
	for (uint32_t h = tl_state__hash(path) & mask;; h = (h + 1) & mask) {
		TlStateUp *u = &s->ups[h];
		if (u->path.root < 0) {
			if (!make)
				return NULL;
			u->path = *path;
			u->path.cut = false;
			u->below = 0;
			u->head = -1;
			s->uused++;
			return u;
		}
		if (tl_path_equal(&u->path, path))
			return u;
	}
}

static uint32_t tl_state__pow2(uint32_t n)
{
	uint32_t c = 16;
	while (c < n)
		c *= 2;
	return c;
}

/* Indexes slot i (live): its path's entry, its prefixes' counts, its
 * place in its root's chain. The tables have room. */
static void tl_state__add(TlState *s, uint32_t i)
{
	TlSlot *sl = &s->slots.items[i];
	uint32_t mask = s->icap - 1;
	uint32_t h = tl_state__hash(&sl->path) & mask;
	while (s->index[h] != TL_STATE_EMPTY && s->index[h] != TL_STATE_TOMB)
		h = (h + 1) & mask;
	if (s->index[h] == TL_STATE_EMPTY)
		s->iused++;
	s->index[h] = i + 2;
	sl->next = -1;
	for (uint32_t k = 0; k < sl->path.n; k++) {
		TlPath q = tl_state__prefix(&sl->path, k);
		TlStateUp *u = tl_state__up(s, &q, true);
		u->below++;
		if (k == 0) {
			sl->next = u->head;
			u->head = (int32_t)i;
		}
	}
}

/* Rebuilds the tables for the live slots, dropping the gone ones first
 * when `compact` is set (slot indices change: never while a join runs). */
static void tl_state__rebuild(TlState *s, bool compact)
{
	if (compact) {
		uint32_t w = 0;
		for (uint32_t i = 0; i < s->slots.size; i++)
			if (!s->slots.items[i].gone)
				s->slots.items[w++] = s->slots.items[i];
		s->slots.size = w;
	}
	uint32_t prefixes = 0;
	for (uint32_t i = 0; i < s->slots.size; i++)
		if (!s->slots.items[i].gone)
			prefixes += s->slots.items[i].path.n;
	uint32_t icap = tl_state__pow2(2 * s->live + 2);
	if (icap != s->icap) {
		tl_free(s->index);
		s->index = tl_malloc(icap * sizeof *s->index);
		s->icap = icap;
	}
	memset(s->index, 0, icap * sizeof *s->index);
	s->iused = 0;
	uint32_t ucap = tl_state__pow2(2 * prefixes + 2 * TL_PATH_SELECTORS);
	if (ucap != s->ucap) {
		tl_free(s->ups);
		s->ups = tl_malloc(ucap * sizeof *s->ups);
		s->ucap = ucap;
	}
	for (uint32_t i = 0; i < ucap; i++)
		s->ups[i].path.root = -1;
	s->uused = 0;
	s->indexed = true;
	for (uint32_t i = 0; i < s->slots.size; i++)
		if (!s->slots.items[i].gone)
			tl_state__add(s, i);
}

/* Appends a live slot. */
static void tl_state__push(TlState *s, const TlSlot *slot)
{
	TlSlot sl = *slot;
	sl.gone = 0;
	sl.next = -1;
	tl_array_push(&s->slots, sl);
	s->live++;
	if (!s->indexed) {
		if (s->slots.size >= TL_STATE_INDEXED)
			tl_state__rebuild(s, false);
		return;
	}
	/* Room for one more entry and its prefixes, at most 3/4 full. */
	if (4 * (s->iused + 1) > 3 * s->icap ||
	    4 * (s->uused + TL_PATH_SELECTORS) > 3 * s->ucap)
		tl_state__rebuild(s, false);
	else
		tl_state__add(s, s->slots.size - 1);
}

/* Removes live slot i from the index (indexed states). */
static void tl_state__remove(TlState *s, uint32_t i)
{
	TlSlot *sl = &s->slots.items[i];
	int64_t h = tl_state__probe(s, &sl->path);
	if (h >= 0)
		s->index[h] = TL_STATE_TOMB;
	for (uint32_t k = 0; k < sl->path.n; k++) {
		TlPath q = tl_state__prefix(&sl->path, k);
		TlStateUp *u = tl_state__up(s, &q, false);
		if (u)
			u->below--;
	}
	sl->gone = 1;
	s->live--;
}

void tl_state_copy(TlState *dst, const TlState *src)
{
	if (dst == src)
		return;
	tl_array_clear(&dst->slots);
	tl_array_reserve(&dst->slots, src->slots.size);
	if (src->slots.size)
		memcpy(dst->slots.items, src->slots.items, src->slots.size * sizeof *src->slots.items);
	dst->slots.size = src->slots.size;
	dst->live = src->live;
	dst->indexed = src->indexed;
	if (src->indexed) {
		if (dst->icap != src->icap) {
			tl_free(dst->index);
			dst->index = tl_malloc(src->icap * sizeof *dst->index);
			dst->icap = src->icap;
		}
		memcpy(dst->index, src->index, src->icap * sizeof *dst->index);
		if (dst->ucap != src->ucap) {
			tl_free(dst->ups);
			dst->ups = tl_malloc(src->ucap * sizeof *dst->ups);
			dst->ucap = src->ucap;
		}
		memcpy(dst->ups, src->ups, src->ucap * sizeof *dst->ups);
	}
	dst->iused = src->iused;
	dst->uused = src->uused;
	dst->grad = src->grad;
	dst->dead = src->dead;
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
	if (!s->indexed) {
		uint32_t w = 0;
		for (uint32_t i = 0; i < s->slots.size; i++)
			if (!tl_path_prefix(path, &s->slots.items[i].path))
				s->slots.items[w++] = s->slots.items[i];
		s->slots.size = w;
		s->live = w;
		return;
	}
	int32_t k = tl_state__find(s, path);
	if (k >= 0)
		tl_state__remove(s, (uint32_t)k);
	TlPath self = tl_state__prefix(path, path->n);
	TlStateUp *u = tl_state__up(s, &self, false);
	if (u && u->below) {
		/* Something is bound below the path: walk its root's chain. */
		TlPath root = tl_state__prefix(path, 0);
		TlStateUp *r = path->n ? tl_state__up(s, &root, false) : u;
		for (int32_t i = r ? r->head : -1; i >= 0 && u->below; i = s->slots.items[i].next) {
			TlSlot *sl = &s->slots.items[i];
			if (!sl->gone && sl->path.n > path->n && tl_path_prefix(path, &sl->path))
				tl_state__remove(s, (uint32_t)i);
		}
	}
	uint32_t gone = s->slots.size - s->live;
	if (gone >= TL_STATE_COMPACT && gone > s->live)
		tl_state__rebuild(s, true);
}

void tl_state_set(TlState *s, const TlPath *path, const TlVal *v)
{
	TlVal copy = *v;
	tl_state_kill(s, path);
	TlSlot slot = { *path, copy, 0xff, 0xff, 0, 0, -1 };
	tl_state__push(s, &slot);
}

void tl_state_set_nograd(TlState *s, const TlPath *path, uint8_t nograd)
{
	int32_t i = tl_state__find(s, path);
	if (i >= 0) {
		s->slots.items[i].val.nograd = nograd;
		s->slots.items[i].val.pnograd = 0; /* known, or not known at all */
	}
}

void tl_state_set_ng(TlState *s, const TlPath *path, int32_t ng)
{
	int32_t i = tl_state__find(s, path);
	if (i >= 0)
		tl_val_set_ng(&s->slots.items[i].val, ng);
}

void tl_state_set_mode(TlState *s, const TlPath *path, uint8_t mode, const TlVal *unbound)
{
	bool found = false;
	for (uint32_t i = 0; i < s->slots.size; i++) {
		TlSlot *sl = &s->slots.items[i];
		if (sl->gone || !tl_path_prefix(path, &sl->path))
			continue;
		sl->val.mode = mode;
		sl->val.meval = TL_VMODE_SOME_EVAL(mode) ? TL_VMEVAL_SWITCHED : 0;
		found = found || sl->path.n == path->n;
	}
	if (found || !unbound)
		return;
	/* No store: the object is the same (its must and may bits clear). */
	TlSlot slot = { *path, *unbound, 0, 0, 0, 0, -1 };
	slot.val.mode = mode;
	slot.val.meval = TL_VMODE_SOME_EVAL(mode) ? TL_VMEVAL_SWITCHED : 0;
	tl_state__push(s, &slot);
}

void tl_state_replace(TlState *s, const TlPath *path, const TlVal *v)
{
	int32_t i = tl_state__find(s, path);
	if (i >= 0)
		s->slots.items[i].val = *v;
}

void tl_state_forget_modes(TlState *s)
{
	for (uint32_t i = 0; i < s->slots.size; i++) {
		s->slots.items[i].val.mode = 0;
		s->slots.items[i].val.meval = TL_VMEVAL_FORGOT;
	}
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
		if (!d->mark) {
			d->must = 0;
			d->val.mode = tl_val_mode_outside(d->val.mode);
			d->val.fresh = 0; /* as it stands outside: not made here */
		}
		d->mark = 0;
	}
}

/* dst := dst ⊔ now, or its widening by now. No slot of dst is killed, so
 * none is compacted away while the slots are marked. */
static void tl_state__merge(TlValPool *p, TlState *dst, const TlState *now, bool widen)
{
	uint32_t had = dst->slots.size;
	for (uint32_t i = 0; i < now->slots.size; i++) {
		TlSlot s = now->slots.items[i];
		if (s.gone)
			continue;
		int32_t k = tl_state__find(dst, &s.path);
		if (k < 0) {
			s.must = 0; /* not stored into on dst's paths */
			s.val.mode = tl_val_mode_outside(s.val.mode);
			s.val.fresh = 0;
			s.mark = 0;
			tl_state__push(dst, &s);
		} else {
			TlSlot *d = &dst->slots.items[k];
			TlVal old = d->val;
			TlVal j = widen ? tl_val_widen(p, &old, &s.val) : tl_val_join(p, &old, &s.val);
			d->val = j;
			d->must &= s.must;
			d->may |= s.may;
			tl_state__mark(d);
		}
	}
	tl_state__unmarked(dst, had);
}

void tl_state_join(TlValPool *p, TlState *dst, const TlState *src)
{
	if (src->dead)
		return;
	if (dst->dead) {
		tl_state_copy(dst, src);
		return;
	}
	tl_state__merge(p, dst, src, false);
	if (src->grad > dst->grad)
		dst->grad = src->grad; /* disabled only when disabled on every path */
}

bool tl_state_equal(const TlValPool *p, const TlState *a, const TlState *b)
{
	if (a->dead != b->dead || a->grad != b->grad || a->live != b->live)
		return false;
	for (uint32_t i = 0; i < a->slots.size; i++) {
		const TlSlot *as = &a->slots.items[i];
		if (as->gone)
			continue;
		/* The same slot at the same place, mostly: a search only otherwise. */
		const TlVal *v = i < b->slots.size && !b->slots.items[i].gone &&
					 tl_path_equal(&as->path, &b->slots.items[i].path)
					 ? &b->slots.items[i].val : tl_state_get(b, &as->path);
		if (!v || !tl_val_equal(p, &as->val, v))
			return false;
	}
	return true;
}

void tl_state_widen(TlValPool *p, TlState *dst, const TlState *now)
{
	tl_state__merge(p, dst, now, true);
	if (now->dead == false)
		dst->dead = false;
}
