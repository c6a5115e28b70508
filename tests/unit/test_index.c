/* Unit tests for analyzer/syntax/index.h: import resolution, bindings, loops and
 * their events, with contexts, decorators, local module
 * classes, call events and gradient-reset sites. */
#include "helpers.h"

#include <stdio.h>

#include "base/alloc.h"
#include "rules/qexec.h"
#include "syntax/reads.h"
#include "syntax/walk.h"

/* ---- helpers ----------------------------------------------------------------- */

/* tl_index_qualify of `text` at its first occurrence after `anchor`,
 * compared with `want` (NULL: none). */
static void expect_qualify(TlFixture *fx, const char *anchor, const char *text, const char *want)
{
	char *q = tl_index_qualify(&fx->idx, tl_fixture_node_after(fx, anchor, text));
	if (!want) {
		if (q)
			fail_msg("'%s' qualified to '%s', expected nothing", text, q);
		return;
	}
	if (!q)
		fail_msg("'%s' did not qualify, expected '%s'", text, want);
	if (strcmp(q, want) != 0) {
		char got[256];
		snprintf(got, sizeof got, "%s", q);
		tl_free(q);
		fail_msg("'%s' qualified to '%s', expected '%s'", text, got, want);
	}
	tl_free(q);
}

static int32_t func_named(const TlFixture *fx, const char *name)
{
	for (uint32_t i = 0; i < fx->idx.funcs.size; i++)
		if (strcmp(fx->idx.funcs.items[i].name, name) == 0)
			return (int32_t)i;
	fail_msg("no function '%s'", name);
	return -1;
}

static int32_t class_named(const TlFixture *fx, const char *name)
{
	for (uint32_t i = 0; i < fx->idx.classes.size; i++)
		if (strcmp(fx->idx.classes.items[i].name, name) == 0)
			return (int32_t)i;
	fail_msg("no class '%s'", name);
	return -1;
}

/* The indexed call whose text is exactly `text` (first occurrence). */
static const TlCall *call_of(TlFixture *fx, const char *text)
{
	const TlCall *c = tl_index_call_at(&fx->idx, tl_fixture_node(fx, text, 0));
	if (!c)
		fail_msg("'%s' is not an indexed call", text);
	return c;
}

/* The value text of a binding, for comparisons. */
static bool value_is(TlFixture *fx, const TlBinding *b, const char *text)
{
	return b && !ts_node_is_null(b->value) && tl_index_text_is(&fx->idx, b->value, text);
}

/* The with block whose statement starts with `head` ("with torch.no_grad()"). */
static const TlWith *with_starting(TlFixture *fx, const char *head)
{
	const char *p = strstr(fx->src.text, head);
	assert_non_null(p);
	uint32_t at = (uint32_t)(p - fx->src.text);
	for (uint32_t i = 0; i < fx->idx.withs.size; i++)
		if (ts_node_start_byte(fx->idx.withs.items[i].node) == at)
			return &fx->idx.withs.items[i];
	fail_msg("no with block at '%s'", head);
	return NULL;
}

/* ---- imports -------------------------------------------------------------------- */

static void test_qualify_imports(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch as T\n"
		"from torch import nn, optim\n"
		"import torch.nn.functional as F\n"
		"from torch.cuda.amp import autocast\n"
		"from torch.amp import autocast as ac\n"
		"import torch.distributed\n"
		"from . import utils\n"
		"F2 = nn.functional\n"
		"F3 = F2\n"
		"a = T.zeros(3)\n"
		"b = nn.CrossEntropyLoss()\n"
		"c = optim.SGD(p)\n"
		"d = F.relu(a)\n"
		"with autocast():\n"
		"    pass\n"
		"with ac('cuda'):\n"
		"    pass\n"
		"e = F2.cross_entropy(a, b)\n"
		"f = F3.mse_loss(a, b)\n"
		"g = torch.distributed.init_process_group()\n"
		"h = utils.helper()\n"
		"i = local.thing()\n");
	expect_qualify(fx, "a = ", "T.zeros", "torch.zeros");
	expect_qualify(fx, "b = ", "nn.CrossEntropyLoss", "torch.nn.CrossEntropyLoss");
	expect_qualify(fx, "c = ", "optim.SGD", "torch.optim.SGD");
	expect_qualify(fx, "d = ", "F.relu", "torch.nn.functional.relu");
	expect_qualify(fx, "with autocast", "autocast", "torch.cuda.amp.autocast");
	expect_qualify(fx, "with ac", "ac", "torch.amp.autocast");
	expect_qualify(fx, "e = ", "F2.cross_entropy", "torch.nn.functional.cross_entropy");
	/* An alias of an alias. */
	expect_qualify(fx, "f = ", "F3.mse_loss", "torch.nn.functional.mse_loss");
	/* `import torch.distributed` binds `torch`. */
	expect_qualify(fx, "g = ", "torch.distributed.init_process_group",
		       "torch.distributed.init_process_group");
	/* A relative import keeps its dots (the project model resolves it);
	 * an unbound root does not resolve. */
	expect_qualify(fx, "h = ", "utils.helper", ".utils.helper");
	expect_qualify(fx, "i = ", "local.thing", NULL);
	/* The index stores the resolved callee of every call. */
	assert_string_equal(call_of(fx, "F.relu(a)")->qname, "torch.nn.functional.relu");
	assert_null(call_of(fx, "local.thing()")->qname);
	tl_fixture_free(fx);
}

/* tl_index_dotted of `text` at its first occurrence after `anchor`,
 * compared with `want` (NULL: not a dotted name). */
static void expect_dotted(TlFixture *fx, const char *anchor, const char *text, const char *want)
{
	TlBuf b;
	tl_buf_init(&b);
	bool ok = tl_index_dotted(&fx->idx, tl_fixture_node_after(fx, anchor, text), &b);
	if (!want && ok)
		fail_msg("'%s' read as the dotted name '%s', expected none", text, b.data);
	if (want && !ok)
		fail_msg("'%s' is no dotted name, expected '%s'", text, want);
	if (want)
		assert_string_equal(b.data, want);
	tl_buf_release(&b);
}

/* Names read from the source text when spelled plainly, through the tree
 * otherwise; qualified names and resolutions kept per node read back the
 * same answers. */
