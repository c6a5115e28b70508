/* The interpreter's calls (interp_internal.h): a call's value from the
 * API table, the summaries of the project's functions and classes, a
 * module's forward, a wrapper, the builtins that build containers; what
 * a call stores into its receiver. Split from eval.c, whose expressions
 * and bindings call it. No recursion follows the depth of the code. */
#include "model/interp_internal.h"

#include <string.h>

#include "base/alloc.h"
#include "base/budget.h"
#include "model/apitable.h"
#include "syntax/syms.h"
#include "syntax/treewalk.h"

/* ---- calls ------------------------------------------------------------------ */

/* The element of a container a summary returns that follows parameters
 * (`tuple(v.to(dev) for v in h)`): at a call, the graph of the elements
 * of what is passed for them (of a tensor, its own). */
static void tl_in__apply_elem(In *in, TlVal *r, const TlVal *args, uint32_t nargs, uint32_t shift)
{
	if (r->kind != TL_VK_CONTAINER || r->elem < 0)
		return;
	TlVal e = in->m->pool.vals.items[r->elem];
	if (!e.pgraph)
		return;
	uint16_t follows = 0;
	for (uint32_t i = shift; i < 16 && i - shift < nargs; i++) {
		if (!(e.pgraph & (1u << i)))
			continue;
		const TlVal *av = &args[i - shift];
		TlVal ae = av->kind == TL_VK_CONTAINER ? tl_val_element(&in->m->pool, av) : *av;
		e.graph = (uint8_t)(e.graph == TL_VG_BOT ? ae.graph : tl_in__graph_op(e.graph, ae.graph));
		follows |= ae.pgraph;
	}
	e.pgraph = follows; /* the caller's own parameters, passed on */
	e.next = -1;
	r->elem = tl_val_pool_add(&in->m->pool, e);
}

/* The graph a summary's return takes at a call: its own, joined with the
 * graph of every argument its pgraph bits name. */
/* The module inside wrapper `w` (a module whatever the code showed of
 * it), marked with the wrappers it was read through. */
TlVal tl_in__inner(In *in, const TlVal *w)
{
	TlVal inner = tl_val_of(TL_VK_MODULE, TL_VG_NONE);
	if (w->elem >= 0) {
		inner = in->m->pool.vals.items[w->elem];
		inner.next = -1;
		if (!tl_in__module_like(&inner)) {
			inner.kind = TL_VK_MODULE;
			inner.elem = inner.parts = -1;
		}
	}
	inner.wrap |= w->wrap;
	return inner;
}

/* True when conditional expression `n` has the shape `m.module if TEST
 * else m` (the same text for both `m`). */
bool tl_in__unwrap_shape(In *in, TSNode n)
{
	const TlSyms *sy = in->sy;
	if (ts_node_named_child_count(n) != 3)
		return false;
	TSNode yes = tl_index_unparen(ts_node_named_child(n, 0));
	TSNode no = tl_index_unparen(ts_node_named_child(n, 2));
	if (ts_node_symbol(yes) != sy->attribute ||
	    !tl_index_text_is(in->idx, tl_tree_field(yes, sy->f_attribute), "module"))
		return false;
	uint32_t l1 = 0, l3 = 0;
	const char *t1 = tl_index_text(in->idx, tl_tree_field(yes, sy->f_object), &l1);
	const char *t3 = tl_index_text(in->idx, no, &l3);
	return t1 && t3 && l1 == l3 && memcmp(t1, t3, l1) == 0;
}

/* The one assignment a block holds (`v = x`), else a null node. */
static TSNode tl_in__sole_assignment(In *in, TSNode block)
{
	const TlSyms *sy = in->sy;
	if (ts_node_is_null(block) || ts_node_named_child_count(block) != 1)
		return (TSNode){ 0 };
	TSNode st = ts_node_named_child(block, 0);
	if (ts_node_symbol(st) != sy->expression_statement || ts_node_named_child_count(st) != 1)
		return (TSNode){ 0 };
	TSNode a = ts_node_named_child(st, 0);
	if (ts_node_symbol(a) != sy->assignment || ts_node_is_null(tl_tree_field(a, sy->f_right)) ||
	    ts_node_symbol(tl_tree_field(a, sy->f_left)) != sy->identifier)
		return (TSNode){ 0 };
	return a;
}

static bool tl_in__same_text(In *in, TSNode a, TSNode b)
{
	uint32_t la = 0, lb = 0;
	const char *ta = tl_index_text(in->idx, a, &la);
	const char *tb = tl_index_text(in->idx, b, &lb);
	return ta && tb && la == lb && memcmp(ta, tb, la) == 0;
}

/* Values that stand for the same wrapped object as far as wrapping goes
 * (what made them, where they flowed and the pool entry of the module
 * inside may differ: `v = m` copies `m`, a class attribute read twice
 * makes its inner module twice). */
static bool tl_in__same_object(const TlVal *a, const TlVal *b)
{
	return a->kind == b->kind && a->wrap == b->wrap && a->mod == b->mod &&
	       a->mode == b->mode && (a->wrap || a->kind == TL_VK_WRAPPER);
}

/* True when if statement `s` is the statement form of the idiom below:
 * `if TEST: v = m.module` and `else: v = m` (or the other way round), no
 * elif, nothing else in either block; or `if TEST: v = m.module` alone,
 * where `fail` (the state where TEST fails) holds in `v` what it holds in
 * `m` (`if args.distributed: model = model.module`). *target is then `v`,
 * *m `m`. */
bool tl_in__unwrap_branches(In *in, TSNode s, const TlState *fail, TSNode *target, TSNode *m)
{
	const TlSyms *sy = in->sy;
	if (ts_node_symbol(s) != sy->if_statement)
		return false;
	TSNode a = tl_in__sole_assignment(in, tl_tree_field(s, sy->f_consequence));
	if (ts_node_named_child_count(s) == 2 && fail && !ts_node_is_null(a)) {
		TSNode yes = tl_index_unparen(tl_tree_field(a, sy->f_right));
		if (ts_node_symbol(yes) != sy->attribute ||
		    !tl_index_text_is(in->idx, tl_tree_field(yes, sy->f_attribute), "module"))
			return false;
		TSNode v = tl_tree_field(a, sy->f_left), x = tl_tree_field(yes, sy->f_object);
		if (!tl_in__same_text(in, v, x)) {
			/* `v` as the failing path holds it; `m` as the test left it
			 * (the block binds only `v`): an attribute read off a
			 * class's summary is in no state, so it is evaluated */
			TlPath pv;
			const TlVal *vv;
			if (!tl_path_of(&in->m->names, in->idx, v, &pv) || !(vv = tl_state_get(fail, &pv)))
				return false;
			TlVal vx = tl_in__eval(in, x);
			if (!tl_in__same_object(vv, &vx))
				return false;
		}
		*target = v;
		*m = x;
		return true;
	}
	if (ts_node_named_child_count(s) != 3)
		return false;
	TSNode other = ts_node_named_child(s, 2);
	if (ts_node_symbol(other) != sy->else_clause)
		return false;
	TSNode b = tl_in__sole_assignment(in, tl_tree_field(other, sy->f_body));
	if (ts_node_is_null(a) || ts_node_is_null(b) ||
	    !tl_in__same_text(in, tl_tree_field(a, sy->f_left), tl_tree_field(b, sy->f_left)))
		return false;
	for (int k = 0; k < 2; k++) {
		TSNode yes = tl_index_unparen(tl_tree_field(k ? b : a, sy->f_right));
		TSNode no = tl_index_unparen(tl_tree_field(k ? a : b, sy->f_right));
		if (ts_node_symbol(yes) == sy->attribute &&
		    tl_index_text_is(in->idx, tl_tree_field(yes, sy->f_attribute), "module") &&
		    tl_in__same_text(in, tl_tree_field(yes, sy->f_object), no)) {
			*target = tl_tree_field(a, sy->f_left);
			*m = no;
			return true;
		}
	}
	return false;
}

