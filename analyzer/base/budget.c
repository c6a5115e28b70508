#include "base/budget.h"

#include <stdlib.h>
#include <time.h>

uint32_t tl_budget_tokens_over(const char *text, uint32_t len, uint32_t stop)
{
	/* No byte adds more than two tokens (a lone quote: a string's three,
	 * its line end one more), so a text of at most (stop - 3) / 2 bytes
	 * is under `stop` unread. */
	if (stop < 3 || len > (stop - 3) / 2)
		return tl_budget_tokens(text, len, stop);
	return 0;
}

uint32_t tl_budget_tokens(const char *text, uint32_t len, uint32_t stop)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < len && n <= stop;) {
		unsigned char c = (unsigned char)text[i];
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\\') {
			i++;
		} else if (c == '\n') {
			n++;
			i++;
		} else if (c == '#') {
			while (i < len && text[i] != '\n')
				i++;
		} else if (c == '\'' || c == '"') {
			/* A string (start, content, end), triple-quoted or not. */
			bool triple = i + 2 < len && text[i + 1] == (char)c && text[i + 2] == (char)c;
			i += triple ? 3 : 1;
			while (i < len) {
				if (text[i] == '\\') {
					i += 2;
				} else if (text[i] == (char)c &&
					   (!triple || (i + 2 < len && text[i + 1] == (char)c && text[i + 2] == (char)c))) {
					i += triple ? 3 : 1;
					break;
				} else if (!triple && text[i] == '\n') {
					break;
				} else {
					i++;
				}
			}
			n += 3;
		} else if (c == '_' || c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9')) {
			while (i < len && ((unsigned char)text[i] >= 0x80 || text[i] == '_' || text[i] == '.' ||
					   (text[i] >= 'a' && text[i] <= 'z') || (text[i] >= 'A' && text[i] <= 'Z') ||
					   (text[i] >= '0' && text[i] <= '9')))
				i++;
			n++;
		} else {
			n++;
			i++;
		}
	}
	return n;
}

double tl_budget_seconds_for(uint64_t bytes)
{
	const char *v = getenv("TORCHLINT_CPU_SECONDS");
	if (v && *v) {
		char *end;
		double s = strtod(v, &end);
		if (*end == '\0' && s > 0 && s < 1e9)
			return s;
	}
	return 10.0 + 2.0 * (double)bytes / (1024.0 * 1024.0);
}

double tl_bound_cpu(void)
{
	struct timespec t;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
		return 0;
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The bound of the file this thread analyses (tl_bound_enter). */
static _Thread_local TlBound *tl_bound__current;

/* Real code takes under one step a byte: with --select ALL over the
 * corpus, examples, validate cases, Debian's Python 3.11 library and its
 * dist-packages (3,864 files analysed), at most 0.76 steps a byte and
 * 130,189 steps for the largest file (numpy's test_multiarray.py, 370 KB).
 * The budget is at least 84 times that; a file of 40,000 functions each
 * switching grad takes quadratic facts and stops (tests/cli/test-limits.sh). */
uint64_t tl_budget_steps_for(uint64_t bytes)
{
	return TL_BUDGET_STEPS_MIN + bytes * TL_BUDGET_STEPS_PER_BYTE;
}

void tl_bound_begin(TlBound *b, double seconds, uint64_t steps)
{
	b->seconds = seconds;
	b->deadline = tl_bound_cpu() + seconds;
	b->steps = 0;
	b->step_limit = steps ? steps : UINT64_MAX;
	b->hit = TL_BOUND_NONE;
	b->phase = NULL;
	b->hit_in = NULL;
	b->suspended = 0;
}

void tl_bound_phase(TlBound *b, const char *phase)
{
	b->phase = phase;
}

bool tl_bound_check(TlBound *b)
{
	if (b->hit)
		return true;
	if (b->cancel && b->cancel(b->cancel_data))
		b->hit = TL_BOUND_CANCELLED;
	else if (tl_bound_cpu() > b->deadline)
		b->hit = TL_BOUND_TIME;
	else
		return false;
	b->hit_in = b->phase;
	return true;
}

TlBound *tl_bound_enter(TlBound *b)
{
	TlBound *previous = tl_bound__current;
	tl_bound__current = b;
	return previous;
}

void tl_bound_leave(TlBound *previous)
{
	tl_bound__current = previous;
}

TlBound *tl_bound_current(void)
{
	return tl_bound__current;
}

void tl_bound_suspend(void)
{
	if (tl_bound__current)
		tl_bound__current->suspended++;
}

void tl_bound_resume(void)
{
	if (tl_bound__current && tl_bound__current->suspended)
		tl_bound__current->suspended--;
}

bool tl_bound_poll(void)
{
	TlBound *b = tl_bound__current;
	if (!b || b->suspended)
		return false;
	/* A clock read costs about as much as a few hundred instructions of
	 * the loops that poll. */
	return tl_bound_tick(b, 1024);
}

bool tl_bound_tick(TlBound *b, unsigned every)
{
	if (b->hit)
		return true;
	if (++b->steps > b->step_limit) {
		b->hit = TL_BOUND_STEPS;
		b->hit_in = b->phase;
		return true;
	}
	if ((b->steps & (every - 1)) != 0)
		return false;
	return tl_bound_check(b);
}

bool tl_bound_hit(void)
{
	return tl_bound__current && !tl_bound__current->suspended && tl_bound__current->hit;
}

bool tl_bound_step(uint32_t steps)
{
	TlBound *b = tl_bound__current;
	if (!b)
		return false;
	for (uint32_t i = 0; i < steps; i++)
		if (tl_bound_tick(b, 1024))
			return true;
	return b->hit != TL_BOUND_NONE;
}

bool tl_bound_hit_ever(void)
{
	return tl_bound__current && tl_bound__current->hit;
}
