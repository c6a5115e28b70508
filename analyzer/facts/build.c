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
#include <stddef.h>

#include "base/budget.h"
#include "base/timings.h"
#include "facts/internal.h"

/* ---- worklists over the call graph ------------------------------------------
 * Each fixpoint below only turns bits or flags on, so a worklist reaches the
 * same least fixpoint as repeating rounds over every call until nothing
 * changes, at a cost of the edges times the bits each value can gain: the
 * rounds were as many as a chain of functions is long (each calling the
 * next one defined: quadratic, 16,000 functions 5.6 s, issue 26). */

/* Items grouped by key: `first[k]` .. `first[k + 1]` index `items`. */
typedef struct TlGroups {
	uint32_t *first;
	int32_t *items;
} TlGroups;

static void tl_groups_build(TlGroups *g, uint32_t keys, const TlIntArray *key, const TlIntArray *item)
{
	g->first = tl_calloc((size_t)keys + 1, sizeof *g->first);
	g->items = tl_calloc(key->size ? key->size : 1, sizeof *g->items);
	for (uint32_t k = 0; k < key->size; k++)
		g->first[key->items[k] + 1]++;
	for (uint32_t k = 0; k < keys; k++)
		g->first[k + 1] += g->first[k];
	uint32_t *fill = tl_calloc(keys ? keys : 1, sizeof *fill);
	for (uint32_t k = 0; k < key->size; k++) {
		uint32_t at = (uint32_t)key->items[k];
		g->items[g->first[at] + fill[at]++] = item->items[k];
	}
	tl_free(fill);
}

static void tl_groups_release(TlGroups *g)
{
	tl_free(g->first);
	tl_free(g->items);
}

/* The calls made in functions (c->func >= 0), grouped by the local
 * function they reach (target or argument target); with `outside_loops`,
 * only those made outside loops. */
static void tl_facts__callers(const TlIndex *idx, bool outside_loops, TlGroups *g)
{
	TlIntArray key, item;
	tl_array_init(&key);
	tl_array_init(&item);
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (c->func < 0 || (outside_loops && c->loop >= 0))
			continue;
		int32_t t[2] = { c->target, c->arg_target };
		for (int k = 0; k < 2; k++)
			if (t[k] >= 0 && (k == 0 || t[1] != t[0])) {
				tl_array_push(&key, t[k]);
				tl_array_push(&item, (int32_t)i);
			}
	}
	tl_groups_build(g, idx->funcs.size, &key, &item);
	tl_array_release(&key);
	tl_array_release(&item);
}

/* A stack of items (functions or classes) with a flag each: on it or not. */
typedef struct TlWork {
	TlIntArray stack;
	uint8_t *on;
} TlWork;

static void tl_work_init(TlWork *w, uint32_t n)
{
	tl_array_init(&w->stack);
	w->on = tl_calloc(n ? n : 1, 1);
}

static void tl_work_push(TlWork *w, int32_t f)
{
	if (!w->on[f]) {
		w->on[f] = 1;
		tl_array_push(&w->stack, f);
	}
}

static int32_t tl_work_pop(TlWork *w)
{
	int32_t f = w->stack.items[--w->stack.size];
	w->on[f] = 0;
	return f;
}

static void tl_work_release(TlWork *w)
{
	tl_array_release(&w->stack);
	tl_free(w->on);
}

/* The least fixpoint of bits(f) |= extra(c) | bits(c->target) |
 * bits(c->arg_target) over the calls c of each function f (only those
 * made outside loops, with `outside_loops`), `callers` grouping those calls
 * by what they reach; bits(f) is the TlFunc field at offset `field`,
 * extra(c) the TlCall field at `extra_field` (reach_events and
 * callee_events, flat_events and callee_flat). */
