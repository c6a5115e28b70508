#include "report/diff.h"

#include <stdbool.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"

/* Lines this many apart in both texts beyond the common prefix and suffix
 * are not searched for a minimal diff: the middle is shown as one change.
 * Fixes touch a few lines; the bound keeps memory at O(D^2) small. */
#define TL_DIFF_MAX_D 2000
#define TL_DIFF_CONTEXT 3

typedef struct TlLine {
	const char *s;
	uint32_t len; /* with its newline, if any */
} TlLine;

typedef TlArray(TlLine) TlLines;

static void tl_diff__lines(const char *t, size_t n, TlLines *out)
{
	size_t at = 0;
	while (at < n) {
		const char *nl = memchr(t + at, '\n', n - at);
		size_t end = nl ? (size_t)(nl - t) + 1 : n;
		TlLine l = { t + at, (uint32_t)(end - at) };
		tl_array_push(out, l);
		at = end;
	}
}

static bool tl_diff__eq(TlLine x, TlLine y)
{
	return x.len == y.len && memcmp(x.s, y.s, x.len) == 0;
}

/* One line of the edit script: ' ' keep, '-' delete (from a), '+' insert. */
typedef struct TlOp {
	char kind;
	uint32_t a, b; /* line indexes in a and b */
} TlOp;

typedef TlArray(TlOp) TlOps;

/* Myers' greedy forward search between a[0..n) and b[0..m), keeping each
 * round's frontier to trace the path back. Returns false when the
 * distance exceeds TL_DIFF_MAX_D. */
static bool tl_diff__myers(const TlLine *a, int n, const TlLine *b, int m, int a0, int b0, TlOps *ops)
{
	int max = n + m;
	if (max > 2 * TL_DIFF_MAX_D)
		max = 2 * TL_DIFF_MAX_D;
	int off = max + 1;
	TlArray(int *) trace;
	tl_array_init(&trace);
	int *v = tl_calloc((size_t)(2 * max + 3), sizeof(int));
	int found = -1;
	for (int d = 0; d <= max && found < 0; d++) {
		int *snap = tl_malloc((size_t)(2 * max + 3) * sizeof(int));
		memcpy(snap, v, (size_t)(2 * max + 3) * sizeof(int));
		tl_array_push(&trace, snap);
		for (int k = -d; k <= d; k += 2) {
			int x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1]
											   : v[off + k - 1] + 1;
			int y = x - k;
			while (x < n && y < m && tl_diff__eq(a[x], b[y])) {
				x++;
				y++;
			}
			v[off + k] = x;
			if (x >= n && y >= m) {
				found = d;
				break;
			}
		}
	}
	tl_free(v);
	bool ok = found >= 0;
	if (ok) {
		/* Walk back from (n, m), collecting the script in reverse. */
		TlOps rev;
		tl_array_init(&rev);
		int x = n, y = m;
		for (int d = found; d > 0; d--) {
			int *pv = trace.items[d];
			int k = x - y;
			int pk = (k == -d || (k != d && pv[off + k - 1] < pv[off + k + 1])) ? k + 1 : k - 1;
			int px = pv[off + pk], py = px - pk;
			while (x > px && y > py) {
				TlOp o = { ' ', (uint32_t)(a0 + --x), (uint32_t)(b0 + --y) };
				tl_array_push(&rev, o);
			}
			if (x == px) {
				TlOp o = { '+', (uint32_t)(a0 + x), (uint32_t)(b0 + --y) };
				tl_array_push(&rev, o);
			} else {
				TlOp o = { '-', (uint32_t)(a0 + --x), (uint32_t)(b0 + y) };
				tl_array_push(&rev, o);
			}
		}
		while (x > 0 && y > 0) {
			TlOp o = { ' ', (uint32_t)(a0 + --x), (uint32_t)(b0 + --y) };
			tl_array_push(&rev, o);
		}
		for (uint32_t i = rev.size; i > 0; i--)
			tl_array_push(ops, rev.items[i - 1]);
		tl_array_release(&rev);
	}
	for (uint32_t i = 0; i < trace.size; i++)
		tl_free(trace.items[i]);
	tl_array_release(&trace);
	return ok;
}

