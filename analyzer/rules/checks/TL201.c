/* TL201's rule logic (missing-zero-grad). Whether an optimizer step's
 * parameters are reset between steps.
 *
 * Owns: tl_check_step_unreset; whether an optimizer and its model are
 * made afresh in each iteration (from facts/modules.c). */
#include <stdlib.h>

#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

/* ---- optimizers made afresh in each iteration ---------------------------- */

/* True when name `n` is bound anew in every iteration of the loop whose
 * body is `body`: by an assignment inside the body, or as the loop's own
 * target (`for model in (m_ref, m_cpt):`). */
static bool tl_check__fresh_name(const TlIndex *idx, TSNode n, TSNode body)
{
	const TlSyms *sy = tl_syms();
	n = tl_index_unparen(n);
	if (ts_node_is_null(n) || ts_node_symbol(n) != sy->identifier)
		return false;
	const TlBinding *b = tl_index_resolve_node(idx, n);
	if (!b)
		return false;
	if (b->kind == TL_BIND_FOR) {
		/* Each element once: unless a loop around this one comes back
		 * to the same elements (an epoch loop around a loop over models). */
		TSNode loop = tl_index_parent(idx, body);
		if (ts_node_is_null(loop) || !ts_node_eq(b->stmt, loop))
			return false;
		for (uint32_t l = 0; l < idx->loops.size; l++)
			if (ts_node_eq(idx->loops.items[l].node, loop))
				return idx->loops.items[l].parent < 0;
		return false;
	}
	return b->kind == TL_BIND_ASSIGN && ts_node_start_byte(b->stmt) >= ts_node_start_byte(body) &&
	       ts_node_end_byte(b->stmt) <= ts_node_end_byte(body);
}

/* True when the parameters optimizer constructor `ctor` is handed are new
 * in every iteration of the loop whose body is `body`: `m.parameters()` of
 * a module the loop iterates over, or a list of leaf tensors made in the
 * body (`x_in = latents.detach().clone()`; `SGD([x_in])`). */
static bool tl_check__params_fresh(const TlIndex *idx, TSNode ctor, TSNode body)
{
	const TlSyms *sy = tl_syms();
	TSNode params = tl_facts__kwarg(idx, ctor, "params");
	if (ts_node_is_null(params))
		params = tl_facts__arg(ctor, 0);
	params = tl_index_unparen(params);
	if (ts_node_is_null(params))
		return false;
	TSSymbol s = ts_node_symbol(params);
	/* What the parameters are drawn from, followed a few steps:
	 * `trainable.values()` of a name bound in the body, a comprehension's
	 * iterable (`{n: p for n, p in m.named_parameters() if ...}`),
	 * `filter(f, m.parameters())`, `list(...)`: down the argument or the
	 * iterable (inside the last), or from `d.values()` to the value of
	 * `d`'s binding, each binding once (tl_facts__seen_binding). */
	TlIntArray seen;
	tl_array_init(&seen);
	for (;;) {
		TSNode next = { 0 };
		if (s == sy->call) {
			const TlCall *c = tl_index_call_at(idx, params);
			if (!c || !c->method) {
				tl_array_release(&seen);
				return false;
			}
			const TlBinding *vb = NULL;
			if (c->receiver.id && strcmp(c->method, "values") == 0 &&
			    ts_node_symbol(tl_index_unparen(c->receiver)) == sy->identifier &&
			    tl_check__fresh_name(idx, c->receiver, body) &&
			    !tl_facts__seen_binding(idx, &seen,
						    vb = tl_index_resolve_node(idx, tl_index_unparen(c->receiver))))
				next = tl_facts__held(idx, vb);
			else if (!c->receiver.id && strcmp(c->method, "filter") == 0)
				next = tl_facts__arg(params, 1);
			else if (!c->receiver.id && (strcmp(c->method, "list") == 0 || strcmp(c->method, "tuple") == 0))
				next = tl_facts__arg(params, 0);
		} else if (s == sy->dictionary_comprehension || s == sy->list_comprehension ||
			   s == sy->generator_expression) {
			uint32_t n = ts_node_named_child_count(params);
			for (uint32_t k = 0; k < n && ts_node_is_null(next); k++) {
				TSNode cl = ts_node_named_child(params, k);
				if (ts_node_symbol(cl) == sy->for_in_clause)
					next = tl_tree_field(cl, sy->f_right);
			}
		}
		next = tl_index_unparen(next);
		if (ts_node_is_null(next))
			break;
		params = next;
		s = ts_node_symbol(params);
	}
	tl_array_release(&seen);
	if (s == sy->call) {
		const TlCall *c = tl_index_call_at(idx, params);
		return c && c->receiver.id && (tl_api_method_sets(c->method) & TL_APIS_PARAMETERS) &&
		       tl_check__fresh_name(idx, c->receiver, body);
	}
	if (s != sy->list && s != sy->tuple)
		return false;
	uint32_t n = ts_node_named_child_count(params);
	if (!n)
		return false;
	for (uint32_t k = 0; k < n; k++)
		if (!tl_check__fresh_name(idx, ts_node_named_child(params, k), body))
			return false;
	return true;
}

