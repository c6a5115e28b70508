/* Devices: tensors and where they live (host or device), and host
 * factories. (Values brought back to the host, tensors in accelerator
 * memory, scratch allocations and transfers are the logic of TL303,
 * TL304, TL307 and TL302, in rules/checks/.)
 *
 * Owns: tl_facts_is_tensor, tl_facts_host_factory. */
#include "facts/internal.h"
#include "model/apitable.h"
#include "model/model.h"

#include <stdio.h>

/* ---- tensors and where they live ---------------------------------------------------- */

/* Known tensor, the model's answer (model/model.h): the value is a tensor
 * on every path; or it is what a parameter of its function holds (`x`,
 * `x.float()`, `x * 2` of parameter `x`) and every call site passes a
 * known tensor for that parameter. */
static bool tl_facts__model_tensor(const TlIndex *idx, TSNode e, int *budget)
{
	TlVal v;
	if (--*budget < 0 || !tl_model_value(idx, e, &v))
		return false;
	if (v.kind == TL_VK_TENSOR || v.kind == TL_VK_PARAMETER)
		return true;
	if (v.kind != TL_VK_TOP || !(v.made & TL_VM_PARAMS) || v.made == TL_VM_TOP || !v.pgraph ||
	    (v.pgraph & (v.pgraph - 1)))
		return false;
	int32_t f = tl_index_func_of(idx, e);
	uint32_t i = 0;
	while (!(v.pgraph & (1u << i)))
		i++;
	if (f < 0 || i >= idx->funcs.items[f].params.size)
		return false;
	const TlBinding *b = &idx->bindings.items[idx->funcs.items[f].params.items[i]];
	return tl_facts__param_all(idx, b, TL_PARAM_OWN, tl_facts__model_tensor, budget);
}

static bool tl_facts__text_has(const char *t, uint32_t len, const char *word);

/* True for a value of a Python container literal or constructor: `{}`,
 * `[]`, a comprehension, `set()`, `defaultdict(list)` (the table's rows
 * of kind container), or an instance of a class the file defines that is
 * no tensor subclass. */
static bool tl_facts__plain_container(const TlIndex *idx, TSNode v)
{
	const TlSyms *sy = tl_syms();
	v = tl_index_unparen(v);
	if (ts_node_is_null(v))
		return false;
	TSSymbol s = ts_node_symbol(v);
	if (s == sy->set || s == sy->dictionary || s == sy->list || s == sy->list_comprehension ||
	    s == sy->set_comprehension || s == sy->dictionary_comprehension || s == sy->string)
		return true;
	const TlCall *c = s == sy->call ? tl_index_call_at(idx, v) : NULL;
	/* an instance of a class the file defines (`trie = Trie()`), but of
	 * one that says it is a tensor */
	const TlBinding *cb = c && !c->receiver.id ? tl_index_resolve_node(idx, c->callee) : NULL;
	if (cb && cb->kind == TL_BIND_CLASS && cb->ref >= 0 && (uint32_t)cb->ref < idx->classes.size) {
		TSNode bases = tl_tree_field(idx->classes.items[cb->ref].node, sy->f_superclasses);
		uint32_t len = 0;
		const char *t = ts_node_is_null(bases) ? NULL : tl_index_text(idx, bases, &len);
		return !t || !tl_facts__text_has(t, len, "Tensor");
	}
	const TlApiRow *r = !c ? NULL
			    : c->qname ? tl_api_qualified(c->qname)
			    : !c->receiver.id && c->method && !tl_index_resolve_node(idx, c->callee) ? tl_api_builtin(c->method)
												 : NULL;
	return r && r->kind == TL_APIK_CONTAINER;
}

/* The last part of dotted text `t` (`Set` of `typing.Set`). */
static const char *tl_facts__last_part(const char *t, uint32_t *len)
{
	uint32_t start = 0;
	for (uint32_t i = 0; i < *len; i++)
		if (t[i] == '.')
			start = i + 1;
	*len -= start;
	return t + start;
}

static bool tl_facts__text_has(const char *t, uint32_t len, const char *word)
{
	size_t w = strlen(word);
	for (uint32_t i = 0; i + w <= len; i++)
		if (memcmp(t + i, word, w) == 0)
			return true;
	return false;
}

/* The head of an annotation (`Set` of `Set[str]`, `ObserverBase`,
 * `nn.Module`) names a type that is no tensor: a Python container, string
 * or number (its last part names a row builtins.<it> or typing.<it> of the
 * table's set not-tensor), or a class the file defines or imports whose
 * name says nothing of a tensor (holds none of the table's words of set
 * tensor-class: `Tensor`, `Parameter`, ...); not `Any`, `object`, a TypeVar
 * or an alias the file assigns (`T = TypeVar("T")`). */
