/* Loop invariance (model.h: tl_model_loop_invariant): whether what an
 * expression reads holds the same object with the same contents from one
 * iteration of the loop around it to the next.
 *
 * Two tables, each computed once per module and kept with its model:
 *
 * - Per loop, the access paths its iteration stores into: the targets of
 *   its bindings (assignments, augmented ones, `for` targets, the loop's
 *   own included, `:=`, `as`, `del`, `out=`), by their root (`x[i] = v`
 *   and `x.a = v` store into x), and the receivers of the methods that
 *   change their receiver in place (`x.add_(y)`, `xs.append(v)`, a
 *   module's `.to(d)` as a statement). One pass over each outermost
 *   loop's body; a store counts for every loop around it in its function.
 * - Per function whose question is outside its loops (a helper called per
 *   step), the paths of its namespace that vary from one call to the
 *   next, from its call sites, callers first: a parameter whose argument
 *   varies where it is passed, the fields below it the caller's loop
 *   stores into, `self`'s fields the receiver's, and the other names (the
 *   module's, a closure's) as the caller sees them. A function whose call
 *   sites are not all known (it escapes), that calls itself, or that a
 *   call-graph cycle reaches again before it is done varies whole.
 *
 * A path varies where the table holds it, something below it (a field
 * changed), or a binding of something above it (`args` re-bound changes
 * `args.w`); a change in place of something above it does not (as the
 * reads of a module's parameters after `model.to(d)` stay the same
 * objects). `model = model.to(device)` of a module keeps the same object.
 * `self.x` varies, besides, where a method other than `__init__` binds it.
 * A call whose result varies by itself (random numbers, `next()`, the
 * clock, input) varies, and so does a name a comprehension or lambda
 * around the expression binds. The tables are syntax of the index; the
 * model's values decide only which receiver is a module.
 *
 * Owns: tl_model_loop_invariant, tl_model_comprehension_local,
 * tl_model_dies_in_iteration, TlVary. */
#include "model/model_internal.h"

#include <string.h>

#include "base/alloc.h"
#include "model/apitable.h"
#include "syntax/reads.h"
#include "syntax/syms.h"
#include "syntax/treewalk.h"
#include "syntax/walk.h"

/* How the stores of a path relate to a read of it (VRec.flags). */
enum {
	V_BIND = 1,      /* bound or stored into: it, and all below it, change */
	V_MUT = 2,       /* changed in place: it changes, what is below it stays */
	V_BELOW = 4,     /* something strictly below it is stored into */
	V_BELOWALL = 8,  /* everything strictly below it varies (functions) */
	V_SELFMOVE = 16, /* every binding of it is `x = x.to(...)` */
	V_MULTI = 32,    /* changed in place or below at more than one site */
};

/* Function states (TlVary.fstate). */
enum { F_NONE, F_BUSY, F_DONE, F_ALL };

typedef struct VRec {
	TlPath path;
	int32_t next;  /* the next record of the same group and key, or -1 */
	int32_t link;  /* the group's previous record, or -1 */
	uint32_t site; /* start byte of the first change in place or below it */
	TSNode recv;   /* V_SELFMOVE: the receiver moved */
	uint8_t flags;
} VRec;

/* A set of paths per group (a loop's start byte, a function index). */
typedef struct VSet {
	TlScopeMap at; /* (group, path key) -> newest record; (group, 0) -> the group's newest */
} VSet;

struct TlVary {
	TlArray(VRec) recs;
	VSet loops;  /* per loop's start byte */
	VSet funcs;  /* per function */
	VSet rebind; /* group 0: `self.x` bound in a method other than __init__ (site: the method) */
	/* The names whose value the body of a loop (group: its start byte) or
	 * of a function (group: its index | TL_VARY_FUNC) keeps: read in what
	 * it returns or yields, what it hands a container's storing method,
	 * what it stores into an attribute or an element. */
	VSet kept;
	uint8_t *dstate; /* per function: F_NONE, F_BUSY, F_DONE (its result dies at every call), F_ALL (not) */
	uint8_t *fstate;  /* per function: F_NONE, F_BUSY, F_DONE (its set is made), F_ALL (all of it varies) */
	uint8_t *fothers; /* per function: every name not its parameter varies */
	/* per function: callers (outside their loops) whose own locals, read
	 * under the same names here, vary from call to call */
	TlIntLists locals;
	bool running;     /* a sweep of function sets is under way */
};

static uint32_t tl_vary__key(const TlPath *p)
{
	return (tl_path_hash(p) & 0x7fffffffu) + 1u;
}

static VRec *tl_vary__find(TlVary *v, const VSet *s, uint32_t group, const TlPath *p)
{
	int32_t at;
	if (!tl_scopemap_get(&s->at, group, tl_vary__key(p), &at))
		return NULL;
	for (; at >= 0; at = v->recs.items[at].next)
		if (tl_path_equal(&v->recs.items[at].path, p))
			return &v->recs.items[at];
	return NULL;
}

