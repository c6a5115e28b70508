/* The call sites of a module's functions in the modules that import it
 * (TlImports.importer), for the summaries that join over every call site
 * of the project (gradmode.c's entry modes, trains.c's training around a
 * function): a call whose import-resolved name names the function
 * (`evaluation.score(...)`, `from evaluation import score`), and, when
 * asked for, a method called through an instance the importer's model
 * holds (`trainer = Trainer(...); trainer.validate()`), and a class's own
 * `__init__` called by making an instance (`losses.Triplet(loss=ce)`).
 *
 * Which calls are all the importers have of a function (a name they
 * mention but in an import or a call of it may hand it on: `run(score)`),
 * tl_model__importers_mentions.
 *
 * Owns: tl_model__importer_calls, tl_model__importers_mentions. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/strmap.h"
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

void tl_model__importer_calls(TlModel *m, unsigned how, bool (*want)(void *ctx, int32_t func),
			      void (*visit)(void *ctx, const TlExtCall *s), void *ctx)
{
	const TlIndex *idx = m->idx;
	const TlImports *im = idx->imports;
	bool instances = (how & TL_CALLERS_INSTANCES) != 0;
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
	tl_model__enter(idx);
	for (uint32_t i = 0; i < TL_CALLERS_IMPORTERS; i++) {
		const TlIndex *mod = im->importer(im, idx, i);
		if (!mod)
			break;
		const TlModel *om = NULL;
		bool om_asked = false;
		for (uint32_t c = 0; c < mod->calls.size; c++) {
			const TlCall *call = &mod->calls.items[c];
			const char *last = call->qname ? strrchr(call->qname, '.') : NULL;
			last = last ? last + 1 : call->qname ? call->qname : call->method;
			int32_t any, f = -1;
			if (!last || !tl_strmap_get(&names, last, strlen(last), &any))
				continue;
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
			} else if (!instances) {
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
				f = tl_callers__through(m, om, mod, call);
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
