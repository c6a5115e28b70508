/* Per-site constant contexts and what a call runs under them
 * (docs/semantic-model.md, "One interpretation per constant context").
 *
 * A call site hands its local callee a context: the constants it passes
 * its first TL_MODEL_CTX_PARAMS parameters (a literal argument, the
 * literal default it leaves, a parameter of the caller passed through
 * with the caller's own constant) and, for a method called on `self`, the
 * constants the caller has just stored into attributes of `self`
 * (`self.is_test = False` at the top of `train()`, before its loop calls
 * `self.select_action(state)`). Under that context the callee's tests on
 * those parameters and attributes are decided, and the calls under a test
 * decided against them do not run.
 *
 * The events (TL_EV_*) a call runs under its context are a summary per
 * (function, context): the events of the calls the context leaves
 * reachable, through their own local callees under the contexts they
 * hand in turn. The summaries are computed together, as a fixpoint over
 * a table of at most TL_MODEL_CONTEXT_RUNS contexts (a context that does
 * not fit keeps its callee's whole reach, as the index counts it): no
 * recursion follows the call graph, and every call looked at is a step
 * of the thread's bound; a bound hit answers the callee's whole reach.
 *
 * An attribute of `self` holds the caller's constant at its site only
 * where the caller stores it once, a literal, in a statement of its body
 * that runs before the call (not under a test, a loop or a `try`), and no
 * call the caller makes after that store may store an attribute of that
 * name (a local function reaching a store of `.name` anywhere, `setattr`,
 * a call handed `self` itself or a method of `self` the index does not
 * resolve). The callee keeps it while it does not store it itself.
 *
 * A construction's context is the same, read across modules (the class
 * may be another module's): the constants a call building a class hands
 * its `__init__`, with the attributes of `self` the constructor's body
 * stores once from them before the node asked about; holdsnone.c judges
 * the class's stores under it.
 *
 * Owns: tl_model_call_events, tl_model__ctor_consts, tl_model__ctx_value,
 * tl_model__ctx_cond, tl_model__ctx_runs, tl_model__site_consts,
 * tl_model__ctx_test_on_params. */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/budget.h"
#include "model/apitable.h"
#include "model/interp_internal.h"

typedef struct {
	const char *name; /* the attribute's name, in the module's source */
	uint32_t len;
	uint16_t cst;
	bool local; /* a local variable of the constructor, not `self.name` */
} ScAttr;

/* The attributes and locals a construction's context keeps (an events
 * context keeps TL_MODEL_CONTEXT_ATTRS attributes). */
#define SC_NAMES 16
/* Functions of the project and conditional expressions one constant of a
 * construction is evaluated through, nested (`default(dim, d)` calling
 * `exists(dim)`): deeper, it is not known. */
#define SC_NEST 4

typedef struct {
	int32_t func;
	uint16_t p[TL_MODEL_CTX_PARAMS]; /* each parameter's constant, 0 none */
	ScAttr a[SC_NAMES];
	uint32_t na;
	uint32_t ev; /* the events it runs, so far */
} ScCtx;

typedef struct {
	TlModel *m;
	const TlIndex *idx;
	uint32_t events;
	bool prune;
	bool cut;
	/* a table of another module's functions, solved for one call of the
	 * asker's module (sc_ext): its calls' own callees in other modules
	 * keep their whole reach */
	bool nested;
	ScCtx t[TL_MODEL_CONTEXT_RUNS];
	uint32_t n;
	/* a construction's context whose attributes of `self` are read only
	 * once a test asks for one (sc_ctor_attrs, before byte lazy_before) */
	ScCtx *lazy;
	uint32_t lazy_before;
	/* a construction's constants: locals, `len()`, functions of the
	 * project and conditional expressions are evaluated (sc_ctor_new) */
	bool ctor;
	uint32_t nest;
} Sc;

static void sc_ctor_attrs(Sc *s, ScCtx *c, uint32_t before);
static uint16_t sc_value(Sc *s, const ScCtx *c, TSNode e);
static int sc_cond(Sc *s, const ScCtx *c, TSNode cond);
static uint16_t sc_call_value(Sc *s, const ScCtx *c, TSNode call);

static uint32_t sc_reach(const TlIndex *idx, int32_t f, uint32_t events)
{
	return f >= 0 && (uint32_t)f < idx->funcs.size ? idx->funcs.items[f].reach_events & events : 0;
}

static uint32_t sc_ext(Sc *s, const ScCtx *from, int32_t caller, const TlCall *k, uint32_t callee);

/* What call `k` (of `caller`, under its context `from`, NULL its entry)
 * runs whatever its local callee's context: its own events, its callee's
 * in another module (under the context the call hands it, sc_ext), a
 * function it is handed. */
static uint32_t sc_own(Sc *s, const ScCtx *from, int32_t caller, const TlCall *k)
{
	const TlIndex *idx = s->idx;
	uint32_t callee = k->callee_events & s->events;
	if (callee && s->prune && !s->nested)
		callee = sc_ext(s, from, caller, k, callee);
	uint32_t got = (k->events & s->events) | callee;
	if (k->arg_target >= 0)
		got |= sc_reach(idx, k->arg_target, s->events);
	return got;
}

static bool sc_is_self(const TlIndex *idx, TSNode n)
{
	n = tl_index_unparen(n);
	return !ts_node_is_null(n) && ts_node_symbol(n) == tl_syms()->identifier && tl_index_text_is(idx, n, "self");
}

/* The parameter of `f` that identifier `n` names, bound nowhere else in
 * `f` (still the argument), or -1. */
static int32_t sc_param(const TlIndex *idx, int32_t f, TSNode n)
{
	uint32_t len = 0;
	if (f < 0 || (uint32_t)f >= idx->funcs.size)
		return -1;
	const char *t = tl_index_text(idx, n, &len);
	const TlFunc *fn = &idx->funcs.items[f];
	for (uint32_t i = 0; t && i < fn->params.size && i < TL_MODEL_CTX_PARAMS; i++) {
		const TlBinding *b = &idx->bindings.items[fn->params.items[i]];
		if (!b->name || strlen(b->name) != len || memcmp(b->name, t, len) != 0)
			continue;
		const TlIntArray *all = tl_index_bindings_of(idx, f, b->name);
		return all && all->size == 1 ? (int32_t)i : -1;
	}
	return -1;
}

