/* TL102's rule logic (eval-without-no-grad). Whether a module forward may
 * record an autograd graph, the model's answer (model/requiresgrad.c);
 * whether a call of a helper evaluates a model with gradients on.
 *
 * Owns: tl_check_forward_records_graph, tl_check_eval_call_with_grad,
 * tl_check_reached (from facts/contexts.c); whether
 * a method called on a model runs the model's own forward (from
 * facts/effects.c, over its mode summaries). */
#include "rules/checks/checks.h"

#include <string.h>

#include "facts/internal.h"
#include "model/model.h"

/* ---- code some run reaches ----------------------------------------------- */

/* Some run reaches `node` as the model interprets its function (model
 * tl_model_unreached): not in a branch a constant decides against, not
 * after a return; true where the model does not know. */
bool tl_check_reached(const TlIndex *idx, TSNode node)
{
	return !tl_model_unreached(idx, node);
}

/* ---- methods that run the model's own forward ---------------------------- */

/* True when some call of the file may switch a module to eval mode: a
 * model that none does is never in eval mode here, so a method call on it
 * needs no look into another module (loading it costs a parse). */
static bool tl_check__eval_possible(const TlIndex *idx)
{
	TlFactsCache *fc = idx->facts_cache;
	if (fc && fc->eval_switches)
		return fc->eval_switches == 2;
	bool yes = false;
	for (uint32_t i = 0; i < idx->calls.size && !yes; i++)
		yes = ((idx->calls.items[i].events | idx->calls.items[i].callee_events) &
		       (TL_EV_EVAL | TL_EV_MODE_SET)) != 0;
	if (fc)
		fc->eval_switches = yes ? 2 : 1;
	return yes;
}

/* A method called on a module whose class the receiver's value does not
 * tell (a model handed in: `model.predict(x)`, `self.model.predict(x)`
 * with `self.model = model` in `__init__`, also a base's `__init__` that a
 * `super().__init__(config, model)` hands it): the classes the project
 * hands the parameter at its call sites (model/handedin.c: the importers'
 * `Trainer(config, model)` included). True when every argument is a module
 * of a class of the project whose method runs its object's own forward and
 * trains nothing. An argument the model knows nothing of (⊤: a model a
 * string picks through `importlib`) says nothing; one of another kind, a
 * module of no class of the project (`torch.hub.load(...)`) or a class
 * whose method runs no forward says no: the callers that are known must
 * agree, and at least one must be known. */
static bool tl_check__handed_method_forward(const TlIndex *idx, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	TSNode recv = tl_index_unparen(c->receiver);
	TSSymbol rs = ts_node_symbol(recv);
	const TlBinding *param = NULL;
	if (rs == sy->identifier) {
		param = tl_index_resolve_node(idx, recv);
	} else if (rs == sy->attribute && c->func >= 0 && idx->funcs.items[c->func].cls >= 0) {
		TSNode obj = tl_index_unparen(tl_tree_field(recv, sy->f_object));
		if (ts_node_symbol(obj) != sy->identifier || !tl_index_text_is(idx, obj, "self"))
			return false;
		char *attr = tl_facts__dotted(idx, recv);
		if (attr)
			param = tl_model_attr_param(idx, idx->funcs.items[c->func].cls, attr);
		tl_free(attr);
	}
	const TlParamArg *args;
	uint32_t n;
	if (!param || param->kind != TL_BIND_PARAM || param->func < 0 ||
	    !tl_model_param_args(idx, param, &args, &n) || !n)
		return false;
	const uint32_t trains = TL_EV_BACKWARD | TL_EV_GRAD_CALL | TL_EV_OPT_STEP;
	TlParamArg *own = tl_malloc(n * sizeof *own);
	memcpy(own, args, n * sizeof *own);
	bool all = true;
	uint32_t known = 0;
	for (uint32_t i = 0; i < n && all; i++) {
		TlVal v;
		if (!tl_model_value(own[i].mod, own[i].arg, &v) || v.kind == TL_VK_TOP)
			continue; /* nothing known of it: it says nothing */
		if (v.kind != TL_VK_MODULE || v.ref < 0) {
			all = false;
			break;
		}
		known++;
		const TlIndex *where = NULL;
		int32_t f = tl_model_method_of(&v, c->method, &where);
		const TlModeSummary *s = NULL;
		if (f >= 0 && where && where->funcs.items[f].cls >= 0 &&
		    !(where->funcs.items[f].reach_events & trains)) {
			s = tl_facts__mode_summary(where, f);
			all = s && s->forwards_self;
		} else {
			all = false;
		}
	}
	tl_free(own);
	return all && known > 0;
}

/* True when `call` (`model.incremental_forward(x)`), made from outside
 * the class, runs a method of the model's class (here or in another
 * module of the project) that runs the model's own forward with gradients
 * on and runs no backward, gradient or optimizer step: the method's mode
 * summary (facts/effects.c, tl_facts__mode_summary) says it forwards its
 * object. */
