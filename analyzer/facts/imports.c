/* Facts across the modules of a project (RULES.md principle 2): what a
 * name imported from another module of the project is there (a function,
 * a class, a method of one, also inherited from a base class in a third
 * module, through `__init__` re-exports and star imports: the model's
 * resolution, tl_model_project_def and tl_model_class_method, which the
 * model reads names by too), and what the function a call reaches in
 * another module does (its events) and hands back (its summaries,
 * facts/summary.c, computed in its own module's index and kept there,
 * once per run).
 *
 * The other modules come from the index's TlImports (the project model,
 * analyzer/project/): a module that cannot be read, a third-party module
 * and a module whose own load is under way are unknown. Names of PyTorch,
 * the libraries built on it and other frameworks are never looked up in
 * the project: their meaning is known by name. Another module's index is
 * shared by the worker threads, so every question that reads one runs
 * between the TlImports' enter() and leave().
 *
 * Owns: tl_facts__ext_def, tl_facts__ext_callee, tl_facts__ext_any_return,
 * tl_facts__ext_class_is_module, tl_facts__ext_class_named,
 * tl_facts__ext_call_events. */
#include <stdio.h>

#include "facts/internal.h"
#include "model/apitable.h"
#include "model/model.h"

/* Steps through bindings, factories and parameters to the class of a
 * receiver: real projects need two or three. */
#define TL_EXT_DEPTH 8

/* What another module's index answers is kept there for the run, so the
 * CPU bound of the file asking must not cut it: polls of it say false
 * while such questions run (base/budget.h). */
void tl_facts__ext_enter(const TlIndex *idx)
{
	idx->imports->enter(idx->imports);
	tl_bound_suspend();
}

void tl_facts__ext_leave(const TlIndex *idx)
{
	tl_bound_resume();
	idx->imports->leave(idx->imports);
}

/* A library's name is the library, except where the project holds a
 * package or module of that name (flair's repository imports
 * `flair.models` from flair/models): Python finds that first. PyTorch's
 * own names stay the API the facts know; so does a relative import inside
 * PyTorch's own packages (torch/nn/modules/linear.py's `from .. import
 * functional`), as its absolute spelling. */
static bool tl_facts__project_name(const TlIndex *idx, const char *q, size_t len)
{
	if (!idx->imports || !len || len >= 1024)
		return false;
	if (q[0] == '.') {
		const char *pkg = idx->imports->package ? idx->imports->package(idx->imports, idx) : NULL;
		return !(pkg && tl_api_own_package(pkg));
	}
	char root[1024];
	memcpy(root, q, len);
	root[len] = 0;
	root[strcspn(root, ".")] = 0;
	return !(tl_api_own_package(root) ||
		 ((tl_facts__torch_qname(root) || tl_facts__foreign_qname(root)) &&
		  !idx->imports->module(idx->imports, idx, root, strlen(root))));
}

/* What `q` names in a module of the project: the model's resolution
 * (tl_model_project_def), for a name the facts do not know as a library's. */
static bool tl_facts__ext_def_in(const TlIndex *idx, const char *q, TlExtDef *out)
{
	if (!q || !tl_facts__project_name(idx, q, strlen(q)))
		return false;
	return tl_model_project_def(idx, q, &out->idx, &out->func, &out->cls);
}

/* Method `name` of class `cls` of module `mod`, or inherited from one of
 * its bases (local to `mod` or imported into it): the model's lookup. */
static bool tl_facts__ext_method(const TlIndex *mod, int32_t cls, const char *name, TlExtDef *out)
{
	if (cls < 0 || (uint32_t)cls >= mod->classes.size)
		return false;
	const TlIndex *where = NULL;
	int32_t f = tl_model_class_method(mod, cls, name, &where);
	if (f < 0)
		return false;
	*out = (TlExtDef){ where, f, where->funcs.items[f].cls };
	return true;
}

