#include "engine/engine.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/timings.h"
#include "engine/engine_internal.h"
#include "engine/fingerprint.h"
#include "engine/notebook.h"
#include "engine/noqa.h"
#include "facts/facts.h"
#include "rules/qexec.h"
#include "rules/queryset.h"
#include "syntax/index.h"
#include "syntax/syms.h"
#include "syntax/walk.h"

/* Findings collected per file before suppressions: no real file comes
 * near; a generated one (or a custom rule matching every node) would
 * otherwise hold gigabytes of messages. Past it, TL002 says so. */
#define TL_MAX_FINDINGS_PER_FILE 10000

void tl_engine_init(TlEngine *e, const TlRuleSet *rules, const TlSelection *sel)
{
	e->parser = ts_parser_new();
	ts_parser_set_language(e->parser, tl_python_language());
	tl_qexec_init(&e->qexec);
	e->rules = rules;
	e->selection = sel;
	e->own_queries = NULL;
	e->exact = false;
	e->precheck_of = NULL;
	e->passed = NULL;
	tl_array_init(&e->passed_set);
	e->hits = tl_queryset_hits_new();
	tl_array_init(&e->native_nodes);
	tl_array_init(&e->native_captures);
	tl_array_init(&e->lazy_shapes);
	e->plan_run = 0;
	tl_array_init(&e->plan_stamp);
	tl_array_init(&e->plan_from);
	tl_array_init(&e->plan_count);
	tl_array_init(&e->plan_shapes);
	tl_array_init(&e->plan_rps);
	e->collect = NULL;
	e->collect_key = NULL;
	e->collect_of = NULL;
	e->collect_any = false;
	e->selected = NULL;
	tl_selection_init(&e->selected_for);
}

void tl_engine_release(TlEngine *e)
{
	ts_parser_delete(e->parser);
	tl_qexec_release(&e->qexec);
	if (e->precheck_of)
		tl_precheck_run_release(&e->precheck);
	tl_free(e->passed);
	tl_array_release(&e->passed_set);
	tl_queryset_hits_free(e->hits);
	tl_array_release(&e->native_nodes);
	tl_array_release(&e->native_captures);
	tl_array_release(&e->lazy_shapes);
	tl_array_release(&e->plan_stamp);
	tl_array_release(&e->plan_from);
	tl_array_release(&e->plan_count);
	tl_array_release(&e->plan_shapes);
	tl_array_release(&e->plan_rps);
	tl_free(e->collect);
	tl_free(e->collect_key);
	tl_free(e->selected);
	tl_selection_release(&e->selected_for);
	tl_queryset_free(e->own_queries);
}

void tl_engine__add_span(TlFindings *out, const TlSource *src, const TlRule *rule,
				uint32_t start, uint32_t end, char *message)
{
	TlFinding f;
	f.rule = rule;
	f.start_byte = start;
	f.end_byte = end;
	f.start = tl_source_position(src, f.start_byte);
	f.end = tl_source_position(src, f.end_byte);
	f.message = message;
	f.fingerprint = NULL;
	f.cell = 0;
	f.cell_start = f.start;
	f.cell_end = f.end;
	f.order = 0;
	tl_array_init(&f.edits);
	f.applicability = TL_FIX_NONE;
	f.fix_title = NULL;
	tl_array_push(out, f);
}

void tl_engine__add(TlFindings *out, const TlSource *src, const TlRule *rule,
			   TSNode n, char *message)
{
	tl_engine__add_span(out, src, rule, ts_node_start_byte(n), ts_node_end_byte(n), message);
}

/* Frees the tree the engine parsed: with its arena, or node by node where
 * there is none (tl_arena_new). */
static void tl_engine__drop_tree(TlArena *arena, TSTree *tree)
{
	if (arena)
		tl_arena_free(arena);
	else if (tree)
		ts_tree_delete(tree);
}

/* ---- queries ------------------------------------------------------------------ */

static uint32_t tl_engine__nodes(const TSQueryMatch *m, uint32_t capture, TSNode *out,
				 uint32_t max)
{
	uint32_t n = 0;
	for (uint16_t i = 0; i < m->capture_count && n < max; i++)
		if (m->captures[i].index == capture)
			out[n++] = m->captures[i].node;
	return n;
}

static bool tl_engine__text_eq(const TlSource *src, TSNode n, const char *s, size_t len)
{
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	return b - a == len && memcmp(src->text + a, s, len) == 0;
}

/* The capture id, in the query that produced the match, of canonical
 * capture `k` of a pattern. */
static uint32_t tl_engine__cid(const TlQueryPart *part, uint32_t k)
{
	return k < part->cid_count ? part->cid[k] : UINT32_MAX;
}

static bool tl_engine__one(const TlIndex *idx, const TlSource *src, const TlPred *p,
			   TSNode n, const TSQueryMatch *m, const TlQueryPart *part)
{
	switch (p->kind) {
	case TL_PRED_EQ:
		if (p->capture2 >= 0) {
			TSNode other[1];
			if (!tl_engine__nodes(m, tl_engine__cid(part, (uint32_t)p->capture2), other, 1))
				return true;
			uint32_t a = ts_node_start_byte(other[0]), b = ts_node_end_byte(other[0]);
			return tl_engine__text_eq(src, n, src->text + a, b - a);
		}
		return tl_engine__text_eq(src, n, p->string, strlen(p->string));
	case TL_PRED_MATCH: {
		uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
		char *t = tl_strndup(src->text + a, b - a);
		bool r = regexec(&p->regex, t, 0, NULL, 0) == 0;
		tl_free(t);
		return r;
	}
	case TL_PRED_ANY_OF:
		for (uint32_t i = 0; i < p->strings.size; i++)
			if (tl_engine__text_eq(src, n, p->strings.items[i], strlen(p->strings.items[i])))
				return true;
		return false;
	case TL_PRED_SEMANTIC:
		return tl_predicate_holds(p->def, idx, n, p->choice);
	case TL_PRED_SET:
		return true;
	}
	return false;
}