static void tl_facts__propagate_bits(TlIndex *idx, const TlGroups *callers, size_t field,
				     size_t extra_field, bool outside_loops)
{
#define TL_BITS(f) (*(uint32_t *)((char *)&idx->funcs.items[f] + field))
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (c->func >= 0 && !(outside_loops && c->loop >= 0))
			TL_BITS(c->func) |= *(const uint32_t *)((const char *)c + extra_field);
	}
	TlWork w;
	tl_work_init(&w, idx->funcs.size);
	for (uint32_t f = idx->funcs.size; f-- > 0;)
		tl_work_push(&w, (int32_t)f);
	while (w.stack.size && !tl_bound_poll()) {
		int32_t t = tl_work_pop(&w);
		uint32_t add = TL_BITS(t);
		for (uint32_t k = callers->first[t]; k < callers->first[t + 1]; k++) {
			int32_t f = idx->calls.items[callers->items[k]].func;
			if ((TL_BITS(f) | add) != TL_BITS(f)) {
				TL_BITS(f) |= add;
				tl_work_push(&w, f);
			}
		}
	}
	tl_work_release(&w);
#undef TL_BITS
}

static void tl_facts__classes(TlIndex *idx)
{
	for (uint32_t i = 0; i < idx->classes.size; i++) {
		TlClass *c = &idx->classes.items[i];
		for (uint32_t k = 0; !c->is_module && k < c->base_qnames.size; k++)
			if (tl_facts_is_module_class_name(c->base_qnames.items[k]) ||
			    tl_facts__ext_class_is_module(idx, c->base_qnames.items[k]))
				c->is_module = true;
	}
	/* Derivation through local bases: from each module class to the
	 * classes derived from it (a worklist; rounds over every class were
	 * as many as a chain of classes is long). */
	TlIntArray key, item;
	tl_array_init(&key);
	tl_array_init(&item);
	for (uint32_t i = 0; i < idx->classes.size; i++)
		for (uint32_t k = 0; k < idx->classes.items[i].bases.size; k++) {
			tl_array_push(&key, idx->classes.items[i].bases.items[k]);
			tl_array_push(&item, (int32_t)i);
		}
	TlGroups derived;
	tl_groups_build(&derived, idx->classes.size, &key, &item);
	tl_array_release(&key);
	tl_array_release(&item);
	TlWork w;
	tl_work_init(&w, idx->classes.size);
	for (uint32_t i = idx->classes.size; i-- > 0;)
		if (idx->classes.items[i].is_module)
			tl_work_push(&w, (int32_t)i);
	while (w.stack.size) {
		int32_t b = tl_work_pop(&w);
		for (uint32_t k = derived.first[b]; k < derived.first[b + 1]; k++) {
			TlClass *c = &idx->classes.items[derived.items[k]];
			if (!c->is_module) {
				c->is_module = true;
				tl_work_push(&w, derived.items[k]);
			}
		}
	}
	tl_work_release(&w);
	tl_groups_release(&derived);
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
	/* A worklist that only turns bytes on: from each function an
	 * iteration runs to the functions its calls reach. */
	TlIntArray key, item;
	tl_array_init(&key);
	tl_array_init(&item);
	for (uint32_t i = 0; i < idx->calls.size; i++)
		if (idx->calls.items[i].func >= 0) {
			tl_array_push(&key, idx->calls.items[i].func);
			tl_array_push(&item, (int32_t)i);
		}
	TlGroups made;
	tl_groups_build(&made, idx->funcs.size, &key, &item);
	tl_array_release(&key);
	tl_array_release(&item);
	TlWork w;
	tl_work_init(&w, idx->funcs.size);
	for (uint32_t f = idx->funcs.size; f-- > 0;)
		if (in[f])
			tl_work_push(&w, (int32_t)f);
	while (w.stack.size && !tl_bound_poll()) {
		int32_t f = tl_work_pop(&w);
		for (uint32_t k = made.first[f]; k < made.first[f + 1]; k++) {
			const TlCall *c = &idx->calls.items[made.items[k]];
			int32_t t[2] = { c->target, c->arg_target };
			for (int j = 0; j < 2; j++)
				if (t[j] >= 0 && !in[t[j]]) {
					in[t[j]] = 1;
					tl_work_push(&w, t[j]);
				}
		}
	}
	tl_work_release(&w);
	tl_groups_release(&made);
	return in;
}