/* `m.module if hasattr(m, "module") else m`, `m.module if ddp else m`:
 * `m` unwrapped (the test is how the code knows it wrapped `m`). `mv` is
 * the value of `m`. True when `n` is that idiom; *out is then the module
 * inside a wrapper (or a value that is one on some path), the module
 * itself, or, for a parameter, that parameter unwrapped (TlVal.punwrap). */
bool tl_in__unwrap_idiom(In *in, TSNode n, const TlVal *mv, TlVal *out)
{
	if (!tl_in__unwrap_shape(in, n))
		return false;
	return tl_in__unwrapped(in, mv, out);
}

/* `m` of value `mv` unwrapped by one of the idioms: see above. */
bool tl_in__unwrapped(In *in, const TlVal *mv, TlVal *out)
{
	if (mv->kind == TL_VK_WRAPPER) {
		*out = tl_in__inner(in, mv);
	} else if (mv->kind == TL_VK_TOP && mv->wrap) {
		/* a wrapper on some paths: the module inside it */
		*out = *mv;
		out->kind = TL_VK_MODULE;
		out->elem = out->parts = -1;
	} else if (tl_in__module_like(mv)) {
		*out = *mv;
	} else if ((mv->made & TL_VM_PARAMS) && (mv->pgraph & 0xffu)) {
		*out = *mv;
		out->punwrap = (uint8_t)(mv->pgraph & 0xffu);
	} else {
		return false;
	}
	return true;
}

static TlVal tl_in__apply(In *in, const TlVal *ret, const TlVal *args, uint32_t nargs, uint32_t shift)
{
	TlVal r = *ret;
	tl_in__apply_elem(in, &r, args, nargs, shift);
	bool unknown = false;
	uint16_t bits = ret->pgraph;
	r.pgraph = 0;
	r.pcall = 0;
	tl_in__made_output(&in->m->pool, &r);
	in->applied = true;
	r.punwrap = 0;
	/* A parameter unwrapped: what the caller passes, unwrapped. */
	for (uint32_t i = shift; i < 8 && ret->punwrap; i++) {
		if (!(ret->punwrap & (1u << i)) || i - shift >= nargs)
			continue;
		const TlVal *av = &args[i - shift];
		if (av->kind == TL_VK_WRAPPER)
			return tl_in__inner(in, av);
		if (tl_in__module_like(av))
			return *av;
		if (av->made & TL_VM_PARAMS)
			r.punwrap |= (uint8_t)(av->pgraph & 0xffu);
	}
	/* What calling a parameter returns: the function passed for it
	 * (`opt.step(closure)`: what the closure returns). A module's forward
	 * run on it (`layer(h)` of a `layer: nn.Module`): a tensor with
	 * history whatever is handed, made as a handed module's output. */
	bool fwd = ret->kind == TL_VK_TENSOR && (ret->made & TL_VM_FORWARD);
	for (uint32_t i = 0; i < 16 && ret->pcall; i++) {
		if (!(ret->pcall & (1u << i)) || i < shift || i - shift >= nargs)
			continue;
		const TlVal *av = &args[i - shift];
		TlVal fr;
		if (av->kind == TL_VK_FUNCTION && av->ref >= 0 && av->mod &&
		    tl_model__summary(in->m, (const TlIndex *)av->mod, av->ref, &fr)) {
			fr.pgraph = 0;
			fr.pcall = 0;
			if (r.kind == TL_VK_TOP && r.graph == TL_VG_BOT)
				r = fr; /* nothing but the call */
			else
				r = tl_val_join(&in->m->pool, &r, &fr);
		} else if (av->made & TL_VM_PARAMS) {
			r.pcall |= av->pgraph; /* the caller's own parameter, passed on */
		} else if (av->kind == TL_VK_MODULE && fwd) {
			/* a module handed in and run (`forward(x, layer)` returning
			 * `layer(h)`): the forward's output is made as what that
			 * module computes (an nn.Sequential ending in a softmax) */
			unsigned a = tl_in__made_layer(in, av);
			if (a && !(r.act & (unsigned)~TL_VA_OUTPUT))
				r.act = (uint8_t)(a | TL_VA_OUTPUT);
		} else if (!fwd) {
			unknown = true; /* what a callable not of the project returns */
		}
	}
	for (uint32_t i = 0; i < 16 && bits; i++) {
		if (!(bits & (1u << i)))
			continue;
		bits &= (uint16_t)~(1u << i);
		if (i < shift)
			continue; /* `self`: the object's own graph says nothing of a tensor */
		uint32_t a = i - shift;
		if (a >= nargs)
			continue; /* a default or a keyword argument: not followed yet */
		const TlVal *av = &args[a];
		r.graph = (uint8_t)(r.graph == TL_VG_BOT ? av->graph : tl_in__graph_op(r.graph, av->graph));
		r.pgraph |= av->pgraph;
		if (!r.origin)
			r.origin = av->origin;
		/* A value that follows a tensor argument is a tensor. */
		if (r.kind == TL_VK_TOP && (av->kind == TL_VK_TENSOR || av->kind == TL_VK_PARAMETER))
			r.kind = TL_VK_TENSOR;
		tl_in__follow(&r, ret, av);
	}
	/* `apply_to_tensor(h, torch.Tensor.detach)`: the function applied
	 * decides what comes back, and nothing is known of it. */
	if (unknown) {
		r.graph = TL_VG_UNKNOWN;
		r.pgraph = 0;
	}
	tl_in__prov_apply(in, ret, args, nargs, shift, &r);
	tl_in__host_apply(in, ret, args, nargs, shift, &r);
	return r;
}

/* ---- the requires-grad flag a summary's value follows --------------------------- */

/* The flag (tl_val_ng) of what the call being evaluated hands parameter
 * `i` of function `cref` of `cmod` (`args`: its `npos` positional
 * arguments, after `shift` bound ones): the argument at its position, by
 * its keyword, else the parameter's default (a literal requires no
 * grad); -1 when that is not known (a `*args` at the call, a default of
 * another kind, a bound `self`). */
