/* Gradient accumulation and DDP: accumulation backwards, no_sync contexts and
 * forwards through a DistributedDataParallel module.
 *
 * Owns: tl_facts_accumulation_backward, tl_facts_no_sync, tl_facts_ddp_forward,
 * tl_facts_wrapped_module (the module inside a wrapper, reached around it),
 * tl_facts_optimizer_before_shard (an optimizer built before FSDP replaced its parameters),
 * tl_facts_wrapped_by (a wrapper itself, not reached across exclusive branches). */
#include "model/model.h"
#include "facts/internal.h"

/* ---- gradient accumulation and DDP ------------------------------------------------------- */

/* True when the backward at `at` (in `loop` of `func`) runs on iterations
 * that do not step: see tl_facts_accumulation_backward. */
static bool tl_facts__accum_at(const TlIndex *idx, TSNode at, int32_t func, int32_t loop, int depth,
			      int *budget)
{
	if (depth > TL_FACTS_DEPTH || --*budget < 0)
		return false;
	if (loop < 0) {
		if (func < 0)
			return false;
		const TlFunc *f = &idx->funcs.items[func];
		for (uint32_t i = 0; i < f->call_sites.size; i++) {
			const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
			if (c->func != func && tl_facts__accum_at(idx, c->node, c->func, c->loop, depth + 1, budget))
				return true;
		}
		return false;
	}
	const TlLoop *l = &idx->loops.items[loop];
	if (!(l->own_events & TL_EV_OPT_STEP)) {
		/* A micro-batch loop: the step comes after it, in the loop around it. */
		return l->parent >= 0 && (idx->loops.items[l->parent].own_events & TL_EV_OPT_STEP);
	}
	/* Every step of the iteration sits under an every-N guard that does
	 * not also hold `at`. */
	const TlIntArray *calls = tl_index_scope_calls(idx, l->func);
	bool any = false;
	uint32_t from, to;
	tl_index_scope_calls_in(idx, l->func, l->body, &from, &to);
	for (uint32_t i = from; i < to; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (c->loop != loop)
			continue;
		uint32_t ev = c->events | (c->target >= 0 ? idx->funcs.items[c->target].flat_events : 0);
		if (!(ev & TL_EV_OPT_STEP))
			continue;
		any = true;
		TSNode g = tl_facts__guard_between(idx, c->node, l->body);
		TSNode ga = tl_facts__guard_between(idx, at, l->body);
		if (ts_node_is_null(g) || tl_facts__contains(g, at) ||
		    (!ts_node_is_null(ga) && ts_node_eq(ga, g)))
			return false;
	}
	return any;
}

bool tl_facts_accumulation_backward(const TlIndex *idx, TSNode call)
{
	int budget = TL_FACTS_BUDGET;
	return tl_facts__accum_at(idx, call, tl_index_func_of(idx, call), tl_index_loop_of(idx, call), 0,
				 &budget);
}

/* True when the subtree of `n` names an attribute `attr` (`model.no_sync`). */
static bool tl_facts__names_attribute(const TlIndex *idx, TSNode n, const char *attr, int depth,
				     int *budget)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_is_null(n) || depth > TL_FACTS_DEPTH || --*budget < 0)
		return false;
	TSTreeCursor cur = ts_tree_cursor_new(n);
	bool found = false, descend = true;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(x);
		descend = true;
		if (s == sy->attribute &&
		    tl_index_text_is(idx, tl_tree_field(x, sy->f_attribute), attr)) {
			found = true;
		} else if (s == sy->identifier && !ts_node_eq(x, n)) {
			/* ctx = model.no_sync if ... else nullcontext; with ctx(): */
			const TlBinding *b = tl_index_resolve_node(idx, x);
			TSNode v = tl_facts__bound_value(b);
			if (!ts_node_is_null(v) && b->elem < 0 && !tl_facts__contains(v, x))
				found = tl_facts__names_attribute(idx, v, attr, depth + 1, budget);
		}
	} while (!found && tl_walk_next(&cur, n, descend));
	ts_tree_cursor_delete(&cur);
	return found;
}

