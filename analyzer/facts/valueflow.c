/* Value flow: whether a value reaches a backward call or torch.autograd.grad
 * (the semantic model's flow graph, model/flow.c, and what the file shows
 * of a function's callers); whether a state dict is saved; reads of names.
 *
 * Owns: tl_facts_reaches_backward, tl_facts_displayed (`saved` is TL504's,
 * rules/checks/TL504.c),
 * tl_facts__mentions. */
#include "facts/internal.h"

#include "model/model.h"
#include "syntax/reads.h"

/* ---- value flow ---------------------------------------------------------------- */

/* True when the dotted name in `b` is one of `names` or an attribute chain
 * below one ("self.losses" matches "self.losses" and "self.losses.x"). */
static bool tl_facts__names_match(const TlNames *names, const TlBuf *b)
{
	for (uint32_t i = 0; i < names->size; i++) {
		size_t l = strlen(names->items[i]);
		if (b->len >= l && memcmp(b->data, names->items[i], l) == 0 &&
		    (b->len == l || b->data[l] == '.'))
			return true;
	}
	return false;
}

static bool tl_facts__mentions_read(void *data, TSNode node, TlBuf *dotted)
{
	(void)node;
	return tl_facts__names_match(data, dotted);
}

/* True when the subtree of `n` reads one of `names` (as a name or as the
 * dotted prefix of an attribute chain). Iterative. */
bool tl_facts__mentions(const TlIndex *idx, TSNode n, const TlNames *names)
{
	if (ts_node_is_null(n) || !names->size)
		return false;
	return tl_reads_each(idx, n, tl_facts__mentions_read, (void *)names);
}

void tl_facts__names_release(TlNames *names)
{
	tl_str_array_release((TlStrArray *)names);
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

/* The model's answer (model/flow.c): a backward differentiates what
 * `expr` computes, or a function of the file returns it to callers the
 * file does not show and builds a loss for them (as a module's own
 * methods do). With `site`, only that call of the function holding
 * `expr` takes its return. */
static bool tl_facts__flow_reaches(const TlIndex *idx, TSNode expr, const TlCall *site)
{
	TlIntArray rets, backs;
	tl_array_init(&rets);
	tl_array_init(&backs);
	int r = tl_model_reaches_backward(idx, expr, site ? site->node : (TSNode){ 0 }, &rets, site ? &backs : NULL);
	int32_t own = tl_index_func_of(idx, expr);
	bool yes = r > 0 && !site;
	/* At `site`: a backward of the function that this call runs
	 * (`if train: loss.backward()` at `train=False` runs none). */
	for (uint32_t i = 0; !yes && i < backs.size; i++) {
		const TlCall *b = &idx->calls.items[backs.items[i]];
		yes = b->func != own || tl_facts__runs_at(idx, b->node, own, site) != TL_RUNS_NEVER;
	}
	tl_array_release(&backs);
	for (uint32_t i = 0; !yes && r == 0 && i < rets.size; i++) {
		const TlFunc *f = &idx->funcs.items[rets.items[i]];
		if (!f->escapes && f->call_sites.size)
			continue;
		/* built in a loop of its own function that runs a backward (an
		 * enclosing one too: a log filled per metric in a step loop) */
		bool in_step_loop = false;
		for (int32_t l = rets.items[i] == own ? tl_index_loop_of(idx, expr) : -1; l >= 0 && !in_step_loop;
		     l = idx->loops.items[l].parent)
			in_step_loop = (idx->loops.items[l].events & TL_EV_BACKWARD) != 0;
		yes = tl_facts__returns_loss_to_unknown(idx, f, in_step_loop) ||
		      tl_model_return_differentiated(idx, rets.items[i]);
	}
	tl_array_release(&rets);
	return yes;
}

bool tl_facts_reaches_backward(const TlIndex *idx, TSNode expr)
{
	return tl_facts__flow_reaches(idx, expr, NULL);
}

bool tl_facts__reaches_at(const TlIndex *idx, TSNode expr, const TlCall *site)
{
	return tl_facts__flow_reaches(idx, expr, site);
}

bool tl_facts_displayed(const TlIndex *idx, TSNode node)
{
	const TlSyms *sy = tl_syms();
	const char *path = idx->src ? idx->src->path : NULL;
	size_t n = path ? strlen(path) : 0;
	if (n < 6 || strcmp(path + n - 6, ".ipynb") != 0)
		return false;
	TSNode stmt = node;
	while (!ts_node_is_null(stmt) && ts_node_symbol(stmt) != sy->expression_statement) {
		TSSymbol s = ts_node_symbol(stmt);
		if (s == sy->block || s == sy->module)
			return false;
		stmt = tl_index_parent(idx, stmt);
	}
	if (ts_node_is_null(stmt))
		return false;
	TSNode up = tl_index_parent(idx, stmt);
	return !ts_node_is_null(up) && ts_node_symbol(up) == sy->module;
}