/* `model, optim = accelerator.prepare(model, optim)`, `model, optim, sched =
 * strategy.prepare(model=model, optim_wrapper=optim, ...)`: a name re-bound
 * from a call handed the same name is the optimizer it was handed,
 * prepared; fresh when that one is. The argument of `call` that hands
 * name `opt` (the first), or a null node. */
static TSNode tl_check__prepared_arg(const TlIndex *idx, TSNode opt, TSNode call)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	TSNode args = tl_tree_field(call, sy->f_arguments);
	if (ts_node_is_null(args) || ts_node_symbol(opt) != sy->identifier)
		return none;
	uint32_t olen;
	const char *ot = tl_index_text(idx, opt, &olen);
	uint32_t n = ts_node_named_child_count(args);
	for (uint32_t k = 0; k < n; k++) {
		TSNode a = ts_node_named_child(args, k);
		if (ts_node_symbol(a) == sy->keyword_argument)
			a = tl_tree_field(a, sy->f_value);
		a = tl_index_unparen(a);
		if (ts_node_is_null(a) || ts_node_symbol(a) != sy->identifier)
			continue;
		uint32_t alen;
		const char *at = tl_index_text(idx, a, &alen);
		if (alen == olen && memcmp(at, ot, olen) == 0)
			return a;
	}
	return none;
}

/* Whether the optimizer `opt` names is made afresh in `body` by its own
 * construction (what follows it: `ctor`'s parameters or modules made in
 * the body); `*next` is set to the name a call that re-binds it was handed
 * (tl_check__prepared_arg), whose freshness counts as its own, or null. */
static bool tl_check__fresh_one(const TlIndex *idx, TSNode opt, TSNode body, TSNode *next)
{
	const TlSyms *sy = tl_syms();
	uint32_t from = ts_node_start_byte(body), to = ts_node_end_byte(body);
	*next = (TSNode){ 0 };
	opt = tl_index_unparen(opt);
	TSNode named = opt;
	TSNode ctor = { 0 };
	/* From name to name to the construction, each binding once
	 * (tl_facts__seen_binding). */
	TlIntArray seen;
	tl_array_init(&seen);
	while (ts_node_is_null(ctor)) {
		TSSymbol s = ts_node_symbol(opt);
		if (s != sy->identifier && s != sy->attribute)
			break;
		const TlBinding *b = tl_index_resolve_node(idx, opt);
		TSNode v = tl_index_unparen(tl_facts__held(idx, b));
		if (ts_node_is_null(v) && b && b->kind == TL_BIND_ASSIGN && b->elem >= 0 &&
		    s == sy->identifier) {
			/* `model, optim = prepare(model, optim)`: an element of a
			 * call's result; only the name handed in may tell. */
			TSNode whole = tl_index_unparen(b->value);
			if (!ts_node_is_null(whole) && ts_node_symbol(whole) == sy->call &&
			    ts_node_start_byte(whole) >= from && ts_node_end_byte(whole) <= to)
				*next = tl_check__prepared_arg(idx, opt, whole);
			break;
		}
		if (ts_node_is_null(v) || tl_facts__seen_binding(idx, &seen, b))
			break;
		if (ts_node_symbol(v) == sy->call) {
			ctor = v;
			named = opt;
		} else {
			opt = v;
		}
	}
	tl_array_release(&seen);
	if (ts_node_is_null(ctor) || ts_node_start_byte(ctor) < from || ts_node_end_byte(ctor) > to)
		return false;
	if (tl_check__params_fresh(idx, ctor, body))
		return true;
	const TlCall *cc = tl_index_call_at(idx, ctor);
	if (cc && !(cc->qname && tl_facts__optimizer_qname(cc->qname)))
		*next = tl_check__prepared_arg(idx, named, ctor);
	TlModSet mods;
	tl_array_init(&mods);
	bool fresh = tl_facts__ctor_modules(idx, ctor, &mods) && mods.size > 0;
	for (uint32_t i = 0; fresh && i < mods.size; i++) {
		TSNode r = mods.items[i].root;
		fresh = !ts_node_is_null(r) && ts_node_start_byte(r) >= from && ts_node_end_byte(r) <= to;
	}
	tl_facts__modset_release(&mods);
	return fresh;
}

