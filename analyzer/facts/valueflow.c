/* Value flow: whether a value reaches a backward call or torch.autograd.grad
 * (TL_EV_DIFFERENTIATES; directly, through names, containers and local calls)
 * and where it outlives the iteration.
 *
 * Owns: tl_facts_reaches_backward, tl_facts_outlives_iteration, tl_facts_backward_through. */
#include "facts/internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/strmap.h"
#include "model/model.h"
#include "syntax/reads.h"

static bool tl_facts__reaches(const TlIndex *idx, TSNode expr, int depth, const TlCall *site);

/* ---- value flow ---------------------------------------------------------------- */

static bool tl_facts__has_name(const TlNames *names, const char *s, size_t len)
{
	for (uint32_t i = 0; i < names->size; i++)
		if (strlen(names->items[i]) == len && memcmp(names->items[i], s, len) == 0)
			return true;
	return false;
}

/* True when the dotted name in `b` is one of `names` or an attribute chain
 * below one ("self.losses" matches "self.losses" and "self.losses.x"). */
static bool tl_facts__names_match(const TlNames *names, const TlBuf *b)
{
	for (uint32_t i = 0; i < names->size; i++) {
		size_t l = strlen(names->items[i]);
		if (b->len >= l && memcmp(b->data, names->items[i], l) == 0 &&
		    (b->len == l || b->data[l] == '.'))
			return true;
	}
	return false;
}

static bool tl_facts__mentions_read(void *data, TSNode node, TlBuf *dotted)
{
	(void)node;
	return tl_facts__names_match(data, dotted);
}

/* True when the subtree of `n` reads one of `names` (as a name or as the
 * dotted prefix of an attribute chain). Iterative. */
bool tl_facts__mentions(const TlIndex *idx, TSNode n, const TlNames *names)
{
	if (ts_node_is_null(n) || !names->size)
		return false;
	return tl_reads_each(idx, n, tl_facts__mentions_read, (void *)names);
}

void tl_facts__names_release(TlNames *names)
{
	tl_str_array_release((TlStrArray *)names);
}

/* What a question follows through one function: dotted names (attributes
 * such as `self.losses`, shared by every method, and names the function
 * does not bind) by name, and the function's own plain names by binding,
 * so that a name re-bound later in program order (`loss` in an evaluation
 * loop after the training loop) is a new value. */
typedef struct TlTaint {
	TlNames names;
	TlIntArray binds; /* indices into idx->bindings */
	/* The same bindings indexed, so that a question costs what it reads,
	 * not what it read before: a chain of N assignments (x1 = x0 + 1,
	 * x2 = x1 + 1, ...) taints N bindings, and scanning them for each
	 * name read made it quadratic (40k lines: 5.2 s). */
	bool *marked;      /* per binding of the index: in `binds` (NULL: none yet) */
	TlStrMap by_name;  /* binding name -> index into `lists` */
	TlIntLists lists;  /* the tainted bindings of each name */
	/* The roots of what is tainted (`self` for `self.losses`), and the
	 * assignments that read one of them (reads.h): only those can read
	 * a tainted value, the others are not walked. */
	TlStrMap roots;
	uint8_t *readers;  /* per binding of the index (NULL: none yet) */
	/* While true, a new root is only noted in `roots`: its readers are
	 * marked by tl_facts__taint_readers (a question that
	 * tl_facts__may_reach answers costs no pass over them). */
	bool defer_readers;
	int32_t func;      /* the scope whose assignments are followed */
} TlTaint;

static void tl_facts__taint_init(TlTaint *t, int32_t func)
{
	t->func = func;
	tl_array_init(&t->names);
	tl_array_init(&t->binds);
	t->marked = NULL;
	tl_strmap_init(&t->by_name);
	tl_array_init(&t->lists);
	tl_strmap_init(&t->roots);
	t->readers = NULL;
	t->defer_readers = false;
}

static void tl_facts__taint_release(TlTaint *t)
{
	tl_facts__names_release(&t->names);
	tl_array_release(&t->binds);
	tl_free(t->marked);
	tl_strmap_release(&t->by_name);
	for (uint32_t i = 0; i < t->lists.size; i++)
		tl_array_release(&t->lists.items[i]);
	tl_array_release(&t->lists);
	tl_strmap_release(&t->roots);
	tl_free(t->readers);
}

/* Notes that what is tainted now includes a name rooted at `name` (its
 * first dotted part): the assignments that read that root become readers. */
static void tl_facts__taint_root(const TlIndex *idx, TlTaint *t, const char *name)
{
	size_t len = strcspn(name, ".");
	int32_t seen;
	if (tl_strmap_get(&t->roots, name, len, &seen))
		return;
	tl_strmap_put(&t->roots, name, len, 1);
	if (t->defer_readers)
		return;
	tl_reads_scope(idx, t->func);
	const TlIntArray *readers = tl_reads_readers(idx, tl_reads_root_id(idx, name, len));
	if (!readers || !readers->size)
		return;
	if (!t->readers)
		t->readers = tl_calloc(idx->bindings.size ? idx->bindings.size : 1, 1);
	for (uint32_t i = 0; i < readers->size; i++)
		t->readers[readers->items[i]] = 1;
}

/* Marks the readers of the roots noted while they were deferred. */
static void tl_facts__taint_readers(const TlIndex *idx, TlTaint *t)
{
	if (!t->defer_readers)
		return;
	t->defer_readers = false;
	tl_reads_scope(idx, t->func);
	for (uint32_t i = 0; i < t->roots.capacity; i++) {
		const char *root = t->roots.slots[i].key;
		if (!root)
			continue;
		const TlIntArray *readers = tl_reads_readers(idx, tl_reads_root_id(idx, root, strlen(root)));
		if (!readers || !readers->size)
			continue;
		if (!t->readers)
			t->readers = tl_calloc(idx->bindings.size ? idx->bindings.size : 1, 1);
		for (uint32_t k = 0; k < readers->size; k++)
			t->readers[readers->items[k]] = 1;
	}
}

/* Adds a tainted dotted name (owned by the taint from now on). */
static void tl_facts__taint_name(const TlIndex *idx, TlTaint *t, char *name)
{
	tl_array_push(&t->names, name);
	tl_facts__taint_root(idx, t, name);
}

/* False when call `ci` reads none of the tainted roots (it cannot read a
 * tainted value); true when it may. */
