/* The model of a module (model.h): built once, kept with the index, and
 * released with it; the values it records; class attributes; other
 * modules' models through the project, and the names resolved in them;
 * functions' summaries; what the module's backwards consume, its string
 * keys used as tensors, the attributes its classes bind (passes over the
 * index before any interpretation); the lookups. The order the functions
 * are interpreted in, and when, is run.c's. */
#include "model/model_internal.h"

#include <string.h>

#include "base/alloc.h"
#include "base/budget.h"
#include "base/strmap.h"
#include "model/apitable.h"
#include "syntax/syms.h"
#include "syntax/treewalk.h"
#include "syntax/walk.h"

/* Modules a module's star imports reach (its star table), itself
 * included: a size, not a depth. */
#define TL_MODEL_STAR_MODULES 64

/* Models being built on this thread, one inside another (an import's). */
_Thread_local int tl_model__nesting;

static void tl_model__release(TlModel *m)
{
	if (!m)
		return;
	tl_model__backprop_release(m);
	tl_val_pool_release(&m->pool);
	tl_path_names_release(&m->names);
	tl_scopemap_release(&m->vals);
	tl_scopemap_release(&m->attrs);
	tl_scopemap_release(&m->buffers);
	tl_scopemap_release(&m->kept_attr);
	tl_scopemap_release(&m->backprop);
	tl_model__flow_release(m);
	tl_model__vary_release(m);
	tl_scopemap_release(&m->declared);
	tl_scopemap_release(&m->tensor_keys);
	tl_scopemap_release(&m->ctx_vals);
	tl_scopemap_release(&m->ctx_seen);
	tl_scopemap_release(&m->ctx_site);
	tl_scopemap_release(&m->ctx_left);
	tl_scopemap_release(&m->dflt);
	tl_scopemap_release(&m->passed);
	tl_free(m->ext_cst);
	tl_free(m->ctor_count);
	tl_free(m->ctor_from);
	tl_array_release(&m->ctor_calls);
	tl_free(m->elsewhere);
	tl_scopemap_release(&m->call_at);
	tl_scopemap_release(&m->attr_read);
	tl_scopemap_release(&m->attr_stores);
	tl_array_release(&m->stores);
	tl_scopemap_release(&m->inplace);
	tl_scopemap_release(&m->carried);
	tl_array_release(&m->carries);
	tl_scopemap_release(&m->kid_at);
	tl_model__grad_release(m);
	tl_model__modes_release(m);
	tl_model__handed_release(m);
	tl_array_release(&m->kid_spans);
	tl_array_release(&m->kid_nodes);
	tl_array_release(&m->funcs);
	tl_state_release(&m->globals);
	tl_array_release(&m->order);
	tl_array_release(&m->starts);
	for (uint32_t c = 0; c < m->comp_edges.size; c++)
		tl_array_release(&m->comp_edges.items[c]);
	tl_array_release(&m->comp_edges);
	for (uint32_t c = 0; c < m->comp_from.size; c++)
		tl_array_release(&m->comp_from.items[c]);
	tl_array_release(&m->comp_from);
	tl_array_release(&m->requested);
	tl_model__deps_release(m);
	tl_free(m->comp_of);
	tl_free(m->comp_done);
	tl_free(m->from_module);
	tl_free(m->holds_none);
	tl_free(m->holds_no_state);
	tl_free(m->around[0]);
	tl_free(m->around[1]);
	tl_free(m->around[2]);
	tl_free(m);
}

void tl_model__record(TlModel *m, uint32_t start, uint32_t end, const TlVal *v)
{
	/* The last evaluation is kept: it ran from the highest state (a
	 * loop's last round, the last pass), and every one before it from a
	 * lower one. */
	int32_t at;
	TlVal nv = *v;
	nv.next = -1;
	if (tl_scopemap_get(&m->vals, start, end, &at)) {
		TlVal old = m->pool.vals.items[at];
		if (tl_val_equal(&m->pool, &old, &nv))
			return;
	} else {
		m->stats.values++;
	}
	tl_scopemap_put(&m->vals, start, end, tl_val_pool_add(&m->pool, nv));
}

void tl_model__wrap_in_place(TlModel *m, int32_t cls, int32_t name, unsigned wrap)
{
	int32_t at = 0;
	if (tl_scopemap_get(&m->inplace, (uint32_t)cls, (uint32_t)name, &at) && ((unsigned)at | wrap) == (unsigned)at)
		return;
	tl_scopemap_put(&m->inplace, (uint32_t)cls, (uint32_t)name, (int32_t)((unsigned)at | wrap));
	m->changed = true;
	tl_model__dep_attr_changed(m, cls, name);
}

void tl_model__store_attr(TlModel *m, int32_t cls, int32_t name, const TlVal *v, uint32_t site)
{
	int32_t at, first = -1, mine = -1;
	TlVal nv = *v;
	nv.next = -1;
	/* What follows the storing method's parameters means nothing to the
	 * other methods that read the attribute (bit 1 of `__init__`'s
	 * `num_steps` is not bit 1 of `insert`'s `obs`): their history is
	 * not known there. */
	if (nv.pgraph && nv.graph == TL_VG_BOT)
		nv.graph = TL_VG_UNKNOWN;
	nv.pgraph = nv.pcall = nv.pold = 0;
	nv.punwrap = 0;
	nv.fresh = 0; /* nor where its rounds or its run made it (fresh.c) */
	nv.pnograd = 0; /* resolved by the storing call (tl_in__ng_store) */
	/* Each store keeps what its last evaluation stored: it ran from the
	 * method's highest state (the attributes and contexts it reads known),
	 * every one before from a lower one, which a join would keep (a
	 * tensor stored while the device it was moved to was not known yet). */
	if (tl_scopemap_get(&m->attr_stores, (uint32_t)cls, (uint32_t)name, &first))
		for (int32_t k = first; k >= 0 && mine < 0; k = m->stores.items[k].next)
			if (m->stores.items[k].site == site)
				mine = k;
	bool fell = false;
	if (mine >= 0) {
		TlVal old = m->pool.vals.items[m->stores.items[mine].val];
		bool same = tl_val_equal(&m->pool, &old, &nv);
		tl_model__dep_stamp_store(m, site, !same);
		if (same)
			return;
		TlVal up = tl_val_join(&m->pool, &old, &nv);
		fell = !tl_val_equal(&m->pool, &up, &nv);
		m->stores.items[mine].val = tl_val_pool_add(&m->pool, nv);
	} else {
		tl_model__dep_stamp_store(m, site, false);
		TlAttrStore st = { site, tl_val_pool_add(&m->pool, nv), first };
		tl_array_push(&m->stores, st);
		tl_scopemap_put(&m->attr_stores, (uint32_t)cls, (uint32_t)name, (int32_t)m->stores.size - 1);
		first = (int32_t)m->stores.size - 1;
	}
	if (fell) {
		nv = tl_val_bot();
		for (int32_t k = first; k >= 0; k = m->stores.items[k].next) {
			TlVal sv = m->pool.vals.items[m->stores.items[k].val];
			nv = tl_val_join(&m->pool, &nv, &sv);
		}
		nv.next = -1;
	}
	if (tl_scopemap_get(&m->attrs, (uint32_t)cls, (uint32_t)name, &at)) {
		TlVal old = m->pool.vals.items[at];
		TlVal j = fell ? nv : tl_val_join(&m->pool, &old, &nv);
		if (tl_val_equal(&m->pool, &old, &j))
			return;
		nv = j;
		nv.next = -1;
		/* It changed after a method read it (`self.entries` read, then
		 * appended to): that method read a value not final yet, as it
		 * would one not computed yet, so another round runs whatever
		 * else rose in this one (the passes' end must not depend on
		 * which other functions were interpreted with it). */
		if (tl_scopemap_get(&m->attr_read, (uint32_t)cls, (uint32_t)name, &at))
			m->pending = true;
	}
	m->changed = true;
	tl_model__dep_attr_changed(m, cls, name);
	tl_scopemap_put(&m->attrs, (uint32_t)cls, (uint32_t)name, tl_val_pool_add(&m->pool, nv));
}