/* True when optimizer `opt` is constructed inside `body` (a loop's body)
 * over the parameters of modules that are all constructed inside it too:
 * each iteration trains a fresh model with a fresh optimizer, so no
 * gradient carries over from the iteration before. A chain of names, each
 * handed to the call that re-binds the one before: fresh when one of them
 * is. Each argument is met once (a loop that prepares the same names each
 * iteration comes back to its own call), so the chain ends without a bound
 * on its length. */
static bool tl_check__optimizer_fresh_in(const TlIndex *idx, TSNode opt, TSNode body)
{
	TlArray(uint32_t) seen;
	tl_array_init(&seen);
	bool fresh = false;
	while (!fresh && !ts_node_is_null(opt)) {
		uint32_t at = ts_node_start_byte(opt);
		bool again = false;
		for (uint32_t i = 0; i < seen.size && !again; i++)
			again = seen.items[i] == at;
		if (again)
			break;
		tl_array_push(&seen, at);
		TSNode next;
		fresh = tl_check__fresh_one(idx, opt, body, &next);
		opt = next;
	}
	tl_array_release(&seen);
	return fresh;
}

/* True when `node` runs inside a distributed-autograd context entered
 * within `body` (`with dist_autograd.context() as cid:` in the iteration):
 * its backward and step use that context's gradients, new each iteration,
 * so nothing carries over to reset. */
static bool tl_check__fresh_dist_context(const TlIndex *idx, TSNode node, TSNode body)
{
	for (int32_t w = tl_index_with_of(idx, node); w >= 0; w = idx->withs.items[w].parent) {
		const TlWith *wi = &idx->withs.items[w];
		if ((wi->ctx & TL_CTX_DIST_AUTOGRAD) && tl_facts__contains(body, wi->node))
			return true;
	}
	return false;
}

/* Distinct flags a question tells apart; past them it gives up (any
 * covering reset counts, as a path-insensitive answer does). */
#define TL_FLAG_VARS 6

/* Literals one node runs under, most. */
#define TL_FLAG_LITS 12

typedef struct FlagVars {
	char *key[TL_FLAG_VARS]; /* each flag's canonical text (tl_check__flag_key) */
	uint32_t n;
	bool over;
} FlagVars;

static void tl_check__flag_vars_release(FlagVars *vars)
{
	for (uint32_t i = 0; i < vars->n; i++)
		tl_free(vars->key[i]);
	memset(vars, 0, sizeof *vars);
}

typedef struct FlagLits {
	uint8_t var[TL_FLAG_LITS];
	uint8_t val[TL_FLAG_LITS];
	uint32_t n;
} FlagLits;

/* True when attribute node `n` names `.grad`. */
static bool tl_check__attr_is_grad(const TlIndex *idx, TSNode n)
{
	TSNode a = tl_tree_field(n, tl_syms()->f_attribute);
	return !ts_node_is_null(a) && tl_index_text_is(idx, a, "grad");
}

/* True when condition `cond` has the shape of a flag: names, attributes,
 * constant subscripts, literals, `not`, `and`/`or`, and comparisons by
 * equality, identity or membership (`args.amp`, `scaler is not None`,
 * `cfg.optim == "sgd"`). No call, no arithmetic, no ordering: a step
 * counter (`(i + 1) % n == 0`, `step >= warmup`) is no flag. */