bool tl_facts__class_has_method(const TlIndex *mod, int32_t cls, const char *name)
{
	TlExtDef d;
	return tl_facts__ext_method(mod, cls, name, &d);
}

bool tl_facts__unwraps(const TlCall *c)
{
	return c->method && strcmp(c->method, "unwrap_model") == 0 && c->receiver.id &&
	       tl_facts__argc(c->node) >= 1;
}

bool tl_facts__ext_def(const TlIndex *idx, const char *q, TlExtDef *out)
{
	if (!idx->imports || !q)
		return false;
	tl_facts__ext_enter(idx);
	bool yes = tl_facts__ext_def_in(idx, q, out);
	tl_facts__ext_leave(idx);
	return yes;
}

static bool tl_facts__ext_instance_in(const TlIndex *idx, TSNode expr, TlExtDef *out, int nest);

/* What the bare name call `c` calls when no statement of `idx` binds it
 * and a star import of a project module does (`from utils.datasets import
 * *`, then `create_dataloader(...)`): the model's resolution
 * (tl_model_star_def). Its enter() held. */
static bool tl_facts__star_def(const TlIndex *idx, const TlCall *c, TlExtDef *out)
{
	if (c->qname || c->receiver.id || !c->method || tl_index_resolve_node(idx, c->callee))
		return false;
	const TlIndex *mod;
	int32_t func, cls;
	if (!tl_model_star_def(idx, c->method, &mod, &func, &cls) || mod == idx)
		return false;
	*out = (TlExtDef){ mod, func, cls };
	return true;
}

/* The one class that every return of a factory function constructs. */
typedef struct TlFactoryWalk {
	int nest;
	bool any, ok;
	TlExtDef cls;
} TlFactoryWalk;

static bool tl_facts__factory_visit(const TlIndex *mod, TSNode ret, void *data)
{
	TlFactoryWalk *w = data;
	TlExtDef k;
	if (!ts_node_named_child_count(ret) ||
	    !tl_facts__ext_instance_in(mod, ts_node_named_child(ret, 0), &k, w->nest + 1) ||
	    (w->any && (k.idx != w->cls.idx || k.cls != w->cls.cls))) {
		w->ok = false;
		return true;
	}
	w->any = true;
	w->cls = k;
	return false;
}

/* The class that function `f` of `mod` builds when each of its returns
 * constructs that one class (`def create_model(opt): return
 * GanModel(opt)`, in the package's __init__.py): a factory. */
static bool tl_facts__factory_class(const TlIndex *mod, int32_t f, TlExtDef *out, int nest)
{
	if (nest > TL_EXT_DEPTH || f < 0 || (uint32_t)f >= mod->funcs.size ||
	    mod->funcs.items[f].cls >= 0)
		return false;
	TlFactoryWalk w = { nest, false, true, { NULL, -1, -1 } };
	tl_facts__each_return(mod, f, tl_facts__factory_visit, &w);
	if (!w.any || !w.ok)
		return false;
	*out = w.cls;
	return true;
}

/* The class of the object every call site of parameter `b`'s function
 * in its module passes for it (one site at least, the function not
 * escaping): `train(opt, loader, model)` called with `model = VSE(opt)`. */
static bool tl_facts__param_instance(const TlIndex *idx, const TlBinding *b, TlExtDef *out, int nest)
{
	if (b->func < 0 || nest > TL_EXT_DEPTH)
		return false;
	const TlFunc *f = &idx->funcs.items[b->func];
	int32_t k = tl_facts__param_index(idx, f, b->name, strlen(b->name));
	if (k < 0 || f->escapes || !f->call_sites.size || f->call_sites.size > 4)
		return false;
	bool any = false;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		TSNode arg = c->func == b->func ? (TSNode){ 0 } : tl_facts__param_arg(idx, f, k, c);
		TlExtDef one;
		/* nest + 2: at most 4 parameters deep, 4 sites each */
		if (ts_node_is_null(arg) || !tl_facts__ext_instance_in(idx, arg, &one, nest + 2) ||
		    one.func >= 0 || (any && (one.idx != out->idx || one.cls != out->cls)))
			return false;
		*out = one;
		any = true;
	}
	return any;
}

