/* Unit tests: classes as units of state and call-site sensitivity (issue 9,
 * steps 1 and 2): methods called through `self` / an instance, overrides
 * reached from a base class, modes switched by local helpers, methods whose
 * names look like module methods, and the branches the constant arguments
 * of a call select. */
#include "helpers.h"
#include "rules/checks/checks.h"

/* The function named `name` (its first definition), or -1. */
static int32_t func_named(const TlIndex *idx, const char *name)
{
	for (uint32_t i = 0; i < idx->funcs.size; i++)
		if (strcmp(idx->funcs.items[i].name, name) == 0)
			return (int32_t)i;
	return -1;
}

/* The n-th function named `name`, or -1. */
static int32_t func_named_nth(const TlIndex *idx, const char *name, int nth)
{
	for (uint32_t i = 0; i < idx->funcs.size; i++)
		if (strcmp(idx->funcs.items[i].name, name) == 0 && nth-- == 0)
			return (int32_t)i;
	return -1;
}

static const TlCall *call_of(TlFixture *fx, const char *text, int nth)
{
	const TlCall *c = tl_index_call_at(&fx->idx, tl_fixture_node(fx, text, nth));
	assert_non_null(c);
	return c;
}

/* ---- step 1: classes ---------------------------------------------------------------- */

static void test_mode_through_self(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"class Trainer:\n"
		"    def __init__(self):\n"
		"        self.model = nn.Linear(2, 2)\n"
		"    def _predict(self, x):\n"
		"        return self.model(x)\n"
		"    def validate(self, xs):\n"
		"        self.model.eval()\n"
		"        return [self._predict(x) for x in xs]\n"
		"    def _other(self, x):\n"
		"        return self.model(x)\n"
		"    def train_step(self, x):\n"
		"        self.model.train()\n"
		"        return self._other(x)\n");
	const TlIndex *idx = &fx->idx;
	/* The receiver `self` of the call in validate() is the method's `self`. */
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node(fx, "self.model(x)", 0), "self.model"),
			 TL_MODE_EVAL);
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node(fx, "self.model(x)", 1), "self.model"),
			 TL_MODE_TRAIN);
	tl_fixture_free(fx);
}

static void test_mode_set_by_helper(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"def to_eval(m):\n"
		"    m.eval()\n"
		"def peek(m, x):\n"
		"    m.eval()\n"
		"    y = m(x)\n"
		"    m.train()\n"
		"    return y\n"
		"def maybe(m, flag):\n"
		"    if flag:\n"
		"        m.eval()\n"
		"def nested(m):\n"
		"    to_eval(m)\n"
		"def run(x):\n"
		"    net = nn.Linear(2, 2)\n"
		"    to_eval(net)\n"
		"    a = net(x)\n"
		"    peek(net, x)\n"
		"    b = net(x)\n"
		"    net.train()\n"
		"    maybe(net, x)\n"
		"    c = net(x)\n"
		"    net.train()\n"
		"    maybe(net, True)\n"
		"    d = net(x)\n"
		"    net.train()\n"
		"    maybe(net, False)\n"
		"    e = net(x)\n"
		"    nested(net)\n"
		"    f = net(x)\n"
		"    other = nn.Linear(2, 2)\n"
		"    to_eval(other)\n"
		"    g = net(x)\n");
	const TlIndex *idx = &fx->idx;
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node_after(fx, "a = ", "net(x)"), "net"), TL_MODE_EVAL);
	/* peek() puts it back in train mode before returning. */
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node_after(fx, "b = ", "net(x)"), "net"), TL_MODE_TRAIN);
	/* A switch under a test the call does not decide: unknown. */
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node_after(fx, "c = ", "net(x)"), "net"),
			 TL_MODE_UNKNOWN);
	/* ... decided by a constant argument: the summary's mode is the one
	 * the test decides (TL_VMODE_COND_OF), read under the call's constant:
	 * eval mode with True, the mode it had (train) with False. */
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node_after(fx, "d = ", "net(x)"), "net"), TL_MODE_EVAL);
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node_after(fx, "e = ", "net(x)"), "net"), TL_MODE_TRAIN);
	/* Through two helpers. */
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node_after(fx, "f = ", "net(x)"), "net"), TL_MODE_EVAL);
	/* Another module's switch does not count. */
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node_after(fx, "g = ", "net(x)"), "net"), TL_MODE_EVAL);
	tl_fixture_free(fx);
}

