/* Data loaders: the DataLoader a batch comes from and the options it was built
 * with (pin_memory, num_workers, ...), and the DistributedSampler it draws
 * from. A loader or sampler may be built by a function of the project, in
 * the file or in another module, and handed back (itself, in a tuple, in a
 * dict): facts/handed.c summarises what such a function returns, and the
 * constructions found are kept with the index of the module that holds
 * them (TlMade).
 *
 * Owns: tl_facts_from_loader, tl_facts_loader_option, tl_facts_feeds_step_loop,
 * tl_facts_sampler_epoch_unset, tl_facts__loader_values, tl_facts__sampler_of. */
#include "model/model.h"
#include "facts/internal.h"
#include "model/model.h"

typedef struct TlLoaders {
	TlMades calls;         /* DataLoader(...) constructions */
	bool unknown;          /* some way the value arrives is not one */
	int budget;            /* steps left (TL_FACTS_BUDGET) */
} TlLoaders;

static void tl_facts__loader_source(const TlIndex *idx, TSNode it, TlLoaders *out, int depth);
static void tl_facts__loaders(const TlIndex *idx, TSNode expr, TlLoaders *out, int depth);

/* ---- DataLoader batches ---------------------------------------------------------------- */

/* Call `c` makes a DataLoader: PyTorch's, or a class of the project that
 * derives from it (the model's value, model/bases.c), whose arguments are
 * then read by keyword only. */
static bool tl_facts__makes_loader(const TlIndex *idx, const TlCall *c)
{
	if (c->qname && tl_facts__qname_is_api(c->qname, TL_API_DATA_LOADER))
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

/* tl_facts__ext_param_args: the argument another module passes, followed
 * in that module. */
typedef struct TlLoaderArgs {
	TlLoaders *out;
	int depth;
	bool source;
} TlLoaderArgs;

static bool tl_facts__loader_ext_arg(const TlIndex *mod, TSNode arg, void *data)
{
	TlLoaderArgs *la = data;
	if (la->source)
		tl_facts__loader_source(mod, arg, la->out, la->depth + 1);
	else
		tl_facts__loaders(mod, arg, la->out, la->depth + 1);
	return !la->out->unknown;
}

/* Follows parameter binding `b` to the arguments of its function's call
 * sites: as iterables (`source`) or as batches. */
static void tl_facts__loader_param(const TlIndex *idx, const TlBinding *b, TlLoaders *out,
				  int depth, bool source)
{
	const TlFunc *f = b->func >= 0 ? &idx->funcs.items[b->func] : NULL;
	int32_t k = f ? tl_facts__param_index(idx, f, b->name, strlen(b->name)) : -1;
	if (k > 0 && !f->escapes && !f->call_sites.size && f->cls >= 0 &&
	    strcmp(f->name, "__init__") == 0) {
		/* A constructor's parameter (`Trainer(model, train_data, ...)`
		 * keeps it as self.train_data): what every instantiation of
		 * the class in the file passes. */
		TlIntArray sites;
		tl_array_init(&sites);
		bool known = tl_facts__instantiations(idx, f->cls, &sites);
		for (uint32_t i = 0; known && i < sites.size; i++) {
			const TlCall *c = &idx->calls.items[sites.items[i]];
			TSNode arg = c->func == b->func ? (TSNode){ 0 } : tl_facts__kwarg(idx, c->node, b->name);
			if (ts_node_is_null(arg) && c->func != b->func)
				arg = tl_facts__arg(c->node, (uint32_t)(k - 1));
			if (ts_node_is_null(arg)) {
				out->unknown = true;
				continue;
			}
			if (source)
				tl_facts__loader_source(idx, arg, out, depth + 1);
			else
				tl_facts__loaders(idx, arg, out, depth + 1);
		}
		if (!known)
			out->unknown = true;
		tl_array_release(&sites);
		return;
	}
	if (k >= 0 && !f->escapes && !f->call_sites.size && idx->imports) {
		/* A function only other modules of the project call
		 * (`fit_one_epoch(..., gen, ...)` in train.py's epoch loop):
		 * what each of their call sites passes, followed there. */
		TlLoaderArgs la = { out, depth, source };
		if (!tl_facts__ext_param_args(idx, b, tl_facts__loader_ext_arg, &la))
			out->unknown = true;
		return;
	}
	if (k < 0 || f->escapes || !f->call_sites.size) {
		out->unknown = true;
		return;
	}
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		TSNode arg = c->func == b->func ? (TSNode){ 0 } : tl_facts__param_arg(idx, f, k, c);
		if (ts_node_is_null(arg)) {
			out->unknown = true;
			continue;
		}
		if (source)
			tl_facts__loader_source(idx, arg, out, depth + 1);
		else
			tl_facts__loaders(idx, arg, out, depth + 1);
	}
}