void tl_model__store_buffer(TlModel *m, int32_t cls, int32_t name, bool nograd)
{
	int32_t old;
	bool had = tl_scopemap_get(&m->buffers, (uint32_t)cls, (uint32_t)name, &old);
	int32_t now = had ? (old && nograd) : nograd;
	if (had && now == old)
		return;
	tl_scopemap_put(&m->buffers, (uint32_t)cls, (uint32_t)name, now);
	m->changed = true;
	tl_model__dep_attr_changed(m, cls, name);
	int32_t at;
	if (tl_scopemap_get(&m->attr_read, (uint32_t)cls, (uint32_t)name, &at))
		m->pending = true;
}

int tl_model__buffer_nograd(TlModel *m, int32_t cls, int32_t name)
{
	tl_model__dep_attr(m, cls, name);
	tl_scopemap_put(&m->attr_read, (uint32_t)cls, (uint32_t)name, 1);
	int32_t v;
	return tl_scopemap_get(&m->buffers, (uint32_t)cls, (uint32_t)name, &v) ? v : -1;
}

/* ---- other modules ---------------------------------------------------------- */

void tl_model__enter(const TlIndex *idx)
{
	idx->imports->enter(idx->imports);
	tl_bound_suspend();
}

void tl_model__leave(const TlIndex *idx)
{
	tl_bound_resume();
	idx->imports->leave(idx->imports);
}

static TlModel *tl_model__build(const TlIndex *idx, bool quiet);

/* The model of `mod` when it is another module than m's (its index is
 * shared: read under the project's lock, which the caller holds). */
const TlModel *tl_model__other(const TlModel *m, const TlIndex *mod)
{
	if (mod == m->idx)
		return m;
	if (mod->model)
		return mod->model->building ? NULL : mod->model;
	if (tl_model__nesting >= TL_MODEL_MODULE_NEST)
		return NULL;
	TlModel *built = tl_model__build(mod, true);
	return built && !built->building ? built : NULL;
}

/* Names whose root is a package of the table's set api-package (torch,
 * torchvision, torchaudio, numpy), or `builtins` (the table's builtin
 * rows), are the API (api/api.tsv), never a module of the project, as
 * Python finds an installed PyTorch first. */
static bool tl_model__api_root(const char *q, size_t len)
{
	size_t r = 0;
	while (r < len && q[r] != '.')
		r++;
	return (r == 8 && memcmp(q, "builtins", 8) == 0) ||
	       (tl_api_package_sets(q, len) & TL_APIS_API_PACKAGE);
}

/* True when `from` is a module of PyTorch's own packages (by the top of
 * its package chain): a relative import there names the API, as its
 * absolute spelling does, and no module is read for it (the facts layer
 * reads them so too). */
bool tl_model__torch_package(const TlIndex *from)
{
	return from->imports->package && tl_api_own_package(from->imports->package(from->imports, from));
}

/* What `rest` (a name, or "Class.method") names in module `mod`: 1 a
 * value (*out), 0 nothing known, 2 a re-export there (`from .a import X`
 * in an __init__): binding *next of module *next_mod, whose qualified
 * name names it in turn. */
enum { TL_IN_NONE, TL_IN_VALUE, TL_IN_REEXPORT };
static int tl_model__in_module(TlModel *m, const TlIndex *mod, const char *rest, size_t len, TlVal *out,
			       const TlIndex **next_mod, const TlBinding **next, const char **tail);

/* The module of the project that the longest prefix of dotted name `q`
 * names, as module `from` imports it; *rest, *rest_len: what follows. */
static const TlIndex *tl_model__module_prefix(const TlIndex *from, const char *q, size_t len, const char **rest,
					      size_t *rest_len)
{
	if (!from->imports || !len || len >= 512)
		return NULL;
	size_t lead = 0;
	while (lead < len && q[lead] == '.')
		lead++;
	if (!lead && tl_model__api_root(q, len))
		return NULL;
	if (lead && tl_model__torch_package(from))
		return NULL;
	/* The longest prefix that names a module of the project holds the rest. */
	for (size_t cut = len; cut > 0 && cut >= lead; cut--) {
		if (cut < len && q[cut] != '.' && cut != lead)
			continue; /* a prefix ends at a dot, or is the relative package itself */
		if (cut == lead && cut == len)
			continue;
		const TlIndex *mod = from->imports->module(from->imports, from, q, cut);
		if (!mod)
			continue;
		if (cut == len)
			return NULL; /* a module, not what it defines */
		*rest = cut == lead ? q + lead : q + cut + 1;
		*rest_len = (size_t)(q + len - *rest);
		return mod;
	}
	return NULL;
}

const TlIndex *tl_model__module_of_name(const TlIndex *from, const char *q)
{
	const char *rest;
	size_t rest_len;
	if (!from->imports || !q)
		return NULL;
	tl_model__enter(from);
	const TlIndex *mod = tl_model__module_prefix(from, q, strlen(q), &rest, &rest_len);
	tl_model__leave(from);
	return mod;
}

/* What dotted name `q` names, as module `from` imports it. A chain of
 * re-exports (`from .blocks import Block` in an __init__, Block there
 * imported from another module in turn; `pkg.Trainer.step` through the
 * __init__ that re-exports Trainer) is followed to its end, each binding
 * once: a chain that comes back to a binding it passed (modules that
 * re-export a name from each other) names nothing. */
bool tl_model__resolve_in(TlModel *m, const TlIndex *from, const char *q, size_t len, TlVal *out)
{
	TlArray(const TlBinding *) passed;
	tl_array_init(&passed);
	TlBuf name, next_name;
	tl_buf_init(&name);
	tl_buf_init(&next_name);
	int got = TL_IN_NONE;
	for (;;) {
		const char *rest, *tail = NULL;
		size_t rest_len;
		const TlIndex *mod = tl_model__module_prefix(from, q, len, &rest, &rest_len);
		const TlBinding *next = NULL;
		got = mod ? tl_model__in_module(m, mod, rest, rest_len, out, &from, &next, &tail) : TL_IN_NONE;
		if (got != TL_IN_REEXPORT)
			break;
		bool again = false;
		for (uint32_t i = 0; i < passed.size && !again; i++)
			again = passed.items[i] == next;
		if (again) {
			got = TL_IN_NONE;
			break;
		}
		tl_array_push(&passed, next);
		/* The binding's name, then what followed the re-exported one. */
		tl_buf_clear(&next_name);
		tl_buf_add(&next_name, next->qname);
		if (tail)
			tl_buf_addn(&next_name, tail, (size_t)(q + len - tail));
		tl_buf_clear(&name);
		tl_buf_add(&name, next_name.data);
		q = name.data;
		len = name.len;
	}
	tl_buf_release(&name);
	tl_buf_release(&next_name);
	tl_array_release(&passed);
	return got == TL_IN_VALUE;
}