static bool tl_facts__call_may_read(const TlIndex *idx, const TlTaint *t, uint32_t ci)
{
	const TlIntArray *roots = tl_reads_call_roots(idx, ci);
	for (uint32_t i = 0; roots && i < roots->size; i++) {
		const char *root = tl_reads_root_name(idx, roots->items[i]);
		int32_t seen;
		if (root && tl_strmap_get(&t->roots, root, strlen(root), &seen))
			return true;
	}
	return false;
}

/* Up to this many tainted bindings are looked up in `binds`; past it, a
 * flag per binding of the index (`marked`) answers: most questions taint
 * a few bindings, and clearing a flag per binding of the file for each
 * was quadratic in a scope of many questions. */
#define TL_TAINT_FEW 16

static bool tl_facts__has_bind(const TlTaint *t, int32_t b)
{
	if (t->marked)
		return t->marked[b];
	for (uint32_t i = 0; i < t->binds.size; i++)
		if (t->binds.items[i] == b)
			return true;
	return false;
}

static void tl_facts__add_bind(const TlIndex *idx, TlTaint *t, int32_t bi)
{
	tl_array_push(&t->binds, bi);
	if (!t->marked && t->binds.size > TL_TAINT_FEW) {
		t->marked = tl_calloc(idx->bindings.size ? idx->bindings.size : 1, sizeof *t->marked);
		for (uint32_t i = 0; i < t->binds.size; i++)
			t->marked[t->binds.items[i]] = true;
	}
	if (t->marked)
		t->marked[bi] = true;
	const char *name = idx->bindings.items[bi].name;
	int32_t slot;
	if (!tl_strmap_get(&t->by_name, name, strlen(name), &slot)) {
		TlIntArray empty;
		tl_array_init(&empty);
		slot = (int32_t)t->lists.size;
		tl_array_push(&t->lists, empty);
		tl_strmap_put(&t->by_name, name, strlen(name), slot);
	}
	/* Kept in position order (most come in order: an append). */
	TlIntArray *list = &t->lists.items[slot];
	tl_array_push(list, bi);
	uint32_t at = list->size - 1, pos = idx->bindings.items[bi].pos;
	while (at > 0 && idx->bindings.items[list->items[at - 1]].pos > pos) {
		list->items[at] = list->items[at - 1];
		at--;
	}
	list->items[at] = bi;
	tl_facts__taint_root(idx, t, name);
}

/* The block (or module) whose statements hold binding `b`'s statement; the
 * root when there is none (a file whose root is an ERROR node). */
static TSNode tl_facts__binding_block(const TlIndex *idx, const TlBinding *b)
{
	const TlSyms *sy = tl_syms();
	TSNode p = b->stmt;
	while (!ts_node_is_null(p) && ts_node_symbol(p) != sy->block && ts_node_symbol(p) != sy->module) {
		TSNode up = tl_index_parent(idx, p);
		if (ts_node_is_null(up))
			break;
		p = up;
	}
	return p;
}

/* True when the plain name `root`, read at `x` in function `func`, may hold
 * the value of a tainted binding: one made before `x` that no later binding
 * of the name replaces on every path to `x` (a re-binding in a block that
 * holds `x`), or one made later in the body of a loop around both, when
 * nothing in that loop re-binds the name before `x` (the value of the
 * previous iteration). */
/* For one name list in position order: each binding's block (its byte
 * range) and `up`, the latest earlier binding whose block strictly holds
 * that block (-1: none). Blocks nest or are apart, so a stack of the
 * bindings whose blocks hold one another gives every `up` in one pass. */
typedef struct TlCoverList {
	uint32_t size;
	uint32_t *start, *end;
	int32_t *up;
} TlCoverList;

static void tl_facts__root_flows_release(TlFactsCache *fc);

void tl_facts__cover_lists_release(TlFactsCache *fc)
{
	tl_facts__root_flows_release(fc);
	tl_facts__defuse_release(fc);
	tl_facts__value_spans_release(fc);
	if (!fc->covers)
		return;
	for (uint32_t i = 0; i < fc->cover_count; i++) {
		TlCoverList *c = fc->covers[i];
		if (!c)
			continue;
		tl_free(c->start);
		tl_free(c->end);
		tl_free(c->up);
		tl_free(c);
	}
	tl_free(fc->covers);
	fc->covers = NULL;
}

static const TlCoverList *tl_facts__cover_list(const TlIndex *idx, uint32_t slot)
{
	TlFactsCache *fc = idx->facts_cache;
	if (!fc || slot >= idx->name_lists.size)
		return NULL;
	if (!fc->covers) {
		fc->covers = tl_calloc(idx->name_lists.size, sizeof *fc->covers);
		fc->cover_count = idx->name_lists.size;
	}
	if (fc->covers[slot])
		return fc->covers[slot];
	const TlIntArray *all = &idx->name_lists.items[slot];
	TlCoverList *c = tl_calloc(1, sizeof *c);
	uint32_t n = all->size;
	c->size = n;
	c->start = tl_calloc(n ? n : 1, sizeof *c->start);
	c->end = tl_calloc(n ? n : 1, sizeof *c->end);
	c->up = tl_calloc(n ? n : 1, sizeof *c->up);
	int32_t *stack = tl_calloc(n ? n : 1, sizeof *stack);
	uint32_t depth = 0;
	for (uint32_t k = 0; k < n; k++) {
		TSNode b = tl_facts__binding_block(idx, &idx->bindings.items[all->items[k]]);
		c->start[k] = ts_node_is_null(b) ? 0 : ts_node_start_byte(b);
		c->end[k] = ts_node_is_null(b) ? UINT32_MAX : ts_node_end_byte(b);
		/* Off the stack: blocks that do not strictly hold this one. */
		while (depth) {
			int32_t t = stack[depth - 1];
			bool holds = c->start[t] <= c->start[k] && c->end[k] <= c->end[t] &&
				     (c->start[t] != c->start[k] || c->end[t] != c->end[k]);
			if (holds)
				break;
			depth--;
		}
		c->up[k] = depth ? stack[depth - 1] : -1;
		stack[depth++] = (int32_t)k;
	}
	tl_free(stack);
	fc->covers[slot] = c;
	return c;
}

/* The position of the latest binding in `all` (a name's bindings in one
 * scope) made at or before `pos` whose block holds `x` (covers it); false
 * when none. In a list in position order: the latest binding at or before
 * `pos`, found by halving, then up the chain of bindings whose blocks hold
 * its block (a covering binding's block holds `x` and an earlier binding
 * whose block does not, so it strictly holds that block): as many steps as
 * blocks nest, not as many as there are bindings (issue 26). */
