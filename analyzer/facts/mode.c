/* Train / eval mode: the mode a module is in at a node (also as one call of a
 * helper sees it).
 *
 * (The helper calls that evaluate with gradients on, whether an iteration
 * leaves a module in eval mode for the next one, and whether a model is left
 * in train mode for an evaluation are the logic of TL102, TL203 and TL212,
 * in rules/checks/.)
 *
 * Owns: tl_facts_mode_at, tl_facts_eval_on_a_path, tl_facts_mode_eval_in_context, tl_facts_mode_subject,
 * tl_facts__mode_from,
 * tl_facts__in_handed_lambda, tl_facts__mode_expr, tl_facts__forward_subject,
 * tl_facts__to_caller, tl_facts__names_have, tl_facts__name_root. */
#include "facts/internal.h"
#include "model/model.h"

/* ---- mode ------------------------------------------------------------------------ */

/* True when for-loop variable `k` (an identifier in `func`) runs over every
 * key or index of container `base`: `for k in X`, `X.keys()`, `sorted(X)`,
 * `list(X)`, `range(len(X))`. */
static bool tl_facts__every_key(const TlIndex *idx, TSNode k, const char *base)
{
	const TlSyms *sy = tl_syms();
	const TlBinding *b = tl_index_resolve_node(idx, k);
	if (!b || b->kind != TL_BIND_FOR || b->elem >= 0 || ts_node_is_null(b->value))
		return false;
	TSNode it = tl_index_unparen(b->value);
	for (int step = 0; step < 3; step++) {
		if (ts_node_symbol(it) != sy->call)
			break;
		const TlCall *c = tl_index_call_at(idx, it);
		if (!c || !c->method)
			return false;
		if (c->receiver.id && strcmp(c->method, "keys") == 0 && tl_facts__argc(it) == 0) {
			it = tl_index_unparen(c->receiver);
			break;
		}
		if (c->receiver.id || tl_facts__argc(it) != 1 ||
		    !(strcmp(c->method, "sorted") == 0 || strcmp(c->method, "list") == 0 ||
		      strcmp(c->method, "range") == 0 || strcmp(c->method, "len") == 0))
			return false;
		it = tl_index_unparen(tl_facts__arg(it, 0));
	}
	char *n = tl_facts__dotted(idx, it);
	bool yes = n && strcmp(n, base) == 0;
	tl_free(n);
	return yes;
}

char *tl_facts__mode_name(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	expr = tl_index_unparen(expr);
	if (ts_node_is_null(expr))
		return NULL;
	if (ts_node_symbol(expr) != sy->subscript)
		return tl_facts__dotted(idx, expr);
	char *base = tl_facts__dotted(idx, tl_tree_field(expr, sy->f_value));
	TSNode key = tl_index_unparen(tl_tree_field(expr, sy->f_subscript));
	if (!base || ts_node_is_null(key) || !ts_node_is_null(ts_node_next_named_sibling(key))) {
		tl_free(base);
		return NULL;
	}
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_add(&b, base);
	TSSymbol ks = ts_node_symbol(key);
	if (ks == sy->string || ks == sy->integer) {
		uint32_t len;
		const char *t = tl_index_text(idx, key, &len);
		tl_buf_addc(&b, '[');
		tl_buf_addn(&b, t, len);
		tl_buf_addc(&b, ']');
	} else if (ks == sy->identifier && tl_facts__every_key(idx, key, base)) {
		tl_buf_add(&b, "[*]");
	} else {
		tl_buf_release(&b);
		tl_free(base);
		return NULL;
	}
	tl_free(base);
	return tl_buf_detach(&b);
}

char *tl_facts__to_caller(const TlIndex *idx, int32_t f, const TlCall *c, const char *name);
static bool tl_facts__to_caller_all(const TlIndex *idx, int32_t f, const TlCall *c, const char *name,
				    TlNames *out);

bool tl_facts__names_have(const TlNames *names, const char *s)
{
	for (uint32_t i = 0; i < names->size; i++)
		if (strcmp(names->items[i], s) == 0)
			return true;
	return false;
}

/* True when a base class of class `k` may make it an nn.Module: one that
 * cannot be read, or a module class (also of another module). */
static bool tl_facts__base_may_be_module(const TlIndex *idx, const TlClass *k)
{
	for (uint32_t i = 0; i < k->bases.size; i++)
		if (idx->classes.items[k->bases.items[i]].is_module)
			return true;
	for (uint32_t i = 0; i < k->base_qnames.size; i++) {
		const char *q = k->base_qnames.items[i];
		if (strcmp(q, "object") == 0 || strcmp(q, "abc.ABC") == 0 || strcmp(q, "ABC") == 0)
			continue;
		TlExtDef d;
		if (!tl_facts__ext_def(idx, q, &d) || d.func >= 0 || tl_facts__ext_class_is_module(idx, q))
			return true;
	}
	return false;
}


/* The expression of the call at `node` whose mode a question about `recv`
 * asks: the object it calls, or its receiver, when it names `recv`; a
 * null node when neither does. */
TSNode tl_facts__mode_expr(const TlIndex *idx, TSNode node, const char *recv)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(node));
	TSNode none = { 0 };
	if (!c || !recv)
		return none;
	TSNode cand[2] = { tl_facts__called_object(c), c->receiver };
	for (int i = 0; i < 2; i++) {
		if (ts_node_is_null(cand[i]) || !cand[i].id)
			continue;
		char *n = tl_facts__mode_name(idx, cand[i]);
		bool same = n && strcmp(n, recv) == 0;
		tl_free(n);
		if (same)
			return tl_index_unparen(cand[i]);
	}
	return none;
}

