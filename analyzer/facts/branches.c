/* Branches: the conditions of the if statements a node runs under, in its
 * own function, and what follows from them: two places no single run
 * reaches both of (one needs a condition true, the other the same
 * condition false), and code that only the process of rank 0 runs.
 *
 * A condition is known by its text, after parentheses and `not` are taken
 * off (`if not ddp:` is `ddp` false): `if args.distributed:` in one
 * function and `else:` of `if args.distributed:` in another are taken to
 * test the same thing. Syntax only: a name re-bound between the two tests
 * is not noticed.
 *
 * Owns: tl_facts__branch_path, tl_facts__path_add, tl_facts_exclusive_paths,
 * tl_facts_rank_zero_only, tl_facts__other_arm, tl_facts_other_arm_passes. */
#include "facts/internal.h"

/* `cond` without parentheses and leading `not`s; *holds flips per `not`. */
static TSNode tl_facts__cond_core(TSNode cond, bool *holds)
{
	const TlSyms *sy = tl_syms();
	for (int i = 0; i < TL_FACTS_DEPTH; i++) {
		cond = tl_index_unparen(cond);
		if (ts_node_is_null(cond) || ts_node_symbol(cond) != sy->not_operator)
			break;
		cond = tl_tree_field(cond, sy->f_argument);
		*holds = !*holds;
	}
	return cond;
}

static void tl_facts__path_push(TlBranchPath *path, TSNode cond, bool holds)
{
	cond = tl_facts__cond_core(cond, &holds);
	if (ts_node_is_null(cond) || path->size >= TL_BRANCH_MAX)
		return;
	path->items[path->size].cond = cond;
	path->items[path->size].holds = holds;
	path->size++;
}

/* True when `stmt` is `if C: ... return / raise` with no else: the code
 * after it in the same block runs only where C is false. */
static bool tl_facts__early_exit(TSNode stmt)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_symbol(stmt) != sy->if_statement ||
	    !ts_node_is_null(tl_tree_field(stmt, sy->f_alternative)))
		return false;
	TSNode body = tl_tree_field(stmt, sy->f_consequence);
	if (ts_node_is_null(body))
		return false;
	for (uint32_t k = ts_node_named_child_count(body); k > 0; k--) {
		TSNode last = ts_node_named_child(body, k - 1);
		TSSymbol s = ts_node_symbol(last);
		if (s == sy->comment)
			continue;
		return s == sy->return_statement || s == sy->raise_statement;
	}
	return false;
}

/* ---- a block's statements, listed once ------------------------------------------ */

typedef TlArray(TSNode) TlBlockKids;

typedef struct TlBlockCache {
	const void **ids;     /* open addressing by node id; NULL: empty */
	uint32_t *at;         /* per slot: index into lists */
	uint32_t capacity, count;
	TlBlockKids *lists;
	uint32_t list_count, list_capacity;
} TlBlockCache;

void tl_facts__block_cache_release(TlFactsCache *fc)
{
	TlBlockCache *c = fc->blocks;
	if (!c)
		return;
	for (uint32_t i = 0; i < c->list_count; i++)
		tl_array_release(&c->lists[i]);
	tl_free(c->lists);
	tl_free(c->ids);
	tl_free(c->at);
	tl_free(c);
	fc->blocks = NULL;
}

static uint32_t tl_facts__block_slot(const TlBlockCache *c, const void *id)
{
	uintptr_t h = (uintptr_t)id;
	h ^= h >> 17;
	h *= 0x9E3779B1u;
	uint32_t mask = c->capacity - 1, i = (uint32_t)(h ^ (h >> 16)) & mask;
	while (c->ids[i] && c->ids[i] != id)
		i = (i + 1) & mask;
	return i;
}

/* The named children of `block` in order (its statements and comments, as
 * ts_node_prev_named_sibling steps through them), kept per block. */
