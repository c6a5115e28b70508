/* Loops: step loops (the innermost loop that trains or evaluates), membership of
 * a node in one, every-N-steps guards, and loop invariance of expressions.
 *
 * (Whether an outer loop has an event, the training around a node updates
 * weights, a step loop runs again and again, a region runs a step loop, a
 * stored-to name outlives its loop's iterations, a forward is the first of
 * its module in its pass: the logic of TL204, TL213, TL215, TL309, TL106
 * and TL212, in rules/checks/.)
 *
 * Owns: tl_facts_step_loops, tl_facts_in_step_loop, tl_facts_under_every_n, tl_facts_loop_invariant,
 * tl_facts_pass_lacks, tl_facts_model_computation, tl_facts__root_node,
 * tl_facts__kept_by_loop. */
#include "model/model.h"
#include "facts/internal.h"

static bool tl_facts__every_n(const TlIndex *idx, TSNode cond, int depth);

/* ---- step loops and every-N-steps guards ------------------------------------------- */

/* `step % N`: a modulo binary operator. */
static bool tl_facts__is_modulo(const TlIndex *idx, TSNode e)
{
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	return !ts_node_is_null(e) && ts_node_symbol(e) == sy->binary_operator &&
	       tl_index_text_is(idx, tl_tree_field(e, sy->f_operator), "%");
}

/* True for a comparison whose operators are all `==`. */
static bool tl_facts__equality(const TlIndex *idx, TSNode e)
{
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	if (ts_node_is_null(e) || ts_node_symbol(e) != sy->comparison_operator)
		return false;
	uint32_t count = ts_node_child_count(e);
	bool any = false;
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_child(e, i);
		if (ts_node_is_named(c))
			continue;
		if (!tl_index_text_is(idx, c, "=="))
			return false;
		any = true;
	}
	return any;
}

/* A condition that holds on few iterations: an every-N test, an equality
 * (`batch_idx == last_idx`), or a name bound to one. */
static bool tl_facts__rare(const TlIndex *idx, TSNode cond, int depth)
{
	const TlSyms *sy = tl_syms();
	cond = tl_index_unparen(cond);
	if (ts_node_is_null(cond) || depth > TL_FACTS_DEPTH)
		return false;
	if (tl_facts__every_n(idx, cond, depth + 1) || tl_facts__equality(idx, cond))
		return true;
	if (ts_node_symbol(cond) == sy->identifier) {
		const TlBinding *b = tl_index_resolve_node(idx, cond);
		TSNode v = tl_facts__bound_value(b);
		return !ts_node_is_null(v) && b->elem < 0 && tl_facts__rare(idx, v, depth + 1);
	}
	return false;
}

/* Names people give periodic decisions (`should_log`, `should_eval(step)`):
 * a hint that only ever makes a rule stay silent. */
static bool tl_facts__periodic_name(const TlIndex *idx, TSNode n)
{
	char *name = tl_facts__dotted(idx, n);
	bool yes = name && (tl_facts__starts(tl_facts__last(name), "should_") ||
			    strcmp(tl_facts__last(name), "sync_gradients") == 0);
	tl_free(name);
	return yes;
}

/* `step % N == 0`, `(i + 1) % accum == 0 and is_main`, `not it % N`,
 * `last or i % N == 0`, `accelerator.sync_gradients`, `should_log(step)`,
 * or a name bound to one of these. */
