/* TL105's rule logic (distributed-load-without-map-location).
 * Checkpoints: where what torch.load returns goes, and which files the
 * same file wrote from host memory; code that only the process of rank 0
 * runs; a torch.load whose other arm passes map_location; files that run
 * distributed training.
 *
 * Owns: tl_check_load_feeds_state, tl_check_loads_host_copy,
 * tl_check_rank_zero_only, tl_check_other_arm_passes,
 * tl_check_distributed_file. */
#include "rules/checks/checks.h"

#include "facts/internal.h"

#include "model/model.h"

/* ---- what a loaded checkpoint feeds --------------------------------------------------- */

/* True when `c` is `X.load_state_dict(...)` of something whose state may
 * hold tensors: not of a learning-rate scheduler or a GradScaler (their
 * state dicts hold Python numbers), nor of a receiver whose name says it
 * holds bookkeeping (a message hub, a sampler, a loader, a logger, a
 * meter). Names only exclude here, they never make a finding. */
static bool tl_check__is_load_state_dict(const TlIndex *idx, const TlCall *c)
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

bool tl_check_load_feeds_state(const TlIndex *idx, TSNode call)
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
			yes = tl_check__is_load_state_dict(idx, &idx->calls.items[calls.items[i]]);
	tl_array_release(&calls);
	return yes;
}

/* ---- files saved from host memory ------------------------------------------------------ */

/* `"cpu"`, or `torch.device("cpu")`. */
static bool tl_check__names_cpu(const TlIndex *idx, TSNode a)
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
static bool tl_check__moved_to_host(const TlIndex *idx, TSNode e, int depth)
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
				found = tl_check__names_cpu(idx, ts_node_is_null(a) ? tl_facts__arg(n, 0) : a);
			}
		} else if (s == sy->identifier && !ts_node_eq(n, e)) {
			const TlBinding *b = tl_index_resolve_node(idx, n);
			TSNode v = tl_facts__bound_value(b);
			if (!ts_node_is_null(v) && !tl_facts__contains(v, n) && !tl_facts__contains(e, v))
				found = tl_check__moved_to_host(idx, v, depth + 1);
		}
	} while (!found && tl_walk_next(&cur, e, descend));
	ts_tree_cursor_delete(&cur);
	return found;
}

bool tl_check_loads_host_copy(const TlIndex *idx, TSNode call)
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
		if (tl_check__moved_to_host(idx, obj, 0))
			return true;
	}
	return false;
}

/* ---- rank 0 ----------------------------------------------------------------------------- */

/* The last part of a dotted name or of the callee of a call, lowercased
 * into buf; "" when it has none. */
static const char *tl_check__last_lower(const TlIndex *idx, TSNode e, char *buf, size_t size)
{
	const TlSyms *sy = tl_syms();
	buf[0] = '\0';
	if (ts_node_symbol(e) == sy->call)
		e = tl_tree_field(e, sy->f_function);
	if (!ts_node_is_null(e) && ts_node_symbol(e) == sy->attribute)
		e = tl_tree_field(e, sy->f_attribute);
	if (ts_node_is_null(e) || ts_node_symbol(e) != sy->identifier)
		return buf;
	uint32_t len = 0;
	const char *t = tl_index_text(idx, e, &len);
	if (!t || len + 1 > size)
		return buf;
	memcpy(buf, t, len);
	buf[len] = '\0';
	tl_facts__lower(buf, buf, size);
	return buf;
}

/* An expression holding this process's rank: a name whose last part says
 * rank (`rank`, `args.local_rank`, `self.global_rank`; not world sizes or
 * lists of ranks), `dist.get_rank()` and the like, accelerate's
 * `process_index`. */
static bool tl_check__rankish(const TlIndex *idx, TSNode e)
{
	const TlSyms *sy = tl_syms();
	static const char *const calls[] = {
		"get_rank", "get_local_rank", "get_global_rank", "get_ordinal", "get_node_rank",
	};
	char buf[64];
	e = tl_index_unparen(e);
	if (ts_node_is_null(e))
		return false;
	TSSymbol s = ts_node_symbol(e);
	const char *last = tl_check__last_lower(idx, e, buf, sizeof buf);
	if (s == sy->call)
		return IN(last, calls);
	if (s != sy->identifier && s != sy->attribute)
		return false;
	if (strcmp(last, "process_index") == 0 || strcmp(last, "local_process_index") == 0)
		return true;
	size_t n = strlen(last);
	return (strcmp(last, "rank") == 0 || (n > 5 && strcmp(last + n - 5, "_rank") == 0)) &&
	       !strstr(last, "world");
}

