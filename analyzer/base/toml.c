#include "base/toml.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/source.h"

/* Table flags: how a table came to be, for the rules on defining twice. */
enum {
	TL_TOML__EXPLICIT = 1, /* named by a [header] (or [[header]]): never again */
	TL_TOML__DOTTED = 2,   /* made by dotted keys in the current section */
	TL_TOML__FROZEN = 4,   /* an inline table or a static array: closed for good */
	TL_TOML__AOT = 8,      /* an array made by [[header]] (not a static array) */
};

typedef struct TlTomlParser {
	const char *s;
	size_t len, pos;
	uint32_t line;     /* 1-based line at pos */
	size_t line_start; /* byte offset where that line starts */
	char *why;
	size_t why_size;
	bool failed;
	TlTomlValue *root, *current; /* the table the current section adds to */
	TlArray(TlTomlValue *) dotted; /* tables made by dotted keys in this section */
} TlTomlParser;

/* A frame of the value stack: an open array or inline table. */
typedef struct TlTomlFrame {
	TlTomlValue *v;
	TlTomlValue *target; /* inline tables: the table the current key goes in */
	char *key;           /* inline tables: the current key (last part) */
	uint32_t key_len, key_line, key_column;
} TlTomlFrame;

/* ---- values ------------------------------------------------------------------- */

static TlTomlValue *tl_toml__new(TlTomlType type, uint32_t line, uint32_t column)
{
	TlTomlValue *v = tl_calloc(1, sizeof *v);
	v->type = type;
	v->line = line;
	v->column = column;
	if (type == TL_TOML_T_TABLE)
		tl_strmap_init(&v->index);
	return v;
}

/* Frees `v` and everything below it, without recursion. */
static void tl_toml__free(TlTomlValue *v)
{
	if (!v)
		return;
	TlArray(TlTomlValue *) todo;
	tl_array_init(&todo);
	tl_array_push(&todo, v);
	while (todo.size) {
		TlTomlValue *x = tl_array_pop(&todo);
		for (uint32_t i = 0; i < x->items.size; i++)
			tl_array_push(&todo, x->items.items[i]);
		for (uint32_t i = 0; i < x->members.size; i++) {
			tl_array_push(&todo, x->members.items[i].value);
			tl_free(x->members.items[i].key);
		}
		tl_array_release(&x->items);
		tl_array_release(&x->members);
		if (x->type == TL_TOML_T_TABLE)
			tl_strmap_release(&x->index);
		tl_free(x->text);
		tl_free(x);
	}
	tl_array_release(&todo);
}

/* The key as stored in a table's index: a NUL byte (valid in a TOML key)
 * becomes the overlong form C0 80, which valid UTF-8 never holds, because
 * the map's keys are C strings. Caller frees. */
static char *tl_toml__map_key(const char *key, uint32_t len, size_t *out_len)
{
	TlBuf b;
	tl_buf_init(&b);
	for (uint32_t i = 0; i < len; i++) {
		if (key[i])
			tl_buf_addc(&b, key[i]);
		else
			tl_buf_add(&b, "\xC0\x80");
	}
	*out_len = b.len;
	return tl_buf_detach(&b);
}

static TlTomlValue *tl_toml__lookup(const TlTomlValue *t, const char *key, uint32_t len)
{
	int32_t at;
	bool found;
	if (!memchr(key, '\0', len)) {
		found = tl_strmap_get(&t->index, key, len, &at);
	} else {
		size_t ml;
		char *mk = tl_toml__map_key(key, len, &ml);
		found = tl_strmap_get(&t->index, mk, ml, &at);
		tl_free(mk);
	}
	return found ? t->members.items[at].value : NULL;
}

/* Adds `v` under `key` (copied) to table `t`, which must not hold it. */
static void tl_toml__insert(TlTomlValue *t, const char *key, uint32_t len, TlTomlValue *v,
			    uint32_t line, uint32_t column)
{
	if (!memchr(key, '\0', len)) {
		tl_strmap_put(&t->index, key, len, (int32_t)t->members.size);
	} else {
		size_t ml;
		char *mk = tl_toml__map_key(key, len, &ml);
		tl_strmap_put(&t->index, mk, ml, (int32_t)t->members.size);
		tl_free(mk);
	}
	TlTomlMember m;
	m.key = tl_malloc(len + 1);
	memcpy(m.key, key, len);
	m.key[len] = '\0';
	m.key_len = len;
	m.value = v;
	m.line = line;
	m.column = column;
	tl_array_push(&t->members, m);
}

const TlTomlValue *tl_toml_table_get(const TlTomlValue *t, const char *key)
{
	if (!t || t->type != TL_TOML_T_TABLE)
		return NULL;
	return tl_toml__lookup(t, key, (uint32_t)strlen(key));
}

const char *tl_toml_type_name(TlTomlType type)
{
	static const char *const names[] = {
		"string", "integer", "float", "bool", "datetime", "datetime-local",
		"date-local", "time-local", "array", "table",
	};
	return names[type];
}

/* ---- reading ------------------------------------------------------------------------ */

