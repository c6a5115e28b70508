/* The class summary of requiresgrad.c: class `cls` of module `mod` is an
 * nn.Module that holds no parameter that requires grad (docs/semantic-model.md,
 * "Requires-grad").
 *
 * What a class says of itself (tl_hn__local): it is an nn.Module, each of
 * its bases is nn.Module or a class of the project; no method calls
 * register_parameter, add_module or setattr; what each method stores into
 * `self.x` holds none (a number, a string, a tensor that requires no grad,
 * a parameter-free module, a module of a class of the project, a plain
 * parameter of the method); a store below an attribute
 * (`self.emb.weight = ...`) stores a value that requires no grad. What it
 * leaves to other classes (its bases, the classes of the modules it
 * holds, in its module or in another of the project) are the edges of the
 * project's class graph.
 *
 * The summary is the least fixpoint over that graph, from the class asked
 * about: the classes it reaches are collected breadth first (each once, at
 * most TL_HN_CLASSES), then a worklist from those that depend on no other
 * marks a class holding none once every class it depends on does (a
 * count per class of the edges still waiting). A cycle (a class that holds
 * an instance of itself, a base cycle) stays "not known to hold none".
 * Each class's answer is kept in its module's model (TlModel.holds_none),
 * unless a model was not at hand or the bound was reached.
 *
 * The same fixpoint answers a stricter question, "holds no state"
 * (tl_model__holds_no_state): no parameter or buffer at all, frozen or
 * not, and no layer whose train/eval mode matters. Each store into
 * `self.x` then keeps a layer of the table's parameter-free set other than
 * dropout, a number, a flag, a plain tensor (an attribute, not a buffer),
 * an instance of a class of the project (an edge), or a plain parameter;
 * no method calls a method of set registers-state (`register_buffer`).
 * Registering an instance of such a class changes nothing
 * (rules/checks/TL214.c).
 *
 * A parameter of a method is plain (a number or a flag, never a module)
 * when it has a literal default, a plain annotation, or when the method
 * hands it to the constructor of a layer of the table's parameter-free
 * set (`nn.AvgPool1d(kernel_size=kernel_size)`): those take sizes and
 * flags only.
 *
 * The same question of one construction (tl_model__site_holds_none):
 * the class's constructor read under the constants the call passes
 * (sitectx.c): a store or a registering call under a test they decide
 * against does not count, a store is judged by what it keeps (None, a
 * constant, a parameter-free layer, nn.Parameter of a constant
 * requires_grad=False, the operand of a conditional expression they
 * select), and a construction of a class of the project it makes is
 * judged in turn under its own constants: a breadth-first list of at
 * most TL_HN_SITES constructions. Bases and the classes attributes hold
 * otherwise are asked of their summaries.
 *
 * Owns: tl_model__holds_none, tl_model__holds_no_state,
 * tl_model__site_holds_none, tl_model_makes_stateless_module. */
#include <string.h>

#include "base/alloc.h"
#include "model/apitable.h"
#include "model/interp_internal.h"
#include "syntax/walk.h"

/* Classes one summary collects, and values one attribute check reads. */
#define TL_HN_CLASSES 256
#define TL_HN_VALUES 4096

/* A class of the project to summarise: its module, that module's model,
 * its index there. */
typedef struct TlHnNode {
	const TlIndex *mod;
	const TlModel *om;
	int32_t cls;
} TlHnNode;

typedef TlArray(TlHnNode) TlHnNodes;

/* A construction to judge under its constants (tl_model__site_holds_none):
 * the call (of module `cmod`, in its function `caller`, whose parameters
 * hold `outer` when `has_outer`), the class it builds. */
typedef struct TlHnSite {
	const TlIndex *cmod;
	TSNode call;
	int32_t caller;
	bool has_outer;
	uint16_t outer[TL_MODEL_CTX_PARAMS];
	const TlIndex *mod;
	int32_t cls;
} TlHnSite;

typedef TlArray(TlHnSite) TlHnSites;

/* The constants a class is judged under: its constructor `init` and what
 * its parameters hold; the constructions of the project's classes its
 * stores make go to `sites`. */
typedef struct TlHnCtx {
	int32_t init;
	uint16_t p[TL_MODEL_CTX_PARAMS];
	TlHnSites *sites;
} TlHnCtx;

/* Constructions one question follows. */
#define TL_HN_SITES 32

/* True when a layer of the table's parameter-free set is the row of `q`
 * (dropout too when `dropout`). */
