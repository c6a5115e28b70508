#include "syntax/index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/budget.h"
#include "base/tl_assert.h"
#include "syntax/index_internal.h"
#include "syntax/syms.h"
#include "syntax/treewalk.h"

/* Bounds on chains the index follows through bindings (alias of an alias of
 * ...): real code needs two or three steps; the bound keeps adversarial
 * input from making the walk long. */
#define TL_ALIAS_DEPTH 8

/* ---- node helpers ------------------------------------------------------ */

const char *tl_index_text(const TlIndex *idx, TSNode n, uint32_t *len)
{
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	if (e > idx->src->length)
		e = idx->src->length;
	if (s > e)
		s = e;
	*len = e - s;
	return idx->src->text + s;
}

bool tl_index_text_is(const TlIndex *idx, TSNode n, const char *s)
{
	uint32_t len;
	const char *t = tl_index_text(idx, n, &len);
	return strlen(s) == len && memcmp(t, s, len) == 0;
}

TSNode tl_index_unparen(TSNode n)
{
	if (ts_node_is_null(n))
		return n;
	TSSymbol paren = tl_syms()->parenthesized_expression;
	while (ts_node_symbol(n) == paren && ts_node_named_child_count(n) == 1) {
		n = ts_node_named_child(n, 0);
		if (ts_node_is_null(n))
			break;
	}
	return n;
}

/* ---- lookups ----------------------------------------------------------- */

static int tl_index__cmp_call(const TlCall *c, uint32_t start, uint32_t end)
{
	uint32_t cs = c->start_byte, ce = c->end_byte;
	if (cs != start)
		return cs < start ? -1 : 1;
	if (ce != end)
		return ce < end ? -1 : 1;
	return 0;
}

