/* Carried state: values that cross iterations (recurrent state, running totals)
 * and graphs backpropagated more than once.
 *
 * Owns: tl_facts_carried_state, tl_facts_dies_in_iteration, tl_facts_graph_reused. */
#include "model/model.h"
#include "facts/internal.h"

typedef struct TlElemReturn {
	int32_t elem;
} TlElemReturn;

static bool tl_facts__detaches(const TlIndex *idx, TSNode v, int depth);

/* ---- values carried across iterations --------------------------------------------- */

static bool tl_facts__detached_return(const TlIndex *idx, TSNode v, int depth)
{
	return tl_facts__detaches(idx, v, depth);
}

/* True when the value of `v` has no autograd history because the
 * expression cuts it: `.detach()`, `.data`, `Variable(h.data)`, a tuple or
 * comprehension of such, a moved copy of such (`h.detach().to(device)`), or
 * a local function that returns one (`repackage_hidden(h)`). */
static bool tl_facts__detaches(const TlIndex *idx, TSNode v, int depth)
{
	static const char *const wrappers[] = { "tuple", "list", "Variable" };
	const TlSyms *sy = tl_syms();
	for (; depth <= TL_FACTS_DEPTH; depth++) {
		v = tl_index_unparen(v);
		if (ts_node_is_null(v))
			return false;
		TSSymbol s = ts_node_symbol(v);
		if (s == sy->tuple || s == sy->list || s == sy->expression_list) {
			/* (h.detach(), c.detach()): one detached part is taken as
			 * intent enough. */
			uint32_t n = ts_node_named_child_count(v);
			for (uint32_t i = 0; i < n; i++)
				if (tl_facts__detaches(idx, ts_node_named_child(v, i), depth + 1))
					return true;
			return false;
		}
		if (s == sy->generator_expression || s == sy->list_comprehension) {
			v = ts_node_named_child(v, 0);
			continue;
		}
		if (s == sy->conditional_expression) {
			return ts_node_named_child_count(v) >= 3 &&
			       (tl_facts__detaches(idx, ts_node_named_child(v, 0), depth + 1) ||
				tl_facts__detaches(idx, ts_node_named_child(v, 2), depth + 1));
		}
		if (s == sy->attribute)
			return tl_index_text_is(idx, tl_tree_field(v, sy->f_attribute), "data");
		if (s != sy->call)
			return false;
		const TlCall *c = tl_index_call_at(idx, v);
		if (!c)
			return false;
		if (c->receiver.id && c->method &&
		    (strcmp(c->method, "detach") == 0 || strcmp(c->method, "detach_") == 0))
			return true;
		if (c->receiver.id && IN(c->method, tl_facts__reshaping)) {
			v = c->receiver;
			continue;
		}
		if (c->method && IN(c->method, wrappers)) {
			/* tuple(s.detach() for s in h): the generator is the
			 * whole argument list. */
			TSNode args = tl_tree_field(v, sy->f_arguments);
			v = !ts_node_is_null(args) && ts_node_symbol(args) == sy->generator_expression
				    ? args : tl_facts__arg(v, 0);
			continue;
		}
		if (c->target >= 0)
			return tl_facts__any_return(idx, c->target, TL_RET_DETACHED, tl_facts__detached_return, depth + 1);
		if (tl_facts__ext_any_return(idx, c, TL_RET_DETACHED, tl_facts__detached_return, depth + 1))
			return true;
		return false;
	}
	return false;
}

/* True when `v` is a call whose result the file does not show for the
 * state `names` it is given: not a local function, not a module forward,
 * not a torch function, not a method of the state itself, not the
 * tuple/list builtins (`h = repackage_hidden(h)` imported from another file
 * may well detach). */
