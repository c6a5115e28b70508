/* Building the facts of a file: the annotations that every question reads
 * and that need meaning, not only syntax. The index (index.c) records what
 * the code says and leaves these fields zero; tl_facts_build fills them,
 * once per file, right after the index is built:
 * - classes that are nn.Modules (by their bases' qualified names);
 * - the contexts (TL_CTX_*) that `with` items and decorators open, and the
 *   functions whose every call site runs grad-disabled;
 * - the events (TL_EV_*) of each call, function and loop iteration, local
 *   calls expanded;
 * - the step loops (TL_STEP_*) and whether the file uses an accelerator;
 * - whether the file imports PyTorch or a library built on it.
 *
 * Owns: tl_facts_build. */
#include "base/budget.h"
#include "base/timings.h"
#include "facts/internal.h"

static void tl_facts__classes(TlIndex *idx)
{
	for (uint32_t i = 0; i < idx->classes.size; i++) {
		TlClass *c = &idx->classes.items[i];
		for (uint32_t k = 0; !c->is_module && k < c->base_qnames.size; k++)
			if (tl_facts_is_module_class_name(c->base_qnames.items[k]) ||
			    tl_facts__ext_class_is_module(idx, c->base_qnames.items[k]))
				c->is_module = true;
	}
	/* Derivation through local bases: a fixpoint, at most one round per class. */
	for (uint32_t round = 0; round <= idx->classes.size; round++) {
		bool changed = false;
		for (uint32_t i = 0; i < idx->classes.size; i++) {
			TlClass *c = &idx->classes.items[i];
			for (uint32_t k = 0; !c->is_module && k < c->bases.size; k++)
				if (idx->classes.items[c->bases.items[k]].is_module) {
					c->is_module = true;
					changed = true;
				}
		}
		if (!changed)
			break;
	}
}

/* Which functions an iteration may run: those a call in a loop reaches
 * through local calls (one byte per function). What a call of another
 * module's function does is looked up only where an iteration runs it
 * (loading a module costs a parse): in a loop, or in such a function. */
static uint8_t *tl_facts__iteration_funcs(const TlIndex *idx)
{
	uint8_t *in = tl_calloc(idx->funcs.size + 1, 1);
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (c->loop < 0)
			continue;
		if (c->target >= 0)
			in[c->target] = 1;
		if (c->arg_target >= 0)
			in[c->arg_target] = 1;
	}
	/* A fixpoint that only turns bytes on. */
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t i = 0; i < idx->calls.size && !tl_bound_poll(); i++) {
			const TlCall *c = &idx->calls.items[i];
			if (c->func < 0 || !in[c->func])
				continue;
			int32_t t[2] = { c->target, c->arg_target };
			for (int k = 0; k < 2; k++)
				if (t[k] >= 0 && !in[t[k]]) {
					in[t[k]] = 1;
					changed = true;
				}
		}
	}
	return in;
}

/* The events of each call, the functions' own and reachable events, and
 * each loop's iteration. */
