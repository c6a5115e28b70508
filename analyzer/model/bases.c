/* API classes a class of the project derives from. A class whose base is
 * one the API table names (`class DataLoader(torch.utils.data.DataLoader)`
 * in a library of the project) makes what its base makes: an instance of
 * it is a DataLoader, or a sampler, as the base's row says, unless a class
 * on the way defines how it is iterated (`__iter__`), which is what the
 * questions of those kinds ask about (its batches, its order).
 *
 * Owns: tl_model__class_api. */
#include <string.h>

#include "model/apitable.h"
#include "model/model_internal.h"

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
