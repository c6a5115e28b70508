/* Unit tests for the flow facts behind the TL103-TL104 and TL202-TL210
 * rules (and TL201's reset coverage): what made a value, loss kinds,
 * reset coverage and order, eval mode left behind, carried recurrent
 * state, graph reuse, known tensors, wrapper modules, GPU autocast. */
#include "helpers.h"

#include "base/alloc.h"
#include "facts/facts.h"
#include "rules/checks/checks.h"

static const TlCall *call_at(TlFixture *fx, TSNode n)
{
	const TlCall *c = tl_index_call_at(&fx->idx, n);
	assert_non_null(c);
	return c;
}

/* ---- what made a value -------------------------------------------------------- */

static const char made_code[] =
	"import torch\n"
	"import torch.nn as nn\n"
	"import torch.nn.functional as F\n"
	"class Probs(nn.Module):\n"
	"    def __init__(self):\n"
	"        super().__init__()\n"
	"        self.fc = nn.Linear(4, 3)\n"
	"        self.head = nn.Sequential(nn.Linear(3, 3), nn.Softmax(dim=1))\n"
	"    def forward(self, x):\n"
	"        return self.head(self.fc(x))\n"
	"class Two(nn.Module):\n"
	"    def __init__(self):\n"
	"        super().__init__()\n"
	"        self.a = nn.Linear(4, 1)\n"
	"        self.b = nn.Sequential(nn.Linear(4, 3), nn.Softmax(dim=1))\n"
	"    def forward(self, x):\n"
	"        return self.a(x), self.b(x)\n"
	"class Mixed(nn.Module):\n"
	"    def forward(self, x):\n"
	"        if self.training:\n"
	"            return x\n"
	"        return x.softmax(-1)\n"
	"class Misnamed(nn.Module):\n"
	"    def __init__(self):\n"
	"        super().__init__()\n"
	"        self.softmax = nn.LogSoftmax(dim=1)\n"
	"    def forward(self, x):\n"
	"        return self.softmax(x)\n"
	"def f(logits, x, off):\n"
	"    p1 = F.softmax(logits, dim=1)\n"
	"    p2 = torch.sigmoid(logits).view(-1)\n"
	"    p3 = logits.log_softmax(-1)\n"
	"    act = nn.Sigmoid()\n"
	"    p4 = act(logits)\n"
	"    p5 = torch.log(p1)\n"
	"    seq = nn.Sequential(nn.Linear(4, 3), nn.Softmax(dim=1)).cuda()\n"
	"    p6 = seq(x)\n"
	"    probs, two, mixed, misnamed = Probs(), Two(), Mixed(), Misnamed()\n"
	"    p7 = probs(x)\n"
	"    v, p8 = two(x)\n"
	"    p9 = mixed(x)\n"
	"    p10 = misnamed(x)\n"
	"    s = scaler.scale(logits)\n"
	"    s2 = torch.cuda.amp.GradScaler(enabled=False).scale(logits)\n"
	"    chk(p1)\n"
	"    chk(p2)\n"
	"    chk(p3)\n"
	"    chk(p4)\n"
	"    chk(p5)\n"
	"    chk(p6)\n"
	"    chk(p7)\n"
	"    chk(p8)\n"
	"    chk(v)\n"
	"    chk(p9)\n"
	"    chk(p10)\n"
	"    chk(s)\n"
	"    chk(s2)\n"
	"    chk(p1[:, 0])\n"
	"scaler = torch.amp.GradScaler('cuda')\n";

