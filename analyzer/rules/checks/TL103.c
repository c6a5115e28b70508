/* TL103's rule logic (hidden-state-not-detached). Values carried across
 * iterations (recurrent state). Whether a loop carries a path, and what its
 * iteration stores into it, is the semantic model's (model/carry.c,
 * tl_model_carried); what a value's history is, too. What stays here: the
 * state argument a statement's call reads, and the model's answer joined for
 * the rule.
 *
 * Owns: tl_check_carried_state. */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

/* The argument of the call assigned by `stmt` that reads the same path as
 * `target` (`h` of `out, h = rnn(x, h)`, `(h, c)`'s parts), or null. */
static TSNode tl_check__state_arg(const TlIndex *idx, TSNode stmt, TSNode target)
{
	const TlSyms *sy = tl_syms();
	TSNode v = tl_index_unparen(tl_tree_field(stmt, sy->f_right));
	TSNode args = ts_node_is_null(v) || ts_node_symbol(v) != sy->call ? (TSNode){ 0 } : tl_tree_field(v, sy->f_arguments);
	uint32_t tlen = 0;
	const char *t = tl_index_text(idx, target, &tlen);
	TSNode todo[16];
	uint32_t n = 0;
	if (!ts_node_is_null(args))
		todo[n++] = args;
	while (n && t) {
		TSNode x = todo[--n];
		uint32_t nc = ts_node_named_child_count(x);
		for (uint32_t i = 0; i < nc; i++) {
			TSNode a = tl_index_unparen(ts_node_named_child(x, i));
			TSSymbol s = ts_node_symbol(a);
			uint32_t len = 0;
			const char *at = tl_index_text(idx, a, &len);
			if ((s == sy->identifier || s == sy->attribute) && len == tlen && memcmp(at, t, len) == 0)
				return a;
			if (s == sy->tuple && ts_node_eq(x, args) && n < 16)
				todo[n++] = a;
		}
	}
	return (TSNode){ 0 };
}

/* The model's answer (model/model.h: tl_model_carried): the step loop
 * carries the target's path into its next iteration, no store in its
 * iteration gives the path a value without history, the value an
 * iteration hands on has history (on some paths: an inner loop may not
 * run), and so has the value the statement's call reads for it. */
static int tl_check__carried_model(const TlIndex *idx, TSNode target, TSNode stmt, const TlLoop *l)
{
	TlCarryInfo ci;
	if (tl_model_carried(idx, l->node, target, &ci) != 1 || !ci.stored)
		return TL_CARRY_NONE;
	if (ci.detached)
		return TL_CARRY_DETACHED;
	unsigned g = tl_facts__history(idx, &ci.val);
	if (g != TL_VG_MUST && g != TL_VG_MAY)
		return TL_CARRY_NONE;
	TSNode arg = tl_check__state_arg(idx, stmt, target);
	TlVal a;
	if (!ts_node_is_null(arg) && tl_model_value(idx, arg, &a)) {
		unsigned ga = tl_facts__history(idx, &a);
		if (ga != TL_VG_MUST && ga != TL_VG_MAY)
			return ga == TL_VG_NONE ? TL_CARRY_DETACHED : TL_CARRY_NONE;
	}
	return TL_CARRY_ATTACHED;
}

int tl_check_carried_state(const TlIndex *idx, TSNode target)
{
	const TlSyms *sy = tl_syms();
	TSNode stmt = target;
	while (!ts_node_is_null(stmt) && ts_node_symbol(stmt) != sy->assignment &&
	       ts_node_symbol(stmt) != sy->augmented_assignment)
		stmt = tl_index_parent(idx, stmt);
	if (ts_node_is_null(stmt))
		return TL_CARRY_NONE;
	int32_t loop = tl_index_loop_of(idx, stmt);
	while (loop >= 0 && !(idx->loops.items[loop].events & TL_EV_BACKWARD))
		loop = idx->loops.items[loop].parent;
	if (loop < 0 || tl_facts_grad_state(idx, stmt) == TL_GRAD_OFF)
		return TL_CARRY_NONE;
	return tl_check__carried_model(idx, target, stmt, &idx->loops.items[loop]);
}