const TlCall *tl_index_call_at(const TlIndex *idx, TSNode call)
{
	uint32_t start = ts_node_start_byte(call), end = ts_node_end_byte(call);
	int32_t k;
	if (idx->call_spans.mask) {
		/* Asked of nearly every call node, by several predicates each:
		 * the last answer, else one probe, and the search below only
		 * for a shared span. */
		if (idx->call_last != -2 && start == idx->call_last_start && end == idx->call_last_end)
			return idx->call_last >= 0 ? &idx->calls.items[idx->call_last] : NULL;
		TlIndex *memo = (TlIndex *)idx;
		memo->call_last_start = start;
		memo->call_last_end = end;
		if (!tl_scopemap_get(&idx->call_spans, start, end, &k)) {
			memo->call_last = -1;
			return NULL;
		}
		if (k >= 0) {
			memo->call_last = k;
			return &idx->calls.items[k];
		}
		memo->call_last = -2; /* shared: searched each time */
	}
	uint32_t lo = 0, hi = idx->calls.size;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = tl_index__cmp_call(&idx->calls.items[mid], start, end);
		if (c == 0)
			return &idx->calls.items[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool tl_index__contains(TSNode outer, TSNode n)
{
	return ts_node_start_byte(outer) <= ts_node_start_byte(n) &&
	       ts_node_end_byte(n) <= ts_node_end_byte(outer);
}

int32_t tl_index_func_of(const TlIndex *idx, TSNode n)
{
	/* Functions are recorded in pre-order, so sorted by start: take the
	 * last one starting at or before `n`, then its enclosing functions
	 * until one contains `n`. */
	uint32_t start = ts_node_start_byte(n), end = ts_node_end_byte(n);
	const TlFunc *funcs = idx->funcs.items;
	uint32_t lo = 0, hi = idx->funcs.size;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (funcs[mid].start_byte <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int32_t f = (int32_t)lo - 1; f >= 0; f = funcs[f].parent) {
		if (funcs[f].start_byte <= start && end <= funcs[f].end_byte &&
		    !((funcs[f].start_byte == start && funcs[f].end_byte == end) &&
		      ts_node_eq(funcs[f].node, n)))
			return f;
	}
	return -1;
}

static const TlIntArray *tl_index__scope(const TlIntLists *lists, int32_t func)
{
	uint32_t k = (uint32_t)(func + 1);
	return k < lists->size ? &lists->items[k] : NULL;
}

const TlIntArray *tl_index_scope_calls(const TlIndex *idx, int32_t func)
{
	return tl_index__scope(&idx->scope_calls, func);
}

const TlIntArray *tl_index_scope_binds(const TlIndex *idx, int32_t func)
{
	return tl_index__scope(&idx->scope_binds, func);
}

int32_t tl_index_loop_of(const TlIndex *idx, TSNode n)
{
	/* The scope's loops are in source order, so their bodies are sorted by
	 * start: take the last body starting at or before `n`, then its
	 * enclosing loops until one contains `n` (a linear scan per question
	 * was quadratic in a module of many loops). */
	int32_t func = tl_index_func_of(idx, n);
	const TlIntArray *loops = tl_index__scope(&idx->scope_loops, func);
	if (!loops)
		return -1;
	uint32_t start = ts_node_start_byte(n);
	uint32_t lo = 0, hi = loops->size;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const TlLoop *l = &idx->loops.items[loops->items[mid]];
		/* (a loop without a body, in broken code, sorts by its start) */
		if (ts_node_start_byte(ts_node_is_null(l->body) ? l->node : l->body) <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int32_t l = lo ? loops->items[lo - 1] : -1; l >= 0; l = idx->loops.items[l].parent)
		if (!ts_node_is_null(idx->loops.items[l].body) &&
		    tl_index__contains(idx->loops.items[l].body, n))
			return l;
	return -1;
}

int32_t tl_index_with_of(const TlIndex *idx, TSNode n)
{
	int32_t func = tl_index_func_of(idx, n), best = -1;
	uint32_t best_start = 0;
	const TlIntArray *withs = tl_index__scope(&idx->scope_withs, func);
	for (uint32_t k = 0; withs && k < withs->size; k++) {
		const TlWith *w = &idx->withs.items[withs->items[k]];
		if (tl_index__contains(w->body, n) &&
		    (best < 0 || ts_node_start_byte(w->body) >= best_start)) {
			best = withs->items[k];
			best_start = ts_node_start_byte(w->body);
		}
	}
	return best;
}

uint32_t tl_index_first_call_from(const TlIndex *idx, uint32_t byte)
{
	uint32_t lo = 0, hi = idx->calls.size;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (idx->calls.items[mid].start_byte < byte)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool tl_index_no_call_has(const TlIndex *idx, uint32_t bits, uint32_t callee_bits)
{
	for (uint32_t i = 0; i < idx->calls.size; i++)
		if ((idx->calls.items[i].events & bits) || (idx->calls.items[i].callee_events & callee_bits))
			return false;
	return true;
}

/* ---- pass 1: one iterative walk ----------------------------------------- */

typedef struct TlScope {
	int32_t func, cls, loop, with;
} TlScope;

typedef struct TlFrame {
	TSNode node;
	TlScope saved;
} TlFrame;

/* A loop or with block whose body is about to be entered. */
typedef struct TlPending {
	TSNode body;
	int32_t loop, with;
} TlPending;

/* An ancestor of the walk's node (treewalk.h): what entering it did, for
 * leaving it, and what the parent table needs of it. */
typedef struct TlOpen {
	TSNode node;
	unsigned entered;
	uint32_t parent; /* its number in the parent table, or UINT32_MAX */
	uint32_t anchor; /* the innermost statement around its children (parents.h), or UINT32_MAX */
	bool block;      /* a module or block: its named children are statements */
} TlOpen;

typedef struct TlWalker {
	TlIndex *idx;
	const TlSyms *sy;
	TlScope cur;
	TlArray(TlFrame) frames;
	TlArray(TlPending) pending;
	uint32_t stmt_call_start, stmt_call_end;
	uint8_t *kinds; /* TL_WALK_* by symbol */
	uint32_t kind_count;
	const TlOpen *open; /* the ancestors of the node being entered, innermost last */
	uint32_t open_size;
} TlWalker;

/* The entered node's ancestor `up` levels above it (1: its parent), or a
 * null node: the walk knows them, so no lookup in the parent table. */
static TSNode tl_index__ancestor(const TlWalker *w, uint32_t up)
{
	if (w->open_size < up)
		return (TSNode){ { 0, 0, 0, 0 }, NULL, NULL };
	return w->open[w->open_size - up].node;
}

static void tl_index__add_binding(TlWalker *w, const char *name, size_t len,
				  TlBindKind kind, TSNode stmt, TSNode value,
				  int32_t elem, uint32_t pos)
{
	TlIndex *idx = w->idx;
	TlBinding b;
	memset(&b, 0, sizeof b);
	b.name = tl_strndup(name, len);
	b.kind = kind;
	b.stmt = stmt;
	b.value = value;
	b.elem = elem;
	b.func = w->cur.func;
	b.cls = -1;
	b.ref = -1;
	b.top = -1;
	b.pos = pos;
	if (w->cur.cls >= 0) {
		/* Directly in a class body: a class attribute (or a method, or a
		 * nested class), not a name of the enclosing scope. */
		b.class_body = true;
		b.cls = w->cur.cls;
	} else if (strncmp(b.name, "self.", 5) == 0) {
		for (int32_t f = w->cur.func; f >= 0; f = idx->funcs.items[f].parent)
			if (idx->funcs.items[f].cls >= 0) {
				b.cls = idx->funcs.items[f].cls;
				break;
			}
	}
	tl_array_push(&idx->bindings, b);
}

static void tl_index__scope_push(TlIntLists *lists, int32_t func, int32_t item)
{
	uint32_t k = (uint32_t)(func + 1);
	while (lists->size <= k) {
		TlIntArray empty;
		tl_array_init(&empty);
		tl_array_push(lists, empty);
	}
	tl_array_push(&lists->items[k], item);
}

/* Builds the scoped name table and the per-scope binding lists, once all
 * bindings (with their final cls / ref) are known. */
static void tl_index__file_bindings(TlIndex *idx)
{
	for (uint32_t i = 0; i < idx->bindings.size; i++) {
		const TlBinding *b = &idx->bindings.items[i];
		if (b->kind == TL_BIND_DEF && b->cls >= 0) {
			tl_index__file(idx, TL_SCOPE_METHODS, b->cls, b->name, (int32_t)i);
			continue;
		}
		if (b->class_body) {
			tl_index__file(idx, TL_SCOPE_BODY, b->cls, b->name, (int32_t)i);
			continue;
		}
		tl_index__scope_push(&idx->scope_binds, b->func, (int32_t)i);
		if (b->cls >= 0)
			tl_index__file(idx, TL_SCOPE_ATTRS, b->cls, b->name, (int32_t)i);
		else
			tl_index__file(idx, TL_SCOPE_FUNC, b->func, b->name, (int32_t)i);
	}
	for (uint32_t i = 0; i < idx->loops.size; i++)
		tl_index__scope_push(&idx->scope_loops, idx->loops.items[i].func, (int32_t)i);
	for (uint32_t i = 0; i < idx->withs.size; i++)
		tl_index__scope_push(&idx->scope_withs, idx->withs.items[i].func, (int32_t)i);
	for (uint32_t i = 0; i < idx->calls.size; i++)
		tl_index__scope_push(&idx->scope_calls, idx->calls.items[i].func, (int32_t)i);
}

/* Binds every name in an assignment / for / with target. Tuple targets
 * record the element index of top-level names, and of every name its nesting
 * depth and the top-level element that holds it; the walk is iterative. */
static void tl_index__bind_target(TlWalker *w, TSNode target, TlBindKind kind,
				  TSNode stmt, TSNode value, uint32_t pos)
{
	const TlSyms *sy = w->sy;
	typedef struct {
		TSNode n;
		int32_t elem, top;
		int32_t depth;
	} Item;
	TlArray(Item) todo;
	tl_array_init(&todo);
	Item first = { target, -1, -1, 0 };
	tl_array_push(&todo, first);
	while (todo.size) {
		Item it = tl_array_pop(&todo);
		TSNode n = tl_index_unparen(it.n);
		TSSymbol s = ts_node_symbol(n);
		if (s == sy->identifier || s == sy->attribute) {
			/* Most targets spell their name out: read from the source,
			 * no buffer. */
			uint32_t len;
			const char *t = tl_index__plain_name(w->idx, n, &len);
			TlBuf b = { NULL, 0, 0 };
			if (!t) {
				tl_buf_init(&b);
				if (tl_index_dotted(w->idx, n, &b)) {
					t = b.data;
					len = (uint32_t)b.len;
				}
			}
			if (t) {
				tl_index__add_binding(w, t, len, kind, stmt, value, it.elem, pos);
				TlBinding *nb = tl_array_last(&w->idx->bindings);
				nb->top = it.top;
				nb->depth = it.depth;
			}
			if (b.data)
				tl_buf_release(&b);
		} else if (s == sy->pattern_list || s == sy->tuple_pattern ||
			   s == sy->list_pattern || s == sy->tuple || s == sy->list ||
			   s == sy->expression_list) {
			uint32_t count = ts_node_named_child_count(n);
			for (uint32_t i = count; i > 0; i--) {
				bool outer = it.depth == 0;
				Item child = { ts_node_named_child(n, i - 1),
					       outer ? (int32_t)(i - 1) : -1,
					       outer ? (int32_t)(i - 1) : it.top, it.depth + 1 };
				tl_array_push(&todo, child);
			}
		} else if (s == sy->list_splat_pattern && ts_node_named_child_count(n)) {
			Item child = { ts_node_named_child(n, 0), -1, it.top, it.depth };
			tl_array_push(&todo, child);
		}
	}
	tl_array_release(&todo);
}

static void tl_index__on_import(TlWalker *w, TSNode n)
{
	const TlSyms *sy = w->sy;
	TlIndex *idx = w->idx;
	bool from = ts_node_symbol(n) == sy->import_from_statement;
	char *module = NULL;
	if (from) {
		/* A relative import keeps its dots (`from .losses import X` ->
		 * ".losses.X", `from .. import m` -> "..m"): the project model
		 * resolves it from the importing file's package; nothing else
		 * reads a name that starts with a dot as an API. */
		TSNode m = tl_tree_field(n, sy->f_module_name);
		if (ts_node_is_null(m))
			return;
		uint32_t len;
		const char *t = tl_index_text(idx, m, &len);
		/* Error recovery can leave an empty module name (`from` alone on
		 * a line, then `import x y`): nothing to bind. */
		if (!t || !len)
			return;
		module = tl_strndup(t, len);
	}
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (from && ts_node_eq(c, tl_tree_field(n, sy->f_module_name)))
			continue;
		TSNode name = c, alias = { 0 };
		if (from && ts_node_symbol(c) == sy->wildcard_import) {
			/* `from m import *`: a binding named "*" holding the
			 * module, which no name lookup finds; the project model
			 * reads it to resolve names the module does not bind. */
			tl_index__add_binding(w, "*", 1, TL_BIND_IMPORT, n, c, -1,
					      ts_node_start_byte(n));
			idx->bindings.items[idx->bindings.size - 1].qname = tl_strdup(module);
			continue;
		}
		if (ts_node_symbol(c) == sy->aliased_import) {
			name = tl_tree_field(c, sy->f_name);
			alias = tl_tree_field(c, sy->f_alias);
		} else if (ts_node_symbol(c) != sy->dotted_name) {
			continue;
		}
		uint32_t nlen;
		const char *ntext = tl_index_text(idx, name, &nlen);
		TlBuf q;
		tl_buf_init(&q);
		if (module) {
			tl_buf_add(&q, module);
			size_t ml = strlen(module);
			if (ml && module[ml - 1] != '.')
				tl_buf_addc(&q, '.');
		}
		const char *local;
		uint32_t llen;
		if (!ts_node_is_null(alias)) {
			tl_buf_addn(&q, ntext, nlen);
			local = tl_index_text(idx, alias, &llen);
		} else if (module) {
			tl_buf_addn(&q, ntext, nlen);
			local = ntext;
			llen = nlen;
		} else {
			/* `import torch.nn` binds `torch`. */
			llen = (uint32_t)strcspn(ntext, ".");
			if (llen > nlen)
				llen = nlen;
			tl_buf_addn(&q, ntext, llen);
			local = ntext;
		}
		tl_index__add_binding(w, local, llen, TL_BIND_IMPORT, n, name, -1,
				      ts_node_start_byte(n));
		idx->bindings.items[idx->bindings.size - 1].qname = tl_buf_detach(&q);
		tl_buf_release(&q);
	}
	tl_free(module);
}

static void tl_index__on_params(TlWalker *w, TSNode params, int32_t f)
{
	const TlSyms *sy = w->sy;
	if (ts_node_is_null(params))
		return;
	uint32_t count = ts_node_named_child_count(params);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(params, i), name = p, annotation = { 0 };
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->typed_parameter) {
			name = ts_node_named_child(p, 0);
			annotation = tl_tree_field(p, sy->f_type);
		} else if (s == sy->default_parameter || s == sy->typed_default_parameter) {
			name = tl_tree_field(p, sy->f_name);
			annotation = tl_tree_field(p, sy->f_type);
		}
		/* `m: nn.Module`: the annotation's expression sits in a `type` node. */
		if (!ts_node_is_null(annotation) && ts_node_symbol(annotation) == sy->type_ &&
		    ts_node_named_child_count(annotation))
			annotation = ts_node_named_child(annotation, 0);
		if (!ts_node_is_null(name) && (ts_node_symbol(name) == sy->list_splat_pattern ||
					       ts_node_symbol(name) == sy->dictionary_splat_pattern))
			name = ts_node_named_child(name, 0);
		if (ts_node_is_null(name) || ts_node_symbol(name) != sy->identifier)
			continue;
		uint32_t len;
		const char *t = tl_index_text(w->idx, name, &len);
		tl_array_push(&w->idx->funcs.items[f].params, (int32_t)w->idx->bindings.size);
		tl_index__add_binding(w, t, len, TL_BIND_PARAM, p, annotation, -1,
				      ts_node_start_byte(w->idx->funcs.items[f].node));
	}
}

