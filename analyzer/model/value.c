/* Abstract values (value.h): the joins, the widening, containers in the pool.
 * Recursion here follows container nesting, which tl_val_container caps at
 * TL_VAL_NEST: it never follows the input's depth. */
#include "model/value.h"

#include <string.h>

void tl_val_pool_init(TlValPool *p)
{
	tl_array_init(&p->vals);
	tl_array_init(&p->flows);
	p->flow_merge = NULL;
	p->flow_ctx = NULL;
}

void tl_val_pool_release(TlValPool *p)
{
	tl_array_release(&p->vals);
	tl_array_release(&p->flows);
}

int32_t tl_val_pool_add(TlValPool *p, TlVal v)
{
	tl_array_push(&p->vals, v);
	return (int32_t)p->vals.size - 1;
}

int32_t tl_val_chain_append(TlValPool *p, int32_t *first, int32_t *last, TlVal v)
{
	v.next = -1;
	int32_t at = tl_val_pool_add(p, v);
	if (*last < 0)
		*first = at;
	else
		p->vals.items[*last].next = at;
	*last = at;
	return at;
}

TlVal tl_val_bot(void)
{
	TlVal v;
	memset(&v, 0, sizeof v);
	v.elem = v.parts = v.next = v.ref = v.key = -1;
	return v;
}

TlVal tl_val_top(void)
{
	TlVal v = tl_val_bot();
	v.kind = TL_VK_TOP;
	v.graph = TL_VG_UNKNOWN;
	v.device = TL_VD_TOP;
	v.dtype = TL_VT_TOP;
	v.made = TL_VM_TOP;
	return v;
}

TlVal tl_val_of(TlVKind k, TlVGraph g)
{
	TlVal v = tl_val_bot();
	v.kind = (uint8_t)k;
	v.graph = (uint8_t)g;
	/* A Python number, string or None lives in no device's memory: its
	 * device is bottom, so `total = 0` then `total += loss` joins to
	 * where the loss is. */
	bool plain = k == TL_VK_NUMBER || k == TL_VK_BOOL || k == TL_VK_STRING || k == TL_VK_NONE;
	v.device = plain ? TL_VD_BOT : TL_VD_TOP;
	v.dtype = TL_VT_TOP;
	v.nograd = plain; /* a Python number never requires grad */
	return v;
}

bool tl_val_is_bot(const TlVal *v)
{
	return v->kind == TL_VK_BOT && v->graph == TL_VG_BOT;
}

static const TlVal *tl_val__at(const TlValPool *p, int32_t i)
{
	return i >= 0 && (uint32_t)i < p->vals.size ? &p->vals.items[i] : NULL;
}

static unsigned tl_val__graph_join(unsigned a, unsigned b)
{
	if (a == b || b == TL_VG_BOT)
		return a;
	if (a == TL_VG_BOT)
		return b;
	/* History on one path, nothing known of the other: history on some
	 * paths. */
	if (a == TL_VG_MUST || b == TL_VG_MUST || a == TL_VG_MAY || b == TL_VG_MAY)
		return TL_VG_MAY;
	return TL_VG_UNKNOWN;
}

/* Flat components: equal or one bottom, else the top. */
static unsigned tl_val__flat(unsigned a, unsigned b, unsigned top)
{
	if (a == b || b == 0)
		return a;
	if (a == 0)
		return b;
	return top;
}

/* How deep containers nest in `v` (0 for a value that is none). */
static unsigned tl_val__depth(const TlValPool *p, const TlVal *v)
{
	unsigned d = 0;
	while (v && v->kind == TL_VK_CONTAINER && d <= TL_VAL_NEST) {
		d++;
		v = tl_val__at(p, v->elem);
	}
	return d;
}

static TlVal tl_val__join_at(TlValPool *p, const TlVal *a, const TlVal *b, unsigned nest);

/* A value whose element an index reads: a container, a tensor, or a
 * join of such of no one kind (TL_VK_TOP holding an element value). */
static bool tl_val__indexed(const TlVal *v)
{
	return v->kind == TL_VK_CONTAINER || v->kind == TL_VK_TENSOR || (v->kind == TL_VK_TOP && v->elem >= 0);
}