/* The constant expression `e` of function `f` holds under context `c`: a
 * literal, a parameter, an attribute of `self` the context keeps; 0 none. */
static uint16_t sc_operand(Sc *s, const ScCtx *c, TSNode e)
{
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	if (ts_node_is_null(e))
		return 0;
	TSSymbol k = ts_node_symbol(e);
	if (k == sy->identifier) {
		int32_t i = sc_param(s->idx, c->func, e);
		if (i >= 0 || !s->ctor)
			return i >= 0 ? c->p[i] : 0;
		/* a local of the constructor the context keeps */
		if (s->lazy && s->lazy == c) {
			s->lazy = NULL;
			sc_ctor_attrs(s, (ScCtx *)c, s->lazy_before);
		}
		uint32_t len = 0;
		const char *t = tl_index_text(s->idx, e, &len);
		for (uint32_t j = 0; t && j < c->na; j++)
			if (c->a[j].local && c->a[j].len == len && memcmp(c->a[j].name, t, len) == 0)
				return c->a[j].cst;
		return 0;
	}
	if (s->ctor && k == sy->call)
		return sc_call_value(s, c, e);
	if (s->ctor && (k == sy->list || k == sy->tuple)) {
		/* a list or tuple display: its length (no starred item) */
		uint32_t n = ts_node_named_child_count(e), items = 0;
		for (uint32_t i = 0; i < n; i++) {
			TSSymbol ik = ts_node_symbol(ts_node_named_child(e, i));
			if (ik == sy->list_splat || ik == sy->dictionary_splat)
				return 0;
			items += ik != sy->comment;
		}
		return items < 0x1fffu ? TL_VC(TL_VC_LEN, items) : 0;
	}
	if (s->ctor && k == sy->conditional_expression && ts_node_named_child_count(e) == 3) {
		if (s->nest >= SC_NEST)
			return 0;
		s->nest++;
		int t = sc_cond(s, c, ts_node_named_child(e, 1));
		uint16_t v = t < 0 ? 0 : sc_value(s, c, ts_node_named_child(e, t ? 0 : 2));
		s->nest--;
		return v;
	}
	if (k == sy->attribute) {
		if (!sc_is_self(s->idx, tl_tree_field(e, sy->f_object)))
			return 0;
		if (s->lazy && s->lazy == c) {
			s->lazy = NULL;
			sc_ctor_attrs(s, (ScCtx *)c, s->lazy_before);
		}
		uint32_t len = 0;
		const char *t = tl_index_text(s->idx, tl_tree_field(e, sy->f_attribute), &len);
		for (uint32_t j = 0; t && j < c->na; j++)
			if (c->a[j].len == len && memcmp(c->a[j].name, t, len) == 0)
				return c->a[j].cst;
		return 0;
	}
	return tl_model__const_literal(s->m, s->idx, e);
}

/* The truth of a comparison or an operand under context `c`: 1, 0, -1
 * not known. */
static int sc_test(Sc *s, const ScCtx *c, TSNode n)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_symbol(n) != sy->comparison_operator) {
		uint16_t x = sc_operand(s, c, n);
		return x ? tl_val_const_truth(x) : -1;
	}
	if (ts_node_named_child_count(n) != 2)
		return -1;
	return tl_model__const_compare(tl_model__const_op(n), sc_operand(s, c, ts_node_named_child(n, 0)),
				       sc_operand(s, c, ts_node_named_child(n, 1)));
}

static bool sc_is_and(const TlIndex *idx, TSNode n)
{
	TSNode op = tl_tree_field(n, tl_syms()->f_operator);
	return !ts_node_is_null(op) && tl_index_text_is(idx, op, "and");
}

typedef struct {
	TSNode n;
	uint8_t stage; /* 0 not begun, 1 left operand pending, 2 right, 3 a `not`'s operand */
	int8_t left;
} ScTerm;

/* The truth of condition `cond` under context `c`: 1, 0, -1 not known.
 * `not`, `and` and `or` are evaluated over an explicit stack of at most
 * TL_MODEL_TEST_TERMS operators; a test nested deeper is not known. */
static int sc_cond(Sc *s, const ScCtx *c, TSNode cond)
{
	const TlSyms *sy = tl_syms();
	ScTerm st[TL_MODEL_TEST_TERMS];
	uint32_t top = 0;
	int got = -1;
	st[top++] = (ScTerm){tl_index_unparen(cond), 0, -1};
	while (top) {
		ScTerm *t = &st[top - 1];
		TSSymbol k = ts_node_is_null(t->n) ? 0 : ts_node_symbol(t->n);
		TSNode next = {0};
		if (t->stage == 0 && !ts_node_is_null(t->n) && k == sy->not_operator) {
			t->stage = 3;
			next = tl_tree_field(t->n, sy->f_argument);
		} else if (t->stage == 0 && !ts_node_is_null(t->n) && k == sy->boolean_operator) {
			t->stage = 1;
			next = tl_tree_field(t->n, sy->f_left);
		} else if (t->stage == 1) {
			t->left = (int8_t)got;
			t->stage = 2;
			next = tl_tree_field(t->n, sy->f_right);
		} else {
			if (t->stage == 0)
				got = ts_node_is_null(t->n) ? -1 : sc_test(s, c, t->n);
			else if (t->stage == 3)
				got = got < 0 ? -1 : !got;
			else if (sc_is_and(s->idx, t->n))
				got = (t->left == 0 || got == 0) ? 0 : (t->left == 1 && got == 1) ? 1 : -1;
			else
				got = (t->left == 1 || got == 1) ? 1 : (t->left == 0 && got == 0) ? 0 : -1;
			top--;
			continue;
		}
		if (top == TL_MODEL_TEST_TERMS) {
			got = -1; /* nested too deep: the operand is not known */
			continue;
		}
		st[top++] = (ScTerm){tl_index_unparen(next), 0, -1};
	}
	return got;
}

/* False when context `c` decides a test around `node` (in c->func)
 * against it: no path of the context runs it. */