static void tl_vary__put(TlVary *v, VSet *s, uint32_t group, const TlPath *p, uint8_t flags, uint32_t site,
			 TSNode recv)
{
	VRec *r = tl_vary__find(v, s, group, p);
	if (r) {
		/* the site of its changes in place and below it */
		if (flags & (V_MUT | V_BELOW)) {
			if (!(r->flags & (V_MUT | V_BELOW)))
				r->site = site;
			else if (r->site != site)
				r->flags |= V_MULTI;
		}
		/* V_SELFMOVE: every binding was a move of the path onto itself */
		bool before = !(r->flags & V_BIND) || (r->flags & V_SELFMOVE);
		bool now = !(flags & V_BIND) || (flags & V_SELFMOVE);
		if (!(r->flags & V_BIND) && (flags & V_SELFMOVE))
			r->recv = recv;
		r->flags |= flags;
		if (before && now && (r->flags & V_BIND))
			r->flags |= V_SELFMOVE;
		else
			r->flags &= (uint8_t)~V_SELFMOVE;
		return;
	}
	uint32_t key = tl_vary__key(p);
	int32_t first = -1, last = -1;
	if (!tl_scopemap_get(&s->at, group, key, &first))
		first = -1;
	if (!tl_scopemap_get(&s->at, group, 0, &last))
		last = -1;
	VRec n = { *p, first, last, site, recv, flags };
	int32_t at = (int32_t)v->recs.size;
	tl_array_push(&v->recs, n);
	tl_scopemap_put(&s->at, group, key, at);
	tl_scopemap_put(&s->at, group, 0, at);
}

/* Path `p` stored into (`flags`: V_BIND or V_MUT) at `site`: it, and a
 * V_BELOW mark on each path above it. */
static void tl_vary__store(TlVary *v, VSet *s, uint32_t group, const TlPath *p, uint8_t flags, uint32_t site,
			   TSNode recv)
{
	tl_vary__put(v, s, group, p, flags, site, recv);
	/* a binding below is never the call being judged */
	uint32_t below = (flags & V_MUT) ? site : UINT32_MAX - 1;
	TlPath up = *p, next;
	while (tl_path_up(&up, &next)) {
		tl_vary__put(v, s, group, &next, V_BELOW, below, (TSNode){ 0 });
		up = next;
	}
}

/* ---- the stores of each loop ----------------------------------------------------------- */

/* Methods that change their receiver in place: the `x_()` ones, and the
 * table's rows of role mutates (`append`, `update`, `load_state_dict`). */
static bool tl_vary__mutates(const char *method)
{
	size_t n = strlen(method);
	if (n > 1 && method[n - 1] == '_' && !(n > 2 && method[n - 2] == '_'))
		return true;
	const TlApiRow *r = tl_api_method(method);
	return r && (r->roles & TL_APIR_MUTATES);
}

/* Methods that move or cast a module in place (as a statement: on a
 * tensor they do nothing, on a module they change it): role moves. */
static bool tl_vary__moves(const char *method)
{
	const TlApiRow *r = tl_api_method(method);
	return r && (r->roles & TL_APIR_MOVES);
}

/* The path of the object a store target writes: subscripts and calls
 * looked through (`x[i]`, `history.setdefault(k, [])[0]`: x, history). */
static bool tl_vary__root(TlModel *m, TSNode n, TlPath *out)
{
	const TlSyms *sy = tl_syms();
	const TlIndex *idx = m->idx;
	n = tl_index_unparen(n);
	for (int i = 0; i < 64 && !ts_node_is_null(n); i++) {
		TSSymbol s = ts_node_symbol(n);
		if (s == sy->subscript)
			n = tl_index_unparen(tl_tree_field(n, sy->f_value));
		else if (s == sy->call)
			n = tl_index_unparen(tl_tree_field(tl_index_unparen(tl_tree_field(n, sy->f_function)),
							   sy->f_object));
		else
			break;
	}
	if (ts_node_is_null(n))
		return false;
	char *d = tl_index_dotted_dup(idx, n);
	bool ok = d && tl_path_of_dotted(&m->names, d, out);
	tl_free(d);
	return ok;
}

/* The loops a store at `n` counts for: each loop around it in its
 * function, and `own` (a `for` statement's target: its own loop). */
static void tl_vary__store_loops(TlModel *m, TSNode n, int32_t own, const TlPath *p, uint8_t flags,
				 uint32_t site, TSNode recv)
{
	const TlIndex *idx = m->idx;
	if (own >= 0)
		tl_vary__store(m->vary, &m->vary->loops, ts_node_start_byte(idx->loops.items[own].node), p, flags,
			       site, recv);
	for (int32_t l = tl_index_loop_of(idx, n); l >= 0; l = idx->loops.items[l].parent)
		tl_vary__store(m->vary, &m->vary->loops, ts_node_start_byte(idx->loops.items[l].node), p, flags,
			       site, recv);
}

/* Each object a target (a name, an attribute, a subscript, or a pattern
 * of them) writes, stored for the loops around `at`. */
static void tl_vary__target(TlModel *m, TSNode target, TSNode at, int32_t own, uint8_t flags, TSNode recv)
{
	const TlSyms *sy = tl_syms();
	TlArray(TSNode) todo;
	tl_array_init(&todo);
	tl_array_push(&todo, target);
	while (todo.size) {
		TSNode n = tl_index_unparen(tl_array_pop(&todo));
		if (ts_node_is_null(n))
			continue;
		TSSymbol s = ts_node_symbol(n);
		if (s == sy->pattern_list || s == sy->tuple_pattern || s == sy->list_pattern || s == sy->tuple ||
		    s == sy->list || s == sy->expression_list || s == sy->list_splat_pattern) {
			uint32_t count = ts_node_named_child_count(n);
			for (uint32_t i = 0; i < count; i++)
				tl_array_push(&todo, ts_node_named_child(n, i));
			continue;
		}
		TlPath p;
		if (tl_vary__root(m, n, &p))
			tl_vary__store_loops(m, at, own, &p, flags, ts_node_start_byte(at), recv);
	}
	tl_array_release(&todo);
}

/* `x = x.to(device)` (a name bound to a move of itself): its receiver, to
 * be asked whether it is a module; else a null node. */
