/* Phase timers: where the CPU time of a run goes.
 *
 * With TORCHLINT_TIMINGS=1 in the environment, the engine and the driver
 * add the CPU time of each phase of each file (the thread's CPU time, so
 * worker threads add up) and the command prints a table to stderr at exit
 * (tl_timings_print). Without it, tl_timings_start returns 0 and nothing is
 * measured: one branch per phase boundary.
 *
 * Thread-safe: the totals are atomic. */
#ifndef TL_TIMINGS_H
#define TL_TIMINGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum TlPhase {
	TL_PHASE_SETUP,    /* options, configuration, rules, file discovery (main thread) */
	TL_PHASE_READ,     /* reading a file (and a notebook's JSON) */
	TL_PHASE_FILTER,   /* the rules' literal pre-filter */
	TL_PHASE_PARSE,    /* tree-sitter's parse */
	TL_PHASE_INDEX,    /* the syntax index (index.c) */
	TL_PHASE_FACTS,    /* the facts built once per file (facts/build.c) */
	TL_PHASE_COMPILE,  /* compiling the rules' queries (any thread) */
	TL_PHASE_MATCH,    /* running the queries and their predicates (facts asked lazily included) */
	TL_PHASE_FINISH,   /* suppressions, sorting, fingerprints */
	TL_PHASE_OUTPUT,   /* rendering and writing the report */
	TL_PHASE_COUNT
} TlPhase;

/* True when TORCHLINT_TIMINGS is set to something other than "" or "0". */
bool tl_timings_on(void);
/* This thread's CPU time in nanoseconds when timing, else 0. */
uint64_t tl_timings_start(void);
/* Adds this thread's CPU time since `start` (tl_timings_start) to `phase`;
 * returns the current time, to start the next phase from. No-op when not
 * timing. */
uint64_t tl_timings_add(TlPhase phase, uint64_t start);
/* Prints each phase's total (ms and share), the process's CPU time and
 * what no phase accounts for, to `out`; `files`: how many were analysed. */
void tl_timings_print(FILE *out, uint32_t files);

#endif
