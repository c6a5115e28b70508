/* Whether a value requires grad (TlVal.nograd), and whether a forward
 * records a graph: the answer to "is this evaluation forward worth a
 * no_grad block?" (TL102) and "did this tensor need freezing?" (TL211).
 *
 * A value is known not to require grad (nograd 1) when, on every path:
 * - it is a Python number, string, bool or None (value.c);
 * - a call of the table's set new-leaf makes it (torch.zeros, torch.randn,
 *   torch.tensor) without a requires_grad argument, or with a literal
 *   False; a legacy typed constructor of literal data
 *   (`torch.FloatTensor([1, 2])`); an nn.Parameter built with
 *   requires_grad=False;
 * - it is computed from such values: arithmetic (eval.c), a method the
 *   table says keeps its receiver (`.float()`, `.view()`), a torch
 *   function of them (`torch.cat`, `F.relu`), a forward of a module that
 *   holds no parameters; or a method that breaks the graph (`.detach()`,
 *   `.item()`); or grad-disabled code makes a tensor.
 * A store can undo it: `x.requires_grad_()`, `x.requires_grad = ...`, an
 * in-place method (`x.add_(w)`) or an element store (`x[i] = w`) of a
 * value that may require grad.
 *
 * A module is known to hold no parameter that requires grad when it is
 * a layer of the table's set parameter-free (nn.Dropout, nn.ReLU,
 * pooling), an embedding of set frozen (`nn.Embedding.from_pretrained`
 * without freeze=False), a module after `.requires_grad_(False)`, or an
 * instance of a class of the project whose summary says so
 * (holdsnone.c) and that no store from outside gave a module or a
 * parameter (`net.head = nn.Linear(...)`); or, for a name bound once to
 * a construction of such a class, whose constructor holds none under
 * the constants that construction passes (`Quantizer(4)` selecting
 * `nn.Identity()`).
 *
 * Owns: the transfer of TlVal.nograd at calls and stores,
 * tl_model_forward_graph and tl_model_forward_no_graph. */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "model/apitable.h"

#include "model/interp_internal.h"
#include "syntax/walk.h"

/* ---- arguments ------------------------------------------------------------- */

/* What keyword argument `name` of call node `call` is: -1 absent, 0 a
 * literal False, 1 a literal True, 2 anything else; with `pos` >= 0, the
 * positional argument at that index counts as the keyword. */
static int tl_in__kw_bool(const TlIndex *idx, TSNode call, const char *name, int pos)
{
	const TlSyms *sy = tl_syms();
	TSNode args = tl_tree_field(call, sy->f_arguments);
	if (ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list)
		return -1;
	uint32_t count = ts_node_named_child_count(args);
	int at = 0;
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		TSSymbol s = ts_node_symbol(a);
		TSNode v = { 0 };
		if (s == sy->comment)
			continue;
		if (s == sy->list_splat || s == sy->dictionary_splat)
			return 2;
		if (s == sy->keyword_argument) {
			uint32_t len = 0;
			const char *t = tl_index_text(idx, tl_tree_field(a, sy->f_name), &len);
			if (t && len == strlen(name) && memcmp(t, name, len) == 0)
				v = tl_index_unparen(tl_tree_field(a, sy->f_value));
		} else if (at++ == pos) {
			v = tl_index_unparen(a);
		}
		if (ts_node_is_null(v))
			continue;
		TSSymbol vs = ts_node_symbol(v);
		return vs == sy->false_ ? 0 : vs == sy->true_ ? 1 : 2;
	}
	return -1;
}

/* True when every argument of `call` is literal data: numbers, lists and
 * tuples of them. */
static bool tl_in__literal_args(TSNode call)
{
	const TlSyms *sy = tl_syms();
	TSNode args = tl_tree_field(call, sy->f_arguments);
	if (ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list)
		return false;
	TSTreeCursor cur = ts_tree_cursor_new(args);
	bool ok = true, descend = true;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(x);
		if (!ts_node_is_named(x) || ts_node_eq(x, args) || s == sy->comment)
			continue;
		ok = s == sy->list || s == sy->tuple || s == sy->integer || s == sy->float_ ||
		     s == sy->unary_operator || s == sy->true_ || s == sy->false_;
	} while (ok && tl_walk_next(&cur, args, descend));
	ts_tree_cursor_delete(&cur);
	return ok;
}

