/* Module modes as program-point state (docs/semantic-model.md, "Module
 * modes").
 *
 * A module's train / eval mode is part of its value (TlVal.mode, a set of
 * TL_VMODE_* bits, 0 when not known), so the state carries it per access
 * path, branches join it and loops run it to their fixpoint with the rest
 * of the value. The transfers:
 *
 * - a module the code builds (a class of the project that is an
 *   nn.Module, a torch.nn class, a library's model) is in train mode; one
 *   that a call of the API table's set `eval-mode` returns
 *   (`from_pretrained`) in eval mode; a wrapper (`DataParallel(model)`)
 *   and a copy (`copy.deepcopy(model)`) are in their argument's mode, a
 *   module's method that returns it (`model.to(device)`) in its
 *   receiver's;
 * - `m.eval()` and `m.train(False)` put the path `m` and every path below
 *   it (its submodules) in eval mode, `m.train()` and `m.train(True)` in
 *   train mode, `m.train(flag)` in either (the index's event bits say
 *   which call is which); the call returns the module in that mode;
 * - an attribute of a module is in the module's mode (a submodule);
 * - a parameter (and `self`, and what is read off them) is entered in
 *   TL_VMODE_ENTRY: the mode its callers hand it, resolved at the question
 *   over every call site in the project (the module's, and the calls of
 *   the modules that import it, by name or through an instance their
 *   model knows: model/callers.c), as the grad mode's entry is
 *   (model/gradmode.c). A summary's value in TL_VMODE_ENTRY is the
 *   callee's parameter, not known to the caller: not known.
 *
 * The question (the mode a subject has where it is asked, its entry
 * resolved over the call sites) is model/modesites.c.
 *
 * Owns: tl_in__mode_call, tl_in__mode_field, tl_in__mode_element,
 * tl_in__mode_exit, tl_in__mode_summary, tl_in__mode_loop_once,
 * tl_in__mode_take, tl_in__mode_loop_exit, tl_in__mode_replay,
 * tl_model__module_like. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "model/apitable.h"
#include "model/interp_internal.h"

bool tl_model__module_like(const TlVal *v)
{
	return v->kind == TL_VK_MODULE || v->kind == TL_VK_WRAPPER;
}

void tl_in__mode_field(TlVal *v, const TlVal *obj)
{
	if ((obj->mode || obj->meval) && (tl_model__module_like(v) || v->kind == TL_VK_TOP)) {
		v->mode = obj->mode; /* a submodule, or what a parameter holds */
		v->meval = obj->meval;
	}
	else if (v->mode & TL_VMODE_ENTRY)
		v->mode = 0; /* a class attribute's store: another function's entry */
}

void tl_in__mode_element(In *in, TSNode n, TlVal *e, const TlVal *obj)
{
	if (e->mode || !(tl_model__module_like(e) || e->kind == TL_VK_TOP))
		return;
	TlPath p;
	TSNode x = tl_tree_field(n, in->sy->f_value);
	if (!ts_node_is_null(x) && tl_path_of(&in->m->names, in->idx, x, &p) && !p.cut &&
	    p.n < TL_PATH_SELECTORS) {
		p.sel[p.n++] = TL_PATH_ANY;
		const TlVal *sv = tl_state_get(&in->st, &p);
		if (sv) {
			e->mode = sv->mode;
			return;
		}
	}
	if (obj->kind != TL_VK_CONTAINER)
		e->mode = obj->mode;
}

/* Where path `p` of the function being interpreted starts: one of its
 * parameters (or `self`), a module global, or something else (a local,
 * a path too deep for an effect to name). */
enum { TL_MODES_PARAM, TL_MODES_GLOBAL, TL_MODES_OTHER };

static int tl_modes__origin(const In *in, const TlPath *p)
{
	if (in->func < 0 || p->n > 1 || p->cut)
		return TL_MODES_OTHER;
	for (uint32_t i = 0; i < in->nparams && i < 16; i++)
		if (in->param_roots[i] == p->root)
			return TL_MODES_PARAM;
	if (p->n)
		return TL_MODES_OTHER;
	const char *name = in->m->names.names.items[p->root];
	if (tl_index_bindings_of(in->idx, in->func, name))
		return TL_MODES_OTHER;
	return TL_MODES_GLOBAL;
}

bool tl_model__nested_in(const TlIndex *idx, int32_t func, int32_t outer)
{
	for (int depth = 0; func >= 0 && (uint32_t)func < idx->funcs.size && depth < 16; depth++) {
		func = idx->funcs.items[func].parent;
		if (func == outer)
			return outer >= 0;
	}
	return false;
}

/* The parameter whose root is `root` in the function being interpreted. */
static int32_t tl_modes__param_of(const In *in, int32_t root)
{
	for (uint32_t i = 0; i < in->nparams && i < 16; i++)
		if (in->param_roots[i] == root)
			return (int32_t)i;
	return -1;
}

static void tl_modes__set_elements(In *in, const TlPath *p, uint8_t mode);
static bool tl_modes__rebound(const In *in, int32_t root);

/* A switch made inside a comprehension is kept to be made again when the
 * comprehension's end restores the state it saved (its variables are its
 * own; the modules it switches are not). */
static void tl_modes__defer(In *in, uint8_t how, const TlPath *p, uint8_t mode, const TlVal *unbound)
{
	if (!in->snaps.size)
		return;
	TlModeOp op;
	memset(&op, 0, sizeof op);
	if (p)
		op.path = *p;
	op.how = how;
	op.mode = mode;
	if (unbound) {
		op.unbound = *unbound;
		op.has_unbound = true;
	}
	tl_array_push(&in->mdefer, op);
}

static void tl_modes__set(In *in, const TlPath *p, uint8_t mode, const TlVal *unbound)
{
	tl_state_set_mode(&in->st, p, mode, unbound);
	tl_modes__defer(in, TL_MODEOP_PATH, p, mode, unbound);
}

static void tl_modes__forget(In *in)
{
	in->mforgot = true;
	tl_state_forget_modes(&in->st);
	tl_modes__defer(in, TL_MODEOP_FORGET, NULL, 0, NULL);
}

/* ---- what a call the model cannot apply may switch ------------------------- */

/* True when `v` builds a new module: a call of a class (a CapWords name,
 * PEP 8) or of the API table's set eval-mode (`from_pretrained`), through
 * methods that return their receiver. */
static bool tl_modes__fresh(const In *in, TSNode v)
{
	for (int step = 0; step < 8; step++) {
		v = tl_index_unparen(v);
		if (ts_node_is_null(v) || ts_node_symbol(v) != in->sy->call)
			return false;
		const TlCall *c = tl_index_call_at(in->idx, v);
		if (!c)
			return false;
		if (c->receiver.id && tl_api_returns_self(c->method)) {
			v = c->receiver;
			continue;
		}
		const TlApiRow *row = c->qname ? tl_api_qualified(c->qname) : NULL;
		if (row && (row->sets & TL_APIS_EVAL_MODE))
			return true;
		const char *m = c->method;
		while (m && *m == '_')
			m++;
		return m && *m >= 'A' && *m <= 'Z';
	}
	return false;
}

static bool tl_modes__handed(const In *in, TSNode top, const char *name, size_t len, bool nested, uint32_t from,
			     int depth);

/* True when argument `arg` of call `call` is handed to a function of this
 * module (a plain function, not a closure) whose parameter uses it only as
 * tl_modes__kept_use says (`register_optimizer(None, model)`). */
static bool tl_modes__kept_arg(const In *in, TSNode arg, TSNode call, int depth)
{
	const TlSyms *sy = in->sy;
	const TlCall *c = tl_index_call_at(in->idx, call);
	if (depth > 0 || !c || c->target < 0 || c->receiver.id || c->target == in->func)
		return false;
	const TlFunc *fn = &in->idx->funcs.items[c->target];
	if (fn->cls >= 0 || fn->parent >= 0)
		return false;
	TSNode args = tl_tree_field(call, sy->f_arguments);
	uint32_t k = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args), pos = 0;
	bool found = false;
	for (uint32_t i = 0; i < k && !found; i++) {
		TSNode a = ts_node_named_child(args, i);
		TSSymbol as = ts_node_symbol(a);
		if (as == sy->keyword_argument || as == sy->list_splat || as == sy->dictionary_splat)
			return false;
		if (ts_node_eq(a, arg))
			found = true;
		else
			pos++;
	}
	if (!found || pos >= fn->params.size)
		return false;
	const TlBinding *pb = &in->idx->bindings.items[fn->params.items[pos]];
	TSNode pn = pb->stmt;
	if (ts_node_is_null(pn))
		return false;
	if (ts_node_symbol(pn) != sy->identifier)
		pn = tl_tree_field(pn, sy->f_name);
	if (ts_node_is_null(pn) || ts_node_symbol(pn) != sy->identifier)
		return false;
	uint32_t pl;
	const char *pt = tl_index_text(in->idx, pn, &pl);
	TSNode body = tl_tree_field(fn->node, sy->f_body);
	if (!pt || ts_node_is_null(body))
		return false;
	char name[128];
	if (pl >= sizeof name)
		return false;
	memcpy(name, pt, pl);
	name[pl] = 0;
	return !tl_modes__handed(in, body, name, pl, false, 0, depth + 1);
}

