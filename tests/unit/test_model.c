/* Unit tests for the semantic model (analyzer/model/): the lattice's joins
 * and widening, typed access paths, the interpreter's transfers (branches,
 * loops to a fixpoint, grad mode, containers and keys, patterns), function
 * summaries over the call graph (parameters followed, recursion, classes),
 * and its bounds. Values are asked by the node's text, as predicates ask. */
#include "helpers.h"

#include "model/model.h"
#include "model/path.h"
#include "model/value.h"

/* The model's value of the nth node whose text is `text`. */
static TlVal value_of(TlFixture *fx, const char *text, int nth)
{
	TlVal v;
	TSNode n = tl_fixture_node(fx, text, nth);
	if (!tl_model_value(&fx->idx, n, &v))
		fail_msg("no value for `%s` (#%d)", text, nth);
	return v;
}

static TlVal value_after(TlFixture *fx, const char *anchor, const char *text)
{
	TlVal v;
	TSNode n = tl_fixture_node_after(fx, anchor, text);
	if (!tl_model_value(&fx->idx, n, &v))
		fail_msg("no value for `%s` after `%s`", text, anchor);
	return v;
}

/* ---- the lattice ---------------------------------------------------------- */

static void test_graph_joins(void **state)
{
	(void)state;
	TlValPool p;
	tl_val_pool_init(&p);
	TlVal none = tl_val_of(TL_VK_TENSOR, TL_VG_NONE), must = tl_val_of(TL_VK_TENSOR, TL_VG_MUST);
	TlVal bot = tl_val_bot(), top = tl_val_top();
	TlVal j = tl_val_join(&p, &none, &must);
	assert_int_equal(j.graph, TL_VG_MAY);
	assert_int_equal(j.kind, TL_VK_TENSOR);
	j = tl_val_join(&p, &bot, &must);
	assert_true(tl_val_equal(&p, &j, &must));
	/* history on one path, nothing known of the other: history on some */
	j = tl_val_join(&p, &must, &top);
	assert_int_equal(j.graph, TL_VG_MAY);
	assert_int_equal(j.kind, TL_VK_TOP);
	/* none on one path, nothing known of the other: nothing known */
	j = tl_val_join(&p, &none, &top);
	assert_int_equal(j.graph, TL_VG_UNKNOWN);
	/* None joins as an optional */
	TlVal nothing = tl_val_of(TL_VK_NONE, TL_VG_NONE);
	j = tl_val_join(&p, &nothing, &must);
	assert_true(tl_val_equal(&p, &j, &must));
	/* kinds are flat */
	TlVal mod = tl_val_of(TL_VK_MODULE, TL_VG_NONE);
	j = tl_val_join(&p, &mod, &must);
	assert_int_equal(j.kind, TL_VK_TOP);
	tl_val_pool_release(&p);
}

static void test_containers(void **state)
{
	(void)state;
	TlValPool p;
	tl_val_pool_init(&p);
	TlVal must = tl_val_of(TL_VK_TENSOR, TL_VG_MUST), num = tl_val_of(TL_VK_NUMBER, TL_VG_NONE);
	TlVal t = tl_val_of(TL_VK_CONTAINER, TL_VG_NONE);
	int32_t last = tl_val_add_part(&p, &t, -1, &must);
	tl_val_add_part(&p, &t, last, &num);
	TlVal a = tl_val_part(&p, &t, 0), b = tl_val_part(&p, &t, 1);
	assert_int_equal(a.graph, TL_VG_MUST);
	assert_int_equal(b.kind, TL_VK_NUMBER);
	/* the element value is the join of the positions */
	TlVal e = tl_val_element(&p, &t);
	assert_int_equal(e.graph, TL_VG_MAY);
	/* a strong update of a key replaces it, and the element follows */
	TlVal d = tl_val_of(TL_VK_CONTAINER, TL_VG_NONE);
	d = tl_val_with_key(&p, &d, 7, &must);
	assert_int_equal(tl_val_element(&p, &d).graph, TL_VG_MUST);
	TlVal detached = tl_val_of(TL_VK_TENSOR, TL_VG_NONE);
	d = tl_val_with_key(&p, &d, 7, &detached);
	assert_int_equal(tl_val_keyed(&p, &d, 7).graph, TL_VG_NONE);
	assert_int_equal(tl_val_element(&p, &d).graph, TL_VG_NONE);
	/* nesting is cut at TL_VAL_NEST: the innermost element is the top */
	TlVal c = must;
	for (int i = 0; i < TL_VAL_NEST + 2; i++)
		c = tl_val_container(&p, &c);
	TlVal in = c;
	for (int i = 0; i < TL_VAL_NEST && in.kind == TL_VK_CONTAINER; i++)
		in = tl_val_element(&p, &in);
	assert_int_not_equal(in.kind, TL_VK_CONTAINER);
	tl_val_pool_release(&p);
}

static void test_widening(void **state)
{
	(void)state;
	TlValPool p;
	tl_val_pool_init(&p);
	TlVal none = tl_val_of(TL_VK_TENSOR, TL_VG_NONE), must = tl_val_of(TL_VK_TENSOR, TL_VG_MUST);
	TlVal w = tl_val_widen(&p, &none, &must);
	assert_int_equal(w.graph, TL_VG_UNKNOWN);
	TlVal same = tl_val_widen(&p, &must, &must);
	assert_true(tl_val_equal(&p, &same, &must));
	tl_val_pool_release(&p);
}

static void test_paths(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new("a.b.c = 1\nout['loss'] = 2\nx = out[\"loss\"]\nq = a.b.c.d.e.f.g.h\n");
	TlPathNames t;
	tl_path_names_init(&t);
	TlPath p1, p2, p3, p4, up;
	assert_true(tl_path_of(&t, &fx->idx, tl_fixture_node(fx, "a.b.c", 0), &p1));
	assert_int_equal(p1.n, 2);
	assert_true(tl_path_of(&t, &fx->idx, tl_fixture_node(fx, "a.b", 0), &p2));
	assert_true(tl_path_prefix(&p2, &p1));
	assert_false(tl_path_prefix(&p1, &p2));
	assert_true(tl_path_up(&p1, &up));
	assert_true(tl_path_equal(&up, &p2));
	/* 'loss' and "loss" are one key */
	assert_true(tl_path_of(&t, &fx->idx, tl_fixture_node(fx, "out['loss']", 0), &p3));
	assert_true(tl_path_of(&t, &fx->idx, tl_fixture_node(fx, "out[\"loss\"]", 0), &p4));
	assert_true(tl_path_equal(&p3, &p4));
	assert_int_equal(tl_path_hash(&p3), tl_path_hash(&p4));
	/* cut to TL_PATH_SELECTORS */
	TlPath longp;
	assert_true(tl_path_of(&t, &fx->idx, tl_fixture_node(fx, "a.b.c.d.e.f.g.h", 0), &longp));
	assert_int_equal(longp.n, TL_PATH_SELECTORS);
	assert_true(longp.cut);
	TlBuf b;
	tl_buf_init(&b);
	tl_path_print(&t, &p3, &b);
	assert_string_equal(b.data, "out[\"loss\"]");
	tl_buf_release(&b);
	/* not a path */
	TlFixture *fx2 = tl_fixture_new("f(x).y\n");
	TlPath none;
	assert_false(tl_path_of(&t, &fx2->idx, tl_fixture_node(fx2, "f(x).y", 0), &none));
	tl_fixture_free(fx2);
	tl_path_names_release(&t);
	tl_fixture_free(fx);
}

/* ---- the interpreter -------------------------------------------------------- */

static void test_flow_and_branches(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn.functional as F\n"
		"def f(model, x, y, flag):\n"
		"    loss = F.cross_entropy(model(x), y)\n"
		"    a = loss\n"
		"    n = loss.item()\n"
		"    d = loss.detach()\n"
		"    if flag:\n"
		"        b = loss\n"
		"    else:\n"
		"        b = d\n"
		"    with torch.no_grad():\n"
		"        e = model(x) * 2\n"
		"    return b\n");
	assert_int_equal(value_after(fx, "a = ", "loss").graph, TL_VG_MUST);
	assert_int_equal(value_of(fx, "loss.item()", 0).kind, TL_VK_NUMBER);
	assert_int_equal(value_of(fx, "loss.item()", 0).graph, TL_VG_NONE);
	assert_int_equal(value_of(fx, "loss.detach()", 0).graph, TL_VG_NONE);
	/* the join of the branches: history on one path */
	assert_int_equal(value_after(fx, "return ", "b").graph, TL_VG_MAY);
	/* made under no_grad */
	assert_int_equal(value_of(fx, "model(x) * 2", 0).graph, TL_VG_NONE);
	tl_fixture_free(fx);
}

/* The element value of the value of `text` after `anchor`. */
static TlVal elem_after(TlFixture *fx, const char *anchor, const char *text)
{
	TlVal v = value_after(fx, anchor, text);
	return tl_val_element(tl_model_pool(tl_model_of(&fx->idx)), &v);
}

/* The requires-grad flag a value follows (TlVal.pnograd): a parameter's
 * own bit, joined through arithmetic and torch functions, resolved at each
 * call with the argument at its position, by keyword, or the default. */