static void test_made_by(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(made_code);
	const TlIndex *idx = &fx->idx;
	assert_int_equal(tl_facts_made_by(idx, tl_fixture_arg0(fx, "chk(p1)")), TL_MADE_SOFTMAX);
	assert_int_equal(tl_facts_made_by(idx, tl_fixture_arg0(fx, "chk(p1[:, 0])")), TL_MADE_SOFTMAX);
	/* Through a reshape. */
	assert_int_equal(tl_facts_made_by(idx, tl_fixture_arg0(fx, "chk(p2)")), TL_MADE_SIGMOID);
	assert_int_equal(tl_facts_made_by(idx, tl_fixture_arg0(fx, "chk(p3)")), TL_MADE_LOG_SOFTMAX);
	/* An activation module called in the function is explicit. */
	assert_int_equal(tl_facts_made_by(idx, tl_fixture_arg0(fx, "chk(p4)")), TL_MADE_SIGMOID);
	/* The log of probabilities is not a softmax any more. */
	assert_int_equal(tl_facts_made_by(idx, tl_fixture_arg0(fx, "chk(p5)")), TL_MADE_NONE);
	/* Model outputs are not explicit activations. */
	assert_int_equal(tl_facts_made_by(idx, tl_fixture_arg0(fx, "chk(p6)")), TL_MADE_NONE);
	/* The module's GradScaler scales; one built disabled does not. */
	assert_int_equal(tl_facts_made_by(idx, tl_fixture_arg0(fx, "chk(s)")), TL_MADE_SCALED);
	assert_int_equal(tl_facts_made_by(idx, tl_fixture_arg0(fx, "chk(s2)")), TL_MADE_NONE);
	tl_fixture_free(fx);
}

static void test_model_output(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(made_code);
	const TlIndex *idx = &fx->idx;
	/* An nn.Sequential's last layer, through .cuda(). */
	assert_int_equal(tl_facts_model_output(idx, tl_fixture_arg0(fx, "chk(p6)")), TL_MADE_SOFTMAX);
	/* A local module whose forward returns a Sequential ending in a softmax. */
	assert_int_equal(tl_facts_model_output(idx, tl_fixture_arg0(fx, "chk(p7)")), TL_MADE_SOFTMAX);
	/* One element of a tuple output. */
	assert_int_equal(tl_facts_model_output(idx, tl_fixture_arg0(fx, "chk(p8)")), TL_MADE_SOFTMAX);
	assert_int_equal(tl_facts_model_output(idx, tl_fixture_arg0(fx, "chk(v)")), TL_MADE_NONE);
	/* Returns that disagree. */
	assert_int_equal(tl_facts_model_output(idx, tl_fixture_arg0(fx, "chk(p9)")), TL_MADE_NONE);
	/* The attribute is named softmax; the module is a LogSoftmax. */
	assert_int_equal(tl_facts_model_output(idx, tl_fixture_arg0(fx, "chk(p10)")), TL_MADE_LOG_SOFTMAX);
	/* Explicit activations are tl_facts_made_by's. */
	assert_int_equal(tl_facts_model_output(idx, tl_fixture_arg0(fx, "chk(p1)")), TL_MADE_NONE);
	tl_fixture_free(fx);
}

/* A value converted to float32 or wider in its function, through the
 * methods that keep a dtype and a move to a device; not through a cast to
 * half after it, nor a move whose argument is not known. */
static const char float32_code[] =
	"import torch\n"
	"def f(scores, m, device):\n"
	"    a = scores.float()\n"
	"    b = scores.float().masked_fill(m, 0).view(-1)\n"
	"    c = scores.to(torch.float32)\n"
	"    d = scores.double().to('cuda')\n"
	"    e = scores.float().to(torch.float16)\n"
	"    g = scores.to(device)\n"
	"    h = scores.float()[0]\n"
	"    k = scores.float().to(device=device, dtype=torch.half)\n"
	"    chk(a)\n"
	"    chk(b)\n"
	"    chk(c)\n"
	"    chk(d)\n"
	"    chk(e)\n"
	"    chk(g)\n"
	"    chk(h)\n"
	"    chk(k)\n";

static void test_float32_value(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(float32_code);
	const TlIndex *idx = &fx->idx;
	assert_true(tl_check_float32_value(idx, tl_fixture_arg0(fx, "chk(a)")));
	assert_true(tl_check_float32_value(idx, tl_fixture_arg0(fx, "chk(b)")));
	assert_true(tl_check_float32_value(idx, tl_fixture_arg0(fx, "chk(c)")));
	assert_true(tl_check_float32_value(idx, tl_fixture_arg0(fx, "chk(d)")));
	assert_false(tl_check_float32_value(idx, tl_fixture_arg0(fx, "chk(e)")));
	assert_false(tl_check_float32_value(idx, tl_fixture_arg0(fx, "chk(g)")));
	assert_true(tl_check_float32_value(idx, tl_fixture_arg0(fx, "chk(h)")));
	assert_false(tl_check_float32_value(idx, tl_fixture_arg0(fx, "chk(k)")));
	tl_fixture_free(fx);
}

