/* What a function of the project hands back and does to what it is handed,
 * for data loaders, samplers and autocast contexts (RULES.md principle 2,
 * issue 23's summaries across modules): a DataLoader or DistributedSampler
 * that a factory builds and returns (itself, as an element of a tuple, as
 * a value of a dict; or a parameter handed back as given, or wrapped in
 * an iterator over its items such as tqdm(loader), which is then what each
 * call passes), an autocast context a helper returns (`with
 * amp_ctx():`). (The parameters on whose sampler a function calls
 * `set_epoch` are the model's summary: model/epochs.c.)
 * The function may be local or live in another module of the project
 * (facts/imports.c finds it); either way its summary is computed once and
 * kept in the facts cache of its own module's index, so that every family
 * and every module asking reads one answer.
 *
 * A summary is computed from a fresh depth and budget (facts/loaders.c's
 * questions start afresh for it), so it does not depend on who asked.
 * Summaries computed inside summaries nest at most TL_HANDED_NESTING deep;
 * an answer that met that bound, or that met a summary being computed (a
 * recursive function), is given cautiously (unknown) and not kept.
 *
 * Another module's index is shared by the worker threads: everything here
 * that reads or fills one runs under tl_facts__ext_enter (re-entrant).
 *
 * Owns: tl_facts__callee_def, tl_facts__handed_loaders,
 * tl_facts__handed_sampler, tl_facts__handed_autocast. */
#include "facts/internal.h"

/* Factories call builders that call constructors: a few deep in real
 * code. Past this, answers are not kept. */
#define TL_HANDED_NESTING 8

/* Elements picked out of one function's returns at most (a dict of
 * loaders, a tuple of them). */
#define TL_HANDED_VALUES 32

static _Thread_local TlNest tl_facts__handed_nest;

enum { TL_SUM_UNASKED, TL_SUM_BUSY, TL_SUM_KEPT };

/* The summary of one function for one element of what it returns. */
typedef struct TlHanded {
	int32_t func, elem;
	char *key;              /* a dict key, or NULL */
	uint8_t loaders_state, sampler_state;
	TlMades loaders;
	bool loaders_unknown;
	uint32_t loaders_passes; /* parameters handed back (TlPicked.passes) */
	TlMade sampler;          /* the one the returned values agree on, if any */
	bool sampler_ok;         /* they agree (none may be one, when all are
				  * parameters handed back) */
	uint32_t sampler_passes;
} TlHanded;

/* Per function: the autocast context it returns (bit 31: computed, bit
 * 30: being computed). */
#define TL_HANDED_DONE (1u << 31)
#define TL_HANDED_BUSY (1u << 30)

typedef struct TlHandedCache {
	TlArray(TlHanded *) entries;
	uint32_t funcs;
	uint32_t *ctx;
} TlHandedCache;

void tl_facts__handed_release(TlFactsCache *fc)
{
	TlHandedCache *h = fc->handed;
	if (!h)
		return;
	for (uint32_t i = 0; i < h->entries.size; i++) {
		tl_free(h->entries.items[i]->key);
		tl_array_release(&h->entries.items[i]->loaders);
		tl_free(h->entries.items[i]);
	}
	tl_array_release(&h->entries);
	tl_free(h->ctx);
	tl_free(h);
	fc->handed = NULL;
}

/* The cache of `idx` (its facts cache is written through a const index,
 * as summary.c writes TlFunc's slots: it changes no answer). */
static TlHandedCache *tl_facts__handed_cache(const TlIndex *idx)
{
	TlFactsCache *fc = idx->facts_cache;
	if (!fc)
		return NULL;
	if (!fc->handed) {
		TlHandedCache *h = tl_calloc(1, sizeof *h);
		tl_array_init(&h->entries);
		h->funcs = idx->funcs.size;
		uint32_t n = h->funcs ? h->funcs : 1;
		h->ctx = tl_calloc(n, sizeof *h->ctx);
		fc->handed = h;
	}
	return fc->handed;
}