static bool sc_runs(Sc *s, const ScCtx *c, TSNode node)
{
	const TlSyms *sy = tl_syms();
	const TlIndex *idx = s->idx;
	TSNode top = idx->funcs.items[c->func].node;
	TSNode child = node;
	for (TSNode p = tl_index_parent(idx, node); !ts_node_is_null(p) && !ts_node_eq(child, top);
	     child = p, p = tl_index_parent(idx, p)) {
		TSSymbol k = ts_node_symbol(p);
		if (k == sy->function_definition || k == sy->class_definition || k == sy->lambda)
			break;
		if (k == sy->if_statement || k == sy->elif_clause) {
			if (ts_node_eq(tl_tree_field(p, sy->f_consequence), child)) {
				if (sc_cond(s, c, tl_tree_field(p, sy->f_condition)) == 0)
					return false;
			} else if (k == sy->if_statement) {
				/* In an elif or else: every earlier test was false. */
				if (sc_cond(s, c, tl_tree_field(p, sy->f_condition)) == 1)
					return false;
				uint32_t count = ts_node_named_child_count(p);
				for (uint32_t i = 0; i < count; i++) {
					TSNode alt = ts_node_named_child(p, i);
					if (ts_node_eq(alt, child))
						break;
					if (ts_node_symbol(alt) == sy->elif_clause &&
					    sc_cond(s, c, tl_tree_field(alt, sy->f_condition)) == 1)
						return false;
				}
			}
		} else if (k == sy->conditional_expression && ts_node_named_child_count(p) == 3) {
			TSNode cnd = ts_node_named_child(p, 1);
			if (!ts_node_eq(child, cnd)) {
				int t = sc_cond(s, c, cnd);
				if (t >= 0 && (t == 1) != ts_node_eq(child, ts_node_named_child(p, 0)))
					return false;
			}
		}
	}
	return true;
}

/* True when a store into an attribute named `name` may happen in local
 * function `f` or a function it reaches (a worklist over the module's
 * functions, each once). */
static bool sc_reaches_store(const TlIndex *idx, int32_t f, const char *name, uint32_t len)
{
	uint32_t nf = idx->funcs.size;
	uint8_t *seen = tl_calloc(nf ? nf : 1, 1);
	int32_t *todo = tl_malloc((nf ? nf : 1) * sizeof *todo);
	uint32_t n = 0;
	bool yes = false;
	if (!yes && f >= 0 && (uint32_t)f < nf) {
		seen[f] = 1;
		todo[n++] = f;
	}
	while (!yes && n) {
		int32_t g = todo[--n];
		if (tl_bound_poll()) {
			yes = true;
			break;
		}
		const TlIntArray *binds = tl_index_scope_binds(idx, g);
		for (uint32_t i = 0; binds && i < binds->size && !yes; i++) {
			const char *b = idx->bindings.items[binds->items[i]].name;
			size_t bl = b ? strlen(b) : 0;
			yes = bl > len && b[bl - len - 1] == '.' && memcmp(b + bl - len, name, len) == 0;
		}
		const TlIntArray *calls = tl_index_scope_calls(idx, g);
		for (uint32_t i = 0; calls && i < calls->size && !yes; i++) {
			const TlCall *k = &idx->calls.items[calls->items[i]];
			if (k->method && ts_node_is_null(k->receiver) && strcmp(k->method, "setattr") == 0)
				yes = true;
			int32_t to[2] = { k->target, k->arg_target };
			for (uint32_t j = 0; j < 2; j++)
				if (to[j] >= 0 && (uint32_t)to[j] < nf && !seen[to[j]]) {
					seen[to[j]] = 1;
					todo[n++] = to[j];
				}
		}
	}
	tl_free(seen);
	tl_free(todo);
	return yes;
}

/* True when call `k` may store an attribute named `name` of `self`. */
static bool sc_may_store(const TlIndex *idx, const TlCall *k, const char *name, uint32_t len)
{
	const TlSyms *sy = tl_syms();
	if (k->method && ts_node_is_null(k->receiver) && strcmp(k->method, "setattr") == 0)
		return true;
	if (k->target < 0 && sc_is_self(idx, k->receiver) && k->method &&
	    (tl_api_method_sets(k->method) & (TL_APIS_REGISTERS | TL_APIS_REGISTERS_STATE))) {
		/* nn.Module's registering methods (`self.register_buffer("basis",
		 * t)`) store the attribute their first argument names */
		TSNode al = tl_tree_field(k->node, sy->f_arguments);
		TSNode a0 = ts_node_is_null(al) || !ts_node_named_child_count(al) ? al
											: tl_index_unparen(ts_node_named_child(al, 0));
		uint32_t tl = 0;
		const char *t = !ts_node_is_null(a0) && ts_node_symbol(a0) == sy->string ? tl_index_text(idx, a0, &tl) : NULL;
		if (!t || tl < 2 || (t[0] != '"' && t[0] != '\'') || t[tl - 1] != t[0] || memchr(t + 1, t[0], tl - 2) ||
		    memchr(t + 1, '\\', tl - 2) || (tl - 2 == len && memcmp(t + 1, name, len) == 0))
			return true;
	} else if (k->target < 0 && sc_is_self(idx, k->receiver) && k->method) {
		/* A method of `self` not resolved (a base class's), unless it is
		 * an attribute the class stores (a module it calls). */
		int32_t cls = k->func >= 0 ? idx->funcs.items[k->func].cls : -1;
		char key[128];
		int w = snprintf(key, sizeof key, "self.%s", k->method);
		if (cls < 0 || w < 0 || (size_t)w >= sizeof key || !tl_index_attr_bindings(idx, cls, key))
			return true;
	}
	TSNode args = tl_tree_field(k->node, sy->f_arguments);
	uint32_t na = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
	for (uint32_t i = 0; i < na; i++) {
		TSNode a = ts_node_named_child(args, i);
		if (ts_node_symbol(a) == sy->keyword_argument)
			a = tl_tree_field(a, sy->f_value);
		if (sc_is_self(idx, a))
			return true;
	}
	return (k->target >= 0 && sc_reaches_store(idx, k->target, name, len)) ||
	       (k->arg_target >= 0 && sc_reaches_store(idx, k->arg_target, name, len));
}

/* The attributes of `self` whose constants caller `f` (a method) holds at
 * its call `site`: into out[], how many. */
