/* What each parameter is bound to over every call site in the project: a
 * summary per (function, parameter), computed once when first asked and
 * kept in the model (TlModel.handed_at, .handed_sets, .handed_args).
 *
 * The call sites are the module's own (TlFunc.call_sites) and those of
 * the modules that import it (model/callers.c: by name, through an
 * instance the importer's model holds, or, for a class's own `__init__`,
 * by making an instance: `Trainer(config, model)`). An argument that is itself a
 * parameter of the function around the call (`fit(net)` in `main`, then
 * `evaluate(net, val)` in `fit`) is replaced by what that parameter is
 * bound to, at its own call sites, and so on: a work list of (module,
 * function, parameter), each once (a seen-set; a cycle of functions that
 * hand a parameter round adds no argument), at most TL_HANDED_FUNCS of
 * them. What is left are the expressions the project hands the parameter
 * (a construction, a name bound to one, a call), each in its module;
 * what they hold is the asker's question (facts/layers.c: the
 * mode-dependent layers of a model handed in; facts/effects.c: the class
 * whose method a model handed in runs).
 *
 * The summary is not known when a function on the way escapes (is read
 * other than called), has no call site, calls itself with the parameter,
 * or a call site passes nothing for it (its default, `*args`, `self`).
 *
 * The module's own call sites alone (tl_model_own_param_args): the same
 * work list over TlFunc.call_sites, an argument read as the facts read a
 * call site (a bound method's `self` is the call's receiver), needing only
 * the index, so the index's events may ask it before any model is built
 * (facts/made.c: what every caller passes as a criterion, a value made by
 * an activation, a loss of one kind).
 *
 * What a class hands an attribute (tl_model_attr_param): the constructor
 * parameter `self.<attr>` holds, up the class's local bases, per (class,
 * attribute) once (facts/effects.c: the method a model handed in runs).
 *
 * What a parameter may be wrapped in as the project hands it
 * (tl_model_handed_wrap): the wrapper kinds of those expressions' values,
 * each in its module's model, per parameter once; and the wrapper kinds of
 * the entries of what it holds (tl_model_handed_elem_wrap): the elements
 * of the containers handed, the keyword arguments a `**kwargs` parameter
 * gathers and the entries of each `**d` handed on.
 *
 * The importers' call sites alone, from the indexes (tl_model_importer_args):
 * what they pass a parameter of a function its module never calls, as
 * they are, needing no model (facts/kinds.c: a module every importer
 * hands in, asked while the index's events are built).
 *
 * Owns: tl_model_param_args, tl_model_own_param_args, tl_model_attr_param,
 * tl_model_handed_wrap, tl_model_handed_elem_wrap, tl_model_importer_args. */
#include <string.h>

#include "base/alloc.h"
#include "model/model_internal.h"
#include "syntax/syms.h"
#include "syntax/treewalk.h"

/* Functions whose call sites one summary reads (its function's callers,
 * theirs...): past it, the summary is not known. A size, not a depth. */
#define TL_HANDED_FUNCS 32

/* Summaries of tl_model_param_sites are kept under the parameter's
 * position with this bit (and their form's bits above it). */
#define TL_HANDED_SITES_KEY 0x100000u

typedef struct TlHandedItem {
	const TlIndex *mod;
	int32_t func;
	uint32_t param;
} TlHandedItem;

typedef struct TlHandedWork {
	TlArray(TlHandedItem) items;
	TlArray(TlParamArg) args;
	bool unknown;
	bool direct;               /* a parameter handed on is kept as it is */
	unsigned how;              /* tl_handed__run's form: TL_SITES_*, TL_HANDED_STOP */
	uint32_t sites;            /* call sites read */
	TlHandedItem at;           /* the item whose call sites are being read */
} TlHandedWork;

static void tl_handed__push(TlHandedWork *w, const TlIndex *mod, int32_t func, uint32_t param)
{
	for (uint32_t i = 0; i < w->items.size; i++)
		if (w->items.items[i].mod == mod && w->items.items[i].func == func && w->items.items[i].param == param)
			return;
	if (w->items.size == TL_HANDED_FUNCS) {
		w->unknown = true;
		return;
	}
	tl_array_push(&w->items, ((TlHandedItem){ mod, func, param }));
}

/* The argument call `c` passes for parameter `k` of `fn` (`bound`: the
 * call binds a method's first parameter, which is then not passed): by
 * keyword, else by position; a null node when it passes none (left to the
 * default, through `*args` / `**kwargs`, a bound method's `self`). */
