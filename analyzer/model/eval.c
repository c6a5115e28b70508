/* The interpreter's expressions (interp_internal.h): an explicit stack of
 * nodes and a stack of values, each node computed from its operands'
 * values (calls: calls.c); bindings of targets and patterns. No recursion
 * follows the depth of the code. */
#include "model/interp_internal.h"

#include <string.h>

#include "base/alloc.h"
#include "base/budget.h"
#include "model/apitable.h"
#include "syntax/syms.h"
#include "syntax/treewalk.h"

bool tl_in__poll(In *in)
{
	if (!in->stop && tl_bound_poll()) {
		in->stop = true;
		in->m->cut = true;
	}
	return in->stop;
}

TlVal tl_in__top(void)
{
	return tl_val_top();
}

TlVKind tl_in__api_kind(unsigned k)
{
	switch (k) {
	case TL_APIK_TENSOR: return TL_VK_TENSOR;
	case TL_APIK_MODULE: return TL_VK_MODULE;
	case TL_APIK_OPTIMIZER: return TL_VK_OPTIMIZER;
	case TL_APIK_SCALER: return TL_VK_SCALER;
	case TL_APIK_LOADER: return TL_VK_LOADER;
	case TL_APIK_SAMPLER: return TL_VK_SAMPLER;
	case TL_APIK_CRITERION: return TL_VK_CRITERION;
	case TL_APIK_DEVICE: return TL_VK_DEVICE;
	case TL_APIK_NUMBER: return TL_VK_NUMBER;
	case TL_APIK_BOOL: return TL_VK_BOOL;
	case TL_APIK_STRING: return TL_VK_STRING;
	case TL_APIK_CONTAINER: return TL_VK_CONTAINER;
	case TL_APIK_ARRAY: return TL_VK_ARRAY;
	default: return TL_VK_TOP;
	}
}

/* True when `n` is what a call in a loop that backpropagates, steps or
 * runs a forward acts on (its receiver, its callee, an argument): what
 * tl_model_fresh_run reads, also of another module's loops. */
static bool tl_in__step_operand(In *in, TSNode n)
{
	const TlSyms *sy = in->sy;
	TSNode p = tl_index_parent(in->idx, n);
	while (!ts_node_is_null(p) && ts_node_symbol(p) == sy->parenthesized_expression) {
		n = p;
		p = tl_index_parent(in->idx, p);
	}
	if (ts_node_is_null(p))
		return false;
	TSSymbol ps = ts_node_symbol(p);
	if (ps == sy->keyword_argument)
		p = tl_index_parent(in->idx, p), ps = ts_node_is_null(p) ? 0 : ts_node_symbol(p);
	if (ps == sy->argument_list) {
		p = tl_index_parent(in->idx, p);
	} else if (ps == sy->attribute) {
		if (!ts_node_eq(tl_index_unparen(tl_tree_field(p, sy->f_object)), n) &&
		    !ts_node_eq(tl_tree_field(p, sy->f_object), n))
			return false;
		p = tl_index_parent(in->idx, p);
	} else if (ps != sy->call) {
		return false;
	}
	if (ts_node_is_null(p) || ts_node_symbol(p) != sy->call)
		return false;
	const TlCall *c = tl_index_call_at(in->idx, p);
	return c && c->loop >= 0 && (c->events & (TL_EV_BACKWARD | TL_EV_OPT_STEP | TL_EV_FORWARD));
}

void tl_in__record(In *in, TSNode n, const TlVal *v)
{
	/* The values questions ask about: names, attributes, subscripts,
	 * calls (and what a comprehension makes); an operator's or a literal's
	 * value is its operands'. Another module's model records only what
	 * its loops' steps act on (their runs per configuration): else its
	 * summaries, attributes and globals are read. */
	if (in->m->quiet && !tl_in__step_operand(in, n))
		return;
	const TlSyms *sy = in->sy;
	TSSymbol s = ts_node_symbol(n);
	if (s != sy->identifier && s != sy->attribute && s != sy->subscript && s != sy->call &&
	    s != sy->list_comprehension && s != sy->generator_expression && s != sy->set_comprehension &&
	    s != sy->dictionary_comprehension && s != sy->binary_operator && s != sy->conditional_expression &&
	    s != sy->dictionary && s != sy->list && s != sy->tuple && s != sy->set)
		return;
	tl_model__record(in->m, ts_node_start_byte(n), ts_node_end_byte(n), v);
}

/* A value with no history (what grad-disabled code makes), containers
 * included, one level down. */
TlVal tl_in__no_graph(In *in, const TlVal *v)
{
	TlVal out = *v;
	if (out.graph != TL_VG_BOT)
		out.graph = TL_VG_NONE;
	out.pgraph = 0;
	out.pcall = 0;
	tl_in__prov_none(&out);
	if (out.kind == TL_VK_CONTAINER && out.elem >= 0) {
		TlVal e = in->m->pool.vals.items[out.elem];
		if (e.graph != TL_VG_BOT)
			e.graph = TL_VG_NONE;
		e.pgraph = 0;
		tl_in__prov_none(&e);
		e.next = -1;
		out.elem = tl_val_pool_add(&in->m->pool, e);
		out.parts = -1;
	}
	return out;
}

/* The graph of a result computed from two operands: history if one has it. */
unsigned tl_in__graph_op(unsigned a, unsigned b)
{
	if (a == TL_VG_MUST || b == TL_VG_MUST)
		return TL_VG_MUST;
	if (a == TL_VG_MAY || b == TL_VG_MAY)
		return TL_VG_MAY;
	if (a == TL_VG_UNKNOWN || b == TL_VG_UNKNOWN)
		return TL_VG_UNKNOWN;
	if (a == TL_VG_BOT && b == TL_VG_BOT)
		return TL_VG_BOT;
	return TL_VG_NONE;
}

