/* The per-function interpreter (model_internal.h: tl_model__interpret):
 * statements run on an explicit stack of frames (a block, an `if`, a loop,
 * a `with`, a `try`); expressions are eval.c's. What each form does is the
 * table of docs/semantic-model.md, "Transfer functions"; the parts not
 * done yet are listed there too. */
#include "model/interp_internal.h"

#include <string.h>

#include "base/alloc.h"
#include "base/budget.h"
#include "model/apitable.h"
#include "syntax/syms.h"
#include "syntax/treewalk.h"

/* ---- statements ----------------------------------------------------------- */

static void tl_in__push_frame(In *in, TSNode node, uint8_t kind)
{
	StFrame f;
	memset(&f, 0, sizeof f);
	f.node = node;
	f.kind = kind;
	tl_state_init(&f.a);
	tl_state_init(&f.b);
	tl_state_init(&f.c);
	f.b.dead = true;
	f.c.dead = true;
	f.iter = tl_val_bot();
	if (kind == F_BLOCK) {
		/* its statements, read once: [i, round) of in->kids */
		f.kids = f.i = in->kids.size;
		f.round = f.i + tl_in__kids(in, node);
	}
	tl_array_push(&in->frames, f);
}

static void tl_in__pop_frame(In *in)
{
	StFrame *f = tl_array_last(&in->frames);
	if (f->kind == F_BLOCK)
		in->kids.size = f->kids;
	else if (f->kind == F_LOOP)
		tl_in__carry_pop(in, f);
	tl_state_release(&f->a);
	tl_state_release(&f->b);
	tl_state_release(&f->c);
	in->frames.size--;
}

static int32_t tl_in__loop_frame(In *in)
{
	for (uint32_t i = in->frames.size; i-- > 0;)
		if (in->frames.items[i].kind == F_LOOP)
			return (int32_t)i;
	return -1;
}

static uint32_t tl_in__with_ctx(In *in, TSNode node)
{
	uint32_t scope = (uint32_t)(in->func + 1);
	const TlIntArray *ws = scope < in->idx->scope_withs.size ? &in->idx->scope_withs.items[scope] : NULL;
	for (uint32_t i = 0; ws && i < ws->size; i++) {
		const TlWith *w = &in->idx->withs.items[ws->items[i]];
		if (ts_node_eq(w->node, node))
			return w->ctx;
	}
	return 0;
}

/* `self.model = DDP(self.model, ...)` (also `DDP(self.model.to(rank))`):
 * the attribute is wrapped in place, for every method that reads it. */
static void tl_in__wrapped_in_place(In *in, TSNode target, TSNode call, const TlVal *v)
{
	const TlSyms *sy = in->sy;
	TlPath tp, ap;
	if (!tl_path_of(&in->m->names, in->idx, target, &tp) || tp.root != in->self_id || tp.n != 1 ||
	    tp.sel[0] < 0)
		return;
	call = tl_index_unparen(call);
	if (ts_node_symbol(call) != sy->call)
		return;
	TSNode args = tl_tree_field(call, sy->f_arguments);
	TSNode a = ts_node_is_null(args) || !ts_node_named_child_count(args) ? (TSNode){ 0 }
									     : ts_node_named_child(args, 0);
	/* through the module's own methods that hand it back (`.to(rank)`) */
	for (int hops = 0; hops < 4 && !ts_node_is_null(a); hops++) {
		a = tl_index_unparen(a);
		if (ts_node_symbol(a) != sy->call)
			break;
		TSNode f = tl_tree_field(a, sy->f_function);
		if (ts_node_symbol(f) != sy->attribute)
			break;
		a = tl_tree_field(f, sy->f_object);
	}
	if (!ts_node_is_null(a) && tl_path_of(&in->m->names, in->idx, a, &ap) && tl_path_equal(&ap, &tp))
		tl_model__wrap_in_place(in->m, in->cls, tp.sel[0], v->wrap);
}

static void tl_in__assign(In *in, TSNode a)
{
	const TlSyms *sy = in->sy;
	/* a = b = value: the value is the innermost right-hand side. */
	TSNode targets[16];
	uint32_t nt = 0;
	TSNode cur = a;
	while (!ts_node_is_null(cur) && ts_node_symbol(cur) == sy->assignment && nt < 16) {
		targets[nt++] = tl_tree_field(cur, sy->f_left);
		cur = tl_tree_field(cur, sy->f_right);
	}
	if (ts_node_is_null(cur))
		return; /* `x: int` declares, binds nothing */
	TlVal v = tl_in__eval(in, cur);
	for (uint32_t i = 0; i < nt; i++)
		tl_in__bind(in, targets[i], &v);
	if (nt == 1 && ts_node_symbol(tl_index_unparen(targets[0])) == sy->attribute)
		tl_in__keep_store(in, targets[0], cur, &v);
	if (v.kind == TL_VK_WRAPPER && nt == 1 && in->cls >= 0)
		tl_in__wrapped_in_place(in, targets[0], cur, &v);
}

