/* Keepers: helper objects that keep what a training loop hands them.
 *
 * A running-average meter (`meter.update(loss)` with `self.sum += val * n`
 * in `update`), a moving average (`self.value = d * self.value + (1 - d) *
 * val`, which chains every value into the next) or a step logger (`logger.log_step(loss)` with
 * `self.history.append(loss)`) is made once, before the loop, and called
 * once per step with that step's loss. When the loss is a graph tensor,
 * each call keeps its graph in the object for as long as the object lives:
 * the leak of `total += loss`, one call away from the loop.
 *
 * TL101 reports such a leak at the call in the step loop that hands the
 * graph tensor over (`meter.update(loss)`), where the fix belongs, also
 * when the helper's class lives in another module of the project: a
 * helper method's stores into `self` are read from its own module's index
 * (tl_facts_kept_by_callee).
 *
 * Owns: tl_facts_kept_by_callee. */
#include "facts/internal.h"

/* The parameter of function `f` that `value` is (`val`) or scales
 * (`val * n`, `n * val`, `val / n`), or NULL. */
static const TlBinding *tl_facts__param_stored(const TlIndex *idx, TSNode value, int32_t f)
{
	const TlSyms *sy = tl_syms();
	value = tl_index_unparen(value);
	if (ts_node_is_null(value))
		return NULL;
	TSNode none = { 0 };
	TSNode names[2] = { value, none };
	if (ts_node_symbol(value) == sy->binary_operator) {
		uint32_t len = 0;
		TSNode op = tl_tree_field(value, sy->f_operator);
		const char *t = ts_node_is_null(op) ? NULL : tl_index_text(idx, op, &len);
		if (!t || len != 1 || (t[0] != '*' && t[0] != '/' && t[0] != '+'))
			return NULL;
		names[0] = tl_index_unparen(tl_tree_field(value, sy->f_left));
		names[1] = t[0] == '/' ? none : tl_index_unparen(tl_tree_field(value, sy->f_right));
	}
	for (int i = 0; i < 2; i++) {
		if (ts_node_is_null(names[i]) || ts_node_symbol(names[i]) != sy->identifier)
			continue;
		const TlBinding *b = tl_index_resolve_node(idx, names[i]);
		if (b && b->kind == TL_BIND_PARAM && b->func == f)
			return b;
	}
	return NULL;
}

/* Bounds the nodes of one moving-average expression looked at. */
#define TL_KEEPERS_TERMS 64

/* What the caller of a helper's method passes for a parameter: `accept`
 * says whether it is the value asked about. */
typedef struct TlKeptArg {
	const TlIndex *idx;  /* the caller's module */
	const TlCall *call;  /* the call of the method there */
	const TlExtDef *def; /* the method */
	TSNode arg;          /* the value handed over */
} TlKeptArg;

static bool tl_facts__passes_arg(const TlKeptArg *k, const TlBinding *p)
{
	TSNode passed = tl_facts__ext_param_arg(k->idx, k->call, k->def, p->name, strlen(p->name));
	return !ts_node_is_null(passed) && ts_node_eq(tl_index_unparen(passed), k->arg);
}

/* The parameter of function `f`, for which the call `k` passes its value,
 * that arithmetic `value` combines with the attribute `target` it is
 * assigned to (`d * self.value + (1 - d) * val`), outside any call
 * (`val.item()` keeps no graph), or NULL. */
static const TlBinding *tl_facts__param_chained(const TlIndex *idx, TSNode value, TSNode target, int32_t f,
						const TlKeptArg *k)
{
	const TlSyms *sy = tl_syms();
	value = tl_index_unparen(value);
	if (ts_node_is_null(value) || ts_node_symbol(value) != sy->binary_operator)
		return NULL;
	uint32_t tlen = 0;
	const char *ttext = tl_index_text(idx, target, &tlen);
	const TlBinding *param = NULL;
	bool chained = false;
	int left = TL_KEEPERS_TERMS;
	TlWalk w;
	tl_walk_start(&w, value);
	bool descend = true;
	do {
		TSNode x = w.node;
		TSSymbol s = ts_node_symbol(x);
		descend = s != sy->call && s != sy->lambda && --left > 0;
		if (s == sy->attribute) {
			uint32_t len = 0;
			const char *t = tl_index_text(idx, x, &len);
			chained = chained || (len == tlen && memcmp(t, ttext, len) == 0);
			descend = false;
		} else if (s == sy->identifier && !param) {
			const TlBinding *b = tl_index_resolve_node(idx, x);
			if (b && b->kind == TL_BIND_PARAM && b->func == f && tl_facts__passes_arg(k, b))
				param = b;
		}
	} while (left > 0 && tl_walk_step(&w, descend));
	tl_walk_end(&w);
	return chained && left > 0 ? param : NULL;
}