static void test_names_spelled_or_not(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"a = torch.nn.functional.relu\n"
		"b = (torch).nn . functional\n"
		"c = (torch.nn\n"
		"     # a comment\n"
		"     .Linear)\n"
		"d = True.real\n"
		"e = x1.y2._z\n"
		"f = donn\xc3\xa9" "es.forme\n"
		"g = f(x).y\n"
		"h = torch.zeros(3)\n"
		"torch.ones(4)\n"
		"class M:\n"
		"    def __init__(self):\n"
		"        self.model = torch.nn.Linear(2, 2)\n"
		"    def forward(self, x):\n"
		"        return self.model(x) + torch.cat([x])\n");
	expect_dotted(fx, "a = ", "torch.nn.functional.relu", "torch.nn.functional.relu");
	expect_dotted(fx, "b = ", "(torch).nn . functional", "torch.nn.functional");
	expect_dotted(fx, "c = ", "(torch.nn\n     # a comment\n     .Linear)", "torch.nn.Linear");
	/* Spelled like a dotted name, but `True` is no name. */
	expect_dotted(fx, "d = ", "True.real", NULL);
	expect_dotted(fx, "e = ", "x1.y2._z", "x1.y2._z");
	expect_dotted(fx, "f = ", "donn\xc3\xa9" "es.forme", "donn\xc3\xa9" "es.forme");
	expect_dotted(fx, "g = ", "f(x).y", NULL);
	expect_qualify(fx, "b = ", "(torch).nn . functional", "torch.nn.functional");
	expect_qualify(fx, "c = ", "(torch.nn\n     # a comment\n     .Linear)", "torch.nn.Linear");
	/* Kept per node: asked twice, the same string; a callee's is its call's. */
	TSNode relu = tl_fixture_node_after(fx, "a = ", "torch.nn.functional.relu");
	const char *q = tl_index_qualified(&fx->idx, relu);
	assert_non_null(q);
	assert_string_equal(q, "torch.nn.functional.relu");
	assert_ptr_equal(q, tl_index_qualified(&fx->idx, relu));
	const TlCall *zeros = call_of(fx, "torch.zeros(3)");
	assert_ptr_equal(tl_index_qualified(&fx->idx, zeros->callee), zeros->qname);
	assert_null(tl_index_qualified(&fx->idx, tl_fixture_node_after(fx, "e = ", "x1.y2._z")));
	/* Resolution: `self.model` in another method is the attribute bound in
	 * __init__, twice over (the second answer is the kept one); an
	 * attribute chain the file binds nowhere resolves to nothing. */
	for (int k = 0; k < 2; k++) {
		const TlBinding *bd = tl_index_resolve_node(
			&fx->idx, tl_fixture_node_after(fx, "return ", "self.model"));
		assert_non_null(bd);
		assert_string_equal(bd->name, "self.model");
		assert_true(value_is(fx, bd, "torch.nn.Linear(2, 2)"));
		assert_null(tl_index_resolve_node(&fx->idx, tl_fixture_node_after(fx, "return ", "torch.cat")));
	}
	/* A call is found by its span, from any node with that span (the
	 * statement that is only the call), and not from a wider one. */
	const TlCall *ones = call_of(fx, "torch.ones(4)");
	assert_ptr_equal(tl_index_call_at(&fx->idx, ones->node), ones);
	assert_ptr_equal(tl_index_call_at(&fx->idx, ts_node_parent(ones->node)), ones);
	assert_ptr_equal(tl_index_call_at(&fx->idx, zeros->node), zeros);
	assert_null(tl_index_call_at(&fx->idx, ts_node_parent(zeros->node)));
	/* The last answer is kept: asked again, in any order, the same
	 * answers (none included). */
	assert_null(tl_index_call_at(&fx->idx, ts_node_parent(zeros->node)));
	assert_ptr_equal(tl_index_call_at(&fx->idx, zeros->node), zeros);
	assert_ptr_equal(tl_index_call_at(&fx->idx, zeros->node), zeros);
	assert_ptr_equal(tl_index_call_at(&fx->idx, ones->node), ones);
	assert_null(tl_index_call_at(&fx->idx, ts_node_parent(zeros->node)));
	assert_ptr_equal(tl_index_call_at(&fx->idx, ts_node_parent(ones->node)), ones);
	tl_fixture_free(fx);
}

/* The per-node answer table keeps "none" (-1) like any answer, per kind,
 * for every node it is given (past its growth). */
static void test_node_memo(void **state)
{
	(void)state;
	/* Some 600 nodes: the table grows past its first 256 slots. */
	TlBuf code;
	tl_buf_init(&code);
	tl_buf_add(&code, "xs = [");
	for (int i = 0; i < 300; i++)
		tl_buf_addf(&code, "a%d, ", i);
	tl_buf_add(&code, "]\n");
	TlFixture *fx = tl_fixture_new(code.data);
	tl_buf_release(&code);
	TlNodeMemo *m = tl_node_memo_new();
	TSTreeCursor cur = ts_tree_cursor_new(ts_tree_root_node(fx->tree));
	TlArray(TSNode) nodes;
	tl_array_init(&nodes);
	bool descend = true;
	do {
		tl_array_push(&nodes, ts_tree_cursor_current_node(&cur));
	} while (tl_walk_next(&cur, ts_tree_root_node(fx->tree), descend));
	ts_tree_cursor_delete(&cur);
	int32_t v;
	assert_false(tl_node_memo_get(m, nodes.items[0], TL_MEMO_RESOLVE, &v));
	/* Many puts (past the first table size) with mixed answers. */
	assert_true(nodes.size > 500);
	for (uint32_t k = 0; k < 2 * nodes.size; k++) {
		TSNode n = nodes.items[k % nodes.size];
		tl_node_memo_put(m, n, TL_MEMO_RESOLVE, (int32_t)(k % nodes.size) % 3 - 1);
	}
	for (uint32_t i = 0; i < nodes.size; i++) {
		assert_true(tl_node_memo_get(m, nodes.items[i], TL_MEMO_RESOLVE, &v));
		assert_int_equal(v, (int32_t)i % 3 - 1);
		assert_false(tl_node_memo_get(m, nodes.items[i], TL_MEMO_QUALIFY, &v));
	}
	int32_t k = tl_node_memo_keep(m, tl_strdup("torch.nn"));
	tl_node_memo_put(m, nodes.items[1], TL_MEMO_QUALIFY, k);
	assert_true(tl_node_memo_get(m, nodes.items[1], TL_MEMO_QUALIFY, &v));
	assert_string_equal(tl_node_memo_string(m, v), "torch.nn");
	tl_array_release(&nodes);
	tl_node_memo_free(m);
	tl_fixture_free(fx);
}

static void test_qualify_respects_scope(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import numpy as np\n"
		"def f():\n"
		"    import torch as np\n"
		"    return np.zeros(1)\n"
		"def g():\n"
		"    return np.zeros(2)\n"
		"def h(np):\n"
		"    return np.ones(3)\n"
		"x = x\n"
		"y = x.attr\n");
	expect_qualify(fx, "return ", "np.zeros(1)", NULL); /* a call, not a name */
	expect_qualify(fx, "return ", "np.zeros", "torch.zeros");
	expect_qualify(fx, "def g", "np.zeros", "numpy.zeros");
	/* A parameter shadows the import. */
	expect_qualify(fx, "def h", "np.ones", NULL);
	/* A name bound to itself resolves to nothing (and does not loop). */
	expect_qualify(fx, "y = ", "x.attr", NULL);
	tl_fixture_free(fx);
}

/* ---- bindings ------------------------------------------------------------------- */