static bool tl_facts__assigns_attribute(const TlIndex *idx, TSNode body, const char *attr)
{
	const TlSyms *sy = tl_syms();
	TSTreeCursor cur = ts_tree_cursor_new(body);
	bool found = false, descend = true;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		descend = true;
		if (ts_node_symbol(x) == sy->assignment) {
			TSNode left = tl_index_unparen(tl_tree_field(x, sy->f_left));
			found = ts_node_symbol(left) == sy->attribute &&
				tl_index_text_is(idx, tl_tree_field(left, sy->f_attribute), attr);
		}
	} while (!found && tl_walk_next(&cur, body, descend));
	ts_tree_cursor_delete(&cur);
	return found;
}

static bool tl_facts__no_sync(const TlIndex *idx, TSNode node, int32_t func, int32_t with,
			     int32_t loop, int depth, int *budget)
{
	if (--*budget < 0)
		return false;
	for (int32_t w = with; w >= 0; w = idx->withs.items[w].parent) {
		TSNode wn = idx->withs.items[w].node;
		uint32_t count = ts_node_named_child_count(wn);
		for (uint32_t k = 0; k < count; k++) {
			TSNode clause = ts_node_named_child(wn, k);
			if (ts_node_eq(clause, idx->withs.items[w].body))
				continue;
			if (tl_facts__names_attribute(idx, clause, "no_sync", 0, budget) ||
			    tl_facts__names_attribute(idx, clause, "accumulate", 0, budget))
				return true;
		}
	}
	/* model.require_backward_grad_sync = (micro_step == last) */
	for (int32_t l = loop; l >= 0; l = idx->loops.items[l].parent)
		if (tl_facts__assigns_attribute(idx, idx->loops.items[l].body, "require_backward_grad_sync"))
			return true;
	if (func < 0 || depth > TL_FACTS_DEPTH)
		return false;
	const TlFunc *f = &idx->funcs.items[func];
	if (f->escapes || !f->call_sites.size)
		return false;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (c->func == func || !tl_facts__no_sync(idx, c->node, c->func, c->with, c->loop, depth + 1, budget))
			return false;
	}
	(void)node;
	return true;
}

bool tl_facts_no_sync(const TlIndex *idx, TSNode node)
{
	int budget = TL_FACTS_BUDGET;
	return tl_facts__no_sync(idx, node, tl_index_func_of(idx, node), tl_index_with_of(idx, node),
				tl_index_loop_of(idx, node), 0, &budget);
}

static int tl_facts__model_wrapped(const TlIndex *idx, TSNode e, TlWrapper kind, bool inner);

/* True when the value of `e` was computed by a forward of a wrapped module,
 * or from a name bound to one (`loss = criterion(model(x), y)`), or by a
 * call that is handed the wrapped module (`loss = step(model, batch)`). */
static bool tl_facts__through(const TlIndex *idx, TSNode e, TlWrapper kind, int depth, int *budget)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_is_null(e) || depth > TL_FACTS_DEPTH || --*budget < 0)
		return false;
	TSTreeCursor cur = ts_tree_cursor_new(e);
	bool found = false, descend = true;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(x);
		descend = true;
		if (s == sy->identifier || s == sy->attribute) {
			char *name = tl_facts__dotted(idx, x);
			if (name) {
				descend = false;
				if (tl_facts__model_wrapped(idx, x, kind, false) == 1) {
					found = true;
				} else {
					const TlBinding *b = tl_index_resolve_node(idx, x);
					TSNode v = tl_facts__bound_value(b);
					if (!ts_node_is_null(v) && !tl_facts__contains(v, x))
						found = tl_facts__through(idx, v, kind, depth + 1, budget);
				}
			}
			tl_free(name);
		}
	} while (!found && tl_walk_next(&cur, e, descend));
	ts_tree_cursor_delete(&cur);
	return found;
}