static TSNode tl_vary__self_move(TlModel *m, TSNode assign)
{
	const TlSyms *sy = tl_syms();
	const TlIndex *idx = m->idx;
	TSNode none = { 0 };
	TSNode left = tl_index_unparen(tl_tree_field(assign, sy->f_left));
	TSNode right = tl_index_unparen(tl_tree_field(assign, sy->f_right));
	const TlCall *c = !ts_node_is_null(right) && ts_node_symbol(right) == sy->call ? tl_index_call_at(idx, right)
										      : NULL;
	if (!c || !c->recv_name || !c->method || !tl_vary__moves(c->method))
		return none;
	char *target = tl_index_dotted_dup(idx, left);
	bool same = target && strcmp(target, c->recv_name) == 0;
	tl_free(target);
	return same ? c->receiver : none;
}

static void tl_vary__loop_body(TlModel *m, int32_t l)
{
	const TlSyms *sy = tl_syms();
	const TlIndex *idx = m->idx;
	const TlLoop *lp = &idx->loops.items[l];
	if (ts_node_symbol(lp->node) == sy->for_statement)
		tl_vary__target(m, tl_tree_field(lp->node, sy->f_left), lp->node, l, V_BIND, (TSNode){ 0 });
	if (ts_node_is_null(lp->body))
		return;
	TSTreeCursor cur = ts_tree_cursor_new(lp->body);
	bool descend = true;
	do {
		TSNode n = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(n);
		descend = true;
		if (s == sy->function_definition || s == sy->class_definition) {
			descend = false; /* its own scope */
		} else if (s == sy->for_statement) {
			/* its own target: a store of its own loop too */
			TSNode body = tl_tree_field(n, sy->f_body);
			int32_t own = ts_node_is_null(body) ? -1 : tl_index_loop_of(idx, body);
			if (own >= 0 && !ts_node_eq(idx->loops.items[own].node, n))
				own = -1;
			tl_vary__target(m, tl_tree_field(n, sy->f_left), n, own, V_BIND, (TSNode){ 0 });
		} else if (s == sy->assignment) {
			TSNode recv = tl_vary__self_move(m, n);
			tl_vary__target(m, tl_tree_field(n, sy->f_left), n, -1,
					ts_node_is_null(recv) ? V_BIND : V_BIND | V_SELFMOVE, recv);
		} else if (s == sy->augmented_assignment) {
			tl_vary__target(m, tl_tree_field(n, sy->f_left), n, -1, V_BIND, (TSNode){ 0 });
		} else if (s == sy->named_expression) {
			tl_vary__target(m, tl_tree_field(n, sy->f_name), n, -1, V_BIND, (TSNode){ 0 });
		} else if (s == sy->as_pattern_target || s == sy->delete_statement) {
			if (ts_node_named_child_count(n))
				tl_vary__target(m, ts_node_named_child(n, 0), n, -1, V_BIND, (TSNode){ 0 });
		} else if (s == sy->keyword_argument && tl_index_text_is(idx, tl_tree_field(n, sy->f_name), "out")) {
			tl_vary__target(m, tl_tree_field(n, sy->f_value), n, -1, V_BIND, (TSNode){ 0 });
		} else if (s == sy->call) {
			const TlCall *c = tl_index_call_at(idx, n);
			TlPath p;
			if (c && c->method && c->recv_name &&
			    (tl_vary__mutates(c->method) || (c->stmt_level && tl_vary__moves(c->method))) &&
			    tl_path_of_dotted(&m->names, c->recv_name, &p))
				tl_vary__store_loops(m, n, -1, &p, V_MUT, ts_node_start_byte(n), (TSNode){ 0 });
		}
	} while (tl_walk_next(&cur, lp->body, descend));
	ts_tree_cursor_delete(&cur);
}

/* `self.x` bound in a method other than `__init__`: the method (or
 * V_MULTI: several). */
static void tl_vary__rebinds(TlModel *m)
{
	const TlIndex *idx = m->idx;
	for (uint32_t i = 0; i < idx->bindings.size; i++) {
		const TlBinding *b = &idx->bindings.items[i];
		TlPath p;
		if (b->class_body || b->func < 0 || !b->name || strncmp(b->name, "self.", 5) != 0 ||
		    strcmp(idx->funcs.items[b->func].name, "__init__") == 0 ||
		    !tl_path_of_dotted(&m->names, b->name, &p))
			continue;
		tl_vary__put(m->vary, &m->vary->rebind, 0, &p, V_MUT, (uint32_t)b->func, (TSNode){ 0 });
	}
}

static TlVary *tl_vary__of(TlModel *m)
{
	if (m->vary)
		return m->vary;
	TlVary *v = m->vary = tl_calloc(1, sizeof *v);
	const TlIndex *idx = m->idx;
	tl_array_init(&v->recs);
	tl_scopemap_init(&v->loops.at);
	tl_scopemap_init(&v->funcs.at);
	tl_scopemap_init(&v->rebind.at);
	tl_scopemap_init(&v->kept.at);
	uint32_t nf = idx->funcs.size ? idx->funcs.size : 1;
	v->fstate = tl_calloc(nf, 1);
	v->fothers = tl_calloc(nf, 1);
	v->dstate = tl_calloc(nf, 1);
	tl_array_init(&v->locals);
	for (uint32_t i = 0; i < idx->funcs.size; i++) {
		TlIntArray e;
		tl_array_init(&e);
		tl_array_push(&v->locals, e);
	}
	for (uint32_t l = 0; l < idx->loops.size; l++)
		if (idx->loops.items[l].parent < 0)
			tl_vary__loop_body(m, (int32_t)l);
	tl_vary__rebinds(m);
	return v;
}

