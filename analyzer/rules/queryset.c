#include "rules/queryset.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/timings.h"
#include "rules/predicates.h"
#include "rules/qexec.h"
#include "rules/rules.h"
#include "syntax/syms.h"

enum { TL_PART_PENDING, TL_PART_COMPILING, TL_PART_DONE };

typedef TlArray(uint32_t) TlU32Array;

/* A literal the pre-filter looks for. */
typedef struct TlLiteral {
	const char *text; /* borrowed from the rule's scanned query */
	uint32_t len;
	bool word;        /* an identifier: looked up among the file's words */
	bool gate;        /* a literal need or an ecosystem name: opens the gate */
	bool ranged;      /* a string test's: its positions go to TlQueryHits */
	bool located;     /* a predicate's word (tl_predicate_words): its positions
			   * go to TlQueryHits.words */
} TlLiteral;

struct TlQueryHits {
	TlArray(uint64_t) pairs; /* scratch: literal id << 32 | offset, in text order */
	TlArray(uint32_t) from;  /* per literal id: its offsets in `at`, [from[l], from[l + 1]) */
	TlArray(uint32_t) at;
	/* The located literals' offsets (literal id << 32 | offset), in text
	 * order: tl_queryset_word_offsets. */
	TlArray(uint64_t) words;
	bool filled;             /* by the last tl_queryset_filter */
	/* Spans are asked about in pre-order, their starts ascending: per
	 * literal, the first of its offsets at or after the last start asked
	 * about (moved forward; all reset when a start goes back). */
	TlArray(uint32_t) next;
	uint32_t last_start;
	/* Every offset of `at`, ascending, and the first at or after the
	 * last start tl_queryset_any_in_range was asked about. */
	TlArray(uint32_t) sorted;
	uint32_t any_next, any_start;
};

struct TlQuerySet {
	const TlRuleSet *rules;
	TlArray(TlRulePattern) patterns;
	TlStrArray shapes;                /* shape texts as compiled */
	TlArray(uint32_t) shape_cost;     /* nodes with children, roughly */
	TlArray(TlU32Array) shape_patterns;
	TlArray(uint8_t *) shape_roots;   /* root-symbol bitmap (qexec.h) per shape; NULL: any */
	TlArray(TlU32Array) shape_root_list; /* the same as a list of symbols */
	TlArray(uint8_t) shape_lazy;      /* compiled alone when needed (TlQueryPart.lazy) */
	TlQueryPart **solo;               /* per shape: compiled alone, or NULL (with the lock) */
	TlPrechecks prechecks;
	TlArray(TlU32Array) needs;  /* per need: literal ids, one of which must be there */
	TlArray(TlLiteral) literals;
	TlArray(TlU32Array) ranges; /* per string test (TlRulePattern.range_*): literal ids */
	uint32_t *word_slots;              /* open addressing: literal id + 1, 0 empty */
	uint32_t word_mask;
	uint32_t word_max;                 /* the longest word literal */
	bool word_char[256];               /* [A-Za-z0-9_] */
	uint64_t word_starts[256];         /* by first byte: the lengths of the word literals
					    * starting with it (tl_queryset__len_bit) */
	uint32_t words, max_captures;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	TlQueryGroup *groups;
	uint32_t group_count, max_groups;
	uint64_t clock;                    /* stamps TlQueryGroup.used */
	unsigned helpers;
	bool stop, reported;
};

/* A word's hash from its length and its first and last eight bytes: O(1)
 * a word (the scan over a file's text hashes only the words that pass the
 * length-and-first-letter filter). */
static uint32_t tl_queryset__hash(const char *s, uint32_t len)
{
	uint64_t a = 0, b = 0;
	if (len >= 8) {
		memcpy(&a, s, 8);
		memcpy(&b, s + len - 8, 8);
	} else {
		for (uint32_t i = 0; i < len; i++)
			a |= (uint64_t)(unsigned char)s[i] << (8 * i);
	}
	uint64_t h = (a ^ (b * 0x9E3779B97F4A7C15ull) ^ len) * 0xD6E8FEB86659FD93ull;
	return (uint32_t)(h >> 32);
}

/* Bit min(len, 63) of qs->word_starts[c]: a word literal of that length
 * starts with c. */
static uint64_t tl_queryset__len_bit(size_t len)
{
	return (uint64_t)1 << (len < 63 ? len : 63);
}