/* True when identifier `n` is a use of its module that hands it to no
 * other code: the target of an assignment, the module called (`m(x)`), the
 * receiver of a method call (`m.load_state_dict(sd)`), a store onto it or
 * a read of its attributes in a test (`m.optimizer = opt`, `if
 * m.optimizer:`), an argument of a function of this module that uses its
 * parameter so; inside a nested function or lambda, a call that may switch
 * a mode is none. */
static bool tl_modes__kept_use(const In *in, TSNode n, bool nested, int depth)
{
	const TlSyms *sy = in->sy;
	TSNode p = tl_index_parent(in->idx, n);
	if (ts_node_is_null(p))
		return false;
	TSSymbol ps = ts_node_symbol(p);
	if (ps == sy->expression_statement)
		return true; /* `x.eval()`'s value, discarded */
	if (ps == sy->attribute && !ts_node_eq(tl_tree_field(p, sy->f_object), n))
		return true; /* `x.m`'s name m, not this identifier */
	if (ps == sy->keyword_argument && ts_node_eq(tl_tree_field(p, sy->f_name), n))
		return true;
	if (ps == sy->assignment && ts_node_eq(tl_tree_field(p, sy->f_left), n))
		return !nested;
	if (ps == sy->argument_list && !nested)
		return tl_modes__kept_arg(in, n, tl_index_parent(in->idx, p), depth);
	TSNode call = ps == sy->call && ts_node_eq(tl_tree_field(p, sy->f_function), n) ? p : (TSNode){ 0 };
	if (ps == sy->attribute) {
		/* the top of `x.a.b` */
		TSNode top = p, g = tl_index_parent(in->idx, p);
		while (!ts_node_is_null(g) && ts_node_symbol(g) == sy->attribute &&
		       ts_node_eq(tl_tree_field(g, sy->f_object), top)) {
			top = g;
			g = tl_index_parent(in->idx, g);
		}
		TSSymbol gs = ts_node_is_null(g) ? 0 : ts_node_symbol(g);
		if (gs == sy->call && ts_node_eq(tl_tree_field(g, sy->f_function), top)) {
			if (!ts_node_eq(top, p))
				return !nested; /* `x.encoder(y)`, `x.optimizer.step()` */
			call = g;
		} else if (nested) {
			return false;
		} else if ((gs == sy->assignment || gs == sy->augmented_assignment) &&
			   ts_node_eq(tl_tree_field(g, sy->f_left), top)) {
			return true; /* a store onto the module */
		} else {
			return gs == sy->if_statement || gs == sy->while_statement || gs == sy->comparison_operator ||
			       gs == sy->boolean_operator || gs == sy->not_operator;
		}
	}
	if (ts_node_is_null(call))
		return false;
	const TlCall *c = tl_index_call_at(in->idx, call);
	/* `x.cuda()` is x: where it goes */
	if (c && c->receiver.id && ts_node_eq(tl_index_unparen(c->receiver), n) && tl_api_returns_self(c->method))
		return tl_modes__kept_use(in, call, nested, depth);
	if (!nested)
		return true;
	uint32_t reach = c ? c->events | c->callee_events : ~0u;
	if (c && c->target >= 0)
		reach |= in->idx->funcs.items[c->target].reach_events;
	return !(reach & (TL_EV_EVAL | TL_EV_TRAIN | TL_EV_MODE_SET));
}

/* True when name `name` occurs in `top` other than as tl_modes__kept_use
 * says (`nested`: under a function or lambda of `top`, or `top` is one);
 * outside nested functions, occurrences before byte `from` are not read;
 * `depth`: functions followed into through their arguments. */
static bool tl_modes__handed(const In *in, TSNode top, const char *name, size_t len, bool nested, uint32_t from,
			     int depth)
{
	const TlSyms *sy = in->sy;
	TSTreeCursor cur = ts_tree_cursor_new(top);
	bool handed = false, descend = true;
	do {
		TSNode n = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(n);
		descend = true;
		if ((s == sy->function_definition || s == sy->lambda) && !ts_node_eq(n, top) && !nested) {
			handed = tl_modes__handed(in, n, name, len, true, 0, depth);
			descend = false;
		} else if (s == sy->identifier && (nested || ts_node_start_byte(n) >= from)) {
			uint32_t l;
			const char *t = tl_index_text(in->idx, n, &l);
			if (l == len && memcmp(t, name, len) == 0 && !tl_modes__kept_use(in, n, nested, depth))
				handed = true;
		}
	} while (!handed && tl_walk_next(&cur, top, descend));
	ts_tree_cursor_delete(&cur);
	return handed;
}

/* True when call `c`, which the model cannot apply, cannot switch the
 * module the state holds at root `root`: a module this function (or the
 * module's top-level code) builds itself (tl_modes__fresh, every binding
 * of the name), that no code is handed (tl_modes__handed: not an
 * argument, not stored, not read by a closure that may switch it), and
 * that `c` does not name. */
static bool tl_modes__out_of_reach(const In *in, const TlCall *c, int32_t root)
{
	if (root < 0 || tl_modes__param_of(in, root) >= 0)
		return false;
	const char *name = in->m->names.names.items[root];
	size_t len = strlen(name);
	if (!len || strcmp(name, "self") == 0)
		return false;
	const TlIntArray *bs = tl_index_bindings_of(in->idx, in->func, name);
	if (!bs || !bs->size)
		return false;
	/* The binding the call sees: the last one before it, when no loop
	 * runs it again (then what was bound before it, and its uses before
	 * it, are another object's); else every binding and use. */
	uint32_t here = ts_node_start_byte(c->node), from = 0;
	const TlBinding *last = NULL;
	for (uint32_t i = 0; i < bs->size; i++) {
		const TlBinding *b = &in->idx->bindings.items[bs->items[i]];
		uint32_t at = ts_node_is_null(b->stmt) ? 0 : ts_node_start_byte(b->stmt);
		if (at < here && (!last || at > ts_node_start_byte(last->stmt)))
			last = b;
	}
	if (!last)
		return false;
	from = ts_node_end_byte(last->stmt); /* its right-hand side reads what was bound before */
	for (TSNode n = tl_index_parent(in->idx, last->stmt); !ts_node_is_null(n); n = tl_index_parent(in->idx, n)) {
		TSSymbol ns = ts_node_symbol(n);
		if (ns == in->sy->function_definition || ns == in->sy->module || ns == in->sy->lambda)
			break;
		if (ns == in->sy->for_statement || ns == in->sy->while_statement) {
			from = 0;
			break;
		}
	}
	for (uint32_t i = 0; i < bs->size; i++) {
		const TlBinding *b = &in->idx->bindings.items[bs->items[i]];
		if (b != last && !ts_node_is_null(b->stmt) && ts_node_start_byte(b->stmt) < from)
			continue;
		if (b->kind != TL_BIND_ASSIGN || b->elem >= 0 || !tl_modes__fresh(in, b->value))
			return false;
	}
	TSNode scope = in->func >= 0 ? in->idx->funcs.items[in->func].node : in->idx->root;
	if (in->func >= 0) {
		scope = tl_tree_field(scope, in->sy->f_body);
		if (ts_node_is_null(scope))
			return false;
	}
	/* the call itself may reach it: its receiver, its arguments */
	return !tl_modes__handed(in, c->node, name, len, true, 0, 0) && !tl_modes__handed(in, scope, name, len, false, from, 0);
}

/* Call `c` may switch modes and the model cannot apply it: the modes of
 * what it can reach are no longer known (what it is handed and what that
 * holds, `self`'s attributes, the module's globals, a closure's names);
 * a module the code builds and hands no code keeps its mode. */
