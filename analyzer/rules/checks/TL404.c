/* TL404's rule logic (half-overflow-constant). Whether a value was converted
 * to float32 or wider, the model's answer; whether a node may compute in
 * float16.
 *
 * Owns: tl_check_float32_value, tl_check_runs_in_half. */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

bool tl_check_float32_value(const TlIndex *idx, TSNode expr)
{
	TlVal v;
	return tl_model_value(idx, expr, &v) && (v.dtype == TL_VT_FLOAT32 || v.dtype == TL_VT_FLOAT64);
}

/* ---- float16 ------------------------------------------------------------------------ */

/* True when some call of the file converts a module or tensor to float16:
 * `x.half()`, or torch.float16 / torch.half passed to a call (`.to(torch.half)`,
 * `dtype=torch.float16`) other than an autocast (its region is a context). */
/* A call of the file that converts to float16: `.half()`, or a float16
 * dtype among the arguments of a call that opens no autocast region. */
static bool tl_check__converts_to_half(const TlIndex *idx)
{
	const TlSyms *sy = tl_syms();
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (c->receiver.id && c->method && strcmp(c->method, "half") == 0 &&
		    tl_facts__argc(c->node) == 0)
			return true;
		TSNode args = tl_tree_field(c->node, sy->f_arguments);
		if (ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list)
			continue;
		/* The arguments first: the call's context kind resolves its
		 * callee, and most calls pass no float16 dtype. */
		bool half = false;
		uint32_t n = ts_node_named_child_count(args);
		for (uint32_t k = 0; k < n && !half; k++) {
			TSNode a = ts_node_named_child(args, k);
			if (ts_node_symbol(a) == sy->keyword_argument)
				a = tl_tree_field(a, sy->f_value);
			half = tl_facts_is_half_dtype(idx, a);
		}
		if (half && !(tl_facts_context_kind(idx, c->node) & (TL_CTX_AUTOCAST | TL_CTX_AUTOCAST_OFF)))
			return true;
	}
	return false;
}

/* The same, found once per file once its facts are built (TL404 asks it
 * of each constant written into a tensor outside an autocast region). */
static bool tl_check__file_converts_to_half(const TlIndex *idx)
{
	TlFactsCache *fc = idx->facts_cache;
	if (fc && fc->complete && fc->converts_half)
		return fc->converts_half == 2;
	bool yes = tl_check__converts_to_half(idx);
	if (fc && fc->complete)
		fc->converts_half = yes ? 2 : 1;
	return yes;
}

bool tl_check_runs_in_half(const TlIndex *idx, TSNode node)
{
	return tl_facts_under(idx, node, TL_CTX_AUTOCAST | TL_CTX_HALF_AUTOCAST) ||
	       tl_check__file_converts_to_half(idx);
}