static bool tl_hn__free_layer(const char *q, bool dropout)
{
	const TlApiRow *r = q ? tl_in__layer_row(q) : NULL;
	return r && r->kind == TL_APIK_MODULE && (r->sets & TL_APIS_PARAMETER_FREE) &&
	       (dropout || !(r->sets & (TL_APIS_DROPOUT_MODULE | TL_APIS_MODE_DEPENDENT)));
}

/* True when parameter binding `b`'s function hands it, as it is, to the
 * constructor of a parameter-free layer (`nn.AvgPool1d(kernel_size=
 * kernel_size)`): an argument of those is a size or a flag. */
static bool tl_hn__sizes_a_layer(const TlIndex *mod, const TlBinding *b)
{
	const TlSyms *sy = tl_syms();
	const TlIntArray *calls = b->func >= 0 ? tl_index_scope_calls(mod, b->func) : NULL;
	for (uint32_t k = 0; calls && k < calls->size; k++) {
		const TlCall *c = &mod->calls.items[calls->items[k]];
		if (!tl_hn__free_layer(c->qname, true))
			continue;
		TSNode args = tl_tree_field(c->node, sy->f_arguments);
		uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
		for (uint32_t i = 0; i < count; i++) {
			TSNode a = ts_node_named_child(args, i);
			if (ts_node_symbol(a) == sy->keyword_argument)
				a = tl_tree_field(a, sy->f_value);
			a = tl_index_unparen(a);
			if (!ts_node_is_null(a) && ts_node_symbol(a) == sy->identifier &&
			    tl_index_resolve_node(mod, a) == b)
				return true;
		}
	}
	return false;
}

/* True when parameter binding `b` holds a plain value: a literal default
 * (`k=3`, `name="x"`, `eps=1e-8`), a default that is a name the module
 * binds once to a Python number (`kl=NAT` of `NAT = log(2)`), a plain
 * annotation (`n: int`), or a size handed to a parameter-free layer. */
bool tl_model__plain_param(const TlModel *m, const TlIndex *mod, const TlBinding *b)
{
	const TlSyms *sy = tl_syms();
	TSNode p = b->stmt, dflt = { 0 };
	if (ts_node_symbol(p) == sy->default_parameter || ts_node_symbol(p) == sy->typed_default_parameter)
		dflt = tl_index_unparen(tl_tree_field(p, sy->f_value));
	if (!ts_node_is_null(dflt)) {
		TSSymbol d = ts_node_symbol(dflt);
		if (d == sy->unary_operator && ts_node_named_child_count(dflt))
			d = ts_node_symbol(ts_node_named_child(dflt, 0));
		if (d == sy->integer || d == sy->float_ || d == sy->string || d == sy->true_ || d == sy->false_)
			return true;
		if (d == sy->identifier && m->globals_ready) {
			TlPath gp;
			const TlBinding *g = tl_index_resolve_node(mod, dflt);
			const TlVal *gv = g && g->func < 0 && tl_path_of((TlPathNames *)&m->names, mod, dflt, &gp)
						  ? tl_state_get(&m->globals, &gp) : NULL;
			if (gv && (gv->kind == TL_VK_NUMBER || gv->kind == TL_VK_BOOL || gv->kind == TL_VK_STRING))
				return true;
		}
	}
	uint32_t alen = 0;
	TSNode ann = ts_node_symbol(p) == sy->typed_parameter || ts_node_symbol(p) == sy->typed_default_parameter
			     ? tl_tree_field(p, sy->f_type) : (TSNode){ 0 };
	const char *a = ts_node_is_null(ann) ? NULL : tl_index_text(mod, ann, &alen);
	if (tl_api_builtin_sets_text(a, alen) & TL_APIS_PLAIN_TYPE) /* `bits: int` */
		return true;
	return tl_hn__sizes_a_layer(mod, b);
}

/* True when store `b` (`self.x = v`) keeps a plain value: literals and
 * plain parameters of its method, and arithmetic on them (`2 ** bits`). */
static bool tl_hn__plain_store(const TlModel *m, const TlIndex *mod, const TlBinding *b)
{
	const TlSyms *sy = tl_syms();
	TSNode v = tl_index_unparen(b->value);
	if (b->elem >= 0 || ts_node_is_null(v))
		return false;
	TSTreeCursor cur = ts_tree_cursor_new(v);
	bool ok = true, descend = true;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(x);
		descend = true;
		if (!ts_node_is_named(x) || s == sy->comment)
			continue;
		if (s == sy->identifier) {
			const TlBinding *pb = tl_index_resolve_node(mod, x);
			ok = pb && pb->kind == TL_BIND_PARAM && pb->func == b->func && tl_model__plain_param(m, mod, pb);
			continue;
		}
		ok = s == sy->binary_operator || s == sy->unary_operator || s == sy->parenthesized_expression ||
		     s == sy->integer || s == sy->float_ || s == sy->string || s == sy->true_ || s == sy->false_ ||
		     s == sy->none;
		descend = s != sy->string;
	} while (ok && tl_walk_next(&cur, v, descend));
	ts_tree_cursor_delete(&cur);
	return ok;
}