static void test_resolve_latest_binding_before_use(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"x = 1\n"
		"first = x\n"
		"x = 2\n"
		"second = x\n"
		"def f():\n"
		"    y = 'a'\n"
		"    print(y)\n"
		"    y = 'b'\n"
		"    return y, x\n");
	const TlIndex *idx = &fx->idx;
	const TlBinding *b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "first = ", "x"));
	assert_non_null(b);
	assert_int_equal(b->kind, TL_BIND_ASSIGN);
	assert_true(value_is(fx, b, "1"));
	b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "second = ", "x"));
	assert_true(value_is(fx, b, "2"));
	b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "print(", "y"));
	assert_true(value_is(fx, b, "'a'"));
	assert_int_equal(b->func, func_named(fx, "f"));
	b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "return ", "y"));
	assert_true(value_is(fx, b, "'b'"));
	/* A module name read in a function: the function runs after the module
	 * body, so the last module-level binding counts. */
	b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "return y, ", "x"));
	assert_true(value_is(fx, b, "2"));
	assert_int_equal(b->func, -1);
	/* Unbound names. */
	assert_null(tl_index_resolve(idx, "nowhere", -1, fx->src.length));
	/* Nothing is visible before its binding at module level. */
	assert_null(tl_index_resolve(idx, "x", -1, 0));
	tl_fixture_free(fx);
}

static void test_resolve_parameters(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"def f(a, b=2, *args, c: int = 3, d: str, **kw):\n"
		"    return a, b, args, c, d, kw\n");
	int32_t f = func_named(fx, "f");
	const TlFunc *fn = &fx->idx.funcs.items[f];
	assert_int_equal(fn->params.size, 6);
	static const char *const names[] = { "a", "b", "args", "c", "d", "kw" };
	for (uint32_t i = 0; i < 6; i++) {
		const TlBinding *p = &fx->idx.bindings.items[fn->params.items[i]];
		assert_string_equal(p->name, names[i]);
		assert_int_equal(p->kind, TL_BIND_PARAM);
		assert_int_equal(p->func, f);
	}
	const TlBinding *b = tl_index_resolve_node(&fx->idx, tl_fixture_node_after(fx, "return ", "a"));
	assert_non_null(b);
	assert_int_equal(b->kind, TL_BIND_PARAM);
	/* The annotation is the parameter's value. */
	b = tl_index_resolve_node(&fx->idx, tl_fixture_node_after(fx, "return a, b, args, ", "c"));
	assert_true(value_is(fx, b, "int"));
	b = tl_index_resolve_node(&fx->idx, tl_fixture_node_after(fx, "return a, b, args, c, ", "d"));
	assert_true(value_is(fx, b, "str"));
	b = tl_index_resolve_node(&fx->idx, tl_fixture_node_after(fx, "return a, b, ", "args"));
	assert_non_null(b);
	assert_string_equal(b->name, "args");
	tl_fixture_free(fx);
}

static void test_resolve_tuple_targets(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"loss, logits = model(x)\n"
		"a, (b, c) = 1, (2, 3)\n"
		"for i, (inp, tgt) in enumerate(loader):\n"
		"    use(loss, logits, a, b, i, inp)\n");
	const TlIndex *idx = &fx->idx;
	const TlBinding *b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "use(", "loss"));
	assert_non_null(b);
	assert_int_equal(b->kind, TL_BIND_ASSIGN);
	assert_int_equal(b->elem, 0);
	assert_true(value_is(fx, b, "model(x)"));
	b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "use(loss, ", "logits"));
	assert_int_equal(b->elem, 1);
	b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "use(loss, logits, ", "a"));
	assert_int_equal(b->elem, 0);
	/* Nested names are bound, without an element index of their own. */
	b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "use(loss, logits, a, ", "b"));
	assert_non_null(b);
	assert_int_equal(b->elem, -1);
	b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "b, i, inp", "i"));
	assert_non_null(b);
	assert_int_equal(b->kind, TL_BIND_FOR);
	assert_int_equal(b->elem, 0);
	assert_true(value_is(fx, b, "enumerate(loader)"));
	b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "use(loss, logits, a, b, i, ", "inp"));
	assert_non_null(b);
	assert_int_equal(b->kind, TL_BIND_FOR);
	/* Depth and top-level element: `inp` is element 0 of element 1. */
	assert_int_equal(b->depth, 2);
	assert_int_equal(b->top, 1);
	assert_int_equal(b->elem, -1);
	b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "b, i, inp", "i"));
	assert_int_equal(b->depth, 1);
	assert_int_equal(b->top, 0);
	b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "use(loss, logits, a, ", "b"));
	assert_int_equal(b->depth, 2);
	assert_int_equal(b->top, 1);
	tl_fixture_free(fx);
	/* A whole target has depth 0 and no element. */
	fx = tl_fixture_new("for batch in loader:\n    use(batch)\n");
	b = tl_index_resolve_node(&fx->idx, tl_fixture_node_after(fx, "use(", "batch"));
	assert_non_null(b);
	assert_int_equal(b->depth, 0);
	assert_int_equal(b->top, -1);
	tl_fixture_free(fx);
}

static void test_resolve_self_attributes(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"class Net(nn.Module):\n"
		"    def __init__(self):\n"
		"        super().__init__()\n"
		"        self.body = nn.Linear(2, 2)\n"
		"    def forward(self, x):\n"
		"        return self.body(x)\n"
		"    def reset(self):\n"
		"        self.body = None\n"
		"        return self.body\n"
		"class Other:\n"
		"    def run(self):\n"
		"        return self.body\n"
		"def free():\n"
		"    return self.body\n");
	const TlIndex *idx = &fx->idx;
	int32_t net = class_named(fx, "Net");
	/* Read in another method: the binding made in __init__. */
	const TlBinding *b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "return self.body(", "self.body"));
	assert_non_null(b);
	assert_string_equal(b->name, "self.body");
	assert_int_equal(b->cls, net);
	assert_int_equal(b->func, func_named(fx, "__init__"));
	assert_true(value_is(fx, b, "nn.Linear(2, 2)"));
	/* A method's own earlier binding wins. */
	b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "None\n        return self.body", "self.body"));
	assert_true(value_is(fx, b, "None"));
	/* Another class's self.body is not Net's. */
	assert_null(tl_index_resolve_node(idx, tl_fixture_node_after(fx, "def run(self):\n        return ", "self.body")));
	/* Outside any class, self.x binds nothing. */
	assert_null(tl_index_resolve_node(idx, tl_fixture_node_after(fx, "def free():\n    return ", "self.body")));
	tl_fixture_free(fx);
}

