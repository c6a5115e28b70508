/* TL502's rule logic (ddp-accumulation-without-no-sync). Gradient
 * accumulation and DDP: accumulation backwards, no_sync contexts and
 * backwards through a DistributedDataParallel or FSDP module.
 *
 * Owns: tl_check_accumulation_backward, tl_check_no_sync,
 * tl_check_backward_through. */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

/* True when the backward at `at` (in `loop` of `func`) runs on iterations
 * that do not step: see tl_check_accumulation_backward. */
static bool tl_check__accum_at(const TlIndex *idx, TSNode at, int32_t func, int32_t loop, int depth,
			      int *budget)
{
	if (depth > TL_FACTS_DEPTH || --*budget < 0)
		return false;
	if (loop < 0) {
		if (func < 0)
			return false;
		const TlFunc *f = &idx->funcs.items[func];
		for (uint32_t i = 0; i < f->call_sites.size; i++) {
			const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
			if (c->func != func && tl_check__accum_at(idx, c->node, c->func, c->loop, depth + 1, budget))
				return true;
		}
		return false;
	}
	const TlLoop *l = &idx->loops.items[loop];
	if (!(l->own_events & TL_EV_OPT_STEP)) {
		/* A micro-batch loop: the step comes after it, in the loop around it. */
		return l->parent >= 0 && (idx->loops.items[l->parent].own_events & TL_EV_OPT_STEP);
	}
	/* Every step of the iteration sits under an every-N guard that does
	 * not also hold `at`. */
	const TlIntArray *calls = tl_index_scope_calls(idx, l->func);
	bool any = false;
	uint32_t from, to;
	tl_index_scope_calls_in(idx, l->func, l->body, &from, &to);
	for (uint32_t i = from; i < to; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (c->loop != loop)
			continue;
		uint32_t ev = c->events | (c->target >= 0 ? idx->funcs.items[c->target].flat_events : 0);
		if (!(ev & TL_EV_OPT_STEP))
			continue;
		any = true;
		TSNode g = tl_facts__guard_between(idx, c->node, l->body);
		TSNode ga = tl_facts__guard_between(idx, at, l->body);
		if (ts_node_is_null(g) || tl_facts__contains(g, at) ||
		    (!ts_node_is_null(ga) && ts_node_eq(ga, g)))
			return false;
	}
	return any;
}

bool tl_check_accumulation_backward(const TlIndex *idx, TSNode call)
{
	int budget = TL_FACTS_BUDGET;
	return tl_check__accum_at(idx, call, tl_index_func_of(idx, call), tl_index_loop_of(idx, call), 0,
				 &budget);
}

/* True when the subtree of `n` names an attribute `attr` (`model.no_sync`). */
static bool tl_check__names_attribute(const TlIndex *idx, TSNode n, const char *attr, int depth,
				     int *budget)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_is_null(n) || depth > TL_FACTS_DEPTH || --*budget < 0)
		return false;
	TSTreeCursor cur = ts_tree_cursor_new(n);
	bool found = false, descend = true;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(x);
		descend = true;
		if (s == sy->attribute &&
		    tl_index_text_is(idx, tl_tree_field(x, sy->f_attribute), attr)) {
			found = true;
		} else if (s == sy->identifier && !ts_node_eq(x, n)) {
			/* ctx = model.no_sync if ... else nullcontext; with ctx(): */
			const TlBinding *b = tl_index_resolve_node(idx, x);
			TSNode v = tl_facts__bound_value(b);
			if (!ts_node_is_null(v) && b->elem < 0 && !tl_facts__contains(v, x))
				found = tl_check__names_attribute(idx, v, attr, depth + 1, budget);
		}
	} while (!found && tl_walk_next(&cur, n, descend));
	ts_tree_cursor_delete(&cur);
	return found;
}

