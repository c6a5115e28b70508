/* Entry values from call sites (top-down): what class of object a
 * parameter holds when every call site of its function in the module
 * passes an object of that class. A model built by the script and handed
 * down through its helpers (`train_loop(model)` -> `step(model)` ->
 * `evaluate(model)`) is then known in each of them as an instance of its
 * class, so that a method called on it (`model.generate(x)`) is that
 * class's.
 *
 * Only the class is taken from the callers: the parameter's graph stays
 * symbolic (the summary still follows what each caller passes), and a
 * function whose callers are not all known (it escapes: passed as a
 * value, kept, decorated) or pass different classes keeps a parameter of
 * unknown kind. The callers' values are those the interpreter recorded
 * where it evaluated the arguments, so this runs after the module's code
 * and the functions it reaches were interpreted, callers first: one sweep
 * over the components that the module's own code reaches, in the reverse
 * of the order they were summarised, each function with a parameter so
 * refined interpreted again. Only those components take part, so that the
 * model on demand (which interprets them with the first question) and the
 * whole model agree.
 *
 * Owns: tl_model__entry, tl_model__topdown. */
#include <string.h>

#include "base/alloc.h"
#include "model/model_internal.h"
#include "syntax/syms.h"
#include "syntax/treewalk.h"

/* Marks the components the module's own code reaches (m->from_module). */
static void tl_model__module_reach(TlModel *m)
{
	const TlIndex *idx = m->idx;
	uint32_t nc = m->starts.size, nodes = idx->funcs.size + idx->classes.size;
	m->from_module = tl_calloc(nc ? nc : 1, 1);
	TlIntArray stack;
	tl_array_init(&stack);
	const TlIntArray *calls = idx->scope_calls.size ? &idx->scope_calls.items[0] : NULL;
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		int32_t t[3] = { c->target, c->arg_target, -1 };
		if (!c->receiver.id && c->method) {
			const TlIntArray *bs = tl_index_bindings_of(idx, -1, c->method);
			const TlBinding *b = bs && bs->size ? &idx->bindings.items[bs->items[bs->size - 1]] : NULL;
			if (b && b->kind == TL_BIND_CLASS && b->ref >= 0)
				t[2] = (int32_t)idx->funcs.size + b->ref;
		}
		for (int k = 0; k < 3; k++)
			if (t[k] >= 0 && (uint32_t)t[k] < nodes && !m->from_module[m->comp_of[t[k]]]) {
				m->from_module[m->comp_of[t[k]]] = 1;
				tl_array_push(&stack, m->comp_of[t[k]]);
			}
	}
	while (stack.size) {
		int32_t x = tl_array_pop(&stack);
		const TlIntArray *e = &m->comp_edges.items[x];
		for (uint32_t i = 0; i < e->size; i++)
			if (!m->from_module[e->items[i]]) {
				m->from_module[e->items[i]] = 1;
				tl_array_push(&stack, e->items[i]);
			}
	}
	tl_array_release(&stack);
}

/* The positional place of parameter `i` of `fn` at a call (its `self`
 * not passed), or -1 when the parameters before it are not all plain
 * (a `*args`, a `*` or `/` marker) or it is itself a `*args`/`**kwargs`. */
static int32_t tl_model__param_place(const TlFunc *fn, uint32_t i)
{
	const TlSyms *sy = tl_syms();
	TSNode ps = tl_tree_field(fn->node, sy->f_parameters);
	if (ts_node_is_null(ps))
		return -1;
	uint32_t n = ts_node_named_child_count(ps), k = 0;
	for (uint32_t j = 0; j < n; j++) {
		TSNode p = ts_node_named_child(ps, j);
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->comment)
			continue;
		if (s != sy->identifier && s != sy->typed_parameter && s != sy->default_parameter &&
		    s != sy->typed_default_parameter)
			return -1;
		if (s == sy->typed_parameter) {
			/* `*args: int` is a typed parameter around a splat */
			TSNode first = ts_node_named_child(p, 0);
			if (!ts_node_is_null(first) && ts_node_symbol(first) != sy->identifier)
				return -1;
		}
		if (k == i)
			return fn->cls >= 0 ? (int32_t)k - 1 : (int32_t)k;
		k++;
	}
	return -1;
}

/* The argument call `c` passes for parameter `name` at positional place
 * `place`, or a null node (a splat, or left to its default). */
