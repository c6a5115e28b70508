/* TL214's rule logic (unregistered-submodules). Module registration:
 * submodules and parameters that a module keeps in a plain Python container
 * (a list, tuple or dict attribute), where nn.Module's attribute hook never
 * sees them, so that parameters(), .to(), .train()/.eval() and state_dict()
 * leave them out.
 *
 * Owns: tl_check_unregistered_submodules; the file's storing calls (from
 * facts/cache.c). */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

/* ---- the file's storing calls -------------------------------------------- */

/* A method that stores what it is handed into its receiver, changing it in
 * place (the table's method rows of roles mutates and stores: `.append`,
 * `.extend`, `.insert`, `.update`, `.add`, `.setdefault`, `.appendleft`;
 * not a queue's `.put`, which stores without the role mutates). */
static bool tl_check__storing(const char *method)
{
	const TlApiRow *r = tl_api_method(method);
	return r && (r->roles & (TL_APIR_MUTATES | TL_APIR_STORES)) == (TL_APIR_MUTATES | TL_APIR_STORES);
}

/* The calls of a storing method (a method row of roles mutates and stores,
 * `.append`, `.update`, ...) on a receiver, in call order, with the name of
 * what they store into; found once per file and kept in the facts cache
 * (TlFactsCache.storing, released by facts/cache.c). */
static const TlStoringCalls *tl_check__storing_calls(const TlIndex *idx)
{
	TlFactsCache *fc = idx->facts_cache;
	if (fc->storing_ready)
		return &fc->storing;
	fc->storing_ready = true;
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (!c->receiver.id || !c->method || !tl_check__storing(c->method))
			continue;
		/* losses.append(v), history["loss"].append(v) */
		char *root = c->recv_name ? NULL : tl_facts_root_name(idx, c->receiver);
		TlStoringCall sc = { (int32_t)i, tl_strdup(c->recv_name ? c->recv_name : root ? root : "") };
		tl_free(root);
		tl_array_push(&fc->storing, sc);
	}
	return &fc->storing;
}

/* torch.nn layers that hold no parameters, buffers or mode: leaving them
 * out of the module changes nothing (activations, pooling, padding,
 * reshaping, losses). */
static bool tl_check__stateless_layer(const char *q)
{
	/* the table's parameter-free layers but dropout, whose mode is what
	 * a plain container loses */
	const TlApiRow *r = tl_facts__nn_layer_row(q);
	return (r && (r->sets & TL_APIS_PARAMETER_FREE) && !(r->sets & TL_APIS_DROPOUT_MODULE)) ||
	       tl_facts__ends(tl_facts__last(q), "Loss");
}

/* Calls that only look at a container: handing it to them registers nothing. */
static bool tl_check__harmless_consumer(const TlCall *c)
{
	/* the table's builtins of set reads-only */
	return !c->receiver.id && c->method && !c->qname && (tl_api_builtin_sets(c->method) & TL_APIS_READS_ONLY);
}

/* The container a read passes along: `*self.layers`, `list(self.layers)`,
 * `self.heads.values()` are the container; so is `self.layers[0]`, which
 * hands on what the container holds. */
static TSNode tl_check__passed_container(const TlIndex *idx, TSNode a)
{
	const TlSyms *sy = tl_syms();
	for (int depth = 0; depth < 4; depth++) {
		a = tl_index_unparen(a);
		if (ts_node_is_null(a))
			return a;
		TSSymbol s = ts_node_symbol(a);
		if (s == sy->list_splat || s == sy->dictionary_splat) {
			a = ts_node_named_child(a, 0);
			continue;
		}
		if (s == sy->keyword_argument || s == sy->subscript) {
			a = tl_tree_field(a, sy->f_value);
			continue;
		}
		if (s != sy->call)
			return a;
		const TlCall *c = tl_index_call_at(idx, a);
		if (!c || !c->method)
			return a;
		if (!c->receiver.id && !c->qname &&
		    (strcmp(c->method, "list") == 0 || strcmp(c->method, "tuple") == 0 ||
		     strcmp(c->method, "dict") == 0)) {
			a = tl_facts__arg(a, 0);
			continue;
		}
		if (c->receiver.id && (strcmp(c->method, "values") == 0 || strcmp(c->method, "items") == 0)) {
			a = c->receiver;
			continue;
		}
		return a;
	}
	return a;
}

/* True when some call inside `scope` (a class or function node) hands the
 * container named `name` ("self.layers", "layers") to a function that may
 * register what it holds: nn.ModuleList(self.layers), nn.Sequential(*layers),
 * a local or unknown function. Storing methods on the container itself
 * (`layers.append(...)`) and calls that only look at it (len, enumerate)
 * do not. */
