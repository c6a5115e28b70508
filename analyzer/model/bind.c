/* A call's arguments bound to its callee's parameters, and what a
 * parameter holds that a call leaves out: its default value
 * (docs/semantic-model.md, "Entry contexts and the wrapper family").
 *
 * Positional arguments fill the parameters in order up to a `*args`
 * parameter (or a bare `*`); keyword arguments bind by name. A parameter
 * no argument names holds its default, unless the call has a splat (`*a`,
 * `**kw`: any parameter may be in it), and is unknown without one.
 *
 * A default is evaluated where the function is entered, before its
 * parameters are bound (the names it reads are those of the enclosing
 * scope, as where the `def` runs): a call site that leaves the parameter
 * out hands it that value (the entry context joins it, context.c), and a
 * parameter that no call site of the module passes (its callers are
 * other modules', or there are none) starts as what the importers' call
 * sites pass, joined with its default where one leaves it out (its
 * default when none is found), as an annotation would say what it is.
 *
 * Owns: TlModel.dflt, TlModel.passed, TlModel.ext_cst, tl_model__ext_const, tl_in__ctx_call, tl_in__ctx_construct, tl_in__defaults,
 * tl_in__default_seed, tl_in__record_args, tl_model__default_ctx, tl_model__param_default,
 * tl_model__site_args. */
#include <string.h>

#include "base/alloc.h"
#include "model/interp_internal.h"

/* How a call binds a parameter. */
enum { TL_BIND_NAMED = 0, TL_BIND_LEFT = 1, TL_BIND_ANY = 2 };

/* Parameter `i` of `fn`: its node, and whether a positional argument can
 * fill it (no `*args` or bare `*` before it). */
static TSNode tl_bind__param(const TlIndex *idx, const TlFunc *fn, uint32_t i)
{
	return idx->bindings.items[fn->params.items[i]].stmt;
}

/* The first byte after which parameters are keyword-only: the start of
 * the `*args` or bare `*` of `fn`'s parameter list, else UINT32_MAX. */
static uint32_t tl_bind__star(const TlIndex *idx, const TlFunc *fn)
{
	const TlSyms *sy = tl_syms();
	TSNode params = tl_tree_field(fn->node, sy->f_parameters);
	uint32_t n = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
	(void)idx;
	for (uint32_t i = 0; i < n; i++) {
		TSNode p = ts_node_named_child(params, i);
		if (ts_node_symbol(p) == sy->list_splat_pattern || strcmp(ts_node_type(p), "keyword_separator") == 0)
			return ts_node_start_byte(p);
	}
	return UINT32_MAX;
}

/* The default value's expression of parameter node `p`, or a null node. */
static TSNode tl_bind__default(TSNode p)
{
	const TlSyms *sy = tl_syms();
	TSSymbol s = ts_node_symbol(p);
	if (s != sy->default_parameter && s != sy->typed_default_parameter)
		return (TSNode){ 0 };
	return tl_tree_field(p, sy->f_value);
}

/* The parameter of `fn` named `name` (len bytes) that a keyword can bind,
 * or -1. */
static int32_t tl_bind__named(const TlIndex *idx, const TlFunc *fn, const char *name, uint32_t len)
{
	for (uint32_t i = 0; i < fn->params.size; i++) {
		const TlBinding *b = &idx->bindings.items[fn->params.items[i]];
		TSSymbol s = ts_node_symbol(b->stmt);
		if (s == tl_syms()->list_splat_pattern || s == tl_syms()->dictionary_splat_pattern)
			continue;
		if (b->name && strlen(b->name) == len && memcmp(b->name, name, len) == 0)
			return (int32_t)i;
	}
	return -1;
}

/* How call node `call` binds each parameter of `fn` from `shift` on
 * (how[i], i < TL_MODEL_CTX_PARAMS), and for a named one the position
 * among the call's arguments of the argument that does (arg[i]). */
