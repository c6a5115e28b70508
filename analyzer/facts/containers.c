/* Containers and their elements: a graph tensor stored in a dict, list or
 * tuple makes the container carry a graph (a literal, `d[k] = loss`,
 * `losses.append(loss)`, `.update(...)`), and an element read back
 * (`out["loss"]`, `for k, v in d.items()`, `.values()`, unpacking, a
 * comprehension variable) carries what the container holds.
 *
 * The index does not bind comprehension variables; this file resolves one
 * to the `for ... in` clause that binds it (tl_facts__element_source).
 *
 * A container is not itself a graph tensor (`history += [loss]` concatenates
 * lists, and `[loss]` is no tensor to detach): tl_facts__graph answers for
 * the element read back, tl_facts__elements_graph for the container.
 *
 * Library containers that detach what they are handed (MONAI's
 * CumulativeAverage keeps `val.detach()`) keep no graph, whatever is stored.
 *
 * Owns: tl_facts__elements_graph, tl_facts_holds_graph, tl_facts__container_graph,
 * tl_facts__element_source, tl_facts_detaching_container. */
#include <stdio.h>
#include <stdlib.h>

#include "model/model.h"
#include "facts/internal.h"

/* True for an expression that makes a fresh container: `[]`, `{}`,
 * `dict()`, `list()`, `defaultdict(float)`, `OrderedDict()`, `deque()`. */
static bool tl_facts__new_container(const TlIndex *idx, TSNode v)
{
	static const char *const makers[] = {
		"dict", "list", "set", "defaultdict", "OrderedDict", "deque",
		"collections.defaultdict", "collections.OrderedDict", "collections.deque",
	};
	const TlSyms *sy = tl_syms();
	v = tl_index_unparen(v);
	if (ts_node_is_null(v))
		return false;
	TSSymbol s = ts_node_symbol(v);
	if (s == sy->list || s == sy->dictionary || s == sy->set || s == sy->tuple)
		return true;
	if (s != sy->call)
		return false;
	const TlCall *c = tl_index_call_at(idx, v);
	if (!c || c->receiver.id)
		return c && c->qname && IN(c->qname, makers);
	return (c->qname && IN(c->qname, makers)) || (c->method && IN(c->method, makers));
}

/* True when a subscript assignment in the scope (`d[k] = v`, `d[k] += v`;
 * the module, function `func` or class `cls`, tl_facts__subscript_sites)
 * stores a graph into the container named `name`. */
static bool tl_facts__subscript_stores(const TlIndex *idx, int32_t func, int32_t cls,
				       const char *name, int depth)
{
	const TlSyms *sy = tl_syms();
	const TlStoreSites *sites = tl_facts__subscript_sites(idx, func, cls);
	for (uint32_t i = 0; i < sites->size; i++) {
		if (strcmp(sites->items[i].name, name) != 0)
			continue;
		if (!tl_facts__fan_step())
			return false;
		TSNode right = tl_tree_field(sites->items[i].stmt, sy->f_right);
		if (tl_facts__graph(idx, right, depth + 1) || tl_facts__elements_graph(idx, right, depth + 1))
			return true;
	}
	return false;
}

/* True when container binding `b` (a name or `self.` attribute bound to a
 * fresh container) holds a graph tensor: one is stored into it anywhere in
 * its scope (the function, or for `self.x` the class), by a storing method
 * or a subscript assignment. Where in the scope does not matter: the
 * container outlives the statement that fills it. */
bool tl_facts__container_graph(const TlIndex *idx, const TlBinding *b, int depth)
{
	if (!b || depth > TL_FACTS_DEPTH || (b->kind != TL_BIND_ASSIGN && b->kind != TL_BIND_AUG) ||
	    b->elem >= 0 || !tl_facts__new_container(idx, b->value))
		return false;
	bool attr = b->cls >= 0 && strncmp(b->name, "self.", 5) == 0;
	const TlStoringCalls *storing = tl_facts__storing_calls(idx);
	for (uint32_t i = 0; i < storing->size; i++) {
		if (strcmp(storing->items[i].name, b->name) != 0)
			continue;
		const TlCall *c = &idx->calls.items[storing->items[i].call];
		if (attr ? (c->func < 0 || idx->funcs.items[c->func].cls != b->cls) : c->func != b->func)
			continue;
		if (!tl_facts__fan_step())
			return false;
		for (uint32_t k = 0; k < 2; k++) {
			TSNode a = tl_facts__arg(c->node, k);
			if (!ts_node_is_null(a) && (tl_facts__graph(idx, a, depth + 1) ||
						    tl_facts__elements_graph(idx, a, depth + 1)))
				return true;
		}
	}
	return attr ? tl_facts__subscript_stores(idx, -1, b->cls, b->name, depth)
		    : tl_facts__subscript_stores(idx, b->func, -1, b->name, depth);
}

