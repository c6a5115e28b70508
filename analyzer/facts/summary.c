/* Function summaries: what a local function hands back to its callers (a graph
 * tensor, a known tensor, a device tensor, a module, a detached value, a
 * criterion, a host copy of device data or of a
 * parameter), computed once per function and fact and kept
 * in the index (TlFunc.ret_known / ret_yes), so that every family
 * asks one place instead of walking returns itself, and a helper called from
 * a hundred places is read once.
 *
 * A summary is computed from a fresh depth: what a function returns does not
 * depend on how deep the question that reached it was. Summaries computed
 * inside summaries nest at most TL_SUMMARY_NESTING deep; an answer that met
 * that bound, or a recursive function whose summary was being computed, is
 * given (cautiously, false) but not kept, so a kept summary never depends on
 * the order questions were asked in.
 *
 * Owns: tl_facts__returns. */
#include "facts/internal.h"

/* Helpers chain a few deep in real code (a factory calling a builder
 * calling a constructor); past this, answers are not kept. */
#define TL_SUMMARY_NESTING 8

static _Thread_local TlNest tl_facts__summary_nest;

/* Calls `pred` on each return value of `f`; `all` asks whether every one
 * satisfies it (and there is one), else whether some one does. */
typedef struct TlRetWalk {
	bool (*pred)(const TlIndex *, TSNode);
	bool all, any, none_failed;
} TlRetWalk;

static bool tl_facts__summary_visit(const TlIndex *idx, TSNode ret, void *data)
{
	TlRetWalk *w = data;
	bool yes = ts_node_named_child_count(ret) && w->pred(idx, ts_node_named_child(ret, 0));
	w->any = w->any || yes;
	w->none_failed = w->none_failed && yes;
	return w->all ? !yes : yes; /* stop at the first answer that decides */
}

/* Starts computing a summary of `f` for the slot `bit`; false (and a
 * refusal noted) when the bound is met or it is already being computed. */
static bool tl_facts__summary_enter(TlFunc *fn, uint32_t bit, unsigned *mark)
{
	if (!tl_facts__nest_enter(&tl_facts__summary_nest, (fn->ret_busy & bit) != 0,
				  TL_SUMMARY_NESTING, mark))
		return false;
	fn->ret_busy |= bit;
	return true;
}

/* Ends it; true when the answer may be kept. */
static bool tl_facts__summary_leave(TlFunc *fn, uint32_t bit, unsigned mark)
{
	fn->ret_busy &= ~bit;
	return tl_facts__nest_leave(&tl_facts__summary_nest, mark);
}

bool tl_facts__returns(const TlIndex *idx, int32_t f, TlRet kind, bool (*pred)(const TlIndex *, TSNode))
{
	if (f < 0 || (uint32_t)f >= idx->funcs.size)
		return false;
	/* The cache is the facts layer's, filled as questions are asked: the
	 * one place where a question writes into the index it reads. */
	TlFunc *fn = (TlFunc *)&idx->funcs.items[f];
	uint32_t bit = 1u << kind;
	if (fn->ret_known & bit)
		return (fn->ret_yes & bit) != 0;
	unsigned mark;
	if (!tl_facts__summary_enter(fn, bit, &mark))
		return false;
	TlRetWalk w = { pred, kind == TL_RET_CRITERION, false, true };
	tl_facts__each_return(idx, f, tl_facts__summary_visit, &w);
	bool yes = w.all ? w.any && w.none_failed : w.any;
	if (tl_facts__summary_leave(fn, bit, mark)) {
		fn->ret_known |= bit;
		if (yes)
			fn->ret_yes |= bit;
	}
	return yes;
}

