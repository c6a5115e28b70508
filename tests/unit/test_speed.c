/* Unit tests for the facts behind the speed, precision and safety rules:
 * step loops (index), every-N-steps guards, step-loop membership, loop
 * invariance, known and device tensors, devices and moves, host-made
 * factories, DataLoader batches, gradient accumulation and DDP, scratch
 * values, API kinds, keywords and the torch-version predicate. (Host
 * copies of device data are test_model_host.c's.) */
#include "helpers.h"

#include "base/alloc.h"
#include "facts/facts.h"
#include "model/model.h"
#include "rules/checks/checks.h"
#include "rules/predicates.h"

/* The loop whose header starts with `header` ("for x in loader"). */
static const TlLoop *loop_at(TlFixture *fx, const char *header)
{
	const char *p = strstr(fx->src.text, header);
	assert_non_null(p);
	uint32_t at = (uint32_t)(p - fx->src.text);
	for (uint32_t i = 0; i < fx->idx.loops.size; i++)
		if (ts_node_start_byte(fx->idx.loops.items[i].node) == at)
			return &fx->idx.loops.items[i];
	fail_msg("no loop at '%s'", header);
	return NULL;
}

/* ---- step loops in the index ------------------------------------------------- */

static const char loops_code[] =
	"import torch\n"
	"def train_one_epoch(model, loader, opt):\n"
	"    model.train()\n"
	"    for x, y in loader:\n"
	"        opt.zero_grad()\n"
	"        model(x).sum().backward()\n"
	"        opt.step()\n"
	"def fit(model, loader, opt, epochs):\n"
	"    for epoch in range(epochs):\n"
	"        train_one_epoch(model, loader, opt)\n"
	"def fit_inline(model, loader, opt, epochs):\n"
	"    for ep in range(epochs):\n"
	"        for xb, yb in loader:\n"
	"            model(xb).sum().backward()\n"
	"            opt.step()\n"
	"        with torch.no_grad():\n"
	"            model(yb)\n"
	"def step(model, x, opt):\n"
	"    model(x).sum().backward()\n"
	"    opt.step()\n"
	"def via_helper(model, loader, opt):\n"
	"    for xh in loader:\n"
	"        step(model, xh, opt)\n"
	"def evaluate(model, loader):\n"
	"    model.eval()\n"
	"    for xe in loader:\n"
	"        model(xe)\n"
	"def params(model):\n"
	"    for p in model.parameters():\n"
	"        p.grad = None\n";

static void test_step_loop_kinds(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(loops_code);
	/* The batch loop trains; the epoch loop around a call does not. */
	assert_int_equal(loop_at(fx, "for x, y in loader")->step, TL_STEP_TRAIN);
	assert_int_equal(loop_at(fx, "for epoch in")->step, 0);
	/* An epoch loop with an inner step loop and a forward of its own is
	 * no (evaluation) step loop either. */
	assert_int_equal(loop_at(fx, "for ep in")->step, 0);
	assert_true(loop_at(fx, "for ep in")->own_events & TL_EV_FORWARD);
	assert_int_equal(loop_at(fx, "for xb, yb in")->step, TL_STEP_TRAIN);
	/* A helper's backward and step count for the loop that calls it. */
	assert_int_equal(loop_at(fx, "for xh in")->step, TL_STEP_TRAIN);
	assert_true(loop_at(fx, "for xh in")->own_events & TL_EV_BACKWARD);
	/* A forward-only loop evaluates; a parameter loop is no step loop. */
	assert_int_equal(loop_at(fx, "for xe in")->step, TL_STEP_EVAL);
	assert_int_equal(loop_at(fx, "for p in")->step, 0);
	assert_true(loop_at(fx, "for p in")->own_events & TL_EV_GRAD_RESET);
	tl_fixture_free(fx);
}

static void test_uses_device(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new("import torch\nx = torch.zeros(3)\ny = x.float()\n");
	assert_false(fx->idx.uses_device);
	tl_fixture_free(fx);
	fx = tl_fixture_new("import torch\nx = torch.zeros(3).to('cuda:1')\n");
	assert_true(fx->idx.uses_device);
	tl_fixture_free(fx);
	fx = tl_fixture_new("import torch\nd = torch.device('cuda')\nx = torch.zeros(3, device=d)\n");
	assert_true(fx->idx.uses_device);
	tl_fixture_free(fx);
	fx = tl_fixture_new("import torch\nx = torch.zeros(3).to('cpu')\n");
	assert_false(fx->idx.uses_device);
	tl_fixture_free(fx);
}

/* ---- every-N guards and step-loop membership ------------------------------------ */

