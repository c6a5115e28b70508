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
	/* Its bases, breadth first, as tl_model__class_is_module reads them:
	 * those of its module, one another module of the project defines, a
	 * few classes in all. */
	struct { const TlIndex *mod; int32_t cls; } todo[16];
	uint32_t n = 0, head = 0;
	todo[n].mod = mod;
	todo[n++].cls = cls;
	while (head < n) {
		const TlIndex *at = todo[head].mod;
		int32_t k = todo[head++].cls;
		if (k < 0 || (uint32_t)k >= at->classes.size)
			continue;
		const TlClass *c = &at->classes.items[k];
		if (c->is_module)
			return NULL;
		int32_t iter = tl_index_method(at, k, "__iter__", 8);
		if (iter >= 0 && at->funcs.items[iter].cls == k)
			return NULL;
		for (uint32_t i = 0; i < c->base_qnames.size; i++) {
			const char *bq = c->base_qnames.items[i];
			const TlApiRow *r = bq ? tl_api_qualified(bq) : NULL;
			if (r && (r->kind == TL_APIK_LOADER || r->kind == TL_APIK_SAMPLER))
				return r;
		}
		for (uint32_t i = 0; i < c->bases.size && n < 16; i++, n++) {
			todo[n].mod = at;
			todo[n].cls = c->bases.items[i];
		}
		int32_t far = -1;
		const TlIndex *next = at->imports && m->idx->imports ? tl_model__far_base(m, at, c, &far) : NULL;
		if (next && n < 16) {
			todo[n].mod = next;
			todo[n++].cls = far;
		}
	}
	return NULL;
}