/* True when `call` has a `*args` or `**kwargs` argument. */
static bool tl_in__splat(TSNode call)
{
	const TlSyms *sy = tl_syms();
	TSNode args = tl_tree_field(call, sy->f_arguments);
	if (ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list)
		return true;
	uint32_t count = ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count; i++) {
		TSSymbol s = ts_node_symbol(ts_node_named_child(args, i));
		if (s == sy->list_splat || s == sy->dictionary_splat)
			return true;
	}
	return false;
}

/* Whether value `v` (of pool `p`) requires no grad: its own flag, or of a
 * container every element's and position's. */
static bool tl_in__val_nograd(const TlValPool *p, const TlVal *v)
{
	if (v->kind != TL_VK_CONTAINER)
		return v->nograd;
	if (v->elem >= 0 && !p->vals.items[v->elem].nograd)
		return false;
	for (int32_t k = v->parts; k >= 0; k = p->vals.items[k].next)
		if (!p->vals.items[k].nograd)
			return false;
	return true;
}

/* The flag of value `v` as a set of its function's parameters
 * (tl_val_ng): of a container, of every element and position too. */
int32_t tl_in__val_ng(const TlValPool *p, const TlVal *v)
{
	if (v->kind != TL_VK_CONTAINER)
		return tl_val_ng(v);
	int32_t ng = 0;
	if (v->elem >= 0)
		ng = tl_val_ng_and(ng, tl_val_ng(&p->vals.items[v->elem]));
	for (int32_t k = v->parts; k >= 0 && ng >= 0; k = p->vals.items[k].next)
		ng = tl_val_ng_and(ng, tl_val_ng(&p->vals.items[k]));
	return ng;
}

static int32_t tl_in__all_ng(const TlValPool *p, const TlVal *args, uint32_t nargs)
{
	int32_t ng = 0;
	for (uint32_t i = 0; i < nargs && ng >= 0; i++)
		ng = tl_val_ng_and(ng, tl_in__val_ng(p, &args[i]));
	return ng;
}

/* The row of a torch.nn layer: `torch.nn.modules.activation.ReLU` is
 * `torch.nn.ReLU`. */
const struct TlApiRow *tl_in__layer_row(const char *q)
{
	const TlApiRow *r = tl_api_qualified(q);
	if (r || strncmp(q, "torch.nn.", 9) != 0)
		return r;
	const char *last = strrchr(q, '.');
	char buf[128];
	int n = snprintf(buf, sizeof buf, "torch.nn.%s", last + 1);
	return n > 0 && (size_t)n < sizeof buf ? tl_api_qualified(buf) : NULL;
}

/* Sets the flag of the value path `expr` names holds, in place (no store:
 * the object is the same). */
void tl_in__set_path_nograd(In *in, TSNode expr, uint8_t nograd)
{
	TlPath p;
	if (!tl_path_of(&in->m->names, in->idx, expr, &p))
		return;
	const TlVal *old = tl_state_get(&in->st, &p);
	if (old && (old->nograd != nograd || old->pnograd)) {
		tl_state_set_nograd(&in->st, &p, nograd);
	} else if (!old && nograd) {
		/* a module no slot holds (a global a function freezes:
		 * `net.requires_grad_(False)`): what it reads, frozen here */
		TlVal v = tl_in__unbound(in, expr);
		if (v.kind == TL_VK_MODULE || v.kind == TL_VK_WRAPPER || (v.kind == TL_VK_TOP && v.wrap)) {
			v.nograd = v.kind == TL_VK_MODULE ? nograd : TL_VNOGRAD_FROZEN;
			v.pnograd = 0;
			tl_state_set(&in->st, &p, &v);
		}
	}
}

/* ---- calls ------------------------------------------------------------------ */