static TlHanded *tl_facts__handed_entry(const TlIndex *idx, int32_t func, int32_t elem,
					const char *key)
{
	TlHandedCache *h = tl_facts__handed_cache(idx);
	if (!h)
		return NULL;
	for (uint32_t i = 0; i < h->entries.size; i++) {
		TlHanded *e = h->entries.items[i];
		if (e->func == func && e->elem == elem &&
		    (key ? e->key && strcmp(e->key, key) == 0 : !e->key))
			return e;
	}
	TlHanded *e = tl_calloc(1, sizeof *e);
	e->func = func;
	e->elem = elem;
	e->key = key ? tl_strdup(key) : NULL;
	tl_array_init(&e->loaders);
	tl_array_push(&h->entries, e);
	return e;
}

bool tl_facts__callee_def(const TlIndex *idx, const TlCall *c, TlExtDef *out)
{
	if (!c)
		return false;
	if (c->target >= 0) {
		*out = (TlExtDef){ idx, c->target, idx->funcs.items[c->target].cls };
		return true;
	}
	return idx->imports && tl_facts__ext_callee(idx, c, out) && out->func >= 0;
}

/* ---- picking an element out of what a function returns ------------------------------- */

typedef struct TlPicked {
	TlMades values;
	bool unknown;
	int budget;      /* values and returns left to visit (TL_FACTS_BUDGET) */
	uint32_t passes; /* bit k: the function hands back its k-th parameter
			  * (`return model, loader` with loader a parameter):
			  * what the call passes for it */
} TlPicked;

static void tl_facts__pick_returns(const TlIndex *idx, int32_t func, int32_t elem, const char *key,
				   TlPicked *out, int depth);

/* True when string literal `s` of `idx` is `key` exactly. */
static bool tl_facts__key_is(const TlIndex *idx, TSNode s, const char *key)
{
	s = tl_index_unparen(s);
	if (ts_node_is_null(s) || ts_node_symbol(s) != tl_syms()->string)
		return false;
	uint32_t len = 0;
	const char *body = tl_facts__string_body(idx, s, &len);
	return body && len == strlen(key) && memcmp(body, key, len) == 0;
}

static void tl_facts__pick_push(TlPicked *out, const TlIndex *idx, TSNode v)
{
	if (out->values.size >= TL_HANDED_VALUES) {
		out->unknown = true;
		return;
	}
	tl_array_push(&out->values, ((TlMade){ idx, v }));
}

static int32_t tl_facts__param_named(const TlIndex *idx, int32_t func, TSNode n);

/* The index of the parameter of function `func` that `v` reads, when the
 * function never binds that name otherwise (it still holds the
 * argument); -1 otherwise. */
static int32_t tl_facts__passed_param(const TlIndex *idx, int32_t func, TSNode v)
{
	int32_t k = tl_facts__param_named(idx, func, v);
	if (k < 0)
		return -1;
	const TlBinding *b = tl_index_resolve_node(idx, tl_index_unparen(v));
	const TlIntArray *all = tl_index_bindings_of(idx, func, b->name);
	return all && all->size == 1 ? k : -1;
}

/* Value `v` handed back by function `func`: a parameter it hands back
 * as it was given (a bit of out->passes), or the value itself. */
static void tl_facts__pick_value(TlPicked *out, const TlIndex *idx, int32_t func, TSNode v)
{
	int32_t k = tl_facts__passed_param(idx, func, v);
	if (k >= 30)
		out->unknown = true;
	else if (k >= 0)
		out->passes |= 1u << k;
	else
		tl_facts__pick_push(out, idx, v);
}

static TSNode tl_facts__arg_for(const TlIndex *idx, const TlCall *c, const TlExtDef *d, int32_t k);