static bool tl_check__assigns_attribute(const TlIndex *idx, TSNode body, const char *attr)
{
	const TlSyms *sy = tl_syms();
	TSTreeCursor cur = ts_tree_cursor_new(body);
	bool found = false, descend = true;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		descend = true;
		if (ts_node_symbol(x) == sy->assignment) {
			TSNode left = tl_index_unparen(tl_tree_field(x, sy->f_left));
			found = ts_node_symbol(left) == sy->attribute &&
				tl_index_text_is(idx, tl_tree_field(left, sy->f_attribute), attr);
		}
	} while (!found && tl_walk_next(&cur, body, descend));
	ts_tree_cursor_delete(&cur);
	return found;
}

static bool tl_check__no_sync(const TlIndex *idx, TSNode node, int32_t func, int32_t with,
			     int32_t loop, int depth, int *budget)
{
	if (--*budget < 0)
		return false;
	for (int32_t w = with; w >= 0; w = idx->withs.items[w].parent) {
		TSNode wn = idx->withs.items[w].node;
		uint32_t count = ts_node_named_child_count(wn);
		for (uint32_t k = 0; k < count; k++) {
			TSNode clause = ts_node_named_child(wn, k);
			if (ts_node_eq(clause, idx->withs.items[w].body))
				continue;
			if (tl_check__names_attribute(idx, clause, "no_sync", 0, budget) ||
			    tl_check__names_attribute(idx, clause, "accumulate", 0, budget))
				return true;
		}
	}
	/* model.require_backward_grad_sync = (micro_step == last) */
	for (int32_t l = loop; l >= 0; l = idx->loops.items[l].parent)
		if (tl_check__assigns_attribute(idx, idx->loops.items[l].body, "require_backward_grad_sync"))
			return true;
	if (func < 0 || depth > TL_FACTS_DEPTH)
		return false;
	const TlFunc *f = &idx->funcs.items[func];
	if (f->escapes || !f->call_sites.size)
		return false;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (c->func == func || !tl_check__no_sync(idx, c->node, c->func, c->with, c->loop, depth + 1, budget))
			return false;
	}
	(void)node;
	return true;
}

bool tl_check_no_sync(const TlIndex *idx, TSNode node)
{
	int budget = TL_FACTS_BUDGET;
	return tl_check__no_sync(idx, node, tl_index_func_of(idx, node), tl_index_with_of(idx, node),
				tl_index_loop_of(idx, node), 0, &budget);
}

/* True when the value of `e` was computed by a forward of a wrapped module,
 * or from a name bound to one (`loss = criterion(model(x), y)`), or by a
 * call that is handed the wrapped module (`loss = step(model, batch)`). */
static bool tl_check__through(const TlIndex *idx, TSNode e, TlWrapper kind, int depth, int *budget)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_is_null(e) || depth > TL_FACTS_DEPTH || --*budget < 0)
		return false;
	TSTreeCursor cur = ts_tree_cursor_new(e);
	bool found = false, descend = true;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(x);
		descend = true;
		if (s == sy->identifier || s == sy->attribute) {
			char *name = tl_facts__dotted(idx, x);
			if (name) {
				descend = false;
				if (tl_facts__model_wrapped(idx, x, kind, false) == 1) {
					found = true;
				} else {
					const TlBinding *b = tl_index_resolve_node(idx, x);
					TSNode v = tl_facts__bound_value(b);
					if (!ts_node_is_null(v) && !tl_facts__contains(v, x))
						found = tl_check__through(idx, v, kind, depth + 1, budget);
				}
			}
			tl_free(name);
		}
	} while (!found && tl_walk_next(&cur, e, descend));
	ts_tree_cursor_delete(&cur);
	return found;
}

bool tl_check_backward_through(const TlIndex *idx, TSNode call, TlWrapper kind)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!c || !(c->events & TL_EV_BACKWARD))
		return false;
	int budget = TL_FACTS_BUDGET;
	return tl_check__through(idx, tl_model_backward_subject(idx, c), kind, 0, &budget);
}
