/* Unit tests for where a value goes (analyzer/model/flow.c,
 * tl_model_reaches_backward): the flow sets' union and comparison; a
 * value a backward differentiates through bindings, calls, operators,
 * containers, attributes of `self` and a function's return to its caller;
 * a call whose row breaks the graph (`.argmax()`, `.detach()`, `.item()`)
 * passes nothing on; a return to callers the module does not show is
 * named; at one call site, the backwards reached are listed. And the
 * facts' question on top of it (`reaches-backward`), where the walk it
 * replaced was wrong: a forward appended inside a call, a detached copy. */
#include "helpers.h"

#include "facts/facts.h"
#include "model/model.h"
#include "model/value.h"

/* tl_model_reaches_backward for the node `text` after `anchor`. */
static int reaches(TlFixture *fx, const char *anchor, const char *text)
{
	return tl_model_reaches_backward(&fx->idx, tl_fixture_node_after(fx, anchor, text), (TSNode){ 0 }, NULL,
					 NULL);
}

static void test_flow_sets(void **state)
{
	(void)state;
	TlValPool p;
	tl_val_pool_init(&p);
	uint32_t a = tl_val_flow_one(&p, 5), b = tl_val_flow_one(&p, 3), c = tl_val_flow_one(&p, 5);
	uint32_t ab = tl_val_flow_union(&p, a, b);
	const uint32_t *ids;
	uint32_t n;
	assert_true(tl_val_flow_nodes(&p, ab, &ids, &n));
	assert_int_equal(n, 2);
	assert_int_equal(ids[0], 3); /* ascending */
	assert_int_equal(ids[1], 5);
	/* a set already holding the other's nodes is kept as it is */
	assert_int_equal(tl_val_flow_union(&p, ab, c), ab);
	assert_int_equal(tl_val_flow_union(&p, 0, b), b);
	assert_true(tl_val_flow_same(&p, a, c));
	assert_false(tl_val_flow_same(&p, a, b));
	assert_false(tl_val_flow_same(&p, a, 0));
	/* past TL_VAL_FLOW_SET nodes: the top */
	uint32_t s = 0;
	for (uint32_t i = 0; i < TL_VAL_FLOW_SET; i++)
		s = tl_val_flow_union(&p, s, tl_val_flow_one(&p, 10 + i));
	assert_true(tl_val_flow_nodes(&p, s, &ids, &n));
	assert_int_equal(n, TL_VAL_FLOW_SET);
	uint32_t top = tl_val_flow_union(&p, s, tl_val_flow_one(&p, 99));
	assert_int_equal(top, TL_VAL_FLOW_TOP);
	assert_false(tl_val_flow_nodes(&p, top, &ids, &n));
	assert_int_equal(tl_val_flow_union(&p, top, a), TL_VAL_FLOW_TOP);
	/* the join of two values unites their sets; the sets take part in equality */
	TlVal x = tl_val_of(TL_VK_TENSOR, TL_VG_MUST), y = x;
	x.flow = a;
	y.flow = b;
	TlVal j = tl_val_join(&p, &x, &y);
	assert_true(tl_val_flow_same(&p, j.flow, ab));
	assert_false(tl_val_equal(&p, &x, &y));
	tl_val_pool_release(&p);
}

static void test_flow_direct(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn.functional as F\n"
		"def train(model, loader, opt):\n"
		"    for x, y in loader:\n"
		"        out = model(x)\n"
		"        acc = (out.argmax(1) == y).float().mean()\n"
		"        kept = out.detach()\n"
		"        loss = F.cross_entropy(out, y)\n"
		"        total = 0\n"
		"        total += loss\n"
		"        opt.zero_grad()\n"
		"        (total * 2).backward()\n"
		"        opt.step()\n"
		"        print(kept, acc)\n");
	assert_int_equal(reaches(fx, "out = ", "model(x)"), 1);
	assert_int_equal(reaches(fx, "loss = ", "F.cross_entropy(out, y)"), 1);
	/* the target of an augmented assignment: the binding it makes */
	assert_int_equal(reaches(fx, "total += ", "total"), 1);
	/* the backward itself */
	assert_int_equal(reaches(fx, "opt.zero_grad()\n", "(total * 2).backward()"), 1);
	/* rows that break the graph pass nothing on */
	assert_int_equal(reaches(fx, "acc = ", "out.argmax(1)"), 0);
	assert_int_equal(reaches(fx, "kept = ", "out.detach()"), 0);
	assert_int_equal(reaches(fx, "print(", "kept"), 0);
	tl_fixture_free(fx);
}