static const char guards_code[] =
	"import torch\n"
	"def train(model, loader, opt, n, accelerator, should_log):\n"
	"    model.train()\n"
	"    for step, (x, y) in enumerate(loader):\n"
	"        loss = model(x).sum()\n"
	"        loss.backward()\n"
	"        opt.step()\n"
	"        a0(loss)\n"
	"        helper(loss)\n"
	"        if step % 100 == 0:\n"
	"            guarded_helper(loss)\n"
	"        if step % n == 0:\n"
	"            a1(loss)\n"
	"        if (step + 1) % n == 0 and step > 10:\n"
	"            a2(loss)\n"
	"        last = step == 99\n"
	"        if last or step % n == 0:\n"
	"            a3(loss)\n"
	"        if step > 0:\n"
	"            a4(loss)\n"
	"        if not step % n:\n"
	"            a5(loss)\n"
	"        if accelerator.sync_gradients:\n"
	"            a6(loss)\n"
	"        if should_log(step):\n"
	"            a7(loss)\n"
	"        is_log = step % 50 == 0\n"
	"        if is_log:\n"
	"            a8(loss)\n"
	"        if step % n == 0:\n"
	"            pass\n"
	"        elif step % 7 == 0:\n"
	"            a9(loss)\n"
	"        else:\n"
	"            b0(loss)\n"
	"        if step % n != 0:\n"
	"            b1(loss)\n"
	"        try:\n"
	"            b2(loss)\n"
	"        except RuntimeError:\n"
	"            b3(loss)\n"
	"        if step % n != 0:\n"
	"            continue\n"
	"        b4(loss)\n"
	"    b5(loss)\n"
	"def helper(l):\n"
	"    c0(l)\n"
	"def guarded_helper(l):\n"
	"    c1(l)\n"
	"def orphan(l):\n"
	"    c2(l)\n"
	"def evaluate(model, loader):\n"
	"    model.eval()\n"
	"    for xe in loader:\n"
	"        c3(model(xe))\n"
	"def rollout(model, policy, loader, opt):\n"
	"    for xr in loader:\n"
	"        for t in range(5):\n"
	"            c4(policy(xr))\n"
	"        model(xr).sum().backward()\n"
	"        opt.step()\n"
	"    policy.eval()\n";

static void test_every_n_guards(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(guards_code);
	const TlIndex *idx = &fx->idx;
	assert_false(tl_facts_under_every_n(idx, tl_fixture_node(fx, "a0(loss)", 0)));
	assert_true(tl_facts_under_every_n(idx, tl_fixture_node(fx, "a1(loss)", 0)));
	assert_true(tl_facts_under_every_n(idx, tl_fixture_node(fx, "a2(loss)", 0)));
	/* `or`: rare on both sides (an equality bound to a name). */
	assert_true(tl_facts_under_every_n(idx, tl_fixture_node(fx, "a3(loss)", 0)));
	assert_false(tl_facts_under_every_n(idx, tl_fixture_node(fx, "a4(loss)", 0)));
	assert_true(tl_facts_under_every_n(idx, tl_fixture_node(fx, "a5(loss)", 0)));
	assert_true(tl_facts_under_every_n(idx, tl_fixture_node(fx, "a6(loss)", 0)));
	assert_true(tl_facts_under_every_n(idx, tl_fixture_node(fx, "a7(loss)", 0)));
	assert_true(tl_facts_under_every_n(idx, tl_fixture_node(fx, "a8(loss)", 0)));
	/* elif with a modulo test guards; the final else does not. */
	assert_true(tl_facts_under_every_n(idx, tl_fixture_node(fx, "a9(loss)", 0)));
	assert_false(tl_facts_under_every_n(idx, tl_fixture_node(fx, "b0(loss)", 0)));
	/* `!=` holds on most steps. */
	assert_false(tl_facts_under_every_n(idx, tl_fixture_node(fx, "b1(loss)", 0)));
	/* try body runs every step; the except clause only on failure. */
	assert_false(tl_facts_under_every_n(idx, tl_fixture_node(fx, "b2(loss)", 0)));
	assert_true(tl_facts_under_every_n(idx, tl_fixture_node(fx, "b3(loss)", 0)));
	/* After `if step % n != 0: continue`. */
	assert_true(tl_facts_under_every_n(idx, tl_fixture_node(fx, "b4(loss)", 0)));
	tl_fixture_free(fx);
}

