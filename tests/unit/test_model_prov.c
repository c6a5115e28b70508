/* Unit tests for where a value's history comes from (analyzer/model/prov.c,
 * tl_model_graph_from_before): history in the state when a loop's
 * iteration begins (targets made before the loop), history a recurrent
 * state hands on without a detach, the parameters a value is computed
 * from (through a loss, a helper's summary, a container), pieces of one
 * graph a `for` iterates, and an element read out of a store a helper is
 * handed. */
#include "helpers.h"

#include "model/model.h"

/* The index of the loop of the fixture whose text starts with `head`. */
static int32_t loop_at(TlFixture *fx, const char *head)
{
	for (uint32_t i = 0; i < fx->idx.loops.size; i++) {
		uint32_t len = 0;
		const char *t = tl_index_text(&fx->idx, fx->idx.loops.items[i].node, &len);
		if (t && len >= strlen(head) && memcmp(t, head, strlen(head)) == 0)
			return (int32_t)i;
	}
	fail_msg("no loop `%s`", head);
	return -1;
}

/* tl_model_graph_from_before for node `text` after `anchor`, in the loop
 * starting with `head` (NULL: none). */
static TlProvInfo from(TlFixture *fx, const char *head, const char *anchor, const char *text)
{
	TlProvInfo pi;
	int32_t l = head ? loop_at(fx, head) : -1;
	assert_int_equal(tl_model_graph_from_before(&fx->idx, l, tl_fixture_node_after(fx, anchor, text), &pi), 1);
	return pi;
}

static void test_prov_before(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"import torch.nn.functional as F\n"
		"net = nn.Sequential(nn.Linear(4, 4), nn.ReLU())\n"
		"style = torch.rand(2, 4)\n"
		"targets = [net(style)]\n"
		"frozen = [net(style).detach()]\n"
		"img = torch.rand(2, 4, requires_grad=True)\n"
		"for step in range(10):\n"
		"    a = F.mse_loss(net(img), targets[0])\n"
		"    a.backward(retain_graph=True)\n"
		"    b = sum(F.mse_loss(net(img), t) for t in frozen)\n"
		"    b.backward(retain_graph=True)\n");
	/* targets made before the loop with a graph: every backward runs through it */
	TlProvInfo pi = from(fx, "for step", "a.backward", "a");
	assert_true(pi.before);
	assert_false(pi.carried);
	/* detached targets: the iteration's graph is its own */
	pi = from(fx, "for step", "b.backward", "b");
	assert_false(pi.before);
	tl_fixture_free(fx);
	/* the terms of one loss made before the loop, read under a key each
	 * (a key of an opaque loss is a fresh value: it keeps the loss's bits) */
	fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"net = nn.Linear(4, 4)\n"
		"crit = nn.MSELoss()\n"
		"x = torch.rand(2, 4)\n"
		"terms = crit(net(x), x)\n"
		"for k in [\"a\", \"b\"]:\n"
		"    terms[k].sum().backward(retain_graph=True)\n");
	pi = from(fx, "for k", "terms[k].sum().backward", "terms[k].sum()");
	assert_true(pi.before);
	tl_fixture_free(fx);
}

static void test_prov_carried(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"def run(batches):\n"
		"    cell = nn.GRUCell(4, 4)\n"
		"    h = torch.zeros(2, 4)\n"
		"    g = torch.zeros(2, 4)\n"
		"    for x in batches:\n"
		"        h = cell(x, h)\n"
		"        g = cell(x, g.detach())\n"
		"        u = h.sum()\n"
		"        w = g.sum()\n"
		"        u.backward(retain_graph=True)\n");
	/* a recurrent state handed on with its graph */
	TlProvInfo pi = from(fx, "for x", "u.backward", "u");
	assert_true(pi.carried);
	assert_false(pi.before);
	/* detached where it is read: nothing of the previous iteration */
	pi = from(fx, "for x", "w = g", "g");
	assert_false(pi.carried);
	/* the batches a step loop iterates are data, no parameter's history */
	assert_int_equal(pi.params, 0);
	tl_fixture_free(fx);
}

static void test_prov_params(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn.functional as F\n"
		"def crit(out, target):\n"
		"    return F.mse_loss(out, target)\n"
		"def pick(pair):\n"
		"    return pair[1]\n"
		"def step(model, x, targets, flag):\n"
		"    if flag:\n"
		"        pass\n"
		"    loss = crit(model(x), targets[0])\n"
		"    t = pick((x, targets))\n"
		"    return loss, t\n"
		"def backward_stored(activations, i):\n"
		"    out = activations[i]\n"
		"    out.backward(retain_graph=True)\n");
	/* a loss of parameters: computed from x and targets (not from the
	 * module called, nor from a flag only tested) */
	TlProvInfo pi = from(fx, NULL, "loss = crit", "loss");
	assert_int_equal(pi.params, (1u << 1) | (1u << 2));
	/* through a tuple a helper is handed and returns a position of */
	pi = from(fx, NULL, "t = pick", "t");
	assert_true(pi.params & (1u << 2));
	/* an element of a store a helper is handed: kept by an earlier call */
	pi = from(fx, NULL, "out.backward", "out");
	assert_true(pi.kept);
	assert_int_equal(pi.params, 1u << 0);
	tl_fixture_free(fx);
}

static void test_prov_pieces(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def by_chunks(net, grads, batches):\n"
		"    rows = net(torch.randn(4, 16))\n"
		"    for part, g in zip(rows.chunk(2), grads):\n"
		"        part.backward(g, retain_graph=True)\n"
		"    for x, g in batches:\n"
		"        y = net(x)\n"
		"        y.backward(g, retain_graph=True)\n");
	/* pieces of one output made before the loop */
	TlProvInfo pi = from(fx, "for part", "part.backward", "part");
	assert_true(pi.before);
	/* batches: made in each iteration */
	pi = from(fx, "for x", "y.backward", "y");
	assert_false(pi.before);
	tl_fixture_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prov_before),
		cmocka_unit_test(test_prov_carried),
		cmocka_unit_test(test_prov_params),
		cmocka_unit_test(test_prov_pieces),
	};
	return cmocka_run_group_tests_name("model provenance", tests, NULL, NULL);
}