static bool tl_check__flag_shape(const TlIndex *idx, TSNode cond)
{
	static const char *const allowed[] = {
		"identifier", "attribute", "subscript", "not_operator", "boolean_operator",
		"comparison_operator", "parenthesized_expression", "string", "string_start",
		"string_content", "string_end", "integer", "float", "true", "false", "none",
	};
	TSTreeCursor cur = ts_tree_cursor_new(cond);
	bool ok = true;
	do {
		TSNode n = ts_tree_cursor_current_node(&cur);
		const char *t = ts_node_type(n);
		if (ts_node_is_named(n)) {
			bool found = false;
			for (size_t i = 0; i < sizeof allowed / sizeof *allowed && !found; i++)
				found = strcmp(t, allowed[i]) == 0;
			/* `p.grad is not None`: the backward writes it */
			ok = found && !(strcmp(t, "attribute") == 0 && tl_check__attr_is_grad(idx, n));
		} else {
			ok = strcmp(t, "<") != 0 && strcmp(t, ">") != 0 && strcmp(t, "<=") != 0 &&
			     strcmp(t, ">=") != 0 && strcmp(t, "<>") != 0;
		}
	} while (ok && tl_walk_next(&cur, cond, true));
	ts_tree_cursor_delete(&cur);
	return ok;
}

/* The canonical text of flag `cond` into `out`, and whether it is the
 * flag negated (*neg flips): `x is None` and `x == None` are `x` false,
 * `x is not None` and `x != None` are `x`; `a != b` is `a == b` false,
 * `a not in b` is `a in b` false. Two tests of one canonical text are one
 * flag (which can only take settings away, never add a path). */
static void tl_check__flag_key(const TlIndex *idx, TSNode cond, TlBuf *out, bool *neg)
{
	const TlSyms *sy = tl_syms();
	uint32_t len;
	const char *t;
	if (ts_node_symbol(cond) == sy->comparison_operator && ts_node_named_child_count(cond) == 2) {
		TSNode lhs = ts_node_named_child(cond, 0), rhs = ts_node_named_child(cond, 1);
		TlBuf op;
		tl_buf_init(&op);
		uint32_t nc = ts_node_child_count(cond);
		for (uint32_t i = 0; i < nc; i++) {
			TSNode ch = ts_node_child(cond, i);
			if (ts_node_is_named(ch))
				continue;
			if (op.len)
				tl_buf_addc(&op, ' ');
			tl_buf_add(&op, ts_node_type(ch));
		}
		const char *o = op.len ? op.data : "";
		bool negated = strcmp(o, "is not") == 0 || strcmp(o, "!=") == 0 || strcmp(o, "not in") == 0 ||
			       strcmp(o, "<>") == 0;
		const char *cls = negated ? (strcmp(o, "not in") == 0 ? "in" : strcmp(o, "is not") == 0 ? "is" : "==")
					  : o;
		bool none = ts_node_symbol(rhs) == sy->none && (strcmp(cls, "is") == 0 || strcmp(cls, "==") == 0);
		if (none) {
			/* `x is not None`: x; `x is None`: not x */
			t = tl_index_text(idx, lhs, &len);
			tl_buf_addn(out, t ? t : "", t ? len : 0);
			*neg ^= !negated;
		} else {
			t = tl_index_text(idx, lhs, &len);
			tl_buf_addn(out, t ? t : "", t ? len : 0);
			tl_buf_addc(out, ' ');
			tl_buf_add(out, cls);
			tl_buf_addc(out, ' ');
			t = tl_index_text(idx, rhs, &len);
			tl_buf_addn(out, t ? t : "", t ? len : 0);
			*neg ^= negated;
		}
		tl_buf_release(&op);
		return;
	}
	t = tl_index_text(idx, cond, &len);
	tl_buf_addn(out, t ? t : "", t ? len : 0);
}

/* Adds the literal "`cond` is `val`" to `lits` when `cond` is a flag of
 * loop `loop`: a flag's shape, in the loop itself (not a loop inside
 * it), the same in every iteration (the model's loop invariance). */
