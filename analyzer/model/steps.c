/* The step loops that run a function through its call sites
 * (docs/semantic-model.md, "Step loops through call sites"), over the
 * module's own call sites (TlFunc.call_sites), a call of a function in
 * itself passed over:
 *
 * - the step entry: some call site of the function is in a step loop
 *   (TlLoop.step) of a kind asked, the innermost step loop around the site
 *   deciding (a rollout, an evaluating loop, inside a training loop's
 *   iteration is evaluation), or, outside any step loop, in a function so
 *   entered in turn. With the asker's per-step guard (an every-N-steps
 *   test: its logic, passed in), a site it holds below the body of its
 *   step loop, or below its function outside any, counts not;
 * - the backward loops: the loops whose iteration runs a backward and does
 *   not always leave at its end (tl_model_exits_at_end) around a chain of
 *   call sites: the innermost such loop of the caller around a site, else
 *   the caller's own in turn.
 *
 * Each is one table per module for every function: a least fixpoint over
 * the call graph, from the functions a site decides along the edges from
 * callers to callees (the entry: a work list of marks; the backward loops:
 * a bit set of the module's backward loops per function, the callers'
 * joined into their callees' until nothing grows). Recursion and cycles
 * add nothing. Needs only the index, and is kept with it (TlIndex.tables)
 * whether or not a model is built: kept only in a built model, a module
 * whose model no question had built yet was solved again for every
 * question (2,000 functions asked one by one: quadratic, 10.5 s).
 *
 * Owns: tl_model_step_entry, tl_model_backward_loops,
 * tl_model_exits_at_end, tl_model__tables, tl_model__publish,
 * TlIndexTables (the autocast entries are autocast.c's). */
#include <string.h>

#include "base/alloc.h"
#include "model/model_internal.h"
#include "syntax/syms.h"

bool tl_model_exits_at_end(const TlLoop *lp)
{
	const TlSyms *sy = tl_syms();
	uint32_t n = ts_node_named_child_count(lp->body);
	for (uint32_t k = n; k-- > 0;) {
		TSNode last = ts_node_named_child(lp->body, k);
		TSSymbol s = ts_node_symbol(last);
		if (s == sy->comment)
			continue;
		return s == sy->return_statement || s == sy->break_statement || s == sy->raise_statement;
	}
	return false;
}

/* True when step loop `l`'s answer (tl_model_loop_step) is kept: asked
 * while the module's model is being built, the events answered and the
 * loop is asked again (a table solved then is not kept either). Another
 * module's quiet model answers from its events for good. */
static bool tl_steps__final(const TlIndex *idx, int32_t l)
{
	const TlLoop *lp = &idx->loops.items[l];
	bool kept = lp->run == 2 || (lp->run && lp->ctx);
	return !lp->step || kept || !idx->model || !idx->model->building;
}

/* ---- the step entry ------------------------------------------------------------------- */

/* What the step loops around call site `c` decide: 1 the innermost is of
 * a kind asked (and the guard does not hold the site below its body), 0
 * it is not, -1 there is none. */
static int tl_steps__site(const TlIndex *idx, const TlCall *c, uint32_t kinds, TlStepGuard guard,
			  bool *final)
{
	for (int32_t l = c->loop; l >= 0; l = idx->loops.items[l].parent) {
		const TlLoop *lp = &idx->loops.items[l];
		uint32_t step = tl_model_loop_step(idx, l);
		if (!tl_steps__final(idx, l))
			*final = false;
		if (!step)
			continue;
		if (!(step & kinds))
			return 0;
		return !guard || !guard(idx, c->node, lp->body);
	}
	return -1;
}