/* A dict literal's value for `key`, a splat or a missing key: unknown. */
static void tl_facts__pick_dict_literal(const TlIndex *idx, TSNode d, const char *key, TlPicked *out)
{
	const TlSyms *sy = tl_syms();
	bool found = false;
	uint32_t n = ts_node_named_child_count(d);
	for (uint32_t i = 0; i < n; i++) {
		TSNode p = ts_node_named_child(d, i);
		if (ts_node_symbol(p) == sy->comment)
			continue;
		if (ts_node_symbol(p) != sy->pair) {
			out->unknown = true; /* **other */
			continue;
		}
		if (tl_facts__key_is(idx, ts_node_named_child(p, 0), key)) {
			tl_facts__pick_push(out, idx, tl_tree_field(p, sy->f_value));
			found = true;
		}
	}
	if (!found)
		out->unknown = true;
}

/* True for `{}`, `dict()`, `OrderedDict()` and a dict literal. */
static bool tl_facts__dict_start(const TlIndex *idx, TSNode v)
{
	const TlSyms *sy = tl_syms();
	v = tl_index_unparen(v);
	if (ts_node_is_null(v))
		return false;
	if (ts_node_symbol(v) == sy->dictionary)
		return true;
	const TlCall *c = ts_node_symbol(v) == sy->call ? tl_index_call_at(idx, v) : NULL;
	const char *q = c ? (c->qname ? c->qname : (!c->receiver.id ? c->method : NULL)) : NULL;
	return q && (strcmp(q, "dict") == 0 || strcmp(q, "collections.OrderedDict") == 0) &&
	       tl_facts__argc(v) == 0;
}

/* Name `b` (a local of function `func` bound to a dict) at `key`: what
 * its literals hold there and what `name["key"] = v` stores in the
 * function; a store under a key that is no literal makes it unknown. */
static void tl_facts__pick_dict_name(const TlIndex *idx, const TlBinding *b, const char *key,
				     TlPicked *out)
{
	const TlSyms *sy = tl_syms();
	const TlIntArray *all = tl_index_bindings_of(idx, b->func, b->name);
	if (!all || !all->size || b->func < 0) {
		out->unknown = true;
		return;
	}
	uint32_t before = out->values.size;
	for (uint32_t i = 0; i < all->size; i++) {
		const TlBinding *o = &idx->bindings.items[all->items[i]];
		TSNode v = tl_index_unparen(o->value);
		if (o->kind != TL_BIND_ASSIGN || o->elem >= 0 || !tl_facts__dict_start(idx, v)) {
			out->unknown = true;
			return;
		}
		if (ts_node_symbol(v) == sy->dictionary && ts_node_named_child_count(v)) {
			TlPicked lit = { { NULL, 0, 0 }, false, TL_FACTS_BUDGET, 0 };
			tl_facts__pick_dict_literal(idx, v, key, &lit);
			for (uint32_t k = 0; k < lit.values.size; k++)
				tl_facts__pick_push(out, lit.values.items[k].idx, lit.values.items[k].node);
			tl_array_release(&lit.values);
		}
	}
	const TlStoreSites *sites = tl_facts__subscript_sites(idx, b->func, -1);
	for (uint32_t i = 0; sites && i < sites->size; i++) {
		const TlStoreSite *st = &sites->items[i];
		if (strcmp(st->name, b->name) != 0)
			continue;
		TSNode left = tl_tree_field(st->stmt, sy->f_left);
		TSNode k = ts_node_is_null(left) ? left : tl_tree_field(left, sy->f_subscript);
		if (ts_node_is_null(k) || ts_node_symbol(tl_index_unparen(k)) != sy->string) {
			out->unknown = true; /* loaders[name] = ...: any key */
			continue;
		}
		if (tl_facts__key_is(idx, k, key) && ts_node_symbol(st->stmt) == sy->assignment)
			tl_facts__pick_push(out, idx, tl_tree_field(st->stmt, sy->f_right));
	}
	if (out->values.size == before)
		out->unknown = true;
}

/* Element `elem` / value at `key` (neither: the whole) of value `v` of
 * `idx`, returned by function `func` there. */