/* True when value `v` (of m's pool) held in an attribute of a module holds
 * no parameter that requires grad, the modules of the project's classes it
 * holds left to their summaries (appended to `deps`): every element of a
 * container, through a stack. */
static bool tl_hn__attr(const TlModel *m, const TlVal *v, TlHnNodes *deps)
{
	const TlValPool *p = &m->pool;
	TlArray(const TlVal *) todo;
	tl_array_init(&todo);
	tl_array_push(&todo, v);
	bool ok = true;
	for (uint32_t seen = 0; ok && todo.size; seen++) {
		const TlVal *x = tl_array_pop(&todo);
		if (seen >= TL_HN_VALUES) {
			ok = false;
			break;
		}
		switch (x->kind) {
		case TL_VK_NUMBER:
		case TL_VK_BOOL:
		case TL_VK_STRING:
		case TL_VK_NONE:
		case TL_VK_DEVICE:
		case TL_VK_FUNCTION:
		case TL_VK_CLASS:
		case TL_VK_ARRAY:
			break;
		case TL_VK_TENSOR:
			ok = x->nograd;
			break;
		case TL_VK_TOP:
			/* not known what, but known to require no grad (`None` or
			 * a tensor computed from the method's plain parameters) */
			ok = x->nograd && x->ref < 0;
			break;
		case TL_VK_MODULE:
			ok = x->nograd && (x->ref < 0 || x->mod);
			if (ok && x->ref >= 0)
				tl_array_push(deps, ((TlHnNode){ (const TlIndex *)x->mod, NULL, x->ref }));
			break;
		case TL_VK_CONTAINER:
			if (x->elem >= 0)
				tl_array_push(&todo, &p->vals.items[x->elem]);
			for (int32_t k = x->parts; k >= 0; k = p->vals.items[k].next)
				tl_array_push(&todo, &p->vals.items[k]);
			break;
		default:
			ok = false;
		}
	}
	tl_array_release(&todo);
	return ok;
}

/* True when store `b` (`self.x = v` in a method of a class whose model is
 * `om`) keeps no state: a parameter-free layer but dropout; or the
 * attribute (all its stores joined) holds a number, a flag, a string,
 * None, a plain tensor, a function or class, or `b` a plain parameter; an
 * instance of a class of the project is left to its summary (appended to
 * `deps`). */
static bool tl_hn__state_store(const TlModel *om, const TlIndex *mod, const TlBinding *b, TlHnNodes *deps)
{
	const TlSyms *sy = tl_syms();
	TSNode v = tl_index_unparen(b->value);
	if (b->elem >= 0 || ts_node_is_null(v))
		return false;
	if (ts_node_symbol(v) == sy->call) {
		const TlCall *c = tl_index_call_at(mod, v);
		if (c && tl_hn__free_layer(c->qname, false))
			return true;
	}
	/* the attribute's value, joined over its stores (a model read for
	 * its summaries keeps no value per expression) */
	const char *name = b->name + 5;
	int32_t id = tl_path_lookup(&om->names, name, strlen(name)), at;
	int32_t cls = b->func >= 0 ? mod->funcs.items[b->func].cls : -1;
	if (id < 0 || cls < 0 || !tl_scopemap_get(&om->attrs, (uint32_t)cls, (uint32_t)id, &at))
		return false;
	const TlVal *x = &om->pool.vals.items[at];
	switch (x->kind) {
	case TL_VK_NUMBER:
	case TL_VK_BOOL:
	case TL_VK_STRING:
	case TL_VK_NONE:
	case TL_VK_DEVICE:
	case TL_VK_FUNCTION:
	case TL_VK_CLASS:
	case TL_VK_TENSOR:
		return true;
	case TL_VK_MODULE:
		if (x->ref < 0 || !x->mod)
			return false;
		tl_array_push(deps, ((TlHnNode){ (const TlIndex *)x->mod, NULL, x->ref }));
		return true;
	case TL_VK_TOP:
		return tl_hn__plain_store(om, mod, b);
	default:
		return false;
	}
}

/* The class of the project call `call` of `mod` builds: into *cmod,
 * *cls; false when it builds none (a layer, a function's result). */
