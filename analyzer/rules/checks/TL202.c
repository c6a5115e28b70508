/* TL202's rule logic (zero-grad-before-step). Whether a gradient reset runs
 * between backward and step.
 *
 * Owns: tl_check_reset_before_step. */
#include "rules/checks/checks.h"

#include "facts/internal.h"

/* True when a statement that leaves the block early (continue, break,
 * return, raise) starts in `block` between bytes `from` and `to`. */
static bool tl_check__jump_between(TSNode block, uint32_t from, uint32_t to)
{
	const TlSyms *sy = tl_syms();
	TSTreeCursor cur = ts_tree_cursor_new(block);
	bool found = false, descend = true;
	do {
		TSNode n = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(n);
		uint32_t at = ts_node_start_byte(n);
		descend = ts_node_end_byte(n) > from && at < to && s != sy->function_definition &&
			  s != sy->class_definition && s != sy->lambda;
		if (descend && at >= from && at < to &&
		    (s == sy->continue_statement || s == sy->break_statement ||
		     s == sy->return_statement || s == sy->raise_statement))
			found = true;
	} while (!found && tl_walk_next(&cur, block, descend));
	ts_tree_cursor_delete(&cur);
	return found;
}

bool tl_check_reset_before_step(const TlIndex *idx, TSNode reset)
{
	const TlSyms *sy = tl_syms();
	const TlCall *r = tl_index_call_at(idx, tl_index_unparen(reset));
	if (!r || !(r->events & TL_EV_GRAD_RESET) || !r->method || strcmp(r->method, "zero_grad") != 0)
		return false;
	TSNode range = r->loop >= 0 ? idx->loops.items[r->loop].body
		       : r->func >= 0 ? idx->funcs.items[r->func].node : idx->root;
	TlSteps seq;
	tl_array_init(&seq);
	tl_facts__sequence(idx, r->func, range, TL_EV_BACKWARD | TL_EV_OPT_STEP | TL_EV_GRAD_RESET, &seq);
	uint32_t at = 0;
	while (at < seq.size && seq.items[at].call != r)
		at++;
	bool found = false;
	/* A backward before it, with no step in between... */
	bool after_backward = false;
	for (uint32_t j = at; j-- > 0 && at < seq.size;) {
		uint32_t ev = seq.items[j].events;
		if (ev & TL_EV_BACKWARD) {
			after_backward = true;
			break;
		}
		if (ev & TL_EV_OPT_STEP)
			break;
	}
	/* ...and the next step that it fully covers, with no backward first. */
	const TlStep *step = NULL;
	for (uint32_t j = at + 1; after_backward && j < seq.size; j++) {
		const TlStep *e = &seq.items[j];
		/* A backward, or `p.grad = g` (gradient surgery writes the
		 * gradients the step applies): the reset is not the last word. */
		if ((e->events & TL_EV_BACKWARD) || !e->call)
			break;
		if (!(e->events & TL_EV_OPT_STEP))
			continue;
		int cov = tl_facts__reset_covers(idx, r, tl_facts__stepped(idx, e->call));
		if (cov == TL_COVER_FULL)
			step = e;
		if (cov != TL_COVER_NONE)
			break;
	}
	if (step) {
		/* The reset runs whenever the step does: the step is in the
		 * reset's block, and nothing leaves that block between them. */
		TSNode block = tl_index_parent(idx, r->node);
		while (!ts_node_is_null(block) && ts_node_symbol(block) != sy->block &&
		       ts_node_symbol(block) != sy->module)
			block = tl_index_parent(idx, block);
		found = !ts_node_is_null(block) && tl_facts__contains(block, step->anchor) &&
			!tl_check__jump_between(block, ts_node_end_byte(r->node),
					       ts_node_start_byte(step->anchor));
	}
	tl_array_release(&seq);
	return found;
}
