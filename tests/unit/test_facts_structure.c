/* Unit tests for the facts behind TL214-TL218: arguments by parameter name
 * (torch API signatures), code a module runs, code that runs in one mode
 * only, submodules kept in plain containers, DistributedSampler epochs,
 * step loops run again by an epoch loop, and optimizers built before FSDP. */
#include "helpers.h"

#include "base/alloc.h"
#include "facts/facts.h"
#include "rules/checks/checks.h"

/* ---- arguments by parameter name ---------------------------------------------------- */

static void test_arguments(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"import torch.nn.functional as F\n"
		"from torch.utils.data import DistributedSampler\n"
		"a = F.softmax(x)\n"
		"b = F.softmax(x, -1)\n"
		"c = F.softmax(x, dim=1)\n"
		"d = F.softmax(x, *rest)\n"
		"e = F.softmax(x, **kw)\n"
		"f = nn.Softmax(1)\n"
		"g = F.dropout(x, 0.0)\n"
		"zero = 0\n"
		"h = F.dropout(x, p=zero)\n"
		"i = F.dropout(x, 0.1, True)\n"
		"j = DistributedSampler(ds, 2, 0, False)\n"
		"k = other(x, 1)\n");
	const TlIndex *idx = &fx->idx;
	assert_false(tl_facts_passes_argument(idx, tl_fixture_node(fx, "F.softmax(x)", 0), "dim"));
	assert_true(tl_facts_passes_argument(idx, tl_fixture_node(fx, "F.softmax(x, -1)", 0), "dim"));
	assert_true(tl_facts_passes_argument(idx, tl_fixture_node(fx, "F.softmax(x, dim=1)", 0), "dim"));
	/* *args and **kwargs may carry it, but hold no value to read. */
	assert_true(tl_facts_passes_argument(idx, tl_fixture_node(fx, "F.softmax(x, *rest)", 0), "dim"));
	assert_true(tl_facts_passes_argument(idx, tl_fixture_node(fx, "F.softmax(x, **kw)", 0), "dim"));
	assert_true(ts_node_is_null(tl_facts_argument(idx, tl_fixture_node(fx, "F.softmax(x, *rest)", 0), "dim")));
	/* nn.Softmax takes dim first. */
	assert_true(tl_facts_passes_argument(idx, tl_fixture_node(fx, "nn.Softmax(1)", 0), "dim"));
	/* p: a literal zero, and a name bound once to zero, turn dropout off. */
	assert_true(tl_check_argument_off(idx, tl_fixture_node(fx, "F.dropout(x, 0.0)", 0), "p"));
	assert_true(tl_check_argument_off(idx, tl_fixture_node(fx, "F.dropout(x, p=zero)", 0), "p"));
	assert_false(tl_check_argument_off(idx, tl_fixture_node(fx, "F.dropout(x, 0.1, True)", 0), "p"));
	assert_true(tl_facts_passes_argument(idx, tl_fixture_node(fx, "F.dropout(x, 0.1, True)", 0), "training"));
	assert_false(tl_facts_passes_argument(idx, tl_fixture_node(fx, "F.dropout(x, 0.0)", 0), "training"));
	/* DistributedSampler(dataset, num_replicas, rank, shuffle) */
	assert_true(tl_check_argument_off(idx, tl_fixture_node(fx, "DistributedSampler(ds, 2, 0, False)", 0),
					  "shuffle"));
	/* An unknown callee has no signature: only keywords count. */
	assert_false(tl_facts_passes_argument(idx, tl_fixture_node(fx, "other(x, 1)", 0), "dim"));
	tl_fixture_free(fx);
}

/* ---- code a module runs, and code that runs in one mode ----------------------------- */

