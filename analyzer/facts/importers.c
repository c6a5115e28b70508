/* Facts from the modules that import the analysed one (RULES.md principle
 * 2, the reverse question): a function or method defined here and called
 * from another module of the project (`train.source_only(encoder,
 * classifier, ...)` in main.py; `model.optimize_parameters()` in
 * train.py's batch loop) has those calls as call sites too. Parameters
 * whose callers all agree then agree across modules, and a function
 * called once per step from another module's loop is judged in that
 * loop's iteration (facts/loops.c).
 *
 * The importers come from TlImports.importer (the project model: a cheap
 * scan of the project's import lines, then the candidates parsed, once per
 * run). A call there counts when it resolves, in its own module, to this
 * very function (facts/imports.c: an imported function, a method of an
 * instance of an imported class), or when it calls a method defined here
 * by name on a value that a factory of this module's package made
 * (`model = create_model(opt)` with create_model in models/__init__.py):
 * the factory's module is this one's package, whose classes it builds.
 *
 * The call sites are found once per index and kept in its facts cache
 * (facts/cache.c): per function, the sites in the importers, in importer
 * order then call order, at most TL_EXT_CALLERS per function (past it the
 * function's external callers are unknown).
 *
 * Owns: tl_facts__ext_callers, tl_facts__ext_param_args. */
#include "base/paths.h"
#include "base/strmap.h"
#include "facts/internal.h"
#include "model/model.h"

/* External call sites kept per function at most. */
#define TL_EXT_CALLERS 32

void tl_facts__ext_sites_release(TlFactsCache *fc)
{
	for (uint32_t i = 0; fc->ext_sites && i < fc->ext_count; i++)
		tl_array_release(&fc->ext_sites[i]);
	tl_free(fc->ext_sites);
	tl_free(fc->ext_over);
	fc->ext_sites = NULL;
	fc->ext_over = NULL;
}

/* True when the receiver of `c` (a plain name of module level or of its
 * function) is bound, in `mod`, only to results of calls of factories that
 * `idx`'s package defines: a function whose module is `idx`'s package
 * (its __init__.py) or `idx` itself. */
static bool tl_facts__factory_receiver(const TlIndex *mod, const TlCall *c, const TlIndex *idx)
{
	const TlSyms *sy = tl_syms();
	if (!c->receiver.id || ts_node_symbol(c->receiver) != sy->identifier)
		return false;
	const TlBinding *b = tl_index_resolve_node(mod, c->receiver);
	if (!b || b->kind != TL_BIND_ASSIGN)
		return false;
	const TlIntArray *all = tl_index_bindings_of(mod, b->func, b->name);
	if (!all || !all->size)
		return false;
	for (uint32_t i = 0; i < all->size; i++) {
		const TlBinding *a = &mod->bindings.items[all->items[i]];
		if (a->kind != TL_BIND_ASSIGN || a->elem >= 0)
			return false;
		TSNode v = tl_index_unparen(a->value);
		const TlCall *mk = ts_node_is_null(v) || ts_node_symbol(v) != sy->call
					   ? NULL : tl_index_call_at(mod, v);
		TlExtDef d;
		if (!mk || !mk->qname || !tl_facts__ext_callee(mod, mk, &d) || d.func < 0 || d.cls >= 0)
			return false;
		/* The factory's module: this one, or the __init__.py of its folder. */
		if (mod->imports->same_file(mod->imports, idx, d.idx))
			continue;
		const char *dp = d.idx->src ? d.idx->src->path : NULL;
		const char *ip = idx->src ? idx->src->path : NULL;
		if (!dp || !ip)
			return false;
		size_t dl = strlen(dp);
		if (dl < 12 || strcmp(dp + dl - 12, "/__init__.py") != 0)
			return false;
		char *dreal = tl_path_real(dp), *ireal = tl_path_real(ip);
		size_t pl = strlen(dreal) >= 11 ? strlen(dreal) - 11 : 0; /* through the '/' */
		const char *rest = ireal + pl;
		bool same_pkg = pl && strncmp(dreal, ireal, pl) == 0 && !strchr(rest, '/');
		tl_free(dreal);
		tl_free(ireal);
		if (!same_pkg)
			return false;
	}
	return true;
}

/* The function of `idx` that function `d` of the project's reading of
 * the same file is (they match by place), or -1. */