/* The call of a parameter asks the model for the criterion its callers
 * hand it, unless the file's code names no loss of the table (only its
 * strings and comments do) and reads no other module: then no value of
 * the model can compute one, and no model is built for the question. */
static void test_loss_kind_of_parameter(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"NAMES = ['nn.functional.cross_entropy', 'nll_loss']  # BCELoss\n"
		"def helper(fn, x, y):\n"
		"    return fn(x, y)\n"
		"helper(print, a, b)\n"
		"def sample_inputs_cross_entropy(op, x):\n"
		"    return op(x)\n");
	const TlIndex *idx = &fx->idx;
	assert_int_equal(tl_facts_loss_kind(idx, call_at(fx, tl_fixture_node(fx, "fn(x, y)", 0))), TL_LOSS_OTHER);
	assert_int_equal(tl_facts_loss_kind(idx, call_at(fx, tl_fixture_node(fx, "op(x)", 0))), TL_LOSS_OTHER);
	assert_null(idx->model);
	tl_fixture_free(fx);
	fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"def helper(fn, x, y):\n"
		"    return fn(x, y)\n"
		"helper(nn.CrossEntropyLoss(), a, b)\n"
		"def step(x, y, crit=nn.BCELoss()):\n"
		"    return crit(x, y)\n");
	idx = &fx->idx;
	assert_int_equal(tl_facts_loss_kind(idx, call_at(fx, tl_fixture_node(fx, "fn(x, y)", 0))),
			 TL_LOSS_CROSS_ENTROPY);
	assert_non_null(idx->model);
	assert_int_equal(tl_facts_loss_kind(idx, call_at(fx, tl_fixture_node(fx, "crit(x, y)", 0))), TL_LOSS_BCE);
	tl_fixture_free(fx);
}

static void test_loss_kind(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"import torch.nn.functional as F\n"
		"ce = nn.CrossEntropyLoss().to('cuda')\n"
		"nll = nn.NLLLoss()\n"
		"bce = nn.BCELoss()\n"
		"bcel = nn.BCEWithLogitsLoss()\n"
		"a = ce(x, y)\n"
		"b = nll(x, y)\n"
		"c = bce(x, y)\n"
		"d = bcel(x, y)\n"
		"e = F.cross_entropy(x, y)\n"
		"g = F.binary_cross_entropy(x, y)\n"
		"h = nn.NLLLoss()(x, y)\n"
		"i = F.mse_loss(x, y)\n");
	const TlIndex *idx = &fx->idx;
	assert_int_equal(tl_facts_loss_kind(idx, call_at(fx, tl_fixture_node(fx, "ce(x, y)", 0))),
			 TL_LOSS_CROSS_ENTROPY);
	assert_int_equal(tl_facts_loss_kind(idx, call_at(fx, tl_fixture_node(fx, "nll(x, y)", 0))), TL_LOSS_NLL);
	assert_int_equal(tl_facts_loss_kind(idx, call_at(fx, tl_fixture_node(fx, "bce(x, y)", 0))), TL_LOSS_BCE);
	assert_int_equal(tl_facts_loss_kind(idx, call_at(fx, tl_fixture_node(fx, "bcel(x, y)", 0))),
			 TL_LOSS_BCE_LOGITS);
	assert_int_equal(tl_facts_loss_kind(idx, call_at(fx, tl_fixture_node(fx, "F.cross_entropy(x, y)", 0))),
			 TL_LOSS_CROSS_ENTROPY);
	assert_int_equal(tl_facts_loss_kind(idx, call_at(fx, tl_fixture_node(fx, "F.binary_cross_entropy(x, y)", 0))),
			 TL_LOSS_BCE);
	assert_int_equal(tl_facts_loss_kind(idx, call_at(fx, tl_fixture_node(fx, "nn.NLLLoss()(x, y)", 0))),
			 TL_LOSS_NLL);
	assert_int_equal(tl_facts_loss_kind(idx, call_at(fx, tl_fixture_node(fx, "F.mse_loss(x, y)", 0))),
			 TL_LOSS_OTHER);
	/* Constructing a criterion computes no loss. */
	assert_int_equal(tl_facts_loss_kind(idx, call_at(fx, tl_fixture_node(fx, "nn.BCELoss()", 0))),
			 TL_LOSS_OTHER);
	tl_fixture_free(fx);
}