static int32_t tl_in__ng_arg(In *in, const TlIndex *cmod, int32_t cref, uint32_t i, const TlVal *args, uint32_t npos,
			     uint32_t shift)
{
	const TlSyms *sy = in->sy;
	if (i < shift || !cmod || cref < 0 || (uint32_t)cref >= cmod->funcs.size)
		return -1;
	const TlFunc *f = &cmod->funcs.items[cref];
	if (i >= f->params.size)
		return -1;
	if (i - shift < npos)
		return tl_in__val_ng(&in->m->pool, &args[i - shift]);
	if (args != in->call_args)
		return -1;
	const TlBinding *pb = &cmod->bindings.items[f->params.items[i]];
	TSNode al = tl_tree_field(in->call_node, sy->f_arguments);
	uint32_t count = ts_node_is_null(al) ? 0 : ts_node_named_child_count(al), kw = 0;
	for (uint32_t k = 0; k < count; k++) {
		TSNode a = ts_node_named_child(al, k);
		TSSymbol as = ts_node_symbol(a);
		if (as == sy->list_splat || as == sy->dictionary_splat)
			return -1;
		if (as != sy->keyword_argument)
			continue;
		if (tl_index_text_is(in->idx, tl_tree_field(a, sy->f_name), pb->name))
			return npos + kw < in->call_nargs ? tl_in__val_ng(&in->m->pool, &args[npos + kw]) : -1;
		kw++;
	}
	TSNode ps = pb->stmt;
	if (ts_node_symbol(ps) != sy->default_parameter && ts_node_symbol(ps) != sy->typed_default_parameter)
		return -1;
	TSNode d = tl_index_unparen(tl_tree_field(ps, sy->f_value));
	TSSymbol ds = ts_node_is_null(d) ? 0 : ts_node_symbol(d);
	if (ds == sy->unary_operator && ts_node_named_child_count(d))
		ds = ts_node_symbol(ts_node_named_child(d, 0));
	return ds && (ds == sy->integer || ds == sy->float_ || ds == sy->string || ds == sy->true_ || ds == sy->false_ ||
		      ds == sy->none)
		       ? 0 : -1;
}

/* True when `v` or what it holds (to TL_VAL_NEST deep) has a flag that
 * follows parameters. */
static bool tl_in__ng_follows(const TlValPool *p, const TlVal *v, unsigned nest)
{
	if (!v->nograd && v->pnograd)
		return true;
	if (v->kind != TL_VK_CONTAINER || nest >= TL_VAL_NEST)
		return false;
	if (v->elem >= 0 && tl_in__ng_follows(p, &p->vals.items[v->elem], nest + 1))
		return true;
	for (int32_t k = v->parts; k >= 0; k = p->vals.items[k].next)
		if (tl_in__ng_follows(p, &p->vals.items[k], nest + 1))
			return true;
	return false;
}

/* What resolves a flag's parameters: at a call, what it hands them; at a
 * store into an attribute, the storing method's plain parameters. */
typedef struct TlNgMap {
	const TlIndex *cmod;
	int32_t cref;
	const TlVal *args;
	uint32_t npos, shift;
	bool store; /* the storing function's (in->func) plain parameters */
} TlNgMap;

static int32_t tl_in__ng_resolve(In *in, const TlNgMap *mp, uint16_t bits)
{
	int32_t ng = 0;
	for (uint32_t i = 0; i < 16 && ng >= 0; i++) {
		if (!(bits & (1u << i)))
			continue;
		if (mp->store) {
			const TlFunc *f = in->func >= 0 ? &in->idx->funcs.items[in->func] : NULL;
			ng = f && i < f->params.size &&
					     tl_model__plain_param(in->m, in->idx, &in->idx->bindings.items[f->params.items[i]])
				     ? ng : -1;
		} else {
			ng = tl_val_ng_and(ng, tl_in__ng_arg(in, mp->cmod, mp->cref, i, mp->args, mp->npos, mp->shift));
		}
	}
	return ng;
}

/* `v` (and what it holds) with each flag that follows parameters
 * resolved by `mp`; containers copied. */
static void tl_in__ng_map(In *in, const TlNgMap *mp, TlVal *v, unsigned nest)
{
	if (!v->nograd && v->pnograd)
		tl_val_set_ng(v, tl_in__ng_resolve(in, mp, v->pnograd));
	if (v->kind != TL_VK_CONTAINER || nest >= TL_VAL_NEST || !tl_in__ng_follows(&in->m->pool, v, nest))
		return;
	if (v->elem >= 0) {
		TlVal e = in->m->pool.vals.items[v->elem];
		tl_in__ng_map(in, mp, &e, nest + 1);
		e.next = -1;
		v->elem = tl_val_pool_add(&in->m->pool, e);
	}
	int32_t first = -1, last = -1;
	for (int32_t k = v->parts; k >= 0; k = in->m->pool.vals.items[k].next) {
		TlVal part = in->m->pool.vals.items[k];
		tl_in__ng_map(in, mp, &part, nest + 1);
		tl_val_chain_append(&in->m->pool, &first, &last, part);
	}
	v->parts = first;
}

/* Value `v` stored into an attribute of `self` by the function being
 * interpreted: a flag that follows its parameters holds when they are
 * plain (numbers, flags: tl_model__plain_param), else is not known. */
void tl_in__ng_store(In *in, TlVal *v)
{
	TlNgMap mp = { NULL, -1, NULL, 0, 0, true };
	if (tl_in__ng_follows(&in->m->pool, v, 0))
		tl_in__ng_map(in, &mp, v, 0);
}

/* A call of a function value `fv` (of this module or another). */
static bool tl_in__call_function(In *in, const TlVal *fv, const TlVal *args, uint32_t nargs, uint32_t shift,
				 TlVal *out)
{
	TlVal ret;
	if (fv->mod == (const void *)in->idx)
		tl_in__ctx_call(in, fv->ref, shift, args, nargs);
	if (!tl_model__summary(in->m, (const TlIndex *)fv->mod, fv->ref, &ret))
		return false;
	in->callee_mod = fv->mod;
	in->callee_ref = fv->ref;
	in->callee_shift = shift;
	*out = tl_in__apply(in, &ret, args, nargs, shift);
	/* Its requires-grad flag, where it follows parameters: what this
	 * call hands them (keywords and defaults included). */
	TlNgMap mp = { (const TlIndex *)fv->mod, fv->ref, args, nargs, shift, false };
	if (tl_in__ng_follows(&in->m->pool, out, 0))
		tl_in__ng_map(in, &mp, out, 0);
	return true;
}

/* Nothing is known of value `e` a forward returns: its graph is not
 * known, or it is anything that may carry one, or no path sets it. */
static bool tl_in__nothing_known(const TlVal *e)
{
	return e->graph == TL_VG_UNKNOWN || (e->graph == TL_VG_MAY && e->kind == TL_VK_TOP) ||
	       (e->graph == TL_VG_BOT && !e->pgraph && !e->pcall && e->kind != TL_VK_BOT);
}

/* Nothing is known of what forward result `out` holds: of the value, or
 * of a container's element, unless it keeps its positions and each is
 * known (`return loss, stats`: the join of a tensor and an object of
 * numbers is nothing known, each position is known). */
static bool tl_in__forward_unknown(const TlValPool *p, const TlVal *out)
{
	if (out->kind != TL_VK_CONTAINER)
		return tl_in__nothing_known(out);
	TlVal e = tl_val_element(p, out);
	if (!tl_in__nothing_known(&e))
		return false;
	if (out->parts < 0)
		return true;
	for (int32_t k = out->parts; k >= 0; k = p->vals.items[k].next)
		if (tl_in__nothing_known(&p->vals.items[k]))
			return true;
	return false;
}