static const TlBlockKids *tl_facts__block_kids(const TlIndex *idx, TSNode block)
{
	TlFactsCache *fc = idx->facts_cache;
	if (!fc)
		return NULL;
	if (!fc->blocks)
		fc->blocks = tl_calloc(1, sizeof(TlBlockCache));
	TlBlockCache *c = fc->blocks;
	if (2 * (c->count + 1) > c->capacity) {
		uint32_t old = c->capacity;
		const void **ids = c->ids;
		uint32_t *at = c->at;
		c->capacity = old ? 2 * old : 64;
		c->ids = tl_calloc(c->capacity, sizeof *c->ids);
		c->at = tl_calloc(c->capacity, sizeof *c->at);
		for (uint32_t i = 0; i < old; i++)
			if (ids[i]) {
				uint32_t k = tl_facts__block_slot(c, ids[i]);
				c->ids[k] = ids[i];
				c->at[k] = at[i];
			}
		tl_free(ids);
		tl_free(at);
	}
	uint32_t k = tl_facts__block_slot(c, block.id);
	if (c->ids[k])
		return &c->lists[c->at[k]];
	if (c->list_count == c->list_capacity) {
		c->list_capacity = c->list_capacity ? 2 * c->list_capacity : 16;
		c->lists = tl_realloc(c->lists, c->list_capacity * sizeof *c->lists);
	}
	TlBlockKids *kids = &c->lists[c->list_count];
	tl_array_init(kids);
	TSTreeCursor cur = ts_tree_cursor_new(block);
	if (ts_tree_cursor_goto_first_child(&cur)) {
		do {
			TSNode n = ts_tree_cursor_current_node(&cur);
			if (ts_node_is_named(n))
				tl_array_push(kids, n);
		} while (ts_tree_cursor_goto_next_sibling(&cur));
	}
	ts_tree_cursor_delete(&cur);
	c->ids[k] = block.id;
	c->at[k] = c->list_count++;
	c->count++;
	return kids;
}

/* The index of `child` among `kids`, or UINT32_MAX. */
static uint32_t tl_facts__kid_index(const TlBlockKids *kids, TSNode child)
{
	if (!kids)
		return UINT32_MAX;
	uint32_t s = ts_node_start_byte(child), lo = 0, hi = kids->size;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ts_node_start_byte(kids->items[mid]) < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t i = lo; i < kids->size && ts_node_start_byte(kids->items[i]) == s; i++)
		if (ts_node_eq(kids->items[i], child))
			return i;
	return UINT32_MAX;
}

void tl_facts__branch_path(const TlIndex *idx, TSNode node, TlBranchPath *out)
{
	const TlSyms *sy = tl_syms();
	out->size = 0;
	TSNode child = node;
	for (TSNode p = tl_index_parent(idx, child); !ts_node_is_null(p);
	     child = p, p = tl_index_parent(idx, p)) {
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->function_definition || s == sy->class_definition || s == sy->lambda ||
		    s == sy->module)
			break;
		if (s == sy->block) {
			/* `if rank != 0: return` earlier in the same block. A bound:
			 * blocks of thousands of statements exist (generated code).
			 * The block's statements are listed once (each step back
			 * to a previous sibling cost tree-sitter a walk from the
			 * block's first statement: quadratic in a long block). */
			const TlBlockKids *kids = tl_facts__block_kids(idx, p);
			uint32_t at = tl_facts__kid_index(kids, child);
			for (uint32_t seen = 0; at != UINT32_MAX && at > 0 && seen < 256; at--, seen++) {
				TSNode sib = kids->items[at - 1];
				if (tl_facts__early_exit(sib))
					tl_facts__path_push(out, tl_tree_field(sib, sy->f_condition), false);
			}
		} else if (s == sy->if_statement) {
			TSNode cond = tl_tree_field(p, sy->f_condition);
			if (ts_node_eq(child, tl_tree_field(p, sy->f_consequence)))
				tl_facts__path_push(out, cond, true);
			else if (ts_node_symbol(child) == sy->else_clause || ts_node_symbol(child) == sy->elif_clause)
				tl_facts__path_push(out, cond, false);
		} else if (s == sy->elif_clause) {
			if (ts_node_eq(child, tl_tree_field(p, sy->f_consequence)))
				tl_facts__path_push(out, tl_tree_field(p, sy->f_condition), true);
		}
	}
}

static bool tl_facts__same_text(const TlIndex *idx, TSNode a, TSNode b)
{
	uint32_t la = 0, lb = 0;
	const char *ta = tl_index_text(idx, a, &la), *tb = tl_index_text(idx, b, &lb);
	return ta && tb && la == lb && memcmp(ta, tb, la) == 0;
}