static bool tl_engine__holds(const TlIndex *idx, const TlSource *src, const TlPred *p,
			     const TSQueryMatch *m, const TlQueryPart *part)
{
	/* Every node of the capture (or, with any-, some node) satisfies the
	 * possibly negated test; so #not-any-of? holds when no node is one of
	 * the strings. A capture with no node (optional) holds vacuously. */
	bool seen = false;
	if (p->kind == TL_PRED_SET)
		return true;
	uint32_t capture = tl_engine__cid(part, p->capture);
	for (uint16_t i = 0; i < m->capture_count; i++) {
		if (m->captures[i].index != capture)
			continue;
		seen = true;
		bool r = tl_engine__one(idx, src, p, m->captures[i].node, m, part) != p->negated;
		if (p->any && r)
			return true;
		if (!p->any && !r)
			return false;
	}
	return !seen || !p->any;
}

/* The value the pattern's `#set! name "value"` gives `name`, or NULL. */
static const char *tl_engine__property(const TlPredList *pl, const char *name, size_t len)
{
	for (uint32_t i = 0; i < pl->size; i++) {
		const TlPred *p = &pl->items[i];
		if (p->kind == TL_PRED_SET && strlen(p->strings.items[0]) == len &&
		    memcmp(p->strings.items[0], name, len) == 0)
			return p->string;
	}
	return NULL;
}

/* Renders `template`, replacing {capture} with the text of the capture of
 * that name (of pattern `qp`, matched as `m` by `part`) on one line,
 * shortened when long, and {property} with the value the pattern's
 * `#set!` gives it (`pl`: the pattern's predicates). */
static char *tl_engine__message(const char *template, const TlQPattern *qp, const TlPredList *pl,
				const TlQueryPart *part, const TlSource *src, const TSQueryMatch *m)
{
	TlBuf b;
	tl_buf_init(&b);
	const char *p = template;
	while (*p) {
		const char *open = strchr(p, '{');
		if (!open) {
			tl_buf_add(&b, p);
			break;
		}
		tl_buf_addn(&b, p, (size_t)(open - p));
		const char *close = strchr(open, '}');
		int32_t k = tl_qtext_capture(qp, open + 1, (size_t)(close - open - 1));
		const char *prop = k >= 0 ? NULL : tl_engine__property(pl, open + 1, (size_t)(close - open - 1));
		if (prop)
			tl_buf_add(&b, prop);
		TSNode n[1];
		if (k >= 0 && tl_engine__nodes(m, tl_engine__cid(part, (uint32_t)k), n, 1)) {
			uint32_t a = ts_node_start_byte(n[0]), e = ts_node_end_byte(n[0]);
			/* 40 code points keep the one-line message readable. */
			uint32_t shown = 0;
			bool space = false;
			for (uint32_t i = a; i < e; i++) {
				char c = src->text[i];
				if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
					space = true;
					continue;
				}
				if (space && shown) {
					tl_buf_addc(&b, ' ');
					shown++;
				}
				space = false;
				if (((unsigned char)c & 0xC0) != 0x80 && ++shown > 40) {
					tl_buf_add(&b, "...");
					break;
				}
				tl_buf_addc(&b, c);
			}
		}
		p = close + 1;
	}
	return tl_buf_detach(&b);
}

/* A match of one rule pattern, for tl_fix_build to find its captures by name. */
typedef struct TlEngineMatch {
	const TlQPattern *qp;
	const TlQueryPart *part;
	const TSQueryMatch *m;
} TlEngineMatch;

static bool tl_engine__fix_capture(void *data, const char *name, size_t len, TSNode *out)
{
	const TlEngineMatch *em = data;
	int32_t k = tl_qtext_capture(em->qp, name, len);
	return k >= 0 && tl_engine__nodes(em->m, tl_engine__cid(em->part, (uint32_t)k), out, 1);
}

/* One part of a compiled group run over a file: what each match needs. */
typedef struct TlEngineRun {
	TlQuerySet *qs;
	const TlQueryPart *part;  /* the part whose matches are in hand: the walk's, its
				   * natives or their fallback */
	const TlQueryPart *walk;  /* the part being walked */
	const uint64_t *pass;
	const TlIndex *idx;
	const TlSource *src;
	TlFindings *out;
	uint32_t first;   /* the file's first finding in `out` */
	TlQexec *qexec;   /* for the file's CPU-time bound */
	uint32_t matches, nodes;
	TlEngine *engine; /* its pre-checks and the rule patterns that passed them */
	bool native;      /* the match in hand was made natively */
	/* The native shapes tree-sitter matches at the node in hand (a match
	 * was ambiguous there): their fallback matches are used, no others. */
	uint32_t fallback[8];
	uint32_t fallbacks;
} TlEngineRun;

static bool tl_engine__match(void *ctx, const TSQuery *query, const TSQueryMatch *m);

/* A string or semantic predicate on one node, for the pre-checks. */
static bool tl_engine__precheck_pred(void *ctx, const TlPred *p, TSNode n)
{
	const TlEngineRun *run = ctx;
	return tl_engine__one(run->idx, run->src, p, n, NULL, run->part);
}

/* The index of `shape` among the shapes of `part`. */
static uint32_t tl_engine__pattern_of(const TlQueryPart *part, uint32_t shape)
{
	for (uint32_t i = 0; i < part->shapes.size; i++)
		if (part->shapes.items[i] == shape)
			return i;
	return UINT32_MAX;
}

/* Tree-sitter matches the native shapes in run->fallback at `node`
 * (ambiguous there natively); false when the run must stop. */
static bool tl_engine__fallback(TlEngineRun *run, TSNode node)
{
	const TlQueryPart *fb = tl_queryset_fallback(run->qs, run->walk);
	if (!fb->query)
		return true;
	run->part = fb;
	unsigned st = tl_qexec_exec_at(run->qexec, fb->query, node, tl_engine__match, run);
	run->part = run->walk;
	return !(st & TL_QEXEC_STOPPED) && !(run->qexec->status & TL_QEXEC_TIME_SPENT);
}

/* Tree-sitter matches `shape`, compiled alone (TlQueryPart.lazy), at
 * `node`; false when the run must stop. */
static bool tl_engine__solo(TlEngineRun *run, TSNode node, uint32_t shape)
{
	const TlQueryPart *solo = tl_queryset_solo(run->qs, shape);
	if (!solo->query)
		return true;
	run->part = solo;
	unsigned st = tl_qexec_exec_at(run->qexec, solo->query, node, tl_engine__match, run);
	run->part = run->walk;
	return !(st & TL_QEXEC_STOPPED) && !(run->qexec->status & TL_QEXEC_TIME_SPENT);
}