static void tl_check__flag_atom(const TlIndex *idx, int32_t loop, TSNode cond, bool val, FlagVars *vars,
				FlagLits *lits)
{
	/* loop < 0: a helper's test, outside the helper's loops (the same at
	 * every call of the helper, as the invariance says there) */
	int32_t in = tl_index_loop_of(idx, cond);
	bool placed = loop >= 0 ? in == loop
				: in < 0 || idx->loops.items[in].func != tl_index_func_of(idx, cond);
	if (!placed || !tl_check__flag_shape(idx, cond) || !tl_model_loop_invariant(idx, cond, (TSNode){ 0 }))
		return;
	TlBuf key;
	tl_buf_init(&key);
	bool neg = false;
	tl_check__flag_key(idx, cond, &key, &neg);
	val ^= neg;
	const char *k = key.len ? key.data : "";
	uint32_t v = 0;
	while (v < vars->n && strcmp(vars->key[v], k) != 0)
		v++;
	if (v == vars->n) {
		if (vars->n == TL_FLAG_VARS) {
			vars->over = true;
			tl_buf_release(&key);
			return;
		}
		vars->key[vars->n++] = tl_strdup(k);
	}
	tl_buf_release(&key);
	if (lits->n == TL_FLAG_LITS) {
		vars->over = true;
		return;
	}
	lits->var[lits->n] = (uint8_t)v;
	lits->val[lits->n++] = val;
}

/* Adds the literals of "`cond` is `val`" for a place that runs under it
 * (`step`: the step's place, else a reset's): `a and b` true is `a` and
 * `b` true, `a or b` false both false. A test that holds when one of two
 * does (`a or b` true) is no set of literals: a reset's place leaves it
 * out (it runs on more paths), a step's gives the question up. */
static void tl_check__flag_lit(const TlIndex *idx, int32_t loop, TSNode cond, bool val, bool step, FlagVars *vars,
			       FlagLits *lits)
{
	const TlSyms *sy = tl_syms();
	struct {
		TSNode n;
		bool val;
	} stack[16];
	uint32_t top = 0;
	stack[top].n = cond;
	stack[top++].val = val;
	while (top) {
		top--;
		TSNode n = tl_index_unparen(stack[top].n);
		bool v = stack[top].val;
		while (!ts_node_is_null(n) && ts_node_symbol(n) == sy->not_operator) {
			n = tl_index_unparen(tl_tree_field(n, sy->f_argument));
			v = !v;
		}
		if (ts_node_is_null(n))
			continue;
		if (ts_node_symbol(n) != sy->boolean_operator) {
			tl_check__flag_atom(idx, loop, n, v, vars, lits);
			continue;
		}
		TSNode op = tl_tree_field(n, sy->f_operator);
		bool is_and = !ts_node_is_null(op) && strcmp(ts_node_type(op), "and") == 0;
		if (is_and != v) {
			if (step)
				vars->over = true;
			continue;
		}
		if (top + 2 > sizeof stack / sizeof *stack) {
			vars->over = true;
			return;
		}
		stack[top].n = tl_tree_field(n, sy->f_left);
		stack[top++].val = v;
		stack[top].n = tl_tree_field(n, sy->f_right);
		stack[top++].val = v;
	}
}

/* The flag literals node `n` runs under: the branches of flag tests
 * around it, up to `body` (loop `loop`'s body; for `loop` < 0, the body
 * of a helper the loop calls). */