/* The class whose instance `expr` holds when that class is known
 * (`net = Net(cfg).to(device)`, `self.trainer = trainer.Trainer()`,
 * `model = create_model(opt)` with a factory that builds one class): a
 * class of `idx` or of another module. */
static bool tl_facts__ext_instance(const TlIndex *idx, TSNode expr, TlExtDef *out)
{
	return tl_facts__ext_instance_in(idx, expr, out, 0);
}

static bool tl_facts__ext_instance_in(const TlIndex *idx, TSNode expr, TlExtDef *out, int nest)
{
	const TlSyms *sy = tl_syms();
	for (int depth = 0; depth <= TL_EXT_DEPTH; depth++) {
		expr = tl_index_unparen(expr);
		if (ts_node_is_null(expr))
			return false;
		TSSymbol s = ts_node_symbol(expr);
		if (s == sy->call) {
			const TlCall *c = tl_index_call_at(idx, expr);
			if (!c)
				return false;
			if (c->receiver.id && tl_api_returns_self(c->method)) {
				expr = c->receiver;
				continue;
			}
			if (tl_facts__unwraps(c)) {
				expr = tl_facts__arg(expr, 0);
				continue;
			}
			/* In a factory's return, only a class's name (CapWords, PEP 8)
			 * is looked up: resolving `handle_torch_function(...)` would
			 * load its module only to learn it is no class. */
			if (nest > 0 && (!c->method || !isupper((unsigned char)c->method[0])))
				return false;
			const TlBinding *cb = tl_index_resolve_node(idx, c->callee);
			if (cb && cb->kind == TL_BIND_CLASS) {
				*out = (TlExtDef){ idx, -1, cb->ref };
				return true;
			}
			if (c->target >= 0)
				return tl_facts__factory_class(idx, c->target, out, nest);
			TlExtDef d;
			if (c->qname ? !tl_facts__ext_def_in(idx, c->qname, &d) : !tl_facts__star_def(idx, c, &d))
				return false;
			if (d.func >= 0)
				return tl_facts__factory_class(d.idx, d.func, out, nest);
			*out = d;
			return d.cls >= 0;
		}
		if (s != sy->identifier && s != sy->attribute)
			return false;
		const TlBinding *b = tl_index_resolve_node(idx, expr);
		if (!b || (b->kind != TL_BIND_ASSIGN && b->kind != TL_BIND_PARAM))
			return false;
		if (b->elem >= 0) {
			/* meter, log = AverageMeter(), StepLog(): its element */
			expr = b->kind == TL_BIND_ASSIGN ? tl_facts__held(idx, b) : (TSNode){ 0 };
			continue;
		}
		if (b->kind == TL_BIND_PARAM && ts_node_is_null(b->value))
			return tl_facts__param_instance(idx, b, out, nest);
		if (b->kind == TL_BIND_PARAM) {
			/* An annotated parameter (`trainer: Trainer`). */
			const TlBinding *cb = tl_index_resolve_node(idx, b->value);
			if (cb && cb->kind == TL_BIND_CLASS) {
				*out = (TlExtDef){ idx, -1, cb->ref };
				return true;
			}
			char *q = tl_index_qualify(idx, b->value);
			bool yes = q && tl_facts__ext_def_in(idx, q, out) && out->cls >= 0 &&
				   out->func < 0;
			tl_free(q);
			return yes;
		}
		expr = b->value;
	}
	return false;
}

/* The function of another module that call `c` runs, when there is one
 * (its enter() held). */