static bool tl_facts__every_n(const TlIndex *idx, TSNode cond, int depth)
{
	const TlSyms *sy = tl_syms();
	cond = tl_index_unparen(cond);
	if (ts_node_is_null(cond) || depth > TL_FACTS_DEPTH)
		return false;
	TSSymbol s = ts_node_symbol(cond);
	if (s == sy->comparison_operator) {
		if (!tl_facts__equality(idx, cond))
			return false;
		uint32_t count = ts_node_named_child_count(cond);
		for (uint32_t i = 0; i < count; i++)
			if (tl_facts__is_modulo(idx, ts_node_named_child(cond, i)))
				return true;
		return false;
	}
	if (s == sy->not_operator)
		return tl_facts__is_modulo(idx, tl_tree_field(cond, sy->f_argument));
	if (s == sy->boolean_operator) {
		TSNode l = tl_tree_field(cond, sy->f_left);
		TSNode r = tl_tree_field(cond, sy->f_right);
		if (tl_index_text_is(idx, tl_tree_field(cond, sy->f_operator), "and"))
			return tl_facts__every_n(idx, l, depth + 1) || tl_facts__every_n(idx, r, depth + 1);
		/* or: rare on both sides, and an every-N test on one. */
		return tl_facts__rare(idx, l, depth + 1) && tl_facts__rare(idx, r, depth + 1) &&
		       (tl_facts__every_n(idx, l, depth + 1) || tl_facts__every_n(idx, r, depth + 1));
	}
	if (s == sy->call)
		return tl_facts__periodic_name(idx, tl_tree_field(cond, sy->f_function));
	if (s == sy->attribute || s == sy->identifier) {
		if (tl_facts__periodic_name(idx, cond))
			return true;
		const TlBinding *b = tl_index_resolve_node(idx, cond);
		TSNode v = tl_facts__bound_value(b);
		return !ts_node_is_null(v) && b->elem < 0 && tl_facts__every_n(idx, v, depth + 1);
	}
	return false;
}

/* The opposite of an every-N test, as an early exit writes it:
 * `not should_log`, `step % N != 0`, `step % N`. */
static bool tl_facts__skip_unless_every_n(const TlIndex *idx, TSNode cond)
{
	const TlSyms *sy = tl_syms();
	cond = tl_index_unparen(cond);
	if (ts_node_is_null(cond))
		return false;
	TSSymbol s = ts_node_symbol(cond);
	if (s == sy->not_operator)
		return tl_facts__every_n(idx, tl_tree_field(cond, sy->f_argument), 0);
	if (tl_facts__is_modulo(idx, cond))
		return true;
	if (s != sy->comparison_operator || ts_node_named_child_count(cond) != 2)
		return false;
	uint32_t count = ts_node_child_count(cond);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_child(cond, i);
		if (!ts_node_is_named(c) && !tl_index_text_is(idx, c, "!="))
			return false;
	}
	return tl_facts__is_modulo(idx, ts_node_named_child(cond, 0)) ||
	       tl_facts__is_modulo(idx, ts_node_named_child(cond, 1));
}

/* `if <skip>: continue` / `return` / `break` (alone in its body): the code
 * after it in the same block runs only when the test lets it. */
static bool tl_facts__early_exit(const TlIndex *idx, TSNode stmt)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_symbol(stmt) != sy->if_statement ||
	    !ts_node_is_null(tl_tree_field(stmt, sy->f_alternative)))
		return false;
	TSNode body = tl_tree_field(stmt, sy->f_consequence);
	uint32_t count = ts_node_is_null(body) ? 0 : ts_node_named_child_count(body);
	if (!count)
		return false;
	const char *t = ts_node_type(ts_node_named_child(body, count - 1));
	return (strcmp(t, "continue_statement") == 0 || strcmp(t, "return_statement") == 0 ||
		strcmp(t, "break_statement") == 0) &&
	       tl_facts__skip_unless_every_n(idx, tl_tree_field(stmt, sy->f_condition));
}

/* The every-N guard that holds `node`, below `top`: an if_statement or
 * elif_clause with `node` in its consequence, an early exit before it in a
 * block around it, or an except clause around it; a null node when there
 * is none. */