bool tl_facts__path_add(const TlIndex *idx, TlBranchPath *path, TSNode node)
{
	TlBranchPath here;
	tl_facts__branch_path(idx, node, &here);
	for (uint32_t i = 0; i < here.size; i++) {
		bool known = false;
		for (uint32_t k = 0; k < path->size && !known; k++) {
			if (!tl_facts__same_text(idx, here.items[i].cond, path->items[k].cond))
				continue;
			if (here.items[i].holds != path->items[k].holds)
				return false;
			known = true;
		}
		if (!known && path->size < TL_BRANCH_MAX)
			path->items[path->size++] = here.items[i];
	}
	return true;
}

bool tl_facts_exclusive_paths(const TlIndex *idx, TSNode a, TSNode b)
{
	TlBranchPath path;
	tl_facts__branch_path(idx, a, &path);
	return !tl_facts__path_add(idx, &path, b);
}

/* ---- rank 0 ----------------------------------------------------------------------------- */

/* The last part of a dotted name or of the callee of a call, lowercased
 * into buf; "" when it has none. */
static const char *tl_facts__last_lower(const TlIndex *idx, TSNode e, char *buf, size_t size)
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
static bool tl_facts__rankish(const TlIndex *idx, TSNode e)
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
	const char *last = tl_facts__last_lower(idx, e, buf, sizeof buf);
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
static bool tl_facts__mainish(const TlIndex *idx, TSNode e)
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
	return IN(tl_facts__last_lower(idx, e, buf, sizeof buf), names);
}

static bool tl_facts__int_is(const TlIndex *idx, TSNode e, long v)
{
	double d;
	return tl_facts_number(idx, e, &d) && d == (double)v;
}

/* Every element of a tuple / list literal is -1 or 0 (`rank in (-1, 0)`). */
static bool tl_facts__zero_set(const TlIndex *idx, TSNode e)
{
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	if (ts_node_is_null(e) || (ts_node_symbol(e) != sy->tuple && ts_node_symbol(e) != sy->list))
		return false;
	uint32_t n = ts_node_named_child_count(e);
	for (uint32_t i = 0; i < n; i++) {
		TSNode x = ts_node_named_child(e, i);
		if (!tl_facts__int_is(idx, x, 0) && !tl_facts__int_is(idx, x, -1))
			return false;
	}
	return n > 0;
}

/* True when `cond` evaluating to `holds` means this is the process of rank
 * 0 (or the only one: rank -1 where no process group runs; `rank == -1 or
 * get_rank() == 0` counts, each side being such a test). */
static bool tl_facts__rank_zero_when(const TlIndex *idx, TSNode cond, bool holds, int depth)
{
	const TlSyms *sy = tl_syms();
	cond = tl_facts__cond_core(cond, &holds);
	if (ts_node_is_null(cond) || depth > TL_FACTS_DEPTH)
		return false;
	TSSymbol s = ts_node_symbol(cond);
	if (tl_facts__mainish(idx, cond))
		return holds;
	if (tl_facts__rankish(idx, cond))
		return !holds; /* `if not rank:` */
	if (s == sy->boolean_operator) {
		TSNode l = tl_tree_field(cond, sy->f_left), r = tl_tree_field(cond, sy->f_right);
		TSNode op = tl_tree_field(cond, sy->f_operator);
		bool is_and = !ts_node_is_null(op) && strcmp(ts_node_type(op), "and") == 0;
		if (is_and == holds) /* `a and b` true, `a or b` false: both hold */
			return tl_facts__rank_zero_when(idx, l, holds, depth + 1) ||
			       tl_facts__rank_zero_when(idx, r, holds, depth + 1);
		/* `a or b` true (`rank == -1 or get_rank() == 0`): either may hold */
		return tl_facts__rank_zero_when(idx, l, holds, depth + 1) &&
		       tl_facts__rank_zero_when(idx, r, holds, depth + 1);
	}
	if (s != sy->comparison_operator || ts_node_child_count(cond) != 3)
		return false;
	TSNode l = ts_node_child(cond, 0), r = ts_node_child(cond, 2);
	const char *op = ts_node_type(ts_node_child(cond, 1));
	if (tl_facts__rankish(idx, r) && (strcmp(op, "==") == 0 || strcmp(op, "!=") == 0)) {
		TSNode t = l;
		l = r;
		r = t;
	}
	if (!tl_facts__rankish(idx, l))
		return false;
	/* rank -1: no process group, the only process */
	bool zero = tl_facts__int_is(idx, r, 0) || tl_facts__int_is(idx, r, -1);
	if (strcmp(op, "==") == 0 || strcmp(op, "is") == 0)
		return holds && zero;
	if (strcmp(op, "!=") == 0 || strcmp(op, "is not") == 0)
		return !holds && zero;
	if (strcmp(op, "<=") == 0)
		return holds && tl_facts__int_is(idx, r, 0);
	if (strcmp(op, "<") == 0)
		return holds && tl_facts__int_is(idx, r, 1);
	if (strcmp(op, ">") == 0)
		return !holds && tl_facts__int_is(idx, r, 0);
	if (strcmp(op, ">=") == 0)
		return !holds && tl_facts__int_is(idx, r, 1);
	if (strcmp(op, "in") == 0)
		return holds && tl_facts__zero_set(idx, r);
	if (strcmp(op, "not in") == 0)
		return !holds && tl_facts__zero_set(idx, r);
	return false;
}

