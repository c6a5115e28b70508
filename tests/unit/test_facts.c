/* Unit tests for analyzer/facts/facts.h: graph tensors, optimizers, scalers and
 * modules, train/eval mode, grad and autocast contexts, flow into a
 * backward, values that outlive an iteration, step loops. */
#include "helpers.h"

#include "base/alloc.h"
#include "facts/facts.h"
#include "rules/checks/checks.h"

/* ---- graph tensors ------------------------------------------------------------ */

static const char graph_code[] =
	"import torch\n"
	"import torch.nn as nn\n"
	"import torch.nn.functional as F\n"
	"from transformers import AutoModelForCausalLM\n"
	"model = nn.Linear(4, 2)\n"
	"crit = nn.CrossEntropyLoss()\n"
	"lm = AutoModelForCausalLM.from_pretrained('gpt2')\n"
	"def forward_loss(m, a, b):\n"
	"    return F.mse_loss(m(a), b)\n"
	"out = model(x)\n"
	"loss = crit(out, y)\n"
	"loss2 = F.cross_entropy(out, y)\n"
	"total = loss * 2 + loss2\n"
	"neg = -loss\n"
	"outputs = lm(**batch)\n"
	"val = loss.item()\n"
	"det = loss.detach()\n"
	"fl = float(loss)\n"
	"cmp = loss > 0\n"
	"on_cpu = loss.cpu()\n"
	"avg = loss.mean()\n"
	"l3 = forward_loss(model, x, y)\n"
	"num = 3\n"
	"with torch.no_grad():\n"
	"    ev = model(x)\n"
	"    ev_loss = crit(ev, y)\n"
	"chk(out)\n"
	"chk(loss)\n"
	"chk(loss2)\n"
	"chk(total)\n"
	"chk(neg)\n"
	"chk(outputs.loss)\n"
	"chk(val)\n"
	"chk(det)\n"
	"chk(fl)\n"
	"chk(cmp)\n"
	"chk(on_cpu)\n"
	"chk(avg)\n"
	"chk(l3)\n"
	"chk(num)\n"
	"chk(ev)\n"
	"chk(ev_loss)\n"
	"chk(unbound)\n"
	"chk(outputs.loss.shape)\n";

