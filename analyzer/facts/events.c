/* Iteration events: what one call does to training (forward, backward, optimizer
 * step, gradient reset, mode change, ...) and the events of an iteration in
 * program order, local calls expanded.
 *
 * Owns: tl_facts_call_events, the TL_EV_* of calls, the ordered steps of an iteration. */
#include "facts/internal.h"

#include <stdio.h>

/* ---- what a backward consumes ------------------------------------------------ */

/* The tensor a backward call differentiates, for the forms where the call
 * shows it (`x.backward()`, `torch.autograd.backward(x)`); null for
 * wrappers that take the loss as an argument (`accelerator.backward(loss)`),
 * whose scaling the wrapper handles. */
TSNode tl_facts__backward_tensor(const TlIndex *idx, const TlCall *c)
{
	TSNode none = { 0 };
	if (c->qname && strcmp(c->qname, "torch.autograd.backward") == 0)
		return tl_facts__arg(c->node, 0);
	if (!c->receiver.id || !c->method || strcmp(c->method, "backward") != 0)
		return none;
	if (c->recv_name) {
		char low[128];
		tl_facts__lower(tl_facts__last(c->recv_name), low, sizeof low);
		if (strstr(low, "accelerator") || strstr(low, "fabric") || strstr(low, "engine") ||
		    strcmp(low, "self") == 0 || strcmp(low, "trainer") == 0)
			return none;
	}
	return c->receiver;
}

/* ---- events ------------------------------------------------------------------ */

/* Gradient clipping that reads the .grad tensors as they are:
 * torch.nn.utils.clip_grad_norm_ / clip_grad_value_ (the table's set
 * clip-grad, read of the row torch.nn.utils.<last part>, for the
 * spellings of the clip_grad submodule), and clamp_ on a `.grad`.
 * Wrappers that unscale first (accelerator.clip_grad_norm_) are no
 * torch.nn.utils call and do not count. */
static bool tl_facts__grad_clip(const TlCall *c)
{
	if (c->qname && tl_facts__starts(c->qname, "torch.nn.utils.")) {
		char row[128];
		int n = snprintf(row, sizeof row, "torch.nn.utils.%s", tl_facts__last(c->qname));
		if (n > 0 && (size_t)n < sizeof row && (tl_api_qualified_sets(row) & TL_APIS_CLIP_GRAD))
			return true;
	}
	return c->method && c->receiver.id && c->recv_name &&
	       (strcmp(c->method, "clamp_") == 0 || strcmp(c->method, "clip_") == 0) &&
	       (tl_facts__ends(c->recv_name, ".grad") || tl_facts__ends(c->recv_name, ".grad.data"));
}

/* `trainer.train(loader)` on an object of a local class that is no module,
 * whose `train` (or `eval`) a base class in another module of the project
 * defines: that method, not a module's mode switch (what it does comes
 * from that module, facts/imports.c). */
static bool tl_facts__inherited_user_method(const TlIndex *idx, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	if (!idx->imports || c->target >= 0 || !c->receiver.id)
		return false;
	TSNode r = tl_index_unparen(c->receiver);
	if (ts_node_symbol(r) != sy->identifier)
		return false;
	const TlBinding *b = tl_index_resolve_node(idx, r);
	TSNode v = b && b->kind == TL_BIND_ASSIGN && b->elem < 0 ? tl_index_unparen(b->value)
								: (TSNode){ { 0 }, NULL, NULL };
	const TlCall *ctor = !ts_node_is_null(v) && ts_node_symbol(v) == sy->call ? tl_index_call_at(idx, v)
									       : NULL;
	const TlBinding *cb = ctor ? tl_index_resolve_node(idx, ctor->callee) : NULL;
	return cb && cb->kind == TL_BIND_CLASS && !idx->classes.items[cb->ref].is_module &&
	       tl_facts__class_has_method(idx, cb->ref, c->method);
}