/* Arithmetic: a tensor if an operand is; history if an operand has it. */
TlVal tl_in__arith(TlValPool *pool, const TlVal *a, const TlVal *b)
{
	bool ta = a->kind == TL_VK_TENSOR || a->kind == TL_VK_PARAMETER;
	bool tb = b->kind == TL_VK_TENSOR || b->kind == TL_VK_PARAMETER;
	TlVal r;
	if (ta || tb)
		r = tl_val_of(TL_VK_TENSOR, TL_VG_NONE);
	else if (a->kind == TL_VK_NUMBER && b->kind == TL_VK_NUMBER)
		r = tl_val_of(TL_VK_NUMBER, TL_VG_NONE);
	else if (a->kind == TL_VK_CONTAINER && b->kind == TL_VK_CONTAINER)
		return tl_val_join(pool, a, b); /* `losses + [sum(losses)]`: what both hold */
	else
		r = tl_val_of(TL_VK_TOP, TL_VG_NONE);
	r.graph = (uint8_t)tl_in__graph_op(a->graph, b->graph);
	r.pgraph = (uint16_t)(a->pgraph | b->pgraph);
	r.old = (uint8_t)(a->old | b->old);
	r.prev = (uint8_t)(a->prev | b->prev);
	r.pold = (uint16_t)(a->pold | b->pold);
	r.kept = (uint8_t)(a->kept | b->kept);
	/* known not to require grad when neither operand does (or, for a
	 * function's parameters, when they require none) */
	tl_val_set_ng(&r, tl_val_ng_and(tl_val_ng(a), tl_val_ng(b)));
	r.origin = a->graph == TL_VG_MUST ? a->origin : b->origin;
	r.made = (uint16_t)(a->made | b->made);
	tl_in__promote(&r, a, b);
	return r;
}

/* Attributes whose value has no history whatever the object's: the
 * table's attribute rows of graph breaks (`@grad`, `@shape`). */
bool tl_in__plain_attr(const char *t, uint32_t len)
{
	const TlApiRow *r = tl_api_attribute(t, len);
	return r && r->graph == TL_APIG_BREAKS;
}


/* The attribute a method of a class stores on, or reads from, one of its
 * parameters other than `self` (`pl_module.head = Head()` in one hook of
 * a callback, `pl_module.head(x)` in another): the hooks of one class are
 * handed one object under one parameter name, so a path `param.attr`
 * whose root still holds the parameter is an attribute of the class's
 * summary under the name "param.attr" (no attribute's name has a dot).
 * Its interned id (added when `add`), or -1. */
int32_t tl_in__param_attr(In *in, const TlPath *p, bool add)
{
	if (in->cls < 0 || p->n != 1 || p->cut || p->sel[0] < 0 || p->root < 0 || p->root == in->self_id)
		return -1;
	uint32_t i = 0;
	while (i < in->nparams && i < 16 && in->param_roots[i] != p->root)
		i++;
	if (i >= in->nparams || i >= 16)
		return -1;
	TlPath rp = { .root = p->root };
	const TlVal *pv = tl_state_get(&in->st, &rp);
	if (!pv || !(pv->pgraph & (1u << i)))
		return -1; /* bound to something else since the entry */
	TlBuf b;
	tl_buf_init(&b);
	tl_path_print(&in->m->names, p, &b);
	int32_t id = -1;
	if (b.len && b.len < 128)
		id = add ? tl_path_intern(&in->m->names, b.data, b.len) : tl_path_lookup(&in->m->names, b.data, b.len);
	tl_buf_release(&b);
	return id;
}

/* The value of attribute `name` (interned `id`) of a value `obj`. */
TlVal tl_in__attr(In *in, const TlVal *obj, int32_t id, const char *name, uint32_t len)
{
	char buf[128];
	if (len >= sizeof buf)
		return tl_in__top();
	memcpy(buf, name, len);
	buf[len] = '\0';
	TlVal tv;
	if (tl_in__tensor_attr(obj, name, len, &tv))
		return tv;
	if (tl_in__plain_attr(name, len)) {
		TlVal v = tl_val_of(TL_VK_TOP, TL_VG_NONE);
		v.nograd = 1; /* `x.shape`: no tensor that requires grad */
		return v;
	}
	if ((obj->kind == TL_VK_MODULE || obj->kind == TL_VK_OBJECT || obj->kind == TL_VK_WRAPPER) &&
	    obj->ref >= 0 && obj->mod) {
		TlVal v;
		if (tl_model__class_attr(in->m, (const TlIndex *)obj->mod, obj->ref, id, buf, &v))
			return v;
	}
	bool unwraps = strcmp(buf, "module") == 0 || strcmp(buf, "_orig_mod") == 0;
	if (obj->kind == TL_VK_WRAPPER && unwraps) {
		/* The module inside: marked with the wrappers it was read
		 * through (`ddp.module` bypasses DDP's hooks). */
		return tl_in__inner(in, obj);
	}
	if (obj->kind == TL_VK_MODULE && obj->wrap && unwraps) {
		/* Read through wrappers already, and unwrapped once more
		 * (`ddp.module._orig_mod` of a compiled model under DDP): a
		 * module still, with the same marks. */
		TlVal v = *obj;
		v.elem = v.parts = -1;
		return v;
	}
	/* `model.module` of a wrapper on some paths: the module inside; of a
	 * parameter: what the caller passes, unwrapped. */
	if (unwraps && obj->kind == TL_VK_TOP &&
	    (obj->wrap || ((obj->made & TL_VM_PARAMS) && (obj->pgraph & 0xffu)))) {
		TlVal v = *obj;
		v.elem = v.parts = -1;
		if (obj->wrap)
			v.kind = TL_VK_MODULE;
		if (obj->made & TL_VM_PARAMS)
			v.punwrap = (uint8_t)(obj->pgraph & 0xffu);
		return v;
	}
	/* `emb.weight`, `fc.bias` of a library module: its parameters. */
	if ((obj->kind == TL_VK_MODULE || obj->kind == TL_VK_CRITERION) && obj->ref < 0) {
		const TlApiRow *r = tl_api_attribute(name, len);
		if (r && r->kind == TL_APIK_PARAMETER)
			return tl_val_of(TL_VK_PARAMETER, TL_VG_NONE);
	}
	/* A field of a tuple or a container (a named tuple's `out.logits`):
	 * what it holds. */
	if (obj->kind == TL_VK_CONTAINER) {
		TlVal e = tl_val_element(&in->m->pool, obj);
		return tl_val_is_bot(&e) ? tl_in__top() : e;
	}
	/* A field of a value (outputs.loss) follows the value's history. */
	/* A field of a parameter follows the parameter (graph ⊥ plus its bit). */
	TlVal v = tl_val_of(TL_VK_TOP, (TlVGraph)(obj->graph == TL_VG_BOT && !obj->pgraph ? TL_VG_UNKNOWN : obj->graph));
	if (obj->graph == TL_VG_NONE && obj->kind != TL_VK_TOP)
		v.graph = TL_VG_NONE;
	v.pgraph = obj->pgraph;
	v.origin = obj->origin;
	v.old = obj->old;
	v.prev = obj->prev;
	v.pold = obj->pold;
	v.kept = obj->kept;
	if (v.graph == TL_VG_NONE)
		tl_in__prov_none(&v);
	tl_in__field(obj, &v);
	/* a buffer of a class of this module (`self.basis` after
	 * `self.register_buffer("basis", t)`): requires grad as `t` does */
	if ((obj->kind == TL_VK_MODULE || obj->kind == TL_VK_OBJECT) && obj->ref >= 0 &&
	    obj->mod == (const void *)in->idx && id >= 0 && tl_model__buffer_nograd(in->m, obj->ref, id) == 1)
		v.nograd = 1;
	return v;
}

