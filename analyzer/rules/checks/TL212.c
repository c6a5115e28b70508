/* TL212's rule logic (evaluation-in-train-mode). Whether a module forward is
 * the first of its module in its pass.
 *
 * Owns: tl_check_first_forward. */
#include "rules/checks/checks.h"

#include "facts/internal.h"

bool tl_check_first_forward(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!c || !(c->events & TL_EV_FORWARD))
		return false;
	TSNode range = c->loop >= 0 ? idx->loops.items[c->loop].body
				    : (c->func >= 0 ? idx->funcs.items[c->func].node : idx->root);
	TlBuf mine, other;
	tl_buf_init(&mine);
	tl_buf_init(&other);
	bool first = true;
	if (tl_index_dotted(idx, c->callee, &mine)) {
		const TlIntArray *calls = tl_index_scope_calls(idx, c->func);
		uint32_t start = ts_node_start_byte(range), pos = ts_node_start_byte(c->node);
		for (uint32_t i = 0; calls && i < calls->size && first; i++) {
			const TlCall *k = &idx->calls.items[calls->items[i]];
			uint32_t kpos = ts_node_start_byte(k->node);
			if (kpos >= pos)
				break;
			if (kpos < start || !(k->events & TL_EV_FORWARD))
				continue;
			tl_buf_clear(&other);
			first = !(tl_index_dotted(idx, k->callee, &other) && strcmp(other.data, mine.data) == 0);
		}
	}
	tl_buf_release(&mine);
	tl_buf_release(&other);
	return first;
}