bool tl_facts__covering(const TlIndex *idx, const TlIntArray *all, uint32_t pos, TSNode x,
			uint32_t *cover)
{
	if (!all || !all->size)
		return false;
	uint32_t slot = (uint32_t)(all - idx->name_lists.items);
	bool sorted = slot < idx->name_sorted.size && idx->name_sorted.items[slot];
	const TlCoverList *c = sorted ? tl_facts__cover_list(idx, slot) : NULL;
	if (c) {
		uint32_t lo = 0, hi = all->size;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (idx->bindings.items[all->items[mid]].pos <= pos)
				lo = mid + 1;
			else
				hi = mid;
		}
		uint32_t xs = ts_node_start_byte(x), xe = ts_node_end_byte(x);
		for (int32_t k = (int32_t)lo - 1; k >= 0; k = c->up[k]) {
			if (c->start[k] <= xs && xe <= c->end[k]) {
				*cover = idx->bindings.items[all->items[k]].pos;
				return true;
			}
		}
		return false;
	}
	bool have = false;
	for (uint32_t k = 0; k < all->size; k++) {
		const TlBinding *o = &idx->bindings.items[all->items[k]];
		if (o->pos > pos || (have && o->pos <= *cover))
			continue;
		if (tl_facts__contains(tl_facts__binding_block(idx, o), x)) {
			have = true;
			*cover = o->pos;
		}
	}
	return have;
}

static bool tl_facts__root_tainted(const TlIndex *idx, const TlTaint *t, const char *root,
				  int32_t func, TSNode x)
{
	uint32_t pos = ts_node_start_byte(x);
	int32_t slot;
	/* (Every tainted binding is of the taint's own function.) */
	if (func != t->func || !tl_strmap_get(&t->by_name, root, strlen(root), &slot))
		return false;
	/* The name's tainted bindings, in position order (tl_facts__add_bind). */
	const TlIntArray *mine = &t->lists.items[slot];
	uint32_t lo = 0, hi = mine->size;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (idx->bindings.items[mine->items[mid]].pos <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* A binding made before `x` is replaced on every path to `x` exactly
	 * when a later one, still before `x`, sits in a block that holds `x`
	 * (covers it): the latest tainted binding before `x` survives unless
	 * the latest covering binding comes after it. Found once per question
	 * by halving (it was a scan of all the name's bindings for each
	 * tainted one: cubic in a scope that repeats one loop, issue 26). */
	if (lo > 0) {
		uint32_t last = idx->bindings.items[mine->items[lo - 1]].pos, cover = 0;
		if (!tl_facts__covering(idx, tl_index_bindings_of(idx, func, root), pos, x, &cover) ||
		    last >= cover)
			return true;
	}
	/* Bindings made later in the body of a loop around both: the value of
	 * the previous iteration, unless the loop re-binds the name first. */
	const TlBinding *seen = NULL;
	bool seen_known = false;
	for (uint32_t i = lo; i < mine->size; i++) {
		const TlBinding *b = &idx->bindings.items[mine->items[i]];
		if (!seen_known) {
			seen = tl_index_resolve(idx, root, func, pos);
			seen_known = true;
		}
		for (int32_t l = tl_index_loop_of(idx, b->stmt); l >= 0; l = idx->loops.items[l].parent) {
			TSNode body = idx->loops.items[l].body;
			if (!tl_facts__contains(body, x))
				continue;
			if (!seen || seen->func != func || seen->pos < ts_node_start_byte(body))
				return true;
			break;
		}
	}
	return false;
}

typedef struct TlTaintRead {
	const TlIndex *idx;
	const TlTaint *taint;
	int32_t func;
} TlTaintRead;

static bool tl_facts__taint_read(void *data, TSNode node, TlBuf *dotted)
{
	const TlTaintRead *r = data;
	if (tl_facts__names_match(&r->taint->names, dotted))
		return true;
	dotted->data[strcspn(dotted->data, ".")] = '\0'; /* the root */
	return tl_facts__root_tainted(r->idx, r->taint, dotted->data, r->func, node);
}

/* True when the subtree of `n` (in function `func`) reads a tainted value:
 * a tainted dotted name (or an attribute chain below one), or a plain name
 * whose value there may be a tainted binding's. Iterative. */
static bool tl_facts__reads_taint(const TlIndex *idx, TSNode n, const TlTaint *t, int32_t func)
{
	if (ts_node_is_null(n) || (!t->names.size && !t->binds.size))
		return false;
	if (!t->binds.size)
		return tl_facts__mentions(idx, n, &t->names);
	TlTaintRead r = { idx, t, func };
	return tl_reads_each(idx, n, tl_facts__taint_read, &r);
}

/* Taints what binding `b` (of function `func`) binds. */
static void tl_facts__taint_binding(const TlIndex *idx, TlTaint *t, const TlBinding *b, int32_t func)
{
	int32_t bi = (int32_t)(b - idx->bindings.items);
	if (b->func == func && !strchr(b->name, '.')) {
		if (!tl_facts__has_bind(t, bi))
			tl_facts__add_bind(idx, t, bi);
	} else if (!tl_facts__has_name(&t->names, b->name, strlen(b->name))) {
		tl_facts__taint_name(idx, t, tl_strdup(b->name));
	}
}

static bool tl_facts__tainted(const TlIndex *idx, const TlTaint *t, const TlBinding *b, int32_t func)
{
	int32_t bi = (int32_t)(b - idx->bindings.items);
	if (b->func == func && !strchr(b->name, '.'))
		return tl_facts__has_bind(t, bi);
	return tl_facts__has_name(&t->names, b->name, strlen(b->name));
}

/* An expression whose value carries no autograd history whatever its
 * inputs: `x.item()`, `(a == b).sum().item()`, `float(x)`, `len(xs)`. */
bool tl_facts__kills_graph(const TlIndex *idx, TSNode v)
{
	static const char *const killers[] = {
		"item", "detach", "tolist", "numpy", "argmax", "argmin", "size",
		"numel", "float_", "isnan", "isinf", "long", "int", "bool",
	};
	static const char *const builtins[] = { "float", "int", "bool", "len", "str", "round" };
	const TlSyms *sy = tl_syms();
	v = tl_index_unparen(v);
	if (ts_node_is_null(v))
		return true;
	TSSymbol s = ts_node_symbol(v);
	if (s == sy->comparison_operator || s == sy->boolean_operator || s == sy->not_operator ||
	    s == sy->integer || s == sy->string || s == sy->true_ || s == sy->false_ ||
	    s == sy->none)
		return true;
	if (s == sy->attribute)
		return tl_index_text_is(idx, tl_tree_field(v, sy->f_attribute), "data");
	if (s != sy->call)
		return false;
	const TlCall *c = tl_index_call_at(idx, v);
	if (!c)
		return false;
	return c->receiver.id ? IN(c->method, killers) : IN(c->method, builtins);
}

/* A function whose callers the file does not show, returning a value: when
 * it computes losses, outside a loop that runs its own backward and not in
 * eval mode, it is a loss function, and its caller will backpropagate. */
static bool tl_facts__returns_loss_to_unknown(const TlIndex *idx, const TlFunc *f,
					     bool in_step_loop)
{
	if (in_step_loop || (f->events & TL_EV_EVAL))
		return false;
	/* A module's own methods (its forward and the helpers it calls)
	 * build the graph their caller backpropagates. */
	if (f->cls >= 0 && idx->classes.items[f->cls].is_module)
		return true;
	return (f->reach_events & TL_EV_LOSS) != 0;
}

/* True when the value of `expr` dies before it reaches `top` (an ancestor):
 * on the way up it is compared, converted to a number, `.item()`-ed, ... */
static bool tl_facts__killed_between(const TlIndex *idx, TSNode expr, TSNode top)
{
	const TlSyms *sy = tl_syms();
	TSNode child = expr;
	for (TSNode p = tl_index_parent(idx, expr); !ts_node_is_null(p); p = tl_index_parent(idx, p)) {
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->comparison_operator || s == sy->boolean_operator || s == sy->not_operator)
			return true;
		if (s == sy->call && tl_facts__kills_graph(idx, p)) {
			/* x.item() kills x; f(x.item()) does not kill f's other inputs,
			 * but x inside float(x) or x.argmax() dies. */
			const TlCall *c = tl_index_call_at(idx, p);
			if (c && (!c->receiver.id || tl_facts__contains(c->receiver, child)))
				return true;
		}
		if (ts_node_eq(p, top))
			break;
		child = p;
	}
	return false;
}