static int32_t tl_val__join_index(TlValPool *p, int32_t a, int32_t b, unsigned nest)
{
	if (a < 0)
		return b;
	if (b < 0 || a == b)
		return a;
	TlVal va = p->vals.items[a], vb = p->vals.items[b];
	TlVal j = tl_val__join_at(p, &va, &vb, nest + 1);
	return tl_val_pool_add(p, j);
}

static TlVal tl_val__join_at(TlValPool *p, const TlVal *pa, const TlVal *pb, unsigned nest)
{
	/* Copies: `pa` and `pb` may point into the pool, which grows below. */
	TlVal va = *pa, vb = *pb;
	const TlVal *a = &va, *b = &vb;
	if (tl_val_is_bot(b))
		return *a;
	if (tl_val_is_bot(a))
		return *b;
	/* None joins as an optional: `return None` on a path the caller
	 * tests before it unpacks (`if out is None: continue`). */
	if ((a->kind == TL_VK_NONE) != (b->kind == TL_VK_NONE)) {
		/* ... holding the objects either held (model/flow.c) */
		TlVal o = a->kind == TL_VK_NONE ? *b : *a;
		o.flow = tl_val_flow_union(p, a->flow, b->flow);
		o.cst = 0; /* None on one path, another value on the other */
		return o;
	}
	TlVal j = tl_val_bot();
	j.kind = (uint8_t)tl_val__flat(a->kind, b->kind, TL_VK_TOP);
	/* A Python number joins a tensor that carries history as a tensor
	 * that may carry it: arithmetic promotes the number (`total = 0`,
	 * then `total += loss`; `return 0` on an early exit beside `return
	 * loss`), and every path on which it is a tensor has history. A
	 * tensor whose history is itself only on some paths (or not known)
	 * says too little beside a number: the join stays of no one kind. */
	if ((a->kind == TL_VK_NUMBER && b->kind == TL_VK_TENSOR && b->graph == TL_VG_MUST) ||
	    (a->kind == TL_VK_TENSOR && a->graph == TL_VG_MUST && b->kind == TL_VK_NUMBER))
		j.kind = TL_VK_TENSOR;
	j.graph = (uint8_t)tl_val__graph_join(a->graph, b->graph);
	j.device = (uint8_t)tl_val__flat(a->device, b->device, TL_VD_TOP);
	j.dtype = (uint8_t)tl_val__flat(a->dtype, b->dtype, TL_VT_TOP);
	j.made = (uint16_t)(a->made | b->made);
	j.host = (uint8_t)(a->host | b->host);
	j.fresh = (uint8_t)(a->fresh & b->fresh);
	j.phost = (uint16_t)(a->phost | b->phost);
	/* A module that may be an instance of one of several classes (a
	 * model chosen by a flag) outputs probabilities when one of them
	 * does: the configuration that builds it has them. Otherwise what it
	 * outputs is what every path agrees on (an nn.Sequential given a
	 * softmax on some paths only does not). */
	if (a->act == TL_VA_PENDING || b->act == TL_VA_PENDING)
		j.act = a->act == TL_VA_PENDING ? b->act : a->act;
	else if (j.kind == TL_VK_MODULE && !((a->made | b->made) & TL_VM_SEQUENTIAL) &&
		 (a->ref != b->ref || a->mod != b->mod || a->ref < 0) &&
	    (a->act == (TL_VA_SOFTMAX | TL_VA_OUTPUT) || b->act == (TL_VA_SOFTMAX | TL_VA_OUTPUT)))
		j.act = TL_VA_SOFTMAX | TL_VA_OUTPUT;
	else
		j.act = a->act == b->act ? a->act : TL_VA_NONE;
	j.loss = a->loss == b->loss ? a->loss : TL_VL_OTHER;
	j.lastact = a->lastact == b->lastact ? a->lastact : TL_VA_NONE;
	j.pgraph = (uint16_t)(a->pgraph | b->pgraph);
	j.pcall = (uint16_t)(a->pcall | b->pcall);
	j.wrap = (uint8_t)(a->wrap | b->wrap);
	j.punwrap = (uint8_t)(a->punwrap | b->punwrap);
	j.old = (uint8_t)(a->old | b->old);
	j.prev = (uint8_t)(a->prev | b->prev);
	j.pold = (uint16_t)(a->pold | b->pold);
	j.kept = (uint8_t)(a->kept | b->kept);
	j.nograd = (uint8_t)(a->nograd == TL_VNOGRAD_FROZEN && b->nograd == TL_VNOGRAD_FROZEN ? TL_VNOGRAD_FROZEN
			     : a->nograd && b->nograd);
	if (!j.nograd) {
		int32_t ng = tl_val_ng_and(tl_val_ng(a), tl_val_ng(b));
		j.pnograd = ng > 0 ? (uint16_t)ng : 0;
	}
	j.mode = TL_VMODE_JOIN(a->mode, b->mode);
	/* eval on one side from a switch, the other a module (or a value of
	 * no known kind) whose mode is not known */
	bool mod_a = a->kind == TL_VK_MODULE || a->kind == TL_VK_WRAPPER || a->kind == TL_VK_TOP;
	bool mod_b = b->kind == TL_VK_MODULE || b->kind == TL_VK_WRAPPER || b->kind == TL_VK_TOP;
	j.meval = (uint8_t)((a->meval | b->meval) & (TL_VMEVAL_MAY | TL_VMEVAL_FORGOT));
	if ((TL_VMODE_SOME_EVAL(a->mode) && (a->meval & TL_VMEVAL_SWITCHED) && mod_b) ||
	    (TL_VMODE_SOME_EVAL(b->mode) && (b->meval & TL_VMEVAL_SWITCHED) && mod_a))
		j.meval |= TL_VMEVAL_MAY;
	if ((j.mode & TL_VMODE_EVAL) && ((a->meval | b->meval) & TL_VMEVAL_SWITCHED))
		j.meval |= TL_VMEVAL_SWITCHED;
	if ((j.meval & TL_VMEVAL_FORGOT) || j.mode == TL_VMODE_EVAL)
		j.meval &= (uint8_t)~TL_VMEVAL_MAY; /* not known; or eval on every path */
	j.cst = a->cst == b->cst ? a->cst : 0;
	j.origin = a->origin ? a->origin : b->origin;
	j.flow = tl_val_flow_union(p, a->flow, b->flow);
	if (a->ref == b->ref && a->mod == b->mod) {
		j.ref = a->ref;
		j.mod = a->mod;
	}
	/* A container joined with a tensor (`return [0]` on one path,
	 * `return loss` on another) is of no one kind, but both are indexed
	 * alike: the join keeps the element value, each side's element
	 * joined, which tl_val_element reads back (and so on, joined again). */
	if (j.kind == TL_VK_TOP && nest < TL_VAL_NEST && tl_val__indexed(a) && tl_val__indexed(b) &&
	    (a->kind == TL_VK_CONTAINER || b->kind == TL_VK_CONTAINER || a->elem >= 0 || b->elem >= 0)) {
		TlVal ea = tl_val_element(p, a), eb = tl_val_element(p, b);
		TlVal e = tl_val__join_at(p, &ea, &eb, nest + 1);
		e.next = -1;
		j.elem = tl_val_pool_add(p, e);
	}
	if (j.kind == TL_VK_CONTAINER && nest < TL_VAL_NEST) {
		j.elem = tl_val__join_index(p, a->elem, b->elem, nest);
		/* Positions survive only when both sides keep them. */
		if (a->parts >= 0 && b->parts >= 0) {
			int32_t ia = a->parts, ib = b->parts, last = -1;
			while (ia >= 0 && ib >= 0) {
				if (p->vals.items[ia].key != p->vals.items[ib].key)
					break;
				int32_t key = p->vals.items[ia].key;
				int32_t k = tl_val__join_index(p, ia, ib, nest);
				TlVal part = p->vals.items[k];
				part.key = key;
				tl_val_chain_append(p, &j.parts, &last, part);
				ia = p->vals.items[ia].next;
				ib = p->vals.items[ib].next;
			}
			if (ia >= 0 || ib >= 0)
				j.parts = -1; /* tuples of different lengths: element value only */
		}
	}
	return j;
}