/* ---- gradient resets ------------------------------------------------------------ */

static const char reset_code[] =
	"import torch\n"
	"from torch import nn\n"
	"class G(nn.Module):\n"
	"    pass\n"
	"class D(nn.Module):\n"
	"    pass\n"
	"def gan(loader):\n"
	"    netG, netD = G().cuda(), D().cuda()\n"
	"    optG = torch.optim.Adam(netG.parameters())\n"
	"    optD = torch.optim.Adam(netD.parameters())\n"
	"    for x in loader:\n"
	"        netD.zero_grad()\n"
	"        netD(x).sum().backward()\n"
	"        optD.step()\n"
	"        netG(x).sum().backward()\n"
	"        optG.step()\n"
	"def passed(model, optimizer, loader):\n"
	"    for x in loader:\n"
	"        model.zero_grad()\n"
	"        model(x).sum().backward()\n"
	"        optimizer.step()\n"
	"def part(loader):\n"
	"    model = G()\n"
	"    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
	"    for x in loader:\n"
	"        model.head.zero_grad()\n"
	"        model(x).sum().backward()\n"
	"        opt.step()\n"
	"def wrong_order(loader):\n"
	"    model = G()\n"
	"    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
	"    for x in loader:\n"
	"        model(x).sum().backward()\n"
	"        model.zero_grad()\n"
	"        opt.step()\n"
	"def skip_bad(loader):\n"
	"    model = G()\n"
	"    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
	"    for x in loader:\n"
	"        loss = model(x).sum()\n"
	"        loss.backward()\n"
	"        if loss.item() > 9:\n"
	"            opt.zero_grad()\n"
	"        opt.step()\n"
	"def other_net(loader):\n"
	"    netG, netD = G(), D()\n"
	"    optD = torch.optim.Adam(netD.parameters())\n"
	"    for x in loader:\n"
	"        netD(x).sum().backward()\n"
	"        netG.zero_grad()\n"
	"        optD.step()\n"
	"def probe(loader):\n"
	"    model = G()\n"
	"    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
	"    for x in loader:\n"
	"        model(x).sum().backward()\n"
	"        opt.zero_grad()\n"
	"        model(x).mean().backward()\n"
	"        opt.step()\n";

static void test_step_unreset(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(reset_code);
	const TlIndex *idx = &fx->idx;
	/* netD.zero_grad() covers optD (built over netD) and not optG. */
	assert_false(tl_check_step_unreset(idx, tl_fixture_node(fx, "optD.step()", 0)));
	assert_true(tl_check_step_unreset(idx, tl_fixture_node(fx, "optG.step()", 0)));
	/* An optimizer passed in: its reach cannot be told, the reset counts. */
	assert_false(tl_check_step_unreset(idx, tl_fixture_node_after(fx, "def passed", "optimizer.step()")));
	/* A reset of a part of the model overlaps what the optimizer updates. */
	assert_false(tl_check_step_unreset(idx, tl_fixture_node_after(fx, "def part", "opt.step()")));
	tl_fixture_free(fx);
}

static void test_reset_before_step(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(reset_code);
	const TlIndex *idx = &fx->idx;
	assert_true(tl_check_reset_before_step(idx, tl_fixture_node_after(fx, "def wrong_order", "model.zero_grad()")));
	/* Resets at the top of the iteration come before the backward. */
	assert_false(tl_check_reset_before_step(idx, tl_fixture_node(fx, "netD.zero_grad()", 0)));
	/* Conditional: the step is outside the reset's block. */
	assert_false(tl_check_reset_before_step(idx, tl_fixture_node_after(fx, "def skip_bad", "opt.zero_grad()")));
	/* Another network's reset between D's backward and D's step. */
	assert_false(tl_check_reset_before_step(idx, tl_fixture_node_after(fx, "def other_net", "netG.zero_grad()")));
	/* A backward after the reset feeds the step. */
	assert_false(tl_check_reset_before_step(idx, tl_fixture_node_after(fx, "def probe", "opt.zero_grad()")));
	/* The same calls, judged: the plain step call is no reset. */
	assert_false(tl_check_reset_before_step(idx, tl_fixture_node_after(fx, "def wrong_order", "opt.step()")));
	tl_fixture_free(fx);
}