/* True when a method of class `cls` returns `self.<attr>` (the running
 * total handed out: `return self.total`). */
static bool tl_facts__returns_attr(const TlIndex *idx, int32_t cls, const char *attr)
{
	const TlSyms *sy = tl_syms();
	for (uint32_t k = 0; k < idx->funcs.size; k++) {
		const TlFunc *m = &idx->funcs.items[k];
		if (m->cls != cls)
			continue;
		for (uint32_t r = 0; r < m->returns.size; r++) {
			TSNode ret = m->returns.items[r];
			TSNode v = ts_node_named_child_count(ret) ? tl_index_unparen(ts_node_named_child(ret, 0))
								  : (TSNode){ 0 };
			if (!ts_node_is_null(v) && ts_node_symbol(v) == sy->attribute &&
			    tl_index_text_is(idx, tl_tree_field(v, sy->f_object), "self") &&
			    tl_index_text_is(idx, tl_tree_field(v, sy->f_attribute), attr))
				return true;
		}
	}
	return false;
}

/* True when the file runs a backward on what attribute `attr` of class
 * `cls`'s objects holds (`acc.total.backward()`, `self.total[0].backward()`,
 * or `acc.result().backward()` where a method returns `self.total`): what
 * the object keeps is then meant for a backward (gradient accumulation), no
 * leak. */
static bool tl_facts__backward_reads_attr(const TlIndex *idx, const char *attr, bool handed_out)
{
	const TlSyms *sy = tl_syms();
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (!(c->events & TL_EV_BACKWARD))
			continue;
		TSNode r = tl_facts__backward_tensor(idx, c);
		for (int depth = 0; !ts_node_is_null(r) && depth < TL_FACTS_DEPTH; depth++) {
			r = tl_index_unparen(r);
			TSSymbol s = ts_node_symbol(r);
			if (s == sy->subscript) {
				r = tl_tree_field(r, sy->f_value);
				continue;
			}
			if (s == sy->attribute) {
				if (tl_index_text_is(idx, tl_tree_field(r, sy->f_attribute), attr))
					return true;
				break;
			}
			if (s == sy->call && handed_out)
				return true;
			break;
		}
	}
	return false;
}

/* ---- from the call's side: what a helper's method keeps of its arguments ------------- */

/* The attribute `self.<attr>` that store `n` of method `f` of `mod` adds a
 * parameter of `f` to (`self.sum += val * n`, `self.history.append(val)`),
 * copied into `attr`; that parameter's binding, or NULL. */
