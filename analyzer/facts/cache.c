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
 * Owns: tl_facts__storing_calls, tl_facts__subscript_sites,
 * tl_facts__grad_switches, tl_facts__backpropagated_bindings. */
#include "facts/internal.h"

const char *const tl_facts__storing[7] = {
	"append", "extend", "insert", "update", "add", "setdefault", "appendleft",
};

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
	tl_free(fc->backpropagated);
	tl_facts__cover_lists_release(fc);
	tl_facts__tensor_tests_release(fc);
	tl_facts__ext_sites_release(fc);
	tl_facts__block_cache_release(fc);
	tl_facts__handed_release(fc);
	tl_facts__mode_summaries_release(fc);
	if (fc->star_ready) {
		tl_strmap_release(&fc->star_names);
		tl_array_release(&fc->star_owners);
	}
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

const TlStoringCalls *tl_facts__storing_calls(const TlIndex *idx)
{
	TlFactsCache *fc = idx->facts_cache;
	if (fc->storing_ready)
		return &fc->storing;
	fc->storing_ready = true;
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (!c->receiver.id || !c->method || !IN(c->method, tl_facts__storing))
			continue;
		/* losses.append(v), history["loss"].append(v) */
		char *root = c->recv_name ? NULL : tl_facts_root_name(idx, c->receiver);
		TlStoringCall sc = { (int32_t)i, tl_strdup(c->recv_name ? c->recv_name : root ? root : "") };
		tl_free(root);
		tl_array_push(&fc->storing, sc);
	}
	return &fc->storing;
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

/* True when scope `func` stores into `name[key]` (`name` the identifier
 * node, `key` a string node) a value cut from autograd history:
 * `out["loss"] = out["loss"].detach()` (or `.item()`, `float(...)`) after
 * its backward, so the container no longer holds that graph. */
static bool tl_facts__element_detached(const TlIndex *idx, int32_t func, TSNode name, TSNode key)
{
	static const char *const cuts[] = { "detach", "item", "tolist", "float", "int" };
	const TlSyms *sy = tl_syms();
	uint32_t nlen, klen;
	const char *n = tl_index_text(idx, name, &nlen);
	const char *k = tl_index_text(idx, key, &klen);
	const TlStoreSites *sites = tl_facts__subscript_sites(idx, func, -1);
	for (uint32_t i = 0; i < sites->size; i++) {
		const TlStoreSite *st = &sites->items[i];
		if (strlen(st->name) != nlen || memcmp(st->name, n, nlen) != 0 ||
		    ts_node_symbol(st->stmt) != sy->assignment)
			continue;
		TSNode left = tl_index_unparen(tl_tree_field(st->stmt, sy->f_left));
		TSNode lk = ts_node_symbol(left) == sy->subscript ? tl_tree_field(left, sy->f_subscript)
								   : (TSNode){ 0 };
		uint32_t lklen;
		const char *lkt = ts_node_is_null(lk) ? NULL : tl_index_text(idx, lk, &lklen);
		if (!lkt || lklen != klen || klen < 2 || memcmp(lkt + 1, k + 1, klen - 2) != 0)
			continue;
		TSNode right = tl_index_unparen(tl_tree_field(st->stmt, sy->f_right));
		const TlCall *c = ts_node_symbol(right) == sy->call ? tl_index_call_at(idx, right) : NULL;
		if (c && c->method && IN(c->method, cuts))
			return true;
	}
	return false;
}

/* True when identifier `id`, read in `top` (the value of a binding), hands
 * its value on with its autograd history: every node between them keeps
 * it (a sum or difference, a branch of a conditional, a subscript of it, sum/max/min,
 * a torch function, a tensor method that keeps the graph), so that a
 * backward of `top`'s value runs through it. */
static bool tl_facts__keeps_into(const TlIndex *idx, TSNode id, TSNode top)
{
	static const char *const keep_methods[] = { "sum", "mean", "float", "view", "reshape",
						    "squeeze", "unsqueeze", "mul", "add", "div" };
	static const char *const keep_builtins[] = { "sum", "max", "min", "abs" };
	const TlSyms *sy = tl_syms();
	TSNode n = id;
	for (int depth = 0; depth < 32 && !ts_node_eq(n, top); depth++) {
		TSNode p = tl_index_parent(idx, n);
		if (ts_node_is_null(p))
			return false;
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->binary_operator) {
			/* A sum of losses; a factor or divisor (`loss / n`) may
			 * be a count. */
			TSNode op = tl_tree_field(p, sy->f_operator);
			bool numerator = ts_node_eq(tl_tree_field(p, sy->f_left), n);
			if (ts_node_is_null(op) ||
			    !(tl_index_text_is(idx, op, "+") || tl_index_text_is(idx, op, "-") ||
			      (numerator && tl_index_text_is(idx, op, "/"))))
				return false;
			n = p;
			continue;
		}
		if (s == sy->parenthesized_expression || s == sy->unary_operator || s == sy->list ||
		    s == sy->tuple) {
			n = p;
			continue;
		}
		if (s == sy->conditional_expression) {
			if (ts_node_named_child_count(p) >= 3 && ts_node_eq(ts_node_named_child(p, 1), n))
				return false; /* the condition */
			n = p;
			continue;
		}
		if (s == sy->subscript) {
			if (!ts_node_eq(tl_tree_field(p, sy->f_value), n))
				return false;
			n = p;
			continue;
		}
		if (s == sy->argument_list) {
			TSNode call = tl_index_parent(idx, p);
			const TlCall *c = ts_node_is_null(call) ? NULL : tl_index_call_at(idx, call);
			if (!c || !((!c->receiver.id && !c->qname && IN(c->method, keep_builtins)) ||
				    (c->qname && tl_facts__starts(c->qname, "torch.") &&
				     !tl_facts__starts(c->qname, "torch.nn."))))
				return false;
			n = call;
			continue;
		}
		if (s == sy->attribute) {
			TSNode call = tl_index_parent(idx, p);
			const TlCall *c = ts_node_is_null(call) ? NULL : tl_index_call_at(idx, call);
			if (!c || !ts_node_eq(tl_index_unparen(c->receiver), n) || !IN(c->method, keep_methods))
				return false;
			n = call;
			continue;
		}
		return false;
	}
	return ts_node_eq(n, top);
}

