/* Facts across the modules of a project (RULES.md principle 2): what a
 * name imported from another module of the project is there (a function,
 * a class, a method of one, also inherited from a base class in a third
 * module, through `__init__` re-exports and star imports), and what the
 * function a call reaches in another module does (its events) and hands
 * back (its summaries, facts/summary.c, computed in its own module's index
 * and kept there, once per run).
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

/* Steps through re-exports, base classes and bindings: real projects need
 * two or three. */
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

static bool tl_facts__ext_def_in(const TlIndex *idx, const char *q, size_t len, TlExtDef *out,
				 int depth);

/* Method `name` of class `cls` of module `mod`, or inherited from one of
 * its bases (local to `mod` or imported into it), first base first. */
static bool tl_facts__ext_method(const TlIndex *mod, int32_t cls, const char *name, size_t len,
				 TlExtDef *out, int depth)
{
	if (depth > TL_EXT_DEPTH || cls < 0 || (uint32_t)cls >= mod->classes.size)
		return false;
	int32_t f = tl_index_method(mod, cls, name, len);
	if (f >= 0) {
		*out = (TlExtDef){ mod, f, cls };
		return true;
	}
	const TlClass *c = &mod->classes.items[cls];
	for (uint32_t i = 0; i < c->bases.size; i++)
		if (tl_facts__ext_method(mod, c->bases.items[i], name, len, out, depth + 1))
			return true;
	for (uint32_t i = 0; i < c->base_qnames.size; i++) {
		TlExtDef base;
		const char *bq = c->base_qnames.items[i];
		if (tl_facts__ext_def_in(mod, bq, strlen(bq), &base, depth + 1) && base.cls >= 0 &&
		    base.func < 0 && tl_facts__ext_method(base.idx, base.cls, name, len, out, depth + 1))
			return true;
	}
	return false;
}

bool tl_facts__class_has_method(const TlIndex *mod, int32_t cls, const char *name)
{
	TlExtDef d;
	if (!mod->imports)
		return tl_facts__ext_method(mod, cls, name, strlen(name), &d, 0);
	tl_facts__ext_enter(mod);
	bool yes = tl_facts__ext_method(mod, cls, name, strlen(name), &d, 0);
	tl_facts__ext_leave(mod);
	return yes;
}

/* Modules a star-import lookup visits at most, from one module. */
#define TL_EXT_STAR_MODULES 4096

static bool tl_facts__project_has(const TlIndex *idx, const char *root);

/* The module that star import `q` (its qname: "pkg.util", ".impl", ".")
 * of `from` names, or NULL: not a module of the project, or a library's
 * name (as tl_facts__ext_def_in leaves them). */
static const TlIndex *tl_facts__star_target(const TlIndex *from, const char *q)
{
	size_t len = strlen(q);
	if (!len || len >= 1024)
		return NULL;
	if (q[0] != '.') {
		char root[1024];
		memcpy(root, q, len + 1);
		root[strcspn(root, ".")] = 0;
		if (tl_api_own_package(root) ||
		    ((tl_facts__torch_qname(root) || tl_facts__foreign_qname(root)) &&
		     !tl_facts__project_has(from, root)))
			return NULL;
	} else {
		const char *pkg = from->imports->package ? from->imports->package(from->imports, from) : NULL;
		if (pkg && tl_api_own_package(pkg))
			return NULL;
	}
	return from->imports->module(from->imports, from, q, len);
}

/* The module that binds module-level `name` (`nlen` bytes, no dots) for
 * `mod`, which does not: the first, depth first in source order, that its
 * star imports reach (theirs too, each module once, at most
 * TL_EXT_STAR_MODULES of them), or NULL. Found once per module and name,
 * misses too, and kept in the module's facts cache: stars that import each
 * other cost one walk of the modules they reach, not one per path. The
 * walk counts against the asking file's CPU bound (tl_bound_step); cut by
 * it, it answers NULL and keeps nothing. */