TSNode tl_facts__guard_between(const TlIndex *idx, TSNode node, TSNode top)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	TSNode child = node;
	for (TSNode p = tl_index_parent(idx, node); !ts_node_is_null(p) && !ts_node_eq(child, top);
	     child = p, p = tl_index_parent(idx, p)) {
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->function_definition || s == sy->class_definition)
			break;
		if ((s == sy->if_statement || s == sy->elif_clause) &&
		    ts_node_eq(tl_tree_field(p, sy->f_consequence), child) &&
		    tl_facts__every_n(idx, tl_tree_field(p, sy->f_condition), 0))
			return p;
		/* An exception handler runs when a step fails, not per step. */
		if (s == sy->except_clause)
			return p;
		if (s == sy->block || s == sy->module) {
			/* An early exit earlier in the same block: the nearest one.
			 * Forward, with a cursor: each ts_node_prev_named_sibling
			 * scans the block from its start, so walking back with it
			 * cost the square of the statement's position. */
			TSNode found = none;
			uint32_t at = ts_node_start_byte(child);
			/* An early exit holds a continue, break or return: a
			 * block with none before `child` has none to find. */
			if (!tl_index_exit_between(idx, ts_node_start_byte(p), at))
				continue;
			TSTreeCursor cur = ts_tree_cursor_new(p);
			for (bool more = ts_tree_cursor_goto_first_child(&cur); more;
			     more = ts_tree_cursor_goto_next_sibling(&cur)) {
				TSNode prev = ts_tree_cursor_current_node(&cur);
				if (ts_node_start_byte(prev) >= at)
					break;
				if (ts_node_is_named(prev) && tl_facts__early_exit(idx, prev))
					found = prev;
			}
			ts_tree_cursor_delete(&cur);
			if (!ts_node_is_null(found))
				return found;
		}
	}
	return none;
}

bool tl_facts_under_every_n(const TlIndex *idx, TSNode node)
{
	int32_t func = tl_index_func_of(idx, node);
	TSNode top = func >= 0 ? idx->funcs.items[func].node : idx->root;
	return !ts_node_is_null(tl_facts__guard_between(idx, node, top));
}

/* The per-step guard as the model's step entry asks it: an every-N guard
 * holds `node` below `top`. */
static bool tl_facts__step_guard(const TlIndex *idx, TSNode node, TSNode top)
{
	return !ts_node_is_null(tl_facts__guard_between(idx, node, top));
}

bool tl_facts_in_step_loop(const TlIndex *idx, TSNode node, uint32_t kinds, bool per_step)
{
	/* The innermost step loop decides: a rollout (an evaluating loop) in
	 * a training loop's iteration is evaluation, not a training step. */
	int32_t func = tl_index_func_of(idx, node);
	bool yes = false, decided = false;
	for (int32_t l = tl_index_loop_of(idx, node); l >= 0 && !decided; l = idx->loops.items[l].parent) {
		uint32_t step = tl_model_loop_step(idx, l);
		if (!step)
			continue;
		decided = true;
		yes = (step & kinds) &&
		      (!per_step || !tl_facts__step_guard(idx, node, idx->loops.items[l].body));
	}
	/* Outside any: the function's step entry through its call sites
	 * (the model's), unless the guard holds it in its function. */
	if (!decided)
		yes = func >= 0 && !(per_step && tl_facts__step_guard(idx, node, idx->funcs.items[func].node)) &&
		      tl_model_step_entry(idx, func, kinds, per_step ? tl_facts__step_guard : NULL);
	return yes;
}

/* ---- loop invariance ------------------------------------------------------------------ */

/* True when identifier `id` is bound by a comprehension or lambda around
 * it: its value changes per element (the model's reading). */
bool tl_facts__comprehension_local(const TlIndex *idx, TSNode id)
{
	return tl_model_comprehension_local(idx, id);
}

bool tl_facts_loop_invariant(const TlIndex *idx, TSNode expr)
{
	/* The call that reads `expr` (a transfer's receiver) is no change of it. */
	return tl_model_loop_invariant(idx, expr, tl_index_parent(idx, tl_index_parent(idx, expr)));
}

/* ---- loops ------------------------------------------------------------------------ */

