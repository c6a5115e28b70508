/* TL211's rule logic (requires-grad-typo). Whether the object of a misspelt
 * requires_grad flag may need freezing, the model's answer.
 *
 * Owns: tl_check_freeze_matters. */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

/* True when the subtree of `n` holds an identifier or attribute chain
 * written `name`. */
static bool tl_check__mentions_name(const TlIndex *idx, TSNode n, const char *name)
{
	const TlSyms *sy = tl_syms();
	size_t len = strlen(name);
	TSTreeCursor cur = ts_tree_cursor_new(n);
	bool found = false, descend = true;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(x);
		descend = true;
		if (s != sy->identifier && s != sy->attribute)
			continue;
		uint32_t tl = 0;
		const char *t = tl_index_text(idx, x, &tl);
		found = t && tl == len && memcmp(t, name, len) == 0;
	} while (!found && tl_walk_next(&cur, n, descend));
	ts_tree_cursor_delete(&cur);
	return found;
}

bool tl_check_freeze_matters(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	TlVal v;
	expr = tl_index_unparen(expr);
	if (ts_node_is_null(expr) || !tl_model_value(idx, expr, &v) || !v.nograd)
		return true;
	/* `x.require_grad = False`: meant to freeze (`= True` meant to train
	 * what does not require grad: that matters). */
	TSNode attr = tl_index_parent(idx, expr);
	TSNode asg = ts_node_is_null(attr) ? attr : tl_index_parent(idx, attr);
	if (ts_node_is_null(asg) || ts_node_symbol(asg) != sy->assignment ||
	    ts_node_symbol(tl_index_unparen(tl_tree_field(asg, sy->f_right))) != sy->false_)
		return true;
	char *name = tl_facts__dotted(idx, expr);
	if (!name)
		return true;
	/* `w.require_grad = False` then `self.w = nn.Parameter(w)`: the
	 * parameter trains. */
	bool may = false;
	const TlIntArray *calls = tl_index_scope_calls(idx, tl_index_func_of(idx, expr));
	for (uint32_t i = 0; calls && i < calls->size && !may; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (!c->qname || (strcmp(c->qname, "torch.nn.Parameter") != 0 &&
				  strcmp(c->qname, "torch.nn.parameter.Parameter") != 0) ||
		    ts_node_start_byte(c->node) < ts_node_end_byte(expr))
			continue;
		TSNode args = tl_tree_field(c->node, sy->f_arguments);
		TlVal pv;
		may = !ts_node_is_null(args) && tl_check__mentions_name(idx, args, name) &&
		      (!tl_model_value(idx, c->node, &pv) || !pv.nograd);
	}
	tl_free(name);
	return may;
}