static bool tl_hn__built_class(TlModel *m, const TlIndex *mod, TSNode call, const TlIndex **cmod, int32_t *cls)
{
	const TlCall *c = tl_index_call_at(mod, call);
	if (!c || c->receiver.id)
		return false;
	TSNode callee = tl_index_unparen(c->callee);
	const TlBinding *b = !ts_node_is_null(callee) && ts_node_symbol(callee) == tl_syms()->identifier
				     ? tl_index_resolve_node(mod, callee) : NULL;
	if (b && b->kind == TL_BIND_CLASS && b->ref >= 0) {
		*cmod = mod;
		*cls = b->ref;
		return true;
	}
	TlVal v;
	if (!c->qname || !mod->imports || !tl_model__resolve_in(m, mod, c->qname, strlen(c->qname), &v) ||
	    v.kind != TL_VK_CLASS || v.ref < 0 || !v.mod)
		return false;
	*cmod = (const TlIndex *)v.mod;
	*cls = v.ref;
	return true;
}

/* The argument of call node `call` for keyword `name`, or at position
 * `pos`: its value's node, null when none (or a splat may pass it). */
static TSNode tl_hn__arg(const TlIndex *mod, TSNode call, const char *name, uint32_t pos)
{
	const TlSyms *sy = tl_syms();
	TSNode args = tl_tree_field(call, sy->f_arguments), none = { 0 };
	uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args), at = 0;
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		TSSymbol k = ts_node_symbol(a);
		if (k == sy->comment)
			continue;
		if (k == sy->list_splat || k == sy->dictionary_splat)
			return none;
		if (k == sy->keyword_argument) {
			if (tl_index_text_is(mod, tl_tree_field(a, sy->f_name), name))
				return tl_tree_field(a, sy->f_value);
		} else if (at++ == pos) {
			return a;
		}
	}
	return none;
}

/* True when store `b` (`self.x = v` in method `f` of `mod`) keeps, under
 * the constants `cx` (of the constructor only), None, a number, a
 * constant or arithmetic on constants (`d_model ** 0.5`), an
 * nn.Parameter whose requires_grad is a constant False, a parameter-free
 * layer or a construction of a class of the project (appended to
 * cx->sites, judged under the constants it passes); of `a if t else b`,
 * the operand a test the constants decide selects, else both. */
static bool tl_hn__site_store(TlModel *m, const TlIndex *mod, int32_t f, const TlBinding *b, TlHnCtx *cx)
{
	const TlSyms *sy = tl_syms();
	if (b->elem >= 0 || ts_node_is_null(b->value))
		return false;
	TSNode todo[8];
	uint32_t n = 0;
	bool ok = true;
	todo[n++] = tl_index_unparen(b->value);
	while (ok && n) {
		TSNode v = todo[--n];
		TSSymbol k = ts_node_is_null(v) ? 0 : ts_node_symbol(v);
		if (k == sy->conditional_expression && ts_node_named_child_count(v) == 3) {
			int t = f == cx->init ? tl_model__ctx_cond(m, mod, f, cx->p, ts_node_named_child(v, 1)) : -1;
			if (t < 0 && n + 2 > 8) {
				ok = false;
			} else {
				if (t != 0)
					todo[n++] = tl_index_unparen(ts_node_named_child(v, 0));
				if (t != 1)
					todo[n++] = tl_index_unparen(ts_node_named_child(v, 2));
			}
			continue;
		}
		/* None, or a constant of the construction (`self.dim = dim`) */
		if (k == sy->none || k == sy->integer || k == sy->float_ ||
		    (f == cx->init && tl_model__ctx_value(m, mod, f, cx->p, v)))
			continue;
		/* arithmetic on such constants (`d_model ** 0.5`): its operands */
		if (f == cx->init && (k == sy->binary_operator || k == sy->unary_operator ||
				      k == sy->parenthesized_expression)) {
			uint32_t kids = ts_node_named_child_count(v);
			if (!kids || n + kids > 8) {
				ok = false;
				continue;
			}
			for (uint32_t i = 0; i < kids; i++)
				todo[n++] = tl_index_unparen(ts_node_named_child(v, i));
			continue;
		}
		const TlCall *c = k == sy->call ? tl_index_call_at(mod, v) : NULL;
		if (!c) {
			ok = false;
			continue;
		}
		if (tl_hn__free_layer(c->qname, true))
			continue;
		/* nn.Parameter(w, requires_grad=trainable) of a constant False */
		if (f == cx->init && c->qname &&
		    (strcmp(c->qname, "torch.nn.Parameter") == 0 ||
		     strcmp(c->qname, "torch.nn.parameter.Parameter") == 0)) {
			TSNode rg = tl_hn__arg(mod, v, "requires_grad", 1);
			ok = !ts_node_is_null(rg) &&
			     tl_model__ctx_value(m, mod, f, cx->p, rg) == TL_VC(TL_VC_BOOL, 0);
			continue;
		}
		TlHnSite st = { mod, v, f, f == cx->init, { 0 }, NULL, -1 };
		if (f == cx->init)
			memcpy(st.outer, cx->p, sizeof st.outer);
		ok = tl_hn__built_class(m, mod, v, &st.mod, &st.cls);
		if (ok)
			tl_array_push(cx->sites, st);
	}
	return ok;
}