/* ---- eval mode left behind ------------------------------------------------------ */

static void test_leaves_eval(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"from torch import nn\n"
		"def evaluate(net, loader):\n"
		"    net.eval()\n"
		"def fit(loader, epochs):\n"
		"    model = nn.Sequential(nn.Linear(4, 2), nn.Dropout(0.1))\n"
		"    teacher = nn.Linear(4, 2)\n"
		"    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
		"    for epoch in range(epochs):\n"
		"        for x in loader:\n"
		"            opt.zero_grad()\n"
		"            model(x).sum().backward()\n"
		"            opt.step()\n"
		"        evaluate(model, loader)\n"
		"        teacher.eval()\n"
		"def fit_ok(loader, epochs):\n"
		"    model = nn.Linear(4, 2)\n"
		"    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
		"    for epoch in range(epochs):\n"
		"        model.train()\n"
		"        for x in loader:\n"
		"            opt.zero_grad()\n"
		"            model(x).sum().backward()\n"
		"            opt.step()\n"
		"        model.eval()\n"
		"def fit_plain(loader, epochs):\n"
		"    linear = nn.Linear(4, 2)\n"
		"    opt = torch.optim.SGD(linear.parameters(), lr=0.1)\n"
		"    for x in loader:\n"
		"        opt.zero_grad()\n"
		"        linear(x).sum().backward()\n"
		"        opt.step()\n"
		"        evaluate(linear, loader)\n");
	const TlIndex *idx = &fx->idx;
	/* A model known to hold no dropout or batch norm trains the same in
	 * eval mode: nothing to restore. */
	assert_false(tl_check_leaves_eval(idx, tl_fixture_node(fx, "evaluate(linear, loader)", 0)));
	/* Through the helper, its parameter mapped to the trained model. */
	assert_true(tl_check_leaves_eval(idx, tl_fixture_node(fx, "evaluate(model, loader)", 0)));
	/* Never trained: nothing is left in the wrong mode. */
	assert_false(tl_check_leaves_eval(idx, tl_fixture_node(fx, "teacher.eval()", 0)));
	/* Switched back at the top of the next iteration. */
	assert_false(tl_check_leaves_eval(idx, tl_fixture_node_after(fx, "def fit_ok", "model.eval()")));
	/* The helper's own eval is in no training loop. */
	assert_false(tl_check_leaves_eval(idx, tl_fixture_node(fx, "net.eval()", 0)));
	tl_fixture_free(fx);
}

/* ---- recurrent state ------------------------------------------------------------ */

/* The node with text `text` at its first occurrence after `anchor`, itself
 * searched after `scope`: ("def a(", "out, h", "h") is the target `h`. */
static TSNode node_in(TlFixture *fx, const char *scope, const char *anchor, const char *text)
{
	const char *sc = strstr(fx->src.text, scope);
	assert_non_null(sc);
	const char *a = strstr(sc, anchor);
	assert_non_null(a);
	const char *p = strstr(a, text);
	assert_non_null(p);
	return tl_fixture_node_span(fx, (uint32_t)(p - fx->src.text), (uint32_t)strlen(text));
}

