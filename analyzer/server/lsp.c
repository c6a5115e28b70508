#include "server/lsp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"

/* Bytes read per read(2). */
#define TL_LSP_CHUNK 65536

static const char tl_lsp__header_name[] = "Content-Length";

void tl_lsp_reader_init(TlLspReader *r, int fd)
{
	r->fd = fd;
	tl_buf_init(&r->in);
	r->pos = 0;
	r->skip = 0;
	r->eof = false;
}

void tl_lsp_reader_release(TlLspReader *r)
{
	tl_buf_release(&r->in);
}

/* Drops the consumed prefix once it is worth a memmove. */
static void tl_lsp__compact(TlLspReader *r)
{
	if (r->pos == 0)
		return;
	if (r->pos == r->in.len) {
		tl_buf_clear(&r->in);
		r->pos = 0;
	} else if (r->pos >= TL_LSP_CHUNK) {
		memmove(r->in.data, r->in.data + r->pos, r->in.len - r->pos);
		r->in.len -= r->pos;
		r->in.data[r->in.len] = '\0';
		r->pos = 0;
	}
}

bool tl_lsp_reader_fill(TlLspReader *r)
{
	char chunk[TL_LSP_CHUNK];
	ssize_t n = read(r->fd, chunk, sizeof chunk);
	if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
		return true;
	if (n <= 0) {
		r->eof = true;
		return false;
	}
	tl_buf_addn(&r->in, chunk, (size_t)n);
	return true;
}

/* Moves past bad bytes: to the next "Content-Length" after the current
 * position, else to the longest tail that could begin one (so that a header
 * split across reads survives), always at least one byte forward. */
static void tl_lsp__resync(TlLspReader *r)
{
	const char *base = r->in.data;
	size_t nl = sizeof tl_lsp__header_name - 1;
	for (size_t i = r->pos + 1; i < r->in.len; i++) {
		size_t avail = r->in.len - i, k = avail < nl ? avail : nl;
		if (strncasecmp(base + i, tl_lsp__header_name, k) == 0) {
			r->pos = i;
			return;
		}
	}
	r->pos = r->in.len;
}

static bool tl_lsp__is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Parses the header block [h, h + n) (lines ended by CRLF, without the
 * blank line). Returns false, with the reason, when it is not one. */
static bool tl_lsp__headers(const char *h, size_t n, uint64_t *length, char *why, size_t why_size)
{
	bool have = false;
	size_t i = 0;
	while (i < n) {
		const char *eol = memchr(h + i, '\r', n - i);
		size_t end = eol ? (size_t)(eol - h) : n;
		const char *colon = memchr(h + i, ':', end - i);
		if (!colon) {
			snprintf(why, why_size, "malformed header line (no ':')");
			return false;
		}
		size_t name_len = (size_t)(colon - (h + i));
		if (name_len == sizeof tl_lsp__header_name - 1 &&
		    strncasecmp(h + i, tl_lsp__header_name, name_len) == 0) {
			size_t k = (size_t)(colon - h) + 1;
			while (k < end && tl_lsp__is_space(h[k]))
				k++;
			uint64_t v = 0;
			size_t digits = 0;
			while (k < end && h[k] >= '0' && h[k] <= '9' && digits < 19) {
				v = v * 10 + (uint64_t)(h[k] - '0');
				k++;
				digits++;
			}
			while (k < end && tl_lsp__is_space(h[k]))
				k++;
			if (!digits || k != end) {
				snprintf(why, why_size, "invalid Content-Length value");
				return false;
			}
			*length = v;
			have = true;
		}
		i = end + 2; /* past CRLF */
	}
	if (!have) {
		snprintf(why, why_size, "header without Content-Length");
		return false;
	}
	return true;
}

/* The "\r\n\r\n" that ends a header block, or NULL. */
static const char *tl_lsp__blank_line(const char *p, size_t n)
{
	for (size_t i = 0; i + 4 <= n; i++)
		if (p[i] == '\r' && memcmp(p + i, "\r\n\r\n", 4) == 0)
			return p + i;
	return NULL;
}