static void test_module_code(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"import torch.nn.functional as F\n"
		"def helper(x):\n"
		"    return F.dropout(x, 0.1)\n"
		"def outside(x):\n"
		"    return F.dropout(x, 0.2)\n"
		"class Net(nn.Module):\n"
		"    def forward(self, x):\n"
		"        def inner(h):\n"
		"            return F.dropout(h, 0.3)\n"
		"        if self.training:\n"
		"            x = F.dropout(x, 0.4)\n"
		"        y = F.dropout(x, 0.5)  # always on\n"
		"        return helper(inner(x)) + F.dropout(y, 0.6)\n"
		"    @staticmethod\n"
		"    def noisy(x):\n"
		"        return F.dropout(x, 0.7)\n"
		"    def training_step(self, x):\n"
		"        return F.dropout(x, 0.8)\n"
		"class Plain:\n"
		"    def __call__(self, x):\n"
		"        return F.dropout(x, 0.9)\n");
	const TlIndex *idx = &fx->idx;
	TSNode in_helper = tl_fixture_node(fx, "F.dropout(x, 0.1)", 0);
	TSNode in_outside = tl_fixture_node(fx, "F.dropout(x, 0.2)", 0);
	TSNode nested = tl_fixture_node(fx, "F.dropout(h, 0.3)", 0);
	TSNode guarded = tl_fixture_node(fx, "F.dropout(x, 0.4)", 0);
	TSNode commented = tl_fixture_node(fx, "F.dropout(x, 0.5)", 0);
	TSNode plain_forward = tl_fixture_node(fx, "F.dropout(y, 0.6)", 0);
	TSNode static_method = tl_fixture_node(fx, "F.dropout(x, 0.7)", 0);
	TSNode train_step = tl_fixture_node(fx, "F.dropout(x, 0.8)", 0);
	TSNode plain_class = tl_fixture_node(fx, "F.dropout(x, 0.9)", 0);
	/* method: `self` in scope (nested functions included). */
	assert_true(tl_check_in_module_code(idx, plain_forward, false));
	assert_true(tl_check_in_module_code(idx, nested, false));
	assert_false(tl_check_in_module_code(idx, static_method, false));
	assert_false(tl_check_in_module_code(idx, in_helper, false));
	/* reached: static methods and the helpers module code calls. */
	assert_true(tl_check_in_module_code(idx, static_method, true));
	assert_true(tl_check_in_module_code(idx, in_helper, true));
	assert_false(tl_check_in_module_code(idx, in_outside, true));
	assert_false(tl_check_in_module_code(idx, plain_class, true));
	/* One mode only, or a stated decision. */
	assert_true(tl_check_mode_guarded(idx, guarded));
	assert_true(tl_check_mode_guarded(idx, commented));
	assert_true(tl_check_mode_guarded(idx, train_step));
	assert_false(tl_check_mode_guarded(idx, plain_forward));
	assert_false(tl_check_mode_guarded(idx, nested));
	tl_fixture_free(fx);
}

/* ---- submodules in plain containers --------------------------------------------------- */

static void test_unregistered_submodules(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"class Block(nn.Module):\n"
		"    def __init__(self):\n"
		"        super().__init__()\n"
		"        self.proj = nn.Linear(2, 2)\n"
		"class Empty(nn.Module):\n"
		"    pass\n"
		"class Net(nn.Module):\n"
		"    def __init__(self, n, other):\n"
		"        super().__init__()\n"
		"        self.a = [nn.Linear(2, 2) for _ in range(n)]\n"
		"        self.b = {'x': Block()}\n"
		"        self.c = []\n"
		"        for _ in range(n):\n"
		"            self.c.append(nn.Conv2d(1, 1, 1))\n"
		"        self.d = [nn.ReLU(), nn.Tanh()]\n"
		"        self.e = [self.a, other]\n"
		"        self.f = [nn.Linear(2, 2)]\n"
		"        self.f = nn.ModuleList(self.f)\n"
		"        layers = [nn.Linear(2, 2)]\n"
		"        self.g = layers\n"
		"        self.net = nn.Sequential(*layers)\n"
		"        self.h = [nn.Parameter(torch.zeros(2))]\n"
		"        self.i = nn.ModuleList([nn.Linear(2, 2)])\n"
		"        self.j = [1, 2, 3]\n"
		"        self.empties = {'x': Empty()}\n"
		"class ByHand(nn.Module):\n"
		"    def __init__(self):\n"
		"        super().__init__()\n"
		"        self.k = [nn.Linear(2, 2)]\n"
		"        self.add_module('k0', self.k[0])\n"
		"class NotAModule:\n"
		"    def __init__(self):\n"
		"        self.m = [nn.Linear(2, 2)]\n");
	const TlIndex *idx = &fx->idx;
