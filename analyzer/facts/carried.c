/* Carried state: values that cross iterations (recurrent state) and graphs
 * backpropagated more than once. Whether a loop carries a path, and what
 * its iteration stores into it, is the semantic model's (model/carry.c,
 * tl_model_carried); what a value's history is, too. The def-use walk of a
 * backward's subject (which names it reads, through the iteration's
 * bindings, a helper's call sites, what a loop iterates) stays here.
 *
 * Owns: tl_facts_carried_state, tl_facts_graph_reused, tl_facts_graph_carried. */
#include "model/model.h"
#include "facts/internal.h"

/* ---- values carried across iterations --------------------------------------------- */

/* The argument of the call assigned by `stmt` that reads the same path as
 * `target` (`h` of `out, h = rnn(x, h)`, `(h, c)`'s parts), or null. */
static TSNode tl_facts__state_arg(const TlIndex *idx, TSNode stmt, TSNode target)
{
	const TlSyms *sy = tl_syms();
	TSNode v = tl_index_unparen(tl_tree_field(stmt, sy->f_right));
	TSNode args = ts_node_is_null(v) || ts_node_symbol(v) != sy->call ? (TSNode){ 0 } : tl_tree_field(v, sy->f_arguments);
	uint32_t tlen = 0;
	const char *t = tl_index_text(idx, target, &tlen);
	TSNode todo[16];
	uint32_t n = 0;
	if (!ts_node_is_null(args))
		todo[n++] = args;
	while (n && t) {
		TSNode x = todo[--n];
		uint32_t nc = ts_node_named_child_count(x);
		for (uint32_t i = 0; i < nc; i++) {
			TSNode a = tl_index_unparen(ts_node_named_child(x, i));
			TSSymbol s = ts_node_symbol(a);
			uint32_t len = 0;
			const char *at = tl_index_text(idx, a, &len);
			if ((s == sy->identifier || s == sy->attribute) && len == tlen && memcmp(at, t, len) == 0)
				return a;
			if (s == sy->tuple && ts_node_eq(x, args) && n < 16)
				todo[n++] = a;
		}
	}
	return (TSNode){ 0 };
}

/* The graph of `v`, or of a container's elements (containers in it
 * looked through). */
static unsigned tl_facts__history(const TlIndex *idx, const TlVal *v)
{
	const TlModel *m = v->kind == TL_VK_CONTAINER ? tl_model_of(idx) : NULL;
	if (!m)
		return v->graph;
	TlVal e = *v;
	for (int depth = 0; depth <= TL_VAL_NEST && e.kind == TL_VK_CONTAINER; depth++)
		e = tl_val_element(tl_model_pool(m), &e);
	return e.kind == TL_VK_CONTAINER ? TL_VG_UNKNOWN : e.graph;
}

/* The model's answer (model/model.h: tl_model_carried): the step loop
 * carries the target's path into its next iteration, no store in its
 * iteration gives the path a value without history, the value an
 * iteration hands on has history (on some paths: an inner loop may not
 * run), and so has the value the statement's call reads for it. */
static int tl_facts__carried_model(const TlIndex *idx, TSNode target, TSNode stmt, const TlLoop *l)
{
	TlCarryInfo ci;
	if (tl_model_carried(idx, l->node, target, &ci) != 1 || !ci.stored)
		return TL_CARRY_NONE;
	if (ci.detached)
		return TL_CARRY_DETACHED;
	unsigned g = tl_facts__history(idx, &ci.val);
	if (g != TL_VG_MUST && g != TL_VG_MAY)
		return TL_CARRY_NONE;
	TSNode arg = tl_facts__state_arg(idx, stmt, target);
	TlVal a;
	if (!ts_node_is_null(arg) && tl_model_value(idx, arg, &a)) {
		unsigned ga = tl_facts__history(idx, &a);
		if (ga != TL_VG_MUST && ga != TL_VG_MAY)
			return ga == TL_VG_NONE ? TL_CARRY_DETACHED : TL_CARRY_NONE;
	}
	return TL_CARRY_ATTACHED;
}