/* The container an element comes from: for a name bound by a `for` loop or
 * a comprehension's `for ... in` clause (when `id` is one), the iterable it
 * walks, unwrapped to what holds the elements: `d` for `for k, v in
 * d.items()` (the value, not the key), `losses` for `for i, l in
 * enumerate(losses)`, the k-th argument of `zip(...)`. Null when the name
 * is no such element (a key, a counter, a range). */
TSNode tl_facts__element_source(const TlIndex *idx, TSNode id, const TlBinding *b)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 }, it = { 0 };
	int32_t elem = -1;
	if (b && b->kind == TL_BIND_FOR) {
		it = b->value;
		elem = b->depth == 1 ? b->elem : b->depth == 0 ? -1 : -2;
	} else if (!b && ts_node_symbol(id) == sy->identifier) {
		/* A comprehension variable: the clause whose target names it. */
		uint32_t len;
		const char *t = tl_index_text(idx, id, &len);
		for (TSNode p = tl_index_parent(idx, id); !ts_node_is_null(p) && ts_node_is_null(it);
		     p = tl_index_parent(idx, p)) {
			TSSymbol s = ts_node_symbol(p);
			if (s != sy->list_comprehension && s != sy->generator_expression &&
			    s != sy->set_comprehension && s != sy->dictionary_comprehension)
				continue;
			uint32_t count = ts_node_named_child_count(p);
			for (uint32_t i = 0; i < count && ts_node_is_null(it); i++) {
				TSNode cl = ts_node_named_child(p, i);
				if (ts_node_symbol(cl) != sy->for_in_clause)
					continue;
				TSNode left = tl_index_unparen(tl_tree_field(cl, sy->f_left));
				if (ts_node_symbol(left) == sy->identifier) {
					uint32_t ll;
					const char *lt = tl_index_text(idx, left, &ll);
					if (ll == len && memcmp(lt, t, len) == 0) {
						it = tl_tree_field(cl, sy->f_right);
						elem = -1;
					}
					continue;
				}
				uint32_t n = ts_node_named_child_count(left);
				for (uint32_t k = 0; k < n; k++) {
					TSNode x = ts_node_named_child(left, k);
					uint32_t xl;
					const char *xt = tl_index_text(idx, x, &xl);
					if (ts_node_symbol(x) == sy->identifier && xl == len && memcmp(xt, t, len) == 0) {
						it = tl_tree_field(cl, sy->f_right);
						elem = (int32_t)k;
						break;
					}
				}
			}
		}
	}
	if (ts_node_is_null(it) || elem == -2)
		return none;
	for (int depth = 0; depth < 4; depth++) {
		it = tl_index_unparen(it);
		if (ts_node_is_null(it) || ts_node_symbol(it) != sy->call)
			break;
		const TlCall *c = tl_index_call_at(idx, it);
		if (!c || !c->method)
			break;
		if (!c->receiver.id && strcmp(c->method, "enumerate") == 0) {
			if (elem != 1)
				return none; /* the counter, or the (i, x) pair */
			elem = -1;
			it = tl_facts__arg(it, 0);
			continue;
		}
		if (!c->receiver.id && strcmp(c->method, "zip") == 0) {
			if (elem < 0)
				return none;
			it = tl_facts__arg(it, (uint32_t)elem);
			elem = -1;
			continue;
		}
		if (!c->receiver.id && (strcmp(c->method, "reversed") == 0 ||
					strcmp(c->method, "sorted") == 0 || strcmp(c->method, "list") == 0 ||
					strcmp(c->method, "tuple") == 0)) {
			it = tl_facts__arg(it, 0);
			continue;
		}
		if (c->receiver.id && strcmp(c->method, "items") == 0) {
			if (elem != 1)
				return none; /* the key */
			elem = -1;
			return c->receiver;
		}
		if (c->receiver.id && strcmp(c->method, "values") == 0)
			return elem < 0 ? c->receiver : none;
		if (c->receiver.id && strcmp(c->method, "keys") == 0)
			return none;
		break;
	}
	/* `for a, b in pairs`: each part of an element of pairs. */
	return it;
}