static bool tl_facts__ext_callee_in(const TlIndex *idx, const TlCall *c, TlExtDef *out)
{
	if (c->target >= 0)
		return false;
	if (c->qname) {
		TlExtDef d;
		if (!tl_facts__ext_def_in(idx, c->qname, &d) || d.idx == idx)
			return false;
		if (d.func < 0)
			return false; /* a class: its constructor */
		*out = d;
		return true;
	}
	if (!c->receiver.id) {
		/* `create_dataloader(...)` that a star import binds */
		TlExtDef d;
		if (!tl_facts__star_def(idx, c, &d) || d.func < 0)
			return false;
		*out = d;
		return true;
	}
	if (!c->method)
		return false;
	TlExtDef cls;
	const TlSyms *sy = tl_syms();
	if (ts_node_symbol(c->receiver) == sy->identifier && tl_index_text_is(idx, c->receiver, "self") &&
	    c->func >= 0) {
		/* self.step() inherited from a base class in another module. */
		int32_t k = idx->funcs.items[c->func].cls;
		if (k < 0)
			return false;
		cls = (TlExtDef){ idx, -1, k };
	} else if (!tl_facts__ext_instance(idx, c->receiver, &cls)) {
		return false;
	}
	return tl_facts__ext_method(cls.idx, cls.cls, c->method, out) && out->idx != idx;
}

uint32_t tl_facts__callee_reach(const TlIndex *idx, const TlCall *c)
{
	if (c->callee_events || c->target >= 0 || !c->receiver.id || !c->method || !idx->imports)
		return c->callee_events;
	TlExtDef d;
	uint32_t ev = 0;
	tl_facts__ext_enter(idx);
	if (tl_facts__ext_callee_in(idx, c, &d) && d.func >= 0)
		ev = d.idx->funcs.items[d.func].reach_events;
	tl_facts__ext_leave(idx);
	return ev;
}

bool tl_facts__ext_callee(const TlIndex *idx, const TlCall *c, TlExtDef *out)
{
	if (!idx->imports)
		return false;
	tl_facts__ext_enter(idx);
	bool yes = tl_facts__ext_callee_in(idx, c, out);
	tl_facts__ext_leave(idx);
	return yes;
}

/* The local overrides that method `d` of a class of another module runs
 * when call `c` calls it on an object of a local class derived from that
 * class: each `self.m(...)` in `d` whose `m` the object's class (or a local
 * base between) defines (a base trainer's `test()` calling `self._test()`,
 * which the file's subclass defines). Appended to `out` (function indices
 * of `idx`); its enter() held. */
static void tl_facts__overrides_in(const TlIndex *idx, const TlCall *c, const TlExtDef *d,
				   TlIntArray *out)
{
	const TlSyms *sy = tl_syms();
	TlExtDef k;
	if (d->idx == idx || d->func < 0 || d->cls < 0 || !c->receiver.id ||
	    !tl_facts__ext_instance(idx, c->receiver, &k) || k.idx != idx || k.cls < 0 || k.func >= 0)
		return;
	const TlIntArray *calls = tl_index_scope_calls(d->idx, d->func);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *inner = &d->idx->calls.items[calls->items[i]];
		TSNode r = inner->receiver.id ? tl_index_unparen(inner->receiver) : (TSNode){ { 0 }, NULL, NULL };
		if (!inner->method || ts_node_is_null(r) || ts_node_symbol(r) != sy->identifier ||
		    !tl_index_text_is(d->idx, r, "self"))
			continue;
		int32_t m = tl_index_method(idx, k.cls, inner->method, strlen(inner->method));
		if (m < 0)
			continue;
		bool seen = false;
		for (uint32_t j = 0; j < out->size && !seen; j++)
			seen = out->items[j] == m;
		if (!seen)
			tl_array_push(out, m);
	}
}

void tl_facts__ext_overrides(const TlIndex *idx, const TlCall *c, TlIntArray *out)
{
	if (!idx->imports || c->target >= 0)
		return;
	tl_facts__ext_enter(idx);
	TlExtDef d;
	if (tl_facts__ext_callee_in(idx, c, &d))
		tl_facts__overrides_in(idx, c, &d, out);
	tl_facts__ext_leave(idx);
}