static TSNode tl_handed__arg(const TlIndex *fidx, const TlFunc *fn, const TlIndex *mod, const TlCall *c, uint32_t k,
			     bool bound)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	const char *pname = fidx->bindings.items[fn->params.items[k]].name;
	TSNode args = tl_tree_field(c->node, sy->f_arguments);
	if (ts_node_is_null(args) || !pname)
		return none;
	size_t plen = strlen(pname);
	uint32_t count = ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		if (ts_node_symbol(a) != sy->keyword_argument)
			continue;
		TSNode name = tl_tree_field(a, sy->f_name);
		uint32_t len;
		const char *t = ts_node_is_null(name) ? NULL : tl_index_text(mod, name, &len);
		if (t && len == plen && memcmp(t, pname, len) == 0)
			return tl_tree_field(a, sy->f_value);
	}
	if (bound && k == 0)
		return none;
	uint32_t pos = k - (bound ? 1u : 0u), at = 0;
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		TSSymbol s = ts_node_symbol(a);
		if (s == sy->keyword_argument || s == sy->comment)
			continue;
		if (s == sy->list_splat || s == sy->dictionary_splat)
			return none;
		if (at++ == pos)
			return a;
	}
	return none;
}

/* The position of parameter binding `b` among its function's, or -1. */
static int32_t tl_handed__param_index(const TlIndex *idx, const TlBinding *b)
{
	if (!b || b->kind != TL_BIND_PARAM || b->func < 0 || !b->name)
		return -1;
	const TlFunc *fn = &idx->funcs.items[b->func];
	for (uint32_t k = 0; k < fn->params.size; k++) {
		const char *pn = idx->bindings.items[fn->params.items[k]].name;
		if (pn && strcmp(pn, b->name) == 0)
			return (int32_t)k;
	}
	return -1;
}

/* Argument `a` of a call site in `mod`: a parameter of the function
 * around it is followed to its own call sites, anything else kept. */
static void tl_handed__site(TlHandedWork *w, const TlIndex *mod, TSNode a)
{
	w->sites++;
	if (ts_node_is_null(a)) {
		w->unknown = true;
		return;
	}
	TSNode e = tl_index_unparen(a);
	const TlBinding *b = ts_node_symbol(e) == tl_syms()->identifier ? tl_index_resolve_node(mod, e) : NULL;
	int32_t k = w->direct ? -1 : tl_handed__param_index(mod, b);
	if (k >= 0) {
		tl_handed__push(w, mod, b->func, (uint32_t)k);
		return;
	}
	tl_array_push(&w->args, ((TlParamArg){ mod, a }));
}

/* The work list's form for tl_model_handed_elem_wrap (TlHandedWork.how,
 * with TL_HANDED_STOP): a `**kwargs` parameter is handed each keyword
 * argument no other parameter takes (kept as the keyword_argument node:
 * its value is an entry) and what each `**d` hands on (an expression
 * whose entries are the entries). Its summaries are kept under the
 * parameter's position with TL_HANDED_SPLATS_KEY. */
#define TL_HANDED_SPLATS 0x200u
#define TL_HANDED_SPLATS_KEY 0x4000000u

/* Whether parameter `k` of `fn` is a `**kwargs` parameter. */
static bool tl_handed__is_kwargs(const TlIndex *fidx, const TlFunc *fn, uint32_t k)
{
	TSNode st = fidx->bindings.items[fn->params.items[k]].stmt;
	return !ts_node_is_null(st) && ts_node_symbol(st) == tl_syms()->dictionary_splat_pattern;
}

/* In form TL_HANDED_SPLATS, the site of call `c` (in `mod`) for
 * `**kwargs` parameter `k` of `fn`: what it hands the parameter's
 * entries; false for any other parameter or form (the caller reads the
 * site as it does). */
static bool tl_handed__kwargs_site(TlHandedWork *w, const TlIndex *fidx, const TlFunc *fn, const TlIndex *mod,
				   const TlCall *c, uint32_t k)
{
	const TlSyms *sy = tl_syms();
	if (!(w->how & TL_HANDED_SPLATS) || !tl_handed__is_kwargs(fidx, fn, k))
		return false;
	w->sites++;
	TSNode args = tl_tree_field(c->node, sy->f_arguments);
	uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		TSSymbol s = ts_node_symbol(a);
		if (s == sy->dictionary_splat && ts_node_named_child_count(a)) {
			tl_handed__site(w, mod, ts_node_named_child(a, 0));
			continue;
		}
		if (s != sy->keyword_argument)
			continue;
		uint32_t len = 0;
		const char *t = tl_index_text(mod, tl_tree_field(a, sy->f_name), &len);
		bool named = !t;
		for (uint32_t j = 0; t && !named && j < fn->params.size; j++) {
			const char *pn = fidx->bindings.items[fn->params.items[j]].name;
			named = j != k && pn && strlen(pn) == len && memcmp(pn, t, len) == 0;
		}
		if (!named)
			tl_array_push(&w->args, ((TlParamArg){ mod, a }));
	}
	return true;
}