int tl_facts_carried_state(const TlIndex *idx, TSNode target)
{
	const TlSyms *sy = tl_syms();
	TSNode stmt = target;
	while (!ts_node_is_null(stmt) && ts_node_symbol(stmt) != sy->assignment &&
	       ts_node_symbol(stmt) != sy->augmented_assignment)
		stmt = tl_index_parent(idx, stmt);
	if (ts_node_is_null(stmt))
		return TL_CARRY_NONE;
	int32_t loop = tl_index_loop_of(idx, stmt);
	while (loop >= 0 && !(idx->loops.items[loop].events & TL_EV_BACKWARD))
		loop = idx->loops.items[loop].parent;
	if (loop < 0 || tl_facts_grad_state(idx, stmt) == TL_GRAD_OFF)
		return TL_CARRY_NONE;
	return tl_facts__carried_model(idx, target, stmt, &idx->loops.items[loop]);
}

/* ---- graphs backpropagated more than once -------------------------------------- */

/* True when some call inside `v` does one of `events`. */
static bool tl_facts__value_has(const TlIndex *idx, TSNode v, uint32_t events)
{
	for (uint32_t i = tl_index_first_call_from(idx, ts_node_start_byte(v)); i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (ts_node_start_byte(c->node) >= ts_node_end_byte(v))
			break;
		if ((c->events & events) && tl_facts__contains(v, c->node))
			return true;
	}
	return false;
}

/* True when `v` (non-null) holds a call: a computed value. */
static bool tl_facts__value_calls(const TlIndex *idx, TSNode v)
{
	if (ts_node_is_null(v))
		return false;
	uint32_t i = tl_index_first_call_from(idx, ts_node_start_byte(v));
	return i < idx->calls.size && tl_facts__contains(v, idx->calls.items[i].node);
}

/* True when `x` is cut into pieces where it is read: the value of a
 * subscript (`outs[i]`), or the receiver of unbind / split / chunk. */
static bool tl_facts__sliced(const TlIndex *idx, TSNode x)
{
	const TlSyms *sy = tl_syms();
	TSNode p = tl_index_parent(idx, x);
	if (ts_node_is_null(p))
		return false;
	if (ts_node_symbol(p) == sy->subscript)
		return ts_node_eq(tl_tree_field(p, sy->f_value), x);
	if (ts_node_symbol(p) != sy->attribute || !ts_node_eq(tl_tree_field(p, sy->f_object), x))
		return false;
	static const char *const pieces[] = { "unbind", "split", "chunk", "tensor_split" };
	uint32_t len = 0;
	const char *t = tl_index_text(idx, tl_tree_field(p, sy->f_attribute), &len);
	for (size_t i = 0; i < sizeof pieces / sizeof *pieces; i++)
		if (strlen(pieces[i]) == len && memcmp(pieces[i], t, len) == 0)
			return true;
	return false;
}

/* True when the name bound by `b` (read at `use`) holds autograd history
 * made where it was bound: a graph tensor, a value built from losses or
 * forwards (`[crit(o, t) for ...]`), or a list that graph tensors are
 * appended to. */
static bool tl_facts__holds_graph(const TlIndex *idx, const TlBinding *b, TSNode use)
{
	if (tl_facts_is_graph(idx, use) || tl_facts_holds_graph(idx, use))
		return true;
	TSNode v = tl_facts__bound_value(b);
	if (!ts_node_is_null(v) && tl_facts__value_has(idx, v, TL_EV_LOSS | TL_EV_FORWARD))
		return true;
	const TlIntArray *calls = tl_index_scope_calls(idx, b->func);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (c->recv_name && strcmp(c->recv_name, b->name) == 0 && c->method &&
		    (strcmp(c->method, "append") == 0 || strcmp(c->method, "extend") == 0) &&
		    tl_facts_is_graph(idx, tl_facts__arg(c->node, 0)))
			return true;
	}
	return false;
}

/* True when a parameter of a function may hold a graph tensor: some caller
 * passes one, or the callers are unknown (precision first). */
static bool tl_facts__param_graph(const TlIndex *idx, const TlBinding *b)
{
	if (b->func < 0)
		return true;
	const TlFunc *f = &idx->funcs.items[b->func];
	if (f->escapes || !f->call_sites.size)
		return true;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		TSNode arg = tl_facts__param_arg_of(idx, b, c);
		if (!ts_node_is_null(arg) && (tl_facts_is_graph(idx, arg) || tl_facts_holds_graph(idx, arg)))
			return true;
	}
	return false;
}