static const TlBinding *tl_facts__self_store(const TlIndex *mod, int32_t f, TSNode n, char *attr,
					     size_t size, const TlKeptArg *k)
{
	const TlSyms *sy = tl_syms();
	TSNode target = { 0 }, value = { 0 };
	TSSymbol s = ts_node_symbol(n);
	if (s == sy->augmented_assignment) {
		if (!tl_index_text_is(mod, tl_tree_field(n, sy->f_operator), "+="))
			return NULL;
		target = tl_index_unparen(tl_tree_field(n, sy->f_left));
		value = tl_tree_field(n, sy->f_right);
	} else if (s == sy->call) {
		const TlCall *c = tl_index_call_at(mod, n);
		if (!c || !c->method || strcmp(c->method, "append") != 0 || !c->receiver.id)
			return NULL;
		target = tl_index_unparen(c->receiver);
		value = tl_facts__arg(n, 0);
	} else if (s == sy->assignment) {
		/* self.value = d * self.value + (1 - d) * val: a moving
		 * average chains each value into the next */
		target = tl_index_unparen(tl_tree_field(n, sy->f_left));
		if (ts_node_is_null(target) || ts_node_symbol(target) != sy->attribute ||
		    tl_index_func_of(mod, n) != f || tl_index_loop_of(mod, n) >= 0)
			return NULL;
		const TlBinding *param = tl_facts__param_chained(mod, tl_tree_field(n, sy->f_right), target, f, k);
		uint32_t alen = 0;
		const char *at = param ? tl_index_text(mod, tl_tree_field(target, sy->f_attribute), &alen) : NULL;
		if (!at || !alen || alen >= size || !tl_index_text_is(mod, tl_tree_field(target, sy->f_object), "self"))
			return NULL;
		memcpy(attr, at, alen);
		attr[alen] = 0;
		return param;
	} else {
		return NULL;
	}
	if (ts_node_is_null(target) || ts_node_symbol(target) != sy->attribute ||
	    !tl_index_text_is(mod, tl_tree_field(target, sy->f_object), "self") ||
	    tl_index_func_of(mod, n) != f || tl_index_loop_of(mod, n) >= 0)
		return NULL;
	const TlBinding *param = tl_facts__param_stored(mod, value, f);
	uint32_t alen = 0;
	const char *at = tl_index_text(mod, tl_tree_field(target, sy->f_attribute), &alen);
	if (!param || !at || !alen || alen >= size)
		return NULL;
	memcpy(attr, at, alen);
	attr[alen] = 0;
	return param;
}

bool tl_facts_kept_by_callee(const TlIndex *idx, TSNode arg)
{
	const TlSyms *sy = tl_syms();
	arg = tl_index_unparen(arg);
	if (ts_node_is_null(arg))
		return false;
	TSNode list = tl_index_parent(idx, arg);
	if (!ts_node_is_null(list) && ts_node_symbol(list) == sy->keyword_argument)
		list = tl_index_parent(idx, list);
	if (ts_node_is_null(list) || ts_node_symbol(list) != sy->argument_list)
		return false;
	const TlCall *c = tl_index_call_at(idx, tl_index_parent(idx, list));
	/* A method called on an object that outlives the training step. */
	if (!c || !c->receiver.id || tl_index_text_is(idx, c->receiver, "self"))
		return false;
	/* Kept across the training step (tl_facts_kept_across_training_step):
	 * the loops first, then the callee, then the model, which interprets
	 * the file: most methods called in a training loop are no class's of
	 * the project. */
	int32_t decides = tl_facts__deciding_step_loop(idx, c->receiver);
	TlExtDef d;
	if (decides < 0 || !tl_facts__callee_def(idx, c, &d) || d.cls < 0 || d.func < 0 ||
	    !tl_facts__kept_until(idx, c->receiver, decides))
		return false;
	bool ext = d.idx != idx;
	if (ext)
		tl_facts__ext_enter(idx);
	bool kept = false;
	const TlFunc *fn = &d.idx->funcs.items[d.func];
	TlKeptArg k = { idx, c, &d, arg };
	/* A helper object: no module (a module's own state is its computation). */
	if (!d.idx->classes.items[d.cls].is_module) {
		TSNode body = tl_tree_field(fn->node, sy->f_body);
		TlWalk w;
		tl_walk_start(&w, body);
		bool descend = true;
		do {
			TSNode n = w.node;
			TSSymbol s = ts_node_symbol(n);
			descend = s != sy->function_definition && s != sy->class_definition &&
				  s != sy->lambda;
			char attr[128];
			const TlBinding *p = descend ? tl_facts__self_store(d.idx, d.func, n, attr, sizeof attr, &k)
						     : NULL;
			if (!p)
				continue;
			/* Unless what the object keeps is meant for a backward
			 * (gradient accumulation in a helper), in either module. */
			bool handed_out = tl_facts__returns_attr(d.idx, d.cls, attr);
			kept = tl_facts__passes_arg(&k, p) &&
			       !tl_facts__backward_reads_attr(d.idx, attr, handed_out) &&
			       (!ext || !tl_facts__backward_reads_attr(idx, attr, handed_out));
		} while (!kept && tl_walk_step(&w, descend));
		tl_walk_end(&w);
	}
	if (ext)
		tl_facts__ext_leave(idx);
	return kept;
}