/* The value a name or a path reads where no slot of the state holds it. */
TlVal tl_in__unbound(In *in, TSNode n)
{
	const TlSyms *sy = in->sy;
	TSNode root = n;
	while (!ts_node_is_null(root) && ts_node_symbol(root) != sy->identifier) {
		if (ts_node_symbol(root) == sy->attribute)
			root = tl_index_unparen(tl_tree_field(root, sy->f_object));
		else if (ts_node_symbol(root) == sy->subscript)
			root = tl_index_unparen(tl_tree_field(root, sy->f_value));
		else
			return tl_in__top();
	}
	if (ts_node_is_null(root))
		return tl_in__top();
	const TlBinding *b = tl_index_resolve_node(in->idx, root);
	if (!b) {
		/* A class or function a star import of a project module binds
		 * (`from .parts import *`, then `Block(c)`). */
		TlVal sv;
		uint32_t len = 0;
		const char *t = ts_node_eq(root, n) ? tl_index_text(in->idx, root, &len) : NULL;
		char name[128];
		if (t && len && len < sizeof name) {
			memcpy(name, t, len);
			name[len] = 0;
			if (!tl_api_builtin(name) && tl_model__star_name(in->m, name, &sv))
				return sv;
		}
		return tl_in__top();
	}
	TlVal v = tl_in__top();
	if (b->kind == TL_BIND_DEF && b->ref >= 0) {
		v = tl_val_of(TL_VK_FUNCTION, TL_VG_NONE);
		v.ref = b->ref;
		v.mod = in->idx;
	} else if (b->kind == TL_BIND_CLASS && b->ref >= 0) {
		v = tl_val_of(TL_VK_CLASS, TL_VG_NONE);
		v.ref = b->ref;
		v.mod = in->idx;
	} else if (b->kind == TL_BIND_PARAM && b->func >= 0 && b->func != in->func &&
		   in->idx->funcs.items[b->func].cls >= 0 && in->idx->funcs.items[b->func].params.size &&
		   &in->idx->bindings.items[in->idx->funcs.items[b->func].params.items[0]] == b) {
		/* `self` of the method a closure is nested in: an instance of
		 * its class (a classmethod's `cls`: the class) */
		const TlFunc *outer = &in->idx->funcs.items[b->func];
		bool is_static, is_classmethod;
		tl_model__method_kind(in->idx, outer, &is_static, &is_classmethod);
		if (!is_static) {
			bool module = !is_classmethod && tl_model__class_is_module(in->m, in->idx, outer->cls);
			v = tl_val_of(is_classmethod ? TL_VK_CLASS : module ? TL_VK_MODULE : TL_VK_OBJECT, TL_VG_NONE);
			v.ref = outer->cls;
			v.mod = in->idx;
		}
	} else if (b->kind == TL_BIND_IMPORT) {
		/* An imported name is resolved where it is called (the call's
		 * qualified name, after the API table): reading another module's
		 * model for every name read would load modules nothing asks about. */
	} else if (b->func >= 0 && in->func >= 0 && b->func != in->func && b->kind != TL_BIND_PARAM &&
		   tl_model__nested_in(in->idx, in->func, b->func)) {
		/* a local of the function a closure is nested in: its mode is
		 * the one that function's state holds at the closure's call
		 * (modes.c), as a global's is */
		v.mode = TL_VMODE_ENTRY;
	} else if (b->func == -1 && in->func != -1) {
		uint32_t len = 0;
		const char *t = tl_index_text(in->idx, root, &len);
		TlPath p;
		if (t && tl_path_of_dotted(&in->m->names, b->name, &p)) {
			tl_model__dep_globals(in->m);
			const TlVal *g = tl_state_get(&in->m->globals, &p);
			if (g) {
				v = *g;
				/* its mode where the module ends is not the one
				 * the function runs in: its callers' (modes.c) */
				if (v.mode)
					v.mode = TL_VMODE_ENTRY;
			}
			else if (!in->m->globals_ready)
			{
				v = tl_val_bot(); /* the module's code has not run yet */
				in->m->pending = in->m->read_pending = true;
			}
		}
	}
	return v;
}

/* The value of an identifier, attribute chain or constant subscript read
 * as a path: the state's slot, else the object's value through its
 * attributes. */
static bool tl_in__read_path(In *in, TSNode n, TlVal *out)
{
	TlPath p;
	if (!tl_path_of(&in->m->names, in->idx, n, &p))
		return false;
	const TlSlot *s = tl_state_slot(&in->st, &p);
	if (in->loops)
		tl_in__carry_read(in, &p, s);
	if (s) {
		*out = s->val;
		in->path_read = true;
		return true;
	}
	return false;
}

/* ---- bindings ----------------------------------------------------------- */

/* 1: a backward of this function consumes the path's value (or it flows
 * into one); 2: an element under a key of it (`out["loss"]`); 0: neither. */
static int32_t tl_in__backprop_how(In *in, const TlPath *p)
{
	int32_t how;
	return tl_scopemap_get(&in->m->backprop, (uint32_t)(in->func + 1), tl_path_hash(p), &how) ? how : 0;
}

static bool tl_in__backprop(In *in, const TlPath *p)
{
	return tl_in__backprop_how(in, p) == 1;
}

/* A value of unknown history that this function backpropagates (or that
 * flows into what it backpropagates) has history. */
void tl_in__refine(In *in, const TlPath *p, TlVal *v)
{
	tl_in__refine_how(in, p, v, -1);
}