/* The model's answer (model/model.h: tl_model_carried): loop `l` carries
 * the path read at `use` into its next iteration with history (on some
 * paths), and no store in its iteration detaches it. */
static bool tl_facts__carried_graph_model(const TlIndex *idx, const TlLoop *l, TSNode use)
{
	TlCarryInfo ci;
	if (tl_model_carried(idx, l->node, use, &ci) != 1 || !ci.stored || ci.detached)
		return false;
	unsigned g = tl_facts__history(idx, &ci.val);
	return g == TL_VG_MUST || g == TL_VG_MAY;
}

/* True when the model knows call `x`'s value has no history (its graph,
 * or a container's elements', is none). */
static bool tl_facts__detached_model(const TlIndex *idx, TSNode x)
{
	TlVal v;
	return tl_model_value(idx, x, &v) && tl_facts__history(idx, &v) == TL_VG_NONE && !v.pgraph;
}

/* True when every call of the function that parameter `b` belongs to sits
 * in the body of loop `l` (in its function) and passes an argument for it
 * that is no parameter of that function. */
static bool tl_facts__args_in_loop(const TlIndex *idx, const TlBinding *b, const TlLoop *l)
{
	const TlFunc *f = &idx->funcs.items[b->func];
	if (f->escapes || !f->call_sites.size)
		return false;
	for (uint32_t k = 0; k < f->call_sites.size; k++) {
		const TlCall *site = &idx->calls.items[f->call_sites.items[k]];
		if (site->func != l->func || !tl_facts__contains(l->body, site->node))
			return false;
		TSNode arg = tl_facts__param_arg_of(idx, b, site);
		if (ts_node_is_null(arg))
			return false;
	}
	return true;
}

/* True when local function `func` is called only from the body of loop
 * `l` (in l's function): its own values are made in the iteration. */
static bool tl_facts__called_in_loop(const TlIndex *idx, int32_t func, const TlLoop *l)
{
	if (func < 0 || func == l->func)
		return false;
	const TlFunc *f = &idx->funcs.items[func];
	if (f->escapes || !f->call_sites.size)
		return false;
	for (uint32_t k = 0; k < f->call_sites.size; k++) {
		const TlCall *site = &idx->calls.items[f->call_sites.items[k]];
		if (site->func != l->func || !tl_facts__contains(l->body, site->node))
			return false;
	}
	return true;
}

/* True when subscript `x`, in helper `func` that a loop of another
 * function calls, reads an element out of a store the helper is handed or
 * its object holds (`activations[i][j][k]` of a parameter, `self.saved[k]`):
 * a value stored by an earlier call, whose graph an earlier or later call
 * may backpropagate too (a pipeline schedule's saved micro-batch outputs).
 * The innermost container is what is judged. */
static bool tl_facts__stored_element(const TlIndex *idx, TSNode x, int32_t func)
{
	const TlSyms *sy = tl_syms();
	TSNode v = x;
	for (int depth = 0; depth <= TL_FACTS_DEPTH && ts_node_symbol(v) == sy->subscript; depth++)
		v = tl_index_unparen(tl_tree_field(v, sy->f_value));
	if (ts_node_is_null(v))
		return false;
	TSSymbol s = ts_node_symbol(v);
	if (s == sy->attribute) {
		TSNode o = tl_index_unparen(tl_tree_field(v, sy->f_object));
		return !ts_node_is_null(o) && ts_node_symbol(o) == sy->identifier &&
		       tl_index_text_is(idx, o, "self");
	}
	if (s != sy->identifier)
		return false;
	const TlBinding *b = tl_index_resolve_node(idx, v);
	return b && b->kind == TL_BIND_PARAM && b->func == func && func >= 0;
}

/* True when the tensor `subject`, differentiated in loop `l` (or, when `l`
 * is NULL, in function `func`), depends on autograd history made before
 * the iteration began: the next iteration backpropagates through it again. */