static void test_graph_values(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(graph_code);
	const TlIndex *idx = &fx->idx;
	/* Results of a criterion, a functional loss, a model forward, fields of
	 * a model's output, arithmetic on a loss, graph-keeping methods, a local
	 * function that returns a loss. */
	assert_true(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(out)")));
	assert_true(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(loss)")));
	assert_true(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(loss2)")));
	assert_true(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(total)")));
	assert_true(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(neg)")));
	assert_true(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(outputs.loss)")));
	assert_true(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(on_cpu)")));
	assert_true(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(avg)")));
	assert_true(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(l3)")));
	/* Plain numbers, detached values, comparisons, no_grad results. */
	assert_false(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(val)")));
	assert_false(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(det)")));
	assert_false(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(fl)")));
	assert_false(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(cmp)")));
	assert_false(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(num)")));
	assert_false(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(ev)")));
	assert_false(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(ev_loss)")));
	assert_false(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(unbound)")));
	assert_false(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(outputs.loss.shape)")));
	tl_fixture_free(fx);
}

static void test_graph_expressions(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(graph_code);
	const TlIndex *idx = &fx->idx;
	assert_true(tl_facts_is_graph(idx, tl_fixture_node(fx, "crit(out, y)", 0)));
	assert_true(tl_facts_is_graph(idx, tl_fixture_node(fx, "F.cross_entropy(out, y)", 0)));
	assert_true(tl_facts_is_graph(idx, tl_fixture_node(fx, "model(x)", 0)));
	assert_true(tl_facts_is_graph(idx, tl_fixture_node(fx, "loss * 2 + loss2", 0)));
	assert_true(tl_facts_is_graph(idx, tl_fixture_node(fx, "loss.cpu()", 0)));
	assert_false(tl_facts_is_graph(idx, tl_fixture_node(fx, "loss.item()", 0)));
	assert_false(tl_facts_is_graph(idx, tl_fixture_node(fx, "loss.detach()", 0)));
	assert_false(tl_facts_is_graph(idx, tl_fixture_node(fx, "float(loss)", 0)));
	assert_false(tl_facts_is_graph(idx, tl_fixture_node(fx, "loss > 0", 0)));
	/* Computed inside the no_grad block. */
	assert_false(tl_facts_is_graph(idx, tl_fixture_node_after(fx, "ev = ", "model(x)")));
	/* Constructing a criterion makes a module, not a tensor. */
	assert_false(tl_facts_is_graph(idx, tl_fixture_node(fx, "nn.CrossEntropyLoss()", 0)));
	tl_fixture_free(fx);
}

static void test_graph_in_grad_disabled_helper(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def score(model, x):\n"
		"    s = model(x).sum()\n"
		"    chk(s)\n"
		"    return s\n"
		"def train(model, x):\n"
		"    t = model(x).sum()\n"
		"    chk(t)\n"
		"with torch.no_grad():\n"
		"    score(model, x)\n"
		"train(model, x)\n"
		"model.eval()\n");
	/* score() only runs under no_grad, so its values carry no graph. */
	assert_false(tl_facts_is_graph(&fx->idx, tl_fixture_arg0(fx, "chk(s)")));
	assert_true(tl_facts_is_graph(&fx->idx, tl_fixture_arg0(fx, "chk(t)")));
	tl_fixture_free(fx);
}

/* ---- optimizers, scalers, modules --------------------------------------------------- */

static const char kinds_code[] =
	"import torch\n"
	"import torch.nn as nn\n"
	"import gym\n"
	"from torch.cuda.amp import GradScaler\n"
	"class Net(nn.Module):\n"
	"    pass\n"
	"class Helper:\n"
	"    pass\n"
	"net = Net()\n"
	"helper = Helper()\n"
	"lin = nn.Linear(2, 2)\n"
	"moved = net.to('cuda')\n"
	"ddp = torch.nn.parallel.DistributedDataParallel(moved)\n"
	"t = torch.randn(3)\n"
	"opt = torch.optim.AdamW(net.parameters())\n"
	"sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, 10)\n"
	"scaler = GradScaler()\n"
	"optimizers = [opt]\n"
	"env = gym.make('CartPole-v1')\n"
	"def f(m: nn.Module, model2: Net, o, my_scaler):\n"
	"    chk(m)\n"
	"    chk(model2)\n"
	"    chk(o)\n"
	"    chk(my_scaler)\n"
	"chk(net)\n"
	"chk(helper)\n"
	"chk(lin)\n"
	"chk(moved)\n"
	"chk(ddp)\n"
	"chk(t)\n"
	"chk(opt)\n"
	"chk(sched)\n"
	"chk(scaler)\n"
	"chk(optimizers[0])\n"
	"chk(optimizer)\n"
	"chk(env)\n"
	"chk(self.opt_d)\n"
	"chk(self.grad_scaler)\n";

static void test_is_optimizer(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(kinds_code);
	const TlIndex *idx = &fx->idx;
	assert_true(tl_facts_is_optimizer(idx, tl_fixture_arg0(fx, "chk(opt)")));
	assert_true(tl_facts_is_optimizer(idx, tl_fixture_arg0(fx, "chk(optimizers[0])")));
	/* Unbound: the name decides. */
	assert_true(tl_facts_is_optimizer(idx, tl_fixture_arg0(fx, "chk(optimizer)")));
	assert_true(tl_facts_is_optimizer(idx, tl_fixture_arg0(fx, "chk(self.opt_d)")));
	assert_false(tl_facts_is_optimizer(idx, tl_fixture_arg0(fx, "chk(sched)")));
	assert_false(tl_facts_is_optimizer(idx, tl_fixture_arg0(fx, "chk(scaler)")));
	assert_false(tl_facts_is_optimizer(idx, tl_fixture_arg0(fx, "chk(env)")));
	assert_false(tl_facts_is_optimizer(idx, tl_fixture_arg0(fx, "chk(net)")));
	assert_false(tl_facts_is_optimizer(idx, tl_fixture_arg0(fx, "chk(o)")));
	tl_fixture_free(fx);
}

static void test_is_scaler(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(kinds_code);
	const TlIndex *idx = &fx->idx;
	assert_true(tl_facts_is_scaler(idx, tl_fixture_arg0(fx, "chk(scaler)")));
	assert_true(tl_facts_is_scaler(idx, tl_fixture_arg0(fx, "chk(my_scaler)")));
	assert_true(tl_facts_is_scaler(idx, tl_fixture_arg0(fx, "chk(self.grad_scaler)")));
	assert_false(tl_facts_is_scaler(idx, tl_fixture_arg0(fx, "chk(opt)")));
	assert_false(tl_facts_is_scaler(idx, tl_fixture_arg0(fx, "chk(sched)")));
	assert_false(tl_facts_is_scaler(idx, tl_fixture_arg0(fx, "chk(env)")));
	tl_fixture_free(fx);
}

static void test_is_module(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(kinds_code);
	const TlIndex *idx = &fx->idx;
	assert_true(tl_facts_is_module(idx, tl_fixture_arg0(fx, "chk(net)")));
	assert_true(tl_facts_is_module(idx, tl_fixture_arg0(fx, "chk(lin)")));
	assert_true(tl_facts_is_module(idx, tl_fixture_arg0(fx, "chk(moved)")));
	assert_true(tl_facts_is_module(idx, tl_fixture_arg0(fx, "chk(ddp)")));
	assert_false(tl_facts_is_module(idx, tl_fixture_arg0(fx, "chk(helper)")));
	assert_false(tl_facts_is_module(idx, tl_fixture_arg0(fx, "chk(t)")));
	assert_false(tl_facts_is_module(idx, tl_fixture_arg0(fx, "chk(opt)")));
	assert_false(tl_facts_is_module(idx, tl_fixture_arg0(fx, "chk(o)")));
	assert_false(tl_facts_is_module(idx, tl_fixture_arg0(fx, "chk(env)")));
	tl_fixture_free(fx);
}

static void test_is_module_by_annotation(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(kinds_code);
	assert_true(tl_facts_is_module(&fx->idx, tl_fixture_arg0(fx, "chk(m)")));
	assert_true(tl_facts_is_module(&fx->idx, tl_fixture_arg0(fx, "chk(model2)")));
	tl_fixture_free(fx);
}

static void test_module_class_names(void **state)
{
	(void)state;
	assert_true(tl_facts_is_module_class_name("torch.nn.Module"));
	assert_true(tl_facts_is_module_class_name("torch.nn.Linear"));
	assert_true(tl_facts_is_module_class_name("lightning.LightningModule"));
	assert_false(tl_facts_is_module_class_name("torch.nn.Parameter"));
	assert_false(tl_facts_is_module_class_name("torch.nn.functional"));
	assert_false(tl_facts_is_module_class_name("torch.nn.init.xavier_uniform_"));
	assert_false(tl_facts_is_module_class_name("torch.optim.SGD"));
	assert_false(tl_facts_is_module_class_name("mylib.Module"));
}

/* ---- mode -------------------------------------------------------------------------- */

static void test_mode_at(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"model = nn.Linear(2, 2)\n"
		"first = model(x)\n"
		"model.eval()\n"
		"second = model(x)\n"
		"model.train()\n"
		"third = model(x)\n"
		"model.train(False)\n"
		"fourth = model(x)\n"
		"class T(nn.Module):\n"
		"    def __init__(self):\n"
		"        super().__init__()\n"
		"        self.net = nn.Linear(2, 2)\n"
		"    def validate(self, batch):\n"
		"        self.net.eval()\n"
		"        return self.net(batch)\n");
	const TlIndex *idx = &fx->idx;
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node_after(fx, "first = ", "model(x)"), "model"),
			 TL_MODE_UNKNOWN);
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node_after(fx, "second = ", "model(x)"), "model"),
			 TL_MODE_EVAL);
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node_after(fx, "third = ", "model(x)"), "model"),
			 TL_MODE_TRAIN);
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node_after(fx, "fourth = ", "model(x)"), "model"),
			 TL_MODE_EVAL);
	/* Another receiver is not affected. */
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node_after(fx, "second = ", "model(x)"), "other"),
			 TL_MODE_UNKNOWN);
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node(fx, "self.net(batch)", 0), "self.net"),
			 TL_MODE_EVAL);
	tl_fixture_free(fx);
}

static void test_mode_through_call_sites(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"model = nn.Linear(2, 2)\n"
		"def evaluate(net, data):\n"
		"    return net(data)\n"
		"def by_keyword(net2, data):\n"
		"    return net2(data)\n"
		"def disagree(net3, data):\n"
		"    return net3(data)\n"
		"class Runner:\n"
		"    def check(self, m, data):\n"
		"        return m(data)\n"
		"    def go(self):\n"
		"        model.eval()\n"
		"        self.check(model, val)\n"
		"def run():\n"
		"    model.eval()\n"
		"    evaluate(model, val)\n"
		"    by_keyword(data=val, net2=model)\n"
		"    disagree(model, val)\n"
		"def run_train():\n"
		"    model.train()\n"
		"    disagree(model, val)\n");
	const TlIndex *idx = &fx->idx;
	/* The parameter `net` is `model` at the only call site. */
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node(fx, "net(data)", 0), "net"), TL_MODE_EVAL);
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node(fx, "net2(data)", 0), "net2"), TL_MODE_EVAL);
	/* A bound method: `self` is not among the arguments. */
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node(fx, "m(data)", 0), "m"), TL_MODE_EVAL);
	/* Call sites that disagree: unknown. */
	assert_int_equal(tl_facts_mode_at(idx, tl_fixture_node(fx, "net3(data)", 0), "net3"), TL_MODE_UNKNOWN);
	tl_fixture_free(fx);
}