void tl_in__grad_call(In *in, TSNode n, const TlCall *c, const TlVal *fn, const TlVal *callee, const TlVal *args,
		      uint32_t nargs, TlVal *r)
{
	const TlValPool *pool = &in->m->pool;
	bool method = c->receiver.id != NULL;
	bool leaf_asked = false; /* a leaf that requires grad, whatever the grad mode */
	const TlApiRow *q = c->qname ? tl_in__layer_row(c->qname) : NULL;
	if (q && (q->sets & TL_APIS_NEW_LEAF)) {
		int rg = tl_in__kw_bool(in->idx, n, "requires_grad", -1);
		r->nograd = rg <= 0 && !(rg == -1 && tl_in__splat(n));
		leaf_asked = !r->nograd;
	} else if (q && (q->sets & TL_APIS_TENSOR_CLASS) && strncmp(c->qname, "torch.nn.", 9) != 0) {
		/* torch.FloatTensor([[2, 1], [-3, -2]]): a new leaf, never requiring grad */
		r->nograd = tl_in__literal_args(n);
	} else if (q && (q->sets & TL_APIS_TENSOR_CLASS) && r->kind == TL_VK_PARAMETER) {
		/* nn.Parameter(t, requires_grad=False) */
		r->nograd = tl_in__kw_bool(in->idx, n, "requires_grad", 1) == 0;
		leaf_asked = !r->nograd;
	} else if (q && q->kind == TL_APIK_MODULE && (q->sets & TL_APIS_PARAMETER_FREE)) {
		r->nograd = 1;
	} else if (q && (q->sets & TL_APIS_FROZEN)) {
		int fr = tl_in__kw_bool(in->idx, n, "freeze", 1);
		r->nograd = fr == -1 ? !tl_in__splat(n) : fr == 1;
	} else if (!method && c->qname && q && (q->roles & TL_APIR_COPY)) {
		/* a copy holds what its argument holds (r is the argument) */
	} else if ((!method || (fn->kind == TL_VK_TOP && fn->ref < 0 && !fn->pnograd && !fn->nograd)) && c->qname &&
		   strncmp(c->qname, "torch.", 6) == 0 &&
		   (strncmp(c->qname, "torch.nn.", 9) != 0 || strncmp(c->qname, "torch.nn.functional.", 20) == 0) &&
		   (r->kind == TL_VK_TENSOR || r->kind == TL_VK_NUMBER || r->kind == TL_VK_BOOL)) {
		/* torch.cat(xs), F.relu(x): of its operands (`torch.sqrt` is
		 * called through the module's name: a function, no method) */
		tl_val_set_ng(r, (q && q->graph == TL_APIG_BREAKS) ? 0
				 : tl_in__splat(n)			 ? -1
									 : tl_in__all_ng(pool, args, nargs));
	} else if (method && c->method && strcmp(c->method, "requires_grad_") == 0) {
		/* x.requires_grad_(), model.requires_grad_(False): the receiver too */
		int rg = tl_in__kw_bool(in->idx, n, "requires_grad", 0);
		bool off = rg == 0;
		/* a wrapper, or a module on some paths and its wrapper on the
		 * others (⊤ with wrap): frozen as the module it runs */
		bool wrapped = fn->kind == TL_VK_WRAPPER || (fn->kind == TL_VK_TOP && fn->wrap);
		if (fn->kind == TL_VK_TENSOR || fn->kind == TL_VK_PARAMETER || fn->kind == TL_VK_MODULE ||
		    fn->kind == TL_VK_TOP || wrapped) {
			r->nograd = off && (fn->kind != TL_VK_TOP || wrapped);
			if (r->nograd && ((fn->kind == TL_VK_MODULE && fn->ref >= 0) || wrapped))
				r->nograd = TL_VNOGRAD_FROZEN; /* whatever its class holds */
			/* `net.eval().requires_grad_(False)`: the module `net` is */
			TSNode recv = tl_index_unparen(c->receiver);
			for (int hops = 0; hops < 4 && ts_node_symbol(recv) == in->sy->call; hops++) {
				const TlCall *h = tl_index_call_at(in->idx, recv);
				const TlApiRow *hr = h && h->method && h->receiver.id ? tl_api_method(h->method) : NULL;
				if (!hr || hr->graph != TL_APIG_KEEPS || !(hr->roles & (TL_APIR_RESHAPE | TL_APIR_MODE)))
					break;
				recv = tl_index_unparen(h->receiver);
			}
			tl_in__set_path_nograd(in, recv, r->nograd);
		}
		leaf_asked = !off;
	} else if (method && c->method && (fn->kind == TL_VK_TENSOR || fn->kind == TL_VK_PARAMETER ||
					   (fn->kind == TL_VK_MODULE && fn->ref < 0) ||
					   (fn->kind == TL_VK_TOP && fn->ref < 0 && (fn->pnograd || fn->nograd)))) {
		/* A tensor's method (a library module's: `.eval()`, `.to()`; of
		 * a parameter, as the tensor a caller hands would). */
		const TlApiRow *row = tl_api_method(c->method);
		size_t ml = strlen(c->method);
		bool in_place = ml > 1 && c->method[ml - 1] == '_' && c->method[ml - 2] != '_';
		int32_t with = tl_in__splat(n) ? -1 : tl_val_ng_and(tl_val_ng(fn), tl_in__all_ng(pool, args, nargs));
		if (row && row->graph == TL_APIG_BREAKS && fn->kind != TL_VK_MODULE)
			tl_val_set_ng(r, 0);
		else if (row && row->graph == TL_APIG_KEEPS && (row->roles & (TL_APIR_RESHAPE | TL_APIR_MODE)))
			tl_val_set_ng(r, tl_val_ng(fn)); /* `.to(device)`, `.view(b, -1)`, `.eval()` */
		else if (row && row->graph == TL_APIG_KEEPS)
			tl_val_set_ng(r, with);
		else if (in_place && fn->kind == TL_VK_TENSOR)
			tl_val_set_ng(r, with);
		else if (!row && fn->kind != TL_VK_MODULE && !in_place &&
			 tl_in__kw_bool(in->idx, n, "requires_grad", -1) == -1)
			tl_val_set_ng(r, with); /* `basis.matmul(mel)`: of its operands */
		else
			tl_val_set_ng(r, -1);
		/* `buf.add_(w)`, `buf.copy_(w)`: the receiver is what it computed */
		if (in_place && fn->nograd && !r->nograd)
			tl_in__set_path_nograd(in, c->receiver, false);
	}
	/* `self.register_buffer("basis", t)`: the attribute holds a buffer,
	 * which requires grad as `t` does (nothing else of it is kept: its
	 * reads stay as they were, eval.c) */
	if (method && c->method && in->cls >= 0 && nargs >= 2 && strcmp(c->method, "register_buffer") == 0 &&
	    (tl_api_method_sets(c->method) & TL_APIS_REGISTERS_STATE)) {
		TSNode recv = tl_index_unparen(c->receiver);
		TSNode al = tl_tree_field(n, in->sy->f_arguments);
		TSNode name = ts_node_is_null(al) ? al : tl_index_unparen(ts_node_named_child(al, 0));
		TlPath rp;
		uint32_t len = 0;
		const char *t = !ts_node_is_null(name) && ts_node_symbol(name) == in->sy->string
					? tl_index_text(in->idx, name, &len) : NULL;
		if (t && len > 2 && (t[0] == '"' || t[0] == '\'') && t[len - 1] == t[0] &&
		    !memchr(t + 1, t[0], len - 2) && tl_path_of(&in->m->names, in->idx, recv, &rp) &&
		    rp.root == in->self_id && rp.n == 0) {
			TlVal bv = tl_val_of(TL_VK_TOP, TL_VG_NONE);
			tl_val_set_ng(&bv, tl_in__val_ng(pool, &args[1]));
			tl_in__ng_store(in, &bv);
			int32_t id = tl_path_intern(&in->m->names, t + 1, len - 2);
			if (id >= 0)
				tl_model__store_buffer(in->m, in->cls, id, bv.nograd != 0);
		}
	}
	/* setattr(net, name, layer): what the object holds is not known */
	if (!method && c->method && !c->qname && strcmp(c->method, "setattr") == 0) {
		TSNode al = tl_tree_field(n, in->sy->f_arguments);
		if (!ts_node_is_null(al) && ts_node_named_child_count(al))
			tl_in__set_path_nograd(in, ts_node_named_child(al, 0), false);
	}
	/* A forward of a library module that holds no parameters on inputs
	 * that require no grad. */
	const TlVal *mod = method && c->method && strcmp(c->method, "forward") == 0 ? fn : callee;
	if (mod && mod->kind == TL_VK_MODULE && mod->ref < 0 && mod->nograd && (r->made & TL_VM_FORWARD))
		tl_val_set_ng(r, tl_in__splat(n) ? -1 : tl_in__all_ng(pool, args, nargs));
	/* Grad-disabled code makes tensors that require no grad (a leaf asked
	 * to, or a parameter, still does). */
	if (in->st.grad == TL_MGRAD_OFF && !leaf_asked && (r->kind == TL_VK_TENSOR || r->kind == TL_VK_NUMBER))
		tl_val_set_ng(r, 0);
}

