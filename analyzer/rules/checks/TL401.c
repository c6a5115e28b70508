/* TL401's rule logic (loss-outside-autocast). A value read outside the
 * context its module forward ran in.
 *
 * Owns: tl_check_from_context; what casts to full precision (from
 * facts/valueflow.c). */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/model.h"

/* ---- casts to full precision --------------------------------------------- */

/* x.float(), x.double(), x.to(torch.float32): a cast to full precision. */
static bool tl_check__upcast(const TlIndex *idx, TSNode call)
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

static bool tl_check__value_has_forward(const TlIndex *idx, TSNode v)
{
	for (uint32_t i = tl_index_first_call_from(idx, ts_node_start_byte(v)); i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (ts_node_start_byte(c->node) >= ts_node_end_byte(v))
			break;
		if ((c->events & TL_EV_FORWARD) && tl_facts__contains(v, c->node))
			return true;
	}
	return false;
}

bool tl_check_from_context(const TlIndex *idx, TSNode expr, uint32_t ctx)
{
	const TlSyms *sy = tl_syms();
	/* Breadth-first over the names the expression reads and the bindings
	 * they come from, a bounded number of steps. */
	TlArray(TSNode) todo;
	tl_array_init(&todo);
	tl_array_push(&todo, expr);
	bool found = false;
	TlBuf b;
	tl_buf_init(&b);
	for (uint32_t step = 0; step < todo.size && step < 64 && !found; step++) {
		TSNode n = todo.items[step];
		TSTreeCursor cur = ts_tree_cursor_new(n);
		bool descend = true;
		do {
			TSNode x = ts_tree_cursor_current_node(&cur);
			TSSymbol s = ts_node_symbol(x);
			descend = true;
			if (s == sy->call && (ctx & TL_CTX_AUTOCAST) && tl_check__upcast(idx, x)) {
				/* logits.float(): reduced precision ends here. */
				descend = false;
			} else if (s == sy->identifier || s == sy->attribute) {
				tl_buf_clear(&b);
				if (tl_index_dotted(idx, x, &b)) {
					descend = false;
					const TlBinding *bd = tl_index_resolve_prefix(idx, x);
					TSNode v = tl_facts__bound_value(bd);
					if (!ts_node_is_null(v)) {
						int32_t w = tl_index_with_of(idx, bd->stmt);
						bool inside = false;
						for (; w >= 0; w = idx->withs.items[w].parent)
							if ((idx->withs.items[w].ctx & ctx) &&
							    !tl_facts__contains(idx->withs.items[w].body, expr))
								inside = true;
						if (inside && tl_check__value_has_forward(idx, v)) {
							found = true;
							break;
						}
						if (!inside && todo.size < 64)
							tl_array_push(&todo, v);
					}
				}
			}
		} while (tl_walk_next(&cur, n, descend));
		ts_tree_cursor_delete(&cur);
	}
	tl_buf_release(&b);
	tl_array_release(&todo);
	return found;
}