/* ---- contexts ------------------------------------------------------------------------ */

static void test_under_contexts(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def helper(m, x):\n"
		"    return m(x)\n"
		"def mixed(m, x):\n"
		"    return m(x)\n"
		"def fwd(m, x):\n"
		"    return m(x)\n"
		"@torch.no_grad()\n"
		"def deco(m, x):\n"
		"    return m(x)\n"
		"def toggles(model, x):\n"
		"    torch.set_grad_enabled(False)\n"
		"    a = model(x)\n"
		"    torch.set_grad_enabled(True)\n"
		"    b = model(x)\n"
		"with torch.no_grad():\n"
		"    helper(model, x)\n"
		"    mixed(model, x)\n"
		"    inside = model(x)\n"
		"mixed(model, x)\n"
		"with torch.autocast('cuda'):\n"
		"    fwd(model, x)\n"
		"    ac_inside = model(x)\n"
		"outside = model(x)\n");
	const TlIndex *idx = &fx->idx;
	TSNode helper_body = tl_fixture_node_after(fx, "def helper", "m(x)");
	TSNode mixed_body = tl_fixture_node_after(fx, "def mixed", "m(x)");
	TSNode fwd_body = tl_fixture_node_after(fx, "def fwd", "m(x)");
	/* Grad disabled at every call site of the helper. */
	assert_true(tl_facts_under(idx, helper_body, TL_CTX_GRAD_OFF));
	assert_int_equal(tl_facts_grad_state(idx, helper_body), TL_GRAD_OFF);
	/* Locally, the helper's body says nothing. */
	assert_int_equal(tl_facts_local_grad(idx, helper_body, tl_index_func_of(idx, helper_body), -1),
			 TL_GRAD_UNKNOWN);
	assert_false(tl_facts_under(idx, mixed_body, TL_CTX_GRAD_OFF));
	assert_true(tl_facts_under(idx, tl_fixture_node_after(fx, "inside = ", "model(x)"), TL_CTX_GRAD_OFF));
	assert_false(tl_facts_under(idx, tl_fixture_node_after(fx, "outside = ", "model(x)"), TL_CTX_GRAD_OFF));
	assert_true(tl_facts_under(idx, tl_fixture_node_after(fx, "def deco", "m(x)"), TL_CTX_GRAD_OFF));
	/* Statement-level set_grad_enabled switches until switched back. */
	assert_true(tl_facts_under(idx, tl_fixture_node_after(fx, "a = ", "model(x)"), TL_CTX_GRAD_OFF));
	assert_false(tl_facts_under(idx, tl_fixture_node_after(fx, "b = ", "model(x)"), TL_CTX_GRAD_OFF));
	assert_int_equal(tl_facts_grad_state(idx, tl_fixture_node_after(fx, "b = ", "model(x)")), TL_GRAD_ON);
	/* Autocast: a with block, or every call site of the function. */
	assert_true(tl_facts_under(idx, fwd_body, TL_CTX_AUTOCAST));
	assert_false(tl_facts_under(idx, fwd_body, TL_CTX_GRAD_OFF));
	assert_true(tl_facts_under(idx, tl_fixture_node_after(fx, "ac_inside = ", "model(x)"), TL_CTX_AUTOCAST));
	assert_false(tl_facts_under(idx, tl_fixture_node_after(fx, "outside = ", "model(x)"), TL_CTX_AUTOCAST));
	assert_false(tl_facts_under(idx, helper_body, TL_CTX_AUTOCAST));
	tl_fixture_free(fx);
}

