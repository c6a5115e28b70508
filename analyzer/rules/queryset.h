/* The compiled queries of a rule set, built when a file first needs them.
 *
 * Every pattern of every rule with a query is a *rule pattern*, numbered in
 * rule order. Rule patterns with the same shape (qtext.h) share one pattern
 * of a compiled query; each keeps its own predicates and capture names.
 *
 * Per file, tl_queryset_filter decides which rule patterns can match at all:
 * the rule is selected and the file's text holds the pattern's literal needs;
 * a built-in pattern without needs, when the text holds any rule's literal
 * or the name of a PyTorch-ecosystem module the facts layer knows (torch,
 * torchvision, lightning, pytorch_lightning, transformers, timm, peft).
 * A *group* is the compiled form of a set of rule patterns: one or more
 * tree-sitter queries (parts) that together hold each needed shape once,
 * but for the shapes matched natively (precheck.h) and the local shapes
 * compiled each alone when a node first needs one (TlQueryPart.lazy:
 * over Debian's torch sources, 2 of 31). Groups are compiled on first use; the parts of a new group are compiled
 * by the threads that need it and by helper threads (tl_queryset_help), so
 * two cores compile at once. At most TL_QUERYSET_MAX_GROUPS groups are
 * kept (a language server meets a new combination of passing patterns with
 * many edits): past that, the least recently used group that no thread
 * holds is freed, and compiled again if asked for again.
 *
 * Thread-safety: everything may be called from any thread; a group, once
 * returned by tl_queryset_group, is read-only and lives until the caller
 * gives it back with tl_queryset_done. */
#ifndef TL_QUERYSET_H
#define TL_QUERYSET_H

#include <stdbool.h>
#include <stdint.h>

#include <tree_sitter/api.h>

#include "rules/precheck.h"
#include "rules/qtext.h"

struct TlRule;
struct TlRuleSet;

/* One pattern of one rule. */
typedef struct TlRulePattern {
	const struct TlRule *rule;
	uint32_t rule_index;     /* in the rule set */
	uint32_t pattern;        /* in the rule's query */
	uint32_t shape;          /* shared by rule patterns with the same shape */
	const TlQPattern *text;  /* borrowed from the rule */
	int32_t finding;         /* canonical index of @finding; -1: none (never reports) */
	uint32_t need_from, need_count; /* its literal needs in the set's need table */
	/* The identifiers its semantic predicates need (tl_predicate_words),
	 * in the same table: like literal needs, but they open no gate. */
	uint32_t word_need_from, word_need_count;
	uint32_t precheck;       /* its checks in tl_queryset_prechecks */
	uint32_t range_from, range_count; /* its string tests' literals (tl_queryset_in_range) */
} TlRulePattern;

/* One compiled tree-sitter query of a group, and what runs with it. */
typedef struct TlQueryPart {
	TSQuery *query;          /* its local patterns only (qexec.h); NULL when it has
				  * no shape to compile, or they failed to (`failed`) */
	TSQuery *global;         /* the same text with only its global patterns, or NULL */
	TlArray(uint32_t) shapes; /* per pattern of `query`: its shape */
	uint32_t *cid;           /* canonical capture k -> capture id of "c<k>", or UINT32_MAX */
	uint32_t cid_count;
	bool failed;             /* `query` did not compile (reported once): skip the part */
	/* The shapes matched natively with this part's walk (precheck.h): not
	 * compiled; a part with query NULL whose captures are canonical
	 * indices (cid[k] == k). NULL when none. */
	struct TlQueryPart *natives;
	/* natives only: the same shapes compiled, for the rare node where a
	 * native match is ambiguous (tl_queryset_fallback). */
	struct TlQueryPart *fallback;
	/* The shapes run with this part's walk that are compiled only when a
	 * node needs them, each alone (tl_queryset_solo): local ones
	 * (tl_qexec_text_local) that are not native. Most nodes' pre-checks
	 * fail, so most of them are never compiled. */
	TlArray(uint32_t) lazy;
	/* What the walk runs at a node: the symbols any shape starts at (a
	 * TL_QEXEC_ROOTS_BYTES bitmap; NULL: any node), and per node symbol
	 * (the last slot: ERROR and any symbol past the language's) the shapes
	 * (local patterns of `query` and natives) starting there:
	 * at[at_from[s] .. at_from[s + 1]). */
	uint8_t *roots;
	uint32_t *at_from, *at;
	uint32_t at_slots;
	int state;               /* private: pending, compiling, done */
} TlQueryPart;