/* A call of the module or object `obj` (`model(x)`: its forward). */
static bool tl_in__call_module(In *in, const TlVal *obj, const TlVal *args, uint32_t nargs, TlVal *out)
{
	if (obj->ref < 0 || !obj->mod)
		return false;
	const TlIndex *where = NULL;
	int32_t f = tl_model__method_far(in->m, (const TlIndex *)obj->mod, obj->ref,
				     obj->kind == TL_VK_OBJECT ? "__call__" : "forward", &where);
	if (f < 0 || !where)
		return false;
	TlVal fv = tl_val_of(TL_VK_FUNCTION, TL_VG_NONE);
	fv.ref = f;
	fv.mod = where;
	if (!tl_in__call_function(in, &fv, args, nargs, 1, out))
		return false;
	/* A forward whose returns join to nothing known (flags choose among
	 * outputs, intermediates, caches): what a module's forward gives
	 * with gradients on, as a call known only by what it is. A tuple or
	 * dict whose every position is known is known. */
	if (obj->kind != TL_VK_OBJECT && tl_in__forward_unknown(&in->m->pool, out)) {
		TlVal first = tl_val_part(&in->m->pool, out, 0);
		int32_t ng = tl_in__val_ng(&in->m->pool, out);
		*out = tl_val_of(TL_VK_TENSOR, TL_VG_MUST);
		out->made = TL_VM_OPAQUE | TL_VM_FORWARD;
		out->act = first.act; /* what its first output is made as */
		/* whether it requires grad is known all the same (a module of
		 * buffers run on its caller's input: as that input) */
		tl_val_set_ng(out, ng);
	}
	return true;
}

/* Instantiating a class of the project. */
static TlVal tl_in__instance(In *in, const TlVal *cv)
{
	const TlIndex *mod = (const TlIndex *)cv->mod;
	bool module = mod && cv->ref >= 0 && (uint32_t)cv->ref < mod->classes.size &&
		      tl_model__class_is_module(in->m, mod, cv->ref);
	TlVal v = tl_val_of(module ? TL_VK_MODULE : TL_VK_OBJECT, TL_VG_NONE);
	v.ref = cv->ref;
	v.mod = cv->mod;
	v.nograd = module; /* no store from outside gave it a parameter yet (requiresgrad.c) */
	/* A subclass of a DataLoader or a sampler (model/bases.c): one of them. */
	const TlApiRow *api = module || !mod ? NULL : tl_model__class_api(in->m, mod, cv->ref);
	if (api)
		v.kind = (uint8_t)tl_in__api_kind(api->kind);
	tl_in__made_instance(in, &v);
	return v;
}

static bool tl_in__is(const char *s, const char *t)
{
	return s && strcmp(s, t) == 0;
}

static bool tl_in__starts(const char *s, const char *p)
{
	return s && strncmp(s, p, strlen(p)) == 0;
}

/* The element value of what `for` iterates or a call like enumerate()
 * hands back; stores container mutations (`xs.append(v)`) in the state. */

/* tl_in__store_into, the list then ending in an item whose call computes
 * `last` (TlVal.lastact). */
static void tl_in__store_last(In *in, TSNode recv, const TlVal *elem, unsigned last)
{
	TlPath p;
	if (!tl_path_of(&in->m->names, in->idx, recv, &p))
		return;
	const TlVal *old = tl_state_get(&in->st, &p);
	TlVal cont;
	if (old && old->kind == TL_VK_CONTAINER) {
		TlVal o = *old;
		TlVal e = tl_val_element(&in->m->pool, &o);
		TlVal j = tl_val_join(&in->m->pool, &e, elem);
		cont = o;
		TlVal jc = tl_val_container(&in->m->pool, &j);
		cont.elem = jc.elem;
		cont.parts = -1;
		cont.lastact = (uint8_t)last;
		cont.host |= jc.host;
		cont.phost |= jc.phost;
	} else if (old && ((old->kind != TL_VK_TOP && old->kind != TL_VK_BOT) ||
			   (old->kind == TL_VK_TOP && (old->device == TL_VD_ACCEL || old->device == TL_VD_HOST)))) {
		return; /* not a container we know (what lives on a device is no list) */
	} else {
		cont = tl_val_container(&in->m->pool, elem);
		cont.lastact = (uint8_t)last;
		if (old)
			cont.flow = old->flow; /* the same object (flow.c) */
	}
	tl_in__refine(in, &p, &cont);
	tl_state_set(&in->st, &p, &cont);
	/* `self.history.append(v)`: the class attribute holds it too. */
	if (in->cls >= 0 && p.root == in->self_id && p.n == 1 && p.sel[0] >= 0) {
		TlVal sv = cont;
		tl_in__ng_store(in, &sv);
		tl_model__store_attr(in->m, in->cls, p.sel[0], &sv, ts_node_start_byte(recv) + 1);
	}
}

void tl_in__store_into(In *in, TSNode recv, const TlVal *elem)
{
	tl_in__store_last(in, recv, elem, TL_VA_NONE);
}

void tl_in__set_last(In *in, TSNode recv, unsigned act)
{
	TlPath p;
	if (ts_node_is_null(recv) || !tl_path_of(&in->m->names, in->idx, recv, &p))
		return;
	const TlVal *old = tl_state_get(&in->st, &p);
	if (!old || old->kind != TL_VK_CONTAINER || old->lastact == act)
		return;
	TlVal cont = *old;
	cont.lastact = (uint8_t)act;
	tl_state_set(&in->st, &p, &cont);
	if (in->cls >= 0 && p.root == in->self_id && p.n == 1 && p.sel[0] >= 0) {
		TlVal sv = cont;
		tl_in__ng_store(in, &sv);
		tl_model__store_attr(in->m, in->cls, p.sel[0], &sv, ts_node_start_byte(recv) + 1);
	}
}

/* A list handed to call `n` (`add_head(layers)`) may be changed there:
 * its last item is not known afterwards, unless the callee is a builtin
 * that only reads what it is handed (len, print). A starred list hands
 * its items, not itself. */
static void tl_in__lists_handed(In *in, TSNode n, const TlCall *c)
{
	const TlSyms *sy = in->sy;
	if (!c->receiver.id && c->method && !c->qname && (tl_api_builtin_sets(c->method) & TL_APIS_READS_ONLY))
		return;
	TSNode al = tl_tree_field(n, sy->f_arguments);
	if (ts_node_is_null(al) || ts_node_symbol(al) != sy->argument_list)
		return;
	uint32_t base = in->kids.size, k = tl_in__kids(in, al);
	for (uint32_t i = 0; i < k; i++) {
		TSNode a = in->kids.items[base + i];
		if (ts_node_symbol(a) == sy->keyword_argument)
			a = tl_tree_field(a, sy->f_value);
		if (!ts_node_is_null(a) && (ts_node_symbol(a) == sy->identifier || ts_node_symbol(a) == sy->attribute))
			tl_in__set_last(in, a, TL_VA_NONE);
	}
	in->kids.size = base;
}

/* What a named tuple's class makes of call `n`'s arguments: a tuple of
 * the positional ones, whose starred ones (`LossTuple(*losses)`) give
 * their elements (then the positions are not known, the element is). */
static TlVal tl_in__tuple_of(In *in, TSNode n, const TlVal *args, uint32_t nargs)
{
	const TlSyms *sy = in->sy;
	TlVal c = tl_val_of(TL_VK_CONTAINER, TL_VG_NONE);
	TSNode al = tl_tree_field(n, sy->f_arguments);
	uint32_t base = in->kids.size, k = ts_node_is_null(al) ? 0 : tl_in__kids(in, al);
	int32_t last = -1;
	bool splat = false;
	for (uint32_t i = 0; i < k && i < nargs; i++) {
		TSNode a = in->kids.items[base + i];
		TSSymbol s = ts_node_symbol(a);
		TlVal v = args[i];
		if (s == sy->list_splat || s == sy->dictionary_splat) {
			v = tl_val_element(&in->m->pool, &args[i]);
			splat = true;
		} else if (s == sy->keyword_argument) {
			splat = true; /* a field by name: its position is the class's */
		}
		last = tl_val_add_part(&in->m->pool, &c, last, &v);
	}
	in->kids.size = base;
	if (splat)
		c.parts = -1;
	return c;
}