static bool tl_check__container_handed_on(const TlIndex *idx, TSNode scope, const char *name)
{
	const TlSyms *sy = tl_syms();
	size_t nlen = strlen(name);
	uint32_t from = tl_index_first_call_from(idx, ts_node_start_byte(scope));
	for (uint32_t i = from; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (c->start_byte >= ts_node_end_byte(scope))
			break;
		if (tl_check__harmless_consumer(c))
			continue;
		TSNode args = tl_tree_field(c->node, sy->f_arguments);
		uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
		for (uint32_t k = 0; k < count; k++) {
			TSNode a = tl_check__passed_container(idx, ts_node_named_child(args, k));
			if (ts_node_is_null(a))
				continue;
			TSSymbol s = ts_node_symbol(a);
			if (s != sy->identifier && s != sy->attribute)
				continue;
			uint32_t len;
			const char *t = tl_index_text(idx, a, &len);
			if (len == nlen && memcmp(t, name, len) == 0)
				return true;
		}
	}
	return false;
}

/* True when class `cls` registers attributes by hand (add_module,
 * register_module, register_parameter, setattr, its _modules or
 * _parameters): what its lists hold may be registered there too. */
static bool tl_check__registers_by_hand(const TlIndex *idx, TSNode cls)
{
	const TlSyms *sy = tl_syms();
	uint32_t from = tl_index_first_call_from(idx, ts_node_start_byte(cls));
	for (uint32_t i = from; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (c->start_byte >= ts_node_end_byte(cls))
			break;
		/* the table's set registers: add_module, register_parameter,
		 * setattr, object.__setattr__ */
		if (c->method && ((tl_api_method_sets(c->method) | tl_api_builtin_sets(c->method)) & TL_APIS_REGISTERS))
			return true;
	}
	TSTreeCursor cur = ts_tree_cursor_new(cls);
	bool found = false, descend = true;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		descend = true;
		if (ts_node_symbol(x) == sy->attribute) {
			TSNode at = tl_tree_field(x, sy->f_attribute);
			found = tl_index_text_is(idx, at, "_modules") || tl_index_text_is(idx, at, "_parameters");
		}
	} while (!found && tl_walk_next(&cur, cls, descend));
	ts_tree_cursor_delete(&cur);
	return found;
}

/* True when identifier `id` is the only read of its name in function `f`
 * other than as the object of an attribute (`layer.weight`,
 * `layer.apply(init)`): the value it holds goes nowhere else. */
static bool tl_check__only_read_here(const TlIndex *idx, TSNode id, int32_t f)
{
	const TlSyms *sy = tl_syms();
	if (f < 0)
		return false;
	TSNode fn = idx->funcs.items[f].node;
	uint32_t len;
	const char *name = tl_index_text(idx, id, &len);
	TSTreeCursor cur = ts_tree_cursor_new(fn);
	bool other = false, descend = true;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		descend = true;
		if (ts_node_symbol(x) != sy->identifier || ts_node_eq(x, id))
			continue;
		uint32_t xl;
		const char *xt = tl_index_text(idx, x, &xl);
		if (xl != len || memcmp(xt, name, len) != 0)
			continue;
		TSNode p = tl_index_parent(idx, x);
		TSSymbol ps = ts_node_is_null(p) ? 0 : ts_node_symbol(p);
		/* `layer.weight`, `layer.apply(init)` only use it; `self.layer`
		 * is another name. */
		if (ps == sy->attribute)
			continue;
		if (ps == sy->keyword_argument && ts_node_eq(tl_tree_field(p, sy->f_name), x))
			continue;
		/* The binding itself: `layer = Block(...)`, `for layer in ...`. */
		if ((ps == sy->assignment || ps == sy->augmented_assignment) &&
		    ts_node_eq(tl_tree_field(p, sy->f_left), x))
			continue;
		other = true;
	} while (!other && tl_walk_next(&cur, fn, descend));
	ts_tree_cursor_delete(&cur);
	return !other;
}

/* True when `e` (in function `f`) makes a new module or parameter that
 * nothing else holds: a constructor of a torch.nn layer with state (not an
 * activation, pooling or loss) or of an nn.Module subclass of the project
 * that holds some state (not one of only pooling and numbers), an
 * nn.Parameter, also behind `.to(device)` and the like, or a local name
 * bound to one and read nowhere else. */
