/* Mode summaries: what a function does to the modules its parameters hold
 * (RULES.md principle 2, issue 23 item 2): which of them it switches to
 * eval mode (`self.netD.eval()`, `model.eval()` in an evaluation helper),
 * which to train mode, and which of those it switched to eval its own
 * module also trains (an optimizer there updates them). The names are the
 * function's own (`self.netD`, `model`), computed once per function and
 * kept in its index's facts cache; a caller in another module maps each
 * name's root (a parameter, `self` for a bound method) to the argument it
 * passes (mode.c, tl_facts__ext_event_receivers), so that every question
 * about mode switches (TL203's iteration that leaves a model in eval mode,
 * a module switched back to train mode, a module being trained) reads the
 * summary instead of walking the callee per question.
 *
 * A summary is computed from a fresh depth and budget: what a function
 * does does not depend on how deep the question that reached it was.
 * Summaries computed inside summaries nest at most TL_MODE_NESTING deep;
 * one that met that bound, or that met a summary being computed (a
 * recursion), is given (with its receivers marked unknown) but not kept,
 * so that a kept summary never depends on the order of the questions.
 *
 * The same summary says whether a method runs its object's own forward
 * with gradients on (`model.incremental_forward(x)`,
 * `self.model._predict_scores_batch(batch)`): called from outside the
 * class on a model in eval mode, that call is an evaluation forward
 * (TL102: rules/checks/TL102.c asks the summary, tl_check__method_forward).
 * There, a model handed in whose class the receiver's value does not name
 * is judged by the classes every call site of the project hands it
 * (model/handedin.c), through `self.<attr> = param` in `__init__` and a
 * derived class's `super().__init__(...)`.
 *
 * Owns: tl_facts__mode_summary, tl_facts__mode_summaries_release. */
#include "facts/internal.h"
#include "model/model.h"

#define TL_MODE_NESTING 8

static _Thread_local TlNest tl_facts__mode_nest;

static void tl_facts__mode_summary_clear(TlModeSummary *s)
{
	tl_facts__names_release(&s->evals);
	tl_facts__names_release(&s->trained);
	tl_facts__names_release(&s->trains);
}

void tl_facts__mode_summaries_release(TlFactsCache *fc)
{
	for (uint32_t i = 0; fc->mode_sums && i < fc->mode_count; i++)
		tl_facts__mode_summary_clear(&fc->mode_sums[i]);
	tl_free(fc->mode_sums);
	fc->mode_sums = NULL;
	fc->mode_count = 0;
}

static bool tl_facts__has_name(const TlNames *names, const char *s)
{
	for (uint32_t i = 0; i < names->size; i++)
		if (strcmp(names->items[i], s) == 0)
			return true;
	return false;
}

/* Moves the names of `sub` not yet in `into` there. */
static void tl_facts__merge_names(TlNames *into, TlNames *sub)
{
	for (uint32_t k = 0; k < sub->size; k++) {
		if (tl_facts__has_name(into, sub->items[k]))
			tl_free(sub->items[k]);
		else
			tl_array_push(into, sub->items[k]);
	}
	sub->size = 0;
	tl_facts__names_release(sub);
}

/* True when dotted `name` is `self` or an attribute path below it. */
static bool tl_facts__self_rooted(const char *name)
{
	return name && strncmp(name, "self", 4) == 0 && (name[4] == '\0' || name[4] == '.');
}

/* True when call `c` of method `f` runs a forward of `self` (or of a
 * submodule of it) with gradients on in `f`'s own body: a module
 * forward on `self.x`, `self.forward(...)` / `self(...)`, or another
 * method of the class, called on `self`, whose summary says so. */
static bool tl_facts__forwards_self(const TlIndex *idx, int32_t f, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	if (tl_facts_local_grad(idx, c->node, f, c->with) == TL_GRAD_OFF)
		return false;
	TSNode recv = c->receiver.id ? tl_index_unparen(c->receiver) : (TSNode){ { 0 }, NULL, NULL };
	bool on_self = !ts_node_is_null(recv) && ts_node_symbol(recv) == sy->identifier &&
		       tl_index_text_is(idx, recv, "self");
	if (on_self && c->method && strcmp(c->method, "forward") == 0)
		return true;
	if (!c->receiver.id && tl_index_text_is(idx, c->callee, "self"))
		return true; /* self(x) */
	/* A module of the object's called: also one that only another module
	 * tells a module (`self.embed = Embedding(...)`, a function of a third
	 * module, in a module read for context, whose events were found
	 * without looking at other modules). */
	TSNode callee = tl_index_unparen(c->callee);
	TSNode obj = !ts_node_is_null(callee) && ts_node_symbol(callee) == sy->attribute
			     ? tl_index_unparen(tl_tree_field(callee, sy->f_object)) : (TSNode){ { 0 }, NULL, NULL };
	bool self_attr = !ts_node_is_null(obj) && ts_node_symbol(obj) == sy->identifier &&
			 tl_index_text_is(idx, obj, "self");
	if ((c->events & TL_EV_FORWARD) || (self_attr && !(c->events & TL_EV_LOSS) && tl_facts_is_forward(idx, c))) {
		char *name = tl_facts_mode_subject(idx, c->node);
		bool yes = tl_facts__self_rooted(name);
		tl_free(name);
		return yes;
	}
	if (on_self && c->target >= 0 && c->target != f &&
	    idx->funcs.items[c->target].cls == idx->funcs.items[f].cls) {
		const TlModeSummary *t = tl_facts__mode_summary(idx, c->target);
		return t && t->forwards_self;
	}
	return false;
}

