/* Unit tests for the program-point state (analyzer/model/state.c): a
 * state of many paths is indexed (a table from path to slot, counts of the
 * bound paths below each prefix, a chain per root); killing a path kills
 * every path below it, bound or not bound in between; slots killed in
 * numbers are compacted away; copies, joins, widenings and comparisons
 * after many kills give what a plain list of slots gives. The last test
 * runs random operations on the state and on such a list (the state's
 * former representation, written out here) side by side and compares
 * every path's slot after each step. */
#include "helpers.h"

#include "model/model_internal.h"

/* The path root.s0.s1... of interned names; sel < 0 ends it. */
static TlPath path_of(TlPathNames *t, const char *dotted)
{
	TlPath p;
	assert_true(tl_path_of_dotted(t, dotted, &p));
	return p;
}

static TlVal val(int k)
{
	return tl_val_of((TlVKind)(1 + k % 5), (TlVGraph)(1 + k % 4));
}

static bool has(const TlState *s, TlPathNames *t, const char *dotted)
{
	TlPath p = path_of(t, dotted);
	return tl_state_get(s, &p) != NULL;
}

static void set(TlState *s, TlPathNames *t, const char *dotted, int k)
{
	TlPath p = path_of(t, dotted);
	TlVal v = val(k);
	tl_state_set(s, &p, &v);
}

static void kill(TlState *s, TlPathNames *t, const char *dotted)
{
	TlPath p = path_of(t, dotted);
	tl_state_kill(s, &p);
}

/* Binds r0 .. r{n-1}: enough slots for the state to be indexed. */
static void fill(TlState *s, TlPathNames *t, int n)
{
	char buf[32];
	for (int i = 0; i < n; i++) {
		snprintf(buf, sizeof buf, "r%d", i);
		set(s, t, buf, i);
	}
}

static void test_state_kill_descendants(void **state)
{
	(void)state;
	TlPathNames t;
	tl_path_names_init(&t);
	for (int indexed = 0; indexed < 2; indexed++) {
		TlState s;
		tl_state_init(&s);
		if (indexed)
			fill(&s, &t, 100);
		assert_int_equal(s.indexed, indexed == 1);
		set(&s, &t, "a", 1);
		set(&s, &t, "a.b", 2);
		set(&s, &t, "a.b.c", 3);
		set(&s, &t, "a.b.c.d", 3);
		set(&s, &t, "a.c", 4);
		set(&s, &t, "ab", 5);
		set(&s, &t, "x.y.z", 6); /* x and x.y not bound */
		set(&s, &t, "x.w", 6);
		kill(&s, &t, "a.b");
		assert_false(has(&s, &t, "a.b"));
		assert_false(has(&s, &t, "a.b.c"));
		assert_false(has(&s, &t, "a.b.c.d"));
		assert_true(has(&s, &t, "a"));
		assert_true(has(&s, &t, "a.c"));
		assert_true(has(&s, &t, "ab"));
		/* a path not bound, with a path below it bound */
		kill(&s, &t, "x.y");
		assert_false(has(&s, &t, "x.y.z"));
		assert_true(has(&s, &t, "x.w"));
		/* a store into a root kills everything below it */
		set(&s, &t, "a.b.e", 7);
		set(&s, &t, "a", 8);
		assert_true(has(&s, &t, "a"));
		assert_false(has(&s, &t, "a.c"));
		assert_false(has(&s, &t, "a.b.e"));
		assert_true(has(&s, &t, "ab"));
		kill(&s, &t, "x");
		assert_false(has(&s, &t, "x.w"));
		/* bound again after its kill */
		set(&s, &t, "a.b.c", 9);
		assert_true(has(&s, &t, "a.b.c"));
		assert_true(has(&s, &t, "a"));
		if (indexed)
			assert_true(has(&s, &t, "r99"));
		tl_state_release(&s);
	}
	tl_path_names_release(&t);
}