/* Every function's step entry into `entry` (1 so, 2 not known to be). */
static void tl_steps__solve_entry(const TlIndex *idx, uint32_t kinds, TlStepGuard guard, uint8_t *entry,
				  bool *final)
{
	uint32_t n = idx->funcs.size;
	memset(entry, 2, n ? n : 1);
	TlIntArray key, item, work;
	tl_array_init(&key);
	tl_array_init(&item);
	tl_array_init(&work);
	for (uint32_t i = 0; i < n; i++) {
		const TlFunc *f = &idx->funcs.items[i];
		bool yes = false;
		for (uint32_t k = 0; !yes && k < f->call_sites.size; k++) {
			const TlCall *c = &idx->calls.items[f->call_sites.items[k]];
			if (c->func == (int32_t)i)
				continue;
			int at = tl_steps__site(idx, c, kinds, guard, final);
			if (at >= 0) {
				yes = at == 1;
				continue;
			}
			/* Outside any step loop: the caller's entry, unless module
			 * code calls it or the guard holds it in its caller. */
			if (c->func < 0 || (guard && guard(idx, c->node, idx->funcs.items[c->func].node)))
				continue;
			tl_array_push(&key, c->func);
			tl_array_push(&item, (int32_t)i);
		}
		if (yes) {
			entry[i] = 1;
			tl_array_push(&work, (int32_t)i);
		}
	}
	tl_int_propagate(&key, &item, n, NULL, entry, &work);
	tl_array_release(&key);
	tl_array_release(&item);
	tl_array_release(&work);
}

bool tl_model_step_entry(const TlIndex *idx, int32_t func, uint32_t kinds, TlStepGuard guard)
{
	if (func < 0 || (uint32_t)func >= idx->funcs.size)
		return false;
	unsigned slot = (kinds & (TL_STEP_TRAIN | TL_STEP_EVAL)) | (guard ? 4u : 0u);
	TlIndexTables *t = tl_model__tables(idx);
	uint8_t *entry = __atomic_load_n(&t->step_entry[slot], __ATOMIC_ACQUIRE);
	if (!entry) {
		uint8_t *made = tl_malloc(idx->funcs.size ? idx->funcs.size : 1);
		bool final = true;
		tl_steps__solve_entry(idx, kinds, guard, made, &final);
		if (!final) { /* asked again once the model is built */
			bool yes = made[func] == 1;
			tl_free(made);
			return yes;
		}
		entry = tl_model__publish((void **)&t->step_entry[slot], made);
		if (entry != made)
			tl_free(made);
	}
	return entry[func] == 1;
}

/* ---- the backward loops --------------------------------------------------------------- */

/* The backward loops of a module: their loop indices (bw_loops) and per
 * function a bit set over them (words 64-bit words each). */
typedef struct TlBwSets {
	TlIntArray loops;
	uint32_t words;
	uint64_t *sets;
} TlBwSets;

/* Loop `l` is a backward loop: its iteration runs a backward (in a loop
 * nested in it too: an epoch loop), it does not always leave at its end,
 * and it is no run per configuration (a step loop by its events that
 * tl_model_loop_step answers none). */
static bool tl_steps__is_backward(const TlIndex *idx, int32_t l, bool *final)
{
	const TlLoop *lp = &idx->loops.items[l];
	if (!(lp->events & TL_EV_BACKWARD) || tl_model_exits_at_end(lp))
		return false;
	bool yes = !lp->step || tl_model_loop_step(idx, l) != 0;
	if (final && !tl_steps__final(idx, l))
		*final = false;
	return yes;
}

/* The innermost backward loop of `idx` from `loop` out; -1 when none. */
static int32_t tl_steps__backward_loop(const TlIndex *idx, int32_t loop, bool *final)
{
	for (int32_t l = loop; l >= 0; l = idx->loops.items[l].parent)
		if (tl_steps__is_backward(idx, l, final))
			return l;
	return -1;
}