static int32_t tl_facts__local_twin(const TlIndex *idx, const TlExtDef *d)
{
	uint32_t start = d->idx->funcs.items[d->func].start_byte;
	for (uint32_t k = 0; k < idx->funcs.size; k++)
		if (idx->funcs.items[k].start_byte == start)
			return (int32_t)k;
	return -1;
}

/* Fills the cache: every call of an importer that runs a function here. */
static void tl_facts__ext_find(const TlIndex *idx, TlFactsCache *fc)
{
	fc->ext_count = idx->funcs.size;
	fc->ext_sites = tl_calloc(fc->ext_count ? fc->ext_count : 1, sizeof *fc->ext_sites);
	fc->ext_over = tl_calloc(fc->ext_count ? fc->ext_count : 1, 1);
	/* The names that may call a function here. */
	TlStrMap names;
	if (!tl_index_outer_names(idx, &names)) {
		tl_strmap_release(&names);
		return;
	}
	const TlImports *im = idx->imports;
	for (uint32_t i = 0; i < 64; i++) {
		const TlIndex *mod = im->importer(im, idx, i);
		if (!mod)
			break;
		for (uint32_t c = 0; c < mod->calls.size; c++) {
			const TlCall *call = &mod->calls.items[c];
			int32_t any;
			if (!call->method || !tl_strmap_get(&names, call->method, strlen(call->method), &any))
				continue;
			TlExtSite site = { mod, call, { NULL, -1, -1 } };
			int32_t local = -1;
			TlExtDef d;
			if (tl_facts__ext_callee(mod, call, &d) && d.func >= 0) {
				if (!im->same_file(im, idx, d.idx))
					continue;
				local = tl_facts__local_twin(idx, &d);
				site.def = d;
			} else if (call->receiver.id && tl_facts__factory_receiver(mod, call, idx)) {
				/* A method of a class here, by name, on what this
				 * package's factory made: one class defining it. */
				int32_t found = -1, count = 0;
				for (uint32_t k = 0; k < idx->funcs.size; k++) {
					const TlFunc *f = &idx->funcs.items[k];
					if (f->cls >= 0 && f->parent < 0 && strcmp(f->name, call->method) == 0) {
						found = (int32_t)k;
						count++;
					}
				}
				if (count != 1)
					continue;
				local = found;
				site.def = (TlExtDef){ idx, found, idx->funcs.items[found].cls };
			}
			if (local < 0)
				continue;
			if (fc->ext_sites[local].size >= TL_EXT_CALLERS)
				fc->ext_over[local] = 1;
			else
				tl_array_push(&fc->ext_sites[local], site);
		}
	}
	tl_strmap_release(&names);
}

const TlExtSites *tl_facts__ext_callers(const TlIndex *idx, int32_t func)
{
	TlFactsCache *fc = idx->facts_cache;
	if (!idx->imports || !idx->imports->importer || !fc || func < 0 ||
	    (uint32_t)func >= idx->funcs.size)
		return NULL;
	if (!fc->ext_ready) {
		fc->ext_ready = true;
		tl_facts__ext_enter(idx);
		tl_facts__ext_find(idx, fc);
		tl_facts__ext_leave(idx);
	}
	if ((uint32_t)func >= fc->ext_count || fc->ext_over[func] || !fc->ext_sites[func].size)
		return NULL;
	return &fc->ext_sites[func];
}

bool tl_facts__ext_param_args(const TlIndex *idx, const TlBinding *param,
			      bool (*each)(const TlIndex *mod, TSNode arg, void *data), void *data)
{
	if (!param || param->kind != TL_BIND_PARAM || param->func < 0)
		return false;
	const TlFunc *f = &idx->funcs.items[param->func];
	if (f->escapes || f->call_sites.size)
		return false;
	const TlExtSites *sites = tl_facts__ext_callers(idx, param->func);
	if (!sites)
		return false;
	bool ok = true;
	tl_facts__ext_enter(idx);
	for (uint32_t i = 0; ok && i < sites->size; i++) {
		const TlExtSite *s = &sites->items[i];
		TSNode arg = tl_facts__ext_param_arg(s->idx, s->call, &s->def, param->name,
						     strlen(param->name));
		ok = !ts_node_is_null(arg) && each(s->idx, arg, data);
	}
	tl_facts__ext_leave(idx);
	return ok;
}

/* ---- a function called per step from another module's loop ---------------------- */

