/* Branches: the conditions of the if statements a node runs under, in its
 * own function, and what follows from them: two places no single run
 * reaches both of (one needs a condition true, the other the same
 * condition false); the other arm of the branch a node is in. (Code that
 * only the process of rank 0 runs is TL105's, rules/checks/TL105.c.)
 *
 * A condition is known by its text, after parentheses and `not` are taken
 * off (`if not ddp:` is `ddp` false): `if args.distributed:` in one
 * function and `else:` of `if args.distributed:` in another are taken to
 * test the same thing. Syntax only: a name re-bound between the two tests
 * is not noticed.
 *
 * Owns: tl_facts__cond_core, tl_facts__branch_path, tl_facts__path_add,
 * tl_facts_exclusive_paths, tl_facts__other_arm. */
#include "facts/internal.h"

/* `cond` without parentheses and leading `not`s; *holds flips per `not`. */
TSNode tl_facts__cond_core(TSNode cond, bool *holds)
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

/* ---- the other arm ---------------------------------------------------------------------- */

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
