/* The call sites of a module's functions in the modules that import it
 * (TlImports.importer), for the summaries that join over every call site
 * of the project (gradmode.c's entry modes, trains.c's training around a
 * function): a call whose import-resolved name names the function
 * (`evaluation.score(...)`, `from evaluation import score`), and, when
 * asked for, a method called through an instance the importer's model
 * holds (`trainer = Trainer(...); trainer.validate()`), and a class's own
 * `__init__` called by making an instance (`losses.Triplet(loss=ce)`);
 * with TL_CALLERS_NAMES, a method called through an instance that the
 * receiver's bindings tell (`self` of a subclass, `self.evaluator =
 * Evaluator(...)`, an annotated parameter) or that a factory of the
 * module's package made (`model = create_model(opt)`).
 *
 * Which calls are all the importers have of a function (a name they
 * mention but in an import or a call of it may hand it on: `run(score)`),
 * tl_model__importers_mentions.
 *
 * The same from the indexes alone (tl_model__importer_calls_index: no
 * model asked, as TL_CALLERS_TEXT) for what the index's events ask before
 * any model is built.
 *
 * The same listed (tl_model_importer_sites: each importer's call and the
 * function it runs), for the rule logic that reads the importers' loops
 * around a call site (TL201: a step run per iteration of another module's
 * loop).
 *
 * Owns: tl_model__importer_calls, tl_model__importer_calls_index,
 * tl_model__importers_mentions, tl_model_importer_sites. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/paths.h"
#include "base/strmap.h"
#include "model/apitable.h"
#include "model/model_internal.h"
#include "syntax/syms.h"

/* Importers read for the call sites of a module's functions. */
#define TL_CALLERS_IMPORTERS 64

int32_t tl_model__twin(const TlIndex *idx, const TlIndex *mod, int32_t ref)
{
	if (mod == idx)
		return ref;
	uint32_t start = mod->funcs.items[ref].start_byte;
	for (uint32_t k = 0; k < idx->funcs.size; k++)
		if (idx->funcs.items[k].start_byte == start)
			return (int32_t)k;
	return -1;
}

/* The function of m's module that method call `call` of `mod` calls
 * through the instance its receiver holds in `om`; -1 none. */
static int32_t tl_callers__through(const TlModel *m, const TlModel *om, const TlIndex *mod, const TlCall *call)
{
	const TlIndex *idx = m->idx;
	const TlImports *im = idx->imports;
	if (!om || !call->method || ts_node_is_null(call->receiver))
		return -1;
	TSNode r = tl_index_unparen(call->receiver);
	int32_t at;
	if (!tl_scopemap_get(&om->vals, ts_node_start_byte(r), ts_node_end_byte(r), &at))
		return -1;
	const TlVal *v = &om->pool.vals.items[at];
	const TlIndex *where = NULL;
	int32_t f = tl_model_method_of(v, call->method, &where);
	if (f < 0 || !where || (where != idx && !im->same_file(im, idx, where)))
		return -1;
	return tl_model__twin(idx, where, f);
}

/* The function of m's module that method `name` of class `cls` of `cmod`
 * is, its own or inherited (bases in other modules of the project too);
 * -1 none, or defined in another module. */
static int32_t tl_callers__method_here(const TlIndex *idx, TlModel *m, const TlIndex *cmod, int32_t cls,
					const char *name)
{
	const TlIndex *where = NULL;
	if (!cmod || cls < 0 || (uint32_t)cls >= cmod->classes.size)
		return -1;
	int32_t f = tl_model__method_far(m, cmod, cls, name, &where);
	if (f < 0 || !where || (where != idx && !idx->imports->same_file(idx->imports, idx, where)))
		return -1;
	return tl_model__twin(idx, where, f);
}

/* The class a class expression `e` of `mod` names (a class of `mod`, or
 * one its imports name): its module in *cmod; -1 none. */
static int32_t tl_callers__class_named(TlModel *m, const TlIndex *mod, TSNode e, const TlIndex **cmod)
{
	const TlBinding *cb = tl_index_resolve_node(mod, e);
	if (cb && cb->kind == TL_BIND_CLASS && cb->ref >= 0) {
		*cmod = mod;
		return cb->ref;
	}
	char *q = tl_index_qualify(mod, e);
	TlVal v;
	bool yes = q && tl_model__resolve_in(m, mod, q, strlen(q), &v) && v.kind == TL_VK_CLASS && v.mod &&
		   v.ref >= 0;
	tl_free(q);
	if (!yes)
		return -1;
	*cmod = v.mod;
	return v.ref;
}