static bool tl_facts__rank_zero(const TlIndex *idx, TSNode node, int depth, int *budget)
{
	if (depth > TL_FACTS_DEPTH || --*budget < 0)
		return false;
	TlBranchPath path;
	tl_facts__branch_path(idx, node, &path);
	for (uint32_t i = 0; i < path.size; i++)
		if (tl_facts__rank_zero_when(idx, path.items[i].cond, path.items[i].holds, 0))
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
		if (c->func == func || !tl_facts__rank_zero(idx, c->node, depth + 1, budget))
			return false;
	}
	return true;
}

bool tl_facts_rank_zero_only(const TlIndex *idx, TSNode node)
{
	int budget = TL_FACTS_BUDGET;
	return tl_facts__rank_zero(idx, node, 0, &budget);
}

bool tl_facts__other_arm(const TlIndex *idx, TSNode node, bool (*test)(const TlIndex *, TSNode, void *), void *data)
{
	const TlSyms *sy = tl_syms();
	TSNode child = node, p = tl_index_parent(idx, node);
	for (int up = 0; !ts_node_is_null(p) && up < 32; up++, child = p, p = tl_index_parent(idx, p)) {
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->function_definition || s == sy->class_definition || s == sy->module)
			break;
		if (s == sy->conditional_expression && ts_node_named_child_count(p) >= 3) {
			TSNode a = ts_node_named_child(p, 0), b = ts_node_named_child(p, 2);
			TSNode other = ts_node_eq(child, a) ? b : ts_node_eq(child, b) ? a : (TSNode){ 0 };
			if (!ts_node_is_null(other) && test(idx, other, data))
				return true;
		} else if (s == sy->if_statement) {
			TSNode cons = tl_tree_field(p, sy->f_consequence);
			uint32_t k = ts_node_named_child_count(p);
			for (uint32_t i = 0; i < k; i++) {
				TSNode e = ts_node_named_child(p, i);
				if (ts_node_symbol(e) != sy->else_clause)
					continue;
				if ((ts_node_eq(child, cons) && test(idx, e, data)) ||
				    (ts_node_eq(child, e) && !ts_node_is_null(cons) && test(idx, cons, data)))
					return true;
			}
		}
	}
	return false;
}

/* What tl_facts_other_arm_passes hands each arm. */
typedef struct TlArmCall {
	const char *callee;
	uint32_t len;
	const char *param;
} TlArmCall;

static bool tl_facts__arm_passes(const TlIndex *idx, TSNode arm, void *data)
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

bool tl_facts_other_arm_passes(const TlIndex *idx, TSNode call, const char *param)
{
	const TlSyms *sy = tl_syms();
	call = tl_index_unparen(call);
	if (ts_node_is_null(call) || ts_node_symbol(call) != sy->call)
		return false;
	TlArmCall w = { NULL, 0, param };
	w.callee = tl_index_text(idx, tl_tree_field(call, sy->f_function), &w.len);
	return w.callee && tl_facts__other_arm(idx, call, tl_facts__arm_passes, &w);
}