static void tl_in__augment(In *in, TSNode a)
{
	const TlSyms *sy = in->sy;
	TSNode left = tl_tree_field(a, sy->f_left);
	TlVal r = tl_in__eval(in, tl_tree_field(a, sy->f_right));
	TlVal l = tl_in__eval(in, left);
	if (tl_index_text_is(in->idx, tl_tree_field(a, sy->f_operator), "+="))
		tl_in__keep_store(in, left, (TSNode){ { 0 }, NULL, NULL }, &r);
	TlVal v;
	if (l.kind == TL_VK_CONTAINER) {
		TlVal e = tl_val_element(&in->m->pool, &r);
		TlVal le = tl_val_element(&in->m->pool, &l);
		TlVal j = tl_val_join(&in->m->pool, &le, &e);
		v = tl_val_container(&in->m->pool, &j);
	} else {
		v = tl_in__arith(&in->m->pool, &l, &r);
		tl_in__made_op(in, a, &v);
	}
	TlVal ops[2] = { l, r };
	tl_in__flow_op(in, a, ops, 2, &v);
	tl_in__host_elem(&v, &l);
	tl_in__host_elem(&v, &r);
	tl_in__fresh_op(in, &l, &r, &v);
	tl_in__bind(in, left, &v);
}

/* Binds a definition's name to its function or class value. */
static void tl_in__define(In *in, TSNode def)
{
	const TlSyms *sy = in->sy;
	TSNode d = def;
	if (ts_node_symbol(d) == sy->decorated_definition)
		d = tl_tree_field(d, sy->f_definition);
	if (ts_node_is_null(d))
		return;
	TSNode name = tl_tree_field(d, sy->f_name);
	if (ts_node_is_null(name))
		return;
	/* Its value is read through the index's binding (tl_in__unbound);
	 * a slot is needed only where the name had one before (`f = g` then
	 * `def f(): ...`), which a lookup from the newest finds first. */
	TlPath p;
	if (tl_path_of(&in->m->names, in->idx, name, &p) && tl_state_get(&in->st, &p)) {
		TlVal v = tl_in__unbound(in, name);
		tl_state_set(&in->st, &p, &v);
	}
}

/* Runs the simple statement `s` in the current state. */
static void tl_in__simple(In *in, TSNode s)
{
	const TlSyms *sy = in->sy;
	TSSymbol k = ts_node_symbol(s);
	if (k == sy->expression_statement) {
		uint32_t nc = ts_node_named_child_count(s);
		for (uint32_t i = 0; i < nc; i++) {
			TSNode e = ts_node_named_child(s, i);
			TSSymbol es = ts_node_symbol(e);
			if (es == sy->assignment)
				tl_in__assign(in, e);
			else if (es == sy->augmented_assignment)
				tl_in__augment(in, e);
			else if (es != sy->comment)
				(void)tl_in__eval(in, e);
			if (es == sy->call) /* torch.set_grad_enabled(False) */
				in->st.grad = tl_model__grad_switch(in->idx, tl_index_call_at(in->idx, e), in->st.grad);
		}
	} else if (k == sy->return_statement) {
		TlVal v = tl_val_of(TL_VK_NONE, TL_VG_NONE);
		if (ts_node_named_child_count(s)) {
			v = tl_in__eval(in, ts_node_named_child(s, 0));
			if (in->func >= 0)
				in->m->funcs.items[in->func].returns = true;
			tl_in__flow_return(in, &v);
		}
		if (in->func >= 0) {
			tl_in__mode_exit(in);
			TlVal old = in->ret;
			in->ret = in->returned ? tl_val_join(&in->m->pool, &old, &v) : v;
			in->returned = true;
		}
		in->st.dead = true;
	} else if (k == sy->break_statement || k == sy->continue_statement) {
		int32_t li = tl_in__loop_frame(in);
		if (li >= 0) {
			StFrame *f = &in->frames.items[li];
			tl_state_join(&in->m->pool, k == sy->break_statement ? &f->b : &f->c, &in->st);
		}
		in->st.dead = true;
	} else if (k == sy->raise_statement) {
		if (ts_node_named_child_count(s))
			(void)tl_in__eval(in, ts_node_named_child(s, 0));
		in->st.dead = true;
	} else if (k == sy->delete_statement) {
		uint32_t nc = ts_node_named_child_count(s);
		for (uint32_t i = 0; i < nc; i++) {
			TSNode t = ts_node_named_child(s, i);
			TSNode items[16];
			uint32_t n = 0;
			if (ts_node_symbol(t) == sy->expression_list) {
				uint32_t m = ts_node_named_child_count(t);
				for (uint32_t j = 0; j < m && n < 16; j++)
					items[n++] = ts_node_named_child(t, j);
			} else {
				items[n++] = t;
			}
			for (uint32_t j = 0; j < n; j++) {
				TlPath p;
				if (tl_path_of(&in->m->names, in->idx, items[j], &p))
					tl_state_kill(&in->st, &p);
				/* `del layers[-1]`: the list's last item is not known */
				if (ts_node_symbol(items[j]) == sy->subscript)
					tl_in__set_last(in, tl_tree_field(items[j], sy->f_value), TL_VA_NONE);
			}
		}
	} else if (k == sy->function_definition || k == sy->class_definition ||
		   k == sy->decorated_definition) {
		tl_in__define(in, s);
	} else if (k == sy->import_statement || k == sy->import_from_statement) {
		/* names read through the index's bindings (tl_in__unbound) */
	} else {
		/* assert, print, global, nonlocal, pass, ...: their expressions' calls */
		uint32_t nc = ts_node_named_child_count(s);
		for (uint32_t i = 0; i < nc; i++) {
			TSNode e = ts_node_named_child(s, i);
			TSSymbol es = ts_node_symbol(e);
			if (es != sy->identifier && es != sy->comment && es != sy->dotted_name)
				(void)tl_in__eval(in, e);
		}
	}
}