static uint32_t sc_site_attrs(Sc *s, int32_t f, const TlCall *site, ScAttr *out)
{
	const TlSyms *sy = tl_syms();
	const TlIndex *idx = s->idx;
	const TlFunc *fn = &idx->funcs.items[f];
	TSNode body = tl_tree_field(fn->node, sy->f_body);
	uint32_t at = ts_node_start_byte(site->node), n = 0;
	const TlIntArray *binds = tl_index_scope_binds(idx, f);
	for (uint32_t i = 0; binds && i < binds->size && n < TL_MODEL_CONTEXT_ATTRS; i++) {
		const TlBinding *b = &idx->bindings.items[binds->items[i]];
		if (!b->name || strncmp(b->name, "self.", 5) != 0 || strchr(b->name + 5, '.') ||
		    b->kind != TL_BIND_ASSIGN || b->elem >= 0 || ts_node_start_byte(b->stmt) >= at)
			continue;
		/* stored once in the function, by a statement of its body */
		uint32_t stores = 0;
		for (uint32_t j = 0; j < binds->size; j++) {
			const char *o = idx->bindings.items[binds->items[j]].name;
			stores += o && strcmp(o, b->name) == 0;
		}
		if (stores != 1)
			continue;
		TSNode p = tl_index_parent(idx, b->stmt);
		if (!ts_node_is_null(p) && ts_node_symbol(p) == sy->expression_statement)
			p = tl_index_parent(idx, p);
		if (ts_node_is_null(p) || !ts_node_eq(p, body))
			continue;
		uint16_t cst = tl_model__const_literal(s->m, idx, b->value);
		if (!cst)
			continue;
		const char *name = b->name + 5;
		uint32_t len = (uint32_t)strlen(name);
		bool stored = false;
		const TlIntArray *calls = tl_index_scope_calls(idx, f);
		for (uint32_t j = 0; calls && j < calls->size && !stored; j++) {
			const TlCall *k = &idx->calls.items[calls->items[j]];
			stored = ts_node_start_byte(k->node) > ts_node_start_byte(b->stmt) &&
				 sc_may_store(idx, k, name, len);
		}
		if (stored)
			continue;
		out[n].name = name;
		out[n].len = len;
		out[n++].cst = cst;
	}
	return n;
}

/* True when `f` stores an attribute of `self` named `a`. */
static bool sc_stores(const TlIndex *idx, int32_t f, const ScAttr *a)
{
	const TlIntArray *binds = tl_index_scope_binds(idx, f);
	for (uint32_t i = 0; binds && i < binds->size; i++) {
		const char *b = idx->bindings.items[binds->items[i]].name;
		if (b && strncmp(b, "self.", 5) == 0 && strlen(b + 5) == a->len && memcmp(b + 5, a->name, a->len) == 0)
			return true;
	}
	return false;
}

/* The constants the arguments `arg` of a call in `caller` (under `from`;
 * NULL: the caller's entry) hand callee `fn` of module `where` from
 * parameter `shift` on; a parameter the call leaves (`left`) takes its
 * literal default, read in `where`. */
static void sc_args(Sc *s, const ScCtx *from, int32_t caller, const TlIndex *where, const TlFunc *fn,
		    uint32_t shift, const TSNode *arg, const uint8_t *left, ScCtx *out)
{
	const TlIndex *idx = s->idx;
	const TlSyms *sy = tl_syms();
	uint32_t np = fn->params.size < TL_MODEL_CTX_PARAMS ? fn->params.size : TL_MODEL_CTX_PARAMS;
	for (uint32_t i = shift; i < np; i++) {
		if (left[i]) {
			out->p[i] = tl_model__const_literal(s->m, where, tl_model__param_default(where, fn, i));
			continue;
		}
		TSNode a = tl_index_unparen(arg[i]);
		if (ts_node_is_null(a))
			continue;
		int32_t j = ts_node_symbol(a) == sy->identifier ? sc_param(idx, caller, a) : -1;
		if (j >= 0)
			out->p[i] = from ? from->p[j] : tl_model__ctx_const(s->m, caller, (uint32_t)j);
		else if (from && ts_node_symbol(a) == sy->attribute)
			out->p[i] = sc_operand(s, from, a);
		else if (ts_node_symbol(a) != sy->identifier)
			out->p[i] = tl_model__const_literal(s->m, idx, a);
	}
}

/* The context call `k` hands its local callee: from context `from` of
 * the caller (NULL: the caller's entry, joined over its own sites). */
static void sc_site(Sc *s, const ScCtx *from, int32_t caller, const TlCall *k, ScCtx *out)
{
	const TlIndex *idx = s->idx;
	const TlFunc *fn = &idx->funcs.items[k->target];
	memset(out, 0, sizeof *out);
	out->func = k->target;
	if (!s->prune)
		return;
	bool is_static = false, is_cm = false;
	if (fn->cls >= 0)
		tl_model__method_kind(idx, fn, &is_static, &is_cm);
	/* `obj.m(...)` binds `self` (or `cls`); `Class.m(obj, ...)` does not */
	const TlBinding *rb = ts_node_is_null(k->receiver) ? NULL : tl_index_resolve_node(idx, k->receiver);
	bool on_class = rb && rb->kind == TL_BIND_CLASS && !is_cm;
	uint32_t shift = fn->cls >= 0 && !is_static && !on_class && !ts_node_is_null(k->receiver) ? 1 : 0;
	TSNode arg[TL_MODEL_CTX_PARAMS];
	uint8_t left[TL_MODEL_CTX_PARAMS];
	tl_model__site_args(idx, fn, k->node, shift, arg, left);
	sc_args(s, from, caller, idx, fn, shift, arg, left, out);
	/* A method called on `self` sees the attributes of `self` its caller holds. */
	if (!shift || fn->cls < 0 || !sc_is_self(idx, k->receiver))
		return;
	if (!from) {
		if (caller >= 0 && idx->funcs.items[caller].cls >= 0)
			out->na = sc_site_attrs(s, caller, k, out->a);
		return;
	}
	for (uint32_t j = 0; j < from->na; j++)
		if (!sc_stores(idx, caller, &from->a[j]))
			out->a[out->na++] = from->a[j];
}

static bool sc_same(const ScCtx *a, const ScCtx *b)
{
	if (a->func != b->func || a->na != b->na || memcmp(a->p, b->p, sizeof a->p) != 0)
		return false;
	for (uint32_t j = 0; j < a->na; j++)
		if (a->a[j].len != b->a[j].len || a->a[j].cst != b->a[j].cst ||
		    memcmp(a->a[j].name, b->a[j].name, a->a[j].len) != 0)
			return false;
	return true;
}