static const TlIndex *tl_facts__star_owner(const TlIndex *mod, const char *name, size_t nlen)
{
	const TlIntArray *own = tl_index_bindings_of(mod, -1, "*");
	if (!own || !own->size || !mod->imports)
		return NULL;
	TlFactsCache *fc = mod->facts_cache;
	int32_t at;
	if (fc && fc->star_ready && tl_strmap_get(&fc->star_names, name, nlen, &at))
		return fc->star_owners.items[at];
	char key[256];
	if (nlen >= sizeof key)
		return NULL;
	memcpy(key, name, nlen);
	key[nlen] = 0;
	const TlIndex *found = NULL;
	bool cut = false;
	TlStrMap seen;
	tl_strmap_init(&seen);
	TlArray(const TlIndex *) stack;
	tl_array_init(&stack);
	char pk[32];
	snprintf(pk, sizeof pk, "%p", (const void *)mod);
	tl_strmap_put(&seen, pk, strlen(pk), 0);
	/* Depth first, the first star import of a module first: pushed in
	 * reverse. */
	for (const TlIndex *cur = mod; cur && !found && !cut;) {
		const TlIntArray *stars = tl_index_bindings_of(cur, -1, "*");
		for (uint32_t i = stars ? stars->size : 0; i-- > 0 && !cut;) {
			const TlBinding *sb = &cur->bindings.items[stars->items[i]];
			if (!sb->qname)
				continue;
			const TlIndex *next = tl_facts__star_target(cur, sb->qname);
			cut = tl_bound_step(1);
			if (next)
				tl_array_push(&stack, next);
		}
		cur = NULL;
		while (stack.size && !cut) {
			const TlIndex *c = stack.items[--stack.size];
			snprintf(pk, sizeof pk, "%p", (const void *)c);
			if (tl_strmap_get(&seen, pk, strlen(pk), &at))
				continue;
			if (seen.count >= TL_EXT_STAR_MODULES) {
				stack.size = 0;
				break;
			}
			tl_strmap_put(&seen, pk, strlen(pk), 0);
			const TlIntArray *list = tl_index_bindings_of(c, -1, key);
			if (list && list->size)
				found = c;
			else
				cur = c;
			break;
		}
	}
	tl_array_release(&stack);
	tl_strmap_release(&seen);
	if (cut)
		return NULL;
	if (fc) {
		if (!fc->star_ready) {
			tl_strmap_init(&fc->star_names);
			tl_array_init(&fc->star_owners);
			fc->star_ready = true;
		}
		tl_array_push(&fc->star_owners, found);
		tl_strmap_put(&fc->star_names, name, nlen, (int32_t)(fc->star_owners.size - 1));
	}
	return found;
}

/* `rest` ("Trainer", "Trainer.step") looked up among the module-level
 * names of `mod`. */
static bool tl_facts__ext_in_module(const TlIndex *mod, const char *rest, size_t len,
				    TlExtDef *out, int depth)
{
	const char *dot = memchr(rest, '.', len);
	size_t nlen = dot ? (size_t)(dot - rest) : len;
	char name[256];
	if (!nlen || nlen >= sizeof name)
		return false;
	memcpy(name, rest, nlen);
	name[nlen] = 0;
	const TlIntArray *list = tl_index_bindings_of(mod, -1, name);
	const TlBinding *b = list && list->size ? &mod->bindings.items[list->items[list->size - 1]]
						: NULL;
	if (b) {
		if (b->kind == TL_BIND_DEF) {
			if (dot)
				return false;
			*out = (TlExtDef){ mod, b->ref, -1 };
			return true;
		}
		if (b->kind == TL_BIND_CLASS) {
			if (!dot) {
				*out = (TlExtDef){ mod, -1, b->ref };
				return true;
			}
			const char *m = dot + 1;
			size_t mlen = len - nlen - 1;
			return !memchr(m, '.', mlen) &&
			       tl_facts__ext_method(mod, b->ref, m, mlen, out, depth + 1);
		}
		if (b->kind != TL_BIND_IMPORT || !b->qname)
			return false;
		/* A re-export (`from .trainer import Trainer` in __init__.py). */
		TlBuf q;
		tl_buf_init(&q);
		tl_buf_add(&q, b->qname);
		if (dot)
			tl_buf_addn(&q, dot, len - nlen);
		bool yes = tl_facts__ext_def_in(mod, q.data, q.len, out, depth + 1);
		tl_buf_release(&q);
		return yes;
	}
	/* Not bound: a star import of another module may bind it. */
	const TlIndex *owner = tl_facts__star_owner(mod, name, nlen);
	return owner && owner != mod && tl_facts__ext_in_module(owner, rest, len, out, depth + 1);
}

/* True when the project resolves top-level name `root` (no dots) for
 * `idx`'s file: a package or module of the project that Python would
 * import under that name before an installed library. */
static bool tl_facts__project_has(const TlIndex *idx, const char *root)
{
	return idx->imports->module(idx->imports, idx, root, strlen(root)) != NULL;
}

