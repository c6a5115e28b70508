/* Data loaders: the DataLoader a batch comes from and the options it was built
 * with (pin_memory, num_workers, ...), and the DistributedSampler it draws
 * from. A loader or sampler may be built by a function of the project, in
 * the file or in another module, and handed back (itself, in a tuple, in a
 * dict): facts/handed.c summarises what such a function returns, and the
 * constructions found are kept with the index of the module that holds
 * them (TlMade).
 *
 * (Whether a batch comes from a loader, whether a loader feeds a step
 * loop, and whether a sampler's epoch is set are the logic of TL306,
 * TL308 and TL215, in rules/checks/.)
 *
 * Owns: tl_facts_loader_option, tl_facts__loader_values, tl_facts__qname_loader, tl_facts__sampler_of,
 * tl_facts__loader_source, tl_facts__loaders_collect, tl_facts__makes_loader,
 * tl_facts__sampler_ctor, tl_facts__unwrap_iterable. */
#include "facts/internal.h"
#include "model/model.h"

/* ---- DataLoader batches ---------------------------------------------------------------- */

/* Qualified name `q` is a loader class of the API table: torch's
 * DataLoader (the data-loader set), or a row of kind loader (PyTorch
 * Geometric's DataLoader). */
bool tl_facts__qname_loader(const char *q)
{
	const TlApiRow *r = q ? tl_api_qualified(q) : NULL;
	return q && (tl_facts__qname_is_api(q, TL_API_DATA_LOADER) || (r && r->kind == TL_APIK_LOADER));
}

/* Call `c` makes a DataLoader: PyTorch's, a loader class of the table, or
 * a class of the project that derives from it (the model's value,
 * model/bases.c), whose arguments are then read by keyword only. */
bool tl_facts__makes_loader(const TlIndex *idx, const TlCall *c)
{
	if (c->qname && tl_facts__qname_loader(c->qname))
		return true;
	TlVal v;
	return (!c->qname || !tl_api_qualified(c->qname)) && !c->receiver.id && tl_model_value(idx, c->node, &v) &&
	       v.kind == TL_VK_LOADER && v.ref >= 0 && v.mod;
}

/* The call whose result `e` of `idx` holds as a whole (itself, or a name
 * bound to it by a plain assignment), else null. */
static const TlCall *tl_facts__result_of(const TlIndex *idx, TSNode e)
{
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	if (!ts_node_is_null(e) && ts_node_symbol(e) == sy->identifier) {
		const TlBinding *b = tl_index_resolve_node(idx, e);
		if (!b || b->kind != TL_BIND_ASSIGN || b->elem >= 0)
			return NULL;
		e = tl_index_unparen(b->value);
	}
	if (ts_node_is_null(e) || ts_node_symbol(e) != sy->call)
		return NULL;
	return tl_index_call_at(idx, e);
}

/* For `x[k]` with a literal key (a string, or an integer for a tuple):
 * *elem / *key (caller frees) and the subscripted value; false otherwise. */
static bool tl_facts__literal_subscript(const TlIndex *idx, TSNode sub, int32_t *elem, char **key,
					TSNode *object)
{
	const TlSyms *sy = tl_syms();
	TSNode k = tl_index_unparen(tl_tree_field(sub, sy->f_subscript));
	*elem = -1;
	*key = NULL;
	*object = tl_tree_field(sub, sy->f_value);
	if (ts_node_is_null(k))
		return false;
	if (ts_node_symbol(k) == sy->string) {
		uint32_t len = 0;
		const char *body = tl_facts__string_body(idx, k, &len);
		if (!body)
			return false;
		*key = tl_malloc(len + 1);
		memcpy(*key, body, len);
		(*key)[len] = 0;
		return true;
	}
	uint32_t len = 0;
	const char *t = ts_node_symbol(k) == sy->integer ? tl_index_text(idx, k, &len) : NULL;
	if (!t || !len || len > 2)
		return false;
	int32_t v = 0;
	for (uint32_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)t[i]))
			return false;
		v = v * 10 + (t[i] - '0');
	}
	*elem = v;
	return true;
}

/* ---- the walk: a work list ------------------------------------------------------ */

/* One question of the walk: expression `node` of `mod` read as an
 * iterable (`source`: the loaders it is) or as what a batch holds (the
 * loaders whose batches it holds). `ext`: reached through another module
 * (a parameter's call sites in an importer), read under the project's
 * lock. */