/* The table's entry for context `c`, added when new; -1 when full. */
static int32_t sc_entry(Sc *s, const ScCtx *c)
{
	uint32_t same_func = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		if (sc_same(&s->t[i], c))
			return (int32_t)i;
		same_func += s->t[i].func == c->func;
	}
	/* at most TL_MODEL_CONTEXTS per function, TL_MODEL_CONTEXT_RUNS in all */
	if (s->n == TL_MODEL_CONTEXT_RUNS || same_func >= TL_MODEL_CONTEXTS)
		return -1;
	s->t[s->n] = *c;
	s->t[s->n].ev = 0;
	return (int32_t)s->n++;
}

/* What call `k` of function `caller` runs under context `from` of the
 * caller (NULL: the caller's entry): its own events, and its local
 * callee's under the context it hands (an entry of the table). */
static uint32_t sc_call(Sc *s, const ScCtx *from, int32_t caller, const TlCall *k)
{
	const TlIndex *idx = s->idx;
	uint32_t got = sc_own(s, from, caller, k);
	int32_t f = k->target;
	if (f < 0 || (uint32_t)f >= idx->funcs.size)
		return got;
	uint32_t reach = sc_reach(idx, f, s->events);
	if (!(reach & ~got))
		return got;
	ScCtx c;
	sc_site(s, from, caller, k, &c);
	int32_t e = sc_entry(s, &c);
	if (e < 0)
		return got | reach;
	return got | (s->t[e].ev & reach);
}

/* Fills the table: each entry's events from its calls, until none rises
 * (the events only grow, so at most 32 rounds per entry). */
static void sc_solve(Sc *s)
{
	bool changed = true;
	for (uint32_t round = 0; changed && !s->cut; round++) {
		changed = false;
		if (round > 32 * TL_MODEL_CONTEXT_RUNS + 1) {
			s->cut = true;
			break;
		}
		for (uint32_t i = 0; i < s->n && !s->cut; i++) {
			int32_t f = s->t[i].func;
			uint32_t ev = s->t[i].ev;
			const TlIntArray *calls = tl_index_scope_calls(s->idx, f);
			for (uint32_t j = 0; calls && j < calls->size; j++) {
				if (tl_bound_poll()) {
					s->cut = true;
					break;
				}
				const TlCall *k = &s->idx->calls.items[calls->items[j]];
				ScCtx here = s->t[i]; /* the table may grow under sc_call */
				if (s->prune && !sc_runs(s, &here, k->node))
					continue;
				ev |= sc_call(s, &here, f, k);
			}
			if (ev != s->t[i].ev) {
				s->t[i].ev = ev;
				changed = true;
			}
		}
	}
}

/* The context call `k` (of `caller`, under `from`) hands method `f` of
 * module `where`, another module's: the constants of its arguments as
 * sc_site reads them in the caller, the literal defaults it leaves read
 * in `where`. No attributes of `self`: the object is not the caller's. */
static void sc_ext_site(Sc *s, const ScCtx *from, int32_t caller, const TlCall *k, const TlIndex *where,
			int32_t f, ScCtx *out)
{
	const TlIndex *idx = s->idx;
	const TlFunc *fn = &where->funcs.items[f];
	memset(out, 0, sizeof *out);
	out->func = f;
	bool is_static = false, is_cm = false;
	tl_model__method_kind(where, fn, &is_static, &is_cm);
	uint32_t shift = is_static ? 0 : 1;
	TSNode arg[TL_MODEL_CTX_PARAMS];
	uint8_t left[TL_MODEL_CTX_PARAMS];
	tl_model__site_args_in(where, fn, idx, k->node, shift, arg, left);
	sc_args(s, from, caller, where, fn, shift, arg, left, out);
}

/* What call `k` runs of `callee`, the events its callee in another module
 * reaches (TlCall.callee_events), under the context the call hands it:
 * where the receiver's value is an object of a class of another module
 * whose method of that name the model finds, that method's events under
 * the call's constants (`model.update(imgs, gt, training=False)` does not
 * run the backward and the step under `if training:`), solved in a table
 * of that module's functions, one level: the calls there into modules
 * other still keep their whole reach. Only the method's own reach is
 * narrowed; what the index added beside it is kept. */
static uint32_t sc_ext(Sc *s, const ScCtx *from, int32_t caller, const TlCall *k, uint32_t callee)
{
	const TlIndex *idx = s->idx;
	if (k->target >= 0 || !k->method || ts_node_is_null(k->receiver) || !idx->imports)
		return callee;
	TlVal v;
	if (!tl_model_value(idx, k->receiver, &v) ||
	    (v.kind != TL_VK_MODULE && v.kind != TL_VK_OBJECT && v.kind != TL_VK_WRAPPER) || v.ref < 0 || !v.mod ||
	    v.mod == (const void *)idx)
		return callee;
	tl_model__enter(idx);
	const TlIndex *where = NULL;
	int32_t f = tl_model__method((const TlIndex *)v.mod, v.ref, k->method, &where);
	uint32_t reach = f >= 0 && where && where != idx ? sc_reach(where, f, s->events) : 0;
	if (reach & callee) {
		Sc *t = tl_calloc(1, sizeof *t);
		t->m = s->m;
		t->idx = where;
		t->events = s->events;
		t->prune = true;
		t->nested = true;
		ScCtx c;
		sc_ext_site(s, from, caller, k, where, f, &c);
		int32_t e = sc_entry(t, &c);
		if (e >= 0)
			sc_solve(t);
		uint32_t ev = e >= 0 && !t->cut ? t->t[e].ev : reach;
		callee &= ~(reach & ~ev);
		tl_free(t);
	}
	tl_model__leave(idx);
	return callee;
}