void tl_model__vary_release(TlModel *m)
{
	TlVary *v = m->vary;
	if (!v)
		return;
	tl_array_release(&v->recs);
	tl_scopemap_release(&v->loops.at);
	tl_scopemap_release(&v->funcs.at);
	tl_scopemap_release(&v->rebind.at);
	tl_scopemap_release(&v->kept.at);
	tl_free(v->dstate);
	tl_free(v->fstate);
	tl_free(v->fothers);
	for (uint32_t i = 0; i < v->locals.size; i++)
		tl_array_release(&v->locals.items[i]);
	tl_array_release(&v->locals);
	tl_free(v);
	m->vary = NULL;
}

/* ---- reading a set --------------------------------------------------------------------- */

/* True when a module is what `recv` holds (a move of it onto itself keeps
 * the object). */
static bool tl_vary__module(TlModel *m, TSNode recv)
{
	TlVal v;
	return !ts_node_is_null(recv) && tl_model_value(m->idx, recv, &v) &&
	       (v.kind == TL_VK_MODULE || v.kind == TL_VK_WRAPPER || v.kind == TL_VK_CRITERION);
}

/* True when path `p` varies by set `s`'s group: it is stored into, or
 * something below it, or something above it is bound; `except` (a start
 * byte + 1, or 0) is the call being judged, whose own change of its
 * receiver does not count. */
static bool tl_vary__hits(TlModel *m, const VSet *s, uint32_t group, const TlPath *p, uint32_t except)
{
	TlVary *v = m->vary;
	const VRec *r = tl_vary__find(v, s, group, p);
	if (r && (r->flags & (V_BIND | V_MUT | V_BELOW))) {
		bool own = !(r->flags & V_MULTI) && except && r->site + 1 == except;
		bool changed = (r->flags & (V_MUT | V_BELOW)) && !own;
		bool bound = (r->flags & V_BIND) && !((r->flags & V_SELFMOVE) && tl_vary__module(m, r->recv));
		if (changed || bound)
			return true;
	}
	TlPath up = *p, next;
	while (tl_path_up(&up, &next)) {
		r = tl_vary__find(v, s, group, &next);
		if (r && (r->flags & (V_BIND | V_BELOWALL)))
			return true;
		up = next;
	}
	return false;
}

/* True when path `p` varies strictly below: a read of any field of it
 * varies (it, or something above it, is bound). */
static bool tl_vary__hits_below(TlVary *v, const VSet *s, uint32_t group, const TlPath *p)
{
	TlPath at = *p, next;
	for (;;) {
		const VRec *r = tl_vary__find(v, s, group, &at);
		if (r && (r->flags & (V_BIND | V_BELOWALL)))
			return true;
		if (!tl_path_up(&at, &next))
			return false;
		at = next;
	}
}

/* ---- the question ---------------------------------------------------------------------- */

static bool tl_vary__name_varies(TlModel *m, const TlPath *p, TSNode at, uint32_t except);
static void tl_vary__func(TlModel *m, int32_t func);

/* The position of parameter `root` (an interned name) of `f`, or -1. */
static int32_t tl_vary__param(TlModel *m, const TlFunc *f, int32_t root)
{
	const TlIndex *idx = m->idx;
	for (uint32_t k = 0; k < f->params.size; k++) {
		const char *pn = idx->bindings.items[f->params.items[k]].name;
		if (pn && tl_path_lookup(&m->names, pn, strlen(pn)) == root)
			return (int32_t)k;
	}
	return -1;
}

/* True when `root` (an interned name) is bound in function `func` other
 * than as a parameter: made anew on every call. */
static bool tl_vary__local(TlModel *m, int32_t func, int32_t root)
{
	const TlIndex *idx = m->idx;
	const char *name = (uint32_t)root < m->names.names.size ? m->names.names.items[root] : NULL;
	return name && tl_index_bindings_of(idx, func, name) != NULL;
}

/* True when the `self.x` path `p` is bound in a method other than
 * `__init__` and `func`. */
static bool tl_vary__unstable(TlModel *m, const TlPath *p, int32_t func)
{
	const VRec *r = tl_vary__find(m->vary, &m->vary->rebind, 0, p);
	return r && ((r->flags & V_MULTI) || (int32_t)r->site != func);
}

bool tl_model_comprehension_local(const TlIndex *idx, TSNode id)
{
	const TlSyms *sy = tl_syms();
	uint32_t len;
	const char *t = tl_index_text(idx, id, &len);
	for (TSNode p = tl_index_parent(idx, id); !ts_node_is_null(p); p = tl_index_parent(idx, p)) {
		TSSymbol s = ts_node_symbol(p);
		TlArray(TSNode) todo;
		tl_array_init(&todo);
		if (s == sy->list_comprehension || s == sy->generator_expression || s == sy->set_comprehension ||
		    s == sy->dictionary_comprehension) {
			uint32_t count = ts_node_named_child_count(p);
			for (uint32_t i = 0; i < count; i++) {
				TSNode cl = ts_node_named_child(p, i);
				if (ts_node_symbol(cl) == sy->for_in_clause)
					tl_array_push(&todo, tl_tree_field(cl, sy->f_left));
			}
		} else if (s == sy->lambda) {
			TSNode ps = tl_tree_field(p, sy->f_parameters);
			uint32_t count = ts_node_is_null(ps) ? 0 : ts_node_named_child_count(ps);
			for (uint32_t i = 0; i < count; i++) {
				TSNode pn = ts_node_named_child(ps, i);
				if (ts_node_symbol(pn) != sy->identifier)
					pn = ts_node_named_child(pn, 0);
				tl_array_push(&todo, pn);
			}
		}
		bool hit = false;
		while (todo.size && !hit) {
			TSNode n = tl_index_unparen(tl_array_pop(&todo));
			if (ts_node_is_null(n))
				continue;
			TSSymbol ns = ts_node_symbol(n);
			if (ns == sy->identifier) {
				uint32_t nl;
				const char *nt = tl_index_text(idx, n, &nl);
				hit = nl == len && memcmp(nt, t, len) == 0;
			} else if (ns == sy->pattern_list || ns == sy->tuple_pattern || ns == sy->list_pattern ||
				   ns == sy->tuple || ns == sy->list || ns == sy->expression_list ||
				   ns == sy->list_splat_pattern) {
				uint32_t count = ts_node_named_child_count(n);
				for (uint32_t i = 0; i < count; i++)
					tl_array_push(&todo, ts_node_named_child(n, i));
			}
		}
		tl_array_release(&todo);
		if (hit)
			return true;
		/* Past the statement: blocks, statements and definitions, never a
		 * comprehension or lambda (they hold expressions only). */
		if (s == sy->block || s == sy->module || s == sy->function_definition || s == sy->class_definition)
			break;
	}
	return false;
}

