/* Grad mode as program-point state (docs/semantic-model.md, "Program-point
 * grad state").
 *
 * The interpreter carries the grad mode in its state (TlState.grad): a
 * function begins in TL_MGRAD_ENTRY (the mode its callers call it in)
 * unless its decorators set one (`@torch.no_grad()`, a decorator of the
 * project that wraps the call in a grad-disabling context); a `with` block
 * of a grad-disabling (enabling) context runs its body disabled (enabled)
 * and restores the mode after it; a statement `torch.set_grad_enabled(...)`
 * switches it until switched back (`True`: enabled; `False` or a flag:
 * disabled, as the facts have always read a flag). Branches join it (the
 * greater of the two: disabled only when disabled on every path), loops
 * to their fixpoint with the rest of the state. Each statement interpreted
 * notes the join of the modes it began in (m->grad_at), in every model,
 * the file's own and the other modules' read for their summaries.
 *
 * A function's entry mode is the join over every call site in the
 * project (top-down): disabled when it has call sites, none of them
 * unknown, and each runs disabled, or in the entry mode of a function
 * whose entry is disabled in turn (a least fixpoint over the module's
 * functions, so recursion and cycles stay enabled). The call sites are
 * those of the index (TlFunc.call_sites), and the calls of the modules
 * that import this one (TlImports.importer) whose import-resolved name
 * names the function, or a method called through an instance that
 * importer's model holds; a call site there in the entry mode of its own
 * function asks that module's model in turn, at most
 * TL_GRAD_MODULE_HOPS modules away. A method's calls on `self` in the
 * methods of its class's bases run the override too: in another module
 * of the project they are call sites as an importer's are
 * (tl_grad__base_sites), in the module itself the index counts them. A
 * function that escapes (passed as a value), or is decorated with a
 * grad-enabling context, is entered enabled; one with no call site known
 * too.
 *
 *
 * What a call computes under the entry mode reads TlFuncSum.entry_grad,
 * found by a second phase after the bottom-up passes (callees are
 * interpreted before the callers whose notes the entry needs): the
 * functions whose entry turned disabled are interpreted again
 * (tl_model__grad_phase).
 *
 * Owns: tl_model_grad, tl_model_grad_local, tl_model_grad_entry_off, tl_model_unreached,
 * tl_model__grad_note, tl_model__grad_switch, tl_model__grad_phase,
 * TlFuncSum.entry_grad. */
#include <string.h>

#include "base/alloc.h"
#include "base/budget.h"
#include "model/apitable.h"
#include "model/model_internal.h"
#include "syntax/syms.h"

/* Modules a resolution follows callers through (a call site in the entry
 * mode of a function of an importer, whose own call sites are in
 * another...). */
#define TL_GRAD_MODULE_HOPS 3

/* Resolutions under way on this thread, one inside another, and whether
 * one of them was cut (a hop past the bound, an import cycle): its answer
 * is then not kept. */
static _Thread_local int tl_grad__hops;
static _Thread_local bool tl_grad__cut;

/* A note holds the mode in its low two bits, above them the clock of the
 * interpretation that made it (deps.c): the last interpretation of a
 * function replaces what an earlier one noted (a constant known since, its
 * entry context's, leaves a branch unreached: consts.c), and a statement
 * run again within one (a loop's rounds) joins. */
void tl_model__grad_note(TlModel *m, TSNode s, uint8_t grad)
{
	uint32_t a = ts_node_start_byte(s), b = ts_node_end_byte(s);
	int32_t old, now = (int32_t)((m->grad_clock & 0x1fffffffu) << 2);
	if (tl_scopemap_get(&m->grad_at, a, b, &old) && (old & ~3) == now && (old & 3) >= (int32_t)grad)
		return;
	if (tl_scopemap_get(&m->grad_at, a, b, &old) && (old & ~3) == now)
		grad = (uint8_t)((old & 3) > grad ? (old & 3) : grad);
	tl_scopemap_put(&m->grad_at, a, b, now | (int32_t)grad);
}