bool tl_facts__in_handed_lambda(const TlIndex *idx, TSNode node);

/* True when `node` runs in a `with` block that expects it to raise
 * (`with pytest.raises(ValueError):`, `self.assertRaises(...)`): a test
 * of an error, whose forward's graph outlives nothing. */
static bool tl_facts__expects_raise(const TlIndex *idx, TSNode node)
{
	const TlSyms *sy = tl_syms();
	for (TSNode n = tl_index_parent(idx, node); !ts_node_is_null(n); n = tl_index_parent(idx, n)) {
		TSSymbol s = ts_node_symbol(n);
		if (s == sy->function_definition || s == sy->class_definition || s == sy->module || s == sy->lambda)
			return false;
		if (s != sy->with_statement)
			continue;
		TSNode clause = ts_node_named_child(n, 0);
		if (ts_node_is_null(clause) || ts_node_symbol(clause) != sy->with_clause)
			continue;
		for (uint32_t i = 0; i < ts_node_named_child_count(clause); i++) {
			TSNode v = ts_node_named_child(ts_node_named_child(clause, i), 0);
			if (!ts_node_is_null(v) && ts_node_symbol(v) == sy->as_pattern)
				v = ts_node_named_child(v, 0);
			const TlCall *c = ts_node_is_null(v) ? NULL : tl_index_call_at(idx, tl_index_unparen(v));
			if (c && c->method && (strcmp(c->method, "raises") == 0 || strcmp(c->method, "assertRaises") == 0 ||
					       strcmp(c->method, "assertRaisesRegex") == 0))
				return true;
		}
	}
	return false;
}

/* The model's answer (model/modes.c): eval or train on every path, its
 * function's entry joined over the call sites in the project. */
static int tl_facts__model_mode(const TlIndex *idx, TSNode node, const char *recv, const TlCall *site,
				bool on_a_path)
{
	/* A lambda handed to a call runs where that call runs it (a library
	 * function may run it under no_grad): not this scope's question. */
	if (tl_facts__in_handed_lambda(idx, node))
		return TL_MODE_UNKNOWN;
	if (tl_facts__expects_raise(idx, node))
		return TL_MODE_UNKNOWN;
	/* A model's own methods: their forwards are judged where the model
	 * runs (the call of the method, tl_check_eval_call_with_grad), unless
	 * the method itself switches the mode (`self.eval()` then `self(x)`). */
	int32_t f = tl_index_func_of(idx, node);
	int32_t cls = f >= 0 ? idx->funcs.items[f].cls : -1;
	int callers = cls >= 0 && (idx->classes.items[cls].is_module ||
				   tl_facts__base_may_be_module(idx, &idx->classes.items[cls]))
			      ? TL_MODEL_CALLERS_LOCAL : TL_MODEL_CALLERS_ALL;
	/* A global model run in a function: its mode is the one at each call
	 * of the function (one may be an attribution method's, which
	 * differentiates it), which the model does not resolve yet; the
	 * global's mode where the module ends is not it. */
	TSNode e = tl_facts__mode_expr(idx, node, recv);
	if (f >= 0) {
		size_t root = strcspn(recv, ".[");
		char *r = tl_strndup(recv, root);
		bool global = !tl_index_bindings_of(idx, f, r) &&
			      tl_facts__param_index(idx, &idx->funcs.items[f], r, root) < 0;
		tl_free(r);
		/* a comprehension's variable (`[net(x) for net in nets]`) is its own */
		TSNode id = e;
		while (!ts_node_is_null(id) && ts_node_symbol(id) == tl_syms()->attribute)
			id = tl_index_unparen(tl_tree_field(id, tl_syms()->f_object));
		if (global && !ts_node_is_null(id) && ts_node_symbol(id) == tl_syms()->identifier &&
		    tl_model_comprehension_local(idx, id))
			global = false;
		/* a global's own mode the model reads at each call (modes.c);
		 * a part of one (`model.encoder`), not */
		if (global && (ts_node_is_null(e) || !ts_node_eq(id, e)))
			return TL_MODE_UNKNOWN;
	}
	int bits = ts_node_is_null(e) ? 0 : site ? tl_model_mode_from(idx, e, site) : tl_model_mode(idx, e, callers);
	if (on_a_path && bits != TL_MODEL_MODE_EVAL && !ts_node_is_null(e)) {
		if (tl_model_mode_eval_on_a_path(idx, e, TL_MODEL_CALLERS_NONE))
			return TL_MODE_EVAL;
		/* entered in eval mode at some call site, the others not told:
		 * only for a forward whose result no caller can differentiate
		 * (it reaches no return of the module's functions) */
		if (site || callers == TL_MODEL_CALLERS_NONE)
			return TL_MODE_UNKNOWN;
		TlIntArray rets;
		tl_array_init(&rets);
		bool stays = tl_model_reaches_backward(idx, node, (TSNode){ 0 }, &rets, NULL) == 0 && !rets.size;
		tl_array_release(&rets);
		return stays && tl_model_mode_eval_on_a_path(idx, e, callers) ? TL_MODE_EVAL : TL_MODE_UNKNOWN;
	}
	return bits == TL_MODEL_MODE_EVAL ? TL_MODE_EVAL : bits == TL_MODEL_MODE_TRAIN ? TL_MODE_TRAIN : TL_MODE_UNKNOWN;
}

