/* Call-site sensitivity: which code of a local function runs when one
 * particular call runs it. The constant arguments a call passes (literals,
 * and the defaults of the parameters it leaves out) decide the callee's
 * tests on those parameters: `run_epoch(loader, train=False)` skips the
 * `if train:` branch of run_epoch, `set_mode(model, "eval")` takes its
 * `if mode == "eval":` branch.
 *
 * Owns: tl_facts__runs_at, tl_facts__const_param (helpers the families
 * share; no question of its own). */
#include "facts/internal.h"

/* The literal that parameter `name` of function `func` holds when call
 * `site` runs it: the argument passed for it, or its default when the call
 * passes none (and no `*args` / `**kwargs` that might). Null when the
 * name is no parameter, is re-bound in the function, or the value is no
 * literal (True, False, None, a number or a string). */
TSNode tl_facts__const_param(const TlIndex *idx, int32_t func, const TlCall *site,
			     const char *name, size_t len)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	if (func < 0 || !site)
		return none;
	const TlFunc *f = &idx->funcs.items[func];
	int32_t k = tl_facts__param_index(idx, f, name, len);
	if (k < 0)
		return none;
	const TlBinding *param = &idx->bindings.items[f->params.items[k]];
	const TlIntArray *all = tl_index_bindings_of(idx, func, param->name);
	if (!all || all->size != 1)
		return none; /* re-bound in the body: no longer the argument */
	TSNode v = tl_facts__param_arg_of(idx, param, site);
	if (ts_node_is_null(v)) {
		/* Left out: its default, unless a splat may pass it. */
		TSNode args = tl_tree_field(site->node, sy->f_arguments);
		uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
		for (uint32_t i = 0; i < count; i++) {
			TSSymbol s = ts_node_symbol(ts_node_named_child(args, i));
			if (s == sy->list_splat || s == sy->dictionary_splat)
				return none;
		}
		TSSymbol ps = ts_node_symbol(param->stmt);
		if (ps != sy->default_parameter && ps != sy->typed_default_parameter)
			return none;
		v = tl_tree_field(param->stmt, sy->f_value);
	}
	v = tl_index_unparen(v);
	if (ts_node_is_null(v))
		return none;
	TSSymbol s = ts_node_symbol(v);
	if (s == sy->true_ || s == sy->false_ || s == sy->none || s == sy->integer)
		return v;
	if (s != sy->string)
		return none;
	uint32_t count = ts_node_named_child_count(v);
	for (uint32_t i = 0; i < count; i++)
		if (ts_node_symbol(ts_node_named_child(v, i)) == sy->interpolation)
			return none; /* an f-string */
	return v;
}

/* Truth of a literal: 1 true, 0 false. */
static int tl_facts__truth(const TlIndex *idx, TSNode lit)
{
	const TlSyms *sy = tl_syms();
	TSSymbol s = ts_node_symbol(lit);
	if (s == sy->true_)
		return 1;
	if (s == sy->false_ || s == sy->none)
		return 0;
	if (s == sy->integer)
		return tl_index_text_is(idx, lit, "0") ? 0 : 1;
	uint32_t len = 0;
	const char *body = tl_facts__string_body(idx, lit, &len);
	return body && len == 0 ? 0 : 1;
}

/* True when literals `a` and `b` are equal; *known false when it cannot
 * be told (different kinds of literal compare unequal, which is known). */
static bool tl_facts__same_literal(const TlIndex *idx, TSNode a, TSNode b, bool *known)
{
	const TlSyms *sy = tl_syms();
	*known = true;
	TSSymbol sa = ts_node_symbol(a), sb = ts_node_symbol(b);
	if (sa != sb)
		return false;
	if (sa == sy->true_ || sa == sy->false_ || sa == sy->none)
		return true;
	uint32_t la = 0, lb = 0;
	const char *ta, *tb;
	if (sa == sy->string) {
		ta = tl_facts__string_body(idx, a, &la);
		tb = tl_facts__string_body(idx, b, &lb);
	} else {
		ta = tl_index_text(idx, a, &la);
		tb = tl_index_text(idx, b, &lb);
	}
	if (!ta || !tb) {
		*known = false;
		return false;
	}
	return la == lb && memcmp(ta, tb, la) == 0;
}

/* A literal operand, or the constant a parameter holds at `site`. */
static TSNode tl_facts__operand(const TlIndex *idx, TSNode e, int32_t func, const TlCall *site)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	e = tl_index_unparen(e);
	if (ts_node_is_null(e))
		return none;
	TSSymbol s = ts_node_symbol(e);
	if (s == sy->true_ || s == sy->false_ || s == sy->none || s == sy->integer || s == sy->string)
		return e;
	if (s != sy->identifier)
		return none;
	uint32_t len;
	const char *t = tl_index_text(idx, e, &len);
	return tl_facts__const_param(idx, func, site, t, len);
}

/* The value of condition `cond` of function `func` when `site` runs it:
 * 1 true, 0 false, -1 unknown. Iterative over `not`; `and` / `or` are
 * followed a bounded number of levels. */