void tl_model__grad_release(TlModel *m)
{
	tl_scopemap_release(&m->grad_at);
	tl_free(m->grad_entry);
	m->grad_entry = NULL;
}

static bool tl_grad__ends(const char *s, const char *end)
{
	size_t a = strlen(s), b = strlen(end);
	return a >= b && memcmp(s + a - b, end, b) == 0 && (a == b || s[a - b - 1] == '.');
}

uint8_t tl_model__grad_switch(const TlIndex *idx, const TlCall *c, uint8_t grad)
{
	const TlSyms *sy = tl_syms();
	/* `torch.no_grad().__enter__()`: the context entered by hand, for the
	 * rest of the function (or until switched back) */
	if (c && c->stmt_level && c->method && c->receiver.id && strcmp(c->method, "__enter__") == 0) {
		TSNode r = tl_index_unparen(c->receiver);
		const TlCall *ctx = ts_node_symbol(r) == sy->call ? tl_index_call_at(idx, r) : NULL;
		const TlApiRow *row = ctx && ctx->qname ? tl_api_qualified(ctx->qname) : NULL;
		if (row && (row->sets & TL_APIS_GRAD_OFF))
			return TL_MGRAD_OFF;
		if (row && (row->sets & TL_APIS_GRAD_ON))
			return TL_MGRAD_ON;
		return grad;
	}
	if (!c || !c->stmt_level || !c->qname || !tl_grad__ends(c->qname, "set_grad_enabled"))
		return grad;
	TSNode args = tl_tree_field(c->node, sy->f_arguments);
	TSNode a = !ts_node_is_null(args) && ts_node_named_child_count(args) ? ts_node_named_child(args, 0)
									      : (TSNode){ 0 };
	if (!ts_node_is_null(a) && ts_node_symbol(a) == sy->keyword_argument)
		a = tl_tree_field(a, sy->f_value);
	a = tl_index_unparen(a);
	/* True turns it on; False, or a flag (`phase == "train"`), may turn
	 * it off, and precision comes first: off. */
	return !ts_node_is_null(a) && ts_node_symbol(a) == sy->true_ ? TL_MGRAD_ON : TL_MGRAD_OFF;
}

/* The mode the statement around `n` (in n's function) began in, as the
 * model of n's module noted it; -1 when it ran none (code no path
 * reaches, a function it did not interpret), or when the function's last
 * interpretation did not run it (a branch a constant decides against,
 * consts.c), unless a bound cut the interpretations short. */
static int tl_grad__at(const TlModel *m, const TlIndex *idx, TSNode n)
{
	const TlSyms *sy = tl_syms();
	for (; !ts_node_is_null(n); n = tl_index_parent(idx, n)) {
		int32_t g;
		if (tl_scopemap_get(&m->grad_at, ts_node_start_byte(n), ts_node_end_byte(n), &g)) {
			int32_t f = m->cut ? -1 : tl_index_func_of(idx, n);
			if (f >= 0 && (uint32_t)f < m->funcs.size &&
			    ((uint32_t)g >> 2) < (m->funcs.items[f].last_run & 0x1fffffffu))
				return -1;
			return g & 3;
		}
		TSSymbol s = ts_node_symbol(n);
		if (s == sy->function_definition || s == sy->decorated_definition)
			return -1;
	}
	return -1;
}

static const uint8_t *tl_grad__entries(TlModel *m, uint8_t **scratch);

/* Whether function `func` of m's module is entered grad-disabled. */
static bool tl_grad__entry_off(TlModel *m, int32_t func)
{
	if (func < 0 || (uint32_t)func >= m->idx->funcs.size)
		return false;
	uint8_t *scratch = NULL;
	const uint8_t *e = tl_grad__entries(m, &scratch);
	bool off = e && e[func] == 1;
	tl_free(scratch);
	return off;
}