static bool tl_hn__torch_module(const char *q)
{
	return strcmp(q, "torch.nn.Module") == 0 || strcmp(q, "torch.nn.modules.module.Module") == 0;
}

/* What class `cls` of `mod` (whose model is `om`) says of itself: false
 * when it may hold a parameter (with `state`: any state) whatever the
 * other classes hold; else true, the classes it depends on appended to
 * `deps`. `asker` resolves the names of its bases. */
static bool tl_hn__local(TlModel *asker, const TlModel *om, const TlIndex *mod, int32_t cls, bool state,
			 TlHnNodes *deps, TlHnCtx *cx)
{
	const TlSyms *sy = tl_syms();
	if (cls < 0 || (uint32_t)cls >= mod->classes.size)
		return false;
	const TlClass *c = &mod->classes.items[cls];
	if (!c->is_module && !(mod->imports && tl_model__class_is_module(asker, mod, cls)))
		return false;
	TSNode sup = tl_tree_field(c->node, sy->f_superclasses);
	uint32_t nbase = 0, count = ts_node_is_null(sup) ? 0 : ts_node_named_child_count(sup);
	for (uint32_t k = 0; k < count; k++)
		nbase += ts_node_symbol(ts_node_named_child(sup, k)) != sy->keyword_argument;
	if (nbase != c->bases.size + c->base_qnames.size)
		return false;
	for (uint32_t i = 0; i < c->base_qnames.size; i++) {
		const char *q = c->base_qnames.items[i];
		if (!q)
			return false;
		if (tl_hn__torch_module(q))
			continue;
		/* a class of another module of the project */
		TlVal v;
		if (!mod->imports || !tl_model__resolve_in(asker, mod, q, strlen(q), &v) ||
		    v.kind != TL_VK_CLASS || v.ref < 0 || !v.mod)
			return false;
		tl_array_push(deps, ((TlHnNode){ (const TlIndex *)v.mod, NULL, v.ref }));
	}
	for (uint32_t i = 0; i < c->bases.size; i++)
		tl_array_push(deps, ((TlHnNode){ mod, NULL, c->bases.items[i] }));
	for (uint32_t f = 0; f < mod->funcs.size; f++) {
		if (mod->funcs.items[f].cls != cls)
			continue;
		if (!om->quiet)
			tl_model__ensure((TlModel *)om, (int32_t)f); /* computed on demand: no answer changes */
		const TlIntArray *calls = tl_index_scope_calls(mod, (int32_t)f);
		for (uint32_t k = 0; calls && k < calls->size; k++) {
			const TlCall *kc = &mod->calls.items[calls->items[k]];
			const char *name = kc->method;
			if (((tl_api_method_sets(name) | tl_api_builtin_sets(name)) &
			     (TL_APIS_REGISTERS | (state ? TL_APIS_REGISTERS_STATE : 0))) &&
			    !(cx && (int32_t)f == cx->init && !tl_model__ctx_runs(asker, mod, cx->init, cx->p, kc->node)))
				return false;
		}
		const TlIntArray *binds = tl_index_scope_binds(mod, (int32_t)f);
		for (uint32_t k = 0; binds && k < binds->size; k++) {
			const TlBinding *b = &mod->bindings.items[binds->items[k]];
			if (strncmp(b->name, "self.", 5) != 0)
				continue;
			/* a store the construction's constants never run */
			if (cx && (int32_t)f == cx->init && !tl_model__ctx_runs(asker, mod, cx->init, cx->p, b->stmt))
				continue;
			if (b->kind != TL_BIND_ASSIGN && b->kind != TL_BIND_AUG)
				return false;
			const char *x = b->name + 5;
			const char *dot = strchr(x, '.');
			if (state) {
				/* each store on its own: which layer it makes */
				if (dot || !tl_hn__state_store(om, mod, b, deps))
					return false;
				continue;
			}
			if (dot) {
				/* `self.emb.weight = nn.Parameter(w, requires_grad=False)` */
				int32_t at;
				TSNode v = tl_index_unparen(b->value);
				if (b->elem >= 0 || ts_node_is_null(v) ||
				    !tl_scopemap_get(&om->vals, ts_node_start_byte(v), ts_node_end_byte(v), &at) ||
				    !om->pool.vals.items[at].nograd)
					return false;
				continue;
			}
			int32_t id = tl_path_lookup(&om->names, x, strlen(x)), at;
			if (id < 0 || !tl_scopemap_get(&om->attrs, (uint32_t)cls, (uint32_t)id, &at))
				return false;
			const TlVal *av = &om->pool.vals.items[at];
			/* under a construction's constants, what this store keeps first */
			if (cx && tl_hn__site_store(asker, mod, (int32_t)f, b, cx))
				continue;
			uint32_t mark = deps->size;
			if (tl_hn__attr(om, av, deps))
				continue;
			deps->size = mark;
			/* `self.k = k` of a plain parameter: each store of it so */
			if (av->kind != TL_VK_TOP)
				return false;
			for (uint32_t j = 0; j < binds->size; j++) {
				const TlBinding *o = &mod->bindings.items[binds->items[j]];
				if (strcmp(o->name, b->name) == 0 && !tl_hn__plain_store(om, mod, o))
					return false;
			}
			for (uint32_t g = 0; g < mod->funcs.size; g++) {
				if (g == f || mod->funcs.items[g].cls != cls)
					continue;
				const TlIntArray *ob = tl_index_scope_binds(mod, (int32_t)g);
				for (uint32_t j = 0; ob && j < ob->size; j++) {
					const TlBinding *o = &mod->bindings.items[ob->items[j]];
					if (strcmp(o->name, b->name) == 0 && !tl_hn__plain_store(om, mod, o))
						return false;
				}
			}
		}
	}
	return true;
}

