/* TL216's rule logic (functional-dropout-always-on). Whether a call passes a
 * parameter a constant False, None or zero; whether a node runs in code of a
 * local nn.Module subclass; code that runs only in one mode (a functional
 * dropout whose call, arguments, enclosing tests or function name say which
 * mode runs, or a comment that says it always applies).
 *
 * Owns: tl_check_argument_off, tl_check_in_module_code, tl_check_mode_guarded. */
#include "rules/checks/checks.h"

#include <ctype.h>

#include "facts/internal.h"
#include "model/model.h"
#include "model/value.h"

/* A constant False, None or zero. */
static bool tl_check__off(const TlIndex *idx, TSNode v)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_is_null(v))
		return false;
	TSNode lit = tl_facts_literal(idx, v);
	if (!ts_node_is_null(lit) &&
	    (ts_node_symbol(lit) == sy->false_ || ts_node_symbol(lit) == sy->none))
		return true;
	double d;
	return tl_facts_number(idx, v, &d) && d == 0.0;
}

/* What call `site` hands parameter `i` (named `name`) of `fn`, `shift`
 * parameters bound before its arguments (a bound method's `self`): its
 * keyword argument, else the positional one; null when a splat may pass
 * it or none does. */
static TSNode tl_check__site_arg(const TlIndex *idx, TSNode site, const char *name, uint32_t i, uint32_t shift)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	TSNode args = tl_tree_field(site, sy->f_arguments);
	uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
	for (uint32_t k = 0; k < count; k++) {
		TSSymbol s = ts_node_symbol(ts_node_named_child(args, k));
		if (s == sy->list_splat || s == sy->dictionary_splat)
			return none;
	}
	TSNode v = tl_facts__kwarg(idx, site, name);
	if (!ts_node_is_null(v) || i < shift)
		return v;
	return tl_facts__arg(site, i - shift);
}

/* A rate its callers choose per call: `v` names a parameter of the function
 * it is in (bound nowhere else there) that some call site hands a constant
 * zero, False or None (`net(x, 0.0, ...)` in the test loop, the dropout
 * rate of the training loop's call elsewhere): that call's constant
 * context switches the layer off, as a `training=` argument would. The
 * sites: a function's own call sites, and for a module's `forward`, each
 * call of an instance of its class the model knows in the module. */
static bool tl_check__caller_turns_off(const TlIndex *idx, TSNode v)
{
	const TlSyms *sy = tl_syms();
	v = tl_index_unparen(v);
	if (ts_node_is_null(v) || ts_node_symbol(v) != sy->identifier)
		return false;
	const TlBinding *b = tl_index_resolve_node(idx, v);
	if (!b || b->kind != TL_BIND_PARAM || b->func < 0 || !b->name)
		return false;
	const TlIntArray *all = tl_index_bindings_of(idx, b->func, b->name);
	if (!all || all->size != 1)
		return false;
	const TlFunc *fn = &idx->funcs.items[b->func];
	uint32_t i = 0;
	while (i < fn->params.size && &idx->bindings.items[fn->params.items[i]] != b)
		i++;
	if (i == fn->params.size)
		return false;
	bool method = fn->cls >= 0 && fn->params.size &&
		      strcmp(idx->bindings.items[fn->params.items[0]].name, "self") == 0;
	for (uint32_t k = 0; k < fn->call_sites.size; k++) {
		const TlCall *c = &idx->calls.items[fn->call_sites.items[k]];
		/* `obj.m(...)` binds `self`; `Class.m(obj, ...)` does not */
		const TlBinding *rb = c->receiver.id ? tl_index_resolve_node(idx, c->receiver) : NULL;
		uint32_t shift = method && c->receiver.id && !(rb && rb->kind == TL_BIND_CLASS) ? 1 : 0;
		if (tl_check__off(idx, tl_check__site_arg(idx, c->node, b->name, i, shift)))
			return true;
	}
	if (!method || !fn->name || strcmp(fn->name, "forward") != 0 || !idx->classes.items[fn->cls].is_module)
		return false;
	for (uint32_t k = 0; k < idx->calls.size; k++) {
		const TlCall *c = &idx->calls.items[k];
		TlVal m;
		if (c->receiver.id || ts_node_is_null(c->callee) || !tl_model_value(idx, c->callee, &m) ||
		    m.kind != TL_VK_MODULE || m.ref != fn->cls || m.mod != (const void *)idx)
			continue;
		if (tl_check__off(idx, tl_check__site_arg(idx, c->node, b->name, i, 1)))
			return true;
	}
	return false;
}