uint32_t tl_model_call_events(const TlIndex *idx, const TlCall *c, uint32_t events, bool contexts)
{
	uint32_t own = (c->events | c->callee_events) & events;
	if (c->arg_target >= 0)
		own |= sc_reach(idx, c->arg_target, events);
	int32_t f = c->target;
	bool local = f >= 0 && (uint32_t)f < idx->funcs.size;
	uint32_t reach = local ? sc_reach(idx, f, events) : 0;
	if (!(reach & ~own) && !(contexts && (c->callee_events & events)))
		return own;
	TlModel *m = (TlModel *)tl_model_of(idx);
	if (!m)
		return own | reach;
	if (c->func >= 0)
		tl_model__ensure(m, c->func);
	Sc *s = tl_calloc(1, sizeof *s);
	s->m = m;
	s->idx = idx;
	s->events = events;
	s->prune = contexts;
	uint32_t got = sc_own(s, NULL, c->func, c);
	if (!local) {
		tl_free(s);
		return got;
	}
	uint32_t r = sc_call(s, NULL, c->func, c);
	sc_solve(s);
	if (!s->cut)
		r = sc_call(s, NULL, c->func, c);
	else
		r = own | reach;
	tl_free(s);
	return r;
}

/* ---- a construction's constants ------------------------------------------- */

/* The constant of expression `e` under context `c`: an operand's, or of a
 * test the context decides (a flag); 0 none. */
static uint16_t sc_value(Sc *s, const ScCtx *c, TSNode e)
{
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	if (ts_node_is_null(e))
		return 0;
	TSSymbol k = ts_node_symbol(e);
	if (s->ctor && k == sy->boolean_operator && s->nest < SC_NEST) {
		/* `a or b` is the operand that decides it, as Python has it */
		s->nest++;
		uint16_t l = sc_value(s, c, tl_tree_field(e, sy->f_left));
		int t = l ? tl_val_const_truth(l) : -1;
		uint16_t v = t < 0 ? 0 : t == sc_is_and(s->idx, e) ? sc_value(s, c, tl_tree_field(e, sy->f_right)) : l;
		s->nest--;
		return v;
	}
	if (k == sy->comparison_operator || k == sy->boolean_operator || k == sy->not_operator) {
		int t = sc_cond(s, c, e);
		return t < 0 ? 0 : TL_VC(TL_VC_BOOL, t);
	}
	return sc_operand(s, c, e);
}

/* Positional arguments sc_call_value reads. */
#define SC_ARGS 8

/* `for x in args: if <test of x>: return x` over the `*args` parameter
 * of function cc->func, then `return e` (`loop`, `last`): the first of
 * the call's positional arguments `pos` (read under the caller's context
 * `c`) the test selects, else e; 0 when a test is not known. */
static uint16_t sc_first_of(Sc *s, const ScCtx *c, ScCtx *cc, TSNode loop, TSNode last, const TSNode *pos, uint32_t np)
{
	const TlSyms *sy = tl_syms();
	const TlIndex *idx = s->idx;
	const TlFunc *fn = &idx->funcs.items[cc->func];
	TSNode x = tl_tree_field(loop, sy->f_left), over = tl_tree_field(loop, sy->f_right);
	TSNode lb = tl_tree_field(loop, sy->f_body);
	if (fn->params.size != 1 || ts_node_is_null(x) || ts_node_symbol(x) != sy->identifier || ts_node_is_null(over) ||
	    ts_node_symbol(over) != sy->identifier || !ts_node_is_null(tl_tree_field(loop, sy->f_alternative)) ||
	    ts_node_is_null(lb) || ts_node_named_child_count(lb) != 1)
		return 0;
	const TlBinding *pb = &idx->bindings.items[fn->params.items[0]];
	if (ts_node_symbol(pb->stmt) != sy->list_splat_pattern || tl_index_resolve_node(idx, over) != pb)
		return 0;
	TSNode test = ts_node_named_child(lb, 0);
	TSNode then = ts_node_symbol(test) == sy->if_statement ? tl_tree_field(test, sy->f_consequence) : (TSNode){ 0 };
	if (ts_node_is_null(then) || ts_node_named_child_count(test) != 2 || ts_node_named_child_count(then) != 1)
		return 0;
	TSNode ret = ts_node_named_child(then, 0);
	TSNode rv = ts_node_symbol(ret) == sy->return_statement && ts_node_named_child_count(ret) == 1
			    ? tl_index_unparen(ts_node_named_child(ret, 0)) : (TSNode){ 0 };
	uint32_t xl = 0, rl = 0;
	const char *xt = tl_index_text(idx, x, &xl);
	const char *rt = ts_node_is_null(rv) ? NULL : tl_index_text(idx, rv, &rl);
	if (!xt || !rt || ts_node_symbol(rv) != sy->identifier || xl != rl || memcmp(xt, rt, xl) != 0)
		return 0;
	for (uint32_t i = 0; i < np; i++) {
		uint16_t v = sc_value(s, c, pos[i]);
		if (!v)
			return 0;
		cc->a[0] = (ScAttr){ xt, xl, v, true };
		cc->na = 1;
		int t = sc_cond(s, cc, tl_tree_field(test, sy->f_condition));
		if (t != 0)
			return t == 1 ? v : 0;
	}
	cc->na = 0;
	return ts_node_named_child_count(last) ? sc_value(s, cc, ts_node_named_child(last, 0)) : TL_VC(TL_VC_NONE, 0);
}

/* The constant call `call` returns under context `c` of a construction:
 * `len()` of a list or tuple display, its length; a function of the
 * module (not a method) whose body is one `return e`, e read under the
 * constants the call passes its parameters (literals, defaults, the
 * caller's constants), or that returns the first of its `*args` a test
 * selects (sc_first_of). 0: not known. At most SC_NEST deep. */