/* What a mapping class (role mapping: `dict(gen=g, disc=d)`,
 * `Munch(...)`) makes of call `n`'s arguments: a dict with a part per
 * keyword, under its name; a `**d` handed on adds d's entries (then the
 * keys are not known, the element is); a positional argument (a mapping,
 * or pairs) adds entries the model does not know. */
static TlVal tl_in__mapping_of(In *in, TSNode n, const TlVal *args, uint32_t nargs)
{
	const TlSyms *sy = in->sy;
	TlVal c = tl_val_of(TL_VK_CONTAINER, TL_VG_NONE);
	TlVal e = tl_val_bot();
	bool keyed = true;
	TSNode al = tl_tree_field(n, sy->f_arguments);
	if (ts_node_is_null(al) || ts_node_symbol(al) != sy->argument_list)
		return tl_in__top();
	uint32_t base = in->kids.size, k = tl_in__kids(in, al);
	for (uint32_t i = 0; i < k && i < nargs; i++) {
		TSNode a = in->kids.items[base + i];
		TSSymbol s = ts_node_symbol(a);
		TlVal x = args[i];
		int32_t key = -1;
		if (s == sy->keyword_argument) {
			uint32_t len = 0;
			const char *t = tl_index_text(in->idx, tl_tree_field(a, sy->f_name), &len);
			key = t ? tl_path_name_key_id(&in->m->names, t, len) : -1;
		} else if (s == sy->dictionary_splat) {
			TlVal whole = x;
			x = tl_val_element(&in->m->pool, &whole);
			tl_in__flow_spread(in, &x, &whole);
		} else {
			x = tl_in__top();
		}
		if (key >= 0 && keyed)
			c = tl_val_with_key(&in->m->pool, &c, key, &x);
		else
			keyed = false;
		e = tl_val_join(&in->m->pool, &e, &x);
	}
	in->kids.size = base;
	if (!keyed) {
		c = tl_val_of(TL_VK_CONTAINER, TL_VG_NONE);
		if (!tl_val_is_bot(&e))
			c = tl_val_container(&in->m->pool, &e);
	}
	return c;
}

/* The value of call `n`; vals: the receiver's value (for a method call)
 * or the callee's, then the arguments' (positional, then keyword values in
 * source order; `kw` marks which are keywords). */
/* A value that is a module or stands for one (a wrapper, an instance of a
 * class of the project, a criterion). */
bool tl_in__module_like(const TlVal *v)
{
	return v->kind == TL_VK_MODULE || v->kind == TL_VK_WRAPPER || v->kind == TL_VK_OBJECT ||
	       v->kind == TL_VK_CRITERION;
}

/* The kinds of wrapper (TL_VW_*) the sets of wrapper row `w` say. */
static uint8_t tl_in__wrap_kinds(const TlApiRow *w)
{
	uint8_t k = 0;
	if (w->sets & TL_APIS_WRAP_DDP)
		k |= TL_VW_DDP;
	if (w->sets & TL_APIS_WRAP_FSDP)
		k |= TL_VW_FSDP;
	if (w->sets & TL_APIS_WRAP_DATA_PARALLEL)
		k |= TL_VW_DATA_PARALLEL;
	if (w->sets & TL_APIS_WRAP_COMPILED)
		k |= TL_VW_COMPILED;
	return k;
}

unsigned tl_model_wrapper_kinds(const char *qname)
{
	if (!qname)
		return 0;
	const TlApiRow *w = tl_api_qualified(qname);
	if (!w)
		w = tl_api_any(qname);
	return w && (w->roles & TL_APIR_WRAPPER) ? tl_in__wrap_kinds(w) : 0;
}

/* What a call of wrapper row `w` (role wrapper: DDP(model), torch.compile(model))
 * makes: a wrapper of the kinds its sets say, holding its first argument
 * (read back through `.module`). */
static TlVal tl_in__wrapper(In *in, const TlApiRow *w, const TlVal *args, uint32_t npos)
{
	TlVal r = tl_val_of(TL_VK_WRAPPER, TL_VG_NONE);
	r.wrap = tl_in__wrap_kinds(w);
	if (npos >= 1) {
		/* What the wrapper runs: its module's forward. */
		r.ref = args[0].ref;
		r.mod = args[0].mod;
		r.elem = tl_val_pool_add(&in->m->pool, args[0]);
	}
	return r;
}

/* Whether call `c` runs a model's forward or a loss, by what the model
 * knows of what is called (`cv`, NULL when nothing: a method with no value
 * of its own), of the receiver of `m.forward(x)`, or of the result `r`:
 * the interpreter's own answer, not the index's events (which the build
 * writes from the model). */
static bool tl_in__runs_forward(const In *in, const TlCall *c, bool method, const TlVal *fn, const TlVal *cv,
				const TlVal *r)
{
	if (cv && (cv->kind == TL_VK_MODULE || cv->kind == TL_VK_WRAPPER || cv->kind == TL_VK_CRITERION))
		return true;
	if (method && tl_in__is(c->method, "forward") &&
	    (fn->kind == TL_VK_MODULE || fn->kind == TL_VK_WRAPPER || fn->kind == TL_VK_CRITERION))
		return true;
	if ((r->made & (TL_VM_FORWARD | TL_VM_LOSS)) && r->made != TL_VM_TOP)
		return true;
	/* `D.compute_loss(x, y)`, `criterion(p, y)` of a value known or not:
	 * a loss by its name, whatever computes it */
	return !c->qname && tl_model__seed_named(in->m, c->callee, TL_VK_CRITERION);
}