static void tl_modes__forget_reach(In *in, const TlCall *c)
{
	/* a function of this module may switch its globals; a closure, the
	 * names of the function it is nested in */
	const uint32_t sw = TL_EV_EVAL | TL_EV_TRAIN | TL_EV_MODE_SET;
	bool own = in->callee_mod == in->idx || (c->target >= 0 && (in->idx->funcs.items[c->target].reach_events & sw)) ||
		   (c->arg_target >= 0 && (in->idx->funcs.items[c->arg_target].reach_events & sw));
	if (in->snaps.size || (own && (in->func < 0 || (c->target >= 0 && tl_model__nested_in(in->idx, c->target, in->func)) ||
				       (in->callee_mod == in->idx && in->callee_ref >= 0 &&
					tl_model__nested_in(in->idx, in->callee_ref, in->func))))) {
		tl_modes__forget(in);
		return;
	}
	in->mforgot = true;
	int32_t kept[8];
	uint32_t nkept = 0, nchecked = 0;
	int32_t checked[8];
	for (uint32_t i = 0; i < in->st.slots.size; i++) {
		TlSlot *sl = &in->st.slots.items[i];
		if (sl->gone || !sl->val.mode)
			continue;
		int32_t r = sl->path.cut ? -1 : sl->path.root;
		bool keep = false, known = false;
		for (uint32_t k = 0; k < nkept && !known; k++)
			if (kept[k] == r)
				keep = known = true;
		for (uint32_t k = 0; k < nchecked && !known; k++)
			if (checked[k] == r)
				known = true;
		if (!known) {
			keep = nkept < 8 && nchecked < 8 && tl_modes__out_of_reach(in, c, r);
			if (keep)
				kept[nkept++] = r;
			else if (nchecked < 8)
				checked[nchecked++] = r;
		}
		if (!keep) {
			sl->val.mode = 0;
			sl->val.meval = TL_VMEVAL_FORGOT;
		}
	}
}

/* The modules the container at path `p` holds put in `mode` (the
 * container's value is the same object: no store). False when the state
 * holds no container there. */
static bool tl_modes__elements_now(In *in, const TlPath *p, uint8_t mode)
{
	const TlVal *sv = tl_state_get(&in->st, p);
	if (!sv || sv->kind != TL_VK_CONTAINER)
		return false;
	TlVal c = tl_val_elements_mode(&in->m->pool, sv, mode);
	tl_state_set_mode(&in->st, p, mode, NULL); /* what the state holds below it */
	c.mode = sv->mode;
	tl_state_replace(&in->st, p, &c);
	return true;
}

void tl_in__mode_replay(In *in)
{
	for (uint32_t i = 0; i < in->mdefer.size; i++) {
		const TlModeOp *op = &in->mdefer.items[i];
		if (op->how == TL_MODEOP_FORGET)
			tl_state_forget_modes(&in->st);
		else if (op->how == TL_MODEOP_ELEMS)
			tl_modes__elements_now(in, &op->path, op->mode);
		else
			tl_state_set_mode(&in->st, &op->path, op->mode, op->has_unbound ? &op->unbound : NULL);
	}
	if (!in->snaps.size)
		in->mdefer.size = 0;
}

/* Call `c` ran a function of the project whose summary says which modes it
 * leaves the modules it is handed in: those applied to the arguments'
 * paths (`args`: the positional arguments' values). False when they do
 * not say all it may switch. */
static bool tl_modes__apply(In *in, const TlCall *c, const TlVal *args, uint32_t npos)
{
	if (!in->callee_mod || in->callee_ref < 0)
		return false;
	const TlIndex *cidx = in->callee_mod;
	const TlModel *cm = tl_model__other(in->m, cidx);
	if (!cm || (uint32_t)in->callee_ref >= cm->funcs.size || (uint32_t)in->callee_ref >= cidx->funcs.size)
		return false;
	const TlFuncSum *sum = &cm->funcs.items[in->callee_ref];
	if (!sum->status || sum->meff_wide)
		return false;
	const TlFunc *fn = &cidx->funcs.items[in->callee_ref];
	/* the modes of what it is handed, then of their elements */
	for (uint32_t e = 0; e < 2 * sum->meff_n; e++) {
		const TlModeEff *ef = &cm->mode_effs.items[(uint32_t)sum->meff_first + e % sum->meff_n];
		if (ef->elems != (e >= sum->meff_n))
			continue;
		TlPath p;
		TlVal whole;
		bool have_whole = false;
		if (ef->param >= 0 && ef->attr < 0 && (uint32_t)ef->param < fn->params.size) {
			/* a list the call makes (`set_eval([netG, netD])`): its
			 * elements' paths */
			TSNode a = tl_index_unparen(tl_model__mode_arg(cidx, fn, c, (uint32_t)ef->param));
			TSSymbol as = ts_node_is_null(a) ? 0 : ts_node_symbol(a);
			if (as == in->sy->list || as == in->sy->tuple) {
				uint8_t mode = ef->mode;
				if (!ef->elems || (mode & TL_VMODE_ENTRY))
					mode = ef->mode == TL_VMODE_ENTRY ? TL_VMODE_ENTRY : 0;
				if (mode == TL_VMODE_ENTRY)
					continue; /* as it was */
				uint32_t k = ts_node_named_child_count(a);
				for (uint32_t i = 0; i < k; i++) {
					TlPath ep;
					if (!tl_path_of(&in->m->names, in->idx, ts_node_named_child(a, i), &ep))
						return false;
					const TlVal *sv = tl_state_get(&in->st, &ep);
					tl_modes__set(in, &ep, mode, sv && mode ? sv : NULL);
				}
				continue;
			}
		}
		if (ef->param < 0) {
			/* a global of the callee's module: the caller's, when the same */
			if (cidx != in->idx)
				return false;
			const char *name = cm->names.names.items[ef->root];
			if (!tl_path_of_dotted(&in->m->names, name, &p))
				return false;
		} else {
			if ((uint32_t)ef->param >= fn->params.size)
				return false;
			TSNode a = tl_model__mode_arg(cidx, fn, c, (uint32_t)ef->param);
			if (ts_node_is_null(a) || !tl_path_of(&in->m->names, in->idx, a, &p))
				return false;
			if (!(fn->cls >= 0 && c->receiver.id && ef->param == 0)) {
				uint32_t k = (uint32_t)ef->param - (fn->cls >= 0 && c->receiver.id ? 1u : 0u);
				if (k < npos) {
					whole = args[k];
					have_whole = true;
				}
			}
		}
		if (!have_whole) {
			const TlVal *sv = tl_state_get(&in->st, &p);
			if (!sv)
				return false;
			whole = *sv;
		}
		TlVal target = whole;
		if (ef->attr >= 0) {
			if (p.n >= TL_PATH_SELECTORS)
				return false;
			const char *an = cm->names.names.items[ef->attr];
			int32_t id = tl_path_intern(&in->m->names, an, strlen(an));
			p.sel[p.n++] = id;
			const TlVal *sv = tl_state_get(&in->st, &p);
			target = sv ? *sv : tl_in__attr(in, &whole, id, an, (uint32_t)strlen(an));
			if (!sv)
				tl_in__mode_field(&target, &whole);
		}
		uint8_t mode = ef->mode;
		if (TL_VMODE_IS_COND(mode)) {
			/* decided by a test of the callee's parameters: under the
			 * constants this call passes */
			uint16_t cst[TL_MODEL_CTX_PARAMS];
			tl_model__site_consts((TlModel *)cm, cidx, in->callee_ref, in->idx, c, cst);
			mode = tl_model__mode_under((TlModel *)cm, cidx, mode, in->callee_ref, cst);
		}
		if (TL_VMODE_IS_FLAG(mode)) {
			/* `m.train(flag)`: as this call's argument says, else
			 * this function's own parameter passed on */
			uint32_t j = TL_VMODE_FLAG_PARAM(mode), k = j - (fn->cls >= 0 && c->receiver.id ? 1u : 0u);
			uint8_t pass = 0; /* not known */
			TSNode fa = j < fn->params.size ? tl_index_unparen(tl_model__mode_arg(cidx, fn, c, j)) : (TSNode){ 0 };
			if (!ts_node_is_null(fa) && ts_node_symbol(fa) == in->sy->identifier) {
				TlPath fp;
				int32_t jj = tl_path_of(&in->m->names, in->idx, fa, &fp) && !fp.n
						     ? tl_modes__param_of(in, fp.root) : -1;
				if (jj >= 0 && jj < (int32_t)TL_VMODE_FLAGS && !tl_modes__rebound(in, fp.root))
					pass = TL_VMODE_FLAG_OF(jj);
			}
			mode = tl_model__mode_flag_at(cidx, fn, c, in->idx, j, k < npos && k <= j ? &args[k] : NULL, pass);
		}
		if (ef->elems) {
			if (mode == TL_VMODE_ENTRY)
				continue;
			tl_modes__set_elements(in, &p, (mode & TL_VMODE_ENTRY) ? 0 : mode);
			continue;
		}
		if (mode & TL_VMODE_ENTRY)
			mode = target.mode ? (uint8_t)(target.mode | (mode & ~TL_VMODE_ENTRY)) : 0;
		if (mode == target.mode)
			continue;
		tl_modes__set(in, &p, mode, mode ? &target : NULL);
	}
	return true;
}