static void tl_facts__events(TlIndex *idx)
{
	uint8_t *iter = idx->imports ? tl_facts__iteration_funcs(idx) : NULL;
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		TlCall *c = &idx->calls.items[i];
		c->events = tl_facts_call_events(idx, c);
		if (iter && (c->loop >= 0 || (c->func >= 0 && iter[c->func])))
			tl_facts__ext_call_events(idx, c);
		if (c->func >= 0)
			idx->funcs.items[c->func].events |= c->events;
	}
	tl_free(iter);
	for (uint32_t i = 0; i < idx->sites.size; i++) {
		const TlSite *s = &idx->sites.items[i];
		if (s->func >= 0)
			idx->funcs.items[s->func].events |= s->events;
	}
	for (uint32_t i = 0; i < idx->funcs.size; i++)
		idx->funcs.items[i].reach_events = idx->funcs.items[i].events;
	/* Reachability over the call graph: a fixpoint that adds bits only, so
	 * it ends after at most (bits x functions) rounds; usually two (a chain
	 * of functions each calling the next one defined, as many as the
	 * chain is long: the CPU bound stops it). */
	for (;;) {
		bool changed = false;
		for (uint32_t i = 0; i < idx->calls.size; i++) {
			if (tl_bound_poll())
				return;
			const TlCall *c = &idx->calls.items[i];
			if (c->func < 0)
				continue;
			uint32_t add = c->callee_events;
			if (c->target >= 0)
				add |= idx->funcs.items[c->target].reach_events;
			if (c->arg_target >= 0)
				add |= idx->funcs.items[c->arg_target].reach_events;
			TlFunc *f = &idx->funcs.items[c->func];
			if ((f->reach_events | add) != f->reach_events) {
				f->reach_events |= add;
				changed = true;
			}
		}
		if (!changed)
			break;
	}
	/* Each loop's iteration: what its body does, directly or through the
	 * local functions it calls. */
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		uint32_t ev = c->events | c->callee_events;
		if (c->target >= 0)
			ev |= idx->funcs.items[c->target].reach_events;
		if (c->arg_target >= 0)
			ev |= idx->funcs.items[c->arg_target].reach_events;
		for (int32_t l = c->loop; l >= 0; l = idx->loops.items[l].parent)
			idx->loops.items[l].events |= ev;
	}
	for (uint32_t i = 0; i < idx->sites.size; i++) {
		const TlSite *s = &idx->sites.items[i];
		for (int32_t l = s->loop; l >= 0; l = idx->loops.items[l].parent)
			idx->loops.items[l].events |= s->events;
	}
}

static void tl_facts__contexts(TlIndex *idx)
{
	const TlSyms *sy = tl_syms();
	for (uint32_t i = 0; i < idx->withs.size; i++) {
		TlWith *w = &idx->withs.items[i];
		uint32_t count = ts_node_named_child_count(w->node);
		for (uint32_t k = 0; k < count; k++) {
			TSNode clause = ts_node_named_child(w->node, k);
			if (ts_node_symbol(clause) != sy->with_clause)
				continue;
			uint32_t items = ts_node_named_child_count(clause);
			for (uint32_t j = 0; j < items; j++) {
				TSNode item = ts_node_named_child(clause, j);
				TSNode v = tl_tree_field(item, sy->f_value);
				if (!ts_node_is_null(v) && ts_node_symbol(v) == sy->as_pattern)
					v = ts_node_named_child(v, 0);
				if (!ts_node_is_null(v))
					w->ctx |= tl_facts_context_kind(idx, v);
			}
		}
	}
	for (uint32_t i = 0; i < idx->funcs.size; i++) {
		TlFunc *f = &idx->funcs.items[i];
		if (ts_node_eq(f->outer, f->node))
			continue;
		uint32_t count = ts_node_named_child_count(f->outer);
		for (uint32_t k = 0; k < count; k++) {
			TSNode d = ts_node_named_child(f->outer, k);
			if (ts_node_symbol(d) == sy->decorator && ts_node_named_child_count(d))
				f->decorator_ctx |= tl_facts_context_kind(idx, ts_node_named_child(d, 0));
		}
	}
	/* Functions whose every call site runs grad-disabled: a least fixpoint
	 * (starts all-false, only turns bits on), so recursion stays false. */
	for (uint32_t round = 0; round <= idx->funcs.size; round++) {
		bool changed = false;
		for (uint32_t i = 0; i < idx->funcs.size; i++) {
			if (tl_bound_poll())
				return;
			TlFunc *f = &idx->funcs.items[i];
			if (f->callers_grad_off || f->escapes || !f->call_sites.size)
				continue;
			bool all = true;
			for (uint32_t k = 0; all && k < f->call_sites.size; k++) {
				const TlCall *c = &idx->calls.items[f->call_sites.items[k]];
				int st = tl_facts_local_grad(idx, c->node, c->func, c->with);
				if (st == TL_GRAD_OFF)
					continue;
				if (st == TL_GRAD_UNKNOWN && c->func >= 0 &&
				    idx->funcs.items[c->func].callers_grad_off)
					continue;
				all = false;
			}
			if (all) {
				f->callers_grad_off = true;
				changed = true;
			}
		}
		if (!changed)
			break;
	}
}