static void test_override_call_sites(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"class Base:\n"
		"    def fit(self):\n"
		"        with torch.no_grad():\n"
		"            self._valid()\n"
		"        self._train()\n"
		"class A(Base):\n"
		"    def _valid(self):\n"
		"        return self.model(x)\n"
		"class B(Base):\n"
		"    def _valid(self):\n"
		"        return self.model(y)\n"
		"    def _train(self):\n"
		"        return self.model(z)\n");
	const TlIndex *idx = &fx->idx;
	int32_t a_valid = func_named_nth(idx, "_valid", 0), b_valid = func_named_nth(idx, "_valid", 1);
	int32_t b_train = func_named(idx, "_train");
	assert_true(a_valid >= 0 && b_valid >= 0 && b_train >= 0);
	/* Both overrides may run at the base class's call. */
	assert_int_equal(idx->funcs.items[a_valid].call_sites.size, 1);
	assert_int_equal(idx->funcs.items[b_valid].call_sites.size, 1);
	/* Several overrides: no single target; one: it is the target. */
	assert_int_equal(call_of(fx, "self._valid()", 0)->target, -1);
	assert_int_equal(call_of(fx, "self._train()", 0)->target, b_train);
	/* The no_grad block around the call counts inside each override. */
	assert_true(tl_facts_under(idx, tl_fixture_node(fx, "self.model(x)", 0), TL_CTX_GRAD_OFF));
	assert_true(tl_facts_under(idx, tl_fixture_node(fx, "self.model(y)", 0), TL_CTX_GRAD_OFF));
	assert_false(tl_facts_under(idx, tl_fixture_node(fx, "self.model(z)", 0), TL_CTX_GRAD_OFF));
	tl_fixture_free(fx);
}

static void test_instance_method_calls(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"class Evaluator:\n"
		"    def run(self, x):\n"
		"        return self.model(x)\n"
		"def main(x):\n"
		"    ev = Evaluator()\n"
		"    with torch.no_grad():\n"
		"        ev.run(x)\n");
	const TlIndex *idx = &fx->idx;
	assert_int_equal(call_of(fx, "ev.run(x)", 0)->target, func_named(idx, "run"));
	assert_true(tl_facts_under(idx, tl_fixture_node(fx, "self.model(x)", 0), TL_CTX_GRAD_OFF));
	tl_fixture_free(fx);
}

static void test_methods_named_like_module_methods(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"class Runner:\n"
		"    def cuda(self, *xs):\n"
		"        return (x.to('cuda') for x in xs)\n"
		"    def eval(self, loader):\n"
		"        self.model.eval()\n"
		"        self.model.train()\n"
		"    def loop(self, x):\n"
		"        a = self.cuda(x)\n"
		"        self.eval(x)\n"
		"class Net(nn.Module):\n"
		"    def train(self, mode=True):\n"
		"        return super().train(mode)\n"
		"def go(x):\n"
		"    net = Net()\n"
		"    net.train()\n"
		"    x.cuda()\n");
	const TlIndex *idx = &fx->idx;
	/* A trainer's own eval() and cuda() do what their bodies do. */
	assert_false(tl_facts_moves_to_device(idx, tl_fixture_node(fx, "self.cuda(x)", 0)));
	const TlCall *ev = call_of(fx, "self.eval(x)", 0);
	assert_int_equal(ev->events & (TL_EV_EVAL | TL_EV_TRAIN | TL_EV_MODE_SET), 0);
	assert_int_equal(ev->target, func_named(idx, "eval"));
	/* A module's override of train() is still a mode switch. */
	assert_true(call_of(fx, "net.train()", 0)->events & TL_EV_TRAIN);
	assert_true(tl_facts_moves_to_device(idx, tl_fixture_node(fx, "x.cuda()", 0)));
	tl_fixture_free(fx);
}

/* ---- step 2: call sites ----------------------------------------------------------- */