static bool tl_check__method_forward(const TlIndex *idx, TSNode call)
{
	const TlSyms *sy = tl_syms();
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!c || !c->method || !c->receiver.id || (c->events & TL_EV_FORWARD) ||
	    strcmp(c->method, "forward") == 0)
		return false;
	/* From outside the class: not `self.helper()` nor `super().helper()`. */
	TSNode recv = tl_index_unparen(c->receiver);
	TSSymbol rs = ts_node_symbol(recv);
	if (rs == sy->call || (rs == sy->identifier && tl_index_text_is(idx, recv, "self")))
		return false;
	const uint32_t trains = TL_EV_BACKWARD | TL_EV_GRAD_CALL | TL_EV_OPT_STEP;
	if (c->target >= 0) {
		const TlFunc *t = &idx->funcs.items[c->target];
		if (t->cls < 0 || (t->reach_events & trains))
			return false;
		const TlModeSummary *s = tl_facts__mode_summary(idx, c->target);
		return s && s->forwards_self;
	}
	if (!idx->imports || !tl_check__eval_possible(idx))
		return false;
	/* The receiver's class as the model knows it (a model that a builder
	 * of another module returns: `model = build_model()`), else as the
	 * imports name it. */
	TlVal v;
	const TlIndex *where = NULL;
	int32_t f = tl_model_value(idx, c->receiver, &v) ? tl_model_method_of(&v, c->method, &where) : -1;
	tl_facts__ext_enter(idx);
	TlExtDef d;
	bool yes = false;
	if (f >= 0 && where && where->funcs.items[f].cls >= 0 &&
	    !(where->funcs.items[f].reach_events & trains)) {
		const TlModeSummary *s = tl_facts__mode_summary(where, f);
		yes = s && s->forwards_self;
	} else if (f < 0 && tl_facts__ext_callee(idx, c, &d) && d.func >= 0 && d.cls >= 0 &&
		   !(d.idx->funcs.items[d.func].reach_events & trains)) {
		const TlModeSummary *s = tl_facts__mode_summary(d.idx, d.func);
		yes = s && s->forwards_self;
	} else if (f < 0) {
		yes = tl_check__handed_method_forward(idx, c);
	}
	tl_facts__ext_leave(idx);
	return yes;
}

/* ---- forwards that record a graph ---------------------------------------- */

/* The model answers (model/requiresgrad.c): the forward may record a graph
 * (the module may hold a parameter that requires grad, or an input may
 * require grad); not when that is not known (an input is the forward's own
 * parameter, which no call site in the project tells of). */
/* True when node `n` (of forward `fn`'s body) holds a `return` whose value
 * is not a call of a method of the class (`self.inference(...)`) whose
 * body runs with gradients off (`@torch.no_grad()`); *returns counts them. */
static bool tl_check__other_return(const TlIndex *mod, const TlFunc *fn, TSNode n, uint32_t *returns, int depth)
{
	const TlSyms *sy = tl_syms();
	TSSymbol s = ts_node_symbol(n);
	if (s == sy->function_definition || s == sy->class_definition || s == sy->lambda)
		return false;
	if (depth > 32 || s == sy->yield)
		return true;
	if (s == sy->return_statement) {
		(*returns)++;
		TSNode v = ts_node_named_child_count(n) ? tl_index_unparen(ts_node_named_child(n, 0)) : (TSNode){ 0 };
		const TlCall *c = !ts_node_is_null(v) && ts_node_symbol(v) == sy->call ? tl_index_call_at(mod, v) : NULL;
		if (!c || c->target < 0 || mod->funcs.items[c->target].cls != fn->cls)
			return true;
		TSNode body = tl_tree_field(mod->funcs.items[c->target].node, sy->f_body);
		return ts_node_is_null(body) || !ts_node_named_child_count(body) ||
		       tl_facts_grad_state(mod, ts_node_named_child(body, ts_node_named_child_count(body) - 1)) != TL_GRAD_OFF;
	}
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k; i++)
		if (tl_check__other_return(mod, fn, ts_node_named_child(n, i), returns, depth + 1))
			return true;
	return false;
}

/* True when the forward of the project's module class `cls` (of `mod`)
 * returns only what a method of the class computes with gradients off
 * (`return self.inference(images)` of an `@torch.no_grad()` method): its
 * call records no graph. */
static bool tl_check__forward_without_grad(const TlIndex *mod, int32_t cls)
{
	for (uint32_t f = 0; f < mod->funcs.size; f++) {
		const TlFunc *fn = &mod->funcs.items[f];
		if (fn->cls != cls || strcmp(fn->name, "forward") != 0)
			continue;
		TSNode body = tl_tree_field(fn->node, tl_syms()->f_body);
		uint32_t returns = 0;
		return !ts_node_is_null(body) && !tl_check__other_return(mod, fn, body, &returns, 0) && returns > 0;
	}
	return false;
}