/* What the methods of other modules that function `d` calls on objects
 * of known classes do (`model.val_start()` in an evaluation helper whose
 * `model` its module builds as a `VSE`), where its module found no
 * events for them (they run outside its loops): one level, their own
 * reach. Its enter() held. */
static uint32_t tl_facts__ext_body_events(const TlExtDef *d)
{
	uint32_t ev = 0;
	const TlIntArray *calls = tl_index_scope_calls(d->idx, d->func);
	for (uint32_t i = 0; calls && i < calls->size; i++)
		ev |= tl_facts__callee_reach(d->idx, &d->idx->calls.items[calls->items[i]]);
	return ev;
}

void tl_facts__ext_call_events(TlIndex *idx, TlCall *c, TlIntArray *overrides)
{
	if (!idx->imports || c->target >= 0)
		return;
	tl_facts__ext_enter(idx);
	TlExtDef d;
	if (tl_facts__ext_callee_in(idx, c, &d)) {
		const TlFunc *f = &d.idx->funcs.items[d.func];
		c->callee_events = f->reach_events | tl_facts__ext_body_events(&d);
		c->callee_flat = f->flat_events;
		c->callee_steps = f->runs_step_loop;
		tl_facts__overrides_in(idx, c, &d, overrides);
	}
	tl_facts__ext_leave(idx);
}

TSNode tl_facts__ext_param_arg(const TlIndex *idx, const TlCall *c, const TlExtDef *d,
				const char *pname, size_t len)
{
	TSNode none = { 0 };
	const TlFunc *fn = &d->idx->funcs.items[d->func];
	int32_t k = tl_facts__param_index(d->idx, fn, pname, len);
	if (k < 0)
		return none;
	char name[256];
	if (len >= sizeof name)
		return none;
	memcpy(name, pname, len);
	name[len] = 0;
	TSNode arg = tl_facts__kwarg(idx, c->node, name);
	if (ts_node_is_null(arg) && fn->cls >= 0 && c->receiver.id) {
		if (k == 0)
			arg = c->receiver; /* a bound method's self */
		k--;
	}
	if (ts_node_is_null(arg) && k >= 0)
		arg = tl_facts__arg(c->node, (uint32_t)k);
	/* accelerator.unwrap_model(model) hands back the model itself. */
	const TlCall *u = ts_node_is_null(arg) ? NULL : tl_index_call_at(idx, tl_index_unparen(arg));
	if (u && tl_facts__unwraps(u))
		arg = tl_facts__arg(u->node, 0);
	return arg;
}

bool tl_facts__ext_any_return(const TlIndex *idx, const TlCall *c, TlRet kind, bool (*pred)(const TlIndex *, TSNode))
{
	if (!idx->imports || c->target >= 0)
		return false;
	tl_facts__ext_enter(idx);
	TlExtDef d;
	bool yes = tl_facts__ext_callee_in(idx, c, &d) &&
		   tl_facts__returns(d.idx, d.func, kind, pred);
	tl_facts__ext_leave(idx);
	return yes;
}

/* Classes a question of tl_facts__ext_holds_params reaches, each once. */
typedef struct TlClassRef {
	const TlIndex *mod;
	int32_t cls;
} TlClassRef;
typedef TlArray(TlClassRef) TlClassRefs;

static void tl_facts__class_push(TlClassRefs *todo, const TlIndex *mod, int32_t cls)
{
	for (uint32_t i = 0; i < todo->size; i++)
		if (todo->items[i].mod == mod && todo->items[i].cls == cls)
			return;
	tl_array_push(todo, ((TlClassRef){ mod, cls }));
}

/* Whether `v`, the value a method of a class of `mod` binds to `self.x`,
 * may hold parameters: a torch.nn layer or Parameter, or anything whose
 * kind cannot be told (a parameter, a call of an unknown function); not a
 * function defined or imported from the project, a literal or a plain
 * expression. A construction of a class of the project is judged with
 * that class: pushed to `todo`. */
