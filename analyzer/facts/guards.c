/* Type guards: what an `isinstance` test around a node proves about a name.
 * Code that handles a mix of modules and tensors branches on the type
 * (`if isinstance(m, nn.Parameter): m.requires_grad = False` else
 * `for p in m.parameters(): ...`); inside the branch where the test holds,
 * the name is what the test says, whatever other uses of the same name
 * suggest (a `.parameters()` call in the other branch is no evidence of a
 * module here).
 *
 * Owns: tl_facts__guarded_tensor. */
#include "facts/internal.h"

/* Enclosing nodes climbed from a name to find its guard. */
#define TL_GUARD_REACH 48

static bool tl_facts__tensor_class(const TlIndex *idx, TSNode cls)
{
	const TlSyms *sy = tl_syms();
	cls = tl_index_unparen(cls);
	if (ts_node_is_null(cls))
		return false;
	TSSymbol s = ts_node_symbol(cls);
	if (s == sy->tuple) {
		/* isinstance(x, (torch.Tensor, nn.Parameter)): every class a tensor */
		uint32_t n = ts_node_named_child_count(cls);
		if (!n)
			return false;
		for (uint32_t k = 0; k < n; k++)
			if (!tl_facts__tensor_class(idx, ts_node_named_child(cls, k)))
				return false;
		return true;
	}
	if (s != sy->identifier && s != sy->attribute)
		return false;
	/* a class the API table says makes tensors (set tensor-class) */
	const char *q = tl_index_qualified(idx, cls);
	const TlApiRow *r = q ? tl_api_qualified(q) : NULL;
	return r && (r->sets & TL_APIS_TENSOR_CLASS);
}

/* True when condition `cond` holding proves that the name written as
 * `name` (dotted text) is a tensor: `isinstance(name, torch.Tensor)`, also
 * as one operand of an `and`. Bounded by the nesting of `and`s written. */
static bool tl_facts__proves_tensor(const TlIndex *idx, TSNode cond, const char *name, int depth)
{
	const TlSyms *sy = tl_syms();
	cond = tl_index_unparen(cond);
	if (ts_node_is_null(cond) || depth > TL_FACTS_DEPTH)
		return false;
	TSSymbol s = ts_node_symbol(cond);
	if (s == sy->boolean_operator) {
		uint32_t len;
		TSNode op = tl_tree_field(cond, sy->f_operator);
		const char *t = ts_node_is_null(op) ? NULL : tl_index_text(idx, op, &len);
		if (!t || len != 3 || memcmp(t, "and", 3) != 0)
			return false;
		return tl_facts__proves_tensor(idx, tl_tree_field(cond, sy->f_left), name, depth + 1) ||
		       tl_facts__proves_tensor(idx, tl_tree_field(cond, sy->f_right), name, depth + 1);
	}
	if (s != sy->call)
		return false;
	const TlCall *c = tl_index_call_at(idx, cond);
	if (!c || !c->method || strcmp(c->method, "isinstance") != 0 || c->receiver.id)
		return false;
	TSNode subject = tl_facts__arg(cond, 0), cls = tl_facts__arg(cond, 1);
	if (ts_node_is_null(subject) || ts_node_is_null(cls))
		return false;
	char buf[128], *owned;
	const char *sn = tl_index_dotted_view(idx, tl_index_unparen(subject), buf, sizeof buf, &owned);
	bool same = sn && strcmp(sn, name) == 0;
	tl_free(owned);
	return same && tl_facts__tensor_class(idx, cls);
}

/* One `isinstance(name, <tensor class>)` test: its scope (the function
 * it is written in, -1 the module) and the dotted name it tests. */
typedef struct TlTensorTest {
	int32_t func;
	char *name;
} TlTensorTest;

void tl_facts__tensor_tests_release(TlFactsCache *fc)
{
	for (uint32_t i = 0; i < fc->tensor_test_count; i++)
		tl_free(fc->tensor_tests[i].name);
	tl_free(fc->tensor_tests);
}