/* The events of each call, the functions' own and reachable events, and
 * each loop's iteration. */
static void tl_facts__events(TlIndex *idx)
{
	uint8_t *iter = idx->imports ? tl_facts__iteration_funcs(idx) : NULL;
	/* Calls of inherited methods of other modules that run local
	 * overrides: (call, override) pairs. */
	TlIntArray virt, ovr;
	tl_array_init(&virt);
	tl_array_init(&ovr);
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		TlCall *c = &idx->calls.items[i];
		c->events = tl_facts_call_events(idx, c);
		if (iter && (c->loop >= 0 || (c->func >= 0 && iter[c->func]))) {
			ovr.size = 0;
			tl_facts__ext_call_events(idx, c, &ovr);
			for (uint32_t k = 0; k < ovr.size; k++) {
				tl_array_push(&virt, (int32_t)i);
				tl_array_push(&virt, ovr.items[k]);
			}
		}
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
	/* Reachability over the call graph: a least fixpoint (a worklist). */
	TlGroups callers;
	tl_facts__callers(idx, false, &callers);
	tl_facts__propagate_bits(idx, &callers, offsetof(TlFunc, reach_events),
				 offsetof(TlCall, callee_events), false);
	/* An inherited method of another module runs the local overrides its
	 * `self.m()` calls reach: their events are the call's too, and reach
	 * the callers again. */
	if (virt.size && !tl_bound_hit()) {
		for (uint32_t i = 0; i + 1 < virt.size; i += 2)
			idx->calls.items[virt.items[i]].callee_events |=
				idx->funcs.items[virt.items[i + 1]].reach_events;
		tl_facts__propagate_bits(idx, &callers, offsetof(TlFunc, reach_events),
					 offsetof(TlCall, callee_events), false);
	}
	tl_array_release(&virt);
	tl_array_release(&ovr);
	tl_groups_release(&callers);
	if (tl_bound_hit())
		return;
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
}

/* Step loops (RULES.md, "step loop"): the innermost loops whose own
 * iteration trains (a backward or an optimizer step) or evaluates (a model
 * forward). "Own" leaves out what the loops nested in it do, also inside
 * the functions it calls, so that an epoch loop around a batch loop, or
 * around a call of train_one_epoch(), is not a step loop. An evaluating
 * loop with a step loop inside it (an epoch loop that also samples once per
 * epoch) is not one either. */