/* ... `how` (tl_in__backprop_how's answer), or -1: the path's. */
void tl_in__refine_how(In *in, const TlPath *p, TlVal *v, int32_t how)
{
	if (v->kind == TL_VK_CONTAINER) {
		/* a list a backward consumes whole (torch.autograd.backward(outs)):
		 * its elements have history */
		if (!in->idx->torch_ecosystem || in->idx->foreign_imports ||
		    (how < 0 ? tl_in__backprop_how(in, p) : how) != 1)
			return;
		TlVal e = tl_val_element(&in->m->pool, v);
		if (e.graph == TL_VG_UNKNOWN || e.graph == TL_VG_BOT) {
			e.graph = TL_VG_MUST;
			if (e.kind == TL_VK_TOP || e.kind == TL_VK_BOT)
				e.kind = TL_VK_TENSOR;
			TlVal c = tl_val_container(&in->m->pool, &e);
			v->elem = c.elem;
			v->parts = -1;
		}
		return;
	}
	if ((v->graph != TL_VG_UNKNOWN && v->graph != TL_VG_BOT) ||
	    (v->kind != TL_VK_TOP && v->kind != TL_VK_TENSOR) || !in->idx->torch_ecosystem ||
	    in->idx->foreign_imports)
		return;
	if (how < 0)
		how = tl_in__backprop_how(in, p);
	if (how == 1) {
		v->graph = TL_VG_MUST;
		if (v->kind == TL_VK_TOP)
			v->kind = TL_VK_TENSOR;
	} else if (how >= 2 && v->kind == TL_VK_TOP) {
		/* what holds the backpropagated element holds history under its key */
		TlVal e = tl_val_of(TL_VK_TENSOR, TL_VG_MUST);
		TlVal c = tl_val_of(TL_VK_CONTAINER, TL_VG_NONE);
		c.flow = v->flow; /* what it was computed from stays (flow.c) */
		*v = tl_val_with_key(&in->m->pool, &c, how - 2, &e);
	}
}

/* Position i > 0 of an opaque result unpacked into pattern `pattern`: a
 * loss's statistics are not known to carry history; a forward's outputs
 * do, unless the code backpropagates the first one itself (a model that
 * computes its own loss returns it first, then its statistics). */
static TlVal tl_in__opaque_part(In *in, const TlVal *v, TSNode pattern)
{
	if (!(v->made & TL_VM_FORWARD) || (v->made & TL_VM_LOSS))
		return tl_val_top();
	TSNode first = ts_node_named_child_count(pattern) ? ts_node_named_child(pattern, 0) : (TSNode){ 0 };
	TlPath p;
	if (!ts_node_is_null(first) && tl_path_of(&in->m->names, in->idx, first, &p) &&
	    (tl_in__backprop(in, &p) || tl_in__backprop_marked(in, first)))
		return tl_val_top();
	TlVal out = *v;
	out.made = (uint16_t)(out.made & ~TL_VM_OPAQUE);
	out.act = TL_VA_NONE; /* made as the first one is: not known */
	return out;
}

/* Binds target `t` (an identifier, attribute, subscript or pattern) to `v`:
 * an explicit stack over nested patterns. */
void tl_in__bind(In *in, TSNode target, const TlVal *value)
{
	const TlSyms *sy = in->sy;
	struct { TSNode t; TlVal v; } todo[32];
	uint32_t n = 0;
	todo[n].t = target;
	todo[n].v = *value;
	n++;
	while (n) {
		n--;
		TSNode t = tl_index_unparen(todo[n].t);
		TlVal v = todo[n].v;
		/* A name bound to a literal is a setting its author edits
		 * (`USE_PRETRAINED = True`, `amp = False`): both settings are
		 * runs. Only a call's arguments decide branches (consts.c). */
		v.cst = 0;
		if (ts_node_is_null(t))
			continue;
		TSSymbol s = ts_node_symbol(t);
		if (s == sy->pattern_list || s == sy->tuple_pattern || s == sy->list_pattern ||
		    s == sy->expression_list || s == sy->tuple || s == sy->list) {
			uint32_t k = ts_node_named_child_count(t);
			for (uint32_t i = k; i-- > 0;) {
				if (n >= sizeof todo / sizeof *todo)
					break;
				TSNode ch = ts_node_named_child(t, i);
				if (ts_node_symbol(ch) == sy->list_splat_pattern || ts_node_symbol(ch) == sy->list_splat) {
					TlVal e = tl_val_element(&in->m->pool, &v);
					todo[n].t = ts_node_named_child(ch, 0);
					todo[n].v = tl_val_container(&in->m->pool, &e);
				} else {
					todo[n].t = ch;
					/* An opaque result: its first position is the
					 * loss, what follows is not known. */
					todo[n].v = (v.made & TL_VM_OPAQUE) && v.kind == TL_VK_TENSOR && i > 0
							    ? tl_in__opaque_part(in, &v, t) : tl_val_part(&in->m->pool, &v, i);
				}
				tl_in__flow_part(in, &todo[n].v, &v);
				tl_in__fresh_part(&todo[n].v, &v);
				n++;
			}
			continue;
		}
		if (s == sy->subscript || s == sy->attribute)
			tl_in__grad_store(in, t, &v);
		if (s == sy->subscript) {
			/* the container's value before the store, recorded at it */
			TlVal obj = tl_in__eval(in, tl_tree_field(t, sy->f_value));
			TlPath p, up;
			int32_t key = tl_path_key_id(&in->m->names, in->idx, tl_tree_field(t, sy->f_subscript));
			const TlVal *holder = NULL;
			if (key >= 0 && tl_path_of(&in->m->names, in->idx, t, &p) && tl_path_up(&p, &up) &&
			    (holder = tl_state_get(&in->st, &up)) != NULL &&
			    (holder->kind == TL_VK_CONTAINER || holder->kind == TL_VK_TOP)) {
				/* out["loss"] = x: a strong update of that key */
				tl_in__flow_bind(in, t, &v);
				TlVal h = *holder;
				TlVal nh = tl_val_with_key(&in->m->pool, &h, key, &v);
				tl_in__flow_store(in, &obj, &h, &nh, &v);
				tl_state_set(&in->st, &up, &nh);
				if (in->cls >= 0 && up.root == in->self_id && up.n == 1 && up.sel[0] >= 0) {
					TlVal sv = nh;
					tl_in__ng_store(in, &sv);
					tl_model__store_attr(in->m, in->cls, up.sel[0], &sv, ts_node_start_byte(t) + 1);
				}
			} else {
				tl_in__store_into(in, tl_tree_field(t, sy->f_value), &v);
				tl_in__flow_store(in, &obj, NULL, NULL, &v);
			}
			tl_in__record(in, t, &v);
			continue;
		}
		if (s == sy->attribute) {
			/* `model.requires_grad = False`: the object's value, recorded
			 * at the store for the questions asked of it */
			TSNode obj = tl_index_unparen(tl_tree_field(t, sy->f_object));
			TSSymbol os = ts_node_is_null(obj) ? 0 : ts_node_symbol(obj);
			if (os == sy->identifier || os == sy->attribute || os == sy->subscript)
				(void)tl_in__eval(in, obj);
		}
		TlPath p;
		if (!tl_path_of(&in->m->names, in->idx, t, &p))
			continue;
		tl_in__refine(in, &p, &v);
		/* a binding what a backward consumes keeps the history of (not a
		 * container: what is put into it says what its elements are) */
		if (v.kind != TL_VK_CONTAINER && tl_in__backprop_marked(in, t))
			tl_in__refine_how(in, &p, &v, 1);
		tl_in__flow_bind(in, t, &v);
		tl_in__backprop_bind(in, &p, &v, t);
		tl_state_set(&in->st, &p, &v);
		tl_in__carry_store(in, &p, &v);
		/* What a question asks of the name stored to is what a read of it
		 * gives: an unknown value is seeded by the file's evidence. */
		TlVal rv = v;
		tl_model__seed_read(in->m, t, &rv);
		tl_in__record(in, t, &rv);
		if (in->cls >= 0 && p.root == in->self_id && p.n == 1 && p.sel[0] >= 0) {
			TlVal sv = v;
			tl_in__ng_store(in, &sv);
			tl_model__store_attr(in->m, in->cls, p.sel[0], &sv, ts_node_start_byte(t) + 1);
		} else {
			int32_t pid = tl_in__param_attr(in, &p, true);
			if (pid >= 0) {
				TlVal sv = v;
				tl_in__ng_store(in, &sv);
				tl_model__store_attr(in->m, in->cls, pid, &sv, ts_node_start_byte(t) + 1);
			}
		}
	}
}