static void test_in_step_loop(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(guards_code);
	const TlIndex *idx = &fx->idx;
	const uint32_t any = TL_STEP_TRAIN | TL_STEP_EVAL;
	assert_true(tl_facts_in_step_loop(idx, tl_fixture_node(fx, "a0(loss)", 0), any, true));
	/* Guarded: in the step loop, but not on every step. */
	assert_true(tl_facts_in_step_loop(idx, tl_fixture_node(fx, "a1(loss)", 0), any, false));
	assert_false(tl_facts_in_step_loop(idx, tl_fixture_node(fx, "a1(loss)", 0), any, true));
	/* After the loop. */
	assert_false(tl_facts_in_step_loop(idx, tl_fixture_node(fx, "b5(loss)", 0), any, false));
	/* Through call sites: a helper called every step, one called under a
	 * guard, one never called. */
	assert_true(tl_facts_in_step_loop(idx, tl_fixture_node(fx, "c0(l)", 0), TL_STEP_TRAIN, true));
	assert_true(tl_facts_in_step_loop(idx, tl_fixture_node(fx, "c1(l)", 0), TL_STEP_TRAIN, false));
	assert_false(tl_facts_in_step_loop(idx, tl_fixture_node(fx, "c1(l)", 0), TL_STEP_TRAIN, true));
	assert_false(tl_facts_in_step_loop(idx, tl_fixture_node(fx, "c2(l)", 0), any, false));
	/* An evaluation loop is a step loop, but not a training one. */
	assert_true(tl_facts_in_step_loop(idx, tl_fixture_node(fx, "c3(model(xe))", 0), any, true));
	assert_false(tl_facts_in_step_loop(idx, tl_fixture_node(fx, "c3(model(xe))", 0),
					  TL_STEP_TRAIN, true));
	/* A rollout loop inside a training step: the innermost step loop
	 * (evaluation) decides. */
	assert_true(tl_facts_in_step_loop(idx, tl_fixture_node(fx, "c4(policy(xr))", 0), any, true));
	assert_false(tl_facts_in_step_loop(idx, tl_fixture_node(fx, "c4(policy(xr))", 0),
					  TL_STEP_TRAIN, true));
	tl_fixture_free(fx);
}

/* ---- loop invariance ------------------------------------------------------------- */

static const char invariant_code[] =
	"import torch\n"
	"import torch.nn as nn\n"
	"model = nn.Linear(4, 2)\n"
	"w = torch.ones(4)\n"
	"buf = torch.zeros(4)\n"
	"out_buf = torch.zeros(4)\n"
	"rr = torch.ones(4)\n"
	"def prior_term(prior, device):\n"
	"    return prior.to(device)\n"
	"class T:\n"
	"    def __init__(self):\n"
	"        self.stable = torch.ones(2)\n"
	"        self.swapped = torch.ones(2)\n"
	"    def swap(self):\n"
	"        self.swapped = torch.zeros(2)\n"
	"    def fit(self, loader, device):\n"
	"        for xs in loader:\n"
	"            self.stable.to(device)\n"
	"            self.swapped.to(device)\n"
	"for x in loader:\n"
	"    w.to(device)\n"
	"    x.to(device)\n"
	"    buf.copy_(x)\n"
	"    buf.to(device)\n"
	"    torch.add(x, 1, out=out_buf)\n"
	"    out_buf.to(device)\n"
	"    rr = rr * 2\n"
	"    rr.to(device)\n"
	"    model = model.to(device)\n"
	"    model.cuda()\n"
	"    [t.to(device) for t in x]\n"
	"    prior_term(w, device)\n"
	"    prior_term(x, device)\n"
	"    torch.zeros(4, 2).sum()\n"
	"    torch.zeros(x.size(0)).sum()\n"
	"    torch.randn(torch.randint(1, 5, (1,)).item()).sum()\n";