/* Calls whose result changes from call to call whatever their inputs:
 * the table's rows of role varies, by the import-resolved name (a row of
 * its own, else the `module.*` row it is under: `random.*`, `time.*`),
 * or a builtin called by its bare name (`next(it)`, `input()`). */
static bool tl_vary__fresh_call(const TlIndex *idx, const TlCall *c)
{
	const TlApiRow *r = NULL;
	if (c->qname) {
		r = tl_api_qualified(c->qname);
		if (!r)
			r = tl_api_under(c->qname);
	} else if (!c->receiver.id && c->method && !tl_index_resolve_node(idx, c->callee)) {
		r = tl_api_builtin(c->method);
	}
	return r && (r->roles & TL_APIR_VARIES);
}

/* True when what expression `expr` reads varies (see the head). */
static bool tl_vary__expr_varies(TlModel *m, TSNode expr, uint32_t except)
{
	const TlSyms *sy = tl_syms();
	const TlIndex *idx = m->idx;
	if (ts_node_is_null(expr))
		return true;
	TSTreeCursor cur = ts_tree_cursor_new(expr);
	bool varies = false, descend = true;
	do {
		TSNode n = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(n);
		descend = true;
		if (s == sy->call) {
			const TlCall *c = tl_index_call_at(idx, n);
			varies = c && tl_vary__fresh_call(idx, c);
		} else if (s == sy->identifier || s == sy->attribute) {
			/* a keyword argument's name is a label, not a read */
			TSNode up = tl_index_parent(idx, n);
			if (s == sy->identifier && !ts_node_is_null(up) && ts_node_symbol(up) == sy->keyword_argument &&
			    ts_node_eq(tl_tree_field(up, sy->f_name), n))
				continue;
			char *name = tl_index_dotted_dup(idx, n);
			descend = name == NULL; /* f(x).attr: look inside */
			if (name) {
				TSNode root = n;
				while (ts_node_symbol(root) == sy->attribute)
					root = tl_index_unparen(tl_tree_field(root, sy->f_object));
				const TlBinding *b = tl_index_resolve_prefix(idx, n);
				TlPath p;
				if (tl_model_comprehension_local(idx, root))
					varies = true;
				else if (b && b->kind == TL_BIND_IMPORT)
					varies = false; /* torch.float32, np.pi */
				else if (!b && s == sy->identifier)
					varies = false; /* a builtin such as len */
				else
					varies = !tl_path_of_dotted(&m->names, name, &p) ||
						 tl_vary__name_varies(m, &p, n, except);
			}
			tl_free(name);
		}
	} while (!varies && tl_walk_next(&cur, expr, descend));
	ts_tree_cursor_delete(&cur);
	return varies;
}

static bool tl_vary__is_self(const TlModel *m, int32_t root)
{
	return (uint32_t)root < m->names.names.size && strcmp(m->names.names.items[root], "self") == 0;
}

static bool tl_vary__name_varies(TlModel *m, const TlPath *p, TSNode at, uint32_t except)
{
	const TlIndex *idx = m->idx;
	TlVary *v = m->vary;
	int32_t func = tl_index_func_of(idx, at);
	int32_t loop = tl_index_loop_of(idx, at);
	bool self_attr = p->n > 0 && tl_vary__is_self(m, p->root);
	if (loop >= 0)
		return tl_vary__hits(m, &v->loops, ts_node_start_byte(idx->loops.items[loop].node), p, except) ||
		       (self_attr && tl_vary__unstable(m, p, func));
	if (func < 0)
		return true; /* module level, in no loop: nothing repeats */
	const TlFunc *f = &idx->funcs.items[func];
	if (f->escapes || !f->call_sites.size)
		return true;
	int32_t param = self_attr ? -1 : tl_vary__param(m, f, p->root);
	if (self_attr ? tl_vary__unstable(m, p, -2) : param < 0 && tl_vary__local(m, func, p->root))
		return true;
	if (v->fstate[func] == F_NONE && !v->running)
		tl_vary__func(m, func);
	if (v->fstate[func] != F_DONE)
		return true;
	if (!self_attr && param < 0) {
		if (v->fothers[func])
			return true;
		const TlIntArray *ls = &v->locals.items[func];
		for (uint32_t i = 0; i < ls->size; i++)
			if (tl_vary__local(m, ls->items[i], p->root))
				return true;
	}
	return tl_vary__hits(m, &v->funcs, (uint32_t)func, p, 0);
}

/* The argument call `c` passes for parameter `k` of `f` (a bound method's
 * `self` is passed as its receiver: none here), or a null node. */