TlVal tl_val_join(TlValPool *p, const TlVal *a, const TlVal *b)
{
	return tl_val__join_at(p, a, b, 0);
}

static bool tl_val__equal_at(const TlValPool *p, const TlVal *a, const TlVal *b, unsigned nest)
{
	if (a->kind != b->kind || a->graph != b->graph || a->device != b->device ||
	    a->dtype != b->dtype || a->made != b->made || a->pgraph != b->pgraph || a->pcall != b->pcall ||
	    a->wrap != b->wrap || a->punwrap != b->punwrap || a->act != b->act || a->loss != b->loss ||
	    a->lastact != b->lastact || a->ref != b->ref || a->mod != b->mod || a->old != b->old || a->prev != b->prev ||
	    a->pold != b->pold || a->kept != b->kept || a->host != b->host || a->phost != b->phost || a->fresh != b->fresh ||
	    a->nograd != b->nograd || a->pnograd != b->pnograd || a->mode != b->mode || a->meval != b->meval || a->cst != b->cst ||
	    !tl_val_flow_same(p, a->flow, b->flow))
		return false;
	if ((a->kind != TL_VK_CONTAINER && a->kind != TL_VK_TOP) || nest >= TL_VAL_NEST)
		return true;
	const TlVal *ea = tl_val__at(p, a->elem), *eb = tl_val__at(p, b->elem);
	if (!ea != !eb || (ea && !tl_val__equal_at(p, ea, eb, nest + 1)))
		return false;
	int32_t ia = a->parts, ib = b->parts;
	while (ia >= 0 && ib >= 0) {
		if (p->vals.items[ia].key != p->vals.items[ib].key ||
		    !tl_val__equal_at(p, &p->vals.items[ia], &p->vals.items[ib], nest + 1))
			return false;
		ia = p->vals.items[ia].next;
		ib = p->vals.items[ib].next;
	}
	return ia < 0 && ib < 0;
}