static void test_from_context(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn.functional as F\n"
		"import torch.nn as nn\n"
		"model = nn.Linear(2, 2)\n"
		"with torch.autocast('cuda'):\n"
		"    out = model(x)\n"
		"    inner = F.cross_entropy(out, y)\n"
		"late = F.cross_entropy(out, y)\n"
		"cast = F.cross_entropy(out.float(), y)\n"
		"plain = F.cross_entropy(model(x), y)\n");
	const TlIndex *idx = &fx->idx;
	assert_true(tl_check_from_context(idx, tl_fixture_node_after(fx, "late = ", "(out, y)"), TL_CTX_AUTOCAST));
	/* Inside the block itself, the block encloses the use. */
	assert_false(tl_check_from_context(idx, tl_fixture_node_after(fx, "inner = ", "(out, y)"), TL_CTX_AUTOCAST));
	/* An upcast ends the reduced precision. */
	assert_false(tl_check_from_context(idx, tl_fixture_node_after(fx, "cast = ", "(out.float(), y)"), TL_CTX_AUTOCAST));
	assert_false(tl_check_from_context(idx, tl_fixture_node_after(fx, "plain = ", "(model(x), y)"), TL_CTX_AUTOCAST));
	/* The block is autocast, not grad-disabled. */
	assert_false(tl_check_from_context(idx, tl_fixture_node_after(fx, "late = ", "(out, y)"), TL_CTX_GRAD_OFF));
	tl_fixture_free(fx);
}

