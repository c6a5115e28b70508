/* Unit tests for what a function backpropagates (analyzer/model/backprop.c):
 * a value of unknown history that what a backward consumes keeps the
 * history of has history. The edges followed back from the backward are
 * the flow graph's of kind keep (flow.c): through a function of the
 * project whose summary follows its parameter's graph, a method whose row
 * keeps its receiver's; not through a new leaf, grad-disabled code, or a
 * field read out of an object. Only the bindings the backward's subject
 * was computed from are refined, not every binding of their names. */
#include "helpers.h"

#include "model/model.h"
#include "model/value.h"

static TlVal value_after(TlFixture *fx, const char *anchor, const char *text)
{
	TlVal v;
	TSNode n = tl_fixture_node_after(fx, anchor, text);
	if (!tl_model_value(&fx->idx, n, &v))
		fail_msg("no value for `%s` after `%s`", text, anchor);
	return v;
}

/* The loss keeps the prediction's history through a helper whose summary
 * follows its first parameter's graph; a helper that detaches it does
 * not say so. */
static void test_backprop_through_summary(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import energylib\n"
		"def weighted(pred, w):\n"
		"    return pred * w\n"
		"def cut(pred, w):\n"
		"    return pred.detach() * w\n"
		"def train(params, loader, opt):\n"
		"    for batch in loader:\n"
		"        energy = energylib.evaluate(params, batch)\n"
		"        other = energylib.evaluate(params, batch)\n"
		"        loss = weighted(energy, 0.5).mean() + cut(other, 0.5).mean()\n"
		"        loss.backward()\n"
		"        opt.step()\n"
		"        print(energy, other)\n");
	TlVal energy = value_after(fx, "print(", "energy");
	assert_int_equal(energy.graph, TL_VG_MUST);
	assert_int_equal(energy.kind, TL_VK_TENSOR);
	assert_int_equal(value_after(fx, "print(energy, ", "other").graph, TL_VG_UNKNOWN);
	tl_fixture_free(fx);
}

/* Only the binding the loss was computed from: the hidden state made
 * before the loop by an unknown call stays unknown. */
static void test_backprop_per_binding(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import rnnlib\n"
		"def train(model, data, opt):\n"
		"    hidden = rnnlib.init_state(4)\n"
		"    start = hidden\n"
		"    for x in data:\n"
		"        hidden = rnnlib.step(model, x, hidden)\n"
		"        loss = hidden.pow(2).mean()\n"
		"        loss.backward()\n"
		"        opt.step()\n"
		"    return start, hidden\n");
	assert_int_equal(value_after(fx, "start = ", "hidden").graph, TL_VG_UNKNOWN);
	assert_int_equal(value_after(fx, "loss = ", "hidden").graph, TL_VG_MUST);
	tl_fixture_free(fx);
}

/* What the keep edges do not follow: a new leaf made of the operand, a
 * grad-disabled computation, a field read out of an object (`args.accum`
 * is no tensor with history). */
static void test_backprop_cuts(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import rllib\n"
		"def train(policy, env, opt, args):\n"
		"    logp = rllib.rollout(policy, env)\n"
		"    rewards = rllib.rewards(env)\n"
		"    returns = torch.tensor(rewards)\n"
		"    with torch.no_grad():\n"
		"        baseline = rllib.value(env) * 2\n"
		"    loss = -(logp * (returns - baseline)).sum() / args.accum\n"
		"    loss.backward()\n"
		"    opt.step()\n"
		"    return logp, rewards, baseline, args\n");
	assert_int_equal(value_after(fx, "return ", "logp").graph, TL_VG_MUST);
	assert_int_equal(value_after(fx, "return logp, ", "rewards").graph, TL_VG_UNKNOWN);
	assert_int_equal(value_after(fx, "return logp, rewards, ", "baseline").graph, TL_VG_NONE);
	TlVal args = value_after(fx, "return logp, rewards, baseline, ", "args");
	assert_true(args.graph != TL_VG_MUST);
	assert_true(args.kind != TL_VK_TENSOR);
	tl_fixture_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backprop_through_summary),
		cmocka_unit_test(test_backprop_per_binding),
		cmocka_unit_test(test_backprop_cuts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