static bool tl_check__new_module(const TlIndex *idx, TSNode e, int32_t f, int depth)
{
	const TlSyms *sy = tl_syms();
	for (; depth <= TL_FACTS_DEPTH; depth++) {
		e = tl_index_unparen(e);
		if (ts_node_is_null(e))
			return false;
		TSSymbol s = ts_node_symbol(e);
		if (s == sy->identifier) {
			const TlBinding *b = tl_index_resolve_node(idx, e);
			if (!b || b->kind != TL_BIND_ASSIGN || b->elem >= 0 || b->func != f ||
			    !tl_check__only_read_here(idx, e, f))
				return false;
			e = b->value;
			continue;
		}
		if (s != sy->call)
			return false;
		const TlCall *c = tl_index_call_at(idx, e);
		if (!c)
			return false;
		if (c->receiver.id && c->method && tl_api_returns_self(c->method)) {
			e = c->receiver;
			continue;
		}
		if (c->qname)
			return strcmp(c->qname, "torch.nn.Parameter") == 0 ||
			       strcmp(c->qname, "torch.nn.parameter.Parameter") == 0 ||
			       (tl_facts_is_module_class_name(c->qname) && tl_facts__starts(c->qname, "torch.nn.") &&
				!tl_check__stateless_layer(c->qname)) ||
			       /* an nn.Module subclass of another module of the project
				* that holds some state */
			       (!tl_facts__starts(c->qname, "torch.") &&
				tl_facts__ext_class_is_module(idx, c->qname) && !tl_model_makes_stateless_module(idx, e));
		const TlBinding *cb = tl_index_resolve_node(idx, c->callee);
		return cb && cb->kind == TL_BIND_CLASS && idx->classes.items[cb->ref].is_module &&
		       !tl_model_makes_stateless_module(idx, e);
	}
	return false;
}

/* True when the plain container that `v` builds (a list, tuple, set or
 * dict literal, a comprehension, list()/tuple()/dict() of one) holds a new
 * module (tl_check__new_module). `*empty` is set for an empty literal or
 * list()/dict(): what fills it decides. */
static bool tl_check__holds_new_modules(const TlIndex *idx, TSNode v, int32_t f, bool *empty, int depth)
{
	const TlSyms *sy = tl_syms();
	v = tl_index_unparen(v);
	if (ts_node_is_null(v) || depth > 4)
		return false;
	TSSymbol s = ts_node_symbol(v);
	uint32_t count = ts_node_named_child_count(v);
	if (s == sy->list || s == sy->tuple || s == sy->set || s == sy->dictionary) {
		bool any_element = false;
		for (uint32_t i = 0; i < count; i++) {
			TSNode el = ts_node_named_child(v, i);
			TSSymbol es = ts_node_symbol(el);
			if (es == sy->comment)
				continue;
			any_element = true;
			if (es == sy->pair)
				el = tl_tree_field(el, sy->f_value);
			bool inner_empty = false;
			if (tl_check__new_module(idx, el, f, 0) ||
			    tl_check__holds_new_modules(idx, el, f, &inner_empty, depth + 1))
				return true;
		}
		if (!any_element)
			*empty = true;
		return false;
	}
	if (s == sy->list_comprehension || s == sy->set_comprehension ||
	    s == sy->generator_expression || s == sy->dictionary_comprehension) {
		TSNode body = tl_tree_field(v, sy->f_body);
		if (!ts_node_is_null(body) && ts_node_symbol(body) == sy->pair)
			body = tl_tree_field(body, sy->f_value);
		bool inner_empty = false;
		return tl_check__new_module(idx, body, f, 0) ||
		       tl_check__holds_new_modules(idx, body, f, &inner_empty, depth + 1);
	}
	if (s != sy->call)
		return false;
	const TlCall *c = tl_index_call_at(idx, v);
	if (!c || c->receiver.id || c->qname || !c->method ||
	    (strcmp(c->method, "list") != 0 && strcmp(c->method, "tuple") != 0 &&
	     strcmp(c->method, "dict") != 0))
		return false;
	TSNode args = tl_tree_field(v, sy->f_arguments);
	uint32_t n = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
	if (n == 0) {
		*empty = true;
		return false;
	}
	if (ts_node_symbol(args) == sy->generator_expression)
		return tl_check__holds_new_modules(idx, args, f, empty, depth + 1);
	for (uint32_t i = 0; i < n; i++) {
		TSNode a = ts_node_named_child(args, i);
		if (ts_node_symbol(a) == sy->keyword_argument) {
			if (tl_check__new_module(idx, tl_tree_field(a, sy->f_value), f, 0))
				return true;
		} else if (i == 0 && tl_check__holds_new_modules(idx, a, f, empty, depth + 1)) {
			return true;
		}
	}
	return false;
}