static uint16_t sc_call_value(Sc *s, const ScCtx *c, TSNode call)
{
	const TlSyms *sy = tl_syms();
	const TlIndex *idx = s->idx;
	const TlCall *k = tl_index_call_at(idx, call);
	TSNode args = tl_tree_field(call, sy->f_arguments);
	if (!k || !ts_node_is_null(k->receiver) || s->nest >= SC_NEST || ts_node_is_null(args) ||
	    ts_node_symbol(args) != sy->argument_list)
		return 0;
	TSNode pos[SC_ARGS];
	uint32_t np = 0, na = ts_node_named_child_count(args);
	bool plain = true; /* positional arguments only */
	for (uint32_t i = 0; i < na; i++) {
		TSNode a = ts_node_named_child(args, i);
		TSSymbol ak = ts_node_symbol(a);
		if (ak == sy->comment)
			continue;
		if (ak == sy->list_splat || ak == sy->dictionary_splat)
			return 0;
		if (ak == sy->keyword_argument || np == SC_ARGS)
			plain = false;
		else
			pos[np++] = a;
	}
	uint16_t v = 0;
	s->nest++;
	if (k->target < 0) {
		TSNode callee = tl_index_unparen(k->callee);
		if (plain && np == 1 && ts_node_symbol(callee) == sy->identifier && tl_index_text_is(idx, callee, "len") &&
		    !tl_index_resolve_node(idx, callee)) {
			uint16_t l = sc_value(s, c, pos[0]);
			v = TL_VC_TAG(l) == TL_VC_LEN && TL_VC_PAYLOAD(l) < 4096 ? TL_VC(TL_VC_INT, TL_VC_PAYLOAD(l) + 4096) : 0;
		}
		s->nest--;
		return v;
	}
	const TlFunc *fn = &idx->funcs.items[k->target];
	TSNode body = tl_tree_field(fn->node, sy->f_body);
	TSNode st[2];
	uint32_t ns = 0, nb = ts_node_is_null(body) ? 0 : ts_node_named_child_count(body);
	for (uint32_t i = 0; fn->cls < 0 && i < nb && ns <= 2; i++) {
		TSNode x = ts_node_named_child(body, i);
		if (ts_node_symbol(x) == sy->comment)
			continue;
		/* a docstring */
		if (ns == 0 && ts_node_symbol(x) == sy->expression_statement && ts_node_named_child_count(x) == 1 &&
		    ts_node_symbol(ts_node_named_child(x, 0)) == sy->string)
			continue;
		if (ns < 2)
			st[ns] = x;
		ns++;
	}
	ScCtx cc;
	memset(&cc, 0, sizeof cc);
	cc.func = k->target;
	if (fn->cls < 0 && (ns == 1 || ns == 2)) {
		TSNode arg[TL_MODEL_CTX_PARAMS];
		uint8_t left[TL_MODEL_CTX_PARAMS];
		tl_model__site_args(idx, fn, call, 0, arg, left);
		uint32_t n = fn->params.size < TL_MODEL_CTX_PARAMS ? fn->params.size : TL_MODEL_CTX_PARAMS;
		for (uint32_t i = 0; i < n; i++) {
			if (left[i])
				cc.p[i] = tl_model__const_literal(s->m, idx, tl_model__param_default(idx, fn, i));
			else if (!ts_node_is_null(arg[i]))
				cc.p[i] = sc_value(s, c, arg[i]);
		}
	}
	if (fn->cls < 0 && ns == 1 && ts_node_symbol(st[0]) == sy->return_statement)
		v = ts_node_named_child_count(st[0]) ? sc_value(s, &cc, ts_node_named_child(st[0], 0))
						      : TL_VC(TL_VC_NONE, 0);
	else if (fn->cls < 0 && ns == 2 && plain && ts_node_symbol(st[0]) == sy->for_statement &&
		 ts_node_symbol(st[1]) == sy->return_statement)
		v = sc_first_of(s, c, &cc, st[0], st[1], pos, np);
	s->nest--;
	return v;
}

/* True when call `k` of constructor `f` may store an attribute `name` of
 * `self`: as sc_may_store, and a base class's constructor not resolved
 * (`super().__init__(...)`). */
static bool sc_ctor_may_store(const TlIndex *idx, const TlCall *k, const char *name, uint32_t len)
{
	if (k->target < 0 && k->method && strcmp(k->method, "__init__") == 0)
		return true;
	return sc_may_store(idx, k, name, len);
}

/* The attributes of `self` constructor c->func holds before byte `before`
 * under its parameters' constants: each stored once in it, by a statement
 * of its body, from a constant the context decides, and no call between
 * that store and `before` may store it again. */
static void sc_ctor_attrs(Sc *s, ScCtx *c, uint32_t before)
{
	const TlSyms *sy = tl_syms();
	const TlIndex *idx = s->idx;
	int32_t f = c->func;
	TSNode body = tl_tree_field(idx->funcs.items[f].node, sy->f_body);
	const TlIntArray *binds = tl_index_scope_binds(idx, f);
	const TlIntArray *calls = tl_index_scope_calls(idx, f);
	c->na = 0;
	for (uint32_t i = 0; binds && i < binds->size && c->na < SC_NAMES; i++) {
		const TlBinding *b = &idx->bindings.items[binds->items[i]];
		bool local = b->name && !strchr(b->name, '.');
		if (!b->name || (!local && (strncmp(b->name, "self.", 5) != 0 || strchr(b->name + 5, '.'))) ||
		    b->kind != TL_BIND_ASSIGN || b->elem >= 0 || ts_node_start_byte(b->stmt) >= before)
			continue;
		uint32_t stores = 0;
		if (local) {
			/* a local bound once in the constructor (nothing else rebinds it) */
			const TlIntArray *all = tl_index_bindings_of(idx, f, b->name);
			stores = all ? all->size : 0;
		} else {
			for (uint32_t j = 0; j < binds->size; j++) {
				const char *o = idx->bindings.items[binds->items[j]].name;
				stores += o && strcmp(o, b->name) == 0;
			}
		}
		TSNode p = tl_index_parent(idx, b->stmt);
		if (!ts_node_is_null(p) && ts_node_symbol(p) == sy->expression_statement)
			p = tl_index_parent(idx, p);
		if (stores != 1 || ts_node_is_null(p) || !ts_node_eq(p, body))
			continue;
		uint16_t cst = sc_value(s, c, b->value);
		if (!cst)
			continue;
		const char *name = local ? b->name : b->name + 5;
		uint32_t len = (uint32_t)strlen(name);
		bool stored = false;
		for (uint32_t j = 0; !local && calls && j < calls->size && !stored; j++) {
			const TlCall *k = &idx->calls.items[calls->items[j]];
			uint32_t at = ts_node_start_byte(k->node);
			stored = at > ts_node_start_byte(b->stmt) && at < before && sc_ctor_may_store(idx, k, name, len);
		}
		if (stored)
			continue;
		c->a[c->na].name = name;
		c->a[c->na].len = len;
		c->a[c->na].local = local;
		c->a[c->na++].cst = cst;
	}
}