bool tl_check_argument_off(const TlIndex *idx, TSNode call, const char *name)
{
	TSNode v = tl_facts_argument(idx, call, name);
	return tl_check__off(idx, v) || tl_check__caller_turns_off(idx, v);
}

/* True when function `f`, or a function it is nested in, is a method of a
 * local nn.Module subclass; with `need_self`, one whose first parameter is
 * `self` (not a static method), so that `self` is in scope at `f`. */
static bool tl_check__module_method(const TlIndex *idx, int32_t f, bool need_self)
{
	for (int depth = 0; f >= 0 && depth <= TL_FACTS_DEPTH; depth++) {
		const TlFunc *fn = &idx->funcs.items[f];
		if (fn->cls >= 0 && idx->classes.items[fn->cls].is_module)
			return !need_self || (fn->params.size > 0 &&
					      strcmp(idx->bindings.items[fn->params.items[0]].name, "self") == 0);
		f = fn->parent;
	}
	return false;
}

bool tl_check_in_module_code(const TlIndex *idx, TSNode node, bool reached)
{
	int32_t f = tl_index_func_of(idx, node);
	if (f < 0)
		return false;
	if (tl_check__module_method(idx, f, !reached))
		return true;
	if (!reached)
		return false;
	/* The local functions whose calls run `f`, breadth first: a helper of
	 * a helper of forward() runs in the module too. */
	TlIntArray todo;
	tl_array_init(&todo);
	tl_array_push(&todo, f);
	bool found = false;
	for (uint32_t i = 0; i < todo.size && !found && i < TL_FACTS_BUDGET; i++) {
		const TlFunc *fn = &idx->funcs.items[todo.items[i]];
		for (uint32_t k = 0; k < fn->call_sites.size && !found; k++) {
			int32_t g = idx->calls.items[fn->call_sites.items[k]].func;
			if (g < 0)
				continue;
			if (tl_check__module_method(idx, g, false)) {
				found = true;
				break;
			}
			bool seen = false;
			for (uint32_t j = 0; j < todo.size && !seen; j++)
				seen = todo.items[j] == g;
			if (!seen && todo.size < TL_FACTS_BUDGET)
				tl_array_push(&todo, g);
		}
	}
	tl_array_release(&todo);
	return found;
}

/* True when the subtree of `n` reads a name that says which mode runs:
 * `self.training`, `training`, `is_train`, `train_mode`, `deterministic`,
 * `eval`... (any identifier holding "train", "eval", "inference" or
 * "deterministic"). */
static bool tl_check__mentions_mode(const TlIndex *idx, TSNode n)
{
	static const char *const words[] = { "train", "eval", "inference", "deterministic" };
	const TlSyms *sy = tl_syms();
	if (ts_node_is_null(n))
		return false;
	TSTreeCursor cur = ts_tree_cursor_new(n);
	bool found = false, descend = true;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		descend = true;
		if (ts_node_symbol(x) != sy->identifier)
			continue;
		uint32_t len;
		const char *t = tl_index_text(idx, x, &len);
		char low[64];
		if (len >= sizeof low)
			continue;
		for (uint32_t i = 0; i < len; i++)
			low[i] = (char)tolower((unsigned char)t[i]);
		low[len] = 0;
		for (size_t i = 0; i < sizeof words / sizeof *words && !found; i++)
			found = strstr(low, words[i]) != NULL;
	} while (!found && tl_walk_next(&cur, n, descend));
	ts_tree_cursor_delete(&cur);
	return found;
}