/* ---- flow into a backward --------------------------------------------------------------- */

static void test_reaches_backward(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def reinforce(policy, env):\n"
		"    log_probs = []\n"
		"    rewards = []\n"
		"    for step in range(100):\n"
		"        dist = policy(state)\n"
		"        log_probs.append(dist)\n"
		"        rewards.append(r)\n"
		"    loss = -torch.stack(log_probs).sum()\n"
		"    loss.backward()\n"
		"    return rewards\n"
		"def logging_only(model, data):\n"
		"    total = 0\n"
		"    for x in data:\n"
		"        l = model(x)\n"
		"        total += l\n"
		"    print(total)\n"
		"def compute(model, x):\n"
		"    out = model(x)\n"
		"    return out\n"
		"def train(model, x):\n"
		"    res = compute(model, x)\n"
		"    res.backward()\n"
		"def direct(model, x):\n"
		"    model(x).sum().backward()\n"
		"def multi(model, x):\n"
		"    parts = []\n"
		"    parts.append(model(x))\n"
		"    total_loss = sum(parts)\n"
		"    total_loss.backward()\n");
	const TlIndex *idx = &fx->idx;
	/* The REINFORCE list is stacked into the loss that is backpropagated. */
	assert_true(tl_facts_reaches_backward(idx, tl_fixture_node_after(fx, "log_probs.append", "log_probs")));
	/* Rewards are only returned, to no caller. */
	assert_false(tl_facts_reaches_backward(idx, tl_fixture_node_after(fx, "rewards.append", "rewards")));
	/* A total that is only printed. */
	assert_false(tl_facts_reaches_backward(idx, tl_fixture_node_after(fx, "total += l", "total")));
	/* Returned to a caller that calls .backward() on it. */
	assert_true(tl_facts_reaches_backward(idx, tl_fixture_node_after(fx, "out = ", "model(x)")));
	assert_true(tl_facts_reaches_backward(idx, tl_fixture_node_after(fx, "return out", "out")));
	/* Inside the backward's own receiver. */
	assert_true(tl_facts_reaches_backward(idx, tl_fixture_node_after(fx, "def direct", "model(x)")));
	/* Summed with the builtin and backpropagated. */
	assert_true(tl_facts_reaches_backward(idx, tl_fixture_node_after(fx, "parts.append", "parts")));
	tl_fixture_free(fx);
}