typedef struct TlLoaderAsk {
	const TlIndex *mod;
	TSNode node;
	bool source;
	bool ext;
} TlLoaderAsk;
typedef TlArray(TlLoaderAsk) TlLoaderAsks;

/* Asks `node` of `mod` next (the walk's stack: the last pushed first). */
static void tl_facts__ask(TlLoaderAsks *todo, const TlLoaderAsk *from, const TlIndex *mod, TSNode node,
			  bool source)
{
	TlLoaderAsk a = { mod, node, source, from->ext || mod != from->mod };
	tl_array_push(todo, a);
}

/* Follows parameter binding `b` of `a`'s module to the arguments of its
 * function's call sites (the model's: tl_model_param_sites, a
 * constructor's through the module's instantiations of its class, the
 * importers' for a function none of its module calls): as iterables
 * (`source`) or as batches; the first site's argument asked first. */
static void tl_facts__loader_param(const TlLoaderAsk *a, const TlBinding *b, TlLoaders *out, TlLoaderAsks *todo,
				   bool source)
{
	const TlParamArg *args;
	uint32_t n;
	if (!tl_model_param_sites(a->mod, b, TL_SITES_MAKERS_HERE | TL_SITES_IMPORTERS_ALONE, &args, &n))
		out->unknown = true;
	for (uint32_t i = n; i-- > 0;)
		tl_facts__ask(todo, a, args[i].mod, args[i].arg, source);
}

/* The clause of if statement `ifs` (its consequence block, an elif or
 * else clause) that holds `n`, or null. */
static TSNode tl_facts__clause_of(TSNode ifs, TSNode n)
{
	TSNode none = { 0 };
	uint32_t at = ts_node_start_byte(n);
	uint32_t count = ts_node_named_child_count(ifs);
	for (uint32_t i = 1; i < count; i++) {
		TSNode k = ts_node_named_child(ifs, i);
		if (ts_node_start_byte(k) <= at && at < ts_node_end_byte(k))
			return k;
	}
	return none;
}

/* Asks, beside plain assignment `b` of a name that `use` reads, the
 * assignments of that name in the other clauses of the if statement
 * around `b` that ends before `use` (`if dist: loader = DataLoader(ds,
 * sampler=...) else: loader = DataLoader(ds, shuffle=True)`, then `for x
 * in loader`): the last one of each clause, each a value the name may
 * hold there. The innermost such statement only. */
static void tl_facts__branch_values(const TlLoaderAsk *a, const TlBinding *b, TSNode use, TlLoaderAsks *todo)
{
	const TlSyms *sy = tl_syms();
	const TlIndex *idx = a->mod;
	TSNode ifs = ts_node_parent(b->stmt);
	while (!ts_node_is_null(ifs) && ts_node_symbol(ifs) != sy->if_statement &&
	       ts_node_symbol(ifs) != sy->function_definition)
		ifs = ts_node_parent(ifs);
	if (ts_node_is_null(ifs) || ts_node_symbol(ifs) != sy->if_statement ||
	    ts_node_end_byte(ifs) > ts_node_start_byte(use))
		return;
	TSNode mine = tl_facts__clause_of(ifs, b->stmt);
	const TlIntArray *all = tl_index_bindings_of(idx, b->func, b->name);
	for (uint32_t i = 0; all && i < all->size; i++) {
		const TlBinding *o = &idx->bindings.items[all->items[i]];
		if (o == b || ts_node_start_byte(o->stmt) < ts_node_start_byte(ifs) ||
		    ts_node_end_byte(o->stmt) > ts_node_end_byte(ifs))
			continue;
		TSNode theirs = tl_facts__clause_of(ifs, o->stmt);
		if (ts_node_is_null(theirs) || ts_node_is_null(mine) || ts_node_eq(theirs, mine))
			continue;
		/* the last binding of the name in that clause */
		bool last = true;
		for (uint32_t j = 0; j < all->size && last; j++) {
			const TlBinding *p = &idx->bindings.items[all->items[j]];
			last = p == o || ts_node_start_byte(p->stmt) <= ts_node_start_byte(o->stmt) ||
			       ts_node_start_byte(p->stmt) >= ts_node_end_byte(theirs);
		}
		TSNode v = last && o->kind == TL_BIND_ASSIGN && o->elem < 0 ? tl_facts__bound_value(o) : (TSNode){ 0 };
		if (!ts_node_is_null(v))
			tl_facts__ask(todo, a, idx, v, true);
	}
}

