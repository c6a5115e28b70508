/* API classes a class of the project derives from. A class whose base is
 * one the API table names (`class DataLoader(torch.utils.data.DataLoader)`
 * in a library of the project) makes what its base makes: an instance of
 * it is a DataLoader, or a sampler, as the base's row says, unless a class
 * on the way defines how it is iterated (`__iter__`), which is what the
 * questions of those kinds ask about (its batches, its order).
 *
 * Whether a class derives from bases the model reads, every one (a class
 * of the project, whose bases it reads in turn, or one the API table
 * names), so that what the class is follows from them alone.
 *
 * Owns: tl_model__class_api, tl_model_class_bases_read. */
#include <string.h>

#include "model/apitable.h"
#include "model/model_internal.h"
#include "syntax/syms.h"
#include "syntax/treewalk.h"

const TlApiRow *tl_model__class_api(TlModel *m, const TlIndex *mod, int32_t cls)
{
	/* Its bases, as tl_model__class_is_module reads them. */
	TlBaseWalk w;
	tl_model__bases_begin(&w, mod, cls);
	const TlIndex *at;
	for (const TlClass *c; (c = tl_model__bases_next(m, &w, &at));) {
		if (c->is_module)
			return NULL;
		int32_t k = (int32_t)(c - at->classes.items);
		int32_t iter = tl_index_method(at, k, "__iter__", 8);
		if (iter >= 0 && at->funcs.items[iter].cls == k)
			return NULL;
		for (uint32_t i = 0; i < c->base_qnames.size; i++) {
			const char *bq = c->base_qnames.items[i];
			const TlApiRow *r = bq ? tl_api_qualified(bq) : NULL;
			if (r && (r->kind == TL_APIK_LOADER || r->kind == TL_APIK_SAMPLER))
				return r;
		}
	}
	return NULL;
}

bool tl_model_class_bases_read(const TlIndex *mod, int32_t cls)
{
	const TlSyms *sy = tl_syms();
	TlModel *m = (TlModel *)tl_model_of(mod);
	if (!m || cls < 0 || (uint32_t)cls >= mod->classes.size)
		return false;
	/* The class and its bases, breadth first, a few classes in all: one
	 * more unread base than that is one the model does not read. */
	struct {
		const TlIndex *mod;
		int32_t cls;
	} todo[16];
	uint32_t n = 0, head = 0;
	todo[n].mod = mod;
	todo[n++].cls = cls;
	bool read = true;
	while (read && head < n) {
		const TlIndex *at = todo[head].mod;
		int32_t k = todo[head++].cls;
		if (k < 0 || (uint32_t)k >= at->classes.size)
			return false;
		const TlClass *c = &at->classes.items[k];
		/* A base the index neither binds to a class of its module nor
		 * names (`DecoderBase[Cache, Output]`, `with_metaclass(...)`) is
		 * one the model does not read; the class itself must have one. */
		TSNode sup = tl_tree_field(c->node, sy->f_superclasses);
		uint32_t exprs = 0, count = ts_node_is_null(sup) ? 0 : ts_node_named_child_count(sup);
		for (uint32_t i = 0; i < count; i++)
			exprs += ts_node_symbol(ts_node_named_child(sup, i)) != sy->keyword_argument;
		if (exprs != c->bases.size + c->base_qnames.size || (at == mod && k == cls && !exprs))
			return false;
		for (uint32_t i = 0; read && i < c->bases.size; i++) {
			read = n < 16;
			if (read) {
				todo[n].mod = at;
				todo[n++].cls = c->bases.items[i];
			}
		}
		for (uint32_t i = 0; read && i < c->base_qnames.size; i++) {
			const char *bq = c->base_qnames.items[i];
			if (bq && (strcmp(bq, "object") == 0 || tl_api_qualified(bq) || tl_api_under(bq)))
				continue;
			TlVal v;
			read = bq && at->imports && mod->imports && n < 16;
			if (!read)
				break;
			tl_model__enter(mod);
			read = tl_model__resolve_in(m, at, bq, strlen(bq), &v) && v.kind == TL_VK_CLASS &&
			       v.ref >= 0 && v.mod;
			tl_model__leave(mod);
			if (read) {
				todo[n].mod = v.mod;
				todo[n++].cls = v.ref;
			}
		}
	}
	return read;
}