/* The file's tests, found once. */
static void tl_facts__tensor_tests(const TlIndex *idx, TlFactsCache *fc)
{
	fc->tensor_tests_ready = true;
	TlArray(TlTensorTest) tests;
	tl_array_init(&tests);
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (!c->method || c->receiver.id || strcmp(c->method, "isinstance") != 0)
			continue;
		TSNode subject = tl_facts__arg(c->node, 0), cls = tl_facts__arg(c->node, 1);
		if (ts_node_is_null(subject) || ts_node_is_null(cls) || !tl_facts__tensor_class(idx, cls))
			continue;
		char *name = tl_facts__dotted(idx, tl_index_unparen(subject));
		if (!name)
			continue;
		TlTensorTest t = { c->func, name };
		tl_array_push(&tests, t);
	}
	fc->tensor_tests = tests.items;
	fc->tensor_test_count = tests.size;
}

/* True when some test of scope `func` names `name`: without one, no guard
 * above a name of that scope proves it a tensor (the climb below stops at
 * the scope's boundary, and a guard is such a test). */
static bool tl_facts__tested_in(const TlIndex *idx, int32_t func, const char *name)
{
	TlFactsCache *fc = idx->facts_cache;
	if (!fc)
		return true;
	if (!fc->tensor_tests_ready)
		tl_facts__tensor_tests(idx, fc);
	for (uint32_t i = 0; i < fc->tensor_test_count; i++)
		if (fc->tensor_tests[i].func == func && strcmp(fc->tensor_tests[i].name, name) == 0)
			return true;
	return false;
}

bool tl_facts__guarded_tensor(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	expr = tl_index_unparen(expr);
	if (ts_node_is_null(expr))
		return false;
	TSSymbol es = ts_node_symbol(expr);
	if (es != sy->identifier && es != sy->attribute)
		return false;
	/* Most files test no name so (asked of nearly every call's callee
	 * while the build writes the calls' events): no name to spell. */
	TlFactsCache *fc = idx->facts_cache;
	if (fc && !fc->tensor_tests_ready)
		tl_facts__tensor_tests(idx, fc);
	if (fc && !fc->tensor_test_count)
		return false;
	char buf[128], *owned;
	const char *name = tl_index_dotted_view(idx, expr, buf, sizeof buf, &owned);
	if (!name)
		return false;
	/* The climb below stops at the enclosing function: without a test of
	 * this name written in it there is no guard to find (and no need for
	 * the index's parent map, a walk of the whole tree). */
	if (!tl_facts__tested_in(idx, tl_index_func_of(idx, expr), name)) {
		tl_free(owned);
		return false;
	}
	bool yes = false;
	TSNode child = expr;
	TSNode parent = tl_index_parent(idx, child);
	/* Up the enclosing nodes of the function, once each (no recursion),
	 * and a bounded number of them: a guard sits a few statements above
	 * what it guards, and a walk to the root from every name asked about
	 * would make a deep expression quadratic. */
	for (int steps = 0; !yes && !ts_node_is_null(parent) && steps < TL_GUARD_REACH; steps++) {
		TSSymbol ps = ts_node_symbol(parent);
		if (ps == sy->function_definition || ps == sy->class_definition || ps == sy->lambda)
			break;
		if ((ps == sy->if_statement || ps == sy->elif_clause) &&
		    ts_node_eq(child, tl_tree_field(parent, sy->f_consequence)))
			yes = tl_facts__proves_tensor(idx, tl_tree_field(parent, sy->f_condition), name, 0);
		else if (ps == sy->conditional_expression && ts_node_named_child_count(parent) == 3 &&
			 ts_node_eq(child, ts_node_named_child(parent, 0)))
			yes = tl_facts__proves_tensor(idx, ts_node_named_child(parent, 1), name, 0);
		child = parent;
		parent = tl_index_parent(idx, child);
	}
	tl_free(owned);
	return yes;
}