uint32_t tl_facts_call_events(const TlIndex *idx, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	uint32_t ev = 0;
	const char *m = c->method;
	/* A method of a local class that is no module does what its body does
	 * (its events come through the call graph), whatever its name. */
	bool has_recv = c->receiver.id != NULL && !tl_facts__user_method(idx, c);
	/* Distributed autograd keeps gradients per context, not in .grad:
	 * dist_autograd.backward(ctx, [loss]) accumulates nothing. */
	bool dist_autograd = c->qname && tl_facts__starts(c->qname, "torch.distributed.autograd.");
	if (m && has_recv) {
		bool on_grad = c->recv_name && (tl_facts__ends(c->recv_name, ".grad") ||
						tl_facts__ends(c->recv_name, ".grad.data"));
		if ((strcmp(m, "backward") == 0 || strcmp(m, "manual_backward") == 0) && !dist_autograd) {
			ev |= TL_EV_BACKWARD;
			TSNode t = tl_facts__backward_tensor(idx, c);
			if (!ts_node_is_null(t)) {
				const TlCall *p = tl_facts__producer(idx, t);
				if (p && tl_facts__scaled_call(idx, p))
					ev |= TL_EV_SCALED_BACKWARD;
				else if (!(p && p->method && strcmp(p->method, "scale") == 0 &&
					   p->receiver.id && tl_facts_is_scaler(idx, p->receiver)))
					ev |= TL_EV_UNSCALED_BACKWARD; /* a disabled scaler's is neither */
			}
		} else if (strcmp(m, "zero_grad") == 0) {
			ev |= TL_EV_GRAD_RESET;
		} else if ((strcmp(m, "zero_") == 0 || strcmp(m, "detach_") == 0) && on_grad) {
			ev |= TL_EV_GRAD_RESET;
		} else if (strcmp(m, "detach_") == 0) {
			ev |= TL_EV_DETACH;
		} else if (strcmp(m, "step") == 0) {
			if (tl_facts_is_scaler(idx, c->receiver))
				ev |= TL_EV_OPT_STEP | (tl_facts__scaler_disabled(idx, c->receiver)
								? 0 : TL_EV_SCALER_STEP);
			else if (tl_facts_is_optimizer(idx, c->receiver))
				/* In a scaler stand-in's method, the step is how that
				 * scaler steps: no bypass of it. */
				ev |= TL_EV_OPT_STEP | (tl_facts_in_scaler_class(idx, c->node)
								? 0 : TL_EV_PLAIN_STEP);
		} else if (strcmp(m, "update") == 0 && tl_facts_is_scaler(idx, c->receiver)) {
			if (!tl_facts__scaler_disabled(idx, c->receiver))
				ev |= TL_EV_SCALER_UPDATE;
		} else if (strcmp(m, "unscale_") == 0 && tl_facts_is_scaler(idx, c->receiver)) {
			ev |= TL_EV_SCALER_UNSCALE;
		} else if ((strcmp(m, "eval") == 0 || strcmp(m, "train") == 0) &&
			   tl_facts__inherited_user_method(idx, c)) {
			/* the project's own method of that name */
		} else if (strcmp(m, "eval") == 0 && tl_facts__argc(c->node) == 0) {
			ev |= TL_EV_EVAL;
		} else if (strcmp(m, "train") == 0) {
			TSNode a = tl_facts__arg(c->node, 0);
			if (ts_node_is_null(a))
				a = tl_facts__kwarg(idx, c->node, "mode");
			if (ts_node_is_null(a) || ts_node_symbol(a) == sy->true_)
				ev |= TL_EV_TRAIN;
			else if (ts_node_symbol(a) == sy->false_)
				ev |= TL_EV_EVAL;
			else
				ev |= TL_EV_MODE_SET;
		}
	}
	/* zero_grad(params): a helper from another module (improved-diffusion's
	 * fp16_util) that says what it does. */
	if (m && !has_recv && strcmp(m, "zero_grad") == 0 && c->target < 0)
		ev |= TL_EV_GRAD_RESET;
	if (c->qname && strcmp(c->qname, "torch.autograd.backward") == 0) {
		ev |= TL_EV_BACKWARD;
		const TlCall *p = tl_facts__producer(idx, tl_facts__arg(c->node, 0));
		ev |= (p && tl_facts__scaled_call(idx, p)) ? TL_EV_SCALED_BACKWARD
									 : TL_EV_UNSCALED_BACKWARD;
	}
	if (c->qname && strcmp(c->qname, "torch.autograd.grad") == 0)
		ev |= TL_EV_GRAD_CALL;
	if (tl_facts__grad_clip(c))
		ev |= TL_EV_GRAD_CLIP;
	if (tl_facts_is_loss_call(idx, c))
		ev |= TL_EV_LOSS;
	else if (tl_facts_is_forward(idx, c))
		ev |= TL_EV_FORWARD;
	return ev;
}

/* ---- an iteration in order ----------------------------------------------------------- */

/* Calls and sites of function `func` (-1: module) inside `range`, in source
 * order. */