/* The call sites of m's functions in the modules that import m's
 * (callers.c): per function, 0 none found, 1 every one runs
 * grad-disabled, 2 one may not. */
static bool tl_grad__ext_want(void *ctx, int32_t f)
{
	return ((uint8_t *)ctx)[f] != 2;
}

static void tl_grad__ext_site(void *ctx, const TlExtCall *s)
{
	uint8_t *ext = ctx;
	const TlModel *om = s->om;
	int g = om ? tl_grad__at(om, s->mod, s->call->node) : -1;
	if (!om)
		tl_grad__cut = true; /* an import cycle */
	if (g == TL_MGRAD_ENTRY && s->call->func >= 0 && tl_grad__hops < TL_GRAD_MODULE_HOPS)
		g = tl_grad__entry_off(s->om, s->call->func) ? TL_MGRAD_OFF : TL_MGRAD_ON;
	else if (g == TL_MGRAD_ENTRY)
		tl_grad__cut = true;
	ext[s->func] = g == TL_MGRAD_OFF ? 1 : 2;
}

/* The importers' calls by name and, as the mode entry (modes.c) and the
 * training around a function (trains.c) read them, their methods called
 * through an instance the importer's model holds (`trainer =
 * CompTrainer(...); with torch.no_grad(): trainer.generate(...)`). */
static void tl_grad__ext(TlModel *m, uint8_t *ext)
{
	tl_model__importer_calls(m, TL_CALLERS_INSTANCES, tl_grad__ext_want, tl_grad__ext_site, ext);
}

/* Whether method `g` of `at` (a base's), which calls a method on `self`,
 * runs for an instance of class `cls` of m's module: the method that
 * name finds from `cls` is `g` itself, or it is an override whose code
 * hands the call on (`super().g(...)`). Counts its steps in the bound
 * (*stop once hit). */
static bool tl_grad__base_method_runs(TlModel *m, int32_t cls, const TlIndex *at, int32_t g, bool *stop)
{
	const char *name = at->funcs.items[g].name;
	if (!name)
		return false;
	const TlIndex *where = NULL;
	int32_t h = tl_model__method_far(m, m->idx, cls, name, &where);
	if (h < 0 || !where || (where == at && h == g))
		return true;
	const TlSyms *sy = tl_syms();
	const TlIntArray *calls = tl_index_scope_calls(where, h);
	if (!calls)
		return false;
	if (tl_bound_step(calls->size)) {
		*stop = true;
		return false;
	}
	for (uint32_t i = 0; i < calls->size; i++) {
		const TlCall *c = &where->calls.items[calls->items[i]];
		if (c->func == h && c->method && strcmp(c->method, name) == 0 && c->receiver.id &&
		    ts_node_symbol(tl_index_unparen(c->receiver)) == sy->call)
			return true;
	}
	return false;
}

/* Calls of one module by the method name they call (call indices, in the
 * index's order): of a base's module, those on `self` in a method; of m's
 * own module, those on something other than `self`. */
typedef struct TlGradByName {
	const TlIndex *at;
	TlStrMap names; /* method name -> index into lists */
	TlIntLists lists;
} TlGradByName;

/* What one solve (tl_grad__solve) asks of the modules again and again,
 * found once: the base modules' calls on `self` and m's own calls on
 * something else, by method name. */
typedef struct TlGradSites {
	TlArray(TlGradByName) bases;
	TlGradByName own;
	bool own_ready;
} TlGradSites;

static bool tl_grad__on_self(const TlIndex *at, const TlCall *c)
{
	uint32_t len;
	const char *t = tl_index_text(at, c->receiver, &len);
	return len == 4 && memcmp(t, "self", 4) == 0;
}