#define ASSIGN(text) tl_index_parent(idx, tl_fixture_node(fx, text, 0))
	assert_true(tl_check_unregistered_submodules(idx, ASSIGN("self.a")));
	assert_true(tl_check_unregistered_submodules(idx, ASSIGN("self.b")));
	assert_true(tl_check_unregistered_submodules(idx, ASSIGN("self.c")));
	assert_false(tl_check_unregistered_submodules(idx, ASSIGN("self.d")));
	assert_false(tl_check_unregistered_submodules(idx, ASSIGN("self.e")));
	assert_false(tl_check_unregistered_submodules(idx, ASSIGN("self.f")));
	assert_false(tl_check_unregistered_submodules(idx, ASSIGN("self.g")));
	assert_true(tl_check_unregistered_submodules(idx, ASSIGN("self.h")));
	assert_false(tl_check_unregistered_submodules(idx, ASSIGN("self.i")));
	assert_false(tl_check_unregistered_submodules(idx, ASSIGN("self.j")));
	/* a class of the project that holds no state: nothing to register */
	assert_false(tl_check_unregistered_submodules(idx, ASSIGN("self.empties")));
	assert_false(tl_check_unregistered_submodules(idx, ASSIGN("self.k")));
	assert_false(tl_check_unregistered_submodules(idx, ASSIGN("self.m")));
#undef ASSIGN
	tl_fixture_free(fx);
}

/* ---- DistributedSampler epochs and epoch loops ---------------------------------------- */

