/* Unit tests for loop invariance (analyzer/model/vary.c, read by
 * tl_facts_loop_invariant): the stores of a loop's iteration (bindings,
 * the loop's target, stores below a path, bindings above it, changes in
 * place, a module moved onto itself), calls whose result varies by
 * itself, comprehension variables; in a helper called per step, what its
 * call sites pass (parameters, the receiver's fields, the caller's
 * names), and helpers whose calls are not all known; values that die in
 * the iteration (tl_check_dies_in_iteration), through helpers' returns. */
#include "helpers.h"

#include "facts/facts.h"
#include "rules/checks/checks.h"

/* The receiver of the call whose text is `call_text` (its nth). */
static TSNode recv(TlFixture *fx, const char *call_text, int nth)
{
	TSNode call = tl_fixture_node(fx, call_text, nth);
	TSNode fn = ts_node_child_by_field_name(call, "function", 8);
	assert_false(ts_node_is_null(fn));
	return ts_node_child_by_field_name(fn, "object", 6);
}

/* The argument list of the call whose text is `call_text`. */
static TSNode args(TlFixture *fx, const char *call_text)
{
	TSNode call = tl_fixture_node(fx, call_text, 0);
	return ts_node_child_by_field_name(call, "arguments", 9);
}

static void test_vary_loop(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import random\n"
		"import torch\n"
		"import torch.nn as nn\n"
		"device = torch.device('cuda')\n"
		"def train(model, loader, opt, args, n):\n"
		"    scale = torch.ones(4)\n"
		"    acc = torch.zeros(4)\n"
		"    model = model.to(device)\n"
		"    buf = torch.zeros(4)\n"
		"    crit = nn.MSELoss()\n"
		"    for x, y in loader:\n"
		"        w = scale.to(device)\n"
		"        for p in model.parameters():\n"
		"            p.grad.mul_(scale.to(p.device))\n"
		"        acc.add_(x.sum())\n"
		"        h = acc.to(device)\n"
		"        buf.data = x\n"
		"        b = buf.to(device)\n"
		"        args = parse()\n"
		"        a = args.w.to(device)\n"
		"        model = model.to(device)\n"
		"        crit = crit.cuda()\n"
		"        m = model.to(device)\n"
		"        c = crit.to(device)\n"
		"        r = torch.zeros(random.randint(1, n))\n"
		"        k = torch.zeros(n, len(loader), dtype=torch.float32)\n"
		"        s = [torch.zeros(j) for j in range(n)]\n"
		"        opt.step()\n");
	const TlIndex *idx = &fx->idx;
	/* bound before the loop, never stored in it */
	assert_true(tl_facts_loop_invariant(idx, recv(fx, "scale.to(device)", 0)));
	assert_true(tl_facts_loop_invariant(idx, args(fx, "torch.zeros(n, len(loader), dtype=torch.float32)")));
	/* the inner loop's target varies there */
	TSNode dev = ts_node_named_child(args(fx, "scale.to(p.device)"), 0);
	assert_false(tl_facts_loop_invariant(idx, dev));
	/* changed in place, stored below, bound above */
	assert_false(tl_facts_loop_invariant(idx, recv(fx, "acc.to(device)", 0)));
	assert_false(tl_facts_loop_invariant(idx, recv(fx, "buf.to(device)", 0)));
	assert_false(tl_facts_loop_invariant(idx, recv(fx, "args.w.to(device)", 0)));
	/* a module moved onto itself is the same object */
	assert_true(tl_facts_loop_invariant(idx, recv(fx, "model.to(device)", 2)));
	assert_true(tl_facts_loop_invariant(idx, recv(fx, "crit.to(device)", 0)));
	/* random numbers, a comprehension's variable */
	assert_false(tl_facts_loop_invariant(idx, args(fx, "torch.zeros(random.randint(1, n))")));
	assert_false(tl_facts_loop_invariant(idx, args(fx, "torch.zeros(j)")));
	tl_fixture_free(fx);
}