static void tl_grad__by_name_add(TlGradByName *b, const char *name, int32_t call)
{
	int32_t at;
	size_t len = strlen(name);
	if (!tl_strmap_get(&b->names, name, len, &at)) {
		at = (int32_t)b->lists.size;
		tl_strmap_put(&b->names, name, len, at);
		TlIntArray l;
		tl_array_init(&l);
		tl_array_push(&b->lists, l);
	}
	tl_array_push(&b->lists.items[at], call);
}

static void tl_grad__by_name_release(TlGradByName *b)
{
	tl_strmap_release(&b->names);
	for (uint32_t i = 0; i < b->lists.size; i++)
		tl_array_release(&b->lists.items[i]);
	tl_array_release(&b->lists);
}

static const TlIntArray *tl_grad__by_name_get(const TlGradByName *b, const char *name)
{
	int32_t at;
	return tl_strmap_get(&b->names, name, strlen(name), &at) ? &b->lists.items[at] : NULL;
}

static void tl_grad__sites_release(TlGradSites *g)
{
	for (uint32_t i = 0; i < g->bases.size; i++)
		tl_grad__by_name_release(&g->bases.items[i]);
	tl_array_release(&g->bases);
	if (g->own_ready)
		tl_grad__by_name_release(&g->own);
}

/* The calls `self.<name>(...)` in the methods of base module `at` (read
 * under the project's lock, which the caller holds), by name; NULL when
 * the bound is hit while they are listed. */
static const TlGradByName *tl_grad__base_calls(TlGradSites *g, const TlIndex *at)
{
	for (uint32_t i = 0; i < g->bases.size; i++)
		if (g->bases.items[i].at == at)
			return &g->bases.items[i];
	if (tl_bound_step(at->calls.size))
		return NULL;
	TlGradByName b;
	b.at = at;
	tl_strmap_init(&b.names);
	tl_array_init(&b.lists);
	for (uint32_t i = 0; i < at->calls.size; i++) {
		const TlCall *call = &at->calls.items[i];
		if (call->func < 0 || at->funcs.items[call->func].cls < 0 || !call->method ||
		    ts_node_is_null(call->receiver) || !tl_grad__on_self(at, call))
			continue;
		tl_grad__by_name_add(&b, call->method, (int32_t)i);
	}
	tl_array_push(&g->bases, b);
	return &g->bases.items[g->bases.size - 1];
}

/* The calls of a method on something other than `self` in m's own module,
 * by name. */
static const TlGradByName *tl_grad__own_calls(TlGradSites *g, const TlIndex *idx)
{
	if (g->own_ready)
		return &g->own;
	g->own_ready = true;
	g->own.at = idx;
	tl_strmap_init(&g->own.names);
	tl_array_init(&g->own.lists);
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (!c->method || ts_node_is_null(c->receiver) || tl_grad__on_self(idx, c))
			continue;
		tl_grad__by_name_add(&g->own, c->method, (int32_t)i);
	}
	return &g->own;
}

/* The calls `self.<name>(...)` in the methods of the bases of method
 * `func`'s class in other modules of the project (through the imports:
 * tl_model__bases_next), where `name` is the method's: each runs this
 * override for an instance of the class (`prediction = self._forward(x)`
 * in an attack base class whose subclass overrides `_forward`), unless
 * the class overrides the calling method too and its override does not
 * hand the call on. (A base in m's own module: the index counts those
 * calls among the override's call sites already.) Each is disabled when
 * its mode in the base's module is, or its function's entry there is.
 * Returns the number of such calls, or -1 when one may run enabled, its
 * module's model is not at hand, the module calls the method on something
 * other than `self` (an instance's call, no call site), or the bound is
 * hit (the answer is then cut). The calls are found by name in `sites`
 * (the solve's: each module's calls listed once, not scanned per method,
 * which cost methods times calls: 4,000 methods over a base module of
 * 40,000 calls took 15 s). */