/* ---- every call site, what each may hand ------------------------------------------- */

static TSNode tl_handed__own_arg(const TlIndex *idx, const TlFunc *fn, const TlCall *c, uint32_t k);

/* The instantiations of class `cls` in `mod` (`Trainer(model, loader)`),
 * the call sites of its `__init__` there, each passing what it passes
 * for parameter `param` of `fn`; false when a local class derives from it
 * (its constructor may hand its own arguments through super().__init__). */
static bool tl_handed__makers_here(TlHandedWork *w, const TlIndex *mod, int32_t func, uint32_t param)
{
	const TlFunc *fn = &mod->funcs.items[func];
	int32_t cls = fn->cls;
	for (uint32_t i = 0; i < mod->classes.size; i++) {
		const TlClass *k = &mod->classes.items[i];
		for (uint32_t j = 0; j < k->bases.size; j++)
			if (k->bases.items[j] == cls)
				return false;
	}
	const char *name = mod->classes.items[cls].name;
	for (uint32_t i = 0; name && i < mod->calls.size; i++) {
		const TlCall *c = &mod->calls.items[i];
		if (c->receiver.id || !c->method || strcmp(c->method, name) != 0)
			continue;
		const TlBinding *b = tl_index_resolve_node(mod, c->callee);
		if (!b || b->kind != TL_BIND_CLASS || b->ref != cls)
			continue;
		if (c->func == func) { /* made in its own constructor */
			w->sites++;
			w->unknown = true;
			continue;
		}
		tl_handed__site(w, mod, tl_handed__arg(mod, fn, mod, c, param, true));
	}
	return true;
}

/* The work list's form for tl_model_param_args (TlHandedWork.how, above
 * TL_SITES_*'s bits): the first site not known ends the walk, since the
 * summary is then not known whatever the others hand; the module's own
 * sites are bound as an importer's are (tl_handed__arg: a splat or a
 * bound method's `self` passes nothing known), and the importers' sites
 * are the instances' and the makers'. Without it (tl_model_param_sites),
 * the list is read to its end, each site's argument kept though another
 * is not known, the own sites bound as the facts read them
 * (tl_handed__own_arg), the importers' sites the instances' and the
 * names'. */
#define TL_HANDED_STOP 0x100u

static bool tl_handed__stopped(const TlHandedWork *w)
{
	return w->unknown && (w->how & TL_HANDED_STOP);
}

static bool tl_handed__want(void *ctx, int32_t func)
{
	const TlHandedWork *w = ctx;
	return !tl_handed__stopped(w) && func == w->at.func;
}

static void tl_handed__ext_visit(void *ctx, const TlExtCall *s)
{
	TlHandedWork *w = ctx;
	if (tl_handed__stopped(w) || s->func != w->at.func || s->mod == w->at.mod)
		return;
	const TlIndex *fidx = w->at.mod;
	const TlFunc *fn = &fidx->funcs.items[w->at.func];
	if (!tl_handed__kwargs_site(w, fidx, fn, s->mod, s->call, w->at.param))
		tl_handed__site(w, s->mod, tl_handed__arg(fidx, fn, s->mod, s->call, w->at.param, s->bound));
}

/* Runs the work list from its first item, in form w->how. */
static void tl_handed__run(TlHandedWork *w)
{
	bool stop = (w->how & TL_HANDED_STOP) != 0;
	for (uint32_t i = 0; i < w->items.size && !tl_handed__stopped(w); i++) {
		TlHandedItem it = w->items.items[i];
		w->at = it;
		const TlFunc *fn = &it.mod->funcs.items[it.func];
		if (fn->escapes || it.param >= fn->params.size) {
			w->unknown = true;
			continue;
		}
		uint32_t sites = w->sites;
		for (uint32_t s = 0; s < fn->call_sites.size && !tl_handed__stopped(w); s++) {
			const TlCall *c = &it.mod->calls.items[fn->call_sites.items[s]];
			if (c->func == it.func) { /* it calls itself: its own argument */
				w->sites++;
				w->unknown = true;
				continue;
			}
			TSNode a = stop ? tl_handed__arg(it.mod, fn, it.mod, c, it.param, fn->cls >= 0 && c->receiver.id != NULL)
					: tl_handed__own_arg(it.mod, fn, c, it.param);
			if (!tl_handed__kwargs_site(w, it.mod, fn, it.mod, c, it.param))
				tl_handed__site(w, it.mod, a);
		}
		if (tl_handed__stopped(w))
			break;
		if ((w->how & TL_SITES_MAKERS_HERE) && w->sites == sites && fn->cls >= 0 && it.param > 0 && fn->name &&
		    strcmp(fn->name, "__init__") == 0) {
			/* a constructor: the module's instantiations of its class */
			if (!tl_handed__makers_here(w, it.mod, it.func, it.param) || w->sites == sites)
				w->unknown = true;
			continue;
		}
		if (!(w->how & TL_SITES_IMPORTERS_ALONE) || w->sites == sites) {
			const TlModel *fm = tl_model_of(it.mod);
			if (fm)
				tl_model__importer_calls((TlModel *)fm,
							 TL_CALLERS_INSTANCES | (stop ? TL_CALLERS_MAKERS : TL_CALLERS_NAMES),
							 tl_handed__want, tl_handed__ext_visit, w);
		}
		if (w->sites == sites)
			w->unknown = true; /* no call site known */
	}
}

