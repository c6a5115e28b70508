/* Entry contexts: what every known call site of a function hands each of
 * its parameters (docs/semantic-model.md, "Summaries and how they
 * compose"). A summary says what a function returns as a function of its
 * parameters; the kind of value a parameter is (a module, a wrapper of
 * one, an optimizer) comes from its callers: the join of the arguments at
 * every call site of the module, once each site was interpreted, and
 * only for a function nothing else can call (it is not referenced other
 * than by a call). Each site keeps what its last evaluation handed
 * (TlModel.ctx_site), and a parameter's context is the join over its
 * sites: a caller interpreted again with more known (its own context
 * arrived) replaces what it passed before. A context that rises asks for another pass, so that
 * the function runs again with it, and that run's return replaces the
 * summary made with less (a parameter then unknown made an unknown
 * result, which a join would keep).
 *
 * Owns: TlModel.ctx_vals, TlModel.ctx_seen, TlModel.ctx_site, TlFuncSum.ctx_sites,
 * TlModel.ctor_count, ctor_from, ctor_calls, elsewhere, call_at, tl_model__ctx_const. */
#include "model/model_internal.h"

#include <string.h>

#include "base/alloc.h"


/* The parts of an argument an entry context keeps: what the value is, not
 * its history (a parameter's history stays symbolic, TlVal.pgraph). */
TlVal tl_model__ctx_part(const TlVal *arg)
{
	TlVal v = tl_val_of((TlVKind)arg->kind, TL_VG_NONE);
	switch (arg->kind) {
	case TL_VK_MODULE:
	case TL_VK_WRAPPER:
	case TL_VK_OBJECT:
	case TL_VK_OPTIMIZER:
	case TL_VK_SCALER:
	case TL_VK_CRITERION:
		v.wrap = arg->wrap;
		v.ref = arg->ref;
		v.mod = arg->mod;
		v.elem = -1;
		/* what its call computes (an nn.Sequential's last layer, a
		 * criterion's loss): every caller's, when they agree */
		v.act = arg->act;
		v.loss = arg->loss;
		v.made = (uint16_t)(arg->made & TL_VM_SEQUENTIAL);
		return v;
	case TL_VK_TENSOR:
	case TL_VK_PARAMETER:
	case TL_VK_LOADER:
		/* A tensor: where it lives and its dtype (model/devices.c); a
		 * DataLoader; not its history. */
		v.kind = arg->kind == TL_VK_LOADER ? TL_VK_LOADER : TL_VK_TENSOR;
		v.device = arg->device;
		v.dtype = arg->dtype;
		return v;
	case TL_VK_BOT:
		/* Not known yet (a class attribute before the method that
		 * stores it ran): nothing to join until a later pass knows it. */
		return tl_val_bot();
	default: {
		/* Containers, numbers: their context is part of the call-site
		 * states to come; here they say nothing, but where a value of
		 * unknown kind lives (a model's output known by what made it)
		 * and whether it is a DataLoader's batch. */
		TlVal t = tl_val_top();
		if (arg->kind == TL_VK_TOP && (arg->device == TL_VD_HOST || arg->device == TL_VD_ACCEL))
			t.device = arg->device;
		t.made = arg->kind == TL_VK_TOP && (arg->made & TL_VM_LOADER) && arg->made != TL_VM_TOP
				 ? TL_VM_LOADER : TL_VM_TOP;
		/* ... and the constant it is (consts.c: `train=False`) */
		t.cst = arg->cst;
		return t;
	}
	}
}

/* The class whose `__init__` function `func` is, else -1. */
static int32_t tl_model__init_of(const TlIndex *idx, int32_t func)
{
	const TlFunc *fn = &idx->funcs.items[func];
	if (fn->cls < 0 || !fn->name || strcmp(fn->name, "__init__") != 0)
		return -1;
	return fn->cls;
}

/* True when call `c` makes an instance of class `cls` by its name. */
static bool tl_model__constructs(const TlIndex *idx, const TlCall *c, int32_t cls)
{
	if (c->receiver.id)
		return false;
	const TlBinding *b = tl_index_resolve_node(idx, c->callee);
	return b && b->kind == TL_BIND_CLASS && b->ref == cls;
}

/* The calls of the index that make an instance of class `cls` by its
 * name, in the index's order: m->ctor_calls from the returned offset on,
 * *n of them. Read off the index once per class and model (the questions
 * below come at every interpretation of a call site). */