static int tl_grad__base_sites(TlModel *m, int32_t func, TlGradSites *sites)
{
	const TlIndex *idx = m->idx;
	const TlFunc *f = &idx->funcs.items[func];
	/* `forward` runs at every call of an instance (`model(x)`), which
	 * are no call sites here: its base's `self.forward(...)` are not all */
	if (f->cls < 0 || !f->name || !idx->imports || (f->name[0] == '_' && f->name[1] == '_') ||
	    strcmp(f->name, "forward") == 0)
		return 0;
	TlBaseWalk w;
	tl_model__bases_begin(&w, idx, f->cls);
	const TlIndex *at;
	int n = 0;
	bool first = true;
	for (const TlClass *c; n >= 0 && (c = tl_model__bases_next(m, &w, &at)); first = false) {
		if (first || at == idx)
			continue;
		int32_t k = (int32_t)(c - at->classes.items);
		tl_model__enter(idx);
		const TlModel *om = NULL;
		bool om_asked = false, stop = false;
		const TlGradByName *by = tl_grad__base_calls(sites, at);
		const TlIntArray *calls = by ? tl_grad__by_name_get(by, f->name) : NULL;
		stop = !by || (calls && tl_bound_step(calls->size));
		/* The answer of the last function asked: a base's calls of one
		 * method come together. */
		int32_t last = -1;
		bool last_runs = false;
		for (uint32_t i = 0; !stop && calls && n >= 0 && i < calls->size; i++) {
			const TlCall *call = &at->calls.items[calls->items[i]];
			if (at->funcs.items[call->func].cls != k)
				continue;
			if (call->func != last) {
				last = call->func;
				last_runs = tl_grad__base_method_runs(m, f->cls, at, call->func, &stop);
				if (stop)
					break;
			}
			if (!last_runs)
				continue;
			if (!om_asked) {
				om = tl_model_of(at);
				om_asked = true;
			}
			if (!om) {
				tl_grad__cut = true;
				n = -1;
				break;
			}
			tl_model__ensure((TlModel *)om, call->func);
			int g = tl_grad__at(om, at, call->node);
			if (g == TL_MGRAD_ENTRY && tl_grad__hops < TL_GRAD_MODULE_HOPS)
				g = tl_grad__entry_off((TlModel *)om, call->func) ? TL_MGRAD_OFF : TL_MGRAD_ON;
			else if (g == TL_MGRAD_ENTRY)
				tl_grad__cut = true;
			n = g == TL_MGRAD_OFF ? n + 1 : -1;
		}
		tl_model__leave(idx);
		if (stop) {
			tl_grad__cut = true;
			return -1;
		}
	}
	/* A call of the method on something other than `self` in the module
	 * (`attack._forward(x)`) that the index does not count among its call
	 * sites: its mode is not read here. */
	const TlIntArray *other = n > 0 ? tl_grad__by_name_get(tl_grad__own_calls(sites, idx), f->name) : NULL;
	for (uint32_t i = 0; other && n > 0 && i < other->size; i++)
		if (idx->calls.items[other->items[i]].target != func)
			n = -1;
	return n;
}

/* Every function's entry mode into `entry` (1 disabled, 2 not known to
 * be), from the grad modes noted at its call sites: the module's, and with
 * `importers` those of the modules that import it. */
