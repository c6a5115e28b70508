/* TL405's rule logic (clip-before-unscale). Whether gradient clipping runs
 * on gradients a GradScaler still scales.
 *
 * Owns: tl_check_clip_before_unscale, tl_check_clip_before_unscale_nowhere. */
#include "rules/checks/checks.h"

#include "facts/internal.h"

/* Where clip entry `at` of `seq` stands: 1 when a scaled backward comes
 * before it with no unscale_, step or other backward in between, and a
 * GradScaler step follows it before any backward or plain step; else 0. */
static int tl_check__clip_scaled(const TlSteps *seq, uint32_t at)
{
	bool scaled = false;
	for (uint32_t j = at; j-- > 0;) {
		uint32_t ev = seq->items[j].events;
		if (ev & (TL_EV_SCALER_UNSCALE | TL_EV_OPT_STEP))
			return 0;
		if (ev & TL_EV_BACKWARD) {
			scaled = (ev & TL_EV_SCALED_BACKWARD) != 0;
			break;
		}
	}
	if (!scaled)
		return 0;
	for (uint32_t j = at + 1; j < seq->size; j++) {
		uint32_t ev = seq->items[j].events;
		if (ev & (TL_EV_BACKWARD | TL_EV_PLAIN_STEP))
			return 0;
		if (ev & TL_EV_SCALER_STEP)
			return 1;
	}
	return 0;
}

bool tl_check_clip_before_unscale(const TlIndex *idx, TSNode clip)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(clip));
	if (!c || !(c->events & TL_EV_GRAD_CLIP))
		return false;
	const uint32_t mask = TL_EV_BACKWARD | TL_EV_OPT_STEP | TL_EV_SCALER_UNSCALE | TL_EV_GRAD_CLIP;
	TlIntArray loops;
	tl_array_init(&loops);
	tl_facts__step_loop_list(idx, c->node, &loops);
	/* No step loop in the file (a train_step() the trainer of another
	 * module calls): the function is the iteration. */
	uint32_t ranges = loops.size ? loops.size : (c->func >= 0 ? 1 : 0);
	bool found = false;
	for (uint32_t i = 0; !found && i < ranges; i++) {
		int32_t func = c->func;
		TSNode range = c->func >= 0 ? idx->funcs.items[c->func].node : idx->root;
		if (loops.size) {
			const TlLoop *l = &idx->loops.items[loops.items[i]];
			func = l->func;
			range = l->body;
		}
		TlSteps seq;
		tl_array_init(&seq);
		tl_facts__sequence(idx, func, range, mask, &seq);
		for (uint32_t k = 0; !found && k < seq.size; k++)
			if (seq.items[k].call == c)
				found = tl_check__clip_scaled(&seq, k) != 0;
		tl_array_release(&seq);
	}
	tl_array_release(&loops);
	return found;
}

bool tl_check_clip_before_unscale_nowhere(const TlIndex *idx)
{
	return tl_index_no_call_has(idx, TL_EV_GRAD_CLIP, 0);
}