static void tl_facts__pick(const TlIndex *idx, TSNode v, int32_t elem, const char *key,
			   int32_t func, TlPicked *out, int depth)
{
	const TlSyms *sy = tl_syms();
	v = tl_index_unparen(v);
	if (ts_node_is_null(v) || depth > TL_FACTS_DEPTH || --out->budget < 0) {
		out->unknown = true;
		return;
	}
	TSSymbol s = ts_node_symbol(v);
	if (s == sy->none)
		return; /* `return None` on some path: not what the caller uses */
	if (elem < 0 && !key) {
		tl_facts__pick_value(out, idx, func, v);
		return;
	}
	if (elem >= 0 && (s == sy->tuple || s == sy->expression_list || s == sy->list)) {
		uint32_t n = ts_node_named_child_count(v), at = 0;
		for (uint32_t i = 0; i < n; i++) {
			TSNode x = ts_node_named_child(v, i);
			TSSymbol xs = ts_node_symbol(x);
			if (xs == sy->comment)
				continue;
			if (xs == sy->list_splat) {
				out->unknown = true;
				return;
			}
			if (at++ == (uint32_t)elem) {
				tl_facts__pick_value(out, idx, func, x);
				return;
			}
		}
		out->unknown = true;
		return;
	}
	if (key && s == sy->dictionary) {
		tl_facts__pick_dict_literal(idx, v, key, out);
		return;
	}
	if (s == sy->call) {
		const TlCall *c = tl_index_call_at(idx, v);
		const char *q = c ? (c->qname ? c->qname : (!c->receiver.id ? c->method : NULL)) : NULL;
		if (key && q && (strcmp(q, "dict") == 0 || strcmp(q, "collections.OrderedDict") == 0)) {
			/* dict(train=loader, val=...) */
			TSNode a = tl_facts__kwarg(idx, v, key);
			if (ts_node_is_null(a))
				out->unknown = true;
			else
				tl_facts__pick_push(out, idx, a);
			return;
		}
		TlExtDef d;
		if (tl_facts__callee_def(idx, c, &d)) {
			/* return build_loaders(cfg): what that one returns there,
			 * its parameters being what this call passes */
			TlPicked sub = { { NULL, 0, 0 }, false, out->budget, 0 };
			tl_facts__pick_returns(d.idx, d.func, elem, key, &sub, depth + 1);
			for (uint32_t i = 0; i < sub.values.size; i++)
				tl_facts__pick_push(out, sub.values.items[i].idx, sub.values.items[i].node);
			tl_array_release(&sub.values);
			out->unknown = out->unknown || sub.unknown;
			out->budget = sub.budget;
			for (int32_t k = 0; k < 30 && sub.passes; k++) {
				if (!(sub.passes & (1u << k)))
					continue;
				sub.passes &= ~(1u << k);
				TSNode a = tl_facts__arg_for(idx, c, &d, k);
				if (ts_node_is_null(a))
					out->unknown = true;
				else
					tl_facts__pick(idx, a, -1, NULL, func, out, depth + 1);
			}
			return;
		}
		out->unknown = true;
		return;
	}
	if (s == sy->identifier) {
		const TlBinding *b = tl_index_resolve_node(idx, v);
		if (!b || b->kind != TL_BIND_ASSIGN || b->elem >= 0 || b->func != func) {
			out->unknown = true;
			return;
		}
		if (key && tl_facts__dict_start(idx, b->value)) {
			tl_facts__pick_dict_name(idx, b, key, out);
			return;
		}
		tl_facts__pick(idx, b->value, elem, key, func, out, depth + 1);
		return;
	}
	out->unknown = true;
}

/* Appends what call `c` of `idx` passes for the parameters `passes` of
 * function `d` as loaders (into out) or, when `sampler` is set, checks
 * that they are that sampler; false when one cannot be told. */