static void tl_grad__solve(TlModel *m, uint8_t *entry, bool importers)
{
	const TlIndex *idx = m->idx;
	uint32_t n = idx->funcs.size;
	memset(entry, 2, n ? n : 1);
	uint8_t *ext = NULL;
	uint32_t *pending = tl_calloc(n ? n : 1, sizeof *pending);
	TlIntArray key, item, work;
	tl_array_init(&key);
	tl_array_init(&item);
	tl_array_init(&work);
	TlGradSites sites;
	memset(&sites, 0, sizeof sites);
	tl_array_init(&sites.bases);
	for (uint32_t i = 0; i < n; i++) {
		const TlFunc *f = &idx->funcs.items[i];
		if (f->decorator_ctx & TL_CTX_GRAD_OFF) {
			entry[i] = 1;
			tl_array_push(&work, (int32_t)i);
			continue;
		}
		if ((f->decorator_ctx & TL_CTX_GRAD_ON) || f->escapes)
			continue;
		bool blocked = false;
		uint32_t edges = key.size;
		for (uint32_t k = 0; !blocked && k < f->call_sites.size; k++) {
			const TlCall *c = &idx->calls.items[f->call_sites.items[k]];
			int g = tl_grad__at(m, idx, c->node);
			if (g == TL_MGRAD_OFF)
				continue;
			if (g == TL_MGRAD_ENTRY && c->func >= 0 && c->func != (int32_t)i) {
				pending[i]++;
				tl_array_push(&key, c->func);
				tl_array_push(&item, (int32_t)i);
				continue;
			}
			blocked = true; /* enabled, not run, or recursion */
		}
		int based = 0;
		if (!blocked && importers)
			based = tl_grad__base_sites(m, (int32_t)i, &sites);
		blocked = blocked || based < 0;
		if (!blocked) {
			if (!ext) {
				ext = tl_calloc(n ? n : 1, 1);
				if (importers)
					tl_grad__ext(m, ext);
			}
			blocked = ext[i] == 2 || (!f->call_sites.size && !ext[i] && !based);
		}
		if (blocked) {
			key.size = item.size = edges;
			pending[i] = 0;
			continue;
		}
		if (!pending[i]) {
			entry[i] = 1;
			tl_array_push(&work, (int32_t)i);
		}
	}
	/* A worklist from the functions known disabled over the sites waiting
	 * on each caller's entry. */
	tl_int_propagate(&key, &item, n, pending, entry, &work);
	tl_grad__sites_release(&sites);
	tl_array_release(&key);
	tl_array_release(&item);
	tl_array_release(&work);
	tl_free(pending);
	tl_free(ext);
}

/* Every function's entry mode (1 disabled, 2 not known to be): m's table
 * once resolved; else resolved now, into *scratch when the resolution was
 * cut (not kept); NULL when one is under way for m (an import cycle, or
 * m's own second phase). */
static const uint8_t *tl_grad__entries(TlModel *m, uint8_t **scratch)
{
	if (m->grad_entry)
		return m->grad_entry;
	if (m->grad_busy || m->running) {
		tl_grad__cut = true;
		return NULL;
	}
	if (!m->quiet)
		tl_model__ensure_all(m); /* every call site interpreted */
	uint32_t n = m->idx->funcs.size;
	m->grad_busy = true;
	bool outer_cut = tl_grad__hops ? tl_grad__cut : false;
	tl_grad__hops++;
	tl_grad__cut = false;
	uint8_t *entry = tl_malloc(n ? n : 1);
	tl_grad__solve(m, entry, true);
	bool cut = tl_grad__cut || m->cut;
	tl_grad__cut = outer_cut || cut;
	tl_grad__hops--;
	m->grad_busy = false;
	if (cut) {
		*scratch = entry;
		return entry;
	}
	m->grad_entry = entry;
	return entry;
}

/* Steps of the second phase: entry modes found, the functions whose
 * entry changed interpreted again. The notes the modes come from do not
 * read the entry (a function's own code notes TL_MGRAD_ENTRY whatever it
 * is), so the second step finds no change but where what a path reaches
 * did. */
#define TL_GRAD_ENTRY_STEPS 3