TlVal tl_in__call(In *in, TSNode n, const TlVal *vals, uint32_t nv, const bool *kw)
{
	const TlCall *c = tl_index_call_at(in->idx, n);
	if (!c || nv == 0)
		return tl_in__top();
	in->site = ts_node_start_byte(n) + 1;
	in->callee_mod = NULL;
	const TlVal *fn = &vals[0];
	const TlVal *args = vals + 1;
	uint32_t nargs = nv - 1, npos = 0;
	in->call_node = n;
	in->call_args = args;
	in->call_nargs = nargs;
	while (npos < nargs && !kw[npos])
		npos++;
	bool method = c->receiver.id != NULL;
	TlVal r = tl_in__top();
	bool known = false;
	const TlApiRow *row = NULL;
	TlVal callee_v;
	const TlVal *callee = method ? NULL : fn;
	in->applied = false;
	TlVal seeded;
	if (!method && ts_node_symbol(tl_index_unparen(c->callee)) == in->sy->subscript) {
		/* `self.models[k](x)`: an element of what the file uses as modules */
		seeded = *fn;
		tl_model__seed_read(in->m, tl_index_unparen(c->callee), &seeded);
		fn = callee = &seeded;
	}

	if (method) {
		const TlVal *recv = fn;
		/* `self.fc(x)`, `model.module(x)`: a call of an attribute's value. */
		TlVal av = tl_in__top();
		bool have_av = false, from_state = false;
		TlPath p;
		if (tl_path_of(&in->m->names, in->idx, c->callee, &p)) {
			const TlVal *sv = tl_state_get(&in->st, &p);
			if (sv) {
				av = *sv;
				have_av = true;
				from_state = true;
			}
			/* `pl_module.head(x)` of a head another method of the class
			 * stored on the parameter (tl_in__param_attr) */
			int32_t pid = sv ? -1 : tl_in__param_attr(in, &p, false);
			if (pid >= 0 && tl_model__class_attr(in->m, in->idx, in->cls, pid,
							      in->m->names.names.items[pid], &av))
				have_av = true;
		}
		if (!have_av && c->method && recv->kind == TL_VK_WRAPPER && tl_in__is(c->method, "module")) {
			/* `ddp.module(x)`: the module inside, called around the wrapper. */
			av = tl_in__attr(in, recv, -1, "module", 6);
			tl_in__record(in, c->callee, &av);
			have_av = true;
		}
		if (!have_av && c->method) {
			int32_t id = tl_path_intern(&in->m->names, c->method, strlen(c->method));
			if ((recv->kind == TL_VK_MODULE || recv->kind == TL_VK_OBJECT || recv->kind == TL_VK_WRAPPER) &&
			    recv->ref >= 0 && recv->mod &&
			    tl_model__class_attr(in->m, (const TlIndex *)recv->mod, recv->ref, id, c->method, &av))
				have_av = true;
		}
		/* `self.net(x)` of a `self.net` the file uses as a module. */
		if (!have_av || av.kind == TL_VK_TOP || (av.kind == TL_VK_TENSOR && av.made == TL_VM_TOP)) {
			TlVal g = have_av ? av : tl_in__top();
			tl_model__seed_read(in->m, tl_index_unparen(c->callee), &g);
			if (g.kind == TL_VK_MODULE) {
				av = g;
				have_av = true;
			}
		}
		/* The callee's own value (`self.model` of `self.model(x)`), for
		 * the questions asked of it. */
		if (have_av && !from_state)
			tl_in__mode_field(&av, recv); /* a submodule: `self.net(x)` */
		if (have_av)
			tl_in__record(in, c->callee, &av);
		if (have_av) {
			callee_v = av;
			callee = &callee_v;
		}
		if (have_av && (av.kind == TL_VK_MODULE || av.kind == TL_VK_WRAPPER)) {
			known = tl_in__call_module(in, &av, args, npos, &r);
			if (!known) {
				r = tl_val_of(TL_VK_TENSOR, TL_VG_MUST);
				r.made = TL_VM_OPAQUE | TL_VM_FORWARD;
				known = true;
			}
		} else if (have_av && av.kind == TL_VK_CRITERION) {
			r = tl_val_of(TL_VK_TENSOR, TL_VG_MUST);
			r.made = TL_VM_OPAQUE | TL_VM_LOSS;
			known = true;
		} else if (have_av && av.kind == TL_VK_OBJECT) {
			/* `self.loss_fn(x)` of an instance of a class of the
			 * project that is no module: its `__call__`, as a call
			 * of a name holding one is (below). */
			known = tl_in__call_module(in, &av, args, npos, &r);
		} else if (have_av && av.kind == TL_VK_FUNCTION && av.ref >= 0) {
			known = tl_in__call_function(in, &av, args, npos, 0, &r);
		} else if (have_av && av.kind == TL_VK_CLASS && av.ref >= 0) {
			r = tl_in__instance(in, &av);
			known = true;
		}
		/* `m.forward(x)` of a module the project does not define (a
		 * library's, one known by the file's evidence): its forward. */
		if (!known && !have_av && tl_in__is(c->method, "forward") && recv->ref < 0 &&
		    (recv->kind == TL_VK_MODULE || recv->kind == TL_VK_WRAPPER || recv->kind == TL_VK_CRITERION)) {
			r = tl_val_of(TL_VK_TENSOR, TL_VG_MUST);
			r.made = TL_VM_OPAQUE | (recv->kind == TL_VK_CRITERION ? TL_VM_LOSS : TL_VM_FORWARD);
			known = true;
		}
		/* A method of a class of the project. */
		if (!known && c->method && (recv->kind == TL_VK_MODULE || recv->kind == TL_VK_OBJECT ||
					    recv->kind == TL_VK_WRAPPER) && recv->ref >= 0 && recv->mod) {
			const TlIndex *where = NULL;
			int32_t f = tl_model__method((const TlIndex *)recv->mod, recv->ref, c->method, &where);
			if (f >= 0 && where) {
				TlVal fv = tl_val_of(TL_VK_FUNCTION, TL_VG_NONE);
				fv.ref = f;
				fv.mod = where;
				known = tl_in__call_function(in, &fv, args, npos, 1, &r);
			}
		}
		if (!known && c->target >= 0) {
			TlVal fv = tl_val_of(TL_VK_FUNCTION, TL_VG_NONE);
			fv.ref = c->target;
			fv.mod = in->idx;
			known = tl_in__call_function(in, &fv, args, npos, 1, &r);
		}
		if (!known) {
			/* Container mutations keep what they are given. */
			if (c->method && npos >= 1 &&
			    (tl_in__is(c->method, "append") || tl_in__is(c->method, "add") ||
			     (tl_in__is(c->method, "insert") && npos >= 2))) {
				bool append = tl_in__is(c->method, "append");
				const TlVal *kept = &args[tl_in__is(c->method, "insert") ? 1 : 0];
				tl_in__store_last(in, c->receiver, kept, append ? tl_in__made_layer(in, kept) : TL_VA_NONE);
				if (append)
					tl_in__keep_store(in, c->receiver, (TSNode){ { 0 }, NULL, NULL }, kept);
			} else if (c->method && npos >= 1 && tl_in__is(c->method, "extend")) {
				TlVal e = tl_val_element(&in->m->pool, &args[0]);
				tl_in__store_last(in, c->receiver, &e,
						  args[0].kind == TL_VK_CONTAINER ? args[0].lastact : TL_VA_NONE);
			} else if (c->method) {
				/* `.pop()`, `.reverse()`, `.sort()`, `.remove(x)`: the
				 * last item may be another */
				tl_in__set_last(in, c->receiver, TL_VA_NONE);
			}
			/* `math.sqrt(x)`: a function of a module the file imports
			 * whose own row (below) says what its result's history is
			 * says more than the method row of that name (`Tensor.sqrt`). */
			const TlApiRow *own = c->qname ? tl_api_qualified(c->qname) : NULL;
			row = own && own->graph != TL_APIG_UNSAID ? NULL : tl_api_method(c->method);
		}
		if (!known && row) {
			switch (row->graph) {
			case TL_APIG_BREAKS:
				r = tl_val_of(tl_in__api_kind(row->kind), TL_VG_NONE);
				known = true;
				break;
			case TL_APIG_KEEPS:
				r = *recv;
				/* `model.to(device)`, `ddp.train()`: a module's
				 * methods that hand the module back keep its kind
				 * (the row's kind is what a tensor's give). */
				if (row->kind && !tl_in__module_like(recv))
					r.kind = (uint8_t)tl_in__api_kind(row->kind);
				r.elem = r.parts = -1;
				if (r.kind == TL_VK_CONTAINER)
					r.kind = TL_VK_TOP;
				known = true;
				break;
			case TL_APIG_ELEMENT:
				r = tl_val_element(&in->m->pool, recv);
				known = r.kind != TL_VK_TOP || r.graph != TL_VG_UNKNOWN;
				break;
			case TL_APIG_MAKES:
				r = tl_val_of(TL_VK_TENSOR, TL_VG_MUST);
				known = true;
				break;
			default:
				break;
			}
		}
		/* model.parameters(), model.named_parameters(): the module's
		 * parameters (the named forms: (name, parameter) pairs). */
		uint64_t psets = !known && (recv->kind == TL_VK_MODULE || recv->kind == TL_VK_WRAPPER ||
					    (recv->kind == TL_VK_TOP && recv->wrap))
					 ? tl_api_method_sets(c->method)
					 : 0;
		if (psets & TL_APIS_PARAMETERS) {
			TlVal e = tl_val_of(TL_VK_PARAMETER, TL_VG_NONE);
			if (psets & TL_APIS_NAMED_ITERATOR) {
				TlVal key = tl_val_of(TL_VK_STRING, TL_VG_NONE);
				TlVal pair = tl_val_of(TL_VK_CONTAINER, TL_VG_NONE);
				int32_t last = tl_val_add_part(&in->m->pool, &pair, -1, &key);
				tl_val_add_part(&in->m->pool, &pair, last, &e);
				e = pair;
			}
			r = tl_val_container(&in->m->pool, &e);
			known = true;
		}
		if (!known && (recv->kind == TL_VK_CONTAINER) && c->method &&
		    (tl_in__is(c->method, "values") || tl_in__is(c->method, "copy"))) {
			r = *recv;
			r.parts = -1;
			known = true;
		}
		if (!known && recv->kind == TL_VK_CONTAINER && c->method && tl_in__is(c->method, "items")) {
			TlVal e = tl_val_element(&in->m->pool, recv);
			TlVal key = tl_val_of(TL_VK_STRING, TL_VG_NONE);
			TlVal pair = tl_val_of(TL_VK_CONTAINER, TL_VG_NONE);
			int32_t last = tl_val_add_part(&in->m->pool, &pair, -1, &key);
			tl_val_add_part(&in->m->pool, &pair, last, &e);
			r = tl_val_container(&in->m->pool, &pair);
			known = true;
		}
	} else {
		/* A bare name: a function or class of the project, a module held
		 * in a name, a builtin, a torch function. */
		if (fn->kind == TL_VK_FUNCTION && fn->ref >= 0 && fn->mod) {
			known = tl_in__call_function(in, fn, args, npos, 0, &r);
		} else if (fn->kind == TL_VK_CLASS && fn->ref >= 0 && fn->mod) {
			r = tl_in__instance(in, fn);
			if (fn->mod == (const void *)in->idx)
				tl_in__ctx_construct(in, fn->ref, args, npos);
			known = true;
		} else if (fn->kind == TL_VK_CLASS && (fn->made & TL_VM_TUPLE)) {
			r = tl_in__tuple_of(in, n, args, nargs);
			known = true;
		} else if (fn->kind == TL_VK_MODULE || fn->kind == TL_VK_WRAPPER) {
			known = tl_in__call_module(in, fn, args, npos, &r);
			if (!known) {
				r = tl_val_of(TL_VK_TENSOR, TL_VG_MUST);
				r.made = TL_VM_OPAQUE | TL_VM_FORWARD;
				known = true;
			}
		} else if (fn->kind == TL_VK_OBJECT) {
			/* An instance of a class of the project that is no module,
			 * called: its `__call__` (a hand-written `Sequential` whose
			 * `__call__` runs its layers), as `self.obj(x)` is. */
			known = tl_in__call_module(in, fn, args, npos, &r);
		} else if (fn->kind == TL_VK_CRITERION) {
			r = tl_val_of(TL_VK_TENSOR, TL_VG_MUST);
			r.made = TL_VM_OPAQUE | TL_VM_LOSS;
			known = true;
		} else if (fn->kind == TL_VK_TOP && (fn->made & TL_VM_PARAMS) && fn->pgraph &&
			   !tl_model__seed_named(in->m, c->callee, TL_VK_CRITERION)) {
			/* A call of a parameter: what the caller passes decides. */
			r = tl_val_of(TL_VK_TOP, TL_VG_BOT);
			r.pcall = fn->pgraph;
			known = true;
		}
		if (!known && c->target >= 0) {
			TlVal fv = tl_val_of(TL_VK_FUNCTION, TL_VG_NONE);
			fv.ref = c->target;
			fv.mod = in->idx;
			known = tl_in__call_function(in, &fv, args, npos, 0, &r);
		}
		if (!known && c->method && !c->qname && tl_in__is(c->method, "getattr"))
			known = tl_in__getattr_module(in, n, &r);
		if (!known && c->method && !c->qname) {
			const char *b = c->method;
			if (tl_in__is(b, "filter") && npos >= 2) {
				/* filter(pred, xs): some of the elements of xs */
				TlVal e = tl_val_element(&in->m->pool, &args[1]);
				r = tl_val_container(&in->m->pool, &e);
				known = true;
			} else if ((tl_in__is(b, "list") || tl_in__is(b, "tuple") || tl_in__is(b, "sorted") ||
			     tl_in__is(b, "reversed") || tl_in__is(b, "iter") || tl_in__is(b, "set")) && npos >= 1) {
				TlVal e = tl_val_element(&in->m->pool, &args[0]);
				r = tl_val_container(&in->m->pool, &e);
				known = true;
			} else if (tl_in__is(b, "enumerate") && npos >= 1) {
				TlVal e = tl_val_element(&in->m->pool, &args[0]);
				TlVal num = tl_val_of(TL_VK_NUMBER, TL_VG_NONE);
				TlVal pair = tl_val_of(TL_VK_CONTAINER, TL_VG_NONE);
				int32_t last = tl_val_add_part(&in->m->pool, &pair, -1, &num);
				tl_val_add_part(&in->m->pool, &pair, last, &e);
				r = tl_val_container(&in->m->pool, &pair);
				known = true;
			} else if (tl_in__is(b, "zip") && npos >= 1) {
				TlVal tup = tl_val_of(TL_VK_CONTAINER, TL_VG_NONE);
				int32_t last = -1;
				for (uint32_t i = 0; i < npos; i++) {
					TlVal e = tl_val_element(&in->m->pool, &args[i]);
					last = tl_val_add_part(&in->m->pool, &tup, last, &e);
				}
				r = tl_val_container(&in->m->pool, &tup);
				known = true;
			}
		}
		if (!known && c->method) {
			row = tl_api_builtin(c->method);
			if (row && (row->roles & TL_APIR_MAPPING)) {
				r = tl_in__mapping_of(in, n, args, nargs);
				known = true;
			} else if (row && row->graph == TL_APIG_BREAKS) {
				r = tl_val_of(tl_in__api_kind(row->kind), TL_VG_NONE);
				known = true;
			} else if (row && row->graph == TL_APIG_KEEPS && npos >= 1) {
				/* sum(losses), max(a, b): a reduction of its operands */
				TlVal e = tl_val_element(&in->m->pool, &args[0]);
				TlVal a0 = args[0];
				r = a0.kind == TL_VK_CONTAINER ? e : a0;
				if (a0.kind == TL_VK_TOP && e.graph == TL_VG_MUST)
					r = e;
				r.elem = r.parts = -1;
				if (r.kind == TL_VK_CONTAINER)
					r.kind = TL_VK_TOP;
				known = true;
			}
		}
	}
	if (!known && c->qname && (tl_model_foreign_qname(c->qname) || tl_model_pipeline_qname(c->qname))) {
		/* another framework's object, an inference pipeline: no PyTorch
		 * module or tensor, no autograd history */
		r = tl_val_of(TL_VK_OBJECT, TL_VG_NONE);
		known = true;
	}
	if (!known && c->qname) {
		const TlApiRow *q = tl_api_qualified(c->qname);
		const TlApiRow *w = q ? q : tl_api_any(c->qname);
		/* `*.` rows (any module's name ending so) say a wrapper, an
		 * optimizer (`*.Adam`, `*.Lion`) or a scaler (`*.GradScaler`). */
		if (!q && w && (w->kind == TL_APIK_OPTIMIZER || w->kind == TL_APIK_SCALER))
			q = w;
		/* `torchvision.models.*` rows: a model zoo's builders. */
		if (!q && !w)
			q = tl_api_under(c->qname);
		if (!q && !w && tl_model_pretrained_loader(c->qname)) {
			r = tl_val_of(TL_VK_MODULE, TL_VG_NONE);
			known = true;
		}
		if (w && (w->roles & TL_APIR_WRAPPER)) {
			r = tl_in__wrapper(in, w, args, npos);
			known = true;
		} else if (q && (q->roles & TL_APIR_TUPLE)) {
			r = tl_val_of(TL_VK_CLASS, TL_VG_NONE);
			r.made = TL_VM_TUPLE;
			known = true;
		} else if (q && (q->roles & TL_APIR_MAPPING)) {
			r = tl_in__mapping_of(in, n, args, nargs);
			known = true;
		} else if (q && (q->roles & TL_APIR_COPY) && npos >= 1) {
			r = args[0]; /* copy.deepcopy(net): a net of the same class */
			known = true;
		} else if (q && q->graph == TL_APIG_BREAKS) {
			r = tl_val_of(tl_in__api_kind(q->kind), TL_VG_NONE);
			known = true;
		} else if (q && q->graph == TL_APIG_MAKES) {
			r = tl_val_of(q->kind ? tl_in__api_kind(q->kind) : TL_VK_TENSOR, TL_VG_MUST);
			known = true;
		} else if (q && q->kind && q->kind != TL_APIK_TENSOR && q->kind != TL_APIK_CONTAINER &&
			   q->graph != TL_APIG_KEEPS) {
			/* a module, an optimizer, a loader...: no history of its own */
			r = tl_val_of(tl_in__api_kind(q->kind), TL_VG_NONE);
			known = true;
		}
		/* A tensor function whose row says nothing of the graph (or keeps
		 * it) follows its operands: below. */
		if (!known) {
			TlVal pv;
			if (tl_model__resolve(in->m, c->qname, &pv)) {
				if (pv.kind == TL_VK_FUNCTION && pv.ref >= 0)
					known = tl_in__call_function(in, &pv, args, npos, 0, &r);
				else if (pv.kind == TL_VK_CLASS && pv.ref >= 0) {
					r = tl_in__instance(in, &pv);
					known = true;
				}
			}
		}
	}
	/* A call of a name the model does not know, named like a criterion. */
	const TlVal *cv = method ? callee : fn;
	if (!known && (!cv || cv->kind == TL_VK_TOP || cv->kind == TL_VK_OBJECT ||
		       (cv->kind == TL_VK_TENSOR && cv->made == TL_VM_TOP)) &&
	    tl_model__seed_named(in->m, c->callee, TL_VK_CRITERION)) {
		r = tl_val_of(TL_VK_TENSOR, TL_VG_MUST);
		r.made = TL_VM_OPAQUE | TL_VM_LOSS;
		known = true;
	}
	if (!known && c->qname && tl_in__starts(c->qname, "torch.") &&
	    (!tl_in__starts(c->qname, "torch.nn.") || tl_in__starts(c->qname, "torch.nn.functional.")) &&
	    !tl_in__starts(c->qname, "torch.optim")) {
		/* torch.stack(losses), torch.cat(...), F.tanh(x): the result
		 * follows the tensors passed in. */
		r = tl_val_of(TL_VK_TENSOR, TL_VG_NONE);
		for (uint32_t k = 0; k < npos && k < 4; k++) {
			TlVal a = args[k];
			if (k == 0 && a.kind == TL_VK_CONTAINER)
				a = tl_val_element(&in->m->pool, &args[0]);
			TlVal t = tl_in__arith(&in->m->pool, &r, &a);
			r.graph = t.graph == TL_VG_BOT ? TL_VG_NONE : t.graph;
			r.pgraph |= a.pgraph;
			if (!r.origin)
				r.origin = a.origin;
		}
		known = true;
	}
	/* nn.Parameter(t): a parameter (its row says a tensor, no module). */
	if (!known && c->qname && (tl_in__is(c->qname, "torch.nn.Parameter") ||
				   tl_in__is(c->qname, "torch.nn.parameter.Parameter"))) {
		r = tl_val_of(TL_VK_PARAMETER, TL_VG_NONE);
		known = true;
	}
	if (!known && c->qname && tl_in__starts(c->qname, "torch.nn.") && !tl_in__starts(c->qname, "torch.nn.functional") &&
	    !tl_api_qualified(c->qname)) {
		/* any other capitalised torch.nn name: a module class (a criterion
		 * for *Loss); a row says otherwise (nn.ParameterList: a container) */
		const char *last = strrchr(c->qname, '.');
		if (last && last[1] >= 'A' && last[1] <= 'Z') {
			size_t l = strlen(last + 1);
			bool loss = l > 4 && strcmp(last + 1 + l - 4, "Loss") == 0;
			r = tl_val_of(loss ? TL_VK_CRITERION : TL_VK_MODULE, TL_VG_NONE);
			known = true;
		}
	}
	/* optimizer.step(closure) hands back what the closure returns. */
	if (!known && c->arg_target >= 0 && method && tl_in__is(c->method, "step") &&
	    (fn->kind == TL_VK_OPTIMIZER ||
	     (fn->kind == TL_VK_TOP && tl_model__seed_named(in->m, c->receiver, TL_VK_OPTIMIZER)))) {
		TlVal fv = tl_val_of(TL_VK_FUNCTION, TL_VG_NONE);
		fv.ref = c->arg_target;
		fv.mod = in->idx;
		known = tl_in__call_function(in, &fv, NULL, 0, 0, &r);
	}
	if (in->m->quiet && c->qname && nargs)
		tl_in__record_args(in, c, n, args, nargs);
	tl_in__made_call(in, n, c, fn, callee, args, npos, &r);
	bool runs = tl_in__runs_forward(in, c, method, fn, cv, &r);
	tl_in__prov_call(in, c, runs, method ? fn : NULL, args, nargs, &r);
	tl_in__carry_call(in, n, c);
	tl_in__epoch_call(in, c, method ? fn : NULL, args, npos);
	tl_in__save_call(in, n, c, npos);
	tl_in__place(in, n, c, runs, vals, nv, &r);
	tl_in__host_call(in, c, vals, nv, &r);
	if (r.graph == TL_VG_MUST && !r.origin)
		r.origin = ts_node_start_byte(n) + 1;
	tl_in__grad_call(in, n, c, fn, callee, args, nargs, &r);
	tl_in__mode_call(in, n, c, fn, args, npos, &r);
	if (in->st.grad == TL_MGRAD_OFF || (in->st.grad == TL_MGRAD_ENTRY && in->entry_off))
		r = tl_in__no_graph(in, &r);
	tl_in__made_param_forward(c, fn, &r);
	tl_in__lists_handed(in, n, c);
	return r;
}