static bool tl_facts__graph_from_before(const TlIndex *idx, TSNode subject, const TlLoop *l,
				       int32_t func, bool *carried)
{
	const TlSyms *sy = tl_syms();
	typedef struct {
		TSNode n;
		bool iterable; /* iterated by a loop: a parameter here is data */
	} Item;
	TlArray(Item) todo;
	tl_array_init(&todo);
	Item first = { subject, false };
	tl_array_push(&todo, first);
	bool before = false;
	for (uint32_t step = 0; step < todo.size && !before; step++) {
		Item it = todo.items[step];
		TSTreeCursor cur = ts_tree_cursor_new(it.n);
		bool descend = true;
		do {
			TSNode x = ts_tree_cursor_current_node(&cur);
			TSSymbol s = ts_node_symbol(x);
			descend = true;
			if (s == sy->call && tl_facts__detached_model(idx, x)) {
				descend = false; /* h.detach(), repackage_hidden(h): no history */
				continue;
			}
			if (s == sy->keyword_argument) {
				x = tl_tree_field(x, sy->f_value);
				if (ts_node_is_null(x))
					continue;
				s = ts_node_symbol(x);
			}
			if (s != sy->identifier && s != sy->attribute)
				continue;
			descend = false;
			/* A name a comprehension binds changes per element; any
			 * other name in it (`[outs[i] for i in ...]`) is the
			 * value from outside. */
			if (tl_facts__in_comprehension(idx, x, it.n) &&
			    (s != sy->identifier || tl_facts__comprehension_local(idx, x)))
				continue;
			if (tl_facts__is_callee(idx, x)) {
				/* x.view(...), h[0].pow(2).mean(): a method of a value,
				 * whose receiver is data; model(x), F.mse_loss(...),
				 * helper(...): what is called is not. */
				const TlCall *pc = tl_index_call_at(idx, tl_index_parent(idx, x));
				/* self.decoder(z): a method of the object itself. */
				bool own = pc && pc->receiver.id && pc->recv_name &&
					   strcmp(pc->recv_name, "self") == 0;
				if (s == sy->attribute && pc && pc->receiver.id && !pc->qname && !own &&
				    pc->target < 0 && !(pc->events & (TL_EV_FORWARD | TL_EV_LOSS)) &&
				    todo.size < 64) {
					Item next = { pc->receiver, it.iterable };
					tl_array_push(&todo, next);
				}
				continue;
			}
			const TlBinding *b = tl_facts__resolve_prefix(idx, x);
			if (!b || b->kind == TL_BIND_IMPORT || b->kind == TL_BIND_DEF ||
			    b->kind == TL_BIND_CLASS)
				continue;
			if (b->kind == TL_BIND_ASSIGN && b->elem < 0 && (!l || b->func != l->func) &&
			    !ts_node_is_null(b->value) &&
			    ts_node_symbol(tl_index_unparen(b->value)) == sy->subscript &&
			    tl_facts__stored_element(idx, tl_index_unparen(b->value), b->func)) {
				/* batch = activations[i][j]: stored by an earlier call */
				before = true;
				continue;
			}
			bool inside = l ? (b->func == l->func && tl_facts__contains(l->body, b->stmt)) ||
					  (b->kind != TL_BIND_PARAM && tl_facts__called_in_loop(idx, b->func, l))
					: b->func == func;
			if (!inside && l && b->func == l->func &&
			    tl_facts__carried_graph_model(idx, l, x)) {
				/* Made by the previous iteration through a recurrent
				 * state that is never detached: retaining the graph
				 * only hides TL103's error, whose fix (detach the
				 * state) makes retain_graph needless; not a reuse. */
				if (carried)
					*carried = true;
				continue;
			}
			if (b->kind == TL_BIND_PARAM && l && b->func != l->func && b->func >= 0 &&
			    tl_facts__args_in_loop(idx, b, l)) {
				/* A helper the iteration calls: what the calls in
				 * the loop body pass is made in the iteration. */
				const TlFunc *pf = &idx->funcs.items[b->func];
				for (uint32_t k = 0; k < pf->call_sites.size && todo.size < 64; k++) {
					const TlCall *site = &idx->calls.items[pf->call_sites.items[k]];
					Item next = { tl_facts__param_arg_of(idx, b, site), it.iterable };
					tl_array_push(&todo, next);
				}
				continue;
			}
			if (b->kind == TL_BIND_PARAM) {
				if (!l || b->func != l->func || !it.iterable)
					before = tl_facts__param_graph(idx, b);
				continue;
			}
			if (b->kind == TL_BIND_FOR) {
				/* The items of a loop: what it iterates decides. */
				if (todo.size < 64) {
					Item next = { b->value, true };
					tl_array_push(&todo, next);
				}
				continue;
			}
			if (!inside) {
				/* Pieces of one value computed before the loop and
				 * iterated (`for part in outs.unbind()`,
				 * `zip([outs[i] for i in ...], grads)`), each
				 * backpropagated: a result of a call, not a batch of
				 * data, holds the graph the next piece needs. */
				before = tl_facts__holds_graph(idx, b, x) ||
					 (it.iterable && b->kind == TL_BIND_ASSIGN && b->elem < 0 &&
					  tl_facts__value_calls(idx, tl_facts__bound_value(b)) &&
					  tl_facts__sliced(idx, x));
				continue;
			}
			if (!ts_node_is_null(b->value) && todo.size < 64) {
				/* x, y = next(batches): an item of what is iterated. */
				TSNode v = tl_index_unparen(b->value);
				const TlCall *vc = ts_node_symbol(v) == sy->call ? tl_index_call_at(idx, v) : NULL;
				bool item = vc && !vc->receiver.id && vc->method &&
					    (strcmp(vc->method, "next") == 0 || strcmp(vc->method, "iter") == 0) &&
					    !tl_index_resolve_node(idx, vc->callee);
				Item next = { b->value, it.iterable || item };
				tl_array_push(&todo, next);
			}
		} while (!before && tl_walk_next(&cur, it.n, descend));
		ts_tree_cursor_delete(&cur);
	}
	tl_array_release(&todo);
	return before;
}