/* The summary of parameter `k` of param's function in form `how`, kept in
 * m under `key` when first asked; its position in m->handed_sets. A
 * summary of the stopping form that is not known keeps no argument. */
static int32_t tl_handed__summary(TlModel *m, const TlIndex *idx, const TlBinding *param, int32_t k, unsigned how,
				  uint32_t key)
{
	int32_t at;
	if (tl_scopemap_get(&m->handed_at, (uint32_t)param->func, key, &at))
		return at;
	TlHandedWork w;
	memset(&w, 0, sizeof w);
	tl_array_init(&w.items);
	tl_array_init(&w.args);
	w.how = how;
	tl_handed__push(&w, idx, param->func, (uint32_t)k);
	bool project = idx->imports != NULL;
	if (project)
		tl_model__enter(idx);
	tl_handed__run(&w);
	if (project)
		tl_model__leave(idx);
	uint32_t n = tl_handed__stopped(&w) ? 0 : w.args.size;
	TlHandedSet set = { .first = m->handed_args.size, .n = n, .known = !w.unknown };
	for (uint32_t i = 0; i < n; i++)
		tl_array_push(&m->handed_args, w.args.items[i]);
	at = (int32_t)m->handed_sets.size;
	tl_array_push(&m->handed_sets, set);
	tl_scopemap_put(&m->handed_at, (uint32_t)param->func, key, at);
	tl_array_release(&w.items);
	tl_array_release(&w.args);
	return at;
}
bool tl_model_param_args(const TlIndex *idx, const TlBinding *param, const TlParamArg **args, uint32_t *n)
{
	*args = NULL;
	*n = 0;
	TlModel *m = (TlModel *)tl_model_of(idx);
	int32_t k = tl_handed__param_index(idx, param);
	if (!m || k < 0)
		return false;
	int32_t at = tl_handed__summary(m, idx, param, k, TL_HANDED_STOP, (uint32_t)k);
	const TlHandedSet *set = &m->handed_sets.items[at];
	if (!set->known)
		return false;
	/* (no offset on a NULL array: an empty table has no items) */
	*args = set->n ? m->handed_args.items + set->first : NULL;
	*n = set->n;
	return true;
}

bool tl_model_param_sites(const TlIndex *idx, const TlBinding *param, unsigned how, const TlParamArg **args,
			  uint32_t *n)
{
	*args = NULL;
	*n = 0;
	TlModel *m = (TlModel *)tl_model_of(idx);
	int32_t k = tl_handed__param_index(idx, param);
	if (!m || k < 0)
		return false;
	uint32_t key = (uint32_t)k | TL_HANDED_SITES_KEY | (how << 21);
	int32_t at = tl_handed__summary(m, idx, param, k, how, key);
	const TlHandedSet *set = &m->handed_sets.items[at];
	/* (no offset on a NULL array: an empty table has no items) */
	*args = set->n ? m->handed_args.items + set->first : NULL;
	*n = set->n;
	return set->known;
}

/* The wrapper kinds (TL_VW_*) of the values of handed set `at` of `m`
 * (idx's model), once per set: of each expression itself, or, with
 * `elems`, of the entries it holds (a keyword argument's value, a
 * container's elements). The arguments are copied: reading another
 * module's values may ask this model's summaries again, and that module's
 * model is read under the project's lock. */
