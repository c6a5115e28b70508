/* TL216's rule logic (functional-dropout-always-on). Whether a call passes a
 * parameter a constant False, None or zero; whether a node runs in code of a
 * local nn.Module subclass.
 *
 * Owns: tl_check_argument_off, tl_check_in_module_code. */
#include "rules/checks/checks.h"

#include "facts/internal.h"

bool tl_check_argument_off(const TlIndex *idx, TSNode call, const char *name)
{
	const TlSyms *sy = tl_syms();
	TSNode v = tl_facts_argument(idx, call, name);
	if (ts_node_is_null(v))
		return false;
	TSNode lit = tl_facts_literal(idx, v);
	if (!ts_node_is_null(lit) &&
	    (ts_node_symbol(lit) == sy->false_ || ts_node_symbol(lit) == sy->none))
		return true;
	double d;
	return tl_facts_number(idx, v, &d) && d == 0.0;
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