/* True when the function binds name `root` (a parameter's) other than as
 * its parameter. */
static bool tl_modes__rebound(const In *in, int32_t root)
{
	const TlIntArray *b = tl_index_bindings_of(in->idx, in->func, in->m->names.names.items[root]);
	for (uint32_t i = 0; b && i < b->size; i++)
		if (in->idx->bindings.items[b->items[i]].kind != TL_BIND_PARAM)
			return true;
	return false;
}

/* Joins mode `mode` of effect (param, root, attr) into the exits so far. */
static void tl_modes__exit_one(In *in, int32_t param, int32_t root, int32_t attr, bool elems, uint8_t mode,
			       bool *seen)
{
	for (uint32_t i = 0; i < in->nmexit; i++) {
		TlModeEff *e = &in->mexit[i];
		if (e->param == param && e->root == root && e->attr == attr && e->elems == elems) {
			e->mode = TL_VMODE_JOIN(e->mode, mode);
			seen[i] = true;
			return;
		}
	}
	if (in->nmexit == sizeof in->mexit / sizeof *in->mexit) {
		in->mwide = true;
		return;
	}
	/* not named at the earlier exits: as it was entered there */
	uint8_t m = in->mexit_seen ? TL_VMODE_JOIN(mode, TL_VMODE_ENTRY) : mode;
	seen[in->nmexit] = true;
	in->mexit[in->nmexit++] = (TlModeEff){ param, root, attr, m, elems };
}

void tl_in__mode_exit(In *in)
{
	if (in->func < 0)
		return;
	bool seen[sizeof in->mexit / sizeof *in->mexit] = { false };
	for (uint32_t i = 0; i < in->st.slots.size; i++) {
		const TlSlot *sl = &in->st.slots.items[i];
		if (sl->gone || sl->val.mode == TL_VMODE_ENTRY)
			continue;
		if (!sl->val.mode && !tl_model__module_like(&sl->val) && sl->val.kind != TL_VK_TOP)
			continue; /* no module */
		/* `models[*]`, `self.nets[*]`: the elements of a parameter's,
		 * an attribute's or a global's container */
		TlPath bp = sl->path;
		bool elems = bp.n && !bp.cut && bp.sel[bp.n - 1] == TL_PATH_ANY;
		if (elems)
			bp.n--;
		int origin = tl_modes__origin(in, &bp);
		if (origin == TL_MODES_OTHER)
			continue;
		int32_t param = origin == TL_MODES_PARAM ? tl_modes__param_of(in, bp.root) : -1;
		if (param >= 0 && tl_modes__rebound(in, bp.root)) {
			/* another object under the parameter's name: what the
			 * function switched of the one it was handed is not
			 * named, when it may switch a mode at all */
			if (in->idx->funcs.items[in->func].reach_events & (TL_EV_EVAL | TL_EV_TRAIN | TL_EV_MODE_SET))
				in->mwide = true;
			continue;
		}
		tl_modes__exit_one(in, param, bp.root, bp.n ? bp.sel[0] : -1, elems, sl->val.mode, seen);
	}
	/* named at earlier exits, not at this one: as entered here */
	for (uint32_t i = 0; i < in->nmexit; i++)
		if (!seen[i] && in->mexit_seen)
			in->mexit[i].mode = TL_VMODE_JOIN(in->mexit[i].mode, TL_VMODE_ENTRY);
	in->mexit_seen = true;
}

bool tl_in__mode_summary(In *in)
{
	TlModel *m = in->m;
	TlFuncSum *s = &m->funcs.items[in->func];
	bool same = s->meff_wide == in->mwide && s->meff_n == in->nmexit;
	for (uint32_t i = 0; same && i < in->nmexit; i++) {
		const TlModeEff *a = &m->mode_effs.items[(uint32_t)s->meff_first + i], *b = &in->mexit[i];
		same = a->param == b->param && a->root == b->root && a->attr == b->attr && a->mode == b->mode &&
		       a->elems == b->elems;
	}
	if (same)
		return false;
	s->meff_first = (int32_t)m->mode_effs.size;
	for (uint32_t i = 0; i < in->nmexit; i++)
		tl_array_push(&m->mode_effs, in->mexit[i]);
	s->meff_n = in->nmexit;
	s->meff_wide = in->mwide;
	return true;
}

void tl_model__modes_release(TlModel *m)
{
	tl_array_release(&m->mode_effs);
	tl_scopemap_release(&m->site_modes);
}

/* Call `c` runs a function of the project: the modes the state holds,
 * before the call's effects, for the attributes of each object it hands
 * over as a path (the receiver of a method called through an instance,
 * `system.validate_on_batch(x)`; an argument, `fit(system)`), keyed by that
 * argument's start byte (m->site_modes): what the function reads as the
 * entry of its parameter's attribute (`self.critic`). */
static void tl_modes__record_site(In *in, const TlCall *c)
{
	if (!in->callee_mod || in->callee_ref < 0 ||
	    (uint32_t)in->callee_ref >= ((const TlIndex *)in->callee_mod)->funcs.size)
		return;
	enum { TL_SITE_ARGS = 8 };
	TlPath ps[TL_SITE_ARGS];
	uint32_t at[TL_SITE_ARGS], n = 0;
	const TlSyms *sy = in->sy;
	if (c->method && c->receiver.id && tl_path_of(&in->m->names, in->idx, c->receiver, &ps[n]) && !ps[n].cut &&
	    ps[n].n < TL_PATH_SELECTORS)
		at[n++] = ts_node_start_byte(tl_index_unparen(c->receiver));
	TSNode args = tl_tree_field(c->node, sy->f_arguments);
	uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count && n < TL_SITE_ARGS; i++) {
		TSNode a = ts_node_named_child(args, i);
		if (ts_node_symbol(a) == sy->keyword_argument)
			a = tl_tree_field(a, sy->f_value);
		TSSymbol s = ts_node_is_null(a) ? 0 : ts_node_symbol(a);
		if ((s != sy->identifier && s != sy->attribute) ||
		    !tl_path_of(&in->m->names, in->idx, a, &ps[n]) || ps[n].cut || ps[n].n >= TL_PATH_SELECTORS)
			continue;
		at[n++] = ts_node_start_byte(a);
	}
	TlScopeMap *sm = &in->m->site_modes;
	int32_t had;
	/* The module's globals the state holds (`model` after the module's
	 * `model.eval()`): what the function reads as their entry. */
	uint32_t here = ts_node_start_byte(c->node);
	/* 1: an earlier switch may have left the state's modes stale; 2:
	 * every mode was forgotten before (a module the state does not bind
	 * here may have been switched) */
	int32_t stale = (in->malias ? 1 : 0) | (in->mforgot ? 2 : 0) | ((int32_t)in->malias_modes << 4);
	if (in->callee_mod == in->idx) {
		/* a closure of this function (`def run_epoch(): model(x)` in
		 * main): the function's own names are what it reads */
		bool closure = in->func >= 0 && tl_model__nested_in(in->idx, in->callee_ref, in->func);
		tl_scopemap_put(sm, here, TL_MODES_GLOBAL_KEY,
				stale | (tl_scopemap_get(sm, here, TL_MODES_GLOBAL_KEY, &had) ? had : 0));
		for (uint32_t i = 0; i < in->st.slots.size; i++) {
			const TlSlot *sl = &in->st.slots.items[i];
			if (sl->gone || sl->path.n || sl->path.cut ||
			    (in->func >= 0 && !closure && tl_modes__origin(in, &sl->path) != TL_MODES_GLOBAL))
				continue;
			uint32_t key = ((uint32_t)sl->path.root + 1) | TL_MODES_GLOBAL_KEY;
			int32_t bits = sl->val.mode ? (sl->val.mode & TL_VMODE_BITS) : 0x80;
			if (tl_scopemap_get(sm, here, key, &had))
				bits |= had;
			tl_scopemap_put(sm, here, key, bits);
		}
	}
	for (uint32_t k = 0; k < n; k++)
		tl_scopemap_put(sm, at[k], 0, stale | (tl_scopemap_get(sm, at[k], 0, &had) ? had : 0));
	for (uint32_t i = 0; n && i < in->st.slots.size; i++) {
		const TlSlot *sl = &in->st.slots.items[i];
		if (sl->gone || !sl->path.n || TL_PATH_IS_KEY(sl->path.sel[sl->path.n - 1]))
			continue;
		for (uint32_t k = 0; k < n; k++) {
			bool elems = sl->path.n == ps[k].n + 2 && sl->path.sel[ps[k].n + 1] == TL_PATH_ANY;
			if ((sl->path.n != ps[k].n + 1 && !elems) || !tl_path_prefix(&ps[k], &sl->path) ||
			    sl->path.sel[ps[k].n] < 0)
				continue;
			uint32_t key = ((uint32_t)sl->path.sel[ps[k].n] + 1) | (elems ? TL_MODES_ELEMS_KEY : 0u);
			int32_t bits = sl->val.mode ? (sl->val.mode & TL_VMODE_BITS) : 0x80; /* 0x80: bound, no mode known */
			if (tl_scopemap_get(sm, at[k], key, &had))
				bits |= had;
			tl_scopemap_put(sm, at[k], key, bits);
		}
	}
}

