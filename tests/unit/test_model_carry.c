/* Unit tests for the model's loop-carried paths (analyzer/model/carry.c,
 * tl_model_carried): a path read in a loop's iteration before any store and
 * stored into by the body is carried, with the value the iteration hands
 * on; a store without history anywhere in the iteration (a detach, in place
 * or through a function of the project, a value made afresh) is told; a
 * path the body stores before it reads is not carried. And the two fixes
 * of the model the carried questions needed: a module's `.to(device)` is
 * the module; a container a function returns by iterating a parameter
 * follows the elements of what it is given; a child of a library's module
 * container is a module; a summary computed before the globals it reads
 * is replaced, not joined into; what a function calls through a parameter
 * given a callable not of the project is not known. */
#include "helpers.h"

#include "model/model.h"
#include "model/value.h"

/* The loop statement of the fixture whose text starts with `head`. */
static TSNode loop_at(TlFixture *fx, const char *head)
{
	for (uint32_t i = 0; i < fx->idx.loops.size; i++) {
		TSNode n = fx->idx.loops.items[i].node;
		uint32_t len = 0;
		const char *t = tl_index_text(&fx->idx, n, &len);
		if (t && len >= strlen(head) && memcmp(t, head, strlen(head)) == 0)
			return n;
	}
	fail_msg("no loop `%s`", head);
	return (TSNode){ 0 };
}

/* The model's value of the node `text` after `anchor`. */
static TlVal value_after(TlFixture *fx, const char *anchor, const char *text)
{
	TlVal v;
	if (!tl_model_value(&fx->idx, tl_fixture_node_after(fx, anchor, text), &v))
		fail_msg("no value for `%s` after `%s`", text, anchor);
	return v;
}

/* tl_model_carried for the loop starting with `head` and the path of the
 * node `text` after `anchor`: 1 and *v, *detached set when the loop
 * carries it and stores into it, 2 when it carries it without storing. */
static int carried(TlFixture *fx, const char *head, const char *anchor, const char *text, TlVal *v, bool *detached)
{
	TlCarryInfo ci;
	int k = tl_model_carried(&fx->idx, loop_at(fx, head), tl_fixture_node_after(fx, anchor, text), &ci);
	*v = ci.val;
	*detached = ci.detached;
	return k == 1 && !ci.stored ? 2 : k;
}

/* The graph of `v`, or of a container's elements. */
static unsigned history(TlFixture *fx, const TlVal *v)
{
	if (v->kind != TL_VK_CONTAINER)
		return v->graph;
	TlVal e = tl_val_element(tl_model_pool(tl_model_of(&fx->idx)), v);
	return e.graph;
}

static void test_carried_state(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"def run(batches, opt):\n"
		"    cell = nn.GRUCell(4, 4)\n"
		"    h = torch.zeros(2, 4)\n"
		"    g = torch.zeros(2, 4)\n"
		"    total = 0\n"
		"    for x in batches:\n"
		"        h = cell(x, h)\n"
		"        g = torch.zeros(2, 4)\n"
		"        g = cell(x, g)\n"
		"        loss = h.sum() + g.sum()\n"
		"        total = total + loss\n"
		"        loss.backward()\n"
		"    return total\n");
	TlVal v;
	bool det;
	/* the recurrent state: read before the body stores into it */
	assert_int_equal(carried(fx, "for x", "h = cell", "h", &v, &det), 1);
	assert_int_equal(history(fx, &v), TL_VG_MUST);
	assert_false(det);
	/* a running total kept with the graph */
	assert_int_equal(carried(fx, "for x", "total = total", "total", &v, &det), 1);
	assert_int_equal(v.graph, TL_VG_MUST);
	/* made afresh at the top of each iteration: not carried */
	assert_int_equal(carried(fx, "for x", "g = cell", "g", &v, &det), 0);
	/* read in the body as the previous iteration left it, never stored
	 * into there */
	assert_int_equal(carried(fx, "for x", "cell(x, h)", "cell", &v, &det), 2);
	tl_fixture_free(fx);
	/* a list filled and emptied at the end of each iteration is reset; a
	 * running total is not */
	fx = tl_fixture_new(
		"def run(model, batches):\n"
		"    buf = []\n"
		"    total = 0\n"
		"    for x in batches:\n"
		"        buf.append(model(x))\n"
		"        total += model(x)\n"
		"        buf = []\n");
	TlCarryInfo ci;
	assert_int_equal(tl_model_carried(&fx->idx, loop_at(fx, "for x"), tl_fixture_node_after(fx, "buf.append", "buf"), &ci), 1);
	assert_true(ci.reset);
	assert_int_equal(tl_model_carried(&fx->idx, loop_at(fx, "for x"), tl_fixture_node_after(fx, "total +=", "total"), &ci), 1);
	assert_false(ci.reset);
	tl_fixture_free(fx);
}