static uint32_t tl_model__ctors(const TlModel *cm, int32_t cls, uint32_t *n)
{
	TlModel *m = (TlModel *)cm; /* a cache: no answer changes */
	const TlIndex *idx = m->idx;
	uint32_t nc = idx->classes.size ? idx->classes.size : 1;
	if (!m->ctor_count) {
		m->ctor_count = tl_calloc(nc, sizeof *m->ctor_count);
		m->ctor_from = tl_calloc(nc, sizeof *m->ctor_from);
	}
	if (!m->ctor_count[cls]) {
		m->ctor_from[cls] = m->ctor_calls.size;
		for (uint32_t i = 0; i < idx->calls.size; i++)
			if (tl_model__constructs(idx, &idx->calls.items[i], cls))
				tl_array_push(&m->ctor_calls, i);
		m->ctor_count[cls] = 1 + m->ctor_calls.size - m->ctor_from[cls];
	}
	*n = m->ctor_count[cls] - 1;
	return m->ctor_from[cls];
}

/* The class whose `__init__` `func` is (tl_model__init_of), when the
 * class is one of the index's (its constructing calls can be counted),
 * else -1. */
static int32_t tl_model__init_class(const TlIndex *idx, int32_t func)
{
	int32_t cls = tl_model__init_of(idx, func);
	return cls >= 0 && (uint32_t)cls < idx->classes.size ? cls : -1;
}

/* The call sites the index knows of `func`: its calls, and for a class's
 * `__init__` the calls that make an instance of the class by its name. */
static uint32_t tl_model__ctx_expected(const TlModel *m, int32_t func)
{
	const TlIndex *idx = m->idx;
	uint32_t n = idx->funcs.items[func].call_sites.size;
	int32_t cls = tl_model__init_class(idx, func);
	if (cls >= 0) {
		uint32_t made;
		tl_model__ctors(m, cls, &made);
		n += made;
	} else {
		cls = tl_model__init_of(idx, func);
		for (uint32_t i = 0; cls >= 0 && i < idx->calls.size; i++)
			n += tl_model__constructs(idx, &idx->calls.items[i], cls);
	}
	return n;
}

/* The first call of the index that starts at byte `site` - 1, or -1
 * (m->call_at, filled once per model). */
static int32_t tl_model__call_at_site(const TlModel *cm, uint32_t site)
{
	TlModel *m = (TlModel *)cm; /* a cache: no answer changes */
	const TlIndex *idx = m->idx;
	int32_t at;
	if (!m->call_at.mask)
		for (uint32_t i = 0; i < idx->calls.size; i++) {
			uint32_t start = ts_node_start_byte(idx->calls.items[i].node) + 1;
			if (!tl_scopemap_get(&m->call_at, start, 0, &at))
				tl_scopemap_put(&m->call_at, start, 0, (int32_t)i);
		}
	return tl_scopemap_get(&m->call_at, site, 0, &at) ? at : -1;
}

static bool tl_model__ctx_site_known(const TlModel *m, int32_t func, uint32_t site)
{
	const TlIndex *idx = m->idx;
	const TlFunc *fn = &idx->funcs.items[func];
	for (uint32_t k = 0; k < fn->call_sites.size; k++)
		if (ts_node_start_byte(idx->calls.items[fn->call_sites.items[k]].node) + 1 == site)
			return true;
	int32_t cls = tl_model__init_of(idx, func);
	if (cls < 0)
		return false;
	int32_t i = tl_model__call_at_site(m, site);
	return i >= 0 && tl_model__constructs(idx, &idx->calls.items[i], cls);
}

/* The join of what every call site of `func` seen so far last handed its
 * parameter `i` (TlModel.ctx_site). */