bool tl_check_forward_records_graph(const TlIndex *idx, TSNode call)
{
	if (tl_model_forward_graph(idx, call) != 1)
		return false;
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	TlVal mv;
	bool fwd = c && c->method && c->receiver.id && strcmp(c->method, "forward") == 0;
	if (c && tl_model_value(idx, fwd ? c->receiver : c->callee, &mv) && mv.kind == TL_VK_MODULE && mv.ref >= 0 &&
	    mv.mod && tl_check__forward_without_grad((const TlIndex *)mv.mod, mv.ref))
		return false;
	return true;
}

bool tl_check_eval_call_with_grad(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!c || (c->events & TL_EV_FORWARD))
		return false;
	/* model.incremental_forward(x): a method of the model's class (here
	 * or in another module) that runs the model's own forward, on a
	 * model in eval mode (facts/effects.c). A method of no class of this
	 * module asks the semantic model for the receiver's class: its other
	 * conditions come first (the answer is the same; without a target,
	 * the path below answers no), the mode (the model's, resolved over
	 * the call sites) last. */
	if (c->target < 0) {
		char *subject = c->receiver.id ? tl_facts__mode_name(idx, c->receiver) : NULL;
		bool yes = subject && tl_facts_grad_state(idx, c->node) != TL_GRAD_OFF &&
			   !tl_facts__in_handed_lambda(idx, c->node) &&
			   !tl_facts_reaches_backward(idx, c->node) && tl_check__method_forward(idx, c->node) &&
			   tl_facts_mode_at(idx, c->node, subject) == TL_MODE_EVAL &&
			   tl_model_method_graph(idx, c->node) != 0;
		tl_free(subject);
		return yes;
	}
	if (tl_check__method_forward(idx, c->node)) {
		char *subject = tl_facts__mode_name(idx, c->receiver);
		bool yes = subject && tl_facts_mode_at(idx, c->node, subject) == TL_MODE_EVAL &&
			   tl_facts_grad_state(idx, c->node) != TL_GRAD_OFF &&
			   !tl_facts__in_handed_lambda(idx, c->node) &&
			   !tl_facts_reaches_backward(idx, c->node) && tl_model_method_graph(idx, c->node) != 0;
		tl_free(subject);
		return yes;
	}
	if (c->target < 0 || c->target == c->func)
		return false;
	int32_t f = c->target;
	/* A model's own methods (of a class deriving from nn.Module, or a
	 * forward() over an imported base: `self.forward(x)`) are part of the
	 * model, not helpers of a training script: their forwards are judged
	 * where the model runs. */
	int32_t cls = idx->funcs.items[f].cls;
	if (cls >= 0 && (idx->classes.items[cls].is_module ||
			 strcmp(idx->funcs.items[f].name, "forward") == 0))
		return false;
	/* Only a forward in the callee's own body can be one (the loop below):
	 * without any, the costlier questions need not be asked. */
	const TlIntArray *calls = tl_index_scope_calls(idx, f);
	bool forwards = false;
	for (uint32_t i = 0; calls && i < calls->size && !forwards; i++)
		forwards = (idx->calls.items[calls->items[i]].events & TL_EV_FORWARD) != 0;
	if (!forwards)
		return false;
	/* On the evaluation path: nothing backpropagates what the call
	 * returns (a training step that calls it is TL203's concern). */
	if ((idx->funcs.items[f].decorator_ctx & TL_CTX_GRAD_OFF) ||
	    tl_facts_grad_state(idx, c->node) == TL_GRAD_OFF ||
	    tl_facts_reaches_backward(idx, c->node))
		return false;
	bool found = false;
	tl_facts__fan_begin();
	for (uint32_t i = 0; calls && i < calls->size && !found; i++) {
		const TlCall *fw = &idx->calls.items[calls->items[i]];
		if (!(fw->events & TL_EV_FORWARD) ||
		    tl_facts__runs_at(idx, fw->node, f, c) == TL_RUNS_NEVER ||
		    tl_model_grad_local(idx, fw->node) == TL_MODEL_GRAD_OFF)
			continue;
		char *name = tl_facts__forward_subject(idx, fw);
		int mode = name ? tl_facts__mode_from(idx, fw->node, name, c) : TL_MODE_UNKNOWN;
		/* Reported at the forward itself when every caller agrees (or
		 * some caller's constants put the model in eval mode there,
		 * the query's first pattern) and nothing backpropagates it. */
		int at = mode == TL_MODE_EVAL && name ? tl_facts_mode_at(idx, fw->node, name) : TL_MODE_UNKNOWN;
		bool own = mode == TL_MODE_EVAL && name &&
			   (at == TL_MODE_EVAL ||
			    (at == TL_MODE_UNKNOWN && tl_facts_mode_eval_in_context(idx, fw->node, name))) &&
			   !tl_facts_reaches_backward(idx, fw->node);
		tl_free(name);
		found = mode == TL_MODE_EVAL && !own && !tl_facts__reaches_at(idx, fw->node, c);
	}
	tl_facts__fan_end();
	return found;
}