static void tl_check__flag_lits(const TlIndex *idx, int32_t loop, TSNode body, TSNode n, bool step,
				FlagVars *vars, FlagLits *lits)
{
	const TlSyms *sy = tl_syms();
	TSNode child = n;
	for (TSNode p = tl_index_parent(idx, n); !ts_node_is_null(p) && !ts_node_eq(child, body);
	     child = p, p = tl_index_parent(idx, p)) {
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->if_statement) {
			if (ts_node_eq(tl_tree_field(p, sy->f_consequence), child))
				tl_check__flag_lit(idx, loop, tl_tree_field(p, sy->f_condition), true, step, vars, lits);
		} else if (s == sy->elif_clause || s == sy->else_clause) {
			if (s == sy->elif_clause) {
				if (!ts_node_eq(tl_tree_field(p, sy->f_consequence), child))
					continue;
				tl_check__flag_lit(idx, loop, tl_tree_field(p, sy->f_condition), true, step, vars, lits);
			}
			/* every test before it failed */
			TSNode top = tl_index_parent(idx, p);
			if (ts_node_is_null(top) || ts_node_symbol(top) != sy->if_statement)
				continue;
			tl_check__flag_lit(idx, loop, tl_tree_field(top, sy->f_condition), false, step, vars, lits);
			uint32_t nc = ts_node_named_child_count(top);
			for (uint32_t k = 0; k < nc; k++) {
				TSNode ch = ts_node_named_child(top, k);
				if (ts_node_eq(ch, p))
					break;
				if (ts_node_symbol(ch) == sy->elif_clause)
					tl_check__flag_lit(idx, loop, tl_tree_field(ch, sy->f_condition), false, step,
							   vars, lits);
			}
		}
	}
}

/* How deep the call of entry `it` runs below its anchor in the loop's
 * body: 0, the anchor itself; 1, in the function the anchor calls (or
 * hands a closure to); 2, deeper. */
static int tl_check__flag_depth(const TlIndex *idx, const TlStep *it)
{
	if (!it->call || ts_node_eq(it->call->node, it->anchor))
		return 0;
	const TlCall *a = tl_index_call_at(idx, it->anchor);
	int32_t f = it->call->func;
	return f >= 0 && a && (a->target == f || a->arg_target == f) ? 1 : 2;
}

/* The flag literals of entry `it` of loop `li`'s iteration: those around
 * its anchor in the body, and with `helpers`, those around the call in
 * the helper the anchor calls. */
static void tl_check__flag_place(const TlIndex *idx, int32_t li, const TlStep *it, bool helpers, bool step,
				 FlagVars *vars, FlagLits *lits)
{
	tl_check__flag_lits(idx, li, idx->loops.items[li].body, it->anchor, step, vars, lits);
	if (helpers && tl_check__flag_depth(idx, it) == 1)
		tl_check__flag_lits(idx, -1, idx->funcs.items[it->call->func].node, it->call->node, step, vars,
				    lits);
}

static bool tl_check__flag_holds(const FlagLits *lits, uint32_t valuation)
{
	for (uint32_t k = 0; k < lits->n; k++)
		if ((((valuation >> lits->var[k]) & 1u) != 0) != (lits->val[k] != 0))
			return false;
	return true;
}

/* True when some setting of the flags of loop `li` runs step `c` in its
 * iteration and none of `resets` (the covering resets of its body, each
 * at its anchor there). A step the body reaches in no way the sequence
 * shows counts as reset (the path-insensitive answer). */
static bool tl_check__flag_path_unreset(const TlIndex *idx, int32_t li, const TlCall *c, const TlSteps *resets)
{
	const TlLoop *l = &idx->loops.items[li];
	FlagVars vars;
	memset(&vars, 0, sizeof vars);
	TlArray(FlagLits) at;
	tl_array_init(&at);
	/* The resets first: one under no flag runs on every path (its
	 * literals only shrink when the helpers' tests are not read). */
	bool everywhere = false;
	for (uint32_t k = 0; k < resets->size && !everywhere; k++) {
		FlagLits fl;
		memset(&fl, 0, sizeof fl);
		tl_check__flag_place(idx, li, &resets->items[k], true, false, &vars, &fl);
		everywhere = fl.n == 0;
	}
	bool unreset = false;
	if (!everywhere && !vars.over) {
		TlSteps steps;
		tl_array_init(&steps);
		tl_facts__sequence(idx, l->func, l->body, TL_EV_OPT_STEP, &steps);
		/* A helper's tests count when the step runs in the loop's body
		 * or in the helper it calls: the tests of a function between
		 * (which would narrow where the step runs) are not read. */
		bool helpers = true;
		for (uint32_t k = 0; k < steps.size; k++)
			if (steps.items[k].call == c && tl_check__flag_depth(idx, &steps.items[k]) > 1)
				helpers = false;
		tl_check__flag_vars_release(&vars);
		for (uint32_t k = 0; k < resets->size; k++) {
			FlagLits fl;
			memset(&fl, 0, sizeof fl);
			tl_check__flag_place(idx, li, &resets->items[k], helpers, false, &vars, &fl);
			tl_array_push(&at, fl);
		}
		uint32_t nreset = at.size;
		for (uint32_t k = 0; k < steps.size; k++)
			if (steps.items[k].call == c) {
				FlagLits fl;
				memset(&fl, 0, sizeof fl);
				tl_check__flag_place(idx, li, &steps.items[k], helpers, true, &vars, &fl);
				tl_array_push(&at, fl);
			}
		tl_array_release(&steps);
		for (uint32_t v = 0; at.size > nreset && !vars.over && !unreset && v < (1u << vars.n); v++) {
			bool steps_here = false, resets_here = false;
			for (uint32_t k = nreset; k < at.size && !steps_here; k++)
				steps_here = tl_check__flag_holds(&at.items[k], v);
			for (uint32_t k = 0; k < nreset && steps_here && !resets_here; k++)
				resets_here = tl_check__flag_holds(&at.items[k], v);
			unreset = steps_here && !resets_here;
		}
	}
	tl_check__flag_vars_release(&vars);
	tl_array_release(&at);
	return unreset;
}