/* ---- loops ------------------------------------------------------------------------------ */

static void test_outlives_iteration(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"def a(model, data):\n"
		"    hist = []\n"
		"    total = 0\n"
		"    stats = {}\n"
		"    for x in data:\n"
		"        hist.append(model(x))\n"
		"        total += model(x)\n"
		"        stats['loss'] = model(x)\n"
		"        self.history.append(x)\n"
		"def b(model, data):\n"
		"    for x in data:\n"
		"        fresh = []\n"
		"        fresh.append(model(x))\n"
		"def c(model):\n"
		"    kept = []\n"
		"    kept.append(model(1))\n");
	const TlIndex *idx = &fx->idx;
	/* Created before the loop: survives. */
	assert_true(tl_check_outlives_iteration(idx, tl_fixture_node_after(fx, "hist.append", "hist")));
	assert_true(tl_check_outlives_iteration(idx, tl_fixture_node_after(fx, "total +=", "total")));
	assert_true(tl_check_outlives_iteration(idx, tl_fixture_node_after(fx, "stats['loss']", "stats['loss']")));
	assert_true(tl_check_outlives_iteration(idx, tl_fixture_node_after(fx, "self.history.append", "self.history")));
	/* Re-created inside the loop. */
	assert_false(tl_check_outlives_iteration(idx, tl_fixture_node_after(fx, "fresh.append", "fresh")));
	/* Not in a loop. */
	assert_false(tl_check_outlives_iteration(idx, tl_fixture_node_after(fx, "kept.append", "kept")));
	tl_fixture_free(fx);
}

static void test_loop_variable_does_not_outlive_iteration(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"def a(data):\n"
		"    for x in data:\n"
		"        chk(x)\n");
	assert_false(tl_check_outlives_iteration(&fx->idx, tl_fixture_arg0(fx, "chk(x)")));
	tl_fixture_free(fx);
}

static void test_root_name(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"history['loss'].append(v)\n"
		"self.losses.append(v)\n"
		"history.setdefault(k, []).append(v)\n"
		"make()[0].append(v)\n");
	const TlIndex *idx = &fx->idx;
	char *n = tl_facts_root_name(idx, tl_fixture_node(fx, "history['loss']", 0));
	assert_string_equal(n, "history");
	tl_free(n);
	n = tl_facts_root_name(idx, tl_fixture_node(fx, "self.losses", 0));
	assert_string_equal(n, "self.losses");
	tl_free(n);
	n = tl_facts_root_name(idx, tl_fixture_node(fx, "history.setdefault(k, [])", 0));
	assert_string_equal(n, "history");
	tl_free(n);
	assert_null(tl_facts_root_name(idx, tl_fixture_node(fx, "make()[0]", 0)));
	tl_fixture_free(fx);
}