/* True when call `c` is a method call that hands its receiver back when
 * it is a module (`Net(cfg).to(device)`, `.cuda()`, `.half()`,
 * `.train()`): a row of the API table that moves, casts or switches the
 * mode of a module. */
static bool tl_callers__hands_back(const TlCall *c)
{
	if (!c->receiver.id || c->qname || !c->method)
		return false;
	const TlApiRow *r = tl_api_method(c->method);
	return r && (r->roles & (TL_APIR_MOVES | TL_APIR_MODE));
}

/* The class whose instance expression `e` of `mod` holds as the
 * bindings say (TL_CALLERS_NAMES): a construction (or a module method
 * that hands it back: `EdgeModel(config).to(device)`, unless a class
 * that is no module defines the method), a name or `self.<attr>`
 * bound by an assignment to one (`self.evaluator = Evaluator(...)`) or to
 * a name so bound, a parameter annotated with a class (`optimizer:
 * Optimizer`); with `params`, a parameter every call site of its module
 * passes an instance of one class (tl_model_own_param_args). Its module
 * in *cmod; -1 none. */
static int32_t tl_callers__class_of(TlModel *m, const TlIndex *mod, TSNode e, bool params, const TlIndex **cmod)
{
	const TlSyms *sy = tl_syms();
	/* the module methods passed through (`.to(device)`), in order */
	const char *through[TL_MODEL_RECEIVER_STEPS];
	int n = 0;
	for (int step = 0; step < TL_MODEL_RECEIVER_STEPS; step++) {
		e = tl_index_unparen(e);
		TSSymbol s = ts_node_is_null(e) ? 0 : ts_node_symbol(e);
		if (s && s == sy->call) {
			const TlCall *c = tl_index_call_at(mod, e);
			if (!c)
				return -1;
			if (tl_callers__hands_back(c)) {
				through[n++] = c->method;
				e = c->receiver;
				continue;
			}
			int32_t cls = tl_callers__class_named(m, mod, c->callee, cmod);
			/* a class of its own `to` or `train` that is no module (a
			 * trainer's training loop): what it returns is its own; a
			 * module's returns itself, as nn.Module's does */
			bool module = cls >= 0 && (*cmod)->classes.items[cls].is_module;
			for (int i = 0; cls >= 0 && !module && i < n; i++) {
				const TlIndex *where = NULL;
				if (tl_model__method_far(m, *cmod, cls, through[i], &where) >= 0)
					cls = -1;
			}
			return cls;
		}
		if (!s || (s != sy->identifier && s != sy->attribute))
			return -1;
		const TlBinding *b = tl_index_resolve_node(mod, e);
		if (!b || b->elem >= 0)
			return -1;
		if (b->kind == TL_BIND_PARAM && !ts_node_is_null(b->value))
			return tl_callers__class_named(m, mod, b->value, cmod);
		if (b->kind == TL_BIND_PARAM) {
			if (!params)
				return -1;
			/* what every call site passes: one class */
			TlParamArgs args;
			tl_array_init(&args);
			int32_t cls = -1;
			const TlIndex *one = NULL;
			bool ok = tl_model_own_param_args(mod, b, TL_HANDED_EVERY, &args) && args.size;
			for (uint32_t i = 0; ok && i < args.size; i++) {
				const TlIndex *km = NULL;
				int32_t k = tl_callers__class_of(m, mod, args.items[i].arg, false, &km);
				ok = k >= 0 && (!one || (one == km && cls == k));
				one = km;
				cls = k;
			}
			tl_array_release(&args);
			if (!ok)
				return -1;
			*cmod = one;
			return cls;
		}
		if (b->kind != TL_BIND_ASSIGN || ts_node_is_null(b->value))
			return -1;
		e = b->value;
	}
	return -1;
}

/* The class whose instance the receiver of method call `call` of `mod`
 * holds as the bindings say: `self` in a method, the method's class; else
 * tl_callers__class_of. Its module in *cmod; -1 none. */