static unsigned tl_handed__set_wrap(const TlIndex *idx, TlModel *m, int32_t at, bool elems)
{
	TlHandedSet set = m->handed_sets.items[at];
	if (set.wrap_asked)
		return set.wrap;
	TlParamArg *own = tl_malloc(set.n * sizeof *own);
	if (set.n)
		memcpy(own, m->handed_args.items + set.first, set.n * sizeof *own);
	const TlSyms *sy = tl_syms();
	unsigned wrap = 0;
	for (uint32_t i = 0; i < set.n; i++) {
		bool other = own[i].mod != idx && idx->imports;
		if (other)
			tl_model__enter(idx);
		bool entry = elems && ts_node_symbol(own[i].arg) == sy->keyword_argument;
		TSNode e = entry ? tl_tree_field(own[i].arg, sy->f_value) : own[i].arg;
		const TlModel *am = tl_model_of(own[i].mod);
		TlVal v;
		if (am && tl_model_value(own[i].mod, e, &v)) {
			if (elems && !entry)
				v = v.kind == TL_VK_CONTAINER ? tl_val_element(tl_model_pool(am), &v) : tl_val_top();
			if (v.kind == TL_VK_WRAPPER || v.kind == TL_VK_TOP)
				wrap |= v.wrap;
		}
		if (other)
			tl_model__leave(idx);
	}
	tl_free(own);
	m->handed_sets.items[at].wrap_asked = true;
	m->handed_sets.items[at].wrap = (uint8_t)wrap;
	return wrap;
}

unsigned tl_model_handed_wrap(const TlIndex *idx, const TlBinding *param)
{
	const TlParamArg *args;
	uint32_t n;
	if (!tl_model_param_args(idx, param, &args, &n) || !n)
		return 0;
	TlModel *m = (TlModel *)tl_model_of(idx);
	int32_t k = tl_handed__param_index(idx, param), at;
	if (!m || k < 0 || !tl_scopemap_get(&m->handed_at, (uint32_t)param->func, (uint32_t)k, &at))
		return 0;
	return tl_handed__set_wrap(idx, m, at, false);
}

/* ---- the importers' call sites, from the indexes ---------------------------------- */

/* Kept under the parameter's position with this bit. */
#define TL_HANDED_IMPORTERS_KEY 0x8000000u

typedef struct TlHandedExt {
	const TlIndex *idx;
	const TlFunc *fn;
	int32_t func;
	uint32_t param;
	bool unknown;
	TlParamArgs *out;
} TlHandedExt;

static bool tl_handed__ext_want(void *ctx, int32_t func)
{
	return func == ((const TlHandedExt *)ctx)->func;
}

static void tl_handed__ext_arg(void *ctx, const TlExtCall *s)
{
	TlHandedExt *x = ctx;
	if (s->func != x->func)
		return;
	/* a bound method's `self`: the call's receiver */
	TSNode a = s->bound && x->param == 0 && x->fn->cls >= 0 && s->call->receiver.id
			   ? s->call->receiver
			   : tl_handed__arg(x->idx, x->fn, s->mod, s->call, x->param, s->bound);
	if (ts_node_is_null(a))
		x->unknown = true;
	else
		tl_array_push(x->out, ((TlParamArg){ s->mod, a }));
}

bool tl_model_importer_args(const TlIndex *idx, const TlBinding *param, TlParamArgs *out)
{
	tl_array_clear(out);
	int32_t k = tl_handed__param_index(idx, param);
	if (k < 0 || !idx->imports)
		return false;
	const TlFunc *fn = &idx->funcs.items[param->func];
	if (fn->escapes || fn->call_sites.size)
		return false;
	uint32_t key = (uint32_t)k | TL_HANDED_IMPORTERS_KEY;
	/* The model's tables are shared with the threads analysing the
	 * importers: read and grown under the project's lock, as
	 * tl_model_param_sites does. */
	tl_model__enter(idx);
	TlModel *m = idx->model && !idx->model->building ? idx->model : NULL;
	int32_t at;
	bool known;
	if (m && tl_scopemap_get(&m->handed_at, (uint32_t)param->func, key, &at)) {
		const TlHandedSet *set = &m->handed_sets.items[at];
		for (uint32_t i = 0; set->known && i < set->n; i++)
			tl_array_push(out, m->handed_args.items[set->first + i]);
		known = set->known;
	} else {
		TlHandedExt x = { idx, fn, param->func, (uint32_t)k, false, out };
		tl_model__importer_calls_index(idx, TL_CALLERS_INSTANCES | TL_CALLERS_NAMES, tl_handed__ext_want,
					       tl_handed__ext_arg, &x);
		known = !x.unknown && out->size;
		if (!known)
			tl_array_clear(out);
		if (m) {
			TlHandedSet set = { .first = m->handed_args.size, .n = out->size, .known = known };
			for (uint32_t i = 0; i < out->size; i++)
				tl_array_push(&m->handed_args, out->items[i]);
			tl_array_push(&m->handed_sets, set);
			tl_scopemap_put(&m->handed_at, (uint32_t)param->func, key, (int32_t)m->handed_sets.size - 1);
		}
	}
	tl_model__leave(idx);
	return known;
}