static void tl_index__push(TlWalker *w, TSNode n)
{
	TlFrame fr = { n, w->cur };
	tl_array_push(&w->frames, fr);
}

/* What the walk does at a node, by its symbol (TlWalker.kinds). */
enum {
	TL_WALK_SKIP, TL_WALK_RETURN, TL_WALK_BLOCK, TL_WALK_FUNC, TL_WALK_CLASS, TL_WALK_LOOP,
	TL_WALK_WITH, TL_WALK_WITH_ITEM, TL_WALK_ASSIGN, TL_WALK_AUG, TL_WALK_IMPORT,
	TL_WALK_EXPR_STMT, TL_WALK_COMMENT, TL_WALK_CALL, TL_WALK_EXIT,
};

/* What entering a node left for leaving it to undo. */
enum { TL_WALK_FRAME = 1, TL_WALK_PENDING = 2 };

static void tl_index__kinds(TlWalker *w)
{
	const TlSyms *sy = w->sy;
	w->kind_count = ts_language_symbol_count(tl_python_language());
	w->kinds = tl_calloc(w->kind_count, 1);
	const struct {
		TSSymbol sym;
		uint8_t kind;
	} map[] = {
		{ sy->return_statement, TL_WALK_RETURN }, { sy->block, TL_WALK_BLOCK },
		{ sy->function_definition, TL_WALK_FUNC }, { sy->class_definition, TL_WALK_CLASS },
		{ sy->for_statement, TL_WALK_LOOP }, { sy->while_statement, TL_WALK_LOOP },
		{ sy->with_statement, TL_WALK_WITH }, { sy->with_item, TL_WALK_WITH_ITEM },
		{ sy->assignment, TL_WALK_ASSIGN }, { sy->augmented_assignment, TL_WALK_AUG },
		{ sy->import_statement, TL_WALK_IMPORT }, { sy->import_from_statement, TL_WALK_IMPORT },
		{ sy->expression_statement, TL_WALK_EXPR_STMT }, { sy->comment, TL_WALK_COMMENT },
		{ sy->call, TL_WALK_CALL },
		{ sy->continue_statement, TL_WALK_EXIT }, { sy->break_statement, TL_WALK_EXIT },
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (map[i].sym < w->kind_count)
			w->kinds[map[i].sym] = map[i].kind;
}

/* Records what node `n` (of symbol `s`) says; returns the TL_WALK_FRAME /
 * TL_WALK_PENDING bits that leaving it must undo. */
static unsigned tl_index__enter(TlWalker *w, TSNode n, TSSymbol s)
{
	const TlSyms *sy = w->sy;
	TlIndex *idx = w->idx;
	uint8_t kind = s < w->kind_count ? w->kinds[s] : TL_WALK_SKIP;

	switch (kind) {
	case TL_WALK_SKIP:
		return 0;
	case TL_WALK_RETURN:
		if (w->cur.func >= 0)
			tl_array_push(&idx->funcs.items[w->cur.func].returns, n);
		tl_array_push(&idx->exits, (int32_t)ts_node_start_byte(n));
		return 0;
	case TL_WALK_EXIT:
		tl_array_push(&idx->exits, (int32_t)ts_node_start_byte(n));
		return 0;
	case TL_WALK_BLOCK:
		if (w->pending.size && ts_node_eq(tl_array_last(&w->pending)->body, n)) {
			TlPending p = *tl_array_last(&w->pending);
			tl_index__push(w, n);
			if (p.loop >= 0)
				w->cur.loop = p.loop;
			if (p.with >= 0)
				w->cur.with = p.with;
			return TL_WALK_FRAME;
		}
		return 0;
	default:
		break;
	}
	if (kind == TL_WALK_FUNC) {
		TlFunc f;
		memset(&f, 0, sizeof f);
		f.node = n;
		TSNode parent = tl_index__ancestor(w, 1);
		f.outer = (!ts_node_is_null(parent) && ts_node_symbol(parent) == sy->decorated_definition)
				  ? parent : n;
		TSNode name = tl_tree_field(n, sy->f_name);
		uint32_t len = 0;
		const char *t = ts_node_is_null(name) ? "" : tl_index_text(idx, name, &len);
		f.name = tl_strndup(t, len);
		f.parent = w->cur.func;
		f.cls = w->cur.cls;
		tl_array_init(&f.call_sites);
		tl_array_init(&f.params);
		tl_array_init(&f.returns);
		int32_t fi = (int32_t)idx->funcs.size;
		tl_array_push(&idx->funcs, f);
		if (len) {
			tl_index__add_binding(w, t, len, TL_BIND_DEF, n, name, -1,
					      ts_node_start_byte(n));
			idx->bindings.items[idx->bindings.size - 1].ref = fi;
			/* Methods are reached through self.name, not by name
			 * (add_binding has set cls for a def in a class body). */
		}
		tl_index__push(w, n);
		w->cur.func = fi;
		w->cur.cls = -1;
		w->cur.loop = -1;
		w->cur.with = -1;
		tl_index__on_params(w, tl_tree_field(n, sy->f_parameters), fi);
		return TL_WALK_FRAME;
	}
	if (kind == TL_WALK_CLASS) {
		TlClass c;
		memset(&c, 0, sizeof c);
		c.node = n;
		TSNode name = tl_tree_field(n, sy->f_name);
		uint32_t len = 0;
		const char *t = ts_node_is_null(name) ? "" : tl_index_text(idx, name, &len);
		c.name = tl_strndup(t, len);
		c.func = w->cur.func;
		tl_array_init(&c.bases);
		tl_array_init(&c.base_qnames);
		int32_t ci = (int32_t)idx->classes.size;
		tl_array_push(&idx->classes, c);
		if (len) {
			tl_index__add_binding(w, t, len, TL_BIND_CLASS, n, name, -1,
					      ts_node_start_byte(n));
			idx->bindings.items[idx->bindings.size - 1].ref = ci;
		}
		tl_index__push(w, n);
		w->cur.cls = ci;
		return TL_WALK_FRAME;
	}
	if (kind == TL_WALK_LOOP) {
		TlLoop l;
		memset(&l, 0, sizeof l);
		l.node = n;
		l.body = tl_tree_field(n, sy->f_body);
		l.func = w->cur.func;
		l.parent = w->cur.loop;
		int32_t li = (int32_t)idx->loops.size;
		tl_array_push(&idx->loops, l);
		TlPending p = { l.body, li, -1 };
		tl_array_push(&w->pending, p);
		tl_index__push(w, n);
		if (s == sy->for_statement) {
			TSNode left = tl_tree_field(n, sy->f_left);
			TSNode right = tl_tree_field(n, sy->f_right);
			if (!ts_node_is_null(left) && !ts_node_is_null(l.body))
				tl_index__bind_target(w, left, TL_BIND_FOR, n, right,
						      ts_node_start_byte(l.body));
		}
		return TL_WALK_FRAME | TL_WALK_PENDING;
	}
	if (kind == TL_WALK_WITH) {
		TlWith wi;
		memset(&wi, 0, sizeof wi);
		wi.node = n;
		wi.body = tl_tree_field(n, sy->f_body);
		wi.func = w->cur.func;
		wi.parent = w->cur.with;
		int32_t wj = (int32_t)idx->withs.size;
		tl_array_push(&idx->withs, wi);
		TlPending p = { wi.body, -1, wj };
		tl_array_push(&w->pending, p);
		tl_index__push(w, n);
		return TL_WALK_FRAME | TL_WALK_PENDING;
	}
	if (kind == TL_WALK_WITH_ITEM) {
		TSNode v = tl_tree_field(n, sy->f_value);
		if (!ts_node_is_null(v) && ts_node_symbol(v) == sy->as_pattern) {
			TSNode value = ts_node_named_child(v, 0);
			TSNode alias = tl_tree_field(v, sy->f_alias);
			TSNode with = tl_index__ancestor(w, 2); /* with_item < with_clause < with_statement */
			TSNode body = ts_node_is_null(with) ? n
				: tl_tree_field(with, sy->f_body);
			if (!ts_node_is_null(alias) && ts_node_named_child_count(alias))
				tl_index__bind_target(w, ts_node_named_child(alias, 0), TL_BIND_WITH,
						      n, value,
						      ts_node_start_byte(ts_node_is_null(body) ? n : body));
		}
		return 0;
	}
	if (kind == TL_WALK_ASSIGN) {
		TSNode left = tl_tree_field(n, sy->f_left);
		TSNode right = tl_tree_field(n, sy->f_right);
		/* a = b = value: both names bind the innermost value. */
		while (!ts_node_is_null(right) && ts_node_symbol(right) == sy->assignment)
			right = tl_tree_field(right, sy->f_right);
		if (ts_node_is_null(left))
			return 0;
		TSNode l = tl_index_unparen(left);
		if (ts_node_symbol(l) == sy->attribute) {
			TSNode attr = tl_tree_field(l, sy->f_attribute);
			if (!ts_node_is_null(attr) && tl_index_text_is(idx, attr, "grad")) {
				TlSite site = { n, w->cur.func, w->cur.loop, TL_EV_GRAD_RESET };
				tl_array_push(&idx->sites, site);
			}
		}
		if (!ts_node_is_null(right))
			tl_index__bind_target(w, left, TL_BIND_ASSIGN, n, right, ts_node_end_byte(n));
		return 0;
	}
	if (kind == TL_WALK_AUG) {
		TSNode left = tl_tree_field(n, sy->f_left);
		TSNode right = tl_tree_field(n, sy->f_right);
		if (!ts_node_is_null(left))
			tl_index__bind_target(w, left, TL_BIND_AUG, n, right, ts_node_end_byte(n));
		return 0;
	}
	if (kind == TL_WALK_IMPORT) {
		tl_index__on_import(w, n);
		return 0;
	}
	if (kind == TL_WALK_EXPR_STMT) {
		if (ts_node_named_child_count(n) == 1) {
			TSNode c = ts_node_named_child(n, 0);
			if (ts_node_symbol(c) == sy->call) {
				w->stmt_call_start = ts_node_start_byte(c);
				w->stmt_call_end = ts_node_end_byte(c);
			}
		}
		return 0;
	}
	if (kind == TL_WALK_COMMENT) {
		tl_array_push(&idx->comments, n);
		return 0;
	}
	if (kind == TL_WALK_CALL) {
		TlCall c;
		memset(&c, 0, sizeof c);
		c.node = n;
		c.start_byte = ts_node_start_byte(n);
		c.end_byte = ts_node_end_byte(n);
		c.callee = tl_tree_field(n, sy->f_function);
		c.func = w->cur.func;
		c.loop = w->cur.loop;
		c.with = w->cur.with;
		c.target = -1;
		c.arg_target = -1;
		c.stmt_level = c.start_byte == w->stmt_call_start && c.end_byte == w->stmt_call_end;
		TSNode callee = tl_index_unparen(c.callee);
		if (!ts_node_is_null(callee) && ts_node_symbol(callee) == sy->attribute) {
			c.receiver = tl_tree_field(callee, sy->f_object);
			TSNode attr = tl_tree_field(callee, sy->f_attribute);
			uint32_t len;
			const char *t = tl_index_text(idx, attr, &len);
			c.method = tl_strndup(t, len);
			c.recv_name = tl_index_dotted_dup(idx, c.receiver);
		} else if (!ts_node_is_null(callee) && ts_node_symbol(callee) == sy->identifier) {
			uint32_t len;
			const char *t = tl_index_text(idx, callee, &len);
			c.method = tl_strndup(t, len);
		}
		tl_array_push(&idx->calls, c);
		return 0;
	}
	return 0;
}

/* Undoes what entering a node did (its tl_index__enter bits). */
static void tl_index__leave(TlWalker *w, unsigned entered)
{
	if (entered & TL_WALK_FRAME) {
		w->cur = tl_array_last(&w->frames)->saved;
		w->frames.size--;
	}
	if (entered & TL_WALK_PENDING)
		w->pending.size--;
}

/* Counts the anonymous leaves the walk passed over since the last node as
 * a full walk would: each one a node (the preorder numbers of the nodes
 * after them, TlIndexNode.ordinal, stay those of a full walk) and one poll
 * of the file's bound (its steps stay those of a full walk). True when the
 * bound is hit. */
static bool tl_index__pass_tokens(TlIndex *idx, TlTreeWalk *tw)
{
	for (; tw->skipped; tw->skipped--) {
		if (tl_bound_poll())
			return true;
		idx->node_count++;
	}
	return false;
}

static void tl_index__walk(TlIndex *idx, TSNode root, const uint8_t *collect)
{
	TlWalker w;
	memset(&w, 0, sizeof w);
	w.idx = idx;
	w.sy = tl_syms();
	w.cur.func = w.cur.cls = w.cur.loop = w.cur.with = -1;
	w.stmt_call_start = UINT32_MAX;
	tl_array_init(&w.frames);
	tl_array_init(&w.pending);
	tl_index__kinds(&w);
	/* The open ancestors, for the parent table and for leaving them. */
	TlArray(TlOpen) open;
	tl_array_init(&open);
	/* A plain string literal (start, content, end: no interpolation)
	 * holds nothing the index records, so its parts are counted, not
	 * visited, unless the queries start at one of them. */
	const TlSyms *sy = w.sy;
	const TSSymbol parts[] = { sy->string_start, sy->string_content, sy->string_end,
				   sy->escape_sequence, sy->escape_interpolation };
	bool skip_strings = true;
	for (size_t i = 0; collect && i < sizeof parts / sizeof *parts; i++)
		if ((collect[parts[i] >> 3] >> (parts[i] & 7)) & 1)
			skip_strings = false;
	/* Anonymous leaves (punctuation, keywords) hold nothing the index
	 * records: the walk passes over them, counting them, unless the
	 * queries start at one. */
	bool tokens = false;
	const TSLanguage *lang = tl_python_language();
	for (uint32_t s = 0, n = ts_language_symbol_count(lang); collect && s < n && !tokens; s++)
		tokens = ((collect[s >> 3] >> (s & 7)) & 1) &&
			 ts_language_symbol_type(lang, (TSSymbol)s) != TSSymbolTypeRegular;
	TlTreeWalk tw;
	tl_tree_walk_init(&tw);
	tl_tree_walk_start(&tw, root, tokens ? 0 : TL_TREE_WALK_NO_TOKENS);
	TlTreeNode t;
	bool descend = true;
	while (tl_tree_walk_next(&tw, descend, &t)) {
		/* Past the file's CPU bound the index is left incomplete (the
		 * engine reports TL002 and runs no rule on it). */
		if (tl_index__pass_tokens(idx, &tw) || tl_bound_poll())
			break;
		/* The ancestors this node is not under are left. */
		while (open.size > t.depth)
			tl_index__leave(&w, open.items[--open.size].entered);
		TSNode n = t.node;
		TSSymbol sym = t.symbol;
		/* A statement is recorded with its parent; the parents inside it
		 * when first asked for (parents.h). */
		uint32_t anchor = open.size ? tl_array_last(&open)->anchor : UINT32_MAX;
		if (open.size && tl_array_last(&open)->block && t.named) {
			TlOpen *up = tl_array_last(&open);
			if (up->parent == UINT32_MAX)
				up->parent = tl_parents_add_parent(&idx->parents, up->node);
			anchor = tl_parents_add_anchor(&idx->parents, n, up->parent, anchor);
		}
		if (collect && ((collect[sym >> 3] >> (sym & 7)) & 1)) {
			TlIndexNode k = { n, sym, idx->node_count };
			tl_array_push(&idx->collected, k);
		}
		idx->node_count++;
		w.open = open.items;
		w.open_size = open.size;
		unsigned entered = tl_index__enter(&w, n, sym);
		uint32_t kids = t.children;
		if (kids == 3 && sym == sy->string && ts_node_symbol(ts_node_child(n, 1)) == sy->string_content) {
			tl_array_push(&idx->plain_strings,
				      (uint64_t)ts_node_start_byte(n) << 32 | ts_node_end_byte(n));
			if (skip_strings) {
				idx->node_count += ts_node_descendant_count(n) - 1;
				kids = 0;
			}
		}
		descend = kids > 0;
		if (descend) {
			/* The root's named children are statements whatever the
			 * root is (an ERROR root when nothing parses). */
			TlOpen o = { n, entered, UINT32_MAX, anchor,
				     sym == sy->block || sym == sy->module || !open.size };
			tl_array_push(&open, o);
		} else {
			tl_index__leave(&w, entered);
		}
	}
	tl_index__pass_tokens(idx, &tw);
	while (open.size)
		tl_index__leave(&w, open.items[--open.size].entered);
	tl_tree_walk_release(&tw);
	tl_array_release(&open);
	tl_array_release(&w.frames);
	tl_array_release(&w.pending);
	tl_free(w.kinds);
}

void tl_index_scope_calls_in(const TlIndex *idx, int32_t func, TSNode range, uint32_t *from,
			     uint32_t *to)
{
	const TlIntArray *calls = tl_index_scope_calls(idx, func);
	uint32_t n = calls ? calls->size : 0, start = ts_node_start_byte(range),
		 end = ts_node_end_byte(range);
	uint32_t bounds[2];
	for (int b = 0; b < 2; b++) {
		uint32_t key = b ? end : start, lo = 0, hi = n;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (ts_node_start_byte(idx->calls.items[calls->items[mid]].node) < key)
				lo = mid + 1;
			else
				hi = mid;
		}
		bounds[b] = lo;
	}
	*from = bounds[0];
	*to = bounds[1] > bounds[0] ? bounds[1] : bounds[0];
}