static void test_flow_containers(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def train(model, crit, loader, opt):\n"
		"    history = []\n"
		"    for x, y in loader:\n"
		"        parts = []\n"
		"        parts.append(crit(model(x), y))\n"
		"        loss = torch.stack(parts).sum()\n"
		"        loss.backward()\n"
		"        history.append(loss)\n"
		"        out = {'loss': loss}\n"
		"        for v in out.values():\n"
		"            print(v)\n"
		"    return len(history)\n");
	assert_int_equal(reaches(fx, "parts.append(", "model(x)"), 1);
	assert_int_equal(reaches(fx, "parts.append(", "parts"), 1);
	/* kept after the backward, never differentiated again */
	assert_int_equal(reaches(fx, "history.append(", "history"), 0);
	assert_int_equal(reaches(fx, "out = ", "out"), 0);
	tl_fixture_free(fx);
}

static void test_flow_returns(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"def forward_loss(model, x, y):\n"
		"    out = model(x)\n"
		"    return nn.functional.mse_loss(out, y)\n"
		"def evaluate(model, x):\n"
		"    return model(x)\n"
		"def loss_for_others(model, x):\n"
		"    pred = model(x)\n"
		"    return pred.sum()\n"
		"class Meter:\n"
		"    def __init__(self):\n"
		"        self.total = 0\n"
		"    def add(self, loss):\n"
		"        self.total += loss\n"
		"    def flush(self):\n"
		"        self.total.backward()\n"
		"def main(model, x, y):\n"
		"    l = forward_loss(model, x, y)\n"
		"    l.backward()\n"
		"    print(evaluate(model, x))\n"
		"    m = Meter()\n"
		"    m.add(l)\n"
		"    m.flush()\n");
	/* returned to a caller that differentiates it */
	assert_int_equal(reaches(fx, "out = ", "model(x)"), 1);
	/* returned to a caller that prints it */
	assert_int_equal(reaches(fx, "def evaluate", "model(x)"), 0);
	/* an attribute of `self` another method differentiates */
	assert_int_equal(reaches(fx, "self.total += ", "self.total"), 1);
	/* returned to callers the module does not show: named */
	TlIntArray rets;
	tl_array_init(&rets);
	int r = tl_model_reaches_backward(&fx->idx, tl_fixture_node_after(fx, "pred = ", "model(x)"), (TSNode){ 0 },
					  &rets, NULL);
	assert_int_equal(r, 0);
	bool named = false;
	for (uint32_t i = 0; i < rets.size; i++)
		named = named || strcmp(fx->idx.funcs.items[rets.items[i]].name, "loss_for_others") == 0;
	assert_true(named);
	tl_array_release(&rets);
	tl_fixture_free(fx);
}

/* `loss` bound on more branches than a set keeps, then returned: the
 * bindings lead to one node that stands for them all. */
static void test_flow_many_branches(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def pick(pred, k):\n"
		"    if k == 0:\n"
		"        loss = pred.sum()\n"
		"    elif k == 1:\n"
		"        loss = pred.mean()\n"
		"    elif k == 2:\n"
		"        loss = pred.abs().sum()\n"
		"    elif k == 3:\n"
		"        loss = pred.pow(2).sum()\n"
		"    elif k == 4:\n"
		"        loss = pred.max()\n"
		"    elif k == 5:\n"
		"        loss = pred.min()\n"
		"    elif k == 6:\n"
		"        loss = pred.norm()\n"
		"    elif k == 7:\n"
		"        loss = pred.std()\n"
		"    elif k == 8:\n"
		"        loss = pred.var()\n"
		"    else:\n"
		"        loss = pred.exp().sum()\n"
		"    return loss\n"
		"def train(model, loader, opt):\n"
		"    for x in loader:\n"
		"        l = pick(model(x), 3)\n"
		"        l.backward()\n"
		"        opt.step()\n");
	assert_int_equal(reaches(fx, "k == 0:\n", "pred.sum()"), 1);
	assert_int_equal(reaches(fx, "k == 8:\n", "pred.var()"), 1);
	assert_int_equal(reaches(fx, "pick(", "model(x)"), 1);
	tl_fixture_free(fx);
}

static void test_flow_comprehension(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"from torch import nn\n"
		"def gram_matrix(f):\n"
		"    return f @ f.t()\n"
		"def style(style_img, feats, img, opt):\n"
		"    targets = [gram_matrix(f) for f in feats(style_img)]\n"
		"    for _ in range(100):\n"
		"        opt.zero_grad()\n"
		"        loss = sum(nn.functional.mse_loss(gram_matrix(f), t) for f, t in zip(feats(img), targets))\n"
		"        loss.backward(retain_graph=True)\n"
		"        opt.step()\n");
	assert_int_equal(reaches(fx, "targets = [", "gram_matrix(f)"), 1);
	tl_fixture_free(fx);
}

/* What a helper object keeps (`acc.add(loss)`, then `acc.total`), a name
 * the file's evidence seeds as a module (`net.train()`), a step's output
 * a backward reads under a key: what they were computed from stays. */