static void test_state_many_paths(void **state)
{
	(void)state;
	TlPathNames t;
	tl_path_names_init(&t);
	TlState s;
	tl_state_init(&s);
	char buf[64];
	enum { N = 4000 };
	for (int i = 0; i < N; i++) {
		snprintf(buf, sizeof buf, "x%d", i);
		set(&s, &t, buf, i);
		snprintf(buf, sizeof buf, "self.f%d.w", i);
		set(&s, &t, buf, i);
	}
	assert_true(s.indexed);
	assert_int_equal(s.live, 2 * N);
	/* each bound four times more: the old slots are gone, and compacted
	 * away once they outnumber the others (6N slots without it) */
	for (int round = 0; round < 4; round++)
		for (int i = 0; i < N; i++) {
			snprintf(buf, sizeof buf, "x%d", i);
			set(&s, &t, buf, i + 1);
		}
	assert_int_equal(s.live, 2 * N);
	assert_true(s.slots.size <= 2 * s.live + 16);
	for (int i = 0; i < N; i++) {
		snprintf(buf, sizeof buf, "x%d", i);
		TlPath p = path_of(&t, buf);
		const TlVal *v = tl_state_get(&s, &p);
		assert_non_null(v);
		TlVal want = val(i + 1);
		assert_int_equal(v->kind, want.kind);
		assert_int_equal(v->graph, want.graph);
	}
	/* the odd fields killed one by one, then all of self's */
	for (int i = 1; i < N; i += 2) {
		snprintf(buf, sizeof buf, "self.f%d", i);
		kill(&s, &t, buf);
	}
	assert_int_equal(s.live, 2 * N - N / 2);
	assert_true(has(&s, &t, "self.f0.w"));
	assert_false(has(&s, &t, "self.f1.w"));
	kill(&s, &t, "self");
	assert_int_equal(s.live, N);
	assert_false(has(&s, &t, "self.f0.w"));
	assert_true(has(&s, &t, "x0"));
	tl_state_release(&s);
	tl_path_names_release(&t);
}

static void test_state_join_after_kills(void **state)
{
	(void)state;
	TlPathNames t;
	tl_path_names_init(&t);
	TlValPool pool;
	tl_val_pool_init(&pool);
	TlState a, b;
	tl_state_init(&a);
	tl_state_init(&b);
	char buf[64];
	for (int i = 0; i < 500; i++) {
		snprintf(buf, sizeof buf, "m.p%d", i);
		set(&a, &t, buf, 0);
	}
	tl_state_copy(&b, &a);
	assert_true(tl_state_equal(&pool, &a, &b));
	/* a: most of m's paths killed (compacted); b: bound afresh */
	for (int i = 0; i < 450; i++) {
		snprintf(buf, sizeof buf, "m.p%d", i);
		kill(&a, &t, buf);
	}
	assert_true(a.slots.size < 500);
	set(&a, &t, "only_a", 1);
	set(&b, &t, "m.p499", 0);
	assert_false(tl_state_equal(&pool, &a, &b));
	tl_state_join(&pool, &a, &b);
	/* every path of either side, values joined, must bits of paths one
	 * side lacks cleared */
	assert_int_equal(a.live, 501);
	for (int i = 0; i < 500; i++) {
		snprintf(buf, sizeof buf, "m.p%d", i);
		TlPath p = path_of(&t, buf);
		const TlSlot *sl = tl_state_slot(&a, &p);
		assert_non_null(sl);
		assert_int_equal(sl->must, i < 450 ? 0 : 0xff);
	}
	TlPath oa = path_of(&t, "only_a");
	assert_int_equal(tl_state_slot(&a, &oa)->must, 0);
	/* b ⊔ a is a ⊔ b */
	tl_state_join(&pool, &b, &a);
	assert_true(tl_state_equal(&pool, &a, &b));
	/* a kill after the join still finds the paths below it */
	kill(&a, &t, "m");
	assert_int_equal(a.live, 1);
	tl_state_release(&a);
	tl_state_release(&b);
	tl_val_pool_release(&pool);
	tl_path_names_release(&t);
}

