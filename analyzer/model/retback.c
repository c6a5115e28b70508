/* Whether a caller in another module of the project differentiates what a
 * function returns: `out = probe.outputs(x)` in an importer, then
 * `torch.autograd.grad(out.sum(), x)`. The flow graph of flow.c is one
 * module's; a value whose flow ends at a return of a function that no
 * call of its own module takes (an open return) is handed back to the
 * facts as that function, and this summary tells whether an importer's
 * call of it (callers.c: by its import-resolved name, or a method through
 * an instance the importer's model holds) leads its result to a backward
 * in the importer's own flow graph.
 *
 * One level of modules: an importer's function that returns the result
 * again is not followed into the importers of that module. The answer is
 * kept per function (TlFuncSum.ret_back) and computed once: the
 * importers' models are built for it, as the other summaries over the
 * project's call sites build them.
 *
 * Owns: tl_model_return_differentiated. */
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
	tl_model__importer_calls(m, TL_CALLERS_INSTANCES, tl_rb__want, tl_rb__site, &rb);
	s = &m->funcs.items[func];
	s->ret_back = rb.yes ? 2 : 1;
	return rb.yes;
}