/* True when a comment after `node` on its last line says it is always on
 * (`# always applies dropout`): the author states the decision that a
 * literal `training=True` would. */
static bool tl_check__stated_always(const TlIndex *idx, TSNode node)
{
	uint32_t end = ts_node_end_byte(node), row = ts_node_end_point(node).row;
	uint32_t lo = 0, hi = idx->comments.size;
	while (lo < hi) { /* the first comment starting at or after `end` */
		uint32_t mid = lo + (hi - lo) / 2;
		if (ts_node_start_byte(idx->comments.items[mid]) < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= idx->comments.size || ts_node_start_point(idx->comments.items[lo]).row != row)
		return false;
	uint32_t len;
	const char *t = tl_index_text(idx, idx->comments.items[lo], &len);
	static const char word[] = "always";
	for (uint32_t i = 0; i + sizeof word - 1 <= len; i++) {
		uint32_t k = 0;
		while (k < sizeof word - 1 && tolower((unsigned char)t[i + k]) == word[k])
			k++;
		if (k == sizeof word - 1)
			return true;
	}
	return false;
}

bool tl_check_mode_guarded(const TlIndex *idx, TSNode node)
{
	const TlSyms *sy = tl_syms();
	node = tl_index_unparen(node);
	if (ts_node_is_null(node))
		return false;
	if (tl_check__stated_always(idx, node))
		return true;
	/* The call's own arguments: F.dropout(x, self.p if self.training else 0). */
	if (ts_node_symbol(node) == sy->call &&
	    tl_check__mentions_mode(idx, tl_tree_field(node, sy->f_arguments)))
		return true;
	/* Names passed to it that are computed from the mode. */
	TSNode args = ts_node_symbol(node) == sy->call ? tl_tree_field(node, sy->f_arguments)
						      : (TSNode){ 0 };
	uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		if (ts_node_symbol(a) == sy->keyword_argument)
			a = tl_tree_field(a, sy->f_value);
		a = tl_index_unparen(a);
		if (ts_node_is_null(a) || ts_node_symbol(a) != sy->identifier)
			continue;
		const TlBinding *b = tl_index_resolve_node(idx, a);
		TSNode v = tl_facts__bound_value(b);
		if (!ts_node_is_null(v) && b->kind == TL_BIND_ASSIGN && tl_check__mentions_mode(idx, v))
			return true;
	}
	/* Tests around it in its function, and the function's own name
	 * (training_step, forward_train). */
	int32_t f = tl_index_func_of(idx, node);
	TSNode top = f >= 0 ? idx->funcs.items[f].node : idx->root;
	TSNode child = node;
	for (TSNode p = tl_index_parent(idx, node); !ts_node_is_null(p) && !ts_node_eq(p, top);
	     child = p, p = tl_index_parent(idx, p)) {
		TSSymbol s = ts_node_symbol(p);
		TSNode test = { 0 };
		if (s == sy->if_statement || s == sy->elif_clause || s == sy->while_statement)
			test = tl_tree_field(p, sy->f_condition);
		else if (s == sy->conditional_expression && ts_node_named_child_count(p) > 1)
			test = ts_node_named_child(p, 1);
		else if (s == sy->boolean_operator)
			test = tl_tree_field(p, sy->f_left);
		if (!ts_node_is_null(test) && !ts_node_eq(test, child) && tl_check__mentions_mode(idx, test))
			return true;
	}
	for (int depth = 0; f >= 0 && depth <= TL_FACTS_DEPTH; depth++) {
		const TlFunc *fn = &idx->funcs.items[f];
		char low[128];
		tl_facts__lower(fn->name ? fn->name : "", low, sizeof low);
		if (strstr(low, "train"))
			return true;
		f = fn->parent;
	}
	return false;
}