/* Starts compound statement `s`, or runs a simple one. */
static void tl_in__statement(In *in, TSNode s)
{
	const TlSyms *sy = in->sy;
	TSSymbol k = ts_node_symbol(s);
	in->stmt_reads.size = 0; /* carry.c: what this statement reads */
	if (!in->st.dead)
		tl_model__grad_note(in->m, s, in->st.grad);
	if (k == sy->if_statement) {
		TlVal c = tl_in__eval(in, tl_tree_field(s, sy->f_condition));
		tl_in__push_frame(in, s, F_IF);
		StFrame *f = tl_array_last(&in->frames);
		tl_state_copy(&f->a, &in->st);
		f->i = 0;
		f->grad = (uint8_t)(tl_val_const_truth(c.cst) + 1);
	} else if (k == sy->for_statement || k == sy->while_statement) {
		TlVal it = tl_val_bot();
		if (k == sy->for_statement) {
			it = tl_in__eval(in, tl_tree_field(s, sy->f_right));
		} else {
			(void)tl_in__eval(in, tl_tree_field(s, sy->f_condition));
		}
		tl_in__push_frame(in, s, F_LOOP);
		StFrame *f = tl_array_last(&in->frames);
		f->iter = it;
		tl_state_copy(&f->a, &in->st);
		tl_in__carry_push(in, f);
		tl_in__prov_entry(in, f);
	} else if (k == sy->with_statement) {
		uint32_t ctx = tl_in__with_ctx(in, s);
		uint8_t saved = in->st.grad;
		/* its items: values, and what `as` binds */
		uint32_t nc = ts_node_named_child_count(s);
		for (uint32_t i = 0; i < nc; i++) {
			TSNode clause = ts_node_named_child(s, i);
			if (ts_node_symbol(clause) != sy->with_clause)
				continue;
			uint32_t ni = ts_node_named_child_count(clause);
			for (uint32_t j = 0; j < ni; j++) {
				TSNode item = ts_node_named_child(clause, j);
				TSNode val = tl_tree_field(item, sy->f_value);
				if (ts_node_is_null(val))
					continue;
				if (ts_node_symbol(val) == sy->as_pattern) {
					TlVal v = tl_in__eval(in, ts_node_named_child(val, 0));
					TSNode alias = tl_tree_field(val, sy->f_alias);
					if (!ts_node_is_null(alias) && ts_node_named_child_count(alias))
						alias = ts_node_named_child(alias, 0);
					if (!ts_node_is_null(alias))
						tl_in__bind(in, alias, &v);
				} else {
					(void)tl_in__eval(in, val);
				}
			}
		}
		if (ctx & TL_CTX_GRAD_OFF)
			in->st.grad = TL_MGRAD_OFF;
		else if (ctx & TL_CTX_GRAD_ON)
			in->st.grad = TL_MGRAD_ON;
		tl_in__push_frame(in, s, F_WITH);
		StFrame *f = tl_array_last(&in->frames);
		f->grad = saved;
		tl_in__push_frame(in, tl_tree_field(s, sy->f_body), F_BLOCK);
	} else if (k == in->try_statement) {
		tl_in__push_frame(in, s, F_TRY);
		StFrame *f = tl_array_last(&in->frames);
		tl_state_copy(&f->a, &in->st);
		f->i = 0;
	} else if (k == in->match_statement) {
		/* its cases, each from the state before, joined (F_IF's way) */
		if (ts_node_named_child_count(s))
			(void)tl_in__eval(in, ts_node_named_child(s, 0));
		tl_in__push_frame(in, s, F_IF);
		StFrame *f = tl_array_last(&in->frames);
		tl_state_copy(&f->a, &in->st);
		f->i = 0;
	} else {
		tl_in__simple(in, s);
	}
}