static void tl_toml__fail_at(TlTomlParser *p, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Records the first error, at byte `at` of the current line or a later one. */
static void tl_toml__fail_at(TlTomlParser *p, size_t at, const char *fmt, ...)
{
	if (p->failed)
		return;
	p->failed = true;
	uint32_t line = p->line;
	size_t start = p->line_start;
	if (at < start) { /* an earlier line: count again from the top */
		line = 1;
		start = 0;
		for (size_t i = 0; i < at; i++)
			if (p->s[i] == '\n') {
				line++;
				start = i + 1;
			}
	} else {
		for (size_t i = start; i < at && i < p->len; i++)
			if (p->s[i] == '\n') {
				line++;
				start = i + 1;
			}
	}
	size_t upto = at < p->len ? at : p->len;
	uint32_t col = tl_utf8_count(p->s + start, upto - start) + 1;
	int n = snprintf(p->why, p->why_size, "%u:%u: ", line, col);
	if (n >= 0 && (size_t)n < p->why_size) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(p->why + n, p->why_size - (size_t)n, fmt, ap);
		va_end(ap);
	}
}

#define tl_toml__fail(p, ...) tl_toml__fail_at((p), (p)->pos, __VA_ARGS__)

static int tl_toml__peek(const TlTomlParser *p)
{
	return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static int tl_toml__peek_at(const TlTomlParser *p, size_t k)
{
	return p->pos + k < p->len ? (unsigned char)p->s[p->pos + k] : -1;
}

static void tl_toml__column(const TlTomlParser *p, uint32_t *line, uint32_t *column)
{
	*line = p->line;
	*column = tl_utf8_count(p->s + p->line_start, p->pos - p->line_start) + 1;
}

/* Consumes a newline (LF or CRLF) if one is here. */
static bool tl_toml__newline(TlTomlParser *p)
{
	size_t k = 0;
	if (tl_toml__peek(p) == '\r' && tl_toml__peek_at(p, 1) == '\n')
		k = 2;
	else if (tl_toml__peek(p) == '\n')
		k = 1;
	else
		return false;
	p->pos += k;
	p->line++;
	p->line_start = p->pos;
	return true;
}

static void tl_toml__ws(TlTomlParser *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t'))
		p->pos++;
}

/* A control character that may not appear in comments and strings (tab is
 * allowed; newlines are handled by the callers). */
static bool tl_toml__control(int c)
{
	return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7F;
}

/* Consumes a comment if one is here (up to, not including, its newline). */
static bool tl_toml__comment(TlTomlParser *p)
{
	if (tl_toml__peek(p) != '#')
		return true;
	p->pos++;
	while (p->pos < p->len) {
		int c = (unsigned char)p->s[p->pos];
		if (c == '\n' || (c == '\r' && tl_toml__peek_at(p, 1) == '\n'))
			break;
		if (tl_toml__control(c)) {
			tl_toml__fail(p, "control character U+%04X in a comment", c);
			return false;
		}
		p->pos++;
	}
	return true;
}

/* The end of a line: optional whitespace and comment, then a newline or the
 * end of the document. */
static bool tl_toml__line_end(TlTomlParser *p, const char *after)
{
	tl_toml__ws(p);
	if (!tl_toml__comment(p))
		return false;
	if (p->pos >= p->len || tl_toml__newline(p))
		return true;
	tl_toml__fail(p, "expected the end of the line after %s", after);
	return false;
}

/* Skips whitespace, newlines and comments (inside arrays). */
static bool tl_toml__gap(TlTomlParser *p)
{
	for (;;) {
		tl_toml__ws(p);
		if (!tl_toml__comment(p))
			return false;
		if (!tl_toml__newline(p))
			return true;
	}
}

static int tl_toml__hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Reads one escape after its backslash into `b`. */
static bool tl_toml__escape(TlTomlParser *p, TlBuf *b)
{
	int e = tl_toml__peek(p);
	const char *plain = "b\bt\tn\nf\fr\r\"\"\\\\";
	for (const char *q = plain; *q; q += 2)
		if (e == *q) {
			tl_buf_addc(b, q[1]);
			p->pos++;
			return true;
		}
	if (e == 'u' || e == 'U') {
		int digits = e == 'u' ? 4 : 8;
		uint32_t cp = 0;
		for (int i = 1; i <= digits; i++) {
			int h = tl_toml__hex(tl_toml__peek_at(p, (size_t)i));
			if (h < 0) {
				tl_toml__fail(p, "\\%c needs %d hexadecimal digits", e, digits);
				return false;
			}
			cp = cp * 16 + (uint32_t)h;
		}
		if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
			tl_toml__fail(p, "\\%c escape is not a Unicode scalar value", e);
			return false;
		}
		tl_buf_add_utf8(b, cp);
		p->pos += (size_t)digits + 1;
		return true;
	}
	tl_toml__fail_at(p, p->pos - 1, "invalid escape sequence in a string");
	return false;
}

/* Reads a string of any of the four forms; the parser is at its opening
 * quote. `multi_ok` is false for keys. */