static TSNode tl_vary__arg(const TlIndex *idx, const TlFunc *f, uint32_t k, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	const char *pname = idx->bindings.items[f->params.items[k]].name;
	TSNode al = tl_tree_field(c->node, sy->f_arguments);
	if (ts_node_is_null(al) || ts_node_symbol(al) != sy->argument_list)
		return none;
	int32_t place = (int32_t)k - (f->cls >= 0 && c->receiver.id ? 1 : 0);
	uint32_t n = ts_node_named_child_count(al), pos = 0;
	TSNode found = none;
	for (uint32_t i = 0; i < n; i++) {
		TSNode a = ts_node_named_child(al, i);
		TSSymbol s = ts_node_symbol(a);
		if (s == sy->comment)
			continue;
		if (s == sy->keyword_argument) {
			TSNode kn = tl_tree_field(a, sy->f_name);
			if (pname && !ts_node_is_null(kn) && tl_index_text_is(idx, kn, pname))
				return tl_tree_field(a, sy->f_value);
			continue;
		}
		if (place >= 0 && pos++ == (uint32_t)place && ts_node_is_null(found))
			found = a;
	}
	return found;
}

/* Copies into function `f`'s set the records of `from`'s group strictly
 * below `p`, rooted at `root` instead; or, when the records say so, marks
 * everything below `root` varying. */
static void tl_vary__map_below(TlModel *m, int32_t f, const VSet *from, uint32_t group, const TlPath *p,
			       int32_t root)
{
	TlVary *v = m->vary;
	TlPath r = { root, 0, false, { 0 } };
	if (tl_vary__hits_below(v, from, group, p)) {
		tl_vary__put(v, &v->funcs, (uint32_t)f, &r, V_BELOWALL, 0, (TSNode){ 0 });
		return;
	}
	int32_t at;
	if (!tl_scopemap_get(&from->at, group, 0, &at))
		return;
	for (; at >= 0; at = v->recs.items[at].link) {
		VRec rec = v->recs.items[at];
		if (rec.path.n <= p->n || !tl_path_prefix(p, &rec.path))
			continue;
		TlPath q = r;
		for (uint32_t i = p->n; i < rec.path.n && q.n < TL_PATH_SELECTORS; i++)
			q.sel[q.n++] = rec.path.sel[i];
		q.cut = rec.path.cut;
		tl_vary__put(v, &v->funcs, (uint32_t)f, &q, (uint8_t)(rec.flags & (V_BIND | V_MUT | V_BELOW | V_BELOWALL)),
			     0, (TSNode){ 0 });
	}
}

/* What call `c` passes in `a` (an argument, a receiver) for the fields of
 * `root` in function `f`: a field of a name, the same field of it as the
 * site sees it. */
static void tl_vary__map_arg(TlModel *m, int32_t f, const TlCall *c, TSNode a, bool all, const VSet *from,
			     uint32_t group, int32_t root)
{
	const TlIndex *idx = m->idx;
	TlVary *v = m->vary;
	TlPath r = { root, 0, false, { 0 } };
	char *d = ts_node_is_null(a) ? NULL : tl_index_dotted_dup(idx, a);
	TlPath p;
	bool whole = all || !d || !tl_path_of_dotted(&m->names, d, &p);
	tl_free(d);
	if (!whole) {
		/* a field nothing stores into by name: varies only with what
		 * holds it (a binding above it, a local of the caller, a
		 * comprehension's variable) */
		TSNode base = a;
		while (ts_node_symbol(base) == tl_syms()->attribute)
			base = tl_index_unparen(tl_tree_field(base, tl_syms()->f_object));
		TlPath any = p;
		if (any.n < TL_PATH_SELECTORS)
			any.sel[any.n++] = tl_path_intern(&m->names, " any", 4);
		whole = tl_model_comprehension_local(idx, base) || tl_vary__name_varies(m, &any, c->node, 0);
	}
	if (whole)
		tl_vary__put(v, &v->funcs, (uint32_t)f, &r, V_BELOWALL, 0, (TSNode){ 0 });
	else
		tl_vary__map_below(m, f, from, group, &p, root);
}

/* Function `f`'s set, from its call sites; every caller outside its
 * loops already has its own (or is in a cycle with f). */