static void test_nograd_follows(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def grid(size, scale=1.0, shift=None):\n"
		"    xs = torch.linspace(-1, 1, 8) * scale\n"
		"    return {\"r\": torch.sqrt(xs ** 2 + size)}\n"
		"def use(n, w):\n"
		"    a = grid(4)\n"
		"    b = grid(size=n)\n"
		"    c = grid(4, scale=w)\n"
		"    d = grid(4, shift=w)\n"
		"    e = grid(*n)\n"
		"    return a, b, c, d, e\n");
	const TlValPool *p = tl_model_pool(tl_model_of(&fx->idx));
	TlVal ret;
	assert_true(tl_model_returns(&fx->idx, 0, &ret));
	/* the dict's position follows `size` (bit 0) and `scale` (bit 1) */
	TlVal r = tl_val_element(p, &ret);
	assert_int_equal(r.nograd, 0);
	assert_int_equal(r.pnograd, 3);
	/* literals and a literal default: requires none */
	assert_int_equal(elem_after(fx, "a = ", "grid(4)").nograd, 1);
	/* by keyword: follows use's own `n` (bit 0) */
	TlVal b = elem_after(fx, "b = ", "grid(size=n)");
	assert_int_equal(b.nograd, 0);
	assert_int_equal(b.pnograd, 1);
	/* `scale=w`: follows `w` (bit 1); `shift` is not read */
	assert_int_equal(elem_after(fx, "c = ", "grid(4, scale=w)").pnograd, 2);
	assert_int_equal(elem_after(fx, "d = ", "grid(4, shift=w)").nograd, 1);
	/* `*n` at the call: not known */
	TlVal e = elem_after(fx, "e = ", "grid(*n)");
	assert_int_equal(e.nograd, 0);
	assert_int_equal(e.pnograd, 0);
	tl_fixture_free(fx);
}

static void test_loop_fixpoint(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"def run(batches):\n"
		"    cell = nn.GRUCell(4, 4)\n"
		"    h = torch.zeros(2, 4)\n"
		"    losses = []\n"
		"    for x in batches:\n"
		"        h = cell(x, h)\n"
		"        losses.append(h.sum())\n"
		"        total = len(losses)\n"
		"    return losses, h\n");
	/* h at the loop head after the fixpoint: zeros on entry, a forward's
	 * output from the second iteration on */
	assert_int_equal(value_after(fx, "cell(x, ", "h").graph, TL_VG_MAY);
	TlVal l = value_after(fx, "return ", "losses");
	assert_int_equal(l.kind, TL_VK_CONTAINER);
	const TlValPool *p = tl_model_pool(tl_model_of(&fx->idx));
	assert_int_equal(tl_val_element(p, &l).graph, TL_VG_MUST);
	TlModelStats st;
	tl_model_stats(tl_model_of(&fx->idx), &st);
	assert_true(st.rounds >= 2);
	/* The loop's body ran in two rounds or more: its nodes' children
	 * were read from the tree once, then kept. */
	assert_true(st.kids_read > 0 && st.kids_read < st.kids_asked);
	tl_fixture_free(fx);
}

static void test_loop_widening(void **state)
{
	(void)state;
	/* a value that rises at every round (a list nested one deeper each
	 * time) is widened: the loop ends within its rounds */
	TlFixture *fx = tl_fixture_new(
		"def nest(xs):\n"
		"    acc = []\n"
		"    for x in xs:\n"
		"        acc = [acc, x]\n"
		"    return acc\n");
	TlVal acc = value_after(fx, "return ", "acc");
	assert_int_equal(acc.kind, TL_VK_CONTAINER);
	TlModelStats st;
	tl_model_stats(tl_model_of(&fx->idx), &st);
	/* each interpretation of nest() runs the loop at most 4 rounds */
	assert_true(st.functions >= 1);
	assert_true(st.rounds <= (TL_MODEL_LOOP_ROUNDS + 1) * st.functions);
	tl_fixture_free(fx);
}

static void test_keys_and_patterns(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn.functional as F\n"
		"def f(model, x, y):\n"
		"    out = {'loss': F.mse_loss(model(x), y), 'n': 3}\n"
		"    k = out['n']\n"
		"    out['loss'] = out['loss'].detach()\n"
		"    z = out['loss']\n"
		"    a, (b, c) = 1, (out, 2)\n"
		"    return c\n");
	assert_int_equal(value_after(fx, "k = ", "out['n']").kind, TL_VK_NUMBER);
	assert_int_equal(value_after(fx, "z = ", "out['loss']").graph, TL_VG_NONE);
	assert_int_equal(value_after(fx, "return ", "c").kind, TL_VK_NUMBER);
	TlVal b = value_after(fx, "a, (", "b");
	assert_int_equal(b.kind, TL_VK_CONTAINER);
	tl_fixture_free(fx);
}

/* ---- summaries ------------------------------------------------------------------ */

static void test_summaries(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"class Net(nn.Module):\n"
		"    def __init__(self):\n"
		"        super().__init__()\n"
		"        self.fc = nn.Linear(4, 2)\n"
		"    def forward(self, x):\n"
		"        return self.fc(x)\n"
		"def double(t):\n"
		"    return t * 2\n"
		"def count(t):\n"
		"    return t.item()\n"
		"def fact(n):\n"
		"    return n if n < 2 else n * fact(n - 1)\n"
		"def main(x):\n"
		"    model = Net()\n"
		"    out = model(x)\n"
		"    o2 = double(out)\n"
		"    k = count(out)\n"
		"    r = fact(3)\n"
		"    return o2\n");
	assert_int_equal(value_after(fx, "model = ", "Net()").kind, TL_VK_MODULE);
	/* the forward's summary, through the class attribute self.fc */
	assert_int_equal(value_of(fx, "model(x)", 0).graph, TL_VG_MUST);
	/* a parameter followed: double() keeps the graph of what it is given */
	TlVal d;
	int32_t fd = -1;
	for (uint32_t i = 0; i < fx->idx.funcs.size; i++)
		if (strcmp(fx->idx.funcs.items[i].name, "double") == 0)
			fd = (int32_t)i;
	assert_true(fd >= 0);
	assert_true(tl_model_returns(&fx->idx, fd, &d));
	assert_int_equal(d.pgraph, 1);
	assert_int_equal(value_of(fx, "double(out)", 0).graph, TL_VG_MUST);
	assert_int_equal(value_of(fx, "count(out)", 0).graph, TL_VG_NONE);
	/* recursion: a component of one function to its fixpoint; what it
	 * returns follows its parameter */
	int32_t ff = -1;
	for (uint32_t i = 0; i < fx->idx.funcs.size; i++)
		if (strcmp(fx->idx.funcs.items[i].name, "fact") == 0)
			ff = (int32_t)i;
	TlVal fr;
	assert_true(tl_model_returns(&fx->idx, ff, &fr));
	assert_int_equal(fr.pgraph & 1, 1);
	(void)value_of(fx, "fact(3)", 0);
	tl_fixture_free(fx);
}

/* A module's forward returning a tuple: each position is what its return
 * gives (a loss and an object of plain numbers), though their join is
 * nothing known; where nothing is known of one of the positions, the
 * result is the opaque output of a forward, as it was. */
static void test_forward_positions(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"class Stats:\n"
		"    def __init__(self, loss):\n"
		"        self.loss = loss\n"
		"class LossCompute(nn.Module):\n"
		"    def __init__(self):\n"
		"        super().__init__()\n"
		"        self.crit = nn.CrossEntropyLoss()\n"
		"    def forward(self, out, y):\n"
		"        loss = self.crit(out, y)\n"
		"        return loss, Stats(loss.item())\n"
		"class Wrapped(nn.Module):\n"
		"    def __init__(self, lib):\n"
		"        super().__init__()\n"
		"        self.lib = lib\n"
		"    def forward(self, x):\n"
		"        return self.lib.run(x), 0\n"
		"def main(model, x, y, lib):\n"
		"    lc = LossCompute()\n"
		"    loss, stats = lc(model(x), y)\n"
		"    w = Wrapped(lib)\n"
		"    out, n = w(x)\n"
		"    return loss, stats, out, n\n");
	TlVal loss = value_after(fx, "return ", "loss"), stats = value_after(fx, "return loss, ", "stats");
	assert_int_equal(loss.kind, TL_VK_TENSOR);
	assert_int_equal(loss.graph, TL_VG_MUST);
	assert_int_equal(stats.kind, TL_VK_OBJECT);
	assert_int_equal(stats.graph, TL_VG_NONE);
	TlVal out = value_after(fx, "return loss, stats, ", "out");
	assert_int_equal(out.kind, TL_VK_TENSOR);
	assert_int_equal(out.graph, TL_VG_MUST);
	tl_fixture_free(fx);
}

static void test_backward_refines(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def step(module, batch, opt):\n"
		"    out = module.training_step(batch)\n"
		"    out['loss'].backward()\n"
		"    res = module.other(batch)\n"
		"    parts = module.parts(batch)\n"
		"    loss = sum(parts)\n"
		"    loss.backward()\n"
		"    return out, res, parts\n");
	/* an unknown method's result whose element under 'loss' is backpropagated */
	TlVal out = value_after(fx, "return ", "out");
	const TlValPool *p = tl_model_pool(tl_model_of(&fx->idx));
	assert_int_equal(out.kind, TL_VK_CONTAINER);
	assert_int_equal(tl_val_element(p, &out).graph, TL_VG_MUST);
	/* nothing says what res is */
	assert_int_equal(value_after(fx, "return out, ", "res").graph, TL_VG_UNKNOWN);
	/* what flows into a backward through a reduction */
	assert_int_equal(value_after(fx, "return out, res, ", "parts").graph, TL_VG_MUST);
	tl_fixture_free(fx);
}