static bool tl_toml__string(TlTomlParser *p, bool multi_ok, TlBuf *out)
{
	int q = tl_toml__peek(p);
	bool literal = q == '\'';
	bool multi = tl_toml__peek_at(p, 1) == q && tl_toml__peek_at(p, 2) == q;
	size_t open = p->pos;
	if (multi && !multi_ok) {
		tl_toml__fail(p, "a multi-line string cannot be a key");
		return false;
	}
	p->pos += multi ? 3 : 1;
	if (multi)
		tl_toml__newline(p); /* a newline right after the delimiter is dropped */
	for (;;) {
		int c = tl_toml__peek(p);
		if (c < 0) {
			tl_toml__fail_at(p, open, "unterminated string");
			return false;
		}
		if (c == q) {
			if (!multi) {
				p->pos++;
				return true;
			}
			size_t run = 0;
			while (tl_toml__peek_at(p, run) == q)
				run++;
			if (run < 3) {
				tl_buf_addn(out, p->s + p->pos, run);
				p->pos += run;
				continue;
			}
			if (run > 5) {
				tl_toml__fail(p, "too many quotes at the end of a multi-line string");
				return false;
			}
			tl_buf_addn(out, p->s + p->pos, run - 3);
			p->pos += run;
			return true;
		}
		if (c == '\n' || c == '\r') {
			size_t at = p->pos;
			if (!multi || !tl_toml__newline(p)) {
				tl_toml__fail_at(p, at, multi ? "a carriage return must be followed by a newline"
							  : "unterminated string (strings end on their line)");
				return false;
			}
			tl_buf_addn(out, p->s + at, p->pos - at);
			continue;
		}
		if (tl_toml__control(c)) {
			tl_toml__fail(p, "control character U+%04X in a string", c);
			return false;
		}
		if (c != '\\' || literal) {
			tl_buf_addc(out, (char)c);
			p->pos++;
			continue;
		}
		p->pos++;
		if (multi) {
			/* A line-ending backslash trims the newline and the whitespace
			 * after it. Only whitespace may follow it on its line. */
			size_t k = p->pos;
			while (k < p->len && (p->s[k] == ' ' || p->s[k] == '\t'))
				k++;
			if (k < p->len && (p->s[k] == '\n' || (p->s[k] == '\r' && k + 1 < p->len && p->s[k + 1] == '\n'))) {
				p->pos = k;
				for (;;) {
					tl_toml__ws(p);
					if (!tl_toml__newline(p))
						break;
				}
				continue;
			}
		}
		if (!tl_toml__escape(p, out))
			return false;
	}
}

static bool tl_toml__bare_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-';
}

/* One dotted key: its parts into `parts` (caller frees), with their lengths. */
typedef struct TlTomlKey {
	TlStrArray parts;
	TlArray(uint32_t) lens;
	uint32_t line, column; /* of its first part */
} TlTomlKey;

static void tl_toml__key_release(TlTomlKey *k)
{
	tl_str_array_release(&k->parts);
	tl_array_release(&k->lens);
}

static bool tl_toml__key(TlTomlParser *p, TlTomlKey *k)
{
	tl_array_init(&k->parts);
	tl_array_init(&k->lens);
	tl_toml__column(p, &k->line, &k->column);
	for (;;) {
		tl_toml__ws(p);
		int c = tl_toml__peek(p);
		TlBuf b;
		tl_buf_init(&b);
		if (c == '"' || c == '\'') {
			if (!tl_toml__string(p, false, &b)) {
				tl_buf_release(&b);
				return false;
			}
		} else if (tl_toml__bare_char(c)) {
			while (tl_toml__bare_char(tl_toml__peek(p)))
				tl_buf_addc(&b, p->s[p->pos++]);
		} else {
			tl_buf_release(&b);
			tl_toml__fail(p, c < 0 || c == '\n' || c == '\r' ? "expected a key"
								: "invalid character in a key");
			return false;
		}
		tl_array_push(&k->lens, (uint32_t)b.len);
		tl_array_push(&k->parts, tl_buf_detach(&b));
		tl_toml__ws(p);
		if (tl_toml__peek(p) != '.')
			return true;
		p->pos++;
	}
}

/* ---- scalars ------------------------------------------------------------------------ */

static bool tl_toml__digits(const char *s, size_t n, int (*ok)(int))
{
	/* Digits with single underscores between them. */
	if (!n || !ok((unsigned char)s[0]) || !ok((unsigned char)s[n - 1]))
		return false;
	for (size_t i = 1; i < n; i++) {
		if (s[i] == '_' && s[i - 1] == '_')
			return false;
		if (s[i] != '_' && !ok((unsigned char)s[i]))
			return false;
	}
	return true;
}

static int tl_toml__is_dec(int c) { return c >= '0' && c <= '9'; }
static int tl_toml__is_hex(int c) { return tl_toml__hex(c) >= 0; }
static int tl_toml__is_oct(int c) { return c >= '0' && c <= '7'; }
static int tl_toml__is_bin(int c) { return c == '0' || c == '1'; }

static char *tl_toml__strip(const char *s, size_t n)
{
	char *t = tl_malloc(n + 1);
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '_')
			t[w++] = s[i];
	t[w] = '\0';
	return t;
}

