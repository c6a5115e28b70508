/* Wrappers: DistributedDataParallel, DataParallel, FSDP and torch.compile
 * wrappers as the model knows them, and the module inside one reached
 * around it. The questions of one rule each are those rules' own logic in
 * rules/checks/: accumulation backwards, no_sync and forwards through a
 * DDP module (TL502), an optimizer built before FSDP replaced its
 * parameters (TL218), a wrapper itself (TL504), a file that runs
 * distributed training (TL105).
 *
 * Owns: tl_facts_wrapped_module (the module inside a wrapper, reached
 * around it), tl_facts__wrapper_qname, tl_facts__model_wrapped,
 * tl_facts__sharding_qname. */
#include "model/model.h"
#include "facts/internal.h"

/* ---- wrappers ---------------------------------------------------------------------------- */

/* The model's wrapper bits (TlVal.wrap) of each TlWrapper. */
static unsigned tl_facts__wrap_bits(TlWrapper kind)
{
	switch (kind) {
	case TL_WRAP_DDP: return TL_VW_DDP;
	case TL_WRAP_FSDP: return TL_VW_FSDP;
	case TL_WRAP_PREFIXED: return TL_VW_DDP | TL_VW_DATA_PARALLEL | TL_VW_COMPILED;
	case TL_WRAP_DATA_PARALLEL: return TL_VW_DDP | TL_VW_DATA_PARALLEL;
	case TL_WRAP_COMPILED: return TL_VW_COMPILED;
	}
	return 0;
}

/* True when a call of `q` makes a wrapper of `kind`: its table row of
 * role wrapper says so (api/api.tsv's wrap-* sets, as the model reads
 * them). */
bool tl_facts__wrapper_qname(const char *q, TlWrapper kind)
{
	return (tl_model_wrapper_kinds(q) & tl_facts__wrap_bits(kind)) != 0;
}

/* True when the function of `use` makes a wrapper of `kind` and every
 * such call is on a branch `use` cannot run with. */
static bool tl_facts__wrappers_exclusive(const TlIndex *idx, TSNode use, TlWrapper kind)
{
	const TlIntArray *calls = tl_index_scope_calls(idx, tl_index_func_of(idx, use));
	bool any = false;
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (!c->qname || !tl_facts__wrapper_qname(c->qname, kind))
			continue;
		if (!tl_facts_exclusive_paths(idx, c->node, use))
			return false;
		any = true;
	}
	return any;
}

/* True when the subtree of `n` reads `text.module` or `text._orig_mod`
 * (`text`: `len` bytes of source). Iterative. */
static bool tl_facts__reads_inner(const TlIndex *idx, TSNode n, const char *text, uint32_t len)
{
	const TlSyms *sy = tl_syms();
	TSTreeCursor cur = ts_tree_cursor_new(n);
	bool found = false;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		if (ts_node_symbol(x) != sy->attribute)
			continue;
		TSNode attr = tl_tree_field(x, sy->f_attribute);
		if (!tl_index_text_is(idx, attr, "module") && !tl_index_text_is(idx, attr, "_orig_mod"))
			continue;
		uint32_t ol = 0;
		const char *ot = tl_index_text(idx, tl_index_unparen(tl_tree_field(x, sy->f_object)), &ol);
		found = ot && ol == len && memcmp(ot, text, len) == 0;
	} while (!found && tl_walk_next(&cur, n, true));
	ts_tree_cursor_delete(&cur);
	return found;
}

/* What tl_facts__other_arm_unwraps hands tl_facts__reads_inner. */
typedef struct TlInnerOf {
	const char *text;
	uint32_t len;
} TlInnerOf;

static bool tl_facts__arm_reads_inner(const TlIndex *idx, TSNode arm, void *data)
{
	const TlInnerOf *in = data;
	return tl_facts__reads_inner(idx, arm, in->text, in->len);
}

/* True when the other arm of a branch `use` sits in reads the same
 * expression's `.module` or `._orig_mod`: the author unwraps there, so
 * this arm is written for the bare module (`m.module.state_dict() if
 * world_size > 1 else m.state_dict()`). */
static bool tl_facts__other_arm_unwraps(const TlIndex *idx, TSNode use)
{
	TlInnerOf in = { NULL, 0 };
	in.text = tl_index_text(idx, use, &in.len);
	return in.text && tl_facts__other_arm(idx, use, tl_facts__arm_reads_inner, &in);
}

/* The model's answer: 1 when `e`'s value is a wrapper of `kind` (with
 * `inner`: the module read through one), 0 when it is not, -1 when the
 * model has no value for it. */
int tl_facts__model_wrapped(const TlIndex *idx, TSNode e, TlWrapper kind, bool inner)
{
	TlVal v;
	if (!tl_model_value(idx, e, &v))
		return -1;
	if (!(v.wrap & tl_facts__wrap_bits(kind)))
		return 0;
	if (inner)
		return v.kind == TL_VK_MODULE || v.kind == TL_VK_OBJECT;
	if (v.kind == TL_VK_WRAPPER)
		return 1;
	/* A wrapper on some paths (`if cuda: net = DataParallel(net)`, read
	 * after the join): one unless every wrapper call of the function is
	 * on a branch the use cannot run with (`if ddp:` ... `else:` of the
	 * same test), or the use's other arm unwraps it. */
	return v.kind == TL_VK_TOP && !tl_facts__wrappers_exclusive(idx, e, kind) &&
	       !tl_facts__other_arm_unwraps(idx, e);
}

/* The module inside a wrapper of `kind`, read around it: `ddp.module`, a
 * name bound to it, what an unwrapping helper hands back, a parameter
 * every caller passes such a module: the model's module read through the
 * wrapper (TlVal.wrap on a module). */
bool tl_facts_wrapped_module(const TlIndex *idx, TSNode e, TlWrapper kind)
{
	return tl_facts__model_wrapped(idx, e, kind, true) == 1;
}

/* ---- sharding ------------------------------------------------------------------------- */

/* Wrappers that replace a module's parameters by sharded ones: FSDP
 * (torch's, fairscale's) and FSDP2's fully_shard. */
bool tl_facts__sharding_qname(const char *q)
{
	return tl_facts__ends(q, "FullyShardedDataParallel") ||
	       (tl_facts__ends(q, ".fully_shard") && tl_facts__starts(q, "torch.distributed."));
}
