/* Unit tests for facts that travel with values (issue 9): multi-line forms
 * that must behave like their one-line forms, other frameworks and files
 * that import nothing from PyTorch, optimizers and models known by their
 * use, function summaries (what a local function returns), parameters whose
 * callers agree, containers and their elements, host values through helpers.
 * Facts are asked directly where a fact exists; the rules that combine them
 * are run through the engine with the embedded rules (--select ALL). */
#include "helpers.h"

#include <stdio.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "engine/engine.h"
#include "facts/facts.h"
#include "model/model.h"
#include "rules/rules.h"
#include "rules/ruleset.h"
#include "rules/checks/checks.h"

typedef struct {
	TlRuleSet rules;
	TlSelection sel;
	TlEngine engine;
} ValuesState;

static int group_setup(void **state)
{
	ValuesState *s = tl_calloc(1, sizeof *s);
	if (!tl_rules_load(&s->rules, NULL, stderr)) {
		tl_rules_release(&s->rules);
		tl_free(s);
		return -1;
	}
	char bad[64];
	tl_selection_init(&s->sel);
	s->sel.has_select = true;
	if (!tl_selection_add(&s->rules, &s->sel.select, "ALL", bad, sizeof bad))
		return -1;
	tl_engine_init(&s->engine, &s->rules, &s->sel);
	*state = s;
	return 0;
}

static int group_teardown(void **state)
{
	ValuesState *s = *state;
	tl_engine_release(&s->engine);
	tl_selection_release(&s->sel);
	tl_rules_release(&s->rules);
	tl_free(s);
	return 0;
}

/* The findings of every rule on `code`, as "CODE@line" words joined by
 * spaces, in the engine's order. Caller frees. */
static char *findings_of(void **state, const char *code)
{
	ValuesState *s = *state;
	TlSource src;
	TlFindings f;
	char why[256] = "";
	if (!tl_source_init_text(&src, "t.py", code, strlen(code), why, sizeof why))
		fail_msg("source refused: %s", why);
	tl_array_init(&f);
	tl_engine_analyze(&s->engine, &src, &f);
	TlBuf out;
	tl_buf_init(&out);
	for (uint32_t i = 0; i < f.size; i++)
		tl_buf_addf(&out, "%s%s@%u", i ? " " : "", f.items[i].rule->code, f.items[i].start.line);
	tl_findings_release(&f);
	tl_source_release(&src);
	return tl_buf_detach(&out);
}

static void expect_findings(void **state, const char *code, const char *expected)
{
	char *got = findings_of(state, code);
	if (strcmp(got, expected) != 0)
		fail_msg("findings: got \"%s\", expected \"%s\"", got, expected);
	tl_free(got);
}

/* ---- multi-line forms ---------------------------------------------------------- */

static const char multiline_code[] =
	"import torch\n"                                    /* 1 */
	"from torch import nn\n"                            /* 2 */
	"import torch.nn.functional as F\n"                 /* 3 */
	"def train(model, loader, opt):\n"                  /* 4 */
	"    crit = nn.CrossEntropyLoss()\n"                /* 5 */
	"    total, seen, kept = 0.0, 0.0, []\n"            /* 6 */
	"    for x, y in loader:\n"                         /* 7 */
	"        loss = crit(\n"                            /* 8 */
	"            model(x),\n"                           /* 9 */
	"            y)\n"                                  /* 10 */
	"        opt.zero_grad()\n"                         /* 11 */
	"        loss.backward()\n"                         /* 12 */
	"        opt.step()\n"                              /* 13 */
	"        total = (total +\n"                        /* 14 */
	"                 loss)\n"                          /* 15 */
	"        seen = (seen\n"                            /* 16 */
	"                + loss.item())\n"                  /* 17 */
	"        kept.append(  # for the plot\n"            /* 18 */
	"            loss\n"                                /* 19 */
	"        )\n"                                       /* 20 */
	"        bad = crit(  # probabilities\n"            /* 21 */
	"            F.softmax(model(x), dim=1), y)\n";     /* 22 */

static void test_multiline_forms(void **state)
{
	/* A parenthesized running total and an argument after a comment are
	 * found as on one line; the .item() total is not a graph. */
	expect_findings(state, multiline_code, "TL101@14 TL101@18 TL208@21");
}

/* ---- other frameworks, files without a PyTorch import ------------------------------ */