static void tl_bind__map_in(const TlIndex *idx, const TlFunc *fn, const TlIndex *cidx, TSNode call, uint32_t shift,
			    uint8_t *how, int32_t *arg)
{
	const TlSyms *sy = tl_syms();
	uint32_t n = fn->params.size < TL_MODEL_CTX_PARAMS ? fn->params.size : TL_MODEL_CTX_PARAMS;
	uint32_t star = tl_bind__star(idx, fn);
	bool splat = false;
	for (uint32_t i = 0; i < n; i++) {
		how[i] = TL_BIND_LEFT;
		arg[i] = -1;
	}
	TSNode args = tl_tree_field(call, sy->f_arguments);
	if (ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list) {
		splat = !ts_node_is_null(args); /* a generator argument */
	} else {
		uint32_t na = ts_node_named_child_count(args), pos = shift;
		int32_t j = 0;
		for (uint32_t k = 0; k < na; k++) {
			TSNode a = ts_node_named_child(args, k);
			TSSymbol s = ts_node_symbol(a);
			if (s == sy->comment)
				continue;
			int32_t at = j++;
			if (s == sy->list_splat || s == sy->dictionary_splat) {
				splat = true;
			} else if (s == sy->keyword_argument) {
				TSNode name = tl_tree_field(a, sy->f_name);
				uint32_t len = 0;
				const char *t = ts_node_is_null(name) ? NULL : tl_index_text(cidx, name, &len);
				int32_t i = t ? tl_bind__named(idx, fn, t, len) : -1;
				if (i >= (int32_t)shift && (uint32_t)i < n) {
					how[i] = TL_BIND_NAMED;
					arg[i] = at;
				}
			} else if (!splat) {
				uint32_t i = pos++;
				if (i < n && ts_node_start_byte(tl_bind__param(idx, fn, i)) < star) {
					how[i] = TL_BIND_NAMED;
					arg[i] = at;
				}
			}
		}
	}
	for (uint32_t i = shift; i < n; i++) {
		if (how[i] != TL_BIND_LEFT)
			continue;
		TSNode p = tl_bind__param(idx, fn, i);
		if (splat || ts_node_symbol(p) == sy->list_splat_pattern ||
		    ts_node_symbol(p) == sy->dictionary_splat_pattern || ts_node_is_null(tl_bind__default(p)))
			how[i] = TL_BIND_ANY;
	}
}

static void tl_bind__map(const TlIndex *idx, const TlFunc *fn, TSNode call, uint32_t shift, uint8_t *how,
			 int32_t *arg)
{
	tl_bind__map_in(idx, fn, idx, call, shift, how, arg);
}

/* Notes call site in->site of function `func` of the module: the values
 * it hands the parameters from `shift` on (the call's positional
 * arguments `args`; its keyword arguments, read from the call being
 * evaluated when `args` are that call's), and those it leaves to their
 * defaults. */
void tl_in__ctx_call(In *in, int32_t func, uint32_t shift, const TlVal *args, uint32_t nargs)
{
	if (in->m->quiet || func < 0 || (uint32_t)func >= in->idx->funcs.size)
		return;
	const TlFunc *fn = &in->idx->funcs.items[func];
	uint32_t n = fn->params.size < TL_MODEL_CTX_PARAMS ? fn->params.size : TL_MODEL_CTX_PARAMS;
	bool own = args && args == in->call_args && !ts_node_is_null(in->call_node);
	if (!own || n <= shift) {
		tl_model__ctx_note(in->m, func, in->site, args, nargs, shift, 0);
		return;
	}
	uint8_t how[TL_MODEL_CTX_PARAMS];
	int32_t arg[TL_MODEL_CTX_PARAMS];
	tl_bind__map(in->idx, fn, in->call_node, shift, how, arg);
	TlVal bound[TL_MODEL_CTX_PARAMS];
	uint16_t left = 0;
	for (uint32_t i = shift; i < n; i++) {
		bound[i - shift] = tl_val_top();
		if (how[i] == TL_BIND_NAMED && arg[i] >= 0 && (uint32_t)arg[i] < in->call_nargs)
			bound[i - shift] = in->call_args[arg[i]];
		else if (how[i] == TL_BIND_LEFT)
			left |= (uint16_t)(1u << i);
	}
	tl_model__ctx_note(in->m, func, in->site, bound, n - shift, shift, left);
}