static bool tl_facts__ext_def_in(const TlIndex *idx, const char *q, size_t len, TlExtDef *out,
				 int depth)
{
	if (!idx->imports || depth > TL_EXT_DEPTH || !len || len >= 1024)
		return false;
	size_t lead = 0;
	while (lead < len && q[lead] == '.')
		lead++;
	if (!lead) {
		char root[1024];
		memcpy(root, q, len);
		root[len] = 0;
		/* A library's name is the library, except where the project
		 * holds a package or module of that name (flair's repository
		 * imports `flair.models` from flair/models): Python finds that
		 * first. PyTorch's own names stay the API the facts know. */
		root[strcspn(root, ".")] = 0;
		if (tl_api_own_package(root) ||
		    ((tl_facts__torch_qname(root) || tl_facts__foreign_qname(root)) &&
		     !tl_facts__project_has(idx, root)))
			return false;
	} else {
		/* A relative import names a module of the file's own package,
		 * whose absolute name starts with that package's: inside
		 * PyTorch's own packages (torch/nn/modules/linear.py's
		 * `from .. import functional`), as its absolute spelling, the
		 * API the facts know, not looked up. */
		const char *pkg = idx->imports->package ? idx->imports->package(idx->imports, idx) : NULL;
		if (pkg && tl_api_own_package(pkg))
			return false;
	}
	/* The longest prefix that names a module of the project holds the
	 * rest ("pkg.models.Net": pkg/models.py, else pkg/__init__.py). */
	for (size_t cut = len; cut >= lead && cut > 0; cut--) {
		if (cut < len && q[cut] != '.' && cut != lead)
			continue;
		if (cut == len && lead == len)
			continue;
		const TlIndex *mod = idx->imports->module(idx->imports, idx, q, cut);
		if (!mod)
			continue;
		if (cut == len)
			return false; /* a module, not something it defines */
		const char *rest = q + cut + (q[cut] == '.' && cut != lead ? 1 : 0);
		if (cut == lead)
			rest = q + lead;
		return tl_facts__ext_in_module(mod, rest, (size_t)(q + len - rest), out, depth + 1);
	}
	return false;
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
	bool yes = tl_facts__ext_def_in(idx, q, strlen(q), out, 0);
	tl_facts__ext_leave(idx);
	return yes;
}

static bool tl_facts__ext_instance_in(const TlIndex *idx, TSNode expr, TlExtDef *out, int nest);

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
			if (c->receiver.id && IN(c->method, tl_facts__same_module)) {
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
			if (!c->qname || !tl_facts__ext_def_in(idx, c->qname, strlen(c->qname), &d, 0))
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
			bool yes = q && tl_facts__ext_def_in(idx, q, strlen(q), out, 0) && out->cls >= 0 &&
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
		if (!tl_facts__ext_def_in(idx, c->qname, strlen(c->qname), &d, 0) || d.idx == idx)
			return false;
		if (d.func < 0)
			return false; /* a class: its constructor */
		*out = d;
		return true;
	}
	if (!c->receiver.id || !c->method)
		return false;
	TlExtDef cls;
	const TlSyms *sy = tl_syms();
	size_t mlen = strlen(c->method);
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
	return tl_facts__ext_method(cls.idx, cls.cls, c->method, mlen, out, 0) && out->idx != idx;
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

/* Whether class `cls` of `mod` is an nn.Module: as its module's build
 * found (by names and local bases), or through a base class imported from
 * another module of the project (a module read for context was built
 * without looking at other modules). */
static bool tl_facts__ext_module_class(const TlIndex *mod, int32_t cls, int depth)
{
	const TlClass *c = &mod->classes.items[cls];
	if (c->is_module)
		return true;
	if (depth > TL_EXT_DEPTH)
		return false;
	for (uint32_t i = 0; i < c->bases.size; i++)
		if (tl_facts__ext_module_class(mod, c->bases.items[i], depth + 1))
			return true;
	for (uint32_t i = 0; i < c->base_qnames.size; i++) {
		TlExtDef b;
		const char *bq = c->base_qnames.items[i];
		if (tl_facts__ext_def_in(mod, bq, strlen(bq), &b, depth + 1) && b.func < 0 &&
		    b.cls >= 0 && tl_facts__ext_module_class(b.idx, b.cls, depth + 1))
			return true;
	}
	return false;
}

static bool tl_facts__ext_holds_params(const TlIndex *mod, int32_t cls, int depth);

/* Whether `v`, the value a method of a class of `mod` binds to `self.x`,
 * may hold parameters: a torch.nn layer or Parameter, a module class of
 * the project that holds some, or anything whose kind cannot be told (a
 * parameter, a call of an unknown function); not a function defined or
 * imported from the project, a literal or a plain expression. */