/* The iterable whose elements identifier `recv` runs over: the variable of
 * a comprehension around it (`[net.eval() for net in nets]`) or of a `for`
 * statement of its function; a null node when it is neither. */
static TSNode tl_modes__iterable(const In *in, TSNode recv)
{
	const TlSyms *sy = in->sy;
	TSNode none = { 0 };
	recv = tl_index_unparen(recv);
	if (ts_node_symbol(recv) != sy->identifier)
		return none;
	uint32_t len;
	const char *name = tl_index_text(in->idx, recv, &len);
	for (TSNode n = tl_index_parent(in->idx, recv); !ts_node_is_null(n); n = tl_index_parent(in->idx, n)) {
		TSSymbol s = ts_node_symbol(n);
		if (s == sy->function_definition || s == sy->class_definition || s == sy->lambda || s == sy->module)
			break;
		TSNode left = none, right = none;
		if (s == sy->for_statement) {
			left = tl_tree_field(n, sy->f_left);
			right = tl_tree_field(n, sy->f_right);
		} else if (s == sy->list_comprehension || s == sy->generator_expression ||
			   s == sy->set_comprehension || s == sy->dictionary_comprehension) {
			uint32_t k = ts_node_named_child_count(n);
			for (uint32_t i = 0; i < k && ts_node_is_null(left); i++) {
				TSNode cl = ts_node_named_child(n, i);
				if (ts_node_symbol(cl) != sy->for_in_clause)
					continue;
				TSNode l = tl_tree_field(cl, sy->f_left);
				uint32_t ll;
				const char *lt = ts_node_is_null(l) ? NULL : tl_index_text(in->idx, l, &ll);
				if (lt && ll == len && memcmp(lt, name, len) == 0) {
					left = l;
					right = tl_tree_field(cl, sy->f_right);
				}
			}
		}
		if (ts_node_is_null(left))
			continue;
		uint32_t ll;
		const char *lt = tl_index_text(in->idx, left, &ll);
		if (ts_node_symbol(left) == sy->identifier && ll == len && memcmp(lt, name, len) == 0)
			return tl_index_unparen(right);
	}
	return none;
}

/* A switch of the variable of a loop or comprehension over a list of
 * modules, applied to the list: every element of a container at a path
 * (`nets`, `self.nets`, `models.values()`), or each name of a literal
 * (`for m in [netG, netD]`). False when the iterable is none of those. */
static bool tl_modes__switch_elements(In *in, TSNode recv, uint8_t mode)
{
	const TlSyms *sy = in->sy;
	TSNode it = tl_modes__iterable(in, recv);
	if (ts_node_is_null(it))
		return false;
	if (ts_node_symbol(it) == sy->call) {
		const TlCall *c = tl_index_call_at(in->idx, it);
		TSNode args = tl_tree_field(it, sy->f_arguments);
		if (!c || !c->method || !c->receiver.id || strcmp(c->method, "values") != 0 ||
		    (!ts_node_is_null(args) && ts_node_named_child_count(args)))
			return false;
		it = tl_index_unparen(c->receiver);
	}
	TSSymbol s = ts_node_symbol(it);
	TlPath p;
	if (s == sy->list || s == sy->tuple) {
		uint32_t k = ts_node_named_child_count(it);
		TlPath ps[8];
		if (!k || k > 8)
			return false;
		for (uint32_t i = 0; i < k; i++)
			if (!tl_path_of(&in->m->names, in->idx, ts_node_named_child(it, i), &ps[i]) ||
			    !tl_state_get(&in->st, &ps[i]))
				return false;
		for (uint32_t i = 0; i < k; i++) {
			tl_modes__set(in, &ps[i], mode, NULL);
			if (tl_modes__origin(in, &ps[i]) != TL_MODES_OTHER)
				in->mwide = true; /* an effect names no element of a list */
		}
		return true;
	}
	if (!tl_path_of(&in->m->names, in->idx, it, &p) || !tl_modes__elements_now(in, &p, mode))
		return false;
	tl_modes__defer(in, TL_MODEOP_ELEMS, &p, mode, NULL);
	if (tl_modes__origin(in, &p) != TL_MODES_OTHER || p.n)
		in->mwide = true; /* an effect names no element of a list */
	return true;
}

/* True when `recv` names an element of a container (`models[k]`, or the
 * variable of a loop over one: `for net in nets: net.eval()`): a switch of
 * it switches modules the state holds under other paths, which of them
 * not known. */
static bool tl_modes__element(const In *in, TSNode recv)
{
	recv = tl_index_unparen(recv);
	TSSymbol s = ts_node_symbol(recv);
	if (s == in->sy->subscript)
		return true;
	if (s != in->sy->identifier)
		return false;
	const TlBinding *b = tl_index_resolve_node(in->idx, recv);
	return !b || b->kind == TL_BIND_FOR;
}

/* True when `n` (in a loop's body) holds a statement that leaves the
 * body early (`break`, `continue`, `return`, `yield`, `raise`), nested
 * functions and classes left out. */
static bool tl_modes__leaves(const In *in, TSNode n, int depth)
{
	const TlSyms *sy = in->sy;
	TSSymbol s = ts_node_symbol(n);
	if (s == sy->break_statement || s == sy->continue_statement || s == sy->return_statement ||
	    s == sy->raise_statement || s == sy->yield)
		return true;
	if (s == sy->function_definition || s == sy->class_definition || s == sy->lambda)
		return false;
	if (depth > 24)
		return true;
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k; i++)
		if (tl_modes__leaves(in, ts_node_named_child(n, i), depth + 1))
			return true;
	return false;
}

/* The mode call `c` switches its receiver to (a switch's event bits), 0
 * when it is none. */
static uint8_t tl_modes__switch_of(const TlCall *c)
{
	uint32_t ev = c->events & (TL_EV_EVAL | TL_EV_TRAIN | TL_EV_MODE_SET);
	if (!ev || !c->receiver.id)
		return 0;
	return (ev & TL_EV_EVAL) ? TL_VMODE_EVAL : (ev & TL_EV_TRAIN) ? TL_VMODE_TRAIN
								    : (uint8_t)(TL_VMODE_TRAIN | TL_VMODE_EVAL);
}

/* The switch `for` loop `loop` makes of every element it runs over: a
 * statement of its body itself (under no test) switching its variable
 * `v` (`v.eval()`), or `X[v]` with `v` running over X's keys (`for k in
 * X`, `for k in X.keys()`), and no other call of the body that may switch
 * a mode, no statement that leaves the body early. An empty iterable
 * holds no module: after the loop, every element is in that mode. Sets
 * *recv (the switched receiver) and *over (X, the iterable's node for
 * `X[v]`); 0 when the loop makes no such switch. */
