/* Unit tests: program order in the iteration (issue 9, step 5). A name
 * re-bound later is a new value; a backward that ran earlier does not
 * justify keeping the graph; a graph reached again only through an
 * undetached recurrent state is no reuse. */
#include "helpers.h"
#include "rules/checks/checks.h"

static void test_rebound_name_is_a_new_value(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn.functional as F\n"
		"def run(model, opt, train, val):\n"
		"    for epoch in range(3):\n"
		"        for x, y in train:\n"
		"            out = model(x)\n"
		"            loss = F.cross_entropy(out, y)\n"
		"            loss.backward()\n"
		"            opt.step()\n"
		"        for x, y in val:\n"
		"            out = model(x)\n"
		"            loss = F.cross_entropy(out, y)\n"
		"            print(loss.item())\n");
	const TlIndex *idx = &fx->idx;
	/* The training forward reaches the backward through `out` and `loss`. */
	assert_true(tl_facts_reaches_backward(idx, tl_fixture_node(fx, "model(x)", 0)));
	/* The evaluation loop's `out` / `loss` are new values: the backward
	 * earlier in the function (and in the next epoch) reads the
	 * training loop's. */
	assert_false(tl_facts_reaches_backward(idx, tl_fixture_node(fx, "model(x)", 1)));
	assert_false(tl_facts_reaches_backward(idx, tl_fixture_node_after(fx, "print(", "loss")));
	tl_fixture_free(fx);
}

static void test_loop_carried_value_reaches(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"def run(model, data):\n"
		"    prev = None\n"
		"    total = 0\n"
		"    for x in data:\n"
		"        if prev is not None:\n"
		"            prev.backward()\n"
		"        prev = model(x).sum()\n"
		"        total += model(x).mean()\n"
		"    total.backward()\n");
	const TlIndex *idx = &fx->idx;
	/* Read by the backward of the next iteration, above it in the body. */
	assert_true(tl_facts_reaches_backward(idx, tl_fixture_node(fx, "model(x)", 0)));
	/* `total += v` keeps the total it updates. */
	assert_true(tl_facts_reaches_backward(idx, tl_fixture_node(fx, "model(x)", 1)));
	tl_fixture_free(fx);
}

static void test_binding_in_a_branch_reaches(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def loss_of(model, x, mlp):\n"
		"    parts = [model(x)]\n"
		"    if mlp:\n"
		"        h = torch.cat(parts, -1)\n"
		"    else:\n"
		"        h = x.mean()\n"
		"    loss = h.sum()\n"
		"    loss.backward()\n"
		"def replaced(model, x):\n"
		"    h = model(x)\n"
		"    h = x.mean()\n"
		"    h.sum().backward()\n");
	const TlIndex *idx = &fx->idx;
	/* The binding in the if branch is not replaced on every path by the
	 * one in the else branch. */
	assert_true(tl_facts_reaches_backward(idx, tl_fixture_node(fx, "model(x)", 0)));
	/* ... a re-binding in the same block is. */
	assert_false(tl_facts_reaches_backward(idx, tl_fixture_node(fx, "model(x)", 1)));
	tl_fixture_free(fx);
}

static void test_only_later_backwards_reuse(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def gan(loader, G, D, optG, optD, bce):\n"
		"    for real in loader:\n"
		"        fake = G(torch.randn(8, 64))\n"
		"        d_loss = bce(D(real), 1) + bce(D(fake), 0)\n"
		"        d_loss.backward(retain_graph=True)\n"
		"        optD.step()\n"
		"        g_loss = bce(D(fake), 1)\n"
		"        g_loss.backward(retain_graph=True)\n"
		"        optG.step()\n");
	const TlIndex *idx = &fx->idx;
	assert_true(tl_check_graph_reused(idx, tl_fixture_node(fx, "d_loss.backward(retain_graph=True)", 0)));
	assert_false(tl_check_graph_reused(idx, tl_fixture_node(fx, "g_loss.backward(retain_graph=True)", 0)));
	tl_fixture_free(fx);
}

static void test_recurrent_state_is_no_reuse(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"import torch.nn.functional as F\n"
		"def tbptt(opt, batches, h):\n"
		"    rnn = nn.GRU(8, 16)\n"
		"    for x, y in batches:\n"
		"        out, h = rnn(x, h)\n"
		"        F.mse_loss(out, y).backward(retain_graph=True)\n"
		"        opt.step()\n"
		"def shared(heads, opt, batches):\n"
		"    trunk = nn.Linear(8, 8)\n"
		"    for x, ys in batches:\n"
		"        feat = trunk(x)\n"
		"        for head, y in zip(heads, ys):\n"
		"            F.mse_loss(head(feat), y).backward(retain_graph=True)\n"
		"        opt.step()\n");
	const TlIndex *idx = &fx->idx;
	assert_false(tl_check_graph_reused(idx, tl_fixture_node(fx, "F.mse_loss(out, y).backward(retain_graph=True)", 0)));
	/* A graph made before the inner loop, differentiated once per head. */
	assert_true(tl_check_graph_reused(idx, tl_fixture_node(fx, "F.mse_loss(head(feat), y).backward(retain_graph=True)", 0)));
	tl_fixture_free(fx);
}

static void test_helper_backward_in_iteration(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn.functional as F\n"
		"def second(dec, z, x):\n"
		"    F.mse_loss(dec(z), x).backward(retain_graph=True)\n"
		"def fit(enc, dec, opt, loader):\n"
		"    for x, y in loader:\n"
		"        z = enc(x)\n"
		"        F.cross_entropy(z, y).backward(retain_graph=True)\n"
		"        second(dec, z, x)\n"
		"        opt.step()\n");
	const TlIndex *idx = &fx->idx;
	/* The first backward is followed by the helper's. */
	assert_true(tl_check_graph_reused(idx, tl_fixture_node(fx, "F.cross_entropy(z, y).backward(retain_graph=True)", 0)));
	/* The helper's is the last; what it is passed is made in the iteration. */
	assert_false(tl_check_graph_reused(idx, tl_fixture_node(fx, "F.mse_loss(dec(z), x).backward(retain_graph=True)", 0)));
	tl_fixture_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rebound_name_is_a_new_value),
		cmocka_unit_test(test_loop_carried_value_reaches),
		cmocka_unit_test(test_binding_in_a_branch_reaches),
		cmocka_unit_test(test_only_later_backwards_reuse),
		cmocka_unit_test(test_recurrent_state_is_no_reuse),
		cmocka_unit_test(test_helper_backward_in_iteration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