bool tl_index_exit_between(const TlIndex *idx, uint32_t from, uint32_t to)
{
	uint32_t lo = 0, hi = idx->exits.size;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if ((uint32_t)idx->exits.items[mid] < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < idx->exits.size && (uint32_t)idx->exits.items[lo] < to;
}

TSNode tl_index_parent(const TlIndex *idx, TSNode n)
{
	/* The table fills as it is asked (parents.h): a cache the index's
	 * one thread writes behind its const face. */
	return tl_parents_get((TlParents *)&idx->parents, n);
}

/* ---- pass 2: derived facts ---------------------------------------------- */

static int tl_index__call_order(const void *a, const void *b)
{
	const TlCall *x = a, *y = b;
	return tl_index__cmp_call(x, y->start_byte, y->end_byte);
}

/* The local function a callee expression names, or -1. */
static int32_t tl_index__resolve_function(const TlIndex *idx, TSNode callee, int32_t func)
{
	const TlSyms *sy = tl_syms();
	callee = tl_index_unparen(callee);
	if (ts_node_is_null(callee))
		return -1;
	TSSymbol s = ts_node_symbol(callee);
	if (s == sy->identifier) {
		uint32_t len;
		const char *t = tl_index_text(idx, callee, &len);
		const TlBinding *b = tl_index__resolve_n(idx, t, len, func, ts_node_start_byte(callee));
		if (b && b->kind == TL_BIND_DEF)
			return b->ref;
		return -1;
	}
	if (s != sy->attribute)
		return -1;
	TSNode obj = tl_index_unparen(tl_tree_field(callee, sy->f_object));
	TSNode attr = tl_tree_field(callee, sy->f_attribute);
	int32_t cls = -1;
	if (ts_node_symbol(obj) == sy->identifier && tl_index_text_is(idx, obj, "self")) {
		for (int32_t f = func; f >= 0; f = idx->funcs.items[f].parent)
			if (idx->funcs.items[f].cls >= 0) {
				cls = idx->funcs.items[f].cls;
				break;
			}
	} else {
		/* obj = LocalClass(...); obj.method() */
		const TlBinding *b = tl_index_resolve_node(idx, obj);
		if (b && b->kind == TL_BIND_ASSIGN && b->elem < 0 && !ts_node_is_null(b->value) &&
		    ts_node_symbol(b->value) == sy->call) {
			const TlBinding *cb = tl_index_resolve_node(
				idx, tl_tree_field(b->value, sy->f_function));
			if (cb && cb->kind == TL_BIND_CLASS)
				cls = cb->ref;
		} else if (b && b->kind == TL_BIND_CLASS) {
			cls = b->ref;
		}
	}
	/* Look in the class, then its local bases (a bounded number of hops). */
	uint32_t alen;
	const char *aname = tl_index_text(idx, attr, &alen);
	for (int hop = 0; cls >= 0 && hop < TL_ALIAS_DEPTH; hop++) {
		int32_t m = tl_index_method(idx, cls, aname, alen);
		if (m >= 0)
			return m;
		const TlClass *c = &idx->classes.items[cls];
		cls = c->bases.size ? c->bases.items[0] : -1;
	}
	return -1;
}

static void tl_index__classes(TlIndex *idx)
{
	const TlSyms *sy = tl_syms();
	for (uint32_t i = 0; i < idx->classes.size; i++) {
		TlClass *c = &idx->classes.items[i];
		TSNode sup = tl_tree_field(c->node, sy->f_superclasses);
		if (ts_node_is_null(sup))
			continue;
		uint32_t count = ts_node_named_child_count(sup);
		for (uint32_t k = 0; k < count; k++) {
			TSNode base = ts_node_named_child(sup, k);
			if (ts_node_symbol(base) == sy->keyword_argument)
				continue;
			/* `DecoderBase[State, Output]`: a generic class's
			 * parameters given, the class itself */
			if (ts_node_symbol(base) == sy->subscript)
				base = tl_tree_field(base, sy->f_value);
			const TlBinding *b = tl_index_resolve_node(idx, base);
			if (b && b->kind == TL_BIND_CLASS && b->ref != (int32_t)i) {
				tl_array_push(&c->bases, b->ref);
				continue;
			}
			char *q = tl_index_qualify(idx, base);
			if (q)
				tl_array_push(&c->base_qnames, q);
		}
	}
}

/* For one argument of call `c`: the local function it names (marked as
 * escaping), or -1. */
static int32_t tl_index__argument_function(TlIndex *idx, const TlCall *c, TSNode a)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_symbol(a) == sy->keyword_argument)
		a = tl_tree_field(a, sy->f_value);
	a = tl_index_unparen(a);
	if (ts_node_is_null(a))
		return -1;
	TSSymbol s = ts_node_symbol(a);
	if (s != sy->identifier && s != sy->attribute)
		return -1;
	int32_t f = tl_index__resolve_function(idx, a, c->func);
	if (f >= 0)
		idx->funcs.items[f].escapes = true;
	return f;
}