/* The loaders an iterable expression is (a DataLoader, a name bound to
 * one, a local function returning one, a parameter passed one). */
static void tl_facts__source_step(const TlLoaderAsk *a, TlLoaders *out, TlLoaderAsks *todo)
{
	const TlSyms *sy = tl_syms();
	const TlIndex *idx = a->mod;
	TSNode it = a->node;
	TSSymbol s = ts_node_symbol(it);
	if (s == sy->call) {
		const TlCall *c = tl_index_call_at(idx, it);
		if (c && tl_facts__makes_loader(idx, c)) {
			tl_array_push(&out->calls, ((TlMade){ idx, it }));
			return;
		}
		/* `pbar = tqdm(enumerate(loader))`, then `for i, b in pbar`: a
		 * wrapper that iterates what it wraps iterates that loader. */
		bool enumerated = false;
		TSNode inner = tl_facts__unwrap_iterable(idx, it, &enumerated);
		if (!ts_node_eq(inner, it)) {
			tl_facts__ask(todo, a, idx, inner, true);
			return;
		}
		/* A function of the project that builds it and hands it back. */
		tl_facts__handed_loaders(idx, c, -1, NULL, &out->calls, &out->unknown);
		return;
	}
	if (s == sy->subscript) {
		/* loaders["train"], make_loaders()[0] */
		int32_t elem;
		char *key;
		TSNode obj;
		const TlCall *c = tl_facts__literal_subscript(idx, it, &elem, &key, &obj)
					  ? tl_facts__result_of(idx, obj) : NULL;
		if (c)
			tl_facts__handed_loaders(idx, c, elem, key, &out->calls, &out->unknown);
		else
			out->unknown = true;
		tl_free(key);
		return;
	}
	if (s != sy->identifier && s != sy->attribute) {
		out->unknown = true;
		return;
	}
	const TlBinding *b = tl_index_resolve_node(idx, it);
	if (b && b->kind == TL_BIND_PARAM) {
		tl_facts__loader_param(a, b, out, todo, true);
		return;
	}
	TSNode v = tl_facts__bound_value(b);
	if (!ts_node_is_null(v) && b->elem >= 0 && b->depth == 1 && b->kind == TL_BIND_ASSIGN &&
	    ts_node_symbol(tl_index_unparen(b->value)) == sy->call) {
		/* `model, loader = build(cfg)`: an element of what it returns */
		tl_facts__handed_loaders(idx, tl_index_call_at(idx, v), b->elem, NULL, &out->calls,
					 &out->unknown);
		return;
	}
	if (ts_node_is_null(v) || b->elem >= 0) {
		out->unknown = true;
		return;
	}
	tl_facts__ask(todo, a, idx, v, true);
	if (b->kind == TL_BIND_ASSIGN)
		tl_facts__branch_values(a, b, it, todo);
}

/* The DataLoaders whose batches an expression holds: a loop target over
 * a loader (not enumerate's counter), an element or field of one, a name
 * unpacked from one, `next(iter(loader))`, a parameter passed one. */
