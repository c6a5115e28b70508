/* The autocast entry context: whether every call site of a function in
 * its module runs under an autocast region (docs/semantic-model.md,
 * "Entry contexts and the wrapper family"), for the autocast kinds a
 * question accepts. A call site is under one when the innermost autocast
 * `with` block around it (TlWith.ctx) is of an accepted kind, or, outside
 * any, when the function around it is entered under one in turn. A
 * function's decorators decide first (`@torch.autocast("cuda")`, an
 * `enabled=False` one); one that escapes (is read other than called), has
 * no call site, or calls itself is not known to be.
 *
 * Computed once per module and accepted kinds, for every function at once:
 * a least fixpoint over the module's call sites (a work list from the
 * functions their decorators or sites decide, each call site counted down
 * once: recursion and cycles of functions stay outside), kept with the
 * index (TlIndex.tables, steps.c) whether or not a model is built. Needs
 * only the index's contexts (TlWith.ctx, TlFunc.decorator_ctx, which the
 * facts fill as the index is built).
 *
 * Owns: tl_model_autocast_entry, TlIndexTables.autocast_entry. */
#include <string.h>

#include "base/alloc.h"
#include "model/model_internal.h"

/* An autocast context of a kind `ask` accepts: not a CPU one with
 * TL_CTX_NOT_CPU, a float16 one with TL_CTX_HALF_AUTOCAST. */
static bool tl_autocast__accepts(uint32_t k, uint32_t ask)
{
	return (k & TL_CTX_AUTOCAST) && !((ask & TL_CTX_NOT_CPU) && (k & TL_CTX_CPU_AUTOCAST)) &&
	       !((ask & TL_CTX_HALF_AUTOCAST) && !(k & TL_CTX_HALF_AUTOCAST));
}

int tl_model_autocast_at(const TlIndex *idx, int32_t with, uint32_t ask)
{
	for (int32_t w = with; w >= 0; w = idx->withs.items[w].parent) {
		uint32_t k = idx->withs.items[w].ctx;
		if (tl_autocast__accepts(k, ask))
			return 1;
		if (k & (TL_CTX_AUTOCAST | TL_CTX_AUTOCAST_OFF))
			return 0;
	}
	return -1;
}

/* Every function's entry into `entry` (1 under an accepted autocast, 2
 * not known to be). */
static void tl_autocast__solve(const TlIndex *idx, uint32_t ask, uint8_t *entry)
{
	uint32_t n = idx->funcs.size;
	memset(entry, 2, n ? n : 1);
	uint32_t *pending = tl_calloc(n ? n : 1, sizeof *pending);
	TlIntArray key, item, work;
	tl_array_init(&key);
	tl_array_init(&item);
	tl_array_init(&work);
	for (uint32_t i = 0; i < n; i++) {
		const TlFunc *f = &idx->funcs.items[i];
		if (tl_autocast__accepts(f->decorator_ctx, ask)) {
			entry[i] = 1;
			tl_array_push(&work, (int32_t)i);
			continue;
		}
		if ((f->decorator_ctx & (TL_CTX_AUTOCAST | TL_CTX_AUTOCAST_OFF)) || f->escapes || !f->call_sites.size)
			continue;
		bool blocked = false;
		uint32_t edges = key.size;
		for (uint32_t k = 0; !blocked && k < f->call_sites.size; k++) {
			const TlCall *c = &idx->calls.items[f->call_sites.items[k]];
			int at = tl_model_autocast_at(idx, c->with, ask);
			if (at == 1)
				continue;
			if (at < 0 && c->func >= 0 && c->func != (int32_t)i) {
				pending[i]++;
				tl_array_push(&key, c->func);
				tl_array_push(&item, (int32_t)i);
				continue;
			}
			blocked = true; /* outside autocast, module-level code, or recursion */
		}
		if (blocked) {
			key.size = item.size = edges;
			pending[i] = 0;
			continue;
		}
		if (!pending[i]) {
			entry[i] = 1;
			tl_array_push(&work, (int32_t)i);
		}
	}
	tl_int_propagate(&key, &item, n, pending, entry, &work);
	tl_array_release(&key);
	tl_array_release(&item);
	tl_array_release(&work);
	tl_free(pending);
}

bool tl_model_autocast_entry(const TlIndex *idx, int32_t func, uint32_t ask)
{
	if (func < 0 || (uint32_t)func >= idx->funcs.size)
		return false;
	unsigned slot = ((ask & TL_CTX_NOT_CPU) ? 1u : 0u) | ((ask & TL_CTX_HALF_AUTOCAST) ? 2u : 0u);
	/* Kept with the index (TlIndex.tables), whether or not a model is
	 * built: found once per module and kind. */
	TlIndexTables *t = tl_model__tables(idx);
	uint8_t *entry = __atomic_load_n(&t->autocast_entry[slot], __ATOMIC_ACQUIRE);
	if (!entry) {
		uint8_t *made = tl_malloc(idx->funcs.size ? idx->funcs.size : 1);
		tl_autocast__solve(idx, ask, made);
		entry = tl_model__publish((void **)&t->autocast_entry[slot], made);
		if (entry != made)
			tl_free(made);
	}
	return entry[func] == 1;
}