static bool tl_toml__number(TlTomlParser *p, const char *s, size_t n, TlTomlValue *v)
{
	size_t at = p->pos - n;
	const char *body = s;
	size_t bn = n;
	bool sign = n && (s[0] == '+' || s[0] == '-');
	if (sign) {
		body++;
		bn--;
	}
	if ((bn == 3 && (memcmp(body, "inf", 3) == 0 || memcmp(body, "nan", 3) == 0))) {
		v->type = TL_TOML_T_FLOAT;
		v->real = body[0] == 'i' ? (s[0] == '-' ? -INFINITY : INFINITY) : NAN;
		if (body[0] == 'n' && s[0] == '-')
			v->real = -NAN;
		v->text = tl_strndup(s, n);
		return true;
	}
	if (bn > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'o' || body[1] == 'b')) {
		int (*ok)(int) = body[1] == 'x' ? tl_toml__is_hex : body[1] == 'o' ? tl_toml__is_oct : tl_toml__is_bin;
		if (sign || !tl_toml__digits(body + 2, bn - 2, ok)) {
			tl_toml__fail_at(p, at, "invalid integer '%.*s'", (int)n, s);
			return false;
		}
		char *t = tl_toml__strip(body + 2, bn - 2);
		errno = 0;
		unsigned long long u = strtoull(t, NULL, body[1] == 'x' ? 16 : body[1] == 'o' ? 8 : 2);
		tl_free(t);
		if (errno == ERANGE || u > (unsigned long long)INT64_MAX) {
			tl_toml__fail_at(p, at, "integer '%.*s' does not fit in 64 bits", (int)n, s);
			return false;
		}
		v->type = TL_TOML_T_INTEGER;
		v->integer = (long long)u;
		return true;
	}
	/* Decimal: an integer part without leading zeros, then an optional
	 * fraction and exponent (which make it a float). */
	size_t i = 0;
	while (i < bn && (tl_toml__is_dec((unsigned char)body[i]) || body[i] == '_'))
		i++;
	size_t int_end = i;
	bool is_float = false, good = tl_toml__digits(body, int_end, tl_toml__is_dec) &&
				       !(int_end > 1 && body[0] == '0');
	if (good && i < bn && body[i] == '.') {
		is_float = true;
		size_t f = ++i;
		while (i < bn && (tl_toml__is_dec((unsigned char)body[i]) || body[i] == '_'))
			i++;
		good = tl_toml__digits(body + f, i - f, tl_toml__is_dec);
	}
	if (good && i < bn && (body[i] == 'e' || body[i] == 'E')) {
		is_float = true;
		i++;
		if (i < bn && (body[i] == '+' || body[i] == '-'))
			i++;
		size_t e = i;
		while (i < bn && (tl_toml__is_dec((unsigned char)body[i]) || body[i] == '_'))
			i++;
		good = tl_toml__digits(body + e, i - e, tl_toml__is_dec);
	}
	if (!good || i != bn) {
		tl_toml__fail_at(p, at, "invalid value '%.*s'", (int)n, s);
		return false;
	}
	char *t = tl_toml__strip(s, n);
	errno = 0;
	if (is_float) {
		v->type = TL_TOML_T_FLOAT;
		v->real = strtod(t, NULL);
		v->text = tl_strndup(s, n);
	} else {
		v->type = TL_TOML_T_INTEGER;
		v->integer = strtoll(t, NULL, 10);
	}
	tl_free(t);
	if (!is_float && errno == ERANGE) {
		tl_toml__fail_at(p, at, "integer '%.*s' does not fit in 64 bits", (int)n, s);
		return false;
	}
	return true;
}

/* Reads `count` decimal digits at s[*i] into *out. */
static bool tl_toml__fixed(const char *s, size_t n, size_t *i, int count, int *out)
{
	*out = 0;
	for (int k = 0; k < count; k++, (*i)++) {
		if (*i >= n || !tl_toml__is_dec((unsigned char)s[*i]))
			return false;
		*out = *out * 10 + (s[*i] - '0');
	}
	return true;
}

/* HH:MM:SS(.frac)? at s[*i]. */
static bool tl_toml__time(const char *s, size_t n, size_t *i)
{
	int h, m, sec;
	if (!tl_toml__fixed(s, n, i, 2, &h) || *i >= n || s[(*i)++] != ':' ||
	    !tl_toml__fixed(s, n, i, 2, &m) || *i >= n || s[(*i)++] != ':' ||
	    !tl_toml__fixed(s, n, i, 2, &sec))
		return false;
	if (h > 23 || m > 59 || sec > 60)
		return false;
	if (*i < n && s[*i] == '.') {
		size_t f = ++(*i);
		while (*i < n && tl_toml__is_dec((unsigned char)s[*i]))
			(*i)++;
		if (*i == f)
			return false;
	}
	return true;
}