static void test_resolve_closures(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"def outer(scale):\n"
		"    factor = 2\n"
		"    def inner(v):\n"
		"        return v * factor * scale\n"
		"    factor = 3\n"
		"    return inner\n"
		"def other():\n"
		"    return factor\n");
	const TlIndex *idx = &fx->idx;
	int32_t outer = func_named(fx, "outer"), inner = func_named(fx, "inner");
	assert_int_equal(fx->idx.funcs.items[inner].parent, outer);
	/* A closure sees the enclosing function's latest binding. */
	const TlBinding *b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "v * ", "factor"));
	assert_non_null(b);
	assert_int_equal(b->func, outer);
	assert_true(value_is(fx, b, "3"));
	b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "factor * ", "scale"));
	assert_non_null(b);
	assert_int_equal(b->kind, TL_BIND_PARAM);
	assert_int_equal(b->func, outer);
	/* The nested def is bound in outer, so `return inner` finds it. */
	b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "return inner", "inner"));
	assert_non_null(b);
	assert_int_equal(b->kind, TL_BIND_DEF);
	assert_int_equal(b->ref, inner);
	/* A sibling function does not see outer's locals. */
	assert_null(tl_index_resolve_node(idx, tl_fixture_node_after(fx, "def other():\n    return ", "factor")));
	tl_fixture_free(fx);
}

static void test_class_body_names_are_not_module_names(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"model = make_model()\n"
		"class Config:\n"
		"    model = 'resnet'\n"
		"use(model)\n");
	const TlBinding *b = tl_index_resolve_node(&fx->idx, tl_fixture_node_after(fx, "use(", "model"));
	assert_non_null(b);
	assert_true(value_is(fx, b, "make_model()"));
	tl_fixture_free(fx);
}

static void test_imports_and_defs_are_bindings(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn.functional as F\n"
		"class Net:\n"
		"    pass\n"
		"def make():\n"
		"    return Net()\n"
		"make()\n"
		"F.relu(1)\n");
	const TlIndex *idx = &fx->idx;
	const TlBinding *b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "F.relu", "F"));
	assert_non_null(b);
	assert_int_equal(b->kind, TL_BIND_IMPORT);
	assert_string_equal(b->qname, "torch.nn.functional");
	b = tl_index_resolve_node(idx, tl_fixture_node_after(fx, "return ", "Net"));
	assert_non_null(b);
	assert_int_equal(b->kind, TL_BIND_CLASS);
	assert_int_equal(b->ref, class_named(fx, "Net"));
	/* The module-level call targets the local function. */
	const TlCall *c = tl_index_call_at(idx, tl_fixture_node_after(fx, "Net()\n", "make()"));
	assert_non_null(c);
	assert_int_equal(c->target, func_named(fx, "make"));
	tl_fixture_free(fx);
}

/* ---- loops ------------------------------------------------------------------------- */

static void test_loops_and_events(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"opt = torch.optim.SGD(params, lr=0.1)\n"
		"def clear(o):\n"
		"    o.zero_grad()\n"
		"def helper():\n"
		"    clear(opt)\n"
		"for batch in data:\n"
		"    loss = compute(batch)\n"
		"    loss.backward()\n"
		"    helper()\n"
		"    opt.step()\n"
		"for epoch in range(3):\n"
		"    while cond():\n"
		"        loss.backward()\n"
		"        opt.step()\n"
		"def train():\n"
		"    for x in data:\n"
		"        pass\n");
	const TlIndex *idx = &fx->idx;
	assert_int_equal(idx->loops.size, 4);
	const TlLoop *l0 = &idx->loops.items[0];
	assert_int_equal(l0->func, -1);
	assert_int_equal(l0->parent, -1);
	/* Two calls deep: helper() -> clear(opt) -> o.zero_grad(). */
	assert_true(l0->events & TL_EV_GRAD_RESET);
	assert_true(l0->events & TL_EV_BACKWARD);
	assert_true(l0->events & TL_EV_OPT_STEP);
	/* The for loop and its nested while: the inner loop's events belong
	 * to the outer loop's iteration too, and neither resets. */
	const TlLoop *outer = &idx->loops.items[1], *inner = &idx->loops.items[2];
	assert_int_equal(inner->parent, 1);
	assert_true(inner->events & TL_EV_BACKWARD);
	assert_true(outer->events & TL_EV_BACKWARD);
	assert_true(outer->events & TL_EV_OPT_STEP);
	assert_false(outer->events & TL_EV_GRAD_RESET);
	assert_false(inner->events & TL_EV_GRAD_RESET);
	/* A loop inside a function belongs to it; an empty body has no events. */
	const TlLoop *l3 = &idx->loops.items[3];
	assert_int_equal(l3->func, func_named(fx, "train"));
	assert_int_equal(l3->events, 0);
	/* Functions record what they reach. */
	int32_t helper = func_named(fx, "helper");
	assert_false(idx->funcs.items[helper].events & TL_EV_GRAD_RESET);
	assert_true(idx->funcs.items[helper].reach_events & TL_EV_GRAD_RESET);
	/* Lookups. */
	assert_int_equal(tl_index_loop_of(idx, tl_fixture_node_after(fx, "loss.backward()\n", "helper()")), 0);
	assert_int_equal(tl_index_loop_of(idx, tl_fixture_node(fx, "opt.step()", 1)), 2);
	assert_int_equal(tl_index_loop_of(idx, tl_fixture_node(fx, "o.zero_grad()", 0)), -1);
	tl_fixture_free(fx);
}

static void test_loop_with_grad_none_site(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"def train(model, opt, data):\n"
		"    for x in data:\n"
		"        for p in model.parameters():\n"
		"            p.grad = None\n"
		"        model(x).sum().backward()\n"
		"        opt.step()\n"
		"    p.gradient = None\n"
		"    p.grad += 1\n");
	const TlIndex *idx = &fx->idx;
	/* One site: `p.grad = None`; not `p.gradient = ...`, not augmented. */
	assert_int_equal(idx->sites.size, 1);
	const TlSite *s = &idx->sites.items[0];
	assert_true(tl_index_text_is(idx, s->node, "p.grad = None"));
	assert_int_equal(s->events, TL_EV_GRAD_RESET);
	assert_int_equal(s->func, func_named(fx, "train"));
	assert_int_equal(s->loop, 1);
	/* The reset counts for the enclosing loop's iteration too. */
	assert_true(idx->loops.items[0].events & TL_EV_GRAD_RESET);
	assert_true(idx->funcs.items[func_named(fx, "train")].events & TL_EV_GRAD_RESET);
	tl_fixture_free(fx);
}

/* ---- with blocks and decorators -------------------------------------------------- */