static void test_vary_helpers(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"device = torch.device('cuda')\n"
		"table = torch.ones(4)\n"
		"def move(t, m):\n"
		"    u = t.to(device)\n"
		"    v = m.w.to(device)\n"
		"    g = table.to(device)\n"
		"    return u, v, g\n"
		"def kept(t):\n"
		"    return t.to(device)\n"
		"class Trainer:\n"
		"    def __init__(self, w):\n"
		"        self.w = w\n"
		"        self.s = w\n"
		"    def step(self, x):\n"
		"        y = self.w.to(device)\n"
		"        z = self.s.to(device)\n"
		"        return x * y * z\n"
		"    def grow(self):\n"
		"        self.s = self.s * 2\n"
		"    def fit(self, loader, net, opt):\n"
		"        for x in loader:\n"
		"            self.step(x)\n"
		"            opt.step()\n"
		"def train(loader, net, opt, xs):\n"
		"    fixed = torch.ones(4)\n"
		"    for x in loader:\n"
		"        move(fixed, net)\n"
		"        [move(fixed, v) for v in xs]\n"
		"        opt.step()\n"
		"def loop2(loader, net, opt):\n"
		"    for x in loader:\n"
		"        move(x, net)\n"
		"        opt.step()\n"
		"callbacks = [kept]\n");
	const TlIndex *idx = &fx->idx;
	/* `t` is `fixed` at one site and `x`, the loop's target, at another */
	assert_false(tl_facts_loop_invariant(idx, recv(fx, "t.to(device)", 0)));
	/* `m.w`: `net.w` at two sites, the comprehension's `v.w` at a third */
	assert_false(tl_facts_loop_invariant(idx, recv(fx, "m.w.to(device)", 0)));
	/* a global no caller's loop stores into */
	assert_true(tl_facts_loop_invariant(idx, recv(fx, "table.to(device)", 0)));
	/* a helper kept in a list: its callers are not all known */
	assert_false(tl_facts_loop_invariant(idx, recv(fx, "t.to(device)", 1)));
	/* self.w: the receiver's, bound in __init__ only; self.s is re-bound
	 * by another method */
	assert_true(tl_facts_loop_invariant(idx, recv(fx, "self.w.to(device)", 0)));
	assert_false(tl_facts_loop_invariant(idx, recv(fx, "self.s.to(device)", 0)));
	tl_fixture_free(fx);
}

static void test_vary_helper_sites(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"device = torch.device('cuda')\n"
		"def move(m):\n"
		"    return m.w.to(device)\n"
		"def train(loader, net, opt):\n"
		"    for x in loader:\n"
		"        move(net)\n"
		"        opt.step()\n"
		"def again(loader, net, opt):\n"
		"    for x in loader:\n"
		"        net.w = x\n"
		"        move(net)\n"
		"        opt.step()\n");
	const TlIndex *idx = &fx->idx;
	/* the second caller's loop stores into net.w: m.w varies */
	assert_false(tl_facts_loop_invariant(idx, recv(fx, "m.w.to(device)", 0)));
	tl_fixture_free(fx);
	fx = tl_fixture_new(
		"import torch\n"
		"device = torch.device('cuda')\n"
		"def move(m):\n"
		"    return m.w.to(device)\n"
		"def train(loader, net, opt):\n"
		"    for x in loader:\n"
		"        net.b = x\n"
		"        move(net)\n"
		"        opt.step()\n");
	idx = &fx->idx;
	/* a store beside m.w (net.b) is no store into it */
	assert_true(tl_facts_loop_invariant(idx, recv(fx, "m.w.to(device)", 0)));
	tl_fixture_free(fx);
}

static void test_dies(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def inner(n):\n"
		"    return torch.zeros(n)\n"
		"def outer(n):\n"
		"    return inner(n) * 2\n"
		"def kept_inner(n):\n"
		"    return torch.ones(n)\n"
		"def kept_outer(n):\n"
		"    return kept_inner(n)\n"
		"def loop_a(n):\n"
		"    return loop_b(n)\n"
		"def loop_b(n):\n"
		"    t = torch.empty(n)\n"
		"    if n:\n"
		"        return loop_a(n - 1)\n"
		"    return t\n"
		"def train(loader, opt, n, hist):\n"
		"    for x in loader:\n"
		"        y = outer(n)\n"
		"        z = kept_outer(n)\n"
		"        hist.append(z)\n"
		"        w = loop_a(n)\n"
		"        s = torch.full((n,), 1.0)\n"
		"        last = s\n"
		"        self_like = torch.eye(n)\n"
		"        store[0] = self_like\n"
		"        opt.step()\n");
	const TlIndex *idx = &fx->idx;
	/* returned through two helpers, the outer call's value dropped */
	assert_true(tl_check_dies_in_iteration(idx, tl_fixture_node(fx, "torch.zeros(n)", 0)));
	/* returned through two helpers, then appended by the loop */
	assert_false(tl_check_dies_in_iteration(idx, tl_fixture_node(fx, "torch.ones(n)", 0)));
	/* two helpers that call each other: not known */
	assert_false(tl_check_dies_in_iteration(idx, tl_fixture_node(fx, "loop_a(n - 1)", 0)));
	/* bound to a name the iteration does not keep; to one it stores into
	 * an element */
	assert_true(tl_check_dies_in_iteration(idx, tl_fixture_node(fx, "torch.full((n,), 1.0)", 0)));
	assert_false(tl_check_dies_in_iteration(idx, tl_fixture_node(fx, "torch.eye(n)", 0)));
	tl_fixture_free(fx);
}