static TlVal tl_model__ctx_join(TlModel *m, int32_t func, uint32_t i)
{
	const TlIndex *idx = m->idx;
	const TlFunc *fn = &idx->funcs.items[func];
	uint32_t key = (uint32_t)func * TL_MODEL_CTX_PARAMS + i;
	TlVal acc = tl_val_bot();
	int32_t at;
	for (uint32_t k = 0; k < fn->call_sites.size; k++)
		if (tl_scopemap_get(&m->ctx_site, ts_node_start_byte(idx->calls.items[fn->call_sites.items[k]].node) + 1,
				    key, &at)) {
			TlVal v = m->pool.vals.items[at];
			acc = tl_val_join(&m->pool, &acc, &v);
		}
	int32_t cls = tl_model__init_class(idx, func);
	if (cls >= 0) {
		uint32_t made, from = tl_model__ctors(m, cls, &made);
		for (uint32_t j = 0; j < made; j++) {
			uint32_t k = m->ctor_calls.items[from + j];
			if (tl_scopemap_get(&m->ctx_site, ts_node_start_byte(idx->calls.items[k].node) + 1, key, &at)) {
				TlVal v = m->pool.vals.items[at];
				acc = tl_val_join(&m->pool, &acc, &v);
			}
		}
		return acc;
	}
	cls = tl_model__init_of(idx, func);
	for (uint32_t k = 0; cls >= 0 && k < idx->calls.size; k++)
		if (tl_model__constructs(idx, &idx->calls.items[k], cls) &&
		    tl_scopemap_get(&m->ctx_site, ts_node_start_byte(idx->calls.items[k].node) + 1, key, &at)) {
			TlVal v = m->pool.vals.items[at];
			acc = tl_val_join(&m->pool, &acc, &v);
		}
	return acc;
}

void tl_model__ctx_note(TlModel *m, int32_t func, uint32_t site, const TlVal *args, uint32_t nargs,
			uint32_t shift, uint16_t left)
{
	if (m->quiet || func < 0 || (uint32_t)func >= m->idx->funcs.size || !site)
		return;
	const TlFunc *fn = &m->idx->funcs.items[func];
	TlFuncSum *s = &m->funcs.items[func];
	int32_t dummy;
	if (!tl_scopemap_get(&m->ctx_seen, (uint32_t)func, site, &dummy)) {
		/* Only the call sites the index knows count (a closure that
		 * `optimizer.step(closure)` runs is called from no site of
		 * them): every one of them must be seen. */
		if (!tl_model__ctx_site_known(m, func, site))
			return;
		tl_scopemap_put(&m->ctx_seen, (uint32_t)func, site, 1);
		s->ctx_sites++;
		m->changed = m->pending = s->provisional = true;
	}
	for (uint32_t i = shift; i < fn->params.size && i < TL_MODEL_CTX_PARAMS; i++) {
		int32_t at;
		/* A parameter the site leaves out holds its default: the join
		 * takes it where the function is entered (bind.c). */
		bool dflt = i < 16 && (left & (1u << i));
		TlVal part = dflt ? tl_val_bot()
			   : i - shift < nargs ? tl_model__ctx_part(&args[i - shift]) : tl_val_top();
		if (dflt && !tl_scopemap_get(&m->ctx_left, (uint32_t)func, i, &at)) {
			tl_scopemap_put(&m->ctx_left, (uint32_t)func, i, 1);
			m->changed = m->pending = s->provisional = true;
		}
		uint32_t key = (uint32_t)func * TL_MODEL_CTX_PARAMS + i;
		/* A site's value is what its last evaluation handed: it ran from
		 * the caller's highest state (its own context known, the
		 * summaries it reads made), every one before from a lower one
		 * (a join would keep what a caller without its context passed:
		 * a tensor of unknown device), as an expression's value is
		 * (tl_model__record). */
		bool fell = false;
		if (tl_scopemap_get(&m->ctx_site, site, key, &at)) {
			TlVal old = m->pool.vals.items[at];
			bool same = tl_val_equal(&m->pool, &old, &part);
			tl_model__dep_stamp_ctx(m, site, key, !same);
			if (same)
				continue;
			TlVal up = tl_val_join(&m->pool, &old, &part);
			fell = !tl_val_equal(&m->pool, &up, &part);
			m->pool.vals.items[at] = part;
		} else {
			tl_model__dep_stamp_ctx(m, site, key, false);
			tl_scopemap_put(&m->ctx_site, site, key, tl_val_pool_add(&m->pool, part));
		}
		TlVal j;
		bool had = tl_scopemap_get(&m->ctx_vals, (uint32_t)func, i, &at);
		if (fell || !had) {
			j = tl_model__ctx_join(m, func, i);
		} else {
			TlVal old = m->pool.vals.items[at];
			j = tl_val_join(&m->pool, &old, &part);
		}
		if (!had) {
			tl_scopemap_put(&m->ctx_vals, (uint32_t)func, i, tl_val_pool_add(&m->pool, j));
			m->changed = m->pending = s->provisional = true;
			continue;
		}
		TlVal old = m->pool.vals.items[at];
		if (!tl_val_equal(&m->pool, &old, &j)) {
			m->pool.vals.items[at] = j;
			m->changed = m->pending = s->provisional = true;
		}
	}
}

