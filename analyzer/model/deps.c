/* What each interpretation of a function read, so that a pass or round
 * of its component interprets it again only when something it read
 * changed since (docs/semantic-model.md, "What runs again").
 *
 * An interpretation is a function of what it reads: the summaries of the
 * module's functions it calls (their return value and the parameters they
 * detach), the attributes of the module's classes, the module's globals
 * (and whether the module's code ran), its own entry context; the rest
 * (the index, other modules' models, the API table) does not change while
 * the model runs. Each summary, class attribute and the globals keep the clock of
 * their last change (m->clock counts interpretations), each function the
 * clock its last interpretation began at and what it read; it is clean
 * when nothing it read changed at or after that clock and its entry
 * context is what it was. Interpreting a clean function again would
 * record the same values, store the same attributes, hand its callees the
 * same contexts and return the same value: what it would still do (read a
 * value not computed yet, ask for a function's component, replace or join
 * its summary) is done here instead (tl_model__dep_skip), so the passes
 * and rounds run as before and the model ends in the same state.
 *
 * Two cases interpret it again whatever it read: an interpretation that
 * handed one call site different values, or stored different values at
 * one store into `self` (a loop's rounds: its next interpretation would
 * change the callee's context or the attribute twice again, each site
 * keeping what it last handed), and one of the top-down sweep (entry.c),
 * which read what its callers passed.
 *
 * Owns: TlModel.clock, globals_at, attr_keys, attr_at, deps, dep_cur, dep_on,
 * read_pending, churn, ctx_got, ctx_stamp; TlFuncSum.ran_at, changed_at,
 * read_pending, churn, raw. */
#include <string.h>

#include "base/alloc.h"
#include "model/model_internal.h"

enum { TL_DEP_SUM = 0, TL_DEP_REQ = 1, TL_DEP_ATTR = 2, TL_DEP_GLOBALS = 3 };
/* The key of a store into an attribute of `self` in ctx_stamp (a call
 * site's keys are function * TL_MODEL_CTX_PARAMS + parameter). */
#define TL_DEP_STORE_KEY 0xfffffffeu

void tl_model__deps_init(TlModel *m)
{
	const TlIndex *idx = m->idx;
	uint32_t nf = idx->funcs.size;
	tl_scopemap_init(&m->attr_keys);
	tl_array_init(&m->attr_at);
	m->ctx_got = tl_malloc((nf ? nf : 1) * TL_MODEL_CTX_PARAMS * sizeof *m->ctx_got);
	for (uint32_t i = 0; i < nf * TL_MODEL_CTX_PARAMS; i++)
		m->ctx_got[i] = -1;
	tl_array_init(&m->deps);
	tl_array_reserve(&m->deps, nf);
	for (uint32_t i = 0; i < nf; i++) {
		TlIntArray e;
		tl_array_init(&e);
		m->deps.items[i] = e;
	}
	m->deps.size = nf;
	tl_array_init(&m->dep_cur);
	tl_scopemap_init(&m->ctx_stamp);
}

void tl_model__deps_release(TlModel *m)
{
	for (uint32_t i = 0; i < m->deps.size; i++)
		tl_array_release(&m->deps.items[i]);
	tl_array_release(&m->deps);
	tl_array_release(&m->dep_cur);
	tl_scopemap_release(&m->ctx_stamp);
	tl_scopemap_release(&m->attr_keys);
	tl_array_release(&m->attr_at);
	tl_free(m->ctx_got);
}

static void tl_model__dep_note(TlModel *m, unsigned kind, int32_t id)
{
	if (!m->dep_on || id < 0)
		return;
	int32_t d = (int32_t)((kind << 30) | (uint32_t)id);
	if (m->dep_cur.size && *tl_array_last(&m->dep_cur) == d)
		return;
	tl_array_push(&m->dep_cur, d);
}

void tl_model__dep_summary(TlModel *m, int32_t func, bool requested)
{
	tl_model__dep_note(m, requested ? TL_DEP_REQ : TL_DEP_SUM, func);
}

void tl_model__dep_attr(TlModel *m, int32_t cls, int32_t name)
{
	if (!m->dep_on)
		return;
	int32_t at;
	if (!tl_scopemap_get(&m->attr_keys, (uint32_t)cls, (uint32_t)name, &at)) {
		at = (int32_t)m->attr_at.size;
		tl_scopemap_put(&m->attr_keys, (uint32_t)cls, (uint32_t)name, at);
		tl_array_push(&m->attr_at, 0);
	}
	tl_model__dep_note(m, TL_DEP_ATTR, at);
}

void tl_model__dep_attr_changed(TlModel *m, int32_t cls, int32_t name)
{
	int32_t at;
	if (tl_scopemap_get(&m->attr_keys, (uint32_t)cls, (uint32_t)name, &at))
		m->attr_at.items[at] = m->clock;
}

void tl_model__dep_globals(TlModel *m)
{
	tl_model__dep_note(m, TL_DEP_GLOBALS, 0);
}

/* The entry context function `func` would read now, for parameter `i`
 * (its kind, and the constant every caller hands it): in *v when it has
 * one; false when none. */
