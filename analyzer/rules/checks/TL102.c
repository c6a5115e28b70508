/* TL102's rule logic (eval-without-no-grad). Whether a module forward may
 * record an autograd graph, the model's answer (model/requiresgrad.c);
 * whether a call of a helper evaluates a model with gradients on.
 *
 * Owns: tl_check_forward_records_graph, tl_check_eval_call_with_grad. */
#include "rules/checks/checks.h"

#include <string.h>

#include "facts/internal.h"
#include "model/model.h"

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
			   !tl_facts_reaches_backward(idx, c->node) && tl_facts_method_forward(idx, c->node) &&
			   tl_facts_mode_at(idx, c->node, subject) == TL_MODE_EVAL;
		tl_free(subject);
		return yes;
	}
	if (tl_facts_method_forward(idx, c->node)) {
		char *subject = tl_facts__mode_name(idx, c->receiver);
		bool yes = subject && tl_facts_mode_at(idx, c->node, subject) == TL_MODE_EVAL &&
			   tl_facts_grad_state(idx, c->node) != TL_GRAD_OFF &&
			   !tl_facts__in_handed_lambda(idx, c->node) &&
			   !tl_facts_reaches_backward(idx, c->node);
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