static void test_loop_invariant(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(invariant_code);
	const TlIndex *idx = &fx->idx;
	assert_true(tl_facts_loop_invariant(idx, tl_fixture_receiver(fx, "w.to(device)")));
	/* The loop target, a buffer refilled in place, an `out=` target, a
	 * name re-bound in the loop. */
	assert_false(tl_facts_loop_invariant(idx, tl_fixture_receiver(fx, "x.to(device)")));
	assert_false(tl_facts_loop_invariant(idx, tl_fixture_receiver(fx, "buf.to(device)")));
	assert_false(tl_facts_loop_invariant(idx, tl_fixture_receiver(fx, "out_buf.to(device)")));
	assert_false(tl_facts_loop_invariant(idx, tl_fixture_receiver(fx, "rr.to(device)")));
	/* A module moved onto itself keeps the same object. */
	assert_true(tl_facts_loop_invariant(idx, tl_fixture_receiver(fx, "model.cuda()")));
	/* A comprehension variable changes per element. */
	assert_false(tl_facts_loop_invariant(idx, tl_fixture_receiver(fx, "t.to(device)")));
	/* Attributes: bound only in __init__, or re-bound in another method. */
	assert_true(tl_facts_loop_invariant(idx, tl_fixture_receiver(fx, "self.stable.to(device)")));
	assert_false(tl_facts_loop_invariant(idx, tl_fixture_receiver(fx, "self.swapped.to(device)")));
	/* A parameter follows its arguments: `w` and `x` are both passed. */
	assert_false(tl_facts_loop_invariant(idx, tl_fixture_receiver(fx, "prior.to(device)")));
	/* Shapes: constant, from the batch, from a random draw. */
	assert_true(tl_facts_loop_invariant(idx, tl_fixture_arg0(fx, "torch.zeros(4, 2)")));
	assert_false(tl_facts_loop_invariant(idx, tl_fixture_arg0(fx, "torch.zeros(x.size(0))")));
	assert_false(tl_facts_loop_invariant(idx, tl_fixture_arg0(fx, "torch.randn(torch.randint(1, 5, (1,)).item())")));
	tl_fixture_free(fx);
}

static void test_loop_invariant_through_call_sites(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def term(prior, device):\n"
		"    return prior.to(device)\n"
		"w = torch.ones(4)\n"
		"for x in loader:\n"
		"    term(w, device)\n"
		"    term(prior=w, device=device)\n");
	assert_true(tl_facts_loop_invariant(&fx->idx, tl_fixture_receiver(fx, "prior.to(device)")));
	tl_fixture_free(fx);
}

/* ---- tensors, devices, moves --------------------------------------------------------- */

static const char tensors_code[] =
	"import numpy as np\n"
	"import torch\n"
	"import torch.nn as nn\n"
	"import torch.nn.functional as F\n"
	"from torch.autograd import Variable\n"
	"from torch.utils.data import DataLoader\n"
	"device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
	"cpu = torch.device('cpu')\n"
	"local_rank = int(os.environ['LOCAL_RANK'])\n"
	"model = nn.Linear(4, 2).to(device)\n"
	"loader = DataLoader(ds, batch_size=4)\n"
	"def f(t: torch.Tensor, u):\n"
	"    chk(t)\n"
	"    chk(u)\n"
	"for xb, yb in loader:\n"
	"    xd = xb.to(device)\n"
	"    out = model(xd)\n"
	"    pred = out.argmax(1)\n"
	"    host = pred.cpu()\n"
	"    z = torch.zeros(3)\n"
	"    zd = torch.zeros(3, device=device)\n"
	"    arr = np.zeros(3)\n"
	"    top = out.topk(1).values\n"
	"    total = torch.zeros((), device=device)\n"
	"    total += out.sum()\n"
	"    chk(xb)\n"
	"    chk(xd)\n"
	"    chk(out)\n"
	"    chk(pred)\n"
	"    chk(host)\n"
	"    chk(z)\n"
	"    chk(zd)\n"
	"    chk(arr)\n"
	"    chk(top)\n"
	"    chk(total)\n"
	"    chk(model)\n"
	"    chk(out.shape)\n"
	"    torch.zeros(3).cuda()\n"
	"    torch.ones(3).to(device)\n"
	"    torch.ones(3).to(torch.float16)\n"
	"    torch.ones(3).to(cpu)\n"
	"    torch.ones(3).to(local_rank)\n"
	"    torch.ones(3).to(device=device)\n"
	"    Variable(torch.ones(3)).cuda()\n"
	"    torch.randn(3).float().cuda()\n"
	"    torch.randn(3, device=device).cuda()\n"
	"    torch.randn(3, device='cpu').cuda()\n"
	"    torch.randn_like(xd).cuda()\n"
	"f(xb, 3)\n";