bool tl_facts_mode_nowhere(const TlIndex *idx, int mode)
{
	/* The walk's modes come from tl_facts__switch_mode (a call of the
	 * file with these events: also through local helpers, constructors and
	 * call sites) or from the call it takes as the last switch. */
	if (!tl_index_no_call_has(idx, TL_EV_MODE_SET | (mode == TL_MODE_EVAL ? TL_EV_EVAL : TL_EV_TRAIN), 0))
		return false;
	/* The model's modes (tl_facts_mode_at reads them where it knows one)
	 * also start at a library's eval-mode call and in other modules. */
	return tl_model_mode_nowhere(idx, mode == TL_MODE_EVAL ? TL_MODEL_MODE_EVAL : TL_MODEL_MODE_TRAIN);
}


int tl_facts_mode_at(const TlIndex *idx, TSNode node, const char *recv)
{
	/* The model's module modes (model/modes.c; docs/semantic-model.md,
	 * "Module modes"). */
	return tl_facts__model_mode(idx, node, recv, NULL, false);
}

bool tl_facts_eval_on_a_path(const TlIndex *idx, TSNode node, const char *recv)
{
	return tl_facts__model_mode(idx, node, recv, NULL, true) == TL_MODE_EVAL;
}

bool tl_facts_mode_eval_in_context(const TlIndex *idx, TSNode node, const char *recv)
{
	if (tl_facts__in_handed_lambda(idx, node) || tl_facts__expects_raise(idx, node))
		return false;
	/* a model's own methods are judged where the model runs */
	int32_t f = tl_index_func_of(idx, node);
	int32_t cls = f >= 0 ? idx->funcs.items[f].cls : -1;
	if (f < 0 || (cls >= 0 && (idx->classes.items[cls].is_module ||
				   tl_facts__base_may_be_module(idx, &idx->classes.items[cls]))))
		return false;
	TSNode e = tl_facts__mode_expr(idx, node, recv);
	return !ts_node_is_null(e) && tl_model_mode_eval_in_context(idx, e, node);
}

int tl_facts__mode_from(const TlIndex *idx, TSNode node, const char *recv, const TlCall *site)
{
	return tl_facts__model_mode(idx, node, recv, site, false);
}

/* The dotted name whose mode a forward call depends on: `model` for
 * model(x), the receiver for model.forward(x). Caller frees; NULL if none. */
char *tl_facts__forward_subject(const TlIndex *idx, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	TSNode subject = tl_facts__called_object(c);
	if (ts_node_symbol(tl_index_unparen(subject)) == sy->call)
		return NULL;
	return tl_facts__mode_name(idx, subject);
}

char *tl_facts_mode_subject(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	return c ? tl_facts__forward_subject(idx, c) : NULL;
}

/* What the API table says call `c` does with the callables it is handed
 * (tl_api_runs_callable): TL_APIR_RUNS_CALLABLE, TL_APIR_DEFERS_CALLABLE,
 * or 0. A bare name is a builtin when nothing in the file binds it. */
static uint64_t tl_facts__callable_role(const TlIndex *idx, const TlCall *c)
{
	if (!c)
		return 0;
	const char *builtin = !c->qname && !c->receiver.id && c->method && !tl_index_resolve_node(idx, c->callee)
				      ? c->method
				      : NULL;
	return tl_api_runs_callable(c->qname, builtin);
}

/* True when `c` is a call of a builtin (a bare name nothing in the file
 * binds: `list`, `sorted`, `sum`), which consumes what it is handed
 * where it is called. */
static bool tl_facts__builtin_call(const TlIndex *idx, const TlCall *c)
{
	return c && !c->qname && !c->receiver.id && c->method && !tl_index_resolve_node(idx, c->callee);
}

/* True when identifier `id` names the object that call `made` returned
 * (`it` of `it = map(f, xs)`). */
static bool tl_facts__names_made(const TlIndex *idx, TSNode id, TSNode made)
{
	if (ts_node_is_null(id) || ts_node_symbol(id) != tl_syms()->identifier)
		return false;
	const TlBinding *b = tl_index_resolve_node(idx, id);
	return b && b->kind == TL_BIND_ASSIGN && b->elem < 0 && !ts_node_is_null(b->value) &&
	       ts_node_eq(tl_index_unparen(b->value), made);
}

/* True when every use the file shows of `name`, the object call `made`
 * returned and its statement binds, runs in `grad`, the grad mode of
 * `made` (a call of it, `tta(image)`; a builtin handed it, `list(it)`;
 * a for loop over it), and there is at least one: a deferring callee's
 * object (`tta = TestTimeAugmentation(..., inferrer_fn=lambda x:
 * model(x))`) runs the lambda where it is used. A use as an argument of
 * anything but a builtin (a function that may run it under no_grad) is
 * not one. */