bool tl_model_reads_no_module(const TlIndex *idx)
{
	if (!idx->imports)
		return true;
	if (!idx->imports->may_name)
		return false;
	/* getattr(module, name) reads the module (dynamic.c) */
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (!c->receiver.id && c->method && strcmp(c->method, "getattr") == 0)
			return false;
	}
	/* Every other module is read through an import (tl_model__resolve_in,
	 * star imports): those of PyTorch's API are never read. */
	for (uint32_t i = 0; i < idx->bindings.size; i++) {
		const TlBinding *b = &idx->bindings.items[i];
		size_t len = b->kind == TL_BIND_IMPORT && b->qname ? strlen(b->qname) : 0;
		if (!len)
			continue;
		bool relative = b->qname[0] == '.';
		if ((!relative && tl_model__api_root(b->qname, len)) || (relative && tl_model__torch_package(idx)))
			continue;
		if (idx->imports->may_name(idx->imports, idx, b->qname, len))
			return false;
	}
	return true;
}

/* A module's star table (TlIndex.stars): the modules its star imports of
 * project modules reach, theirs too, breadth first, each once (a
 * seen-set ends imports of each other), at most TL_MODEL_STAR_MODULES
 * with the module itself; PyTorch's and the libraries' are not read. Built
 * once per module, when a lookup first needs it; then, per name looked up,
 * the first of them that binds it (its position, -1 none), kept. */
struct TlStarTable {
	TlArray(const TlIndex *) mods;
	TlStrMap names;
};

static void tl_model__stars_release(struct TlStarTable *t)
{
	if (!t)
		return;
	tl_array_release(&t->mods);
	tl_strmap_release(&t->names);
	tl_free(t);
}

/* The star table of `mod`, built on first use; under the project's lock
 * (an imported module's index is shared by the threads that analyse its
 * importers, and so is its table). */
static struct TlStarTable *tl_model__stars(const TlIndex *mod)
{
	if (mod->stars)
		return mod->stars;
	struct TlStarTable *t = tl_calloc(1, sizeof *t);
	tl_array_init(&t->mods);
	tl_strmap_init(&t->names);
	tl_array_push(&t->mods, mod);
	for (uint32_t head = 0; head < t->mods.size; head++) {
		const TlIndex *cur = t->mods.items[head];
		const TlIntArray *stars = tl_index_bindings_of(cur, -1, "*");
		for (uint32_t i = 0; stars && cur->imports && i < stars->size; i++) {
			const TlBinding *b = &cur->bindings.items[stars->items[i]];
			size_t ql = b->qname ? strlen(b->qname) : 0;
			if (!ql || (b->qname[0] != '.' && tl_model__api_root(b->qname, ql)) ||
			    (b->qname[0] == '.' && tl_model__torch_package(cur)))
				continue;
			const TlIndex *target = cur->imports->module(cur->imports, cur, b->qname, ql);
			bool known = !target;
			for (uint32_t k = 0; k < t->mods.size && !known; k++)
				known = t->mods.items[k] == target;
			if (!known && t->mods.size < TL_MODEL_STAR_MODULES)
				tl_array_push(&t->mods, target);
		}
	}
	TlIndex *w = (TlIndex *)mod; /* a cache: no answer changes */
	w->stars = t;
	w->stars_release = tl_model__stars_release;
	return t;
}

/* The module-level bindings of `name` in `mod`, else in the first module
 * of its star table that binds it (*owner), or NULL. */
static const TlIntArray *tl_model__star_bindings(const TlIndex *mod, const char *name, const TlIndex **owner)
{
	const TlIntArray *all = tl_index_bindings_of(mod, -1, name);
	if (all && all->size) {
		*owner = mod;
		return all;
	}
	const TlIntArray *stars = tl_index_bindings_of(mod, -1, "*");
	if (!stars || !stars->size || !mod->imports)
		return NULL;
	/* The table and its names are filled under the project's lock: two
	 * threads may look names up in one imported module's table at once
	 * (a map that grows under a reader loses entries or worse). */
	mod->imports->enter(mod->imports);
	struct TlStarTable *t = tl_model__stars(mod);
	size_t len = strlen(name);
	int32_t at;
	if (!tl_strmap_get(&t->names, name, len, &at)) {
		at = -1;
		for (uint32_t k = 1; k < t->mods.size && at < 0; k++) {
			all = tl_index_bindings_of(t->mods.items[k], -1, name);
			if (all && all->size)
				at = (int32_t)k;
		}
		tl_strmap_put(&t->names, name, len, at);
	}
	const TlIndex *found = at >= 0 ? t->mods.items[at] : NULL;
	mod->imports->leave(mod->imports);
	if (!found)
		return NULL;
	*owner = found;
	return tl_index_bindings_of(found, -1, name);
}

bool tl_model__star_name(TlModel *m, const char *name, TlVal *out)
{
	const TlIndex *idx = m->idx;
	const TlIntArray *stars = tl_index_bindings_of(idx, -1, "*");
	if (!idx->imports || !stars || !stars->size)
		return false;
	tl_model__enter(idx);
	const TlIndex *owner = NULL;
	const TlIntArray *all = tl_model__star_bindings(idx, name, &owner);
	const TlBinding *b = all && owner != idx ? &owner->bindings.items[all->items[all->size - 1]] : NULL;
	bool yes = false;
	if (b && ((b->kind == TL_BIND_CLASS && b->ref >= 0) || (b->kind == TL_BIND_DEF && b->ref >= 0))) {
		*out = tl_val_of(b->kind == TL_BIND_CLASS ? TL_VK_CLASS : TL_VK_FUNCTION, TL_VG_NONE);
		out->ref = b->ref;
		out->mod = owner;
		yes = true;
	} else if (b && b->kind == TL_BIND_IMPORT && b->qname) {
		/* a re-export there (`from .blocks import Block`): what it names,
		 * a class or function of the project only */
		yes = tl_model__resolve_in(m, owner, b->qname, strlen(b->qname), out) &&
		      (out->kind == TL_VK_CLASS || out->kind == TL_VK_FUNCTION);
	}
	tl_model__leave(idx);
	return yes;
}

bool tl_model_star_class(const TlIndex *idx, const char *name, const TlIndex **mod, int32_t *cls)
{
	const TlIntArray *stars = tl_index_bindings_of(idx, -1, "*");
	if (!idx->imports || !stars || !stars->size || tl_index_bindings_of(idx, -1, name))
		return false;
	const TlIndex *owner = NULL;
	tl_model__enter(idx);
	const TlIntArray *all = tl_model__star_bindings(idx, name, &owner);
	tl_model__leave(idx);
	const TlBinding *b = all && owner != idx ? &owner->bindings.items[all->items[all->size - 1]] : NULL;
	if (!b || b->kind != TL_BIND_CLASS || b->ref < 0)
		return false;
	*mod = owner;
	*cls = b->ref;
	return true;
}