static void tl_vary__compute(TlModel *m, int32_t f)
{
	const TlIndex *idx = m->idx;
	TlVary *v = m->vary;
	const TlFunc *fn = &idx->funcs.items[f];
	if (fn->escapes || !fn->call_sites.size) {
		v->fstate[f] = F_ALL;
		return;
	}
	int32_t self_root = tl_path_intern(&m->names, "self", 4);
	for (uint32_t i = 0; i < fn->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[fn->call_sites.items[i]];
		int32_t g = c->func;
		if (g == f) {
			v->fstate[f] = F_ALL; /* recursion */
			return;
		}
		bool in_loop = c->loop >= 0;
		bool all = !in_loop && (g < 0 || v->fstate[g] != F_DONE);
		const VSet *from = in_loop ? &v->loops : &v->funcs;
		uint32_t group = in_loop ? ts_node_start_byte(idx->loops.items[c->loop].node) : (uint32_t)g;
		/* the parameters */
		for (uint32_t k = 0; k < fn->params.size; k++) {
			const char *pname = idx->bindings.items[fn->params.items[k]].name;
			if (!pname)
				continue;
			int32_t root = tl_path_intern(&m->names, pname, strlen(pname));
			TlPath r = { root, 0, false, { 0 } };
			if (k == 0 && fn->cls >= 0 && root == self_root) {
				/* `self` itself is not passed: read whole, it varies */
				tl_vary__put(v, &v->funcs, (uint32_t)f, &r, V_MUT, 0, (TSNode){ 0 });
				continue;
			}
			TSNode a = tl_index_unparen(tl_vary__arg(idx, fn, k, c));
			if (ts_node_is_null(a)) {
				tl_vary__put(v, &v->funcs, (uint32_t)f, &r, V_BIND, 0, (TSNode){ 0 });
				continue;
			}
			/* the parameter read whole is the argument; a field of it,
			 * that field of the argument */
			if (tl_vary__expr_varies(m, a, 0))
				tl_vary__put(v, &v->funcs, (uint32_t)f, &r, V_MUT, 0, (TSNode){ 0 });
			tl_vary__map_arg(m, f, c, a, all, from, group, root);
		}
		/* `self`'s fields: the receiver's */
		tl_vary__map_arg(m, f, c, c->receiver, all, from, group, self_root);
		/* the other names, as the caller sees them */
		if (all) {
			v->fothers[f] = 1;
			continue;
		}
		int32_t at;
		if (tl_scopemap_get(&from->at, group, 0, &at))
			for (; at >= 0; at = v->recs.items[at].link) {
				VRec rec = v->recs.items[at];
				if (rec.path.root == self_root || tl_vary__param(m, fn, rec.path.root) >= 0)
					continue;
				tl_vary__put(v, &v->funcs, (uint32_t)f, &rec.path,
					     (uint8_t)(rec.flags & (V_BIND | V_MUT | V_BELOW | V_BELOWALL)), 0, (TSNode){ 0 });
			}
		if (!in_loop) {
			if (v->fothers[g])
				v->fothers[f] = 1;
			TlIntArray *mine = &v->locals.items[f];
			const TlIntArray *theirs = &v->locals.items[g];
			bool seen = false;
			for (uint32_t j = 0; j < mine->size && !seen; j++)
				seen = mine->items[j] == g;
			if (!seen)
				tl_array_push(mine, g);
			for (uint32_t j = 0; j < theirs->size; j++) {
				seen = false;
				for (uint32_t q = 0; q < mine->size && !seen; q++)
					seen = mine->items[q] == theirs->items[j];
				if (!seen)
					tl_array_push(mine, theirs->items[j]);
			}
		}
	}
	v->fstate[f] = F_DONE;
}

/* Computes function `func`'s set and those of its callers it needs,
 * callers first (an explicit stack). */
static void tl_vary__func(TlModel *m, int32_t func)
{
	const TlIndex *idx = m->idx;
	TlVary *v = m->vary;
	v->running = true;
	TlIntArray stack;
	tl_array_init(&stack);
	tl_array_push(&stack, func);
	while (stack.size) {
		int32_t f = stack.items[stack.size - 1];
		if (v->fstate[f] >= F_DONE) {
			stack.size--;
			continue;
		}
		if (v->fstate[f] == F_NONE) {
			v->fstate[f] = F_BUSY;
			const TlFunc *fn = &idx->funcs.items[f];
			bool pushed = false;
			for (uint32_t i = 0; !fn->escapes && i < fn->call_sites.size; i++) {
				const TlCall *c = &idx->calls.items[fn->call_sites.items[i]];
				if (c->func >= 0 && c->func != f && c->loop < 0 && v->fstate[c->func] == F_NONE) {
					tl_array_push(&stack, c->func);
					pushed = true;
				}
			}
			if (pushed)
				continue;
		}
		tl_vary__compute(m, f);
		stack.size--;
	}
	tl_array_release(&stack);
	v->running = false;
}

bool tl_model_loop_invariant(const TlIndex *idx, TSNode expr, TSNode except)
{
	const TlModel *cm = tl_model_of(idx);
	if (!cm || ts_node_is_null(expr))
		return false;
	TlModel *m = (TlModel *)cm; /* computed on demand: no answer changes */
	tl_vary__of(m);
	return !tl_vary__expr_varies(m, expr, ts_node_is_null(except) ? 0 : ts_node_start_byte(except) + 1);
}

/* ---- values that die in the iteration ---------------------------------------------------- */

#define TL_VARY_FUNC 0x80000000u

/* Methods that keep what they are handed in their receiver: role stores. */
static bool tl_vary__storing(const char *method)
{
	const TlApiRow *r = tl_api_method(method);
	return r && (r->roles & TL_APIR_STORES);
}

typedef struct VKeep {
	TlModel *m;
	uint32_t group;
} VKeep;

static bool tl_vary__keep_read(void *data, TSNode node, TlBuf *dotted)
{
	(void)node;
	VKeep *k = data;
	size_t root = 0;
	while (root < dotted->len && dotted->data[root] != '.')
		root++;
	TlPath p = { tl_path_intern(&k->m->names, dotted->data, root), 0, false, { 0 } };
	tl_vary__put(k->m->vary, &k->m->vary->kept, k->group, &p, V_BIND, 0, (TSNode){ 0 });
	return false;
}

/* Records the names body `body` keeps, under `group`. */
static void tl_vary__keeps(TlModel *m, TSNode body, uint32_t group)
{
	const TlSyms *sy = tl_syms();
	const TlIndex *idx = m->idx;
	VKeep k = { m, group };
	/* (group, 0) -> -1 when it holds nothing: the body was looked at */
	int32_t at;
	if (!tl_scopemap_get(&m->vary->kept.at, group, 0, &at))
		tl_scopemap_put(&m->vary->kept.at, group, 0, -1);
	if (ts_node_is_null(body))
		return;
	TSTreeCursor cur = ts_tree_cursor_new(body);
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(x);
		if (s == sy->return_statement || s == sy->yield) {
			tl_reads_each(idx, x, tl_vary__keep_read, &k);
		} else if (s == sy->call) {
			const TlCall *c = tl_index_call_at(idx, x);
			if (c && c->receiver.id && c->method && tl_vary__storing(c->method))
				tl_reads_each(idx, tl_tree_field(x, sy->f_arguments), tl_vary__keep_read, &k);
		} else if (s == sy->assignment) {
			TSNode left = tl_index_unparen(tl_tree_field(x, sy->f_left));
			TSSymbol ls = ts_node_symbol(left);
			TSNode right = tl_tree_field(x, sy->f_right);
			if ((ls == sy->attribute || ls == sy->subscript) && !ts_node_is_null(right))
				tl_reads_each(idx, right, tl_vary__keep_read, &k);
		}
	} while (tl_walk_next(&cur, body, true));
	ts_tree_cursor_delete(&cur);
}