static bool tl_facts__used_in(const TlIndex *idx, TSNode made, int grad)
{
	const TlSyms *sy = tl_syms();
	uint32_t uses = 0;
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *u = &idx->calls.items[i];
		bool called = !u->receiver.id && tl_facts__names_made(idx, tl_index_unparen(u->callee), made);
		bool handed = false;
		TSNode args = tl_tree_field(u->node, sy->f_arguments);
		for (uint32_t k = 0; !called && !ts_node_is_null(args) && k < ts_node_named_child_count(args); k++)
			handed = handed || tl_facts__names_made(idx, tl_index_unparen(ts_node_named_child(args, k)), made);
		if (!called && !handed)
			continue;
		if ((handed && !tl_facts__builtin_call(idx, u)) || tl_facts_grad_state(idx, u->node) != grad)
			return false;
		uses++;
	}
	for (uint32_t i = 0; i < idx->bindings.size; i++) {
		const TlBinding *b = &idx->bindings.items[i];
		if (b->kind != TL_BIND_FOR || ts_node_is_null(b->value) ||
		    !tl_facts__names_made(idx, tl_index_unparen(b->value), made))
			continue;
		if (tl_facts_grad_state(idx, b->stmt) != grad)
			return false;
		uses++;
	}
	return uses > 0;
}

/* True when call `k`, which a lambda is handed to, runs it here, in the
 * grad mode and module modes at `k`: its callee is one the API table
 * says runs the callables it is handed (runs-callable: `sorted(xs,
 * key=...)`, `functools.reduce`), or one that returns an object that
 * runs them when iterated or called (defers-callable: `map`, `filter`,
 * `itertools.starmap`, MONAI's `TestTimeAugmentation`) consumed here: the
 * iterable of a for loop or a comprehension, handed to a builtin
 * (`list(map(...))`; one that hands it on lazily, `enumerate(map(...))`,
 * is asked in turn), or bound to a name every use of which runs in the
 * grad mode of `k` (tl_facts__used_in). */
static bool tl_facts__runs_here(const TlIndex *idx, TSNode k)
{
	const TlSyms *sy = tl_syms();
	uint64_t role = tl_facts__callable_role(idx, tl_index_call_at(idx, k));
	/* a deferred object handed on to another deferring builtin
	 * (`list(filter(p, map(f, xs)))`) is consumed where that one is */
	while (role == TL_APIR_DEFERS_CALLABLE) {
		TSNode p = tl_index_parent(idx, k);
		while (!ts_node_is_null(p) && ts_node_symbol(p) == sy->parenthesized_expression)
			p = tl_index_parent(idx, p);
		if (ts_node_is_null(p))
			return false;
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->for_statement || s == sy->for_in_clause) {
			TSNode it = tl_tree_field(p, sy->f_right);
			return !ts_node_is_null(it) && ts_node_eq(tl_index_unparen(it), k);
		}
		if (s == sy->assignment) {
			TSNode left = tl_tree_field(p, sy->f_left);
			return !ts_node_is_null(left) && ts_node_symbol(left) == sy->identifier &&
			       tl_facts__used_in(idx, k, tl_facts_grad_state(idx, k));
		}
		if (s != sy->argument_list)
			return false;
		TSNode outer = tl_index_parent(idx, p);
		const TlCall *o = ts_node_is_null(outer) ? NULL : tl_index_call_at(idx, outer);
		if (!tl_facts__builtin_call(idx, o))
			return false;
		/* a builtin that hands on its argument's items lazily
		 * (`enumerate`, `iter`: the table's builtin rows of the set
		 * iterates) is followed as a deferring one */
		role = tl_facts__callable_role(idx, o);
		if (role != TL_APIR_DEFERS_CALLABLE && !(tl_api_builtin_sets(o->method) & TL_APIS_ITERATES))
			return true;
		role = TL_APIR_DEFERS_CALLABLE;
		k = outer;
	}
	return role == TL_APIR_RUNS_CALLABLE;
}

/* True when `node` is in the body of a lambda handed to a call
 * (`probe(lambda x: model.encode(x))`): it runs when that call runs it,
 * in the grad mode there, which this scope does not tell. Not when the
 * API table says that call runs it here (tl_facts__runs_here: `sorted(xs,
 * key=lambda x: model(x).item())`, `list(map(lambda x: model(x), xs))`);
 * the lambda's own place is then asked in turn (inside another lambda
 * handed to an unknown function, it is handed away). */
bool tl_facts__in_handed_lambda(const TlIndex *idx, TSNode node)
{
	const TlSyms *sy = tl_syms();
	for (TSNode n = tl_index_parent(idx, node); !ts_node_is_null(n); n = tl_index_parent(idx, n)) {
		TSSymbol s = ts_node_symbol(n);
		if (s == sy->function_definition || s == sy->class_definition || s == sy->module)
			return false;
		if (s != sy->lambda)
			continue;
		TSNode p = tl_index_parent(idx, n);
		if (!ts_node_is_null(p) && ts_node_symbol(p) == sy->keyword_argument)
			p = tl_index_parent(idx, p);
		if (ts_node_is_null(p) || ts_node_symbol(p) != sy->argument_list)
			return false;
		TSNode k = tl_index_parent(idx, p);
		if (ts_node_is_null(k) || !tl_facts__runs_here(idx, k))
			return true;
		n = k;
	}
	return false;
}

/* ---- train / eval across an iteration --------------------------------------------- */

/* `name` as the caller of local function `f` at call `c` sees it: a
 * parameter's root is replaced by the argument passed (`self` by the
 * receiver of a bound method call); a name local to `f` has no meaning to
 * the caller (NULL); any other name (a global, a closure's) is kept.
 * Caller frees. */