/* Before the local patterns run at `node` (precheck.h): which rule
 * patterns starting there pass their pre-checks (only their matches are
 * evaluated); the native shapes among those are matched here, and those
 * compiled alone (TlQueryPart.lazy) run here, after them. True when
 * tree-sitter must still run the part's query at the node: some shape of
 * it with a rule pattern that passed. */
/* The shapes that `run` tries at a node of symbol `sym`, each with its
 * rule patterns that run->pass holds, in the part's order: made once per
 * symbol and run (TlEngine.plan). *count receives how many. */
static const TlEnginePlanShape *tl_engine__plan(TlEngineRun *run, TSSymbol sym, uint32_t *count)
{
	TlEngine *e = run->engine;
	const TlQueryPart *part = run->walk;
	uint32_t slot = sym < part->at_slots - 1 ? sym : part->at_slots - 1;
	while (e->plan_stamp.size < part->at_slots) {
		tl_array_push(&e->plan_stamp, 0);
		tl_array_push(&e->plan_from, 0);
		tl_array_push(&e->plan_count, 0);
	}
	if (e->plan_stamp.items[slot] != e->plan_run) {
		e->plan_stamp.items[slot] = e->plan_run;
		e->plan_from.items[slot] = e->plan_shapes.size;
		uint32_t shape_count;
		const uint32_t *shapes = tl_queryset_at(part, sym, &shape_count);
		for (uint32_t i = 0; i < shape_count; i++) {
			uint32_t n;
			const uint32_t *rps = tl_queryset_shape_patterns(run->qs, shapes[i], &n);
			TlEnginePlanShape ps = { shapes[i], e->plan_rps.size, 0 };
			for (uint32_t k = 0; k < n; k++) {
				if (!tl_bit(run->pass, rps[k]))
					continue;
				const TlRulePattern *pat = tl_queryset_pattern(run->qs, rps[k]);
				TlEnginePlanPattern pp = { rps[k], pat->precheck, pat->range_count > 0 };
				tl_array_push(&e->plan_rps, pp);
				ps.count++;
			}
			if (ps.count)
				tl_array_push(&e->plan_shapes, ps);
		}
		e->plan_count.items[slot] = e->plan_shapes.size - e->plan_from.items[slot];
	}
	*count = e->plan_count.items[slot];
	/* No shape passed yet: the list may hold no storage at all. */
	return *count ? e->plan_shapes.items + e->plan_from.items[slot] : NULL;
}

static bool tl_engine__at(void *ctx, TSNode node)
{
	TlEngineRun *run = ctx;
	TlEngine *e = run->engine;
	const TlQueryPart *part = run->walk;
	const TlPrechecks *pc = tl_queryset_prechecks(run->qs);
	for (uint32_t i = 0; i < e->passed_set.size; i++) {
		uint32_t k = e->passed_set.items[i];
		e->passed[k >> 6] &= ~((uint64_t)1 << (k & 63));
	}
	tl_array_clear(&e->passed_set);
	run->nodes++;
	run->fallbacks = 0;
	uint32_t count;
	const TlEnginePlanShape *plan = tl_engine__plan(run, ts_node_symbol(node), &count);
	tl_precheck_run_at(&e->precheck, node);
	uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
	bool need = false, fallback = false;
	uint32_t lazy = 0; /* the shapes to run alone, in e->lazy_shapes */
	/* 0: not asked yet; 1: some string test's literal lies in the node's
	 * span; 2: none does, and no pattern with string tests can pass. */
	int literals = 0;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t shape = plan[i].shape;
		const TlEnginePlanPattern *pps = e->plan_rps.items + plan[i].from;
		bool any = false;
		for (uint32_t k = 0; k < plan[i].count; k++) {
			uint32_t rp = pps[k].rp;
			if (pps[k].ranged && !literals)
				literals = tl_queryset_any_in_range(e->hits, start, end) ? 1 : 2;
			if ((pps[k].ranged && (literals == 2 || !tl_queryset_in_range(run->qs, e->hits, rp, start, end))) ||
			    !tl_precheck_run_holds(&e->precheck, pps[k].precheck))
				continue;
			e->passed[rp >> 6] |= (uint64_t)1 << (rp & 63);
			tl_array_push(&e->passed_set, rp);
			any = true;
		}
		if (!any)
			continue;
		const TlPrecheckShape *sh = &pc->shapes.items[shape];
		if (!sh->native) {
			if (tl_queryset_shape_lazy(run->qs, shape)) {
				if (lazy == e->lazy_shapes.size)
					tl_array_push(&e->lazy_shapes, shape);
				else
					e->lazy_shapes.items[lazy] = shape;
				lazy++;
			} else {
				need = true;
			}
			continue;
		}
		tl_array_reserve(&e->native_nodes, sh->count + 1);
		int r = tl_precheck_run_native(&e->precheck, shape, e->native_nodes.items);
		if (r < 0) {
			/* More than fit: tree-sitter matches all of them. */
			if (run->fallbacks < sizeof run->fallback / sizeof *run->fallback)
				run->fallback[run->fallbacks] = shape;
			run->fallbacks++;
			fallback = true;
			continue;
		}
		if (r == 0)
			continue;
		tl_array_reserve(&e->native_captures, sh->cap_count + 1);
		TSQueryCapture *caps = e->native_captures.items;
		for (uint32_t c = 0; c < sh->cap_count; c++) {
			const TlPrecheckCapture *pcap = &pc->shape_captures.items[sh->cap_from + c];
			caps[c].node = e->native_nodes.items[pcap->node];
			caps[c].index = pcap->capture;
		}
		TSQueryMatch m = { 0, (uint16_t)tl_engine__pattern_of(part->natives, shape),
				   (uint16_t)sh->cap_count, caps };
		run->part = part->natives;
		run->native = true;
		bool go_on = tl_engine__match(run, NULL, &m);
		run->native = false;
		run->part = part;
		if (!go_on) {
			run->qexec->status |= TL_QEXEC_STOPPED;
			return false;
		}
	}
	if (fallback && !tl_engine__fallback(run, node))
		return false;
	for (uint32_t i = 0; i < lazy; i++)
		if (!tl_engine__solo(run, node, e->lazy_shapes.items[i]))
			return false;
	/* The pre-checks ask the predicates' questions: the file's CPU-time
	 * bound is checked here too. */
	if ((run->nodes & 63) == 0 && tl_qexec_out_of_time(run->qexec))
		return false;
	return need;
}