static int32_t tl_callers__receiver_class(TlModel *m, const TlIndex *mod, const TlCall *call, const TlIndex **cmod)
{
	const TlSyms *sy = tl_syms();
	TSNode e = tl_index_unparen(call->receiver);
	if (ts_node_symbol(e) == sy->identifier && tl_index_text_is(mod, e, "self")) {
		*cmod = mod;
		return call->func >= 0 ? mod->funcs.items[call->func].cls : -1;
	}
	return tl_callers__class_of(m, mod, e, true, cmod);
}

/* True when the module of `fidx`, a package's __init__.py, is the package
 * whose folder holds `idx`'s file. */
static bool tl_callers__package_of(const TlIndex *fidx, const TlIndex *idx)
{
	const char *dp = fidx->src ? fidx->src->path : NULL;
	const char *ip = idx->src ? idx->src->path : NULL;
	size_t dl = dp ? strlen(dp) : 0;
	if (!ip || dl < 12 || strcmp(dp + dl - 12, "/__init__.py") != 0)
		return false;
	char *dreal = tl_path_real(dp), *ireal = tl_path_real(ip);
	size_t pl = strlen(dreal) >= 11 ? strlen(dreal) - 11 : 0; /* through the '/' */
	bool same = pl && strlen(ireal) >= pl && strncmp(dreal, ireal, pl) == 0 && !strchr(ireal + pl, '/');
	tl_free(dreal);
	tl_free(ireal);
	return same;
}

/* A method of a class of m's module called by name on what a factory of
 * its package made (TL_CALLERS_NAMES): the receiver of `call` (a plain
 * name) is bound in `mod` only to results of calls of functions of m's
 * module or of its package's __init__.py (`model = create_model(opt)`,
 * a factory that picks a class by the options), and one class of m's
 * module defines the method. -1 otherwise. */
static int32_t tl_callers__factory_method(const TlIndex *idx, TlModel *m, const TlIndex *mod, const TlCall *call)
{
	const TlSyms *sy = tl_syms();
	const TlImports *im = idx->imports;
	if (!call->receiver.id || ts_node_symbol(call->receiver) != sy->identifier)
		return -1;
	const TlBinding *b = tl_index_resolve_node(mod, call->receiver);
	const TlIntArray *all = b && b->kind == TL_BIND_ASSIGN ? tl_index_bindings_of(mod, b->func, b->name) : NULL;
	if (!all || !all->size)
		return -1;
	for (uint32_t i = 0; i < all->size; i++) {
		const TlBinding *a = &mod->bindings.items[all->items[i]];
		if (a->kind != TL_BIND_ASSIGN || a->elem >= 0)
			return -1;
		TSNode v = tl_index_unparen(a->value);
		const TlCall *mk = ts_node_is_null(v) || ts_node_symbol(v) != sy->call ? NULL : tl_index_call_at(mod, v);
		TlVal fv;
		if (!mk || !mk->qname || !tl_model__resolve_in(m, mod, mk->qname, strlen(mk->qname), &fv) ||
		    fv.kind != TL_VK_FUNCTION || !fv.mod || fv.ref < 0 || fv.mod == (const void *)mod)
			return -1;
		const TlIndex *fidx = fv.mod;
		if (fidx->funcs.items[fv.ref].cls >= 0)
			return -1;
		if (!im->same_file(im, idx, fidx) && !tl_callers__package_of(fidx, idx))
			return -1;
	}
	int32_t found = -1, count = 0;
	for (uint32_t k = 0; k < idx->funcs.size; k++) {
		const TlFunc *f = &idx->funcs.items[k];
		if (f->cls >= 0 && f->parent < 0 && strcmp(f->name, call->method) == 0) {
			found = (int32_t)k;
			count++;
		}
	}
	return count == 1 ? found : -1;
}

/* The function of m's module that method call `call` of `mod` (no name
 * of its callee resolves) runs as the bindings of its receiver tell
 * (TL_CALLERS_NAMES); -1 none. */
static int32_t tl_callers__named(const TlIndex *idx, TlModel *m, const TlIndex *mod, const TlCall *call)
{
	if (!call->method || !call->receiver.id)
		return -1;
	const TlIndex *cmod = NULL;
	int32_t cls = tl_callers__receiver_class(m, mod, call, &cmod);
	int32_t f = cls >= 0 ? tl_callers__method_here(idx, m, cmod, cls, call->method) : -1;
	return f >= 0 ? f : tl_callers__factory_method(idx, m, mod, call);
}