/* The block of an `except`/`case` clause: its last named child that is one. */
static TSNode tl_in__clause_block(In *in, TSNode clause)
{
	uint32_t nc = ts_node_named_child_count(clause);
	for (uint32_t i = nc; i-- > 0;) {
		TSNode ch = ts_node_named_child(clause, i);
		if (ts_node_symbol(ch) == in->sy->block)
			return ch;
	}
	return (TSNode){ 0 };
}

/* After an if statement of the shape tl_in__unwrap_branches reads, whose
 * paths are joined (`if TEST: v = m.module` / `else: v = m`): `v` is `m`
 * unwrapped on every path, as after `v = m.module if TEST else m`. */
static void tl_in__unwrap_join(In *in, TSNode target, TSNode m)
{
	TlPath p;
	TlVal u;
	if (in->st.dead)
		return;
	TlVal mv = tl_in__eval(in, m);
	if (tl_in__unwrapped(in, &mv, &u) && tl_path_of(&in->m->names, in->idx, target, &p))
		tl_state_set(&in->st, &p, &u);
}

/* True when if statement f->node's modes may be kept per test (modes.c,
 * TL_VMODE_COND_OF): an `if` (and an `else`, or none) whose test reads a
 * parameter that a call site's constants may decide, and that no constant
 * of this interpretation decides already. */
static bool tl_in__cond_if(In *in, const StFrame *f)
{
	const TlSyms *sy = in->sy;
	if (f->grad || in->func < 0 || ts_node_symbol(f->node) != sy->if_statement)
		return false;
	uint32_t nc = ts_node_named_child_count(f->node);
	for (uint32_t i = 0; i < nc; i++)
		if (ts_node_symbol(ts_node_named_child(f->node, i)) == sy->elif_clause)
			return false;
	return tl_model__ctx_test_on_params(in->idx, in->func, tl_tree_field(f->node, sy->f_condition));
}

/* After an if statement tl_in__cond_if accepts, whose consequence ended
 * in state `then` and whose else (or the failed test) in `other`, both
 * run: a module whose mode differs between them holds the mode the test
 * decides (`if mode == "train": model.train() else: model.eval()`),
 * which each call site's constants read (modes.c, tl_model__mode_under). */
static void tl_in__cond_modes(In *in, TSNode test, const TlState *then, const TlState *other)
{
	if (in->st.dead || then->dead || other->dead)
		return;
	for (uint32_t i = 0; i < in->st.slots.size; i++) {
		TlSlot *sl = &in->st.slots.items[i];
		if (sl->gone || !sl->val.mode)
			continue;
		const TlVal *t = tl_state_get(then, &sl->path), *o = tl_state_get(other, &sl->path);
		if (!t || !o || !t->mode || !o->mode || t->mode == o->mode ||
		    TL_VMODE_JOIN(t->mode, o->mode) != sl->val.mode)
			continue;
		sl->val.mode = tl_model__mode_cond(in->m, in->func, test, t->mode, o->mode);
	}
}