/* ---- the module's own call sites ------------------------------------------------ */

/* The argument call `c` (of fn's module) passes for parameter `k` of
 * `fn`, as the facts read a call site: by keyword, else at its position
 * among the positional arguments (a bound method's `self` not passed: the
 * call's receiver is it); a null node when it passes none. */
static TSNode tl_handed__own_arg(const TlIndex *idx, const TlFunc *fn, const TlCall *c, uint32_t k)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	const char *pname = idx->bindings.items[fn->params.items[k]].name;
	TSNode args = tl_tree_field(c->node, sy->f_arguments);
	if (ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list)
		return none;
	uint32_t count = ts_node_named_child_count(args);
	for (uint32_t i = 0; pname && i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		if (ts_node_symbol(a) == sy->keyword_argument && tl_index_text_is(idx, tl_tree_field(a, sy->f_name), pname))
			return tl_tree_field(a, sy->f_value);
	}
	bool bound = fn->cls >= 0 && c->receiver.id != NULL;
	if (bound && k == 0)
		return c->receiver;
	uint32_t pos = k - (bound ? 1u : 0u), at = 0;
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		TSSymbol s = ts_node_symbol(a);
		if (s == sy->keyword_argument || s == sy->comment)
			continue;
		if (at++ == pos)
			return a;
	}
	return none;
}

/* The default value of parameter `k` of `fn`, or a null node. */
static TSNode tl_handed__default(const TlIndex *idx, const TlFunc *fn, uint32_t k)
{
	const TlSyms *sy = tl_syms();
	TSNode st = idx->bindings.items[fn->params.items[k]].stmt;
	TSSymbol s = ts_node_is_null(st) ? 0 : ts_node_symbol(st);
	return s && (s == sy->default_parameter || s == sy->typed_default_parameter) ? tl_tree_field(st, sy->f_value)
										      : (TSNode){ 0 };
}

/* The work list over the module's own call sites: a parameter of the
 * function around a call site is followed to that function's call sites.
 * With `may`, what some path may hand it: a function that escapes or has
 * no call site adds nothing, a call of the function in itself is passed
 * over, a site that passes nothing hands the parameter's default. */
static void tl_handed__run_own(TlHandedWork *w, bool may)
{
	for (uint32_t i = 0; i < w->items.size && !w->unknown; i++) {
		TlHandedItem it = w->items.items[i];
		const TlFunc *fn = &it.mod->funcs.items[it.func];
		if (it.param >= fn->params.size || (!may && (fn->escapes || !fn->call_sites.size))) {
			w->unknown = true;
			break;
		}
		if (fn->escapes)
			continue;
		for (uint32_t s = 0; s < fn->call_sites.size && !w->unknown; s++) {
			const TlCall *c = &it.mod->calls.items[fn->call_sites.items[s]];
			if (c->func == it.func) { /* it calls itself: its own argument */
				if (may)
					continue;
				w->unknown = true;
				break;
			}
			TSNode a = tl_handed__own_arg(it.mod, fn, c, it.param);
			if (may && ts_node_is_null(a)) {
				a = tl_handed__default(it.mod, fn, it.param);
				if (ts_node_is_null(a))
					continue;
			}
			tl_handed__site(w, it.mod, a);
		}
	}
}

/* Own summaries are kept under the parameter's position with these bits. */
#define TL_HANDED_OWN_KEY 0x10000u