/* Step loops (RULES.md, "step loop"): the innermost loops whose own
 * iteration trains (a backward or an optimizer step) or evaluates (a model
 * forward). "Own" leaves out what the loops nested in it do, also inside
 * the functions it calls, so that an epoch loop around a batch loop, or
 * around a call of train_one_epoch(), is not a step loop. An evaluating
 * loop with a step loop inside it (an epoch loop that also samples once per
 * epoch) is not one either. */
static void tl_facts__step_loops(TlIndex *idx)
{
	const uint32_t step_bits = TL_EV_BACKWARD | TL_EV_OPT_STEP | TL_EV_FORWARD;
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (c->func >= 0 && c->loop < 0)
			idx->funcs.items[c->func].flat_events |= c->events;
	}
	for (uint32_t i = 0; i < idx->sites.size; i++) {
		const TlSite *st = &idx->sites.items[i];
		if (st->func >= 0 && st->loop < 0)
			idx->funcs.items[st->func].flat_events |= st->events;
	}
	/* Through calls made outside loops: a fixpoint that only adds bits, so
	 * it ends after at most (bits x functions) rounds. */
	for (;;) {
		bool changed = false;
		for (uint32_t i = 0; i < idx->calls.size; i++) {
			if (tl_bound_poll())
				return;
			const TlCall *c = &idx->calls.items[i];
			if (c->func < 0 || c->loop >= 0)
				continue;
			uint32_t add = c->callee_flat;
			if (c->target >= 0)
				add |= idx->funcs.items[c->target].flat_events;
			if (c->arg_target >= 0)
				add |= idx->funcs.items[c->arg_target].flat_events;
			TlFunc *f = &idx->funcs.items[c->func];
			if ((f->flat_events | add) != f->flat_events) {
				f->flat_events |= add;
				changed = true;
			}
		}
		if (!changed)
			break;
	}
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (c->loop < 0)
			continue;
		uint32_t ev = c->events | c->callee_flat;
		if (c->target >= 0)
			ev |= idx->funcs.items[c->target].flat_events;
		if (c->arg_target >= 0)
			ev |= idx->funcs.items[c->arg_target].flat_events;
		idx->loops.items[c->loop].own_events |= ev;
	}
	for (uint32_t i = 0; i < idx->sites.size; i++) {
		const TlSite *st = &idx->sites.items[i];
		if (st->loop >= 0)
			idx->loops.items[st->loop].own_events |= st->events;
	}
	/* Functions that run a candidate loop, directly or through the calls
	 * they make: a fixpoint that only turns flags on. */
	for (uint32_t i = 0; i < idx->loops.size; i++) {
		const TlLoop *l = &idx->loops.items[i];
		if ((l->own_events & step_bits) && l->func >= 0)
			idx->funcs.items[l->func].runs_step_loop = true;
	}
	for (;;) {
		bool changed = false;
		for (uint32_t i = 0; i < idx->calls.size; i++) {
			if (tl_bound_poll())
				return;
			const TlCall *c = &idx->calls.items[i];
			if (c->func < 0 || idx->funcs.items[c->func].runs_step_loop)
				continue;
			int32_t t = c->target, a = c->arg_target;
			if (c->callee_steps || (t >= 0 && idx->funcs.items[t].runs_step_loop) ||
			    (a >= 0 && idx->funcs.items[a].runs_step_loop)) {
				idx->funcs.items[c->func].runs_step_loop = true;
				changed = true;
			}
		}
		if (!changed)
			break;
	}
	/* A loop has a candidate inside it when a loop nested in it is one, or
	 * a call in its body reaches a function that runs one. */
	uint8_t *inner = tl_calloc(idx->loops.size ? idx->loops.size : 1, 1);
	for (uint32_t i = 0; i < idx->loops.size; i++) {
		const TlLoop *l = &idx->loops.items[i];
		if (!(l->own_events & step_bits))
			continue;
		for (int32_t p = l->parent; p >= 0; p = idx->loops.items[p].parent)
			inner[p] = 1;
	}
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		int32_t t = c->target, a = c->arg_target;
		bool reaches = c->callee_steps || (t >= 0 && idx->funcs.items[t].runs_step_loop) ||
			       (a >= 0 && idx->funcs.items[a].runs_step_loop);
		for (int32_t l = reaches ? c->loop : -1; l >= 0; l = idx->loops.items[l].parent)
			inner[l] = 1;
	}
	for (uint32_t i = 0; i < idx->loops.size; i++) {
		TlLoop *l = &idx->loops.items[i];
		if (l->own_events & (TL_EV_BACKWARD | TL_EV_OPT_STEP))
			l->step = TL_STEP_TRAIN;
		else if ((l->own_events & TL_EV_FORWARD) && !inner[i])
			l->step = TL_STEP_EVAL;
	}
	tl_free(inner);
}