static uint8_t tl_modes__loop_switch(const In *in, TSNode loop, TSNode *recv, TSNode *over)
{
	const TlSyms *sy = in->sy;
	const TlIndex *idx = in->idx;
	if (ts_node_symbol(loop) != sy->for_statement)
		return 0;
	TSNode left = tl_tree_field(loop, sy->f_left), body = tl_tree_field(loop, sy->f_body);
	if (ts_node_is_null(left) || ts_node_symbol(left) != sy->identifier || ts_node_is_null(body) ||
	    !ts_node_is_null(tl_tree_field(loop, sy->f_alternative)))
		return 0;
	uint32_t vl;
	const char *var = tl_index_text(idx, left, &vl);
	const TlCall *sw = NULL;
	uint32_t k = ts_node_named_child_count(body);
	for (uint32_t i = 0; i < k; i++) {
		TSNode st = ts_node_named_child(body, i);
		if (ts_node_symbol(st) != sy->expression_statement || ts_node_named_child_count(st) != 1)
			continue;
		TSNode e = tl_index_unparen(ts_node_named_child(st, 0));
		const TlCall *c = ts_node_symbol(e) == sy->call ? tl_index_call_at(idx, e) : NULL;
		if (!c || !tl_modes__switch_of(c))
			continue;
		TSNode r = tl_index_unparen(c->receiver), key = { 0 };
		if (ts_node_symbol(r) == sy->subscript) {
			key = tl_index_unparen(tl_tree_field(r, sy->f_subscript));
			if (ts_node_is_null(key) || !ts_node_is_null(ts_node_next_named_sibling(key)))
				return 0;
		} else {
			key = r;
		}
		uint32_t kl;
		const char *kt = ts_node_symbol(key) == sy->identifier ? tl_index_text(idx, key, &kl) : NULL;
		if (!kt || kl != vl || memcmp(kt, var, vl) != 0)
			return 0;
		if (sw)
			return 0; /* two switches */
		sw = c;
	}
	if (!sw || tl_modes__leaves(in, body, 0))
		return 0;
	/* No other call of the body may switch a mode. */
	const TlIntArray *calls = tl_index_scope_calls(idx, in->func);
	uint32_t from = 0, to = 0;
	tl_index_scope_calls_in(idx, in->func, body, &from, &to);
	for (uint32_t i = from; calls && i < to; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (c == sw)
			continue;
		uint32_t reach = c->events | c->callee_events;
		if (c->target >= 0)
			reach |= idx->funcs.items[c->target].reach_events;
		if (c->arg_target >= 0)
			reach |= idx->funcs.items[c->arg_target].reach_events;
		if (reach & (TL_EV_EVAL | TL_EV_TRAIN | TL_EV_MODE_SET))
			return 0;
	}
	TSNode r = tl_index_unparen(sw->receiver);
	*recv = r;
	*over = (TSNode){ 0 };
	if (ts_node_symbol(r) == sy->subscript) {
		/* X[k]: k runs over X (`for k in X`, `X.keys()`) */
		TSNode x = tl_index_unparen(tl_tree_field(r, sy->f_value));
		TSNode it = tl_index_unparen(tl_tree_field(loop, sy->f_right));
		if (ts_node_symbol(it) == sy->call) {
			const TlCall *c = tl_index_call_at(idx, it);
			TSNode args = tl_tree_field(it, sy->f_arguments);
			if (!c || !c->method || !c->receiver.id || strcmp(c->method, "keys") != 0 ||
			    (!ts_node_is_null(args) && ts_node_named_child_count(args)))
				return 0;
			it = tl_index_unparen(c->receiver);
		}
		TlPath px, pi;
		if (!tl_path_of(&in->m->names, idx, x, &px) || !tl_path_of(&in->m->names, idx, it, &pi) ||
		    !tl_path_equal(&px, &pi))
			return 0;
		*over = x;
	}
	return tl_modes__switch_of(sw);
}

/* The loop around receiver `recv` (the variable or `X[v]` of the loop's
 * switch of every element, tl_modes__loop_switch), or a null node. */
static TSNode tl_modes__switching_loop(const In *in, TSNode recv)
{
	const TlSyms *sy = in->sy;
	TSNode none = { 0 };
	recv = tl_index_unparen(recv);
	TSNode st = tl_index_parent(in->idx, recv);
	if (ts_node_is_null(st))
		return none;
	st = tl_index_parent(in->idx, st); /* the call */
	while (!ts_node_is_null(st) && ts_node_symbol(st) == sy->parenthesized_expression)
		st = tl_index_parent(in->idx, st);
	TSNode es = ts_node_is_null(st) ? none : tl_index_parent(in->idx, st);
	if (ts_node_is_null(es) || ts_node_symbol(es) != sy->expression_statement)
		return none;
	TSNode body = tl_index_parent(in->idx, es);
	TSNode loop = ts_node_is_null(body) ? none : tl_index_parent(in->idx, body);
	if (ts_node_is_null(loop) || ts_node_symbol(loop) != sy->for_statement)
		return none;
	TSNode r, over;
	if (!tl_modes__loop_switch(in, loop, &r, &over) || !ts_node_eq(r, recv))
		return none;
	return loop;
}

/* The modules of path `p` (a container's elements) put in `mode`: the
 * container's, when the state holds one there, else the path `p[*]`
 * (what a parameter's or an attribute's elements are). */
static void tl_modes__set_elements(In *in, const TlPath *p, uint8_t mode)
{
	if (tl_modes__elements_now(in, p, mode)) {
		tl_modes__defer(in, TL_MODEOP_ELEMS, p, mode, NULL);
		return;
	}
	if (p->n >= TL_PATH_SELECTORS || p->cut)
		return;
	TlPath e = *p;
	e.sel[e.n++] = TL_PATH_ANY;
	TlVal top = tl_val_top();
	tl_modes__set(in, &e, mode, &top);
}

int tl_in__mode_loop_once(In *in, TSNode loop)
{
	const TlSyms *sy = in->sy;
	TSNode it = tl_index_unparen(tl_tree_field(loop, sy->f_right));
	if (ts_node_is_null(it) || ts_node_symbol(it) != sy->call)
		return 0;
	const TlCall *c = tl_index_call_at(in->idx, it);
	if (c && c->method && c->receiver.id &&
	    (strcmp(c->method, "parameters") == 0 || strcmp(c->method, "named_parameters") == 0)) {
		/* a module's parameters: a module that holds none is frozen
		 * whether the body runs or not */
		TlPath p;
		if (!tl_path_of(&in->m->names, in->idx, c->receiver, &p))
			return 0;
		const TlVal *rv = tl_state_get(&in->st, &p);
		TlVal g;
		if (!rv) { /* a global module no slot holds yet */
			g = tl_in__unbound(in, c->receiver);
			rv = &g;
		}
		/* (a module on some paths, its wrapper on the others: ⊤ with wrap) */
		return rv->kind == TL_VK_MODULE || rv->kind == TL_VK_WRAPPER || (rv->kind == TL_VK_TOP && rv->wrap) ? 2
														      : 0;
	}
	/* a progress bar or enumerate around it: `tqdm(range(n))`,
	 * `enumerate(range(n))`; `trange(n)` is tqdm's range */
	static const char *const wraps[] = { "tqdm", "track", "enumerate" };
	for (int hops = 0; hops < 2 && c && c->method; hops++) {
		bool wrap = false;
		for (size_t w = 0; w < sizeof wraps / sizeof *wraps; w++)
			wrap = wrap || strcmp(c->method, wraps[w]) == 0;
		TSNode wa = tl_tree_field(it, sy->f_arguments);
		TSNode first = !wrap || ts_node_is_null(wa) || !ts_node_named_child_count(wa)
				       ? (TSNode){ 0 }
				       : tl_index_unparen(ts_node_named_child(wa, 0));
		if (ts_node_is_null(first) || ts_node_symbol(first) != sy->call)
			break;
		it = first;
		c = tl_index_call_at(in->idx, it);
	}
	if (!c || !c->method || (strcmp(c->method, "range") != 0 && strcmp(c->method, "trange") != 0) ||
	    (c->receiver.id && strcmp(c->method, "trange") != 0))
		return 0;
	TSNode args = tl_tree_field(it, sy->f_arguments);
	uint32_t k = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
	if (k < 1 || k > 3)
		return false;
	/* integer literals: not empty (range(0), range(5, 5) are) */
	int64_t v[3];
	uint32_t lits = 0;
	for (uint32_t i = 0; i < k; i++) {
		TSNode a = ts_node_named_child(args, i);
		if (ts_node_symbol(a) == sy->keyword_argument || ts_node_symbol(a) == sy->list_splat)
			return false;
		if (ts_node_symbol(a) == sy->integer) {
			uint32_t len;
			const char *t = tl_index_text(in->idx, a, &len);
			char buf[24];
			if (len >= sizeof buf)
				return false;
			memcpy(buf, t, len);
			buf[len] = '\0';
			v[i] = strtoll(buf, NULL, 0);
			lits++;
		}
	}
	if (lits == k) {
		int64_t lo = k == 1 ? 0 : v[0], hi = k == 1 ? v[0] : v[1], step = k == 3 ? v[2] : 1;
		return step > 0 ? lo < hi : step < 0 ? lo > hi : false;
	}
	return true;
}

