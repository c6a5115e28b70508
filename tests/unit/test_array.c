/* Unit tests for analyzer/base/array.h: tl_int_group, the counting sort the
 * model's worklists read their edges through. */
#include "helpers.h"

#include "base/alloc.h"
#include "base/array.h"

static void push_pair(TlIntArray *key, TlIntArray *item, int32_t k, int32_t v)
{
	tl_array_push(key, k);
	tl_array_push(item, v);
}

static void test_group_by_key_in_push_order(void **state)
{
	(void)state;
	TlIntArray key, item;
	tl_array_init(&key);
	tl_array_init(&item);
	push_pair(&key, &item, 2, 10);
	push_pair(&key, &item, 0, 11);
	push_pair(&key, &item, 2, 12);
	push_pair(&key, &item, 3, 13);
	push_pair(&key, &item, 0, 14);
	uint32_t *first;
	int32_t *out;
	tl_int_group(&key, &item, 4, &first, &out);
	/* key 0: 11 14; key 1: none; key 2: 10 12; key 3: 13 */
	assert_int_equal(first[0], 0);
	assert_int_equal(first[1], 2);
	assert_int_equal(first[2], 2);
	assert_int_equal(first[3], 4);
	assert_int_equal(first[4], 5);
	assert_int_equal(out[0], 11);
	assert_int_equal(out[1], 14);
	assert_int_equal(out[2], 10);
	assert_int_equal(out[3], 12);
	assert_int_equal(out[4], 13);
	tl_free(first);
	tl_free(out);
	tl_array_release(&key);
	tl_array_release(&item);
}

static void test_group_empty(void **state)
{
	(void)state;
	TlIntArray key, item;
	tl_array_init(&key);
	tl_array_init(&item);
	uint32_t *first;
	int32_t *out;
	tl_int_group(&key, &item, 3, &first, &out);
	for (uint32_t g = 0; g <= 3; g++)
		assert_int_equal(first[g], 0);
	tl_free(first);
	tl_free(out);
	tl_int_group(&key, &item, 0, &first, &out);
	assert_int_equal(first[0], 0);
	tl_free(first);
	tl_free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_by_key_in_push_order),
		cmocka_unit_test(test_group_empty),
	};
	return cmocka_run_group_tests_name("array", tests, NULL, NULL);
}