void tl_in__ctx_construct(In *in, int32_t cls, const TlVal *args, uint32_t nargs)
{
	if (in->m->quiet || cls < 0 || (uint32_t)cls >= in->idx->classes.size)
		return;
	int32_t init = tl_index_method(in->idx, cls, "__init__", 8);
	if (init >= 0 && in->idx->funcs.items[init].cls == cls)
		tl_in__ctx_call(in, init, 1, args, nargs);
}

/* The parameters of `func` that some call site of the module the index
 * knows names, or may fill through a splat (bit i), computed once. */
static uint16_t tl_bind__passed(TlModel *m, int32_t func)
{
	int32_t at;
	if (tl_scopemap_get(&m->passed, (uint32_t)func, 0, &at))
		return (uint16_t)at;
	const TlIndex *idx = m->idx;
	const TlFunc *fn = &idx->funcs.items[func];
	uint32_t n = fn->params.size < TL_MODEL_CTX_PARAMS ? fn->params.size : TL_MODEL_CTX_PARAMS;
	bool is_static = false, is_classmethod = false;
	tl_model__method_kind(idx, fn, &is_static, &is_classmethod);
	uint32_t shift = fn->cls >= 0 && !is_static ? 1 : 0;
	bool init = fn->cls >= 0 && fn->name && strcmp(fn->name, "__init__") == 0;
	uint16_t passed = 0;
	uint8_t how[TL_MODEL_CTX_PARAMS];
	int32_t arg[TL_MODEL_CTX_PARAMS];
	for (uint32_t k = 0; k < idx->calls.size; k++) {
		const TlCall *c = &idx->calls.items[k];
		bool site = c->target == func;
		if (!site && init && !c->receiver.id) {
			const TlBinding *b = tl_index_resolve_node(idx, c->callee);
			site = b && b->kind == TL_BIND_CLASS && b->ref == fn->cls;
		}
		if (!site)
			continue;
		tl_bind__map(idx, fn, c->node, shift, how, arg);
		for (uint32_t i = shift; i < n; i++)
			if (how[i] != TL_BIND_LEFT)
				passed |= (uint16_t)(1u << i);
	}
	tl_scopemap_put(&m->passed, (uint32_t)func, 0, passed);
	return passed;
}

/* Modules away an importer's call site is read for what it passes (its
 * argument may be a parameter of the importer's left to its default, whose
 * own importers pass...). */
#define TL_BIND_HOPS 3
static _Thread_local int tl_bind__hops;

/* What the call sites of function `func` in the modules that import m's
 * pass its parameters (callers.c): per parameter i, the join of the
 * values passed (ext[i]), and bits: 1 some site leaves it to its default,
 * 2 some site passes what is not known (a splat, a value the importer's
 * model did not record, a site past the bound). */
typedef struct TlBindExt {
	TlModel *m;
	int32_t func;
	uint32_t n;
	uint8_t bits[TL_MODEL_CTX_PARAMS];
	TlVal val[TL_MODEL_CTX_PARAMS];
} TlBindExt;

static bool tl_bind__ext_want(void *ctx, int32_t f)
{
	return ((TlBindExt *)ctx)->func == f;
}

/* The argument at place `at` among call node `call`'s arguments (a
 * keyword argument's value). */
static TSNode tl_bind__arg_node(TSNode call, int32_t at)
{
	const TlSyms *sy = tl_syms();
	TSNode args = tl_tree_field(call, sy->f_arguments);
	uint32_t na = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
	int32_t j = 0;
	for (uint32_t k = 0; k < na; k++) {
		TSNode a = ts_node_named_child(args, k);
		if (ts_node_symbol(a) == sy->comment)
			continue;
		if (j++ == at)
			return ts_node_symbol(a) == sy->keyword_argument ? tl_tree_field(a, sy->f_value) : a;
	}
	return (TSNode){ 0 };
}

void tl_in__record_args(In *in, const TlCall *c, TSNode n, const TlVal *args, uint32_t nargs)
{
	TlVal f;
	if (!in->m->quiet || !in->idx->imports || !c->qname || strncmp(c->qname, "torch.", 6) == 0 ||
	    !tl_model__resolve(in->m, c->qname, &f) ||
	    (f.kind != TL_VK_FUNCTION && f.kind != TL_VK_CLASS) || !f.mod || f.mod == (const void *)in->idx)
		return;
	for (uint32_t j = 0; j < nargs; j++) {
		TSNode a = tl_index_unparen(tl_bind__arg_node(n, (int32_t)j));
		if (!ts_node_is_null(a))
			tl_model__record(in->m, ts_node_start_byte(a), ts_node_end_byte(a), &args[j]);
	}
}

