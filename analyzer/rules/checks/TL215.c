/* TL215's rule logic (sampler-epoch-not-set). Step loops that an outer loop
 * runs again and again; whether the epoch of a shuffling sampler a loader
 * draws from is left unset.
 *
 * Owns: tl_check_repeated_step_loop, tl_check_sampler_epoch_unset. */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

/* The loop whose statement is `loop`, or -1: among its scope's loops (in
 * source order) by halving on where they start (a scan of every loop of
 * the file per question was quadratic in a scope of many loops), else
 * (a loop the scope lists do not hold) by a scan. */
static int32_t tl_check__loop_at(const TlIndex *idx, TSNode loop)
{
	int32_t func = tl_index_func_of(idx, loop);
	uint32_t start = ts_node_start_byte(loop);
	if (func + 1 >= 0 && (uint32_t)(func + 1) < idx->scope_loops.size) {
		const TlIntArray *in = &idx->scope_loops.items[func + 1];
		uint32_t lo = 0, hi = in->size;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (ts_node_start_byte(idx->loops.items[in->items[mid]].node) < start)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < in->size && ts_node_start_byte(idx->loops.items[in->items[lo]].node) == start; lo++)
			if (ts_node_eq(idx->loops.items[in->items[lo]].node, loop))
				return in->items[lo];
	}
	for (uint32_t i = 0; i < idx->loops.size; i++)
		if (ts_node_eq(idx->loops.items[i].node, loop))
			return (int32_t)i;
	return -1;
}

/* True when loop `l`'s body backpropagates through an object and steps
 * that same object: `engine.backward(loss)` then `engine.step()`, a
 * training engine (DeepSpeed's) that owns its optimizer, whose step the
 * events do not count as an optimizer's (its receiver is no optimizer). */
static bool tl_check__engine_steps(const TlIndex *idx, const TlLoop *l)
{
	const TlIntArray *calls = tl_index_scope_calls(idx, l->func);
	uint32_t from = 0, to = 0;
	if (!calls)
		return false;
	tl_index_scope_calls_in(idx, l->func, l->body, &from, &to);
	for (uint32_t i = from; i < to; i++) {
		const TlCall *b = &idx->calls.items[calls->items[i]];
		if (!b->method || !b->recv_name || strcmp(b->method, "backward") != 0 || !tl_facts__argc(b->node))
			continue;
		for (uint32_t k = from; k < to; k++) {
			const TlCall *s = &idx->calls.items[calls->items[k]];
			if (s->method && s->recv_name && strcmp(s->method, "step") == 0 &&
			    strcmp(s->recv_name, b->recv_name) == 0)
				return true;
		}
	}
	return false;
}

bool tl_check_repeated_step_loop(const TlIndex *idx, TSNode loop)
{
	int32_t at = tl_check__loop_at(idx, tl_index_unparen(loop));
	if (at < 0)
		return false;
	const TlLoop *l = &idx->loops.items[at];
	/* A training step loop whose iteration updates the weights: a loop
	 * that backpropagates and steps nothing (head importances summed from
	 * gradients, a whole epoch's gradients stepped once after it) sums
	 * over every batch, in any order. */
	if (!(l->step & TL_STEP_TRAIN) || !(tl_model_loop_step(idx, at) & TL_STEP_TRAIN) ||
	    !((l->events & TL_EV_OPT_STEP) || tl_check__engine_steps(idx, l)))
		return false;
	if (l->parent >= 0)
		return true;
	/* Its function is called in a loop, here or in a module that
	 * imports it (an epoch loop calling `fit_one_epoch(...)`). */
	return tl_model_loop_around(idx, l->func);
}

/* True when DistributedSampler(...) call `ctor` may shuffle: `shuffle`
 * not passed (it defaults to True), or passed anything but a literal
 * False, None or 0 (the rule: "not shuffle=False"; a configuration's
 * value, `shuffle=opt["shuffle"]`, shuffles the training set it is
 * written for). */
static bool tl_check__sampler_shuffles(const TlIndex *idx, TSNode ctor)
{
	const TlSyms *sy = tl_syms();
	if (!tl_facts_passes_argument(idx, ctor, "shuffle"))
		return true;
	TSNode v = tl_index_unparen(tl_facts_argument(idx, ctor, "shuffle"));
	if (ts_node_is_null(v))
		return false;
	TSSymbol s = ts_node_symbol(v);
	return !(s == sy->false_ || s == sy->none || (s == sy->integer && tl_index_text_is(idx, v, "0")));
}

static TSNode tl_check__batch_sampler_source(const TlIndex *idx, TSNode e);

/* The DistributedSampler the DataLoader(...) construction `loader` draws
 * from (its `sampler`, or its BatchSampler's); null when none is told.
 * Under the enter() of loader.idx when it is another module's. */
static TlMade tl_check__loader_sampler(TlMade loader)
{
	TlMade none = { 0 };
	TSNode sampler = tl_facts_argument(loader.idx, loader.node, "sampler");
	if (ts_node_is_null(sampler))
		sampler = tl_check__batch_sampler_source(loader.idx,
							 tl_facts_argument(loader.idx, loader.node, "batch_sampler"));
	return ts_node_is_null(sampler) ? none : tl_facts__sampler_ctor(loader.idx, sampler, 0);
}

