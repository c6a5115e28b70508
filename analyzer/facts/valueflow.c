/* Value flow: whether a value reaches a backward call (directly, through names,
 * containers and local calls) and where it outlives the iteration.
 *
 * Owns: tl_facts_reaches_backward, tl_facts_outlives_iteration, tl_facts_backward_through. */
#include "internal.h"

static bool tl_facts__reaches(const TlIndex *idx, TSNode expr, int depth);

/* ---- value flow ---------------------------------------------------------------- */

static bool tl_facts__has_name(const TlNames *names, const char *s, size_t len)
{
	for (uint32_t i = 0; i < names->size; i++)
		if (strlen(names->items[i]) == len && memcmp(names->items[i], s, len) == 0)
			return true;
	return false;
}

/* True when the subtree of `n` reads one of `names` (as a name or as the
 * dotted prefix of an attribute chain). Iterative. */
bool tl_facts__mentions(const TlIndex *idx, TSNode n, const TlNames *names)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_is_null(n) || !names->size)
		return false;
	TSTreeCursor cur = ts_tree_cursor_new(n);
	bool found = false, descend = true;
	TlBuf b;
	tl_buf_init(&b);
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(x);
		descend = true;
		if (s == sy->identifier || s == sy->attribute) {
			tl_buf_clear(&b);
			if (tl_index_dotted(idx, x, &b)) {
				/* "self.losses" matches "self.losses" and "self.losses.x". */
				for (uint32_t i = 0; i < names->size && !found; i++) {
					size_t l = strlen(names->items[i]);
					if (b.len >= l && memcmp(b.data, names->items[i], l) == 0 &&
					    (b.len == l || b.data[l] == '.'))
						found = true;
				}
				descend = false;
			}
		}
	} while (!found && tl_walk_next(&cur, n, descend));
	tl_buf_release(&b);
	ts_tree_cursor_delete(&cur);
	return found;
}

void tl_facts__names_release(TlNames *names)
{
	tl_str_array_release((TlStrArray *)names);
}

/* An expression whose value carries no autograd history whatever its
 * inputs: `x.item()`, `(a == b).sum().item()`, `float(x)`, `len(xs)`. */
static bool tl_facts__kills_graph(const TlIndex *idx, TSNode v)
{
	static const char *const killers[] = {
		"item", "detach", "tolist", "numpy", "argmax", "argmin", "size",
		"numel", "float_", "isnan", "isinf", "long", "int", "bool",
	};
	static const char *const builtins[] = { "float", "int", "bool", "len", "str", "round" };
	const TlSyms *sy = tl_syms();
	v = tl_index_unparen(v);
	if (ts_node_is_null(v))
		return true;
	TSSymbol s = ts_node_symbol(v);
	if (s == sy->comparison_operator || s == sy->boolean_operator || s == sy->not_operator ||
	    s == sy->integer || s == sy->string || s == sy->true_ || s == sy->false_ ||
	    s == sy->none)
		return true;
	if (s == sy->attribute)
		return tl_index_text_is(idx, ts_node_child_by_field_id(v, sy->f_attribute), "data");
	if (s != sy->call)
		return false;
	const TlCall *c = tl_index_call_at(idx, v);
	if (!c)
		return false;
	return c->receiver.id ? IN(c->method, killers) : IN(c->method, builtins);
}

/* A function whose callers the file does not show, returning a value: when
 * it computes losses, outside a loop that runs its own backward and not in
 * eval mode, it is a loss function, and its caller will backpropagate. */
static bool tl_facts__returns_loss_to_unknown(const TlIndex *idx, const TlFunc *f,
					     bool in_step_loop)
{
	if (in_step_loop || (f->events & TL_EV_EVAL))
		return false;
	/* A module's own methods (its forward and the helpers it calls)
	 * build the graph their caller backpropagates. */
	if (f->cls >= 0 && idx->classes.items[f->cls].is_module)
		return true;
	return (f->reach_events & TL_EV_LOSS) != 0;
}

/* True when the value of `expr` dies before it reaches `top` (an ancestor):
 * on the way up it is compared, converted to a number, `.item()`-ed, ... */
