/* A growable, always NUL-terminated string buffer (git's strbuf, smaller). */
#ifndef TL_BUF_H
#define TL_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

typedef struct TlBuf {
	char *data; /* NUL-terminated; never NULL after tl_buf_init */
	size_t len;
	size_t cap;
} TlBuf;

void tl_buf_init(TlBuf *b);
void tl_buf_release(TlBuf *b);
void tl_buf_clear(TlBuf *b);
void tl_buf_add(TlBuf *b, const char *s);
void tl_buf_addn(TlBuf *b, const char *s, size_t n);
void tl_buf_addc(TlBuf *b, char c);
/* Appends code point `cp` encoded as UTF-8. */
void tl_buf_add_utf8(TlBuf *b, uint32_t cp);
void tl_buf_addf(TlBuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tl_buf_vaddf(TlBuf *b, const char *fmt, va_list ap);
/* Hands the string to the caller (who frees it). `b` is left released:
 * tl_buf_release is a no-op on it, and it needs tl_buf_init before reuse. */
char *tl_buf_detach(TlBuf *b);

#endif