void tl_model__grad_phase(TlModel *m, const uint8_t *want, bool module_code)
{
	const TlIndex *idx = m->idx;
	uint32_t n = idx->funcs.size;
	if (!n)
		return;
	uint8_t *entry = tl_malloc(n);
	/* Another module's model (built for its summaries, while it is being
	 * built) reads its own call sites only: an importer's model would read
	 * it being built. */
	bool importers = !m->quiet && !m->building;
	for (uint32_t step = 0; step < TL_GRAD_ENTRY_STEPS && !m->cut; step++) {
		bool busy = m->grad_busy, outer_cut = tl_grad__cut;
		m->grad_busy = true;
		tl_grad__hops++;
		tl_grad__solve(m, entry, importers);
		tl_grad__hops--;
		tl_grad__cut = outer_cut;
		m->grad_busy = busy;
		bool again = false;
		for (uint32_t f = 0; f < n; f++) {
			if (want && !want[m->comp_of[f]])
				continue;
			TlFuncSum *s = &m->funcs.items[f];
			if (s->entry_grad == entry[f])
				continue;
			/* read as enabled until now: only a disabled one changes
			 * what its interpretation computes */
			bool rerun = s->entry_grad == 1 || entry[f] == 1;
			s->entry_grad = entry[f];
			if (rerun && s->status) {
				s->ran_at = 0; /* interpreted again whatever it read (deps.c) */
				again = true;
			}
		}
		if (!again)
			break;
		tl_model__run(m, want, module_code);
	}
	tl_free(entry);
}

int tl_model_grad_local(const TlIndex *idx, TSNode node)
{
	const TlModel *m = tl_model_of(idx);
	if (!m || ts_node_is_null(node))
		return TL_MODEL_GRAD_UNKNOWN;
	tl_model__ensure((TlModel *)m, tl_index_func_of(idx, node)); /* computed on demand: no answer changes */
	int g = tl_grad__at(m, idx, node);
	return g < 0 ? TL_MODEL_GRAD_UNKNOWN : g;
}

bool tl_model_grad_entry_off(const TlIndex *idx, int32_t func)
{
	const TlModel *m = tl_model_of(idx);
	return m && tl_grad__entry_off((TlModel *)m, func);
}

int tl_model_grad(const TlIndex *idx, TSNode node)
{
	int g = tl_model_grad_local(idx, node);
	if (g != TL_MODEL_GRAD_ENTRY)
		return g;
	return tl_model_grad_entry_off(idx, tl_index_func_of(idx, node)) ? TL_MODEL_GRAD_OFF : TL_MODEL_GRAD_ENTRY;
}

/* The innermost statement around `n` in its function (a child of a block
 * or of the module), or a null node. */
static TSNode tl_grad__statement(const TlIndex *idx, TSNode n)
{
	const TlSyms *sy = tl_syms();
	for (TSNode p; !ts_node_is_null(n); n = p) {
		p = tl_index_parent(idx, n);
		if (ts_node_is_null(p))
			return (TSNode){ 0 };
		TSSymbol ps = ts_node_symbol(p);
		if (ps == sy->block || ps == sy->module)
			return n;
		if (ps == sy->function_definition || ps == sy->decorated_definition || ps == sy->class_definition ||
		    ps == sy->lambda)
			return (TSNode){ 0 };
	}
	return (TSNode){ 0 };
}

bool tl_model_unreached(const TlIndex *idx, TSNode node)
{
	const TlModel *m = tl_model_of(idx);
	int32_t f = ts_node_is_null(node) ? -1 : tl_index_func_of(idx, node);
	if (!m || f < 0)
		return false;
	tl_model__ensure((TlModel *)m, f); /* computed on demand: no answer changes */
	TSNode s = tl_grad__statement(idx, node);
	if (m->cut || ts_node_is_null(s) || tl_index_func_of(idx, s) != f || (uint32_t)f >= m->funcs.size ||
	    !m->funcs.items[f].status || !m->funcs.items[f].last_run)
		return false;
	int32_t g;
	if (!tl_scopemap_get(&m->grad_at, ts_node_start_byte(s), ts_node_end_byte(s), &g))
		return true; /* no interpretation ran it */
	return ((uint32_t)g >> 2) < (m->funcs.items[f].last_run & 0x1fffffffu);
}