/* A flag or call that is true on the main process only. */
static bool tl_check__mainish(const TlIndex *idx, TSNode e)
{
	const TlSyms *sy = tl_syms();
	static const char *const names[] = {
		"is_main_process", "is_master", "master_process", "is_master_process", "is_rank_zero",
		"is_rank_0", "is_global_zero", "is_local_main_process", "is_local_master", "is_main",
		"main_process", "is_world_process_zero", "is_local_process_zero", "rank_zero",
		"is_primary", "is_main_rank", "is_master_rank",
	};
	char buf[64];
	TSSymbol s = ts_node_symbol(e);
	if (s != sy->call && s != sy->identifier && s != sy->attribute)
		return false;
	return IN(tl_check__last_lower(idx, e, buf, sizeof buf), names);
}

static bool tl_check__int_is(const TlIndex *idx, TSNode e, long v)
{
	double d;
	return tl_facts_number(idx, e, &d) && d == (double)v;
}

/* Every element of a tuple / list literal is -1 or 0 (`rank in (-1, 0)`). */
static bool tl_check__zero_set(const TlIndex *idx, TSNode e)
{
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	if (ts_node_is_null(e) || (ts_node_symbol(e) != sy->tuple && ts_node_symbol(e) != sy->list))
		return false;
	uint32_t n = ts_node_named_child_count(e);
	for (uint32_t i = 0; i < n; i++) {
		TSNode x = ts_node_named_child(e, i);
		if (!tl_check__int_is(idx, x, 0) && !tl_check__int_is(idx, x, -1))
			return false;
	}
	return n > 0;
}

/* True when `cond` evaluating to `holds` means this is the process of rank
 * 0 (or the only one: rank -1 where no process group runs; `rank == -1 or
 * get_rank() == 0` counts, each side being such a test). */
static bool tl_check__rank_zero_when(const TlIndex *idx, TSNode cond, bool holds, int depth)
{
	const TlSyms *sy = tl_syms();
	cond = tl_facts__cond_core(cond, &holds);
	if (ts_node_is_null(cond) || depth > TL_FACTS_DEPTH)
		return false;
	TSSymbol s = ts_node_symbol(cond);
	if (tl_check__mainish(idx, cond))
		return holds;
	if (tl_check__rankish(idx, cond))
		return !holds; /* `if not rank:` */
	if (s == sy->boolean_operator) {
		TSNode l = tl_tree_field(cond, sy->f_left), r = tl_tree_field(cond, sy->f_right);
		TSNode op = tl_tree_field(cond, sy->f_operator);
		bool is_and = !ts_node_is_null(op) && strcmp(ts_node_type(op), "and") == 0;
		if (is_and == holds) /* `a and b` true, `a or b` false: both hold */
			return tl_check__rank_zero_when(idx, l, holds, depth + 1) ||
			       tl_check__rank_zero_when(idx, r, holds, depth + 1);
		/* `a or b` true (`rank == -1 or get_rank() == 0`): either may hold */
		return tl_check__rank_zero_when(idx, l, holds, depth + 1) &&
		       tl_check__rank_zero_when(idx, r, holds, depth + 1);
	}
	if (s != sy->comparison_operator || ts_node_child_count(cond) != 3)
		return false;
	TSNode l = ts_node_child(cond, 0), r = ts_node_child(cond, 2);
	const char *op = ts_node_type(ts_node_child(cond, 1));
	if (tl_check__rankish(idx, r) && (strcmp(op, "==") == 0 || strcmp(op, "!=") == 0)) {
		TSNode t = l;
		l = r;
		r = t;
	}
	if (!tl_check__rankish(idx, l))
		return false;
	/* rank -1: no process group, the only process */
	bool zero = tl_check__int_is(idx, r, 0) || tl_check__int_is(idx, r, -1);
	if (strcmp(op, "==") == 0 || strcmp(op, "is") == 0)
		return holds && zero;
	if (strcmp(op, "!=") == 0 || strcmp(op, "is not") == 0)
		return !holds && zero;
	if (strcmp(op, "<=") == 0)
		return holds && tl_check__int_is(idx, r, 0);
	if (strcmp(op, "<") == 0)
		return holds && tl_check__int_is(idx, r, 1);
	if (strcmp(op, ">") == 0)
		return !holds && tl_check__int_is(idx, r, 0);
	if (strcmp(op, ">=") == 0)
		return !holds && tl_check__int_is(idx, r, 1);
	if (strcmp(op, "in") == 0)
		return holds && tl_check__zero_set(idx, r);
	if (strcmp(op, "not in") == 0)
		return !holds && tl_check__zero_set(idx, r);
	return false;
}