/* Each match of a shape is a match of every rule pattern with that shape
 * that `pass` holds, if that pattern's predicates hold. Stops the run at
 * the per-file findings cap or CPU-time bound. */
static bool tl_engine__match(void *ctx, const TSQuery *query, const TSQueryMatch *m)
{
	TlEngineRun *run = ctx;
	const TlQueryPart *part = run->part;
	uint32_t shape = part->shapes.items[m->pattern_index];
	/* A match made at the walk's node: only rule patterns that passed
	 * their pre-checks there can pass, and the predicates those decided
	 * are not asked again. A fallback match counts only for the shapes that
	 * were ambiguous there (the others were matched natively). */
	bool local = run->native || query == part->query;
	if (run->walk->natives && part == run->walk->natives->fallback) {
		bool wanted = run->fallbacks > sizeof run->fallback / sizeof *run->fallback;
		for (uint32_t i = 0; i < run->fallbacks && !wanted; i++)
			wanted = run->fallback[i] == shape;
		if (!wanted)
			return true;
	}
	const TlPrechecks *pc = tl_queryset_prechecks(run->qs);
	uint32_t count;
	const uint32_t *rps = tl_queryset_shape_patterns(run->qs, shape, &count);
	for (uint32_t k = 0; k < count; k++) {
		if (!tl_bit(run->pass, rps[k]) || (local && !tl_bit(run->engine->passed, rps[k])))
			continue;
		const TlRulePattern *rp = tl_queryset_pattern(run->qs, rps[k]);
		const TlPredList *pl = &rp->rule->patterns.items[rp->pattern];
		uint64_t decided = local ? pc->patterns.items[rp->precheck].exact : 0;
		bool ok = true;
		for (uint32_t i = 0; i < pl->size && ok; i++)
			if (i >= 64 || !((decided >> i) & 1))
				ok = tl_engine__holds(run->idx, run->src, &pl->items[i], m, part);
		/* A fact cut by the CPU bound (it polls it) answers anything:
		 * nothing found from now on is reported. */
		if (run->qexec->bound.hit) {
			tl_qexec_out_of_time(run->qexec);
			return false;
		}
		TSNode f[1];
		if (!ok || !tl_engine__nodes(m, tl_engine__cid(part, (uint32_t)rp->finding), f, 1))
			continue;
		tl_engine__add(run->out, run->src, rp->rule, f[0],
			       tl_engine__message(rp->rule->message, rp->text, pl, part, run->src, m));
		TlFinding *added = tl_array_last(run->out);
		added->order = rps[k];
		if (rp->rule->fixes.size) {
			TlEngineMatch em = { rp->text, part, m };
			const TlFixSpec *fix = tl_fix_build(&rp->rule->fixes, tl_engine__fix_capture, &em, run->src,
							    &added->edits);
			if (fix) {
				added->applicability = fix->applicability;
				added->fix_title = fix->title;
			}
		}
	}
	/* The predicates' questions are where the time goes (a long function
	 * makes some cost its length each: facts/), so the file's CPU-time
	 * bound is checked here too. */
	if ((++run->matches & 63) == 0 && tl_qexec_out_of_time(run->qexec))
		return false;
	return run->out->size - run->first < TL_MAX_FINDINGS_PER_FILE;
}

/* Runs one part of a compiled group over the tree (qexec.h: node by node
 * for its local patterns and natives, bounded). */
static void tl_engine__run(TlEngine *e, TlQuerySet *qs, const TlQueryPart *part,
			   const uint64_t *pass, const TlIndex *idx, const uint8_t *collected,
			   const TlSource *src, TSNode root, TlFindings *out, uint32_t first)
{
	if (part->failed || (!part->query && !part->natives && !part->lazy.size))
		return;
	TlEngineRun run;
	memset(&run, 0, sizeof run);
	run.qs = qs;
	run.part = run.walk = part;
	run.pass = pass;
	run.idx = idx;
	run.src = src;
	run.out = out;
	run.first = first;
	run.qexec = &e->qexec;
	run.engine = e;
	if (e->precheck_of != qs) {
		if (e->precheck_of)
			tl_precheck_run_release(&e->precheck);
		tl_precheck_run_init(&e->precheck, tl_queryset_prechecks(qs), tl_engine__precheck_pred, NULL);
		e->precheck_of = qs;
		tl_free(e->passed);
		e->passed = tl_calloc(tl_queryset_words(qs), sizeof *e->passed);
		tl_array_clear(&e->passed_set);
	}
	e->precheck.ctx = &run;
	e->precheck.text = src->text;
	/* A new run: every symbol's plan is made again (run->pass is this
	 * file's). */
	if (++e->plan_run == 0) {
		for (uint32_t i = 0; i < e->plan_stamp.size; i++)
			e->plan_stamp.items[i] = 0;
		e->plan_run = 1;
	}
	tl_array_clear(&e->plan_shapes);
	tl_array_clear(&e->plan_rps);
	TlQexecList list = { idx->collected.items, idx->collected.size, idx->node_count };
	tl_qexec_run(&e->qexec, part->query, part->roots, part->global, root,
		     collected && part->roots ? &list : NULL, tl_engine__at, tl_engine__match, &run);
	e->precheck.ctx = NULL;
}

static int tl_engine__cmp(const void *a, const void *b)
{
	const TlFinding *x = a, *y = b;
	if (x->start.line != y->start.line)
		return x->start.line < y->start.line ? -1 : 1;
	if (x->start.column != y->start.column)
		return x->start.column < y->start.column ? -1 : 1;
	int c = strcmp(x->rule->code, y->rule->code);
	if (c)
		return c;
	if (x->end_byte != y->end_byte)
		return x->end_byte < y->end_byte ? -1 : 1;
	/* The same rule on the same node twice: the first pattern's finding
	 * is the one kept. */
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return 0;
}

/* ---- suppressions (noqa.h) -------------------------------------------------- */

/* True when `src` may hold a `noqa` directive (a '#' and "noqa" later on
 * its line, in any case): only then are suppressions looked for. */
static bool tl_engine__may_suppress(const TlSource *src)
{
	const char *t = src->text, *end = src->text + src->length;
	while ((t = memchr(t, '#', (size_t)(end - t)))) {
		for (t++; t + 4 <= end && *t != '\n'; t++)
			if ((*t | 0x20) == 'n' && strncasecmp(t, "noqa", 4) == 0)
				return true;
	}
	return false;
}