static void test_entry_classes(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"class Net(nn.Module):\n"
		"    def forward(self, x):\n"
		"        return x\n"
		"class Other(nn.Module):\n"
		"    def forward(self, x):\n"
		"        return x\n"
		"def inner(model, x):\n"
		"    return model.forward(x)\n"
		"def outer(model, x):\n"
		"    return inner(model, x)\n"
		"def mixed(model, x):\n"
		"    return model.forward(x)\n"
		"def kept(fn, x):\n"
		"    return fn\n"
		"def main(x, device):\n"
		"    net = Net().to(device)\n"
		"    outer(net, x)\n"
		"    mixed(net, x)\n"
		"    mixed(Other(), x)\n"
		"    cb = kept\n"
		"    kept(net, x)\n"
		"main(None, None)\n");
	/* nn.Module.to hands the module back */
	TlVal net = value_after(fx, "net = ", "Net().to(device)");
	assert_int_equal(net.kind, TL_VK_MODULE);
	assert_true(net.ref >= 0);
	/* every caller passes a Net, through outer() into inner() */
	TlVal in = value_after(fx, "return model.forward(x)\ndef outer", "model");
	assert_int_equal(in.kind, TL_VK_MODULE);
	assert_int_equal(in.ref, net.ref);
	const TlIndex *where = NULL;
	assert_true(tl_model_method_of(&in, "forward", &where) >= 0);
	assert_ptr_equal(where, &fx->idx);
	/* the graph still follows what each caller passes */
	assert_int_equal(in.pgraph, 1);
	/* callers that disagree (two classes: a module of no one class), and
	 * a function that escapes: no class */
	TlVal mx = value_after(fx, "return model.forward(x)\ndef kept", "model");
	assert_int_equal(tl_model_method_of(&mx, "forward", &where), -1);
	TlVal fn = value_after(fx, "return fn", "fn");
	assert_int_not_equal(fn.kind, TL_VK_MODULE);
	tl_fixture_free(fx);
}

static void test_method_of(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"class Base(nn.Module):\n"
		"    def generate(self, x):\n"
		"        return self.forward(x)\n"
		"class Net(Base):\n"
		"    def forward(self, x):\n"
		"        return x\n"
		"def main(x, device, other):\n"
		"    net = Net().to(device)\n"
		"    a = net.generate(x)\n"
		"    b = other.generate(x)\n");
	/* the method a call on a value of a known class runs, inherited too */
	TlVal net = value_after(fx, "a = ", "net");
	const TlIndex *where = NULL;
	int32_t f = tl_model_method_of(&net, "generate", &where);
	assert_true(f >= 0);
	assert_ptr_equal(where, &fx->idx);
	assert_string_equal(fx->idx.funcs.items[f].name, "generate");
	assert_int_equal(tl_model_method_of(&net, "missing", &where), -1);
	/* a value of no known class runs nothing known */
	TlVal other = value_after(fx, "b = ", "other");
	assert_int_equal(tl_model_method_of(&other, "generate", &where), -1);
	assert_null(where);
	tl_fixture_free(fx);
}

static void test_no_torch_no_refinement(void **state)
{
	(void)state;
	/* `.backward()` in a file that imports nothing of PyTorch says nothing */
	TlFixture *fx = tl_fixture_new(
		"def step(net, x):\n"
		"    loss = net.compute(x)\n"
		"    loss.backward()\n"
		"    return loss\n");
	assert_int_not_equal(value_after(fx, "return ", "loss").graph, TL_VG_MUST);
	tl_fixture_free(fx);
}

/* Wrappers are what the API table says (role wrapper, sets wrap-*), hold
 * what they wrap, and hand it back through `.module`; a parameter is what
 * every call site of the module hands it (entry contexts), and only
 * then; a setup method that wraps an attribute in place leaves it wrapped. */
static void test_wrappers_and_entry_contexts(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"from torch.nn.parallel import DistributedDataParallel as DDP\n"
		"class Net(nn.Module):\n"
		"    def forward(self, x):\n"
		"        return x\n"
		"def step(model, x):\n"
		"    return model.module(x)\n"
		"def either(model, x):\n"
		"    return model(x)\n"
		"def bare(m):\n"
		"    return m.module if hasattr(m, 'module') else m\n"
		"def peel(m):\n"
		"    return m.module\n"
		"class Trainer:\n"
		"    def __init__(self, net):\n"
		"        self.net = net\n"
		"    def wrap(self):\n"
		"        self.net = DDP(self.net)\n"
		"    def save(self):\n"
		"        return self.net\n"
		"def main(x):\n"
		"    ddp = DDP(Net().to(0))\n"
		"    fast = torch.compile(Net())\n"
		"    moved = ddp.cuda()\n"
		"    step(ddp, x)\n"
		"    step(moved, x)\n"
		"    either(ddp, x)\n"
		"    either(Net(), x)\n"
		"    t = Trainer(Net())\n"
		"    a = bare(ddp)\n"
		"    b = bare(Net())\n"
		"    c = peel(ddp)\n");
	TlVal d = value_after(fx, "ddp = ", "DDP(Net().to(0))");
	assert_int_equal(d.kind, TL_VK_WRAPPER);
	assert_int_equal(d.wrap, TL_VW_DDP);
	TlVal f = value_after(fx, "fast = ", "torch.compile(Net())");
	assert_int_equal(f.kind, TL_VK_WRAPPER);
	assert_int_equal(f.wrap, TL_VW_COMPILED);
	/* a module's method that hands the module back keeps the wrapper */
	assert_int_equal(value_after(fx, "moved = ", "ddp.cuda()").kind, TL_VK_WRAPPER);
	/* both call sites of step() hand it a DDP wrapper: inside, model is
	 * one, and model.module the module read through it */
	TlVal p = value_after(fx, "return model.module", "model");
	assert_int_equal(p.kind, TL_VK_WRAPPER);
	TlVal in = value_after(fx, "return model.module", "model.module");
	assert_int_equal(in.kind, TL_VK_MODULE);
	assert_int_equal(in.wrap, TL_VW_DDP);
	/* either() is handed a wrapper at one site and a module at the other:
	 * no wrapper inside */
	TlVal e = value_after(fx, "return model(x)", "model");
	assert_true(e.kind != TL_VK_WRAPPER);
	/* the unwrapping idiom and `.module` of a parameter, resolved at each
	 * call by what it is handed */
	TlVal a = value_after(fx, "a = ", "bare(ddp)");
	assert_int_equal(a.kind, TL_VK_MODULE);
	assert_int_equal(a.wrap, TL_VW_DDP);
	TlVal b = value_after(fx, "b = ", "bare(Net())");
	assert_int_equal(b.kind, TL_VK_MODULE);
	assert_int_equal(b.wrap, 0);
	TlVal c = value_after(fx, "c = ", "peel(ddp)");
	assert_int_equal(c.kind, TL_VK_MODULE);
	assert_int_equal(c.wrap, TL_VW_DDP);
	/* what the one constructor call hands __init__ */
	assert_int_equal(value_after(fx, "= net\n", "net").kind, TL_VK_MODULE);
	/* wrapped in place by a method: the attribute holds the wrapper */
	TlVal w = value_after(fx, "return self.net", "self.net");
	assert_int_equal(w.kind, TL_VK_WRAPPER);
	tl_fixture_free(fx);
}

/* ---- kinds the code does not show the making of (seeds.c) ---------------- */

static void test_kind_seeds(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"import torchvision\n"
		"import paddle\n"
		"from diffusers import DiffusionPipeline, UNet2DModel\n"
		"from project import build_model\n"
		"def fit(model, loader, scaler, optimizer, other):\n"
		"    model.train()\n"
		"    for x in loader:\n"
		"        out = model(x)\n"
		"        scaler.scale(out.sum()).backward()\n"
		"        scaler.step(optimizer)\n"
		"    return other\n"
		"def typed(m: nn.Module):\n"
		"    return m\n"
		"def built(cfg, x):\n"
		"    net = build_model(cfg)\n"
		"    net.eval()\n"
		"    y = net(x)\n"
		"    zoo = torchvision.models.resnet18()\n"
		"    unet = UNet2DModel.from_pretrained('u')\n"
		"    pipe = DiffusionPipeline.from_pretrained('p').to('cuda')\n"
		"    pnet = paddle.vision.models.resnet18()\n"
		"    for name, p in zoo.named_parameters():\n"
		"        p.requires_grad = False\n"
		"    return y\n"
		"def guarded(members):\n"
		"    for m in members:\n"
		"        if isinstance(m, nn.Parameter):\n"
		"            m.requires_grad = False\n"
		"        else:\n"
		"            m.parameters()\n");
	/* a parameter no call site tells: the methods the file calls on its
	 * name, its name, its annotation */
	assert_int_equal(value_after(fx, "model.train()", "model").kind, TL_VK_MODULE);
	assert_int_equal(value_after(fx, "scaler.step", "scaler").kind, TL_VK_SCALER);
	assert_int_equal(value_after(fx, "scaler.step(", "optimizer").kind, TL_VK_OPTIMIZER);
	assert_int_equal(value_after(fx, "return other", "other").kind, TL_VK_TOP);
	assert_int_equal(value_after(fx, "return m\n", "m").kind, TL_VK_MODULE);
	/* a seeded module's forward: history, and still the parameter's call */
	TlVal out = value_after(fx, "out = ", "model(x)");
	assert_int_equal(out.graph, TL_VG_MUST);
	assert_int_not_equal(out.pcall, 0);
	/* an unresolved import's result the file uses as a module */
	assert_int_equal(value_after(fx, "y = ", "net").kind, TL_VK_MODULE);
	/* the name stored to reads as a read of it does */
	assert_int_equal(value_after(fx, "def built", "net").kind, TL_VK_MODULE);
	assert_int_equal(value_after(fx, "y = ", "net(x)").graph, TL_VG_MUST);
	/* a zoo's builder, a library's from_pretrained; not a pipeline, not
	 * another framework's model */
	assert_int_equal(value_after(fx, "zoo = ", "torchvision.models.resnet18()").kind, TL_VK_MODULE);
	assert_int_equal(value_after(fx, "unet = ", "UNet2DModel.from_pretrained('u')").kind, TL_VK_MODULE);
	assert_int_not_equal(value_after(fx, "pipe = ", "DiffusionPipeline.from_pretrained('p').to('cuda')").kind,
			     TL_VK_MODULE);
	assert_int_equal(value_after(fx, "pnet = ", "paddle.vision.models.resnet18()").kind, TL_VK_OBJECT);
	/* a module's named parameters, and the object of a store */
	assert_int_equal(value_after(fx, "p.requires_grad", "p").kind, TL_VK_PARAMETER);
	/* isinstance narrows, whatever the other branch does with the name */
	assert_int_equal(value_after(fx, "m.requires_grad", "m").kind, TL_VK_TENSOR);
	tl_fixture_free(fx);
}

