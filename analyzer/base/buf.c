#include "base/buf.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

static void tl_buf__reserve(TlBuf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	b->data = tl_realloc(b->data, cap);
	b->cap = cap;
}

void tl_buf_init(TlBuf *b)
{
	b->data = tl_malloc(64);
	b->data[0] = '\0';
	b->len = 0;
	b->cap = 64;
}

void tl_buf_release(TlBuf *b)
{
	tl_free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void tl_buf_clear(TlBuf *b)
{
	b->len = 0;
	b->data[0] = '\0';
}

void tl_buf_addn(TlBuf *b, const char *s, size_t n)
{
	tl_buf__reserve(b, n);
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void tl_buf_add(TlBuf *b, const char *s)
{
	tl_buf_addn(b, s, strlen(s));
}

void tl_buf_addc(TlBuf *b, char c)
{
	tl_buf_addn(b, &c, 1);
}

void tl_buf_add_utf8(TlBuf *b, uint32_t cp)
{
	char out[4];
	size_t n;
	if (cp < 0x80) {
		out[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		out[0] = (char)(0xF0 | (cp >> 18));
		out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	tl_buf_addn(b, out, n);
}

void tl_buf_vaddf(TlBuf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n <= 0)
		return;
	tl_buf__reserve(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void tl_buf_addf(TlBuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tl_buf_vaddf(b, fmt, ap);
	va_end(ap);
}

char *tl_buf_detach(TlBuf *b)
{
	char *s = b->data;
	b->data = NULL;
	b->len = b->cap = 0;
	return s;
}