/* The function of m's module that call `call` of importer `mod` runs
 * through a function value its callee holds, a local name the importer's
 * model knows as one (`fn = nets.get_model_fn(model)`, then `fn(x)`: the
 * closure the factory returns); -1 none. The importer's model is asked
 * once (*om, *asked). */
static int32_t tl_callers__value(const TlIndex *idx, TlModel *m, const TlIndex *mod, const TlModel **om,
				 bool *asked, const TlCall *call)
{
	const TlSyms *sy = tl_syms();
	const TlImports *im = idx->imports;
	TSNode e = tl_index_unparen(call->callee);
	if (ts_node_is_null(e) || ts_node_symbol(e) != sy->identifier)
		return -1;
	const TlBinding *b = tl_index_resolve_node(mod, e);
	if (!b || (b->kind != TL_BIND_ASSIGN && b->kind != TL_BIND_PARAM))
		return -1;
	if (!*asked) {
		*om = mod == idx ? m : tl_model_of(mod);
		*asked = true;
	}
	if (!*om)
		return -1;
	tl_model__ensure((TlModel *)*om, call->func);
	int32_t at;
	if (!tl_scopemap_get(&(*om)->vals, ts_node_start_byte(e), ts_node_end_byte(e), &at))
		return -1;
	const TlVal *v = &(*om)->pool.vals.items[at];
	const TlIndex *where = v->mod;
	if (v->kind != TL_VK_FUNCTION || v->ref < 0 || !where || (where != idx && !im->same_file(im, idx, where)))
		return -1;
	return tl_model__twin(idx, where, v->ref);
}

/* tl_model__importer_calls of idx's module, its model m (NULL: the
 * index alone, as TL_CALLERS_TEXT). */
static void tl_callers__calls(const TlIndex *idx, TlModel *m, unsigned how, bool (*want)(void *ctx, int32_t func),
			      void (*visit)(void *ctx, const TlExtCall *s), void *ctx)
{
	const TlImports *im = idx->imports;
	if (!m)
		how |= TL_CALLERS_TEXT;
	bool instances = (how & TL_CALLERS_INSTANCES) != 0;
	bool named = (how & TL_CALLERS_NAMES) != 0;
	/* PyTorch's own packages are read as the API, not as a project whose
	 * importers tell what its functions are handed. */
	if (!im || !im->importer || !im->same_file || tl_model__torch_package(idx))
		return;
	TlStrMap names;
	tl_index_outer_names(idx, &names);
	if (how & TL_CALLERS_MAKERS)
		for (uint32_t k = 0; k < idx->classes.size; k++) {
			const TlClass *c = &idx->classes.items[k];
			if (c->func < 0 && c->name)
				tl_strmap_put(&names, c->name, strlen(c->name), -1);
		}
	if (!names.count) {
		tl_strmap_release(&names);
		return;
	}
	/* Calls through a function value (TL_CALLERS_VALUES): only a module
	 * with a function that is referenced other than by a call, or a
	 * nested one (a closure its function may return), can hand one out;
	 * read from the importer's model. */
	bool values = false;
	for (uint32_t k = 0; (how & TL_CALLERS_VALUES) && !(how & TL_CALLERS_TEXT) && k < idx->funcs.size && !values;
	     k++)
		values = idx->funcs.items[k].escapes || idx->funcs.items[k].parent >= 0;
	tl_model__enter(idx);
	for (uint32_t i = 0; i < TL_CALLERS_IMPORTERS; i++) {
		const TlIndex *mod = im->importer(im, idx, i);
		if (!mod)
			break;
		const TlModel *om = NULL;
		bool om_asked = false;
		/* The importer holds a function value of m's module only where it
		 * calls or names one of its functions: its calls of a value are
		 * read when some call of it is by such a name. */
		bool by_value = false;
		for (uint32_t c = 0; values && c < mod->calls.size && !by_value; c++) {
			const TlCall *call = &mod->calls.items[c];
			const char *last = call->qname ? strrchr(call->qname, '.') : NULL;
			last = last ? last + 1 : call->qname ? call->qname : call->method;
			int32_t any;
			by_value = last && tl_strmap_get(&names, last, strlen(last), &any);
		}
		for (uint32_t c = 0; c < mod->calls.size; c++) {
			const TlCall *call = &mod->calls.items[c];
			const char *last = call->qname ? strrchr(call->qname, '.') : NULL;
			last = last ? last + 1 : call->qname ? call->qname : call->method;
			int32_t any, f = -1;
			if (!last || !tl_strmap_get(&names, last, strlen(last), &any)) {
				if (by_value && (f = tl_callers__value(idx, m, mod, &om, &om_asked, call)) >= 0 &&
				    (!want || want(ctx, f))) {
					TlExtCall s = { mod, (TlModel *)om, call, f, false };
					visit(ctx, &s);
				}
				continue;
			}
			TlVal v;
			bool bound = !call->qname;
			if (call->qname) {
				if (!tl_model__resolve_in(m, mod, call->qname, strlen(call->qname), &v) || !v.mod ||
				    v.ref < 0 || (v.kind != TL_VK_FUNCTION && (v.kind != TL_VK_CLASS || !(how & TL_CALLERS_MAKERS))))
					continue;
				const TlIndex *vm = v.mod;
				if (vm != idx && !im->same_file(im, idx, vm))
					continue;
				if (v.kind == TL_VK_CLASS) {
					/* a constructor: the class's own __init__ */
					if ((uint32_t)v.ref >= vm->classes.size)
						continue;
					int32_t init = tl_index_method(vm, v.ref, "__init__", 8);
					if (init < 0 || vm->funcs.items[init].cls != v.ref)
						continue;
					v.ref = init;
					bound = true;
				}
				f = tl_model__twin(idx, vm, v.ref);
			} else if (!instances && !named) {
				continue;
			}
			if (call->qname && (f < 0 || (want && !want(ctx, f))))
				continue;
			/* The importer's own model (on demand, recording values:
			 * the facts read it for their reverse questions too), its
			 * caller interpreted; none when only the calls' text is read. */
			if (!om_asked && !(how & TL_CALLERS_TEXT)) {
				om = mod == idx ? m : tl_model_of(mod);
				om_asked = true;
			}
			if (om)
				tl_model__ensure((TlModel *)om, call->func);
			if (!call->qname) {
				f = instances && m ? tl_callers__through(m, om, mod, call) : -1;
				if (f < 0 && named)
					f = tl_callers__named(idx, m, mod, call);
				if (f < 0 || (want && !want(ctx, f)))
					continue;
			}
			TlExtCall s = { mod, (TlModel *)om, call, f, bound };
			visit(ctx, &s);
		}
	}
	tl_model__leave(idx);
	tl_strmap_release(&names);
}

