#include "base/escape.h"

#include <stdarg.h>
#include <string.h>

#include "base/alloc.h"

/* Decodes the UTF-8 sequence at s[i] (i < n): returns its length and sets
 * *cp, or returns 0 when the byte at s[i] does not start a valid sequence
 * (overlong forms, surrogates and values past U+10FFFF are invalid, as
 * jansson and tl_utf8_invalid_offset have it). */
static size_t tl_escape__decode(const unsigned char *s, size_t n, size_t i, uint32_t *cp)
{
	unsigned c = s[i];
	size_t more;
	uint32_t v;
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if (c >= 0xC2 && c <= 0xDF) {
		more = 1;
		v = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		more = 2;
		v = c & 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		more = 3;
		v = c & 0x07;
	} else {
		return 0;
	}
	for (size_t k = 1; k <= more; k++) {
		if (i + k >= n || (s[i + k] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (s[i + k] & 0x3F);
	}
	if ((more == 2 && v < 0x800) || (more == 3 && v < 0x10000) || (v >= 0xD800 && v <= 0xDFFF) ||
	    v > 0x10FFFF)
		return 0;
	*cp = v;
	return more + 1;
}

static bool tl_escape__control(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F);
}

bool tl_escape_needed(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t l = tl_escape__decode(u, n, i, &cp);
		if (!l || tl_escape__control(cp))
			return true;
		i += l;
	}
	return false;
}

void tl_escape_add(TlBuf *out, const char *s, size_t n)
{
	if (!tl_escape_needed(s, n)) {
		tl_buf_addn(out, s, n);
		return;
	}
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t l = tl_escape__decode(u, n, i, &cp);
		if (!l) {
			tl_buf_addf(out, "\\x%02X", u[i]);
			i++;
			continue;
		}
		if (cp == '\n')
			tl_buf_add(out, "\\n");
		else if (cp == '\r')
			tl_buf_add(out, "\\r");
		else if (cp == '\t')
			tl_buf_add(out, "\\t");
		else if (cp == '\\')
			tl_buf_add(out, "\\\\");
		else if (cp < 0x20 || cp == 0x7F)
			tl_buf_addf(out, "\\x%02X", (unsigned)cp);
		else if (cp >= 0x80 && cp <= 0x9F)
			tl_buf_addf(out, "\\u%04X", (unsigned)cp);
		else
			tl_buf_addn(out, s + i, l);
		i += l;
	}
}

char *tl_escape(const char *s)
{
	TlBuf b;
	tl_buf_init(&b);
	tl_escape_add(&b, s, strlen(s));
	return tl_buf_detach(&b);
}

void tl_escape_add_snippet(TlBuf *out, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t l = tl_escape__decode(u, n, i, &cp);
		if (!l) {
			/* Sources are checked to be UTF-8; a stray byte still
			 * takes one column. */
			tl_buf_add_utf8(out, 0xFFFD);
			i++;
			continue;
		}
		if (cp == '\t' || !tl_escape__control(cp))
			tl_buf_addn(out, s + i, l);
		else if (cp < 0x20)
			tl_buf_add_utf8(out, 0x2400 + cp); /* U+2400..U+241F: control pictures */
		else if (cp == 0x7F)
			tl_buf_add_utf8(out, 0x2421);
		else
			tl_buf_add_utf8(out, 0xFFFD);
		i += l;
	}
}

/* The blanks that the Actions runner trims before it looks for "::"
 * (.NET's TrimStart: ASCII and Unicode white space). Returns the length
 * of the blank at s, or 0. */
static size_t tl_escape__blank(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	if (*u == ' ' || (*u >= 0x09 && *u <= 0x0D))
		return 1;
	uint32_t cp;
	size_t l = tl_escape__decode(u, strnlen(s, 4), 0, &cp);
	if (l > 1 && (cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
		      cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000))
		return l;
	return 0;
}

bool tl_escape_command_like(const char *s)
{
	for (size_t l; (l = tl_escape__blank(s));)
		s += l;
	return strncmp(s, "::", 2) == 0 || strncmp(s, "##[", 3) == 0;
}

void tl_escape_add_line_start(TlBuf *out, const char *s)
{
	if (tl_escape_command_like(s))
		tl_buf_add(out, "./");
	tl_buf_add(out, s);
}

void tl_escape_add_json(TlBuf *out, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t l = tl_escape__decode(u, n, i, &cp);
		if (!l) {
			tl_buf_add_utf8(out, 0xFFFD);
			i++;
			continue;
		}
		tl_buf_addn(out, s + i, l);
		i += l;
	}
}

void tl_diagf(FILE *err, const char *fmt, ...)
{
	TlBuf raw, line;
	tl_buf_init(&raw);
	tl_buf_init(&line);
	va_list ap;
	va_start(ap, fmt);
	tl_buf_vaddf(&raw, fmt, ap);
	va_end(ap);
	size_t n = raw.len;
	bool newline = n && raw.data[n - 1] == '\n';
	TlBuf esc;
	tl_buf_init(&esc);
	tl_escape_add(&esc, raw.data, newline ? n - 1 : n);
	tl_escape_add_line_start(&line, esc.data);
	if (newline)
		tl_buf_addc(&line, '\n');
	fputs(line.data, err);
	tl_buf_release(&esc);
	tl_buf_release(&line);
	tl_buf_release(&raw);
}