static bool tl_model__dep_ctx(TlModel *m, int32_t func, uint32_t i, TlVal *v)
{
	bool has = tl_model__ctx_param(m, func, i, v);
	/* ... and the constant it holds (context.c, consts.c) */
	uint16_t c = tl_model__ctx_const(m, func, i);
	if (!has && c) {
		*v = tl_val_top();
		has = true;
	}
	if (has)
		v->cst = c;
	return has;
}

/* True when the context `func` would read now differs from the one its
 * last interpretation began with; with `keep`, the one now is kept. */
static bool tl_model__dep_ctx_moved(TlModel *m, int32_t func, bool keep)
{
	const TlFunc *fn = &m->idx->funcs.items[func];
	uint32_t n = fn->params.size < TL_MODEL_CTX_PARAMS ? fn->params.size : TL_MODEL_CTX_PARAMS;
	bool moved = false;
	for (uint32_t i = 0; i < n; i++) {
		int32_t *got = &m->ctx_got[(uint32_t)func * TL_MODEL_CTX_PARAMS + i];
		TlVal v;
		bool has = tl_model__dep_ctx(m, func, i, &v);
		bool same = has ? *got >= 0 && tl_val_equal(&m->pool, &m->pool.vals.items[*got], &v) : *got < 0;
		if (same)
			continue;
		moved = true;
		if (!keep)
			return true;
		*got = has ? tl_val_pool_add(&m->pool, v) : -1;
	}
	return moved;
}

uint32_t tl_model__dep_begin(TlModel *m, int32_t func)
{
	uint32_t now = ++m->clock;
	m->read_pending = false;
	m->churn = false;
	if (func < 0)
		return now;
	m->funcs.items[func].ran_at = now;
	m->funcs.items[func].last_run = now;
	tl_array_clear(&m->dep_cur);
	m->dep_on = true;
	(void)tl_model__dep_ctx_moved(m, func, true);
	return now;
}

static int tl_model__dep_cmp(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

void tl_model__dep_end(TlModel *m, int32_t func, const TlVal *raw)
{
	if (func < 0)
		return;
	TlFuncSum *s = &m->funcs.items[func];
	m->dep_on = false;
	s->read_pending = m->read_pending;
	s->churn = m->churn;
	s->raw = *raw;
	s->raw.next = -1;
	/* The top-down sweep read what the callers passed (entry.c): a later
	 * interpretation, outside it, reads what they do not say. */
	if (m->topdown)
		s->ran_at = 0;
	TlIntArray *keep = &m->deps.items[func];
	tl_array_clear(keep);
	if (m->dep_cur.size > 1)
		qsort(m->dep_cur.items, m->dep_cur.size, sizeof *m->dep_cur.items, tl_model__dep_cmp);
	for (uint32_t i = 0; i < m->dep_cur.size; i++)
		if (!keep->size || *tl_array_last(keep) != m->dep_cur.items[i])
			tl_array_push(keep, m->dep_cur.items[i]);
}

void tl_model__dep_stamp_ctx(TlModel *m, uint32_t site, uint32_t key, bool differs)
{
	int32_t at;
	if (differs && tl_scopemap_get(&m->ctx_stamp, site, key, &at) && (uint32_t)at == m->clock)
		m->churn = true;
	tl_scopemap_put(&m->ctx_stamp, site, key, (int32_t)m->clock);
}

void tl_model__dep_stamp_store(TlModel *m, uint32_t site, bool differs)
{
	tl_model__dep_stamp_ctx(m, site, TL_DEP_STORE_KEY, differs);
}

bool tl_model__dep_clean(TlModel *m, int32_t func)
{
	const TlFuncSum *s = &m->funcs.items[func];
	if (!s->status || !s->ran_at || s->churn)
		return false;
	const TlIntArray *ds = &m->deps.items[func];
	for (uint32_t i = 0; i < ds->size; i++) {
		uint32_t d = (uint32_t)ds->items[i], kind = d >> 30, id = d & 0x3fffffffu;
		uint32_t at = kind == TL_DEP_ATTR ? m->attr_at.items[id]
			      : kind == TL_DEP_GLOBALS ? m->globals_at
			      : m->funcs.items[id].changed_at;
		if (at >= s->ran_at)
			return false;
	}
	return !tl_model__dep_ctx_moved(m, func, false);
}

void tl_model__dep_skip(TlModel *m, int32_t func)
{
	TlFuncSum *s = &m->funcs.items[func];
	/* What interpreting it again would do (interp.c, tl_model__interpret):
	 * ask again for the functions whose summaries it read not made yet,
	 * read what is not computed yet, replace or join its return value. */
	const TlIntArray *ds = &m->deps.items[func];
	for (uint32_t i = 0; i < ds->size && !m->quiet; i++)
		if ((uint32_t)ds->items[i] >> 30 == TL_DEP_REQ)
			tl_array_push(&m->requested, ds->items[i] & 0x3fffffff);
	TlVal old = s->ret;
	TlVal j = s->status && !s->provisional ? tl_val_join(&m->pool, &old, &s->raw) : s->raw;
	s->provisional = s->read_pending;
	if (!tl_val_equal(&m->pool, &old, &j)) {
		m->changed = true;
		s->changed_at = m->clock;
	}
	s->ret = j;
	m->pending = m->pending || s->read_pending;
	m->stats.skipped++;
}