static void test_known_and_device_tensors(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(tensors_code);
	const TlIndex *idx = &fx->idx;
	assert_true(tl_facts_is_tensor(idx, tl_fixture_arg0(fx, "chk(xb)")));
	assert_true(tl_facts_is_tensor(idx, tl_fixture_arg0(fx, "chk(out)")));
	assert_true(tl_facts_is_tensor(idx, tl_fixture_arg0(fx, "chk(z)")));
	assert_true(tl_facts_is_tensor(idx, tl_fixture_arg0(fx, "chk(t)")));
	assert_false(tl_facts_is_tensor(idx, tl_fixture_arg0(fx, "chk(arr)")));
	assert_false(tl_facts_is_tensor(idx, tl_fixture_arg0(fx, "chk(u)")));
	/* On the device: moved, a forward, methods of those, made there, a
	 * field of a result, an accumulated total. */
	assert_true(tl_check_on_device(idx, tl_fixture_arg0(fx, "chk(xd)")));
	assert_true(tl_check_on_device(idx, tl_fixture_arg0(fx, "chk(out)")));
	assert_true(tl_check_on_device(idx, tl_fixture_arg0(fx, "chk(pred)")));
	assert_true(tl_check_on_device(idx, tl_fixture_arg0(fx, "chk(zd)")));
	assert_true(tl_check_on_device(idx, tl_fixture_arg0(fx, "chk(top)")));
	assert_true(tl_check_on_device(idx, tl_fixture_arg0(fx, "chk(total)")));
	/* Not: a batch not moved, a host copy, a host factory, numpy, a
	 * module, a shape. */
	assert_false(tl_check_on_device(idx, tl_fixture_arg0(fx, "chk(xb)")));
	assert_false(tl_check_on_device(idx, tl_fixture_arg0(fx, "chk(host)")));
	assert_false(tl_check_on_device(idx, tl_fixture_arg0(fx, "chk(z)")));
	assert_false(tl_check_on_device(idx, tl_fixture_arg0(fx, "chk(arr)")));
	assert_false(tl_check_on_device(idx, tl_fixture_arg0(fx, "chk(model)")));
	assert_false(tl_check_on_device(idx, tl_fixture_arg0(fx, "chk(out.shape)")));
	tl_fixture_free(fx);
}

/* A builtin called by its bare name with nothing passed (`set()`) has no
 * history: known-tensor answers for `seen.add(x)` without interpreting
 * the file's model, as the model answers; a local function of that name
 * is asked of the model. */
static const char builtin_code[] =
	"import torch\n"
	"import torch.nn as nn\n"
	"net = nn.Linear(2, 2)\n"
	"def f(xs):\n"
	"    seen = set()\n"
	"    for x in xs:\n"
	"        seen.add(x)\n"
	"    return seen\n"
	"def g(x):\n"
	"    def set():\n"
	"        return net(x)\n"
	"    out = set()\n"
	"    out.add(x)\n";

static void test_bare_builtin_not_interpreted(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(builtin_code);
	const TlIndex *idx = &fx->idx;
	assert_false(tl_facts_is_tensor(idx, tl_fixture_receiver(fx, "seen.add(x)")));
	assert_null(idx->model);
	/* The model, interpreted, agrees: no history. */
	TSNode made = tl_fixture_node(fx, "set()", 0);
	TlVal v;
	assert_true(tl_model_value(idx, made, &v));
	assert_true(v.graph != TL_VG_MUST && v.graph != TL_VG_MAY);
	/* `set` bound by the file: the model says. */
	assert_true(tl_facts_is_tensor(idx, tl_fixture_receiver(fx, "out.add(x)")));
	tl_fixture_free(fx);
}

/* kept-by-callee asks the model whether the receiver is kept across the
 * training step only for a method of a class of the project: `opt` and
 * `meter` here are parameters of no known class, and the file's model is
 * not interpreted for them; a local meter class is asked of it. */
static const char callee_code[] =
	"import torch\n"
	"class Meter:\n"
	"    def __init__(self):\n"
	"        self.total = 0\n"
	"    def update(self, val):\n"
	"        self.total += val\n"
	"def train(model, loader, opt, meter):\n"
	"    for x, y in loader:\n"
	"        opt.zero_grad()\n"
	"        loss = model(x).sum()\n"
	"        loss.backward()\n"
	"        opt.step()\n"
	"        meter.record(loss)\n"
	"def fit(model, loader, opt):\n"
	"    tracker = Meter()\n"
	"    for x, y in loader:\n"
	"        opt.zero_grad()\n"
	"        out = model(x).sum()\n"
	"        out.backward()\n"
	"        opt.step()\n"
	"        tracker.update(out)\n";

static void test_kept_by_callee_not_interpreted(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(callee_code);
	const TlIndex *idx = &fx->idx;
	assert_false(tl_check_kept_by_callee(idx, tl_fixture_arg0(fx, "meter.record(loss)")));
	assert_null(idx->model);
	assert_true(tl_check_kept_by_callee(idx, tl_fixture_arg0(fx, "tracker.update(out)")));
	assert_non_null(idx->model);
	tl_fixture_free(fx);
}