char *tl_facts_root_name(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	expr = tl_index_unparen(expr);
	while (!ts_node_is_null(expr)) {
		TSSymbol s = ts_node_symbol(expr);
		if (s == sy->subscript)
			expr = tl_index_unparen(tl_tree_field(expr, sy->f_value));
		else if (s == sy->call) /* history.setdefault(k, []) */
			expr = tl_index_unparen(tl_tree_field(
				tl_index_unparen(tl_tree_field(expr, sy->f_function)),
				sy->f_object));
		else
			break;
	}
	if (ts_node_is_null(expr))
		return NULL;
	return tl_facts__dotted(idx, expr);
}

/* The node that roots `expr`, as tl_facts_root_name names it: subscripts
 * and calls looked through (`history.setdefault(k, [])[0]`: history). */
TSNode tl_facts__root_node(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	expr = tl_index_unparen(expr);
	while (!ts_node_is_null(expr)) {
		TSSymbol s = ts_node_symbol(expr);
		if (s == sy->subscript)
			expr = tl_index_unparen(tl_tree_field(expr, sy->f_value));
		else if (s == sy->call)
			expr = tl_index_unparen(tl_tree_field(
				tl_index_unparen(tl_tree_field(expr, sy->f_function)), sy->f_object));
		else
			break;
	}
	return expr;
}

/* The model's answer (model/model.h: tl_model_carried): an iteration of
 * `loop` reads what `root` names as the previous iteration left it, and no
 * store in the iteration starts it afresh (`buf = []` at the end of the
 * iteration; `total += x` keeps it). */
bool tl_facts__kept_by_loop(const TlIndex *idx, int32_t loop, TSNode root)
{
	TlCarryInfo ci;
	if (ts_node_is_null(root))
		return false;
	return tl_model_carried(idx, idx->loops.items[loop].node, root, &ci) == 1 && !ci.reset;
}

/* A test that holds on one iteration: an equality with no modulo in it
 * (`step == 0`, `i == len(loader) - 1`), `x is None`, or an `and` with
 * such a side. */
static bool tl_facts__once(const TlIndex *idx, TSNode cond)
{
	const TlSyms *sy = tl_syms();
	for (int depth = 0; depth < TL_FACTS_DEPTH; depth++) {
		cond = tl_index_unparen(cond);
		if (ts_node_is_null(cond))
			return false;
		TSSymbol s = ts_node_symbol(cond);
		if (s == sy->boolean_operator &&
		    tl_index_text_is(idx, tl_tree_field(cond, sy->f_operator), "and")) {
			if (tl_facts__once(idx, tl_tree_field(cond, sy->f_left)))
				return true;
			cond = tl_tree_field(cond, sy->f_right);
			continue;
		}
		if (s != sy->comparison_operator || ts_node_named_child_count(cond) != 2)
			return false;
		TSNode a = ts_node_named_child(cond, 0), b = ts_node_named_child(cond, 1);
		if (tl_facts__is_modulo(idx, a) || tl_facts__is_modulo(idx, b))
			return false;
		if (tl_facts__equality(idx, cond))
			return true;
		uint32_t count = ts_node_child_count(cond);
		for (uint32_t i = 0; i < count; i++) {
			TSNode c = ts_node_child(cond, i);
			if (!ts_node_is_named(c))
				return tl_index_text_is(idx, c, "is") && ts_node_symbol(b) == sy->none;
		}
		return false;
	}
	return false;
}

/* True when `node` is in the consequence of an if/elif of its function,
 * below `top`, whose test holds on one iteration (tl_facts__once). */
static bool tl_facts__once_guarded(const TlIndex *idx, TSNode node, TSNode top)
{
	const TlSyms *sy = tl_syms();
	TSNode child = node;
	for (TSNode p = tl_index_parent(idx, node); !ts_node_is_null(p) && !ts_node_eq(child, top);
	     child = p, p = tl_index_parent(idx, p)) {
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->function_definition || s == sy->class_definition)
			break;
		if ((s == sy->if_statement || s == sy->elif_clause) &&
		    ts_node_eq(tl_tree_field(p, sy->f_consequence), child) &&
		    tl_facts__once(idx, tl_tree_field(p, sy->f_condition)))
			return true;
	}
	return false;
}

