/* Checkpoints: where what torch.load returns goes, and which files the
 * same file wrote from host memory.
 *
 * Owns: tl_facts_load_feeds_state, tl_facts_loads_host_copy. */
#include "facts/internal.h"

#include "model/model.h"

/* ---- what a loaded checkpoint feeds --------------------------------------------------- */

/* True when `c` is `X.load_state_dict(...)` of something whose state may
 * hold tensors: not of a learning-rate scheduler or a GradScaler (their
 * state dicts hold Python numbers), nor of a receiver whose name says it
 * holds bookkeeping (a message hub, a sampler, a loader, a logger, a
 * meter). Names only exclude here, they never make a finding. */
static bool tl_facts__is_load_state_dict(const TlIndex *idx, const TlCall *c)
{
	static const char *const plain[] = { "sched", "scaler", "hub", "sampler", "loader", "logger", "meter" };
	if (!c || !c->method || strcmp(c->method, "load_state_dict") != 0)
		return false;
	if (c->recv_name) {
		char low[128];
		tl_facts__lower(tl_facts__last(c->recv_name), low, sizeof low);
		for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
			if (strstr(low, plain[i]))
				return false;
	}
	const TlBinding *b = ts_node_is_null(c->receiver) ? NULL : tl_index_resolve_node(idx, c->receiver);
	TSNode v = tl_index_unparen(tl_facts__bound_value(b));
	const TlCall *ctor = ts_node_is_null(v) ? NULL : tl_index_call_at(idx, v);
	return !(ctor && ctor->qname && (tl_facts__starts(ctor->qname, "torch.optim.lr_scheduler.") ||
					 tl_facts__ends(ctor->qname, "GradScaler")));
}

bool tl_facts_load_feeds_state(const TlIndex *idx, TSNode call)
{
	call = tl_index_unparen(call);
	if (ts_node_is_null(call) || !tl_facts_is_api(idx, call, TL_API_TORCH_LOAD))
		return false;
	/* The model's answer (model/flow.c): the object, or what is read out
	 * of it, reaches a load_state_dict of something whose state may hold
	 * tensors. */
	TlIntArray calls;
	tl_array_init(&calls);
	bool yes = false;
	if (tl_model_stored(idx, call, TL_MODEL_LOADED, &calls) > 0)
		for (uint32_t i = 0; i < calls.size && !yes; i++)
			yes = tl_facts__is_load_state_dict(idx, &idx->calls.items[calls.items[i]]);
	tl_array_release(&calls);
	return yes;
}

/* ---- files saved from host memory ------------------------------------------------------ */

/* `"cpu"`, or `torch.device("cpu")`. */
static bool tl_facts__names_cpu(const TlIndex *idx, TSNode a)
{
	a = tl_index_unparen(a);
	if (ts_node_is_null(a))
		return false;
	if (ts_node_symbol(a) == tl_syms()->call) {
		const TlCall *c = tl_index_call_at(idx, a);
		if (!c || !c->qname || strcmp(c->qname, "torch.device") != 0)
			return false;
		a = tl_facts__arg(a, 0);
	}
	uint32_t len = 0;
	const char *body = tl_facts__string_body(idx, a, &len);
	return body && len == 3 && memcmp(body, "cpu", 3) == 0;
}

/* True when the subtree of `e`, or the value a name in it is bound to (a
 * few steps), moves data to the host: `.cpu()`, `.to("cpu")`,
 * `.to(torch.device("cpu"))`. */
static bool tl_facts__moved_to_host(const TlIndex *idx, TSNode e, int depth)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_is_null(e) || depth > 4)
		return false;
	TSTreeCursor cur = ts_tree_cursor_new(e);
	bool found = false, descend = true;
	do {
		TSNode n = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(n);
		descend = true;
		if (s == sy->call) {
			const TlCall *c = tl_index_call_at(idx, n);
			if (c && c->method && c->receiver.id && strcmp(c->method, "cpu") == 0) {
				found = true;
			} else if (c && c->method && c->receiver.id && strcmp(c->method, "to") == 0) {
				TSNode a = tl_facts__kwarg(idx, n, "device");
				found = tl_facts__names_cpu(idx, ts_node_is_null(a) ? tl_facts__arg(n, 0) : a);
			}
		} else if (s == sy->identifier && !ts_node_eq(n, e)) {
			const TlBinding *b = tl_index_resolve_node(idx, n);
			TSNode v = tl_facts__bound_value(b);
			if (!ts_node_is_null(v) && !tl_facts__contains(v, n) && !tl_facts__contains(e, v))
				found = tl_facts__moved_to_host(idx, v, depth + 1);
		}
	} while (!found && tl_walk_next(&cur, e, descend));
	ts_tree_cursor_delete(&cur);
	return found;
}

bool tl_facts_loads_host_copy(const TlIndex *idx, TSNode call)
{
	call = tl_index_unparen(call);
	if (ts_node_is_null(call) || !tl_facts_is_api(idx, call, TL_API_TORCH_LOAD))
		return false;
	TSNode path = tl_facts__arg(call, 0);
	if (ts_node_is_null(path))
		path = tl_facts__kwarg(idx, call, "f");
	uint32_t plen = 0;
	const char *ptext = ts_node_is_null(path) ? NULL : tl_index_text(idx, path, &plen);
	if (!ptext)
		return false;
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (!c->qname || !tl_facts__qname_is_api(c->qname, TL_API_TORCH_SAVE))
			continue;
		TSNode to = tl_facts__arg(c->node, 1);
		if (ts_node_is_null(to))
			to = tl_facts__kwarg(idx, c->node, "f");
		uint32_t tlen = 0;
		const char *ttext = ts_node_is_null(to) ? NULL : tl_index_text(idx, to, &tlen);
		if (!ttext || tlen != plen || memcmp(ttext, ptext, plen) != 0)
			continue;
		TSNode obj = tl_facts__arg(c->node, 0);
		if (ts_node_is_null(obj))
			obj = tl_facts__kwarg(idx, c->node, "obj");
		if (tl_facts__moved_to_host(idx, obj, 0))
			return true;
	}
	return false;
}
