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

/* Tensor classes an isinstance test may name. */
static const char *const tl_facts__tensor_classes[] = {
	"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter",
	"torch.nn.Buffer", "torch.nn.parameter.Buffer", "torch.FloatTensor",
	"torch.cuda.FloatTensor", "torch.LongTensor",
};

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
	const char *q = tl_index_qualified(idx, cls);
	return q && IN(q, tl_facts__tensor_classes);
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

uint8_t *tl_facts__isinstance_scopes(const TlIndex *idx)
{
	uint8_t *in = tl_calloc(idx->funcs.size + 1, 1);
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (c->method && !c->receiver.id && strcmp(c->method, "isinstance") == 0)
			in[c->func + 1] = 1;
	}
	return in;
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
	/* The climb below stops at the enclosing function: without an
	 * isinstance() call written in it there is no guard to find (and no
	 * need for the index's parent map, a walk of the whole tree). */
	const TlFactsCache *fc = idx->facts_cache;
	if (fc && fc->isinstance_in && !fc->isinstance_in[tl_index_func_of(idx, expr) + 1])
		return false;
	char buf[128], *owned;
	const char *name = tl_index_dotted_view(idx, expr, buf, sizeof buf, &owned);
	if (!name)
		return false;
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