/* What a method keeps of its arguments in `self` (a summary field): a
 * sum, an append, a moving average; not a replacement, a number read out,
 * a store in a loop; and no bit of another method's parameters through an
 * attribute (`__init__`'s second parameter is not `update`'s). */
static void test_kept_attr(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"class Meter:\n"
		"    def __init__(self, steps, decay):\n"
		"        self.steps = steps\n"
		"        self.sum = 0\n"
		"        self.log = []\n"
		"        self.avg = None\n"
		"        self.last = None\n"
		"        self.d = decay\n"
		"    def update(self, val, n):\n"
		"        self.sum += val * n\n"
		"    def record(self, val, other):\n"
		"        self.log.append(val)\n"
		"        self.last = other\n"
		"    def smooth(self, val):\n"
		"        self.avg = self.d * self.avg + (1 - self.d) * val\n"
		"    def plain(self, val, items):\n"
		"        self.sum += val.item()\n"
		"        for x in items:\n"
		"            self.log.append(x)\n"
		"    def count(self, val):\n"
		"        self.steps = self.steps + 1\n"
		"    def guarded(self, val):\n"
		"        if isinstance(val, torch.Tensor):\n"
		"            val = val.detach().item()\n"
		"        self.sum += val\n");
	const TlIndex *idx = &fx->idx;
	int32_t cls = 0, guarded = tl_index_method(&fx->idx, 0, "guarded", 7);
	int32_t update = tl_index_method(idx, cls, "update", 6), record = tl_index_method(idx, cls, "record", 6),
		smooth = tl_index_method(idx, cls, "smooth", 6), plain = tl_index_method(idx, cls, "plain", 5),
		count = tl_index_method(idx, cls, "count", 5);
	assert_true(update >= 0 && record >= 0 && smooth >= 0 && plain >= 0 && count >= 0);
	const char *a = tl_model_kept_attr(idx, update, 1);
	assert_non_null(a);
	assert_string_equal(a, "sum");
	assert_non_null(tl_model_kept_attr(idx, update, 2)); /* `n` scales what is kept */
	assert_null(tl_model_kept_attr(idx, update, 0));     /* `self` */
	a = tl_model_kept_attr(idx, record, 1);
	assert_non_null(a);
	assert_string_equal(a, "log");
	assert_null(tl_model_kept_attr(idx, record, 2)); /* replaced, not added to */
	a = tl_model_kept_attr(idx, smooth, 1);
	assert_non_null(a);
	assert_string_equal(a, "avg");
	assert_null(tl_model_kept_attr(idx, plain, 1)); /* a number read out */
	assert_null(tl_model_kept_attr(idx, plain, 2)); /* stored in a loop of the method */
	assert_null(tl_model_kept_attr(idx, count, 1)); /* `self.steps` holds no bit of `count`'s `val` */
	/* a tensor made a number first; what the test rejects has no history */
	assert_true(guarded >= 0);
	assert_null(tl_model_kept_attr(idx, guarded, 1));
	tl_fixture_free(fx);
}

static void test_closure_self_and_library_bases(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"from torchvision import models\n"
		"class M(nn.Module):\n"
		"    def __init__(self):\n"
		"        super().__init__()\n"
		"        self.inner = nn.Linear(2, 2)\n"
		"    def forward(self, x):\n"
		"        def f(y):\n"
		"            return self.inner(y)\n"
		"        return f(x)\n"
		"class R(models.resnet.ResNet):\n"
		"    pass\n"
		"def build():\n"
		"    r = R()\n"
		"    return r\n");
	/* `self` of the method a closure is nested in, and the attribute its
	 * constructor stores */
	assert_int_equal(value_after(fx, "return self.inner", "self").kind, TL_VK_MODULE);
	assert_int_equal(value_after(fx, "return self.inner", "self.inner").kind, TL_VK_MODULE);
	/* a class whose base is a model class under torchvision.models */
	assert_int_equal(value_after(fx, "r = ", "R()").kind, TL_VK_MODULE);
	tl_fixture_free(fx);
}

/* A pass interprets again only the functions something they read changed
 * for (deps.c): `scale` reads nothing of the module, so the second pass,
 * which the entry contexts noted in the first ask for, leaves it out;
 * `step`, whose parameter's context arrived from `main`, runs again. */
static void test_passes_skip_unchanged(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def scale():\n"
		"    return 2\n"
		"def step(model, x):\n"
		"    return model(x) * scale()\n"
		"def main():\n"
		"    net = torch.nn.Linear(2, 2)\n"
		"    return step(net, torch.zeros(2))\n"
		"main()\n");
	TlVal v = value_after(fx, "return ", "model(x)");
	assert_int_equal(v.graph, TL_VG_MUST);
	assert_int_equal(value_after(fx, "return step", "step(net, torch.zeros(2))").graph, TL_VG_MUST);
	TlModelStats st;
	tl_model_stats(tl_model_of(&fx->idx), &st);
	/* 8 interpretations, each function every pass, when every pass ran
	 * them all */
	assert_true(st.skipped >= 1);
	assert_true(st.functions <= 5);
	tl_fixture_free(fx);
}

/* Grad mode as program-point state (gradmode.c): a function begins in its
 * entry mode; `with` blocks and set_grad_enabled statements change it;
 * branches join it (disabled only on every path); the entry is disabled
 * when every call site is, through callers in their entry mode, and not
 * for recursion or a call site with gradients on. */
static void test_grad_state(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def leaf(m, x):\n"
		"    return m(x)\n"
		"def mid(m, x):\n"
		"    return leaf(m, x)\n"
		"def mixed(m, x):\n"
		"    return m(x)\n"
		"def rec(m, x, n):\n"
		"    return rec(m, x, n - 1) if n else m(x)\n"
		"def branches(m, x, fast):\n"
		"    if fast:\n"
		"        torch.set_grad_enabled(False)\n"
		"    a = m(x)\n"
		"    torch.set_grad_enabled(False)\n"
		"    b = m(x)\n"
		"    with torch.enable_grad():\n"
		"        c = m(x)\n"
		"    d = m(x)\n"
		"    return a, b, c, d\n"
		"def main(m, x):\n"
		"    with torch.no_grad():\n"
		"        mid(m, x)\n"
		"        mixed(m, x)\n"
		"        rec(m, x, 2)\n"
		"    mixed(m, x)\n"
		"main(None, None)\n");
	const TlIndex *idx = &fx->idx;
	TSNode leaf = tl_fixture_node_after(fx, "def leaf", "m(x)");
	assert_int_equal(tl_model_grad_local(idx, leaf), TL_MODEL_GRAD_ENTRY);
	assert_int_equal(tl_model_grad(idx, leaf), TL_MODEL_GRAD_OFF);
	assert_int_equal(tl_model_grad(idx, tl_fixture_node_after(fx, "def mixed", "m(x)")), TL_MODEL_GRAD_ENTRY);
	assert_int_equal(tl_model_grad(idx, tl_fixture_node_after(fx, "else ", "m(x)")), TL_MODEL_GRAD_ENTRY);
	assert_int_equal(tl_model_grad_local(idx, tl_fixture_node_after(fx, "a = ", "m(x)")), TL_MODEL_GRAD_ENTRY);
	assert_int_equal(tl_model_grad_local(idx, tl_fixture_node_after(fx, "b = ", "m(x)")), TL_MODEL_GRAD_OFF);
	assert_int_equal(tl_model_grad_local(idx, tl_fixture_node_after(fx, "c = ", "m(x)")), TL_MODEL_GRAD_ON);
	assert_int_equal(tl_model_grad_local(idx, tl_fixture_node_after(fx, "d = ", "m(x)")), TL_MODEL_GRAD_OFF);
	/* main's own call site (module code) runs with gradients on */
	assert_int_equal(tl_model_grad(idx, tl_fixture_node_after(fx, "rec(m, x, 2)\n", "mixed(m, x)")),
			 TL_MODEL_GRAD_ENTRY);
	assert_int_equal(tl_model_grad(idx, tl_fixture_node_after(fx, "    with", "mid(m, x)")), TL_MODEL_GRAD_OFF);
	tl_fixture_free(fx);
}