bool tl_facts_graph_reused(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!c || !(c->events & TL_EV_BACKWARD))
		return false;
	/* Another backward (or autograd.grad) later in an iteration of the
	 * call, in program order: one that ran before it needs no retained
	 * graph (the last backward of a GAN step). When the call does not
	 * show in the iteration's order (it cannot be placed), any other
	 * backward counts. */
	TlIntArray loops;
	tl_array_init(&loops);
	tl_facts__step_loop_list(idx, c->node, &loops);
	bool again = false;
	for (uint32_t i = 0; i < loops.size && !again; i++) {
		const TlLoop *l = &idx->loops.items[loops.items[i]];
		TlSteps seq;
		tl_array_init(&seq);
		tl_facts__sequence(idx, l->func, l->body, TL_EV_BACKWARD | TL_EV_GRAD_CALL, &seq);
		uint32_t at = seq.size;
		for (uint32_t k = 0; k < seq.size && at == seq.size; k++)
			if (ts_node_eq(seq.items[k].node, c->node))
				at = k;
		again = at == seq.size ? seq.size > 1 : at + 1 < seq.size;
		tl_array_release(&seq);
	}
	TSNode subject = tl_facts__backward_tensor(idx, c);
	if (ts_node_is_null(subject))
		subject = tl_facts__arg(c->node, 0);
	if (again || ts_node_is_null(subject)) {
		tl_array_release(&loops);
		return true;
	}
	/* A graph made before the iteration, reached again by the next one:
	 * the loop of its own function, else (a helper the iteration calls)
	 * the step loops of its call sites. */
	int32_t loop = c->loop;
	while (loop >= 0 && !(idx->loops.items[loop].events & TL_EV_BACKWARD))
		loop = idx->loops.items[loop].parent;
	bool before = false;
	if (loop >= 0 || !loops.size)
		before = tl_facts__graph_from_before(idx, subject,
						     loop >= 0 ? &idx->loops.items[loop] : NULL, c->func, NULL);
	for (uint32_t i = 0; loop < 0 && i < loops.size && !before; i++)
		before = tl_facts__graph_from_before(idx, subject, &idx->loops.items[loops.items[i]],
						     c->func, NULL);
	tl_array_release(&loops);
	return before;
}

bool tl_facts_graph_carried(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!c || !(c->events & TL_EV_BACKWARD))
		return false;
	TSNode subject = tl_facts__backward_tensor(idx, c);
	if (ts_node_is_null(subject))
		subject = tl_facts__arg(c->node, 0);
	if (ts_node_is_null(subject))
		return false;
	int32_t loop = c->loop;
	while (loop >= 0 && !(idx->loops.items[loop].events & TL_EV_BACKWARD))
		loop = idx->loops.items[loop].parent;
	bool carried = false;
	if (loop >= 0)
		tl_facts__graph_from_before(idx, subject, &idx->loops.items[loop], c->func, &carried);
	return carried;
}