static void tl_bind__ext_site(void *ctx, const TlExtCall *s)
{
	TlBindExt *x = ctx;
	const TlIndex *idx = x->m->idx;
	const TlFunc *fn = &idx->funcs.items[x->func];
	bool is_static = false, is_classmethod = false;
	tl_model__method_kind(idx, fn, &is_static, &is_classmethod);
	uint32_t shift = fn->cls >= 0 && !is_static && (s->bound || is_classmethod) ? 1 : 0;
	uint8_t how[TL_MODEL_CTX_PARAMS];
	int32_t arg[TL_MODEL_CTX_PARAMS];
	tl_bind__map_in(idx, fn, s->mod, s->call->node, shift, how, arg);
	const TlModel *om = s->om;
	for (uint32_t i = shift; i < x->n; i++) {
		if (how[i] == TL_BIND_LEFT) {
			x->bits[i] |= 1;
			continue;
		}
		TSNode a = how[i] == TL_BIND_NAMED ? tl_index_unparen(tl_bind__arg_node(s->call->node, arg[i]))
						   : (TSNode){ 0 };
		int32_t at;
		if (!om || ts_node_is_null(a) ||
		    !tl_scopemap_get(&om->vals, ts_node_start_byte(a), ts_node_end_byte(a), &at)) {
			x->bits[i] |= 2;
			continue;
		}
		TlVal v = tl_val_import(&x->m->pool, &om->pool, &om->pool.vals.items[at]);
		TlVal part = tl_model__ctx_part(&v);
		x->val[i] = tl_val_join(&x->m->pool, &x->val[i], &part);
	}
}

/* Parameter i of `func` as its importers' call sites pass it, joined with
 * its default `d` where one leaves it out (computed once per model, kept in
 * m->passed under keys 1 + 2i, 2 + 2i): false when some site passes what
 * is not known. With no such site, `d` itself. */
static bool tl_bind__ext_join(TlModel *m, int32_t func, uint32_t i, const TlVal *d, TlVal *out)
{
	int32_t bits, at;
	if (!tl_scopemap_get(&m->passed, (uint32_t)func, 1 + 2 * i, &bits)) {
		const TlFunc *fn = &m->idx->funcs.items[func];
		TlBindExt x;
		memset(&x, 0, sizeof x);
		x.m = m;
		x.func = func;
		x.n = fn->params.size < TL_MODEL_CTX_PARAMS ? fn->params.size : TL_MODEL_CTX_PARAMS;
		for (uint32_t k = 0; k < TL_MODEL_CTX_PARAMS; k++)
			x.val[k] = tl_val_bot();
		bool cut = tl_bind__hops >= TL_BIND_HOPS;
		if (!cut) {
			tl_bind__hops++;
			tl_model__importer_calls(m, TL_CALLERS_MAKERS, tl_bind__ext_want, tl_bind__ext_site, &x);
			tl_bind__hops--;
		}
		for (uint32_t k = 0; k < x.n; k++) {
			uint32_t b = x.bits[k] | (cut ? 2u : 0u);
			tl_scopemap_put(&m->passed, (uint32_t)func, 1 + 2 * k, (int32_t)b);
			tl_scopemap_put(&m->passed, (uint32_t)func, 2 + 2 * k, tl_val_pool_add(&m->pool, x.val[k]));
		}
		bits = x.bits[i] | (cut ? 2 : 0);
	}
	if (bits & 2)
		return false;
	if (!tl_scopemap_get(&m->passed, (uint32_t)func, 2 + 2 * i, &at))
		return false;
	TlVal v = m->pool.vals.items[at];
	if (v.kind == TL_VK_BOT) {
		*out = *d; /* no site passes it: its default */
		return true;
	}
	*out = (bits & 1) ? tl_val_join(&m->pool, &v, d) : v;
	return true;
}

/* The constants the importers' call sites pass
 * (tl_model__ext_const): per function, TL_MODEL_CTX_PARAMS each, -2 no
 * site yet, 0 none, else the constant; the ends of the calls' callees, for
 * tl_model__importers_mentions. */