static bool tl_facts__plain_type(const TlIndex *idx, TSNode head)
{
	const TlSyms *sy = tl_syms();
	TSSymbol s = ts_node_symbol(head);
	if (s != sy->identifier && s != sy->attribute)
		return false;
	uint32_t len = 0;
	const char *t = tl_index_text(idx, head, &len);
	if (!t)
		return false;
	if (tl_api_word_in(t, len, TL_APIS_TENSOR_CLASS))
		return false;
	uint32_t ll = len;
	const char *last = tl_facts__last_part(t, &ll);
	if (tl_api_builtin_sets_text(last, ll) & TL_APIS_NOT_TENSOR)
		return true;
	char typing[64];
	int tn = snprintf(typing, sizeof typing, "typing.%.*s", (int)ll, last);
	if (tn > 0 && (size_t)tn < sizeof typing && !memchr(last, '\0', ll) &&
	    (tl_api_qualified_sets(typing) & TL_APIS_NOT_TENSOR))
		return true;
	TSNode root = head;
	while (ts_node_symbol(root) == sy->attribute)
		root = tl_tree_field(root, sy->f_object);
	const TlBinding *b = ts_node_symbol(root) == sy->identifier ? tl_index_resolve_node(idx, root) : NULL;
	if (!b || (b->kind != TL_BIND_CLASS && b->kind != TL_BIND_IMPORT))
		return false;
	char *q = tl_index_qualify(idx, head);
	bool yes = q && !tl_api_word_in(q, strlen(q), TL_APIS_TENSOR_CLASS);
	tl_free(q);
	return yes;
}

/* True for an annotation that names a type that is no tensor (above):
 * `Set[str]`, `Optional[Dict[str, int]]`, `Union[int, str]`,
 * `ObserverBase`, `nn.Module`; a container of tensors (`List[Tensor]`) is
 * a container. */
static bool tl_facts__plain_annotation(const TlIndex *idx, TSNode a)
{
	const TlSyms *sy = tl_syms();
	TSSymbol generic = ts_language_symbol_for_name(tl_python_language(), "generic_type", 12, true);
	TSSymbol param = ts_language_symbol_for_name(tl_python_language(), "type_parameter", 14, true);
	for (int depth = 0; depth < 4; depth++) {
		a = tl_index_unparen(a);
		if (ts_node_is_null(a))
			return false;
		TSSymbol s = ts_node_symbol(a);
		if (s == sy->type_ && ts_node_named_child_count(a) == 1) {
			a = ts_node_named_child(a, 0);
			continue;
		}
		/* Set[str] (a generic type, or a subscript in older forms): its
		 * head, and the node of its parameters */
		TSNode head = a, params = { 0 };
		if (s == generic && ts_node_named_child_count(a) >= 2) {
			head = ts_node_named_child(a, 0);
			params = ts_node_named_child(a, 1);
		} else if (s == sy->subscript) {
			head = tl_tree_field(a, sy->f_value);
			params = a;
		}
		uint32_t len = 0;
		const char *t = tl_index_text(idx, head, &len);
		if (!t)
			return false;
		const char *last = tl_facts__last_part(t, &len);
		bool optional = len == 8 && memcmp(last, "Optional", 8) == 0;
		bool onion = len == 5 && memcmp(last, "Union", 5) == 0;
		if (ts_node_is_null(params) || (!optional && !onion))
			return tl_facts__plain_type(idx, head);
		/* Optional[X], Union[X, Y]: every member, each by its head */
		uint32_t n = ts_node_named_child_count(params);
		uint32_t from = ts_node_symbol(params) == param ? 0 : 1; /* a subscript's first child is its value */
		if (n <= from)
			return false;
		if (optional && n == from + 1) {
			a = ts_node_named_child(params, from);
			continue;
		}
		for (uint32_t i = from; i < n; i++) {
			TSNode m = tl_index_unparen(ts_node_named_child(params, i));
			if (ts_node_symbol(m) == sy->type_ && ts_node_named_child_count(m) == 1)
				m = ts_node_named_child(m, 0);
			TSSymbol ms = ts_node_symbol(m);
			TSNode mh = ms == generic && ts_node_named_child_count(m) >= 1 ? ts_node_named_child(m, 0)
				    : ms == sy->subscript ? tl_tree_field(m, sy->f_value) : m;
			if (ms == sy->none)
				continue;
			if (!tl_facts__plain_type(idx, mh))
				return false;
		}
		return true;
	}
	return false;
}

/* Decided without the model, which a file that asks nothing else of it
 * would build for this question alone (most receivers asked about are no
 * tensors: `seen.add(x)`, `torch.onnx....`): a literal, a name of an imported module
 * or of what it holds, a parameter annotated as a type that is no tensor
 * (a container, a string, a number, a class: `seen: Set[str]`,
 * `observer: ObserverBase`), a local name or an attribute of `self` every binding of which
 * makes a Python container. */