/* What a call computes in a function entered grad-disabled keeps no
 * history (gradmode.c's second phase): entered disabled when every call
 * site is, through callers in their entry mode and decorated ones; not
 * for a call site with gradients on, a function passed as a value, or
 * recursion or a cycle. */
static void test_grad_entry_values(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"net = torch.nn.Linear(2, 2)\n"
		"x = torch.zeros(2)\n"
		"def only_nograd(m, x):\n"
		"    y1 = m(x)\n"
		"    return y1\n"
		"def mixed(m, x):\n"
		"    y2 = m(x)\n"
		"    return y2\n"
		"def deeper(m, x):\n"
		"    y3 = m(x)\n"
		"    return y3\n"
		"def via(m, x):\n"
		"    return deeper(m, x)\n"
		"def passed(m, x):\n"
		"    y4 = m(x)\n"
		"    return y4\n"
		"@torch.no_grad()\n"
		"def decorated(m, x):\n"
		"    return mixed_inner(m, x)\n"
		"def mixed_inner(m, x):\n"
		"    y5 = m(x)\n"
		"    return y5\n"
		"def rec(m, x, n):\n"
		"    y6 = m(x)\n"
		"    return rec(m, x, n - 1) if n else y6\n"
		"def ca(m, x):\n"
		"    y7 = m(x)\n"
		"    return cb(m, x)\n"
		"def cb(m, x):\n"
		"    return ca(m, x)\n"
		"with torch.no_grad():\n"
		"    ca(net, x)\n"
		"    only_nograd(net, x)\n"
		"    mixed(net, x)\n"
		"    via(net, x)\n"
		"    run(passed)\n"
		"    rec(net, x, 2)\n"
		"mixed(net, x)\n"
		"decorated(net, x)\n");
	assert_int_equal(value_after(fx, "y1 = ", "m(x)").graph, TL_VG_NONE);
	assert_int_equal(value_after(fx, "y2 = ", "m(x)").graph, TL_VG_MUST);
	assert_int_equal(value_after(fx, "y3 = ", "m(x)").graph, TL_VG_NONE);
	assert_int_not_equal(value_after(fx, "y4 = ", "m(x)").graph, TL_VG_NONE);
	assert_int_equal(value_after(fx, "y5 = ", "m(x)").graph, TL_VG_NONE);
	assert_int_not_equal(value_after(fx, "y6 = ", "m(x)").graph, TL_VG_NONE);
	/* a cycle: each waits on the other (a least fixpoint) */
	assert_int_not_equal(value_after(fx, "y7 = ", "m(x)").graph, TL_VG_NONE);
	tl_fixture_free(fx);
}

/* Constants (consts.c): literals and operators on them; an if whose
 * condition is a known constant runs one side (the other is unreached);
 * a parameter holds the constant every call site passes or leaves to its
 * default, and none where the sites disagree or pass a value not known;
 * a name bound to a literal holds none (a setting its author edits). */
static void test_constants(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def run(m, x, mode='train'):\n"
		"    if mode == 'inference':\n"
		"        with torch.no_grad():\n"
		"            a = m(x)\n"
		"    else:\n"
		"        a = m(x)\n"
		"    b = m(x)\n"
		"    return a, b\n"
		"def mixed(m, x, train):\n"
		"    if not train:\n"
		"        torch.set_grad_enabled(False)\n"
		"    c = m(x)\n"
		"    return c\n"
		"def local(m, x, flag=None):\n"
		"    if flag is not None and 'sgd' in ('adam', 'sgd'):\n"
		"        d = m(x)\n"
		"    k = False\n"
		"    if k:\n"
		"        e = m(x)\n"
		"    return k\n"
		"def main(m, x, opt):\n"
		"    run(m, x, mode='inference')\n"
		"    run(m, x, 'inference')\n"
		"    mixed(m, x, False)\n"
		"    mixed(m, x, opt.train)\n"
		"    local(m, x)\n"
		"main(None, None, None)\n");
	const TlIndex *idx = &fx->idx;
	TSNode inf = tl_fixture_node_after(fx, "a = ", "m(x)");
	TSNode other = tl_fixture_node_after(fx, "        a = ", "m(x)");
	other = tl_fixture_node_after(fx, "else:\n", "m(x)");
	assert_int_equal(tl_model_grad_local(idx, inf), TL_MODEL_GRAD_OFF);
	assert_false(tl_model_unreached(idx, inf));
	assert_true(tl_model_unreached(idx, other));
	assert_false(tl_model_unreached(idx, tl_fixture_node_after(fx, "b = ", "m(x)")));
	/* one site passes a value not known: both paths */
	assert_int_equal(tl_model_grad_local(idx, tl_fixture_node_after(fx, "c = ", "m(x)")), TL_MODEL_GRAD_ENTRY);
	assert_true(tl_model_unreached(idx, tl_fixture_node_after(fx, "d = ", "m(x)")));
	/* a name bound to a literal is a setting: both paths run */
	assert_false(tl_model_unreached(idx, tl_fixture_node_after(fx, "e = ", "m(x)")));
	tl_fixture_free(fx);
}

/* What the module's own call sites hand a parameter: a parameter of a
 * caller followed to its callers (through a cycle of functions that hand
 * it round, which adds nothing), a bound method's `self` its receiver;
 * not known for a function with no call site or one that escapes. */
static void test_own_param_args(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"def step(crit, x):\n"
		"    return crit(x)\n"
		"def fit(loss_fn, x):\n"
		"    return step(loss_fn, x)\n"
		"def g(c, x):\n"
		"    return h(c, x)\n"
		"def h(c, x):\n"
		"    return g(c, x)\n"
		"def lone(q):\n"
		"    return q\n"
		"def cb(w):\n"
		"    return w\n"
		"class M:\n"
		"    def run(self, a):\n"
		"        return self, a\n"
		"fit(nn.CrossEntropyLoss(), 1)\n"
		"step(nn.NLLLoss(), 2)\n"
		"h(nn.MSELoss(), 3)\n"
		"m = M()\n"
		"m.run(4)\n"
		"hooks = [cb]\n");
	const TlIndex *idx = &fx->idx;
	TlParamArgs args;
	tl_array_init(&args);
	const TlBinding *crit = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "return crit", "crit"));
	assert_true(tl_model_own_param_args(idx, crit, TL_HANDED_EVERY, &args));
	assert_int_equal(args.size, 2);
	const TlBinding *c = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "return h(", "c"));
	assert_true(tl_model_own_param_args(idx, c, TL_HANDED_EVERY, &args));
	assert_int_equal(args.size, 1);
	assert_true(tl_index_text_is(idx, args.items[0].arg, "nn.MSELoss()"));
	const TlBinding *self = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "return self", "self"));
	assert_true(self && tl_model_own_param_args(idx, self, TL_HANDED_EVERY, &args));
	assert_int_equal(args.size, 1);
	assert_true(tl_index_text_is(idx, args.items[0].arg, "m"));
	assert_false(tl_model_own_param_args(idx, tl_index_resolve_node(idx, tl_fixture_node_after(fx, "return q", "q")), TL_HANDED_EVERY, &args));
	assert_false(tl_model_own_param_args(idx, tl_index_resolve_node(idx, tl_fixture_node_after(fx, "return w", "w")), TL_HANDED_EVERY, &args));
	/* direct: the arguments as they are, a caller's parameter kept */
	assert_true(tl_model_own_param_args(idx, crit, TL_HANDED_DIRECT, &args));
	assert_int_equal(args.size, 2);
	assert_true(tl_index_text_is(idx, args.items[0].arg, "loss_fn"));
	assert_true(tl_index_text_is(idx, args.items[1].arg, "nn.NLLLoss()"));
	/* the same once the model is built: kept in it */
	assert_non_null(tl_model_of(idx));
	assert_true(tl_model_own_param_args(idx, crit, TL_HANDED_EVERY, &args));
	assert_int_equal(args.size, 2);
	assert_true(tl_model_own_param_args(idx, crit, TL_HANDED_EVERY, &args));
	assert_int_equal(args.size, 2);
	tl_array_release(&args);
	tl_fixture_free(fx);
}

/* The autocast entry context: every call site under an autocast block of
 * an accepted kind, or in a function entered under one; a call in itself,
 * a site outside any, or a disabled block innermost: not known to be. And
 * what some call may hand a parameter: a default where a site passes
 * nothing, a call in itself passed over. */