typedef struct TlBindCst {
	TlModel *m;
	int32_t *c;
	uint8_t *bad;
	TlExtEnd *ends;
	uint32_t nends, cap;
} TlBindCst;

/* Functions of the module's top level: a method is called through an
 * instance (not read), a nested function by no importer. */
static bool tl_bind__cst_want(void *ctx, int32_t f)
{
	const TlFunc *fn = &((TlBindCst *)ctx)->m->idx->funcs.items[f];
	return fn->cls < 0 && fn->parent < 0;
}

static void tl_bind__cst_site(void *ctx, const TlExtCall *s)
{
	TlBindCst *x = ctx;
	const TlIndex *idx = x->m->idx;
	const TlFunc *fn = &idx->funcs.items[s->func];
	int32_t *c = x->c + (size_t)s->func * TL_MODEL_CTX_PARAMS;
	if (s->bound) {
		x->bad[s->func] = 1;
		return;
	}
	if (x->nends == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 8;
		x->ends = tl_realloc(x->ends, x->cap * sizeof *x->ends);
	}
	x->ends[x->nends++] = (TlExtEnd){ s->mod, ts_node_end_byte(s->call->callee), s->func };
	uint8_t how[TL_MODEL_CTX_PARAMS];
	int32_t arg[TL_MODEL_CTX_PARAMS];
	tl_bind__map_in(idx, fn, s->mod, s->call->node, 0, how, arg);
	uint32_t n = fn->params.size < TL_MODEL_CTX_PARAMS ? fn->params.size : TL_MODEL_CTX_PARAMS;
	for (uint32_t i = 0; i < n; i++) {
		uint16_t k = 0;
		if (how[i] == TL_BIND_LEFT)
			k = tl_model__const_literal(x->m, idx, tl_model__param_default(idx, fn, i));
		else if (how[i] == TL_BIND_NAMED)
			k = tl_model__const_literal(x->m, s->mod, tl_bind__arg_node(s->call->node, arg[i]));
		c[i] = c[i] == -2 || c[i] == (int32_t)k ? (int32_t)k : 0;
	}
}

bool tl_model__ext_const(TlModel *m, int32_t func, uint32_t i, uint32_t *out)
{
	const TlIndex *idx = m->idx;
	uint32_t nf = idx->funcs.size;
	if (func < 0 || (uint32_t)func >= nf || i >= TL_MODEL_CTX_PARAMS)
		return false;
	if (!m->ext_cst) {
		/* every function at once: one read of the importers */
		TlBindCst x;
		memset(&x, 0, sizeof x);
		x.m = m;
		x.c = tl_malloc((size_t)nf * TL_MODEL_CTX_PARAMS * sizeof *x.c);
		x.bad = tl_calloc(nf, 1);
		for (size_t k = 0; k < (size_t)nf * TL_MODEL_CTX_PARAMS; k++)
			x.c[k] = -2;
		tl_model__importer_calls(m, TL_CALLERS_TEXT, tl_bind__cst_want, tl_bind__cst_site, &x);
		bool all = tl_model__importers_mentions(m, x.ends, x.nends, x.bad);
		for (uint32_t f = 0; f < nf; f++) {
			const TlFunc *fn = &idx->funcs.items[f];
			if (!all || x.bad[f] || fn->cls >= 0)
				for (uint32_t k = 0; k < TL_MODEL_CTX_PARAMS; k++)
					x.c[(size_t)f * TL_MODEL_CTX_PARAMS + k] = -1;
		}
		tl_free(x.ends);
		tl_free(x.bad);
		m->ext_cst = x.c;
	}
	int32_t c = m->ext_cst[(size_t)func * TL_MODEL_CTX_PARAMS + i];
	if (c == -1)
		return false;
	*out = c == -2 ? TL_MODEL_EXT_NO_SITE : (uint32_t)c;
	return true;
}

/* Whether default expression `d` is worth a value: what it makes or
 * names (a call, a name), not a literal. */
static bool tl_bind__valued(TSNode d)
{
	const TlSyms *sy = tl_syms();
	TSSymbol s = ts_node_symbol(d);
	return s == sy->call || s == sy->attribute || s == sy->identifier;
}