typedef struct TlReturnTaint {
	const TlTaint *taint;
	int32_t func;
	const TlCall *site;
} TlReturnTaint;

static bool tl_facts__return_mentions(const TlIndex *idx, TSNode ret, void *data)
{
	const TlReturnTaint *rt = data;
	if (rt->site && tl_facts__runs_at(idx, ret, rt->func, rt->site) == TL_RUNS_NEVER)
		return false;
	return tl_facts__reads_taint(idx, ret, rt->taint, rt->func);
}

/* Values computed from tainted values are tainted: the taint of one
 * question followed through the scope (what defuse.c answers for every
 * question at once, and still how a question about one call site of the
 * function is answered). False past the file's CPU bound. */
static bool tl_facts__taint_fixpoint(const TlIndex *idx, TlTaint *taint, int32_t func, uint32_t from)
{
	/* A fixpoint over the function's bindings, bounded by the number it
	 * can add. */
	const TlIntArray *binds = tl_index_scope_binds(idx, func);
	for (uint32_t round = 0; round < 64; round++) {
		bool changed = false;
		for (uint32_t i = 0; binds && i < binds->size; i++) {
			/* Past the file's CPU bound the answer is not used. */
			if (tl_bound_poll())
				return false;
			const TlBinding *b = &idx->bindings.items[binds->items[i]];
			if (b->pos < from ||
			    (b->kind != TL_BIND_ASSIGN && b->kind != TL_BIND_AUG))
				continue;
			/* Reads no tainted root: cannot read a tainted value. */
			if (!taint->readers || !taint->readers[binds->items[i]])
				continue;
			if (tl_facts__tainted(idx, taint, b, func))
				continue;
			/* `x += v` also reads the x it updates. */
			bool reads_old = b->kind == TL_BIND_AUG && b->func == func &&
					 !strchr(b->name, '.') &&
					 tl_facts__root_tainted(idx, taint, b->name, func, b->stmt);
			if (reads_old || (!tl_facts__kills_graph(idx, b->value) &&
					  tl_facts__reads_taint(idx, b->value, taint, func))) {
				tl_facts__taint_binding(idx, taint, b, func);
				changed = true;
			}
		}
		/* `outer.append(inner)`: a container stored into another taints
		 * the other (what a model's method collects level by level). */
		/* Only where it matters, in a function that returns something:
		 * scanning a scope's calls per question made a long loop body
		 * of appends quadratic. */
		const TlIntArray *scalls = func >= 0 && idx->funcs.items[func].returns.size
						   ? tl_index_scope_calls(idx, func)
						   : NULL;
		for (uint32_t i = 0; scalls && i < scalls->size; i++) {
			const TlCall *c = &idx->calls.items[scalls->items[i]];
			if (!c->method || !c->recv_name || ts_node_start_byte(c->node) < from ||
			    !IN(c->method, tl_facts__storing) ||
			    !tl_facts__call_may_read(idx, taint, scalls->items[i]))
				continue;
			bool known = false;
			for (uint32_t k = 0; k < taint->names.size && !known; k++)
				known = strcmp(taint->names.items[k], c->recv_name) == 0;
			if (known || !tl_facts__reads_taint(idx, tl_tree_field(c->node, tl_syms()->f_arguments),
							      taint, func))
				continue;
			tl_facts__taint_name(idx, taint, tl_strdup(c->recv_name));
			changed = true;
		}
		if (!changed)
			break;
	}
	return true;
}
/* Whether a backward call of the scope reads the (followed) taint; with
 * `site`, one that this call of `func` runs. */
static bool tl_facts__taint_backward(const TlIndex *idx, const TlTaint *taint, int32_t func,
				     const TlCall *site)
{
	const TlIntArray *calls = tl_index_scope_calls(idx, func);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		bool backward = (c->events & TL_EV_DIFFERENTIATES) ||
				(c->target >= 0 && (idx->funcs.items[c->target].reach_events & TL_EV_DIFFERENTIATES));
		if (backward && site && tl_facts__runs_at(idx, c->node, func, site) == TL_RUNS_NEVER)
			continue; /* `if train: loss.backward()` at `train=False` */
		if (backward && tl_facts__call_may_read(idx, taint, calls->items[i]) &&
		    tl_facts__reads_taint(idx, c->node, taint, func))
			return true;
	}
	return false;
}

/* With `site` (a call of `func`), only the code of `func` that this call
 * runs, and only this caller, are followed. */