static void test_autocast_entry_and_may(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"from contextlib import suppress\n"
		"def inner(m, x):\n"
		"    return m(x)\n"
		"def mid(m, x):\n"
		"    return inner(m, x)\n"
		"def rec(m, x, n):\n"
		"    return rec(m, x, n - 1)\n"
		"def off(m, x):\n"
		"    return m(x)\n"
		"def step(m, x, ctx=suppress):\n"
		"    with ctx():\n"
		"        return step(m, x)\n"
		"def run(m, x, c):\n"
		"    return step(m, x, c)\n"
		"def train(m, x):\n"
		"    with torch.autocast('cuda'):\n"
		"        mid(m, x)\n"
		"        inner(m, x)\n"
		"        rec(m, x, 3)\n"
		"        with torch.autocast('cuda', enabled=False):\n"
		"            off(m, x)\n"
		"    with torch.autocast('cpu'):\n"
		"        mid(m, x)\n"
		"    run(m, x, torch.autocast)\n"
		"    step(m, x)\n");
	const TlIndex *idx = &fx->idx;
	int32_t inner = tl_index_func_of(idx, tl_fixture_node_after(fx, "def inner", "m(x)"));
	int32_t rec = tl_index_func_of(idx, tl_fixture_node_after(fx, "def rec", "n - 1"));
	int32_t off = tl_index_func_of(idx, tl_fixture_node_after(fx, "def off", "m(x)"));
	assert_true(tl_model_autocast_entry(idx, inner, 0));
	/* mid runs under a CPU autocast at one site */
	assert_false(tl_model_autocast_entry(idx, inner, TL_CTX_NOT_CPU));
	assert_false(tl_model_autocast_entry(idx, rec, 0));
	assert_false(tl_model_autocast_entry(idx, off, 0));
	TlParamArgs args;
	tl_array_init(&args);
	const TlBinding *ctx = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "with ctx", "ctx"));
	assert_true(ctx && tl_model_own_param_args(idx, ctx, TL_HANDED_MAY, &args));
	assert_int_equal(args.size, 2);
	assert_true(tl_index_text_is(idx, args.items[1].arg, "torch.autocast"));
	assert_true(tl_index_text_is(idx, args.items[0].arg, "suppress"));
	assert_false(tl_model_own_param_args(idx, ctx, TL_HANDED_EVERY, &args));
	tl_array_release(&args);
	tl_fixture_free(fx);
}

/* The events a call runs under the constant context it hands its local
 * callee (sitectx.c): the constants it passes, a parameter passed
 * through, a flag of `self` the caller stored, recursion (the bound:
 * test_call_events_context_bound). */
static const TlCall *call_of(TlFixture *fx, const char *text, int nth)
{
	const TlCall *c = tl_index_call_at(&fx->idx, tl_fixture_node(fx, text, nth));
	if (!c)
		fail_msg("no call `%s` (#%d)", text, nth);
	return c;
}

static void test_call_events_contexts(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def step(m, x, opt, train):\n"
		"    if train:\n"
		"        m.train()\n"
		"        m(x).sum().backward()\n"
		"        opt.step()\n"
		"    else:\n"
		"        m.eval()\n"
		"def outer(m, x, opt, train=False):\n"
		"    step(m, x, opt, train)\n"
		"def again(m, x, opt, train, n):\n"
		"    if n:\n"
		"        again(m, x, opt, train, n)\n"
		"    step(m, x, opt, train=train)\n"
		"class Agent:\n"
		"    def __init__(self, m):\n"
		"        self.m = m\n"
		"    def pick(self, x):\n"
		"        if self.testing:\n"
		"            self.m.eval()\n"
		"        return self.m(x)\n"
		"    def fit(self, x):\n"
		"        self.testing = False\n"
		"        for i in range(3):\n"
		"            self.pick(x)\n"
		"            self.m(x).sum().backward()\n"
		"    def fit_changed(self, x):\n"
		"        self.testing = False\n"
		"        for i in range(3):\n"
		"            self.pick(x)\n"
		"            self.flip()\n"
		"    def flip(self):\n"
		"        self.testing = True\n"
		"def main(m, x, opt, a):\n"
		"    step(m, x, opt, train=True)\n"
		"    step(m, x, opt, False)\n"
		"    outer(m, x, opt)\n"
		"    outer(m, x, opt, True)\n"
		"    again(m, x, opt, False, 3)\n"
		"    step(m, x, opt, a.train)\n"
		"main(None, None, None, None)\n");
	const TlIndex *idx = &fx->idx;
	const uint32_t ev = TL_EV_EVAL | TL_EV_BACKWARD | TL_EV_OPT_STEP;
	const uint32_t training = TL_EV_BACKWARD | TL_EV_OPT_STEP;
	/* train=True: the training branch only; False: the eval branch */
	assert_int_equal(tl_model_call_events(idx, call_of(fx, "step(m, x, opt, train=True)", 0), ev, true), training);
	assert_int_equal(tl_model_call_events(idx, call_of(fx, "step(m, x, opt, False)", 0), ev, true), TL_EV_EVAL);
	/* without contexts, every call the callee reaches */
	assert_int_equal(tl_model_call_events(idx, call_of(fx, "step(m, x, opt, False)", 0), ev, false), ev);
	/* the default passed through a parameter, and a literal */
	assert_int_equal(tl_model_call_events(idx, call_of(fx, "outer(m, x, opt)", 0), ev, true), TL_EV_EVAL);
	assert_int_equal(tl_model_call_events(idx, call_of(fx, "outer(m, x, opt, True)", 0), ev, true), training);
	/* recursion: the table's fixpoint, no depth followed */
	assert_int_equal(tl_model_call_events(idx, call_of(fx, "again(m, x, opt, False, 3)", 0), ev, true), TL_EV_EVAL);
	/* a value not known: both branches */
	assert_int_equal(tl_model_call_events(idx, call_of(fx, "step(m, x, opt, a.train)", 0), ev, true), ev);
	/* the flag `fit` stored on `self` before its loop decides `pick`'s test */
	assert_int_equal(tl_model_call_events(idx, call_of(fx, "self.pick(x)", 0), TL_EV_EVAL, true), 0);
	/* ... but not where a call after the store may store it again */
	assert_int_equal(tl_model_call_events(idx, call_of(fx, "self.pick(x)", 1), TL_EV_EVAL, true), TL_EV_EVAL);
	tl_fixture_free(fx);
}

/* The bound of contexts per function (TL_MODEL_CONTEXTS, 4): a fifth
 * context of one callee does not fit and keeps its whole reach, so the
 * answer never has fewer events than run. */
static void test_call_events_context_bound(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def leaf(m, k):\n"
		"    if k == 0:\n"
		"        m.eval()\n"
		"def four(m):\n"
		"    leaf(m, 1)\n"
		"    leaf(m, 2)\n"
		"    leaf(m, 3)\n"
		"    leaf(m, 4)\n"
		"def five(m):\n"
		"    leaf(m, 1)\n"
		"    leaf(m, 2)\n"
		"    leaf(m, 3)\n"
		"    leaf(m, 4)\n"
		"    leaf(m, 5)\n"
		"def main(m):\n"
		"    four(m)\n"
		"    five(m)\n"
		"main(None)\n");
	const TlIndex *idx = &fx->idx;
	assert_int_equal(TL_MODEL_CONTEXTS, 4);
	/* four contexts of `leaf`, each deciding against its eval() */
	assert_int_equal(tl_model_call_events(idx, call_of(fx, "four(m)", 1), TL_EV_EVAL, true), 0);
	/* a fifth does not fit: `leaf`'s whole reach, its eval() included */
	assert_int_equal(tl_model_call_events(idx, call_of(fx, "five(m)", 1), TL_EV_EVAL, true), TL_EV_EVAL);
	tl_fixture_free(fx);
}

/* The guard the step entry test passes: a call of `mid` is held. */
static bool test_guard_mid(const TlIndex *idx, TSNode node, TSNode top)
{
	(void)top;
	uint32_t len = 0;
	const char *s = tl_index_text(idx, node, &len);
	return s && len >= 4 && strncmp(s, "mid(", 4) == 0;
}

static void test_step_entry_and_backward_loops(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def leaf(m, x):\n"
		"    return m(x)\n"
		"def mid(m, x):\n"
		"    return leaf(m, x)\n"
		"def cyc_a(m, x):\n"
		"    return cyc_b(m, x)\n"
		"def cyc_b(m, x):\n"
		"    return cyc_a(m, x)\n"
		"def only_eval(m, x):\n"
		"    return m(x)\n"
		"def train(m, opt, loader):\n"
		"    for x in loader:\n"
		"        loss = m(x).sum()\n"
		"        loss.backward()\n"
		"        opt.step()\n"
		"        mid(m, x)\n"
		"    net = torch.nn.Linear(2, 2)\n"
		"    for x in loader:\n"
		"        y = net(x)\n"
		"        only_eval(m, x)\n"
		"        leaf(m, x)\n");
	const TlIndex *idx = &fx->idx;
	int32_t leaf = tl_index_func_of(idx, tl_fixture_node_after(fx, "def leaf", "m(x)"));
	int32_t mid = tl_index_func_of(idx, tl_fixture_node_after(fx, "def mid", "leaf(m, x)"));
	int32_t cyc = tl_index_func_of(idx, tl_fixture_node_after(fx, "def cyc_a", "cyc_b(m, x)"));
	int32_t ev = tl_index_func_of(idx, tl_fixture_node_after(fx, "def only_eval", "m(x)"));
	int32_t train_loop = tl_index_loop_of(idx, tl_fixture_node_after(fx, "def train", "opt.step()"));
	assert_true(leaf >= 0 && mid >= 0 && cyc >= 0 && ev >= 0 && train_loop >= 0);
	/* leaf: through mid in the training loop; in the evaluating loop */
	assert_true(tl_model_step_entry(idx, leaf, TL_STEP_TRAIN, NULL));
	assert_true(tl_model_step_entry(idx, leaf, TL_STEP_TRAIN | TL_STEP_EVAL, NULL));
	assert_false(tl_model_step_entry(idx, ev, TL_STEP_TRAIN, NULL));
	assert_true(tl_model_step_entry(idx, ev, TL_STEP_EVAL, NULL));
	assert_false(tl_model_step_entry(idx, cyc, TL_STEP_TRAIN | TL_STEP_EVAL, NULL));
	/* the guard holds mid's call: neither mid nor leaf (for training) */
	assert_false(tl_model_step_entry(idx, mid, TL_STEP_TRAIN, test_guard_mid));
	assert_false(tl_model_step_entry(idx, leaf, TL_STEP_TRAIN, test_guard_mid));
	assert_true(tl_model_step_entry(idx, leaf, TL_STEP_EVAL, test_guard_mid));
	TlIntArray loops;
	tl_array_init(&loops);
	tl_model_backward_loops(idx, leaf, -1, &loops);
	assert_int_equal(loops.size, 1);
	assert_int_equal(loops.items[0], train_loop);
	loops.size = 0;
	tl_model_backward_loops(idx, ev, -1, &loops);
	tl_model_backward_loops(idx, cyc, -1, &loops);
	assert_int_equal(loops.size, 0);
	tl_array_release(&loops);
	tl_fixture_free(fx);
}