bool tl_model_own_param_args(const TlIndex *idx, const TlBinding *param, unsigned how, TlParamArgs *out)
{
	tl_array_clear(out);
	int32_t k = tl_handed__param_index(idx, param);
	if (k < 0)
		return false;
	bool may = (how & TL_HANDED_MAY) != 0;
	uint32_t key = (uint32_t)k | TL_HANDED_OWN_KEY | (how << 17);
	/* Kept in the model once it is built; before (the index's events ask
	 * while the facts are built), computed for the question. */
	TlModel *m = idx->model && !idx->model->building ? idx->model : NULL;
	int32_t at;
	if (!m || !tl_scopemap_get(&m->handed_at, (uint32_t)param->func, key, &at)) {
		TlHandedWork w;
		memset(&w, 0, sizeof w);
		tl_array_init(&w.items);
		tl_array_init(&w.args);
		w.direct = (how & TL_HANDED_DIRECT) != 0;
		tl_handed__push(&w, idx, param->func, (uint32_t)k);
		tl_handed__run_own(&w, may);
		bool known = !w.unknown;
		for (uint32_t i = 0; known && i < w.args.size; i++)
			tl_array_push(out, w.args.items[i]);
		if (m) {
			TlHandedSet set = { .first = m->handed_args.size, .n = known ? w.args.size : 0, .known = known };
			for (uint32_t i = 0; known && i < w.args.size; i++)
				tl_array_push(&m->handed_args, w.args.items[i]);
			tl_array_push(&m->handed_sets, set);
			tl_scopemap_put(&m->handed_at, (uint32_t)param->func, key,
					(int32_t)m->handed_sets.size - 1);
		}
		tl_array_release(&w.items);
		tl_array_release(&w.args);
		return known;
	}
	const TlHandedSet *set = &m->handed_sets.items[at];
	for (uint32_t i = 0; set->known && i < set->n; i++)
		tl_array_push(out, m->handed_args.items[set->first + i]);
	return set->known;
}


/* ---- what a class hands an attribute ------------------------------------------------- */

/* The parameter of function `func` that call `c` (`super().__init__(...)`
 * in `func`) passes on for `p`, a parameter of the base's method (`self`
 * first, not passed), bound as a call binds them (bind.c); NULL when it
 * passes anything else or nothing, or may pass it through a splat. */
static const TlBinding *tl_handed__super_arg(const TlIndex *idx, const TlCall *c, const TlBinding *p, int32_t func)
{
	const TlFunc *pf = &idx->funcs.items[p->func];
	uint32_t k = 0;
	while (k < pf->params.size && &idx->bindings.items[pf->params.items[k]] != p)
		k++;
	if (k < 1 || k >= pf->params.size || k >= TL_MODEL_CTX_PARAMS)
		return NULL;
	TSNode arg[TL_MODEL_CTX_PARAMS];
	uint8_t left[TL_MODEL_CTX_PARAMS];
	tl_model__site_args(idx, pf, c->node, 1, arg, left);
	TSNode v = tl_index_unparen(arg[k]);
	if (ts_node_is_null(v) || ts_node_symbol(v) != tl_syms()->identifier)
		return NULL;
	const TlBinding *b = tl_index_resolve_node(idx, v);
	return b && b->kind == TL_BIND_PARAM && b->func == func ? b : NULL;
}

/* One answer of tl_model_attr_param kept in the model: the class, the
 * attribute (its own copy), the parameter's binding (-1 none), the next
 * entry whose key hashes alike (-1 none). */
typedef struct TlAttrParam {
	int32_t cls;
	char *attr;
	int32_t param;
	int32_t next;
} TlAttrParam;

struct TlAttrParams {
	TlScopeMap at; /* (class, hash of the attribute) -> the first entry */
	TlArray(TlAttrParam) items;
};

static uint32_t tl_handed__hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* The answer for `cls`, `attr`; `path` holds the classes whose answer is
 * being found (a class among its own bases answers none, and *cut then
 * says that answers found meanwhile are not kept). Bases are followed at
 * most TL_MODEL_BASE_DEPTH deep: a class past that answers none, not
 * kept, so the recursion's depth never follows the file's chain. */