void tl_in__defaults(In *in, const TlFunc *fn)
{
	if (in->func < 0)
		return;
	uint32_t n = fn->params.size < TL_MODEL_CTX_PARAMS ? fn->params.size : TL_MODEL_CTX_PARAMS;
	for (uint32_t i = 0; i < n; i++) {
		TSNode d = tl_bind__default(tl_bind__param(in->idx, fn, i));
		if (ts_node_is_null(d) || !tl_bind__valued(d))
			continue;
		TlVal v = tl_in__eval(in, d);
		TlVal part = tl_model__ctx_part(&v);
		int32_t at;
		if (tl_scopemap_get(&in->m->dflt, (uint32_t)in->func, i, &at))
			in->m->pool.vals.items[at] = part;
		else
			tl_scopemap_put(&in->m->dflt, (uint32_t)in->func, i, tl_val_pool_add(&in->m->pool, part));
	}
}

void tl_model__site_args(const TlIndex *idx, const TlFunc *fn, TSNode call, uint32_t shift, TSNode *arg,
			 uint8_t *left)
{
	uint8_t how[TL_MODEL_CTX_PARAMS];
	int32_t at[TL_MODEL_CTX_PARAMS];
	tl_bind__map(idx, fn, call, shift, how, at);
	uint32_t n = fn->params.size < TL_MODEL_CTX_PARAMS ? fn->params.size : TL_MODEL_CTX_PARAMS;
	for (uint32_t i = 0; i < n; i++) {
		arg[i] = i >= shift && how[i] == TL_BIND_NAMED ? tl_bind__arg_node(call, at[i]) : (TSNode){ 0 };
		left[i] = i >= shift && how[i] == TL_BIND_LEFT;
	}
}

void tl_model__site_args_in(const TlIndex *idx, const TlFunc *fn, const TlIndex *cidx, TSNode call, uint32_t shift,
			    TSNode *arg, uint8_t *left)
{
	uint8_t how[TL_MODEL_CTX_PARAMS];
	int32_t at[TL_MODEL_CTX_PARAMS];
	tl_bind__map_in(idx, fn, cidx, call, shift, how, at);
	uint32_t n = fn->params.size < TL_MODEL_CTX_PARAMS ? fn->params.size : TL_MODEL_CTX_PARAMS;
	for (uint32_t i = 0; i < n; i++) {
		arg[i] = i >= shift && how[i] == TL_BIND_NAMED ? tl_bind__arg_node(call, at[i]) : (TSNode){ 0 };
		left[i] = i >= shift && how[i] == TL_BIND_LEFT;
	}
}

TSNode tl_model__param_default(const TlIndex *idx, const TlFunc *fn, uint32_t i)
{
	return i < fn->params.size ? tl_bind__default(tl_bind__param(idx, fn, i)) : (TSNode){ 0 };
}

bool tl_model__default_ctx(const TlModel *m, int32_t func, uint32_t i, TlVal *out)
{
	int32_t at;
	if (!tl_scopemap_get(&m->dflt, (uint32_t)func, i, &at))
		return false;
	*out = m->pool.vals.items[at];
	return true;
}

bool tl_in__default_seed(In *in, uint32_t i, TlVal *v)
{
	TlVal d;
	if (in->func < 0 || i >= TL_MODEL_CTX_PARAMS || !tl_model__default_ctx(in->m, in->func, i, &d) ||
	    d.kind == TL_VK_TOP || d.kind == TL_VK_BOT || (tl_bind__passed(in->m, in->func) & (1u << i)))
		return false;
	/* What the importers pass, joined with it where they leave it out (a
	 * model built for another module's summaries reads its own sites
	 * only: its importers' models would read it being built). */
	if (!in->m->quiet && !in->m->building && !tl_bind__ext_join(in->m, in->func, i, &d, &d))
		return false;
	if (d.kind == TL_VK_TOP || d.kind == TL_VK_BOT)
		return false;
	v->kind = d.kind;
	v->wrap = d.wrap;
	v->ref = d.ref;
	v->mod = d.mod;
	v->act = d.act;
	v->loss = d.loss;
	v->made |= d.made | TL_VM_GUESS;
	return true;
}