/* Marks functions referenced other than by calling them, and returns the
 * function a call's arguments pass along (a closure for opt.step), or -1. */
static int32_t tl_index__argument_functions(TlIndex *idx, const TlCall *c, const TlNameSet *defs)
{
	const TlSyms *sy = tl_syms();
	TSNode args = tl_tree_field(c->node, sy->f_arguments);
	if (ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list)
		return -1;
	/* An argument names a local function only if its text holds the
	 * function's name (tl_index__resolve_function finds a function by
	 * its name or its method name). */
	if (!tl_index__may_mention(idx, args, defs))
		return -1;
	int32_t found = -1;
	uint32_t count = ts_node_named_child_count(args);
	if (count <= 16) {
		for (uint32_t i = 0; i < count; i++) {
			int32_t f = tl_index__argument_function(idx, c, ts_node_named_child(args, i));
			if (f >= 0 && found < 0)
				found = f;
		}
		return found;
	}
	/* Many arguments: in order, with a cursor (ts_node_named_child(args, i)
	 * walks from the first child each time: quadratic). */
	TSTreeCursor cur = ts_tree_cursor_new(args);
	for (bool more = ts_tree_cursor_goto_first_child(&cur); more;
	     more = ts_tree_cursor_goto_next_sibling(&cur)) {
		TSNode a = ts_tree_cursor_current_node(&cur);
		if (!ts_node_is_named(a))
			continue;
		int32_t f = tl_index__argument_function(idx, c, a);
		if (f >= 0 && found < 0)
			found = f;
	}
	ts_tree_cursor_delete(&cur);
	return found;
}