static void test_carried_detached(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"def detach_all(h):\n"
		"    for v in h:\n"
		"        v.detach_()\n"
		"class Cut(nn.Module):\n"
		"    def __init__(self):\n"
		"        super().__init__()\n"
		"        self.rnn = nn.GRU(4, 4)\n"
		"    def forward(self, x, state):\n"
		"        state = state.detach()\n"
		"        return self.rnn(x, state)\n"
		"def a(batches, cell, h):\n"
		"    for x in batches:\n"
		"        h = cell(x, h)\n"
		"        h.sum().backward()\n"
		"        h = h.detach()\n"
		"def b(batches, lstm, hc):\n"
		"    for x in batches:\n"
		"        detach_all(hc)\n"
		"        out, hc = lstm(x, hc)\n"
		"        out.sum().backward()\n"
		"def c(batches, h, i):\n"
		"    model = Cut().to('cuda')\n"
		"    for x in batches:\n"
		"        if i % 2 == 0:\n"
		"            h = None\n"
		"        out, h = model(x, h)\n"
		"        out.sum().backward()\n");
	TlVal v;
	bool det;
	/* detached at the end of the iteration */
	assert_int_equal(carried(fx, "for x in batches:\n        h = cell", "h = cell", "h", &v, &det), 1);
	assert_true(det);
	/* in place, element by element, in a helper */
	assert_int_equal(carried(fx, "for x in batches:\n        detach_all", "out, hc", "hc", &v, &det), 1);
	assert_true(det);
	/* a forward that detaches the state it is given; a reset on some path */
	assert_int_equal(carried(fx, "for x in batches:\n        if", "out, h = model", "h", &v, &det), 1);
	assert_true(det);
	tl_fixture_free(fx);
	/* without the reset, the forward's detaching of its input is what tells */
	fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"class Cut(nn.Module):\n"
		"    def __init__(self):\n"
		"        super().__init__()\n"
		"        self.rnn = nn.GRU(4, 4)\n"
		"    def forward(self, x, state):\n"
		"        state = state.detach()\n"
		"        return self.rnn(x, state)\n"
		"def c(batches, h):\n"
		"    model = Cut().to('cuda')\n"
		"    for x in batches:\n"
		"        out, h = model(x, h)\n"
		"        out.sum().backward()\n");
	assert_int_equal(carried(fx, "for x", "out, h", "h", &v, &det), 1);
	assert_true(det);
	/* a module moved to a device is the module (its forward's summary) */
	TlVal m;
	assert_true(tl_model_value(&fx->idx, tl_fixture_node(fx, "Cut().to('cuda')", 0), &m));
	assert_int_equal(m.kind, TL_VK_MODULE);
	tl_fixture_free(fx);
}

static void test_carried_nested(void **state)
{
	(void)state;
	/* the state lives across batches while an inner loop unrolls time
	 * steps: carried by the loop that backpropagates, with history on some
	 * paths (the inner loop may run no step) */
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"def move(h, dev):\n"
		"    return tuple(v.to(dev) for v in h)\n"
		"def run(batches, dev):\n"
		"    cell = nn.LSTMCell(4, 4)\n"
		"    h = torch.zeros(2, 4)\n"
		"    c = torch.zeros(2, 4)\n"
		"    for seq in batches:\n"
		"        for t in range(9):\n"
		"            h, c = cell(seq[t], (h, c))\n"
		"        h.sum().backward()\n"
		"    lstm = nn.LSTM(4, 4)\n"
		"    hc = (torch.zeros(1, 4), torch.zeros(1, 4))\n"
		"    for x in batches:\n"
		"        hc = move(hc, dev)\n"
		"        out, hc = lstm(x, hc)\n"
		"        out.sum().backward()\n");
	TlVal v;
	bool det;
	assert_int_equal(carried(fx, "for seq", "h, c = cell", "h", &v, &det), 1);
	assert_int_equal(history(fx, &v), TL_VG_MAY);
	assert_false(det);
	/* also by the inner loop */
	assert_int_equal(carried(fx, "for t", "h, c = cell", "c", &v, &det), 1);
	/* moved to a device through a helper: the moved tuple's elements
	 * follow the state's */
	assert_int_equal(carried(fx, "for x", "hc = move", "hc", &v, &det), 1);
	assert_false(det);
	TlVal moved;
	assert_true(tl_model_value(&fx->idx, tl_fixture_node(fx, "move(hc, dev)", 0), &moved));
	unsigned g = history(fx, &moved);
	assert_true(g == TL_VG_MUST || g == TL_VG_MAY);
	tl_fixture_free(fx);
}

static void test_model_fixes(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"def feats(x):\n"
		"    out = []\n"
		"    for i in range(2):\n"
		"        x = net[i](x)\n"
		"        out.append(x)\n"
		"    return out\n"
		"def apply(x, fn):\n"
		"    return fn(x)\n"
		"def cut(h):\n"
		"    return apply(h, torch.Tensor.detach)\n"
		"net = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))\n"
		"def main(x, y):\n"
		"    fs = feats(x)\n"
		"    c = cut(net(y))\n"
		"    return fs, c\n");
	/* a child of a Sequential is a module: its call a forward */
	assert_int_equal(value_after(fx, "x = ", "net[i](x)").graph, TL_VG_MUST);
	/* feats() ran first before the module's code bound `net`: its summary
	 * is the one computed after, not joined with the first */
	TlVal fs = value_after(fx, "fs = ", "feats(x)");
	assert_int_equal(history(fx, &fs), TL_VG_MUST);
	/* torch.Tensor.detach applied through a parameter: not known */
	assert_int_equal(value_after(fx, "c = ", "cut(net(y))").graph, TL_VG_UNKNOWN);
	tl_fixture_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_carried_state),
		cmocka_unit_test(test_carried_detached),
		cmocka_unit_test(test_carried_nested),
		cmocka_unit_test(test_model_fixes),
	};
	return cmocka_run_group_tests_name("model carry", tests, NULL, NULL);
}
