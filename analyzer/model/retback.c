/* Whether a caller the module's flow graph does not show differentiates
 * what a function returns: `out = probe.outputs(x)` in an importer, then
 * `torch.autograd.grad(out.sum(), x)`; or, for a method, a base class
 * that calls the method on `self` (`prediction = self._forward(x)` in the
 * base, overridden by the subclass) and differentiates what it returns. The flow graph of flow.c is one
 * module's; a value whose flow ends at a return of a function that no
 * call of its own module takes (an open return) is handed back to the
 * facts as that function, and this summary tells whether an importer's
 * call of it (callers.c: by its import-resolved name, or a method through
 * an instance the importer's model holds) leads its result to a backward
 * in the importer's own flow graph. A method's call on `self` in a
 * method of a base class (tl_model__bases_next: in its module or, through
 * the imports, in another of the project) runs the override too, though
 * the index resolves it to the base's own method: its result, followed
 * in the base's module's flow graph, decides as an importer's call does.
 *
 * One level of modules: an importer's function that returns the result
 * again is not followed into the importers of that module. The answer is
 * kept per function (TlFuncSum.ret_back) and computed once: the
 * importers' models are built for it, as the other summaries over the
 * project's call sites build them.
 *
 * Owns: tl_model_return_differentiated. */
#include <string.h>

#include "model/model_internal.h"

typedef struct TlRetBack {
	const TlModel *m; /* the function's module's */
	int32_t func;     /* the function asked about */
	bool yes;
} TlRetBack;

static bool tl_rb__want(void *ctx, int32_t f)
{
	const TlRetBack *rb = ctx;
	return f == rb->func && !rb->yes;
}

static void tl_rb__site(void *ctx, const TlExtCall *s)
{
	TlRetBack *rb = ctx;
	/* the module's own calls are in its flow graph already */
	if (rb->yes || !s->om || s->om == rb->m)
		return;
	rb->yes = tl_model_reaches_backward(s->mod, s->call->node, (TSNode){ 0 }, NULL, NULL) > 0;
}

/* A call of `name` on `self` in a method of a base class of `cls`
 * (not the class itself) whose result its module differentiates. */
static bool tl_rb__base_calls(TlModel *m, int32_t cls, const char *name)
{
	TlBaseWalk w;
	tl_model__bases_begin(&w, m->idx, cls);
	const TlIndex *at;
	bool first = true, yes = false;
	for (const TlClass *c; !yes && (c = tl_model__bases_next(m, &w, &at)); first = false) {
		if (first)
			continue;
		int32_t k = (int32_t)(c - at->classes.items);
		bool other = at != m->idx;
		if (other)
			tl_model__enter(m->idx);
		for (uint32_t i = 0; !yes && i < at->calls.size; i++) {
			const TlCall *call = &at->calls.items[i];
			if (call->func < 0 || at->funcs.items[call->func].cls != k || !call->method ||
			    strcmp(call->method, name) != 0 || ts_node_is_null(call->receiver))
				continue;
			uint32_t len;
			const char *t = tl_index_text(at, call->receiver, &len);
			if (len == 4 && memcmp(t, "self", 4) == 0)
				yes = tl_model_reaches_backward(at, call->node, (TSNode){ 0 }, NULL, NULL) > 0;
		}
		if (other)
			tl_model__leave(m->idx);
	}
	return yes;
}

bool tl_model_return_differentiated(const TlIndex *idx, int32_t func)
{
	TlModel *m = (TlModel *)tl_model_of(idx);
	if (!m || func < 0 || (uint32_t)func >= m->funcs.size)
		return false;
	TlFuncSum *s = &m->funcs.items[func];
	if (s->ret_back)
		return s->ret_back == 2;
	TlRetBack rb = { m, func, false };
	s->ret_back = 1;
	tl_model__importer_calls(m, TL_CALLERS_INSTANCES | TL_CALLERS_VALUES, tl_rb__want, tl_rb__site, &rb);
	const TlFunc *f = &idx->funcs.items[func];
	if (!rb.yes && f->cls >= 0 && f->name)
		rb.yes = tl_rb__base_calls(m, f->cls, f->name);
	s = &m->funcs.items[func];
	s->ret_back = rb.yes ? 2 : 1;
	return rb.yes;
}