static void test_shared_helper_judged_per_call(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"import torch.nn.functional as F\n"
		"def step(model, x, y):\n"
		"    return F.cross_entropy(model(x), y)\n"
		"def run(loader, val):\n"
		"    model = nn.Linear(4, 2)\n"
		"    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
		"    for x, y in loader:\n"
		"        model.train()\n"
		"        l1 = step(model, x, y)\n"
		"        l1.backward()\n"
		"        opt.step()\n"
		"    model.eval()\n"
		"    l2 = step(model, val, val)\n"
		"    print(l2.item())\n"
		"    with torch.no_grad():\n"
		"        l3 = step(model, val, val)\n"
		"    l4 = step(model, val, val)\n"
		"    l4.backward()\n");
	const TlIndex *idx = &fx->idx;
	/* The forward in step() is not reported itself: one caller trains. */
	assert_true(tl_facts_reaches_backward(idx, tl_fixture_node(fx, "model(x)", 0)));
	assert_false(tl_check_eval_call_with_grad(idx, tl_fixture_node(fx, "step(model, x, y)", 1)));
	assert_true(tl_check_eval_call_with_grad(idx, tl_fixture_node_after(fx, "l2 = ", "step(model, val, val)")));
	assert_false(tl_check_eval_call_with_grad(idx, tl_fixture_node_after(fx, "l3 = ", "step(model, val, val)")));
	/* Its result is backpropagated: no evaluation path. */
	assert_false(tl_check_eval_call_with_grad(idx, tl_fixture_node_after(fx, "l4 = ", "step(model, val, val)")));
	tl_fixture_free(fx);
}

static void test_constant_arguments_select_branches(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"import torch.nn.functional as F\n"
		"def run_epoch(model, loader, opt=None, train=True):\n"
		"    model.train(train)\n"
		"    for x, y in loader:\n"
		"        loss = F.cross_entropy(model(x), y)\n"
		"        if train:\n"
		"            loss.backward()\n"
		"            opt.step()\n"
		"def fit(model, opt, loader, val):\n"
		"    a = run_epoch(model, loader, opt)\n"
		"    b = run_epoch(model, val, train=False)\n"
		"    c = run_epoch(model, val, None, False)\n"
		"    d = run_epoch(model, val, train=flag)\n");
	const TlIndex *idx = &fx->idx;
	assert_false(tl_check_eval_call_with_grad(idx, tl_fixture_node_after(fx, "a = ", "run_epoch(model, loader, opt)")));
	assert_true(tl_check_eval_call_with_grad(idx, tl_fixture_node_after(fx, "b = ", "run_epoch(model, val, train=False)")));
	assert_true(tl_check_eval_call_with_grad(idx, tl_fixture_node_after(fx, "c = ", "run_epoch(model, val, None, False)")));
	/* A flag that is no constant decides nothing. */
	assert_false(tl_check_eval_call_with_grad(idx, tl_fixture_node_after(fx, "d = ", "run_epoch(model, val, train=flag)")));
	tl_fixture_free(fx);
}

static void test_list_of_models_and_mode_strings(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"def set_mode(model, mode):\n"
		"    if mode == 'eval':\n"
		"        model.eval()\n"
		"    else:\n"
		"        model.train()\n"
		"def freeze(models):\n"
		"    for m in models:\n"
		"        m.eval()\n"
		"def gan(loader):\n"
		"    G = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.1))\n"
		"    D = nn.Sequential(nn.Linear(4, 1), nn.BatchNorm1d(1))\n"
		"    opt = torch.optim.Adam(list(G.parameters()) + list(D.parameters()))\n"
		"    set_mode(G, 'train')\n"
		"    for x in loader:\n"
		"        D(G(x)).mean().backward()\n"
		"        opt.step()\n"
		"        freeze([G, D])\n"
		"        set_mode(D, 'eval')\n"
		"def sample(z):\n"
		"    G = nn.Linear(4, 4)\n"
		"    pair = [G, nn.Linear(4, 1)]\n"
		"    freeze([G])\n"
		"    a = G(z)\n"
		"    set_mode(G, 'train')\n"
		"    b = G(z)\n");
	const TlIndex *idx = &fx->idx;
	/* Each element of the list is switched; only the branch the string selects runs. */
	assert_true(tl_check_leaves_eval(idx, tl_fixture_node(fx, "freeze([G, D])", 0)));
	assert_true(tl_check_leaves_eval(idx, tl_fixture_node(fx, "set_mode(D, 'eval')", 0)));
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node_after(fx, "a = ", "G(z)"), "G"), TL_MODE_EVAL);
	/* set_mode's branches, which the string decides: the call's constant
	 * selects train mode */
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node_after(fx, "b = ", "G(z)"), "G"), TL_MODE_TRAIN);
	tl_fixture_free(fx);
}