/* Marks TL_BACKPROP_FLOWS on the bindings whose value the value of `b` (a
 * binding a backward consumes) hands on (tl_facts__keeps_into): names of
 * its scope bound to the result of a call that is no torch function (what
 * an unknown model method or loss returned). One step: what those were
 * computed from is not followed. */
static void tl_facts__mark_flows(const TlIndex *idx, const TlBinding *b, uint8_t *bits)
{
	const TlSyms *sy = tl_syms();
	if (b->kind != TL_BIND_ASSIGN || b->elem >= 0 || ts_node_is_null(b->value))
		return;
	/* The values to scan: b's, then those of the plain expressions it
	 * hands on (`loss = sum(losses) ...; loss = loss / n`), a few. */
	TSNode todo[8];
	const TlBinding *owner[8];
	uint32_t n = 0;
	todo[n] = tl_index_unparen(b->value);
	owner[n++] = b;
	uint32_t seen = 0;
	for (uint32_t i = 0; i < n; i++) {
		TSNode top = todo[i];
		TSTreeCursor cur = ts_tree_cursor_new(top);
		do {
			TSNode x = ts_tree_cursor_current_node(&cur);
			if (ts_node_symbol(x) != sy->identifier)
				continue;
			const TlBinding *r = tl_index_resolve_node(idx, x);
			if (!r || r == owner[i] || r->func != b->func || r->kind != TL_BIND_ASSIGN ||
			    r->elem >= 0 || ts_node_is_null(r->value) || !tl_facts__keeps_into(idx, x, top))
				continue;
			TSNode v = tl_index_unparen(r->value);
			const TlCall *vc = ts_node_symbol(v) == sy->call ? tl_index_call_at(idx, v) : NULL;
			if (!vc) {
				bool queued = false;
				for (uint32_t k = 0; k < n && !queued; k++)
					queued = owner[k] == r;
				if (!queued && n < 8) {
					todo[n] = v;
					owner[n++] = r;
				}
				continue;
			}
			if ((vc->qname && tl_facts__starts(vc->qname, "torch.")) ||
			    (!vc->receiver.id && !vc->qname))
				continue;
			bits[r - idx->bindings.items] |= TL_BACKPROP_FLOWS;
		} while (++seen < 512 && tl_walk_next(&cur, top, true));
		ts_tree_cursor_delete(&cur);
	}
}

const uint8_t *tl_facts__backpropagated_bindings(const TlIndex *idx)
{
	TlFactsCache *fc = idx->facts_cache;
	if (!fc->complete)
		return NULL;
	if (!fc->backpropagated) {
		const TlSyms *sy = tl_syms();
		uint8_t *bits = tl_calloc(idx->bindings.size ? idx->bindings.size : 1, 1);
		for (uint32_t i = 0; i < idx->calls.size; i++) {
			const TlCall *c = &idx->calls.items[i];
			TSNode subj = tl_index_unparen(tl_facts__backward_subject(idx, c));
			if (ts_node_is_null(subj))
				continue;
			uint8_t bit = TL_BACKPROP_SELF;
			if (ts_node_symbol(subj) == sy->subscript) {
				/* out["loss"].backward(): out holds a graph. */
				TSNode key = tl_tree_field(subj, sy->f_subscript);
				if (ts_node_is_null(key) || ts_node_symbol(key) != sy->string)
					continue;
				subj = tl_index_unparen(tl_tree_field(subj, sy->f_value));
				if (ts_node_symbol(subj) != sy->identifier ||
				    tl_facts__element_detached(idx, c->func, subj, key))
					continue;
				bit = TL_BACKPROP_ELEMENT;
			}
			const TlBinding *r = tl_index_resolve_node(idx, subj);
			if (r && r->func == c->func)
				bits[r - idx->bindings.items] |= bit;
		}
		for (uint32_t i = 0; i < idx->bindings.size; i++)
			if (bits[i] & TL_BACKPROP_SELF)
				tl_facts__mark_flows(idx, &idx->bindings.items[i], bits);
		fc->backpropagated = bits;
	}
	return fc->backpropagated;
}