static void test_devices_and_moves(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(tensors_code);
	const TlIndex *idx = &fx->idx;
	assert_true(tl_facts_moves_to_device(idx, tl_fixture_node(fx, "torch.zeros(3).cuda()", 0)));
	assert_true(tl_facts_moves_to_device(idx, tl_fixture_node(fx, "torch.ones(3).to(device)", 0)));
	assert_true(tl_facts_moves_to_device(idx, tl_fixture_node(fx, "torch.ones(3).to(local_rank)", 0)));
	assert_true(tl_facts_moves_to_device(idx, tl_fixture_node(fx, "torch.ones(3).to(device=device)", 0)));
	assert_false(tl_facts_moves_to_device(idx, tl_fixture_node(fx, "torch.ones(3).to(torch.float16)", 0)));
	assert_false(tl_facts_moves_to_device(idx, tl_fixture_node(fx, "torch.ones(3).to(cpu)", 0)));
	/* Host-made factories, through Variable and casts; not with a device. */
	assert_true(tl_facts_host_factory(idx, tl_fixture_receiver(fx, "torch.zeros(3).cuda()")));
	assert_true(tl_facts_host_factory(idx, tl_fixture_receiver(fx, "Variable(torch.ones(3)).cuda()")));
	assert_true(tl_facts_host_factory(idx, tl_fixture_receiver(fx, "torch.randn(3).float().cuda()")));
	assert_true(tl_facts_host_factory(idx, tl_fixture_receiver(fx, "torch.randn(3, device='cpu').cuda()")));
	assert_false(tl_facts_host_factory(idx, tl_fixture_receiver(fx, "torch.randn(3, device=device).cuda()")));
	assert_false(tl_facts_host_factory(idx, tl_fixture_receiver(fx, "torch.randn_like(xd).cuda()")));
	tl_fixture_free(fx);
}

/* ---- DataLoader batches ------------------------------------------------------------------ */

static const char loader_code[] =
	"import torch\n"
	"from torch.utils.data import DataLoader\n"
	"def make(ds):\n"
	"    return DataLoader(ds, batch_size=8, pin_memory=True)\n"
	"plain = DataLoader(ds, batch_size=8)\n"
	"pinned = make(ds)\n"
	"positional = DataLoader(ds, 8, True, None, None, 2, None, True)\n"
	"splat = DataLoader(ds, **kw)\n"
	"off = torch.utils.data.DataLoader(ds, pin_memory=False)\n"
	"def consume(loader):\n"
	"    for bx in loader:\n"
	"        chk(bx)\n"
	"consume(plain)\n"
	"for i, (a, b) in enumerate(plain):\n"
	"    chk(i)\n"
	"    chk(a)\n"
	"for batch in pinned:\n"
	"    chk(batch['x'])\n"
	"    for k, v in batch.items():\n"
	"        chk(v)\n"
	"for c in positional:\n"
	"    chk(c)\n"
	"for d in splat:\n"
	"    chk(d)\n"
	"for e in off:\n"
	"    chk(e)\n"
	"it = iter(plain)\n"
	"f, g = next(it)\n"
	"chk(f)\n"
	"for h in other_loader:\n"
	"    chk(h)\n";

static void test_loader_batches(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(loader_code);
	const TlIndex *idx = &fx->idx;
	assert_true(tl_check_from_loader(idx, tl_fixture_arg0(fx, "chk(bx)")));
	assert_true(tl_check_from_loader(idx, tl_fixture_arg0(fx, "chk(a)")));
	assert_true(tl_check_from_loader(idx, tl_fixture_arg0(fx, "chk(batch['x'])")));
	assert_true(tl_check_from_loader(idx, tl_fixture_arg0(fx, "chk(v)")));
	assert_true(tl_check_from_loader(idx, tl_fixture_arg0(fx, "chk(f)")));
	/* enumerate's counter; a loader the file does not build. */
	assert_false(tl_check_from_loader(idx, tl_fixture_arg0(fx, "chk(i)")));
	assert_false(tl_check_from_loader(idx, tl_fixture_arg0(fx, "chk(h)")));
	/* pin_memory: not set, set through a local factory, by position,
	 * possibly through **kwargs, set to False. */
	assert_false(tl_facts_loader_option(idx, tl_fixture_arg0(fx, "chk(bx)"), "pin_memory"));
	assert_false(tl_facts_loader_option(idx, tl_fixture_arg0(fx, "chk(a)"), "pin_memory"));
	assert_true(tl_facts_loader_option(idx, tl_fixture_arg0(fx, "chk(v)"), "pin_memory"));
	assert_true(tl_facts_loader_option(idx, tl_fixture_arg0(fx, "chk(c)"), "pin_memory"));
	assert_true(tl_facts_loader_option(idx, tl_fixture_arg0(fx, "chk(d)"), "pin_memory"));
	assert_false(tl_facts_loader_option(idx, tl_fixture_arg0(fx, "chk(e)"), "pin_memory"));
	assert_true(tl_facts_loader_option(idx, tl_fixture_arg0(fx, "chk(c)"), "shuffle"));
	tl_fixture_free(fx);
}