/* A project whose modules are never found: what an analysis inside one
 * sees of a name it imports that no module of the project defines. */
static const TlIndex *stub_module(const TlImports *self, const TlIndex *from, const char *dotted, size_t len)
{
	(void)self, (void)from, (void)dotted, (void)len;
	return NULL;
}

static void stub_bracket(const TlImports *self)
{
	(void)self;
}

static const TlIndex *stub_importer(const TlImports *self, const TlIndex *of, uint32_t i)
{
	(void)self, (void)of, (void)i;
	return NULL;
}

static bool stub_same_file(const TlImports *self, const TlIndex *of, const TlIndex *mod)
{
	(void)self, (void)of, (void)mod;
	return false;
}

static const char *stub_package(const TlImports *self, const TlIndex *from)
{
	(void)self, (void)from;
	return NULL;
}

static bool stub_imports_any(const TlImports *self, const char *path, const char *text, size_t len,
			     const char *const *names)
{
	(void)self, (void)path, (void)text, (void)len, (void)names;
	return false;
}

static bool stub_may_name(const TlImports *self, const TlIndex *from, const char *dotted, size_t len)
{
	(void)self, (void)from, (void)dotted, (void)len;
	return false;
}

/* A method of a receiver whose class no class of the file is (an imported
 * model: `net.helper(x)`) runs the model's forward in eval mode only on a
 * receiver in eval mode there. */
static void test_method_forward_outside_eval(void **state)
{
	(void)state;
	static const TlImports stub = { stub_module, stub_bracket, stub_bracket, stub_importer,
					stub_same_file, stub_package, stub_imports_any, stub_may_name };
	static const char code[] =
		"import torch\n"
		"from lib import load\n"
		"net = load()\n"
		"net.eval()\n"
		"net.train()\n"
		"a = net.helper(x)\n"
		"net.eval()\n"
		"b = net.helper(x)\n";
	TlFixture *fx = tl_calloc(1, sizeof *fx);
	char why[256];
	assert_true(tl_source_init_text(&fx->src, "t.py", code, strlen(code), why, sizeof why));
	fx->parser = ts_parser_new();
	ts_parser_set_language(fx->parser, tl_python_language());
	fx->tree = ts_parser_parse_string(fx->parser, NULL, fx->src.text, fx->src.length);
	tl_facts_build_in(&fx->idx, &fx->src, ts_tree_root_node(fx->tree), NULL, &stub);
	const TlIndex *idx = &fx->idx;
	assert_false(tl_check_eval_call_with_grad(idx, tl_fixture_node_after(fx, "a = ", "net.helper(x)")));
	/* In eval mode: the model is asked for the receiver's class (none
	 * known here, so no method of it runs a forward). */
	assert_false(tl_check_eval_call_with_grad(idx, tl_fixture_node_after(fx, "b = ", "net.helper(x)")));
	assert_non_null(idx->model);
	tl_fixture_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mode_through_self),
		cmocka_unit_test(test_mode_set_by_helper),
		cmocka_unit_test(test_override_call_sites),
		cmocka_unit_test(test_instance_method_calls),
		cmocka_unit_test(test_methods_named_like_module_methods),
		cmocka_unit_test(test_shared_helper_judged_per_call),
		cmocka_unit_test(test_constant_arguments_select_branches),
		cmocka_unit_test(test_list_of_models_and_mode_strings),
		cmocka_unit_test(test_method_forward_outside_eval),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