static void test_carried_state(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"from torch import nn\n"
		"from utils import repack\n"
		"def repackage(h):\n"
		"    if isinstance(h, torch.Tensor):\n"
		"        return h.detach()\n"
		"    return tuple(repackage(v) for v in h)\n"
		"def a(loader, h):\n"
		"    rnn = nn.GRU(4, 4)\n"
		"    for x in loader:\n"
		"        out, h = rnn(x, h)\n"
		"        out.sum().backward()\n"
		"def b(loader, h):\n"
		"    rnn = nn.GRU(4, 4)\n"
		"    for x in loader:\n"
		"        h = repackage(h)\n"
		"        out, h = rnn(x, h)\n"
		"        out.sum().backward()\n"
		"def c(loader, h):\n"
		"    rnn = nn.GRU(4, 4)\n"
		"    for x in loader:\n"
		"        h = repack(h)\n"
		"        out, h = rnn(x, h)\n"
		"        out.sum().backward()\n"
		"def d(loader):\n"
		"    rnn = nn.GRU(4, 4)\n"
		"    for x in loader:\n"
		"        h = torch.zeros(1, 4)\n"
		"        out, h = rnn(x, h)\n"
		"        out.sum().backward()\n"
		"def e(loader, h):\n"
		"    rnn = nn.GRU(4, 4)\n"
		"    for x in loader:\n"
		"        out, h = rnn(x, h)\n"
		"def f(loader, h):\n"
		"    rnn = nn.GRU(4, 4)\n"
		"    for x in loader:\n"
		"        for s in h:\n"
		"            s.detach_()\n"
		"        out, h = rnn(x, h)\n"
		"        out.sum().backward()\n");
	const TlIndex *idx = &fx->idx;
	assert_int_equal(tl_check_carried_state(idx, node_in(fx, "def a(", "out, h", "h")),
			 TL_CARRY_ATTACHED);
	/* A local helper that detaches (recursively for tuples). */
	assert_int_equal(tl_check_carried_state(idx, node_in(fx, "def b(", "out, h", "h")),
			 TL_CARRY_DETACHED);
	/* A helper from another file the project does not have: what it
	 * returns is not known to keep the history (no finding). */
	assert_int_not_equal(tl_check_carried_state(idx, node_in(fx, "def c(", "out, h", "h")),
			     TL_CARRY_ATTACHED);
	/* Afresh every iteration. */
	assert_int_equal(tl_check_carried_state(idx, node_in(fx, "def d(", "out, h", "h")),
			 TL_CARRY_NONE);
	/* No backward in the loop. */
	assert_int_equal(tl_check_carried_state(idx, node_in(fx, "def e(", "out, h", "h")),
			 TL_CARRY_NONE);
	/* In place, element by element. */
	assert_int_equal(tl_check_carried_state(idx, node_in(fx, "def f(", "out, h", "h")),
			 TL_CARRY_DETACHED);
	tl_fixture_free(fx);
}

/* ---- graphs backpropagated again --------------------------------------------------- */

static void test_graph_reused(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"from torch import nn\n"
		"from torch.utils.data import DataLoader\n"
		"def main(ds, heads):\n"
		"    loader = DataLoader(ds)\n"
		"    model = nn.Linear(4, 2)\n"
		"    trunk = nn.Linear(4, 4)\n"
		"    for x, y in loader:\n"
		"        loss = nn.functional.mse_loss(model(x), y)\n"
		"        loss.backward(retain_graph=True)\n"
		"    for x, y in loader:\n"
		"        a = model(x).sum()\n"
		"        a.backward(retain_graph=True)\n"
		"        model(x).mean().backward()\n"
		"    for x, y in loader:\n"
		"        feat = trunk(x)\n"
		"        for head in heads:\n"
		"            head(feat).sum().backward(retain_graph=True)\n"
		"    for x, y in loader:\n"
		"        g = model(x).sum()\n"
		"        g.backward(retain_graph=True)\n"
		"        torch.autograd.grad(g, x)\n");
	const TlIndex *idx = &fx->idx;
	/* One backward of a graph made in the iteration. */
	assert_false(tl_check_graph_reused(idx, tl_fixture_node(fx, "loss.backward(retain_graph=True)", 0)));
	/* A second backward in the iteration. */
	assert_true(tl_check_graph_reused(idx, tl_fixture_node(fx, "a.backward(retain_graph=True)", 0)));
	/* A trunk output made before the inner loop. */
	assert_true(tl_check_graph_reused(idx, tl_fixture_node(fx, "head(feat).sum().backward(retain_graph=True)", 0)));
	/* torch.autograd.grad reads the graph again. */
	assert_true(tl_check_graph_reused(idx, tl_fixture_node(fx, "g.backward(retain_graph=True)", 0)));
	tl_fixture_free(fx);
}

/* ---- known tensors ----------------------------------------------------------------- */