static bool tl_facts__ext_value_params(const TlIndex *mod, TSNode v, TlClassRefs *todo)
{
	const TlSyms *sy = tl_syms();
	v = tl_index_unparen(v);
	if (ts_node_is_null(v))
		return false;
	TSSymbol s = ts_node_symbol(v);
	if (s == sy->call) {
		const TlCall *c = tl_index_call_at(mod, v);
		if (!c)
			return true;
		if (c->qname && tl_facts__starts(c->qname, "torch.nn.") &&
		    !tl_facts__starts(c->qname, "torch.nn.functional."))
			return true;
		const TlBinding *cb = tl_index_resolve_node(mod, c->callee);
		if (cb && cb->kind == TL_BIND_CLASS) {
			tl_facts__class_push(todo, mod, cb->ref);
			return false;
		}
		if (cb && cb->kind == TL_BIND_DEF)
			return false; /* a local function's result: judged no further */
		TlExtDef d;
		if (c->qname && tl_facts__ext_def_in(mod, c->qname, &d)) {
			if (d.func < 0)
				tl_facts__class_push(todo, d.idx, d.cls);
			return false;
		}
		/* torch.tensor(...), torch.zeros(...): a tensor, no parameter. */
		return !(c->qname && tl_facts__starts(c->qname, "torch."));
	}
	if (s == sy->identifier || s == sy->attribute) {
		const TlBinding *b = tl_index_resolve_node(mod, v);
		if (!b)
			return true;
		if (b->kind == TL_BIND_DEF || b->kind == TL_BIND_CLASS)
			return false;
		if (b->kind == TL_BIND_IMPORT) {
			TlExtDef d;
			return !(b->qname && tl_facts__ext_def_in(mod, b->qname, &d) && d.func >= 0);
		}
		if (b->kind != TL_BIND_PARAM)
			return false;
		/* A parameter with a literal default (`n_fft=1024`) or a plain
		 * annotation (`n: int`) holds no module. */
		TSNode p = b->stmt, dflt = { 0 };
		if (ts_node_symbol(p) == sy->default_parameter || ts_node_symbol(p) == sy->typed_default_parameter)
			dflt = tl_index_unparen(tl_tree_field(p, sy->f_value));
		if (!ts_node_is_null(dflt)) {
			TSSymbol d = ts_node_symbol(dflt);
			if (d == sy->unary_operator && ts_node_named_child_count(dflt))
				d = ts_node_symbol(ts_node_named_child(dflt, 0));
			if (d == sy->integer || d == sy->float_ || d == sy->string || d == sy->true_ ||
			    d == sy->false_ || d == sy->none || d == sy->tuple || d == sy->list)
				return false;
		}
		uint32_t alen = 0;
		const char *a = ts_node_is_null(b->value) ? NULL : tl_index_text(mod, b->value, &alen);
		return !(tl_api_builtin_sets_text(a, alen) & TL_APIS_PLAIN_TYPE);
	}
	return false;
}

/* Whether class `cls` of `mod` may hold parameters (a model, not a
 * parameter-free transform such as a feature extractor): a method binds
 * `self.x` to something that may (tl_facts__ext_value_params) or calls
 * register_parameter / add_module, or a base class (a torch.nn layer, or
 * one that cannot be read) does; a class of the project that it or a base
 * derives from or constructs into `self.x` is asked the same, each once
 * (past TL_EXT_CLASSES of them, it may). */