static int32_t test_class_named(const TlIndex *idx, const char *name)
{
	for (uint32_t i = 0; i < idx->classes.size; i++)
		if (idx->classes.items[i].name && strcmp(idx->classes.items[i].name, name) == 0)
			return (int32_t)i;
	return -1;
}

static void test_attr_param(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"class Base:\n"
		"    def __init__(self, model):\n"
		"        self.model = model\n"
		"class Child(Base):\n"
		"    def __init__(self, cfg, net):\n"
		"        super().__init__(net)\n"
		"class Grand(Child):\n"
		"    pass\n"
		"class Two(Base):\n"
		"    def __init__(self, model):\n"
		"        self.model = model\n"
		"class Made(Base):\n"
		"    def __init__(self, cfg):\n"
		"        super().__init__(build(cfg))\n");
	const TlIndex *idx = &fx->idx;
	const TlBinding *p = tl_model_attr_param(idx, test_class_named(idx, "Base"), "self.model");
	assert_true(p && strcmp(p->name, "model") == 0);
	p = tl_model_attr_param(idx, test_class_named(idx, "Child"), "self.model");
	assert_true(p && strcmp(p->name, "net") == 0);
	p = tl_model_attr_param(idx, test_class_named(idx, "Grand"), "self.model");
	assert_true(p && strcmp(p->name, "net") == 0);
	assert_null(tl_model_attr_param(idx, test_class_named(idx, "Two"), "self.model"));
	assert_null(tl_model_attr_param(idx, test_class_named(idx, "Made"), "self.model"));
	assert_null(tl_model_attr_param(idx, test_class_named(idx, "Base"), "self.other"));
	tl_fixture_free(fx);
}

/* What every call site may hand a parameter (tl_model_param_sites): a
 * constructor's through the module's instantiations of its class, a
 * caller's parameter followed to its own sites, each site's argument kept
 * though another site's is not known. */
static void test_param_sites(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"from torch.utils.data import DataLoader\n"
		"class Trainer:\n"
		"    def __init__(self, model, loader):\n"
		"        self.loader = loader\n"
		"class Base:\n"
		"    def __init__(self, data):\n"
		"        self.data = data\n"
		"class Sub(Base):\n"
		"    pass\n"
		"def fit(loader):\n"
		"    return loader\n"
		"def run(dl):\n"
		"    return fit(dl)\n"
		"def lone(q):\n"
		"    return q\n"
		"t = Trainer(1, DataLoader([1]))\n"
		"u = Trainer(2, loader=DataLoader([2]))\n"
		"b = Base(DataLoader([3]))\n"
		"run(DataLoader([4]))\n"
		"fit()\n");
	const TlIndex *idx = &fx->idx;
	const TlParamArg *args;
	uint32_t n;
	unsigned how = TL_SITES_MAKERS_HERE | TL_SITES_IMPORTERS_ALONE;
	const TlBinding *loader = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "self.loader = loader", "loader"));
	assert_true(tl_model_param_sites(idx, loader, how, &args, &n));
	assert_int_equal(n, 2);
	assert_true(tl_index_text_is(idx, args[0].arg, "DataLoader([1])"));
	assert_true(tl_index_text_is(idx, args[1].arg, "DataLoader([2])"));
	/* without the instantiations, a constructor no site calls: not known */
	assert_false(tl_model_param_sites(idx, loader, TL_SITES_IMPORTERS_ALONE, &args, &n));
	/* a class a local class derives from: not known */
	const TlBinding *data = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "self.data = data", "data"));
	assert_false(tl_model_param_sites(idx, data, how, &args, &n));
	/* fit's sites: run's parameter followed to run's site; `fit()`
	 * passes none it can tell, the other argument kept */
	const TlBinding *fl = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "return loader", "loader"));
	assert_false(tl_model_param_sites(idx, fl, how, &args, &n));
	assert_int_equal(n, 1);
	assert_true(tl_index_text_is(idx, args[0].arg, "DataLoader([4])"));
	assert_false(tl_model_param_sites(idx, tl_index_resolve_node(idx, tl_fixture_node_after(fx, "return q", "q")),
					  how, &args, &n));
	assert_int_equal(n, 0);
	tl_fixture_free(fx);
}

/* TlFuncSum.saves through helpers (flow.c: a call of a function that saves
 * its parameter is a store), and the wrapper kinds the project hands a
 * parameter (handedin.c). */
static void test_saves_and_handed_wrap(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"def write(state, path):\n"
		"    torch.save(state, path)\n"
		"def write_boxed(obj, path):\n"
		"    write({\"obj\": obj}, path)\n"
		"def write_len(state, path):\n"
		"    torch.save(len(state), path)\n"
		"def write_rebound(state, path):\n"
		"    state = dict(state)\n"
		"    torch.save(state, path)\n"
		"def save_plain(model, path):\n"
		"    write(model.state_dict(), path)\n"
		"def save_bare(net, path):\n"
		"    write(net.state_dict(), path)\n"
		"def run(path):\n"
		"    model = nn.Linear(2, 2)\n"
		"    if torch.cuda.device_count() > 1:\n"
		"        model = nn.DataParallel(model)\n"
		"    save_plain(model, path)\n"
		"    save_bare(nn.Linear(2, 2), path)\n"
		"    write_boxed(model.state_dict(), path)\n"
		"    write_len(model.state_dict(), path)\n"
		"    write_rebound(model.state_dict(), path)\n");
	const TlIndex *idx = &fx->idx;
	assert_int_equal(tl_model_stored(idx, tl_fixture_node(fx, "model.state_dict()", 0), TL_MODEL_SAVED, NULL), 1);
	assert_int_equal(tl_model_stored(idx, tl_fixture_node(fx, "model.state_dict()", 1), TL_MODEL_SAVED, NULL), 1);
	assert_int_equal(tl_model_stored(idx, tl_fixture_node(fx, "model.state_dict()", 2), TL_MODEL_SAVED, NULL), 0);
	assert_int_equal(tl_model_stored(idx, tl_fixture_node(fx, "model.state_dict()", 3), TL_MODEL_SAVED, NULL), 0);
	const TlBinding *model = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "    write(model", "model"));
	const TlBinding *net = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "    write(net", "net"));
	assert_true(model && model->kind == TL_BIND_PARAM && net && net->kind == TL_BIND_PARAM);
	assert_int_equal(tl_model_handed_wrap(idx, model), TL_VW_DATA_PARALLEL);
	assert_int_equal(tl_model_handed_wrap(idx, net), 0);
	tl_fixture_free(fx);
}

/* A mapping class called with keywords is a dict of them; the entries
 * of what the project hands a parameter: a dict's elements, a `**kwargs`
 * parameter's keyword arguments and the entries of the `**d` handed on. */
static void test_mapping_and_handed_entries(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"def save_all(nets, path):\n"
		"    for name, net in nets.items():\n"
		"        torch.save(net.state_dict(), path)\n"
		"def save_kw(path, **kw):\n"
		"    for net in kw.values():\n"
		"        torch.save(net.state_dict(), path)\n"
		"def save_plain(path, **plain):\n"
		"    for net in plain.values():\n"
		"        torch.save(net.state_dict(), path)\n"
		"def run(path):\n"
		"    nets = dict(gen=nn.DataParallel(nn.Linear(2, 2)), disc=nn.DataParallel(nn.Linear(2, 2)))\n"
		"    pairs = dict([(\"gen\", nn.Linear(2, 2))])\n"
		"    save_all(nets, path)\n"
		"    save_kw(path, **nets)\n"
		"    save_plain(path, gen=nn.Linear(2, 2), **pairs)\n");
	const TlIndex *idx = &fx->idx;
	const TlModel *m = tl_model_of(idx);
	assert_non_null(m);
	TlVal v;
	assert_true(tl_model_value(idx, tl_fixture_node_after(fx, "    save_all(nets", "nets"), &v));
	assert_int_equal(v.kind, TL_VK_CONTAINER);
	TlVal e = tl_val_element(tl_model_pool(m), &v);
	assert_int_equal(e.kind, TL_VK_WRAPPER);
	assert_int_equal(e.wrap, TL_VW_DATA_PARALLEL);
	/* pairs handed positionally: entries not known */
	assert_true(tl_model_value(idx, tl_fixture_node_after(fx, "    save_plain(path, gen=nn.Linear(2, 2), **pairs", "pairs"), &v));
	e = tl_val_element(tl_model_pool(m), &v);
	assert_int_equal(e.kind, TL_VK_TOP);
	const TlBinding *nets = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "in nets.items", "nets"));
	const TlBinding *kw = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "in kw.values", "kw"));
	const TlBinding *plain = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "in plain.values", "plain"));
	assert_true(nets && nets->kind == TL_BIND_PARAM && kw && kw->kind == TL_BIND_PARAM && plain &&
		    plain->kind == TL_BIND_PARAM);
	assert_int_equal(tl_model_handed_elem_wrap(idx, nets), TL_VW_DATA_PARALLEL);
	assert_int_equal(tl_model_handed_elem_wrap(idx, kw), TL_VW_DATA_PARALLEL);
	assert_int_equal(tl_model_handed_elem_wrap(idx, plain), 0);
	/* the parameter itself is no wrapper */
	assert_int_equal(tl_model_handed_wrap(idx, nets), 0);
	tl_fixture_free(fx);
}