static void test_with_contexts(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"from torch.cuda.amp import autocast\n"
		"from contextlib import nullcontext\n"
		"with torch.no_grad():\n"
		"    pass\n"
		"with torch.inference_mode():\n"
		"    pass\n"
		"with torch.inference_mode(False):\n"
		"    pass\n"
		"with torch.set_grad_enabled(False):\n"
		"    pass\n"
		"with torch.set_grad_enabled(True):\n"
		"    pass\n"
		"with torch.set_grad_enabled(phase == 'train'):\n"
		"    pass\n"
		"with torch.enable_grad():\n"
		"    pass\n"
		"with autocast(enabled=False):\n"
		"    pass\n"
		"with autocast():\n"
		"    pass\n"
		"with torch.autocast('cuda', dtype=torch.bfloat16), torch.no_grad():\n"
		"    pass\n"
		"with open(path) as fh:\n"
		"    pass\n"
		"with torch.no_grad() if evaluating else nullcontext():\n"
		"    pass\n");
	assert_int_equal(fx->idx.withs.size, 12);
	assert_int_equal(with_starting(fx, "with torch.no_grad():")->ctx, TL_CTX_GRAD_OFF);
	assert_int_equal(with_starting(fx, "with torch.inference_mode():")->ctx, TL_CTX_GRAD_OFF);
	/* inference_mode(False) turns inference mode off, not grad. */
	assert_int_equal(with_starting(fx, "with torch.inference_mode(False)")->ctx, 0);
	assert_int_equal(with_starting(fx, "with torch.set_grad_enabled(False)")->ctx, TL_CTX_GRAD_OFF);
	assert_int_equal(with_starting(fx, "with torch.set_grad_enabled(True)")->ctx, TL_CTX_GRAD_ON);
	/* A flag: possibly off. */
	assert_int_equal(with_starting(fx, "with torch.set_grad_enabled(phase")->ctx, TL_CTX_GRAD_OFF);
	assert_int_equal(with_starting(fx, "with torch.enable_grad()")->ctx, TL_CTX_GRAD_ON);
	/* Autocast disabled by a literal opens no autocast context. */
	assert_false(with_starting(fx, "with autocast(enabled=False)")->ctx & TL_CTX_AUTOCAST);
	/* torch.cuda.amp's autocast computes in float16; a bfloat16 one does not. */
	assert_int_equal(with_starting(fx, "with autocast():")->ctx, TL_CTX_AUTOCAST | TL_CTX_HALF_AUTOCAST);
	assert_int_equal(with_starting(fx, "with torch.autocast(")->ctx,
			 TL_CTX_AUTOCAST | TL_CTX_GRAD_OFF);
	assert_int_equal(with_starting(fx, "with open(")->ctx, 0);
	assert_int_equal(with_starting(fx, "with torch.no_grad() if")->ctx, TL_CTX_GRAD_OFF);
	tl_fixture_free(fx);
}

static void test_with_nesting_and_lookup(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def f(model, x):\n"
		"    with torch.autocast('cuda'):\n"
		"        with torch.no_grad():\n"
		"            a = model(x)\n"
		"        b = model(x)\n"
		"    c = model(x)\n"
		"ctx = torch.no_grad()\n"
		"with ctx:\n"
		"    d = 1\n");
	const TlIndex *idx = &fx->idx;
	assert_int_equal(idx->withs.size, 3);
	assert_int_equal(idx->withs.items[1].parent, 0);
	assert_int_equal(idx->withs.items[0].func, func_named(fx, "f"));
	assert_int_equal(tl_index_with_of(idx, tl_fixture_node(fx, "model(x)", 0)), 1);
	assert_int_equal(tl_index_with_of(idx, tl_fixture_node(fx, "model(x)", 1)), 0);
	assert_int_equal(tl_index_with_of(idx, tl_fixture_node(fx, "model(x)", 2)), -1);
	/* The calls carry their innermost with block. */
	assert_int_equal(call_of(fx, "model(x)")->with, 1);
	/* A context manager bound to a name first. */
	assert_int_equal(idx->withs.items[2].ctx, TL_CTX_GRAD_OFF);
	tl_fixture_free(fx);
}

static void test_decorators(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import functools\n"
		"@torch.no_grad()\n"
		"def evaluate(model, x):\n"
		"    return model(x)\n"
		"@torch.inference_mode()\n"
		"def predict(model, x):\n"
		"    return model(x)\n"
		"@torch.no_grad\n"
		"def bare(model, x):\n"
		"    return model(x)\n"
		"@torch.autocast('cuda')\n"
		"def fwd(model, x):\n"
		"    return model(x)\n"
		"@functools.lru_cache()\n"
		"def cached():\n"
		"    return 1\n"
		"def plain():\n"
		"    return 2\n");
	const TlIndex *idx = &fx->idx;
	const TlFunc *f = &idx->funcs.items[func_named(fx, "evaluate")];
	assert_int_equal(f->decorator_ctx, TL_CTX_GRAD_OFF);
	assert_false(ts_node_eq(f->outer, f->node));
	assert_string_equal(ts_node_type(f->outer), "decorated_definition");
	assert_int_equal(idx->funcs.items[func_named(fx, "predict")].decorator_ctx, TL_CTX_GRAD_OFF);
	assert_int_equal(idx->funcs.items[func_named(fx, "bare")].decorator_ctx, TL_CTX_GRAD_OFF);
	assert_int_equal(idx->funcs.items[func_named(fx, "fwd")].decorator_ctx,
			 TL_CTX_AUTOCAST | TL_CTX_HALF_AUTOCAST);
	assert_int_equal(idx->funcs.items[func_named(fx, "cached")].decorator_ctx, 0);
	f = &idx->funcs.items[func_named(fx, "plain")];
	assert_int_equal(f->decorator_ctx, 0);
	assert_true(ts_node_eq(f->outer, f->node));
	tl_fixture_free(fx);
}

static void test_function_referenced_by_assignment_escapes(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def helper(m, x):\n"
		"    return m(x)\n"
		"cb = helper\n"
		"with torch.no_grad():\n"
		"    helper(model, x)\n"
		"cb(model, x)\n");
	const TlFunc *f = &fx->idx.funcs.items[func_named(fx, "helper")];
	assert_true(f->escapes);
	tl_fixture_free(fx);
}

/* ---- classes ---------------------------------------------------------------------- */