static bool tl_toml__datetime(TlTomlParser *p, const char *s, size_t n, TlTomlValue *v)
{
	size_t i = 0;
	bool ok = true;
	if (n >= 3 && s[2] == ':') {
		ok = tl_toml__time(s, n, &i) && i == n;
		v->type = TL_TOML_T_TIME_LOCAL;
	} else {
		int y, mo, d;
		ok = tl_toml__fixed(s, n, &i, 4, &y) && i < n && s[i++] == '-' &&
		     tl_toml__fixed(s, n, &i, 2, &mo) && i < n && s[i++] == '-' &&
		     tl_toml__fixed(s, n, &i, 2, &d);
		static const int days[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
		ok = ok && mo >= 1 && mo <= 12 && d >= 1 && d <= days[mo - 1];
		bool leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
		if (ok && mo == 2 && d == 29 && !leap)
			ok = false;
		v->type = TL_TOML_T_DATE_LOCAL;
		if (ok && i < n) {
			ok = (s[i] == 'T' || s[i] == 't' || s[i] == ' ') && (i++, tl_toml__time(s, n, &i));
			v->type = TL_TOML_T_DATETIME_LOCAL;
			if (ok && i < n) {
				v->type = TL_TOML_T_DATETIME;
				if (s[i] == 'Z' || s[i] == 'z') {
					i++;
				} else if (s[i] == '+' || s[i] == '-') {
					int oh, om;
					i++;
					ok = tl_toml__fixed(s, n, &i, 2, &oh) && i < n && s[i++] == ':' &&
					     tl_toml__fixed(s, n, &i, 2, &om) && oh <= 23 && om <= 59;
				} else {
					ok = false;
				}
				ok = ok && i == n;
			}
		}
	}
	if (!ok) {
		tl_toml__fail_at(p, p->pos - n, "invalid date or time '%.*s'", (int)n, s);
		return false;
	}
	v->text = tl_strndup(s, n);
	for (char *c = v->text; *c; c++) {
		if (*c == 't' || *c == ' ')
			*c = 'T';
		else if (*c == 'z')
			*c = 'Z';
	}
	return true;
}

/* A scalar that is not a string: a boolean, number, date or time. */
static TlTomlValue *tl_toml__bare_value(TlTomlParser *p)
{
	uint32_t line, column;
	tl_toml__column(p, &line, &column);
	size_t start = p->pos;
	while (p->pos < p->len) {
		int c = (unsigned char)p->s[p->pos];
		if (tl_toml__bare_char(c) || c == '+' || c == '.' || c == ':') {
			p->pos++;
			continue;
		}
		/* A date, a space, then a time: one value. */
		if (c == ' ' && p->pos - start == 10 && p->s[start + 4] == '-' &&
		    tl_toml__is_dec(tl_toml__peek_at(p, 1)) && tl_toml__is_dec(tl_toml__peek_at(p, 2)) &&
		    tl_toml__peek_at(p, 3) == ':') {
			p->pos++;
			continue;
		}
		break;
	}
	const char *s = p->s + start;
	size_t n = p->pos - start;
	if (!n) {
		int c = tl_toml__peek(p);
		tl_toml__fail(p, c < 0 || c == '\n' || c == '\r' || c == '#' ? "expected a value"
									   : "invalid value");
		return NULL;
	}
	TlTomlValue *v = tl_toml__new(TL_TOML_T_BOOL, line, column);
	bool ok;
	if ((n == 4 && memcmp(s, "true", 4) == 0) || (n == 5 && memcmp(s, "false", 5) == 0)) {
		v->boolean = n == 4;
		ok = true;
	} else if ((n >= 10 && s[4] == '-' && tl_toml__is_dec((unsigned char)s[0])) ||
		   (n >= 3 && s[2] == ':' && tl_toml__is_dec((unsigned char)s[0]))) {
		ok = tl_toml__datetime(p, s, n, v);
	} else if (n && (tl_toml__is_dec((unsigned char)s[0]) || s[0] == '+' || s[0] == '-' ||
			 s[0] == 'i' || s[0] == 'n')) {
		ok = tl_toml__number(p, s, n, v);
	} else {
		tl_toml__fail_at(p, start, "invalid value '%.*s' (strings need quotes)", (int)n, s);
		ok = false;
	}
	if (!ok) {
		tl_toml__free(v);
		return NULL;
	}
	return v;
}

/* ---- keys into tables ------------------------------------------------------------------ */

/* Walks the parts of `k` but the last from `t`, creating tables as dotted
 * keys do; returns the table the last part goes in, or NULL on error. */
static TlTomlValue *tl_toml__dotted_parent(TlTomlParser *p, TlTomlValue *t, const TlTomlKey *k,
					   size_t at)
{
	for (uint32_t i = 0; i + 1 < k->parts.size; i++) {
		TlTomlValue *next = tl_toml__lookup(t, k->parts.items[i], k->lens.items[i]);
		if (!next) {
			next = tl_toml__new(TL_TOML_T_TABLE, k->line, k->column);
			next->flags = TL_TOML__DOTTED;
			tl_toml__insert(t, k->parts.items[i], k->lens.items[i], next, k->line, k->column);
			tl_array_push(&p->dotted, next);
		} else if (next->type != TL_TOML_T_TABLE) {
			tl_toml__fail_at(p, at, "key '%s' is already a value, not a table", k->parts.items[i]);
			return NULL;
		} else if (next->flags & (TL_TOML__EXPLICIT | TL_TOML__FROZEN)) {
			/* Dotted keys may add to tables they made in this section, and
			 * to tables only named on the way to a header's table. */
			tl_toml__fail_at(p, at, "table '%s' is already defined", k->parts.items[i]);
			return NULL;
		}
		t = next;
	}
	return t;
}

/* Adds `v` at key `k` below table `t` (a key/value line, or a member of an
 * inline table). Takes `v`, also on error. */
static bool tl_toml__put(TlTomlParser *p, TlTomlValue *t, const TlTomlKey *k, size_t at,
			 TlTomlValue *v)
{
	TlTomlValue *parent = tl_toml__dotted_parent(p, t, k, at);
	uint32_t last = k->parts.size - 1;
	if (parent && tl_toml__lookup(parent, k->parts.items[last], k->lens.items[last])) {
		tl_toml__fail_at(p, at, "duplicate key '%s'", k->parts.items[last]);
		parent = NULL;
	}
	if (!parent) {
		tl_toml__free(v);
		return false;
	}
	tl_toml__insert(parent, k->parts.items[last], k->lens.items[last], v, k->line, k->column);
	return true;
}

/* ---- values: an explicit stack for arrays and inline tables ---------------------------- */

/* Reads the key and '=' of an inline table's next member into frame `f`. */
static bool tl_toml__inline_key(TlTomlParser *p, TlTomlFrame *f)
{
	TlTomlKey k;
	size_t at = p->pos;
	bool ok = tl_toml__key(p, &k);
	if (ok && tl_toml__peek(p) != '=') {
		tl_toml__fail(p, "expected '=' after a key");
		ok = false;
	}
	if (ok) {
		p->pos++;
		tl_toml__ws(p);
		TlTomlValue *parent = tl_toml__dotted_parent(p, f->v, &k, at);
		uint32_t last = k.parts.size - 1;
		if (parent && tl_toml__lookup(parent, k.parts.items[last], k.lens.items[last])) {
			tl_toml__fail_at(p, at, "duplicate key '%s'", k.parts.items[last]);
			parent = NULL;
		}
		ok = parent != NULL;
		if (ok) {
			f->target = parent;
			f->key = k.parts.items[last];
			f->key_len = k.lens.items[last];
			f->key_line = k.line;
			f->key_column = k.column;
			k.parts.items[last] = NULL;
		}
	}
	tl_toml__key_release(&k);
	return ok;
}

/* Reads one value of any type. Returns it (caller owns), or NULL on error. */
static TlTomlValue *tl_toml__value(TlTomlParser *p)
{
	TlArray(TlTomlFrame) stack;
	tl_array_init(&stack);
	TlTomlValue *done = NULL;
	for (;;) {
		/* Expecting a value. */
		uint32_t line, column;
		tl_toml__column(p, &line, &column);
		int c = tl_toml__peek(p);
		if (c == '[' || c == '{') {
			TlTomlFrame f = { tl_toml__new(c == '[' ? TL_TOML_T_ARRAY : TL_TOML_T_TABLE, line, column),
					  NULL, NULL, 0, 0, 0 };
			p->pos++;
			tl_array_push(&stack, f);
			TlTomlFrame *top = tl_array_last(&stack);
			if (c == '[') {
				if (!tl_toml__gap(p))
					goto failed;
				if (tl_toml__peek(p) != ']')
					continue;
			} else {
				tl_toml__ws(p);
				if (tl_toml__peek(p) != '}') {
					if (!tl_toml__inline_key(p, top))
						goto failed;
					continue;
				}
			}
			p->pos++;
			done = top->v;
			stack.size--;
		} else if (c == '"' || c == '\'') {
			TlBuf b;
			tl_buf_init(&b);
			if (!tl_toml__string(p, true, &b)) {
				tl_buf_release(&b);
				goto failed;
			}
			done = tl_toml__new(TL_TOML_T_STRING, line, column);
			done->len = (uint32_t)b.len;
			done->text = tl_buf_detach(&b);
		} else if (!(done = tl_toml__bare_value(p))) {
			goto failed;
		}
		/* A value is complete: hand it to the open containers, closing
		 * those that end here. */
		for (;;) {
			if (!stack.size) {
				tl_array_release(&stack);
				return done;
			}
			TlTomlFrame *top = tl_array_last(&stack);
			if (top->v->type == TL_TOML_T_ARRAY) {
				tl_array_push(&top->v->items, done);
				if (done->type == TL_TOML_T_TABLE || done->type == TL_TOML_T_ARRAY)
					done->flags |= TL_TOML__FROZEN;
				done = NULL;
				if (!tl_toml__gap(p))
					goto failed;
				if (tl_toml__peek(p) == ',') {
					p->pos++;
					if (!tl_toml__gap(p))
						goto failed;
					if (tl_toml__peek(p) != ']')
						break; /* the next element */
				} else if (tl_toml__peek(p) != ']') {
					tl_toml__fail(p, "expected ',' or ']' in an array");
					goto failed;
				}
			} else {
				if (done->type == TL_TOML_T_TABLE || done->type == TL_TOML_T_ARRAY)
					done->flags |= TL_TOML__FROZEN;
				tl_toml__insert(top->target, top->key, top->key_len, done, top->key_line, top->key_column);
				tl_free(top->key);
				top->key = NULL;
				done = NULL;
				tl_toml__ws(p);
				if (tl_toml__peek(p) == ',') {
					p->pos++;
					tl_toml__ws(p);
					if (tl_toml__peek(p) == '}') {
						tl_toml__fail(p, "trailing comma in an inline table");
						goto failed;
					}
					if (!tl_toml__inline_key(p, top))
						goto failed;
					break; /* the member's value */
				}
				if (tl_toml__peek(p) != '}') {
					tl_toml__fail(p, "expected ',' or '}' in an inline table (it must fit on one line)");
					goto failed;
				}
			}
			p->pos++;
			done = top->v;
			stack.size--;
		}
	}
failed:
	tl_toml__free(done);
	for (uint32_t i = 0; i < stack.size; i++) {
		tl_toml__free(stack.items[i].v);
		tl_free(stack.items[i].key);
	}
	tl_array_release(&stack);
	return NULL;
}

/* ---- lines ------------------------------------------------------------------------------ */

static bool tl_toml__keyval(TlTomlParser *p)
{
	TlTomlKey k;
	size_t at = p->pos;
	if (!tl_toml__key(p, &k)) {
		tl_toml__key_release(&k);
		return false;
	}
	bool ok = false;
	if (tl_toml__peek(p) != '=') {
		tl_toml__fail(p, "expected '=' after a key");
	} else {
		p->pos++;
		tl_toml__ws(p);
		TlTomlValue *v = tl_toml__value(p);
		if (v) {
			if (v->type == TL_TOML_T_TABLE || v->type == TL_TOML_T_ARRAY)
				v->flags |= TL_TOML__FROZEN;
			ok = tl_toml__put(p, p->current, &k, at, v) && tl_toml__line_end(p, "a value");
		}
	}
	tl_toml__key_release(&k);
	return ok;
}

/* A [table] or [[array of tables]] header. */
static bool tl_toml__header(TlTomlParser *p)
{
	size_t at = p->pos;
	bool aot = tl_toml__peek_at(p, 1) == '[';
	uint32_t line, column;
	tl_toml__column(p, &line, &column);
	p->pos += aot ? 2 : 1;
	/* The tables dotted keys made in the section that ends here are closed:
	 * no later header or dotted key may add to them. */
	for (uint32_t i = 0; i < p->dotted.size; i++)
		p->dotted.items[i]->flags = (uint8_t)((p->dotted.items[i]->flags & ~TL_TOML__DOTTED) | TL_TOML__EXPLICIT);
	p->dotted.size = 0;
	TlTomlKey k;
	bool ok = tl_toml__key(p, &k);
	if (ok && (tl_toml__peek(p) != ']' || (aot && tl_toml__peek_at(p, 1) != ']'))) {
		tl_toml__fail(p, aot ? "expected ']]' to close the header" : "expected ']' to close the header");
		ok = false;
	}
	if (ok)
		p->pos += aot ? 2 : 1;
	TlTomlValue *t = p->root;
	for (uint32_t i = 0; ok && i + 1 < k.parts.size; i++) {
		TlTomlValue *next = tl_toml__lookup(t, k.parts.items[i], k.lens.items[i]);
		if (!next) {
			next = tl_toml__new(TL_TOML_T_TABLE, line, column);
			tl_toml__insert(t, k.parts.items[i], k.lens.items[i], next, line, column);
		} else if (next->type == TL_TOML_T_ARRAY && (next->flags & TL_TOML__AOT) && next->items.size) {
			next = next->items.items[next->items.size - 1];
		} else if (next->type != TL_TOML_T_TABLE || (next->flags & TL_TOML__FROZEN)) {
			tl_toml__fail_at(p, at, "'%s' is already a value, not a table", k.parts.items[i]);
			ok = false;
		}
		t = next;
	}
	if (ok) {
		uint32_t last = k.parts.size - 1;
		TlTomlValue *have = tl_toml__lookup(t, k.parts.items[last], k.lens.items[last]);
		if (aot) {
			if (!have) {
				have = tl_toml__new(TL_TOML_T_ARRAY, line, column);
				have->flags = TL_TOML__AOT;
				tl_toml__insert(t, k.parts.items[last], k.lens.items[last], have, line, column);
			}
			if (have->type != TL_TOML_T_ARRAY || !(have->flags & TL_TOML__AOT)) {
				tl_toml__fail_at(p, at, "'%s' is already defined, not as an array of tables",
						 k.parts.items[last]);
				ok = false;
			} else {
				TlTomlValue *elem = tl_toml__new(TL_TOML_T_TABLE, line, column);
				elem->flags = TL_TOML__EXPLICIT;
				tl_array_push(&have->items, elem);
				p->current = elem;
			}
		} else if (!have) {
			have = tl_toml__new(TL_TOML_T_TABLE, line, column);
			have->flags = TL_TOML__EXPLICIT;
			tl_toml__insert(t, k.parts.items[last], k.lens.items[last], have, line, column);
			p->current = have;
		} else if (have->type != TL_TOML_T_TABLE || have->flags) {
			tl_toml__fail_at(p, at, have->type == TL_TOML_T_TABLE ? "table '%s' is already defined"
									   : "'%s' is already a value, not a table",
					 k.parts.items[last]);
			ok = false;
		} else {
			/* Made implicitly by an earlier header: defined now. */
			have->flags = TL_TOML__EXPLICIT;
			have->line = line;
			have->column = column;
			p->current = have;
		}
	}
	tl_toml__key_release(&k);
	return ok && tl_toml__line_end(p, "a table header");
}

/* ---- the flat view ------------------------------------------------------------------------ */

static void tl_toml__path_add(TlBuf *b, const char *key, uint32_t len)
{
	if (b->len)
		tl_buf_addc(b, '.');
	bool bare = len > 0;
	for (uint32_t i = 0; i < len && bare; i++)
		bare = tl_toml__bare_char((unsigned char)key[i]);
	if (bare) {
		tl_buf_addn(b, key, len);
		return;
	}
	tl_buf_addc(b, '"');
	for (uint32_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)key[i];
		if (c == '"' || c == '\\')
			tl_buf_addf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7F)
			tl_buf_addf(b, "\\u%04X", c);
		else
			tl_buf_addc(b, (char)c);
	}
	tl_buf_addc(b, '"');
}