/* Groups kept compiled at once (each holds its compiled queries: from tens
 * to hundreds of KiB): a file, or a language server's document, needs one
 * at a time; a tree with several configurations a few. */
#define TL_QUERYSET_MAX_GROUPS 16

typedef struct TlQueryGroup {
	uint64_t *key;           /* bitmap of rule patterns; private */
	TlQueryPart *parts;
	uint32_t part_count;
	uint32_t users;          /* private: threads holding it */
	uint64_t used;           /* private: when it was last asked for */
	struct TlQueryGroup *next; /* private */
} TlQueryGroup;

typedef struct TlQuerySet TlQuerySet;

/* Builds the rule-pattern and literal tables of `rules` (which must
 * outlive the set). No query is compiled here. */
TlQuerySet *tl_queryset_new(const struct TlRuleSet *rules);
void tl_queryset_free(TlQuerySet *qs);

uint32_t tl_queryset_count(const TlQuerySet *qs); /* rule patterns */
const TlRulePattern *tl_queryset_pattern(const TlQuerySet *qs, uint32_t i);
/* Rule patterns sharing shape `shape`, in rule-pattern order. */
const uint32_t *tl_queryset_shape_patterns(const TlQuerySet *qs, uint32_t shape, uint32_t *count);
/* Sets `out` (TL_QEXEC_ROOTS_BYTES) to the node symbols at which the
 * shapes of the rule patterns in `key` start; false when one may start at
 * any node. No query is compiled for this. */
bool tl_queryset_roots(const TlQuerySet *qs, const uint64_t *key, uint8_t *out);
/* The pre-checks of every rule pattern (TlRulePattern.precheck). */
const TlPrechecks *tl_queryset_prechecks(const TlQuerySet *qs);
/* The shapes part `part` runs at a node of symbol `sym` (its query's local
 * patterns and its natives); *count receives how many. */
static inline const uint32_t *tl_queryset_at(const TlQueryPart *part, TSSymbol sym, uint32_t *count)
{
	uint32_t s = sym < part->at_slots - 1 ? sym : part->at_slots - 1;
	*count = part->at_from[s + 1] - part->at_from[s];
	return part->at + part->at_from[s];
}
/* part->natives->fallback, compiled on first use (thread-safe). */
const TlQueryPart *tl_queryset_fallback(TlQuerySet *qs, const TlQueryPart *part);
/* True when `shape` is compiled alone when a node needs it (TlQueryPart.lazy). */
bool tl_queryset_shape_lazy(const TlQuerySet *qs, uint32_t shape);
/* The part holding `shape` alone, compiled on first use (thread-safe; its
 * query is NULL when it does not compile, reported once); kept until the
 * set is freed. */
const TlQueryPart *tl_queryset_solo(TlQuerySet *qs, uint32_t shape);
/* 64-bit words in a rule-pattern bitmap. */
uint32_t tl_queryset_words(const TlQuerySet *qs);

/* Where in a file the strings of the rule patterns' string tests occur:
 * per literal, the byte offsets at which a node whose whole text is that
 * literal could start (for a word: where the pre-filter finds it as a
 * word; else every occurrence), ascending. Filled by tl_queryset_filter;
 * one per thread (it is scratch space reused from file to file). */
typedef struct TlQueryHits TlQueryHits;
TlQueryHits *tl_queryset_hits_new(void);
void tl_queryset_hits_free(TlQueryHits *hits);

/* The file's imports, asked by the pre-filter when its text names no module
 * of the PyTorch ecosystem: `imports(ctx, names)` is true when the file
 * imports a module of its project that imports one of `names` (the
 * ecosystem's module names, NULL-terminated), as a training script does
 * that leaves every use of torch to its project's packages. */
typedef struct TlGateAsk {
	bool (*imports)(void *ctx, const char *const *names);
	void *ctx;
} TlGateAsk;