static bool tl_facts__passed_loaders(const TlIndex *idx, const TlCall *c, const TlExtDef *d,
				     uint32_t passes, TlMades *out, bool *unknown)
{
	for (int32_t k = 0; k < 30 && passes; k++) {
		if (!(passes & (1u << k)))
			continue;
		passes &= ~(1u << k);
		TSNode a = tl_facts__arg_for(idx, c, d, k);
		if (ts_node_is_null(a))
			return false;
		tl_facts__loader_values(idx, a, out, unknown);
	}
	return true;
}

static void tl_facts__pick_returns(const TlIndex *idx, int32_t func, int32_t elem, const char *key,
				   TlPicked *out, int depth)
{
	if (func < 0 || (uint32_t)func >= idx->funcs.size || depth > TL_FACTS_DEPTH) {
		out->unknown = true;
		return;
	}
	const TlFunc *f = &idx->funcs.items[func];
	bool any = false;
	for (uint32_t i = 0; i < f->returns.size; i++) {
		TSNode r = f->returns.items[i];
		if (!ts_node_named_child_count(r))
			continue;
		any = true;
		tl_facts__pick(idx, ts_node_named_child(r, 0), elem, key, func, out, depth + 1);
	}
	if (!any)
		out->unknown = true;
}

/* ---- summaries --------------------------------------------------------------------- */

static bool tl_facts__handed_enter(uint8_t *state, unsigned *mark)
{
	if (!tl_facts__nest_enter(&tl_facts__handed_nest, *state == TL_SUM_BUSY, TL_HANDED_NESTING, mark))
		return false;
	*state = TL_SUM_BUSY;
	return true;
}

static void tl_facts__handed_leave(uint8_t *state, unsigned mark)
{
	*state = tl_facts__nest_leave(&tl_facts__handed_nest, mark) ? TL_SUM_KEPT : TL_SUM_UNASKED;
}

/* Fills e's loaders (under the enter() of d's module). */
static void tl_facts__loaders_summary(const TlExtDef *d, TlHanded *e, unsigned mark)
{
	tl_array_clear(&e->loaders);
	e->loaders_unknown = false;
	TlPicked picked = { { NULL, 0, 0 }, false, TL_FACTS_BUDGET, 0 };
	tl_facts__pick_returns(d->idx, d->func, e->elem, e->key, &picked, 0);
	e->loaders_unknown = picked.unknown;
	e->loaders_passes = picked.passes;
	for (uint32_t i = 0; i < picked.values.size; i++) {
		const TlMade *m = &picked.values.items[i];
		/* `return tqdm(loader)` of a parameter: a wrapper that yields
		 * the items of what it wraps, one by one, iterates as the
		 * parameter handed back (not enumerate, whose items are pairs) */
		bool enumerated = false;
		TSNode inner = tl_facts__unwrap_iterable(m->idx, m->node, &enumerated);
		int32_t k = m->idx == d->idx && !enumerated && !ts_node_eq(inner, m->node)
				    ? tl_facts__passed_param(d->idx, d->func, inner) : -1;
		if (k >= 0 && k < 30)
			e->loaders_passes |= 1u << k;
		else
			tl_facts__loader_values(m->idx, m->node, &e->loaders, &e->loaders_unknown);
	}
	tl_array_release(&picked.values);
	tl_facts__handed_leave(&e->loaders_state, mark);
}

void tl_facts__handed_loaders(const TlIndex *idx, const TlCall *c, int32_t elem, const char *key,
			      TlMades *out, bool *unknown)
{
	TlExtDef d;
	if (!tl_facts__callee_def(idx, c, &d)) {
		*unknown = true;
		return;
	}
	bool ext = d.idx != idx;
	if (ext)
		tl_facts__ext_enter(idx);
	TlHanded *e = tl_facts__handed_entry(d.idx, d.func, elem, key);
	unsigned mark = 0;
	if (!e) {
		*unknown = true;
	} else if (e->loaders_state == TL_SUM_KEPT || tl_facts__handed_enter(&e->loaders_state, &mark)) {
		if (e->loaders_state != TL_SUM_KEPT)
			tl_facts__loaders_summary(&d, e, mark);
		for (uint32_t i = 0; i < e->loaders.size; i++)
			tl_array_push(out, e->loaders.items[i]);
		*unknown = *unknown || e->loaders_unknown || (!e->loaders.size && !e->loaders_passes);
		/* What this call passes for the parameters it hands back. */
		if (e->loaders_passes &&
		    !tl_facts__passed_loaders(idx, c, &d, e->loaders_passes, out, unknown))
			*unknown = true;
	} else {
		*unknown = true;
	}
	if (ext)
		tl_facts__ext_leave(idx);
}