/* Finds the integers of 19 digits or more outside strings (jansson refuses
 * those beyond 64 bits); with `out`, copies the text there with ".0" after
 * each, so that it reads as a real. Returns whether there was one. */
static bool tl_lsp__scan_big_integers(const char *p, size_t n, TlBuf *out)
{
	bool found = false, in_string = false;
	size_t copied = 0;
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = false;
			continue;
		}
		if (c == '"') {
			in_string = true;
			continue;
		}
		if (c != '-' && (c < '0' || c > '9'))
			continue;
		size_t k = i + (c == '-');
		size_t d = k;
		while (d < n && p[d] >= '0' && p[d] <= '9')
			d++;
		bool real = d < n && (p[d] == '.' || p[d] == 'e' || p[d] == 'E');
		if (d - k >= 19 && !real) {
			found = true;
			if (out) {
				tl_buf_addn(out, p + copied, d - copied);
				tl_buf_add(out, ".0");
				copied = d;
			}
		}
		i = d > i ? d - 1 : i;
	}
	if (out)
		tl_buf_addn(out, p + copied, n - copied);
	return found;
}

static bool tl_lsp__has_big_integer(const char *p, size_t n)
{
	return tl_lsp__scan_big_integers(p, n, NULL);
}

/* The text with each such integer followed by ".0". */
static void tl_lsp__big_integers_as_reals(const char *p, size_t n, TlBuf *out)
{
	tl_lsp__scan_big_integers(p, n, out);
}

TlLspRead tl_lsp_reader_next(TlLspReader *r, json_t **msg, char *why, size_t why_size)
{
	*msg = NULL;
	if (r->skip) {
		size_t avail = r->in.len - r->pos, d = avail < r->skip ? avail : r->skip;
		r->pos += d;
		r->skip -= d;
		if (r->skip) {
			tl_lsp__compact(r);
			return TL_LSP_READ_NONE;
		}
	}
	/* Blank lines between messages are tolerated. */
	while (r->pos < r->in.len && (r->in.data[r->pos] == '\r' || r->in.data[r->pos] == '\n'))
		r->pos++;
	const char *p = r->in.data + r->pos;
	size_t avail = r->in.len - r->pos;
	if (!avail) {
		tl_lsp__compact(r);
		return TL_LSP_READ_NONE;
	}
	const char *end = tl_lsp__blank_line(p, avail);
	if (!end) {
		const char *nl = memchr(p, '\n', avail);
		bool junk = nl && !memchr(p, ':', (size_t)(nl - p));
		if (!junk && avail <= TL_LSP_MAX_HEADER) {
			tl_lsp__compact(r);
			return TL_LSP_READ_NONE; /* the rest of the header is on its way */
		}
		snprintf(why, why_size, junk ? "expected a header, got other bytes"
					     : "no end of header within 4096 bytes");
		tl_lsp__resync(r);
		return TL_LSP_READ_BAD_FRAME;
	}
	size_t hlen = (size_t)(end - p);
	uint64_t length = 0;
	if (hlen > TL_LSP_MAX_HEADER || !tl_lsp__headers(p, hlen, &length, why, why_size)) {
		if (hlen > TL_LSP_MAX_HEADER)
			snprintf(why, why_size, "header longer than 4096 bytes");
		tl_lsp__resync(r);
		return TL_LSP_READ_BAD_FRAME;
	}
	hlen += 4;
	if (length > TL_LSP_MAX_BODY) {
		snprintf(why, why_size, "message of %llu bytes is over the %u-byte limit; skipped",
			 (unsigned long long)length, TL_LSP_MAX_BODY);
		r->pos += hlen;
		r->skip = (size_t)length;
		return TL_LSP_READ_BAD_FRAME;
	}
	if (avail - hlen < length) {
		tl_lsp__compact(r);
		return TL_LSP_READ_NONE;
	}
	json_error_t err;
	/* NUL is legal inside a JSON string: let it through, so that a document
	 * holding one is answered with a diagnostic rather than dropped. Any
	 * value is decoded (a scalar is answered as an invalid request). */
	json_t *j = json_loadb(p + hlen, (size_t)length, JSON_ALLOW_NUL | JSON_DECODE_ANY, &err);
	if (!j && tl_lsp__has_big_integer(p + hlen, (size_t)length)) {
		/* An integer beyond 64 bits is valid JSON that jansson refuses:
		 * read such numbers as reals, so that the message (and its id)
		 * survives; a handler sees a non-integer where it wanted one. */
		TlBuf relaxed;
		tl_buf_init(&relaxed);
		tl_lsp__big_integers_as_reals(p + hlen, (size_t)length, &relaxed);
		j = json_loadb(relaxed.data, relaxed.len, JSON_ALLOW_NUL | JSON_DECODE_ANY, &err);
		tl_buf_release(&relaxed);
	}
	r->pos += hlen + (size_t)length;
	if (!j) {
		snprintf(why, why_size, "invalid JSON at line %d, column %d: %s", err.line, err.column,
			 err.text);
		return TL_LSP_READ_BAD_JSON;
	}
	*msg = j;
	return TL_LSP_READ_MESSAGE;
}