static bool tl_facts__tainted_reach(const TlIndex *idx, TlTaint *taint, int32_t func,
				   uint32_t from, bool in_step_loop, int depth, const TlCall *site)
{
	bool backward = false, returned = false;
	TlReturnTaint rt = { taint, func, site };
	/* A question about every caller: the scope's def-use graph answers. */
	if (site || !tl_facts__defuse_reach(idx, func, &taint->binds, &taint->names, from, &backward,
					   &returned)) {
		if (!tl_facts__taint_fixpoint(idx, taint, func, from))
			return false;
		backward = tl_facts__taint_backward(idx, taint, func, site);
		returned = !backward && func >= 0 && depth <= TL_FACTS_DEPTH &&
			   tl_facts__each_return(idx, func, tl_facts__return_mentions, &rt);
	} else if (getenv("TORCHLINT_CHECK_DEFUSE")) {
		/* A test of the graph against the fixpoint it replaces. */
		bool old_b = tl_facts__taint_fixpoint(idx, taint, func, from) &&
			     tl_facts__taint_backward(idx, taint, func, NULL);
		bool old_r = !old_b && func >= 0 && depth <= TL_FACTS_DEPTH &&
			     tl_facts__each_return(idx, func, tl_facts__return_mentions, &rt);
		bool new_r = !backward && func >= 0 && depth <= TL_FACTS_DEPTH && returned;
		if (old_b != backward || old_r != new_r)
			fprintf(stderr, "defuse differs: %s scope %d from %u: fixpoint %d %d, graph %d %d\n",
				idx->src && idx->src->path ? idx->src->path : "?", (int)func, (unsigned)from,
				old_b, old_r, backward, new_r);
	}
	if (backward)
		return true;
	/* Returned to callers: reaches a backward if some caller's use does. */
	if (func < 0 || depth > TL_FACTS_DEPTH || !returned)
		return false;
	const TlFunc *f = &idx->funcs.items[func];
	if (site)
		return site->func != func &&
		       (!tl_facts__fan_step() || tl_facts__reaches(idx, site->node, depth + 1, NULL));
	/* Returned to callers this file cannot see (the function is passed
	 * around, or called from elsewhere): a value built where no backward
	 * runs (a loss assembled for the caller) may well be backpropagated
	 * there. One built in a loop that runs its own backward is not. */
	if (f->escapes || !f->call_sites.size)
		return tl_facts__returns_loss_to_unknown(idx, f, in_step_loop);
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (c->func != func && (!tl_facts__fan_step() || tl_facts__reaches(idx, c->node, depth + 1, NULL)))
			return true;
	}
	return false;
}

/* ---- a filter before the fixpoint: roots that may lead anywhere -------------- */

/* For one scope, by root (the first part of a dotted name): whether a
 * taint of that root may reach a backward call or a return of the scope,
 * whatever the order of the statements. An over-approximation of what
 * tl_facts__tainted_reach follows: an assignment (or augmented one) passes
 * the taint of every root its value reads to the root of its target, a
 * storing call (`outer.append(inner)`, in a function that returns
 * something) from the roots of its arguments to its receiver's; a backward
 * call and a return statement are reached by the roots they read (the same
 * reads, tl_reads_each). A question whose tainted roots lead to none of
 * them answers no without the fixpoint, whose cost is the scope's size:
 * one such question per statement of a scope that repeats one loop (the
 * same `total += loss` a thousand times) made the answers quadratic
 * (issue 26). Built once per scope, in time linear in what it reads. */
typedef struct TlRootFlow {
	TlStrMap ids;    /* root -> id */
	uint8_t *danger; /* per id: may reach a backward call or a return */
} TlRootFlow;

typedef struct TlFlowRead {
	TlStrMap *ids;
	TlIntArray *out; /* the ids read */
} TlFlowRead;

static int32_t tl_facts__flow_id(TlStrMap *ids, const char *name, size_t len)
{
	int32_t id;
	if (!tl_strmap_get(ids, name, len, &id)) {
		id = (int32_t)ids->count;
		tl_strmap_put(ids, name, len, id);
	}
	return id;
}

static bool tl_facts__flow_read(void *data, TSNode node, TlBuf *dotted)
{
	(void)node;
	TlFlowRead *r = data;
	tl_array_push(r->out, tl_facts__flow_id(r->ids, dotted->data, strcspn(dotted->data, ".")));
	return false;
}

/* Edges from every root `n` reads to `to`; with to < 0, flags them. */
static void tl_facts__flow_reads(const TlIndex *idx, TSNode n, TlStrMap *ids, int32_t to,
				 TlIntArray *from, TlIntArray *tos, TlIntArray *flagged)
{
	if (ts_node_is_null(n))
		return;
	TlIntArray got;
	tl_array_init(&got);
	TlFlowRead r = { ids, &got };
	tl_reads_each(idx, n, tl_facts__flow_read, &r);
	for (uint32_t i = 0; i < got.size; i++) {
		if (to < 0) {
			tl_array_push(flagged, got.items[i]);
		} else {
			tl_array_push(from, got.items[i]);
			tl_array_push(tos, to);
		}
	}
	tl_array_release(&got);
}

