/* Host copies of device data (TlVal.host, phost): the answer to "was this
 * value copied from a device tensor to the host in this iteration?"
 * (TL303's round trip, rules/checks/TL303.c: tl_check_host_derived).
 *
 * - A copy: a method of the table's role to-host (`.cpu()`, `.item()`,
 *   `.tolist()`) called on a value on the accelerator. Its result gets the bit of every loop around the call in
 *   its function and TL_VH_FUNC (made now: in the current round of each).
 *   Called on a parameter's data (`t.detach().cpu()` in `def
 *   to_numpy(t)`: a parameter's value holds `phost` bit 8 + i, what is
 *   computed from it too), the result gets the parameter's `phost` bit
 *   i: a copy from the device where the caller passes a device tensor.
 * - What is computed from one keeps its bits: operators, subscripts,
 *   containers and comprehensions (any operand's), numpy's and torch's
 *   functions (not torch.nn's or torch.distributed's) and the builtins
 *   the table lists as numbers or containers or as keeping their
 *   argument (their arguments'), a method the index resolves to nothing
 *   (its receiver's: `arr.astype(...)`), an attribute read off a value
 *   (the value's), a container a copy is stored into (`append`). A call
 *   of anything else makes new data (an environment's step, an unknown
 *   helper), as does a factory of a shape (`torch.zeros(n)`: the table's
 *   tensor factories, numpy's array factories).
 * - A function of the project: its summary's result is a copy made now
 *   (every bit of the call's place) when it holds one (`TL_VH_FUNC`), or
 *   when it copies a parameter the caller passes a device tensor for;
 *   else it keeps the copies of the arguments it is computed from (as
 *   this transfer computes: a parameter that only gives a factory its
 *   shape gives nothing).
 * - Where a round of a loop begins, no value holds the loop's bit (nor a
 *   deeper one's): what was copied before is not this round's. A
 *   function's parameters, its globals and what an object's attribute
 *   holds from elsewhere hold no bits.
 *
 * Owns: the interpreter's tl_in__host_* hooks. */
#include "model/interp_internal.h"

#include <string.h>

#include "model/apitable.h"
#include "syntax/syms.h"

/* The bits of a copy made now: every loop around the point and the run. */
static uint8_t tl_host__now(const In *in)
{
	uint32_t d = in->loops < TL_VH_LOOPS ? in->loops : TL_VH_LOOPS;
	return (uint8_t)(TL_VH_FUNC | ((1u << d) - 1u));
}

void tl_in__host_clear(TlVal *v)
{
	v->host = v->phost = 0;
}

void tl_in__host_head(In *in, const StFrame *f)
{
	uint32_t d = f->depth < TL_VH_LOOPS - 1 ? f->depth : TL_VH_LOOPS - 1;
	uint8_t keep = (uint8_t)(TL_VH_FUNC | ((1u << d) - 1u));
	for (uint32_t i = 0; i < in->st.slots.size; i++)
		in->st.slots.items[i].val.host &= keep;
}

void tl_in__host_enter(In *in)
{
	for (uint32_t i = 0; i < in->st.slots.size; i++) {
		TlSlot *sl = &in->st.slots.items[i];
		tl_in__host_clear(&sl->val);
		/* a parameter's value is its data (bit 8 + i); `self` is none */
		for (uint32_t k = 0; k < in->nparams && k < 8 && sl->path.n == 0; k++)
			if (in->param_roots[k] == sl->path.root && sl->path.root != in->self_id)
				sl->val.phost = (uint16_t)(1u << (8 + k));
	}
}

void tl_in__host_field(TlVal *v, const TlVal *obj)
{
	v->host = obj->host;
	v->phost = obj->phost;
}

void tl_in__host_elem(TlVal *e, const TlVal *of)
{
	e->host |= of->host;
	e->phost |= of->phost;
}