/* True when the body of `group` keeps name `name` (its node `left`). */
static bool tl_vary__kept(TlModel *m, uint32_t group, TSNode body, TSNode left)
{
	TlVary *v = m->vary;
	int32_t at;
	if (!tl_scopemap_get(&v->kept.at, group, 0, &at))
		tl_vary__keeps(m, body, group);
	char *name = tl_index_dotted_dup(m->idx, left);
	TlPath p;
	bool kept = !name || !tl_path_of_dotted(&m->names, name, &p) || tl_vary__find(v, &v->kept, group, &p);
	tl_free(name);
	return kept;
}

static void tl_vary__dies_func(TlModel *m, int32_t func);

/* 1: the value of `expr` dies in the iteration of the loop around it (or
 * the call of its function); 0: it does not; 2: it is returned from
 * function *ret (outside its loops), and dies where each call does. */
static int tl_vary__dies_at(TlModel *m, TSNode expr, int32_t *ret)
{
	const TlSyms *sy = tl_syms();
	const TlIndex *idx = m->idx;
	int32_t loop = tl_index_loop_of(idx, expr);
	int32_t func = tl_index_func_of(idx, expr);
	if (loop < 0 && func < 0)
		return 0;
	/* In a helper called per step, the helper's body is the iteration. */
	TSNode body = loop >= 0 ? idx->loops.items[loop].body : tl_tree_field(idx->funcs.items[func].node, sy->f_body);
	uint32_t group = loop >= 0 ? ts_node_start_byte(idx->loops.items[loop].node) : (uint32_t)func | TL_VARY_FUNC;
	TSNode child = expr;
	for (TSNode p = tl_index_parent(idx, expr); !ts_node_is_null(p) && !ts_node_eq(p, body);
	     child = p, p = tl_index_parent(idx, p)) {
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->yield)
			return 0;
		if (s == sy->return_statement) {
			if (loop >= 0)
				return 0;
			*ret = func;
			return 2;
		}
		if (s == sy->call) {
			const TlCall *c = tl_index_call_at(idx, p);
			if (c && c->receiver.id && c->method &&
			    (strcmp(c->method, "append") == 0 || strcmp(c->method, "extend") == 0 ||
			     strcmp(c->method, "insert") == 0))
				return 0;
		}
		if (s == sy->assignment || s == sy->augmented_assignment) {
			if (!ts_node_eq(tl_tree_field(p, sy->f_right), child))
				return 0;
			TSNode left = tl_index_unparen(tl_tree_field(p, sy->f_left));
			if (ts_node_symbol(left) != sy->identifier)
				return 0; /* self.buf = ..., cache[k] = ... */
			return tl_vary__kept(m, group, body, left) ? 0 : 1;
		}
		if (s == sy->expression_statement || s == sy->block)
			return 1;
	}
	return 1;
}

/* Whether the result of function `func` dies at every call (its callers
 * that return it first, callers first: an explicit stack). */
static void tl_vary__dies_func(TlModel *m, int32_t func)
{
	const TlIndex *idx = m->idx;
	TlVary *v = m->vary;
	TlIntArray stack;
	tl_array_init(&stack);
	tl_array_push(&stack, func);
	while (stack.size) {
		int32_t f = stack.items[stack.size - 1];
		if (v->dstate[f] >= F_DONE) {
			stack.size--;
			continue;
		}
		const TlFunc *fn = &idx->funcs.items[f];
		bool first = v->dstate[f] == F_NONE;
		v->dstate[f] = F_BUSY;
		bool dies = !fn->escapes && fn->call_sites.size, pushed = false;
		for (uint32_t i = 0; dies && i < fn->call_sites.size; i++) {
			const TlCall *c = &idx->calls.items[fn->call_sites.items[i]];
			int32_t g = -1;
			int at = c->func == f ? 0 : tl_vary__dies_at(m, c->node, &g);
			if (at == 2 && v->dstate[g] == F_NONE && first) {
				tl_array_push(&stack, g);
				pushed = true;
			} else if (at == 2) {
				dies = v->dstate[g] == F_DONE; /* a cycle (busy) does not */
			} else {
				dies = at == 1;
			}
		}
		if (pushed && dies)
			continue;
		v->dstate[f] = dies ? F_DONE : F_ALL;
		if (!pushed)
			stack.size--; /* else f, under them, is popped as done */
	}
	tl_array_release(&stack);
}

bool tl_model_dies_in_iteration(const TlIndex *idx, TSNode expr)
{
	const TlModel *cm = tl_model_of(idx);
	if (!cm || ts_node_is_null(expr))
		return false;
	TlModel *m = (TlModel *)cm; /* computed on demand: no answer changes */
	TlVary *v = tl_vary__of(m);
	int32_t ret = -1;
	int at = tl_vary__dies_at(m, expr, &ret);
	if (at != 2)
		return at == 1;
	if (v->dstate[ret] == F_NONE)
		tl_vary__dies_func(m, ret);
	return v->dstate[ret] == F_DONE;
}