static void tl_facts__loaders_step(const TlLoaderAsk *a, TlLoaders *out, TlLoaderAsks *todo)
{
	const TlSyms *sy = tl_syms();
	const TlIndex *idx = a->mod;
	TSNode expr = a->node;
	TSSymbol s = ts_node_symbol(expr);
	if (s == sy->subscript) {
		tl_facts__ask(todo, a, idx, tl_tree_field(expr, sy->f_value), false);
		return;
	}
	if (s == sy->call) {
		/* next(it), next(iter(loader)) */
		const TlCall *c = tl_index_call_at(idx, expr);
		if (c && !c->receiver.id && c->method && strcmp(c->method, "next") == 0 && !c->qname) {
			bool enumerated = false;
			TSNode it = tl_facts__unwrap_iterable(idx, tl_facts__arg(expr, 0), &enumerated);
			const TlBinding *ib = ts_node_symbol(tl_index_unparen(it)) == sy->identifier
						      ? tl_index_resolve_node(idx, it) : NULL;
			TSNode iv = tl_facts__bound_value(ib);
			if (!ts_node_is_null(iv))
				it = tl_facts__unwrap_iterable(idx, iv, &enumerated);
			if (!enumerated) {
				tl_facts__ask(todo, a, idx, it, true);
				return;
			}
		}
		out->unknown = true;
		return;
	}
	if (s != sy->identifier && s != sy->attribute) {
		out->unknown = true;
		return;
	}
	if (s == sy->identifier && tl_facts__comprehension_local(idx, expr)) {
		out->unknown = true;
		return;
	}
	const TlBinding *b = tl_index_resolve_node(idx, expr);
	if (!b && s == sy->attribute) { /* batch.image */
		tl_facts__ask(todo, a, idx, tl_tree_field(expr, sy->f_object), false);
		return;
	}
	if (!b) {
		out->unknown = true;
		return;
	}
	if (b->kind == TL_BIND_FOR) {
		bool enumerated = false;
		TSNode it = tl_facts__unwrap_iterable(idx, b->value, &enumerated);
		/* for i, b in pbar, with pbar = tqdm(enumerate(loader)): what
		 * the name holds decides whether the first element counts */
		const TlBinding *ib = ts_node_symbol(tl_index_unparen(it)) == sy->identifier
					      ? tl_index_resolve_node(idx, it) : NULL;
		TSNode iv = ib && ib->elem < 0 ? tl_facts__bound_value(ib) : (TSNode){ 0 };
		if (!ts_node_is_null(iv) && ts_node_symbol(iv) == sy->call)
			tl_facts__unwrap_iterable(idx, iv, &enumerated);
		if (enumerated && b->elem == 0) {
			out->unknown = true; /* enumerate's counter */
			return;
		}
		/* for k, v in batch.items(): the values of a batch */
		const TlCall *c = ts_node_symbol(tl_index_unparen(it)) == sy->call
					  ? tl_index_call_at(idx, tl_index_unparen(it)) : NULL;
		if (c && c->receiver.id && c->method &&
		    (strcmp(c->method, "items") == 0 || strcmp(c->method, "values") == 0)) {
			tl_facts__ask(todo, a, idx, c->receiver, false);
			return;
		}
		tl_facts__ask(todo, a, idx, it, true);
		return;
	}
	if (b->kind == TL_BIND_PARAM) {
		tl_facts__loader_param(a, b, out, todo, false);
		return;
	}
	TSNode v = tl_facts__bound_value(b);
	if (ts_node_is_null(v)) {
		out->unknown = true;
		return;
	}
	TSSymbol vs = ts_node_symbol(v);
	if (vs == sy->identifier || vs == sy->attribute || vs == sy->subscript || vs == sy->call)
		tl_facts__ask(todo, a, idx, v, false);
	else
		out->unknown = true;
}

/* Runs the walk from `expr` of `idx` (as an iterable: `source`), the
 * questions it leads to asked depth first, in the order the call sites
 * and bindings give them. Each question is a step of the thread's bound
 * (tl_bound_poll) and of the walk's budget (out->budget): past either, what
 * is left is not known. No depth: a chain of names or parameters as long
 * as the budget is followed to its end. */
static void tl_facts__loaders_walk(const TlIndex *idx, TSNode expr, bool source, TlLoaders *out)
{
	TlLoaderAsks todo;
	tl_array_init(&todo);
	tl_array_push(&todo, ((TlLoaderAsk){ idx, expr, source, false }));
	while (todo.size) {
		TlLoaderAsk a = todo.items[--todo.size];
		a.node = tl_index_unparen(a.node);
		if (ts_node_is_null(a.node)) {
			out->unknown = true;
			continue;
		}
		if (--out->budget < 0 || tl_bound_poll()) {
			out->unknown = true;
			break;
		}
		if (a.ext)
			tl_facts__ext_enter(idx);
		if (a.source)
			tl_facts__source_step(&a, out, &todo);
		else
			tl_facts__loaders_step(&a, out, &todo);
		if (a.ext)
			tl_facts__ext_leave(idx);
	}
	tl_array_release(&todo);
}

void tl_facts__loader_source(const TlIndex *idx, TSNode it, TlLoaders *out)
{
	tl_facts__loaders_walk(idx, it, true, out);
}