static void test_sampler_epoch(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"from torch.utils.data import DataLoader\n"
		"from torch.utils.data.distributed import DistributedSampler\n"
		"w = torch.zeros(3, requires_grad=True)\n"
		"opt = torch.optim.SGD([w], lr=0.1)\n"
		"def step(x):\n"
		"    x.backward()\n"
		"    opt.step()\n"
		"def grads_only(x):\n"
		"    x.backward()\n"
		"def f(ds, n):\n"
		"    lf = DataLoader(ds, sampler=DistributedSampler(ds))\n"
		"    for e in range(n):\n"
		"        for x in lf:\n"
		"            grads_only(x)\n"
		"def a(ds, n):\n"
		"    la = DataLoader(ds, sampler=DistributedSampler(ds))\n"
		"    for e in range(n):\n"
		"        for x in la:\n"
		"            step(x)\n"
		"def b(ds, n):\n"
		"    sb = DistributedSampler(ds)\n"
		"    lb = DataLoader(ds, sampler=sb)\n"
		"    for e in range(n):\n"
		"        sb.set_epoch(e)\n"
		"        for x in lb:\n"
		"            step(x)\n"
		"def c(ds, n):\n"
		"    lc = DataLoader(ds, sampler=DistributedSampler(ds, shuffle=False))\n"
		"    for e in range(n):\n"
		"        for x in lc:\n"
		"            step(x)\n"
		"def d(ds):\n"
		"    ld = DataLoader(ds, sampler=DistributedSampler(ds))\n"
		"    for x in ld:\n"
		"        step(x)\n"
		"def one_epoch(le):\n"
		"    for x in le:\n"
		"        step(x)\n"
		"def e(ds, n):\n"
		"    le = DataLoader(ds, sampler=DistributedSampler(ds))\n"
		"    for k in range(n):\n"
		"        le.sampler.set_epoch(k)\n"
		"        one_epoch(le)\n");
	const TlIndex *idx = &fx->idx;
	assert_true(tl_check_sampler_epoch_unset(idx, tl_fixture_node_after(fx, "for x in la", "la")));
	assert_false(tl_check_sampler_epoch_unset(idx, tl_fixture_node_after(fx, "for x in lb", "lb")));
	assert_false(tl_check_sampler_epoch_unset(idx, tl_fixture_node_after(fx, "for x in lc", "lc")));
	/* Set through loader.sampler in the function whose loop calls one_epoch. */
	assert_false(tl_check_sampler_epoch_unset(idx, tl_fixture_node_after(fx, "for x in le", "le")));
	/* Epoch loops: around the step loop, or around a call of its function. */
	TSNode loop_a = tl_index_parent(idx, tl_fixture_node_after(fx, "for x in la", "la"));
	TSNode loop_d = tl_index_parent(idx, tl_fixture_node_after(fx, "for x in ld", "ld"));
	TSNode loop_e = tl_index_parent(idx, tl_fixture_node_after(fx, "for x in le", "le"));
	assert_true(tl_check_repeated_step_loop(idx, loop_a));
	assert_false(tl_check_repeated_step_loop(idx, loop_d));
	assert_true(tl_check_repeated_step_loop(idx, loop_e));
	/* A loop that backpropagates and steps nothing: no weights move. */
	TSNode loop_f = tl_index_parent(idx, tl_fixture_node_after(fx, "for x in lf", "lf"));
	assert_false(tl_check_repeated_step_loop(idx, loop_f));
	tl_fixture_free(fx);
}

/* ---- optimizers built before FSDP -------------------------------------------------------- */

static void test_optimizer_before_shard(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\n"
		"from torch.nn.parallel import DistributedDataParallel as DDP\n"
		"def a(model):\n"
		"    o1 = torch.optim.AdamW(model.parameters())\n"
		"    model = FSDP(model)\n"
		"def b(model):\n"
		"    model = FSDP(model)\n"
		"    o2 = torch.optim.AdamW(model.parameters())\n"
		"def c(model):\n"
		"    o3 = torch.optim.AdamW(model.parameters())\n"
		"    model = DDP(model)\n"
		"def d(model):\n"
		"    o4 = torch.optim.AdamW(model.parameters())\n"
		"    model = FSDP(model)\n"
		"    o5 = torch.optim.AdamW(model.parameters())\n"
		"def e(model, head):\n"
		"    groups = [{'params': model.parameters()}]\n"
		"    o6 = torch.optim.SGD(groups, lr=0.1)\n"
		"    o7 = torch.optim.SGD(head.parameters(), lr=0.1)\n"
		"    model = FSDP(model.to(0))\n");
	const TlIndex *idx = &fx->idx;
	/* The construction call: the value of each assignment. */
	static const struct { const char *name; bool want; } cases[] = {
		{ "o1", true }, { "o2", false }, { "o3", false }, { "o4", false },
		{ "o6", true }, { "o7", false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		TSNode target = tl_fixture_node(fx, cases[i].name, 0);
		TSNode assign = tl_index_parent(idx, target);
		TSNode value = ts_node_child_by_field_name(assign, "right", 5);
		assert_int_equal(tl_check_optimizer_before_shard(idx, value), cases[i].want);
	}
	tl_fixture_free(fx);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arguments),
		cmocka_unit_test(test_module_code),
		cmocka_unit_test(test_unregistered_submodules),
		cmocka_unit_test(test_sampler_epoch),
		cmocka_unit_test(test_optimizer_before_shard),
	};
	return cmocka_run_group_tests_name("facts-structure", tests, NULL, NULL);
}