/* The sampler of the one DataLoader `obj` of `idx` is (`obj.sampler`);
 * null when it cannot be told. */
static TlMade tl_check__sampler_through(const TlIndex *idx, TSNode obj)
{
	TlMade r = { 0 };
	TlLoaders ls;
	tl_array_init(&ls.calls);
	ls.unknown = false;
	ls.budget = TL_FACTS_BUDGET;
	tl_facts__loader_source(idx, obj, &ls);
	if (ls.calls.size == 1 && !ls.unknown) {
		bool ext = ls.calls.items[0].idx != idx;
		if (ext)
			tl_facts__ext_enter(idx);
		r = tl_check__loader_sampler(ls.calls.items[0]);
		if (ext)
			tl_facts__ext_leave(idx);
	}
	tl_array_release(&ls.calls);
	return r;
}

/* The DistributedSampler(...) construction whose epoch a `.set_epoch()`
 * on `recv` sets: the sampler a name holds, `loader.sampler` (or
 * `loader.batch_sampler.sampler`) of one DataLoader built in the project, a
 * parameter every caller passes the same one. Null when it cannot be
 * told. */
static TlMade tl_check__epoch_target(const TlIndex *idx, TSNode recv, int depth)
{
	const TlSyms *sy = tl_syms();
	TlMade none = { 0 };
	recv = tl_index_unparen(recv);
	if (ts_node_is_null(recv) || depth > TL_FACTS_DEPTH)
		return none;
	TlMade r = tl_facts__sampler_ctor(idx, recv, 0);
	if (r.idx)
		return r;
	TSSymbol s = ts_node_symbol(recv);
	if (s == sy->attribute) {
		TSNode at = tl_tree_field(recv, sy->f_attribute);
		TSNode obj = tl_index_unparen(tl_tree_field(recv, sy->f_object));
		if (!tl_index_text_is(idx, at, "sampler"))
			return none;
		/* loader.batch_sampler.sampler */
		if (ts_node_symbol(obj) == sy->attribute &&
		    tl_index_text_is(idx, tl_tree_field(obj, sy->f_attribute), "batch_sampler"))
			obj = tl_tree_field(obj, sy->f_object);
		return tl_check__sampler_through(idx, obj);
	}
	if (s != sy->identifier)
		return none;
	const TlBinding *b = tl_index_resolve_node(idx, recv);
	if (!b || b->kind != TL_BIND_PARAM || b->func < 0)
		return none;
	/* A parameter: every caller passes the same sampler. */
	const TlFunc *f = &idx->funcs.items[b->func];
	if (f->escapes || !f->call_sites.size)
		return none;
	TlMade agreed = none;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		TSNode arg = c->func == b->func ? (TSNode){ 0 } : tl_facts__param_arg_of(idx, b, c);
		TlMade t = ts_node_is_null(arg) ? none : tl_check__epoch_target(idx, arg, depth + 1);
		if (!t.idx || (agreed.idx && !ts_node_eq(t.node, agreed.node)))
			return none;
		agreed = t;
	}
	return agreed;
}

/* True when call `c` of `idx` runs a function of the project that sets
 * the epoch of what it is handed (the model's summary: model/epochs.c),
 * and what it is handed there may be sampler `ctor`: the sampler itself,
 * a loader drawing from it, or something neither can be told of. */
static bool tl_check__epoch_set_by_callee(const TlIndex *idx, const TlCall *c, TlMade ctor)
{
	TlExtDef d;
	if (!tl_facts__argc(c->node) || !tl_facts__callee_def(idx, c, &d))
		return false;
	bool ext = d.idx != idx, yes = false;
	if (ext)
		tl_facts__ext_enter(idx);
	uint16_t sets = tl_model_epoch_params(d.idx, d.func);
	const TlFunc *f = &d.idx->funcs.items[d.func];
	for (uint32_t k = 0; !yes && sets && k < f->params.size && k < 16; k++) {
		if (!(sets & (1u << k)))
			continue;
		const char *pname = d.idx->bindings.items[f->params.items[k]].name;
		TSNode arg = ext ? tl_facts__ext_param_arg(idx, c, &d, pname, strlen(pname))
				 : tl_facts__param_arg(idx, f, (int32_t)k, c);
		if (ts_node_is_null(arg))
			continue;
		/* The sampler a loader handed over draws from, or the sampler
		 * handed over itself. */
		TlMade through = tl_check__sampler_through(idx, arg);
		TlMade itself = tl_check__epoch_target(idx, arg, 0);
		yes = (through.idx && ts_node_eq(through.node, ctor.node)) ||
		      (itself.idx && ts_node_eq(itself.node, ctor.node)) || (!through.idx && !itself.idx);
	}
	if (ext)
		tl_facts__ext_leave(idx);
	return yes;
}