/* Sets `pass` (tl_queryset_words words) to the rule patterns that can match
 * `text`: rule_on[rule_index] and every literal need held by the text.
 * Returns how many pass. `all`, if not NULL, receives the rule patterns of
 * the selected rules regardless of the text. `hits`, if not NULL, receives
 * where the string tests' literals occur in `text` (tl_queryset_in_range).
 * `ask`, if not NULL, opens the gate of the patterns without literal needs
 * for a text that names no ecosystem module but imports one through its
 * project (TlGateAsk); asked only then. */
uint32_t tl_queryset_filter(const TlQuerySet *qs, const bool *rule_on, const char *text,
			    size_t len, uint64_t *pass, uint64_t *all, TlQueryHits *hits,
			    const TlGateAsk *ask);

/* A necessary condition for rule pattern `rp` to match at a node spanning
 * bytes [start, end) of the text `hits` was filled for: each of its
 * pre-checked string tests (precheck.h: a positive #eq? against a string,
 * or #any-of?, on a capture every match holds) compares a node inside that
 * span, so one of the test's strings occurs inside it. False when some
 * test's strings do not (then no match of `rp` there passes its
 * predicates); true otherwise, or when `hits` is NULL. No tree is read;
 * asked about spans in ascending order of `start` (as a pre-order walk
 * meets nodes), each literal's offsets are read once per text; asked
 * about an earlier start, they are read again from the first. */
bool tl_queryset_in_range(const TlQuerySet *qs, TlQueryHits *hits, uint32_t rp, uint32_t start,
			  uint32_t end);
/* False when no string test's literal occurs inside bytes [start, end)
 * (then tl_queryset_in_range is false for every rule pattern with string
 * tests there); true otherwise, or when `hits` is NULL. Asked in the same
 * order as tl_queryset_in_range, each offset is read once per text. */
bool tl_queryset_any_in_range(TlQueryHits *hits, uint32_t start, uint32_t end);
/* Where the text `hits` was last filled for holds `word` (`len` bytes) as
 * the pre-filter reads words (a maximal run of [A-Za-z0-9_], or a tail of
 * one after a backslash or a leading digit): its offsets, ascending, into
 * out[0..cap), returning how many there are (more than cap: the first cap
 * written). UINT32_MAX when not known: `word` is no identifier a checked
 * predicate needs (tl_predicate_words), or nothing was filled. */
uint32_t tl_queryset_word_offsets(const TlQuerySet *qs, const TlQueryHits *hits, const char *word,
				  size_t len, uint32_t *out, uint32_t cap);

/* The group for rule-pattern bitmap `key`: created (split in as many parts
 * as threads can compile it) if new; with `wait`, compiled (this thread
 * compiles the parts nobody has taken, then waits for the rest) and
 * returned, held until tl_queryset_done; without, only announced to the
 * helpers and NULL returned. */
const TlQueryGroup *tl_queryset_group(TlQuerySet *qs, const uint64_t *key, bool wait);
/* Gives back a group tl_queryset_group returned: it may be freed now. */
void tl_queryset_done(TlQuerySet *qs, const TlQueryGroup *group);
/* Groups kept now; and a cap other than TL_QUERYSET_MAX_GROUPS (tests). */
uint32_t tl_queryset_group_count(TlQuerySet *qs);
void tl_queryset_set_max_groups(TlQuerySet *qs, uint32_t n);

/* The text compiled for `shape`: nodes below the root whose first child
 * names a field only their type has (attribute: object, attribute; call:
 * function, arguments) become wildcards, which tree-sitter compiles
 * without analysing them. Caller frees. */
char *tl_queryset_cheap_shape(const char *shape);

/* Helper threads: `n` more threads will call tl_queryset_help, which
 * compiles parts of announced groups until tl_queryset_stop. */
void tl_queryset_add_helpers(TlQuerySet *qs, unsigned n);
void tl_queryset_help(TlQuerySet *qs);
void tl_queryset_stop(TlQuerySet *qs);

static inline bool tl_bit(const uint64_t *bits, uint32_t i)
{
	return (bits[i >> 6] >> (i & 63)) & 1;
}

#endif