/* True when function `func` is handed to an optimizer's step as its closure
 * (`opt.step(closure)`): all of its iterations belong to one step. The
 * call that hands it over is in the scope that defines it (a scan of every
 * call of the file per question made a file of thousands of loops
 * quadratic). */
static bool tl_facts__step_closure(const TlIndex *idx, int32_t func)
{
	if (func < 0)
		return false;
	const TlIntArray *calls = tl_index_scope_calls(idx, idx->funcs.items[func].parent);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (c->arg_target == func && (c->events & TL_EV_OPT_STEP))
			return true;
	}
	return false;
}

/* The loops around `expr` in its function, innermost first, until one
 * does not carry the stored-to object (the model's: it is made afresh in
 * the iteration): the first training step loop among those it survives
 * decides. An evaluating loop (a rollout) inside a training
 * loop is passed through: what it keeps in a container made before the
 * training loop still outlives each training step. A loop that only
 * backpropagates (the micro-batches of gradient accumulation) inside a
 * loop that steps the optimizer is part of one step: the stepping loop
 * decides. Loops in an optimizer's closure run within one step; a store on
 * one guarded iteration only (`if step == 0:`) keeps one graph. */
int32_t tl_facts__deciding_step_loop(const TlIndex *idx, TSNode expr)
{
	int32_t loop = tl_index_loop_of(idx, expr);
	if (loop < 0 || tl_facts__step_closure(idx, idx->loops.items[loop].func))
		return -1;
	/* The loop that decides, found first from the loops alone (most
	 * loops are no training step: their file's model is not needed). */
	int32_t decides = -1;
	for (int32_t l = loop; l >= 0 && decides < 0; l = idx->loops.items[l].parent) {
		const TlLoop *lp = &idx->loops.items[l];
		if (!(lp->step & TL_STEP_TRAIN) || !(tl_model_loop_step(idx, l) & TL_STEP_TRAIN))
			continue;
		bool stepping_outer = false;
		for (int32_t p = lp->parent; !(lp->events & TL_EV_OPT_STEP) && p >= 0;
		     p = idx->loops.items[p].parent)
			stepping_outer = stepping_outer || (idx->loops.items[p].own_events & TL_EV_OPT_STEP);
		if (!stepping_outer)
			decides = l;
	}
	return decides;
}

bool tl_facts__kept_until(const TlIndex *idx, TSNode expr, int32_t decides)
{
	/* It survives every loop up to that one. */
	int32_t loop = tl_index_loop_of(idx, expr);
	TSNode root = tl_facts__root_node(idx, expr);
	bool kept = true;
	for (int32_t l = loop; kept; l = idx->loops.items[l].parent) {
		kept = tl_facts__kept_by_loop(idx, l, root);
		if (l == decides)
			break;
	}
	return kept && !tl_facts__once_guarded(idx, expr, idx->loops.items[decides].body);
}

bool tl_facts_no_training_loop(const TlIndex *idx)
{
	for (uint32_t i = 0; i < idx->loops.size; i++)
		if (idx->loops.items[i].step & TL_STEP_TRAIN)
			return false;
	return true;
}

bool tl_facts_kept_across_training_step(const TlIndex *idx, TSNode expr)
{
	int32_t decides = tl_facts__deciding_step_loop(idx, expr);
	return decides >= 0 && tl_facts__kept_until(idx, expr, decides);
}