bool tl_val_equal(const TlValPool *p, const TlVal *a, const TlVal *b)
{
	return tl_val__equal_at(p, a, b, 0);
}

TlVal tl_val_widen(TlValPool *p, const TlVal *pold, const TlVal *pnow)
{
	TlVal vo = *pold, vn = *pnow;
	const TlVal *old = &vo, *now = &vn;
	TlVal w = tl_val_join(p, old, now);
	if (w.kind != old->kind)
		w.kind = TL_VK_TOP;
	if (w.graph != old->graph)
		w.graph = TL_VG_UNKNOWN;
	if (w.device != old->device)
		w.device = TL_VD_TOP;
	if (w.dtype != old->dtype)
		w.dtype = TL_VT_TOP;
	if (w.kind != TL_VK_CONTAINER) {
		w.elem = w.parts = -1;
	} else if (!tl_val_equal(p, old, now)) {
		/* A container still changing: its positions go into its element,
		 * and the element to the top of what it holds. */
		TlVal e = tl_val_top();
		const TlVal *oe = tl_val__at(p, w.elem);
		if (oe)
			e.graph = oe->graph == TL_VG_NONE ? TL_VG_UNKNOWN : oe->graph;
		w.elem = tl_val_pool_add(p, e);
		w.parts = -1;
	}
	return w;
}

TlVal tl_val_container(TlValPool *p, const TlVal *elem)
{
	TlVal c = tl_val_of(TL_VK_CONTAINER, TL_VG_NONE);
	if (elem && !tl_val_is_bot(elem)) {
		TlVal e = *elem; /* a copy: `elem` may point into the pool */
		c.host = e.host; /* a container's host bits are its elements' */
		c.phost = e.phost;
		e.host = e.phost = 0;
		if (tl_val__depth(p, &e) >= TL_VAL_NEST) {
			unsigned g = e.graph;
			e = tl_val_top();
			e.graph = (uint8_t)(g == TL_VG_NONE ? TL_VG_UNKNOWN : g);
		}
		e.next = -1;
		c.elem = tl_val_pool_add(p, e);
	}
	return c;
}