/* Marks a local function named by `v` (or by an element of a list, tuple,
 * set or dict literal `v`) as escaping: it can be called from anywhere. */
static void tl_index__escape_refs(TlIndex *idx, TSNode v, int32_t func, const TlNameSet *defs)
{
	const TlSyms *sy = tl_syms();
	v = tl_index_unparen(v);
	if (ts_node_is_null(v) || !tl_index__may_mention(idx, v, defs))
		return;
	TSSymbol s = ts_node_symbol(v);
	if (s == sy->identifier || s == sy->attribute) {
		int32_t f = tl_index__resolve_function(idx, v, func);
		if (f >= 0)
			idx->funcs.items[f].escapes = true;
		return;
	}
	if (s != sy->list && s != sy->tuple && s != sy->set && s != sy->dictionary &&
	    s != sy->expression_list)
		return;
	/* The elements in order, with a cursor: ts_node_named_child(v, i) walks
	 * from the first child each time (a 3.4M-element list took 30 s). */
	TSTreeCursor cur = ts_tree_cursor_new(v);
	for (bool more = ts_tree_cursor_goto_first_child(&cur); more;
	     more = ts_tree_cursor_goto_next_sibling(&cur)) {
		TSNode c = ts_tree_cursor_current_node(&cur);
		if (!ts_node_is_named(c))
			continue;
		if (ts_node_symbol(c) == sy->identifier || ts_node_symbol(c) == sy->attribute) {
			int32_t f = tl_index__resolve_function(idx, c, func);
			if (f >= 0)
				idx->funcs.items[f].escapes = true;
		} else if (ts_node_named_child_count(c) == 2) {
			/* a dict pair: the value */
			TSNode val = ts_node_named_child(c, 1);
			int32_t f = tl_index__resolve_function(idx, val, func);
			if (f >= 0)
				idx->funcs.items[f].escapes = true;
		}
	}
	ts_tree_cursor_delete(&cur);
}