/* TL002: says which per-file limit cut the analysis short. Not subject
 * to selection or suppression: a file not fully checked is an error, as
 * an unreadable one is. */
static void tl_engine__limits(TlEngine *e, const TlSource *src, TlFindings *out)
{
	unsigned status = e->qexec.status;
	const TlRule *rule = tl_rules_find(e->rules, "TL002");
	if ((!status && !e->over_budget) || !rule || (status & TL_QEXEC_CANCELLED))
		return;
	TlBuf m;
	tl_buf_init(&m);
	if (e->over_budget == 't')
		tl_buf_addf(&m, "analysis skipped: the file holds more than %u tokens, over the per-file memory budget of %u; it is not checked",
			    e->over_count - 1, TL_ENGINE_MAX_TOKENS);
	else if (e->over_budget == 'n')
		tl_buf_addf(&m, "analysis skipped: the file parses into %u nodes, over the per-file memory budget of %u; it is not checked",
			    e->over_count, TL_ENGINE_MAX_NODES);
	else if ((status & TL_QEXEC_TIME_SPENT) && e->qexec.bound.hit == TL_BOUND_STEPS)
		/* Cut before any rule ran (the index or the facts are
		 * incomplete: nothing of the file is reported) or while they ran. */
		tl_buf_addf(&m, "analysis stopped while %s: its work exceeds the per-file budget (%llu steps for %u bytes); %s",
			    e->qexec.bound.hit_in ? e->qexec.bound.hit_in : "parsing",
			    (unsigned long long)e->qexec.bound.step_limit, src->length,
			    e->qexec.bound.hit_in && strcmp(e->qexec.bound.hit_in, "matching the rules") == 0
				    ? "the rest of the file is not checked" : "the file is not checked");
	else if ((status & TL_QEXEC_TIME_SPENT) && e->qexec.bound.hit_in && strcmp(e->qexec.bound.hit_in, "matching the rules") != 0)
		/* Cut before any rule ran: the index or the facts are
		 * incomplete, so nothing of the file is reported. */
		tl_buf_addf(&m, "analysis stopped while %s: it took more than %.3g s of CPU time (the per-file bound for %u bytes); the file is not checked",
			    e->qexec.bound.hit_in, e->qexec.bound.seconds, src->length);
	else if (status & TL_QEXEC_TIME_SPENT)
		tl_buf_addf(&m, "analysis stopped while matching the rules: it took more than %.3g s of CPU time (the per-file bound for %u bytes); the rest of the file is not checked",
			    e->qexec.bound.seconds, src->length);
	else if (status & TL_QEXEC_STOPPED)
		tl_buf_addf(&m, "analysis stopped after %u findings (the per-file cap); the rest of the file is not checked",
			    (unsigned)TL_MAX_FINDINGS_PER_FILE);
	else if (status & TL_QEXEC_BUDGET_SPENT)
		tl_buf_addf(&m, "analysis stopped: the rules' matching work exceeds the per-file budget (%llu units for %u bytes); the rest of the file is not checked",
			    (unsigned long long)e->qexec.spent, src->length);
	else
		tl_buf_addf(&m, "analysis incomplete: more than %u partial matches at once (the query match limit); some findings in this file may be missing",
			    (unsigned)TL_QEXEC_MATCH_LIMIT);
	TlFinding f;
	memset(&f, 0, sizeof f);
	f.rule = rule;
	f.start = tl_source_position(src, 0);
	f.end = f.start;
	f.cell_start = f.start;
	f.cell_end = f.end;
	f.message = tl_buf_detach(&m);
	tl_buf_release(&m);
	tl_array_push(out, f);
}

uint32_t tl_engine_tokens(const char *text, uint32_t len, uint32_t stop)
{
	return tl_budget_tokens(text, len, stop);
}

/* Cancels a parse past the file's bound: its step budget (each call one
 * step) or its CPU time (read every 64 calls: tree-sitter calls this
 * often). */
static bool tl_engine__parse_progress(TSParseState *state)
{
	TlEngine *e = state->payload;
	return tl_bound_tick(&e->qexec.bound, 64) && tl_qexec_out_of_time(&e->qexec);
}

/* The node symbols the shapes of `key` start at, for the index to keep
 * (the last key's are kept: most files of a run share theirs); NULL when
 * some shape may start at any node (then the tree is walked). */
static const uint8_t *tl_engine__collect(TlEngine *e, const TlQuerySet *qs, const uint64_t *key)
{
	uint32_t words = tl_queryset_words(qs);
	if (e->collect_of != qs || memcmp(e->collect_key, key, words * sizeof *key) != 0) {
		if (!e->collect) {
			e->collect = tl_malloc(TL_QEXEC_ROOTS_BYTES);
			e->collect_key = tl_malloc(words * sizeof *key);
		}
		e->collect_of = qs;
		memcpy(e->collect_key, key, words * sizeof *key);
		e->collect_any = !tl_queryset_roots(qs, key, e->collect);
	}
	return e->collect_any ? NULL : e->collect;
}


/* The pre-filter's question about a file's imports (TlGateAsk), put to
 * the project. */
typedef struct TlEngineGate {
	const TlImports *imports;
	const TlSource *src;
} TlEngineGate;

static bool tl_engine__gate(void *ctx, const char *const *names)
{
	const TlEngineGate *g = ctx;
	return g->imports->imports_any(g->imports, g->src->path, g->src->text, g->src->length, names);
}

/* The pre-filter's word offsets of a file (TlIndex.word_offsets). */
typedef struct TlEngineWords {
	const TlQuerySet *qs;
	const TlQueryHits *hits;
} TlEngineWords;

static uint32_t tl_engine__word_offsets(const void *ctx, const char *word, size_t len, uint32_t *out,
					uint32_t cap)
{
	const TlEngineWords *w = ctx;
	return tl_queryset_word_offsets(w->qs, w->hits, word, len, out, cap);
}

/* One answer of tl_predicate_nowhere in a file. */
typedef struct TlEngineNowhere {
	const TlPredicateDef *def;
	int choice;
	bool nowhere;
} TlEngineNowhere;