char *tl_facts__to_caller(const TlIndex *idx, int32_t f, const TlCall *c, const char *name)
{
	char *alias = tl_facts__unalias(idx, f, name);
	if (alias) {
		char *mapped = tl_facts__to_caller(idx, f, c, alias);
		tl_free(alias);
		return mapped;
	}
	const TlFunc *fn = &idx->funcs.items[f];
	size_t root_len = strcspn(name, ".");
	int32_t param = -1;
	for (uint32_t k = 0; k < fn->params.size; k++) {
		const char *pn = idx->bindings.items[fn->params.items[k]].name;
		if (strlen(pn) == root_len && strncmp(pn, name, root_len) == 0)
			param = (int32_t)k;
	}
	if (param < 0) {
		TlBuf root;
		tl_buf_init(&root);
		tl_buf_addn(&root, name, root_len);
		const TlIntArray *own = tl_index_bindings_of(idx, f, root.data);
		tl_buf_release(&root);
		return own ? NULL : tl_strdup(name);
	}
	const char *pname = idx->bindings.items[fn->params.items[param]].name;
	TSNode arg = tl_facts__kwarg(idx, c->node, pname);
	if (ts_node_is_null(arg)) {
		int32_t k = param;
		if (fn->cls >= 0 && c->receiver.id)
			k--; /* a bound method: `self` is the receiver */
		arg = k >= 0 ? tl_facts__arg(c->node, (uint32_t)k) : c->receiver;
	}
	char *an = ts_node_is_null(arg) ? NULL : tl_facts__dotted(idx, arg);
	if (!an)
		return NULL;
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_add(&b, an);
	tl_buf_add(&b, name + root_len);
	tl_free(an);
	return tl_buf_detach(&b);
}

/* The elements of list or tuple literal `v` as dotted names, appended to
 * `out`; false when one is no dotted name. */
static bool tl_facts__literal_names(const TlIndex *idx, TSNode v, TlNames *out)
{
	const TlSyms *sy = tl_syms();
	v = tl_index_unparen(v);
	TSSymbol s = ts_node_symbol(v);
	if (s != sy->list && s != sy->tuple)
		return false;
	uint32_t count = ts_node_named_child_count(v);
	for (uint32_t i = 0; i < count; i++) {
		char *n = tl_facts__dotted(idx, ts_node_named_child(v, i));
		if (!n)
			return false;
		tl_array_push(out, n);
	}
	return count > 0;
}

/* `name` as the caller of `f` at call `c` sees it, appended to `out`: one
 * name (tl_facts__to_caller), or, for the variable of a loop over a list
 * parameter (`for m in models: m.eval()`), the element of each list the
 * call passes (`set_eval([netG, netD])`, or a name it binds once to such a
 * literal). False when some of them cannot be told. */
static bool tl_facts__to_caller_all(const TlIndex *idx, int32_t f, const TlCall *c, const char *name,
				    TlNames *out)
{
	const TlSyms *sy = tl_syms();
	size_t root_len = strcspn(name, ".");
	TlBuf root;
	tl_buf_init(&root);
	tl_buf_addn(&root, name, root_len);
	const TlIntArray *own = tl_index_bindings_of(idx, f, root.data);
	const TlBinding *loop_var = own && own->size == 1 ? &idx->bindings.items[own->items[0]] : NULL;
	tl_buf_release(&root);
	if (!loop_var || loop_var->kind != TL_BIND_FOR || loop_var->elem >= 0 ||
	    ts_node_is_null(loop_var->value) || ts_node_symbol(loop_var->value) != sy->identifier) {
		char *one = tl_facts__to_caller(idx, f, c, name);
		if (!one)
			return false;
		tl_array_push(out, one);
		return true;
	}
	/* for m in models: what the call passes as `models`. */
	uint32_t len;
	const char *ln = tl_index_text(idx, loop_var->value, &len);
	int32_t k = tl_facts__param_index(idx, &idx->funcs.items[f], ln, len);
	if (k < 0)
		return false;
	const TlBinding *param = &idx->bindings.items[idx->funcs.items[f].params.items[k]];
	TSNode arg = tl_index_unparen(tl_facts__param_arg_of(idx, param, c));
	if (ts_node_is_null(arg))
		return false;
	if (ts_node_symbol(arg) == sy->identifier) {
		const TlBinding *b = tl_index_resolve_node(idx, arg);
		const TlIntArray *all = b ? tl_index_bindings_of(idx, b->func, b->name) : NULL;
		if (!b || b->kind != TL_BIND_ASSIGN || b->elem >= 0 || !all || all->size != 1)
			return false;
		arg = b->value;
	}
	TlNames elems;
	tl_array_init(&elems);
	bool ok = tl_facts__literal_names(idx, arg, &elems);
	for (uint32_t i = 0; ok && i < elems.size; i++) {
		TlBuf b;
		tl_buf_init(&b);
		tl_buf_add(&b, elems.items[i]);
		tl_buf_add(&b, name + root_len);
		tl_array_push(out, tl_buf_detach(&b));
	}
	tl_facts__names_release(&elems);
	return ok;
}

static bool tl_facts__ext_event_receivers(const TlIndex *idx, const TlCall *c, uint32_t events,
					  TlNames *out, int depth, uint32_t *budget);