static bool tl_facts__killed_between(const TlIndex *idx, TSNode expr, TSNode top)
{
	const TlSyms *sy = tl_syms();
	TSNode child = expr;
	for (TSNode p = ts_node_parent(expr); !ts_node_is_null(p); p = ts_node_parent(p)) {
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->comparison_operator || s == sy->boolean_operator || s == sy->not_operator)
			return true;
		if (s == sy->call && tl_facts__kills_graph(idx, p)) {
			/* x.item() kills x; f(x.item()) does not kill f's other inputs,
			 * but x inside float(x) or x.argmax() dies. */
			const TlCall *c = tl_index_call_at(idx, p);
			if (c && (!c->receiver.id || tl_facts__contains(c->receiver, child)))
				return true;
		}
		if (ts_node_eq(p, top))
			break;
		child = p;
	}
	return false;
}

static bool tl_facts__return_mentions(const TlIndex *idx, TSNode ret, void *taint)
{
	return tl_facts__mentions(idx, ret, taint);
}

static bool tl_facts__tainted_reach(const TlIndex *idx, TlNames *taint, int32_t func,
				   uint32_t from, bool in_step_loop, int depth)
{
	/* Names computed from tainted names are tainted: a fixpoint over the
	 * function's bindings, bounded by the number of names it can add. */
	const TlIntArray *binds = tl_index_scope_binds(idx, func);
	for (uint32_t round = 0; round < 64; round++) {
		bool changed = false;
		for (uint32_t i = 0; binds && i < binds->size; i++) {
			const TlBinding *b = &idx->bindings.items[binds->items[i]];
			if (b->pos < from ||
			    (b->kind != TL_BIND_ASSIGN && b->kind != TL_BIND_AUG))
				continue;
			if (tl_facts__has_name(taint, b->name, strlen(b->name)))
				continue;
			if (!tl_facts__kills_graph(idx, b->value) &&
			    tl_facts__mentions(idx, b->value, taint)) {
				tl_array_push(taint, tl_strdup(b->name));
				changed = true;
			}
		}
		if (!changed)
			break;
	}
	const TlIntArray *calls = tl_index_scope_calls(idx, func);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		bool backward = (c->events & TL_EV_BACKWARD) ||
				(c->target >= 0 && (idx->funcs.items[c->target].reach_events & TL_EV_BACKWARD));
		if (backward && tl_facts__mentions(idx, c->node, taint))
			return true;
	}
	/* Returned to callers: reaches a backward if some caller's use does. */
	if (func < 0 || depth > TL_FACTS_DEPTH)
		return false;
	const TlFunc *f = &idx->funcs.items[func];
	if (!tl_facts__each_return(idx, func, tl_facts__return_mentions, taint))
		return false;
	/* Returned to callers this file cannot see (the function is passed
	 * around, or called from elsewhere): a value built where no backward
	 * runs (a loss assembled for the caller) may well be backpropagated
	 * there. One built in a loop that runs its own backward is not. */
	if (f->escapes || !f->call_sites.size)
		return tl_facts__returns_loss_to_unknown(idx, f, in_step_loop);
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (c->func != func && (!tl_facts__fan_step() || tl_facts__reaches(idx, c->node, depth + 1)))
			return true;
	}
	return false;
}