/* ---- a step run per iteration of another module's loop ---------------------------- */

static int tl_check__site_cmp(const void *pa, const void *pb)
{
	const TlImporterSite *a = pa, *b = pb;
	if (a->mod != b->mod)
		return (uintptr_t)a->mod < (uintptr_t)b->mod ? -1 : 1;
	return a->call < b->call ? -1 : a->call > b->call;
}

/* The events of an iteration of loop `l` of importing module `mod`: its
 * own, plus what the functions of other modules that it calls reach (its
 * events were built without them): a function the call's imports name,
 * else one of idx's module that the importers' sites (`sites`, sorted by
 * tl_check__site_cmp) say the call runs (a method called by name on what
 * this package's factory made). */
static uint32_t tl_check__ext_loop_events(const TlIndex *idx, const TlImporterSites *sites, const TlIndex *mod,
					  int32_t l)
{
	const TlLoop *lp = &mod->loops.items[l];
	uint32_t ev = lp->events;
	uint32_t s = ts_node_start_byte(lp->body), e = ts_node_end_byte(lp->body);
	for (uint32_t i = 0; i < mod->calls.size; i++) {
		const TlCall *c = &mod->calls.items[i];
		if (c->start_byte < s)
			continue;
		if (c->start_byte >= e)
			break;
		if (c->target >= 0 || !c->method)
			continue;
		TlExtDef d;
		if (tl_facts__ext_callee(mod, c, &d) && d.func >= 0) {
			ev |= d.idx->funcs.items[d.func].reach_events;
			continue;
		}
		TlImporterSite key = { mod, c, -1 };
		const TlImporterSite *at =
			sites->size ? bsearch(&key, sites->items, sites->size, sizeof key, tl_check__site_cmp) : NULL;
		if (at)
			ev |= idx->funcs.items[at->func].reach_events;
	}
	return ev;
}

/* True when a name the receiver of external call `call` is bound by is
 * bound inside `body` (the model or its trainer made afresh each
 * iteration: no gradient carries over). */
static bool tl_check__receiver_fresh_in(const TlIndex *mod, const TlCall *call, TSNode body)
{
	const TlSyms *sy = tl_syms();
	if (!call->receiver.id || ts_node_symbol(call->receiver) != sy->identifier)
		return false;
	const TlBinding *b = tl_index_resolve_node(mod, call->receiver);
	if (!b)
		return false;
	const TlIntArray *all = tl_index_bindings_of(mod, b->func, b->name);
	for (uint32_t i = 0; all && i < all->size; i++)
		if (tl_facts__contains(body, mod->bindings.items[all->items[i]].stmt))
			return true;
	return false;
}

/* True when step call `c`, in no step loop of its own file, runs in the
 * iteration of a step loop of a module importing this one (through the
 * functions here that reach it and that nothing here calls: their sites
 * in the importers are the model's, tl_model_importer_sites), and no such
 * iteration resets gradients. */