static void test_step_loops(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def train(model, opt, data):\n"
		"    for x in data:\n"
		"        loss = model(x)\n"
		"        loss.backward()\n"
		"        opt.step()\n"
		"def train_ok(model, opt, data):\n"
		"    for x in data:\n"
		"        opt.zero_grad()\n"
		"        model(x).backward()\n"
		"        opt.step()\n"
		"def do_step(o):\n"
		"    o.step()\n"
		"def with_helper(model, opt, data):\n"
		"    for x in data:\n"
		"        model(x).backward()\n"
		"        do_step(opt)\n"
		"def with_helper_ok(model, opt, data):\n"
		"    for x in data:\n"
		"        opt.zero_grad()\n"
		"        model(x).backward()\n"
		"        do_step(opt)\n"
		"def per_epoch_reset(model, opt, data):\n"
		"    for epoch in range(3):\n"
		"        opt.zero_grad()\n"
		"        for x in data:\n"
		"            model(x).backward()\n"
		"            opt.step()\n"
		"def no_backward(opt, data):\n"
		"    for x in data:\n"
		"        opt.step()\n"
		"opt.step()\n");
	const TlIndex *idx = &fx->idx;
	uint32_t missing = 99;
	assert_int_equal(tl_facts_step_loops(idx, tl_fixture_node_after(fx, "def train(", "opt.step()"),
					    TL_EV_GRAD_RESET, &missing), 1);
	assert_int_equal(missing, 1);
	assert_int_equal(tl_facts_step_loops(idx, tl_fixture_node_after(fx, "def train_ok", "opt.step()"),
					    TL_EV_GRAD_RESET, &missing), 1);
	assert_int_equal(missing, 0);
	/* Through the helper's two call sites: one loop resets, one does not. */
	assert_int_equal(tl_facts_step_loops(idx, tl_fixture_node(fx, "o.step()", 0),
					    TL_EV_GRAD_RESET, &missing), 2);
	assert_int_equal(missing, 1);
	/* The innermost loop that runs a backward is the step loop; a reset
	 * in the outer loop is not in its iteration. */
	assert_int_equal(tl_facts_step_loops(idx, tl_fixture_node_after(fx, "def per_epoch", "opt.step()"),
					    TL_EV_GRAD_RESET, &missing), 1);
	assert_int_equal(missing, 1);
	/* Events are a set: lacking every bit of it. */
	assert_int_equal(tl_facts_step_loops(idx, tl_fixture_node_after(fx, "def train(", "opt.step()"),
					    TL_EV_GRAD_RESET | TL_EV_OPT_STEP, &missing), 1);
	assert_int_equal(missing, 0);
	/* No loop with a backward, no callers: no step loop. */
	assert_int_equal(tl_facts_step_loops(idx, tl_fixture_node_after(fx, "def no_backward", "opt.step()"),
					    TL_EV_GRAD_RESET, &missing), 0);
	assert_int_equal(missing, 0);
	/* Module level: no function, no loop. */
	assert_int_equal(tl_facts_step_loops(idx, tl_fixture_node_after(fx, "\nopt.step()", "opt.step()"),
					    TL_EV_GRAD_RESET, &missing), 0);
	tl_fixture_free(fx);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_graph_values),
		cmocka_unit_test(test_graph_expressions),
		cmocka_unit_test(test_graph_in_grad_disabled_helper),
		cmocka_unit_test(test_is_optimizer),
		cmocka_unit_test(test_is_scaler),
		cmocka_unit_test(test_is_module),
		cmocka_unit_test(test_is_module_by_annotation),
		cmocka_unit_test(test_module_class_names),
		cmocka_unit_test(test_mode_at),
		cmocka_unit_test(test_mode_through_call_sites),
		cmocka_unit_test(test_under_contexts),
		cmocka_unit_test(test_from_context),
		cmocka_unit_test(test_reaches_backward),
		cmocka_unit_test(test_outlives_iteration),
		cmocka_unit_test(test_loop_variable_does_not_outlive_iteration),
		cmocka_unit_test(test_root_name),
		cmocka_unit_test(test_step_loops),
	};
	return cmocka_run_group_tests_name("facts", tests, NULL, NULL);
}