static bool tl_facts__reaches(const TlIndex *idx, TSNode expr, int depth)
{
	const TlSyms *sy = tl_syms();
	if (depth > TL_FACTS_DEPTH)
		return false;
	int32_t func = tl_index_func_of(idx, expr);
	/* Inside the consumed expression of a backward itself. */
	const TlIntArray *calls = tl_index_scope_calls(idx, func);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (ts_node_start_byte(c->node) > ts_node_start_byte(expr))
			break;
		if ((c->events & TL_EV_BACKWARD) && tl_facts__contains(c->node, expr))
			return true;
	}
	TlNames taint;
	tl_array_init(&taint);
	uint32_t from = ts_node_start_byte(expr);
	TSNode e = tl_index_unparen(expr);
	TSSymbol s = ts_node_symbol(e);
	char *name = (s == sy->identifier || s == sy->attribute) ? tl_facts__dotted(idx, e) : NULL;
	if (name) {
		tl_array_push(&taint, name);
		from = 0;
	} else {
		/* The names bound by the assignment whose value holds `expr`,
		 * unless the value dies on the way (`hits += (f(x) == y).sum().item()`). */
		const TlIntArray *binds = tl_index_scope_binds(idx, func);
		for (uint32_t i = 0; binds && i < binds->size; i++) {
			const TlBinding *b = &idx->bindings.items[binds->items[i]];
			if ((b->kind == TL_BIND_ASSIGN || b->kind == TL_BIND_AUG) &&
			    !ts_node_is_null(b->value) && tl_facts__contains(b->value, expr) &&
			    !tl_facts__killed_between(idx, expr, b->stmt) &&
			    !tl_facts__has_name(&taint, b->name, strlen(b->name)))
				tl_array_push(&taint, tl_strdup(b->name));
		}
	}
	bool yes = false;
	int32_t loop = tl_index_loop_of(idx, expr);
	bool in_step_loop = loop >= 0 && (idx->loops.items[loop].events & TL_EV_BACKWARD);
	if (taint.size) {
		yes = tl_facts__tainted_reach(idx, &taint, func, from, in_step_loop, depth);
	} else if (func >= 0) {
		/* `return model(x)`: the callers decide. */
		TSNode p = ts_node_parent(expr);
		while (!ts_node_is_null(p) && ts_node_symbol(p) != sy->return_statement &&
		       ts_node_symbol(p) != sy->expression_statement &&
		       ts_node_symbol(p) != sy->block)
			p = ts_node_parent(p);
		if (!ts_node_is_null(p) && ts_node_symbol(p) == sy->return_statement &&
		    !tl_facts__killed_between(idx, expr, p)) {
			const TlFunc *f = &idx->funcs.items[func];
			yes = (f->escapes || !f->call_sites.size) &&
			      tl_facts__returns_loss_to_unknown(idx, f, in_step_loop);
			for (uint32_t i = 0; i < f->call_sites.size && !yes; i++) {
				const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
				if (c->func != func)
					yes = !tl_facts__fan_step() || tl_facts__reaches(idx, c->node, depth + 1);
			}
		}
	}
	tl_facts__names_release(&taint);
	return yes;
}

bool tl_facts_reaches_backward(const TlIndex *idx, TSNode expr)
{
	tl_facts__fan_begin();
	bool yes = tl_facts__reaches(idx, expr, 0);
	tl_facts__fan_end();
	return yes;
}

/* x.float(), x.double(), x.to(torch.float32): a cast to full precision. */
bool tl_facts__upcast(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, call);
	if (!c || !c->method || !c->receiver.id)
		return false;
	if (strcmp(c->method, "float") == 0 || strcmp(c->method, "double") == 0)
		return true;
	if (strcmp(c->method, "to") != 0 && strcmp(c->method, "type") != 0)
		return false;
	for (uint32_t k = 0; k < 3; k++) {
		TSNode a = tl_facts__arg(call, k);
		if (ts_node_is_null(a))
			break;
		char *q = tl_index_qualify(idx, a);
		bool full = q && (strcmp(q, "torch.float32") == 0 || strcmp(q, "torch.float") == 0 ||
				  strcmp(q, "torch.float64") == 0 || strcmp(q, "torch.double") == 0);
		tl_free(q);
		if (full)
			return true;
	}
	TSNode d = tl_facts__kwarg(idx, call, "dtype");
	char *q = ts_node_is_null(d) ? NULL : tl_index_qualify(idx, d);
	bool full = q && (strcmp(q, "torch.float32") == 0 || strcmp(q, "torch.float") == 0);
	tl_free(q);
	return full;
}

/* The binding of the longest bound prefix of an attribute chain:
 * `logits.reshape` -> the binding of `logits`. */
const TlBinding *tl_facts__resolve_prefix(const TlIndex *idx, TSNode n)
{
	const TlSyms *sy = tl_syms();
	n = tl_index_unparen(n);
	while (!ts_node_is_null(n)) {
		const TlBinding *b = tl_index_resolve_node(idx, n);
		if (b || ts_node_symbol(n) != sy->attribute)
			return b;
		n = tl_index_unparen(ts_node_child_by_field_id(n, sy->f_object));
	}
	return NULL;
}
