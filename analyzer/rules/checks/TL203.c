/* TL203's rule logic (eval-mode-not-restored). Whether an iteration leaves
 * a module in eval mode for the next one.
 *
 * Owns: tl_check_leaves_eval, tl_check_leaves_eval_nowhere; whether an
 * optimizer may update a module (from facts/modules.c) and a module holds
 * no mode-dependent layer (from facts/layers.c). */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

/* ---- what an optimizer may update ---------------------------------------- */

/* False only when every module optimizer `opt` updates is known and none
 * of them is, holds or is part of module `m` (facts/modules.c's
 * tl_facts__optimizer_modules and tl_facts__relate). */
static bool tl_check__optimizer_may_update(const TlIndex *idx, TSNode opt, const TlModRef *m)
{
	TlModSet set;
	tl_array_init(&set);
	bool may = true;
	if (tl_facts__optimizer_modules(idx, opt, &set)) {
		may = false;
		for (uint32_t i = 0; i < set.size && !may; i++)
			may = tl_facts__relate(idx, &set.items[i], m) != TL_REL_DISJOINT;
	}
	tl_facts__modset_release(&set);
	return may;
}

/* ---- modules without mode-dependent layers ------------------------------- */

/* True when the module construction `root` (a call, a
 * class body) is known to hold no layer that acts differently in train and
 * eval mode: every layer it builds is known (torch.nn layers, classes of
 * the project, scanned) and none is dropout, batch norm or the like
 * (facts/layers.c's scan, tl_facts__layers_of). False when it holds one, or
 * when something it may hold is not known. */
static bool tl_check__mode_independent(const TlIndex *idx, TSNode root)
{
	return tl_facts__layers_of(idx, root) == TL_LAYER_NONE;
}

/* True when a module switch to train mode on `by` also switches `name`:
 * the same module, a module containing it, or the same construction. */
static bool tl_check__switches(const TlIndex *idx, const char *by, const char *name,
			      int32_t func, uint32_t pos)
{
	size_t l = strlen(by);
	if (strncmp(by, name, l) == 0 && (name[l] == '\0' || name[l] == '.'))
		return true;
	TlBuf a, b;
	tl_buf_init(&a);
	tl_buf_init(&b);
	TSNode ra = tl_facts__name_root(idx, by, func, pos, &a);
	TSNode rb = tl_facts__name_root(idx, name, func, pos, &b);
	bool yes = !ts_node_is_null(ra) && !ts_node_is_null(rb) && ts_node_eq(ra, rb) &&
		   (!a.data[0] || strcmp(a.data, b.data) == 0);
	tl_buf_release(&a);
	tl_buf_release(&b);
	return yes;
}

/* Whether loop `loop`'s iteration runs every event of `events`: the
 * index's loop events, less those that only calls whose constant
 * contexts decide against them reach (a validation loop calling the
 * shared step with `train=False`; the model's per-context events,
 * tl_model_call_events). Where the loop's calls do not account
 * for all of its events (another source the index counted), the index's
 * events stand. */
static bool tl_check__loop_runs(const TlIndex *idx, int32_t loop, uint32_t events)
{
	const TlLoop *l = &idx->loops.items[loop];
	if ((l->events & events) != events)
		return false;
	uint32_t all = 0, kept = 0;
	uint32_t from = 0, to = 0;
	const TlIntArray *calls = tl_index_scope_calls(idx, l->func);
	tl_index_scope_calls_in(idx, l->func, l->body, &from, &to);
	for (uint32_t i = from; calls && i < to; i++) {
		const TlCall *k = &idx->calls.items[calls->items[i]];
		all |= tl_model_call_events(idx, k, events, false);
		kept |= tl_model_call_events(idx, k, events, true);
	}
	if (all != (l->events & events))
		return true;
	return (kept & events) == events;
}

/* Whether eval-mode switch `c` leaves a trained module in eval mode for
 * the next iteration of training loop `loop`. */