/* ---- the former representation, side by side --------------------------- */

typedef struct Ref {
	TlArray(TlSlot) slots;
	uint8_t grad;
	bool dead;
} Ref;

static int32_t ref_find(const Ref *r, const TlPath *p)
{
	for (uint32_t i = r->slots.size; i-- > 0;)
		if (tl_path_equal(&r->slots.items[i].path, p))
			return (int32_t)i;
	return -1;
}

static void ref_kill(Ref *r, const TlPath *p)
{
	uint32_t w = 0;
	for (uint32_t i = 0; i < r->slots.size; i++)
		if (!tl_path_prefix(p, &r->slots.items[i].path))
			r->slots.items[w++] = r->slots.items[i];
	r->slots.size = w;
}

static void ref_set(Ref *r, const TlPath *p, const TlVal *v)
{
	ref_kill(r, p);
	TlSlot s;
	memset(&s, 0, sizeof s);
	s.path = *p;
	s.val = *v;
	s.must = s.may = 0xff;
	tl_array_push(&r->slots, s);
}

static void ref_copy(Ref *d, const Ref *s)
{
	tl_array_clear(&d->slots);
	for (uint32_t i = 0; i < s->slots.size; i++)
		tl_array_push(&d->slots, s->slots.items[i]);
	d->grad = s->grad;
	d->dead = s->dead;
}

static void ref_merge(TlValPool *pool, Ref *d, const Ref *s, bool widen)
{
	uint32_t had = d->slots.size;
	uint8_t *seen = tl_calloc(had + 1, 1);
	for (uint32_t i = 0; i < s->slots.size; i++) {
		TlSlot x = s->slots.items[i];
		int32_t k = ref_find(d, &x.path);
		if (k < 0) {
			x.must = 0;
			tl_array_push(&d->slots, x);
		} else {
			TlSlot *y = &d->slots.items[k];
			TlVal old = y->val;
			y->val = widen ? tl_val_widen(pool, &old, &x.val) : tl_val_join(pool, &old, &x.val);
			y->must &= x.must;
			y->may |= x.may;
			seen[k] = 1;
		}
	}
	for (uint32_t i = 0; i < had; i++)
		if (!seen[i])
			d->slots.items[i].must = 0;
	tl_free(seen);
}

static void ref_join(TlValPool *pool, Ref *d, const Ref *s)
{
	if (s->dead)
		return;
	if (d->dead) {
		ref_copy(d, s);
		return;
	}
	ref_merge(pool, d, s, false);
	if (s->grad > d->grad)
		d->grad = s->grad; /* disabled, entry, enabled: the greater */
}

static void ref_widen(TlValPool *pool, Ref *d, const Ref *s)
{
	ref_merge(pool, d, s, true);
	if (!s->dead)
		d->dead = false;
}

static bool ref_equal(const TlValPool *pool, const Ref *a, const Ref *b)
{
	if (a->dead != b->dead || a->grad != b->grad || a->slots.size != b->slots.size)
		return false;
	for (uint32_t i = 0; i < a->slots.size; i++) {
		int32_t k = ref_find(b, &a->slots.items[i].path);
		if (k < 0 || !tl_val_equal(pool, &a->slots.items[i].val, &b->slots.items[k].val))
			return false;
	}
	return true;
}

static uint32_t rng_state = 12345u;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return (rng_state >> 8) % n;
}

/* A random path of a small universe: 30 roots, 4 selectors each level
 * (attributes, keys, any element), up to 3 deep. */
static TlPath rnd_path(int32_t base)
{
	TlPath p;
	memset(&p, 0, sizeof p);
	p.root = base + (int32_t)rnd(30);
	p.n = (uint8_t)rnd(4);
	for (uint32_t i = 0; i < p.n; i++) {
		uint32_t k = rnd(4);
		p.sel[i] = k == 0 ? TL_PATH_ANY : k == 1 ? TL_PATH_KEY(base) : base + (int32_t)k;
	}
	return p;
}