TlMade tl_facts__handed_sampler(const TlIndex *idx, const TlCall *c, int32_t elem, const char *key)
{
	TlMade none = { 0 };
	TlExtDef d;
	if (!tl_facts__callee_def(idx, c, &d))
		return none;
	bool ext = d.idx != idx;
	if (ext)
		tl_facts__ext_enter(idx);
	TlHanded *e = tl_facts__handed_entry(d.idx, d.func, elem, key);
	bool have = e && e->sampler_state == TL_SUM_KEPT;
	unsigned mark;
	if (e && !have && tl_facts__handed_enter(&e->sampler_state, &mark)) {
		TlPicked picked = { { NULL, 0, 0 }, false, TL_FACTS_BUDGET, 0 };
		tl_facts__pick_returns(d.idx, d.func, elem, key, &picked, 0);
		/* One DistributedSampler, whichever return hands it back. */
		TlMade got = none;
		bool ok = !picked.unknown && (picked.values.size || picked.passes);
		for (uint32_t i = 0; ok && i < picked.values.size; i++) {
			const TlMade *m = &picked.values.items[i];
			TlMade r = tl_facts__sampler_of(m->idx, m->node);
			if (!r.idx || (got.idx && !ts_node_eq(got.node, r.node)))
				ok = false;
			else
				got = r;
		}
		tl_array_release(&picked.values);
		e->sampler = ok ? got : none;
		e->sampler_ok = ok;
		e->sampler_passes = picked.passes;
		tl_facts__handed_leave(&e->sampler_state, mark);
		have = true;
	}
	TlMade got = have && e->sampler_ok ? e->sampler : none;
	bool ok = have && e->sampler_ok;
	/* What this call passes for the parameters handed back. */
	for (int32_t k = 0; ok && k < 30; k++) {
		if (!(e->sampler_passes & (1u << k)))
			continue;
		TSNode a = tl_facts__arg_for(idx, c, &d, k);
		TlMade r = ts_node_is_null(a) ? none : tl_facts__sampler_of(idx, a);
		if (!r.idx || (got.idx && !ts_node_eq(got.node, r.node)))
			ok = false;
		else
			got = r;
	}
	if (ext)
		tl_facts__ext_leave(idx);
	return ok ? got : none;
}

/* ---- autocast contexts ------------------------------------------------------------- */

/* The context kind of returned value `v`, each branch of a conditional
 * expression (`autocast() if amp else nullcontext()`) having to open
 * autocast for the value to: 0 when one does not. */
static uint32_t tl_facts__every_autocast(const TlIndex *idx, TSNode v)
{
	const TlSyms *sy = tl_syms();
	TSNode todo[8];
	uint32_t n = 0, k = 0;
	bool first = true;
	todo[n++] = v;
	while (n) {
		TSNode x = tl_index_unparen(todo[--n]);
		if (!ts_node_is_null(x) && ts_node_symbol(x) == sy->conditional_expression) {
			uint32_t count = ts_node_named_child_count(x);
			if (count < 3 || n + 2 > 8)
				return 0;
			todo[n++] = ts_node_named_child(x, 0);
			todo[n++] = ts_node_named_child(x, 2);
			continue;
		}
		uint32_t xk = ts_node_is_null(x) ? 0 : tl_facts_context_kind(idx, x);
		if (!(xk & TL_CTX_AUTOCAST) || (xk & TL_CTX_AUTOCAST_OFF))
			return 0;
		/* float16 when every branch is; the CPU when one is */
		k = first ? xk : ((k & xk & TL_CTX_HALF_AUTOCAST) | ((k | xk) & ~TL_CTX_HALF_AUTOCAST));
		first = false;
	}
	return k;
}

