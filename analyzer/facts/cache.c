/* Tables of one file that the facts scan again and again, built once, on
 * first use, and kept with the index (TlIndex.facts_cache): which calls
 * store into which containers, which subscript assignments each scope
 * makes, where set_grad_enabled statements are. They hold syntax only
 * (names, nodes), so a table answers the same whenever it is built; the
 * questions that read them (facts/containers.c, contexts.c) keep their own
 * order, bounds and budgets. One table rests on facts: which bindings a
 * backward consumes (asked by kinds.c), built only once tl_facts_build has
 * filled the call events (TlFactsCache.complete).
 *
 * Ownership: the index owns the cache (tl_facts__cache_install sets the
 * release function that tl_index_release calls); the strings in it are the
 * cache's, the nodes borrowed from the tree. Written by the one thread
 * that analyses the file.
 *
 * Owns: tl_facts__subscript_sites, tl_facts__grad_switches; the storing
 * calls' slot (TlFactsCache.storing), which rules/checks/TL214.c fills. */
#include "facts/internal.h"

static void tl_facts__cache_release(TlFactsCache *fc)
{
	if (!fc)
		return;
	for (uint32_t i = 0; i < fc->storing.size; i++)
		tl_free(fc->storing.items[i].name);
	tl_array_release(&fc->storing);
	for (uint32_t i = 0; i < fc->store_scopes; i++) {
		TlStoreSites *s = fc->stores[i];
		if (!s)
			continue;
		for (uint32_t k = 0; k < s->size; k++)
			tl_free(s->items[k].name);
		tl_array_release(s);
		tl_free(s);
	}
	tl_free(fc->stores);
	tl_array_release(&fc->grad_switches);
	tl_facts__tensor_tests_release(fc);
	tl_facts__block_cache_release(fc);
	tl_facts__handed_release(fc);
	tl_facts__mode_summaries_release(fc);
	tl_free(fc);
}

void tl_facts__cache_install(TlIndex *idx)
{
	TlFactsCache *fc = tl_calloc(1, sizeof *fc);
	fc->store_scopes = 1 + idx->funcs.size + idx->classes.size;
	fc->stores = tl_calloc(fc->store_scopes, sizeof *fc->stores);
	idx->facts_cache = fc;
	idx->facts_release = tl_facts__cache_release;
}

/* Walks of a scope stop here: huge scopes answer no. */
#define TL_STORE_WALK_MAX 20000

/* Expressions, which hold no assignment statement (not even in a lambda or
 * a comprehension): the walk below counts their nodes without visiting
 * them, unless the parser had to recover from an error inside them. */
static bool tl_facts__expression_only(const TlSyms *sy, TSSymbol s)
{
	return s == sy->identifier || s == sy->call || s == sy->attribute ||
	       s == sy->argument_list || s == sy->string || s == sy->subscript ||
	       s == sy->integer || s == sy->float_ || s == sy->keyword_argument ||
	       s == sy->binary_operator || s == sy->comparison_operator ||
	       s == sy->boolean_operator || s == sy->not_operator || s == sy->unary_operator ||
	       s == sy->list || s == sy->tuple || s == sy->dictionary || s == sy->set ||
	       s == sy->pair || s == sy->list_comprehension || s == sy->generator_expression ||
	       s == sy->set_comprehension || s == sy->dictionary_comprehension ||
	       s == sy->parenthesized_expression || s == sy->conditional_expression ||
	       s == sy->lambda || s == sy->true_ || s == sy->false_ || s == sy->none;
}

const TlStoreSites *tl_facts__subscript_sites(const TlIndex *idx, int32_t func, int32_t cls)
{
	const TlSyms *sy = tl_syms();
	TlFactsCache *fc = idx->facts_cache;
	TSNode top;
	uint32_t slot;
	if (cls >= 0) {
		top = idx->classes.items[cls].node;
		slot = 1 + idx->funcs.size + (uint32_t)cls;
	} else if (func >= 0) {
		top = idx->funcs.items[func].node;
		slot = 1 + (uint32_t)func;
	} else {
		top = idx->root;
		slot = 0;
	}
	if (fc->stores[slot])
		return fc->stores[slot];
	TlStoreSites *out = tl_calloc(1, sizeof *out);
	tl_array_init(out);
	fc->stores[slot] = out;
	TSTreeCursor cur = ts_tree_cursor_new(top);
	bool descend = true;
	uint32_t visited = 0;
	do {
		TSNode n = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(n);
		bool is_top = ts_node_eq(n, top);
		descend = !is_top ? (s != sy->class_definition) : true;
		if (!is_top && tl_facts__expression_only(sy, s) && !ts_node_has_error(n)) {
			/* Its nodes count toward the bound as if walked (the
			 * descendant count is the cursor walk's). */
			visited += ts_node_descendant_count(n);
			if (visited > TL_STORE_WALK_MAX)
				break;
			descend = false;
			continue;
		}
		if (++visited > TL_STORE_WALK_MAX)
			break;
		if (s != sy->assignment && s != sy->augmented_assignment)
			continue;
		TSNode left = tl_tree_field(n, sy->f_left);
		if (ts_node_is_null(left) || ts_node_symbol(left) != sy->subscript)
			continue;
		char *name = tl_index_dotted_dup(idx, tl_tree_field(left, sy->f_value));
		if (!name)
			continue;
		TlStoreSite site = { n, name };
		tl_array_push(out, site);
	} while (tl_walk_next(&cur, top, descend));
	ts_tree_cursor_delete(&cur);
	return out;
}

const TlIntArray *tl_facts__grad_switches(const TlIndex *idx)
{
	TlFactsCache *fc = idx->facts_cache;
	if (!fc->grad_switches_ready) {
		fc->grad_switches_ready = true;
		for (uint32_t i = 0; i < idx->calls.size; i++) {
			const TlCall *c = &idx->calls.items[i];
			if (c->stmt_level && c->qname && tl_facts__ends(c->qname, "set_grad_enabled"))
				tl_array_push(&fc->grad_switches, (int32_t)i);
		}
	}
	return &fc->grad_switches;
}