/* What is read out of container `v` keeps where the container's history
 * comes from (TlVal.old, prev, pold) and its host copies. */
static TlVal tl_val__from(TlVal out, const TlVal *v)
{
	if (!tl_val_is_bot(&out)) {
		out.old |= v->old;
		out.prev |= v->prev;
		out.pold |= v->pold;
		out.kept |= v->kept;
		out.host |= v->host;
		out.phost |= v->phost;
	}
	return out;
}

TlVal tl_val_element(const TlValPool *p, const TlVal *v)
{
	if (v->kind == TL_VK_CONTAINER) {
		const TlVal *e = tl_val__at(p, v->elem);
		if (e) {
			TlVal out = *e;
			out.next = -1;
			return tl_val__from(out, v);
		}
		return tl_val_bot();
	}
	if (v->kind == TL_VK_TENSOR || v->kind == TL_VK_PARAMETER) {
		TlVal t = tl_val_of(TL_VK_TENSOR, (TlVGraph)v->graph);
		t.device = v->device;
		t.dtype = v->dtype;
		t.made = v->made;
		t.act = v->act;
		t.pgraph = v->pgraph;
		t.pcall = v->pcall; /* an element of a forward of a parameter's module */
		t.origin = v->origin;
		t.nograd = v->nograd; /* a slice requires grad when the tensor does */
		t.pnograd = v->pnograd;
		return tl_val__from(t, v);
	}
	if (v->kind == TL_VK_MODULE && v->ref < 0) {
		/* net[i], `for layer in layers`: a child of a library's module
		 * container (Sequential, ModuleList, ModuleDict) is a module */
		TlVal m = tl_val_of(TL_VK_MODULE, TL_VG_NONE);
		m.ref = -1;
		return m;
	}
	/* A DataLoader's element is a batch, on the host, of an unknown
	 * structure (a tuple, a dict, an object with .to()); an element of a
	 * batch is a tensor. */
	if (v->kind == TL_VK_LOADER || (v->kind == TL_VK_TOP && (v->made & TL_VM_LOADER) && v->made != TL_VM_TOP)) {
		TlVal b = tl_val_top();
		if (v->kind != TL_VK_LOADER)
			b.kind = TL_VK_TENSOR;
		b.made = TL_VM_LOADER;
		b.device = TL_VD_HOST;
		return b;
	}
	/* A join of a container and a tensor: the element it kept. */
	if (v->kind == TL_VK_TOP && v->elem >= 0) {
		const TlVal *e = tl_val__at(p, v->elem);
		if (e) {
			TlVal out = *e;
			out.next = -1;
			return tl_val__from(out, v);
		}
	}
	TlVal top = tl_val_top();
	top.pgraph = v->pgraph;
	/* an element of a value of unknown kind known to require no grad
	 * (or to require none when some parameters do not) requires none */
	if (v->kind == TL_VK_TOP) {
		top.nograd = v->nograd ? 1 : 0;
		top.pnograd = v->pnograd;
	}
	/* an element of something that lives on a device lives there; of
	 * something of a dtype (`scores.float()[0]`, a tensor whatever the
	 * receiver was) is of that dtype */
	if (v->device == TL_VD_HOST || v->device == TL_VD_ACCEL)
		top.device = v->device;
	if (v->dtype != TL_VT_TOP && v->dtype != TL_VT_BOT)
		top.dtype = v->dtype;
	if (v->pgraph && v->graph == TL_VG_BOT)
		top.graph = TL_VG_BOT; /* an element of a parameter follows the parameter */
	return tl_val__from(top, v);
}

TlVal tl_val_keyed(const TlValPool *p, const TlVal *v, int32_t key)
{
	if (v->kind == TL_VK_CONTAINER)
		for (int32_t k = v->parts; k >= 0; k = p->vals.items[k].next)
			if (p->vals.items[k].key == key) {
				TlVal out = p->vals.items[k];
				out.next = -1;
				out.key = -1;
				return tl_val__from(out, v);
			}
	return tl_val_element(p, v);
}