static bool tl_check__rank_zero(const TlIndex *idx, TSNode node, int depth, int *budget)
{
	if (depth > TL_FACTS_DEPTH || --*budget < 0)
		return false;
	TlBranchPath path;
	tl_facts__branch_path(idx, node, &path);
	for (uint32_t i = 0; i < path.size; i++)
		if (tl_check__rank_zero_when(idx, path.items[i].cond, path.items[i].holds, 0))
			return true;
	/* A function only ever called on rank 0. */
	int32_t func = tl_index_func_of(idx, node);
	if (func < 0)
		return false;
	const TlFunc *f = &idx->funcs.items[func];
	if (f->escapes || !f->call_sites.size)
		return false;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (c->func == func || !tl_check__rank_zero(idx, c->node, depth + 1, budget))
			return false;
	}
	return true;
}

bool tl_check_rank_zero_only(const TlIndex *idx, TSNode node)
{
	int budget = TL_FACTS_BUDGET;
	return tl_check__rank_zero(idx, node, 0, &budget);
}

/* ---- the other arm passes it ----------------------------------------------------------- */

/* What tl_check_other_arm_passes hands each arm. */
typedef struct TlArmCall {
	const char *callee;
	uint32_t len;
	const char *param;
} TlArmCall;

static bool tl_check__arm_passes(const TlIndex *idx, TSNode arm, void *data)
{
	const TlArmCall *w = data;
	const TlSyms *sy = tl_syms();
	TSTreeCursor cur = ts_tree_cursor_new(arm);
	bool found = false;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		if (ts_node_symbol(x) != sy->call)
			continue;
		uint32_t l = 0;
		const char *t = tl_index_text(idx, tl_tree_field(x, sy->f_function), &l);
		found = t && l == w->len && memcmp(t, w->callee, l) == 0 && tl_facts_passes_argument(idx, x, w->param);
	} while (!found && tl_walk_next(&cur, arm, true));
	ts_tree_cursor_delete(&cur);
	return found;
}

bool tl_check_other_arm_passes(const TlIndex *idx, TSNode call, const char *param)
{
	const TlSyms *sy = tl_syms();
	call = tl_index_unparen(call);
	if (ts_node_is_null(call) || ts_node_symbol(call) != sy->call)
		return false;
	TlArmCall w = { NULL, 0, param };
	w.callee = tl_index_text(idx, tl_tree_field(call, sy->f_function), &w.len);
	return w.callee && tl_facts__other_arm(idx, call, tl_check__arm_passes, &w);
}

/* ---- files that run distributed training ------------------------------------------- */

/* The string literals that say a launcher's local rank is read:
 * os.environ["LOCAL_RANK"], os.getenv("LOCAL_RANK"), the `--local_rank`
 * option torch.distributed.launch passes. */
static bool tl_check__local_rank_string(const TlIndex *idx, TSNode n)
{
	const TlSyms *sy = tl_syms();
	static const char *const names[] = { "LOCAL_RANK", "--local_rank", "--local-rank" };
	uint32_t len = 0;
	const char *body = tl_facts__string_body(idx, n, &len);
	if (!body)
		return false;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (len == strlen(names[i]) && memcmp(body, names[i], len) == 0) {
			TSNode p = tl_index_parent(idx, n);
			return !ts_node_is_null(p) &&
			       (ts_node_symbol(p) == sy->argument_list || ts_node_symbol(p) == sy->subscript);
		}
	return false;
}

bool tl_check_distributed_file(const TlIndex *idx)
{
	const TlSyms *sy = tl_syms();
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const char *q = idx->calls.items[i].qname;
		if (q && ((tl_facts__starts(q, "torch.distributed.") && tl_facts__ends(q, ".init_process_group")) ||
			  tl_facts__wrapper_qname(q, TL_WRAP_DDP) || tl_facts__wrapper_qname(q, TL_WRAP_FSDP) ||
			  tl_facts__sharding_qname(q)))
			return true;
	}
	TSTreeCursor cur = ts_tree_cursor_new(idx->root);
	bool found = false;
	do {
		TSNode n = ts_tree_cursor_current_node(&cur);
		found = ts_node_symbol(n) == sy->string && tl_check__local_rank_string(idx, n);
	} while (!found && tl_walk_next(&cur, idx->root, true));
	ts_tree_cursor_delete(&cur);
	return found;
}