typedef struct TlTomlWalk {
	const TlTomlValue *table;
	char *path;
} TlTomlWalk;

static int tl_toml__cmp_entry(const void *a, const void *b)
{
	const TlTomlEntry *x = a, *y = b;
	if (x->key_line != y->key_line)
		return x->key_line < y->key_line ? -1 : 1;
	return x->key_column < y->key_column ? -1 : x->key_column > y->key_column;
}

static void tl_toml__flatten(TlToml *doc)
{
	TlArray(TlTomlWalk) todo;
	tl_array_init(&todo);
	TlTomlWalk w0 = { doc->root, tl_strdup("") };
	tl_array_push(&todo, w0);
	while (todo.size) {
		TlTomlWalk w = tl_array_pop(&todo);
		for (uint32_t i = 0; i < w.table->members.size; i++) {
			const TlTomlMember *m = &w.table->members.items[i];
			const TlTomlValue *v = m->value;
			TlBuf path;
			tl_buf_init(&path);
			tl_buf_add(&path, w.path);
			tl_toml__path_add(&path, m->key, m->key_len);
			if (v->type == TL_TOML_T_TABLE) {
				TlTomlWalk sub = { v, tl_buf_detach(&path) };
				tl_array_push(&todo, sub);
				continue;
			}
			if (v->type == TL_TOML_T_ARRAY && (v->flags & TL_TOML__AOT)) {
				for (uint32_t k = 0; k < v->items.size; k++) {
					TlBuf ep;
					tl_buf_init(&ep);
					tl_buf_addf(&ep, "%s[%u]", path.data, k);
					TlTomlWalk sub = { v->items.items[k], tl_buf_detach(&ep) };
					tl_array_push(&todo, sub);
				}
				tl_buf_release(&path);
				continue;
			}
			tl_buf_release(&path);
			TlTomlEntry e;
			memset(&e, 0, sizeof e);
			e.table = tl_strdup(w.path);
			e.key = tl_strdup(m->key);
			e.value = v;
			e.line = v->line;
			e.column = v->column;
			e.key_line = m->line;
			e.key_column = m->column;
			tl_array_init(&e.array);
			switch (v->type) {
			case TL_TOML_T_STRING: e.kind = TL_TOML_STRING; e.str = v->text; break;
			case TL_TOML_T_BOOL: e.kind = TL_TOML_BOOL; e.boolean = v->boolean; break;
			case TL_TOML_T_INTEGER: e.kind = TL_TOML_INT; e.integer = v->integer; break;
			case TL_TOML_T_ARRAY:
				e.kind = TL_TOML_STRING_ARRAY;
				for (uint32_t k = 0; k < v->items.size; k++)
					if (v->items.items[k]->type != TL_TOML_T_STRING)
						e.kind = TL_TOML_OTHER;
				for (uint32_t k = 0; e.kind == TL_TOML_STRING_ARRAY && k < v->items.size; k++)
					tl_array_push(&e.array, tl_strdup(v->items.items[k]->text));
				break;
			default: e.kind = TL_TOML_OTHER; break;
			}
			tl_array_push(&doc->entries, e);
		}
		tl_free(w.path);
	}
	tl_array_release(&todo);
	tl_array_sort(&doc->entries, tl_toml__cmp_entry);
}

