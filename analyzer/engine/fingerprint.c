#include "engine/fingerprint.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strmap.h"

#define TL_FP_BLOCK 100
#define TL_FP_EOF 65535u

typedef struct TlFpState {
	uint32_t window[TL_FP_BLOCK];
	int64_t line_at[TL_FP_BLOCK]; /* line starting at this slot, or -1 */
	uint32_t index;
	uint64_t hash, first_mod;
	int64_t line;
	int line_start, prev_cr;
	TlStrMap counts;
	TlLineHashes *out;
} TlFpState;

static void tl_fp__emit(TlFpState *s)
{
	char hex[32], value[48];
	snprintf(hex, sizeof hex, "%llx", (unsigned long long)s->hash);
	int32_t n = 0;
	tl_strmap_get(&s->counts, hex, strlen(hex), &n);
	tl_strmap_put(&s->counts, hex, strlen(hex), ++n);
	snprintf(value, sizeof value, "%s:%d", hex, n);
	int64_t line = s->line_at[s->index];
	if (line >= 1 && (uint64_t)line <= s->out->count && !s->out->lines[line - 1])
		s->out->lines[line - 1] = tl_strdup(value);
	s->line_at[s->index] = -1;
}

static void tl_fp__update(TlFpState *s, uint32_t c)
{
	uint32_t begin = s->window[s->index];
	s->window[s->index] = c;
	s->hash = 37u * s->hash + c - s->first_mod * begin;
	s->index = (s->index + 1) % TL_FP_BLOCK;
}

static void tl_fp__char(TlFpState *s, uint32_t c)
{
	if (c == ' ' || c == '\t' || (s->prev_cr && c == '\n')) {
		s->prev_cr = 0;
		return;
	}
	if (c == '\r') {
		c = '\n';
		s->prev_cr = 1;
	} else {
		s->prev_cr = 0;
	}
	if (s->line_at[s->index] != -1)
		tl_fp__emit(s);
	if (s->line_start) {
		s->line_start = 0;
		s->line_at[s->index] = ++s->line;
	}
	if (c == '\n')
		s->line_start = 1;
	tl_fp__update(s, c);
}

void tl_line_hashes(TlLineHashes *out, const char *text, size_t len, int bom)
{
	/* Lines as the hash counts them: LF, CRLF and lone CR end a line. */
	uint32_t lines = 1;
	for (size_t i = 0; i < len; i++)
		if (text[i] == '\n' || (text[i] == '\r' && (i + 1 >= len || text[i + 1] != '\n')))
			lines++;
	out->count = lines;
	out->lines = tl_calloc(lines, sizeof(char *));
	TlFpState *s = tl_calloc(1, sizeof *s);
	for (int i = 0; i < TL_FP_BLOCK; i++)
		s->line_at[i] = -1;
	s->first_mod = 1;
	for (int i = 0; i < TL_FP_BLOCK; i++)
		s->first_mod *= 37u;
	s->line_start = 1;
	s->out = out;
	tl_strmap_init(&s->counts);
	if (bom)
		tl_fp__char(s, 0xFEFF);
	/* Feed UTF-16 code units, as JavaScript strings hold them. */
	const unsigned char *p = (const unsigned char *)text, *end = p + len;
	while (p < end) {
		uint32_t cp = *p;
		size_t n = cp < 0x80 ? 1 : cp < 0xE0 ? 2 : cp < 0xF0 ? 3 : 4;
		if (n > 1 && p + n <= end) {
			cp &= n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07;
			for (size_t k = 1; k < n; k++)
				cp = (cp << 6) | (p[k] & 0x3F);
		} else {
			n = 1;
		}
		p += n;
		if (cp >= 0x10000) {
			cp -= 0x10000;
			tl_fp__char(s, 0xD800 + (cp >> 10));
			tl_fp__char(s, 0xDC00 + (cp & 0x3FF));
		} else {
			tl_fp__char(s, cp);
		}
	}
	tl_fp__char(s, TL_FP_EOF);
	for (int i = 0; i < TL_FP_BLOCK; i++) {
		if (s->line_at[s->index] != -1)
			tl_fp__emit(s);
		tl_fp__update(s, 0);
	}
	tl_strmap_release(&s->counts);
	tl_free(s);
}

void tl_line_hashes_release(TlLineHashes *h)
{
	for (uint32_t i = 0; i < h->count; i++)
		tl_free(h->lines[i]);
	tl_free(h->lines);
	h->lines = NULL;
	h->count = 0;
}

const char *tl_line_hash(const TlLineHashes *h, uint32_t line)
{
	if (line == 0 || line > h->count || !h->lines[line - 1])
		return "";
	return h->lines[line - 1];
}