TlVal tl_val_with_key(TlValPool *p, const TlVal *v, int32_t key, const TlVal *part)
{
	TlVal c = *v;
	if (c.kind != TL_VK_CONTAINER)
		c = tl_val_of(TL_VK_CONTAINER, TL_VG_NONE);
	c.lastact = TL_VA_NONE; /* `layers[-1] = x`: its last item is not known */
	/* Positions of a tuple are no keys: keys go to dict-like containers. */
	bool keyed = true;
	uint32_t n = 0;
	for (int32_t k = c.parts; k >= 0; k = p->vals.items[k].next, n++)
		keyed = keyed && p->vals.items[k].key >= 0;
	TlVal e = *part;
	e.next = -1;
	e.key = -1;
	c.host |= e.host;
	c.phost |= e.phost;
	e.host = e.phost = 0;
	if (!keyed || n >= TL_VAL_KEYS) {
		const TlVal *old = c.elem >= 0 ? &p->vals.items[c.elem] : NULL;
		TlVal o = old ? *old : tl_val_bot();
		TlVal j = tl_val_join(p, &o, &e);
		TlVal cj = tl_val_container(p, &j);
		c.elem = cj.elem;
		c.parts = -1;
		return c;
	}
	/* Copy the chain, the part under `key` replaced; the element value is
	 * the join of the parts (and, for a container made with an element
	 * value and no parts, of that value too unless every key is known). */
	int32_t first = -1, last = -1;
	bool found = false;
	TlVal elem = tl_val_bot();
	for (int32_t k = c.parts; k >= 0; k = p->vals.items[k].next) {
		TlVal q = p->vals.items[k];
		if (q.key == key) {
			q = e;
			q.key = key;
			found = true;
		}
		tl_val_chain_append(p, &first, &last, q);
		TlVal qe = q;
		qe.key = -1;
		elem = tl_val_join(p, &elem, &qe);
	}
	if (!found) {
		TlVal q = e;
		q.key = key;
		tl_val_chain_append(p, &first, &last, q);
		elem = tl_val_join(p, &elem, &e);
		if (c.parts < 0 && c.elem >= 0) {
			/* elements of unknown keys stay */
			TlVal o = p->vals.items[c.elem];
			elem = tl_val_join(p, &elem, &o);
		}
	}
	c.parts = first;
	TlVal ce = tl_val_container(p, &elem);
	c.elem = ce.elem;
	return c;
}

TlVal tl_val_part(const TlValPool *p, const TlVal *v, uint32_t i)
{
	if (v->kind == TL_VK_CONTAINER && v->parts >= 0) {
		int32_t k = v->parts;
		for (uint32_t n = 0; k >= 0 && n < i; n++)
			k = p->vals.items[k].next;
		if (k >= 0) {
			TlVal out = p->vals.items[k];
			out.next = -1;
			out.key = -1;
			return tl_val__from(out, v);
		}
	}
	return tl_val_element(p, v);
}

TlVal tl_val_elements_mode(TlValPool *p, const TlVal *v, uint8_t mode)
{
	TlVal c = *v;
	if (c.kind != TL_VK_CONTAINER)
		return c;
	if (c.elem >= 0) {
		TlVal e = p->vals.items[c.elem]; /* a copy: the pool may grow */
		e.mode = mode;
		e.meval = 0;
		e.next = -1;
		c.elem = tl_val_pool_add(p, e);
	}
	int32_t first = -1, last = -1;
	for (int32_t k = v->parts; k >= 0; k = p->vals.items[k].next) {
		TlVal e = p->vals.items[k];
		e.mode = mode;
		e.meval = 0;
		e.next = -1;
		tl_val_chain_append(p, &first, &last, e);
	}
	c.parts = first;
	return c;
}

