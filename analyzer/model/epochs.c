/* Which of its parameters a function sets a sampler's epoch on (model.h:
 * tl_model_epoch_params): a summary field.
 *
 * `sampler.set_epoch(epoch)` on a value read from a parameter: the
 * parameter itself (`reshuffle(sampler, epoch)`), its sampler
 * (`loader.sampler.set_epoch(e)`, `loader.batch_sampler.sampler`), or a
 * local name holding either on some path (`sampler = loader.batch_sampler
 * .sampler if ... else loader.sampler`). The interpreter tells each call
 * where it runs it (tl_in__epoch_call): the receiver's `pold` bits name
 * the parameters it is read from (model/prov.c), and a call of a function
 * of the project (of any module) whose summary sets the epoch of its
 * parameter i sets it on what argument i is read from. The bits are the
 * summary's `epochs`; they only grow.
 *
 * A receiver the model knows to be something else than a sampler, a
 * loader or an object of unknown kind (a module, a tensor, a number) sets
 * nothing; nor does `self`.
 *
 * Owns: tl_model_epoch_params and the interpreter's tl_in__epoch_call. */
#include "model/interp_internal.h"

#include <string.h>

/* True when `v` may be a sampler, or a loader or an object holding one. */
static bool tl_epochs__may_hold_sampler(const TlVal *v)
{
	return v->kind == TL_VK_TOP || v->kind == TL_VK_BOT || v->kind == TL_VK_SAMPLER ||
	       v->kind == TL_VK_LOADER || v->kind == TL_VK_OBJECT;
}

/* `bits` without those of the parameters that are `self`. */
static uint16_t tl_epochs__not_self(const In *in, uint16_t bits)
{
	for (uint32_t i = 0; i < in->nparams && i < 16; i++)
		if (in->param_roots[i] == in->self_id)
			bits = (uint16_t)(bits & ~(1u << i));
	return bits;
}

void tl_in__epoch_call(In *in, const TlCall *c, const TlVal *recv, const TlVal *args, uint32_t nargs)
{
	if (in->func < 0 || !in->nparams)
		return;
	uint16_t bits = 0;
	if (recv && c->method && strcmp(c->method, "set_epoch") == 0 && tl_epochs__may_hold_sampler(recv))
		bits = recv->pold;
	if (in->callee_mod && in->callee_ref >= 0) {
		const TlIndex *mod = in->callee_mod;
		const TlModel *cm = mod == in->idx ? in->m : mod->model;
		if (cm && (uint32_t)in->callee_ref < cm->funcs.size) {
			if (cm == in->m)
				tl_model__dep_summary(in->m, in->callee_ref, false);
			uint16_t sets = cm->funcs.items[in->callee_ref].epochs;
			for (uint32_t i = in->callee_shift; i < 16 && sets; i++)
				if ((sets & (1u << i)) && i - in->callee_shift < nargs &&
				    tl_epochs__may_hold_sampler(&args[i - in->callee_shift]))
					bits |= args[i - in->callee_shift].pold;
		}
	}
	in->pepochs = (uint16_t)(in->pepochs | tl_epochs__not_self(in, bits));
}

uint16_t tl_model_epoch_params(const TlIndex *idx, int32_t func)
{
	const TlModel *m = tl_model_of(idx);
	if (!m || func < 0 || (uint32_t)func >= m->funcs.size)
		return 0;
	tl_model__ensure((TlModel *)m, func); /* computed on demand: no answer changes */
	const TlFuncSum *s = &m->funcs.items[func];
	return s->status ? s->epochs : 0;
}