static bool tl_lsp__write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		s += w;
		n -= (size_t)w;
	}
	return true;
}

bool tl_lsp_write(int fd, const json_t *msg)
{
	char *body = json_dumps(msg, JSON_COMPACT);
	if (!body)
		return false;
	size_t n = strlen(body);
	char head[64];
	int hn = snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", n);
	bool ok = tl_lsp__write_all(fd, head, (size_t)hn) && tl_lsp__write_all(fd, body, n);
	free(body); /* jansson's allocation */
	return ok;
}

json_t *tl_lsp_response(json_t *id, json_t *result)
{
	return json_pack("{s:s, s:o, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(), "result",
			 result ? result : json_null());
}

json_t *tl_lsp_error(json_t *id, int code, const char *message)
{
	return json_pack("{s:s, s:o, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", id ? id : json_null(),
			 "error", "code", code, "message", message);
}

json_t *tl_lsp_notification(const char *method, json_t *params)
{
	return json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method", method, "params",
			 params ? params : json_null());
}

const char *tl_lsp_string(const json_t *o, const char *key, size_t *len)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_string(v))
		return NULL;
	if (len)
		*len = json_string_length(v);
	return json_string_value(v);
}

/* ---- text coordinates -------------------------------------------------------------- */

/* Bytes of the UTF-8 sequence led by `c` (the text is valid UTF-8). */
static uint32_t tl_lsp__seq_len(unsigned char c)
{
	return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

void tl_lsp_lines_init(TlLspLines *l, const char *text, uint32_t len)
{
	l->text = text;
	l->len = len;
	tl_array_init(&l->starts);
	tl_array_push(&l->starts, 0);
	for (uint32_t i = 0; i < len; i++) {
		char c = text[i];
		if (c == '\r' && i + 1 < len && text[i + 1] == '\n')
			i++;
		if (c == '\n' || c == '\r')
			tl_array_push(&l->starts, i + 1);
	}
}

void tl_lsp_lines_release(TlLspLines *l)
{
	tl_array_release(&l->starts);
}

void tl_lsp_lines_span(const TlLspLines *l, uint32_t line, uint32_t *start, uint32_t *end)
{
	if (line >= l->starts.size) {
		*start = *end = l->len;
		return;
	}
	uint32_t s = l->starts.items[line];
	uint32_t e = line + 1 < l->starts.size ? l->starts.items[line + 1] : l->len;
	while (e > s && (l->text[e - 1] == '\n' || l->text[e - 1] == '\r'))
		e--;
	*start = s;
	*end = e;
}

/* Walks `character` UTF-16 units into [start, end). */
static uint32_t tl_lsp__advance(const char *text, uint32_t start, uint32_t end, uint32_t character)
{
	uint32_t i = start, units = 0;
	while (i < end && units < character) {
		uint32_t n = tl_lsp__seq_len((unsigned char)text[i]);
		uint32_t u = n == 4 ? 2 : 1;
		if (units + u > character || i + n > end)
			break;
		units += u;
		i += n;
	}
	return i;
}

uint32_t tl_lsp_lines_offset(const TlLspLines *l, TlLspPos p)
{
	if (p.line >= l->starts.size)
		return l->len;
	uint32_t s, e;
	tl_lsp_lines_span(l, p.line, &s, &e);
	return tl_lsp__advance(l->text, s, e, p.character);
}

TlLspPos tl_lsp_lines_position(const TlLspLines *l, uint32_t byte)
{
	if (byte > l->len)
		byte = l->len;
	uint32_t lo = 0, hi = l->starts.size;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (l->starts.items[mid] <= byte)
			lo = mid;
		else
			hi = mid;
	}
	TlLspPos p = { lo, 0 };
	for (uint32_t i = l->starts.items[lo]; i < byte;) {
		uint32_t n = tl_lsp__seq_len((unsigned char)l->text[i]);
		p.character += n == 4 ? 2 : 1;
		i += n;
	}
	return p;
}