/* The index of class (mod, cls) among `nodes`, added when new; -1 past
 * the bound. */
static int32_t tl_hn__node(TlHnNodes *nodes, const TlIndex *mod, int32_t cls)
{
	for (uint32_t i = 0; i < nodes->size; i++)
		if (nodes->items[i].mod == mod && nodes->items[i].cls == cls)
			return (int32_t)i;
	if (nodes->size >= TL_HN_CLASSES)
		return -1;
	tl_array_push(nodes, ((TlHnNode){ mod, NULL, cls }));
	return (int32_t)nodes->size - 1;
}

static uint8_t *tl_hn__memo(const TlModel *om, bool state)
{
	TlModel *w = (TlModel *)om;
	uint8_t **memo = state ? &w->holds_no_state : &w->holds_none;
	if (!*memo && om->idx->classes.size)
		*memo = tl_calloc(om->idx->classes.size, 1);
	return *memo;
}

static bool tl_hn__solve(TlModel *m, const TlIndex *mod, int32_t cls, bool state)
{
	TlHnNodes nodes, deps;
	TlIntArray key, item, work;
	tl_array_init(&nodes);
	tl_array_init(&deps);
	tl_array_init(&key);
	tl_array_init(&item);
	tl_array_init(&work);
	TlArray(uint8_t) yes;   /* 1 holds none, 0 not (yet) */
	TlArray(uint32_t) pending;
	tl_array_init(&yes);
	tl_array_init(&pending);
	bool cut = false;
	tl_hn__node(&nodes, mod, cls);
	/* The classes reached, breadth first, each with what it says of itself. */
	for (uint32_t head = 0; head < nodes.size; head++) {
		TlHnNode *nd = &nodes.items[head];
		const TlModel *om = tl_model__other(m, nd->mod);
		nd->om = om;
		uint8_t said = 0, known = 0;
		uint32_t wait = 0;
		if (!om || nd->cls < 0 || (uint32_t)nd->cls >= nd->mod->classes.size) {
			cut = cut || !om; /* a model being built (an import cycle) or past the nesting bound */
		} else if ((known = (state ? om->holds_no_state : om->holds_none)
					    ? (state ? om->holds_no_state : om->holds_none)[nd->cls] : 0) != 0) {
			said = known == 1;
		} else {
			deps.size = 0;
			if (tl_hn__local(m, om, nd->mod, nd->cls, state, &deps, NULL)) {
				said = 1;
				for (uint32_t k = 0; k < deps.size; k++) {
					int32_t d = tl_hn__node(&nodes, deps.items[k].mod, deps.items[k].cls);
					if (d < 0) {
						cut = true;
						said = 0;
						break;
					}
					tl_array_push(&key, d);
					tl_array_push(&item, (int32_t)head);
					wait++;
				}
			}
		}
		/* nodes may have moved */
		tl_array_push(&yes, 0);
		tl_array_push(&pending, said ? wait : UINT32_MAX);
		if (said && !wait) {
			yes.items[head] = 1;
			tl_array_push(&work, (int32_t)head);
		}
	}
	/* The worklist from the classes known to hold none, over the edges of
	 * the classes waiting on them (a class not said, UINT32_MAX, never
	 * counts down to 0). */
	uint32_t n = nodes.size;
	tl_int_propagate(&key, &item, n, pending.items, yes.items, &work);
	bool answer = yes.items[0];
	/* Kept per class in its module's model (under the project's lock). */
	for (uint32_t i = 0; !cut && i < n; i++) {
		const TlHnNode *nd = &nodes.items[i];
		uint8_t *memo = nd->om && nd->cls >= 0 && (uint32_t)nd->cls < nd->mod->classes.size
					? tl_hn__memo(nd->om, state) : NULL;
		if (memo)
			memo[nd->cls] = yes.items[i] ? 1 : 2;
	}
	tl_array_release(&nodes);
	tl_array_release(&deps);
	tl_array_release(&key);
	tl_array_release(&item);
	tl_array_release(&work);
	tl_array_release(&yes);
	tl_array_release(&pending);
	return answer;
}