/* Leaves out of `plan` (a copy of the file's `pass`) every rule pattern
 * with a semantic predicate, not negated, that holds nowhere in the file
 * (tl_predicate_nowhere): it cannot match there. Only a predicate the
 * pre-checks check counts, on a capture every match has a node for (as
 * for the word needs, queryset.c): one on a capture a match may leave
 * without a node holds there whatever the file. Each (predicate, choice)
 * is asked once. */
static void tl_engine__drop_nowhere(TlQuerySet *qs, const TlIndex *idx, const uint64_t *pass,
				    uint64_t *plan, uint32_t words)
{
	const TlPrechecks *pc = tl_queryset_prechecks(qs);
	TlEngineNowhere asked[32];
	uint32_t nasked = 0;
	memcpy(plan, pass, words * sizeof *plan);
	for (uint32_t rp = 0; rp < words * 64; rp++) {
		if (!tl_bit(pass, rp))
			continue;
		const TlRulePattern *pat = tl_queryset_pattern(qs, rp);
		const TlPrecheckPattern *pp = &pc->patterns.items[pat->precheck];
		bool drop = false;
		for (uint32_t i = 0; i < pp->count && !drop; i++) {
			const TlPrecheck *c = &pc->checks.items[pp->from + i];
			const TlPred *p = c->pred;
			if (!p || p->kind != TL_PRED_SEMANTIC || p->negated || !p->def || !c->path_count)
				continue;
			uint32_t k = 0;
			while (k < nasked && (asked[k].def != p->def || asked[k].choice != p->choice))
				k++;
			if (k < nasked) {
				drop = asked[k].nowhere;
				continue;
			}
			drop = tl_predicate_nowhere(p->def, p->choice, idx);
			if (nasked < sizeof asked / sizeof *asked)
				asked[nasked++] = (TlEngineNowhere){ p->def, p->choice, drop };
		}
		if (drop)
			plan[rp >> 6] &= ~((uint64_t)1 << (rp & 63));
	}
}

/* `given`: a parse of the source's parser text made by the caller
 * (borrowed), or NULL to parse here. */
static void tl_engine__analyze(TlEngine *e, const TlSource *src, const TSTree *given,
			       const TlFileOptions *opt, TlFindings *out)
{
	const TlSelection *sel = opt && opt->selection ? opt->selection : e->selection;
	uint32_t first = out->size;
	uint64_t t = tl_timings_start();
	TlQuerySet *qs = e->rules->queries;
	if (!qs) {
		if (!e->own_queries)
			e->own_queries = tl_queryset_new(e->rules);
		qs = e->own_queries;
	}
	/* The pre-filter: which rule patterns can match this text at all. The
	 * queries they need start compiling (on helper threads) while the file
	 * is parsed. */
	uint32_t nrules = e->rules->rules.size, words = tl_queryset_words(qs);
	if (!e->selected || e->selected_count != nrules || !tl_selection_equal(sel, &e->selected_for)) {
		tl_free(e->selected);
		e->selected = tl_calloc(nrules ? nrules : 1, sizeof *e->selected);
		e->selected_count = nrules;
		tl_selection_release(&e->selected_for);
		tl_selection_copy(&e->selected_for, sel);
		for (uint32_t r = 0; r < nrules; r++)
			e->selected[r] = tl_rule_selected(e->rules->rules.items[r], sel);
	}
	const bool *on = e->selected;
	uint64_t *pass = tl_calloc(3 * (size_t)words, sizeof *pass), *all = pass + words;
	uint64_t *plan = all + words; /* `pass` less what holds nowhere in the file */
	TlEngineGate gate_ctx = { opt ? opt->imports : NULL, src };
	TlGateAsk gate = { tl_engine__gate, &gate_ctx };
	uint32_t passing = tl_queryset_filter(qs, on, src->text, src->length, pass, e->exact ? NULL : all,
					      e->hits, gate_ctx.imports && gate_ctx.imports->imports_any ? &gate : NULL);
	const uint64_t *key = e->exact ? pass : all;
	if (passing)
		tl_queryset_group(qs, key, false);
	t = tl_timings_add(TL_PHASE_FILTER, t);
	tl_qexec_begin(&e->qexec, tl_qexec_budget_for(src->length), tl_qexec_seconds_for(src->length));
	e->qexec.bound.step_limit = tl_budget_steps_for(src->length);
	/* The bound covers every phase: the index and the facts poll it too
	 * (base/budget.h). */
	TlBound *outer = tl_bound_enter(&e->qexec.bound);
	tl_bound_phase(&e->qexec.bound, "parsing");
	e->over_budget = 0;
	e->over_count = 0;
	TSTree *tree = NULL;
	TlArena *arena = NULL; /* holds `tree` */
	if (!given) {
		/* Over the memory budget: not parsed at all. */
		uint32_t tokens = tl_budget_tokens_over(src->parse_text ? src->parse_text : src->text,
							src->length, TL_ENGINE_MAX_TOKENS);
		if (tokens > TL_ENGINE_MAX_TOKENS) {
			e->over_budget = 't';
			e->over_count = tokens;
		} else {
			/* The CPU-time bound stops the parse too. The tree is
			 * made in an arena, with a parser of its own, and freed
			 * with it at the end (base/alloc.h): not node by node. */
			arena = tl_arena_new();
			tl_arena_enter(arena);
			TSParser *parser = ts_parser_new();
			ts_parser_set_language(parser, tl_python_language());
			TSInput in = tl_walk_input(src);
			TSParseOptions po = { e, tl_engine__parse_progress };
			tree = ts_parser_parse_with_options(parser, NULL, in, po);
			ts_parser_delete(parser);
			tl_arena_leave();
		}
	}
	const TSTree *parsed = given ? given : tree;
	TSNode root = parsed ? ts_tree_root_node(parsed) : (TSNode){ { 0 }, NULL, NULL };
	if (parsed && ts_node_descendant_count(root) > TL_ENGINE_MAX_NODES) {
		e->over_budget = 'n';
		e->over_count = ts_node_descendant_count(root);
	}
	t = tl_timings_add(TL_PHASE_PARSE, t);
	if (!parsed || e->over_budget) {
		/* Not parsed (over a budget, or out of time): TL002 alone. */
		tl_engine__limits(e, src, out);
		tl_engine__drop_tree(arena, tree);
		tl_free(pass);
		tl_bound_leave(outer);
		tl_timings_add(TL_PHASE_FINISH, t);
		return;
	}
	tl_engine__syntax(e, sel, src, root, "the rest of the file is still analysed", out);
	t = tl_timings_add(TL_PHASE_MATCH, t);
	/* A file no rule pattern can match, without suppressions, is done. */
	if (passing || tl_engine__may_suppress(src)) {
		TlIndex idx;
		/* The index's walk keeps the nodes the queries start at: no
		 * second walk of the tree (the facts time themselves). */
		const uint8_t *collect = passing ? tl_engine__collect(e, qs, key) : NULL;
		tl_bound_phase(&e->qexec.bound, "indexing");
		tl_facts_build_in(&idx, src, root, collect, opt ? opt->imports : NULL);
		idx.torch_version = opt && opt->torch_version ? opt->torch_version : TL_TORCH_VERSION_DEFAULT;
		tl_bound_phase(&e->qexec.bound, "matching the rules");
		if (tl_qexec_out_of_time(&e->qexec)) {
			/* Cut in the index or the facts: what they hold is
			 * incomplete, so no rule runs on them and nothing found so
			 * far stays but TL002 (the file is not checked). */
			for (uint32_t i = first; i < out->size; i++)
				tl_finding_release(&out->items[i]);
			out->size = first;
			tl_index_release(&idx);
			tl_engine__limits(e, src, out);
			tl_engine__drop_tree(arena, tree);
			tl_free(pass);
			tl_bound_leave(outer);
			return;
		}
		if (passing) {
			/* Compiling is timed where it happens, on whichever thread. */
			const TlQueryGroup *g = tl_queryset_group(qs, key, true);
			t = tl_timings_start();
			TlEngineWords found = { qs, e->hits };
			idx.word_offsets = e->hits ? tl_engine__word_offsets : NULL;
			idx.word_ctx = &found;
			tl_engine__drop_nowhere(qs, &idx, pass, plan, words);
			idx.word_offsets = NULL;
			idx.word_ctx = NULL;
			for (uint32_t p = 0; p < g->part_count; p++) {
				tl_engine__run(e, qs, &g->parts[p], plan, &idx, collect, src, root, out, first);
				if (e->qexec.status & (TL_QEXEC_BUDGET_SPENT | TL_QEXEC_TIME_SPENT |
						       TL_QEXEC_STOPPED | TL_QEXEC_CANCELLED))
					break;
			}
			tl_queryset_done(qs, g);
			t = tl_timings_add(TL_PHASE_MATCH, t);
		}
		t = tl_timings_start();
		TlNoqaContext nc = { e->rules, sel, src, root, idx.comments.items, idx.comments.size,
				     opt ? opt->external : NULL, opt ? opt->notices : NULL };
		tl_noqa_apply(&nc, out, first);
		tl_index_release(&idx);
	}
	tl_engine__limits(e, src, out);
	tl_bound_leave(outer);
	tl_engine__drop_tree(arena, tree);
	tl_free(pass);
	if (out->size - first > 1)
		qsort(out->items + first, out->size - first, sizeof(TlFinding), tl_engine__cmp);
	/* Two patterns of one rule may match the same node: report it once,
	 * keeping the match that carries a fix when only one does (a rule may
	 * add a pattern that captures what its fix needs). */
	uint32_t w = first;
	for (uint32_t i = first; i < out->size; i++) {
		if (w > first && out->items[w - 1].rule == out->items[i].rule &&
		    out->items[w - 1].start_byte == out->items[i].start_byte &&
		    out->items[w - 1].end_byte == out->items[i].end_byte) {
			if (!out->items[w - 1].edits.size && out->items[i].edits.size) {
				TlFinding keep = out->items[i];
				out->items[i] = out->items[w - 1];
				out->items[w - 1] = keep;
			}
			tl_finding_release(&out->items[i]);
			continue;
		}
		out->items[w++] = out->items[i];
	}
	out->size = w;
	if (opt && opt->fingerprints && out->size > first) {
		TlLineHashes h;
		tl_line_hashes(&h, src->text, src->length, src->bom);
		for (uint32_t i = first; i < out->size; i++)
			out->items[i].fingerprint = tl_strdup(tl_line_hash(&h, out->items[i].start.line));
		tl_line_hashes_release(&h);
	}
	tl_timings_add(TL_PHASE_FINISH, t);
}

