/* Per-file limits of an analysis, readable from every layer: the memory
 * budget (tokens before a parse, nodes after it) and the CPU-time bound.
 *
 * The CPU-time bound of the file being analysed on a thread is that
 * thread's current TlBound (tl_bound_enter): the engine enters one per file,
 * the project model one per imported module it loads (a module counts as a
 * file of its own: its time is not charged to the file that imported it).
 * Work that the bound must be able to stop (the parse, the index, the facts,
 * the queries) polls it with tl_bound_poll, which reads the clock once in a
 * while; once the bound is hit it stays hit, every poll says so and the
 * work in progress gives up. What was computed after the hit is incomplete:
 * the owner of the bound (engine, project) throws it away and says so
 * (TL002). Without a current bound (unit tests) polls never stop anything;
 * while the questions asked of an imported module run (tl_bound_suspend),
 * only tl_bound_step does: the star-import lookups, whose work grows with
 * the imports of other modules, count their steps against it.
 *
 * Owns: TlBound, the thread's current bound. */
#ifndef TL_BUDGET_H
#define TL_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

/* The per-file memory budget. A parse tree costs about 120 bytes a node
 * and the index about 90 more, and a file of 16 MiB can hold 16 million
 * nodes (a unary-minus chain: 3.9 GB, issue 26). A file whose text holds
 * more tokens than TL_BUDGET_MAX_TOKENS is not parsed, one whose tree has
 * more nodes than TL_BUDGET_MAX_NODES is not indexed. Real code has about
 * one node per byte (1.5 MB of sympy: 1.6 million), so the budget passes
 * files of several megabytes and bounds the peak near 1 GB. The parse's
 * arena (base/alloc.h) holds the tree and what the parser holds at once,
 * as malloc did: what tree-sitter frees in it is given out again (kept to
 * the end of the file, an error-heavy file's garbage reached 3.4 times the
 * peak). */
#define TL_BUDGET_MAX_TOKENS 2500000u
#define TL_BUDGET_MAX_NODES 5000000u

/* About how many tokens `text` holds (names and numbers, operators,
 * strings as three, line ends), counted up to `stop`. */
uint32_t tl_budget_tokens(const char *text, uint32_t len, uint32_t stop);
/* The same where the text may hold more than `stop` tokens; 0, without
 * reading it, where it is too short to (the budget check of every file:
 * most are far under it). */
uint32_t tl_budget_tokens_over(const char *text, uint32_t len, uint32_t stop);

/* The CPU-time bound for a file of `bytes` bytes: 10 s and 2 s per MiB,
 * far above what real code needs. TORCHLINT_CPU_SECONDS=S in the
 * environment makes it S seconds for every file (a slow machine, a
 * profiler such as valgrind, a test of the bound itself). */
double tl_budget_seconds_for(uint64_t bytes);

/* The per-file work budget in counted steps for a file of `bytes` bytes:
 * TL_BUDGET_STEPS_MIN and TL_BUDGET_STEPS_PER_BYTE a byte (budget.c says
 * how far above real code that is). A step is one poll of the bound
 * (tl_bound_poll: a node indexed, a function or binding looked at by the
 * facts, one element of the loops whose length follows the file) or one
 * progress call of the parser (about 100 parse operations). Steps are
 * counted, not timed: the same file stops at the same place on any machine
 * and under any load, so the phase a limit cuts is deterministic; the CPU
 * time is the backstop for work no poll sees. */
#define TL_BUDGET_STEPS_MIN 10000000u
#define TL_BUDGET_STEPS_PER_BYTE 64u
uint64_t tl_budget_steps_for(uint64_t bytes);

/* What cut an analysis short. */
typedef enum TlBoundHit {
	TL_BOUND_NONE = 0,
	TL_BOUND_TIME = 1,      /* the CPU time ran out */
	TL_BOUND_CANCELLED = 2, /* the cancel hook asked to stop */
	TL_BOUND_STEPS = 3,     /* the work budget (counted steps) ran out */
} TlBoundHit;

typedef struct TlBound {
	double seconds;   /* the bound given to tl_bound_begin */
	double deadline;  /* this thread's CPU time at which work stops */
	uint64_t steps;       /* counted since tl_bound_begin */
	uint64_t step_limit;  /* the work budget: past it, work stops */
	TlBoundHit hit;
	const char *phase;    /* what the file's analysis is doing (a static string) */
	const char *hit_in;   /* the phase in which the bound was hit */
	/* Asked whenever the clock is read (kept across tl_bound_begin): true
	 * stops the file with TL_BOUND_CANCELLED (the language server, when a
	 * newer version of the document arrived). */
	bool (*cancel)(void *data);
	void *cancel_data;
	unsigned suspended; /* tl_bound_suspend calls not yet resumed */
} TlBound;

/* Starts a file: `seconds` of this thread's CPU time from now and `steps`
 * counted steps (0: no step budget). */
void tl_bound_begin(TlBound *b, double seconds, uint64_t steps);
/* Names the phase under way, for the message of a hit ("parsing",
 * "indexing", ...: a static string). */
void tl_bound_phase(TlBound *b, const char *phase);
/* Reads the clock (and the cancel hook) now: true once the bound is hit. */
bool tl_bound_check(TlBound *b);
/* Makes `b` (may be NULL) this thread's current bound; returns the one it
 * replaces, to give back to tl_bound_leave. */
TlBound *tl_bound_enter(TlBound *b);
void tl_bound_leave(TlBound *previous);
/* The current bound of this thread, or NULL. */
TlBound *tl_bound_current(void);
/* For loops of the index and the facts: counts one step of the current
 * bound; true once it is hit (the step budget is checked at every poll,
 * the clock read every 1,024; without a current bound, false). */
bool tl_bound_poll(void);
/* Counts one step of `b` (a parser's progress call), reading the clock
 * every `every` steps (a power of two); true once `b` is hit. */
bool tl_bound_tick(TlBound *b, unsigned every);
/* True when the current bound is hit (no clock read). */
bool tl_bound_hit(void);
/* Polls of the current bound say false until tl_bound_resume (the
 * questions asked of another module's index: their answers are kept for
 * the run, so a cut answer would outlive the file that asked). Its clock
 * still runs; nests. */
void tl_bound_suspend(void);
void tl_bound_resume(void);
/* For work that runs while polls are suspended and must still stop (the
 * star-import lookups, which follow other modules' imports and grow with
 * them): counts `steps` steps of it in the current bound's work budget
 * and reads its clock and cancel hook every 1,024 steps, as tl_bound_poll
 * does, but suspended or not; true once
 * the bound is hit (the file's own polls then say so as soon as the
 * suspension ends, and its analysis is thrown away). A caller stopped by
 * it keeps nothing of the answer it was computing. Without a current
 * bound, false. */
bool tl_bound_step(uint32_t steps);
/* True when the current bound is hit, suspended or not: an answer computed
 * after that is not kept (the facts' summaries). */
bool tl_bound_hit_ever(void);
/* This thread's CPU time in seconds. */
double tl_bound_cpu(void);

#endif
