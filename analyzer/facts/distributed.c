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

/* The wrapper kinds (TL_VW_*) that a failed test `isinstance(X, W)` on
 * the way to `use` rules out, X spelt as `use` is and W a wrapper class
 * (or a tuple of classes, some of them wrappers): in the `else:` of `if
 * isinstance(model, nn.DataParallel):`, or after `if isinstance(...):
 * return`, the object is none of them. */
static unsigned tl_facts__ruled_out(const TlIndex *idx, TSNode use)
{
	const TlSyms *sy = tl_syms();
	TlBranchPath path;
	tl_facts__branch_path(idx, use, &path);
	uint32_t ul = 0;
	const char *ut = tl_index_text(idx, use, &ul);
	unsigned out = 0;
	for (uint32_t i = 0; ut && i < path.size; i++) {
		TSNode c = path.items[i].cond;
		if (path.items[i].holds || ts_node_symbol(c) != sy->call ||
		    !tl_index_text_is(idx, tl_tree_field(c, sy->f_function), "isinstance"))
			continue;
		TSNode args = tl_tree_field(c, sy->f_arguments);
		if (ts_node_is_null(args) || ts_node_named_child_count(args) != 2)
			continue;
		uint32_t xl = 0;
		const char *xt = tl_index_text(idx, tl_index_unparen(ts_node_named_child(args, 0)), &xl);
		if (!xt || xl != ul || memcmp(xt, ut, ul) != 0)
			continue;
		TSNode w = tl_index_unparen(ts_node_named_child(args, 1));
		uint32_t nw = ts_node_symbol(w) == sy->tuple ? ts_node_named_child_count(w) : 1;
		for (uint32_t k = 0; k < nw; k++) {
			TSNode one = ts_node_symbol(w) == sy->tuple ? ts_node_named_child(w, k) : w;
			const char *q = tl_index_qualified(idx, one);
			if (q)
				out |= tl_model_wrapper_kinds(q);
		}
	}
	return out;
}

/* The parameter whose argument `e` holds as its function or class
 * received it: a parameter's name bound nowhere else in its function, or
 * `self.<attr>` in a method of a class that binds the attribute only to a
 * parameter (model/handedin.c: tl_model_attr_param); NULL otherwise. */
static const TlBinding *tl_facts__handed_param(const TlIndex *idx, TSNode e)
{
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	TSSymbol s = ts_node_symbol(e);
	int32_t func = tl_index_func_of(idx, e);
	if (s == sy->identifier) {
		const TlBinding *b = tl_index_resolve_node(idx, e);
		if (!b || b->kind != TL_BIND_PARAM || b->func < 0 || b->func != func || !b->name)
			return NULL;
		const TlIntArray *all = tl_index_bindings_of(idx, func, b->name);
		return all && all->size == 1 ? b : NULL;
	}
	if (s != sy->attribute || func < 0 || idx->funcs.items[func].cls < 0)
		return NULL;
	TSNode obj = tl_index_unparen(tl_tree_field(e, sy->f_object));
	if (ts_node_symbol(obj) != sy->identifier || !tl_index_text_is(idx, obj, "self"))
		return NULL;
	char *attr = tl_facts__dotted(idx, e);
	const TlBinding *b = attr ? tl_model_attr_param(idx, idx->funcs.items[func].cls, attr) : NULL;
	tl_free(attr);
	return b && b->kind == TL_BIND_PARAM && b->func >= 0 ? b : NULL;
}

/* The wrapper kinds the entries of a container a parameter holds may be
 * as the project hands it (tl_model_handed_elem_wrap), for `e` a name
 * bound only by a loop over that container's `.values()` or, as the
 * second of a pair, its `.items()`: `for name, net in nets.items():` of
 * a parameter `nets`, or of `self.nets` bound to one. 0 otherwise. */
static unsigned tl_facts__handed_entry_wrap(const TlIndex *idx, TSNode e)
{
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	if (ts_node_symbol(e) != sy->identifier)
		return 0;
	const TlBinding *b = tl_index_resolve_node(idx, e);
	int32_t func = tl_index_func_of(idx, e);
	if (!b || b->kind != TL_BIND_FOR || b->func < 0 || b->func != func || !b->name)
		return 0;
	const TlIntArray *all = tl_index_bindings_of(idx, func, b->name);
	TSNode it = tl_index_unparen(b->value);
	if (!all || all->size != 1 || ts_node_is_null(it) || ts_node_symbol(it) != sy->call)
		return 0;
	TSNode callee = tl_tree_field(it, sy->f_function), args = tl_tree_field(it, sy->f_arguments);
	if (ts_node_symbol(callee) != sy->attribute || ts_node_is_null(args) || ts_node_named_child_count(args))
		return 0;
	TSNode m = tl_tree_field(callee, sy->f_attribute);
	bool values = tl_index_text_is(idx, m, "values") && b->elem < 0;
	bool items = tl_index_text_is(idx, m, "items") && b->elem == 1 && b->depth == 1;
	if (!values && !items)
		return 0;
	const TlBinding *param = tl_facts__handed_param(idx, tl_tree_field(callee, sy->f_object));
	return param ? tl_model_handed_elem_wrap(idx, param) : 0;
}

/* The model's answer: 1 when `e`'s value is a wrapper of `kind` (with
 * `inner`: the module read through one), 0 when it is not, -1 when the
 * model has no value for it. */
int tl_facts__model_wrapped(const TlIndex *idx, TSNode e, TlWrapper kind, bool inner)
{
	TlVal v;
	if (!tl_model_value(idx, e, &v))
		return -1;
	unsigned out = inner ? 0 : tl_facts__ruled_out(idx, tl_index_unparen(e));
	if (out && !((v.wrap & tl_facts__wrap_bits(kind)) & ~out))
		v.wrap = 0; /* every kind it may be is ruled out here */
	if (!(v.wrap & tl_facts__wrap_bits(kind))) {
		/* A module of unknown kind or class that a parameter holds (a
		 * model handed in, kept in `self.model`): a wrapper on some
		 * path when the project hands it one, or a value that is one
		 * on some path (the importer's `if cuda: model =
		 * nn.DataParallel(model)`), as for a wrapper bound in the
		 * function itself below; an entry of a container a parameter
		 * holds, when the project hands it wrappers. */
		if (inner || (v.kind != TL_VK_TOP && !(v.kind == TL_VK_MODULE && v.ref < 0)))
			return 0;
		const TlBinding *param = out ? NULL : tl_facts__handed_param(idx, e);
		unsigned handed = param ? tl_model_handed_wrap(idx, param) : out ? 0 : tl_facts__handed_entry_wrap(idx, e);
		if (!(handed & tl_facts__wrap_bits(kind) & ~out))
			return 0;
		return !tl_facts__wrappers_exclusive(idx, e, kind) && !tl_facts__other_arm_unwraps(idx, e);
	}
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