uint32_t tl_facts_step_loops(const TlIndex *idx, TSNode node, uint32_t events,
			    uint32_t *missing)
{
	TlIntArray loops;
	tl_array_init(&loops);
	tl_facts__step_loop_list(idx, node, &loops);
	*missing = 0;
	for (uint32_t i = 0; i < loops.size; i++)
		*missing += !(idx->loops.items[loops.items[i]].events & events);
	uint32_t found = loops.size;
	tl_array_release(&loops);
	return found;
}

/* The step loops of `node` (see tl_facts_step_loops), as loop indices:
 * the model's backward loops through the module's call sites. */
void tl_facts__step_loop_list(const TlIndex *idx, TSNode node, TlIntArray *out)
{
	tl_model_backward_loops(idx, tl_index_func_of(idx, node), tl_index_loop_of(idx, node), out);
}

/* ---- the pass around a node -------------------------------------------------------- */

bool tl_facts_pass_lacks(const TlIndex *idx, TSNode node, uint32_t events)
{
	int32_t loop = tl_index_loop_of(idx, node);
	if (loop >= 0)
		return !(idx->loops.items[loop].events & events);
	int32_t func = tl_index_func_of(idx, node);
	return func >= 0 && !(idx->funcs.items[func].reach_events & events);
}

/* ---- loops inside a model's own computation --------------------------------------------- */

/* True when class `cls` is a model: an nn.Module class, or a class whose
 * methods bind `self.<name>` to a module they construct when a base of it
 * is one the model cannot read (a model whose base class comes from
 * another module of its project, such as diffusers' ModelMixin, which the
 * file alone cannot resolve). A class whose bases the model reads is a
 * model when they make it one only: holding a module makes a test case
 * (allennlp's `self.elmo = Elmo(...)` in a class derived from its own
 * test base) or a trainer no model. */
static bool tl_facts__model_class(const TlIndex *idx, int32_t cls)
{
	const TlSyms *sy = tl_syms();
	if (idx->classes.items[cls].is_module)
		return true;
	if (tl_model_class_bases_read(idx, cls))
		return tl_model_class_module(idx, cls);
	for (uint32_t i = 0; i < idx->bindings.size; i++) {
		const TlBinding *b = &idx->bindings.items[i];
		if (b->cls != cls || b->kind != TL_BIND_ASSIGN || b->elem >= 0 || ts_node_is_null(b->value))
			continue;
		TSNode v = tl_index_unparen(b->value);
		if (ts_node_symbol(v) != sy->call)
			continue;
		TlBuf path;
		tl_buf_init(&path);
		TSNode root = tl_facts__module_root(idx, v, &path);
		tl_buf_release(&path);
		if (!ts_node_is_null(root) && ts_node_eq(root, v))
			return true;
	}
	return false;
}

/* True when function `f` is a method of a model class (or a function
 * nested in one). */
static bool tl_facts__module_method(const TlIndex *idx, int32_t f)
{
	for (int depth = 0; f >= 0 && depth <= TL_FACTS_DEPTH; depth++) {
		int32_t cls = idx->funcs.items[f].cls;
		if (cls >= 0)
			return tl_facts__model_class(idx, cls);
		f = idx->funcs.items[f].parent;
	}
	return false;
}

/* True when a for loop around `n` (in its function) iterates what may be
 * batches of data: a DataLoader of the file, or an iterable whose text
 * names one (`loader`, `batches`, `dataset`, `data`), or any while loop.
 * A model the file cannot recognise may then run in it, unseen. */
static bool tl_facts__iterates_data(const TlIndex *idx, TSNode n)
{
	const TlSyms *sy = tl_syms();
	for (int32_t l = tl_index_loop_of(idx, n); l >= 0; l = idx->loops.items[l].parent) {
		TSNode loop = idx->loops.items[l].node;
		if (ts_node_symbol(loop) != sy->for_statement)
			return true;
		TSNode it = tl_tree_field(loop, sy->f_right);
		uint32_t len = 0;
		const char *t = ts_node_is_null(it) ? NULL : tl_index_text(idx, it, &len);
		if (!t || len > 200)
			return true;
		char low[201];
		for (uint32_t i = 0; i < len; i++)
			low[i] = (char)tolower((unsigned char)t[i]);
		low[len] = '\0';
		if (strstr(low, "load") || strstr(low, "batch") || strstr(low, "data") ||
		    strstr(low, "sample") || strstr(low, "iter") || strstr(low, "epoch"))
			return true;
	}
	return false;
}