void tl_model__importer_calls(TlModel *m, unsigned how, bool (*want)(void *ctx, int32_t func),
			      void (*visit)(void *ctx, const TlExtCall *s), void *ctx)
{
	tl_callers__calls(m->idx, m, how, want, visit, ctx);
}

void tl_model__importer_calls_index(const TlIndex *idx, unsigned how, bool (*want)(void *ctx, int32_t func),
				    void (*visit)(void *ctx, const TlExtCall *s), void *ctx)
{
	tl_callers__calls(idx, NULL, how, want, visit, ctx);
}

static void tl_callers__site(void *ctx, const TlExtCall *s)
{
	tl_array_push((TlImporterSites *)ctx, ((TlImporterSite){ s->mod, s->call, s->func }));
}

void tl_model_importer_sites(const TlIndex *idx, TlImporterSites *out)
{
	tl_array_clear(out);
	tl_callers__calls(idx, NULL, TL_CALLERS_INSTANCES | TL_CALLERS_NAMES, NULL, tl_callers__site, out);
}

bool tl_model_importer_called(const TlIndex *idx, int32_t func)
{
	if (func < 0 || (uint32_t)func >= idx->funcs.size || !idx->imports || !idx->imports->importer)
		return false;
	/* Kept with the index (TlIndex.tables), whether or not a model is
	 * built: the importers' sites listed once per module. */
	TlIndexTables *t = tl_model__tables(idx);
	uint8_t *called = __atomic_load_n(&t->importer_called, __ATOMIC_ACQUIRE);
	if (!called) {
		uint8_t *made = tl_malloc(idx->funcs.size);
		memset(made, 2, idx->funcs.size);
		TlImporterSites sites;
		tl_array_init(&sites);
		tl_model_importer_sites(idx, &sites);
		for (uint32_t i = 0; i < sites.size; i++)
			if (sites.items[i].func >= 0 && (uint32_t)sites.items[i].func < idx->funcs.size)
				made[sites.items[i].func] = 1;
		tl_array_release(&sites);
		called = tl_model__publish((void **)&t->importer_called, made);
		if (called != made)
			tl_free(made);
	}
	return called[func] == 1;
}