static void tl_diff__line(TlBuf *out, char kind, TlLine l)
{
	tl_buf_addc(out, kind);
	tl_buf_addn(out, l.s, l.len);
	if (!l.len || l.s[l.len - 1] != '\n')
		tl_buf_add(out, "\n\\ No newline at end of file\n");
}

void tl_diff_unified(const char *path, const char *a, size_t alen, const char *b, size_t blen,
		     TlBuf *out)
{
	if (alen == blen && memcmp(a, b, alen) == 0)
		return;
	TlLines la, lb;
	tl_array_init(&la);
	tl_array_init(&lb);
	tl_diff__lines(a, alen, &la);
	tl_diff__lines(b, blen, &lb);
	/* The common prefix and suffix need no search. */
	uint32_t pre = 0;
	while (pre < la.size && pre < lb.size && tl_diff__eq(la.items[pre], lb.items[pre]))
		pre++;
	uint32_t suf = 0;
	while (suf < la.size - pre && suf < lb.size - pre &&
	       tl_diff__eq(la.items[la.size - 1 - suf], lb.items[lb.size - 1 - suf]))
		suf++;
	TlOps ops;
	tl_array_init(&ops);
	for (uint32_t i = 0; i < pre; i++) {
		TlOp o = { ' ', i, i };
		tl_array_push(&ops, o);
	}
	int n = (int)(la.size - pre - suf), m = (int)(lb.size - pre - suf);
	if (!tl_diff__myers(la.items + pre, n, lb.items + pre, m, (int)pre, (int)pre, &ops)) {
		for (int i = 0; i < n; i++) {
			TlOp o = { '-', pre + (uint32_t)i, pre };
			tl_array_push(&ops, o);
		}
		for (int i = 0; i < m; i++) {
			TlOp o = { '+', pre + (uint32_t)n, pre + (uint32_t)i };
			tl_array_push(&ops, o);
		}
	}
	for (uint32_t i = 0; i < suf; i++) {
		TlOp o = { ' ', la.size - suf + i, lb.size - suf + i };
		tl_array_push(&ops, o);
	}
	tl_buf_addf(out, "--- a/%s\n+++ b/%s\n", path, path);
	/* Hunks: runs of changes with up to 2 * CONTEXT kept lines between. */
	uint32_t i = 0;
	while (i < ops.size) {
		while (i < ops.size && ops.items[i].kind == ' ')
			i++;
		if (i >= ops.size)
			break;
		uint32_t start = i > TL_DIFF_CONTEXT ? i - TL_DIFF_CONTEXT : 0;
		uint32_t end = i;
		for (;;) {
			while (end < ops.size && ops.items[end].kind != ' ')
				end++;
			uint32_t keep = end;
			while (keep < ops.size && ops.items[keep].kind == ' ' && keep - end < 2 * TL_DIFF_CONTEXT + 1)
				keep++;
			if (keep < ops.size && ops.items[keep].kind != ' ' && keep - end <= 2 * TL_DIFF_CONTEXT) {
				end = keep;
				continue;
			}
			end = end + TL_DIFF_CONTEXT < ops.size ? end + TL_DIFF_CONTEXT : ops.size;
			break;
		}
		uint32_t acount = 0, bcount = 0;
		for (uint32_t k = start; k < end; k++) {
			acount += ops.items[k].kind != '+';
			bcount += ops.items[k].kind != '-';
		}
		/* diff writes the line before an empty range as its start. */
		uint32_t astart = ops.items[start].a + (acount ? 1 : 0);
		uint32_t bstart = ops.items[start].b + (bcount ? 1 : 0);
		tl_buf_addf(out, "@@ -%u,%u +%u,%u @@\n", astart, acount, bstart, bcount);
		for (uint32_t k = start; k < end; k++) {
			const TlOp *o = &ops.items[k];
			tl_diff__line(out, o->kind, o->kind == '+' ? lb.items[o->b] : la.items[o->a]);
		}
		i = end;
	}
	tl_array_release(&ops);
	tl_array_release(&la);
	tl_array_release(&lb);
}