bool tl_model__ctx_param(TlModel *m, int32_t func, uint32_t i, TlVal *out)
{
	if (m->quiet || func < 0 || (uint32_t)func >= m->idx->funcs.size || i >= TL_MODEL_CTX_PARAMS)
		return false;
	const TlFunc *fn = &m->idx->funcs.items[func];
	const TlFuncSum *s = &m->funcs.items[func];
	if (fn->escapes || !s->ctx_sites || s->ctx_sites < tl_model__ctx_expected(m, func))
		return false;
	int32_t at;
	if (!tl_scopemap_get(&m->ctx_vals, (uint32_t)func, i, &at))
		return false;
	*out = m->pool.vals.items[at];
	/* Some site leaves it to its default: the join with the default's
	 * value, once the function's entry evaluated it. */
	TlVal d;
	if (tl_scopemap_get(&m->ctx_left, (uint32_t)func, i, &at)) {
		if (!tl_model__default_ctx(m, func, i, &d))
			return false;
		*out = tl_val_join(&m->pool, out, &d);
	}
	return (out->kind != TL_VK_TOP && out->kind != TL_VK_BOT) ||
	       (out->kind == TL_VK_TOP && (out->device == TL_VD_HOST || out->device == TL_VD_ACCEL ||
					   out->made == TL_VM_LOADER));
}

/* True when a call in the module names method `fn` by its name but
 * goes elsewhere, or nowhere the index knows (`trainer.run(...)` on an
 * instance it does not resolve). Read off the index once per function
 * and model (m->elsewhere). */
static bool tl_model__name_elsewhere(TlModel *m, int32_t func)
{
	const TlIndex *idx = m->idx;
	const TlFunc *fn = &idx->funcs.items[func];
	if (!fn->name)
		return true;
	if (!m->elsewhere)
		m->elsewhere = tl_calloc(idx->funcs.size, 1);
	if (m->elsewhere[func])
		return m->elsewhere[func] == 2;
	bool yes = false;
	for (uint32_t k = 0; k < idx->calls.size && !yes; k++) {
		const TlCall *c = &idx->calls.items[k];
		yes = c->method && c->target != func && strcmp(c->method, fn->name) == 0;
	}
	m->elsewhere[func] = yes ? 2 : 1;
	return yes;
}

uint16_t tl_model__ctx_const(TlModel *m, int32_t func, uint32_t i)
{
	if (m->quiet || func < 0 || (uint32_t)func >= m->idx->funcs.size || i >= TL_MODEL_CTX_PARAMS)
		return 0;
	const TlIndex *idx = m->idx;
	const TlFunc *fn = &idx->funcs.items[func];
	const TlFuncSum *s = &m->funcs.items[func];
	const TlImports *im = idx->imports;
	if (fn->escapes)
		return 0;
	/* The module's own call sites: every one interpreted. */
	uint32_t c = TL_MODEL_EXT_NO_SITE;
	uint32_t expected = tl_model__ctx_expected(m, func);
	if (expected) {
		if (s->ctx_sites < expected)
			return 0;
		int32_t at;
		if (!tl_scopemap_get(&m->ctx_vals, (uint32_t)func, i, &at))
			return 0;
		TlVal v = m->pool.vals.items[at];
		c = v.cst;
		if (tl_scopemap_get(&m->ctx_left, (uint32_t)func, i, &at)) {
			/* some site leaves it to its default: a literal's constant */
			uint16_t d = tl_model__const_literal(m, idx, tl_model__param_default(idx, fn, i));
			if (tl_val_is_bot(&v))
				c = d;
			else if (c != d)
				c = 0;
		}
		if (!c)
			return 0;
	}
	/* ... and those of the modules that import it (bind.c): a model
	 * being built for another module's summaries reads its own only.
	 * PyTorch's own packages are read as the API: no importer is asked
	 * for a function its module never calls. */
	if (!expected && im && tl_model__torch_package(idx))
		return 0;
	if (im && im->importer && im->importer(im, idx, 0)) {
		uint32_t e;
		if (m->building || !tl_model__ext_const(m, func, i, &e))
			return 0;
		if (c == TL_MODEL_EXT_NO_SITE)
			c = e;
		else if (e != TL_MODEL_EXT_NO_SITE && e != c)
			c = 0;
	}
	if (!c || c == TL_MODEL_EXT_NO_SITE || (fn->cls >= 0 && tl_model__name_elsewhere(m, func)))
		return 0;
	return (uint16_t)c;
}