bool tl_model_star_def(const TlIndex *idx, const char *name, const TlIndex **mod, int32_t *func, int32_t *cls)
{
	const TlIntArray *stars = tl_index_bindings_of(idx, -1, "*");
	if (!idx->imports || !stars || !stars->size || tl_index_bindings_of(idx, -1, name))
		return false;
	const TlIndex *owner = NULL;
	TlVal v = tl_val_of(TL_VK_TOP, TL_VG_NONE);
	tl_model__enter(idx);
	const TlIntArray *all = tl_model__star_bindings(idx, name, &owner);
	const TlBinding *b = all && owner != idx ? &owner->bindings.items[all->items[all->size - 1]] : NULL;
	if (b && (b->kind == TL_BIND_CLASS || b->kind == TL_BIND_DEF) && b->ref >= 0) {
		v = tl_val_of(b->kind == TL_BIND_CLASS ? TL_VK_CLASS : TL_VK_FUNCTION, TL_VG_NONE);
		v.ref = b->ref;
		v.mod = owner;
	} else if (b && b->kind == TL_BIND_IMPORT && b->qname &&
		   !tl_model__resolve_in(NULL, owner, b->qname, strlen(b->qname), &v)) {
		v.kind = TL_VK_TOP; /* a re-export there of what no module of the project defines */
	}
	tl_model__leave(idx);
	if ((v.kind != TL_VK_CLASS && v.kind != TL_VK_FUNCTION) || v.ref < 0 || !v.mod)
		return false;
	const TlIndex *at = v.mod;
	*mod = at;
	*func = v.kind == TL_VK_FUNCTION ? v.ref : -1;
	*cls = v.kind == TL_VK_CLASS ? v.ref : at->funcs.items[v.ref].cls;
	return true;
}

bool tl_model_class_module(const TlIndex *mod, int32_t cls)
{
	const TlModel *m = tl_model_of(mod);
	if (!m || cls < 0 || (uint32_t)cls >= mod->classes.size)
		return mod->classes.size > (uint32_t)cls && cls >= 0 && mod->classes.items[cls].is_module;
	return tl_model__class_is_module((TlModel *)m, mod, cls);
}

char *tl_model__star_qualify(const TlIndex *mod, const char *q)
{
	const TlIntArray *stars = tl_index_bindings_of(mod, -1, "*");
	size_t root = strcspn(q, ".");
	if (!mod->imports || !stars || !stars->size || !root || root >= 256)
		return NULL;
	char name[256];
	memcpy(name, q, root);
	name[root] = 0;
	const TlIndex *owner = NULL;
	const TlIntArray *all = tl_model__star_bindings(mod, name, &owner);
	const TlBinding *b = all && owner != mod ? &owner->bindings.items[all->items[all->size - 1]] : NULL;
	if (!b || b->kind != TL_BIND_IMPORT || !b->qname || b->qname[0] == '.')
		return NULL;
	TlBuf out;
	tl_buf_init(&out);
	tl_buf_add(&out, b->qname);
	tl_buf_add(&out, q + root);
	char *r = tl_strdup(out.data);
	tl_buf_release(&out);
	return r;
}

static int tl_model__in_module(TlModel *m, const TlIndex *mod, const char *rest, size_t len, TlVal *out,
			       const TlIndex **next_mod, const TlBinding **next, const char **tail)
{
	char name[256];
	size_t dot = 0;
	while (dot < len && rest[dot] != '.')
		dot++;
	if (!dot || dot >= sizeof name)
		return TL_IN_NONE;
	memcpy(name, rest, dot);
	name[dot] = '\0';
	const TlIntArray *all = tl_model__star_bindings(mod, name, &mod);
	if (!all)
		return TL_IN_NONE;
	const TlBinding *b = &mod->bindings.items[all->items[all->size - 1]];
	if (b->kind == TL_BIND_CLASS && b->ref >= 0) {
		if (dot < len) { /* Class.method, or one a base defines */
			const char *meth = rest + dot + 1;
			size_t mlen = len - dot - 1;
			if (!mlen || mlen >= sizeof name || memchr(meth, '.', mlen))
				return TL_IN_NONE;
			memcpy(name, meth, mlen);
			name[mlen] = '\0';
			const TlIndex *where = NULL;
			int32_t f = tl_model__method_far(m, mod, b->ref, name, &where);
			if (f < 0)
				return TL_IN_NONE;
			*out = tl_val_of(TL_VK_FUNCTION, TL_VG_NONE);
			out->ref = f;
			out->mod = where;
			return TL_IN_VALUE;
		}
		*out = tl_val_of(TL_VK_CLASS, TL_VG_NONE);
		out->ref = b->ref;
		out->mod = mod;
		return TL_IN_VALUE;
	}
	if (b->kind == TL_BIND_IMPORT && b->qname) {
		/* A re-export, what follows its name looked up in what it names. */
		*next_mod = mod;
		*next = b;
		*tail = dot < len ? rest + dot : NULL;
		return TL_IN_REEXPORT;
	}
	if (dot < len)
		return TL_IN_NONE;
	if (b->kind == TL_BIND_DEF && b->ref >= 0) {
		*out = tl_val_of(TL_VK_FUNCTION, TL_VG_NONE);
		out->ref = b->ref;
		out->mod = mod;
		return TL_IN_VALUE;
	}
	if (b->kind == TL_BIND_ASSIGN && m && mod != m->idx) {
		const TlModel *om = tl_model__other(m, mod);
		if (!om)
			return TL_IN_NONE;
		/* A name the other model never interned is none of its globals. */
		TlPath p;
		memset(&p, 0, sizeof p);
		p.root = tl_path_lookup(&om->names, name, strlen(name));
		if (p.root < 0)
			return TL_IN_NONE;
		const TlVal *g = tl_state_get(&om->globals, &p);
		if (!g)
			return TL_IN_NONE;
		*out = tl_val_import(&m->pool, &om->pool, g);
		return TL_IN_VALUE;
	}
	return TL_IN_NONE;
}

bool tl_model_project_def(const TlIndex *from, const char *q, const TlIndex **mod, int32_t *func, int32_t *cls)
{
	if (!from->imports || !q)
		return false;
	TlVal v;
	tl_model__enter(from);
	bool yes = tl_model__resolve_in(NULL, from, q, strlen(q), &v) &&
		   (v.kind == TL_VK_CLASS || v.kind == TL_VK_FUNCTION) && v.ref >= 0 && v.mod;
	tl_model__leave(from);
	if (!yes)
		return false;
	const TlIndex *at = v.mod;
	*mod = at;
	*func = v.kind == TL_VK_FUNCTION ? v.ref : -1;
	*cls = v.kind == TL_VK_CLASS ? v.ref : at->funcs.items[v.ref].cls;
	return true;
}

bool tl_model_project_global(const TlIndex *from, const char *q, const TlIndex **mod, const TlBinding **out)
{
	if (!from->imports || !q)
		return false;
	TlBuf name;
	tl_buf_init(&name);
	tl_buf_add(&name, q);
	const TlBinding *found = NULL;
	const TlIndex *asker = from;
	tl_model__enter(asker);
	/* A re-export (`from .zoo import MODELS` in an __init__) is followed
	 * a few steps, as tl_model__resolve_in follows one. */
	for (int step = 0; step < 8 && !found; step++) {
		const char *rest;
		size_t rest_len;
		const TlIndex *at = tl_model__module_prefix(from, name.data, name.len, &rest, &rest_len);
		if (!at || !rest_len || rest_len >= 256 || memchr(rest, '.', rest_len))
			break;
		char n[256];
		memcpy(n, rest, rest_len);
		n[rest_len] = '\0';
		const TlIntArray *all = tl_model__star_bindings(at, n, &at);
		const TlBinding *b = all ? &at->bindings.items[all->items[all->size - 1]] : NULL;
		if (!b)
			break;
		if (b->kind == TL_BIND_IMPORT && b->qname) {
			tl_buf_clear(&name);
			tl_buf_add(&name, b->qname);
			from = at;
			continue;
		}
		if (b->kind == TL_BIND_ASSIGN && b->func < 0 && b->elem < 0 && !ts_node_is_null(b->value)) {
			*mod = at;
			found = b;
		}
		break;
	}
	tl_model__leave(asker);
	tl_buf_release(&name);
	*out = found;
	return found != NULL;
}