static TlBwSets *tl_steps__solve_bw(const TlIndex *idx, bool *final)
{
	TlBwSets *b = tl_calloc(1, sizeof *b);
	tl_array_init(&b->loops);
	uint32_t n = idx->funcs.size, nl = idx->loops.size;
	int32_t *bit = tl_malloc((nl ? nl : 1) * sizeof *bit);
	for (uint32_t l = 0; l < nl; l++) {
		bit[l] = -1;
		if (tl_steps__is_backward(idx, (int32_t)l, final)) {
			bit[l] = (int32_t)b->loops.size;
			tl_array_push(&b->loops, (int32_t)l);
		}
	}
	if (!b->loops.size || !n) {
		tl_free(bit);
		return b;
	}
	uint32_t w = (b->loops.size + 63) / 64;
	b->words = w;
	b->sets = tl_calloc((size_t)n * w, sizeof *b->sets);
	TlIntArray key, item, work;
	tl_array_init(&key);
	tl_array_init(&item);
	tl_array_init(&work);
	uint8_t *queued = tl_calloc(n, 1);
	for (uint32_t i = 0; i < n; i++) {
		const TlFunc *f = &idx->funcs.items[i];
		for (uint32_t k = 0; k < f->call_sites.size; k++) {
			const TlCall *c = &idx->calls.items[f->call_sites.items[k]];
			if (c->func == (int32_t)i)
				continue;
			int32_t l = tl_steps__backward_loop(idx, c->loop, NULL);
			if (l >= 0) {
				b->sets[(size_t)i * w + (uint32_t)bit[l] / 64] |= 1ull << ((uint32_t)bit[l] % 64);
				if (!queued[i]) {
					queued[i] = 1;
					tl_array_push(&work, (int32_t)i);
				}
			} else if (c->func >= 0) {
				tl_array_push(&key, c->func);
				tl_array_push(&item, (int32_t)i);
			}
		}
	}
	/* The callers' loops joined into their callees' until none grows. */
	uint32_t *first;
	int32_t *callee;
	tl_int_group(&key, &item, n, &first, &callee);
	while (work.size) {
		int32_t g = tl_array_pop(&work);
		queued[g] = 0;
		const uint64_t *from = &b->sets[(size_t)g * w];
		for (uint32_t e = first[g]; e < first[g + 1]; e++) {
			uint64_t *to = &b->sets[(size_t)callee[e] * w];
			bool grew = false;
			for (uint32_t k = 0; k < w; k++)
				if (from[k] & ~to[k]) {
					to[k] |= from[k];
					grew = true;
				}
			if (grew && !queued[callee[e]]) {
				queued[callee[e]] = 1;
				tl_array_push(&work, callee[e]);
			}
		}
	}
	tl_free(first);
	tl_free(callee);
	tl_free(queued);
	tl_free(bit);
	tl_array_release(&key);
	tl_array_release(&item);
	tl_array_release(&work);
	return b;
}

static void tl_steps__bw_free(TlBwSets *b)
{
	if (!b)
		return;
	tl_array_release(&b->loops);
	tl_free(b->sets);
	tl_free(b);
}

void tl_model_backward_loops(const TlIndex *idx, int32_t func, int32_t loop, TlIntArray *out)
{
	int32_t l = tl_steps__backward_loop(idx, loop, NULL);
	if (l >= 0) {
		tl_array_push(out, l);
		return;
	}
	if (func < 0 || (uint32_t)func >= idx->funcs.size)
		return;
	TlIndexTables *t = tl_model__tables(idx);
	TlBwSets *b = __atomic_load_n(&t->bw_sets, __ATOMIC_ACQUIRE), *scratch = NULL;
	if (!b) {
		bool final = true;
		TlBwSets *made = tl_steps__solve_bw(idx, &final);
		if (!final) {
			b = scratch = made; /* asked again once the model is built */
		} else {
			b = tl_model__publish((void **)&t->bw_sets, made);
			if (b != made)
				tl_steps__bw_free(made);
		}
	}
	for (uint32_t k = 0; b->words && k < b->loops.size; k++)
		if (b->sets[(size_t)func * b->words + k / 64] & (1ull << (k % 64)))
			tl_array_push(out, b->loops.items[k]);
	tl_steps__bw_free(scratch);
}

/* ---- the tables kept with the index ----------------------------------------------------- */

void *tl_model__publish(void **slot, void *made)
{
	void *none = NULL;
	if (__atomic_compare_exchange_n(slot, &none, made, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return made;
	return none;
}

static void tl_model__tables_release(TlIndexTables *t)
{
	if (!t)
		return;
	for (int i = 0; i < 8; i++)
		tl_free(t->step_entry[i]);
	for (int i = 0; i < 4; i++)
		tl_free(t->autocast_entry[i]);
	tl_free(t->importer_called);
	tl_steps__bw_free(t->bw_sets);
	tl_free(t);
}

TlIndexTables *tl_model__tables(const TlIndex *idx)
{
	TlIndex *w = (TlIndex *)idx; /* a cache written behind the index's const face: no answer changes */
	TlIndexTables *t = __atomic_load_n(&w->tables, __ATOMIC_ACQUIRE);
	if (t)
		return t;
	TlIndexTables *made = tl_calloc(1, sizeof *made);
	t = tl_model__publish((void **)&w->tables, made);
	if (t != made)
		tl_free(made);
	else
		__atomic_store_n(&w->tables_release, tl_model__tables_release, __ATOMIC_RELEASE);
	return t;
}