/* A module's parameters under the constants its construction passes
 * (tl_model_forward_graph through holdsnone.c's per-site question): a
 * literal argument or a default decides `__init__`'s tests and
 * conditional expressions, an attribute of `self` stored from one too; a
 * submodule of the project's class is judged under the constants its own
 * construction passes; nn.Parameter with a constant requires_grad=False
 * holds nothing trainable. A constant that selects a layer with
 * parameters, or a test no constant decides, keeps the graph. */
static void test_construction_constants(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"from torch import nn\n"
		"class Q(nn.Module):\n"
		"    def __init__(self, n, dim=None, proj=False):\n"
		"        super().__init__()\n"
		"        self.proj = proj\n"
		"        if dim is not None and dim != n:\n"
		"            self.inp = nn.Linear(dim, n)\n"
		"        else:\n"
		"            self.inp = nn.Identity()\n"
		"        if self.proj:\n"
		"            self.out = nn.Linear(n, n)\n"
		"        self.act = nn.Linear(n, n) if proj else nn.ReLU()\n"
		"    def forward(self, x):\n"
		"        return self.act(self.inp(x))\n"
		"class W(nn.Module):\n"
		"    def __init__(self, n, mode='fixed', trainable=True):\n"
		"        super().__init__()\n"
		"        self.q = Q(n, proj=mode == 'learn')\n"
		"        self.w = nn.Parameter(torch.ones(n), requires_grad=trainable)\n"
		"    def forward(self, x):\n"
		"        return self.q(x) * self.w\n"
		"def run(flag):\n"
		"    x = torch.randn(2, 4)\n"
		"    a = Q(4)\n"
		"    b = Q(4, dim=4)\n"
		"    c = Q(4, dim=8)\n"
		"    d = Q(4, proj=True)\n"
		"    e = Q(4, proj=flag)\n"
		"    f = W(4, trainable=False).eval()\n"
		"    g = W(4)\n"
		"    h = W(4, mode='learn', trainable=False)\n"
		"    return a(x), b(x), c(x), d(x), e(x), f(x), g(x), h(x)\n");
	const TlIndex *idx = &fx->idx;
	assert_int_equal(tl_model_forward_graph(idx, tl_fixture_node(fx, "a(x)", 0)), 0);
	assert_int_equal(tl_model_forward_graph(idx, tl_fixture_node(fx, "b(x)", 0)), 0);
	assert_int_equal(tl_model_forward_graph(idx, tl_fixture_node(fx, "c(x)", 0)), 1);
	assert_int_equal(tl_model_forward_graph(idx, tl_fixture_node(fx, "d(x)", 0)), 1);
	assert_int_equal(tl_model_forward_graph(idx, tl_fixture_node(fx, "e(x)", 0)), 1);
	assert_int_equal(tl_model_forward_graph(idx, tl_fixture_node(fx, "f(x)", 0)), 0);
	assert_int_equal(tl_model_forward_graph(idx, tl_fixture_node(fx, "g(x)", 0)), 1);
	assert_int_equal(tl_model_forward_graph(idx, tl_fixture_node(fx, "h(x)", 0)), 1);
	tl_fixture_free(fx);
}

/* Constants a constructor derives (sitectx.c, "Derived constants"): a
 * local, `len()` of a list display, a helper of one `return`, a `*args`
 * helper, `or` as Python has it, a register_buffer between the stores;
 * a method of the module run on what its forward returned. */
/* A parameter named as a class (`Model: nn.Module`, called to build the
 * model) is no module instance by its annotation; one named as a value
 * is. */
static void test_class_named_param(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def evaluate(path, Model: torch.nn.Module, net: torch.nn.Module, x):\n"
		"    model = Model(4)\n"
		"    model.load_state_dict(torch.load(path))\n"
		"    model.eval()\n"
		"    y = net(x)\n"
		"    return model(x)\n");
	assert_int_not_equal(value_after(fx, "model = ", "Model").kind, TL_VK_MODULE);
	assert_int_not_equal(value_after(fx, "    model = ", "model").kind, TL_VK_TENSOR);
	assert_int_equal(value_after(fx, "return ", "model").kind, TL_VK_MODULE);
	assert_int_equal(value_after(fx, "y = ", "net").kind, TL_VK_MODULE);
	tl_fixture_free(fx);
}

static void test_derived_constants(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"from torch import nn\n"
		"def given(v):\n"
		"    return v is not None\n"
		"def fallback(v, d):\n"
		"    return v if given(v) else d\n"
		"def first(*vs):\n"
		"    for v in vs:\n"
		"        if v is not None:\n"
		"            return v\n"
		"    return None\n"
		"class Q(nn.Module):\n"
		"    def __init__(self, levels, dim=None, width=None, helper=True):\n"
		"        super().__init__()\n"
		"        n = len(levels)\n"
		"        self.n = n\n"
		"        self.dim = first(dim, self.n) if helper else fallback(dim, n)\n"
		"        self.register_buffer('codes', torch.zeros(n))\n"
		"        w = width or self.n\n"
		"        if self.dim != self.n or w != n:\n"
		"            self.inp = nn.Linear(self.dim, n)\n"
		"        else:\n"
		"            self.inp = nn.Identity()\n"
		"    def decode(self, i):\n"
		"        return self.inp(self.codes[i])\n"
		"    def forward(self, x):\n"
		"        return self.inp(x).round(), x.argmax(-1)\n"
		"def run():\n"
		"    x = torch.randn(2, 3)\n"
		"    a = Q([1, 2, 3])\n"
		"    b = Q([1, 2, 3], dim=3, helper=False)\n"
		"    c = Q([1, 2, 3], dim=5)\n"
		"    d = Q([1, 2, 3], width=4)\n"
		"    e = Q((1, 2, 3), helper=False)\n"
		"    ya, ia = a(x)\n"
		"    yc, ic = c(x)\n"
		"    return b(x), d(x), e(x), a.decode(ia), c.decode(ic)\n");
	const TlIndex *idx = &fx->idx;
	assert_int_equal(tl_model_forward_graph(idx, tl_fixture_node(fx, "a(x)", 0)), 0);
	assert_int_equal(tl_model_forward_graph(idx, tl_fixture_node(fx, "b(x)", 0)), 0);
	assert_int_equal(tl_model_forward_graph(idx, tl_fixture_node(fx, "c(x)", 0)), 1);
	assert_int_equal(tl_model_forward_graph(idx, tl_fixture_node(fx, "d(x)", 0)), 1);
	assert_int_equal(tl_model_forward_graph(idx, tl_fixture_node(fx, "e(x)", 0)), 0);
	assert_int_equal(tl_model_method_graph(idx, tl_fixture_node(fx, "a.decode(ia)", 0)), 0);
	assert_int_equal(tl_model_method_graph(idx, tl_fixture_node(fx, "c.decode(ic)", 0)), 1);
	tl_fixture_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_graph_joins),
		cmocka_unit_test(test_containers),
		cmocka_unit_test(test_widening),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_flow_and_branches),
		cmocka_unit_test(test_loop_fixpoint),
		cmocka_unit_test(test_loop_widening),
		cmocka_unit_test(test_keys_and_patterns),
		cmocka_unit_test(test_summaries),
		cmocka_unit_test(test_forward_positions),
		cmocka_unit_test(test_backward_refines),
		cmocka_unit_test(test_no_torch_no_refinement),
		cmocka_unit_test(test_method_of),
		cmocka_unit_test(test_entry_classes),
		cmocka_unit_test(test_wrappers_and_entry_contexts),
		cmocka_unit_test(test_kind_seeds),
		cmocka_unit_test(test_closure_self_and_library_bases),
		cmocka_unit_test(test_kept_attr),
		cmocka_unit_test(test_passes_skip_unchanged),
		cmocka_unit_test(test_grad_state),
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_call_events_contexts),
		cmocka_unit_test(test_call_events_context_bound),
		cmocka_unit_test(test_grad_entry_values),
		cmocka_unit_test(test_own_param_args),
		cmocka_unit_test(test_autocast_entry_and_may),
		cmocka_unit_test(test_step_entry_and_backward_loops),
		cmocka_unit_test(test_attr_param),
		cmocka_unit_test(test_nograd_follows),
		cmocka_unit_test(test_param_sites),
		cmocka_unit_test(test_saves_and_handed_wrap),
		cmocka_unit_test(test_mapping_and_handed_entries),
		cmocka_unit_test(test_construction_constants),
		cmocka_unit_test(test_derived_constants),
		cmocka_unit_test(test_class_named_param),
	};
	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
