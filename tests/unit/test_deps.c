/* Unit tests for analyzer/project/deps.h: which files' analyses may change
 * when a module changes (those from which it can be reached). */
#include "helpers.h"

#include "base/array.h"
#include "project/deps.h"

static bool has(const TlStrArray *a, const char *s)
{
	for (uint32_t i = 0; i < a->size; i++)
		if (strcmp(a->items[i], s) == 0)
			return true;
	return false;
}

static void test_reaching(void **state)
{
	(void)state;
	TlDeps d;
	tl_deps_init(&d);
	/* train reads model and losses; model reads layers; callee's entry
	 * contexts read its importer train (a cycle); other reads only
	 * helpers; edges noted twice count once. */
	tl_deps_add(&d, "/p/train.py", "/p/model.py");
	tl_deps_add(&d, "/p/train.py", "/p/losses.py");
	tl_deps_add(&d, "/p/model.py", "/p/layers.py");
	tl_deps_add(&d, "/p/model.py", "/p/layers.py");
	tl_deps_add(&d, "/p/callee.py", "/p/train.py");
	tl_deps_add(&d, "/p/train.py", "/p/callee.py");
	tl_deps_add(&d, "/p/other.py", "/p/helpers.py");
	tl_deps_add(&d, "/p/self.py", "/p/self.py"); /* no edge to itself */
	assert_int_equal(d.out.items[1].size, 1); /* model: layers, once */

	TlStrArray r;
	tl_array_init(&r);
	tl_deps_reaching(&d, "/p/layers.py", &r);
	assert_int_equal(r.size, 4);
	assert_true(has(&r, "/p/layers.py") && has(&r, "/p/model.py") && has(&r, "/p/train.py") &&
		    has(&r, "/p/callee.py"));
	assert_false(has(&r, "/p/other.py"));
	tl_str_array_release(&r);

	tl_array_init(&r);
	tl_deps_reaching(&d, "/p/train.py", &r);
	assert_int_equal(r.size, 2);
	assert_true(has(&r, "/p/train.py") && has(&r, "/p/callee.py"));
	tl_str_array_release(&r);

	tl_array_init(&r);
	tl_deps_reaching(&d, "/p/helpers.py", &r);
	assert_int_equal(r.size, 2);
	assert_true(has(&r, "/p/other.py"));
	tl_str_array_release(&r);

	/* A file no analysis read: nothing. */
	tl_array_init(&r);
	tl_deps_reaching(&d, "/p/unknown.py", &r);
	tl_deps_reaching(&d, "/p/self.py", &r);
	assert_int_equal(r.size, 0);
	tl_str_array_release(&r);

	/* Released, it is empty and usable again. */
	tl_deps_release(&d);
	tl_array_init(&r);
	tl_deps_reaching(&d, "/p/layers.py", &r);
	assert_int_equal(r.size, 0);
	tl_deps_add(&d, "/p/a.py", "/p/b.py");
	tl_deps_reaching(&d, "/p/b.py", &r);
	assert_int_equal(r.size, 2);
	tl_str_array_release(&r);
	tl_deps_release(&d);
}

/* A long chain: the walk is a queue, not a recursion. */
static void test_long_chain(void **state)
{
	(void)state;
	TlDeps d;
	tl_deps_init(&d);
	char a[32], b[32];
	for (int i = 0; i < 100000; i++) {
		snprintf(a, sizeof a, "/p/m%d.py", i + 1);
		snprintf(b, sizeof b, "/p/m%d.py", i);
		tl_deps_add(&d, a, b);
	}
	TlStrArray r;
	tl_array_init(&r);
	tl_deps_reaching(&d, "/p/m0.py", &r);
	assert_int_equal(r.size, 100001);
	tl_str_array_release(&r);
	tl_deps_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reaching),
		cmocka_unit_test(test_long_chain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