/* Every path of the universe has the same slot in `s` as in `r`. */
static void same(const TlState *s, const Ref *r, int32_t base)
{
	assert_int_equal(s->live, r->slots.size);
	assert_int_equal(s->dead, r->dead);
	assert_int_equal(s->grad, r->grad);
	for (uint32_t i = 0; i < r->slots.size; i++) {
		const TlSlot *want = &r->slots.items[i];
		const TlSlot *got = tl_state_slot(s, &want->path);
		assert_non_null(got);
		assert_int_equal(got->val.kind, want->val.kind);
		assert_int_equal(got->val.graph, want->val.graph);
		assert_int_equal(got->must, want->must);
		assert_int_equal(got->may, want->may);
	}
	/* and no path the list lacks */
	for (int k = 0; k < 200; k++) {
		TlPath p = rnd_path(base);
		assert_int_equal(tl_state_get(s, &p) != NULL, ref_find(r, &p) >= 0);
	}
}

static void test_state_random(void **state)
{
	(void)state;
	TlValPool pool;
	tl_val_pool_init(&pool);
	enum { K = 4 };
	TlState s[K];
	Ref r[K];
	for (int i = 0; i < K; i++) {
		tl_state_init(&s[i]);
		memset(&r[i], 0, sizeof r[i]);
		r[i].grad = TL_MGRAD_ON; /* a state begins enabled */
		tl_array_init(&r[i].slots);
	}
	int32_t base = 1000; /* names need not be interned: ids only */
	for (int step = 0; step < 30000; step++) {
		uint32_t i = rnd(K), j = rnd(K), op = rnd(100);
		TlPath p = rnd_path(base);
		if (op < 45) {
			TlVal v = val((int)rnd(20));
			tl_state_set(&s[i], &p, &v);
			ref_set(&r[i], &p, &v);
		} else if (op < 70) {
			tl_state_kill(&s[i], &p);
			ref_kill(&r[i], &p);
		} else if (op < 75) {
			if (i != j) {
				tl_state_copy(&s[i], &s[j]);
				ref_copy(&r[i], &r[j]);
			}
		} else if (op < 85) {
			if (i != j) {
				tl_state_join(&pool, &s[i], &s[j]);
				ref_join(&pool, &r[i], &r[j]);
			}
		} else if (op < 88) {
			if (i != j) {
				tl_state_widen(&pool, &s[i], &s[j]);
				ref_widen(&pool, &r[i], &r[j]);
			}
		} else if (op < 93) {
			assert_int_equal(tl_state_equal(&pool, &s[i], &s[j]), ref_equal(&pool, &r[i], &r[j]));
		} else if (op < 95) {
			uint8_t bit = (uint8_t)(1u << rnd(8));
			tl_state_clear_stores(&s[i], bit);
			for (uint32_t k = 0; k < r[i].slots.size; k++) {
				r[i].slots.items[k].must &= (uint8_t)~bit;
				r[i].slots.items[k].may &= (uint8_t)~bit;
			}
		} else if (op < 97) {
			bool d = rnd(2);
			s[i].dead = r[i].dead = d;
			s[i].grad = r[i].grad = (uint8_t)rnd(3);
		} else {
			/* emptied now and then, so that states are small and large */
			for (int k = 0; k < 30; k++) {
				TlPath q = rnd_path(base);
				q.n = 0;
				tl_state_kill(&s[i], &q);
				ref_kill(&r[i], &q);
			}
		}
		same(&s[i], &r[i], base);
	}
	for (int i = 0; i < K; i++) {
		tl_state_release(&s[i]);
		tl_array_release(&r[i].slots);
	}
	tl_val_pool_release(&pool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_kill_descendants),
		cmocka_unit_test(test_state_many_paths),
		cmocka_unit_test(test_state_join_after_kills),
		cmocka_unit_test(test_state_random),
	};
	return cmocka_run_group_tests_name("model state", tests, NULL, NULL);
}