/* ---- expressions ------------------------------------------------------------ */

uint32_t tl_in__kids(In *in, TSNode parent)
{
	uint32_t n0 = in->kids.size;
	if (ts_node_is_null(parent))
		return 0;
	/* A function is interpreted once per pass and round: each node's
	 * children are read from the tree once. */
	TlModel *m = in->m;
	uint64_t id = (uint64_t)(uintptr_t)parent.id;
	int32_t at;
	m->stats.kids_asked++;
	if (tl_scopemap_get(&m->kid_at, (uint32_t)id, (uint32_t)(id >> 32), &at)) {
		uint32_t from = m->kid_spans.items[at], count = m->kid_spans.items[at + 1];
		if (count == 0)
			return 0;
		tl_array_reserve(&in->kids, n0 + count);
		memcpy(in->kids.items + n0, m->kid_nodes.items + from, count * sizeof *in->kids.items);
		in->kids.size = n0 + count;
		return count;
	}
	m->stats.kids_read++;
	tl_tree_walk_kids(&in->walk, parent, TL_TREE_WALK_NO_TOKENS);
	TlTreeNode t;
	while (tl_tree_walk_next(&in->walk, false, &t))
		if (t.named && t.symbol != in->sy->comment)
			tl_array_push(&in->kids, t.node);
	uint32_t count = in->kids.size - n0;
	tl_scopemap_put(&m->kid_at, (uint32_t)id, (uint32_t)(id >> 32), (int32_t)m->kid_spans.size);
	tl_array_push(&m->kid_spans, m->kid_nodes.size);
	tl_array_push(&m->kid_spans, count);
	for (uint32_t i = 0; i < count; i++)
		tl_array_push(&m->kid_nodes, in->kids.items[n0 + i]);
	return count;
}

static void tl_in__push_ev(In *in, TSNode n)
{
	EvFrame f = { tl_index_unparen(n), 0, 0, 0 };
	tl_array_push(&in->ev, f);
}

/* The first for_in_clause of a comprehension at or after child `from`,
 * and its index; -1 when none. */
static int32_t tl_in__clause(In *in, TSNode n, uint32_t from)
{
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = from; i < k; i++)
		if (ts_node_symbol(ts_node_named_child(n, i)) == in->sy->for_in_clause)
			return (int32_t)i;
	return -1;
}

static bool tl_in__comprehension(const TlSyms *sy, TSSymbol s)
{
	return s == sy->list_comprehension || s == sy->generator_expression || s == sy->set_comprehension ||
	       s == sy->dictionary_comprehension;
}

/* Pushes the operands of `n` (stage 0 -> 1). Returns false for a node
 * computed at once. */