void tl_engine_analyze_with(TlEngine *e, const TlSource *src, const TlFileOptions *opt,
			    TlFindings *out)
{
	tl_engine__analyze(e, src, NULL, opt, out);
}

void tl_engine_analyze_tree(TlEngine *e, const TlSource *src, const TSTree *tree,
			    const TlFileOptions *opt, TlFindings *out)
{
	tl_engine__analyze(e, src, tree, opt, out);
}

void tl_engine_analyze(TlEngine *e, const TlSource *src, TlFindings *out)
{
	tl_engine_analyze_with(e, src, NULL, out);
}

/* ---- notebooks ------------------------------------------------------------------- */

/* Parses `len` bytes of `text` within `bound` (the cancel hook, steps and CPU
 * time of the notebook's cells together); NULL when cut. */
static TSTree *tl_engine__parse_bounded(TlEngine *e, const TlSource *src, TlBound *bound)
{
	TSInput in = tl_walk_input(src);
	TSParseOptions po = { bound, tl_walk_parse_progress };
	TSTree *tree = ts_parser_parse_with_options(e->parser, NULL, in, po);
	if (!tree)
		ts_parser_reset(e->parser);
	return tree;
}

/* Byte where the first ERROR or MISSING node under `root` starts. */
static uint32_t tl_engine__first_error(TSNode root)
{
	uint32_t first = UINT32_MAX;
	TlWalk w;
	tl_walk_start(&w, root);
	bool descend = true;
	do {
		TSNode n = w.node;
		descend = ts_node_has_error(n) && ts_node_start_byte(n) < first;
		if (ts_node_is_error(n) || ts_node_is_missing(n)) {
			if (ts_node_start_byte(n) < first)
				first = ts_node_start_byte(n);
			descend = false;
		}
	} while (tl_walk_step(&w, descend));
	tl_walk_end(&w);
	return first;
}