/* One step of the top frame. */
static void tl_in__step(In *in)
{
	const TlSyms *sy = in->sy;
	uint32_t top = in->frames.size - 1;
	StFrame *f = &in->frames.items[top];
	switch (f->kind) {
	case F_BLOCK: {
		if (in->st.dead || f->i >= f->round) {
			tl_in__pop_frame(in);
			return;
		}
		TSNode s = in->kids.items[f->i++];
		tl_in__statement(in, s);
		return;
	}
	case F_IF: {
		TSNode target, m;
		if (f->stage == 1 && f->i == 0 && tl_in__cond_if(in, f))
			tl_state_copy(&f->c, &in->st); /* the consequence's end (tl_in__cond_modes) */
		if (f->stage == 1)
			tl_state_join(&in->m->pool, &f->b, &in->st);
		TSNode node = f->node;
		bool is_match = ts_node_symbol(node) == in->match_statement;
		if (!is_match && f->stage == 0) {
			f->stage = 1;
			tl_state_copy(&in->st, &f->a);
			/* where the test fails: `isinstance(val, torch.Tensor)` false */
			tl_in__narrow_not(in, &f->a, tl_tree_field(node, sy->f_condition));
			tl_in__narrow(in, tl_tree_field(node, sy->f_condition));
			/* a constant condition (consts.c): one side is code no path reaches */
			if (f->grad == 1)
				in->st.dead = true;
			else if (f->grad == 2)
				f->a.dead = true;
			tl_in__push_frame(in, tl_tree_field(node, sy->f_consequence), F_BLOCK);
			return;
		}
		/* the next alternative: elif, else, or a case */
		uint32_t nc = ts_node_named_child_count(node);
		TSNode body = { 0 };
		while (f->i < nc && ts_node_is_null(body)) {
			TSNode ch = ts_node_named_child(node, f->i++);
			TSSymbol cs = ts_node_symbol(ch);
			if (cs == sy->elif_clause) {
				tl_state_copy(&in->st, &f->a);
				int t = -1;
				if (!f->a.dead) {
					TlVal c = tl_in__eval(in, tl_tree_field(ch, sy->f_condition));
					t = tl_val_const_truth(c.cst);
				}
				tl_state_copy(&f->a, &in->st);
				tl_in__narrow(in, tl_tree_field(ch, sy->f_condition));
				if (t == 0)
					in->st.dead = true;
				else if (t == 1)
					f->a.dead = true;
				body = tl_tree_field(ch, sy->f_consequence);
			} else if (cs == sy->else_clause) {
				f->round = 1; /* there is an else: the entry does not flow past */
				tl_state_copy(&in->st, &f->a);
				body = tl_tree_field(ch, sy->f_body);
			} else if (is_match && cs == in->case_clause) {
				tl_state_copy(&in->st, &f->a);
				body = tl_tree_field(ch, sy->f_consequence);
				if (ts_node_is_null(body))
					body = tl_in__clause_block(in, ch);
			} else if (is_match && cs == sy->block) {
				/* the grammar's block of cases */
				node = ch;
			}
		}
		if (!ts_node_is_null(body)) {
			f->stage = 1;
			tl_in__push_frame(in, body, F_BLOCK);
			return;
		}
		bool unwraps = !is_match && tl_in__unwrap_branches(in, node, f->round ? NULL : &f->a, &target, &m);
		if (!f->c.dead && !is_match) {
			/* an if and an else (or none): the else's end is the
			 * state now, or the entry where the test failed */
			TlState other;
			tl_state_init(&other);
			tl_state_copy(&other, f->round ? &in->st : &f->a);
			if (!f->round)
				tl_state_join(&in->m->pool, &f->b, &f->a);
			tl_state_copy(&in->st, &f->b);
			tl_in__cond_modes(in, tl_tree_field(node, sy->f_condition), &f->c, &other);
			tl_state_release(&other);
		} else {
			if (!f->round)
				tl_state_join(&in->m->pool, &f->b, &f->a);
			tl_state_copy(&in->st, &f->b);
		}
		if (unwraps)
			tl_in__unwrap_join(in, target, m);
		tl_in__pop_frame(in);
		return;
	}
	case F_LOOP: {
		bool is_for = ts_node_symbol(f->node) == sy->for_statement;
		if (f->stage == 2) { /* its else clause ran */
			tl_state_join(&in->m->pool, &in->st, &f->b);
			tl_in__pop_frame(in);
			return;
		}
		if (f->stage == 1) {
			/* The body is done: what flows back to the head. */
			tl_state_join(&in->m->pool, &in->st, &f->c);
			tl_in__carry_back(in, f);
			tl_in__prov_back(in, f);
			TlState next;
			tl_state_init(&next);
			tl_state_copy(&next, &f->a);
			if (f->round + 1 >= TL_MODEL_LOOP_ROUNDS)
				tl_state_widen(&in->m->pool, &next, &in->st);
			else
				tl_state_join(&in->m->pool, &next, &in->st);
			bool done = tl_state_equal(&in->m->pool, &next, &f->a) ||
				    f->round + 1 > TL_MODEL_LOOP_ROUNDS;
			tl_state_copy(&f->a, &next);
			tl_state_release(&next);
			in->m->stats.rounds++;
			if (done) {
				/* A loop over range(...) runs its body: the modes it
				 * leaves are those its body's end holds (modes.c). */
				int once = is_for && !in->st.dead ? tl_in__mode_loop_once(in, f->node) : 0;
				TlState back;
				tl_state_init(&back);
				if (once)
					tl_state_copy(&back, &in->st);
				tl_state_copy(&in->st, &f->a);
				in->st.dead = false;
				if (once)
					tl_in__mode_take(in, &back, f->node, once);
				tl_state_release(&back);
				if (is_for)
					tl_in__mode_loop_exit(in, f->node);
				TSNode alt = tl_tree_field(f->node, sy->f_alternative);
				if (!ts_node_is_null(alt)) {
					f->stage = 2;
					tl_in__push_frame(in, tl_tree_field(alt, sy->f_body), F_BLOCK);
					return;
				}
				tl_state_join(&in->m->pool, &in->st, &f->b);
				tl_in__pop_frame(in);
				return;
			}
			f->round++;
			tl_state_release(&f->c);
			tl_state_init(&f->c);
			f->c.dead = true;
		}
		/* a round: from the head */
		f->stage = 1;
		tl_state_copy(&in->st, &f->a);
		in->st.dead = false;
		tl_in__carry_head(in, f);
		tl_in__host_head(in, f);
		tl_in__fresh_head(in, f);
		TlVal it = f->iter;
		TSNode body = tl_tree_field(f->node, sy->f_body);
		if (is_for) {
			TlVal e = tl_val_element(&in->m->pool, &it);
			e.cst = 0; /* a container a call may have added to */
			if (tl_val_is_bot(&e))
				e = tl_val_top();
			tl_in__host_elem(&e, &it);
			tl_in__fresh_elem(f, &e, &it);
			tl_in__prov_target(in, f, &e);
			tl_in__flow_part(in, &e, &it);
			tl_in__bind(in, tl_tree_field(f->node, sy->f_left), &e);
		} else {
			(void)tl_in__eval(in, tl_tree_field(f->node, sy->f_condition));
		}
		tl_in__push_frame(in, body, F_BLOCK);
		return;
	}
	case F_WITH:
		in->st.grad = f->grad;
		tl_in__pop_frame(in);
		return;
	case F_TRY: {
		if (f->stage == 0) {
			f->stage = 1;
			tl_in__push_frame(in, tl_tree_field(f->node, sy->f_body), F_BLOCK);
			return;
		}
		if (f->stage == 3) { /* the finally clause ran: its end is the statement's */
			tl_in__pop_frame(in);
			return;
		}
		if (f->stage == 1) {
			/* the body (or a handler) is done */
			tl_state_join(&in->m->pool, &f->b, &in->st);
			/* a handler may start at any point of the body */
			tl_state_join(&in->m->pool, &f->a, &in->st);
		}
		uint32_t nc = ts_node_named_child_count(f->node);
		while (f->i < nc) {
			TSNode ch = ts_node_named_child(f->node, f->i++);
			TSSymbol cs = ts_node_symbol(ch);
			if (cs == sy->except_clause || cs == sy->else_clause) {
				tl_state_copy(&in->st, &f->a);
				in->st.dead = false;
				TSNode blk = cs == sy->else_clause ? tl_tree_field(ch, sy->f_body) : tl_in__clause_block(in, ch);
				if (ts_node_is_null(blk))
					continue;
				f->stage = 1;
				tl_in__push_frame(in, blk, F_BLOCK);
				return;
			}
			if (cs == in->finally_clause) {
				tl_state_copy(&in->st, &f->b);
				bool was_dead = in->st.dead;
				in->st.dead = false;
				TSNode blk = tl_in__clause_block(in, ch);
				f->stage = 3;
				if (ts_node_is_null(blk)) {
					in->st.dead = was_dead;
					continue;
				}
				tl_in__push_frame(in, blk, F_BLOCK);
				return;
			}
		}
		if (f->stage != 3)
			tl_state_copy(&in->st, &f->b);
		tl_in__pop_frame(in);
		return;
	}
	default:
		tl_in__pop_frame(in);
		return;
	}
}