static bool tl_facts__opaque_call(const TlIndex *idx, TSNode v, const TlNames *names)
{
	const TlSyms *sy = tl_syms();
	v = tl_index_unparen(v);
	if (ts_node_is_null(v) || ts_node_symbol(v) != sy->call)
		return false;
	const TlCall *c = tl_index_call_at(idx, v);
	if (!c || c->target >= 0 || (c->events & TL_EV_FORWARD))
		return false;
	if (c->qname)
		return !tl_facts__starts(c->qname, "torch.");
	if (c->receiver.id)
		return !tl_facts__mentions(idx, c->receiver, names);
	if (c->method && (strcmp(c->method, "tuple") == 0 || strcmp(c->method, "list") == 0))
		return tl_index_resolve_node(idx, c->callee) != NULL;
	return true;
}

/* True when a call in the iteration `loop` detaches `name` in place:
 * `h.detach_()`, `h[0].detach_()`, `for s in h: s.detach_()`, or a local
 * function given `h` that calls detach_(). */
static bool tl_facts__detached_in_place(const TlIndex *idx, const TlLoop *l, const char *name)
{
	const TlSyms *sy = tl_syms();
	const TlIntArray *calls = tl_index_scope_calls(idx, l->func);
	uint32_t start = ts_node_start_byte(l->body), end = ts_node_end_byte(l->body);
	TlNames names;
	tl_array_init(&names);
	tl_array_push(&names, tl_strdup(name));
	bool yes = false;
	for (uint32_t i = 0; calls && i < calls->size && !yes; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (ts_node_start_byte(c->node) < start || ts_node_end_byte(c->node) > end)
			continue;
		if (c->events & TL_EV_DETACH) {
			TSNode r = tl_index_unparen(c->receiver);
			while (ts_node_symbol(r) == sy->subscript)
				r = tl_index_unparen(tl_tree_field(r, sy->f_value));
			char *rn = tl_facts__dotted(idx, r);
			if (rn && strcmp(rn, name) == 0) {
				yes = true;
			} else if (rn) {
				/* for s in h: s.detach_() */
				const TlBinding *b = tl_index_resolve_node(idx, r);
				yes = b && b->kind == TL_BIND_FOR && tl_facts__mentions(idx, b->value, &names);
			}
			tl_free(rn);
		} else if (c->target >= 0 && (idx->funcs.items[c->target].reach_events & TL_EV_DETACH)) {
			TSNode args = tl_tree_field(c->node, sy->f_arguments);
			yes = !ts_node_is_null(args) && tl_facts__mentions(idx, args, &names);
		}
	}
	tl_facts__names_release(&names);
	return yes;
}

/* The forward method of the local nn.Module class that module `m` is an
 * instance of (found in the class or its local bases), or -1. */
static int32_t tl_facts__forward_of(const TlIndex *idx, TSNode m)
{
	const TlSyms *sy = tl_syms();
	TlBuf path;
	tl_buf_init(&path);
	TSNode root = tl_facts__module_root(idx, m, &path);
	bool whole = path.data[0] == '\0';
	tl_buf_release(&path);
	if (ts_node_is_null(root) || !whole || ts_node_symbol(root) != sy->call)
		return -1;
	const TlBinding *cb = tl_index_resolve_node(idx, tl_tree_field(root, sy->f_function));
	if (!cb || cb->kind != TL_BIND_CLASS)
		return -1;
	int32_t f = -1;
	for (int32_t cls = cb->ref, hop = 0; cls >= 0 && f < 0 && hop < TL_FACTS_DEPTH; hop++) {
		f = tl_index_method(idx, cls, "forward", 7);
		const TlClass *k = &idx->classes.items[cls];
		cls = k->bases.size ? k->bases.items[0] : -1;
	}
	return f;
}

static bool tl_facts__return_elem_detaches(const TlIndex *idx, TSNode ret, void *data)
{
	const TlSyms *sy = tl_syms();
	const TlElemReturn *er = data;
	if (!ts_node_named_child_count(ret))
		return false;
	TSNode v = tl_index_unparen(ts_node_named_child(ret, 0));
	if (er->elem >= 0) {
		TSSymbol s = ts_node_symbol(v);
		if ((s != sy->tuple && s != sy->expression_list && s != sy->list) ||
		    (uint32_t)er->elem >= ts_node_named_child_count(v))
			return false;
		v = ts_node_named_child(v, (uint32_t)er->elem);
	}
	return tl_facts__detaches(idx, v, 0);
}