/* How call `c` runs the body of function `f` (tl_facts__body_receivers). */
enum {
	TL_BODY_CALLEE,   /* `f` is c's target: its names map to c's arguments, and
			   * only the code c's constant arguments run counts */
	TL_BODY_CLOSURE,  /* `f` is passed along and called by the callee: its
			   * names are c's own scope's */
	TL_BODY_OVERRIDE, /* `f` is a local override the inherited method c runs
			   * (`self._test()` in the base's `test()`): its names map
			   * to c's receiver */
};

/* The receivers of `events` in the body of `f`, which call `c` runs as
 * `how` says, named as c's scope names them, appended to `out`; false
 * when one cannot be told. The calls in it are asked at `depth` + 1. */
static bool tl_facts__body_receivers(const TlIndex *idx, int32_t f, const TlCall *c, int how,
				     uint32_t events, TlNames *out, int depth, uint32_t *budget)
{
	bool ok = true;
	const TlIntArray *calls = tl_index_scope_calls(idx, f);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *inner = &idx->calls.items[calls->items[i]];
		uint32_t reach = inner->events | inner->callee_events |
				 (inner->target >= 0 ? idx->funcs.items[inner->target].reach_events : 0) |
				 (inner->arg_target >= 0 ? idx->funcs.items[inner->arg_target].reach_events : 0);
		if (!(reach & events))
			reach |= tl_facts__callee_reach(idx, inner);
		if (!(reach & events))
			continue;
		/* Code the call does not run (`if mode == "eval":` at
		 * `set_mode(model, "train")`). */
		if (how == TL_BODY_CALLEE && tl_facts__runs_at(idx, inner->node, f, c) == TL_RUNS_NEVER)
			continue;
		TlNames sub;
		tl_array_init(&sub);
		ok = tl_facts__event_receivers(idx, inner, events, &sub, depth + 1, budget) && ok;
		for (uint32_t k = 0; k < sub.size; k++) {
			if (how == TL_BODY_CLOSURE)
				tl_array_push(out, tl_strdup(sub.items[k]));
			else
				ok = tl_facts__to_caller_all(idx, f, c, sub.items[k], out) && ok;
		}
		tl_facts__names_release(&sub);
	}
	return ok;
}

bool tl_facts__event_receivers(const TlIndex *idx, const TlCall *c, uint32_t events,
			       TlNames *out, int depth, uint32_t *budget)
{
	bool ok = true;
	/* With TL_FACTS_TRAINED_ONLY, only what other modules' summaries
	 * say they train: a switch here is the asker's to judge. */
	if ((c->events & events) && !(events & TL_FACTS_TRAINED_ONLY)) {
		if (c->recv_name)
			tl_array_push(out, tl_strdup(c->recv_name));
		else
			ok = false;
	}
	int32_t targets[2] = { c->target, c->arg_target };
	for (int t = 0; t < 2; t++) {
		int32_t f = targets[t];
		if (f < 0 || !(idx->funcs.items[f].reach_events & events))
			continue;
		if (depth > TL_FACTS_DEPTH || f == c->func || !*budget)
			return false;
		(*budget)--;
		ok = tl_facts__body_receivers(idx, f, c, t == 0 ? TL_BODY_CALLEE : TL_BODY_CLOSURE, events,
					      out, depth, budget) && ok;
	}
	if (tl_facts__callee_reach(idx, c) & events)
		ok = tl_facts__ext_event_receivers(idx, c, events, out, depth, budget) && ok;
	return ok;
}

/* tl_facts__event_receivers through the function of another module that
 * call `c` runs: the receivers its mode summary lists (facts/effects.c),
 * named as `c`'s scope names them (a parameter's name replaced by the
 * argument passed); false when one is no parameter (a global of that
 * module, `self.x` of an unknown object). */
static bool tl_facts__ext_event_receivers(const TlIndex *idx, const TlCall *c, uint32_t events,
					  TlNames *out, int depth, uint32_t *budget)
{
	if (!(tl_facts__callee_reach(idx, c) & events))
		return true;
	if (depth > TL_FACTS_DEPTH || !*budget)
		return false;
	(*budget)--;
	tl_facts__ext_enter(idx);
	TlExtDef d;
	const TlModeSummary *ms = tl_facts__ext_callee(idx, c, &d)
					  ? tl_facts__mode_summary(d.idx, d.func) : NULL;
	if (!ms) {
		tl_facts__ext_leave(idx);
		return false;
	}
	const TlNames *list = (events & TL_FACTS_TRAINED_ONLY) ? &ms->trained
			      : (events & TL_EV_EVAL)		? &ms->evals
								: &ms->trains;
	bool ok = (events & TL_EV_EVAL) ? ms->evals_ok : ms->trains_ok;
	for (uint32_t k = 0; k < list->size; k++) {
		const char *n = list->items[k];
		size_t root = strcspn(n, ".");
		TSNode arg = tl_facts__ext_param_arg(idx, c, &d, n, root);
		char *an = ts_node_is_null(arg) ? NULL : tl_facts__dotted(idx, arg);
		if (!an) {
			ok = false;
			break;
		}
		TlBuf b;
		tl_buf_init(&b);
		tl_buf_add(&b, an);
		tl_buf_add(&b, n + root);
		tl_array_push(out, tl_buf_detach(&b));
		tl_buf_release(&b);
		tl_free(an);
	}
	tl_facts__ext_leave(idx);
	/* The overrides in this file that the inherited method runs on the
	 * object (`self._test()` in the base's `test()`): walked as a local
	 * callee's body, `self` being `c`'s receiver. */
	if (!(events & TL_FACTS_TRAINED_ONLY)) {
		TlIntArray ovr;
		tl_array_init(&ovr);
		tl_facts__ext_overrides(idx, c, &ovr);
		for (uint32_t k = 0; k < ovr.size; k++) {
			int32_t f = ovr.items[k];
			if ((idx->funcs.items[f].reach_events & events) && f != c->func)
				ok = tl_facts__body_receivers(idx, f, c, TL_BODY_OVERRIDE, events, out, depth,
							      budget) && ok;
		}
		tl_array_release(&ovr);
	}
	return ok;
}