int32_t tl_model_class_method(const TlIndex *mod, int32_t cls, const char *name, const TlIndex **where)
{
	if (!mod->imports)
		return tl_model__method_far(NULL, mod, cls, name, where);
	tl_model__enter(mod);
	int32_t f = tl_model__method_far(NULL, mod, cls, name, where);
	tl_model__leave(mod);
	return f;
}

bool tl_model__resolve(TlModel *m, const char *qname, TlVal *out)
{
	const TlIndex *idx = m->idx;
	if (!idx->imports || !qname)
		return false;
	tl_model__enter(idx);
	bool yes = tl_model__resolve_in(m, idx, qname, strlen(qname), out);
	tl_model__leave(idx);
	return yes;
}

int32_t tl_model__method(const TlIndex *mod, int32_t cls, const char *name, const TlIndex **where)
{
	/* The class, then its bases in the same module, breadth first. */
	int32_t todo[16];
	uint32_t n = 0, head = 0;
	todo[n++] = cls;
	while (head < n) {
		int32_t k = todo[head++];
		if (k < 0 || (uint32_t)k >= mod->classes.size)
			continue;
		int32_t f = tl_index_method(mod, k, name, strlen(name));
		if (f >= 0) {
			*where = mod;
			return f;
		}
		const TlClass *c = &mod->classes.items[k];
		for (uint32_t i = 0; i < c->bases.size && n < 16; i++)
			todo[n++] = c->bases.items[i];
	}
	return -1;
}

/* The first base of class `c` (of `mod`) that another module of the
 * project defines: that module, and the class's index in it in *cls;
 * NULL when none. */
const TlIndex *tl_model__far_base(TlModel *m, const TlIndex *mod, const TlClass *c, int32_t *cls)
{
	for (uint32_t i = 0; i < c->base_qnames.size; i++) {
		const char *q = c->base_qnames.items[i];
		TlVal v;
		const TlIndex *at = m ? m->idx : mod;
		tl_model__enter(at);
		bool yes = q && tl_model__resolve_in(m, mod, q, strlen(q), &v);
		tl_model__leave(at);
		if (yes && v.kind == TL_VK_CLASS && v.ref >= 0 && v.mod && v.mod != (const void *)mod) {
			*cls = v.ref;
			return v.mod;
		}
	}
	return NULL;
}

void tl_model__class_walk_begin(TlClassWalk *w, TlModel *m, const TlIndex *mod, int32_t cls)
{
	w->m = m;
	w->n = w->visited = 0;
	w->far = (m ? m->idx : mod)->imports != NULL;
	w->stack[w->n].mod = mod;
	w->stack[w->n].cls = cls;
	w->stack[w->n++].base = NULL;
}

const TlIndex *tl_model__class_walk_next(TlClassWalk *w, int32_t *cls)
{
	while (w->n) {
		const TlIndex *at = w->stack[--w->n].mod;
		int32_t k = w->stack[w->n].cls;
		const char *base = w->stack[w->n].base;
		if (base) {
			TlVal v;
			const TlIndex *lock = w->m ? w->m->idx : at;
			tl_model__enter(lock);
			bool yes = tl_model__resolve_in(w->m, at, base, strlen(base), &v);
			tl_model__leave(lock);
			if (!yes || v.kind != TL_VK_CLASS || v.ref < 0 || !v.mod)
				continue;
			at = v.mod;
			k = v.ref;
		}
		if (k < 0 || (uint32_t)k >= at->classes.size)
			continue;
		bool again = false;
		for (uint32_t i = 0; i < w->visited && !again; i++)
			again = w->seen[i].mod == at && w->seen[i].cls == k;
		if (again || w->visited >= TL_MODEL_WALK_CLASSES)
			continue;
		w->seen[w->visited].mod = at;
		w->seen[w->visited++].cls = k;
		/* Pushed last first: the first local base is walked first, then
		 * the bases named in other modules. */
		const TlClass *c = &at->classes.items[k];
		if (w->far && at->imports)
			for (uint32_t i = c->base_qnames.size; i-- > 0 && w->n < TL_MODEL_WALK_CLASSES;) {
				if (!c->base_qnames.items[i])
					continue;
				w->stack[w->n].mod = at;
				w->stack[w->n].cls = -1;
				w->stack[w->n++].base = c->base_qnames.items[i];
			}
		for (uint32_t i = c->bases.size; i-- > 0 && w->n < TL_MODEL_WALK_CLASSES;) {
			w->stack[w->n].mod = at;
			w->stack[w->n].cls = c->bases.items[i];
			w->stack[w->n++].base = NULL;
		}
		*cls = k;
		return at;
	}
	return NULL;
}

int32_t tl_model__method_far(TlModel *m, const TlIndex *mod, int32_t cls, const char *name,
			     const TlIndex **where)
{
	TlClassWalk w;
	tl_model__class_walk_begin(&w, m, mod, cls);
	size_t len = strlen(name);
	int32_t k;
	for (const TlIndex *at; (at = tl_model__class_walk_next(&w, &k));) {
		int32_t f = tl_index_method(at, k, name, len);
		if (f >= 0) {
			*where = at;
			return f;
		}
	}
	return -1;
}

bool tl_model_class_derives_module(const TlIndex *mod, int32_t cls)
{
	if (cls < 0 || (uint32_t)cls >= mod->classes.size)
		return false;
	if (mod->classes.items[cls].is_module)
		return true;
	if (mod->imports)
		tl_model__enter(mod);
	TlClassWalk w;
	tl_model__class_walk_begin(&w, NULL, mod, cls);
	bool yes = false;
	int32_t k;
	for (const TlIndex *at; !yes && (at = tl_model__class_walk_next(&w, &k));)
		yes = at->classes.items[k].is_module;
	if (mod->imports)
		tl_model__leave(mod);
	return yes;
}

/* A base of class `c` of `mod` named through a star import of a project
 * module (`class Net(nn.Module)` after `from .parts import *`, whose
 * module imports torch.nn as nn): the index qualifies no such name. */
static bool tl_model__star_module_base(const TlIndex *mod, const TlClass *c)
{
	const TlSyms *sy = tl_syms();
	const TlIntArray *stars = tl_index_bindings_of(mod, -1, "*");
	TSNode sup = stars && stars->size ? tl_tree_field(c->node, sy->f_superclasses) : (TSNode){ 0 };
	uint32_t count = ts_node_is_null(sup) ? 0 : ts_node_named_child_count(sup);
	bool yes = false;
	TlBuf text;
	tl_buf_init(&text);
	for (uint32_t k = 0; k < count && !yes; k++) {
		TSNode base = ts_node_named_child(sup, k);
		tl_buf_clear(&text);
		if (ts_node_symbol(base) != sy->attribute || !tl_index_dotted(mod, base, &text))
			continue;
		char *q = tl_model__star_qualify(mod, text.data);
		const TlApiRow *r = q ? tl_api_qualified(q) : NULL;
		yes = r && r->kind == TL_APIK_MODULE;
		tl_free(q);
	}
	tl_buf_release(&text);
	return yes;
}