static void test_local_module_classes(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch.nn as nn\n"
		"from torch.nn import Module\n"
		"import lightning as L\n"
		"from torch.nn.modules.instancenorm import _InstanceNorm\n"
		"class Base(nn.Module):\n"
		"    pass\n"
		"class Mid(Base):\n"
		"    pass\n"
		"class Leaf(Mid, metaclass=Meta):\n"
		"    pass\n"
		"class Direct(Module):\n"
		"    pass\n"
		"class Lit(L.LightningModule):\n"
		"    pass\n"
		"class Plain:\n"
		"    pass\n"
		"class Data(object):\n"
		"    pass\n"
		"class FromPlain(Plain):\n"
		"    pass\n"
		"class Param(nn.Parameter):\n"
		"    pass\n"
		"class Generic1(Base[T], Generic[T]):\n"
		"    pass\n"
		"class Generic2(Generic1[int]):\n"
		"    pass\n"
		"class Norm(_InstanceNorm):\n"
		"    pass\n");
	const TlIndex *idx = &fx->idx;
	const TlClass *base = &idx->classes.items[class_named(fx, "Base")];
	assert_true(base->is_module);
	assert_int_equal(base->base_qnames.size, 1);
	assert_string_equal(base->base_qnames.items[0], "torch.nn.Module");
	const TlClass *mid = &idx->classes.items[class_named(fx, "Mid")];
	assert_true(mid->is_module);
	assert_int_equal(mid->bases.size, 1);
	assert_int_equal(mid->bases.items[0], class_named(fx, "Base"));
	assert_true(idx->classes.items[class_named(fx, "Leaf")].is_module);
	assert_true(idx->classes.items[class_named(fx, "Direct")].is_module);
	assert_true(idx->classes.items[class_named(fx, "Lit")].is_module);
	assert_false(idx->classes.items[class_named(fx, "Plain")].is_module);
	assert_false(idx->classes.items[class_named(fx, "Data")].is_module);
	assert_false(idx->classes.items[class_named(fx, "FromPlain")].is_module);
	assert_false(idx->classes.items[class_named(fx, "Param")].is_module);
	/* `Base[T]`: a generic class given its parameters is that class */
	const TlClass *g1 = &idx->classes.items[class_named(fx, "Generic1")];
	assert_int_equal(g1->bases.size, 1);
	assert_int_equal(g1->bases.items[0], class_named(fx, "Base"));
	assert_true(g1->is_module);
	assert_true(idx->classes.items[class_named(fx, "Generic2")].is_module);
	/* a private base class of the library's layers */
	assert_true(idx->classes.items[class_named(fx, "Norm")].is_module);
	tl_fixture_free(fx);
}

/* ---- call events ------------------------------------------------------------------- */

/* tl_index_no_call_has: a call's own events, its callee's (filled by the
 * facts for a function of another module), each read only where asked. */
static void test_no_call_has(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new("import torch\n"
				       "for x in data:\n"
				       "    opt.step()\n"
				       "    helper(x)\n");
	assert_false(tl_index_no_call_has(&fx->idx, TL_EV_OPT_STEP, 0));
	assert_false(tl_index_no_call_has(&fx->idx, TL_EV_BACKWARD | TL_EV_OPT_STEP, 0));
	assert_true(tl_index_no_call_has(&fx->idx, TL_EV_BACKWARD, TL_EV_BACKWARD));
	assert_true(tl_index_no_call_has(&fx->idx, 0, TL_EV_OPT_STEP));
	((TlCall *)call_of(fx, "helper(x)"))->callee_events = TL_EV_BACKWARD;
	assert_true(tl_index_no_call_has(&fx->idx, TL_EV_BACKWARD, 0));
	assert_false(tl_index_no_call_has(&fx->idx, 0, TL_EV_BACKWARD));
	assert_false(tl_index_no_call_has(&fx->idx, TL_EV_GRAD_CLIP, TL_EV_BACKWARD));
	tl_fixture_free(fx);
}

static void test_call_events(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"import torch.nn as nn\n"
		"import gym\n"
		"model = nn.Linear(4, 2)\n"
		"crit = nn.CrossEntropyLoss()\n"
		"opt = torch.optim.Adam(model.parameters())\n"
		"scheduler = torch.optim.lr_scheduler.StepLR(opt, 10)\n"
		"scaler = torch.cuda.amp.GradScaler()\n"
		"off = torch.amp.GradScaler('cuda', enabled=False)\n"
		"env = gym.make('CartPole-v1')\n"
		"for x, y in data:\n"
		"    out = model(x)\n"
		"    loss = crit(out, y)\n"
		"    scaler.scale(loss).backward()\n"
		"    scaler.step(opt)\n"
		"    scaler.update()\n"
		"    loss.backward()\n"
		"    opt.step()\n"
		"    opt.zero_grad()\n"
		"    scheduler.step()\n"
		"    obs = env.step(a)\n"
		"    model.eval()\n"
		"    model.train()\n"
		"    model.train(False)\n"
		"    torch.autograd.backward(loss)\n"
		"    x.grad.zero_()\n"
		"    model.train(flag)\n"
		"    torch.autograd.grad(loss, x)\n"
		"    h.detach_()\n"
		"    scaler.unscale_(opt)\n"
		"    accelerator.backward(loss)\n"
		"    off.scale(loss).backward()\n"
		"    off.step(opt)\n"
		"    off.update()\n");
	assert_int_equal(call_of(fx, "scaler.scale(loss).backward()")->events,
			 TL_EV_BACKWARD | TL_EV_SCALED_BACKWARD);
	assert_int_equal(call_of(fx, "scaler.step(opt)")->events, TL_EV_SCALER_STEP | TL_EV_OPT_STEP);
	assert_int_equal(call_of(fx, "scaler.update()")->events, TL_EV_SCALER_UPDATE);
	assert_int_equal(call_of(fx, "loss.backward()")->events,
			 TL_EV_BACKWARD | TL_EV_UNSCALED_BACKWARD);
	assert_int_equal(call_of(fx, "opt.step()")->events, TL_EV_OPT_STEP | TL_EV_PLAIN_STEP);
	assert_int_equal(call_of(fx, "opt.zero_grad()")->events, TL_EV_GRAD_RESET);
	assert_false(call_of(fx, "scheduler.step()")->events & TL_EV_OPT_STEP);
	assert_false(call_of(fx, "env.step(a)")->events & TL_EV_OPT_STEP);
	assert_int_equal(call_of(fx, "model.eval()")->events, TL_EV_EVAL);
	assert_int_equal(call_of(fx, "model.train()")->events, TL_EV_TRAIN);
	assert_int_equal(call_of(fx, "model.train(False)")->events, TL_EV_EVAL);
	assert_int_equal(call_of(fx, "model.train(flag)")->events, TL_EV_MODE_SET);
	assert_true(call_of(fx, "torch.autograd.backward(loss)")->events & TL_EV_BACKWARD);
	assert_true(call_of(fx, "torch.autograd.backward(loss)")->events & TL_EV_UNSCALED_BACKWARD);
	assert_int_equal(call_of(fx, "torch.autograd.grad(loss, x)")->events, TL_EV_GRAD_CALL);
	assert_int_equal(call_of(fx, "x.grad.zero_()")->events, TL_EV_GRAD_RESET);
	assert_int_equal(call_of(fx, "h.detach_()")->events, TL_EV_DETACH);
	assert_int_equal(call_of(fx, "scaler.unscale_(opt)")->events, TL_EV_SCALER_UNSCALE);
	/* accelerator.backward(loss) scales by itself: neither kind. */
	assert_int_equal(call_of(fx, "accelerator.backward(loss)")->events, TL_EV_BACKWARD);
	/* A scaler disabled by a literal enabled=False is a plain optimizer step. */
	assert_int_equal(call_of(fx, "off.step(opt)")->events, TL_EV_OPT_STEP);
	assert_int_equal(call_of(fx, "off.update()")->events, 0);
	assert_int_equal(call_of(fx, "off.scale(loss).backward()")->events, TL_EV_BACKWARD);
	assert_int_equal(call_of(fx, "model(x)")->events, TL_EV_FORWARD);
	assert_int_equal(call_of(fx, "crit(out, y)")->events, TL_EV_LOSS);
	/* Constructing a criterion is not a loss computation. */
	assert_false(call_of(fx, "nn.CrossEntropyLoss()")->events & TL_EV_LOSS);
	/* Fields of the call record. */
	const TlCall *c = call_of(fx, "opt.step()");
	assert_string_equal(c->method, "step");
	assert_string_equal(c->recv_name, "opt");
	assert_true(c->stmt_level);
	assert_int_equal(c->loop, 0);
	assert_int_equal(c->func, -1);
	assert_false(call_of(fx, "env.step(a)")->stmt_level);
	/* Sorted by position, as tl_index_call_at relies on. */
	for (uint32_t i = 1; i < fx->idx.calls.size; i++)
		assert_true(ts_node_start_byte(fx->idx.calls.items[i - 1].node) <=
			    ts_node_start_byte(fx->idx.calls.items[i].node));
	tl_fixture_free(fx);
}