static void test_known_tensor(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"from torch import nn\n"
		"from torch.utils.data import DataLoader\n"
		"def f(ds, items, t: torch.Tensor, model):\n"
		"    loader = DataLoader(ds)\n"
		"    net = nn.Linear(4, 2)\n"
		"    m = torch.ones(3).float()\n"
		"    for x, y in loader:\n"
		"        chk(x)\n"
		"    for i, (xe, ye) in enumerate(loader):\n"
		"        chk(xe)\n"
		"        chk(i)\n"
		"    for batch in loader:\n"
		"        chk(batch)\n"
		"        chk(batch[0])\n"
		"    for a, b in items:\n"
		"        chk(a)\n"
		"    chk(t)\n"
		"    chk(m)\n"
		"    chk(net)\n"
		"    chk(model)\n"
		"    model.train()\n");
	const TlIndex *idx = &fx->idx;
	assert_true(tl_facts_is_tensor(idx, tl_fixture_arg0(fx, "chk(x)")));
	assert_true(tl_facts_is_tensor(idx, tl_fixture_arg0(fx, "chk(xe)")));
	assert_true(tl_facts_is_tensor(idx, tl_fixture_arg0(fx, "chk(batch[0])")));
	assert_true(tl_facts_is_tensor(idx, tl_fixture_arg0(fx, "chk(t)")));
	assert_true(tl_facts_is_tensor(idx, tl_fixture_arg0(fx, "chk(m)")));
	/* The enumerate counter, a whole batch, items of an unknown iterable,
	 * modules. */
	assert_false(tl_facts_is_tensor(idx, tl_fixture_arg0(fx, "chk(i)")));
	assert_false(tl_facts_is_tensor(idx, tl_fixture_arg0(fx, "chk(batch)")));
	assert_false(tl_facts_is_tensor(idx, tl_fixture_arg0(fx, "chk(a)")));
	assert_false(tl_facts_is_tensor(idx, tl_fixture_arg0(fx, "chk(net)")));
	assert_false(tl_facts_is_tensor(idx, tl_fixture_arg0(fx, "chk(model)")));
	tl_fixture_free(fx);
}

/* A parameter annotated as a type that is no tensor (a container, a
 * string, a number, a class it imports), an instance of a class the file
 * defines that is no tensor subclass, is no tensor, decided without
 * building the module's model (which would read the modules it imports);
 * one annotated as a tensor, an optional tensor or a TypeVar is what its
 * callers pass. */
static void test_known_tensor_annotation(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"from typing import Optional, Set, TypeVar, Union\n"
		"from .observers import ObserverBase\n"
		"T = TypeVar('T')\n"
		"def f(seen: Set[str], memo: Optional[typing.Dict[str, int]], names: list, t: torch.Tensor,\n"
		"      obs: ObserverBase, u: Union[int, str, None], o: Optional[torch.Tensor], v: T):\n"
		"    seen.add(1)\n"
		"    memo.add(2)\n"
		"    names.add(3)\n"
		"    obs.add(4)\n"
		"    u.add(5)\n"
		"    t.add(6)\n"
		"    o.add(7)\n"
		"    v.add(8)\n"
		"def g():\n"
		"    f(set(), None, [], torch.ones(1), None, 1, torch.ones(2), torch.ones(3))\n"
		"class Trie:\n"
		"    pass\n"
		"class Boxed(torch.Tensor):\n"
		"    pass\n"
		"trie = Trie()\n"
		"trie.add(9)\n"
		"boxed = Boxed()\n"
		"boxed.add(10)\n");
	const TlIndex *idx = &fx->idx;
	assert_false(tl_facts_is_tensor(idx, tl_fixture_node_after(fx, "seen.add", "seen")));
	assert_false(tl_facts_is_tensor(idx, tl_fixture_node_after(fx, "memo.add", "memo")));
	assert_false(tl_facts_is_tensor(idx, tl_fixture_node_after(fx, "names.add", "names")));
	assert_false(tl_facts_is_tensor(idx, tl_fixture_node_after(fx, "obs.add", "obs")));
	assert_false(tl_facts_is_tensor(idx, tl_fixture_node_after(fx, " u.add", "u")));
	assert_false(tl_facts_is_tensor(idx, tl_fixture_node_after(fx, "trie.add", "trie")));
	assert_null(idx->model);
	/* an instance of a tensor subclass: the model is asked */
	(void)tl_facts_is_tensor(idx, tl_fixture_node_after(fx, "boxed.add", "boxed"));
	assert_non_null(idx->model);
	/* a tensor, optional or not, and a TypeVar: the model's answer (what
	 * g passes) */
	assert_true(tl_facts_is_tensor(idx, tl_fixture_node_after(fx, " t.add", "t")));
	assert_true(tl_facts_is_tensor(idx, tl_fixture_node_after(fx, " o.add", "o")));
	assert_true(tl_facts_is_tensor(idx, tl_fixture_node_after(fx, " v.add", "v")));
	tl_fixture_free(fx);
}