bool tl_model__class_is_module(TlModel *m, const TlIndex *mod, int32_t cls)
{
	if (mod->classes.items[cls].is_module)
		return true;
	/* Its bases (tl_model__bases_next), or one the API table says is a
	 * module class (transformers.PreTrainedModel). */
	TlBaseWalk w;
	tl_model__bases_begin(&w, mod, cls);
	const TlIndex *at;
	for (const TlClass *c; (c = tl_model__bases_next(m, &w, &at));) {
		if (c->is_module)
			return true;
		for (uint32_t i = 0; i < c->base_qnames.size; i++) {
			const char *bq = c->base_qnames.items[i];
			const TlApiRow *r = bq ? tl_api_qualified(bq) : NULL;
			if (bq && !r)
				r = tl_api_under(bq); /* torchvision.models.resnet.ResNet */
			if (r && r->kind == TL_APIK_MODULE)
				return true;
		}
		if (tl_model__star_module_base(at, c))
			return true;
	}
	return false;
}

void tl_model__bases_begin(TlBaseWalk *w, const TlIndex *mod, int32_t cls)
{
	w->n = w->head = 0;
	w->todo[w->n].mod = mod;
	w->todo[w->n++].cls = cls;
}

const TlClass *tl_model__bases_next(TlModel *m, TlBaseWalk *w, const TlIndex **at)
{
	while (w->head < w->n) {
		const TlIndex *mod = w->todo[w->head].mod;
		int32_t k = w->todo[w->head++].cls;
		if (k < 0 || (uint32_t)k >= mod->classes.size)
			continue;
		const TlClass *c = &mod->classes.items[k];
		for (uint32_t i = 0; i < c->bases.size && w->n < 16; i++, w->n++) {
			w->todo[w->n].mod = mod;
			w->todo[w->n].cls = c->bases.items[i];
		}
		int32_t far = -1;
		const TlIndex *next = mod->imports && m->idx->imports ? tl_model__far_base(m, mod, c, &far) : NULL;
		if (next && w->n < 16) {
			w->todo[w->n].mod = next;
			w->todo[w->n++].cls = far;
		}
		*at = mod;
		return c;
	}
	return NULL;
}

bool tl_model__class_attr(TlModel *m, const TlIndex *mod, int32_t cls, int32_t name, const char *text,
			  TlVal *out)
{
	const TlModel *om = m;
	bool ext = mod != m->idx;
	if (ext) {
		if (!m->idx->imports)
			return false;
		tl_model__enter(m->idx);
		om = tl_model__other(m, mod);
	}
	bool found = false;
	if (om) {
		int32_t id = ext ? tl_path_lookup(&om->names, text, strlen(text)) : name;
		int32_t todo[16];
		uint32_t n = 0, head = 0;
		todo[n++] = cls;
		while (id >= 0 && head < n && !found) {
			int32_t k = todo[head++];
			if (k < 0 || (uint32_t)k >= mod->classes.size)
				continue;
			if (!ext)
				tl_model__dep_attr(m, k, id);
			int32_t at, wrap;
			if (tl_scopemap_get(&om->attrs, (uint32_t)k, (uint32_t)id, &at)) {
				*out = tl_val_import(&m->pool, &om->pool, &om->pool.vals.items[at]);
				found = true;
				if (!ext)
					tl_scopemap_put(&m->attr_read, (uint32_t)k, (uint32_t)id, 1);
				/* Wrapped in place by a method: what every method reads
				 * is the wrapper of what the stores put there. */
				if (tl_scopemap_get(&om->inplace, (uint32_t)k, (uint32_t)id, &wrap) &&
				    out->kind != TL_VK_WRAPPER) {
					TlVal w = tl_val_of(TL_VK_WRAPPER, TL_VG_NONE);
					w.wrap = (uint8_t)wrap;
					w.ref = out->ref;
					w.mod = out->mod;
					w.elem = tl_val_pool_add(&m->pool, *out);
					*out = w;
				}
			} else if (tl_scopemap_get(&om->declared, (uint32_t)k, (uint32_t)id, &at)) {
				*out = tl_val_bot(); /* stored by a method not run yet */
				m->pending = m->read_pending = true;
				found = true;
				/* asked from a function the class's makers do not reach
				 * (a closure in a method): its constructor, on demand */
				const TlIndex *where = NULL;
				int32_t init = !ext && !m->quiet ? tl_model__method(mod, k, "__init__", &where) : -1;
				if (init >= 0 && where == mod)
					tl_model__dep_summary(m, init, !m->funcs.items[init].status);
				if (init >= 0 && where == mod && !m->funcs.items[init].status)
					tl_array_push(&m->requested, init);
			}
			const TlClass *c = &mod->classes.items[k];
			for (uint32_t i = 0; i < c->bases.size && n < 16; i++)
				todo[n++] = c->bases.items[i];
		}
	}
	if (ext)
		tl_model__leave(m->idx);
	return found;
}

bool tl_model__summary(TlModel *m, const TlIndex *mod, int32_t func, TlVal *out)
{
	if (!mod || func < 0 || (uint32_t)func >= mod->funcs.size)
		return false;
	if (mod == m->idx) {
		const TlFuncSum *s = &m->funcs.items[func];
		*out = s->status ? s->ret : tl_val_bot();
		tl_model__dep_summary(m, func, !s->status && !m->quiet);
		if (!s->status) {
			m->pending = m->read_pending = true;
			if (!m->quiet)
				tl_array_push(&m->requested, func);
		}
		return true;
	}
	if (!m->idx->imports)
		return false;
	tl_model__enter(m->idx);
	const TlModel *om = tl_model__other(m, mod);
	bool yes = false;
	if (om && (uint32_t)func < om->funcs.size && om->funcs.items[func].status) {
		*out = tl_val_import(&m->pool, &om->pool, &om->funcs.items[func].ret);
		yes = true;
	}
	tl_model__leave(m->idx);
	return yes;
}

/* The text of a string key without its quotes, interned. */
static int32_t tl_model__key_id(TlPathNames *names, const TlIndex *idx, TSNode key, bool add)
{
	uint32_t len = 0;
	const char *t = tl_index_text(idx, key, &len);
	if (!t || len < 2 || len > 130)
		return -1;
	char buf[160];
	buf[0] = '#';
	memcpy(buf + 1, t + 1, len - 2);
	return add ? tl_path_intern(names, buf, len - 1) : tl_path_lookup(names, buf, len - 1);
}

bool tl_model__tensor_key(const TlModel *m, const TlIndex *idx, TSNode key)
{
	int32_t id = tl_model__key_id((TlPathNames *)&m->names, idx, key, false), one;
	return id >= 0 && tl_scopemap_get(&m->tensor_keys, 0, (uint32_t)id, &one);
}

/* Adds the string keys of the subscripts in `n` (bounded) to the set. */
static void tl_model__keys_in(TlModel *m, TlTreeWalk *w, TSNode n)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_is_null(n))
		return;
	/* Its first 4,096 nodes in preorder (a tree cursor's steps cost more
	 * than the subtree walk's). */
	tl_tree_walk_start(w, n, 0);
	TlTreeNode t;
	for (uint32_t seen = 0; seen < 4096 && tl_tree_walk_next(w, true, &t); seen++) {
		if (t.symbol != sy->subscript)
			continue;
		TSNode k = tl_tree_field(t.node, sy->f_subscript);
		if (!ts_node_is_null(k) && ts_node_symbol(k) == sy->string) {
			int32_t id = tl_model__key_id(&m->names, m->idx, k, true);
			if (id >= 0)
				tl_scopemap_put(&m->tensor_keys, 0, (uint32_t)id, 1);
		}
	}
}

