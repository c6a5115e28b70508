#include "base/timings.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static const char *const tl_timings__names[TL_PHASE_COUNT] = {
	"setup", "read", "pre-filter", "parse", "index", "facts", "compile queries",
	"query matching", "suppress + sort", "output",
};

static _Atomic uint64_t tl_timings__ns[TL_PHASE_COUNT];
static pthread_once_t tl_timings__once = PTHREAD_ONCE_INIT;
static bool tl_timings__enabled;

static void tl_timings__init(void)
{
	const char *v = getenv("TORCHLINT_TIMINGS");
	tl_timings__enabled = v && *v && strcmp(v, "0") != 0;
}

bool tl_timings_on(void)
{
	pthread_once(&tl_timings__once, tl_timings__init);
	return tl_timings__enabled;
}

static uint64_t tl_timings__now(void)
{
	struct timespec t;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
		return 1;
	/* Never 0: 0 means "not timing". */
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec + 1;
}

uint64_t tl_timings_start(void)
{
	return tl_timings_on() ? tl_timings__now() : 0;
}

uint64_t tl_timings_add(TlPhase phase, uint64_t start)
{
	if (!start)
		return 0;
	uint64_t now = tl_timings__now();
	if (now > start)
		atomic_fetch_add(&tl_timings__ns[phase], now - start);
	return now;
}

void tl_timings_print(FILE *out, uint32_t files)
{
	if (!tl_timings_on())
		return;
	struct rusage ru;
	double total = 0;
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		total = (double)ru.ru_utime.tv_sec * 1e3 + (double)ru.ru_utime.tv_usec / 1e3 +
			(double)ru.ru_stime.tv_sec * 1e3 + (double)ru.ru_stime.tv_usec / 1e3;
	double sum = 0;
	fprintf(out, "torchlint: CPU time by phase (%u file%s, all threads):\n", files,
		files == 1 ? "" : "s");
	for (int p = 0; p < TL_PHASE_COUNT; p++) {
		double ms = (double)atomic_load(&tl_timings__ns[p]) / 1e6;
		sum += ms;
		fprintf(out, "  %-16s %10.2f ms %5.1f%%\n", tl_timings__names[p], ms,
			total > 0 ? 100.0 * ms / total : 0.0);
	}
	double rest = total > sum ? total - sum : 0;
	fprintf(out, "  %-16s %10.2f ms %5.1f%%\n", "unaccounted", rest, total > 0 ? 100.0 * rest / total : 0.0);
	fprintf(out, "  %-16s %10.2f ms (user + system, the process)\n", "total", total);
}