static bool tl_facts__over_few_constants(const TlIndex *idx, const TlLoop *l);

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
	/* Through calls made outside loops: a least fixpoint (a worklist). */
	TlGroups callers;
	tl_facts__callers(idx, true, &callers);
	tl_facts__propagate_bits(idx, &callers, offsetof(TlFunc, flat_events),
				 offsetof(TlCall, callee_flat), true);
	tl_groups_release(&callers);
	if (tl_bound_hit())
		return;
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
	TlWork w;
	tl_work_init(&w, idx->funcs.size);
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (c->func >= 0 && c->callee_steps && !(c->events & TL_EV_FORWARD))
			idx->funcs.items[c->func].runs_step_loop = true;
	}
	for (uint32_t f = idx->funcs.size; f-- > 0;)
		if (idx->funcs.items[f].runs_step_loop)
			tl_work_push(&w, (int32_t)f);
	tl_facts__callers(idx, false, &callers);
	while (w.stack.size && !tl_bound_poll()) {
		int32_t t = tl_work_pop(&w);
		for (uint32_t k = callers.first[t]; k < callers.first[t + 1]; k++) {
			int32_t f = idx->calls.items[callers.items[k]].func;
			if (!idx->funcs.items[f].runs_step_loop) {
				idx->funcs.items[f].runs_step_loop = true;
				tl_work_push(&w, f);
			}
		}
	}
	tl_work_release(&w);
	tl_groups_release(&callers);
	if (tl_bound_hit())
		return;
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
		/* A model's forward is no pass of the program: the loops of
		 * its forward (an RNN's time steps, a decoder's layers, a
		 * local class's or another module's) make no step loop around
		 * the call. */
		bool reaches = !(c->events & TL_EV_FORWARD) &&
			       (c->callee_steps || (t >= 0 && idx->funcs.items[t].runs_step_loop) ||
				(a >= 0 && idx->funcs.items[a].runs_step_loop));
		for (int32_t l = reaches ? c->loop : -1; l >= 0; l = idx->loops.items[l].parent)
			inner[l] = 1;
	}
	for (uint32_t i = 0; i < idx->loops.size; i++) {
		TlLoop *l = &idx->loops.items[i];
		if (l->own_events & (TL_EV_BACKWARD | TL_EV_OPT_STEP))
			l->step = TL_STEP_TRAIN;
		else if ((l->own_events & TL_EV_FORWARD) && !inner[i] && !tl_facts__over_few_constants(idx, l))
			l->step = TL_STEP_EVAL;
	}
	tl_free(inner);
}

/* True when the display `v` (a list, tuple or set) holds 1 to 8 elements,
 * each a string or number literal. */
static bool tl_facts__constant_display(TSNode v)
{
	const TlSyms *sy = tl_syms();
	TSSymbol s = ts_node_symbol(v);
	if (s != sy->list && s != sy->tuple && s != sy->set)
		return false;
	uint32_t count = ts_node_named_child_count(v), n = 0;
	for (uint32_t i = 0; i < count; i++) {
		TSNode e = ts_node_named_child(v, i);
		TSSymbol es = ts_node_symbol(e);
		if (es == sy->comment)
			continue;
		if (es == sy->unary_operator)
			es = ts_node_symbol(tl_tree_field(e, sy->f_argument));
		if (es != sy->string && es != sy->integer && es != sy->float_)
			return false;
		n++;
	}
	return n >= 1 && n <= 8;
}

/* A `for` over a handful of constants (`for device in ["cpu", "cuda"]`,
 * `for bs in (1, 8, 32)`, or a name whose every binding in the function is
 * such a display): a loop over configurations, run a few times, not over
 * data. Its forwards are no evaluation steps. */
static bool tl_facts__over_few_constants(const TlIndex *idx, const TlLoop *l)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_symbol(l->node) != sy->for_statement)
		return false;
	TSNode it = tl_index_unparen(tl_tree_field(l->node, sy->f_right));
	if (ts_node_is_null(it))
		return false;
	if (ts_node_symbol(it) != sy->identifier)
		return tl_facts__constant_display(it);
	const TlBinding *b = tl_index_resolve_node(idx, it);
	if (!b || b->kind != TL_BIND_ASSIGN)
		return false;
	const TlIntArray *all = tl_index_bindings_of(idx, b->func, b->name);
	for (uint32_t i = 0; all && i < all->size; i++) {
		const TlBinding *o = &idx->bindings.items[all->items[i]];
		TSNode v = o->kind == TL_BIND_ASSIGN && o->elem < 0 ? tl_index_unparen(o->value) : (TSNode){ 0 };
		if (ts_node_is_null(v) || !tl_facts__constant_display(v))
			return false;
	}
	return all && all->size > 0;
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
		tl_facts__step_loops(idx);
	if (!tl_bound_hit())
		tl_facts__uses_device(idx);
	idx->facts_cache->complete = true;
	tl_timings_add(TL_PHASE_FACTS, t);
	if (tl_facts__checking_model() && !tl_bound_hit())
		tl_facts__check_forward_events(idx);
}
