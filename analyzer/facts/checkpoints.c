/* Checkpoints: where what torch.load returns goes, and which files the
 * same file wrote from host memory.
 *
 * Owns: tl_facts_load_feeds_state, tl_facts_loads_host_copy. */
#include "facts/internal.h"

/* ---- what a loaded checkpoint feeds --------------------------------------------------- */

static bool tl_facts__feeds(const TlIndex *idx, TSNode e, int depth, int *budget);

/* What tl_facts__name_feeds hands each later read. */
typedef struct TlFeedWalk {
	int depth;
	int *budget;
	bool found;
} TlFeedWalk;

static bool tl_facts__read_feeds(const TlIndex *idx, TSNode n, void *data)
{
	TlFeedWalk *w = data;
	if (--*w->budget < 0)
		return true;
	w->found = tl_facts__feeds(idx, n, w->depth + 1, w->budget);
	return w->found;
}

/* True when the binding that assignment `assign` makes of `name` is read
 * later in the function, at a place that feeds a state dict. */
static bool tl_facts__name_feeds(const TlIndex *idx, TSNode assign, TSNode name, int depth, int *budget)
{
	TlFeedWalk w = { depth, budget, false };
	tl_facts__each_later_read(idx, assign, name, tl_facts__read_feeds, &w);
	return w.found;
}

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

/* True when the value of `e` reaches a load_state_dict(...) call (of a
 * model or an optimizer: see tl_facts__is_load_state_dict): as its
 * state dict, through an entry (`ckpt["model"]`, `ckpt.get("model")`), a
 * dict comprehension over its items (keys renamed), a conditional, names
 * bound to it, and the callers of a function that returns it. */
static bool tl_facts__feeds(const TlIndex *idx, TSNode e, int depth, int *budget)
{
	const TlSyms *sy = tl_syms();
	if (depth > TL_FACTS_DEPTH || --*budget < 0)
		return false;
	TSNode p = tl_index_parent(idx, e);
	while (!ts_node_is_null(p) && ts_node_symbol(p) == sy->parenthesized_expression) {
		e = p;
		p = tl_index_parent(idx, p);
	}
	if (ts_node_is_null(p))
		return false;
	TSSymbol s = ts_node_symbol(p);
	if (s == sy->argument_list) {
		const TlCall *c = tl_index_call_at(idx, tl_index_parent(idx, p));
		return tl_facts__is_load_state_dict(idx, c) && ts_node_eq(tl_facts__arg(c->node, 0), e);
	}
	if (s == sy->keyword_argument) {
		TSNode args = tl_index_parent(idx, p);
		const TlCall *c = ts_node_is_null(args) ? NULL : tl_index_call_at(idx, tl_index_parent(idx, args));
		return tl_facts__is_load_state_dict(idx, c) && ts_node_eq(tl_tree_field(p, sy->f_value), e) &&
		       tl_index_text_is(idx, tl_tree_field(p, sy->f_name), "state_dict");
	}
	if (s == sy->subscript)
		return ts_node_eq(tl_tree_field(p, sy->f_value), e) && tl_facts__feeds(idx, p, depth + 1, budget);
	if (s == sy->conditional_expression || s == sy->boolean_operator)
		return tl_facts__feeds(idx, p, depth + 1, budget);
	if (s == sy->attribute) {
		/* ckpt.get("model"), ckpt.pop("model"); {k: v for k, v in sd.items()} */
		TSNode call = tl_index_parent(idx, p);
		if (!ts_node_eq(tl_tree_field(p, sy->f_object), e) || ts_node_is_null(call) ||
		    ts_node_symbol(call) != sy->call)
			return false;
		TSNode attr = tl_tree_field(p, sy->f_attribute);
		if (tl_index_text_is(idx, attr, "get") || tl_index_text_is(idx, attr, "pop") ||
		    tl_index_text_is(idx, attr, "copy"))
			return tl_facts__feeds(idx, call, depth + 1, budget);
		if (!tl_index_text_is(idx, attr, "items"))
			return false;
		TSNode clause = tl_index_parent(idx, call);
		TSNode comp = ts_node_is_null(clause) ? clause : tl_index_parent(idx, clause);
		return !ts_node_is_null(comp) && ts_node_symbol(clause) == sy->for_in_clause &&
		       ts_node_symbol(comp) == sy->dictionary_comprehension &&
		       tl_facts__feeds(idx, comp, depth + 1, budget);
	}
	if (s == sy->assignment) {
		TSNode left = tl_tree_field(p, sy->f_left);
		if (!ts_node_eq(tl_tree_field(p, sy->f_right), e) || ts_node_is_null(left) ||
		    ts_node_symbol(left) != sy->identifier)
			return false;
		return tl_facts__name_feeds(idx, p, left, depth, budget);
	}
	if (s == sy->return_statement) {
		int32_t func = tl_index_func_of(idx, p);
		if (func < 0)
			return false;
		const TlFunc *f = &idx->funcs.items[func];
		for (uint32_t i = 0; i < f->call_sites.size; i++) {
			const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
			if (c->func != func && tl_facts__feeds(idx, c->node, depth + 1, budget))
				return true;
		}
	}
	return false;
}

bool tl_facts_load_feeds_state(const TlIndex *idx, TSNode call)
{
	call = tl_index_unparen(call);
	if (ts_node_is_null(call) || !tl_facts_is_api(idx, call, TL_API_TORCH_LOAD))
		return false;
	int budget = TL_FACTS_BUDGET;
	return tl_facts__feeds(idx, call, 0, &budget);
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