void tl_in__grad_store(In *in, TSNode target, const TlVal *v)
{
	const TlSyms *sy = in->sy;
	TSSymbol s = ts_node_symbol(target);
	TSNode obj = tl_index_unparen(tl_tree_field(target, s == sy->attribute ? sy->f_object : sy->f_value));
	if (ts_node_is_null(obj))
		return;
	TlPath p;
	if (!tl_path_of(&in->m->names, in->idx, obj, &p))
		return;
	const TlVal *old = tl_state_get(&in->st, &p);
	uint32_t len = 0;
	const char *t = s == sy->attribute ? tl_index_text(in->idx, tl_tree_field(target, sy->f_attribute), &len) : NULL;
	/* `p.requires_grad = False` of a tensor or a parameter (a loop over
	 * a module's parameters: what freezes the module, modes.c) */
	TSNode asg = t ? tl_index_parent(in->idx, target) : (TSNode){ 0 };
	if (old && t && len == 13 && memcmp(t, "requires_grad", 13) == 0 && !ts_node_is_null(asg) &&
	    ts_node_symbol(asg) == sy->assignment && ts_node_eq(tl_tree_field(asg, sy->f_left), target) &&
	    ts_node_symbol(tl_index_unparen(tl_tree_field(asg, sy->f_right))) == sy->false_ &&
	    (old->kind == TL_VK_TENSOR || old->kind == TL_VK_PARAMETER)) {
		if (!old->nograd)
			tl_state_set_nograd(&in->st, &p, 1);
		return;
	}
	if (!old || tl_val_ng(old) < 0)
		return;
	bool undo;
	if (s == sy->attribute) {
		/* `x.requires_grad = ...`; `net.head = nn.Linear(...)` */
		undo = (t && len == 13 && memcmp(t, "requires_grad", 13) == 0) ||
		       (old->kind == TL_VK_MODULE && !tl_in__val_nograd(&in->m->pool, v));
	} else {
		/* `x[i] = w` */
		int32_t ng = tl_val_ng_and(tl_val_ng(old), tl_in__val_ng(&in->m->pool, v));
		if (ng > 0 && ng != old->pnograd) {
			/* `grid[0] = x` of a parameter: now on its flag too */
			tl_state_set_ng(&in->st, &p, ng);
			return;
		}
		undo = ng < 0;
	}
	if (undo)
		tl_state_set_nograd(&in->st, &p, false);
}