/* The module construction behind dotted `name` as seen at `pos` in `func`. */
TSNode tl_facts__name_root(const TlIndex *idx, const char *name, int32_t func,
				 uint32_t pos, TlBuf *path)
{
	TSNode none = { 0 };
	TlBuf n;
	tl_buf_init(&n);
	tl_buf_add(&n, name);
	TSNode root = none;
	/* model.encoder: the longest bound prefix, the rest is a path. */
	for (int depth = 0; depth <= TL_FACTS_DEPTH; depth++) {
		const TlBinding *b = tl_index_resolve(idx, n.data, func, pos);
		if (b) {
			if (b->kind == TL_BIND_ASSIGN && b->elem < 0 && !ts_node_is_null(b->value)) {
				TlBuf rest;
				tl_buf_init(&rest);
				tl_buf_add(&rest, path->data);
				tl_buf_clear(path);
				root = tl_facts__binding_module_root(idx, b, path);
				if (ts_node_is_null(root))
					root = tl_facts__factory_root(idx, b);
				tl_buf_add(path, rest.data);
				tl_buf_release(&rest);
			}
			break;
		}
		char *dot = strrchr(n.data, '.');
		if (!dot)
			break;
		TlBuf p;
		tl_buf_init(&p);
		tl_buf_add(&p, dot);
		tl_buf_add(&p, path->data);
		tl_buf_clear(path);
		tl_buf_add(path, p.data);
		tl_buf_release(&p);
		n.len = (size_t)(dot - n.data);
		n.data[n.len] = '\0';
	}
	tl_buf_release(&n);
	return root;
}

/* True when the module `name` (seen at `pos` in `func`) is being trained:
 * an optimizer in the file updates its parameters, or the file calls
 * `.train()` on it (also through a local helper called in `func`). */
/* True when function `f` builds an optimizer whose arguments read `name`
 * (`SGD(model.parameters())`, `Adam(self.model.parameters())`). */
static bool tl_facts__optimizer_over(const TlIndex *idx, int32_t f, const char *name)
{
	const TlSyms *sy = tl_syms();
	TlNames one;
	tl_array_init(&one);
	tl_array_push(&one, tl_strdup(name));
	bool yes = false;
	const TlIntArray *calls = tl_index_scope_calls(idx, f);
	for (uint32_t i = 0; !yes && calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		yes = c->qname && tl_facts__optimizer_qname(c->qname) &&
		      tl_facts__mentions(idx, tl_tree_field(c->node, sy->f_arguments), &one);
	}
	tl_facts__names_release(&one);
	return yes;
}

/* True when a method of class `cls` (or of a local base class of it)
 * builds an optimizer over `attr` (`self.model`), or over the parameter it
 * stores there (`self.model = model; self.opt = SGD(model.parameters())`). */
static bool tl_facts__class_trains(const TlIndex *idx, int32_t cls, const char *attr, int depth)
{
	const TlSyms *sy = tl_syms();
	if (cls < 0 || (uint32_t)cls >= idx->classes.size || depth > TL_FACTS_DEPTH)
		return false;
	for (uint32_t g = 0; g < idx->funcs.size; g++) {
		if (idx->funcs.items[g].cls != cls)
			continue;
		if (tl_facts__optimizer_over(idx, (int32_t)g, attr))
			return true;
		const TlIntArray *binds = tl_index_scope_binds(idx, (int32_t)g);
		for (uint32_t k = 0; binds && k < binds->size; k++) {
			const TlBinding *b = &idx->bindings.items[binds->items[k]];
			if (b->kind != TL_BIND_ASSIGN || b->elem >= 0 || strcmp(b->name, attr) != 0)
				continue;
			TSNode v = tl_index_unparen(b->value);
			if (ts_node_is_null(v) || ts_node_symbol(v) != sy->identifier)
				continue;
			const TlBinding *pb = tl_index_resolve_node(idx, v);
			if (pb && pb->kind == TL_BIND_PARAM && pb->func == (int32_t)g &&
			    tl_facts__optimizer_over(idx, (int32_t)g, pb->name))
				return true;
		}
	}
	const TlClass *c = &idx->classes.items[cls];
	for (uint32_t i = 0; i < c->bases.size; i++)
		if (tl_facts__class_trains(idx, c->bases.items[i], attr, depth + 1))
			return true;
	return false;
}

/* A model given from outside, whose construction is the caller's, and
 * trained where it is kept, so in train mode until switched: a parameter
 * `model` of `func` that an optimizer `func` builds updates; an attribute
 * `self.model` of `func`'s class, or `trainer.model` of an object of a
 * local class the function builds (`trainer = Trainer(model)`), that an
 * optimizer a method of that class builds updates (tl_facts__class_trains). */