/* True when `c` may be part of a name (an identifier's byte). */
static bool tl_callers__word(char c)
{
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (unsigned char)c >= 0x80;
}

/* Whether the mention of a name at bytes [a, b) of `mod` is in an import
 * statement that binds it under its own name: 1 it is, 0 it is in none,
 * -1 it is renamed there (`import ... as`) or is no identifier (a string,
 * a comment). */
static int tl_callers__in_import(const TlIndex *mod, uint32_t a, uint32_t b)
{
	const TlSyms *sy = tl_syms();
	TSNode n = ts_node_named_descendant_for_byte_range(mod->root, a, b);
	if (ts_node_is_null(n) || ts_node_symbol(n) != sy->identifier || ts_node_start_byte(n) != a ||
	    ts_node_end_byte(n) != b)
		return -1;
	for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p)) {
		const char *t = ts_node_type(p);
		if (strcmp(t, "aliased_import") == 0)
			return -1;
		if (strcmp(t, "import_statement") == 0 || strcmp(t, "import_from_statement") == 0)
			return 1;
		if (strcmp(t, "module") == 0 || strcmp(t, "block") == 0)
			break;
	}
	return 0;
}

static int tl_callers__end_cmp(const void *pa, const void *pb)
{
	const TlExtEnd *a = pa, *b = pb;
	if (a->mod != b->mod)
		return (uintptr_t)a->mod < (uintptr_t)b->mod ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

/* True when `ends` (sorted) holds a call of function `f` in `mod`. */
static bool tl_callers__calls_in(const TlExtEnd *ends, uint32_t nends, const TlIndex *mod, int32_t f)
{
	for (uint32_t k = 0; k < nends; k++)
		if (ends[k].mod == mod && ends[k].func == f)
			return true;
	return false;
}

bool tl_model__importers_mentions(TlModel *m, TlExtEnd *ends, uint32_t nends, uint8_t *bad)
{
	const TlIndex *idx = m->idx;
	const TlImports *im = idx->imports;
	if (!im || !im->importer || tl_model__torch_package(idx))
		return false;
	TlStrMap names;
	tl_index_outer_names(idx, &names);
	if (nends)
		qsort(ends, nends, sizeof *ends, tl_callers__end_cmp);
	bool ok = true;
	tl_model__enter(idx);
	for (uint32_t i = 0; ok && names.count; i++) {
		const TlIndex *mod = im->importer(im, idx, i);
		if (!mod)
			break;
		if (i >= TL_CALLERS_IMPORTERS || !mod->src || !mod->src->text) {
			ok = false; /* more than tl_model__importer_calls reads */
			break;
		}
		const char *t = mod->src->text;
		uint32_t len = mod->src->length;
		if (strstr(t, "import *")) {
			ok = false; /* a star import may re-export any of them */
			break;
		}
		const char *path = mod->src->path;
		const char *base = path ? strrchr(path, '/') : NULL;
		bool init = strcmp(base ? base + 1 : path ? path : "", "__init__.py") == 0;
		for (uint32_t a = 0; a < len;) {
			if (!tl_callers__word(t[a])) {
				a++;
				continue;
			}
			uint32_t b = a;
			while (b < len && tl_callers__word(t[b]))
				b++;
			int32_t f;
			if ((t[a] < '0' || t[a] > '9') && tl_strmap_get(&names, t + a, b - a, &f) && f >= 0 &&
			    (uint32_t)f < idx->funcs.size && !bad[f]) {
				TlExtEnd key = { mod, b, f };
				/* a call of it that the importers' sites hold; else an
				 * import that keeps its name, in a module that calls it
				 * (one that only imports it re-exports it, as a
				 * package's __init__.py does: their importers are not
				 * read) */
				if ((!nends || !bsearch(&key, ends, nends, sizeof *ends, tl_callers__end_cmp)) &&
				    (init || !tl_callers__calls_in(ends, nends, mod, f) ||
				     tl_callers__in_import(mod, a, b) != 1))
					bad[f] = 1;
			}
			a = b;
		}
	}
	tl_model__leave(idx);
	tl_strmap_release(&names);
	return ok;
}
