/* What a method keeps of its arguments in its object (model.h:
 * tl_model_kept_attr): a summary field.
 *
 * A running-average meter (`self.sum += val * n`), a step log
 * (`self.history.append(val)`) or a moving average (`self.value = d *
 * self.value + (1 - d) * val`) keeps something of each call's argument in
 * an attribute of `self` that outlives the call: with a graph tensor, its
 * graph, call after call. The interpreter tells such a store where it runs
 * it (tl_in__keep_store): a store into `self.<attr>` that adds to what the
 * attribute held, outside any loop of the method, of a value whose history
 * follows some of the method's parameters (TlVal.pgraph: `val * n` follows
 * both, `val.item()` neither). Those parameters are the summary's `keeps`
 * bits, and the attribute the first store named is kept per parameter
 * (TlModel.kept_attr).
 *
 * Owns: tl_model_kept_attr and the interpreter's tl_in__keep_store. */
#include "model/interp_internal.h"

#include <string.h>

/* Bounds the nodes of one right-hand side looked at for the attribute a
 * moving average reads. */
#define TL_KEEPS_TERMS 64

/* True when expression `rhs` reads `target` (an attribute, by its text)
 * outside any call or lambda: `d * self.value + (1 - d) * val` reads
 * `self.value`. */
static bool tl_keeps__reads(In *in, TSNode rhs, TSNode target)
{
	const TlSyms *sy = in->sy;
	uint32_t tlen = 0;
	const char *ttext = tl_index_text(in->idx, target, &tlen);
	int left = TL_KEEPS_TERMS;
	bool found = false;
	TlWalk w;
	tl_walk_start(&w, rhs);
	bool descend = true;
	do {
		TSNode x = w.node;
		TSSymbol s = ts_node_symbol(x);
		descend = s != sy->call && s != sy->lambda && --left > 0;
		if (s == sy->attribute) {
			uint32_t len = 0;
			const char *t = tl_index_text(in->idx, x, &len);
			found = len == tlen && memcmp(t, ttext, len) == 0;
			descend = false;
		}
	} while (!found && left > 0 && tl_walk_step(&w, descend));
	tl_walk_end(&w);
	return found;
}

void tl_in__keep_store(In *in, TSNode target, TSNode rhs, const TlVal *v)
{
	if (in->func < 0 || in->cls < 0 || in->self_id < 0 || in->loops || !v->pgraph)
		return;
	TlPath p;
	target = tl_index_unparen(target);
	if (!tl_path_of(&in->m->names, in->idx, target, &p) || p.root != in->self_id || p.n != 1 || p.sel[0] < 0)
		return;
	/* A plain assignment keeps the value only when it adds to what the
	 * attribute held (a moving average); `self.last = val` replaces it. */
	if (!ts_node_is_null(rhs) && !tl_keeps__reads(in, rhs, target))
		return;
	/* The object's own parameter (`self`) is no argument handed over. */
	uint16_t bits = v->pgraph;
	for (uint32_t i = 0; i < in->nparams && i < 16; i++)
		if (in->param_roots[i] == in->self_id)
			bits = (uint16_t)(bits & ~(1u << i));
	in->pkept = (uint16_t)(in->pkept | bits);
	for (uint32_t i = 0; i < 16; i++)
		if (bits & (1u << i)) {
			int32_t at;
			if (!tl_scopemap_get(&in->m->kept_attr, (uint32_t)in->func, i, &at))
				tl_scopemap_put(&in->m->kept_attr, (uint32_t)in->func, i, p.sel[0]);
		}
}

const char *tl_model_kept_attr(const TlIndex *idx, int32_t func, uint32_t param)
{
	const TlModel *m = tl_model_of(idx);
	if (!m || func < 0 || (uint32_t)func >= m->funcs.size || param >= 16)
		return NULL;
	tl_model__ensure((TlModel *)m, func); /* computed on demand: no answer changes */
	const TlFuncSum *s = &m->funcs.items[func];
	int32_t name;
	if (!s->status || !(s->keeps & (1u << param)) ||
	    !tl_scopemap_get(&m->kept_attr, (uint32_t)func, param, &name) || name < 0 ||
	    (uint32_t)name >= m->names.names.size)
		return NULL;
	return m->names.names.items[name];
}