static void test_step_of_unknown_receivers(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def train(optimizer, env, lr_sched, self):\n"
		"    optimizer.step()\n"
		"    env.step(0)\n"
		"    lr_sched.step()\n"
		"    self.opt_g.step()\n"
		"    self.scaler.step(self.opt_g)\n");
	/* Without a binding to decide, names decide (in a file that imports
	 * PyTorch: see test_no_torch_import in test_facts_values.c). */
	assert_true(call_of(fx, "optimizer.step()")->events & TL_EV_OPT_STEP);
	assert_false(call_of(fx, "env.step(0)")->events & TL_EV_OPT_STEP);
	assert_false(call_of(fx, "lr_sched.step()")->events & TL_EV_OPT_STEP);
	assert_true(call_of(fx, "self.opt_g.step()")->events & TL_EV_OPT_STEP);
	assert_true(call_of(fx, "self.scaler.step(self.opt_g)")->events & TL_EV_SCALER_STEP);
	tl_fixture_free(fx);
}

static void test_call_targets(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"class Trainer:\n"
		"    def step_once(self):\n"
		"        return 1\n"
		"    def run(self):\n"
		"        return self.step_once()\n"
		"def helper():\n"
		"    return 2\n"
		"t = Trainer()\n"
		"t.step_once()\n"
		"helper()\n"
		"print(1)\n");
	int32_t step_once = func_named(fx, "step_once");
	assert_int_equal(call_of(fx, "self.step_once()")->target, step_once);
	assert_int_equal(call_of(fx, "t.step_once()")->target, step_once);
	assert_int_equal(tl_index_call_at(&fx->idx, tl_fixture_node_after(fx, "t.step_once()\n", "helper()"))->target,
			 func_named(fx, "helper"));
	assert_int_equal(call_of(fx, "print(1)")->target, -1);
	assert_int_equal(fx->idx.funcs.items[step_once].call_sites.size, 2);
	assert_int_equal(fx->idx.funcs.items[step_once].cls, class_named(fx, "Trainer"));
	assert_int_equal(call_of(fx, "print(1)")->arg_target, -1);
	tl_fixture_free(fx);
	/* A closure passed to a call (LBFGS): the call may run it. */
	fx = tl_fixture_new(
		"def train(opt, model, x):\n"
		"    def closure():\n"
		"        opt.zero_grad()\n"
		"        return model(x)\n"
		"    opt.step(closure)\n");
	const TlCall *c = call_of(fx, "opt.step(closure)");
	assert_int_equal(c->arg_target, func_named(fx, "closure"));
	assert_int_equal(c->target, -1);
	assert_true(fx->idx.funcs.items[func_named(fx, "closure")].escapes);
	tl_fixture_free(fx);
}

/* The index's walk skips the cursor moves that would fail by counting each
 * node's children (ts_node_child_count); it must still visit every node a
 * plain cursor walk visits, and give each named node its parent, in trees
 * with errors, missing nodes, aliases, f-strings and deep nesting too. */
static void test_walk_visits_every_node(void **state)
{
	(void)state;
	const char *sources[] = {
		"import torch\nfor x, (y, z) in data:\n    loss = f(x)[0].sum()\n    loss.backward()\n",
		"def f(a, *b, c: int = 1, **d):\n    return (yield a)\nprint 'old'\nexec 'x'\n",
		"x = f'{a!r:>{w}} {b[1]}' + rb'\\x' 'more'\n@dec(1)\nclass C(B, metaclass=M):\n    pass\n",
		"def broken(:\n    x = [1, 2,\n    y = {\n",
		"match p:\n    case [1, *rest] if rest:\n        pass\n    case {'k': v, **kw}:\n        pass\n",
		"type T = list[int]\nasync def g():\n    async with a as b, c:\n        await h(lambda q: q)\n",
		"((((((((((((((((((((((((((((((((((((((((x))))))))))))))))))))))))))))))))))))))))\n",
		"f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(1\n",
		"",
		"# only a comment",
		"x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, [a, (b, c), {d: e}], f(g, h, *i, **j)]\n"
		"def k(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p):\n    return {1: 2, 3: 4, 5: 6, 7: 8, 9: 0}\n",
	};
	/* Every symbol collected (ERROR's is 65535): the index keeps each node
	 * it visits, in order. */
	static uint8_t all[TL_QEXEC_ROOTS_BYTES];
	memset(all, 0xFF, sizeof all);
	for (size_t i = 0; i < sizeof sources / sizeof *sources; i++) {
		TlFixture *fx = tl_fixture_new(sources[i]);
		uint32_t visited = 0;
		TSNode root = ts_tree_root_node(fx->tree);
		TlIndex seen;
		tl_index_build_collecting(&seen, &fx->src, root, all);
		assert_int_equal(seen.collected.size, seen.node_count);
		TSTreeCursor cur = ts_tree_cursor_new(root);
		for (;;) {
			TSNode n = ts_tree_cursor_current_node(&cur);
			if (visited >= seen.collected.size || !ts_node_eq(seen.collected.items[visited].node, n))
				fail_msg("source %zu: node %u is not the cursor's %s", i, visited, ts_node_type(n));
			visited++;
			if (ts_node_is_named(n) && !ts_node_eq(n, root)) {
				TSNode want = ts_node_parent(n), got = tl_index_parent(&fx->idx, n);
				if (!ts_node_eq(want, got))
					fail_msg("source %zu: wrong parent for a %s", i, ts_node_type(n));
			}
			if (ts_tree_cursor_goto_first_child(&cur))
				continue;
			while (!ts_tree_cursor_goto_next_sibling(&cur))
				if (!ts_tree_cursor_goto_parent(&cur))
					goto walked;
		}
walked:
		ts_tree_cursor_delete(&cur);
		tl_index_release(&seen);
		if (visited != fx->idx.node_count)
			fail_msg("source %zu: the index visited %u nodes, the cursor %u", i,
				 fx->idx.node_count, visited);
		tl_fixture_free(fx);
	}
}