uint32_t tl_lsp_offset(const char *text, uint32_t len, TlLspPos p)
{
	uint32_t i = 0;
	for (uint32_t line = 0; line < p.line; line++) {
		while (i < len && text[i] != '\n' && text[i] != '\r')
			i++;
		if (i >= len)
			return len;
		if (text[i] == '\r' && i + 1 < len && text[i + 1] == '\n')
			i++;
		i++;
	}
	uint32_t e = i;
	while (e < len && text[e] != '\n' && text[e] != '\r')
		e++;
	return tl_lsp__advance(text, i, e, p.character);
}

bool tl_lsp_pos_parse(const json_t *o, TlLspPos *p)
{
	json_t *l = json_object_get(o, "line"), *c = json_object_get(o, "character");
	if (!json_is_integer(l) || !json_is_integer(c) || json_integer_value(l) < 0 ||
	    json_integer_value(c) < 0 || json_integer_value(l) > UINT32_MAX ||
	    json_integer_value(c) > UINT32_MAX)
		return false;
	p->line = (uint32_t)json_integer_value(l);
	p->character = (uint32_t)json_integer_value(c);
	return true;
}

bool tl_lsp_range_parse(const json_t *o, TlLspRange *r)
{
	return tl_lsp_pos_parse(json_object_get(o, "start"), &r->start) &&
	       tl_lsp_pos_parse(json_object_get(o, "end"), &r->end);
}

json_t *tl_lsp_range_json(TlLspRange r)
{
	return json_pack("{s:{s:I, s:I}, s:{s:I, s:I}}", "start", "line", (json_int_t)r.start.line,
			 "character", (json_int_t)r.start.character, "end", "line",
			 (json_int_t)r.end.line, "character", (json_int_t)r.end.character);
}

bool tl_lsp_pos_le(TlLspPos a, TlLspPos b)
{
	return a.line < b.line || (a.line == b.line && a.character <= b.character);
}

/* ---- URIs ----------------------------------------------------------------------------- */

static int tl_lsp__hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

char *tl_lsp_uri_path(const char *uri)
{
	if (strncasecmp(uri, "file://", 7) != 0)
		return NULL;
	const char *p = uri + 7;
	/* An authority: empty or localhost; another host is not a local file. */
	if (*p != '/') {
		if (strncasecmp(p, "localhost/", 10) != 0)
			return NULL;
		p += 9;
	}
	TlBuf b;
	tl_buf_init(&b);
	for (; *p && *p != '?' && *p != '#'; p++) {
		if (*p == '%') {
			int hi = tl_lsp__hex(p[1]), lo = hi >= 0 ? tl_lsp__hex(p[2]) : -1;
			if (lo < 0 || (hi == 0 && lo == 0)) {
				tl_buf_release(&b);
				return NULL;
			}
			tl_buf_addc(&b, (char)(hi * 16 + lo));
			p += 2;
		} else {
			tl_buf_addc(&b, *p);
		}
	}
	return tl_buf_detach(&b);
}
