/* Unit tests for runs per configuration (analyzer/model/fresh.c): a loop
 * whose every iteration builds the loss object, the model and the data it
 * backpropagates or runs is no step loop (tl_model_loop_step answers 0);
 * so is one whose model a function of the project builds from its
 * argument only; a loss object, a model, an optimizer or a leaf made
 * before the loop, one read off a parameter, one a function of the project
 * hands back from a global, weights of
 * before loaded into a fresh model, and a loop over data items keep it a
 * step loop; an inner loop reusing what its outer round made is one. */
#include "helpers.h"

#include "model/model.h"

/* The index of the loop whose statement starts at the `nth` occurrence
 * of `text`. */
static int32_t loop_at(TlFixture *fx, const char *text, int nth)
{
	const char *p = fx->src.text;
	for (int i = 0; i <= nth; i++) {
		p = strstr(i ? p + 1 : p, text);
		assert_non_null(p);
	}
	uint32_t at = (uint32_t)(p - fx->src.text);
	for (uint32_t i = 0; i < fx->idx.loops.size; i++)
		if (ts_node_start_byte(fx->idx.loops.items[i].node) == at)
			return (int32_t)i;
	fail_msg("no loop at %s", text);
	return -1;
}

static void test_fresh_runs(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"DTYPES = [torch.float16, torch.float32]\n"
		"class Arc(nn.Module):\n"
		"    def __init__(self, n, margin=0.5):\n"
		"        super().__init__()\n"
		"        self.W = nn.Parameter(torch.randn(2, n))\n"
		"    def forward(self, x, y):\n"
		"        return nn.functional.cross_entropy(x @ self.W, y)\n"
		"SHARED = Arc(10)\n"
		"def build(m):\n"
		"    return Arc(10, m)\n"
		"def shared(m):\n"
		"    return SHARED\n"
		"def sweep():\n"
		"    for dtype in DTYPES:\n"
		"        f = Arc(10)\n"
		"        e = torch.randn(8, 2).cuda().type(dtype)\n"
		"        f(e, torch.randint(0, 10, (8,)).cuda()).backward()\n"
		"def nested():\n"
		"    for dtype in DTYPES:\n"
		"        for margin in [0.1, 0.2]:\n"
		"            f = Arc(10, margin=margin)\n"
		"            f(torch.randn(8, 2).cuda(), torch.zeros(8).long().cuda()).backward()\n"
		"def before():\n"
		"    f = Arc(10)\n"
		"    for dtype in DTYPES:\n"
		"        f(torch.randn(8, 2).cuda(), torch.zeros(8).long().cuda()).backward()\n"
		"def inner():\n"
		"    for dtype in DTYPES:\n"
		"        f = Arc(10)\n"
		"        for _ in range(10):\n"
		"            f(torch.randn(8, 2).cuda(), torch.zeros(8).long().cuda()).backward()\n"
		"def param(f):\n"
		"    for dtype in DTYPES:\n"
		"        f(torch.randn(8, 2).cuda(), torch.zeros(8).long().cuda()).backward()\n"
		"def helper():\n"
		"    for m in [0.1, 0.2]:\n"
		"        f = build(m)\n"
		"        f(torch.randn(8, 2).cuda(), torch.zeros(8).long().cuda()).backward()\n"
		"def global_model():\n"
		"    for m in [0.1, 0.2]:\n"
		"        f = shared(m)\n"
		"        f(torch.randn(8, 2).cuda(), torch.zeros(8).long().cuda()).backward()\n"
		"def stepped():\n"
		"    net = Arc(10)\n"
		"    opt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
		"    for m in [0.1, 0.2]:\n"
		"        f = Arc(10, m)\n"
		"        f(torch.randn(8, 2).cuda(), torch.zeros(8).long().cuda()).backward()\n"
		"        opt.step()\n"
		"def loaded(sd):\n"
		"    for m in [0.1, 0.2]:\n"
		"        f = Arc(10, m)\n"
		"        f.load_state_dict(sd)\n"
		"        f(torch.randn(8, 2).cuda(), torch.zeros(8).long().cuda()).backward()\n"
		"def leaf():\n"
		"    w = torch.randn(2, 10)\n"
		"    for m in [0.1, 0.2]:\n"
		"        ((torch.randn(8, 2).cuda() @ w.cuda()).sum() * m).backward()\n"
		"def items(maps):\n"
		"    for a in maps:\n"
		"        pool = nn.AvgPool2d(3)\n"
		"        print(pool(a.cuda()).shape)\n"
		"def fresh_forward():\n"
		"    for dtype in DTYPES:\n"
		"        pool = nn.AvgPool2d(3)\n"
		"        print(pool(torch.randn(1, 1, 4, 4).cuda().type(dtype)).shape)\n");
	const TlIndex *idx = &fx->idx;
	/* runs per configuration: no step loop */
	assert_int_equal(tl_model_loop_step(idx, loop_at(fx, "for dtype in DTYPES:\n        f = Arc(10)\n        e", 0)), 0);
	assert_int_equal(tl_model_loop_step(idx, loop_at(fx, "for margin in", 0)), 0);
	assert_int_equal(tl_model_loop_step(idx, loop_at(fx, "for dtype in DTYPES:\n        pool", 0)), 0);
	/* a function of the project that builds from its argument only */
	assert_int_equal(tl_model_loop_step(idx, loop_at(fx, "for m in [0.1, 0.2]:\n        f = build", 0)), 0);
	/* what outlives the iteration keeps the step loop */
	int32_t l = loop_at(fx, "for dtype in DTYPES:\n        f(torch", 0);
	assert_true(tl_model_loop_step(idx, l) & TL_STEP_TRAIN);
	assert_true(tl_model_loop_step(idx, loop_at(fx, "for _ in range(10)", 0)) & TL_STEP_TRAIN);
	assert_true(tl_model_loop_step(idx, loop_at(fx, "for dtype in DTYPES:\n        f(torch", 1)) & TL_STEP_TRAIN);
	assert_true(tl_model_loop_step(idx, loop_at(fx, "for m in [0.1, 0.2]:\n        f = shared", 0)) & TL_STEP_TRAIN);
	assert_true(tl_model_loop_step(idx, loop_at(fx, "for m in [0.1, 0.2]:\n        f = Arc(10, m)\n        f(", 0)) &
		    TL_STEP_TRAIN);
	assert_true(tl_model_loop_step(idx, loop_at(fx, "for m in [0.1, 0.2]:\n        f = Arc(10, m)\n        f.load", 0)) &
		    TL_STEP_TRAIN);
	assert_true(tl_model_loop_step(idx, loop_at(fx, "for m in [0.1, 0.2]:\n        ((", 0)) & TL_STEP_TRAIN);
	assert_true(tl_model_loop_step(idx, loop_at(fx, "for a in maps", 0)) != 0);
	tl_fixture_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fresh_runs),
	};
	return cmocka_run_group_tests_name("model runs per configuration", tests, NULL, NULL);
}