static bool tl_check__ext_step_unreset(const TlIndex *idx, const TlCall *c)
{
	if (c->func < 0)
		return false;
	/* The functions here that reach c's function through local calls and
	 * are called from nowhere here: the entries other modules call. */
	int32_t queue[32];
	uint32_t n = 0;
	queue[n++] = c->func;
	uint32_t found = 0, missing = 0;
	bool fresh = false, listed = false;
	TlImporterSites sites;
	tl_array_init(&sites);
	for (uint32_t q = 0; q < n && !fresh; q++) {
		const TlFunc *f = &idx->funcs.items[queue[q]];
		if (f->escapes) {
			tl_array_release(&sites);
			return false; /* called from where no site shows */
		}
		if (f->call_sites.size) {
			for (uint32_t i = 0; i < f->call_sites.size; i++) {
				int32_t up = idx->calls.items[f->call_sites.items[i]].func;
				if (up < 0 || idx->calls.items[f->call_sites.items[i]].loop >= 0) {
					tl_array_release(&sites);
					return false; /* a loop here, or module-level code */
				}
				bool seen = false;
				for (uint32_t k = 0; k < n; k++)
					seen = seen || queue[k] == up;
				if (seen)
					continue;
				if (n >= 32) {
					tl_array_release(&sites);
					return false;
				}
				queue[n++] = up;
			}
			continue;
		}
		if (!listed) {
			listed = true;
			tl_model_importer_sites(idx, &sites);
			if (sites.size)
				qsort(sites.items, sites.size, sizeof *sites.items, tl_check__site_cmp);
		}
		tl_facts__ext_enter(idx);
		for (uint32_t i = 0; i < sites.size && !fresh; i++) {
			const TlImporterSite *site = &sites.items[i];
			if (site->func != queue[q])
				continue;
			const TlIndex *mod = site->mod;
			for (int32_t l = site->call->loop; l >= 0; l = mod->loops.items[l].parent) {
				const TlLoop *lp = &mod->loops.items[l];
				uint32_t ev = tl_check__ext_loop_events(idx, &sites, mod, l) | f->reach_events;
				if (!(ev & TL_EV_BACKWARD) || tl_model_exits_at_end(lp))
					continue;
				if (tl_check__receiver_fresh_in(mod, site->call, lp->body))
					fresh = true;
				found++;
				if (!(ev & TL_EV_GRAD_RESET))
					missing++;
				break;
			}
		}
		tl_facts__ext_leave(idx);
	}
	tl_array_release(&sites);
	return !fresh && found > 0 && missing == found;
}

bool tl_check_step_unreset(const TlIndex *idx, TSNode step)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(step));
	if (!c || !(c->events & TL_EV_OPT_STEP))
		return false;
	TSNode opt = tl_facts__stepped(idx, c);
	TlIntArray loops;
	tl_array_init(&loops);
	tl_facts__step_loop_list(idx, c->node, &loops);
	if (!loops.size && idx->imports) {
		/* Called per step from another module's loop. */
		tl_array_release(&loops);
		return tl_check__ext_step_unreset(idx, c);
	}
	bool unreset = loops.size > 0;
	for (uint32_t i = 0; unreset && i < loops.size; i++) {
		const TlLoop *l = &idx->loops.items[loops.items[i]];
		/* A model and its optimizer built afresh in every iteration
		 * start with no gradient to carry over. */
		if (tl_check__optimizer_fresh_in(idx, opt, l->body) ||
		    tl_check__fresh_dist_context(idx, c->node, l->body)) {
			unreset = false;
			break;
		}
		TlSteps resets;
		tl_array_init(&resets);
		tl_facts__sequence(idx, l->func, l->body, TL_EV_GRAD_RESET, &resets);
		uint32_t covering = 0;
		for (uint32_t k = 0; k < resets.size; k++)
			if (tl_facts__reset_covers(idx, resets.items[k].call, opt) != TL_COVER_NONE)
				resets.items[covering++] = resets.items[k];
		resets.size = covering;
		/* Some covering reset: unreset only on a path of the run's
		 * flags that steps and runs none of them. */
		if (covering)
			unreset = tl_check__flag_path_unreset(idx, loops.items[i], c, &resets);
		tl_array_release(&resets);
	}
	tl_array_release(&loops);
	return unreset;
}
