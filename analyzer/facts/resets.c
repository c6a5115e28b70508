/* Gradient resets and steps: whether a reset covers the stepped optimizer and
 * comes in the right order relative to backward and step.
 *
 * Owns: tl_facts_step_unreset, tl_facts_reset_before_step, tl_facts_clip_before_unscale. */
#include "facts/internal.h"

/* ---- gradient resets and steps ----------------------------------------------------- */

bool tl_facts_step_unreset(const TlIndex *idx, TSNode step)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(step));
	if (!c || !(c->events & TL_EV_OPT_STEP))
		return false;
	TSNode opt = tl_facts__stepped(idx, c);
	TlIntArray loops;
	tl_array_init(&loops);
	tl_facts__step_loop_list(idx, c->node, &loops);
	if (!loops.size && idx->imports) {
		/* Called per step from another module's loop. */
		tl_array_release(&loops);
		return tl_facts__ext_step_unreset(idx, c);
	}
	bool unreset = loops.size > 0;
	for (uint32_t i = 0; unreset && i < loops.size; i++) {
		const TlLoop *l = &idx->loops.items[loops.items[i]];
		/* A model and its optimizer built afresh in every iteration
		 * start with no gradient to carry over. */
		if (tl_facts__optimizer_fresh_in(idx, opt, l->body) ||
		    tl_facts__fresh_dist_context(idx, c->node, l->body)) {
			unreset = false;
			break;
		}
		TlSteps resets;
		tl_array_init(&resets);
		tl_facts__sequence(idx, l->func, l->body, TL_EV_GRAD_RESET, &resets);
		for (uint32_t k = 0; unreset && k < resets.size; k++)
			if (tl_facts__reset_covers(idx, resets.items[k].call, opt) != TL_COVER_NONE)
				unreset = false;
		tl_array_release(&resets);
	}
	tl_array_release(&loops);
	return unreset;
}

/* True when `node` runs inside a distributed-autograd context entered
 * within `body` (`with dist_autograd.context() as cid:` in the iteration):
 * its backward and step use that context's gradients, new each iteration,
 * so nothing carries over to reset. */
bool tl_facts__fresh_dist_context(const TlIndex *idx, TSNode node, TSNode body)
{
	for (int32_t w = tl_index_with_of(idx, node); w >= 0; w = idx->withs.items[w].parent) {
		const TlWith *wi = &idx->withs.items[w];
		if ((wi->ctx & TL_CTX_DIST_AUTOGRAD) && tl_facts__contains(body, wi->node))
			return true;
	}
	return false;
}

/* True when a statement that leaves the block early (continue, break,
 * return, raise) starts in `block` between bytes `from` and `to`. */
static bool tl_facts__jump_between(TSNode block, uint32_t from, uint32_t to)
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

bool tl_facts_reset_before_step(const TlIndex *idx, TSNode reset)
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
			!tl_facts__jump_between(block, ts_node_end_byte(r->node),
					       ts_node_start_byte(step->anchor));
	}
	tl_array_release(&seq);
	return found;
}

/* ---- clipping scaled gradients ------------------------------------------------------ */

/* Where clip entry `at` of `seq` stands: 1 when a scaled backward comes
 * before it with no unscale_, step or other backward in between, and a
 * GradScaler step follows it before any backward or plain step; else 0. */
static int tl_facts__clip_scaled(const TlSteps *seq, uint32_t at)
{
	bool scaled = false;
	for (uint32_t j = at; j-- > 0;) {
		uint32_t ev = seq->items[j].events;
		if (ev & (TL_EV_SCALER_UNSCALE | TL_EV_OPT_STEP))
			return 0;
		if (ev & TL_EV_BACKWARD) {
			scaled = (ev & TL_EV_SCALED_BACKWARD) != 0;
			break;
		}
	}
	if (!scaled)
		return 0;
	for (uint32_t j = at + 1; j < seq->size; j++) {
		uint32_t ev = seq->items[j].events;
		if (ev & (TL_EV_BACKWARD | TL_EV_PLAIN_STEP))
			return 0;
		if (ev & TL_EV_SCALER_STEP)
			return 1;
	}
	return 0;
}

bool tl_facts_clip_before_unscale(const TlIndex *idx, TSNode clip)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(clip));
	if (!c || !(c->events & TL_EV_GRAD_CLIP))
		return false;
	const uint32_t mask = TL_EV_BACKWARD | TL_EV_OPT_STEP | TL_EV_SCALER_UNSCALE | TL_EV_GRAD_CLIP;
	TlIntArray loops;
	tl_array_init(&loops);
	tl_facts__step_loop_list(idx, c->node, &loops);
	/* No step loop in the file (a train_step() the trainer of another
	 * module calls): the function is the iteration. */
	uint32_t ranges = loops.size ? loops.size : (c->func >= 0 ? 1 : 0);
	bool found = false;
	for (uint32_t i = 0; !found && i < ranges; i++) {
		int32_t func = c->func;
		TSNode range = c->func >= 0 ? idx->funcs.items[c->func].node : idx->root;
		if (loops.size) {
			const TlLoop *l = &idx->loops.items[loops.items[i]];
			func = l->func;
			range = l->body;
		}
		TlSteps seq;
		tl_array_init(&seq);
		tl_facts__sequence(idx, func, range, mask, &seq);
		for (uint32_t k = 0; !found && k < seq.size; k++)
			if (seq.items[k].call == c)
				found = tl_facts__clip_scaled(&seq, k) != 0;
		tl_array_release(&seq);
	}
	tl_array_release(&loops);
	return found;
}