static bool tl_facts__elements_return(const TlIndex *idx, TSNode v, int depth)
{
	return tl_facts__elements_graph(idx, v, depth);
}

/* True when `expr` is a container (a literal, a comprehension, a name bound
 * to one or filled with stores, what a local function returns, a nested
 * container read from one) some element of which is a graph tensor. */
bool tl_facts__elements_graph(const TlIndex *idx, TSNode expr, int depth)
{
	static const char *const views[] = { "values", "items", "copy" };
	static const char *const wrappers[] = { "list", "tuple", "sorted", "reversed" };
	const TlSyms *sy = tl_syms();
	if (depth > TL_FACTS_DEPTH)
		return false;
	expr = tl_index_unparen(expr);
	if (ts_node_is_null(expr))
		return false;
	TSSymbol s = ts_node_symbol(expr);
	if (s == sy->list || s == sy->tuple || s == sy->set || s == sy->expression_list ||
	    s == sy->dictionary) {
		uint32_t count = ts_node_named_child_count(expr);
		for (uint32_t i = 0; i < count && i < 64; i++) {
			TSNode e = ts_node_named_child(expr, i);
			if (ts_node_symbol(e) == sy->pair)
				e = tl_tree_field(e, sy->f_value);
			if (tl_facts__graph(idx, e, depth + 1) || tl_facts__elements_graph(idx, e, depth + 1))
				return true;
		}
		return false;
	}
	if (s == sy->list_comprehension || s == sy->generator_expression ||
	    s == sy->set_comprehension || s == sy->dictionary_comprehension) {
		TSNode body = tl_tree_field(expr, sy->f_body);
		if (!ts_node_is_null(body) && ts_node_symbol(body) == sy->pair)
			body = tl_tree_field(body, sy->f_value);
		return tl_facts__graph(idx, body, depth + 1);
	}
	if (s == sy->binary_operator) /* parts + [loss] */
		return tl_facts__elements_graph(idx, tl_tree_field(expr, sy->f_left), depth + 1) ||
		       tl_facts__elements_graph(idx, tl_tree_field(expr, sy->f_right), depth + 1);
	if (s == sy->subscript) /* history["loss"]: a list kept in a dict */
		return tl_facts__elements_graph(idx, tl_tree_field(expr, sy->f_value), depth + 1);
	if (s == sy->call) {
		const TlCall *c = tl_index_call_at(idx, expr);
		if (!c || !c->method)
			return false;
		if (c->receiver.id && IN(c->method, views))
			return tl_facts__elements_graph(idx, c->receiver, depth + 1);
		if (!c->receiver.id && !c->qname && IN(c->method, wrappers))
			return tl_facts__elements_graph(idx, tl_facts__arg(expr, 0), depth + 1);
		if (c->target >= 0)
			return tl_facts__any_return(idx, c->target, TL_RET_ELEMENTS,
						    tl_facts__elements_return, depth + 1);
		if (tl_facts__ext_any_return(idx, c, TL_RET_ELEMENTS, tl_facts__elements_return, depth + 1))
			return true;
		return false;
	}
	if (s != sy->identifier && s != sy->attribute)
		return false;
	if (s == sy->identifier && tl_facts__comprehension_local(idx, expr)) {
		TSNode src = tl_facts__element_source(idx, expr, NULL);
		return !ts_node_is_null(src) && tl_facts__elements_graph(idx, src, depth + 1);
	}
	const TlBinding *b = tl_index_resolve_node(idx, expr);
	if (!b)
		return false;
	if (b->kind == TL_BIND_FOR) {
		TSNode src = tl_facts__element_source(idx, expr, b);
		return !ts_node_is_null(src) && tl_facts__elements_graph(idx, src, depth + 1);
	}
	TSNode v = tl_facts__bound_value(b);
	if (!ts_node_is_null(v) && tl_facts_grad_state(idx, v) == TL_GRAD_OFF)
		return false;
	/* `loss, stats = f(...)`: the element f returns there. */
	if (!ts_node_is_null(v) && b->elem >= 0 && b->depth == 1 && ts_node_symbol(v) == sy->call &&
	    ts_node_eq(v, tl_index_unparen(b->value))) {
		int e = tl_facts__call_element_graph(idx, v, b->elem, depth + 1);
		if (e >= 0)
			return e == 1;
	}
	if (!ts_node_is_null(v) && tl_facts__elements_graph(idx, v, depth + 1))
		return true;
	/* output = module.training_step(batch); output["loss"].backward() */
	const uint8_t *consumed = tl_facts__names_hint(idx) ? tl_facts__backpropagated_bindings(idx) : NULL;
	if (consumed && (consumed[b - idx->bindings.items] & TL_BACKPROP_ELEMENT))
		return true;
	return tl_facts__container_graph(idx, b, depth + 1);
}