bool tl_facts_backward_through(const TlIndex *idx, TSNode call, TlWrapper kind)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!c || !(c->events & TL_EV_BACKWARD))
		return false;
	int budget = TL_FACTS_BUDGET;
	return tl_facts__through(idx, tl_model_backward_subject(idx, c), kind, 0, &budget);
}

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
static bool tl_facts__wrapper_qname(const char *q, TlWrapper kind)
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
static int tl_facts__model_wrapped(const TlIndex *idx, TSNode e, TlWrapper kind, bool inner)
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

/* ---- optimizers built before sharding ------------------------------------------------ */

/* Wrappers that replace a module's parameters by sharded ones: FSDP
 * (torch's, fairscale's) and FSDP2's fully_shard. */
static bool tl_facts__sharding_qname(const char *q)
{
	return tl_facts__ends(q, "FullyShardedDataParallel") ||
	       (tl_facts__ends(q, ".fully_shard") && tl_facts__starts(q, "torch.distributed."));
}

/* The dotted names of the modules whose `.parameters()` /
 * `.named_parameters()` the subtree of `arg` reads, also through the names
 * it reads that are bound once to a value (`decay = [p for n, p in
 * model.named_parameters() ...]`), into `out` (caller releases with
 * tl_facts__names_release). */
static void tl_facts__parameter_owners(const TlIndex *idx, TSNode arg, TlNames *out)
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
			if (!c || !c->receiver.id || !c->method ||
			    (strcmp(c->method, "parameters") != 0 && strcmp(c->method, "named_parameters") != 0))
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
static char *tl_facts__wrapped_name(const TlIndex *idx, TSNode call)
{
	TSNode a = tl_facts__kwarg(idx, call, "module");
	if (ts_node_is_null(a))
		a = tl_facts__arg(call, 0);
	for (int depth = 0; depth < TL_FACTS_DEPTH; depth++) {
		a = tl_index_unparen(a);
		if (ts_node_is_null(a) || ts_node_symbol(a) != tl_syms()->call)
			break;
		const TlCall *c = tl_index_call_at(idx, a);
		if (!c || !c->receiver.id || !c->method || !IN(c->method, tl_facts__same_module))
			return NULL;
		a = c->receiver;
	}
	return ts_node_is_null(a) ? NULL : tl_facts__dotted(idx, a);
}

bool tl_facts_optimizer_before_shard(const TlIndex *idx, TSNode ctor)
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
	tl_facts__parameter_owners(idx, params, &owners);
	bool before = false, rebuilt = false;
	const TlIntArray *calls = tl_index_scope_calls(idx, oc->func);
	for (uint32_t i = 0; calls && i < calls->size && owners.size && !rebuilt; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (c->start_byte < oc->end_byte)
			continue;
		if (!before) {
			if (!c->qname || !tl_facts__sharding_qname(c->qname))
				continue;
			char *wrapped = tl_facts__wrapped_name(idx, c->node);
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

bool tl_facts_wrapped_by(const TlIndex *idx, TSNode e, TlWrapper kind)
{
	return tl_facts__model_wrapped(idx, e, kind, false) == 1;
}

/* ---- files that run distributed training ------------------------------------------- */

/* The string literals that say a launcher's local rank is read:
 * os.environ["LOCAL_RANK"], os.getenv("LOCAL_RANK"), the `--local_rank`
 * option torch.distributed.launch passes. */
static bool tl_facts__local_rank_string(const TlIndex *idx, TSNode n)
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

bool tl_facts_distributed_file(const TlIndex *idx)
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
		found = ts_node_symbol(n) == sy->string && tl_facts__local_rank_string(idx, n);
	} while (!found && tl_walk_next(&cur, idx->root, true));
	ts_tree_cursor_delete(&cur);
	return found;
}