static bool tl_facts__ext_value_params(const TlIndex *mod, TSNode v, int depth)
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
		if (cb && cb->kind == TL_BIND_CLASS)
			return tl_facts__ext_holds_params(mod, cb->ref, depth + 1);
		if (cb && cb->kind == TL_BIND_DEF)
			return false; /* a local function's result: judged no further */
		TlExtDef d;
		if (c->qname && tl_facts__ext_def_in(mod, c->qname, strlen(c->qname), &d, depth + 1)) {
			if (d.func >= 0)
				return false;
			return tl_facts__ext_holds_params(d.idx, d.cls, depth + 1);
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
			return !(b->qname && tl_facts__ext_def_in(mod, b->qname, strlen(b->qname), &d,
								   depth + 1) && d.func >= 0);
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
 * register_parameter / add_module, or a base class (a torch.nn layer, a
 * class of the project that holds some, or one that cannot be read) does. */
static bool tl_facts__ext_holds_params(const TlIndex *mod, int32_t cls, int depth)
{
	if (depth > TL_EXT_DEPTH || cls < 0 || (uint32_t)cls >= mod->classes.size)
		return true;
	const TlClass *c = &mod->classes.items[cls];
	for (uint32_t i = 0; i < c->base_qnames.size; i++) {
		const char *bq = c->base_qnames.items[i];
		if (tl_facts__starts(bq, "torch.nn.") && strcmp(bq, "torch.nn.Module") != 0 &&
		    strcmp(bq, "torch.nn.modules.module.Module") != 0)
			return true;
		TlExtDef d;
		if (tl_facts__ext_def_in(mod, bq, strlen(bq), &d, depth + 1)) {
			if (d.func < 0 && d.cls >= 0 && tl_facts__ext_holds_params(d.idx, d.cls, depth + 1))
				return true;
		} else if (!tl_facts__torch_qname(bq)) {
			return true; /* a base that cannot be read */
		}
	}
	for (uint32_t i = 0; i < c->bases.size; i++)
		if (tl_facts__ext_holds_params(mod, c->bases.items[i], depth + 1))
			return true;
	for (uint32_t f = 0; f < mod->funcs.size; f++) {
		if (mod->funcs.items[f].cls != cls)
			continue;
		const TlIntArray *binds = tl_index_scope_binds(mod, (int32_t)f);
		for (uint32_t k = 0; binds && k < binds->size; k++) {
			const TlBinding *b = &mod->bindings.items[binds->items[k]];
			if ((b->kind == TL_BIND_ASSIGN || b->kind == TL_BIND_AUG) &&
			    strncmp(b->name, "self.", 5) == 0 && !strchr(b->name + 5, '.') &&
			    (b->elem >= 0 || tl_facts__ext_value_params(mod, b->value, depth + 1)))
				return true;
		}
		const TlIntArray *calls = tl_index_scope_calls(mod, (int32_t)f);
		for (uint32_t k = 0; calls && k < calls->size; k++) {
			const TlCall *k2 = &mod->calls.items[calls->items[k]];
			if ((tl_api_method_sets(k2->method) | tl_api_builtin_sets(k2->method)) & TL_APIS_REGISTERS)
				return true;
			if (k2->qname && strcmp(k2->qname, "setattr") == 0)
				return true;
		}
	}
	return false;
}

bool tl_facts__ext_class_is_model(const TlIndex *idx, const char *q)
{
	TlExtDef d;
	if (!q || !idx->imports)
		return false;
	tl_facts__ext_enter(idx);
	bool yes = tl_facts__ext_def_in(idx, q, strlen(q), &d, 0) && d.func < 0 && d.cls >= 0 &&
		   tl_facts__ext_module_class(d.idx, d.cls, 0) &&
		   tl_facts__ext_holds_params(d.idx, d.cls, 0);
	tl_facts__ext_leave(idx);
	return yes;
}

bool tl_facts__ext_class_is_module(const TlIndex *idx, const char *q)
{
	TlExtDef d;
	if (!q || !idx->imports)
		return false;
	tl_facts__ext_enter(idx);
	bool yes = tl_facts__ext_def_in(idx, q, strlen(q), &d, 0) && d.func < 0 && d.cls >= 0 &&
		   tl_facts__ext_module_class(d.idx, d.cls, 0);
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
	if (tl_facts__ext_def_in(idx, q, strlen(q), &d, 0) && d.func < 0 && d.cls >= 0) {
		snprintf(buf, size, "%s", d.idx->classes.items[d.cls].name);
		name = buf;
	}
	tl_facts__ext_leave(idx);
	return name;
}
