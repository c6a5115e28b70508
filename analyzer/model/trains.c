/* Whether the program trains around a function, and whether a loop runs
 * around it (docs/semantic-model.md, "Training around a function"): the
 * evaluation pass (TL102) of a model the program never trains is none; a
 * step loop that a loop runs again (an epoch loop, TL215) may be that
 * loop's caller's, in another module.
 *
 * Training runs around function f when f reaches a backward or an
 * optimizer step itself (TlFunc.reach_events), another method of its
 * class does, or one of its call sites is in code training runs around:
 * the module's own code when it trains (a call outside functions whose
 * events, or what it calls, backpropagate or step), a function training
 * runs around, or a loop that trains around the call. The call sites are
 * the module's (TlFunc.call_sites) and, for a function not passed as a
 * value, those of the modules that import it (callers.c: by name, or a
 * method through an instance), a site there asking that module's table,
 * at most TL_TRAINS_MODULE_HOPS modules away.
 *
 * A loop runs around function f when one of its call sites is inside a
 * loop (the caller's, or the module code's) or in a function a loop runs
 * around, over the same call sites (the module's, its importers').
 *
 * Per module, one table per question for every function: the least
 * fixpoint over its call graph, by a worklist from the functions known to
 * be so along the edges from callers to callees (cycles stay "not
 * known"). An answer cut by the hops or an import cycle is not kept.
 *
 * Owns: tl_model_trains_around, tl_model_loop_around. */
#include <string.h>

#include "base/alloc.h"
#include "model/model_internal.h"

#define TL_TRAINS_MODULE_HOPS 3
#define TL_TRAINS_EVENTS (TL_EV_BACKWARD | TL_EV_OPT_STEP)

/* The two questions: training runs around it, a loop runs around it. */
enum { TL_AROUND_TRAINS, TL_AROUND_LOOP, TL_AROUND_STEP };

static _Thread_local int tl_trains__hops;
static _Thread_local bool tl_trains__cut;

/* True when module-level code of `idx` trains. */
static bool tl_trains__top(const TlIndex *idx)
{
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *k = &idx->calls.items[i];
		if (k->func < 0 && ((k->events | k->callee_events) & TL_TRAINS_EVENTS))
			return true;
	}
	return false;
}

/* f trains itself, or a method of its class does. */
static bool tl_trains__own(const TlIndex *idx, const uint8_t *cls_trains, int32_t f)
{
	const TlFunc *fn = &idx->funcs.items[f];
	return (fn->reach_events & TL_TRAINS_EVENTS) || (fn->cls >= 0 && cls_trains[fn->cls]);
}

static const uint8_t *tl_trains__table(TlModel *m, int which, uint8_t **scratch);

/* The same, without a table: a function of a module whose table is not at
 * hand (an import cycle, past the hops). */
static bool tl_trains__own_alone(const TlIndex *mod, int32_t f)
{
	const TlFunc *fn = &mod->funcs.items[f];
	if (fn->reach_events & TL_TRAINS_EVENTS)
		return true;
	for (uint32_t k = 0; fn->cls >= 0 && k < mod->funcs.size; k++)
		if (mod->funcs.items[k].cls == fn->cls && (mod->funcs.items[k].reach_events & TL_TRAINS_EVENTS))
			return true;
	return false;
}

/* A step loop (one whose iteration trains or runs a model's forward,
 * TlLoop.step) holds call `call` of `mod`, calling function `f` of `idx`:
 * a loop around it is one, or the innermost is one once the call's own
 * events are counted (a call its module resolves to no function, such as
 * a method through an instance, adds none to the loop's): `f` runs a
 * forward or a step and no step loop of its own, and no step loop is
 * nested in that loop. */
static uint32_t tl_trains__loop_step(const TlIndex *mod, int32_t l)
{
	/* tl_model_loop_step, which reads the module's model: another
	 * module's is at hand once it has been read (quiet: its events
	 * decide); a module whose model none read (past the modules' nesting)
	 * is not built for it. */
	return mod->model ? tl_model_loop_step(mod, l) : mod->loops.items[l].step;
}

static bool tl_trains__step_site(const TlIndex *mod, const TlCall *call, const TlIndex *idx, int32_t f)
{
	for (int32_t l = call->loop; l >= 0; l = mod->loops.items[l].parent)
		if (tl_trains__loop_step(mod, l))
			return true;
	/* A loop a step loop by its events that the model knows for a run
	 * per configuration is none, with the call's events or without. */
	const TlFunc *fn = &idx->funcs.items[f];
	if (call->loop < 0 || call->target >= 0 || fn->runs_step_loop || mod->loops.items[call->loop].step ||
	    !(fn->reach_events & (TL_EV_FORWARD | TL_TRAINS_EVENTS)))
		return false;
	for (uint32_t k = 0; k < mod->loops.size; k++) {
		if (!tl_trains__loop_step(mod, (int32_t)k))
			continue;
		for (int32_t l = mod->loops.items[k].parent; l >= 0; l = mod->loops.items[l].parent)
			if (l == call->loop)
				return false;
	}
	return true;
}

typedef struct TlTrainsExt {
	uint8_t *seed; /* per function: a call site in an importer is so */
	int which;     /* TL_AROUND_* */
	const TlIndex *idx; /* the module whose functions are asked about */
} TlTrainsExt;

static bool tl_trains__ext_want(void *ctx, int32_t f)
{
	return !((TlTrainsExt *)ctx)->seed[f];
}