/* ---- gradient accumulation and DDP --------------------------------------------------------- */

static const char ddp_code[] =
	"import contextlib\n"
	"import torch\n"
	"from torch.nn.parallel import DistributedDataParallel as DDP\n"
	"model = DDP(net, device_ids=[0])\n"
	"plain = net\n"
	"for i, (x, y) in enumerate(loader):\n"
	"    loss = crit(model(x), y)\n"
	"    loss.backward()\n"
	"    if (i + 1) % 4 == 0:\n"
	"        opt.step()\n"
	"        opt.zero_grad()\n"
	"for j, (x, y) in enumerate(loader):\n"
	"    l2 = crit(plain(x), y)\n"
	"    l2.backward()\n"
	"    opt.step()\n"
	"    opt.zero_grad()\n"
	"for k, (x, y) in enumerate(loader):\n"
	"    with (contextlib.nullcontext() if (k + 1) % 4 == 0 else model.no_sync()):\n"
	"        l3 = crit(model.module(x), y)\n"
	"        l3.backward()\n"
	"    if (k + 1) % 4 == 0:\n"
	"        opt.step()\n"
	"for it in range(10):\n"
	"    for micro in range(4):\n"
	"        model.require_backward_grad_sync = micro == 3\n"
	"        l4 = crit(model(x), y)\n"
	"        l4.backward()\n"
	"    opt.step()\n";

static void test_accumulation_and_ddp(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(ddp_code);
	const TlIndex *idx = &fx->idx;
	TSNode b1 = tl_fixture_node(fx, "loss.backward()", 0);
	TSNode b2 = tl_fixture_node(fx, "l2.backward()", 0);
	TSNode b3 = tl_fixture_node(fx, "l3.backward()", 0);
	TSNode b4 = tl_fixture_node(fx, "l4.backward()", 0);
	/* Accumulation: a guarded step that does not hold the backward, a
	 * micro-batch loop; not: a step on every iteration. */
	assert_true(tl_check_accumulation_backward(idx, b1));
	assert_false(tl_check_accumulation_backward(idx, b2));
	assert_true(tl_check_accumulation_backward(idx, b3));
	assert_true(tl_check_accumulation_backward(idx, b4));
	/* Through a DDP forward; not a plain module's or `.module`'s. */
	assert_true(tl_check_backward_through(idx, b1, TL_WRAP_DDP));
	assert_false(tl_check_backward_through(idx, b2, TL_WRAP_DDP));
	assert_false(tl_check_backward_through(idx, b3, TL_WRAP_DDP));
	assert_true(tl_check_backward_through(idx, b4, TL_WRAP_DDP));
	assert_false(tl_check_backward_through(idx, b1, TL_WRAP_FSDP));
	/* no_sync: a conditional context; nanoGPT's flag. */
	assert_false(tl_check_no_sync(idx, b1));
	assert_true(tl_check_no_sync(idx, b3));
	assert_true(tl_check_no_sync(idx, b4));
	tl_fixture_free(fx);
}

/* ---- scratch values -------------------------------------------------------------------------- */

static void test_dies_in_iteration(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def mk():\n"
		"    return torch.ones(2)\n"
		"class C:\n"
		"    def run(self, loader, kept):\n"
		"        for x in loader:\n"
		"            a = torch.zeros(1)\n"
		"            use(a)\n"
		"            b = torch.zeros(2)\n"
		"            kept.append(b)\n"
		"            self.c = torch.zeros(3)\n"
		"            use(torch.zeros(4))\n"
		"            kept.append(torch.zeros(5))\n"
		"            m = mk()\n");
	const TlIndex *idx = &fx->idx;
	assert_true(tl_check_dies_in_iteration(idx, tl_fixture_node(fx, "torch.zeros(1)", 0)));
	assert_false(tl_check_dies_in_iteration(idx, tl_fixture_node(fx, "torch.zeros(2)", 0)));
	assert_false(tl_check_dies_in_iteration(idx, tl_fixture_node(fx, "torch.zeros(3)", 0)));
	assert_true(tl_check_dies_in_iteration(idx, tl_fixture_node(fx, "torch.zeros(4)", 0)));
	assert_false(tl_check_dies_in_iteration(idx, tl_fixture_node(fx, "torch.zeros(5)", 0)));
	/* Returned from a helper whose only call site drops it. */
	assert_true(tl_check_dies_in_iteration(idx, tl_fixture_node(fx, "torch.ones(2)", 0)));
	tl_fixture_free(fx);
}