/* parents.h fills the table a statement at a time, when first asked: each
 * named node's parent must come out as ts_node_parent gives it whatever
 * the order of the questions (last node first, and a stride through the
 * file), in blocks of one statement (a block and its statement then span
 * the same bytes), decorated and nested definitions, broken code and deep
 * nesting. */
static void test_parents_in_any_order(void **state)
{
	(void)state;
	const char *sources[] = {
		"class A:\n    def f(self):\n        if x: y = [g(i) for i in z]\n        return 1\n"
		"    @property\n    def p(self): return (lambda q: q)(2)\n",
		"for a in b:\n    while c:\n        with d as e, f() as g:\n            pass\n"
		"    else:\n        h()\nx = 1; y = 2\n",
		"try:\n    pass\nexcept E as e:\n    raise\nfinally:\n    del a[0]\n",
		"def broken(:\n    x = [1, 2,\n    y = {\nclass C(:\n  pass\n",
		"if a:\n if b:\n  if c:\n   if d:\n    e(f(g(h(1))))\n",
		"f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(f(1))))))))))))))))))))))))))))))))))))\n",
		"# a comment\n\n@dec(1)\n@other\nclass D(B, metaclass=M):  # c\n    \"\"\"doc\"\"\"\n",
		/* nothing parses: the root is an ERROR node, its children the statements */
		"y = f(f(f(f(f(f(f(f(f(f(f(f(m.train)\nfor x in y:\n    z = [a.b for a in x]\n"
		"    w = {k: v(1) for k in z}\n",
	};
	for (size_t i = 0; i < sizeof sources / sizeof *sources; i++) {
		for (int order = 0; order < 2; order++) {
			TlFixture *fx = tl_fixture_new(sources[i]);
			TSNode root = ts_tree_root_node(fx->tree);
			if (i == sizeof sources / sizeof *sources - 1)
				assert_string_equal(ts_node_type(root), "ERROR");
			TlArray(TSNode) named;
			tl_array_init(&named);
			TSTreeCursor cur = ts_tree_cursor_new(root);
			do {
				TSNode n = ts_tree_cursor_current_node(&cur);
				if (ts_node_is_named(n))
					tl_array_push(&named, n);
			} while (tl_walk_next(&cur, root, true));
			ts_tree_cursor_delete(&cur);
			assert_true(named.size > 3);
			for (uint32_t k = 0; k < named.size; k++) {
				/* order 0: last first; order 1: a stride of 7 */
				uint32_t at = order == 0 ? named.size - 1 - k : (uint32_t)((k * 7u) % named.size);
				TSNode n = named.items[at];
				TSNode want = ts_node_parent(n), got = tl_index_parent(&fx->idx, n);
				if (!ts_node_eq(want, got))
					fail_msg("source %zu, order %d: wrong parent for a %s at %u", i, order,
						 ts_node_type(n), ts_node_start_byte(n));
			}
			tl_array_release(&named);
			tl_fixture_free(fx);
		}
	}
}

/* reads.h: the roots each assignment value reads, and each root's readers,
 * as the value flow's readers see them (a dotted chain is one read of its
 * first name; `x[0].y` is read through `x`). */
static void test_reads_roots_and_readers(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new("import torch\n"
				       "a = model(x)\n"              /* 1: model, x */
				       "b = a.sum() + self.w[0].t\n" /* 2: a, self */
				       "c = d = b\n"                 /* 3, 4: b */
				       "e += 1\n"                    /* 5: e (its own target) */
				       "f = 2\n"                     /* 6: nothing */
				       "a.backward(y)\n");
	struct {
		const char *root;
		const char *readers; /* binding names, in order */
	} want[] = {
		{ "model", "a" }, { "x", "a" }, { "a", "b" }, { "self", "b" },
		{ "b", "c d" }, { "e", "e" }, { "y", NULL }, { "f", NULL },
	};
	/* Nothing is read before a scope is asked for. */
	assert_int_equal(tl_reads_root_id(&fx->idx, "model", 5), -1);
	tl_reads_scope(&fx->idx, -1);
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		int32_t id = tl_reads_root_id(&fx->idx, want[i].root, strlen(want[i].root));
		const TlIntArray *r = tl_reads_readers(&fx->idx, id);
		char got[64] = "";
		for (uint32_t k = 0; r && k < r->size; k++) {
			if (k)
				strcat(got, " ");
			strcat(got, fx->idx.bindings.items[r->items[k]].name);
		}
		if (!want[i].readers ? got[0] != '\0' : strcmp(got, want[i].readers) != 0)
			fail_msg("readers of '%s': '%s', expected '%s'", want[i].root, got,
				 want[i].readers ? want[i].readers : "");
	}
	/* The call's roots, its callee's included: a and y. */
	uint32_t ci = fx->idx.calls.size;
	for (uint32_t k = 0; k < fx->idx.calls.size; k++)
		if (fx->idx.calls.items[k].method && strcmp(fx->idx.calls.items[k].method, "backward") == 0)
			ci = k;
	assert_true(ci < fx->idx.calls.size);
	const TlIntArray *roots = tl_reads_call_roots(&fx->idx, ci);
	assert_non_null(roots);
	assert_int_equal(roots->size, 2);
	assert_string_equal(tl_reads_root_name(&fx->idx, roots->items[0]), "a");
	assert_string_equal(tl_reads_root_name(&fx->idx, roots->items[1]), "y");
	tl_fixture_free(fx);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qualify_imports),
		cmocka_unit_test(test_qualify_respects_scope),
		cmocka_unit_test(test_names_spelled_or_not),
		cmocka_unit_test(test_node_memo),
		cmocka_unit_test(test_resolve_latest_binding_before_use),
		cmocka_unit_test(test_resolve_parameters),
		cmocka_unit_test(test_resolve_tuple_targets),
		cmocka_unit_test(test_resolve_self_attributes),
		cmocka_unit_test(test_resolve_closures),
		cmocka_unit_test(test_class_body_names_are_not_module_names),
		cmocka_unit_test(test_imports_and_defs_are_bindings),
		cmocka_unit_test(test_loops_and_events),
		cmocka_unit_test(test_loop_with_grad_none_site),
		cmocka_unit_test(test_with_contexts),
		cmocka_unit_test(test_with_nesting_and_lookup),
		cmocka_unit_test(test_decorators),
		cmocka_unit_test(test_function_referenced_by_assignment_escapes),
		cmocka_unit_test(test_local_module_classes),
		cmocka_unit_test(test_call_events),
		cmocka_unit_test(test_no_call_has),
		cmocka_unit_test(test_step_of_unknown_receivers),
		cmocka_unit_test(test_call_targets),
		cmocka_unit_test(test_walk_visits_every_node),
		cmocka_unit_test(test_parents_in_any_order),
		cmocka_unit_test(test_reads_roots_and_readers),
	};
	return cmocka_run_group_tests_name("index", tests, NULL, NULL);
}