bool tl_facts_model_computation(const TlIndex *idx, TSNode container)
{
	const TlSyms *sy = tl_syms();
	int32_t f = tl_index_func_of(idx, container);
	if (f < 0 || tl_index_loop_of(idx, container) < 0)
		return false;
	/* Module state (`self.cache.append(...)`) persists across calls. */
	char *name = tl_facts_root_name(idx, container);
	bool state = !name || strcmp(name, "self") == 0 || tl_facts__starts(name, "self.");
	tl_free(name);
	if (state)
		return false;
	/* No loop around it in its function trains. */
	uint32_t around = 0;
	for (int32_t l = tl_index_loop_of(idx, container); l >= 0; l = idx->loops.items[l].parent)
		around |= idx->loops.items[l].events;
	if (around & (TL_EV_BACKWARD | TL_EV_OPT_STEP))
		return false;
	/* A loop that runs no forward either (per-level loss terms summed by a
	 * criterion, slices packed by a reference function) is no step loop
	 * at all: a container the function binds itself lives for one call. */
	if (!(around & TL_EV_FORWARD) && !tl_facts__iterates_data(idx, container)) {
		/* The name under the subscripts and attributes. */
		TSNode root = tl_index_unparen(container);
		for (int depth = 0; depth <= TL_FACTS_DEPTH && !ts_node_is_null(root) &&
				    ts_node_symbol(root) != sy->identifier;
		     depth++)
			root = tl_index_unparen(ts_node_symbol(root) == sy->subscript
							? tl_tree_field(root, sy->f_value)
							: ts_node_symbol(root) == sy->attribute
							? tl_tree_field(root, sy->f_object)
							: (TSNode){ 0 });
		const TlBinding *b = !ts_node_is_null(root) && ts_node_symbol(root) == sy->identifier
					     ? tl_index_resolve_node(idx, root) : NULL;
		if (b && b->func == f && b->kind == TL_BIND_ASSIGN && !b->class_body)
			return true;
	}
	/* A method of the model, or a helper only its methods call. */
	bool model = tl_facts__module_method(idx, f);
	const TlFunc *fn = &idx->funcs.items[f];
	if (!model && !fn->escapes && fn->call_sites.size) {
		model = true;
		for (uint32_t i = 0; model && i < fn->call_sites.size; i++)
			model = tl_facts__module_method(idx, idx->calls.items[fn->call_sites.items[i]].func);
	}
	return model;
}

/* ---- the element a loop binds ---------------------------------------------------------- */

bool tl_facts_loop_element(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	expr = tl_index_unparen(expr);
	if (ts_node_is_null(expr) || ts_node_symbol(expr) != sy->identifier)
		return false;
	int32_t l = tl_index_loop_of(idx, expr);
	const TlBinding *b = tl_index_resolve_node(idx, expr);
	return l >= 0 && b && b->kind == TL_BIND_FOR && ts_node_eq(b->stmt, idx->loops.items[l].node);
}

/* ---- code that runs training, conditions, tests ------------------------------------ */

bool tl_facts_in_test_code(const TlIndex *idx, TSNode node)
{
	for (int32_t f = tl_index_func_of(idx, node); f >= 0; f = idx->funcs.items[f].parent) {
		const TlFunc *fn = &idx->funcs.items[f];
		if (fn->name && strncmp(fn->name, "test", 4) == 0)
			return true;
		if (fn->cls >= 0 && idx->classes.items[fn->cls].name &&
		    strncmp(idx->classes.items[fn->cls].name, "Test", 4) == 0)
			return true;
	}
	return false;
}