/* True when local function `f` detaches its parameter `param` (a binding)
 * before using it: re-binds it through a detaching expression, or calls
 * detach_() on it. */
static bool tl_facts__detaches_param(const TlIndex *idx, int32_t f, const TlBinding *param)
{
	const TlIntArray *binds = tl_index_scope_binds(idx, f);
	for (uint32_t i = 0; binds && i < binds->size; i++) {
		const TlBinding *b = &idx->bindings.items[binds->items[i]];
		if (b != param && b->kind == TL_BIND_ASSIGN && strcmp(b->name, param->name) == 0 &&
		    tl_facts__detaches(idx, tl_facts__bound_value(b), 0))
			return true;
	}
	const TlIntArray *calls = tl_index_scope_calls(idx, f);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if ((c->events & TL_EV_DETACH) && c->recv_name && strcmp(c->recv_name, param->name) == 0)
			return true;
	}
	return false;
}

/* True when the module forward `call` hands back the state it returns as
 * element `elem` (-1: its whole result) already detached: some return of
 * the local forward detaches that element, or the forward detaches the
 * parameter that receives `state` (the argument node holding the state). */
static bool tl_facts__forward_detaches(const TlIndex *idx, const TlCall *call, int32_t elem,
				      const char *state)
{
	if (!(call->events & TL_EV_FORWARD))
		return false;
	int32_t f = tl_facts__forward_of(idx, tl_facts__called_object(call));
	if (f < 0)
		return false;
	TlElemReturn er = { elem };
	if (tl_facts__each_return(idx, f, tl_facts__return_elem_detaches, &er))
		return true;
	/* forward(self, x, h): h = h.detach() */
	const TlFunc *fn = &idx->funcs.items[f];
	for (uint32_t k = 1; k < fn->params.size; k++) {
		/* Calling the module passes `self` implicitly: parameter k is
		 * positional argument k - 1, or a keyword. */
		const TlBinding *param = &idx->bindings.items[fn->params.items[k]];
		TSNode arg = tl_facts__kwarg(idx, call->node, param->name);
		if (ts_node_is_null(arg))
			arg = tl_facts__arg(call->node, k - 1);
		if (ts_node_is_null(arg))
			continue;
		char *an = tl_facts__dotted(idx, arg);
		bool is_state = an && strcmp(an, state) == 0;
		tl_free(an);
		if (is_state && tl_facts__detaches_param(idx, f, param))
			return true;
	}
	return false;
}

static int tl_facts__carried_walk(const TlIndex *idx, TSNode target, TSNode stmt, const TlLoop *l)
{
	const TlSyms *sy = tl_syms();
	char *name = tl_facts__dotted(idx, target);
	if (!name)
		return TL_CARRY_NONE;
	TlNames names;
	tl_array_init(&names);
	tl_array_push(&names, name);
	int carry = TL_CARRY_ATTACHED;
	/* Every other binding of the name in the iteration: afresh (not a
	 * state), detached, or from itself (`h = h.to(device)`). */
	const TlIntArray *binds = tl_index_scope_binds(idx, l->func);
	for (uint32_t i = 0; binds && i < binds->size && carry == TL_CARRY_ATTACHED; i++) {
		const TlBinding *b = &idx->bindings.items[binds->items[i]];
		if (strcmp(b->name, name) != 0 || ts_node_eq(b->stmt, stmt))
			continue;
		bool in_iteration = b->kind == TL_BIND_FOR
					    ? (ts_node_eq(b->stmt, l->node) || tl_facts__contains(l->body, b->stmt))
					    : tl_facts__contains(l->body, b->stmt);
		if (!in_iteration || b->kind == TL_BIND_AUG)
			continue;
		if (b->kind != TL_BIND_ASSIGN) {
			carry = TL_CARRY_NONE;
			continue;
		}
		TSNode v = tl_facts__bound_value(b);
		if (tl_facts__detaches(idx, v, 0))
			carry = TL_CARRY_DETACHED;
		else if (!tl_facts__mentions(idx, v, &names) || tl_facts__opaque_call(idx, v, &names))
			carry = TL_CARRY_NONE; /* afresh, or through code the file does not show */
	}
	if (carry == TL_CARRY_ATTACHED && tl_facts__detached_in_place(idx, l, name))
		carry = TL_CARRY_DETACHED;
	/* The model may hand the state back detached itself. */
	for (uint32_t i = 0; binds && i < binds->size && carry == TL_CARRY_ATTACHED; i++) {
		const TlBinding *b = &idx->bindings.items[binds->items[i]];
		if (strcmp(b->name, name) != 0 || !ts_node_eq(b->stmt, stmt) || ts_node_is_null(b->value))
			continue;
		TSNode v = tl_index_unparen(b->value);
		const TlCall *c = ts_node_symbol(v) == sy->call ? tl_index_call_at(idx, v) : NULL;
		if (c && tl_facts__forward_detaches(idx, c, b->depth == 0 ? -1 : b->top, name))
			carry = TL_CARRY_DETACHED;
	}
	tl_facts__names_release(&names);
	return carry;
}

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
	const TlLoop *l = &idx->loops.items[loop];
	int model = tl_facts__carried_model(idx, target, stmt, l);
	if (tl_facts__checking_model())
		tl_facts__model_differs(idx, target, "carried-with-graph", tl_facts__carried_walk(idx, target, stmt, l) == TL_CARRY_ATTACHED,
					model == TL_CARRY_ATTACHED);
	return model;
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