static bool tl_check__leaves_in(const TlIndex *idx, const TlCall *c, int32_t loop)
{
	const TlLoop *l = &idx->loops.items[loop];
	TlNames evals, trains, elsewhere;
	tl_array_init(&evals);
	tl_array_init(&trains);
	tl_array_init(&elsewhere);
	bool left = false;
	uint32_t budget = TL_FACTS_BUDGET;
	tl_facts__event_receivers(idx, c, TL_EV_EVAL, &evals, 0, &budget);
	if (!evals.size)
		goto cleanup;
	/* The modules that another module's function, which switches them
	 * to eval, also trains (`GanModel.optimize_parameters()` on
	 * `self.netD`): trained although nothing in this file trains them. */
	tl_facts__event_receivers(idx, c, TL_EV_EVAL | TL_FACTS_TRAINED_ONLY, &elsewhere, 0, &budget);
	/* Every module the iteration switches back: train() / train(flag)
	 * calls in the loop body, directly or in the functions it runs. */
	const TlIntArray *calls = tl_index_scope_calls(idx, l->func);
	uint32_t start = ts_node_start_byte(l->body), end = ts_node_end_byte(l->body);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *k = &idx->calls.items[calls->items[i]];
		if (ts_node_start_byte(k->node) < start || ts_node_end_byte(k->node) > end)
			continue;
		if (!tl_facts__event_receivers(idx, k, TL_EV_TRAIN | TL_EV_MODE_SET, &trains, 0, &budget))
			goto cleanup; /* a switch to train mode on something unknown */
	}
	uint32_t pos = ts_node_start_byte(c->node);
	/* The optimizer steps of the iteration: a module none of them updates
	 * (a frozen encoder used only to encode inputs) is not trained here. */
	TlSteps steps;
	tl_array_init(&steps);
	tl_facts__sequence(idx, l->func, l->body, TL_EV_OPT_STEP, &steps);
	for (uint32_t i = 0; i < evals.size && !left; i++) {
		const char *m = evals.items[i];
		if (!tl_facts__names_have(&elsewhere, m) && !tl_facts__module_trained(idx, m, c->func, pos))
			continue;
		TlBuf path;
		tl_buf_init(&path);
		TSNode root = tl_facts__name_root(idx, m, c->func, pos, &path);
		/* A model known to hold no dropout, batch norm or the like
		 * trains the same in eval mode. */
		if (!path.len && !ts_node_is_null(root) && tl_check__mode_independent(idx, root)) {
			tl_buf_release(&path);
			continue;
		}
		bool here = steps.size == 0 || ts_node_is_null(root);
		TlModRef me = { root, path.data ? path.data : (char *)"" };
		for (uint32_t k = 0; k < steps.size && !here; k++)
			here = !steps.items[k].call ||
			       tl_check__optimizer_may_update(idx, tl_facts__stepped(idx, steps.items[k].call), &me);
		tl_buf_release(&path);
		if (!here)
			continue;
		bool restored = false;
		for (uint32_t k = 0; k < trains.size && !restored; k++)
			restored = tl_check__switches(idx, trains.items[k], m, c->func, pos);
		left = !restored;
	}
	tl_array_release(&steps);
cleanup:
	tl_facts__names_release(&evals);
	tl_facts__names_release(&trains);
	tl_facts__names_release(&elsewhere);
	return left;
}

bool tl_check_leaves_eval(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!c)
		return false;
	/* A call whose constant context decides against every switch to
	 * eval mode it reaches (`train()` stores `self.is_test = False`, then
	 * its loop calls `self.select_action(state)`, which switches under
	 * `if self.is_test:`) puts nothing in eval mode. */
	if (!(c->events & TL_EV_EVAL) && (tl_model_call_events(idx, c, TL_EV_EVAL, false) & TL_EV_EVAL) &&
	    !(tl_model_call_events(idx, c, TL_EV_EVAL, true) & TL_EV_EVAL))
		return false;
	/* A training loop: its iteration backpropagates and steps (an
	 * adversarial evaluation backpropagates to its inputs only), as the
	 * index counts its events, and as the constants its calls pass
	 * leave them. */
	const uint32_t training = TL_EV_BACKWARD | TL_EV_OPT_STEP;
	int32_t loop = c->loop, counted = c->loop;
	while (loop >= 0 && !tl_check__loop_runs(idx, loop, training))
		loop = idx->loops.items[loop].parent;
	while (counted >= 0 && (idx->loops.items[counted].events & training) != training)
		counted = idx->loops.items[counted].parent;
	if (loop < 0 || !tl_check__leaves_in(idx, c, loop))
		return false;
	/* The constants only take a finding away: where they make another
	 * loop the training one, the loop the index counts must leave the
	 * module in eval mode too. */
	return loop == counted || (counted >= 0 && tl_check__leaves_in(idx, c, counted));
}

bool tl_check_leaves_eval_nowhere(const TlIndex *idx)
{
	/* tl_check_leaves_eval needs such a loop around its call (`loop`
	 * passes tl_check__loop_runs, which asks the same first). */
	const uint32_t training = TL_EV_BACKWARD | TL_EV_OPT_STEP;
	for (uint32_t i = 0; i < idx->loops.size; i++)
		if ((idx->loops.items[i].events & training) == training)
			return false;
	return true;
}