/* What the table's roles mutates, moves, stores and varies say (rows of
 * api/api.tsv, no names in the model's code): a change in place of a
 * receiver, a module moved in place by a statement, a value handed to a
 * container's storing method, a call whose result varies by itself. */
static void test_vary_roles(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import time\n"
		"import numpy as np\n"
		"import torch\n"
		"from random import random as coin\n"
		"device = torch.device('cuda')\n"
		"def train(loader, opt, model, queue, n, sizes):\n"
		"    seen = {}\n"
		"    kept = torch.zeros(4)\n"
		"    same = torch.zeros(4)\n"
		"    for x in loader:\n"
		"        a = seen.to(device)\n"
		"        seen.update(x)\n"
		"        b = same.to(device)\n"
		"        model.to_empty(device=device)\n"
		"        c = model.w.to(device)\n"
		"        c2 = model.to(device)\n"
		"        d = torch.zeros(int(time.time()))\n"
		"        e = torch.zeros(np.random.binomial(n, 0.5))\n"
		"        f = torch.zeros(int(coin() * n))\n"
		"        g = torch.zeros(len(time.__name__))\n"
		"        i = torch.zeros(next(sizes))\n"
		"        h = torch.full((n,), 1.0)\n"
		"        queue.put(h)\n"
		"        k = torch.full((n,), 2.0)\n"
		"        queue.get(k)\n"
		"        u = torch.full((n,), 3.0)\n"
		"        seen.update(u)\n"
		"        opt.step()\n");
	const TlIndex *idx = &fx->idx;
	/* `seen.update(x)`: role mutates changes its receiver in place */
	assert_false(tl_facts_loop_invariant(idx, recv(fx, "seen.to(device)", 0)));
	assert_true(tl_facts_loop_invariant(idx, recv(fx, "same.to(device)", 0)));
	/* `model.to_empty(...)` as a statement: role moves changes the
	 * module in place, not the parameters below it */
	assert_false(tl_facts_loop_invariant(idx, recv(fx, "model.to(device)", 0)));
	assert_true(tl_facts_loop_invariant(idx, recv(fx, "model.w.to(device)", 0)));
	/* role varies: `time.*`, `numpy.random.*`, `random.*` (a row of one
	 * part) by the module a name is under */
	assert_false(tl_facts_loop_invariant(idx, args(fx, "torch.zeros(int(time.time()))")));
	assert_false(tl_facts_loop_invariant(idx, args(fx, "torch.zeros(np.random.binomial(n, 0.5))")));
	assert_false(tl_facts_loop_invariant(idx, args(fx, "torch.zeros(int(coin() * n))")));
	/* a builtin called by its bare name */
	assert_false(tl_facts_loop_invariant(idx, args(fx, "torch.zeros(next(sizes))")));
	/* an attribute of the module is no call */
	assert_true(tl_facts_loop_invariant(idx, args(fx, "torch.zeros(len(time.__name__))")));
	/* `queue.put(h)`: role stores keeps what it is handed; `.get` does not */
	assert_false(tl_check_dies_in_iteration(idx, tl_fixture_node(fx, "torch.full((n,), 1.0)", 0)));
	assert_true(tl_check_dies_in_iteration(idx, tl_fixture_node(fx, "torch.full((n,), 2.0)", 0)));
	assert_false(tl_check_dies_in_iteration(idx, tl_fixture_node(fx, "torch.full((n,), 3.0)", 0)));
	tl_fixture_free(fx);
	/* a function of the file named like the builtin is no builtin */
	fx = tl_fixture_new(
		"import torch\n"
		"def next(xs):\n"
		"    return 4\n"
		"def train(loader, opt, sizes):\n"
		"    for x in loader:\n"
		"        i = torch.zeros(next(sizes))\n"
		"        opt.step()\n");
	assert_true(tl_facts_loop_invariant(&fx->idx, args(fx, "torch.zeros(next(sizes))")));
	tl_fixture_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vary_loop),
		cmocka_unit_test(test_vary_helpers),
		cmocka_unit_test(test_vary_helper_sites),
		cmocka_unit_test(test_dies),
		cmocka_unit_test(test_vary_roles),
	};
	return cmocka_run_group_tests_name("model loop invariance", tests, NULL, NULL);
}
