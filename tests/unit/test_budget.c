/* Unit tests for analyzer/base/budget.h: the per-file work budget in
 * counted steps, which stops the index and the facts at the same point on
 * any machine and under any load. */
#include "helpers.h"

#include "base/budget.h"

/* Polls count one step each; the poll past the limit says hit, names
 * the steps as the cause and the phase it happened in, and every poll
 * after it says so too. */
static void test_steps_stop_at_the_limit(void **state)
{
	(void)state;
	TlBound b = { 0 };
	tl_bound_begin(&b, 1000.0, 5000);
	tl_bound_phase(&b, "building the facts");
	TlBound *prev = tl_bound_enter(&b);
	uint64_t polls = 0;
	while (!tl_bound_poll() && polls < 100000)
		polls++;
	assert_true(polls >= 4999 && polls <= 5000);
	assert_int_equal(b.hit, TL_BOUND_STEPS);
	assert_string_equal(b.hit_in, "building the facts");
	assert_true(tl_bound_poll());
	assert_true(tl_bound_hit());
	tl_bound_leave(prev);
	/* Without a current bound, polls never stop work. */
	assert_false(tl_bound_poll());
}

/* Suspended polls do not count; tl_bound_step still does, and the
 * file's own polls say hit once the suspension ends. */
static void test_suspended_polls_and_counted_steps(void **state)
{
	(void)state;
	TlBound b = { 0 };
	tl_bound_begin(&b, 1000.0, 100);
	TlBound *prev = tl_bound_enter(&b);
	tl_bound_suspend();
	for (int i = 0; i < 1000; i++)
		assert_false(tl_bound_poll());
	assert_true(b.hit == TL_BOUND_NONE);
	assert_true(tl_bound_step(200));
	assert_true(tl_bound_hit_ever());
	tl_bound_resume();
	assert_true(tl_bound_poll());
	assert_int_equal(b.hit, TL_BOUND_STEPS);
	tl_bound_leave(prev);
}

/* The budget grows with the file: a floor and a fixed number a byte. */
static void test_budget_grows_with_bytes(void **state)
{
	(void)state;
	uint64_t none = tl_budget_steps_for(0), mb = tl_budget_steps_for(1000000);
	assert_true(none > 0);
	assert_true(mb > none);
	assert_int_equal(tl_budget_steps_for(2000000) - mb, mb - none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps_stop_at_the_limit),
		cmocka_unit_test(test_suspended_polls_and_counted_steps),
		cmocka_unit_test(test_budget_grows_with_bytes),
	};
	return cmocka_run_group_tests_name("budget", tests, NULL, NULL);
}