void tl_in__mode_take(In *in, const TlState *back, TSNode loop, int once)
{
	const TlSyms *sy = in->sy;
	if (once == 2) {
		/* `for p in net.parameters(): p.requires_grad_(False)` (or
		 * `for name, p in net.named_parameters()`): every parameter of
		 * `net` frozen on each path through the body */
		TSNode var = tl_index_unparen(tl_tree_field(loop, sy->f_left));
		TSNode it = tl_index_unparen(tl_tree_field(loop, sy->f_right));
		const TlCall *c = tl_index_call_at(in->idx, it);
		if (!ts_node_is_null(var) && (ts_node_symbol(var) == sy->pattern_list || ts_node_symbol(var) == sy->tuple_pattern) &&
		    ts_node_named_child_count(var) == 2 && c && c->method && strcmp(c->method, "named_parameters") == 0)
			var = ts_node_named_child(var, 1);
		TlPath vp, rp;
		const TlVal *vb;
		TlSlot *rs = NULL;
		if (c && c->receiver.id && !ts_node_is_null(var) && ts_node_symbol(var) == sy->identifier &&
		    tl_path_of(&in->m->names, in->idx, var, &vp) && (vb = tl_state_get(back, &vp)) &&
		    vb->nograd &&
		    tl_path_of(&in->m->names, in->idx, c->receiver, &rp)) {
			for (uint32_t i = 0; i < in->st.slots.size && !rs; i++)
				if (!in->st.slots.items[i].gone && tl_path_equal(&in->st.slots.items[i].path, &rp))
					rs = &in->st.slots.items[i];
			if (rs && (rs->val.kind == TL_VK_MODULE || rs->val.kind == TL_VK_WRAPPER ||
				   (rs->val.kind == TL_VK_TOP && rs->val.wrap))) {
				tl_state_set_nograd(&in->st, &rp,
						    rs->val.ref >= 0 || rs->val.kind != TL_VK_MODULE ? TL_VNOGRAD_FROZEN : 1);
			} else if (!rs) {
				/* a global module no slot holds yet */
				TlVal g = tl_in__unbound(in, c->receiver);
				if (g.kind == TL_VK_MODULE || g.kind == TL_VK_WRAPPER || (g.kind == TL_VK_TOP && g.wrap))
					tl_in__set_path_nograd(in, c->receiver, g.ref >= 0 ? TL_VNOGRAD_FROZEN : 1);
			}
		}
	}
	for (uint32_t i = 0; i < in->st.slots.size; i++) {
		TlSlot *sl = &in->st.slots.items[i];
		if (sl->gone)
			continue;
		const TlVal *b = tl_state_get(back, &sl->path);
		if (!b)
			continue;
		if (once == 2) {
			/* `for p in net.parameters(): net.requires_grad_(False)` */
			if (b->nograd && sl->val.nograd != TL_VNOGRAD_FROZEN &&
			    (sl->val.kind == TL_VK_MODULE || sl->val.kind == TL_VK_WRAPPER))
				tl_state_set_nograd(&in->st, &sl->path, b->nograd);
			continue;
		}
		sl->val.mode = b->mode;
	}
}

void tl_in__mode_loop_exit(In *in, TSNode loop)
{
	TSNode recv, over;
	uint8_t mode = tl_modes__loop_switch(in, loop, &recv, &over);
	if (!mode)
		return;
	if (mode != TL_VMODE_TRAIN && mode != TL_VMODE_EVAL)
		mode = 0; /* `net.train(flag)`: not known */
	if (ts_node_is_null(over)) {
		TSNode it = tl_modes__iterable(in, recv);
		const TlSyms *sy = in->sy;
		if (ts_node_is_null(it))
			return;
		if (ts_node_symbol(it) == sy->list || ts_node_symbol(it) == sy->tuple) {
			bool wide = in->mwide;
			(void)tl_modes__switch_elements(in, recv, mode);
			in->mwide = wide; /* each of them named */
			return;
		}
		if (ts_node_symbol(it) == sy->call) {
			const TlCall *c = tl_index_call_at(in->idx, it);
			TSNode args = tl_tree_field(it, sy->f_arguments);
			if (!c || !c->method || !c->receiver.id || strcmp(c->method, "values") != 0 ||
			    (!ts_node_is_null(args) && ts_node_named_child_count(args)))
				return;
			it = tl_index_unparen(c->receiver);
		}
		over = it;
	}
	TlPath p;
	if (tl_path_of(&in->m->names, in->idx, over, &p))
		tl_modes__set_elements(in, &p, mode);
}

/* True when the state holds a mode for a path other than `p` and those
 * below it: a module a switch of `p` (of an object whose origin is not
 * known, `model = checkpoint["model"]`) may also switch. A path whose
 * mode is not known is recorded as such at a call; none held, the
 * switched module's mode is the only one a call records. */
/* True when names `a` and `b` of the function being interpreted are each
 * bound only by unpackings (`net, disc = build(cfg)`), and every
 * statement that binds both binds them at different positions: two
 * objects a tuple hands out, not one under two names. */
static bool tl_modes__unpacked_apart(const In *in, int32_t a, int32_t b)
{
	const char *na = in->m->names.names.items[a], *nb = in->m->names.names.items[b];
	const TlIntArray *ba = tl_index_bindings_of(in->idx, in->func, na);
	const TlIntArray *bb = tl_index_bindings_of(in->idx, in->func, nb);
	if (!ba || !bb || !ba->size || !bb->size)
		return false;
	for (uint32_t i = 0; i < ba->size; i++) {
		const TlBinding *x = &in->idx->bindings.items[ba->items[i]];
		if (x->kind != TL_BIND_ASSIGN || x->elem < 0 || x->depth != 1)
			return false;
		for (uint32_t j = 0; j < bb->size; j++) {
			const TlBinding *y = &in->idx->bindings.items[bb->items[j]];
			if (y->kind != TL_BIND_ASSIGN || y->elem < 0 || y->depth != 1)
				return false;
			if (ts_node_eq(x->stmt, y->stmt) && x->elem == y->elem)
				return false;
		}
	}
	return true;
}

static bool tl_modes__other_modes(const In *in, const TlPath *p)
{
	for (uint32_t i = 0; i < in->st.slots.size; i++) {
		const TlSlot *sl = &in->st.slots.items[i];
		if (sl->gone || tl_path_prefix(p, &sl->path))
			continue;
		if (!p->n && !sl->path.n && !p->cut && !sl->path.cut && sl->path.root != p->root &&
		    tl_modes__unpacked_apart(in, p->root, sl->path.root))
			continue;
		/* a parameter nothing says is a module (`args`): its entry
		 * mode is no module's */
		if (sl->val.mode == TL_VMODE_ENTRY && !tl_model__module_like(&sl->val))
			continue;
		if (sl->val.mode)
			return true;
		/* a container whose elements' modes are known (what it holds
		 * is read in those modes later) */
		if (sl->val.kind == TL_VK_CONTAINER) {
			TlVal e = tl_val_element(&in->m->pool, &sl->val);
			if (e.mode || tl_val_is_bot(&e))
				return true;
		}
	}
	return false;
}

/* `was = m.training; m.eval(); ...; m.train(was)`: the mode `m` had where
 * its `training` was read (the value read off a module keeps its mode:
 * tl_in__mode_field), when `x` (`a`, at path `p`) is bound in the function
 * only by reads of the receiver's `training`; 0 otherwise. */