static int tl_facts__cond(const TlIndex *idx, TSNode cond, int32_t func, const TlCall *site,
			  int depth)
{
	const TlSyms *sy = tl_syms();
	bool negate = false;
	cond = tl_index_unparen(cond);
	while (!ts_node_is_null(cond) && ts_node_symbol(cond) == sy->not_operator) {
		negate = !negate;
		cond = tl_index_unparen(tl_tree_field(cond, sy->f_argument));
	}
	if (ts_node_is_null(cond) || depth > 4)
		return -1;
	TSSymbol s = ts_node_symbol(cond);
	int v = -1;
	if (s == sy->boolean_operator) {
		int l = tl_facts__cond(idx, tl_tree_field(cond, sy->f_left), func, site, depth + 1);
		int r = tl_facts__cond(idx, tl_tree_field(cond, sy->f_right), func, site, depth + 1);
		TSNode op = tl_tree_field(cond, sy->f_operator);
		bool is_and = !ts_node_is_null(op) && tl_index_text_is(idx, op, "and");
		if (is_and)
			v = (l == 0 || r == 0) ? 0 : (l == 1 && r == 1) ? 1 : -1;
		else
			v = (l == 1 || r == 1) ? 1 : (l == 0 && r == 0) ? 0 : -1;
	} else if (s == sy->comparison_operator) {
		/* a == b, a != b, a is b, a is not b: two operands, one operator. */
		if (ts_node_named_child_count(cond) != 2)
			return -1;
		TSNode a = tl_facts__operand(idx, ts_node_named_child(cond, 0), func, site);
		TSNode b = tl_facts__operand(idx, ts_node_named_child(cond, 1), func, site);
		if (ts_node_is_null(a) || ts_node_is_null(b))
			return -1;
		/* The operator is the text between the operands. */
		uint32_t from = ts_node_end_byte(ts_node_named_child(cond, 0));
		uint32_t to = ts_node_start_byte(ts_node_named_child(cond, 1));
		uint32_t total;
		const char *src = tl_index_text(idx, idx->root, &total);
		char op[16];
		size_t n = 0;
		for (uint32_t i = from; i < to && i < total && n + 1 < sizeof op; i++)
			if (src[i] != ' ' && src[i] != '\t' && src[i] != '\n' && src[i] != '\\')
				op[n++] = src[i];
		op[n] = '\0';
		bool known, eq = tl_facts__same_literal(idx, a, b, &known);
		if (!known)
			return -1;
		if (strcmp(op, "==") == 0 || strcmp(op, "is") == 0)
			v = eq;
		else if (strcmp(op, "!=") == 0 || strcmp(op, "isnot") == 0)
			v = !eq;
		else
			return -1;
	} else {
		TSNode lit = tl_facts__operand(idx, cond, func, site);
		if (ts_node_is_null(lit))
			return -1;
		v = tl_facts__truth(idx, lit);
	}
	if (v < 0)
		return -1;
	return negate ? !v : v;
}

/* Folds one condition's verdict into `runs`. */
static int tl_facts__fold(int runs, int cond_value, bool want)
{
	if (cond_value < 0)
		return runs == TL_RUNS_NEVER ? runs : TL_RUNS_MAYBE;
	if ((cond_value == 1) != want)
		return TL_RUNS_NEVER;
	return runs;
}

int tl_facts__runs_at(const TlIndex *idx, TSNode node, int32_t func, const TlCall *site)
{
	const TlSyms *sy = tl_syms();
	TSNode top = func >= 0 ? idx->funcs.items[func].node : idx->root;
	int runs = TL_RUNS_ALWAYS;
	TSNode child = node;
	for (TSNode p = tl_index_parent(idx, node); !ts_node_is_null(p) && !ts_node_eq(child, top);
	     child = p, p = tl_index_parent(idx, p)) {
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->function_definition || s == sy->class_definition || s == sy->lambda)
			break;
		if (s == sy->if_statement || s == sy->elif_clause) {
			TSNode cons = tl_tree_field(p, sy->f_consequence);
			if (ts_node_eq(cons, child)) {
				runs = tl_facts__fold(runs, tl_facts__cond(idx,
					tl_tree_field(p, sy->f_condition), func, site, 0), true);
			} else if (s == sy->if_statement) {
				/* In an elif or else: every earlier test was false. */
				runs = tl_facts__fold(runs, tl_facts__cond(idx,
					tl_tree_field(p, sy->f_condition), func, site, 0), false);
				uint32_t count = ts_node_named_child_count(p);
				for (uint32_t i = 0; i < count; i++) {
					TSNode alt = ts_node_named_child(p, i);
					if (ts_node_eq(alt, child))
						break;
					if (ts_node_symbol(alt) == sy->elif_clause)
						runs = tl_facts__fold(runs, tl_facts__cond(idx,
							tl_tree_field(alt, sy->f_condition),
							func, site, 0), false);
				}
			}
		} else if (s == sy->conditional_expression && ts_node_named_child_count(p) == 3) {
			/* `a if c else b` */
			TSNode c = ts_node_named_child(p, 1);
			if (!ts_node_eq(child, c))
				runs = tl_facts__fold(runs, tl_facts__cond(idx, c, func, site, 0),
						      ts_node_eq(child, ts_node_named_child(p, 0)));
		} else if (s == sy->except_clause) {
			runs = runs == TL_RUNS_NEVER ? runs : TL_RUNS_MAYBE;
		}
		if (runs == TL_RUNS_NEVER)
			break;
	}
	return runs;
}