/* A call of a criterion, as the text shows it before any value is known:
 * the callee named like one (`criterion(...)`, `self.loss_fn(...)`), or a
 * name the same scope binds to a loss class (`ce = nn.CrossEntropyLoss()`). */
static bool tl_model__criterion_call(const TlModel *m, const TlCall *c)
{
	const TlIndex *idx = m->idx;
	const TlSyms *sy = tl_syms();
	TSNode callee = tl_index_unparen(c->callee);
	if (ts_node_is_null(callee) || tl_model__seed_named(m, callee, TL_VK_CRITERION))
		return true;
	if (ts_node_symbol(callee) != sy->identifier && ts_node_symbol(callee) != sy->attribute)
		return false;
	const TlBinding *b = tl_index_resolve_node(idx, callee);
	TSNode v = b && b->kind == TL_BIND_ASSIGN && b->elem < 0 ? tl_index_unparen(b->value) : (TSNode){ { 0 }, NULL, NULL };
	const TlCall *made = !ts_node_is_null(v) && ts_node_symbol(v) == sy->call ? tl_index_call_at(idx, v) : NULL;
	if (!made || !made->qname)
		return false;
	const TlApiRow *r = tl_api_qualified(made->qname);
	if (r)
		return r->kind == TL_APIK_CRITERION;
	size_t n = strlen(made->qname);
	return n > 4 && strcmp(made->qname + n - 4, "Loss") == 0;
}

/* The string keys the module uses as tensors. */
static void tl_model__keys(TlModel *m)
{
	const TlIndex *idx = m->idx;
	const TlSyms *sy = tl_syms();
	TlTreeWalk w;
	tl_tree_walk_init(&w);
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		bool method = c->receiver.id && (tl_api_method_sets(c->method) & TL_APIS_TENSOR_METHOD);
		bool torch_fn = c->qname && strncmp(c->qname, "torch.", 6) == 0;
		if (method && ts_node_symbol(tl_index_unparen(c->receiver)) == sy->subscript)
			tl_model__keys_in(m, &w, c->receiver);
		if (torch_fn || tl_model__criterion_call(m, c))
			tl_model__keys_in(m, &w, tl_tree_field(c->node, sy->f_arguments));
		if (c->events & TL_EV_BACKWARD)
			tl_model__keys_in(m, &w, tl_model_backward_subject(idx, c));
	}
	tl_tree_walk_release(&w);
}

/* `param.attr = ...` in a method, `param` one of its parameters after
 * the first: declared as the class's attribute "param.attr"
 * (tl_in__param_attr). */
static void tl_model__declare_param_attr(TlModel *m, const TlBinding *b)
{
	const TlIndex *idx = m->idx;
	const TlFunc *fn = &idx->funcs.items[b->func];
	const char *dot = strchr(b->name, '.');
	if (fn->cls < 0 || !dot || dot == b->name || strchr(dot + 1, '.') || !dot[1] ||
	    strpbrk(dot + 1, "[(") || strlen(b->name) >= 128)
		return;
	for (uint32_t i = 1; i < fn->params.size && i < 16; i++) {
		const TlBinding *pb = &idx->bindings.items[fn->params.items[i]];
		if (pb->name && strlen(pb->name) == (size_t)(dot - b->name) &&
		    strncmp(pb->name, b->name, (size_t)(dot - b->name)) == 0) {
			int32_t id = tl_path_intern(&m->names, b->name, strlen(b->name));
			tl_scopemap_put(&m->declared, (uint32_t)fn->cls, (uint32_t)id, 1);
			return;
		}
	}
}

/* The attributes each class of the module binds (`self.x = ...` in a
 * method): until the interpreter has run the method that stores one, a
 * read of it is not known yet (⊥), not unknown (⊤). */
static void tl_model__declare(TlModel *m)
{
	const TlIndex *idx = m->idx;
	for (uint32_t i = 0; i < idx->bindings.size; i++) {
		const TlBinding *b = &idx->bindings.items[i];
		if (b->cls < 0 && !b->class_body && b->name && b->func >= 0)
			tl_model__declare_param_attr(m, b);
		if (b->cls < 0 || b->class_body || !b->name || strncmp(b->name, "self.", 5) != 0)
			continue;
		const char *rest = b->name + 5;
		if (strchr(rest, '.'))
			continue;
		int32_t id = tl_path_intern(&m->names, rest, strlen(rest));
		tl_scopemap_put(&m->declared, (uint32_t)b->cls, (uint32_t)id, 1);
	}
}

/* ---- the call graph and its components ----------------------------------------- */

static TlModel *tl_model__build(const TlIndex *idx, bool quiet)
{
	TlModel *m = tl_calloc(1, sizeof *m);
	m->idx = idx;
	m->building = true;
	m->quiet = quiet;
	/* Kept with the index from the start (a cache: no answer changes), so
	 * that an import cycle back to this module finds it being built and
	 * reads the top instead of building it again. */
	TlIndex *w = (TlIndex *)idx;
	w->model = m;
	w->model_release = tl_model__release;
	tl_val_pool_init(&m->pool);
	tl_path_names_init(&m->names);
	tl_scopemap_init(&m->vals);
	tl_scopemap_init(&m->attrs);
	tl_scopemap_init(&m->buffers);
	tl_scopemap_init(&m->kept_attr);
	tl_scopemap_init(&m->backprop);
	tl_scopemap_init(&m->declared);
	tl_scopemap_init(&m->tensor_keys);
	tl_scopemap_init(&m->ctx_vals);
	tl_scopemap_init(&m->ctx_seen);
	tl_scopemap_init(&m->ctx_site);
	tl_scopemap_init(&m->ctx_left);
	tl_scopemap_init(&m->dflt);
	tl_scopemap_init(&m->passed);
	tl_scopemap_init(&m->attr_read);
	tl_scopemap_init(&m->attr_stores);
	tl_array_init(&m->stores);
	tl_scopemap_init(&m->inplace);
	tl_scopemap_init(&m->carried);
	tl_array_init(&m->carries);
	tl_scopemap_init(&m->kid_at);
	tl_scopemap_init(&m->grad_at);
	tl_scopemap_init(&m->handed_at);
	tl_array_init(&m->kid_spans);
	tl_array_init(&m->kid_nodes);
	tl_state_init(&m->globals);
	tl_model__deps_init(m);
	tl_array_init(&m->funcs);
	tl_array_reserve(&m->funcs, idx->funcs.size);
	for (uint32_t i = 0; i < idx->funcs.size; i++) {
		TlFuncSum s;
		memset(&s, 0, sizeof s);
		s.ret = tl_val_bot();
		s.generator = -1;
		tl_array_push(&m->funcs, s);
	}
	static const char *const extra[6] = {
		"try_statement", "finally_clause", "match_statement", "case_clause", "slice", "concatenated_string",
	};
	for (int i = 0; i < 6; i++)
		m->syms[i] = ts_language_symbol_for_name(tl_python_language(), extra[i], (uint32_t)strlen(extra[i]), true);
	tl_model__nesting++;
	tl_model__backprop(m);
	tl_model__declare(m);
	tl_model__keys(m);
	tl_model__order(m);
	m->stats.components = m->starts.size;
	m->stats.classes = idx->classes.size;
	if (quiet) {
		/* Another module's model runs its own code first: what its
		 * functions read of its globals (a named tuple, a criterion made
		 * at module level) is there when they run; then its functions,
		 * again only where one read a summary not computed yet
		 * (tl_model__run). */
		tl_model__interpret(m, -1);
		tl_model__globals_ready(m);
		tl_model__run(m, NULL, false);
		tl_model__grad_phase(m, NULL, false); /* its own call sites */
	}
	tl_model__nesting--;
	m->building = false;
	if (!quiet && getenv("TORCHLINT_MODEL_WHOLE")) {
		/* The whole module at once (a check of the demand-driven mode),
		 * once built: its importers' models may read it. */
		tl_model__nesting++;
		tl_model__ensure_all(m);
		tl_model__nesting--;
	}
	return m;
}