/* Fills `s` from the calls of function `f` (in source order), stopping a
 * list at the first receiver that cannot be told (its flag false). */
static void tl_facts__mode_summary_fill(const TlIndex *idx, int32_t f, TlModeSummary *s)
{
	const TlFunc *fn = &idx->funcs.items[f];
	/* A method of a model: a module class, or one with a forward of
	 * its own or inherited (a base in a module not read). */
	bool methods = fn->cls >= 0 && !(fn->decorator_ctx & TL_CTX_GRAD_OFF) &&
		       (idx->classes.items[fn->cls].is_module ||
			tl_facts__class_has_method(idx, fn->cls, "forward"));
	const uint32_t trains = TL_EV_TRAIN | TL_EV_MODE_SET;
	s->evals_ok = s->trains_ok = true;
	uint32_t budget = TL_FACTS_BUDGET;
	const TlIntArray *calls = tl_index_scope_calls(idx, f);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *inner = &idx->calls.items[calls->items[i]];
		if (methods && !s->forwards_self)
			s->forwards_self = tl_facts__forwards_self(idx, f, inner);
		uint32_t reach = inner->events | inner->callee_events |
				 (inner->target >= 0 ? idx->funcs.items[inner->target].reach_events : 0) |
				 (inner->arg_target >= 0 ? idx->funcs.items[inner->arg_target].reach_events : 0);
		/* A method of another module's class outside the loops: what it
		 * reaches, looked up now. */
		if (!(reach & (TL_EV_EVAL | trains)))
			reach |= tl_facts__callee_reach(idx, inner);
		if ((reach & TL_EV_EVAL) && s->evals_ok) {
			TlNames sub, deep;
			tl_array_init(&sub);
			tl_array_init(&deep);
			s->evals_ok = tl_facts__event_receivers(idx, inner, TL_EV_EVAL, &sub, 0, &budget);
			/* Trained here, or by the function of a third module that
			 * switches it (its own summary says so). */
			tl_facts__event_receivers(idx, inner, TL_EV_EVAL | TL_FACTS_TRAINED_ONLY, &deep, 0,
						  &budget);
			uint32_t pos = ts_node_start_byte(inner->node);
			for (uint32_t k = 0; k < sub.size; k++)
				if (!tl_facts__has_name(&s->trained, sub.items[k]) &&
				    (tl_facts__has_name(&deep, sub.items[k]) ||
				     tl_facts__module_trained(idx, sub.items[k], f, pos)))
					tl_array_push(&s->trained, tl_strdup(sub.items[k]));
			tl_facts__names_release(&deep);
			tl_facts__merge_names(&s->evals, &sub);
		}
		if ((reach & trains) && s->trains_ok) {
			TlNames sub;
			tl_array_init(&sub);
			s->trains_ok = tl_facts__event_receivers(idx, inner, trains, &sub, 0, &budget);
			tl_facts__merge_names(&s->trains, &sub);
		}
	}
}

const TlModeSummary *tl_facts__mode_summary(const TlIndex *idx, int32_t func)
{
	TlFactsCache *fc = idx->facts_cache;
	if (!fc || func < 0 || (uint32_t)func >= idx->funcs.size)
		return NULL;
	if (!fc->mode_sums) {
		fc->mode_count = idx->funcs.size;
		fc->mode_sums = tl_calloc(fc->mode_count, sizeof *fc->mode_sums);
	}
	TlModeSummary *s = &fc->mode_sums[func];
	if (s->state == 2)
		return s;
	unsigned mark;
	if (!tl_facts__nest_enter(&tl_facts__mode_nest, s->state == 1, TL_MODE_NESTING, &mark))
		return NULL;
	tl_facts__mode_summary_clear(s);
	s->forwards_self = false;
	s->state = 1;
	tl_facts__mode_summary_fill(idx, func, s);
	if (tl_facts__nest_leave(&tl_facts__mode_nest, mark)) {
		s->state = 2;
	} else {
		/* Given, cautiously, but not kept. */
		s->state = 0;
		s->evals_ok = s->trains_ok = false;
		s->forwards_self = false;
	}
	return s;
}