static const TlRootFlow *tl_facts__root_flow(const TlIndex *idx, int32_t func)
{
	TlFactsCache *fc = idx->facts_cache;
	if (!fc || func < -1 || func >= (int32_t)idx->funcs.size)
		return NULL;
	if (!fc->flows) {
		fc->flow_count = idx->funcs.size + 1;
		fc->flows = tl_calloc(fc->flow_count, sizeof *fc->flows);
	}
	if (fc->flows[func + 1])
		return fc->flows[func + 1];
	TlRootFlow *f = tl_calloc(1, sizeof *f);
	tl_strmap_init(&f->ids);
	TlIntArray from, to, flagged;
	tl_array_init(&from);
	tl_array_init(&to);
	tl_array_init(&flagged);
	const TlIntArray *binds = tl_index_scope_binds(idx, func);
	for (uint32_t i = 0; binds && i < binds->size; i++) {
		const TlBinding *b = &idx->bindings.items[binds->items[i]];
		if (b->kind != TL_BIND_ASSIGN && b->kind != TL_BIND_AUG)
			continue;
		int32_t t = tl_facts__flow_id(&f->ids, b->name, strcspn(b->name, "."));
		tl_facts__flow_reads(idx, b->value, &f->ids, t, &from, &to, &flagged);
	}
	const TlIntArray *calls = tl_index_scope_calls(idx, func);
	bool returns = func >= 0 && idx->funcs.items[func].returns.size;
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (returns && c->method && c->recv_name && IN(c->method, tl_facts__storing)) {
			int32_t t = tl_facts__flow_id(&f->ids, c->recv_name, strcspn(c->recv_name, "."));
			tl_facts__flow_reads(idx, tl_tree_field(c->node, tl_syms()->f_arguments), &f->ids, t,
					     &from, &to, &flagged);
		}
		if ((c->events & TL_EV_DIFFERENTIATES) ||
		    (c->target >= 0 && (idx->funcs.items[c->target].reach_events & TL_EV_DIFFERENTIATES)))
			tl_facts__flow_reads(idx, c->node, &f->ids, -1, &from, &to, &flagged);
	}
	for (uint32_t i = 0; returns && i < idx->funcs.items[func].returns.size; i++)
		tl_facts__flow_reads(idx, idx->funcs.items[func].returns.items[i], &f->ids, -1, &from, &to,
				     &flagged);
	/* Backwards from the flagged roots over the edges (grouped by target). */
	uint32_t n = f->ids.count, e = from.size;
	f->danger = tl_calloc(n ? n : 1, 1);
	uint32_t *first = tl_calloc((size_t)n + 1, sizeof *first);
	int32_t *by_to = tl_calloc(e ? e : 1, sizeof *by_to);
	for (uint32_t k = 0; k < e; k++)
		first[to.items[k] + 1]++;
	for (uint32_t k = 0; k < n; k++)
		first[k + 1] += first[k];
	uint32_t *fill = tl_calloc(n ? n : 1, sizeof *fill);
	for (uint32_t k = 0; k < e; k++) {
		int32_t t = to.items[k];
		by_to[first[t] + fill[t]++] = from.items[k];
	}
	TlIntArray todo;
	tl_array_init(&todo);
	for (uint32_t k = 0; k < flagged.size; k++)
		if (!f->danger[flagged.items[k]]) {
			f->danger[flagged.items[k]] = 1;
			tl_array_push(&todo, flagged.items[k]);
		}
	while (todo.size) {
		int32_t t = todo.items[--todo.size];
		for (uint32_t k = first[t]; k < first[t + 1]; k++)
			if (!f->danger[by_to[k]]) {
				f->danger[by_to[k]] = 1;
				tl_array_push(&todo, by_to[k]);
			}
	}
	tl_array_release(&todo);
	tl_free(fill);
	tl_free(by_to);
	tl_free(first);
	tl_array_release(&from);
	tl_array_release(&to);
	tl_array_release(&flagged);
	fc->flows[func + 1] = f;
	return f;
}

static void tl_facts__root_flows_release(TlFactsCache *fc)
{
	if (!fc->flows)
		return;
	for (uint32_t i = 0; i < fc->flow_count; i++) {
		TlRootFlow *f = fc->flows[i];
		if (!f)
			continue;
		tl_strmap_release(&f->ids);
		tl_free(f->danger);
		tl_free(f);
	}
	tl_free(fc->flows);
	fc->flows = NULL;
}

/* False when no root of the taint may reach a backward call or a return
 * of `func` (then tl_facts__tainted_reach answers no); true when one may. */
static bool tl_facts__may_reach(const TlIndex *idx, const TlTaint *t, int32_t func)
{
	const TlRootFlow *f = tl_facts__root_flow(idx, func);
	if (!f)
		return true;
	for (uint32_t i = 0; i < t->roots.capacity; i++) {
		const char *root = t->roots.slots[i].key;
		int32_t id;
		if (root && tl_strmap_get(&f->ids, root, strlen(root), &id) && f->danger[id])
			return true;
	}
	return false;
}

static bool tl_facts__reaches(const TlIndex *idx, TSNode expr, int depth, const TlCall *site)
{
	const TlSyms *sy = tl_syms();
	if (depth > TL_FACTS_DEPTH)
		return false;
	int32_t func = tl_index_func_of(idx, expr);
	/* Inside the consumed expression of a backward itself: a backward
	 * call of the scope around it (climbing to the statement, not
	 * scanning the scope's calls before it: that was quadratic). */
	for (TSNode p = expr; !ts_node_is_null(p); p = tl_index_parent(idx, p)) {
		TSSymbol ps = ts_node_symbol(p);
		if (ps == sy->function_definition || ps == sy->class_definition || ps == sy->module)
			break;
		if (ps != sy->call)
			continue;
		const TlCall *c = tl_index_call_at(idx, p);
		if (c && c->func == func && (c->events & TL_EV_DIFFERENTIATES))
			return true;
	}
	TlTaint taint;
	tl_facts__taint_init(&taint, func);
	taint.defer_readers = true; /* until tl_facts__may_reach says go on */
	uint32_t from = ts_node_start_byte(expr);
	TSNode e = tl_index_unparen(expr);
	TSSymbol s = ts_node_symbol(e);
	char *name = (s == sy->identifier || s == sy->attribute) ? tl_facts__dotted(idx, e) : NULL;
	const TlBinding *nb = name && !strchr(name, '.') ? tl_index_resolve_node(idx, e) : NULL;
	if (nb && nb->func == func) {
		/* A plain name: the value it holds here, from its binding on. */
		tl_facts__taint_binding(idx, &taint, nb, func);
		/* Bindings earlier in a loop around it read it in the next
		 * iteration. */
		from = nb->pos < from ? nb->pos : from;
		for (int32_t l = tl_index_loop_of(idx, nb->stmt); l >= 0; l = idx->loops.items[l].parent)
			if (ts_node_start_byte(idx->loops.items[l].body) < from)
				from = ts_node_start_byte(idx->loops.items[l].body);
		tl_free(name);
	} else if (name) {
		tl_facts__taint_name(idx, &taint, name);
		from = 0;
	} else {
		/* The names bound by the assignment whose value holds `expr`,
		 * unless the value dies on the way (`hits += (f(x) == y).sum().item()`). */
		TlIntArray holders;
		tl_array_init(&holders);
		tl_facts__value_holders(idx, func, expr, &holders);
		for (uint32_t i = 0; i < holders.size; i++) {
			const TlBinding *b = &idx->bindings.items[holders.items[i]];
			if ((b->kind == TL_BIND_ASSIGN || b->kind == TL_BIND_AUG) &&
			    !ts_node_is_null(b->value) && tl_facts__contains(b->value, expr) &&
			    !tl_facts__killed_between(idx, expr, b->stmt) &&
			    !tl_facts__tainted(idx, &taint, b, func))
				tl_facts__taint_binding(idx, &taint, b, func);
		}
		tl_array_release(&holders);
	}
	bool yes = false;
	int32_t loop = tl_index_loop_of(idx, expr);
	bool in_step_loop = loop >= 0 && (idx->loops.items[loop].events & TL_EV_BACKWARD);
	if (taint.names.size || taint.binds.size) {
		if (tl_facts__may_reach(idx, &taint, func)) {
			tl_facts__taint_readers(idx, &taint);
			yes = tl_facts__tainted_reach(idx, &taint, func, from, in_step_loop, depth, site);
		}
	} else if (func >= 0) {
		/* `return model(x)`: the callers decide. */
		TSNode p = tl_index_parent(idx, expr);
		while (!ts_node_is_null(p) && ts_node_symbol(p) != sy->return_statement &&
		       ts_node_symbol(p) != sy->expression_statement &&
		       ts_node_symbol(p) != sy->block)
			p = tl_index_parent(idx, p);
		if (!ts_node_is_null(p) && ts_node_symbol(p) == sy->return_statement &&
		    !tl_facts__killed_between(idx, expr, p)) {
			const TlFunc *f = &idx->funcs.items[func];
			yes = !site && (f->escapes || !f->call_sites.size) &&
			      tl_facts__returns_loss_to_unknown(idx, f, in_step_loop);
			for (uint32_t i = 0; i < f->call_sites.size && !yes; i++) {
				const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
				if (c->func != func && (!site || c == site))
					yes = !tl_facts__fan_step() ||
					      tl_facts__reaches(idx, c->node, depth + 1, NULL);
			}
		}
	}
	tl_facts__taint_release(&taint);
	return yes;
}