const TlModel *tl_model_of(const TlIndex *idx)
{
	if (idx->model)
		return idx->model->building ? NULL : idx->model;
	return tl_model__build(idx, false);
}

const TlValPool *tl_model_pool(const TlModel *m)
{
	return &m->pool;
}

bool tl_model_cut(const TlModel *m)
{
	return m->cut;
}

bool tl_model_value(const TlIndex *idx, TSNode expr, TlVal *out)
{
	const TlModel *m = tl_model_of(idx);
	expr = tl_index_unparen(expr);
	if (!m || ts_node_is_null(expr))
		return false;
	tl_model__ensure((TlModel *)m, tl_index_func_of(idx, expr)); /* computed on demand: no answer changes */
	int32_t at;
	if (!tl_scopemap_get(&m->vals, ts_node_start_byte(expr), ts_node_end_byte(expr), &at))
		return false;
	*out = m->pool.vals.items[at];
	return true;
}

bool tl_model_returns(const TlIndex *idx, int32_t func, TlVal *out)
{
	const TlModel *m = tl_model_of(idx);
	if (!m || func < 0 || (uint32_t)func >= m->funcs.size)
		return false;
	tl_model__ensure((TlModel *)m, func); /* computed on demand: no answer changes */
	if (!m->funcs.items[func].status)
		return false;
	*out = m->funcs.items[func].ret;
	return true;
}

int32_t tl_model_method_of(const TlVal *v, const char *name, const TlIndex **where)
{
	*where = NULL;
	if (!name || (v->kind != TL_VK_MODULE && v->kind != TL_VK_OBJECT) || v->ref < 0 || !v->mod)
		return -1;
	return tl_model__method((const TlIndex *)v->mod, v->ref, name, where);
}

void tl_model_stats(const TlModel *m, TlModelStats *out)
{
	*out = m->stats;
}

void tl_model_describe(const TlModel *m, const TlVal *v, TlBuf *out)
{
	const TlValPool *p = &m->pool;
	/* Containers are shown two levels deep. */
	const TlVal *stack[3] = { v, NULL, NULL };
	tl_buf_add(out, tl_val_kind_name(v->kind));
	tl_buf_addf(out, " graph=%s", tl_val_graph_name(v->graph));
	if (v->pgraph)
		tl_buf_addf(out, "+params(0x%x)", v->pgraph);
	if (v->device != TL_VD_TOP && v->device != TL_VD_BOT)
		tl_buf_addf(out, " device=%s", tl_val_device_name(v->device));
	if (v->dtype != TL_VT_TOP && v->dtype != TL_VT_BOT)
		tl_buf_addf(out, " dtype=%s", tl_val_dtype_name(v->dtype));
	if (v->punwrap)
		tl_buf_addf(out, " unwrapped-params(0x%x)", v->punwrap);
	if (v->wrap) {
		static const char *const wraps[] = { "ddp", "fsdp", "data-parallel", "compiled" };
		tl_buf_add(out, " wrap=");
		for (unsigned i = 0, first = 1; i < 4; i++)
			if (v->wrap & (1u << i)) {
				tl_buf_addf(out, "%s%s", first ? "" : ",", wraps[i]);
				first = 0;
			}
	}
	if (v->act)
		tl_buf_addf(out, " made=%s%s", tl_val_act_name(v->act), (v->act & TL_VA_OUTPUT) ? "(output)" : "");
	if (v->loss)
		tl_buf_addf(out, " loss=%s", tl_val_loss_name(v->loss));
	if (v->kind == TL_VK_CONTAINER && v->elem >= 0 && (uint32_t)v->elem < p->vals.size) {
		stack[1] = &p->vals.items[v->elem];
		tl_buf_addf(out, " of (%s graph=%s", tl_val_kind_name(stack[1]->kind),
			    tl_val_graph_name(stack[1]->graph));
		if (stack[1]->kind == TL_VK_CONTAINER && stack[1]->elem >= 0 &&
		    (uint32_t)stack[1]->elem < p->vals.size) {
			stack[2] = &p->vals.items[stack[1]->elem];
			tl_buf_addf(out, " of (%s graph=%s)", tl_val_kind_name(stack[2]->kind),
				    tl_val_graph_name(stack[2]->graph));
		}
		tl_buf_addc(out, ')');
	}
	/* Where its history comes from (prov.c). */
	if (v->old || v->prev || v->pold || v->kept)
		tl_buf_addf(out, " from(before-loops=0x%x carried-loops=0x%x params=0x%x%s)", v->old, v->prev, v->pold,
			    v->kept ? " kept" : "");
	/* The loops whose current round made it afresh (fresh.c). */
	if (v->fresh & ~TL_FRESH_RUN)
		tl_buf_addf(out, " fresh-in-loops=0x%x", v->fresh & ~TL_FRESH_RUN);
	/* Its train / eval mode (modes.c), of a module. */
	if (v->mode && (v->kind == TL_VK_MODULE || v->kind == TL_VK_WRAPPER))
		tl_buf_addf(out, " mode=%s%s%s", (v->mode & TL_VMODE_TRAIN) ? "train" : "",
			    (v->mode & TL_VMODE_EVAL) ? ((v->mode & TL_VMODE_TRAIN) ? "|eval" : "eval") : "",
			    (v->mode & TL_VMODE_ENTRY) ? ((v->mode & (TL_VMODE_TRAIN | TL_VMODE_EVAL)) ? "|entry" : "entry") : "");
	if ((v->meval & TL_VMEVAL_MAY) && !(v->meval & TL_VMEVAL_FORGOT) &&
	    (v->kind == TL_VK_MODULE || v->kind == TL_VK_WRAPPER))
		tl_buf_add(out, " eval-on-a-path");
	/* The constant it holds (consts.c). */
	switch (TL_VC_TAG(v->cst)) {
	case TL_VC_NONE: tl_buf_add(out, " const=None"); break;
	case TL_VC_BOOL: tl_buf_add(out, TL_VC_PAYLOAD(v->cst) ? " const=True" : " const=False"); break;
	case TL_VC_INT: tl_buf_addf(out, " const=%d", (int)TL_VC_PAYLOAD(v->cst) - 4096); break;
	case TL_VC_STR: {
		/* the string itself: its interned id depends on what the model
		 * met first */
		uint32_t id = TL_VC_PAYLOAD(v->cst);
		if (id < m->names.names.size)
			tl_buf_addf(out, " const='%s'", m->names.names.items[id]);
		else
			tl_buf_add(out, " const=str");
		break;
	}
	case TL_VC_EMPTY: tl_buf_add(out, " const=''"); break;
	default: break;
	}
	/* Host copies of device data (host.c). */
	if (v->host || v->phost)
		tl_buf_addf(out, " host-copy(loops=0x%x run=%d params=0x%x)", v->host & (TL_VH_FUNC - 1u),
			    (v->host & TL_VH_FUNC) != 0, v->phost);
}