/* ---- the document ---------------------------------------------------------------------------- */

bool tl_toml_parse(TlToml *doc, const char *text, size_t len, char *why, size_t why_size)
{
	tl_array_init(&doc->entries);
	doc->root = NULL;
	TlTomlParser p;
	memset(&p, 0, sizeof p);
	p.s = text;
	p.len = len;
	p.line = 1;
	p.why = why;
	p.why_size = why_size;
	p.root = p.current = tl_toml__new(TL_TOML_T_TABLE, 1, 1);
	p.root->flags = TL_TOML__EXPLICIT;
	tl_array_init(&p.dotted);
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		p.pos = p.line_start = 3; /* a byte-order mark is not part of the document */
	size_t bad = tl_utf8_invalid_offset((const unsigned char *)text, len);
	if (bad < len)
		tl_toml__fail_at(&p, bad, "invalid UTF-8");
	while (!p.failed && p.pos < len) {
		tl_toml__ws(&p);
		int c = tl_toml__peek(&p);
		if (c < 0)
			break;
		if (c == '#') {
			tl_toml__line_end(&p, "a comment");
		} else if (c == '\n' || c == '\r') {
			if (!tl_toml__newline(&p))
				tl_toml__fail(&p, "a carriage return must be followed by a newline");
		} else if (c == '[') {
			tl_toml__header(&p);
		} else {
			tl_toml__keyval(&p);
		}
	}
	tl_array_release(&p.dotted);
	if (p.failed) {
		tl_toml__free(p.root);
		return false;
	}
	doc->root = p.root;
	tl_toml__flatten(doc);
	return true;
}

void tl_toml_release(TlToml *doc)
{
	for (uint32_t i = 0; i < doc->entries.size; i++) {
		TlTomlEntry *e = &doc->entries.items[i];
		tl_free(e->table);
		tl_free(e->key);
		tl_str_array_release(&e->array);
	}
	tl_array_release(&doc->entries);
	tl_toml__free(doc->root);
	doc->root = NULL;
}

const TlTomlEntry *tl_toml_get(const TlToml *doc, const char *table, const char *key)
{
	for (uint32_t i = 0; i < doc->entries.size; i++) {
		const TlTomlEntry *e = &doc->entries.items[i];
		if (strcmp(e->table, table) == 0 && strcmp(e->key, key) == 0)
			return e;
	}
	return NULL;
}