/* ---- APIs, keywords, versions ------------------------------------------------------------------ */

static void test_api_kinds_and_keywords(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.utils.checkpoint as cp\n"
		"from torch.cuda.amp import autocast as ac\n"
		"from torch import load\n"
		"a = ac()\n"
		"b = torch.amp.autocast('cuda')\n"
		"c = load(p, weights_only=False)\n"
		"d = cp.checkpoint(f, x, **kw)\n"
		"e = cp.checkpoint(f, x)\n"
		"g = torch.cuda.empty_cache()\n"
		"h = json.load(p)\n");
	const TlIndex *idx = &fx->idx;
	assert_true(tl_facts_is_api(idx, tl_fixture_node(fx, "ac()", 0), TL_API_DEPRECATED_AMP));
	assert_false(tl_facts_is_api(idx, tl_fixture_node(fx, "torch.amp.autocast('cuda')", 0),
				    TL_API_DEPRECATED_AMP));
	assert_true(tl_facts_is_api(idx, tl_fixture_node(fx, "load(p, weights_only=False)", 0),
				   TL_API_TORCH_LOAD));
	assert_false(tl_facts_is_api(idx, tl_fixture_node(fx, "json.load(p)", 0), TL_API_TORCH_LOAD));
	assert_true(tl_facts_is_api(idx, tl_fixture_node(fx, "cp.checkpoint(f, x)", 0),
				   TL_API_ACTIVATION_CHECKPOINT));
	assert_true(tl_facts_is_api(idx, tl_fixture_node(fx, "torch.cuda.empty_cache()", 0),
				   TL_API_EMPTY_CACHE));
	/* A reference, not a call (a decorator without parentheses). */
	assert_true(tl_facts_is_api(idx, tl_fixture_node(fx, "ac", 1), TL_API_DEPRECATED_AMP));
	assert_true(tl_facts_passes_keyword(idx, tl_fixture_node(fx, "load(p, weights_only=False)", 0),
					   "weights_only"));
	/* **kw may hold it. */
	assert_true(tl_facts_passes_keyword(idx, tl_fixture_node(fx, "cp.checkpoint(f, x, **kw)", 0),
					   "use_reentrant"));
	assert_false(tl_facts_passes_keyword(idx, tl_fixture_node(fx, "cp.checkpoint(f, x)", 0),
					    "use_reentrant"));
	tl_fixture_free(fx);
}

static void test_torch_version_predicate(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new("x = 1\n");
	const TlPredicateDef *def = tl_predicate_find("torch-version-at-least", 22);
	assert_non_null(def);
	int v24 = tl_predicate_choice(def, "2.4"), v26 = tl_predicate_choice(def, "2.6");
	int v110 = tl_predicate_choice(def, "1.10");
	assert_true(v24 >= 0 && v26 >= 0 && v110 >= 0);
	assert_int_equal(tl_predicate_choice(def, "2.45"), -1);
	TSNode root = ts_tree_root_node(fx->tree);
	fx->idx.torch_version = 206;
	assert_true(tl_predicate_holds(def, &fx->idx, root, v24));
	assert_true(tl_predicate_holds(def, &fx->idx, root, v26));
	fx->idx.torch_version = 204;
	assert_true(tl_predicate_holds(def, &fx->idx, root, v24));
	assert_false(tl_predicate_holds(def, &fx->idx, root, v26));
	fx->idx.torch_version = 113;
	assert_false(tl_predicate_holds(def, &fx->idx, root, v24));
	assert_true(tl_predicate_holds(def, &fx->idx, root, v110));
	tl_fixture_free(fx);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_loop_kinds),
		cmocka_unit_test(test_uses_device),
		cmocka_unit_test(test_every_n_guards),
		cmocka_unit_test(test_in_step_loop),
		cmocka_unit_test(test_loop_invariant),
		cmocka_unit_test(test_loop_invariant_through_call_sites),
		cmocka_unit_test(test_known_and_device_tensors),
		cmocka_unit_test(test_bare_builtin_not_interpreted),
		cmocka_unit_test(test_kept_by_callee_not_interpreted),
		cmocka_unit_test(test_devices_and_moves),
		cmocka_unit_test(test_loader_batches),
		cmocka_unit_test(test_accumulation_and_ddp),
		cmocka_unit_test(test_dies_in_iteration),
		cmocka_unit_test(test_api_kinds_and_keywords),
		cmocka_unit_test(test_torch_version_predicate),
	};
	return cmocka_run_group_tests_name("speed", tests, NULL, NULL);
}