/* True when local class `sub` derives from local class `base` through local
 * bases, a bounded number of classes visited. */
static bool tl_index__derives(const TlIndex *idx, int32_t sub, int32_t base)
{
	int32_t todo[32];
	uint32_t n = 0, seen = 0;
	todo[n++] = sub;
	while (seen < n) {
		const TlClass *c = &idx->classes.items[todo[seen++]];
		for (uint32_t k = 0; k < c->bases.size; k++) {
			if (c->bases.items[k] == base)
				return true;
			if (n < sizeof todo / sizeof *todo)
				todo[n++] = c->bases.items[k];
		}
	}
	return false;
}

/* True when function `f`'s body does nothing: docstrings, `pass`, `...`,
 * a bare `return` / `return None`, `raise NotImplementedError...` (an
 * abstract method a derived class overrides). */
static bool tl_index__stub(const TlIndex *idx, int32_t f)
{
	const TlSyms *sy = tl_syms();
	TSNode body = tl_tree_field(idx->funcs.items[f].node, sy->f_body);
	if (ts_node_is_null(body))
		return false;
	uint32_t count = ts_node_named_child_count(body);
	for (uint32_t i = 0; i < count; i++) {
		TSNode st = ts_node_named_child(body, i);
		TSSymbol s = ts_node_symbol(st);
		if (s == sy->comment || strcmp(ts_node_type(st), "pass_statement") == 0)
			continue;
		if (s == sy->expression_statement && ts_node_named_child_count(st) == 1) {
			TSSymbol e = ts_node_symbol(ts_node_named_child(st, 0));
			if (e == sy->string || strcmp(ts_node_type(ts_node_named_child(st, 0)), "ellipsis") == 0)
				continue;
			return false;
		}
		if (s == sy->return_statement) {
			TSNode v = ts_node_named_child_count(st) ? ts_node_named_child(st, 0) : (TSNode){ { 0 }, NULL, NULL };
			if (ts_node_is_null(v) || ts_node_symbol(v) == sy->none)
				continue;
			return false;
		}
		if (s == sy->raise_statement && ts_node_named_child_count(st)) {
			TSNode e = tl_index_unparen(ts_node_named_child(st, 0));
			if (ts_node_symbol(e) == sy->call)
				e = tl_tree_field(e, sy->f_function);
			if (tl_index_text_is(idx, e, "NotImplementedError"))
				continue;
			return false;
		}
		return false;
	}
	return true;
}

/* `self.m(...)` in a method of class C may run the `m` of any local class
 * derived from C that overrides it: the call is one of those methods' call
 * sites too. When C and its bases define no `m`, or only a stub of it
 * (`pass`, `raise NotImplementedError`: tl_index__stub), and exactly one
 * derived class defines it, that method is the call's target. */
static void tl_index__overrides(TlIndex *idx, uint32_t ci)
{
	const TlSyms *sy = tl_syms();
	TlCall *c = &idx->calls.items[ci];
	TSNode callee = tl_index_unparen(c->callee);
	if (c->func < 0 || ts_node_symbol(callee) != sy->attribute)
		return;
	TSNode obj = tl_index_unparen(tl_tree_field(callee, sy->f_object));
	if (ts_node_symbol(obj) != sy->identifier || !tl_index_text_is(idx, obj, "self"))
		return;
	int32_t cls = -1;
	for (int32_t f = c->func; f >= 0 && cls < 0; f = idx->funcs.items[f].parent)
		cls = idx->funcs.items[f].cls;
	if (cls < 0)
		return;
	uint32_t alen;
	const char *aname = tl_index_text(idx, tl_tree_field(callee, sy->f_attribute), &alen);
	int32_t only = -1, found = 0;
	for (uint32_t k = 0; k < idx->classes.size; k++) {
		if ((int32_t)k == cls || !tl_index__derives(idx, (int32_t)k, cls))
			continue;
		int32_t m = tl_index_method(idx, (int32_t)k, aname, alen);
		if (m < 0 || m == c->target || idx->funcs.items[m].cls != (int32_t)k)
			continue;
		tl_array_push(&idx->funcs.items[m].call_sites, (int32_t)ci);
		only = m;
		found++;
	}
	if ((c->target < 0 || tl_index__stub(idx, c->target)) && found == 1) {
		c->target = only;
		/* already among its call sites */
	}
}

static void tl_index__calls(TlIndex *idx)
{
	/* The names of local functions and methods (by name id): text that
	 * holds none of them names no local function. */
	TlNameSet defset, *defs = &defset;
	tl_index__name_set_init(defs, idx);
	for (uint32_t i = 0; i < idx->bindings.size; i++) {
		const TlBinding *b = &idx->bindings.items[i];
		if (b->kind == TL_BIND_DEF)
			tl_index__name_set_add(defs, idx, b->name);
	}
	/* `cb = helper`, `hooks = [helper]`: helper's callers are unknown. */
	for (uint32_t i = 0; i < idx->bindings.size; i++) {
		const TlBinding *b = &idx->bindings.items[i];
		if (b->kind == TL_BIND_ASSIGN && b->elem < 0 && !ts_node_is_null(b->value))
			tl_index__escape_refs(idx, b->value, b->func, defs);
	}
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		TlCall *c = &idx->calls.items[i];
		c->qname = tl_index_qualify(idx, c->callee);
		/* (questions of the callee node read it back: tl_index_qualified) */
		tl_node_memo_put(idx->memo, c->callee, TL_MEMO_CALLEE, (int32_t)i);
		c->target = tl_index__may_mention(idx, c->callee, defs)
				    ? tl_index__resolve_function(idx, c->callee, c->func)
				    : -1;
		if (c->target >= 0)
			tl_array_push(&idx->funcs.items[c->target].call_sites, (int32_t)i);
		tl_index__overrides(idx, i);
		c->arg_target = tl_index__argument_functions(idx, c, defs);
	}
	tl_index__name_set_release(defs);
}