#define TL_EXT_CLASSES 64
static bool tl_facts__ext_holds_params(const TlIndex *start, int32_t start_cls)
{
	TlClassRefs todo;
	tl_array_init(&todo);
	tl_facts__class_push(&todo, start, start_cls);
	bool holds = false;
	for (uint32_t head = 0; head < todo.size && !holds; head++) {
		const TlIndex *mod = todo.items[head].mod;
		int32_t cls = todo.items[head].cls;
		if (head >= TL_EXT_CLASSES || cls < 0 || (uint32_t)cls >= mod->classes.size) {
			holds = true;
			break;
		}
		const TlClass *c = &mod->classes.items[cls];
		for (uint32_t i = 0; i < c->base_qnames.size && !holds; i++) {
			const char *bq = c->base_qnames.items[i];
			if (tl_facts__starts(bq, "torch.nn.") && strcmp(bq, "torch.nn.Module") != 0 &&
			    strcmp(bq, "torch.nn.modules.module.Module") != 0)
				holds = true;
			TlExtDef d;
			if (holds)
				break;
			if (tl_facts__ext_def_in(mod, bq, &d)) {
				if (d.func < 0 && d.cls >= 0)
					tl_facts__class_push(&todo, d.idx, d.cls);
			} else if (!tl_facts__torch_qname(bq)) {
				holds = true; /* a base that cannot be read */
			}
		}
		for (uint32_t i = 0; i < c->bases.size && !holds; i++)
			tl_facts__class_push(&todo, mod, c->bases.items[i]);
		for (uint32_t f = 0; f < mod->funcs.size && !holds; f++) {
			if (mod->funcs.items[f].cls != cls)
				continue;
			const TlIntArray *binds = tl_index_scope_binds(mod, (int32_t)f);
			for (uint32_t k = 0; binds && k < binds->size && !holds; k++) {
				const TlBinding *b = &mod->bindings.items[binds->items[k]];
				holds = (b->kind == TL_BIND_ASSIGN || b->kind == TL_BIND_AUG) &&
					strncmp(b->name, "self.", 5) == 0 && !strchr(b->name + 5, '.') &&
					(b->elem >= 0 || tl_facts__ext_value_params(mod, b->value, &todo));
			}
			const TlIntArray *calls = tl_index_scope_calls(mod, (int32_t)f);
			for (uint32_t k = 0; calls && k < calls->size && !holds; k++) {
				const TlCall *k2 = &mod->calls.items[calls->items[k]];
				holds = ((tl_api_method_sets(k2->method) | tl_api_builtin_sets(k2->method)) &
					 TL_APIS_REGISTERS) ||
					(k2->qname && strcmp(k2->qname, "setattr") == 0);
			}
		}
	}
	tl_array_release(&todo);
	return holds;
}

bool tl_facts__ext_class_is_model(const TlIndex *idx, const char *q)
{
	TlExtDef d;
	if (!q || !idx->imports)
		return false;
	tl_facts__ext_enter(idx);
	bool yes = tl_facts__ext_def_in(idx, q, &d) && d.func < 0 && d.cls >= 0 &&
		   tl_model_class_derives_module(d.idx, d.cls) && tl_facts__ext_holds_params(d.idx, d.cls);
	tl_facts__ext_leave(idx);
	return yes;
}

bool tl_facts__ext_class_is_module(const TlIndex *idx, const char *q)
{
	TlExtDef d;
	if (!q || !idx->imports)
		return false;
	tl_facts__ext_enter(idx);
	bool yes = tl_facts__ext_def_in(idx, q, &d) && d.func < 0 && d.cls >= 0 &&
		   tl_model_class_derives_module(d.idx, d.cls);
	tl_facts__ext_leave(idx);
	return yes;
}

const char *tl_facts__ext_class_named(const TlIndex *idx, const char *q, char *buf, size_t size)
{
	TlExtDef d;
	if (!q || !idx->imports || !size)
		return NULL;
	const char *name = NULL;
	tl_facts__ext_enter(idx);
	if (tl_facts__ext_def_in(idx, q, &d) && d.func < 0 && d.cls >= 0) {
		snprintf(buf, size, "%s", d.idx->classes.items[d.cls].name);
		name = buf;
	}
	tl_facts__ext_leave(idx);
	return name;
}