static void tl_facts__range_items(const TlIndex *idx, int32_t func, TSNode range, TlSteps *out)
{
	uint32_t start = ts_node_start_byte(range), end = ts_node_end_byte(range);
	const TlIntArray *calls = tl_index_scope_calls(idx, func);
	uint32_t ncalls = calls ? calls->size : 0;
	/* Both lists are in source order: start at the range by binary search
	 * and stop at its end (a scan from the scope's start made each question
	 * cost the scope's size: quadratic in a long module). */
	uint32_t k = 0, hi = ncalls;
	while (k < hi) {
		uint32_t mid = k + (hi - k) / 2;
		if (ts_node_start_byte(idx->calls.items[calls->items[mid]].node) < start)
			k = mid + 1;
		else
			hi = mid;
	}
	uint32_t i = 0;
	hi = idx->sites.size;
	while (i < hi) {
		uint32_t mid = i + (hi - i) / 2;
		if (ts_node_start_byte(idx->sites.items[mid].node) < start)
			i = mid + 1;
		else
			hi = mid;
	}
	for (;;) {
		while (k < ncalls && ts_node_start_byte(idx->calls.items[calls->items[k]].node) < end &&
		       ts_node_end_byte(idx->calls.items[calls->items[k]].node) > end)
			k++;
		while (i < idx->sites.size && ts_node_start_byte(idx->sites.items[i].node) < end &&
		       (idx->sites.items[i].func != func || ts_node_end_byte(idx->sites.items[i].node) > end))
			i++;
		const TlCall *c = k < ncalls && ts_node_start_byte(idx->calls.items[calls->items[k]].node) < end
					  ? &idx->calls.items[calls->items[k]] : NULL;
		const TlSite *st = i < idx->sites.size && ts_node_start_byte(idx->sites.items[i].node) < end
					   ? &idx->sites.items[i] : NULL;
		if (!c && !st)
			break;
		TlStep item;
		if (c && (!st || ts_node_start_byte(c->node) <= ts_node_start_byte(st->node))) {
			item = (TlStep){ c, c->node, c->events, c->node };
			k++;
		} else {
			item = (TlStep){ NULL, st->node, st->events, st->node };
			i++;
		}
		tl_array_push(out, item);
	}
}

/* The calls and sites of `range` (a loop body or a function body) of
 * function `func` that do something in `mask`, in execution order as far as
 * source order tells: the calls of a local function (and of a closure passed
 * to a call) are expanded where it is called, each function once, at most
 * TL_FACTS_DEPTH calls deep. */
void tl_facts__sequence(const TlIndex *idx, int32_t func, TSNode range, uint32_t mask,
			      TlSteps *out)
{
	typedef struct {
		TlSteps items;
		uint32_t next;
		TSNode anchor; /* null in the outermost frame */
		int32_t func;  /* the local function the frame runs, -1 for the range */
	} Frame;
	TlArray(Frame) stack;
	tl_array_init(&stack);
	/* on_stack: a function being run (no recursion); expanded: run once
	 * already. A helper called twice in one iteration (a two-pass step
	 * calling `backward_on(batch)` twice) runs twice, until the budget of
	 * frames is spent; then each function runs once, which bounds the
	 * work whatever the call graph's fan-out. */
	bool *on_stack = tl_calloc(idx->funcs.size + 1, sizeof *on_stack);
	bool *expanded = tl_calloc(idx->funcs.size + 1, sizeof *expanded);
	uint32_t frames = 0;
	if (func >= 0)
		on_stack[func] = expanded[func] = true;
	Frame first;
	memset(&first, 0, sizeof first);
	first.func = -1;
	tl_facts__range_items(idx, func, range, &first.items);
	tl_array_push(&stack, first);
	while (stack.size) {
		Frame *fr = tl_array_last(&stack);
		if (fr->next >= fr->items.size) {
			if (fr->func >= 0)
				on_stack[fr->func] = false;
			tl_array_release(&fr->items);
			stack.size--;
			continue;
		}
		TlStep it = fr->items.items[fr->next++];
		TSNode anchor = ts_node_is_null(fr->anchor) ? it.node : fr->anchor;
		if (it.events & mask) {
			TlStep e = it;
			e.anchor = anchor;
			tl_array_push(out, e);
		}
		if (it.call && (it.call->callee_events & mask)) {
			/* A function of another module runs here: what it
			 * does, at the call (no call of this file does it). */
			TlStep e = { NULL, it.node, it.call->callee_events & mask, anchor };
			tl_array_push(out, e);
		}
		if (!it.call || stack.size > TL_FACTS_DEPTH)
			continue;
		/* A call of a local function runs it; a closure passed along
		 * (opt.step(closure)) is run by the callee. */
		bool again = frames < TL_FACTS_BUDGET / 8;
		int32_t f = it.call->target;
		if (f < 0 || on_stack[f] || (expanded[f] && !again) ||
		    !(idx->funcs.items[f].reach_events & mask))
			f = it.call->arg_target;
		if (f < 0 || on_stack[f] || (expanded[f] && !again) ||
		    !(idx->funcs.items[f].reach_events & mask))
			continue;
		on_stack[f] = expanded[f] = true;
		frames++;
		Frame sub;
		memset(&sub, 0, sizeof sub);
		sub.anchor = anchor;
		sub.func = f;
		tl_facts__range_items(idx, f, idx->funcs.items[f].node, &sub.items);
		tl_array_push(&stack, sub);
	}
	tl_free(on_stack);
	tl_free(expanded);
	tl_array_release(&stack);
}