/* True when the container named `name` is filled, inside `scope`, with a
 * new module: `name.append(Block())`, `name.extend([...])`,
 * `name.insert(i, ...)`, `name[k] = nn.Linear(...)`. */
static bool tl_check__filled_with_modules(const TlIndex *idx, TSNode scope, const char *name,
					  int32_t func, int32_t cls)
{
	const TlSyms *sy = tl_syms();
	const TlStoringCalls *sc = tl_check__storing_calls(idx);
	for (uint32_t i = 0; i < sc->size; i++) {
		const TlCall *c = &idx->calls.items[sc->items[i].call];
		if (strcmp(sc->items[i].name, name) != 0 || !tl_facts__contains(scope, c->node) || !c->method)
			continue;
		TSNode a = { 0 };
		if (strcmp(c->method, "append") == 0 || strcmp(c->method, "extend") == 0)
			a = tl_facts__arg(c->node, 0);
		else if (strcmp(c->method, "insert") == 0)
			a = tl_facts__arg(c->node, 1);
		if (ts_node_is_null(a))
			continue;
		bool empty = false;
		int32_t f = tl_index_func_of(idx, c->node);
		if (strcmp(c->method, "extend") == 0 ? tl_check__holds_new_modules(idx, a, f, &empty, 0)
						     : tl_check__new_module(idx, a, f, 0))
			return true;
	}
	const TlStoreSites *st = tl_facts__subscript_sites(idx, func, cls);
	for (uint32_t i = 0; st && i < st->size; i++) {
		if (strcmp(st->items[i].name, name) != 0 || ts_node_symbol(st->items[i].stmt) != sy->assignment)
			continue;
		TSNode stmt = st->items[i].stmt;
		if (tl_check__new_module(idx, tl_tree_field(stmt, sy->f_right), tl_index_func_of(idx, stmt), 0))
			return true;
	}
	return false;
}

bool tl_check_unregistered_submodules(const TlIndex *idx, TSNode assign)
{
	const TlSyms *sy = tl_syms();
	assign = tl_index_unparen(assign);
	if (ts_node_is_null(assign) || ts_node_symbol(assign) != sy->assignment)
		return false;
	TSNode left = tl_index_unparen(tl_tree_field(assign, sy->f_left));
	if (ts_node_is_null(left) || ts_node_symbol(left) != sy->attribute ||
	    !tl_index_text_is(idx, tl_tree_field(left, sy->f_object), "self"))
		return false;
	int32_t f = tl_index_func_of(idx, assign);
	if (f < 0)
		return false;
	int32_t cls = idx->funcs.items[f].cls;
	if (cls < 0 || !idx->classes.items[cls].is_module)
		return false;
	TSNode class_node = idx->classes.items[cls].node;
	char *attr = tl_facts__dotted(idx, left);
	if (!attr)
		return false;
	bool found = false;
	TSNode value = tl_index_unparen(tl_tree_field(assign, sy->f_right));
	char *local = NULL;
	if (!ts_node_is_null(value) && ts_node_symbol(value) == sy->identifier) {
		/* layers = [] ... layers.append(Block()) ... self.layers = layers */
		const TlBinding *b = tl_index_resolve_node(idx, value);
		if (b && b->kind == TL_BIND_ASSIGN && b->elem < 0 && b->func == f) {
			local = tl_facts__dotted(idx, value);
			value = tl_index_unparen(b->value);
		} else {
			value = (TSNode){ 0 };
		}
	}
	bool empty = false;
	if (!ts_node_is_null(value)) {
		found = tl_check__holds_new_modules(idx, value, f, &empty, 0);
		if (!found && empty)
			found = tl_check__filled_with_modules(idx, class_node, attr, -1, cls) ||
				(local && tl_check__filled_with_modules(idx, idx->funcs.items[f].node, local, f, -1));
	}
	/* Handed to nn.ModuleList / nn.Sequential / a helper anywhere in the
	 * class (the attribute) or the function (the local list). */
	if (found && tl_check__container_handed_on(idx, class_node, attr))
		found = false;
	/* Last: it walks the whole class, and most assignments hold no list
	 * of new modules. */
	if (found && tl_check__registers_by_hand(idx, class_node))
		found = false;
	if (found && local && tl_check__container_handed_on(idx, idx->funcs.items[f].node, local))
		found = false;
	tl_free(local);
	tl_free(attr);
	return found;
}
