/* TL309's rule logic (anomaly-detection-enabled). Whether a step loop runs
 * in the region a node opens.
 *
 * Owns: tl_check_encloses_step_loop, tl_check_under_condition (from
 * facts/loops.c). */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

/* ---- code under a condition ---------------------------------------------- */

/* True when `node` sits, in its own function, under a condition: in a
 * branch of an if / elif / else, a conditional expression, or the operand
 * of `and` / `or`. */
bool tl_check_under_condition(const TlIndex *idx, TSNode node)
{
	const TlSyms *sy = tl_syms();
	for (TSNode p = tl_index_parent(idx, node); !ts_node_is_null(p); p = tl_index_parent(idx, p)) {
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->function_definition || s == sy->class_definition || s == sy->module)
			return false;
		if (s == sy->if_statement || s == sy->elif_clause || s == sy->else_clause ||
		    s == sy->conditional_expression || s == sy->boolean_operator)
			return true;
	}
	return false;
}

/* Whether local function `func` runs a step loop of `kinds`: a loop of its
 * own, or through the local functions it calls (depth-bounded). */
static bool tl_check__func_steps(const TlIndex *idx, int32_t func, uint32_t kinds, int depth,
				 int *budget)
{
	if (func < 0 || depth > TL_FACTS_DEPTH || --*budget < 0)
		return false;
	for (uint32_t i = 0; i < idx->loops.size; i++)
		if (idx->loops.items[i].func == func && (idx->loops.items[i].step & kinds) &&
		    (tl_model_loop_step(idx, (int32_t)i) & kinds))
			return true;
	const TlIntArray *calls = tl_index_scope_calls(idx, func);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (c->target >= 0 && c->target != func &&
		    tl_check__func_steps(idx, c->target, kinds, depth + 1, budget))
			return true;
	}
	return false;
}

bool tl_check_encloses_step_loop(const TlIndex *idx, TSNode node, uint32_t kinds)
{
	const TlSyms *sy = tl_syms();
	int32_t func = tl_index_func_of(idx, node);
	uint32_t from, to;
	if (ts_node_symbol(node) == sy->with_statement) {
		TSNode body = tl_tree_field(node, sy->f_body);
		if (ts_node_is_null(body))
			return false;
		from = ts_node_start_byte(body);
		to = ts_node_end_byte(body);
	} else {
		from = ts_node_end_byte(node);
		to = func >= 0 ? idx->funcs.items[func].end_byte : ts_node_end_byte(idx->root);
	}
	int budget = TL_FACTS_BUDGET;
	bool module_switch = func < 0 && ts_node_symbol(node) != sy->with_statement;
	for (uint32_t i = 0; i < idx->loops.size; i++) {
		const TlLoop *lp = &idx->loops.items[i];
		if (!(lp->step & kinds) || !(tl_model_loop_step(idx, (int32_t)i) & kinds))
			continue;
		/* A switch at module level holds for the whole run: every
		 * step loop of the file runs after it. */
		if (module_switch)
			return true;
		if (lp->func == func && ts_node_start_byte(lp->node) >= from &&
		    ts_node_end_byte(lp->node) <= to)
			return true;
	}
	const TlIntArray *calls = tl_index_scope_calls(idx, func);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (c->start_byte >= from && c->end_byte <= to && c->target >= 0 &&
		    tl_check__func_steps(idx, c->target, kinds, 0, &budget))
			return true;
	}
	return false;
}