/* ---- the question --------------------------------------------------------------- */

/* True when the result of `call` goes, through methods that keep its
 * history (`.cpu()`, `.squeeze()`) and subscripts, into a method that
 * raises on a tensor that requires grad (`aug(x).numpy()`, called with no
 * argument): the code runs only where that result requires none. At most
 * TL_MODEL_CHAIN_STEPS methods and subscripts are followed. */
static bool tl_model__result_needs_no_grad(const TlIndex *idx, TSNode call)
{
	const TlSyms *sy = tl_syms();
	TSNode n = call;
	for (int step = 0; step < TL_MODEL_CHAIN_STEPS; step++) {
		TSNode p = ts_node_parent(n);
		if (ts_node_is_null(p))
			return false;
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->parenthesized_expression || (s == sy->subscript && ts_node_eq(tl_tree_field(p, sy->f_value), n))) {
			n = p;
			continue;
		}
		if (s != sy->attribute || !ts_node_eq(tl_tree_field(p, sy->f_object), n))
			return false;
		TSNode c = ts_node_parent(p);
		if (ts_node_is_null(c) || ts_node_symbol(c) != sy->call || !ts_node_eq(tl_tree_field(c, sy->f_function), p))
			return false;
		char name[64];
		uint32_t len = 0;
		const char *t = tl_index_text(idx, tl_tree_field(p, sy->f_attribute), &len);
		if (!t || len >= sizeof name)
			return false;
		memcpy(name, t, len);
		name[len] = '\0';
		/* Only a bare `.numpy()`: `.numpy(force=True)` detaches instead of
		 * raising, so the forward before it did record a graph. */
		if (tl_api_method_sets(name) & TL_APIS_NEEDS_NO_GRAD)
			return ts_node_named_child_count(tl_tree_field(c, sy->f_arguments)) == 0;
		const TlApiRow *r = tl_api_method(name);
		if (!r || r->graph != TL_APIG_KEEPS)
			return false;
		n = c;
	}
	return false;
}