static const char no_import_code[] =
	"from .meters import AverageMeter\n"
	"def run(model, loader, optimizer, criterion, scaler):\n"
	"    for x, y in loader:\n"
	"        loss = criterion(model(x), y)\n"
	"        loss.backward()\n"
	"        optimizer.step()\n"
	"        model.eval()\n"
	"        chk(optimizer)\n"
	"        chk(scaler)\n"
	"        chk(model)\n"
	"        chk(loss)\n";

static void test_no_torch_import(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(no_import_code);
	const TlIndex *idx = &fx->idx;
	assert_false(idx->torch_ecosystem);
	/* Names and methods hint at nothing without an import. */
	assert_false(tl_facts_is_optimizer(idx, tl_fixture_arg0(fx, "chk(optimizer)")));
	assert_false(tl_facts_is_scaler(idx, tl_fixture_arg0(fx, "chk(scaler)")));
	assert_false(tl_facts_is_module(idx, tl_fixture_arg0(fx, "chk(model)")));
	assert_false(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(loss)")));
	const TlCall *step = tl_index_call_at(idx, tl_fixture_node(fx, "optimizer.step()", 0));
	assert_non_null(step);
	assert_false(step->events & TL_EV_OPT_STEP);
	tl_fixture_free(fx);

	/* The same code after `import torch`: the names hint again. */
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_add(&b, "import torch\n");
	tl_buf_add(&b, no_import_code);
	fx = tl_fixture_new(b.data);
	idx = &fx->idx;
	assert_true(idx->torch_ecosystem);
	assert_true(tl_facts_is_optimizer(idx, tl_fixture_arg0(fx, "chk(optimizer)")));
	assert_true(tl_facts_is_scaler(idx, tl_fixture_arg0(fx, "chk(scaler)")));
	assert_true(tl_facts_is_module(idx, tl_fixture_arg0(fx, "chk(model)")));
	assert_true(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(loss)")));
	tl_fixture_free(fx);
	tl_buf_release(&b);
}

static void test_ecosystem_imports(void **state)
{
	(void)state;
	static const char *const torch_files[] = {
		"import torchvision\n", "from transformers import AutoModel\n",
		"import pytorch_lightning as pl\n", "from torch_ema import ExponentialMovingAverage\n",
		"def f():\n    import torch.nn as nn\n",
	};
	static const char *const other_files[] = {
		"import paddle\n", "import tensorflow as tf\n", "import numpy as np\n",
		"from .models import Net\n", "import jax.numpy as jnp\n",
	};
	for (size_t i = 0; i < sizeof torch_files / sizeof *torch_files; i++) {
		TlFixture *fx = tl_fixture_new(torch_files[i]);
		assert_true(fx->idx.torch_ecosystem);
		tl_fixture_free(fx);
	}
	for (size_t i = 0; i < sizeof other_files / sizeof *other_files; i++) {
		TlFixture *fx = tl_fixture_new(other_files[i]);
		assert_false(fx->idx.torch_ecosystem);
		tl_fixture_free(fx);
	}
}

static const char foreign_code[] =
	"import torch\n"
	"import paddle\n"
	"import tensorflow as tf\n"
	"def train(loader):\n"
	"    net = paddle.vision.models.resnet18()\n"
	"    opt = paddle.optimizer.Adam(parameters=net.parameters())\n"
	"    optimizer = tf.keras.optimizers.Adam(1e-3)\n"
	"    scaler = paddle.amp.GradScaler()\n"
	"    torch_opt = torch.optim.SGD(torch.nn.Linear(2, 2).parameters(), lr=0.1)\n"
	"    net.eval()\n"
	"    chk(opt)\n"
	"    chk(optimizer)\n"
	"    chk(scaler)\n"
	"    chk(net)\n"
	"    chk(torch_opt)\n";

static void test_other_frameworks(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(foreign_code);
	const TlIndex *idx = &fx->idx;
	/* Made by another framework: never a PyTorch object, whatever the
	 * name or the use (`net.eval()`, `net.parameters()`). */
	assert_false(tl_facts_is_optimizer(idx, tl_fixture_arg0(fx, "chk(opt)")));
	assert_false(tl_facts_is_optimizer(idx, tl_fixture_arg0(fx, "chk(optimizer)")));
	assert_false(tl_facts_is_scaler(idx, tl_fixture_arg0(fx, "chk(scaler)")));
	assert_false(tl_facts_is_module(idx, tl_fixture_arg0(fx, "chk(net)")));
	assert_true(tl_facts_is_optimizer(idx, tl_fixture_arg0(fx, "chk(torch_opt)")));
	tl_fixture_free(fx);
}

/* ---- optimizers and models known by their use ----------------------------------------- */

static const char by_use_code[] =
	"import torch\n"                                                   /* 1 */
	"from pytorch_pretrained_bert import OpenAIAdam\n"                 /* 2 */
	"from torch_ema import ExponentialMovingAverage\n"                 /* 3 */
	"from project import build_model, Tracker\n"                       /* 4 */
	"def train(cfg, loader):\n"                                         /* 5 */
	"    gen = build_model(cfg.g)\n"                                   /* 6 */
	"    disc = build_model(cfg.d)\n"                                  /* 7 */
	"    g_opt = OpenAIAdam(gen.parameters(), lr=1e-4)\n"              /* 8 */
	"    d_opt = OpenAIAdam(params=[{'params': disc.parameters()}])\n" /* 9 */
	"    ema = ExponentialMovingAverage(gen.parameters(), 0.99)\n"     /* 10 */
	"    tracker = Tracker(gen.parameters())\n"                        /* 11 */
	"    for x in loader:\n"                                           /* 12 */
	"        d_opt.zero_grad()\n"                                      /* 13 */
	"        disc(x).mean().backward()\n"                              /* 14 */
	"        d_opt.step()\n"                                           /* 15 */
	"        gen(x).mean().backward()\n"                               /* 16 */
	"        g_opt.step()\n"                                           /* 17 */
	"        ema.step()\n"                                             /* 18 */
	"        chk(g_opt, d_opt, ema, tracker)\n";                       /* 19 */

static void test_optimizers_by_use(void **state)
{
	TlFixture *fx = tl_fixture_new(by_use_code);
	const TlIndex *idx = &fx->idx;
	TSNode chk = tl_fixture_node(fx, "chk(g_opt, d_opt, ema, tracker)", 0);
	TSNode args = ts_node_child_by_field_name(chk, "arguments", 9);
	/* Built over a model's parameters and stepped after a backward. */
	assert_true(tl_facts_is_optimizer(idx, ts_node_named_child(args, 0)));
	assert_true(tl_facts_is_optimizer(idx, ts_node_named_child(args, 1)));
	/* An EMA helper is stepped too, but says what it is; a tracker is
	 * built over parameters but never stepped. */
	assert_false(tl_facts_is_optimizer(idx, ts_node_named_child(args, 2)));
	assert_false(tl_facts_is_optimizer(idx, ts_node_named_child(args, 3)));
	tl_fixture_free(fx);
	/* d_opt's reset covers only the discriminator: g_opt is not reset. */
	expect_findings(state, by_use_code, "TL201@17");
}

/* ---- function summaries, parameters whose callers agree ------------------------------- */

static const char summary_code[] =
	"import torch\n"
	"from torch import nn\n"
	"import torch.nn.functional as F\n"
	"def build_loss(cfg):\n"
	"    if cfg.smooth:\n"
	"        return nn.CrossEntropyLoss(label_smoothing=0.1)\n"
	"    return nn.CrossEntropyLoss().cuda()\n"
	"def build_any(cfg):\n"
	"    return nn.NLLLoss() if cfg.nll else nn.CrossEntropyLoss()\n"
	"def pick(cfg):\n"
	"    if cfg.nll:\n"
	"        return nn.NLLLoss()\n"
	"    return nn.CrossEntropyLoss()\n"
	"def step(model, x, y, loss_fn):\n"
	"    return loss_fn(model(x), y)\n"
	"def fit(model, x, y, crit, fn):\n"
	"    a = crit(model(x), y)\n"
	"    b = fn(model(x), y)\n"
	"    return a + b\n"
	"def again(x):\n"
	"    return again(x)\n"
	"def main(model, x, y, cfg):\n"
	"    criterion = build_loss(cfg)\n"
	"    other = pick(cfg)\n"
	"    l1 = criterion(model(x), y)\n"
	"    l2 = other(model(x), y)\n"
	"    step(model, x, y, nn.BCELoss())\n"
	"    step(model, x, y, nn.BCELoss())\n"
	"    fit(model, x, y, criterion, F.nll_loss)\n"
	"    fit(model, x, y, nn.CrossEntropyLoss(), F.nll_loss)\n"
	"    chk(again(x))\n";

/* The call whose text is `text`, first found after `anchor`. */
static const TlCall *call_after(TlFixture *fx, const char *anchor, const char *text)
{
	const TlCall *c = tl_index_call_at(&fx->idx, tl_fixture_node_after(fx, anchor, text));
	assert_non_null(c);
	return c;
}

static const TlCall *call_of(TlFixture *fx, const char *text)
{
	return call_after(fx, "", text);
}

static void test_criteria_from_factories_and_callers(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(summary_code);
	const TlIndex *idx = &fx->idx;
	/* Every return of the factory is a cross-entropy criterion. */
	const TlCall *l1 = call_of(fx, "criterion(model(x), y)");
	assert_true(l1->events & TL_EV_LOSS);
	assert_int_equal(tl_facts_loss_kind(idx, l1), TL_LOSS_CROSS_ENTROPY);
	/* Returns of two kinds: a criterion, of no one kind. */
	const TlCall *l2 = call_of(fx, "other(model(x), y)");
	assert_true(l2->events & TL_EV_LOSS);
	assert_int_equal(tl_facts_loss_kind(idx, l2), TL_LOSS_OTHER);
	/* A parameter every caller passes a BCELoss to. */
	const TlCall *p = call_of(fx, "loss_fn(model(x), y)");
	assert_int_equal(tl_facts_loss_kind(idx, p), TL_LOSS_BCE);
	/* Callers that disagree (a factory's criterion and a new one agree on
	 * the kind; F.nll_loss passed by name at both). */
	assert_int_equal(tl_facts_loss_kind(idx, call_of(fx, "crit(model(x), y)")), TL_LOSS_CROSS_ENTROPY);
	const TlCall *fn = call_after(fx, "b = ", "fn(model(x), y)");
	assert_true(fn->events & TL_EV_LOSS);
	assert_int_equal(tl_facts_loss_kind(idx, fn), TL_LOSS_NLL);
	tl_fixture_free(fx);
}

static void test_summaries_are_kept(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(summary_code);
	const TlIndex *idx = &fx->idx;
	int32_t f = call_after(fx, "criterion = ", "build_loss(cfg)")->target;
	assert_true(f >= 0);
	assert_int_equal(tl_facts_loss_kind(idx, call_of(fx, "criterion(model(x), y)")), TL_LOSS_CROSS_ENTROPY);
	/* The factory's criterion and its loss: the semantic model's summary
	 * of the factory, computed once with the module's model. */
	TlVal made;
	assert_true(tl_model_returns(idx, f, &made));
	assert_int_equal(made.kind, TL_VK_CRITERION);
	assert_int_equal(made.loss, TL_VL_CROSS_ENTROPY);
	assert_int_equal(idx->funcs.items[f].ret_busy, 0);
	/* The graph a step helper returns: the semantic model's summary of it,
	 * computed once with the module's model and kept there. */
	int32_t g = call_of(fx, "step(model, x, y, nn.BCELoss())")->target;
	TSNode st = tl_fixture_node(fx, "step(model, x, y, nn.BCELoss())", 0);
	assert_true(tl_facts_is_graph(idx, st));
	TlVal ret;
	assert_true(tl_model_returns(idx, g, &ret));
	assert_int_equal(ret.graph, TL_VG_MUST);
	assert_true(tl_facts_is_graph(idx, st));
	/* A function that returns its own call: its component's fixpoint
	 * gives it no history of its own. */
	int32_t r = call_after(fx, "return again", "again(x)")->target;
	assert_false(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(again(x))")));
	assert_true(tl_model_returns(idx, r, &ret));
	assert_int_not_equal(ret.graph, TL_VG_MUST);
	assert_int_equal(idx->funcs.items[r].ret_busy, 0);
	tl_fixture_free(fx);
}

static void test_module_parameters(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"from torch import nn\n"
		"def run(net, data, fn):\n"
		"    chk(net)\n"
		"    chk(fn)\n"
		"def main(data):\n"
		"    run(nn.Linear(2, 2).to('cuda'), data, len)\n"
		"    run(nn.Sequential(nn.Linear(2, 2)), data, sum)\n");
	assert_true(tl_facts_is_module(&fx->idx, tl_fixture_arg0(fx, "chk(net)")));
	assert_false(tl_facts_is_module(&fx->idx, tl_fixture_arg0(fx, "chk(fn)")));
	tl_fixture_free(fx);
}

/* ---- containers and their elements ---------------------------------------------------- */

static const char containers_code[] =
	"import torch\n"
	"from collections import defaultdict\n"
	"from torch import nn\n"
	"def step(model, x, y):\n"
	"    out = model(x)\n"
	"    return {'loss': nn.functional.cross_entropy(out, y), 'acc': (out.argmax(1) == y).float().mean()}\n"
	"def run(model, x, y):\n"
	"    model = nn.Linear(4, 2)\n"
	"    res = step(model, x, y)\n"
	"    store = defaultdict(list)\n"
	"    store['l'].append(res['loss'])\n"
	"    kept = []\n"
	"    kept.append(res['loss'].item())\n"
	"    parts = [res['loss'], res['loss'] * 2]\n"
	"    a, b = parts\n"
	"    for k, v in res.items():\n"
	"        chk(k, v)\n"
	"    for i, p in enumerate(parts):\n"
	"        chk(i, p)\n"
	"    squares = [q * q for q in parts]\n"
	"    numbers = [q.item() for q in parts]\n"
	"    chk(res['loss'])\n"
	"    chk(res['acc'])\n"
	"    chk(res.get('loss'))\n"
	"    chk(sum(res.values()))\n"
	"    chk(torch.stack(parts))\n"
	"    chk(a)\n"
	"    chk(squares[0])\n"
	"    chk(numbers[0])\n"
	"    chk(store['l'][0])\n"
	"    chk(kept[0])\n"
	"    chk(parts)\n";

static TSNode argk(TlFixture *fx, const char *call_text, uint32_t k)
{
	TSNode call = tl_fixture_node(fx, call_text, 0);
	TSNode args = ts_node_child_by_field_name(call, "arguments", 9);
	return ts_node_named_child(args, k);
}

static void test_containers_and_elements(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(containers_code);
	const TlIndex *idx = &fx->idx;
	/* Read back from a returned dict, a stored-into container, unpacked,
	 * iterated, reduced, stacked, comprehended: graph tensors. */
	assert_true(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(res['loss'])")));
	assert_true(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(res.get('loss'))")));
	assert_true(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(sum(res.values()))")));
	assert_true(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(torch.stack(parts))")));
	assert_true(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(a)")));
	assert_true(tl_facts_is_graph(idx, argk(fx, "chk(k, v)", 1)));
	assert_true(tl_facts_is_graph(idx, argk(fx, "chk(i, p)", 1)));
	assert_true(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(squares[0])")));
	assert_true(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(store['l'][0])")));
	/* Keys, counters, .item() values, a comparison's mean: no graph. */
	assert_false(tl_facts_is_graph(idx, argk(fx, "chk(k, v)", 0)));
	assert_false(tl_facts_is_graph(idx, argk(fx, "chk(i, p)", 0)));
	assert_false(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(res['acc'])")) &&
		     !tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(res['loss'])")));
	assert_false(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(numbers[0])")));
	assert_false(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(kept[0])")));
	/* A list is no graph tensor itself (nothing to detach); it holds one. */
	assert_false(tl_facts_is_graph(idx, tl_fixture_arg0(fx, "chk(parts)")));
	tl_fixture_free(fx);
}

static void test_container_rules(void **state)
{
	expect_findings(state,
		"import torch\n"                                          /* 1 */
		"from collections import defaultdict\n"                   /* 2 */
		"def fit(model, loader, opt, criterion):\n"               /* 3 */
		"    totals = defaultdict(float)\n"                       /* 4 */
		"    plot = []\n"                                         /* 5 */
		"    for x, y in loader:\n"                               /* 6 */
		"        losses = {'ce': criterion(model(x), y)}\n"       /* 7 */
		"        sum(losses.values()).backward()\n"               /* 8 */
		"        opt.step()\n"                                    /* 9 */
		"        opt.zero_grad()\n"                               /* 10 */
		"        for k, v in losses.items():\n"                   /* 11 */
		"            totals[k] += v\n"                            /* 12 */
		"            totals[k + '_n'] += v.item()\n"              /* 13 */
		"        plot += [losses['ce'].item()]\n"                 /* 14 */
		"        plot = plot + [losses['ce']]\n",                 /* 15 */
		/* A defaultdict running total of losses; a list concatenation is no
		 * tensor accumulation (precision first: its elements are read back
		 * elsewhere, as with pytorch/examples' forward-forward). */
		"TL101@12");
}

/* ---- values through host code -------------------------------------------------- */

static const char host_code[] =
	"import numpy as np\n"
	"import torch\n"
	"def to_numpy(t):\n"
	"    arr = t.detach().cpu().numpy()\n"
	"    return arr\n"
	"def labels(n):\n"
	"    return np.arange(n)\n"
	"def train(model, loader, opt, device, table):\n"
	"    base = table.cpu().numpy()\n"
	"    for x, y in loader:\n"
	"        out = model(x.to(device))\n"
	"        scores = []\n"
	"        scores.append(out.cpu().numpy())\n"
	"        v = out.sum().item()\n"
	"        host = np.ones(3)\n"
	"        kept = []\n"
	"        kept.append(host)\n"
	"        chk(to_numpy(out))\n"
	"        chk(np.stack(scores))\n"
	"        chk([o.cpu().numpy() for o in out])\n"
	"        chk([v * 2])\n"
	"        chk(to_numpy(x))\n"
	"        chk(base)\n"
	"        chk(np.stack(kept))\n"
	"        chk(torch.zeros(int(v)))\n"
	"        chk(labels(out.argmax()))\n"
	"        opt.step()\n";

static void test_host_values(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(host_code);
	const TlIndex *idx = &fx->idx;
	/* Through a helper that copies its parameter, a list filled with host
	 * copies, a comprehension over a device tensor, an .item() value. */
	assert_true(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(to_numpy(out))")));
	assert_true(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(np.stack(scores))")));
	assert_true(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk([o.cpu().numpy() for o in out])")));
	assert_true(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk([v * 2])")));
	/* The helper given a host batch; a copy made before the loop; a list of
	 * host-made arrays; a factory given only a size; a helper that makes
	 * new data from a number. */
	assert_false(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(to_numpy(x))")));
	assert_false(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(base)")));
	assert_false(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(np.stack(kept))")));
	assert_false(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(torch.zeros(int(v)))")));
	assert_false(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(labels(out.argmax()))")));
	tl_fixture_free(fx);
}

static void test_host_round_trip_rule(void **state)
{
	expect_findings(state,
		"import numpy as np\n"                                        /* 1 */
		"import torch\n"                                              /* 2 */
		"import torch.nn.functional as F\n"                           /* 3 */
		"def to_numpy(t):\n"                                          /* 4 */
		"    return t.detach().cpu().numpy()\n"                       /* 5 */
		"def fit(model, loader, opt, device):\n"                      /* 6 */
		"    epoch_preds = []\n"                                      /* 7 */
		"    for x, y in loader:\n"                                   /* 8 */
		"        out = model(x.to(device))\n"                         /* 9 */
		"        arr = out.detach().cpu().numpy()\n"                  /* 10 */
		"        w = torch.tensor(arr, device=device)\n"              /* 11 */
		"        p = torch.from_numpy(to_numpy(out)).cuda()\n"        /* 12 */
		"        loss = F.cross_entropy(out, y.to(device))\n"         /* 13 */
		"        opt.zero_grad()\n"                                   /* 14 */
		"        loss.backward()\n"                                   /* 15 */
		"        opt.step()\n"                                        /* 16 */
		"        print(loss.item())\n"                                /* 17 */
		"        epoch_preds.append(to_numpy(out))\n"                 /* 18 */
		"    all_p = torch.from_numpy(np.concatenate(epoch_preds)).to(device)\n", /* 19 */
		/* Per step: a host copy sent back, directly and through a helper
		 * (TL304, opt-in, marks the syncs);
		 * after the loop a metric list may become a tensor. */
		"TL304@5 TL304@10 TL303@11 TL303@12 TL304@17");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_multiline_forms),
		cmocka_unit_test(test_no_torch_import),
		cmocka_unit_test(test_ecosystem_imports),
		cmocka_unit_test(test_other_frameworks),
		cmocka_unit_test(test_optimizers_by_use),
		cmocka_unit_test(test_criteria_from_factories_and_callers),
		cmocka_unit_test(test_summaries_are_kept),
		cmocka_unit_test(test_module_parameters),
		cmocka_unit_test(test_containers_and_elements),
		cmocka_unit_test(test_container_rules),
		cmocka_unit_test(test_host_values),
		cmocka_unit_test(test_host_round_trip_rule),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