/* True when something in the calls of `idx` may set the epoch of sampler
 * `ctor`: a `.set_epoch(...)` call whose receiver is not known to be
 * another DistributedSampler (tl_check__epoch_target), a name bound to it
 * handed to a call other than a DataLoader or BatchSampler (a helper,
 * accelerate, a trainer) that may, or a function of the project that
 * sets the epoch of the loader or sampler it is handed. */
static bool tl_check__epoch_may_be_set_in(const TlIndex *idx, TlMade ctor)
{
	const TlSyms *sy = tl_syms();
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (c->method && strcmp(c->method, "set_epoch") == 0) {
			TlMade other = c->receiver.id ? tl_check__epoch_target(idx, c->receiver, 0) : (TlMade){ 0 };
			if (!other.idx || ts_node_eq(other.node, ctor.node))
				return true;
			continue;
		}
		if (c->qname && (tl_facts__qname_loader(c->qname) ||
				 (tl_facts__starts(c->qname, "torch.utils.data.") &&
				  tl_facts__ends(c->qname, ".BatchSampler"))))
			continue;
		TSNode args = tl_tree_field(c->node, sy->f_arguments);
		uint32_t count = ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list
					 ? 0 : ts_node_named_child_count(args);
		for (uint32_t k = 0; k < count; k++) {
			TSNode a = ts_node_named_child(args, k);
			if (ts_node_symbol(a) == sy->keyword_argument)
				a = tl_tree_field(a, sy->f_value);
			a = tl_index_unparen(a);
			if (ts_node_is_null(a) || (ts_node_symbol(a) != sy->identifier &&
						   ts_node_symbol(a) != sy->attribute))
				continue;
			TlMade r = tl_facts__sampler_ctor(idx, a, 0);
			/* (a DataLoader of a class of the project sets no epoch) */
			if (r.idx && ts_node_eq(r.node, ctor.node) && !tl_facts__makes_loader(idx, c))
				return true;
		}
		if (count && tl_check__epoch_set_by_callee(idx, c, ctor) && !tl_facts__makes_loader(idx, c))
			return true;
	}
	return false;
}

/* The same over the analysed file and, when the sampler is built in
 * another module of the project, over that module too. */
static bool tl_check__epoch_may_be_set(const TlIndex *idx, TlMade ctor)
{
	if (tl_check__epoch_may_be_set_in(idx, ctor))
		return true;
	if (ctor.idx == idx)
		return false;
	tl_facts__ext_enter(idx);
	bool yes = tl_check__epoch_may_be_set_in(ctor.idx, ctor);
	tl_facts__ext_leave(idx);
	return yes;
}

/* The sampler a BatchSampler(...) that `e` holds (or is) draws from. */
static TSNode tl_check__batch_sampler_source(const TlIndex *idx, TSNode e)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	for (int depth = 0; depth <= TL_FACTS_DEPTH; depth++) {
		e = tl_index_unparen(e);
		if (ts_node_is_null(e))
			return none;
		TSSymbol s = ts_node_symbol(e);
		if (s == sy->identifier || s == sy->attribute) {
			const TlBinding *b = tl_index_resolve_node(idx, e);
			if (!b || b->kind != TL_BIND_ASSIGN || b->elem >= 0)
				return none;
			e = b->value;
			continue;
		}
		const TlCall *c = s == sy->call ? tl_index_call_at(idx, e) : NULL;
		if (!c || !c->qname || !tl_facts__ends(c->qname, ".BatchSampler") ||
		    !tl_facts__starts(c->qname, "torch.utils.data."))
			return none;
		return tl_facts_argument(idx, e, "sampler");
	}
	return none;
}

bool tl_check_sampler_epoch_unset(const TlIndex *idx, TSNode iterable)
{
	bool enumerated = false;
	TSNode it = tl_facts__unwrap_iterable(idx, iterable, &enumerated);
	TlLoaders ls;
	tl_array_init(&ls.calls);
	ls.unknown = false;
	ls.budget = TL_FACTS_BUDGET;
	tl_facts__loader_source(idx, it, &ls);
	/* Every loader the iterable may be is known; one of them (the one a
	 * distributed run builds: `if dist: DataLoader(ds, sampler=
	 * DistributedSampler(ds)) else: DataLoader(ds, shuffle=True)`, as a
	 * sampler that is None outside distributed runs) draws from a
	 * shuffling DistributedSampler whose epoch nothing sets. */
	bool unset = false;
	for (uint32_t i = 0; i < ls.calls.size && !ls.unknown && !unset; i++) {
		bool ext = ls.calls.items[i].idx != idx;
		if (ext)
			tl_facts__ext_enter(idx);
		TlMade ctor = tl_check__loader_sampler(ls.calls.items[i]);
		bool shuffles = ctor.idx && tl_check__sampler_shuffles(ctor.idx, ctor.node);
		if (ext)
			tl_facts__ext_leave(idx);
		unset = shuffles && !tl_check__epoch_may_be_set(idx, ctor);
	}
	tl_array_release(&ls.calls);
	return unset;
}