/* True when function `fn`'s own text yields (a generator): looked at once. */
static bool tl_in__generator_text(In *in, const TlFunc *fn);

static bool tl_in__generator(In *in, const TlFunc *fn)
{
	TlFuncSum *s = &in->m->funcs.items[fn - in->idx->funcs.items];
	if (s->generator < 0)
		s->generator = tl_in__generator_text(in, fn) ? 1 : 0;
	return s->generator == 1;
}

static bool tl_in__generator_text(In *in, const TlFunc *fn)
{
	uint32_t len = 0;
	const char *t = tl_index_text(in->idx, fn->node, &len);
	for (uint32_t i = 0; t && i + 5 <= len; i++)
		if (memcmp(t + i, "yield", 5) == 0 && (i == 0 || !((t[i - 1] >= 'a' && t[i - 1] <= 'z') || t[i - 1] == '_')))
			return true;
	return false;
}

/* Binds the parameters of function `func` at its entry. */
static void tl_in__enter(In *in, const TlFunc *fn)
{
	const TlIndex *idx = in->idx;
	bool is_static = false, is_classmethod = false;
	tl_model__method_kind(idx, fn, &is_static, &is_classmethod);
	tl_in__defaults(in, fn);
	for (uint32_t i = 0; i < fn->params.size; i++) {
		const TlBinding *b = &idx->bindings.items[fn->params.items[i]];
		TlPath p;
		if (!b->name || !tl_path_of_dotted(&in->m->names, b->name, &p))
			continue;
		TlVal v;
		if (i == 0 && fn->cls >= 0 && is_classmethod) {
			/* `cls`: the class (a subclass may call it; its kind is the class's) */
			v = tl_val_of(TL_VK_CLASS, TL_VG_NONE);
			v.ref = fn->cls;
			v.mod = idx;
		} else if (i == 0 && fn->cls >= 0 && !is_static) {
			bool module = idx->classes.items[fn->cls].is_module;
			v = tl_val_of(module ? TL_VK_MODULE : TL_VK_OBJECT, TL_VG_NONE);
			v.ref = fn->cls;
			v.mod = idx;
			in->self_id = p.root;
			in->cls = fn->cls;
		} else {
			v = tl_val_of(TL_VK_TOP, TL_VG_BOT);
			if (i < 16)
				v.pgraph = v.pold = v.pnograd = (uint16_t)(1u << i);
			else
				v.graph = TL_VG_UNKNOWN;
			v.made = TL_VM_PARAMS;
			/* What every caller hands it: a module, a wrapper, an optimizer. */
			TlVal ctx;
			if (tl_model__ctx_param(in->m, in->func, i, &ctx)) {
				v.kind = ctx.kind;
				v.wrap = ctx.wrap;
				v.ref = ctx.ref;
				v.mod = ctx.mod;
				v.act = ctx.act;
				v.loss = ctx.loss;
				v.made |= ctx.made;
				/* A context of no class (a call site's seed, joined
				 * with what it passes later): its callers' class, when
				 * they now agree on one. */
				if (v.ref < 0)
					(void)tl_model__entry(in->m, in->func, i, &v);
			} else {
				/* its callers' class, through callers of callers;
				 * else a seed (its annotation, its name) */
				if (!tl_model__entry(in->m, in->func, i, &v) && !tl_in__default_seed(in, i, &v))
					tl_model__seed_param(in->m, b, &v);
			}
			tl_in__param(in, b, i, &v);
			/* the constant every caller hands it (`train=False`) */
			v.cst = tl_model__ctx_const(in->m, in->func, i);
		}
		v.mode = TL_VMODE_ENTRY; /* as its callers hand it (modes.c) */
		tl_in__flow_param(in, i, &v);
		tl_in__backprop_bind(in, &p, &v, (TSNode){ 0 });
		tl_state_set(&in->st, &p, &v);
	}
	/* Its decorators, else the mode its callers enter it in (gradmode.c):
	 * what its calls compute under it reads the entry mode the second
	 * phase found (tl_model__grad_phase), enabled until then. */
	if (fn->decorator_ctx & TL_CTX_GRAD_OFF)
		in->st.grad = TL_MGRAD_OFF;
	else if (fn->decorator_ctx & TL_CTX_GRAD_ON)
		in->st.grad = TL_MGRAD_ON;
	else
		in->st.grad = TL_MGRAD_ENTRY;
	in->entry_off = in->m->funcs.items[in->func].entry_grad == 1;
	tl_in__carry_enter(in, fn);
	tl_in__host_enter(in);
	tl_in__fresh_enter(in);
}