uint32_t tl_facts__handed_autocast(const TlIndex *idx, const TlCall *c)
{
	TlExtDef d;
	if (!tl_facts__callee_def(idx, c, &d))
		return 0;
	bool ext = d.idx != idx;
	if (ext)
		tl_facts__ext_enter(idx);
	TlHandedCache *h = tl_facts__handed_cache(d.idx);
	uint32_t k = 0;
	if (h && (uint32_t)d.func < h->funcs) {
		uint32_t *slot = &h->ctx[d.func];
		unsigned mark;
		if (*slot & TL_HANDED_DONE) {
			k = *slot & ~(TL_HANDED_DONE | TL_HANDED_BUSY);
		} else if (tl_facts__nest_enter(&tl_facts__handed_nest, (*slot & TL_HANDED_BUSY) != 0,
						TL_HANDED_NESTING, &mark)) {
			*slot |= TL_HANDED_BUSY;
			/* Every value it returns opens autocast: a nullcontext()
			 * (autocast turned off) or a value that cannot be told
			 * makes it none. Float16 when every one is; the CPU when
			 * one is (the questions that ask for "not on the CPU"
			 * then leave it). */
			const TlFunc *f = &d.idx->funcs.items[d.func];
			bool all = f->returns.size > 0, half = true, cpu = false;
			for (uint32_t i = 0; all && i < f->returns.size; i++) {
				TSNode r = f->returns.items[i];
				uint32_t rk = ts_node_named_child_count(r)
						      ? tl_facts__every_autocast(d.idx, ts_node_named_child(r, 0))
						      : 0;
				if (!(rk & TL_CTX_AUTOCAST) || (rk & TL_CTX_AUTOCAST_OFF)) {
					all = false;
					break;
				}
				half = half && (rk & TL_CTX_HALF_AUTOCAST);
				cpu = cpu || (rk & TL_CTX_CPU_AUTOCAST);
			}
			if (all)
				k = TL_CTX_AUTOCAST | (half ? TL_CTX_HALF_AUTOCAST : 0) |
				    (cpu ? TL_CTX_CPU_AUTOCAST : 0);
			*slot &= ~TL_HANDED_BUSY;
			if (tl_facts__nest_leave(&tl_facts__handed_nest, mark))
				*slot = k | TL_HANDED_DONE;
		}
	}
	if (ext)
		tl_facts__ext_leave(idx);
	return k;
}

/* ---- a parameter and the argument for it ------------------------------------------- */

/* The parameter index of function `func` that name `n` of its body is,
 * or -1. */
static int32_t tl_facts__param_named(const TlIndex *idx, int32_t func, TSNode n)
{
	const TlSyms *sy = tl_syms();
	n = tl_index_unparen(n);
	if (ts_node_is_null(n) || ts_node_symbol(n) != sy->identifier)
		return -1;
	const TlBinding *b = tl_index_resolve_node(idx, n);
	if (!b || b->kind != TL_BIND_PARAM || b->func != func)
		return -1;
	return tl_facts__param_index(idx, &idx->funcs.items[func], b->name, strlen(b->name));
}

/* The argument call `c` of `idx` passes for parameter `k` of function `d`. */
static TSNode tl_facts__arg_for(const TlIndex *idx, const TlCall *c, const TlExtDef *d, int32_t k)
{
	const TlFunc *f = &d->idx->funcs.items[d->func];
	const char *pname = d->idx->bindings.items[f->params.items[k]].name;
	if (d->idx == idx)
		return tl_facts__param_arg_of(idx, &idx->bindings.items[f->params.items[k]], c);
	return tl_facts__ext_param_arg(idx, c, d, pname, strlen(pname));
}