/* The model's answer (model/model.h): 1 when the value is a container
 * whose elements carry history on some path, 0 when they carry none, -1
 * when the model does not know. */
static int tl_facts__model_holds(const TlIndex *idx, TSNode expr)
{
	TlVal v;
	if (!tl_model_value(idx, expr, &v) || v.kind != TL_VK_CONTAINER)
		return -1;
	const TlValPool *p = tl_model_pool(tl_model_of(idx));
	/* History on every path: a container that holds a graph tensor on one
	 * branch only (`out = {k: v.detach() ...}` when the loss is a tensor
	 * of this process, the raw output when it is a pointer to another's)
	 * is not known to hold one until the model follows such conditions. */
	TlVal e = tl_val_element(p, &v);
	if (e.graph == TL_VG_MUST)
		return 1;
	for (int32_t k = v.parts; k >= 0; k = p->vals.items[k].next)
		if (p->vals.items[k].graph == TL_VG_MUST)
			return 1;
	return e.graph == TL_VG_NONE && !e.pgraph ? 0 : -1;
}

bool tl_facts_store_keeps_graph(const TlIndex *idx, TSNode container)
{
	TlVal v;
	bool tensor = tl_model_value(idx, container, &v) &&
		      (v.kind == TL_VK_TENSOR || v.kind == TL_VK_PARAMETER);
	return !(tensor && tl_facts_under(idx, container, TL_CTX_GRAD_OFF));
}

bool tl_facts_holds_graph(const TlIndex *idx, TSNode expr)
{
	/* The model answers; TORCHLINT_CHECK_MODEL=1 runs the walk beside it. */
	int now = tl_facts__model_holds(idx, expr);
	static int check = -1;
	if (check < 0)
		check = getenv("TORCHLINT_CHECK_MODEL") != NULL;
	if (check) {
		tl_facts__fan_begin();
		bool yes = tl_facts__elements_graph(idx, expr, 0);
		tl_facts__fan_end();
		if (now != (int)yes) {
			TSPoint at = ts_node_start_point(expr);
			uint32_t len = 0;
			const char *t = tl_index_text(idx, expr, &len);
			fprintf(stderr, "model differs: %s:%u:%u holds-graph walk=%d model=%d `%.*s`\n",
				idx->src && idx->src->path ? idx->src->path : "?", at.row + 1, at.column + 1,
				(int)yes, now, (int)(len > 60 ? 60 : len), t ? t : "");
		}
	}
	return now == 1;
}

bool tl_facts_detaching_container(const TlIndex *idx, TSNode container)
{
	static const char *const detaching[] = {
		"monai.metrics.CumulativeAverage",
		"monai.metrics.cumulative_average.CumulativeAverage",
	};
	const TlSyms *sy = tl_syms();
	container = tl_index_unparen(container);
	if (ts_node_is_null(container) || ts_node_symbol(container) != sy->identifier)
		return false;
	TSNode v = tl_facts__bound_once(idx, container);
	const TlCall *c = ts_node_is_null(v) ? NULL : tl_index_call_at(idx, tl_index_unparen(v));
	return c && c->qname && IN(c->qname, detaching);
}