static bool tl_queryset__is_word(const char *s, uint32_t len)
{
	if (!len || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return false;
	for (uint32_t i = 1; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/* The id of literal `s`, added if new; `gate`: it opens the gate (a
 * literal need), else only its positions are wanted (a string test's). */
static uint32_t tl_queryset__add_literal(TlQuerySet *qs, const char *s, bool gate, bool ranged)
{
	uint32_t len = (uint32_t)strlen(s);
	for (uint32_t i = 0; i < qs->literals.size; i++)
		if (qs->literals.items[i].len == len && memcmp(qs->literals.items[i].text, s, len) == 0) {
			qs->literals.items[i].gate |= gate;
			qs->literals.items[i].ranged |= ranged;
			return i;
		}
	TlLiteral l = { s, len, tl_queryset__is_word(s, len), gate, ranged, false };
	tl_array_push(&qs->literals, l);
	return qs->literals.size - 1;
}

static uint32_t tl_queryset__literal(TlQuerySet *qs, const char *s, bool gate)
{
	return tl_queryset__add_literal(qs, s, gate, !gate);
}

/* Adds the identifiers that rule pattern `rp`'s checked semantic
 * predicates need (tl_predicate_words) as needs of its own: each such
 * predicate, not negated, is on a capture every match has a node for (the
 * pre-checks check it: precheck.h), so a file with none of its words
 * cannot match the pattern. */
static void tl_queryset__word_needs(TlQuerySet *qs, TlRulePattern *rp)
{
	const TlPrechecks *pc = &qs->prechecks;
	const TlPrecheckPattern *pat = &pc->patterns.items[rp->precheck];
	rp->word_need_from = qs->needs.size;
	for (uint32_t i = 0; i < pat->count; i++) {
		const TlPrecheck *c = &pc->checks.items[pat->from + i];
		const TlPred *p = c->pred;
		if (!p || p->negated || p->kind != TL_PRED_SEMANTIC || !c->path_count)
			continue;
		const char *words[32];
		size_t n = tl_predicate_words(p->def, p->choice, words, sizeof words / sizeof *words);
		if (!n)
			continue;
		TlU32Array ids;
		tl_array_init(&ids);
		for (size_t k = 0; k < n; k++) {
			uint32_t id = tl_queryset__add_literal(qs, words[k], false, false);
			qs->literals.items[id].located = qs->literals.items[id].word;
			tl_array_push(&ids, id);
		}
		tl_array_push(&qs->needs, ids);
	}
	rp->word_need_count = qs->needs.size - rp->word_need_from;
}

/* Adds the string tests of rule pattern `rp` that its pre-checks check
 * (precheck.h) to qs->ranges: a positive #eq? against a string or an
 * #any-of?, each of whose strings is not empty. */
static void tl_queryset__ranges(TlQuerySet *qs, TlRulePattern *rp)
{
	const TlPrechecks *pc = &qs->prechecks;
	const TlPrecheckPattern *pat = &pc->patterns.items[rp->precheck];
	rp->range_from = qs->ranges.size;
	for (uint32_t i = 0; i < pat->count; i++) {
		const TlPred *p = pc->checks.items[pat->from + i].pred;
		if (!p || p->negated || !((p->kind == TL_PRED_EQ && p->capture2 < 0) || p->kind == TL_PRED_ANY_OF))
			continue;
		uint32_t n = p->kind == TL_PRED_EQ ? 1 : p->strings.size;
		bool empty = n == 0;
		for (uint32_t k = 0; k < n && !empty; k++)
			empty = !*(p->kind == TL_PRED_EQ ? p->string : p->strings.items[k]);
		if (empty)
			continue;
		TlU32Array ids;
		tl_array_init(&ids);
		for (uint32_t k = 0; k < n; k++)
			tl_array_push(&ids, tl_queryset__literal(qs, p->kind == TL_PRED_EQ ? p->string : p->strings.items[k],
								 false));
		tl_array_push(&qs->ranges, ids);
	}
	rp->range_count = qs->ranges.size - rp->range_from;
}

/* Node types some fields belong to alone, in the Python grammar
 * (node-types.json; tests/unit/test_queryset.c checks it). */
static const struct {
	const char *type, *fields[3];
} tl_queryset__own_fields[] = {
	{ "attribute", { "object", "attribute", NULL } },
	{ "call", { "function", "arguments", NULL } },
};

/* The shape as compiled: a node below the root whose first child names a
 * field only its type has is written as a wildcard. It matches the same
 * nodes, and tree-sitter does not analyse a wildcard against the grammar
 * when it compiles the query (about a millisecond per node with children;
 * measured in bench/README.md). The root keeps its type: a wildcard root
 * would be tried at every node of every file. */
char *tl_queryset_cheap_shape(const char *shape)
{
	TlBuf b;
	tl_buf_init(&b);
	const char *p = shape;
	bool root = true;
	while (*p) {
		bool done = false, node = *p == '(' && p[1] != '(' && p[1] != '[' && p[1] != '#';
		for (size_t t = 0; node && !root && !done && t < sizeof tl_queryset__own_fields / sizeof *tl_queryset__own_fields; t++) {
			size_t tl = strlen(tl_queryset__own_fields[t].type);
			if (strncmp(p + 1, tl_queryset__own_fields[t].type, tl) != 0 || p[1 + tl] != ' ')
				continue;
			for (int f = 0; !done && tl_queryset__own_fields[t].fields[f]; f++) {
				const char *field = tl_queryset__own_fields[t].fields[f];
				size_t fl = strlen(field);
				if (strncmp(p + 2 + tl, field, fl) == 0 && p[2 + tl + fl] == ':') {
					tl_buf_add(&b, "(_ ");
					p += 2 + tl;
					done = true;
				}
			}
		}
		root = root && !node;
		if (!done)
			tl_buf_addc(&b, *p++);
	}
	return tl_buf_detach(&b);
}

static uint32_t tl_queryset__shape(TlQuerySet *qs, const char *text)
{
	char *shape = tl_queryset_cheap_shape(text);
	for (uint32_t i = 0; i < qs->shapes.size; i++)
		if (strcmp(qs->shapes.items[i], shape) == 0) {
			tl_free(shape);
			return i;
		}
	tl_array_push(&qs->shapes, shape);
	/* Compilation costs per node with children (tree-sitter analyses each
	 * against the grammar); '(' counts nodes, a close right after one is a
	 * leaf, a wildcard is not analysed. */
	uint32_t cost = 1;
	for (const char *p = shape; *p; p++)
		if (*p == '(' && p[1] != '_')
			cost++;
	for (const char *p = shape; *p; p++)
		if (*p == ')' && p > shape && p[-1] != ')')
			cost -= cost > 1;
	tl_array_push(&qs->shape_cost, cost);
	uint8_t *roots = tl_calloc(TL_QEXEC_ROOTS_BYTES, 1);
	if (!tl_qexec_text_roots(tl_python_language(), shape, (uint32_t)strlen(shape), roots)) {
		tl_free(roots);
		roots = NULL;
	}
	tl_array_push(&qs->shape_roots, roots);
	TlU32Array list;
	tl_array_init(&list);
	for (uint32_t byte = 0; roots && byte < TL_QEXEC_ROOTS_BYTES; byte++)
		for (uint32_t bit = 0; roots[byte] && bit < 8; bit++)
			if ((roots[byte] >> bit) & 1)
				tl_array_push(&list, byte * 8 + bit);
	tl_array_push(&qs->shape_root_list, list);
	uint32_t plan = tl_prechecks_add_shape(&qs->prechecks, tl_python_language(), shape);
	tl_array_push(&qs->shape_lazy, !qs->prechecks.shapes.items[plan].native &&
					       tl_qexec_text_local(shape, (uint32_t)strlen(shape)));
	TlU32Array none;
	tl_array_init(&none);
	tl_array_push(&qs->shape_patterns, none);
	return qs->shapes.size - 1;
}

/* The modules whose names the facts layer knows as the PyTorch ecosystem:
 * a file that imports none of them and holds no rule literal is not
 * analysed by the built-in rules' patterns without literal needs (they are
 * about PyTorch training code). Rules from --rules-dir are not gated. */
static const char *const tl_queryset__ecosystem_names[] = {
	"torch", "torchvision", "lightning", "pytorch_lightning", "transformers", "timm", "peft", NULL,
};

static void tl_queryset__release_part(TlQueryPart *part);
static void tl_queryset__free_group(TlQueryGroup *g);

TlQuerySet *tl_queryset_new(const TlRuleSet *rules)
{
	TlQuerySet *qs = tl_calloc(1, sizeof *qs);
	qs->rules = rules;
	tl_array_init(&qs->patterns);
	tl_array_init(&qs->shapes);
	tl_array_init(&qs->shape_cost);
	tl_array_init(&qs->shape_patterns);
	tl_array_init(&qs->shape_roots);
	tl_array_init(&qs->shape_root_list);
	tl_array_init(&qs->shape_lazy);
	tl_prechecks_init(&qs->prechecks);
	tl_array_init(&qs->needs);
	tl_array_init(&qs->literals);
	tl_array_init(&qs->ranges);
	for (uint32_t r = 0; r < rules->rules.size; r++) {
		const TlRule *rule = rules->rules.items[r];
		for (uint32_t p = 0; p < rule->text.size; p++) {
			const TlQPattern *qp = &rule->text.items[p];
			TlRulePattern rp;
			memset(&rp, 0, sizeof rp);
			rp.rule = rule;
			rp.rule_index = r;
			rp.pattern = p;
			rp.text = qp;
			rp.finding = tl_qtext_capture(qp, "finding", 7);
			rp.shape = tl_queryset__shape(qs, qp->shape);
			rp.precheck = tl_prechecks_add(&qs->prechecks, tl_python_language(), qp->shape,
						       &rule->patterns.items[p]);
			rp.need_from = qs->needs.size;
			rp.need_count = qp->needs.size;
			for (uint32_t n = 0; n < qp->needs.size; n++) {
				TlU32Array ids;
				tl_array_init(&ids);
				for (uint32_t k = 0; k < qp->needs.items[n].any.size; k++)
					tl_array_push(&ids, tl_queryset__literal(qs, qp->needs.items[n].any.items[k], true));
				tl_array_push(&qs->needs, ids);
			}
			tl_queryset__ranges(qs, &rp);
			tl_queryset__word_needs(qs, &rp);
			if (qp->capture_count > qs->max_captures)
				qs->max_captures = qp->capture_count;
			tl_array_push(&qs->patterns, rp);
			tl_array_push(&qs->shape_patterns.items[rp.shape], qs->patterns.size - 1);
		}
	}
	for (size_t i = 0; tl_queryset__ecosystem_names[i]; i++)
		tl_queryset__literal(qs, tl_queryset__ecosystem_names[i], true);
	uint32_t slots = 16;
	while (slots < 4 * qs->literals.size)
		slots *= 2;
	qs->word_slots = tl_calloc(slots, sizeof *qs->word_slots);
	qs->word_mask = slots - 1;
	for (uint32_t i = 0; i < qs->literals.size; i++) {
		const TlLiteral *l = &qs->literals.items[i];
		if (!l->word)
			continue;
		if (l->len > qs->word_max)
			qs->word_max = l->len;
		uint32_t h = tl_queryset__hash(l->text, l->len) & qs->word_mask;
		while (qs->word_slots[h])
			h = (h + 1) & qs->word_mask;
		qs->word_slots[h] = i + 1;
		qs->word_starts[(unsigned char)l->text[0]] |= tl_queryset__len_bit(l->len);
	}
	for (int c = 0; c < 256; c++)
		qs->word_char[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
				   c == '_';
	qs->words = (qs->patterns.size + 63) / 64;
	if (!qs->words)
		qs->words = 1;
	qs->max_groups = TL_QUERYSET_MAX_GROUPS;
	pthread_mutex_init(&qs->lock, NULL);
	pthread_cond_init(&qs->changed, NULL);
	return qs;
}

void tl_queryset_free(TlQuerySet *qs)
{
	if (!qs)
		return;
	for (TlQueryGroup *g = qs->groups, *next; g; g = next) {
		next = g->next;
		tl_queryset__free_group(g);
	}
	for (uint32_t i = 0; i < qs->shape_patterns.size; i++)
		tl_array_release(&qs->shape_patterns.items[i]);
	for (uint32_t i = 0; i < qs->shape_roots.size; i++) {
		tl_free(qs->shape_roots.items[i]);
		tl_array_release(&qs->shape_root_list.items[i]);
	}
	tl_array_release(&qs->shape_roots);
	tl_array_release(&qs->shape_root_list);
	for (uint32_t i = 0; qs->solo && i < qs->shapes.size; i++)
		if (qs->solo[i]) {
			tl_queryset__release_part(qs->solo[i]);
			tl_free(qs->solo[i]);
		}
	tl_free(qs->solo);
	tl_array_release(&qs->shape_lazy);
	tl_prechecks_release(&qs->prechecks);
	for (uint32_t i = 0; i < qs->needs.size; i++)
		tl_array_release(&qs->needs.items[i]);
	for (uint32_t i = 0; i < qs->ranges.size; i++)
		tl_array_release(&qs->ranges.items[i]);
	tl_array_release(&qs->ranges);
	tl_array_release(&qs->patterns);
	tl_str_array_release(&qs->shapes);
	tl_array_release(&qs->shape_cost);
	tl_array_release(&qs->shape_patterns);
	tl_array_release(&qs->needs);
	tl_array_release(&qs->literals);
	tl_free(qs->word_slots);
	pthread_mutex_destroy(&qs->lock);
	pthread_cond_destroy(&qs->changed);
	tl_free(qs);
}

uint32_t tl_queryset_count(const TlQuerySet *qs)
{
	return qs->patterns.size;
}

const TlRulePattern *tl_queryset_pattern(const TlQuerySet *qs, uint32_t i)
{
	return &qs->patterns.items[i];
}

const uint32_t *tl_queryset_shape_patterns(const TlQuerySet *qs, uint32_t shape, uint32_t *count)
{
	*count = qs->shape_patterns.items[shape].size;
	return qs->shape_patterns.items[shape].items;
}

bool tl_queryset_roots(const TlQuerySet *qs, const uint64_t *key, uint8_t *out)
{
	memset(out, 0, TL_QEXEC_ROOTS_BYTES);
	for (uint32_t i = 0; i < qs->patterns.size; i++) {
		if (!tl_bit(key, i))
			continue;
		uint32_t shape = qs->patterns.items[i].shape;
		if (!qs->shape_roots.items[shape])
			return false;
		const TlU32Array *list = &qs->shape_root_list.items[shape];
		for (uint32_t k = 0; k < list->size; k++)
			out[list->items[k] >> 3] |= (uint8_t)(1u << (list->items[k] & 7));
	}
	return true;
}

const TlPrechecks *tl_queryset_prechecks(const TlQuerySet *qs)
{
	return &qs->prechecks;
}

uint32_t tl_queryset_words(const TlQuerySet *qs)
{
	return qs->words;
}

/* ---- the pre-filter ----------------------------------------------------------------- */

/* Marks the word literal `s` (at byte `at` of the text; `hash`: its
 * tl_queryset__hash) found, and its position in `hits` when wanted there. */
static void tl_queryset__mark_word(const TlQuerySet *qs, const char *s, uint32_t len, uint32_t hash,
				   bool *found, TlQueryHits *hits, uint32_t at)
{
	uint32_t h = hash & qs->word_mask;
	for (uint32_t id; (id = qs->word_slots[h]); h = (h + 1) & qs->word_mask) {
		const TlLiteral *l = &qs->literals.items[id - 1];
		if (l->len == len && memcmp(l->text, s, len) == 0) {
			found[id - 1] = true;
			if (hits && l->ranged)
				tl_array_push(&hits->pairs, (uint64_t)(id - 1) << 32 | at);
			if (hits && l->located)
				tl_array_push(&hits->words, (uint64_t)(id - 1) << 32 | at);
			return;
		}
	}
}

/* Marks the word literals that `text` holds as a node's whole text could:
 * a maximal run of word characters, or, after a backslash (an escape
 * sequence ends inside the run) or a leading digit, any tail of the run. */
static void tl_queryset__scan_words(const TlQuerySet *qs, const char *text, size_t len, bool *found,
				    TlQueryHits *hits)
{
	const bool *wc = qs->word_char;
	const unsigned char *t = (const unsigned char *)text;
	size_t i = 0;
	while (i < len) {
		if (!wc[t[i]]) {
			i++;
			continue;
		}
		/* The run; looked up when a word literal of its length starts
		 * with its first letter. */
		size_t start = i;
		while (i < len && wc[t[i]])
			i++;
		if (i - start <= qs->word_max && (qs->word_starts[t[start]] & tl_queryset__len_bit(i - start)))
			tl_queryset__mark_word(qs, text + start, (uint32_t)(i - start),
					       tl_queryset__hash(text + start, (uint32_t)(i - start)), found, hits,
					       (uint32_t)start);
		bool tails = (start > 0 && text[start - 1] == '\\') || (text[start] >= '0' && text[start] <= '9');
		for (size_t k = start + 1; tails && k < i; k++)
			if (i - k <= qs->word_max && (qs->word_starts[t[k]] & tl_queryset__len_bit(i - k)))
				tl_queryset__mark_word(qs, text + k, (uint32_t)(i - k),
						       tl_queryset__hash(text + k, (uint32_t)(i - k)), found, hits,
						       (uint32_t)k);
	}
}

TlQueryHits *tl_queryset_hits_new(void)
{
	TlQueryHits *h = tl_calloc(1, sizeof *h);
	tl_array_init(&h->pairs);
	tl_array_init(&h->from);
	tl_array_init(&h->at);
	tl_array_init(&h->next);
	tl_array_init(&h->sorted);
	tl_array_init(&h->words);
	return h;
}

void tl_queryset_hits_free(TlQueryHits *hits)
{
	if (!hits)
		return;
	tl_array_release(&hits->pairs);
	tl_array_release(&hits->from);
	tl_array_release(&hits->at);
	tl_array_release(&hits->next);
	tl_array_release(&hits->sorted);
	tl_array_release(&hits->words);
	tl_free(hits);
}

static int tl_queryset__cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Groups hits->pairs by literal into hits->from / hits->at (a stable
 * counting sort: each literal's offsets stay ascending). */
static void tl_queryset__group_hits(const TlQuerySet *qs, TlQueryHits *hits)
{
	uint32_t n = qs->literals.size;
	tl_array_clear(&hits->from);
	for (uint32_t i = 0; i <= n; i++)
		tl_array_push(&hits->from, 0);
	for (uint32_t i = 0; i < hits->pairs.size; i++)
		hits->from.items[(hits->pairs.items[i] >> 32) + 1]++;
	for (uint32_t i = 0; i < n; i++)
		hits->from.items[i + 1] += hits->from.items[i];
	tl_array_reserve(&hits->at, hits->pairs.size + 1);
	hits->at.size = hits->pairs.size;
	/* from[l] advances as literal l's offsets are placed, then is restored. */
	for (uint32_t i = 0; i < hits->pairs.size; i++) {
		uint32_t l = (uint32_t)(hits->pairs.items[i] >> 32);
		hits->at.items[hits->from.items[l]++] = (uint32_t)hits->pairs.items[i];
	}
	for (uint32_t i = n; i > 0; i--)
		hits->from.items[i] = hits->from.items[i - 1];
	hits->from.items[0] = 0;
	tl_array_clear(&hits->next);
	for (uint32_t i = 0; i < n; i++)
		tl_array_push(&hits->next, hits->from.items[i]);
	hits->last_start = 0;
	/* `pairs` is in text order per kind of literal (words, then each
	 * other literal's offsets): merged by a sort of the offsets. */
	tl_array_clear(&hits->sorted);
	tl_array_reserve(&hits->sorted, hits->pairs.size + 1);
	hits->sorted.size = hits->pairs.size;
	for (uint32_t i = 0; i < hits->pairs.size; i++)
		hits->sorted.items[i] = (uint32_t)hits->pairs.items[i];
	bool ascending = true;
	for (uint32_t i = 1; i < hits->sorted.size && ascending; i++)
		ascending = hits->sorted.items[i - 1] <= hits->sorted.items[i];
	if (!ascending)
		qsort(hits->sorted.items, hits->sorted.size, sizeof *hits->sorted.items, tl_queryset__cmp_u32);
	hits->any_next = hits->any_start = 0;
	hits->filled = true;
}

/* memmem for the short literals of the pre-filter ("+=", "**"): glibc's
 * memmem reads the text byte by byte; memchr finds each candidate first
 * byte with vector loads. */
static const char *tl_queryset__find(const char *text, size_t len, const char *lit, size_t n)
{
	if (!n || n > len)
		return n ? NULL : text;
	const char *end = text + len - n + 1;
	for (const char *p = text; p < end; p++) {
		p = memchr(p, lit[0], (size_t)(end - p));
		if (!p)
			return NULL;
		if (memcmp(p + 1, lit + 1, n - 1) == 0)
			return p;
	}
	return NULL;
}

uint32_t tl_queryset_filter(const TlQuerySet *qs, const bool *rule_on, const char *text,
			    size_t len, uint64_t *pass, uint64_t *all, TlQueryHits *hits,
			    const TlGateAsk *ask)
{
	if (hits) {
		hits->filled = false;
		tl_array_clear(&hits->pairs);
		tl_array_clear(&hits->words);
	}
	/* Offsets are 32-bit (so are tree-sitter's). */
	if (len > UINT32_MAX)
		hits = NULL;
	memset(pass, 0, qs->words * sizeof *pass);
	if (all)
		memset(all, 0, qs->words * sizeof *all);
	bool any_on = false;
	for (uint32_t i = 0; i < qs->patterns.size && !any_on; i++)
		any_on = qs->patterns.items[i].finding >= 0 && rule_on[qs->patterns.items[i].rule_index];
	if (!any_on)
		return 0;
	bool *found = tl_calloc(qs->literals.size, sizeof *found);
	tl_queryset__scan_words(qs, text, len, found, hits);
	/* The gate for patterns without needs: any literal need or an
	 * ecosystem module's name. */
	bool gate = false;
	for (uint32_t i = 0; i < qs->literals.size; i++) {
		const TlLiteral *l = &qs->literals.items[i];
		if (!l->word && (l->gate || hits)) {
			const char *at = tl_queryset__find(text, len, l->text, l->len);
			found[i] = at != NULL;
			for (; hits && l->ranged && at;
			     at = tl_queryset__find(at + 1, len - (size_t)(at + 1 - text), l->text, l->len))
				tl_array_push(&hits->pairs, (uint64_t)i << 32 | (uint32_t)(at - text));
		}
		gate = gate || (found[i] && l->gate);
	}
	if (hits)
		tl_queryset__group_hits(qs, hits);
	/* Closed: the file's project may still bring PyTorch in, when some
	 * pattern on waits for the gate alone. */
	for (uint32_t i = 0; !gate && ask && i < qs->patterns.size; i++) {
		const TlRulePattern *rp = &qs->patterns.items[i];
		if (rp->finding >= 0 && rule_on[rp->rule_index] && !rp->need_count && rp->rule->embedded) {
			gate = ask->imports(ask->ctx, tl_queryset__ecosystem_names);
			break;
		}
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < qs->patterns.size; i++) {
		const TlRulePattern *rp = &qs->patterns.items[i];
		if (rp->finding < 0 || !rule_on[rp->rule_index])
			continue;
		if (all)
			all[i >> 6] |= (uint64_t)1 << (i & 63);
		bool ok = rp->need_count > 0 || gate || !rp->rule->embedded;
		for (uint32_t k = 0; k < rp->need_count && ok; k++) {
			const TlU32Array *ids = &qs->needs.items[rp->need_from + k];
			ok = false;
			for (uint32_t j = 0; j < ids->size && !ok; j++)
				ok = found[ids->items[j]];
		}
		for (uint32_t k = 0; k < rp->word_need_count && ok; k++) {
			const TlU32Array *ids = &qs->needs.items[rp->word_need_from + k];
			ok = false;
			for (uint32_t j = 0; j < ids->size && !ok; j++)
				ok = found[ids->items[j]];
		}
		if (ok) {
			pass[i >> 6] |= (uint64_t)1 << (i & 63);
			n++;
		}
	}
	tl_free(found);
	return n;
}

uint32_t tl_queryset_word_offsets(const TlQuerySet *qs, const TlQueryHits *hits, const char *word,
				  size_t len, uint32_t *out, uint32_t cap)
{
	if (!hits || !hits->filled || !len || len > UINT32_MAX)
		return UINT32_MAX;
	uint32_t id = 0, h = tl_queryset__hash(word, (uint32_t)len) & qs->word_mask;
	for (uint32_t k; !id && (k = qs->word_slots[h]); h = (h + 1) & qs->word_mask) {
		const TlLiteral *l = &qs->literals.items[k - 1];
		if (l->len == len && memcmp(l->text, word, len) == 0)
			id = k;
	}
	if (!id || !qs->literals.items[id - 1].located)
		return UINT32_MAX;
	uint32_t n = 0;
	for (uint32_t i = 0; i < hits->words.size; i++)
		if ((uint32_t)(hits->words.items[i] >> 32) == id - 1) {
			if (n < cap)
				out[n] = (uint32_t)hits->words.items[i];
			n++;
		}
	return n;
}

bool tl_queryset_any_in_range(TlQueryHits *hits, uint32_t start, uint32_t end)
{
	if (!hits || !hits->filled)
		return true;
	if (start < hits->any_start)
		hits->any_next = 0;
	hits->any_start = start;
	uint32_t at = hits->any_next, n = hits->sorted.size;
	while (at < n && hits->sorted.items[at] < start)
		at++;
	hits->any_next = at;
	return at < n && hits->sorted.items[at] < end;
}

bool tl_queryset_in_range(const TlQuerySet *qs, TlQueryHits *hits, uint32_t rp, uint32_t start,
			  uint32_t end)
{
	if (!hits || !hits->filled)
		return true;
	if (start < hits->last_start)
		for (uint32_t i = 0; i < hits->next.size; i++)
			hits->next.items[i] = hits->from.items[i];
	hits->last_start = start;
	const TlRulePattern *p = &qs->patterns.items[rp];
	for (uint32_t t = 0; t < p->range_count; t++) {
		const TlU32Array *ids = &qs->ranges.items[p->range_from + t];
		bool held = false;
		for (uint32_t k = 0; k < ids->size && !held; k++) {
			uint32_t id = ids->items[k], len = qs->literals.items[id].len;
			/* The first offset at or after `start`. */
			uint32_t at = hits->next.items[id], last = hits->from.items[id + 1];
			while (at < last && hits->at.items[at] < start)
				at++;
			hits->next.items[id] = at;
			held = at < last && end >= start && end - start >= len && hits->at.items[at] <= end - len;
		}
		if (!held)
			return false;
	}
	return true;
}

/* ---- groups ----------------------------------------------------------------------- */

static bool tl_queryset__native(const TlQuerySet *qs, uint32_t shape)
{
	return qs->prechecks.shapes.items[shape].native;
}

static TlQueryPart *tl_queryset__natives_part(const TlU32Array *natives, uint32_t captures)
{
	TlQueryPart *n = tl_calloc(1, sizeof *n);
	tl_array_init(&n->shapes);
	for (uint32_t i = 0; i < natives->size; i++)
		tl_array_push(&n->shapes, natives->items[i]);
	/* Native matches name captures by their canonical index. */
	n->cid_count = captures;
	n->cid = tl_calloc(captures ? captures : 1, sizeof *n->cid);
	for (uint32_t k = 0; k < captures; k++)
		n->cid[k] = k;
	n->state = TL_PART_DONE;
	return n;
}

static TlQueryGroup *tl_queryset__create(TlQuerySet *qs, const uint64_t *key)
{
	TlQueryGroup *g = tl_calloc(1, sizeof *g);
	g->key = tl_calloc(qs->words, sizeof *g->key);
	memcpy(g->key, key, qs->words * sizeof *key);
	/* The shapes the key needs, in rule-pattern order: those tree-sitter
	 * compiles, and the native ones (precheck.h), which it does not. */
	TlU32Array shapes, natives, lazy;
	tl_array_init(&shapes);
	tl_array_init(&natives);
	tl_array_init(&lazy);
	bool *seen = tl_calloc(qs->shapes.size ? qs->shapes.size : 1, sizeof *seen);
	uint32_t total = 0;
	for (uint32_t i = 0; i < qs->patterns.size; i++) {
		uint32_t s = qs->patterns.items[i].shape;
		if (!tl_bit(key, i) || seen[s])
			continue;
		seen[s] = true;
		if (tl_queryset__native(qs, s)) {
			tl_array_push(&natives, s);
		} else if (qs->shape_lazy.items[s]) {
			tl_array_push(&lazy, s);
		} else {
			tl_array_push(&shapes, s);
			total += qs->shape_cost.items[s];
		}
	}
	tl_free(seen);
	uint32_t parts = 1 + qs->helpers;
	if (parts > shapes.size)
		parts = shapes.size ? shapes.size : 1;
	g->part_count = parts;
	g->parts = tl_calloc(parts, sizeof *g->parts);
	for (uint32_t p = 0; p < parts; p++) {
		tl_array_init(&g->parts[p].shapes);
		tl_array_init(&g->parts[p].lazy);
		g->parts[p].state = TL_PART_PENDING;
	}
	/* Consecutive runs of about equal cost. */
	uint32_t p = 0, acc = 0;
	for (uint32_t i = 0; i < shapes.size; i++) {
		uint32_t c = qs->shape_cost.items[shapes.items[i]];
		if (p + 1 < parts && acc > 0 && (acc + c / 2) * parts > total * (p + 1))
			p++;
		acc += c;
		tl_array_push(&g->parts[p].shapes, shapes.items[i]);
	}
	/* The native shapes and those compiled when needed run with the first
	 * part's walk. */
	if (natives.size)
		g->parts[0].natives = tl_queryset__natives_part(&natives, qs->max_captures);
	for (uint32_t i = 0; i < lazy.size; i++)
		tl_array_push(&g->parts[0].lazy, lazy.items[i]);
	tl_array_release(&shapes);
	tl_array_release(&natives);
	tl_array_release(&lazy);
	g->next = qs->groups;
	qs->groups = g;
	qs->group_count++;
	return g;
}

static void tl_queryset__free_group(TlQueryGroup *g)
{
	for (uint32_t i = 0; i < g->part_count; i++)
		tl_queryset__release_part(&g->parts[i]);
	tl_free(g->parts);
	tl_free(g->key);
	tl_free(g);
}

/* Frees the least recently used groups that nobody holds nor compiles
 * until at most qs->max_groups are left (or none can go). With the lock. */
static void tl_queryset__evict(TlQuerySet *qs)
{
	while (qs->group_count > qs->max_groups) {
		TlQueryGroup **victim = NULL;
		for (TlQueryGroup **at = &qs->groups; *at; at = &(*at)->next) {
			const TlQueryGroup *g = *at;
			bool busy = g->users > 0;
			for (uint32_t i = 0; i < g->part_count && !busy; i++)
				busy = g->parts[i].state == TL_PART_COMPILING;
			if (!busy && (!victim || g->used < (*victim)->used))
				victim = at;
		}
		if (!victim)
			return;
		TlQueryGroup *g = *victim;
		*victim = g->next;
		tl_queryset__free_group(g);
		qs->group_count--;
	}
}

static void tl_queryset__release_part(TlQueryPart *part)
{
	if (part->query)
		ts_query_delete(part->query);
	if (part->global)
		ts_query_delete(part->global);
	tl_array_release(&part->shapes);
	tl_array_release(&part->lazy);
	tl_free(part->cid);
	tl_free(part->roots);
	tl_free(part->at_from);
	tl_free(part->at);
	if (part->natives) {
		tl_queryset__release_part(part->natives);
		tl_free(part->natives);
	}
	if (part->fallback) {
		tl_queryset__release_part(part->fallback);
		tl_free(part->fallback);
	}
}

/* Fills part->at_* and part->roots: per node symbol, the shapes the part
 * runs node by node from such a node (its query's local patterns, and its
 * native shapes), and the symbols any of them starts at. */
static void tl_queryset__at(const TlQuerySet *qs, TlQueryPart *part, const char *text, uint32_t len)
{
	const TSLanguage *lang = tl_python_language();
	uint32_t slots = ts_language_symbol_count(lang) + 1;
	part->at_slots = slots;
	part->at_from = tl_calloc(slots + 1, sizeof *part->at_from);
	TlU32Array run; /* the shapes: local patterns of the query, then the natives */
	tl_array_init(&run);
	for (uint32_t p = 0; part->query && p < part->shapes.size; p++)
		if (tl_qexec_pattern_local(part->query, p, text, len))
			tl_array_push(&run, part->shapes.items[p]);
	for (uint32_t i = 0; i < part->lazy.size; i++)
		tl_array_push(&run, part->lazy.items[i]);
	for (uint32_t i = 0; part->natives && i < part->natives->shapes.size; i++)
		tl_array_push(&run, part->natives->shapes.items[i]);
	part->roots = tl_calloc(TL_QEXEC_ROOTS_BYTES, 1);
	for (uint32_t i = 0; i < run.size && part->roots; i++) {
		const uint8_t *r = qs->shape_roots.items[run.items[i]];
		if (!r) {
			tl_free(part->roots);
			part->roots = NULL;
			break;
		}
		for (uint32_t b = 0; b < TL_QEXEC_ROOTS_BYTES; b++)
			part->roots[b] |= r[b];
	}
	TlU32Array at;
	tl_array_init(&at);
	for (uint32_t s = 0; s < slots; s++) {
		TSSymbol sym = s + 1 < slots ? (TSSymbol)s : (TSSymbol)-1;
		part->at_from[s] = at.size;
		for (uint32_t i = 0; i < run.size; i++) {
			const uint8_t *r = qs->shape_roots.items[run.items[i]];
			if (!r || ((r[sym >> 3] >> (sym & 7)) & 1))
				tl_array_push(&at, run.items[i]);
		}
	}
	part->at_from[slots] = at.size;
	part->at = at.items; /* owned by the part now */
	tl_array_release(&run);
}

/* Compiles part->shapes into part->query (NULL when it has none, or
 * part->failed set when they do not compile) and maps its captures. */
static void tl_queryset__compile_query(TlQuerySet *qs, TlQueryPart *part, TlBuf *text)
{
	for (uint32_t i = 0; i < part->shapes.size; i++) {
		tl_buf_add(text, qs->shapes.items[part->shapes.items[i]]);
		tl_buf_addc(text, '\n');
	}
	part->cid_count = qs->max_captures;
	part->cid = tl_calloc(part->cid_count ? part->cid_count : 1, sizeof *part->cid);
	for (uint32_t k = 0; k < part->cid_count; k++)
		part->cid[k] = UINT32_MAX;
	if (!text->len)
		return;
	uint32_t offset;
	TSQueryError err;
	part->query = ts_query_new(tl_python_language(), text->data, (uint32_t)text->len, &offset, &err);
	if (!part->query) {
		part->failed = true;
		pthread_mutex_lock(&qs->lock);
		if (!qs->reported) {
			/* The embedded rules compile (tests/unit/test_rules.c); a rule
			 * from --rules-dir was compiled alone when it was loaded. */
			fprintf(stderr, "torchlint: internal error: the rules' queries do not compile together "
					"(error %d at byte %u of \"%.*s\"); their findings are missing\n",
				(int)err, offset, (int)(text->len - 1), text->data);
			qs->reported = true;
		}
		pthread_mutex_unlock(&qs->lock);
		return;
	}
	for (uint32_t id = 0; id < ts_query_capture_count(part->query); id++) {
		uint32_t len;
		const char *name = ts_query_capture_name_for_id(part->query, id, &len);
		char *end;
		unsigned long k = len > 1 && name[0] == 'c' ? strtoul(name + 1, &end, 10) : ULONG_MAX;
		if (k < part->cid_count)
			part->cid[k] = id;
	}
}

/* Compiles one part (without the lock). */
static void tl_queryset__compile(TlQuerySet *qs, TlQueryPart *part)
{
	uint64_t t = tl_timings_start();
	TlBuf text;
	tl_buf_init(&text);
	tl_queryset__compile_query(qs, part, &text);
	/* Patterns that cannot run node by node get a query of their own. */
	if (part->query)
		part->global = tl_qexec_split(part->query, tl_python_language(), text.data,
					      (uint32_t)text.len);
	if (!part->failed)
		tl_queryset__at(qs, part, text.data, (uint32_t)text.len);
	tl_buf_release(&text);
	tl_timings_add(TL_PHASE_COMPILE, t);
}

const TlQueryPart *tl_queryset_fallback(TlQuerySet *qs, const TlQueryPart *part)
{
	TlQueryPart *natives = part->natives;
	pthread_mutex_lock(&qs->lock);
	TlQueryPart *fb = natives->fallback;
	if (!fb) {
		/* Rare (a field holding two nodes): compiled once, under the lock. */
		uint64_t t = tl_timings_start();
		fb = tl_calloc(1, sizeof *fb);
		tl_array_init(&fb->shapes);
		for (uint32_t i = 0; i < natives->shapes.size; i++)
			tl_array_push(&fb->shapes, natives->shapes.items[i]);
		TlBuf text;
		tl_buf_init(&text);
		pthread_mutex_unlock(&qs->lock);
		tl_queryset__compile_query(qs, fb, &text);
		pthread_mutex_lock(&qs->lock);
		tl_buf_release(&text);
		fb->state = TL_PART_DONE;
		if (natives->fallback) { /* another thread was quicker */
			tl_queryset__release_part(fb);
			tl_free(fb);
		} else {
			natives->fallback = fb;
		}
		fb = natives->fallback;
		tl_timings_add(TL_PHASE_COMPILE, t);
	}
	pthread_mutex_unlock(&qs->lock);
	return fb;
}

bool tl_queryset_shape_lazy(const TlQuerySet *qs, uint32_t shape)
{
	return shape < qs->shape_lazy.size && qs->shape_lazy.items[shape];
}

const TlQueryPart *tl_queryset_solo(TlQuerySet *qs, uint32_t shape)
{
	pthread_mutex_lock(&qs->lock);
	if (!qs->solo)
		qs->solo = tl_calloc(qs->shapes.size ? qs->shapes.size : 1, sizeof *qs->solo);
	TlQueryPart *part = qs->solo[shape];
	if (!part) {
		/* Compiled once, outside the lock (another thread may compile it
		 * too: the first one kept). */
		pthread_mutex_unlock(&qs->lock);
		uint64_t t = tl_timings_start();
		part = tl_calloc(1, sizeof *part);
		tl_array_init(&part->shapes);
		tl_array_init(&part->lazy);
		tl_array_push(&part->shapes, shape);
		TlBuf text;
		tl_buf_init(&text);
		tl_queryset__compile_query(qs, part, &text);
		tl_buf_release(&text);
		part->state = TL_PART_DONE;
		tl_timings_add(TL_PHASE_COMPILE, t);
		pthread_mutex_lock(&qs->lock);
		if (qs->solo[shape]) {
			tl_queryset__release_part(part);
			tl_free(part);
		} else {
			qs->solo[shape] = part;
		}
		part = qs->solo[shape];
	}
	pthread_mutex_unlock(&qs->lock);
	return part;
}

/* Claims a pending part of `g` and compiles it; false when none is pending.
 * Called and returns with the lock held. */
static bool tl_queryset__work(TlQuerySet *qs, TlQueryGroup *g)
{
	for (uint32_t i = 0; i < g->part_count; i++) {
		TlQueryPart *part = &g->parts[i];
		if (part->state != TL_PART_PENDING)
			continue;
		part->state = TL_PART_COMPILING;
		pthread_mutex_unlock(&qs->lock);
		tl_queryset__compile(qs, part);
		pthread_mutex_lock(&qs->lock);
		part->state = TL_PART_DONE;
		pthread_cond_broadcast(&qs->changed);
		return true;
	}
	return false;
}

const TlQueryGroup *tl_queryset_group(TlQuerySet *qs, const uint64_t *key, bool wait)
{
	pthread_mutex_lock(&qs->lock);
	TlQueryGroup *g = qs->groups;
	while (g && memcmp(g->key, key, qs->words * sizeof *key) != 0)
		g = g->next;
	bool created = !g;
	if (created) {
		g = tl_queryset__create(qs, key);
		pthread_cond_broadcast(&qs->changed);
	}
	g->used = ++qs->clock;
	if (wait)
		g->users++; /* held: not evicted while in use */
	if (created)
		tl_queryset__evict(qs);
	if (!wait) {
		pthread_mutex_unlock(&qs->lock);
		return NULL;
	}
	for (;;) {
		if (tl_queryset__work(qs, g))
			continue;
		bool done = true;
		for (uint32_t i = 0; i < g->part_count; i++)
			done = done && g->parts[i].state == TL_PART_DONE;
		if (done)
			break;
		pthread_cond_wait(&qs->changed, &qs->lock);
	}
	pthread_mutex_unlock(&qs->lock);
	return g;
}

void tl_queryset_done(TlQuerySet *qs, const TlQueryGroup *group)
{
	pthread_mutex_lock(&qs->lock);
	((TlQueryGroup *)group)->users--;
	tl_queryset__evict(qs);
	pthread_mutex_unlock(&qs->lock);
}

uint32_t tl_queryset_group_count(TlQuerySet *qs)
{
	pthread_mutex_lock(&qs->lock);
	uint32_t n = qs->group_count;
	pthread_mutex_unlock(&qs->lock);
	return n;
}

void tl_queryset_set_max_groups(TlQuerySet *qs, uint32_t n)
{
	pthread_mutex_lock(&qs->lock);
	qs->max_groups = n ? n : 1;
	tl_queryset__evict(qs);
	pthread_mutex_unlock(&qs->lock);
}

void tl_queryset_add_helpers(TlQuerySet *qs, unsigned n)
{
	pthread_mutex_lock(&qs->lock);
	qs->helpers += n;
	pthread_mutex_unlock(&qs->lock);
}

void tl_queryset_help(TlQuerySet *qs)
{
	pthread_mutex_lock(&qs->lock);
	for (;;) {
		bool worked = false;
		for (TlQueryGroup *g = qs->groups; g && !worked; g = g->next)
			worked = tl_queryset__work(qs, g);
		if (worked)
			continue;
		if (qs->stop)
			break;
		pthread_cond_wait(&qs->changed, &qs->lock);
	}
	pthread_mutex_unlock(&qs->lock);
}

void tl_queryset_stop(TlQuerySet *qs)
{
	pthread_mutex_lock(&qs->lock);
	qs->stop = true;
	pthread_cond_broadcast(&qs->changed);
	pthread_mutex_unlock(&qs->lock);
}