void tl_facts__loader_values(const TlIndex *idx, TSNode expr, TlMades *out, bool *unknown)
{
	TlLoaders ls;
	tl_array_init(&ls.calls);
	ls.unknown = false;
	ls.budget = TL_FACTS_BUDGET;
	tl_facts__loader_source(idx, expr, &ls);
	for (uint32_t i = 0; i < ls.calls.size; i++)
		tl_array_push(out, ls.calls.items[i]);
	*unknown = *unknown || ls.unknown;
	tl_array_release(&ls.calls);
}

/* Wrappers that iterate what they wrap: enumerate(loader), tqdm(loader). */
TSNode tl_facts__unwrap_iterable(const TlIndex *idx, TSNode it, bool *enumerated)
{
	const TlSyms *sy = tl_syms();
	for (int depth = 0; depth < TL_FACTS_DEPTH; depth++) {
		it = tl_index_unparen(it);
		if (ts_node_is_null(it) || ts_node_symbol(it) != sy->call)
			return it;
		const TlCall *c = tl_index_call_at(idx, it);
		const char *name = c ? (c->qname ? c->qname : (!c->receiver.id ? c->method : NULL)) : NULL;
		/* api/api.tsv: builtins.enumerate, tqdm.tqdm, ... */
		uint64_t sets = !name ? 0 : strchr(name, '.') ? tl_api_qualified_sets(name) : tl_api_builtin_sets(name);
		if (!(sets & TL_APIS_ITERATES))
			return it;
		if (strcmp(name, "enumerate") == 0)
			*enumerated = true;
		it = tl_facts__arg(it, 0);
	}
	return it;
}

void tl_facts__loaders_collect(const TlIndex *idx, TSNode expr, TlLoaders *out)
{
	tl_array_init(&out->calls);
	out->unknown = false;
	out->budget = TL_FACTS_BUDGET;
	tl_facts__loaders_walk(idx, expr, false, out);
}

/* True when DataLoader(...) call `call` of `idx` sets `option` to a value
 * that is not off (False, None, 0), or may through `**kwargs`. */
static bool tl_facts__option_set(const TlIndex *idx, TSNode call, const char *option)
{
	const TlSyms *sy = tl_syms();
	TSNode v = tl_facts__kwarg(idx, call, option);
	/* An option passed without its keyword: the loader class's positional
	 * parameters (the table's params of its row, torch_geometric's
	 * DataLoader; else those of torch.utils.data.DataLoader, which a
	 * class of the project deriving from it has). */
	const TlCall *c = tl_index_call_at(idx, call);
	const TlApiRow *own = c && c->qname ? tl_api_qualified(c->qname) : NULL;
	if (!own || !own->params)
		own = tl_api_qualified("torch.utils.data.DataLoader");
	int place = ts_node_is_null(v) ? tl_api_param_place(own, option) : -1;
	if (place >= 0)
		v = tl_facts__arg(call, (uint32_t)place);
	if (ts_node_is_null(v))
		return tl_facts_passes_keyword(idx, call, option); /* DataLoader(ds, **kwargs) */
	v = tl_index_unparen(v);
	TSSymbol s = ts_node_symbol(v);
	return !(s == sy->false_ || s == sy->none ||
		 (s == sy->integer && tl_index_text_is(idx, v, "0")));
}

bool tl_facts_loader_option(const TlIndex *idx, TSNode expr, const char *option)
{
	const TlSyms *sy = tl_syms();
	TlLoaders ls;
	if (tl_facts_is_api(idx, expr, TL_API_DATA_LOADER) &&
	    ts_node_symbol(tl_index_unparen(expr)) == sy->call) {
		/* The DataLoader(...) call itself. */
		tl_array_init(&ls.calls);
		tl_array_push(&ls.calls, ((TlMade){ idx, tl_index_unparen(expr) }));
	} else {
		tl_facts__loaders_collect(idx, expr, &ls);
	}
	bool set = false;
	for (uint32_t i = 0; i < ls.calls.size && !set; i++) {
		const TlIndex *mod = ls.calls.items[i].idx;
		TSNode call = ls.calls.items[i].node;
		bool ext = mod != idx;
		if (ext)
			tl_facts__ext_enter(idx);
		set = tl_facts__option_set(mod, call, option);
		if (ext)
			tl_facts__ext_leave(idx);
	}
	tl_array_release(&ls.calls);
	return set;
}

/* ---- where a DataLoader's batches go ------------------------------------------------ */

/* ---- distributed samplers and their epoch ------------------------------------------- */

