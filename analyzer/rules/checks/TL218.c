/* TL218's rule logic (fsdp-optimizer-before-wrap). An optimizer built before
 * FSDP replaced its module's parameters.
 *
 * Owns: tl_check_optimizer_before_shard, tl_check_optimizer_before_shard_nowhere. */
#include "rules/checks/checks.h"

#include "facts/internal.h"

/* The dotted names of the modules whose `.parameters()` /
 * `.named_parameters()` the subtree of `arg` reads, also through the names
 * it reads that are bound once to a value (`decay = [p for n, p in
 * model.named_parameters() ...]`), into `out` (caller releases with
 * tl_facts__names_release). */
static void tl_check__parameter_owners(const TlIndex *idx, TSNode arg, TlNames *out)
{
	const TlSyms *sy = tl_syms();
	TSNode todo[16];
	uint32_t n = 0, seen = 0;
	if (!ts_node_is_null(arg))
		todo[n++] = arg;
	while (n && seen++ < 16) {
		TSNode top = todo[--n];
		TSTreeCursor cur = ts_tree_cursor_new(top);
		bool descend = true;
		do {
			TSNode x = ts_tree_cursor_current_node(&cur);
			descend = true;
			TSSymbol s = ts_node_symbol(x);
			if (s == sy->identifier && n < 16) {
				const TlBinding *b = tl_index_resolve_node(idx, x);
				TSNode v = tl_facts__bound_value(b);
				if (!ts_node_is_null(v) && b->kind == TL_BIND_ASSIGN && b->elem < 0 &&
				    !tl_facts__contains(v, x) && !tl_facts__contains(top, v))
					todo[n++] = v;
				continue;
			}
			if (s != sy->call || out->size >= 16)
				continue;
			const TlCall *c = tl_index_call_at(idx, x);
			if (!c || !c->receiver.id || !(tl_api_method_sets(c->method) & TL_APIS_PARAMETERS))
				continue;
			char *name = tl_facts__dotted(idx, c->receiver);
			if (name)
				tl_array_push(out, name);
		} while (tl_walk_next(&cur, top, descend));
		ts_tree_cursor_delete(&cur);
	}
}

/* The dotted name of the module a wrapper call wraps (its first argument,
 * through `.to(device)` and the like); NULL when none. Caller frees. */
static char *tl_check__wrapped_name(const TlIndex *idx, TSNode call)
{
	TSNode a = tl_facts__kwarg(idx, call, "module");
	if (ts_node_is_null(a))
		a = tl_facts__arg(call, 0);
	for (int depth = 0; depth < TL_FACTS_DEPTH; depth++) {
		a = tl_index_unparen(a);
		if (ts_node_is_null(a) || ts_node_symbol(a) != tl_syms()->call)
			break;
		const TlCall *c = tl_index_call_at(idx, a);
		if (!c || !c->receiver.id || !c->method || !tl_api_returns_self(c->method))
			return NULL;
		a = c->receiver;
	}
	return ts_node_is_null(a) ? NULL : tl_facts__dotted(idx, a);
}

bool tl_check_optimizer_before_shard(const TlIndex *idx, TSNode ctor)
{
	ctor = tl_index_unparen(ctor);
	const TlCall *oc = tl_index_call_at(idx, ctor);
	if (!oc || !oc->qname || !tl_facts__optimizer_qname(oc->qname))
		return false;
	TSNode params = tl_facts__kwarg(idx, ctor, "params");
	if (ts_node_is_null(params))
		params = tl_facts__arg(ctor, 0);
	TlNames owners;
	tl_array_init(&owners);
	tl_check__parameter_owners(idx, params, &owners);
	bool before = false, rebuilt = false;
	const TlIntArray *calls = tl_index_scope_calls(idx, oc->func);
	for (uint32_t i = 0; calls && i < calls->size && owners.size && !rebuilt; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (c->start_byte < oc->end_byte)
			continue;
		if (!before) {
			if (!c->qname || !tl_facts__sharding_qname(c->qname))
				continue;
			char *wrapped = tl_check__wrapped_name(idx, c->node);
			for (uint32_t k = 0; wrapped && k < owners.size && !before; k++)
				before = strcmp(owners.items[k], wrapped) == 0;
			tl_free(wrapped);
			continue;
		}
		/* After the wrap: a new optimizer, or accelerate's prepare. */
		rebuilt = (c->qname && tl_facts__optimizer_qname(c->qname) &&
			   !tl_facts__sharding_qname(c->qname)) ||
			  (c->method && strcmp(c->method, "prepare") == 0);
	}
	tl_facts__names_release(&owners);
	return before && !rebuilt;
}

bool tl_check_optimizer_before_shard_nowhere(const TlIndex *idx)
{
	/* tl_check_optimizer_before_shard needs a wrap after the optimizer
	 * among its function's calls. */
	for (uint32_t i = 0; i < idx->calls.size; i++)
		if (idx->calls.items[i].qname && tl_facts__sharding_qname(idx->calls.items[i].qname))
			return false;
	return true;
}