/* ---- wrappers and autocast devices ---------------------------------------------------- */

static void test_wrapper_module(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"from torch import nn\n"
		"from torch.nn.parallel import DistributedDataParallel as DDP\n"
		"from torch.distributed.nn import RemoteModule\n"
		"net = nn.Linear(4, 2)\n"
		"ddp = DDP(net)\n"
		"remote = RemoteModule('w/cpu', nn.Linear, args=(4, 2))\n"
		"def f(remote_module, model):\n"
		"    chk(remote_module)\n"
		"    chk(model)\n"
		"chk(net)\n"
		"chk(ddp)\n"
		"chk(remote)\n");
	const TlIndex *idx = &fx->idx;
	assert_true(tl_check_is_wrapper_module(idx, tl_fixture_arg0(fx, "chk(ddp)")));
	assert_true(tl_check_is_wrapper_module(idx, tl_fixture_arg0(fx, "chk(remote)")));
	assert_true(tl_check_is_wrapper_module(idx, tl_fixture_arg0(fx, "chk(remote_module)")));
	assert_false(tl_check_is_wrapper_module(idx, tl_fixture_arg0(fx, "chk(net)")));
	assert_false(tl_check_is_wrapper_module(idx, tl_fixture_arg0(fx, "chk(model)")));
	tl_fixture_free(fx);
}

static void test_device_autocast(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"with torch.autocast('cuda'):\n"
		"    a = 1\n"
		"    with torch.autocast('cuda', enabled=False):\n"
		"        b = 1\n"
		"with torch.autocast(device_type='cpu', dtype=torch.bfloat16):\n"
		"    c = 1\n"
		"with torch.cpu.amp.autocast():\n"
		"    d = 1\n");
	const TlIndex *idx = &fx->idx;
	const uint32_t gpu = TL_CTX_AUTOCAST | TL_CTX_NOT_CPU;
	assert_true(tl_facts_under(idx, tl_fixture_node(fx, "a = 1", 0), gpu));
	/* Switched off inside: full precision. */
	assert_false(tl_facts_under(idx, tl_fixture_node(fx, "b = 1", 0), TL_CTX_AUTOCAST));
	/* CPU autocast is autocast, but not on a GPU device. */
	assert_true(tl_facts_under(idx, tl_fixture_node(fx, "c = 1", 0), TL_CTX_AUTOCAST));
	assert_false(tl_facts_under(idx, tl_fixture_node(fx, "c = 1", 0), gpu));
	assert_false(tl_facts_under(idx, tl_fixture_node(fx, "d = 1", 0), gpu));
	tl_fixture_free(fx);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_made_by),
		cmocka_unit_test(test_model_output),
		cmocka_unit_test(test_loss_kind),
		cmocka_unit_test(test_loss_kind_of_parameter),
		cmocka_unit_test(test_float32_value),
		cmocka_unit_test(test_step_unreset),
		cmocka_unit_test(test_reset_before_step),
		cmocka_unit_test(test_leaves_eval),
		cmocka_unit_test(test_carried_state),
		cmocka_unit_test(test_graph_reused),
		cmocka_unit_test(test_known_tensor),
		cmocka_unit_test(test_known_tensor_annotation),
		cmocka_unit_test(test_wrapper_module),
		cmocka_unit_test(test_device_autocast),
	};
	return cmocka_run_group_tests_name("facts-catalog", tests, NULL, NULL);
}