void tl_model__method_kind(const TlIndex *idx, const TlFunc *fn, bool *is_static, bool *is_classmethod)
{
	*is_static = *is_classmethod = false;
	if (ts_node_eq(fn->outer, fn->node))
		return;
	uint32_t len = 0;
	const char *t = tl_index_text(idx, fn->outer, &len);
	uint32_t head = (uint32_t)(ts_node_start_byte(fn->node) - ts_node_start_byte(fn->outer));
	for (uint32_t i = 0; t && i + 11 <= head && i + 11 <= len; i++) {
		if (i + 12 <= head && memcmp(t + i, "staticmethod", 12) == 0)
			*is_static = true;
		if (memcmp(t + i, "classmethod", 11) == 0)
			*is_classmethod = true;
	}
}

static void tl_model__interpret_once(TlModel *m, int32_t func)
{
	In in;
	memset(&in, 0, sizeof in);
	in.m = m;
	in.idx = m->idx;
	in.sy = tl_syms();
	in.func = func;
	in.cls = -1;
	in.self_id = -1;
	in.ret = tl_val_bot();
	in.try_statement = m->syms[0];
	in.finally_clause = m->syms[1];
	in.match_statement = m->syms[2];
	in.case_clause = m->syms[3];
	in.slice = m->syms[4];
	in.concatenated_string = m->syms[5];
	tl_state_init(&in.st);
	tl_tree_walk_init(&in.walk);
	tl_array_init(&in.kids);
	tl_array_init(&in.frames);
	tl_array_init(&in.ev);
	tl_array_init(&in.vs);
	tl_array_init(&in.snaps);
	tl_array_init(&in.mdefer);

	const TlFunc *fn = func >= 0 ? &m->idx->funcs.items[func] : NULL;
	bool pending_before = m->pending;
	m->pending = false;
	uint32_t now = tl_model__dep_begin(m, func);
	TSNode body;
	if (fn) {
		tl_in__enter(&in, fn);
		body = tl_tree_field(fn->node, in.sy->f_body);
	} else {
		body = m->idx->root;
	}
	uint32_t grad_clock = m->grad_clock;
	m->grad_clock = now; /* gradmode.c: the notes of this interpretation */
	tl_in__push_frame(&in, body, F_BLOCK);
	while (in.frames.size && !tl_in__poll(&in))
		tl_in__step(&in);
	while (in.frames.size)
		tl_in__pop_frame(&in);
	m->grad_clock = grad_clock;

	if (fn) {
		if (!in.st.dead)
			tl_in__mode_exit(&in);
		bool modes_changed = tl_in__mode_summary(&in);
		TlFuncSum *s = &m->funcs.items[func];
		TlVal ret = in.ret;
		if (!in.returned)
			ret = tl_in__generator(&in, fn) ? tl_val_top() : tl_val_of(TL_VK_NONE, TL_VG_NONE);
		else if (tl_in__generator(&in, fn))
			ret = tl_val_top();
		TlVal old = s->ret;
		TlVal j = s->status && !s->provisional ? tl_val_join(&m->pool, &old, &ret) : ret;
		s->provisional = m->pending;
		if (!s->status || !tl_val_equal(&m->pool, &old, &j))
			m->changed = true;
		if (!s->status || !tl_val_equal(&m->pool, &old, &j) || s->detaches != in.pdetached ||
		    (s->epochs | in.pepochs) != s->epochs || (s->saves | in.psaved) != s->saves || modes_changed)
			s->changed_at = now;
		if (modes_changed)
			m->changed = true;
		tl_model__dep_end(m, func, &ret);
		s->ret = j;
		s->status = 1;
		s->detaches = in.pdetached;
		s->keeps = (uint16_t)(s->keeps | in.pkept);
		if ((s->epochs | in.pepochs) != s->epochs)
			m->changed = true;
		s->epochs = (uint16_t)(s->epochs | in.pepochs);
		if ((s->saves | in.psaved) != s->saves)
			m->changed = true;
		s->saves = (uint16_t)(s->saves | in.psaved);
		m->stats.functions++;
	} else {
		if (!tl_state_equal(&m->pool, &m->globals, &in.st)) {
			m->changed = true;
			m->globals_at = now;
		}
		tl_state_copy(&m->globals, &in.st);
		m->globals.dead = false;
	}
	m->pending = m->pending || pending_before;
	tl_state_release(&in.st);
	for (uint32_t i = 0; i < in.snaps.size; i++)
		tl_state_release(&in.snaps.items[i]);
	tl_array_release(&in.snaps);
	tl_array_release(&in.mdefer);
	tl_array_release(&in.frames);
	tl_array_release(&in.kids);
	tl_tree_walk_release(&in.walk);
	tl_array_release(&in.ev);
	tl_array_release(&in.vs);
	tl_in__carry_release(&in);
}

/* Once, and again when what its backwards consume keeps the history of
 * more paths than it read (backprop.c): that run replaces the first's
 * summary. */
void tl_model__interpret(TlModel *m, int32_t func)
{
	tl_model__backprop_begin(m, func);
	tl_model__interpret_once(m, func);
	if (tl_model__backprop_end(m, func) && !m->cut) {
		if (func >= 0)
			m->funcs.items[func].provisional = true;
		tl_model__interpret_once(m, func);
	}
}