static void tl_in__operands(In *in, uint32_t fi)
{
	const TlSyms *sy = in->sy;
	TSNode n = in->ev.items[fi].n;
	TSSymbol s = ts_node_symbol(n);
	in->ev.items[fi].stage = 1;
	in->ev.items[fi].base = in->vs.size;
	TSNode kids[64];
	uint32_t k = 0;
	if (s == sy->attribute) {
		kids[k++] = tl_tree_field(n, sy->f_object);
	} else if (s == sy->subscript) {
		kids[k++] = tl_tree_field(n, sy->f_value);
	} else if (s == sy->call) {
		TSNode callee = tl_index_unparen(tl_tree_field(n, sy->f_function));
		if (!ts_node_is_null(callee) && ts_node_symbol(callee) == sy->attribute)
			kids[k++] = tl_tree_field(callee, sy->f_object);
		else
			kids[k++] = callee;
		TSNode args = tl_tree_field(n, sy->f_arguments);
		if (!ts_node_is_null(args) && ts_node_symbol(args) == sy->argument_list) {
			uint32_t base = in->kids.size, na = tl_in__kids(in, args);
			for (uint32_t i = 0; i < na && k < 64; i++) {
				TSNode a = in->kids.items[base + i];
				if (ts_node_symbol(a) == sy->keyword_argument)
					a = tl_tree_field(a, sy->f_value);
				kids[k++] = a;
			}
			in->kids.size = base;
		} else if (!ts_node_is_null(args)) {
			kids[k++] = args; /* f(x for x in xs) */
		}
	} else if (s == sy->keyword_argument || s == sy->pair) {
		kids[k++] = tl_tree_field(n, sy->f_value);
	} else if (s == sy->string) {
		/* f"{evaluate(model, loader):.4f}": the interpolated expressions */
		uint32_t len = 0;
		const char *t = tl_index_text(in->idx, n, &len);
		bool f = false;
		for (uint32_t i = 0; t && i < len && i < 3 && t[i] != '"' && t[i] != '\'';  i++)
			f = f || t[i] == 'f' || t[i] == 'F';
		uint32_t base = in->kids.size, nc = f ? tl_in__kids(in, n) : 0;
		for (uint32_t i = 0; i < nc && k < 64; i++) {
			TSNode ch = in->kids.items[base + i];
			if (ts_node_symbol(ch) == sy->interpolation && ts_node_named_child_count(ch))
				kids[k++] = ts_node_named_child(ch, 0);
		}
		in->kids.size = base;
	} else if (s == sy->lambda || s == sy->integer || s == sy->float_ ||
		   s == sy->true_ || s == sy->false_ || s == sy->none || s == sy->identifier) {
		/* no operands */
	} else if (tl_in__comprehension(sy, s)) {
		/* handled by stages of their own */
		in->ev.items[fi].stage = 10;
		return;
	} else if (s == sy->conditional_expression && ts_node_named_child_count(n) == 3 &&
		   tl_in__narrows_not(in, ts_node_named_child(n, 1)) && !tl_in__unwrap_shape(in, n)) {
		/* `a if test else b` whose test narrows where it fails
		 * (`hasattr(x, "module")`): a and the test, then b in the
		 * narrowed state (stages 200, 201 of tl_in__eval) */
		in->ev.items[fi].stage = 200;
		tl_in__push_ev(in, ts_node_named_child(n, 1));
		tl_in__push_ev(in, ts_node_named_child(n, 0));
		return;
	} else {
		/* Every child, a long literal's too (`tests = [dict(...), ...]`
		 * of hundreds): each is evaluated, and its values recorded; the
		 * node itself is computed from the first 64. */
		uint32_t base = in->kids.size, nc = tl_in__kids(in, n);
		for (uint32_t i = nc; i-- > 0;)
			tl_in__push_ev(in, in->kids.items[base + i]);
		in->kids.size = base;
		return;
	}
	for (uint32_t i = k; i-- > 0;)
		tl_in__push_ev(in, kids[i]);
}

/* Which operands of call `n` are keyword arguments. */
static void tl_in__keywords(In *in, TSNode n, bool *kw, uint32_t cap)
{
	const TlSyms *sy = in->sy;
	memset(kw, 0, cap * sizeof *kw);
	TSNode args = tl_tree_field(n, sy->f_arguments);
	if (ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list)
		return;
	uint32_t base = in->kids.size, na = tl_in__kids(in, args), k = 0;
	for (uint32_t i = 0; i < na && k < cap; i++) {
		TSNode a = in->kids.items[base + i];
		kw[k++] = ts_node_symbol(a) == sy->keyword_argument || ts_node_symbol(a) == sy->dictionary_splat ||
			  ts_node_symbol(a) == sy->list_splat;
	}
	in->kids.size = base;
}

/* A lambda's body, evaluated where the lambda is, its parameters unknown,
 * so that the values questions ask about inside it are recorded (what it
 * returns is not followed). Not inside another lambda's body: no
 * recursion follows the nesting of the code. */
static void tl_in__lambda(In *in, TSNode n)
{
	const TlSyms *sy = in->sy;
	TSNode body = tl_tree_field(n, sy->f_body);
	if (in->in_lambda || in->m->quiet || ts_node_is_null(body))
		return;
	TlState saved;
	tl_state_init(&saved);
	tl_state_copy(&saved, &in->st);
	TSNode params = tl_tree_field(n, sy->f_parameters);
	uint32_t base = in->kids.size, k = ts_node_is_null(params) ? 0 : tl_in__kids(in, params);
	for (uint32_t i = 0; i < k; i++) {
		TSNode p = in->kids.items[base + i];
		if (ts_node_symbol(p) != sy->identifier)
			p = tl_tree_field(p, sy->f_name); /* a default: `lambda x=1: ...` */
		TlPath path;
		if (!ts_node_is_null(p) && ts_node_symbol(p) == sy->identifier &&
		    tl_path_of(&in->m->names, in->idx, p, &path)) {
			TlVal top = tl_in__top();
			tl_state_set(&in->st, &path, &top);
		}
	}
	in->kids.size = base;
	in->in_lambda = true;
	(void)tl_in__eval(in, body);
	in->in_lambda = false;
	tl_state_copy(&in->st, &saved);
	tl_state_release(&saved);
}