/* The events of an iteration of loop `l` of importing module `mod`: its
 * own, plus what the functions of other modules that it calls reach (its
 * events were built without them), among them the functions here, also
 * methods called by name on what this package's factory made. */
static uint32_t tl_facts__ext_loop_events(const TlIndex *idx, const TlIndex *mod, int32_t l)
{
	const TlLoop *lp = &mod->loops.items[l];
	uint32_t ev = lp->events;
	uint32_t s = ts_node_start_byte(lp->body), e = ts_node_end_byte(lp->body);
	for (uint32_t i = 0; i < mod->calls.size; i++) {
		const TlCall *c = &mod->calls.items[i];
		if (c->start_byte < s)
			continue;
		if (c->start_byte >= e)
			break;
		if (c->target >= 0 || !c->method)
			continue;
		TlExtDef d;
		if (tl_facts__ext_callee(mod, c, &d) && d.func >= 0) {
			ev |= d.idx->funcs.items[d.func].reach_events;
			continue;
		}
		if (!c->receiver.id || !tl_facts__factory_receiver(mod, c, idx))
			continue;
		for (uint32_t k = 0; k < idx->funcs.size; k++) {
			const TlFunc *f = &idx->funcs.items[k];
			if (f->cls >= 0 && f->parent < 0 && strcmp(f->name, c->method) == 0)
				ev |= f->reach_events;
		}
	}
	return ev;
}

/* True when a name the receiver of external call `call` is bound by is
 * bound inside `body` (the model or its trainer made afresh each
 * iteration: no gradient carries over). */
static bool tl_facts__receiver_fresh_in(const TlIndex *mod, const TlCall *call, TSNode body)
{
	const TlSyms *sy = tl_syms();
	if (!call->receiver.id || ts_node_symbol(call->receiver) != sy->identifier)
		return false;
	const TlBinding *b = tl_index_resolve_node(mod, call->receiver);
	if (!b)
		return false;
	const TlIntArray *all = tl_index_bindings_of(mod, b->func, b->name);
	for (uint32_t i = 0; all && i < all->size; i++)
		if (tl_facts__contains(body, mod->bindings.items[all->items[i]].stmt))
			return true;
	return false;
}

bool tl_facts__ext_step_unreset(const TlIndex *idx, const TlCall *c)
{
	if (c->func < 0)
		return false;
	/* The functions here that reach c's function through local calls and
	 * are called from nowhere here: the entries other modules call. */
	int32_t queue[32];
	uint32_t n = 0;
	queue[n++] = c->func;
	uint32_t found = 0, missing = 0;
	bool fresh = false;
	for (uint32_t q = 0; q < n && !fresh; q++) {
		const TlFunc *f = &idx->funcs.items[queue[q]];
		if (f->escapes)
			return false; /* called from where no site shows */
		if (f->call_sites.size) {
			for (uint32_t i = 0; i < f->call_sites.size; i++) {
				int32_t up = idx->calls.items[f->call_sites.items[i]].func;
				if (up < 0 || idx->calls.items[f->call_sites.items[i]].loop >= 0)
					return false; /* a loop here, or module-level code */
				bool seen = false;
				for (uint32_t k = 0; k < n; k++)
					seen = seen || queue[k] == up;
				if (seen)
					continue;
				if (n >= 32)
					return false;
				queue[n++] = up;
			}
			continue;
		}
		const TlExtSites *sites = tl_facts__ext_callers(idx, queue[q]);
		if (!sites)
			continue;
		tl_facts__ext_enter(idx);
		for (uint32_t i = 0; i < sites->size && !fresh; i++) {
			const TlExtSite *site = &sites->items[i];
			const TlIndex *mod = site->idx;
			for (int32_t l = site->call->loop; l >= 0; l = mod->loops.items[l].parent) {
				const TlLoop *lp = &mod->loops.items[l];
				uint32_t ev = tl_facts__ext_loop_events(idx, mod, l) | f->reach_events;
				if (!(ev & TL_EV_BACKWARD) || tl_model_exits_at_end(lp))
					continue;
				if (tl_facts__receiver_fresh_in(mod, site->call, lp->body))
					fresh = true;
				found++;
				if (!(ev & TL_EV_GRAD_RESET))
					missing++;
				break;
			}
		}
		tl_facts__ext_leave(idx);
	}
	return !fresh && found > 0 && missing == found;
}