static Sc *sc_ctor_new(TlModel *m, const TlIndex *idx)
{
	Sc *s = tl_calloc(1, sizeof *s);
	s->m = m;
	s->idx = idx;
	s->prune = true;
	s->ctor = true;
	return s;
}

static void sc_ctor_ctx(Sc *s, int32_t func, const uint16_t *p, TSNode node, ScCtx *c)
{
	memset(c, 0, sizeof *c);
	c->func = func;
	memcpy(c->p, p, sizeof c->p);
	s->lazy = c;
	s->lazy_before = ts_node_start_byte(node);
}

void tl_model__ctor_consts(TlModel *m, const TlIndex *idx, int32_t init, const TlIndex *cidx, TSNode call,
			   int32_t caller, const uint16_t *outer, uint16_t *p)
{
	memset(p, 0, TL_MODEL_CTX_PARAMS * sizeof *p);
	if (init < 0 || (uint32_t)init >= idx->funcs.size)
		return;
	const TlFunc *fn = &idx->funcs.items[init];
	TSNode arg[TL_MODEL_CTX_PARAMS];
	uint8_t left[TL_MODEL_CTX_PARAMS];
	tl_model__site_args_in(idx, fn, cidx, call, 1, arg, left);
	Sc *s = sc_ctor_new(m, cidx);
	ScCtx from;
	memset(&from, 0, sizeof from);
	from.func = caller;
	if (outer && caller >= 0)
		memcpy(from.p, outer, sizeof from.p);
	uint32_t np = fn->params.size < TL_MODEL_CTX_PARAMS ? fn->params.size : TL_MODEL_CTX_PARAMS;
	for (uint32_t i = 1; i < np; i++) {
		if (left[i]) {
			p[i] = tl_model__const_literal(m, idx, tl_model__param_default(idx, fn, i));
			continue;
		}
		/* a literal, a test of literals (`mode == "learned"`), a
		 * parameter of the caller (its constant) */
		p[i] = sc_value(s, &from, arg[i]);
	}
	tl_free(s);
}

uint16_t tl_model__ctx_value(TlModel *m, const TlIndex *idx, int32_t func, const uint16_t *p, TSNode e)
{
	Sc *s = sc_ctor_new(m, idx);
	ScCtx c;
	sc_ctor_ctx(s, func, p, e, &c);
	uint16_t v = sc_value(s, &c, e);
	tl_free(s);
	return v;
}

int tl_model__ctx_cond(TlModel *m, const TlIndex *idx, int32_t func, const uint16_t *p, TSNode cond)
{
	Sc *s = sc_ctor_new(m, idx);
	ScCtx c;
	sc_ctor_ctx(s, func, p, cond, &c);
	int t = sc_cond(s, &c, cond);
	tl_free(s);
	return t;
}

bool tl_model__ctx_runs(TlModel *m, const TlIndex *idx, int32_t func, const uint16_t *p, TSNode node)
{
	Sc *s = sc_ctor_new(m, idx);
	ScCtx c;
	sc_ctor_ctx(s, func, p, node, &c);
	bool runs = sc_runs(s, &c, node);
	tl_free(s);
	return runs;
}

void tl_model__site_consts(TlModel *m, const TlIndex *idx, int32_t f, const TlIndex *cidx, const TlCall *site,
			   uint16_t *p)
{
	memset(p, 0, TL_MODEL_CTX_PARAMS * sizeof *p);
	if (f < 0 || (uint32_t)f >= idx->funcs.size || !site || !cidx)
		return;
	const TlFunc *fn = &idx->funcs.items[f];
	bool is_static = false, is_cm = false;
	if (fn->cls >= 0)
		tl_model__method_kind(idx, fn, &is_static, &is_cm);
	/* `obj.m(...)` binds `self` (or `cls`); `Class.m(obj, ...)` does not */
	const TlBinding *rb = ts_node_is_null(site->receiver) ? NULL : tl_index_resolve_node(cidx, site->receiver);
	bool on_class = rb && rb->kind == TL_BIND_CLASS && !is_cm;
	uint32_t shift = fn->cls >= 0 && !is_static && !on_class && !ts_node_is_null(site->receiver) ? 1 : 0;
	TSNode arg[TL_MODEL_CTX_PARAMS];
	uint8_t left[TL_MODEL_CTX_PARAMS];
	tl_model__site_args_in(idx, fn, cidx, site->node, shift, arg, left);
	Sc *s = sc_ctor_new(m, cidx);
	s->ctor = false; /* a call site's literals, as the events read them */
	ScCtx from;
	memset(&from, 0, sizeof from);
	from.func = site->func;
	uint32_t np = fn->params.size < TL_MODEL_CTX_PARAMS ? fn->params.size : TL_MODEL_CTX_PARAMS;
	for (uint32_t i = shift; i < np; i++) {
		if (left[i]) {
			p[i] = tl_model__const_literal(m, idx, tl_model__param_default(idx, fn, i));
			continue;
		}
		/* a literal or a test of literals; a name (the caller's own
		 * parameter or variable) holds none here */
		TSNode a = tl_index_unparen(arg[i]);
		if (!ts_node_is_null(a) && ts_node_symbol(a) != tl_syms()->identifier)
			p[i] = sc_value(s, &from, a);
	}
	tl_free(s);
}

bool tl_model__ctx_test_on_params(const TlIndex *idx, int32_t f, TSNode cond)
{
	const TlSyms *sy = tl_syms();
	TSNode st[TL_MODEL_TEST_TERMS];
	uint32_t top = 0;
	if (ts_node_is_null(cond))
		return false;
	st[top++] = cond;
	while (top) {
		TSNode n = st[--top];
		TSSymbol k0 = ts_node_symbol(n);
		if (k0 == sy->identifier && sc_param(idx, f, n) >= 0)
			return true;
		/* only the shapes sc_cond reads: `not`, `and`, `or`,
		 * comparisons, parentheses */
		if (k0 != sy->comparison_operator && k0 != sy->boolean_operator && k0 != sy->not_operator &&
		    k0 != sy->parenthesized_expression)
			continue;
		uint32_t k = ts_node_named_child_count(n);
		for (uint32_t i = 0; i < k && top < TL_MODEL_TEST_TERMS; i++)
			st[top++] = ts_node_named_child(n, i);
	}
	return false;
}
