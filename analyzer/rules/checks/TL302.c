/* TL302's rule logic (loop-invariant-transfer). Transfers that do not repeat
 * the same move: a destination that changes in the loop, a receiver moved
 * elsewhere in the same iteration, and moves to the device a tensor is
 * already on.
 *
 * Owns: tl_check_transfer_varies, tl_check_transfer_noop; whether an
 * attribute may name one (from facts/common.c). */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/apitable.h"
#include "model/model.h"

/* ---- attribute names ----------------------------------------------------- */

/* False when attribute node `attr` certainly does not name `name` (its
 * text does not end with it): spares asking for the attribute field. */
static bool tl_check__attribute_may_be(const TlIndex *idx, TSNode attr, const char *name)
{
	/* An attribute node ends where its last child, the attribute name,
	 * ends: its text ends with the name's. */
	uint32_t len;
	const char *t = tl_index_text(idx, attr, &len);
	size_t n = strlen(name);
	return len >= n && memcmp(t + len - n, name, n) == 0;
}

/* True for `.to(...)`, `.cuda(...)`, `.cpu()` on a receiver. */
static bool tl_check__is_move(const TlCall *c)
{
	return c && c->receiver.id && c->method &&
	       (strcmp(c->method, "to") == 0 || strcmp(c->method, "cuda") == 0 ||
		strcmp(c->method, "cpu") == 0);
}

/* Whether two move calls send their receiver to the same place, as written:
 * the same method and the same argument text. */
static bool tl_check__same_move(const TlIndex *idx, const TlCall *a, const TlCall *b)
{
	if (strcmp(a->method, b->method) != 0)
		return false;
	const TlSyms *sy = tl_syms();
	uint32_t la = 0, lb = 0;
	const char *ta = tl_index_text(idx, tl_tree_field(a->node, sy->f_arguments), &la);
	const char *tb = tl_index_text(idx, tl_tree_field(b->node, sy->f_arguments), &lb);
	return ta && tb && la == lb && memcmp(ta, tb, la) == 0;
}

bool tl_check_transfer_varies(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!tl_check__is_move(c))
		return false;
	/* The destination changes from one iteration to the next:
	 * `scale.to(p.device)` in a loop over parameters. */
	TSNode dest = tl_facts__kwarg(idx, c->node, "device");
	if (ts_node_is_null(dest))
		dest = tl_facts__arg(c->node, 0);
	if (!ts_node_is_null(dest) && c->loop >= 0 && !tl_facts_loop_invariant(idx, dest))
		return true;
	char *recv = tl_index_dotted_dup(idx, c->receiver);
	if (!recv)
		return false;
	/* The same receiver moved elsewhere in the same pass: the iteration of
	 * the call's loop, or, outside loops, the call's function. */
	TSNode range = c->loop >= 0 ? idx->loops.items[c->loop].body
		       : c->func >= 0 ? idx->funcs.items[c->func].node : idx->root;
	uint32_t from = 0, to = 0;
	tl_index_scope_calls_in(idx, c->func, range, &from, &to);
	const TlIntArray *calls = tl_index_scope_calls(idx, c->func);
	bool varies = false;
	for (uint32_t i = from; i < to && !varies; i++) {
		const TlCall *o = &idx->calls.items[calls->items[i]];
		if (o == c || !tl_check__is_move(o) || tl_check__same_move(idx, o, c))
			continue;
		char buf[128], *owned = NULL;
		const char *name = tl_index_dotted_view(idx, o->receiver, buf, sizeof buf, &owned);
		varies = name && strcmp(name, recv) == 0;
		tl_free(owned);
	}
	tl_free(recv);
	return varies;
}

/* True when the text of nodes `a` and `b` is the same. */
static bool tl_check__same_text(const TlIndex *idx, TSNode a, TSNode b)
{
	uint32_t la = 0, lb = 0;
	const char *ta = tl_index_text(idx, a, &la);
	const char *tb = tl_index_text(idx, b, &lb);
	return ta && tb && la == lb && memcmp(ta, tb, la) == 0;
}

static bool tl_check__not_host_arg(const TlIndex *idx, TSNode v, int *budget)
{
	const TlSyms *sy = tl_syms();
	if (--*budget < 0)
		return false;
	/* target = torch.zeros(8, 4) before the caller's loop: what the name
	 * holds. */
	v = tl_index_unparen(v);
	for (int k = 0; k <= TL_FACTS_DEPTH && !ts_node_is_null(v) && ts_node_symbol(v) == sy->identifier;
	     k++) {
		const TlBinding *b = tl_index_resolve_node(idx, v);
		if (!b || b->kind != TL_BIND_ASSIGN || b->elem >= 0)
			break;
		v = tl_index_unparen(tl_facts__held(idx, b));
	}
	return !ts_node_is_null(v) && !tl_facts_host_factory(idx, v);
}

bool tl_check_transfer_noop(const TlIndex *idx, TSNode call)
{
	const TlSyms *sy = tl_syms();
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!tl_check__is_move(c) || strcmp(c->method, "to") != 0)
		return false;
	TSNode dest = tl_facts__kwarg(idx, c->node, "device");
	if (ts_node_is_null(dest))
		dest = tl_facts__arg(c->node, 0);
	dest = tl_index_unparen(dest);
	if (ts_node_is_null(dest))
		return false;
	TSSymbol ds = ts_node_symbol(dest);
	if (ds != sy->identifier && ds != sy->attribute)
		return false; /* a named device, the same object each time */
	if (ds == sy->attribute && tl_check__attribute_may_be(idx, dest, "device") &&
	    tl_index_text_is(idx, tl_tree_field(dest, sy->f_attribute), "device")) {
		/* `target.to(output.device)`, `output` computed in the same call:
		 * aligning a tensor with where the computation ran, which copies
		 * only when the tensor is elsewhere; known only for a tensor made
		 * on the host. */
		TSNode of = tl_index_unparen(tl_tree_field(dest, sy->f_object));
		const TlBinding *ob = ts_node_is_null(of) || ts_node_symbol(of) != sy->identifier
					      ? NULL : tl_index_resolve_node(idx, of);
		if (ob && ob->kind == TL_BIND_ASSIGN && ob->func == c->func && c->func >= 0) {
			/* A parameter: what every caller passes. */
			TSNode r = tl_index_unparen(c->receiver);
			const TlBinding *rb = ts_node_symbol(r) == sy->identifier ? tl_index_resolve_node(idx, r)
										 : NULL;
			if (rb && rb->kind == TL_BIND_PARAM) {
				int budget = TL_FACTS_BUDGET / 4;
				return tl_facts__param_all(idx, rb, TL_PARAM_OWN, tl_check__not_host_arg, &budget);
			}
			return !tl_facts_host_factory(idx, c->receiver);
		}
	}
	const TlBinding *b = tl_index_resolve_node(idx, tl_index_unparen(c->receiver));
	if (!b || b->kind != TL_BIND_ASSIGN || b->elem >= 0)
		return false;
	TSNode v = tl_index_unparen(tl_facts__held(idx, b));
	if (ts_node_is_null(v) || ts_node_symbol(v) != sy->call)
		return false;
	/* Made there (`torch.tensor(ids, device=self._device)`) or moved there
	 * (`t = x.to(self._device)`) under the same name of the device. */
	TSNode made = tl_facts__kwarg(idx, v, "device");
	if (!ts_node_is_null(made))
		return tl_check__same_text(idx, tl_index_unparen(made), dest);
	const TlCall *m = tl_index_call_at(idx, v);
	return m && tl_check__is_move(m) && strcmp(m->method, "to") == 0 && tl_check__same_move(idx, m, c);
}
