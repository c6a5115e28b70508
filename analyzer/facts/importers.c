/* Facts from the modules that import the analysed one (RULES.md principle
 * 2, the reverse question): a function or method defined here and called
 * from another module of the project (`model.optimize_parameters()` in
 * train.py's batch loop) has those calls as call sites too.
 *
 * LEFT FOR ONE READER: the same reading is the model's
 * (model/callers.c: tl_model_importer_sites, tl_model_importer_args, with
 * the factory receivers below as tl_callers__factory_method), which the
 * parameters' importers' arguments (facts/made.c, facts/kinds.c) and
 * TL201's step run per iteration of another module's loop
 * (rules/checks/TL201.c) read. Only facts/mode.c's
 * tl_facts__program_trains (is function `func` called from another
 * module at all) still reads this copy; it goes when that reader moves
 * onto tl_model_importer_sites.
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
 * Owns: tl_facts__ext_callers. */
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