/* Whether the file uses an accelerator at all: without one, a model's
 * outputs live in host memory and reading them costs no device sync. */
static void tl_facts__uses_device(TlIndex *idx)
{
	const TlSyms *sy = tl_syms();
	for (uint32_t i = 0; i < idx->calls.size && !idx->uses_device; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (tl_facts_moves_to_device(idx, c->node) ||
		    (c->qname && strncmp(c->qname, "accelerate.", 11) == 0) ||
		    (c->qname && strcmp(c->qname, "torch.device") == 0 &&
		     tl_facts_is_device(idx, c->node))) {
			idx->uses_device = true;
			continue;
		}
		/* torch.zeros(..., device=device) */
		TSNode args = tl_tree_field(c->node, sy->f_arguments);
		uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
		for (uint32_t k = 0; k < count; k++) {
			TSNode a = ts_node_named_child(args, k);
			if (ts_node_symbol(a) == sy->keyword_argument &&
			    tl_index_text_is(idx, tl_tree_field(a, sy->f_name), "device") &&
			    tl_facts_is_device(idx, tl_tree_field(a, sy->f_value)))
				idx->uses_device = true;
		}
	}
}

/* Whether the file imports PyTorch or a library built on it (principle 3:
 * a file that does not gets no finding that rests on names). */
static void tl_facts__ecosystem(TlIndex *idx)
{
	for (uint32_t i = 0; i < idx->bindings.size; i++) {
		const TlBinding *b = &idx->bindings.items[i];
		if (b->kind != TL_BIND_IMPORT)
			continue;
		if (tl_facts__torch_qname(b->qname))
			idx->torch_ecosystem = true;
		/* Every dotted name that resolves through imports starts with
		 * an import's root: with no foreign import, no value is
		 * foreign (tl_facts__foreign_value answers at once). */
		if (tl_facts__foreign_qname(b->qname))
			idx->foreign_imports = true;
	}
}

void tl_facts_build(TlIndex *idx, const TlSource *src, TSNode root)
{
	tl_facts_build_collecting(idx, src, root, NULL);
}

void tl_facts_build_collecting(TlIndex *idx, const TlSource *src, TSNode root,
			       const uint8_t *symbols)
{
	tl_facts_build_in(idx, src, root, symbols, NULL);
}

void tl_facts_build_in(TlIndex *idx, const TlSource *src, TSNode root, const uint8_t *symbols,
		       const TlImports *imports)
{
	uint64_t t = tl_timings_start();
	tl_index_build_collecting(idx, src, root, symbols);
	idx->imports = imports;
	t = tl_timings_add(TL_PHASE_INDEX, t);
	tl_facts__cache_install(idx);
	/* Past the file's CPU bound (base/budget.h) the index is incomplete:
	 * no fact is built on it (its owner throws it away). */
	TlBound *bound = tl_bound_current();
	if (bound)
		tl_bound_phase(bound, "building the facts");
	if (tl_bound_hit()) {
		idx->facts_cache->complete = true;
		tl_timings_add(TL_PHASE_FACTS, t);
		return;
	}
	tl_facts__ecosystem(idx); /* before anything asks what a name hints at, or
				   * whether a value is foreign */
	tl_facts__classes(idx);
	tl_facts__contexts(idx); /* with kinds and decorators: needed by events */
	if (!tl_bound_hit())
		tl_facts__events(idx);
	if (!tl_bound_hit())
		tl_facts__contexts(idx); /* callers_grad_off needs the call graph */
	if (!tl_bound_hit())
		tl_facts__step_loops(idx);
	if (!tl_bound_hit())
		tl_facts__uses_device(idx);
	idx->facts_cache->complete = true;
	tl_timings_add(TL_PHASE_FACTS, t);
}