static bool tl_facts__walk_reaches(const TlIndex *idx, TSNode expr, const TlCall *site)
{
	tl_facts__fan_begin();
	bool yes = tl_facts__reaches(idx, expr, 0, site);
	tl_facts__fan_end();
	return yes;
}

/* The model's answer (model/flow.c): a backward differentiates what
 * `expr` computes, or a function of the file returns it to callers the
 * file does not show and builds a loss for them (as a module's own
 * methods do). With `site`, only that call of the function holding
 * `expr` takes its return. */
static bool tl_facts__flow_reaches(const TlIndex *idx, TSNode expr, const TlCall *site)
{
	TlIntArray rets, backs;
	tl_array_init(&rets);
	tl_array_init(&backs);
	int r = tl_model_reaches_backward(idx, expr, site ? site->node : (TSNode){ 0 }, &rets, site ? &backs : NULL);
	int32_t own = tl_index_func_of(idx, expr);
	bool yes = r > 0 && !site;
	/* At `site`: a backward of the function that this call runs
	 * (`if train: loss.backward()` at `train=False` runs none). */
	for (uint32_t i = 0; !yes && i < backs.size; i++) {
		const TlCall *b = &idx->calls.items[backs.items[i]];
		yes = b->func != own || tl_facts__runs_at(idx, b->node, own, site) != TL_RUNS_NEVER;
	}
	tl_array_release(&backs);
	for (uint32_t i = 0; !yes && r == 0 && i < rets.size; i++) {
		const TlFunc *f = &idx->funcs.items[rets.items[i]];
		if (!f->escapes && f->call_sites.size)
			continue;
		/* built in a loop of its own function that runs a backward (an
		 * enclosing one too: a log filled per metric in a step loop) */
		bool in_step_loop = false;
		for (int32_t l = rets.items[i] == own ? tl_index_loop_of(idx, expr) : -1; l >= 0 && !in_step_loop;
		     l = idx->loops.items[l].parent)
			in_step_loop = (idx->loops.items[l].events & TL_EV_BACKWARD) != 0;
		yes = tl_facts__returns_loss_to_unknown(idx, f, in_step_loop);
	}
	tl_array_release(&rets);
	return yes;
}

static bool tl_facts__reaches_both(const TlIndex *idx, TSNode expr, const TlCall *site)
{
	bool yes = tl_facts__flow_reaches(idx, expr, site);
	if (tl_facts__checking_model())
		tl_facts__model_differs(idx, expr, site ? "reaches-backward-at" : "reaches-backward",
					tl_facts__walk_reaches(idx, expr, site), yes);
	return yes;
}

bool tl_facts_reaches_backward(const TlIndex *idx, TSNode expr)
{
	return tl_facts__reaches_both(idx, expr, NULL);
}

bool tl_facts__reaches_at(const TlIndex *idx, TSNode expr, const TlCall *site)
{
	return tl_facts__reaches_both(idx, expr, site);
}

/* x.float(), x.double(), x.to(torch.float32): a cast to full precision. */
bool tl_facts__upcast(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, call);
	if (!c || !c->method || !c->receiver.id)
		return false;
	if (strcmp(c->method, "float") == 0 || strcmp(c->method, "double") == 0)
		return true;
	if (strcmp(c->method, "to") != 0 && strcmp(c->method, "type") != 0)
		return false;
	for (uint32_t k = 0; k < 3; k++) {
		TSNode a = tl_facts__arg(call, k);
		if (ts_node_is_null(a))
			break;
		char *q = tl_index_qualify(idx, a);
		bool full = q && (strcmp(q, "torch.float32") == 0 || strcmp(q, "torch.float") == 0 ||
				  strcmp(q, "torch.float64") == 0 || strcmp(q, "torch.double") == 0);
		tl_free(q);
		if (full)
			return true;
	}
	TSNode d = tl_facts__kwarg(idx, call, "dtype");
	char *q = ts_node_is_null(d) ? NULL : tl_index_qualify(idx, d);
	bool full = q && (strcmp(q, "torch.float32") == 0 || strcmp(q, "torch.float") == 0);
	tl_free(q);
	return full;
}

/* The binding of the longest bound prefix of an attribute chain:
 * `logits.reshape` -> the binding of `logits`. */
const TlBinding *tl_facts__resolve_prefix(const TlIndex *idx, TSNode n)
{
	const TlSyms *sy = tl_syms();
	n = tl_index_unparen(n);
	while (!ts_node_is_null(n)) {
		const TlBinding *b = tl_index_resolve_node(idx, n);
		if (b || ts_node_symbol(n) != sy->attribute)
			return b;
		n = tl_index_unparen(tl_tree_field(n, sy->f_object));
	}
	return NULL;
}

bool tl_facts_displayed(const TlIndex *idx, TSNode node)
{
	const TlSyms *sy = tl_syms();
	const char *path = idx->src ? idx->src->path : NULL;
	size_t n = path ? strlen(path) : 0;
	if (n < 6 || strcmp(path + n - 6, ".ipynb") != 0)
		return false;
	TSNode stmt = node;
	while (!ts_node_is_null(stmt) && ts_node_symbol(stmt) != sy->expression_statement) {
		TSSymbol s = ts_node_symbol(stmt);
		if (s == sy->block || s == sy->module)
			return false;
		stmt = tl_index_parent(idx, stmt);
	}
	if (ts_node_is_null(stmt))
		return false;
	TSNode up = tl_index_parent(idx, stmt);
	return !ts_node_is_null(up) && ts_node_symbol(up) == sy->module;
}