int32_t tl_val_add_part(TlValPool *p, TlVal *container, int32_t last, const TlVal *part)
{
	uint32_t n = 0;
	for (int32_t k = container->parts; k >= 0; k = p->vals.items[k].next)
		n++;
	TlVal e = *part;
	e.next = -1;
	container->host |= e.host;
	container->phost |= e.phost;
	e.host = e.phost = 0;
	/* The element value is the join of every position. */
	const TlVal *at_old = tl_val__at(p, container->elem);
	TlVal old = at_old ? *at_old : tl_val_bot();
	TlVal joined = at_old ? tl_val_join(p, &old, &e) : e;
	joined.next = -1;
	container->elem = tl_val_pool_add(p, joined);
	if (n >= TL_VAL_PARTS || (last < 0 && container->parts >= 0)) {
		container->parts = -1; /* too many to keep apart */
		return -1;
	}
	return tl_val_chain_append(p, &container->parts, &last, e);
}

static TlVal tl_val__import_at(TlValPool *to, const TlValPool *from, const TlVal *v, unsigned nest)
{
	TlVal out = *v;
	out.next = -1;
	out.elem = out.parts = -1;
	out.flow = 0; /* another model's nodes */
	out.cst = 0;  /* its strings are another model's names; its constants its callers' */
	if ((v->kind != TL_VK_CONTAINER && v->kind != TL_VK_TOP) || nest >= TL_VAL_NEST)
		return out;
	const TlVal *e = tl_val__at(from, v->elem);
	if (e) {
		TlVal ie = tl_val__import_at(to, from, e, nest + 1);
		out.elem = tl_val_pool_add(to, ie);
	}
	int32_t last = -1;
	for (int32_t k = v->parts; k >= 0; k = from->vals.items[k].next) {
		TlVal ip = tl_val__import_at(to, from, &from->vals.items[k], nest + 1);
		tl_val_chain_append(to, &out.parts, &last, ip);
	}
	return out;
}

TlVal tl_val_import(TlValPool *to, const TlValPool *from, const TlVal *v)
{
	if (to == from)
		return *v;
	return tl_val__import_at(to, from, v, 0);
}

int tl_val_const_truth(uint16_t c)
{
	switch (TL_VC_TAG(c)) {
	case TL_VC_NONE:
	case TL_VC_EMPTY:
		return 0;
	case TL_VC_BOOL:
		return TL_VC_PAYLOAD(c) ? 1 : 0;
	case TL_VC_INT:
		return TL_VC_PAYLOAD(c) != 4096;
	case TL_VC_STR:
		return 1;
	case TL_VC_LEN:
		return TL_VC_PAYLOAD(c) != 0;
	default:
		return -1;
	}
}

const char *tl_val_kind_name(unsigned k)
{
	static const char *const names[] = {
		"⊥", "tensor", "parameter", "module", "wrapper", "optimizer", "scaler", "loader",
		"sampler", "criterion", "device", "container", "number", "bool", "string", "None",
		"array", "function", "class", "object", "⊤",
	};
	return k < sizeof names / sizeof *names ? names[k] : "?";
}

const char *tl_val_graph_name(unsigned g)
{
	static const char *const names[] = { "⊥", "none", "must", "may", "unknown" };
	return g < 5 ? names[g] : "?";
}

const char *tl_val_device_name(unsigned d)
{
	static const char *const names[] = { "⊥", "host", "accelerator", "⊤" };
	return d < 4 ? names[d] : "?";
}

const char *tl_val_dtype_name(unsigned t)
{
	static const char *const names[] = { "⊥", "half", "float32", "float64", "integer", "bool", "⊤" };
	return t < 7 ? names[t] : "?";
}

const char *tl_val_act_name(unsigned a)
{
	static const char *const names[] = { "-", "softmax", "log-softmax", "sigmoid", "scaled", "exp-sum", "exp", "shifted" };
	if (a == TL_VA_PENDING)
		return "pending";
	a &= ~(unsigned)TL_VA_OUTPUT;
	return a < 8 ? names[a] : "?";
}

const char *tl_val_loss_name(unsigned l)
{
	static const char *const names[] = { "other", "cross-entropy", "nll", "bce", "bce-logits" };
	return l < 5 ? names[l] : "?";
}