static void tl_index__module_evidence(TlIndex *idx)
{
	static const char *const module_methods[] = {
		"eval", "train", "parameters", "named_parameters", "modules",
		"named_modules", "children", "named_children", "buffers",
	};
	const TlSyms *sy = tl_syms();
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (!c->method || !c->receiver.id)
			continue;
		size_t k = 0;
		while (k < sizeof module_methods / sizeof *module_methods &&
		       strcmp(c->method, module_methods[k]) != 0)
			k++;
		if (k == sizeof module_methods / sizeof *module_methods)
			continue;
		if (c->recv_name) {
			tl_strmap_put(&idx->module_evidence, c->recv_name, strlen(c->recv_name), 1);
			continue;
		}
		/* self.model[key].eval(): the container's elements are modules,
		 * kept as "self.model[]". */
		TSNode r = tl_index_unparen(c->receiver);
		if (ts_node_symbol(r) != sy->subscript)
			continue;
		char *base = tl_index_dotted_dup(idx, tl_tree_field(r, sy->f_value));
		if (!base)
			continue;
		TlBuf b;
		tl_buf_init(&b);
		tl_buf_add(&b, base);
		tl_buf_add(&b, "[]");
		tl_strmap_put(&idx->module_evidence, b.data, b.len, 1);
		tl_buf_release(&b);
		tl_free(base);
	}
}

/* Files each call under its span (tl_index_call_at). */
static void tl_index__call_spans(TlIndex *idx)
{
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		int32_t k;
		bool shared = tl_scopemap_get(&idx->call_spans, c->start_byte, c->end_byte, &k);
		tl_scopemap_put(&idx->call_spans, c->start_byte, c->end_byte, shared ? -1 : (int32_t)i);
	}
}

/* Keeps each function's byte span (tl_index_func_of reads them). */
static void tl_index__func_spans(TlIndex *idx)
{
	for (uint32_t i = 0; i < idx->funcs.size; i++) {
		TlFunc *f = &idx->funcs.items[i];
		f->start_byte = ts_node_start_byte(f->node);
		f->end_byte = ts_node_end_byte(f->node);
	}
}

/* Marks the name lists whose bindings come in pos order (most: pos only
 * goes back for a name bound inside a statement that binds it later). */
static void tl_index__sorted_lists(TlIndex *idx)
{
	for (uint32_t i = 0; i < idx->name_lists.size; i++) {
		const TlIntArray *l = &idx->name_lists.items[i];
		uint8_t sorted = 1;
		for (uint32_t k = 1; k < l->size && sorted; k++)
			sorted = idx->bindings.items[l->items[k - 1]].pos <=
				 idx->bindings.items[l->items[k]].pos;
		tl_array_push(&idx->name_sorted, sorted);
	}
}

void tl_index_build(TlIndex *idx, const TlSource *src, TSNode root)
{
	tl_index_build_collecting(idx, src, root, NULL);
}

void tl_index_build_collecting(TlIndex *idx, const TlSource *src, TSNode root,
			       const uint8_t *symbols)
{
	memset(idx, 0, sizeof *idx);
	idx->src = src;
	idx->root = root;
	tl_strmap_init(&idx->name_ids);
	tl_scopemap_init(&idx->scoped);
	tl_scopemap_init(&idx->call_spans);
	idx->call_last = -2;
	tl_strmap_init(&idx->module_evidence);
	tl_parents_init(&idx->parents);
	/* Statements, the anchors the walk records: about one per 100 bytes
	 * of Python source (Debian's torch: 166k in 16.8 MB). */
	uint32_t len = src ? src->length : 0;
	tl_parents_reserve(&idx->parents, len / 100);
	/* The walk's largest lists, sized from the source at once (growing
	 * them copies them over and over): per byte of Debian's torch, a
	 * statement every 101, a node the queries start at every 69, a call
	 * every 162, a binding every 127. */
	tl_array_reserve(&idx->parents.anchors, len / 96 + 1);
	if (symbols)
		tl_array_reserve(&idx->collected, len / 64 + 1);
	tl_array_reserve(&idx->calls, len / 150 + 1);
	tl_array_reserve(&idx->bindings, len / 120 + 1);
	tl_index__walk(idx, root, symbols);
	tl_array_sort(&idx->calls, tl_index__call_order);
	tl_index__call_spans(idx);
	tl_index__func_spans(idx);
	tl_index__file_bindings(idx);
	tl_index__sorted_lists(idx);
	idx->memo = tl_node_memo_new();
	tl_index__classes(idx);
	tl_index__module_evidence(idx);
	tl_index__calls(idx);
}

void tl_index_release(TlIndex *idx)
{
	if (idx->reads)
		idx->reads_release(idx->reads);
	idx->reads = NULL;
	tl_parents_release(&idx->parents);
	tl_array_release(&idx->collected);
	for (uint32_t i = 0; i < idx->funcs.size; i++) {
		tl_free(idx->funcs.items[i].name);
		tl_array_release(&idx->funcs.items[i].call_sites);
		tl_array_release(&idx->funcs.items[i].params);
		tl_array_release(&idx->funcs.items[i].returns);
	}
	for (uint32_t i = 0; i < idx->classes.size; i++) {
		tl_free(idx->classes.items[i].name);
		tl_array_release(&idx->classes.items[i].bases);
		tl_str_array_release(&idx->classes.items[i].base_qnames);
	}
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		tl_free(idx->calls.items[i].method);
		tl_free(idx->calls.items[i].qname);
		tl_free(idx->calls.items[i].recv_name);
	}
	for (uint32_t i = 0; i < idx->bindings.size; i++) {
		tl_free(idx->bindings.items[i].name);
		tl_free(idx->bindings.items[i].qname);
	}
	for (uint32_t i = 0; i < idx->name_lists.size; i++)
		tl_array_release(&idx->name_lists.items[i]);
	TlIntLists *scopes[] = {
		&idx->scope_calls, &idx->scope_binds, &idx->scope_loops, &idx->scope_withs,
	};
	for (size_t k = 0; k < sizeof scopes / sizeof *scopes; k++) {
		for (uint32_t i = 0; i < scopes[k]->size; i++)
			tl_array_release(&scopes[k]->items[i]);
		tl_array_release(scopes[k]);
	}
	tl_array_release(&idx->funcs);
	tl_array_release(&idx->classes);
	tl_array_release(&idx->loops);
	tl_array_release(&idx->withs);
	tl_array_release(&idx->calls);
	tl_array_release(&idx->sites);
	tl_array_release(&idx->comments);
	tl_array_release(&idx->plain_strings);
	tl_array_release(&idx->exits);
	tl_array_release(&idx->bindings);
	tl_array_release(&idx->name_lists);
	tl_array_release(&idx->name_sorted);
	tl_strmap_release(&idx->name_ids);
	tl_scopemap_release(&idx->scoped);
	tl_scopemap_release(&idx->call_spans);
	tl_strmap_release(&idx->module_evidence);
	tl_node_memo_free(idx->memo);
	idx->memo = NULL;
	if (idx->stars_release)
		idx->stars_release(idx->stars);
	idx->stars = NULL;
	idx->stars_release = NULL;
	if (idx->tables_release)
		idx->tables_release(idx->tables);
	idx->tables = NULL;
	idx->tables_release = NULL;
	if (idx->model_release)
		idx->model_release(idx->model);
	idx->model = NULL;
	idx->model_release = NULL;
	if (idx->facts_release)
		idx->facts_release(idx->facts_cache);
	idx->facts_cache = NULL;
	idx->facts_release = NULL;
}