static TSNode tl_model__arg(const TlIndex *idx, const TlCall *c, const char *name, int32_t place)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	TSNode al = tl_tree_field(c->node, sy->f_arguments);
	if (ts_node_is_null(al) || ts_node_symbol(al) != sy->argument_list)
		return none;
	uint32_t n = ts_node_named_child_count(al);
	int32_t pos = 0;
	TSNode found = none;
	for (uint32_t j = 0; j < n; j++) {
		TSNode a = ts_node_named_child(al, j);
		TSSymbol s = ts_node_symbol(a);
		if (s == sy->comment)
			continue;
		if (s == sy->list_splat || s == sy->dictionary_splat)
			return none;
		if (s == sy->keyword_argument) {
			TSNode k = tl_tree_field(a, sy->f_name);
			if (!ts_node_is_null(k) && tl_index_text_is(idx, k, name))
				found = tl_tree_field(a, sy->f_value);
			continue;
		}
		if (pos++ == place)
			found = a;
	}
	return found;
}

bool tl_model__entry(TlModel *m, int32_t func, uint32_t i, TlVal *out)
{
	const TlIndex *idx = m->idx;
	if (!m->topdown || func < 0)
		return false;
	const TlFunc *fn = &idx->funcs.items[func];
	if (fn->escapes || !fn->call_sites.size || !ts_node_eq(fn->outer, fn->node) ||
	    !m->from_module[m->comp_of[func]])
		return false;
	int32_t place = tl_model__param_place(fn, i);
	const char *name = idx->bindings.items[fn->params.items[i]].name;
	if (place < 0 || !name)
		return false;
	TlVal acc = tl_val_bot();
	for (uint32_t k = 0; k < fn->call_sites.size; k++) {
		const TlCall *c = &idx->calls.items[fn->call_sites.items[k]];
		/* The caller must be the module's code or a function it reaches
		 * (interpreted with it), not this function itself. */
		if (c->func == func || (c->func >= 0 && !m->from_module[m->comp_of[c->func]]))
			return false;
		/* A method called through its class (`Net.step(obj, x)`) passes
		 * `self` too. */
		if (fn->cls >= 0 && c->receiver.id && ts_node_symbol(c->receiver) == tl_syms()->identifier) {
			const TlBinding *rb = tl_index_resolve_node(idx, c->receiver);
			if (rb && rb->kind == TL_BIND_CLASS)
				return false;
		}
		TSNode a = tl_index_unparen(tl_model__arg(idx, c, name, place));
		int32_t at;
		if (ts_node_is_null(a) ||
		    !tl_scopemap_get(&m->vals, ts_node_start_byte(a), ts_node_end_byte(a), &at))
			return false;
		TlVal v = m->pool.vals.items[at];
		acc = tl_val_join(&m->pool, &acc, &v);
	}
	if ((acc.kind != TL_VK_MODULE && acc.kind != TL_VK_OBJECT) || acc.ref < 0 || !acc.mod)
		return false;
	out->kind = acc.kind;
	out->wrap = acc.wrap;
	out->ref = acc.ref;
	out->mod = acc.mod;
	return true;
}

void tl_model__topdown(TlModel *m)
{
	const TlIndex *idx = m->idx;
	if (m->quiet || m->cut)
		return;
	if (!m->from_module)
		tl_model__module_reach(m);
	m->topdown = true;
	for (uint32_t c = m->starts.size; c-- > 0 && !m->cut;) {
		if (!m->from_module[c])
			continue;
		uint32_t from = (uint32_t)m->starts.items[c];
		uint32_t to = c + 1 < m->starts.size ? (uint32_t)m->starts.items[c + 1] : m->order.size;
		for (uint32_t k = from; k < to && !m->cut; k++) {
			int32_t f = m->order.items[k];
			if ((uint32_t)f >= idx->funcs.size)
				continue; /* a class's node */
			const TlFunc *fn = &idx->funcs.items[f];
			bool refined = false;
			for (uint32_t i = fn->cls >= 0 ? 1 : 0; i < fn->params.size && !refined; i++) {
				TlVal v = tl_val_top();
				refined = tl_model__entry(m, f, i, &v);
			}
			if (refined)
				tl_model__interpret(m, f);
		}
	}
	m->topdown = false;
}