static bool tl_hn__ask(TlModel *m, const TlIndex *mod, int32_t cls, bool state)
{
	if (cls < 0 || (uint32_t)cls >= mod->classes.size)
		return false;
	if (!m->idx->imports)
		return mod == m->idx && tl_hn__solve(m, mod, cls, state);
	tl_model__enter(m->idx);
	bool yes = tl_hn__solve(m, mod, cls, state);
	tl_model__leave(m->idx);
	return yes;
}

/* The constructor of class `cls` of `mod`: its own `__init__`, or -1. */
static int32_t tl_hn__init(const TlIndex *mod, int32_t cls)
{
	for (uint32_t f = 0; f < mod->funcs.size; f++)
		if (mod->funcs.items[f].cls == cls && strcmp(mod->funcs.items[f].name, "__init__") == 0)
			return (int32_t)f;
	return -1;
}

/* The one base of the project of class `cls` of `mod` (in its module or
 * another), when it has no other base but nn.Module: into *bmod, *bcls. */
static bool tl_hn__one_base(TlModel *m, const TlIndex *mod, int32_t cls, const TlIndex **bmod, int32_t *bcls)
{
	const TlClass *c = &mod->classes.items[cls];
	*bmod = NULL;
	*bcls = -1;
	for (uint32_t i = 0; i < c->base_qnames.size; i++) {
		const char *q = c->base_qnames.items[i];
		TlVal v;
		if (!q)
			return false;
		if (tl_hn__torch_module(q))
			continue;
		if (*bmod || !mod->imports || !tl_model__resolve_in(m, mod, q, strlen(q), &v) || v.kind != TL_VK_CLASS ||
		    v.ref < 0 || !v.mod)
			return false;
		*bmod = (const TlIndex *)v.mod;
		*bcls = v.ref;
	}
	if (c->bases.size > 1 || (c->bases.size == 1 && *bmod))
		return false;
	if (c->bases.size == 1) {
		*bmod = mod;
		*bcls = c->bases.items[0];
	}
	return *bmod != NULL;
}

/* The call `super().__init__(...)` in constructor `init` of `mod`: its
 * node, null when there is none. */
static TSNode tl_hn__super_init(const TlIndex *mod, int32_t init)
{
	const TlIntArray *calls = tl_index_scope_calls(mod, init);
	for (uint32_t k = 0; calls && k < calls->size; k++) {
		const TlCall *kc = &mod->calls.items[calls->items[k]];
		TSNode r = tl_index_unparen(kc->receiver);
		if (kc->method && strcmp(kc->method, "__init__") == 0 && !ts_node_is_null(r) &&
		    ts_node_symbol(r) == tl_syms()->call &&
		    tl_index_text_is(mod, tl_tree_field(r, tl_syms()->f_function), "super"))
			return kc->node;
	}
	return (TSNode){ 0 };
}

/* Base (bmod, bcls) among `deps` becomes construction `site` of
 * `sites`, judged under the constants it passes: true when it was one. */
static bool tl_hn__base_site(TlHnNodes *deps, TlHnSites *sites, const TlHnSite *site)
{
	for (uint32_t k = 0; k < deps->size; k++) {
		if (deps->items[k].mod != site->mod || deps->items[k].cls != site->cls)
			continue;
		deps->items[k] = deps->items[--deps->size];
		tl_array_push(sites, *site);
		return true;
	}
	return false;
}