static uint8_t tl_modes__saved_mode(In *in, const TlCall *c, TSNode a, const TlPath *p)
{
	const TlSyms *sy = in->sy;
	uint32_t len;
	const char *name = tl_index_text(in->idx, a, &len);
	char buf[64];
	if (!name || len >= sizeof buf || p->n)
		return 0;
	memcpy(buf, name, len);
	buf[len] = '\0';
	const TlIntArray *bs = tl_index_bindings_of(in->idx, in->func, buf);
	TlPath rp;
	if (!bs || !bs->size || !tl_path_of(&in->m->names, in->idx, c->receiver, &rp))
		return 0;
	for (uint32_t i = 0; i < bs->size; i++) {
		const TlBinding *b = &in->idx->bindings.items[bs->items[i]];
		TSNode v = ts_node_is_null(b->value) ? b->value : tl_index_unparen(b->value);
		if (b->kind != TL_BIND_ASSIGN || b->elem >= 0 || ts_node_is_null(v) || ts_node_symbol(v) != sy->attribute)
			return 0;
		TSNode attr = tl_tree_field(v, sy->f_attribute);
		uint32_t al;
		const char *at = tl_index_text(in->idx, attr, &al);
		TlPath op;
		if (!at || al != 8 || memcmp(at, "training", 8) != 0 ||
		    !tl_path_of(&in->m->names, in->idx, tl_tree_field(v, sy->f_object), &op) || !tl_path_equal(&op, &rp))
			return 0;
	}
	const TlVal *sv = tl_state_get(&in->st, p);
	uint8_t m = sv ? (uint8_t)(sv->mode & TL_VMODE_BITS) : 0;
	return m;
}

/* The mode `m.train(x)` leaves: train or eval when `x` is a constant;
 * for a parameter of the function (`run_epoch(model, train=True)`), the
 * flag its call sites decide (TL_VMODE_FLAG_OF); else not known (0: a
 * value nothing tells is no switch to eval mode on some path). */
static uint8_t tl_modes__flag_mode(In *in, const TlCall *c, const TlVal *args, uint32_t npos)
{
	const TlSyms *sy = in->sy;
	uint8_t both = 0;
	TSNode al = tl_tree_field(c->node, sy->f_arguments);
	if (ts_node_is_null(al) || ts_node_named_child_count(al) != 1)
		return both;
	TSNode a = ts_node_named_child(al, 0);
	if (ts_node_symbol(a) == sy->keyword_argument) {
		TSNode name = tl_tree_field(a, sy->f_name);
		uint32_t len;
		const char *t = ts_node_is_null(name) ? NULL : tl_index_text(in->idx, name, &len);
		if (!t || len != 4 || memcmp(t, "mode", 4) != 0)
			return both;
		a = tl_tree_field(a, sy->f_value);
	} else if (npos == 1) {
		int truth = tl_val_const_truth(args[0].cst);
		if (truth >= 0)
			return truth ? TL_VMODE_TRAIN : TL_VMODE_EVAL;
	}
	a = tl_index_unparen(a);
	TlPath p;
	if (ts_node_is_null(a) || ts_node_symbol(a) != sy->identifier || !tl_path_of(&in->m->names, in->idx, a, &p))
		return both;
	uint8_t saved = tl_modes__saved_mode(in, c, a, &p);
	if (saved)
		return saved;
	int32_t j = tl_modes__param_of(in, p.root);
	if (j < 0 || j >= (int32_t)TL_VMODE_FLAGS || tl_modes__rebound(in, p.root))
		return both;
	return TL_VMODE_FLAG_OF(j);
}

void tl_in__mode_call(In *in, TSNode n, const TlCall *c, const TlVal *fn, const TlVal *args, uint32_t npos,
		      TlVal *r)
{
	(void)n;
	bool method = c->receiver.id != NULL;
	uint32_t ev = c->events & (TL_EV_EVAL | TL_EV_TRAIN | TL_EV_MODE_SET);
	if (method && ev) {
		uint8_t mode = (ev & TL_EV_EVAL) ? TL_VMODE_EVAL
			       : (ev & TL_EV_TRAIN) ? TL_VMODE_TRAIN
						    : tl_modes__flag_mode(in, c, args, npos);
		r->mode = mode;
		r->meval = TL_VMODE_SOME_EVAL(mode) ? TL_VMEVAL_SWITCHED : 0;
		bool element = tl_modes__element(in, c->receiver) || !ts_node_is_null(tl_modes__iterable(in, c->receiver));
		/* A loop that switches every element it runs over: its end
		 * leaves them all in the mode (tl_in__mode_loop_exit), which
		 * the exits name (`models[*]`). */
		bool wide = in->mwide;
		bool whole = element && !ts_node_is_null(tl_modes__switching_loop(in, c->receiver));
		if (element) {
			/* Which modules it switches: the list's, when known (the
			 * others may be among them: forgotten, but for a module
			 * the code builds and hands no code). */
			tl_modes__forget_reach(in, c);
			tl_modes__switch_elements(in, c->receiver, mode);
		}
		TlPath p;
		if (tl_path_of(&in->m->names, in->idx, c->receiver, &p)) {
			/* the variable itself is the loop's or comprehension's own */
			if (element)
				tl_state_set_mode(&in->st, &p, mode, fn);
			else
				tl_modes__set(in, &p, mode, fn);
			/* No effect of the function names it: unless it is a
			 * module made here (in a mode of its own, no entry's). */
			if (tl_modes__origin(in, &p) == TL_MODES_OTHER && (!fn->mode || (fn->mode & TL_VMODE_ENTRY))) {
				in->mwide = !element;
				/* the modes recorded for other paths are stale only
				 * when the state holds a mode this module may share */
				if (element)
					in->malias = false;
				else if (tl_modes__other_modes(in, &p)) {
					/* a module another path holds may be in this
					 * mode now: a recorded mode joins it */
					if (mode == TL_VMODE_TRAIN || mode == TL_VMODE_EVAL)
						in->malias_modes |= mode;
					else
						in->malias = true;
				}
			}
		} else {
			in->mwide = true;
			in->malias = !element;
		}
		if (whole)
			in->mwide = wide;
		return;
	}
	tl_modes__record_site(in, c);
	/* A function of the project that may switch a mode (its own code,
	 * or code it runs): what it switches is not followed yet, so every
	 * mode the state holds is no longer known. */
	uint32_t reach = c->events | c->callee_events;
	if (c->target >= 0)
		reach |= in->idx->funcs.items[c->target].reach_events;
	if (c->arg_target >= 0)
		reach |= in->idx->funcs.items[c->arg_target].reach_events;
	if (in->callee_mod && in->callee_ref >= 0) {
		const TlIndex *cm = in->callee_mod;
		if ((uint32_t)in->callee_ref < cm->funcs.size)
			reach |= cm->funcs.items[in->callee_ref].reach_events;
	}
	if ((reach & (TL_EV_EVAL | TL_EV_TRAIN | TL_EV_MODE_SET)) && !tl_modes__apply(in, c, args, npos)) {
		tl_modes__forget_reach(in, c);
		in->mwide = true;
	}
	if (in->callee_mod) {
		/* A summary's: its parameters' entry is not the caller's. */
		if (r->mode & TL_VMODE_ENTRY)
			r->mode = 0;
		/* what the callee's tests chose (its configuration, a caller's
		 * constants) is not eval on a path of the caller's */
		r->meval = 0;
		return;
	}
	if (r->mode)
		return;
	const TlApiRow *row = c->qname ? tl_api_qualified(c->qname) : NULL;
	if (row && (row->sets & TL_APIS_EVAL_MODE)) {
		r->mode = TL_VMODE_EVAL;
		return;
	}
	if (!tl_model__module_like(r))
		return;
	if (method && tl_model__module_like(fn)) {
		r->mode = fn->mode; /* `model.to(device)`, `model.cuda()` */
		r->meval = fn->meval;
		return;
	}
	if (r->kind == TL_VK_WRAPPER || (row && (row->roles & (TL_APIR_WRAPPER | TL_APIR_COPY)))) {
		r->mode = npos ? args[0].mode : 0;
		return;
	}
	if (!method || (c->qname && row))
		r->mode = TL_VMODE_TRAIN; /* built: nn.Module starts in train mode */
}