/* The flag of parameter `k` of function `f` of `idx` at its call sites in
 * the project (tl_model_param_args): 0 every site hands a value that
 * requires no grad, 1 some site may hand one that does, -1 no site tells
 * (none is known: a registry builds the class, other code calls it). */
static int tl_in__param_flag(const TlIndex *idx, int32_t f, uint32_t k)
{
	const TlFunc *fn = &idx->funcs.items[f];
	if (k >= fn->params.size)
		return 1;
	const TlParamArg *args = NULL;
	uint32_t n = 0;
	if (!tl_model_param_args(idx, &idx->bindings.items[fn->params.items[k]], &args, &n) || n == 0)
		return -1;
	/* The arguments are copied (reading another module's values may ask
	 * this model's summaries again, which may grow the table `args` points
	 * into), and another module's model is read under the project's lock,
	 * as tl_model_handed_wrap does. */
	TlParamArg *own = tl_malloc(n * sizeof *own);
	memcpy(own, args, n * sizeof *own);
	int flag = 0;
	for (uint32_t i = 0; i < n && !flag; i++) {
		bool other = own[i].mod != idx && idx->imports;
		if (other)
			tl_model__enter(idx);
		TlVal v;
		const TlModel *am = tl_model_of(own[i].mod);
		if (!am || !tl_model_value(own[i].mod, own[i].arg, &v) || tl_in__val_ng(&am->pool, &v) != 0)
			flag = 1;
		if (other)
			tl_model__leave(idx);
	}
	tl_free(own);
	return flag;
}

/* Input `v` (of m's pool) of a forward call in function `f`: 0 requires
 * no grad, 1 may require it, -1 not known: it follows the parameters of
 * `f`, a module's forward, whose flags no call site in the project tells
 * (docs/semantic-model.md, "What requires grad"). */
static int tl_in__input_flag(const TlIndex *idx, const TlModel *m, int32_t f, const TlVal *v)
{
	int32_t ng = tl_in__val_ng(&m->pool, v);
	if (ng <= 0)
		return ng == 0 ? 0 : 1;
	if (f < 0)
		return 1;
	const TlFunc *fn = &idx->funcs.items[f];
	if (fn->cls < 0 || strcmp(fn->name, "forward") != 0 ||
	    !(idx->classes.items[fn->cls].is_module || tl_model_class_module(idx, fn->cls)))
		return 1;
	int flag = 0;
	for (uint32_t k = 0; k < 16 && flag != 1; k++) {
		if (!(ng & (1 << k)))
			continue;
		int pf = tl_in__param_flag(idx, f, k);
		if (pf != 0)
			flag = pf;
	}
	return flag;
}

