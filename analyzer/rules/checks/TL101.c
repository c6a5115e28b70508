/* TL101's rule logic (kept-by-callee). Keepers: helper objects that keep
 * what a training loop hands them.
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
 * when the helper's class lives in another module of the project: what a
 * helper method keeps of each parameter in `self` is a field of its
 * summary in the semantic model (model/keeps.c, tl_model_kept_attr); the
 * conditions on the loop and on a backward that reads what is kept are
 * this file's (tl_check_kept_by_callee).
 *
 * Owns: tl_check_kept_by_callee. */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

/* A call of a helper's method and the argument asked about. */
typedef struct TlKeptArg {
	const TlIndex *idx;  /* the caller's module */
	const TlCall *call;  /* the call of the method there */
	const TlExtDef *def; /* the method */
	TSNode arg;          /* the value handed over */
} TlKeptArg;

static bool tl_check__passes_arg(const TlKeptArg *k, const TlBinding *p)
{
	TSNode passed = tl_facts__ext_param_arg(k->idx, k->call, k->def, p->name, strlen(p->name));
	return !ts_node_is_null(passed) && ts_node_eq(tl_index_unparen(passed), k->arg);
}

/* True when a method of class `cls` returns `self.<attr>` (the running
 * total handed out: `return self.total`). */
static bool tl_check__returns_attr(const TlIndex *idx, int32_t cls, const char *attr)
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
static bool tl_check__backward_reads_attr(const TlIndex *idx, const char *attr, bool handed_out)
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

bool tl_check_kept_by_callee(const TlIndex *idx, TSNode arg)
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
		/* The parameter the argument is handed to, and the attribute of
		 * `self` the method's summary keeps it in. */
		const char *attr = NULL;
		for (uint32_t i = 0; i < fn->params.size && i < 16 && !attr; i++) {
			const TlBinding *p = &d.idx->bindings.items[fn->params.items[i]];
			if (p->name && tl_check__passes_arg(&k, p))
				attr = tl_model_kept_attr(d.idx, d.func, i);
		}
		/* Unless what the object keeps is meant for a backward
		 * (gradient accumulation in a helper), in either module. */
		if (attr) {
			bool handed_out = tl_check__returns_attr(d.idx, d.cls, attr);
			kept = !tl_check__backward_reads_attr(d.idx, attr, handed_out) &&
			       (!ext || !tl_check__backward_reads_attr(idx, attr, handed_out));
		}
	}
	if (ext)
		tl_facts__ext_leave(idx);
	return kept;
}