static void tl_trains__ext_site(void *ctx, const TlExtCall *s)
{
	TlTrainsExt *x = ctx;
	const TlCall *call = s->call;
	const TlIndex *mod = s->mod;
	bool loop = x->which != TL_AROUND_TRAINS, yes;
	if (x->which == TL_AROUND_STEP && tl_trains__step_site(mod, call, x->idx, s->func)) {
		yes = true;
	} else if (x->which == TL_AROUND_LOOP && call->loop >= 0) {
		yes = true;
	} else if (call->func < 0) {
		yes = !loop && tl_trains__top(mod);
	} else if (!loop && call->loop >= 0 && (mod->loops.items[call->loop].events & TL_TRAINS_EVENTS)) {
		yes = true;
	} else if (!s->om || tl_trains__hops >= TL_TRAINS_MODULE_HOPS) {
		tl_trains__cut = true; /* an import cycle, or past the hops */
		yes = !loop && tl_trains__own_alone(mod, call->func);
	} else {
		uint8_t *scratch = NULL;
		const uint8_t *t = tl_trains__table(s->om, x->which, &scratch);
		yes = t ? t[call->func] == 1 : !loop && tl_trains__own_alone(mod, call->func);
		tl_free(scratch);
	}
	if (yes)
		x->seed[s->func] = 1;
}

/* Every function's answer to question `which` (1 training, or a loop,
 * runs around it, 2 not known to): m's table once resolved; else resolved
 * now, into *scratch when the resolution was cut (not kept); NULL when one
 * is under way for m (an import cycle). */
static const uint8_t *tl_trains__table(TlModel *m, int which, uint8_t **scratch)
{
	if (m->around[which])
		return m->around[which];
	if (m->around_busy[which]) {
		tl_trains__cut = true;
		return NULL;
	}
	const TlIndex *idx = m->idx;
	uint32_t n = idx->funcs.size, nc = idx->classes.size;
	bool loop = which != TL_AROUND_TRAINS;
	m->around_busy[which] = true;
	bool outer_cut = tl_trains__hops ? tl_trains__cut : false;
	tl_trains__hops++;
	tl_trains__cut = false;
	uint8_t *t = tl_malloc(n ? n : 1);
	memset(t, 2, n ? n : 1);
	uint8_t *cls_trains = tl_calloc(nc ? nc : 1, 1);
	for (uint32_t i = 0; i < n; i++) {
		const TlFunc *f = &idx->funcs.items[i];
		if (!loop && f->cls >= 0 && (uint32_t)f->cls < nc && (f->reach_events & TL_TRAINS_EVENTS))
			cls_trains[f->cls] = 1;
	}
	TlTrainsExt x = { tl_calloc(n ? n : 1, 1), which, idx };
	if (idx->imports)
		tl_model__importer_calls(m, TL_CALLERS_INSTANCES, tl_trains__ext_want, tl_trains__ext_site, &x);
	bool top = !loop && tl_trains__top(idx);
	TlIntArray key, item, work;
	tl_array_init(&key);
	tl_array_init(&item);
	tl_array_init(&work);
	for (uint32_t i = 0; i < n; i++) {
		const TlFunc *f = &idx->funcs.items[i];
		bool yes = (!loop && tl_trains__own(idx, cls_trains, (int32_t)i)) || (x.seed[i] && !f->escapes);
		for (uint32_t k = 0; !yes && k < f->call_sites.size; k++) {
			const TlCall *site = &idx->calls.items[f->call_sites.items[k]];
			int32_t caller = site->func;
			if (which == TL_AROUND_LOOP && site->loop >= 0 && caller != (int32_t)i)
				yes = true;
			else if (which == TL_AROUND_STEP && caller != (int32_t)i &&
				 tl_trains__step_site(idx, site, idx, (int32_t)i))
				yes = true;
			else if (caller < 0)
				yes = top;
			else if (caller != (int32_t)i) {
				tl_array_push(&key, caller);
				tl_array_push(&item, (int32_t)i);
			}
		}
		if (yes) {
			t[i] = 1;
			tl_array_push(&work, (int32_t)i);
		}
	}
	/* The worklist over the callees of each caller. */
	tl_int_propagate(&key, &item, n, NULL, t, &work);
	tl_free(cls_trains);
	tl_free(x.seed);
	tl_array_release(&key);
	tl_array_release(&item);
	tl_array_release(&work);
	bool cut = tl_trains__cut;
	tl_trains__cut = outer_cut || cut;
	tl_trains__hops--;
	m->around_busy[which] = false;
	if (cut) {
		*scratch = t;
		return t;
	}
	m->around[which] = t;
	return t;
}

bool tl_model_trains_around(const TlIndex *idx, int32_t func)
{
	if (func < 0)
		return tl_trains__top(idx);
	const TlModel *m = tl_model_of(idx);
	if ((uint32_t)func >= idx->funcs.size)
		return false;
	if (!m)
		return (idx->funcs.items[func].reach_events & TL_TRAINS_EVENTS) != 0;
	uint8_t *scratch = NULL;
	const uint8_t *t = tl_trains__table((TlModel *)m, TL_AROUND_TRAINS, &scratch);
	bool yes = t && t[func] == 1;
	tl_free(scratch);
	return yes;
}

static bool tl_trains__ask(const TlIndex *idx, int32_t func, int which)
{
	if (func < 0 || (uint32_t)func >= idx->funcs.size)
		return false;
	const TlModel *m = tl_model_of(idx);
	if (!m)
		return false;
	uint8_t *scratch = NULL;
	const uint8_t *t = tl_trains__table((TlModel *)m, which, &scratch);
	bool yes = t && t[func] == 1;
	tl_free(scratch);
	return yes;
}

bool tl_model_loop_around(const TlIndex *idx, int32_t func)
{
	return tl_trains__ask(idx, func, TL_AROUND_LOOP);
}

bool tl_model_step_around(const TlIndex *idx, int32_t func)
{
	return tl_trains__ask(idx, func, TL_AROUND_STEP);
}