static bool tl_facts__given_trained(const TlIndex *idx, const char *name, int32_t func,
				    uint32_t pos, const TlBinding *mine)
{
	const TlSyms *sy = tl_syms();
	const char *dot = strchr(name, '.');
	if (!dot)
		return mine && mine->kind == TL_BIND_PARAM && mine->func == func &&
		       tl_facts__optimizer_over(idx, func, name);
	if (func < 0 || strchr(dot + 1, '.'))
		return false;
	TlBuf attr;
	tl_buf_init(&attr);
	tl_buf_addf(&attr, "self%s", dot);
	int32_t cls = -1;
	if (strncmp(name, "self.", 5) == 0) {
		cls = idx->funcs.items[func].cls;
	} else {
		/* `trainer = Trainer(model)`, as bound where it is asked about. */
		char obj[256];
		size_t n = (size_t)(dot - name);
		const TlBinding *b = NULL;
		if (n < sizeof obj) {
			memcpy(obj, name, n);
			obj[n] = 0;
			b = tl_index_resolve(idx, obj, func, pos);
		}
		TSNode v = b && b->kind == TL_BIND_ASSIGN && b->elem < 0 ? tl_index_unparen(b->value)
									 : (TSNode){ 0 };
		const TlCall *ctor = !ts_node_is_null(v) && ts_node_symbol(v) == sy->call
					     ? tl_index_call_at(idx, v) : NULL;
		const TlBinding *cb = ctor ? tl_index_resolve_node(idx, ctor->callee) : NULL;
		if (cb && cb->kind == TL_BIND_CLASS)
			cls = cb->ref;
	}
	bool yes = tl_facts__class_trains(idx, cls, attr.data, 0);
	tl_buf_release(&attr);
	return yes;
}

bool tl_facts__module_trained(const TlIndex *idx, const char *name, int32_t func, uint32_t pos)
{
	const TlSyms *sy = tl_syms();
	TlBuf path;
	tl_buf_init(&path);
	TSNode root = tl_facts__name_root(idx, name, func, pos, &path);
	TlModRef me = { root, path.data };
	const TlBinding *mine = tl_index_resolve(idx, name, func, pos);
	bool yes = false;
	uint32_t budget = TL_FACTS_BUDGET;
	for (uint32_t i = 0; !yes && i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		const uint32_t trains = TL_EV_TRAIN | TL_EV_MODE_SET;
		if (!(c->events & trains) && c->target >= 0 && c->func == func &&
		    (idx->funcs.items[c->target].reach_events & trains)) {
			/* set_mode(model, "train"), set_requires_train([netG, netD]) */
			TlNames got;
			tl_array_init(&got);
			tl_facts__event_receivers(idx, c, trains, &got, 0, &budget);
			yes = tl_facts__names_have(&got, name);
			tl_facts__names_release(&got);
			continue;
		}
		if (!(c->events & trains) || !c->recv_name)
			continue;
		if (strcmp(c->recv_name, name) == 0 &&
		    (c->func == func || (mine && tl_index_resolve_node(idx, c->receiver) == mine))) {
			yes = true;
		} else if (!ts_node_is_null(root)) {
			TlBuf p;
			tl_buf_init(&p);
			TSNode r = tl_facts__module_root(idx, c->receiver, &p);
			yes = !ts_node_is_null(r) && ts_node_eq(r, root);
			tl_buf_release(&p);
		}
	}
	for (uint32_t i = 0; !yes && !ts_node_is_null(root) && i < idx->bindings.size; i++) {
		const TlBinding *b = &idx->bindings.items[i];
		if (b->kind != TL_BIND_ASSIGN || ts_node_is_null(b->value))
			continue;
		TSNode v = tl_index_unparen(tl_facts__held(idx, b));
		const TlCall *c = !ts_node_is_null(v) && ts_node_symbol(v) == sy->call
					  ? tl_index_call_at(idx, v) : NULL;
		if (!c || !c->qname || !tl_facts__optimizer_qname(c->qname))
			continue;
		TlModSet set;
		tl_array_init(&set);
		if (tl_facts__ctor_modules(idx, v, &set))
			for (uint32_t k = 0; k < set.size && !yes; k++)
				yes = tl_facts__relate(idx, &me, &set.items[k]) != TL_REL_DISJOINT;
		tl_facts__modset_release(&set);
	}
	/* Given from outside and trained where it is kept (the construction
	 * above, when there is one, is the caller's or a wrapper's). */
	if (!yes)
		yes = tl_facts__given_trained(idx, name, func, pos, mine);
	tl_buf_release(&path);
	return yes;
}

/* ---- train mode left over from training ----------------------------------------- */

/* True when the program trains something: a call of the file runs a
 * backward or an optimizer step (itself, through the local functions it
 * reaches, or in a function of another module it calls), or function
 * `func` is called from another module of the project, whose training the
 * file does not show. An evaluation pass is one of a program that trains
 * (a test comparing two freshly built models is none). */
bool tl_facts__program_trains(const TlIndex *idx, int32_t func)
{
	const uint32_t trains = TL_EV_BACKWARD | TL_EV_OPT_STEP;
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *k = &idx->calls.items[i];
		if ((k->events | k->callee_events) & trains)
			return true;
	}
	for (uint32_t i = 0; i < idx->funcs.size; i++)
		if (idx->funcs.items[i].reach_events & trains)
			return true;
	return tl_model_importer_called(idx, func);
}

