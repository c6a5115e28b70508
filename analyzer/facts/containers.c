/* Containers and their elements. Whether a container holds a graph tensor
 * is the semantic model's answer (model/model.h: a container value's
 * element and its positions and keys, computed by the interpreter from
 * literals, stores, `append`, unpacking and comprehensions); this file
 * reads it. A container is not itself a graph tensor (`history += [loss]`
 * concatenates lists, and `[loss]` is no tensor to detach).
 *
 * The index does not bind comprehension variables; this file resolves one
 * to the `for ... in` clause that binds it (tl_facts__element_source), for
 * the facts that still walk.
 *
 * Library containers that detach what they are handed (MONAI's
 * CumulativeAverage keeps `val.detach()`: the API table's set detaching)
 * keep no graph, whatever is stored.
 *
 * Owns: tl_facts_holds_graph, tl_facts_store_keeps_graph, tl_facts__element_source,
 * tl_facts_detaching_container. */
#include "model/apitable.h"
#include "model/model.h"
#include "facts/internal.h"

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
	return tl_facts__model_holds(idx, expr) == 1;
}

bool tl_facts_detaching_container(const TlIndex *idx, TSNode container)
{
	const TlSyms *sy = tl_syms();
	container = tl_index_unparen(container);
	if (ts_node_is_null(container) || ts_node_symbol(container) != sy->identifier)
		return false;
	TSNode v = tl_facts__bound_once(idx, container);
	const TlCall *c = ts_node_is_null(v) ? NULL : tl_index_call_at(idx, tl_index_unparen(v));
	const TlApiRow *r = c && c->qname ? tl_api_qualified(c->qname) : NULL;
	return r && (r->sets & TL_APIS_DETACHING);
}