static void test_flow_kept_and_seeded(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"from project.models import build\n"
		"class Acc:\n"
		"    def __init__(self):\n"
		"        self.total = 0\n"
		"    def add(self, l):\n"
		"        self.total = self.total + l\n"
		"def train(model, loader, opt):\n"
		"    acc = Acc()\n"
		"    for x in loader:\n"
		"        acc.add(model(x).sum())\n"
		"        acc.total.backward()\n"
		"        opt.step()\n"
		"def fit(loader, opt):\n"
		"    net = build()\n"
		"    net.train()\n"
		"    for x in loader:\n"
		"        out = net(x)\n"
		"        out.sum().backward()\n"
		"        opt.step()\n"
		"def steps(module, loader, opt):\n"
		"    for batch in loader:\n"
		"        output = module.training_step(batch)\n"
		"        output['loss'].backward()\n"
		"        opt.step()\n");
	assert_int_equal(reaches(fx, "acc = ", "Acc()"), 1);
	assert_int_equal(reaches(fx, "acc.add(", "model(x)"), 1);
	assert_int_equal(reaches(fx, "net = ", "build()"), 1);
	assert_int_equal(reaches(fx, "output = ", "module.training_step(batch)"), 1);
	tl_fixture_free(fx);
	/* A storing method (the table's role stores: `.put`, `.appendleft`)
	 * leads what it is handed to its receiver; another method does not. */
	fx = tl_fixture_new(
		"import torch\n"
		"def train(model, loader, opt, q, d, e):\n"
		"    for x in loader:\n"
		"        q.put(model(x).sum())\n"
		"        q.get().backward()\n"
		"        d.appendleft(model(x).mean())\n"
		"        d[0].backward()\n"
		"        e.index(model(x).max())\n"
		"        e[0].backward()\n"
		"        opt.step()\n");
	assert_int_equal(reaches(fx, "q.put(", "model(x)"), 1);
	assert_int_equal(reaches(fx, "d.appendleft(", "model(x)"), 1);
	assert_int_equal(reaches(fx, "e.index(", "model(x)"), 0);
	tl_fixture_free(fx);
}

static void test_flow_site(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def step(model, x, train):\n"
		"    out = model(x)\n"
		"    if train:\n"
		"        out.sum().backward()\n"
		"    return out\n"
		"def run(model, x):\n"
		"    a = step(model, x, True)\n"
		"    b = step(model, x, False)\n"
		"    print(a, b)\n");
	TlIntArray backs;
	tl_array_init(&backs);
	TSNode fw = tl_fixture_node_after(fx, "out = ", "model(x)");
	int r = tl_model_reaches_backward(&fx->idx, fw, tl_fixture_node_after(fx, "b = ", "step(model, x, False)"),
					  NULL, &backs);
	assert_int_equal(r, 1);
	assert_int_equal(backs.size, 1);
	assert_true(fx->idx.calls.items[backs.items[0]].method != NULL);
	assert_string_equal(fx->idx.calls.items[backs.items[0]].method, "backward");
	tl_array_release(&backs);
	tl_fixture_free(fx);
}

/* The facts' question, where the walk it replaced answered wrongly. */
static void test_flow_reaches_backward(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def train(model, crit, loader, opt, netD, netG, z):\n"
		"    for x, y in loader:\n"
		"        parts = []\n"
		"        parts.append(crit(model(x), y))\n"
		"        loss = torch.stack(parts).sum()\n"
		"        d = netD(netG(z).detach()).mean()\n"
		"        (loss + d).backward()\n"
		"        opt.step()\n");
	const TlIndex *idx = &fx->idx;
	/* a forward inside a call whose result is appended (the walk followed no append of a call) */
	assert_true(tl_facts_reaches_backward(idx, tl_fixture_node_after(fx, "parts.append(", "model(x)")));
	/* a forward detached before the discriminator reads it (the walk took it as differentiated) */
	assert_false(tl_facts_reaches_backward(idx, tl_fixture_node_after(fx, "netD(", "netG(z)")));
	assert_true(tl_facts_reaches_backward(idx, tl_fixture_node_after(fx, "d = ", "netD(netG(z).detach())")));
	tl_fixture_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flow_sets),
		cmocka_unit_test(test_flow_direct),
		cmocka_unit_test(test_flow_containers),
		cmocka_unit_test(test_flow_returns),
		cmocka_unit_test(test_flow_many_branches),
		cmocka_unit_test(test_flow_comprehension),
		cmocka_unit_test(test_flow_kept_and_seeded),
		cmocka_unit_test(test_flow_site),
		cmocka_unit_test(test_flow_reaches_backward),
	};
	return cmocka_run_group_tests_name("model flow", tests, NULL, NULL);
}