/* The loaders an iterable expression is (a DataLoader, a name bound to
 * one, a local function returning one, a parameter passed one). */
static void tl_facts__loader_source(const TlIndex *idx, TSNode it, TlLoaders *out, int depth)
{
	const TlSyms *sy = tl_syms();
	it = tl_index_unparen(it);
	if (ts_node_is_null(it) || depth > TL_FACTS_DEPTH || --out->budget < 0) {
		out->unknown = true;
		return;
	}
	TSSymbol s = ts_node_symbol(it);
	if (s == sy->call) {
		const TlCall *c = tl_index_call_at(idx, it);
		if (c && tl_facts__makes_loader(idx, c)) {
			tl_array_push(&out->calls, ((TlMade){ idx, it }));
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
		tl_facts__loader_param(idx, b, out, depth, true);
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
	tl_facts__loader_source(idx, v, out, depth + 1);
}

void tl_facts__loader_values(const TlIndex *idx, TSNode expr, TlMades *out, bool *unknown)
{
	TlLoaders ls;
	tl_array_init(&ls.calls);
	ls.unknown = false;
	ls.budget = TL_FACTS_BUDGET;
	tl_facts__loader_source(idx, expr, &ls, 0);
	for (uint32_t i = 0; i < ls.calls.size; i++)
		tl_array_push(out, ls.calls.items[i]);
	*unknown = *unknown || ls.unknown;
	tl_array_release(&ls.calls);
}

/* Wrappers that iterate what they wrap: enumerate(loader), tqdm(loader). */
static TSNode tl_facts__unwrap_iterable(const TlIndex *idx, TSNode it, bool *enumerated)
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

/* Collects the DataLoaders whose batches `expr` holds: a loop target over
 * a loader (not enumerate's counter), an element or field of one, a name
 * unpacked from one, `next(iter(loader))`, a parameter passed one. */
static void tl_facts__loaders(const TlIndex *idx, TSNode expr, TlLoaders *out, int depth)
{
	const TlSyms *sy = tl_syms();
	expr = tl_index_unparen(expr);
	if (ts_node_is_null(expr) || depth > TL_FACTS_DEPTH || --out->budget < 0) {
		out->unknown = true;
		return;
	}
	TSSymbol s = ts_node_symbol(expr);
	if (s == sy->subscript) {
		tl_facts__loaders(idx, tl_tree_field(expr, sy->f_value), out, depth + 1);
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
				tl_facts__loader_source(idx, it, out, depth + 1);
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
		tl_facts__loaders(idx, tl_tree_field(expr, sy->f_object), out, depth + 1);
		return;
	}
	if (!b) {
		out->unknown = true;
		return;
	}
	if (b->kind == TL_BIND_FOR) {
		bool enumerated = false;
		TSNode it = tl_facts__unwrap_iterable(idx, b->value, &enumerated);
		if (enumerated && b->elem == 0) {
			out->unknown = true; /* enumerate's counter */
			return;
		}
		/* for k, v in batch.items(): the values of a batch */
		const TlCall *c = ts_node_symbol(tl_index_unparen(it)) == sy->call
					  ? tl_index_call_at(idx, tl_index_unparen(it)) : NULL;
		if (c && c->receiver.id && c->method &&
		    (strcmp(c->method, "items") == 0 || strcmp(c->method, "values") == 0)) {
			tl_facts__loaders(idx, c->receiver, out, depth + 1);
			return;
		}
		tl_facts__loader_source(idx, it, out, depth + 1);
		return;
	}
	if (b->kind == TL_BIND_PARAM) {
		tl_facts__loader_param(idx, b, out, depth, false);
		return;
	}
	TSNode v = tl_facts__bound_value(b);
	if (ts_node_is_null(v)) {
		out->unknown = true;
		return;
	}
	TSSymbol vs = ts_node_symbol(v);
	if (vs == sy->identifier || vs == sy->attribute || vs == sy->subscript || vs == sy->call)
		tl_facts__loaders(idx, v, out, depth + 1);
	else
		out->unknown = true;
}

static void tl_facts__loaders_collect(const TlIndex *idx, TSNode expr, TlLoaders *out)
{
	tl_array_init(&out->calls);
	out->unknown = false;
	out->budget = TL_FACTS_BUDGET;
	tl_facts__loaders(idx, expr, out, 0);
}

bool tl_facts_from_loader(const TlIndex *idx, TSNode expr)
{
	TlLoaders ls;
	tl_facts__loaders_collect(idx, expr, &ls);
	bool yes = ls.calls.size > 0 && !ls.unknown;
	tl_array_release(&ls.calls);
	return yes;
}

/* True when DataLoader(...) call `call` of `idx` sets `option` to a value
 * that is not off (False, None, 0), or may through `**kwargs`. */
static bool tl_facts__option_set(const TlIndex *idx, TSNode call, const char *option)
{
	const TlSyms *sy = tl_syms();
	TSNode v = tl_facts__kwarg(idx, call, option);
	/* An option passed without its keyword: DataLoader's positional
	 * parameters (the table's params of torch.utils.data.DataLoader). */
	int place = ts_node_is_null(v) ? tl_api_param_place(tl_api_qualified("torch.utils.data.DataLoader"), option)
				       : -1;
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

bool tl_facts_feeds_step_loop(const TlIndex *idx, TSNode call, uint32_t kinds)
{
	const TlSyms *sy = tl_syms();
	call = tl_index_unparen(call);
	if (!tl_facts_is_api(idx, call, TL_API_DATA_LOADER) || ts_node_symbol(call) != sy->call)
		return false;
	bool feeds = false;
	for (uint32_t i = 0; i < idx->loops.size && !feeds; i++) {
		const TlLoop *l = &idx->loops.items[i];
		if (!(l->step & kinds) || ts_node_symbol(l->node) != sy->for_statement)
			continue;
		bool enumerated = false;
		TSNode it = tl_facts__unwrap_iterable(idx, tl_tree_field(l->node, sy->f_right),
						      &enumerated);
		TlLoaders ls;
		tl_array_init(&ls.calls);
		ls.unknown = false;
		ls.budget = TL_FACTS_BUDGET;
		tl_facts__loader_source(idx, it, &ls, 0);
		for (uint32_t k = 0; k < ls.calls.size && !feeds; k++)
			feeds = ts_node_eq(ls.calls.items[k].node, call);
		tl_array_release(&ls.calls);
	}
	return feeds;
}

/* ---- distributed samplers and their epoch ------------------------------------------- */

/* The DistributedSampler(...) construction `e` holds: itself, or what the
 * names (all their bindings in the scope, `sampler = DistributedSampler(ds)
 * if distributed else None` included) and `self.` attributes it reads are
 * bound to, or what a function of the project that builds one hands back
 * (facts/handed.c). Null (idx NULL) when none, or more than one, can be
 * told. */
static TlMade tl_facts__sampler_ctor(const TlIndex *idx, TSNode e, int depth)
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
			if (ts_node_symbol(v) == sy->none)
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
			if (ts_node_symbol(v) == sy->none)
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

/* True when DistributedSampler(...) call `ctor` shuffles: `shuffle` not
 * passed (it defaults to True) or passed a literal True. */
static bool tl_facts__sampler_shuffles(const TlIndex *idx, TSNode ctor)
{
	if (!tl_facts_passes_argument(idx, ctor, "shuffle"))
		return true;
	TSNode v = tl_index_unparen(tl_facts_argument(idx, ctor, "shuffle"));
	return !ts_node_is_null(v) && ts_node_symbol(v) == tl_syms()->true_;
}

static TSNode tl_facts__batch_sampler_source(const TlIndex *idx, TSNode e);

/* The DistributedSampler the DataLoader(...) construction `loader` draws
 * from (its `sampler`, or its BatchSampler's); null when none is told.
 * Under the enter() of loader.idx when it is another module's. */
static TlMade tl_facts__loader_sampler(TlMade loader)
{
	TlMade none = { 0 };
	TSNode sampler = tl_facts_argument(loader.idx, loader.node, "sampler");
	if (ts_node_is_null(sampler))
		sampler = tl_facts__batch_sampler_source(loader.idx,
							 tl_facts_argument(loader.idx, loader.node, "batch_sampler"));
	return ts_node_is_null(sampler) ? none : tl_facts__sampler_ctor(loader.idx, sampler, 0);
}

/* The sampler of the one DataLoader `obj` of `idx` is (`obj.sampler`);
 * null when it cannot be told. */
static TlMade tl_facts__sampler_through(const TlIndex *idx, TSNode obj)
{
	TlMade r = { 0 };
	TlLoaders ls;
	tl_array_init(&ls.calls);
	ls.unknown = false;
	ls.budget = TL_FACTS_BUDGET;
	tl_facts__loader_source(idx, obj, &ls, 0);
	if (ls.calls.size == 1 && !ls.unknown) {
		bool ext = ls.calls.items[0].idx != idx;
		if (ext)
			tl_facts__ext_enter(idx);
		r = tl_facts__loader_sampler(ls.calls.items[0]);
		if (ext)
			tl_facts__ext_leave(idx);
	}
	tl_array_release(&ls.calls);
	return r;
}

/* The DistributedSampler(...) construction whose epoch a `.set_epoch()`
 * on `recv` sets: the sampler a name holds, `loader.sampler` (or
 * `loader.batch_sampler.sampler`) of one DataLoader built in the project, a
 * parameter every caller passes the same one. Null when it cannot be
 * told. */
static TlMade tl_facts__epoch_target(const TlIndex *idx, TSNode recv, int depth)
{
	const TlSyms *sy = tl_syms();
	TlMade none = { 0 };
	recv = tl_index_unparen(recv);
	if (ts_node_is_null(recv) || depth > TL_FACTS_DEPTH)
		return none;
	TlMade r = tl_facts__sampler_ctor(idx, recv, 0);
	if (r.idx)
		return r;
	TSSymbol s = ts_node_symbol(recv);
	if (s == sy->attribute) {
		TSNode at = tl_tree_field(recv, sy->f_attribute);
		TSNode obj = tl_index_unparen(tl_tree_field(recv, sy->f_object));
		if (!tl_index_text_is(idx, at, "sampler"))
			return none;
		/* loader.batch_sampler.sampler */
		if (ts_node_symbol(obj) == sy->attribute &&
		    tl_index_text_is(idx, tl_tree_field(obj, sy->f_attribute), "batch_sampler"))
			obj = tl_tree_field(obj, sy->f_object);
		return tl_facts__sampler_through(idx, obj);
	}
	if (s != sy->identifier)
		return none;
	const TlBinding *b = tl_index_resolve_node(idx, recv);
	if (!b || b->kind != TL_BIND_PARAM || b->func < 0)
		return none;
	/* A parameter: every caller passes the same sampler. */
	const TlFunc *f = &idx->funcs.items[b->func];
	if (f->escapes || !f->call_sites.size)
		return none;
	TlMade agreed = none;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		TSNode arg = c->func == b->func ? (TSNode){ 0 } : tl_facts__param_arg_of(idx, b, c);
		TlMade t = ts_node_is_null(arg) ? none : tl_facts__epoch_target(idx, arg, depth + 1);
		if (!t.idx || (agreed.idx && !ts_node_eq(t.node, agreed.node)))
			return none;
		agreed = t;
	}
	return agreed;
}

/* True when call `c` of `idx` runs a function of the project that sets
 * the epoch of what it is handed (the model's summary: model/epochs.c),
 * and what it is handed there may be sampler `ctor`: the sampler itself,
 * a loader drawing from it, or something neither can be told of. */
static bool tl_facts__epoch_set_by_callee(const TlIndex *idx, const TlCall *c, TlMade ctor)
{
	TlExtDef d;
	if (!tl_facts__argc(c->node) || !tl_facts__callee_def(idx, c, &d))
		return false;
	bool ext = d.idx != idx, yes = false;
	if (ext)
		tl_facts__ext_enter(idx);
	uint16_t sets = tl_model_epoch_params(d.idx, d.func);
	const TlFunc *f = &d.idx->funcs.items[d.func];
	for (uint32_t k = 0; !yes && sets && k < f->params.size && k < 16; k++) {
		if (!(sets & (1u << k)))
			continue;
		const char *pname = d.idx->bindings.items[f->params.items[k]].name;
		TSNode arg = ext ? tl_facts__ext_param_arg(idx, c, &d, pname, strlen(pname))
				 : tl_facts__param_arg(idx, f, (int32_t)k, c);
		if (ts_node_is_null(arg))
			continue;
		/* The sampler a loader handed over draws from, or the sampler
		 * handed over itself. */
		TlMade through = tl_facts__sampler_through(idx, arg);
		TlMade itself = tl_facts__epoch_target(idx, arg, 0);
		yes = (through.idx && ts_node_eq(through.node, ctor.node)) ||
		      (itself.idx && ts_node_eq(itself.node, ctor.node)) || (!through.idx && !itself.idx);
	}
	if (ext)
		tl_facts__ext_leave(idx);
	return yes;
}

/* True when something in the calls of `idx` may set the epoch of sampler
 * `ctor`: a `.set_epoch(...)` call whose receiver is not known to be
 * another DistributedSampler (tl_facts__epoch_target), a name bound to it
 * handed to a call other than a DataLoader or BatchSampler (a helper,
 * accelerate, a trainer) that may, or a function of the project that
 * sets the epoch of the loader or sampler it is handed. */
static bool tl_facts__epoch_may_be_set_in(const TlIndex *idx, TlMade ctor)
{
	const TlSyms *sy = tl_syms();
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (c->method && strcmp(c->method, "set_epoch") == 0) {
			TlMade other = c->receiver.id ? tl_facts__epoch_target(idx, c->receiver, 0) : (TlMade){ 0 };
			if (!other.idx || ts_node_eq(other.node, ctor.node))
				return true;
			continue;
		}
		if (c->qname && (tl_facts__qname_is_api(c->qname, TL_API_DATA_LOADER) ||
				 (tl_facts__starts(c->qname, "torch.utils.data.") &&
				  tl_facts__ends(c->qname, ".BatchSampler"))))
			continue;
		TSNode args = tl_tree_field(c->node, sy->f_arguments);
		uint32_t count = ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list
					 ? 0 : ts_node_named_child_count(args);
		for (uint32_t k = 0; k < count; k++) {
			TSNode a = ts_node_named_child(args, k);
			if (ts_node_symbol(a) == sy->keyword_argument)
				a = tl_tree_field(a, sy->f_value);
			a = tl_index_unparen(a);
			if (ts_node_is_null(a) || (ts_node_symbol(a) != sy->identifier &&
						   ts_node_symbol(a) != sy->attribute))
				continue;
			TlMade r = tl_facts__sampler_ctor(idx, a, 0);
			/* (a DataLoader of a class of the project sets no epoch) */
			if (r.idx && ts_node_eq(r.node, ctor.node) && !tl_facts__makes_loader(idx, c))
				return true;
		}
		if (count && tl_facts__epoch_set_by_callee(idx, c, ctor) && !tl_facts__makes_loader(idx, c))
			return true;
	}
	return false;
}

/* The same over the analysed file and, when the sampler is built in
 * another module of the project, over that module too. */
static bool tl_facts__epoch_may_be_set(const TlIndex *idx, TlMade ctor)
{
	if (tl_facts__epoch_may_be_set_in(idx, ctor))
		return true;
	if (ctor.idx == idx)
		return false;
	tl_facts__ext_enter(idx);
	bool yes = tl_facts__epoch_may_be_set_in(ctor.idx, ctor);
	tl_facts__ext_leave(idx);
	return yes;
}

/* The sampler a BatchSampler(...) that `e` holds (or is) draws from. */
static TSNode tl_facts__batch_sampler_source(const TlIndex *idx, TSNode e)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	for (int depth = 0; depth <= TL_FACTS_DEPTH; depth++) {
		e = tl_index_unparen(e);
		if (ts_node_is_null(e))
			return none;
		TSSymbol s = ts_node_symbol(e);
		if (s == sy->identifier || s == sy->attribute) {
			const TlBinding *b = tl_index_resolve_node(idx, e);
			if (!b || b->kind != TL_BIND_ASSIGN || b->elem >= 0)
				return none;
			e = b->value;
			continue;
		}
		const TlCall *c = s == sy->call ? tl_index_call_at(idx, e) : NULL;
		if (!c || !c->qname || !tl_facts__ends(c->qname, ".BatchSampler") ||
		    !tl_facts__starts(c->qname, "torch.utils.data."))
			return none;
		return tl_facts_argument(idx, e, "sampler");
	}
	return none;
}

bool tl_facts_sampler_epoch_unset(const TlIndex *idx, TSNode iterable)
{
	bool enumerated = false;
	TSNode it = tl_facts__unwrap_iterable(idx, iterable, &enumerated);
	TlLoaders ls;
	tl_array_init(&ls.calls);
	ls.unknown = false;
	ls.budget = TL_FACTS_BUDGET;
	tl_facts__loader_source(idx, it, &ls, 0);
	bool unset = ls.calls.size > 0 && !ls.unknown;
	for (uint32_t i = 0; i < ls.calls.size && unset; i++) {
		bool ext = ls.calls.items[i].idx != idx;
		if (ext)
			tl_facts__ext_enter(idx);
		TlMade ctor = tl_facts__loader_sampler(ls.calls.items[i]);
		bool shuffles = ctor.idx && tl_facts__sampler_shuffles(ctor.idx, ctor.node);
		if (ext)
			tl_facts__ext_leave(idx);
		unset = shuffles && !tl_facts__epoch_may_be_set(idx, ctor);
	}
	tl_array_release(&ls.calls);
	return unset;
}