/* Computes node `n` from its operands' values. */
static TlVal tl_in__compute(In *in, TSNode n, const TlVal *vals, uint32_t nv)
{
	const TlSyms *sy = in->sy;
	TSSymbol s = ts_node_symbol(n);
	TlVal v;
	if (s == sy->integer || s == sy->float_)
		return tl_val_of(TL_VK_NUMBER, TL_VG_NONE);
	if (s == sy->string || s == sy->type_ || s == in->concatenated_string)
		return tl_in__string_value(in, n);
	if (s == sy->comparison_operator)
		return tl_in__compare(vals, nv);
	if (s == sy->true_ || s == sy->false_ || s == sy->not_operator)
		return tl_val_of(TL_VK_BOOL, TL_VG_NONE);
	if (s == sy->none)
		return tl_val_of(TL_VK_NONE, TL_VG_NONE);
	if (s == sy->lambda) {
		tl_in__lambda(in, n);
		return tl_val_of(TL_VK_FUNCTION, TL_VG_NONE);
	}
	if (s == sy->identifier) {
		if (!tl_in__read_path(in, n, &v)) {
			v = tl_in__unbound(in, n);
			tl_in__host_clear(&v);
		}
		tl_model__seed_read(in->m, n, &v);
		return v;
	}
	if (s == sy->attribute) {
		if (!tl_in__read_path(in, n, &v)) {
			uint32_t len = 0;
			const char *t = tl_index_text(in->idx, tl_tree_field(n, sy->f_attribute), &len);
			if (!t || nv < 1)
				return tl_in__top();
			TlVal obj = vals[0];
			/* stored on the parameter by another method of the class */
			TlPath pp;
			int32_t pid = in->cls >= 0 && tl_path_of(&in->m->names, in->idx, n, &pp)
					      ? tl_in__param_attr(in, &pp, false) : -1;
			if (pid < 0 || !tl_model__class_attr(in->m, in->idx, in->cls, pid,
							     in->m->names.names.items[pid], &v))
				v = tl_in__attr(in, &obj, tl_path_intern(&in->m->names, t, len), t, len);
			tl_in__host_field(&v, &obj);
			tl_in__mode_field(&v, &obj);
		}
		tl_model__seed_read(in->m, n, &v);
		return v;
	}
	if (s == sy->subscript) {
		if (tl_in__read_path(in, n, &v))
			return v;
		if (nv < 1)
			return tl_in__top();
		TSNode key = tl_index_unparen(tl_tree_field(n, sy->f_subscript));
		if ((vals[0].made & TL_VM_OPAQUE) && vals[0].kind == TL_VK_TENSOR) {
			/* out["loss"] of an opaque result: known when backpropagated */
			uint32_t len = 0;
			const char *t = ts_node_is_null(key) ? NULL : tl_index_text(in->idx, key, &len);
			if (t && len == 1 && t[0] == '0')
				return vals[0];
			bool forward = (vals[0].made & TL_VM_FORWARD) && !(vals[0].made & TL_VM_LOSS);
			TSSymbol ks = ts_node_is_null(key) ? 0 : ts_node_symbol(key);
			/* A forward's output under a key the module uses as a tensor
			 * (backpropagated, given to a loss or a torch function, given
			 * a tensor's method) is one; under another key (a count it
			 * computed), not known. Under a computed index: an output. */
			/* A loss's dict of terms: the terms the module uses as tensors
			 * carry history too (`out["mse_loss"]` of a rate-distortion loss). */
			if ((ks == sy->string && tl_model__tensor_key(in->m, in->idx, key)) ||
			    (forward && ks != sy->string && ks != sy->integer)) {
				TlVal out = vals[0];
				out.made = (uint16_t)(out.made & ~TL_VM_OPAQUE);
				return out;
			}
			TlVal u = tl_in__top();
			tl_in__field(&vals[0], &u);
			TlPath p;
			if (tl_path_of(&in->m->names, in->idx, n, &p))
				tl_in__refine(in, &p, &u);
			return u;
		}
		if (!ts_node_is_null(key) && ts_node_symbol(key) == sy->integer) {
			uint32_t len = 0;
			const char *t = tl_index_text(in->idx, key, &len);
			if (t && len == 1 && t[0] >= '0' && t[0] <= '9')
				return tl_val_part(&in->m->pool, &vals[0], (uint32_t)(t[0] - '0'));
		}
		if (!ts_node_is_null(key) && ts_node_symbol(key) == in->slice) {
			/* a slice of a list is a list (its last item not known); of a
			 * tensor, a tensor */
			TlVal sl = vals[0];
			sl.lastact = TL_VA_NONE;
			return sl;
		}
		int32_t kid = ts_node_is_null(key) || ts_node_symbol(key) != sy->string
				      ? -1 : tl_path_key_id(&in->m->names, in->idx, key);
		if (kid >= 0 && vals[0].kind == TL_VK_CONTAINER) {
			TlVal kv = tl_val_keyed(&in->m->pool, &vals[0], kid);
			if (!tl_val_is_bot(&kv))
				return kv;
		}
		TlVal e = tl_val_element(&in->m->pool, &vals[0]);
		if (tl_val_is_bot(&e))
			e = tl_in__top();
		tl_in__mode_element(in, n, &e, &vals[0]);
		return e;
	}
	if (s == sy->call) {
		bool kw[64];
		tl_in__keywords(in, n, kw, 64);
		return tl_in__call(in, n, vals, nv, kw);
	}
	if (s == sy->binary_operator && nv >= 2) {
		v = tl_in__arith(&in->m->pool, &vals[0], &vals[1]);
		tl_in__made_op(in, n, &v);
		/* Tensor arithmetic in grad-disabled code records no history,
		 * as a call there does (`avg = total / n` under no_grad); a
		 * container's concatenation keeps the elements it joins. */
		if (v.kind == TL_VK_TENSOR &&
		    (in->st.grad == TL_MGRAD_OFF || (in->st.grad == TL_MGRAD_ENTRY && in->entry_off)))
			v = tl_in__no_graph(in, &v);
		return v;
	}
	if (s == sy->unary_operator && nv >= 1) {
		TlVal z = tl_val_of(TL_VK_NUMBER, TL_VG_NONE);
		return tl_in__arith(&in->m->pool, &vals[0], &z);
	}
	if (s == sy->boolean_operator && nv >= 2)
		return tl_val_join(&in->m->pool, &vals[0], &vals[1]);
	if (s == sy->conditional_expression && nv >= 3) {
		TlVal u;
		if (tl_in__unwrap_idiom(in, n, &vals[2], &u))
			return u;
		return tl_val_join(&in->m->pool, &vals[0], &vals[2]);
	}
	if (s == sy->keyword_argument || s == sy->pair)
		return nv ? vals[0] : tl_in__top();
	if (s == sy->named_expression && nv >= 2) {
		tl_in__bind(in, tl_tree_field(n, sy->f_name), &vals[1]);
		return vals[1];
	}
	if (s == sy->tuple || s == sy->list || s == sy->expression_list || s == sy->set) {
		TlVal c = tl_val_of(TL_VK_CONTAINER, TL_VG_NONE);
		int32_t last = -1;
		bool splat = false;
		uint32_t base = in->kids.size, nk = tl_in__kids(in, n);
		for (uint32_t i = 0; i < nv; i++) {
			TSNode ch = i < nk ? in->kids.items[base + i] : (TSNode){ 0 };
			TlVal e = vals[i];
			bool spread = !ts_node_is_null(ch) && ts_node_symbol(ch) == sy->list_splat;
			if (spread) {
				e = tl_val_element(&in->m->pool, &vals[i]);
				tl_in__flow_spread(in, &e, &vals[i]);
				splat = true;
			}
			last = tl_val_add_part(&in->m->pool, &c, last, &e);
			/* what its last item computes as a layer (`[*hidden,
			 * nn.Softmax(1)]`; `[first, *rest]`: the last of `rest`) */
			if (s != sy->set)
				c.lastact = (uint8_t)(!spread ? tl_in__made_layer(in, &e)
						      : vals[i].kind == TL_VK_CONTAINER ? vals[i].lastact : TL_VA_NONE);
		}
		in->kids.size = base;
		if (splat)
			c.parts = -1;
		return c;
	}
	if (s == sy->dictionary) {
		/* {"loss": l, "n": 3}: a part per constant key */
		TlVal c = tl_val_of(TL_VK_CONTAINER, TL_VG_NONE);
		TlVal e = tl_val_bot();
		bool keyed = true;
		uint32_t base = in->kids.size, nc = tl_in__kids(in, n), vi = 0;
		for (uint32_t i = 0; i < nc && vi < nv; i++) {
			TSNode ch = in->kids.items[base + i];
			TlVal x = vals[vi++];
			int32_t key = -1;
			if (ts_node_symbol(ch) == sy->dictionary_splat) {
				TlVal whole = x;
				x = tl_val_element(&in->m->pool, &whole);
				tl_in__flow_spread(in, &x, &whole);
			}
			else if (ts_node_symbol(ch) == sy->pair)
				key = tl_path_key_id(&in->m->names, in->idx, ts_node_named_child(ch, 0));
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
	if ((s == sy->list_splat || s == sy->dictionary_splat || s == sy->parenthesized_expression) && nv >= 1)
		return vals[0];
	return tl_in__top();
}

/* Evaluates expression `root`: an explicit stack of nodes, each computed
 * from its operands' values. */
TlVal tl_in__eval(In *in, TSNode root)
{
	const TlSyms *sy = in->sy;
	uint32_t ev0 = in->ev.size, vs0 = in->vs.size;
	tl_in__push_ev(in, root);
	while (in->ev.size > ev0) {
		if (tl_in__poll(in)) {
			in->ev.size = ev0;
			in->vs.size = vs0;
			return tl_in__top();
		}
		uint32_t fi = in->ev.size - 1;
		EvFrame f = in->ev.items[fi];
		if (ts_node_is_null(f.n)) {
			in->ev.size--;
			TlVal t = tl_in__top();
			tl_array_push(&in->vs, t);
			continue;
		}
		if (f.stage == 0) {
			tl_in__operands(in, fi);
			if (in->ev.items[fi].stage == 10) {
				/* A comprehension: save the state, then its first iterable. */
				TlState snap;
				tl_state_init(&snap);
				tl_state_copy(&snap, &in->st);
				tl_array_push(&in->snaps, snap);
				in->ev.items[fi].aux = in->snaps.size - 1;
				in->ev.items[fi].base = in->vs.size;
				int32_t cl = tl_in__clause(in, f.n, 0);
				if (cl < 0) {
					in->ev.items[fi].stage = 99;
					continue;
				}
				in->ev.items[fi].stage = 11 + (uint32_t)cl;
				tl_in__push_ev(in, tl_tree_field(ts_node_named_child(f.n, (uint32_t)cl), sy->f_right));
			}
			continue;
		}
		if (f.stage >= 11 && f.stage < 99) {
			/* An iterable is done: bind its clause's targets, then the
			 * next clause, or the body. */
			uint32_t cl = f.stage - 11;
			TlVal it = tl_array_pop(&in->vs);
			TSNode clause = ts_node_named_child(f.n, cl);
			TlVal e = tl_val_element(&in->m->pool, &it);
			if (tl_val_is_bot(&e))
				e = tl_in__top();
			tl_in__flow_part(in, &e, &it);
			tl_in__host_elem(&e, &it);
			tl_in__fresh_part(&e, &it);
			tl_in__bind(in, tl_tree_field(clause, sy->f_left), &e);
			int32_t next = tl_in__clause(in, f.n, cl + 1);
			if (next >= 0) {
				in->ev.items[fi].stage = 11 + (uint32_t)next;
				tl_in__push_ev(in, tl_tree_field(ts_node_named_child(f.n, (uint32_t)next), sy->f_right));
			} else {
				in->ev.items[fi].stage = 100;
				tl_in__push_ev(in, tl_tree_field(f.n, sy->f_body));
			}
			continue;
		}
		if (f.stage == 99 || f.stage == 100) {
			TlVal body = f.stage == 100 ? tl_array_pop(&in->vs) : tl_in__top();
			TlState *snap = &in->snaps.items[f.aux];
			tl_state_copy(&in->st, snap);
			tl_state_release(snap);
			in->snaps.size--;
			tl_in__mode_replay(in);
			TlVal r = tl_val_container(&in->m->pool, &body);
			in->ev.size--;
			tl_in__record(in, f.n, &r);
			tl_array_push(&in->vs, r);
			continue;
		}
		if (f.stage == 200) {
			/* A conditional expression's `a` and test are done: its
			 * `else` arm where the test fails. */
			TlState snap;
			tl_state_init(&snap);
			tl_state_copy(&snap, &in->st);
			tl_array_push(&in->snaps, snap);
			in->ev.items[fi].aux = in->snaps.size - 1;
			in->ev.items[fi].stage = 201;
			tl_in__narrow_not(in, &in->st, ts_node_named_child(f.n, 1));
			tl_in__push_ev(in, ts_node_named_child(f.n, 2));
			continue;
		}
		if (f.stage == 201) {
			/* ... and the state before it back: the narrowing holds in
			 * the arm only (what the arm binds, a walrus, is not kept) */
			TlState *snap = &in->snaps.items[f.aux];
			tl_state_copy(&in->st, snap);
			tl_state_release(snap);
			in->snaps.size--;
			in->ev.items[fi].stage = 1;
			f.stage = 1;
		}
		/* stage 1: the operands are on the value stack */
		uint32_t nv = in->vs.size - f.base;
		TlVal ops[64];
		uint32_t k = nv < 64 ? nv : 64;
		if (k)
			memcpy(ops, in->vs.items + f.base, k * sizeof *ops);
		in->vs.size = f.base;
		in->path_read = false;
		TlVal r = tl_in__compute(in, f.n, ops, k);
		{
			/* A constant only from the function's own code (consts.c):
			 * not a global, an object's attribute, an element read out
			 * of a container, a call's result. */
			TSSymbol rs = ts_node_symbol(f.n);
			if (rs == in->sy->call ||
			    ((rs == in->sy->identifier || rs == in->sy->attribute || rs == in->sy->subscript) &&
			     !in->path_read))
				r.cst = 0;
			tl_in__const_expr(in, f.n, ops, k, &r);
		}
		tl_in__host_expr(in, f.n, ops, k, &r);
		tl_in__fresh_expr(in, f.n, ops, k, &r);
		if (k && ts_node_symbol(f.n) == in->sy->subscript)
			tl_in__prov_subscript(in, f.n, &ops[0], &r);
		tl_in__flow_expr(in, f.n, ops, k, &r);
		in->ev.size--;
		tl_in__record(in, f.n, &r);
		tl_array_push(&in->vs, r);
	}
	TlVal out = in->vs.size > vs0 ? in->vs.items[in->vs.size - 1] : tl_in__top();
	in->vs.size = vs0;
	return out;
}