/* Whether `call` is a torch.save whose first argument is the name `name`. */
static bool tl_facts__saves_name(const TlIndex *idx, const TlCall *c, const char *name)
{
	if (!c->qname || !tl_facts__qname_is_api(c->qname, TL_API_TORCH_SAVE))
		return false;
	TSNode arg = tl_facts__arg(c->node, 0);
	char *root = ts_node_is_null(arg) ? NULL : tl_facts__dotted(idx, arg);
	bool same = root && strcmp(root, name) == 0;
	tl_free(root);
	return same;
}

bool tl_facts__each_later_read(const TlIndex *idx, TSNode assign, TSNode name,
			       bool (*visit)(const TlIndex *, TSNode, void *), void *data)
{
	const TlSyms *sy = tl_syms();
	uint32_t len = 0;
	const char *text = tl_index_text(idx, name, &len);
	int32_t func = tl_index_func_of(idx, assign);
	TSNode scope = func >= 0 ? idx->funcs.items[func].node : idx->root;
	TSNode stmt = tl_index_parent(idx, assign);
	uint32_t after = ts_node_end_byte(assign);
	TSTreeCursor cur = ts_tree_cursor_new(scope);
	bool stop = false, descend = true;
	do {
		TSNode n = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(n);
		/* Subtrees that end before the assignment hold no later read;
		 * a class body is another scope. */
		descend = ts_node_end_byte(n) > after && s != sy->class_definition;
		if (s != sy->identifier || ts_node_start_byte(n) < after)
			continue;
		uint32_t nl = 0;
		const char *nt = tl_index_text(idx, n, &nl);
		if (!nt || nl != len || memcmp(nt, text, len) != 0)
			continue;
		const TlBinding *b = tl_index_resolve_node(idx, n);
		if (!b || !(ts_node_eq(b->stmt, assign) || (!ts_node_is_null(stmt) && ts_node_eq(b->stmt, stmt))))
			continue;
		stop = visit(idx, n, data);
	} while (!stop && tl_walk_next(&cur, scope, descend));
	ts_tree_cursor_delete(&cur);
	return stop;
}

/* A later read that is an entry of a dict / list / tuple literal: kept in
 * `data` (a TSNode), and the walk stops. */
static bool tl_facts__literal_entry(const TlIndex *idx, TSNode n, void *data)
{
	const TlSyms *sy = tl_syms();
	TSNode up = tl_index_parent(idx, n);
	TSSymbol us = ts_node_is_null(up) ? 0 : ts_node_symbol(up);
	if ((us == sy->pair && ts_node_eq(tl_tree_field(up, sy->f_value), n)) || us == sy->list ||
	    us == sy->tuple) {
		*(TSNode *)data = n;
		return true;
	}
	return false;
}

/* The first read, after assignment `assign` to a plain name, of the
 * binding it makes, as an entry of a dict / list / tuple literal; null
 * when there is none. */
static TSNode tl_facts__later_in_literal(const TlIndex *idx, TSNode assign)
{
	const TlSyms *sy = tl_syms();
	TSNode found = { 0 };
	TSNode left = tl_tree_field(assign, sy->f_left);
	if (ts_node_is_null(left) || ts_node_symbol(left) != sy->identifier)
		return found;
	tl_facts__each_later_read(idx, assign, left, tl_facts__literal_entry, &found);
	return found;
}

bool tl_facts_saved(const TlIndex *idx, TSNode node)
{
	const TlSyms *sy = tl_syms();
	TSNode cur = node;
	for (int depth = 0; depth < 16; depth++) {
		TSNode p = tl_index_parent(idx, cur);
		if (ts_node_is_null(p))
			return false;
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->pair) {
			if (!ts_node_eq(tl_tree_field(p, sy->f_value), cur))
				return false;
		} else if (s == sy->dictionary || s == sy->list || s == sy->tuple ||
			   s == sy->parenthesized_expression) {
			/* an entry of a literal */
		} else if (s == sy->argument_list) {
			TSNode call = tl_index_parent(idx, p);
			const TlCall *c = ts_node_is_null(call) ? NULL : tl_index_call_at(idx, call);
			/* best = copy.deepcopy(model.state_dict()): the copy holds
			 * the same keys */
			if (c && c->qname && ts_node_eq(tl_facts__arg(call, 0), cur) &&
			    (strcmp(c->qname, "copy.deepcopy") == 0 || strcmp(c->qname, "copy.copy") == 0)) {
				cur = call;
				continue;
			}
			return c && c->qname && tl_facts__qname_is_api(c->qname, TL_API_TORCH_SAVE) &&
			       ts_node_eq(tl_facts__arg(call, 0), cur);
		} else if (s == sy->keyword_argument) {
			/* torch.save(obj=..., f=...) */
			TSNode args = tl_index_parent(idx, p);
			TSNode call = ts_node_is_null(args) ? args : tl_index_parent(idx, args);
			const TlCall *c = ts_node_is_null(call) ? NULL : tl_index_call_at(idx, call);
			return c && c->qname && tl_facts__qname_is_api(c->qname, TL_API_TORCH_SAVE) &&
			       ts_node_eq(tl_tree_field(p, sy->f_value), cur) &&
			       tl_index_text_is(idx, tl_tree_field(p, sy->f_name), "obj");
		} else if (s == sy->assignment) {
			if (!ts_node_eq(tl_tree_field(p, sy->f_right), cur))
				return false;
			char *name = tl_facts_root_name(idx, tl_tree_field(p, sy->f_left));
			if (!name)
				return false;
			int32_t func = tl_index_func_of(idx, p);
			const TlIntArray *calls = tl_index_scope_calls(idx, func);
			bool found = false;
			for (uint32_t i = 0; calls && i < calls->size && !found; i++) {
				const TlCall *c = &idx->calls.items[calls->items[i]];
				found = c->start_byte >= ts_node_end_byte(p) && tl_facts__saves_name(idx, c, name);
			}
			tl_free(name);
			if (found)
				return true;
			/* weights = m.state_dict(); ckpt = {"model": weights}; save(ckpt) */
			TSNode next = tl_facts__later_in_literal(idx, p);
			if (ts_node_is_null(next))
				return false;
			cur = next;
			continue;
		} else {
			return false;
		}
		cur = p;
	}
	return false;
}