/* True when `v` is None, or the construction of a sampler of the API
 * table that is no DistributedSampler (`RandomSampler(ds)`: kind
 * sampler): what a run outside distributed training draws from instead,
 * beside a DistributedSampler in the other branch. */
static bool tl_facts__single_process_sampler(const TlIndex *idx, TSNode v)
{
	const TlSyms *sy = tl_syms();
	TSSymbol s = ts_node_symbol(v);
	if (s == sy->none)
		return true;
	const TlCall *c = s == sy->call ? tl_index_call_at(idx, v) : NULL;
	const TlApiRow *r = c && c->qname ? tl_api_qualified(c->qname) : NULL;
	return r && r->kind == TL_APIK_SAMPLER && !(r->sets & TL_APIS_DISTRIBUTED_SAMPLER);
}

/* The DistributedSampler(...) construction `e` holds: itself, or what the
 * names (all their bindings in the scope, `sampler = DistributedSampler(ds)
 * if distributed else None` included) and `self.` attributes it reads are
 * bound to, or what a function of the project that builds one hands back
 * (facts/handed.c). A None or a single-process sampler of the API
 * (`RandomSampler(ds) if rank == -1 else DistributedSampler(ds)`) beside
 * it is what runs outside distributed training, and is passed over. Null
 * (idx NULL) when none, or more than one, can be told. */
TlMade tl_facts__sampler_ctor(const TlIndex *idx, TSNode e, int depth)
{
	const TlSyms *sy = tl_syms();
	TlMade none = { 0 };
	e = tl_index_unparen(e);
	if (ts_node_is_null(e) || depth > TL_FACTS_DEPTH)
		return none;
	TSSymbol s = ts_node_symbol(e);
	if (s == sy->call) {
		const TlCall *c = tl_index_call_at(idx, e);
		if (c && (tl_api_qualified_sets(c->qname) & TL_APIS_DISTRIBUTED_SAMPLER))
			return (TlMade){ idx, e };
		return c ? tl_facts__handed_sampler(idx, c, -1, NULL) : none;
	}
	if (s == sy->conditional_expression) {
		/* DistributedSampler(ds) if distributed else None */
		TlMade found = none;
		uint32_t count = ts_node_named_child_count(e);
		for (uint32_t i = 0; i < count; i += 2) {
			TSNode v = tl_index_unparen(ts_node_named_child(e, i));
			if (tl_facts__single_process_sampler(idx, v))
				continue;
			TlMade r = tl_facts__sampler_ctor(idx, v, depth + 1);
			if (!r.idx || (found.idx && !ts_node_eq(found.node, r.node)))
				return none;
			found = r;
		}
		return found;
	}
	if (s != sy->identifier && s != sy->attribute)
		return none;
	const TlBinding *b = tl_index_resolve_node(idx, e);
	if (!b || b->kind != TL_BIND_ASSIGN)
		return none;
	/* Every binding of the name in its scope: one DistributedSampler, the
	 * others None. */
	const TlIntArray *all = b->class_body || b->cls >= 0 ? NULL : tl_index_bindings_of(idx, b->func, b->name);
	if (!all)
		return b->elem >= 0 ? none : tl_facts__sampler_ctor(idx, b->value, depth + 1);
	TlMade found = none;
	for (uint32_t i = 0; i < all->size; i++) {
		const TlBinding *o = &idx->bindings.items[all->items[i]];
		TSNode v = tl_index_unparen(o->value);
		if (o->kind != TL_BIND_ASSIGN || ts_node_is_null(v))
			return none;
		TlMade r;
		if (o->elem >= 0) {
			/* `loader, sampler = build(cfg)`: an element of what a
			 * function of the project returns */
			const TlCall *c = o->depth == 1 && ts_node_symbol(v) == sy->call
						  ? tl_index_call_at(idx, v) : NULL;
			if (!c)
				return none;
			r = tl_facts__handed_sampler(idx, c, o->elem, NULL);
		} else {
			if (tl_facts__single_process_sampler(idx, v))
				continue;
			r = tl_facts__sampler_ctor(idx, v, depth + 1);
		}
		if (!r.idx || (found.idx && !ts_node_eq(found.node, r.node)))
			return none;
		found = r;
	}
	return found;
}

TlMade tl_facts__sampler_of(const TlIndex *idx, TSNode expr)
{
	return tl_facts__sampler_ctor(idx, expr, 0);
}