/* The call that built the module instance `expr` names (of function
 * `f`'s scope, or the module's): a name bound once there, to a
 * construction that builds class `ref` of `mod` (through methods that
 * return their receiver: `Net(4).eval()`); into *at, *caller. */
static bool tl_in__built_at(const TlIndex *idx, TSNode expr, const void *mod, int32_t ref, TSNode *at, int32_t *caller)
{
	const TlSyms *sy = tl_syms();
	expr = tl_index_unparen(expr);
	if (ts_node_is_null(expr) || ts_node_symbol(expr) != sy->identifier)
		return false;
	const TlBinding *b = tl_index_resolve_node(idx, expr);
	if (!b || b->kind != TL_BIND_ASSIGN || b->elem >= 0 || b->cls >= 0)
		return false;
	const TlIntArray *all = tl_index_bindings_of(idx, b->func, b->name);
	if (!all || all->size != 1)
		return false;
	TSNode v = tl_index_unparen(b->value);
	for (int hops = 0; hops < 4 && !ts_node_is_null(v) && ts_node_symbol(v) == sy->call; hops++) {
		const TlCall *h = tl_index_call_at(idx, v);
		const TlApiRow *hr = h && h->method && h->receiver.id ? tl_api_method(h->method) : NULL;
		if (!hr || hr->graph != TL_APIG_KEEPS || !(hr->roles & TL_APIR_MODE))
			break;
		v = tl_index_unparen(h->receiver);
	}
	TlVal cv;
	if (ts_node_is_null(v) || ts_node_symbol(v) != sy->call || !tl_model_value(idx, v, &cv) ||
	    cv.kind != TL_VK_MODULE || cv.ref != ref || cv.mod != mod)
		return false;
	*at = v;
	*caller = b->func;
	return true;
}

static int tl_in__forward_graph(const TlIndex *idx, TSNode call, bool method, bool follow);

/* True when expression `a` (of `idx`) is a name bound once in its
 * function to what a forward returns (or an item of it: `q, i = m(x)`)
 * that records no graph: nothing it returns requires grad. The producer's
 * own inputs are not followed further (one hop). */
static bool tl_in__made_without_graph(const TlIndex *idx, TSNode a)
{
	const TlSyms *sy = tl_syms();
	a = tl_index_unparen(a);
	if (ts_node_is_null(a) || ts_node_symbol(a) != sy->identifier)
		return false;
	const TlBinding *b = tl_index_resolve_node(idx, a);
	if (!b || b->kind != TL_BIND_ASSIGN || b->cls >= 0)
		return false;
	const TlIntArray *all = tl_index_bindings_of(idx, b->func, b->name);
	TSNode v = tl_index_unparen(b->value);
	if (!all || all->size != 1 || ts_node_is_null(v) || ts_node_symbol(v) != sy->call)
		return false;
	const TlCall *c = tl_index_call_at(idx, v);
	return c && (c->events & TL_EV_FORWARD) && tl_in__forward_graph(idx, v, false, false) == 0;
}

/* tl_model_forward_graph; with `method`, of a method of the module's
 * class called on it (`fsp.indices_to_codes(i)`: the module is the
 * receiver, and what the method returns says nothing of what it ran).
 * With `follow`, an input made by a forward that records no graph
 * requires none (tl_in__made_without_graph). */