static bool tl_facts__plainly_no_tensor(const TlIndex *idx, TSNode e)
{
	const TlSyms *sy = tl_syms();
	TSSymbol es = ts_node_symbol(e);
	if (es == sy->integer || es == sy->float_ || es == sy->string || es == sy->true_ || es == sy->false_ ||
	    es == sy->none)
		return true; /* a literal */
	TSNode root = e;
	while (ts_node_symbol(root) == sy->attribute)
		root = tl_index_unparen(tl_tree_field(root, sy->f_object));
	if (ts_node_is_null(root) || ts_node_symbol(root) != sy->identifier)
		return false;
	const TlBinding *rb = tl_index_resolve_node(idx, root);
	if (rb && rb->kind == TL_BIND_IMPORT)
		return ts_node_eq(root, e) || !tl_index_resolve_node(idx, e);
	if (rb && rb->kind == TL_BIND_PARAM && ts_node_eq(root, e) && rb->func >= 0) {
		/* A parameter the function never rebinds, not annotated, whose
		 * callers are not known (none here, or it escapes); or the
		 * object of a method (`self`). */
		const TlFunc *f = &idx->funcs.items[rb->func];
		const TlIntArray *own = tl_index_bindings_of(idx, rb->func, rb->name);
		if (!own || own->size != 1)
			return false;
		/* annotated as a container, a string, a number (`seen: Set[str]`) */
		if (!ts_node_is_null(rb->value))
			return tl_facts__plain_annotation(idx, rb->value);
		return f->escapes || !f->call_sites.size ||
		       (f->cls >= 0 && f->params.size && &idx->bindings.items[f->params.items[0]] == rb &&
			(strcmp(rb->name, "self") == 0 || strcmp(rb->name, "cls") == 0));
	}
	/* `self.seen`: every store into it in the class's methods */
	const TlBinding *eb = rb && rb->kind == TL_BIND_PARAM && ts_node_eq(tl_index_unparen(tl_tree_field(e, sy->f_object)), root)
				      ? tl_index_resolve_node(idx, e) : NULL;
	if (eb && eb->cls >= 0 && !eb->class_body && eb->kind == TL_BIND_ASSIGN)
		rb = eb;
	else if (!ts_node_eq(root, e))
		return false;
	if (!rb || rb->kind != TL_BIND_ASSIGN || rb->elem >= 0)
		return false;
	const TlIntArray *all = rb == eb ? tl_index_attr_bindings(idx, eb->cls, eb->name)
					 : tl_index_bindings_of(idx, rb->func, rb->name);
	for (uint32_t i = 0; all && i < all->size; i++) {
		const TlBinding *o = &idx->bindings.items[all->items[i]];
		if (o->kind != TL_BIND_ASSIGN || o->elem >= 0 || !tl_facts__plain_container(idx, o->value))
			return false;
	}
	return all && all->size;
}

bool tl_facts_is_tensor(const TlIndex *idx, TSNode expr)
{
	expr = tl_index_unparen(expr);
	/* (A module is never a tensor: the model's kind says which it is.) */
	if (ts_node_is_null(expr))
		return false;
	if (tl_facts__plainly_no_tensor(idx, expr))
		return false;
	int budget = TL_FACTS_BUDGET;
	return tl_facts__model_tensor(idx, expr, &budget);
}

/* True when `expr` is a chain of calls down to a tensor factory's call
 * (`torch.zeros(n).float()`, `Variable(torch.ones(b, 1))`), no name on the
 * way: the factory's tensor moved at once (a name bound to one may have
 * been filled with data since). */
static bool tl_facts__factory_chain(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	for (int depth = 0; depth <= TL_FACTS_DEPTH; depth++) {
		expr = tl_index_unparen(expr);
		if (ts_node_is_null(expr) || ts_node_symbol(expr) != sy->call)
			return false;
		const TlCall *c = tl_index_call_at(idx, expr);
		if (!c)
			return false;
		if (c->qname && tl_facts__qname_is_api(c->qname, TL_API_TENSOR_FACTORY))
			return true;
		expr = c->receiver.id && !c->qname ? c->receiver : tl_facts__arg(expr, 0);
	}
	return false;
}

/* The model's answer: a chain of calls from a factory (above) whose value
 * is a tensor made of a shape by a factory, on the host. */
bool tl_facts_host_factory(const TlIndex *idx, TSNode expr)
{
	expr = tl_index_unparen(expr);
	TlVal v;
	return tl_facts__factory_chain(idx, expr) && tl_model_value(idx, expr, &v) && v.kind == TL_VK_TENSOR &&
	       v.device == TL_VD_HOST && (v.made & TL_VM_FACTORY) && v.made != TL_VM_TOP;
}