void tl_engine_analyze_notebook(TlEngine *e, const TlNotebook *nb, const TlFileOptions *opt, TlFindings *out)
{
	const TlSource *prog = &nb->program;
	const TlSelection *sel = opt && opt->selection ? opt->selection : e->selection;
	/* Over the memory budget: the engine says so (TL002). */
	if (tl_budget_tokens_over(prog->parse_text ? prog->parse_text : prog->text, prog->length,
				  TL_ENGINE_MAX_TOKENS) > TL_ENGINE_MAX_TOKENS) {
		tl_engine_analyze_with(e, prog, opt, out);
		return;
	}
	TlBound bound;
	memset(&bound, 0, sizeof bound);
	tl_bound_begin(&bound, tl_budget_seconds_for(prog->length), tl_budget_steps_for(prog->length));
	bound.cancel = e->qexec.bound.cancel;
	bound.cancel_data = e->qexec.bound.cancel_data;
	TSTree *whole = tl_engine__parse_bounded(e, prog, &bound);
	if (!whole || !ts_node_has_error(ts_tree_root_node(whole))) {
		/* Parsed (the common case: analysed on this parse), or cut: the
		 * engine's own parse meets the same bound and reports it. */
		if (whole)
			tl_engine_analyze_tree(e, prog, whole, opt, out);
		else
			tl_engine_analyze_with(e, prog, opt, out);
		ts_tree_delete(whole);
		return;
	}
	/* IPython runs each cell on its own: a cell that does not parse is
	 * reported once, at its first error, found in that cell alone (in the
	 * joined program the parser's recovery spills into the cells after
	 * it), and the rest of it is not analysed; the other cells are, as if
	 * it were empty. The cells before the program's first error parse. */
	uint32_t first = tl_engine__first_error(ts_tree_root_node(whole));
	TlFindings errors;
	tl_array_init(&errors);
	char *blank = NULL;
	for (uint32_t i = 0; i < nb->cells.size && !bound.hit; i++) {
		const TlNbCell *c = &nb->cells.items[i];
		uint32_t end = i + 1 < nb->cells.size ? nb->cells.items[i + 1].text_start : prog->length;
		if (end <= first || end <= c->text_start)
			continue;
		TlSource cell;
		char why[64];
		if (!tl_source_init_text(&cell, prog->path, prog->text + c->text_start, end - c->text_start, why,
					 sizeof why))
			continue;
		TSTree *tree = tl_engine__parse_bounded(e, &cell, &bound);
		if (tree && ts_node_has_error(ts_tree_root_node(tree))) {
			TlFindings found;
			tl_array_init(&found);
			tl_engine__syntax(e, sel, &cell, ts_tree_root_node(tree),
					  "the rest of this cell is not analysed, the other cells are", &found);
			/* Grammar gaps (valid Python the pinned grammar cannot parse)
			 * report nothing: such a cell stays in the program. */
			uint32_t at = 0;
			for (uint32_t k = 1; k < found.size; k++)
				if (found.items[k].start_byte < found.items[at].start_byte)
					at = k;
			if (found.size) {
				TlFinding f = found.items[at];
				found.items[at] = found.items[--found.size];
				f.start_byte += c->text_start;
				f.end_byte += c->text_start;
				f.start = tl_source_position(prog, f.start_byte);
				f.end = tl_source_position(prog, f.end_byte);
				f.cell_start = f.start;
				f.cell_end = f.end;
				tl_array_push(&errors, f);
				if (!blank)
					blank = tl_strndup(prog->text, prog->length);
				for (uint32_t b = c->text_start; b < end; b++)
					if (blank[b] != '\n' && blank[b] != '\r')
						blank[b] = ' ';
			}
			for (uint32_t k = 0; k < found.size; k++)
				tl_finding_release(&found.items[k]);
			tl_array_release(&found);
		}
		ts_tree_delete(tree);
		tl_source_release(&cell);
	}
	if (bound.hit == TL_BOUND_CANCELLED) {
		e->qexec.status = TL_QEXEC_CANCELLED;
	} else if (!blank) {
		/* No cell fails alone: what the whole parse reports is a grammar
		 * gap or an error across cells, reported as for a file. */
		tl_engine_analyze_tree(e, prog, whole, opt, out);
	} else {
		TlSource rest;
		char why[64];
		uint32_t from = out->size;
		if (tl_source_init_text(&rest, prog->path, blank, prog->length, why, sizeof why)) {
			tl_engine_analyze_with(e, &rest, opt, out);
			tl_source_release(&rest);
		}
		if (opt && opt->fingerprints && errors.size) {
			TlLineHashes h;
			tl_line_hashes(&h, prog->text, prog->length, prog->bom);
			for (uint32_t i = 0; i < errors.size; i++)
				errors.items[i].fingerprint = tl_strdup(tl_line_hash(&h, errors.items[i].start.line));
			tl_line_hashes_release(&h);
		}
		for (uint32_t i = 0; i < errors.size; i++)
			tl_array_push(out, errors.items[i]);
		errors.size = 0;
		if (out->size - from > 1)
			qsort(out->items + from, out->size - from, sizeof(TlFinding), tl_engine__cmp);
	}
	for (uint32_t i = 0; i < errors.size; i++)
		tl_finding_release(&errors.items[i]);
	tl_array_release(&errors);
	tl_free(blank);
	ts_tree_delete(whole);
}

void tl_engine_malformed_notebook(TlEngine *e, const TlSource *raw, uint32_t at, const char *why,
				  const TlFileOptions *opt, TlFindings *out)
{
	const TlSelection *sel = opt && opt->selection ? opt->selection : e->selection;
	const TlRule *rule = tl_rules_find(e->rules, "TL000");
	if (!rule || !tl_rule_selected(rule, sel))
		return;
	if (at > raw->length)
		at = (uint32_t)raw->length;
	uint32_t end = at;
	while (end < raw->length && raw->text[end] != '\n')
		end++;
	TlBuf m;
	tl_buf_init(&m);
	tl_buf_addf(&m, "%s; nothing in this notebook is analysed", why);
	tl_engine__add_span(out, raw, rule, at, end, tl_buf_detach(&m));
	tl_buf_release(&m);
	if (opt && opt->fingerprints) {
		TlLineHashes h;
		tl_line_hashes(&h, raw->text, raw->length, raw->bom);
		TlFinding *f = tl_array_last(out);
		f->fingerprint = tl_strdup(tl_line_hash(&h, f->start.line));
		tl_line_hashes_release(&h);
	}
}