static int32_t tl_handed__attr_param(const TlIndex *idx, struct TlAttrParams *kept, int32_t cls, const char *attr,
				     TlIntArray *path, bool *cut)
{
	if (cls < 0)
		return -1;
	if (path->size >= TL_MODEL_BASE_DEPTH) {
		*cut = true;
		return -1;
	}
	for (uint32_t i = 0; i < path->size; i++)
		if (path->items[i] == cls) {
			*cut = true;
			return -1;
		}
	uint32_t h = tl_handed__hash(attr);
	int32_t e = -1;
	if (kept && tl_scopemap_get(&kept->at, (uint32_t)cls, h, &e))
		for (; e >= 0; e = kept->items.items[e].next)
			if (kept->items.items[e].cls == cls && strcmp(kept->items.items[e].attr, attr) == 0)
				return kept->items.items[e].param;
	tl_array_push(path, cls);
	bool outer_cut = *cut;
	*cut = false;
	const TlBinding *found = NULL;
	bool none = false;
	uint32_t count = 0;
	const TlIntArray *bs = tl_index_attr_bindings(idx, cls, attr);
	for (uint32_t i = 0; !none && bs && i < bs->size; i++) {
		const TlBinding *b = &idx->bindings.items[bs->items[i]];
		if (b->class_body) {
			none = true;
			break;
		}
		count++;
		TSNode v = ts_node_is_null(b->value) ? b->value : tl_index_unparen(b->value);
		if (b->elem >= 0 || ts_node_is_null(v) || ts_node_symbol(v) != tl_syms()->identifier) {
			none = true;
			break;
		}
		const TlBinding *p = tl_index_resolve_node(idx, v);
		if (!p || p->kind != TL_BIND_PARAM || p->func != b->func) {
			none = true;
			break;
		}
		found = p;
	}
	const TlClass *k = &idx->classes.items[cls];
	for (uint32_t i = 0; !none && i < k->bases.size; i++) {
		int32_t pb = tl_handed__attr_param(idx, kept, k->bases.items[i], attr, path, cut);
		const TlBinding *p = pb >= 0 ? &idx->bindings.items[pb] : NULL;
		if (!p) {
			if (tl_index_attr_bindings(idx, k->bases.items[i], attr))
				none = true;
			continue;
		}
		count++;
		/* An override of the binding method: what its super() call
		 * hands the base's. */
		const char *mname = idx->funcs.items[p->func].name;
		int32_t over = mname ? tl_index_method(idx, cls, mname, strlen(mname)) : -1;
		if (over >= 0 && idx->funcs.items[over].cls == cls) {
			const TlBinding *q = NULL;
			const TlIntArray *calls = tl_index_scope_calls(idx, over);
			for (uint32_t j = 0; calls && j < calls->size && !q && !none; j++) {
				const TlCall *sc = &idx->calls.items[calls->items[j]];
				TSNode r = sc->receiver.id ? tl_index_unparen(sc->receiver) : sc->receiver;
				if (!sc->method || strcmp(sc->method, mname) != 0 || ts_node_is_null(r) ||
				    ts_node_symbol(r) != tl_syms()->call ||
				    !tl_index_text_is(idx, tl_tree_field(r, tl_syms()->f_function), "super"))
					continue;
				q = tl_handed__super_arg(idx, sc, p, over);
				if (!q)
					none = true;
			}
			p = q;
			if (!p)
				none = true;
		}
		found = p;
	}
	int32_t param = !none && count == 1 && found ? (int32_t)(found - idx->bindings.items) : -1;
	path->size--;
	if (kept && !*cut) {
		int32_t first = -1;
		tl_scopemap_get(&kept->at, (uint32_t)cls, h, &first);
		TlAttrParam ap = { cls, tl_strdup(attr), param, first };
		tl_array_push(&kept->items, ap);
		tl_scopemap_put(&kept->at, (uint32_t)cls, h, (int32_t)kept->items.size - 1);
	}
	*cut = outer_cut || *cut;
	return param;
}

const TlBinding *tl_model_attr_param(const TlIndex *idx, int32_t cls, const char *attr)
{
	if (cls < 0 || (uint32_t)cls >= idx->classes.size || !attr)
		return NULL;
	TlModel *m = idx->model && !idx->model->building ? idx->model : NULL;
	if (m && !m->attr_params) {
		m->attr_params = tl_calloc(1, sizeof *m->attr_params);
		tl_scopemap_init(&m->attr_params->at);
		tl_array_init(&m->attr_params->items);
	}
	TlIntArray path;
	tl_array_init(&path);
	bool cut = false;
	int32_t p = tl_handed__attr_param(idx, m ? m->attr_params : NULL, cls, attr, &path, &cut);
	tl_array_release(&path);
	return p >= 0 ? &idx->bindings.items[p] : NULL;
}

void tl_model__handed_release(TlModel *m)
{
	tl_scopemap_release(&m->handed_at);
	tl_array_release(&m->handed_sets);
	tl_array_release(&m->handed_args);
	if (m->attr_params) {
		for (uint32_t i = 0; i < m->attr_params->items.size; i++)
			tl_free(m->attr_params->items.items[i].attr);
		tl_array_release(&m->attr_params->items);
		tl_scopemap_release(&m->attr_params->at);
		tl_free(m->attr_params);
		m->attr_params = NULL;
	}
}

/* ---- the entries of what a parameter holds ---------------------------------------- */

unsigned tl_model_handed_elem_wrap(const TlIndex *idx, const TlBinding *param)
{
	TlModel *m = (TlModel *)tl_model_of(idx);
	int32_t k = tl_handed__param_index(idx, param);
	if (!m || k < 0)
		return 0;
	int32_t at = tl_handed__summary(m, idx, param, k, TL_HANDED_STOP | TL_HANDED_SPLATS,
					(uint32_t)k | TL_HANDED_SPLATS_KEY);
	const TlHandedSet *set = &m->handed_sets.items[at];
	if (!set->known || !set->n)
		return 0;
	return tl_handed__set_wrap(idx, m, at, true);
}