static int tl_in__forward_graph(const TlIndex *idx, TSNode call, bool method, bool follow)
{
	const TlSyms *sy = tl_syms();
	call = tl_index_unparen(call);
	const TlCall *c = tl_index_call_at(idx, call);
	const TlModel *m = tl_model_of(idx);
	if (!c || !m || tl_in__splat(call) || (method && (!c->method || !c->receiver.id)))
		return 1;
	if (!method && tl_model__result_needs_no_grad(idx, call))
		return 0;
	/* The module: `m(x)`, `self.net(x)`, `m.forward(x)`. */
	TlVal mv = tl_val_bot();
	bool fwd = method || (c->method && c->receiver.id && strcmp(c->method, "forward") == 0);
	bool known_mv = tl_model_value(idx, fwd ? c->receiver : c->callee, &mv);
	/* a wrapper its code froze (or a module on some paths, its wrapper
	 * on the others): as a frozen module */
	bool frozen_wrap = known_mv && mv.nograd == TL_VNOGRAD_FROZEN &&
			   (mv.kind == TL_VK_WRAPPER || (mv.kind == TL_VK_TOP && mv.wrap));
	bool holds = !frozen_wrap && (!known_mv || mv.kind != TL_VK_MODULE || !mv.nograd ||
		     (mv.ref >= 0 && mv.nograd != TL_VNOGRAD_FROZEN &&
		      (!mv.mod || !tl_model__holds_none((TlModel *)m, (const TlIndex *)mv.mod, mv.ref))));
	/* A class whose parameters the constants of its construction decide
	 * (`Quantizer(4)`: `nn.Identity()` where no `dim` is given). */
	TSNode built;
	int32_t caller;
	if (holds && mv.kind == TL_VK_MODULE && mv.ref >= 0 && mv.mod && mv.nograd && mv.nograd != TL_VNOGRAD_FROZEN &&
	    tl_in__built_at(idx, fwd ? c->receiver : c->callee, mv.mod, mv.ref, &built, &caller))
		holds = !tl_model__site_holds_none((TlModel *)m, built, caller, (const TlIndex *)mv.mod, mv.ref);
	/* Its inputs: none requires grad; one not known (a forward's own
	 * parameter no call site tells of) leaves the answer not known. */
	int32_t f = tl_index_func_of(idx, call);
	int inputs = 0;
	bool history = false; /* an input known to carry history */
	TSNode args = tl_tree_field(call, sy->f_arguments);
	uint32_t count = ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count && inputs != 1; i++) {
		TSNode a = ts_node_named_child(args, i);
		TSSymbol s = ts_node_symbol(a);
		if (s == sy->comment)
			continue;
		if (s == sy->keyword_argument)
			a = tl_tree_field(a, sy->f_value);
		a = tl_index_unparen(a);
		s = ts_node_symbol(a);
		if (s == sy->integer || s == sy->float_ || s == sy->string || s == sy->true_ || s == sy->false_ ||
		    s == sy->none)
			continue;
		TlVal av;
		bool known = tl_model_value(idx, a, &av);
		int flag = known ? tl_in__input_flag(idx, m, f, &av) : 1;
		if (flag != 0 && follow && tl_in__made_without_graph(idx, a))
			continue;
		if (known && (av.graph == TL_VG_MUST || av.graph == TL_VG_MAY))
			history = true;
		if (flag != 0)
			inputs = flag;
	}
	/* A module its code froze (`requires_grad_(False)`, on it or on each
	 * of its parameters) records a graph only of an input that requires
	 * grad: one not known to leaves the answer not known. */
	if (inputs == 1 && !holds && mv.nograd == TL_VNOGRAD_FROZEN && !history)
		return -1;
	if (inputs == 1)
		return 1;
	/* a library's module that is no parameter-free layer holds parameters
	 * (torchvision's detector): it records a graph whatever its input */
	if (inputs == -1)
		return holds && mv.kind == TL_VK_MODULE && mv.ref < 0 && !mv.nograd ? 1 : -1;
	return holds ? 1 : 0;
}

int tl_model_forward_graph(const TlIndex *idx, TSNode call)
{
	return tl_in__forward_graph(idx, call, false, true);
}

int tl_model_method_graph(const TlIndex *idx, TSNode call)
{
	return tl_in__forward_graph(idx, call, true, true);
}

bool tl_model_forward_no_graph(const TlIndex *idx, TSNode call)
{
	return tl_model_forward_graph(idx, call) == 0;
}