bool tl_model__site_holds_none(TlModel *m, TSNode call, int32_t caller, const TlIndex *mod, int32_t cls)
{
	if (cls < 0 || (uint32_t)cls >= mod->classes.size || (!m->idx->imports && mod != m->idx))
		return false;
	if (m->idx->imports)
		tl_model__enter(m->idx);
	TlHnSites sites;
	TlHnNodes deps;
	tl_array_init(&sites);
	tl_array_init(&deps);
	tl_array_push(&sites, ((TlHnSite){ m->idx, call, caller, false, { 0 }, mod, cls }));
	bool ok = true;
	for (uint32_t head = 0; ok && head < sites.size; head++) {
		TlHnSite st = sites.items[head]; /* the array may grow */
		const TlModel *om = head < TL_HN_SITES ? tl_model__other(m, st.mod) : NULL;
		int32_t init = om ? tl_hn__init(st.mod, st.cls) : -1;
		if (!om) {
			ok = false;
		} else if (init < 0) {
			/* the constructor it inherits from its one base of the
			 * project runs under this construction's constants */
			const TlIndex *bmod;
			int32_t bcls;
			deps.size = 0;
			if (tl_hn__one_base(m, st.mod, st.cls, &bmod, &bcls) &&
			    tl_hn__local(m, om, st.mod, st.cls, false, &deps, NULL)) {
				TlHnSite bs = st;
				bs.mod = bmod;
				bs.cls = bcls;
				ok = tl_hn__base_site(&deps, &sites, &bs);
				for (uint32_t k = 0; ok && k < deps.size; k++)
					ok = tl_hn__solve(m, deps.items[k].mod, deps.items[k].cls, false);
			} else {
				ok = tl_hn__solve(m, st.mod, st.cls, false);
			}
		} else {
			TlHnCtx cx = { init, { 0 }, &sites };
			tl_model__ctor_consts(m, st.mod, init, st.cmod, st.call, st.caller, st.has_outer ? st.outer : NULL,
					      cx.p);
			deps.size = 0;
			ok = tl_hn__local(m, om, st.mod, st.cls, false, &deps, &cx);
			/* its one base of the project, whose constructor it runs with
			 * `super().__init__(...)`: judged under the constants that
			 * call passes, as a construction */
			const TlIndex *bmod;
			int32_t bcls;
			TSNode sup = ok ? tl_hn__super_init(st.mod, init) : (TSNode){ 0 };
			if (!ts_node_is_null(sup) && tl_hn__one_base(m, st.mod, st.cls, &bmod, &bcls)) {
				TlHnSite bs = { st.mod, sup, init, true, { 0 }, bmod, bcls };
				memcpy(bs.outer, cx.p, sizeof bs.outer);
				tl_hn__base_site(&deps, &sites, &bs);
			}
			/* its other bases and the classes its attributes hold: their summaries */
			for (uint32_t k = 0; ok && k < deps.size; k++)
				ok = tl_hn__solve(m, deps.items[k].mod, deps.items[k].cls, false);
		}
	}
	tl_array_release(&sites);
	tl_array_release(&deps);
	if (m->idx->imports)
		tl_model__leave(m->idx);
	return ok;
}

bool tl_model__holds_none(TlModel *m, const TlIndex *mod, int32_t cls)
{
	return tl_hn__ask(m, mod, cls, false);
}

bool tl_model__holds_no_state(TlModel *m, const TlIndex *mod, int32_t cls)
{
	return tl_hn__ask(m, mod, cls, true);
}

bool tl_model_makes_stateless_module(const TlIndex *idx, TSNode call)
{
	TlModel *m = (TlModel *)tl_model_of(idx);
	call = tl_index_unparen(call);
	const TlCall *c = tl_index_call_at(idx, call);
	TlVal v;
	if (!m || !c || !tl_model_value(idx, call, &v) || v.kind != TL_VK_MODULE)
		return false;
	if (v.ref >= 0 && v.mod)
		return tl_model__holds_no_state(m, (const TlIndex *)v.mod, v.ref);
	/* a class another module of the project defines, by its import */
	TlVal cls;
	if (!c->qname || !idx->imports)
		return false;
	tl_model__enter(idx);
	bool found = tl_model__resolve_in(m, idx, c->qname, strlen(c->qname), &cls);
	tl_model__leave(idx);
	return found && cls.kind == TL_VK_CLASS && cls.ref >= 0 && cls.mod &&
	       tl_model__holds_no_state(m, (const TlIndex *)cls.mod, cls.ref);
}