/* True when the name read at `use` in loop `l` is re-bound later in the
 * loop body (or by the assignment it is read in) to a value with autograd
 * history: the next iteration reads the graph this one made
 * (`out, h = rnn(x, h)`). */
static bool tl_facts__carried_graph(const TlIndex *idx, const TlLoop *l, TSNode use)
{
	char *name = tl_facts__dotted(idx, use);
	if (!name)
		return false;
	bool yes = false;
	const TlIntArray *binds = tl_index_scope_binds(idx, l->func);
	for (uint32_t i = 0; binds && i < binds->size && !yes; i++) {
		const TlBinding *b = &idx->bindings.items[binds->items[i]];
		if (b->kind != TL_BIND_ASSIGN || strcmp(b->name, name) != 0 ||
		    !tl_facts__contains(l->body, b->stmt) || b->pos <= ts_node_start_byte(use))
			continue;
		TSNode v = tl_facts__bound_value(b);
		yes = !ts_node_is_null(v) && (tl_facts_is_graph(idx, v) ||
					      tl_facts__value_has(idx, v, TL_EV_LOSS | TL_EV_FORWARD));
	}
	tl_free(name);
	return yes;
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
				       int32_t func, bool *carried, bool model)
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
			if (s == sy->call && (model ? tl_facts__detached_model(idx, x) : tl_facts__detaches(idx, x, 0))) {
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
			    (model ? tl_facts__carried_graph_model(idx, l, x) : tl_facts__carried_graph(idx, l, x))) {
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
	bool before[2] = { false, false };
	for (int model = 1; model >= 0; model--) {
		if (!model && !tl_facts__checking_model())
			break;
		if (loop >= 0 || !loops.size)
			before[model] = tl_facts__graph_from_before(idx, subject, loop >= 0 ? &idx->loops.items[loop] : NULL,
								    c->func, NULL, model);
		for (uint32_t i = 0; loop < 0 && i < loops.size && !before[model]; i++)
			before[model] = tl_facts__graph_from_before(idx, subject, &idx->loops.items[loops.items[i]],
								    c->func, NULL, model);
		if (!model)
			tl_facts__model_differs(idx, call, "graph-reused", before[0], before[1]);
	}
	tl_array_release(&loops);
	return before[1];
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
		tl_facts__graph_from_before(idx, subject, &idx->loops.items[loop], c->func, &carried, true);
	if (loop >= 0 && tl_facts__checking_model()) {
		bool walk = false;
		tl_facts__graph_from_before(idx, subject, &idx->loops.items[loop], c->func, &walk, false);
		tl_facts__model_differs(idx, call, "graph-carried", walk, carried);
	}
	return carried;
}