void tl_in__host_expr(In *in, TSNode n, const TlVal *ops, uint32_t nv, TlVal *r)
{
	const TlSyms *sy = in->sy;
	TSSymbol s = ts_node_symbol(n);
	if (s == sy->call || s == sy->identifier || s == sy->attribute || s == sy->lambda ||
	    s == sy->string || s == in->concatenated_string)
		return;
	for (uint32_t i = 0; i < nv; i++) {
		r->host |= ops[i].host;
		r->phost |= ops[i].phost;
	}
}

static bool tl_host__starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* A builtin whose result carries its arguments' data: the table's rows of
 * kind number or container, or that keep their argument (`sum`, `max`). */
static bool tl_host__builtin(const char *name)
{
	const TlApiRow *b = tl_api_builtin(name);
	return b && (b->kind == TL_APIK_NUMBER || b->kind == TL_APIK_CONTAINER || b->graph == TL_APIG_KEEPS);
}

void tl_in__host_call(In *in, const TlCall *c, const TlVal *vals, uint32_t nv, TlVal *r)
{
	if (in->applied)
		return; /* tl_in__host_apply said */
	uint8_t host = 0;
	uint16_t phost = 0;
	bool args = false;
	if (c->receiver.id && c->method && !c->qname) {
		const TlApiRow *m = tl_api_method(c->method);
		if (m && (m->roles & TL_APIR_TO_HOST)) {
			if (vals[0].device == TL_VD_ACCEL && vals[0].kind != TL_VK_MODULE &&
			    vals[0].kind != TL_VK_WRAPPER && vals[0].kind != TL_VK_DEVICE) {
				r->host = tl_host__now(in);
				r->phost = 0;
				return;
			}
			/* a parameter's data: a copy where the caller passes a device tensor */
			phost = (uint16_t)(vals[0].phost >> 8);
		}
	}
	if (c->qname) {
		const TlApiRow *q = tl_api_qualified(c->qname);
		if (q && ((q->sets & TL_APIS_TENSOR_FACTORY) ||
			  ((q->roles & TL_APIR_FACTORY) && q->kind == TL_APIK_ARRAY))) {
			tl_in__host_clear(r);
			return;
		}
		args = tl_host__starts(c->qname, "numpy.") ||
		       (tl_host__starts(c->qname, "torch.") && !tl_host__starts(c->qname, "torch.nn.") &&
			!tl_host__starts(c->qname, "torch.distributed."));
	} else if (!c->receiver.id) {
		args = c->method && tl_host__builtin(c->method);
	} else if (c->target < 0) {
		host = vals[0].host; /* the value's own methods: arr.astype(...) */
		phost |= vals[0].phost;
	}
	for (uint32_t i = 1; args && i < nv; i++) {
		host |= vals[i].host;
		phost |= vals[i].phost;
	}
	/* A copy back to the accelerator (`x_host.cuda()`) is device data again. */
	if (r->device == TL_VD_ACCEL && c->receiver.id && vals[0].device != TL_VD_ACCEL)
		host = 0, phost = 0;
	r->host = host;
	r->phost = phost;
}

void tl_in__host_apply(In *in, const TlVal *ret, const TlVal *args, uint32_t nargs, uint32_t shift, TlVal *r)
{
	bool copy = (ret->host & TL_VH_FUNC) != 0;
	uint8_t host = 0;
	uint16_t phost = 0;
	for (uint32_t i = shift; i < 8 && ret->phost && !copy; i++) {
		if (i - shift >= nargs)
			break;
		const TlVal *av = &args[i - shift];
		/* a copy of the parameter's data, of a device tensor passed */
		if ((ret->phost & (1u << i)) && av->device == TL_VD_ACCEL)
			copy = true;
		else if (ret->phost & (1u << i))
			phost |= (uint16_t)(av->phost >> 8); /* the caller's own parameter, passed on */
		/* computed from the parameter's data: the argument's copies */
		if (ret->phost & (1u << (8 + i))) {
			host |= av->host;
			phost |= av->phost;
		}
	}
	r->host = copy ? tl_host__now(in) : host;
	r->phost = copy ? 0 : phost;
}
