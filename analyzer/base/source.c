#include "base/source.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"

size_t tl_utf8_invalid_offset(const unsigned char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		/* ASCII eight bytes at a time (most source is). */
		while (i + 8 <= len) {
			uint64_t word;
			memcpy(&word, s + i, sizeof word);
			if (word & 0x8080808080808080ULL)
				break;
			i += 8;
		}
		if (i >= len)
			break;
		unsigned c = s[i];
		size_t n;
		uint32_t cp;
		if (c < 0x80) {
			i++;
			continue;
		} else if (c >= 0xC2 && c <= 0xDF) {
			n = 1;
			cp = c & 0x1F;
		} else if (c >= 0xE0 && c <= 0xEF) {
			n = 2;
			cp = c & 0x0F;
		} else if (c >= 0xF0 && c <= 0xF4) {
			n = 3;
			cp = c & 0x07;
		} else {
			return i;
		}
		for (size_t k = 1; k <= n; k++) {
			if (i + k >= len || (s[i + k] & 0xC0) != 0x80)
				return i;
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		/* Overlong forms, surrogates and values past U+10FFFF. */
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
			return i;
		i += n + 1;
	}
	return len;
}

uint32_t tl_utf8_count(const char *s, size_t n)
{
	uint32_t count = 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			count++;
	return count;
}

static void tl_source__index_lines(TlSource *src)
{
	tl_array_init(&src->line_starts);
	tl_array_push(&src->line_starts, 0);
	if (!memchr(src->text, '\r', src->length)) {
		/* LF only, the common case: memchr finds each one. */
		const char *p = src->text, *end = src->text + src->length;
		while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
			p++;
			tl_array_push(&src->line_starts, (uint32_t)(p - src->text));
		}
		return;
	}
	for (uint32_t i = 0; i < src->length; i++) {
		char c = src->text[i];
		if (c == '\n') {
			tl_array_push(&src->line_starts, i + 1);
		} else if (c == '\r') {
			/* CRLF is one terminator; a lone CR ends a line too, as
			 * in Python's universal newlines. */
			if (i + 1 < src->length && src->text[i + 1] == '\n')
				i++;
			tl_array_push(&src->line_starts, i + 1);
		}
	}
}

/* tl_source_init_text; with `owned` (the same text, NUL-terminated, from
 * tl_malloc), the source keeps that buffer instead of copying it, or frees
 * it when it refuses the text or needs a copy anyway (past a byte-order
 * mark). */
static bool tl_source__init(TlSource *src, const char *path, const char *text, size_t len,
			    char *owned, char *why, size_t why_size);

bool tl_source_init_text(TlSource *src, const char *path, const char *text,
			 size_t len, char *why, size_t why_size)
{
	return tl_source__init(src, path, text, len, NULL, why, why_size);
}

static bool tl_source__init(TlSource *src, const char *path, const char *text, size_t len,
			    char *owned, char *why, size_t why_size)
{
	bool ok = false;
	memset(src, 0, sizeof *src);
	if (len > TL_SOURCE_MAX_BYTES) {
		snprintf(why, why_size, "file too large (%zu bytes; the limit is %u)",
			 len, TL_SOURCE_MAX_BYTES);
		goto cleanup;
	}
	const unsigned char *u = (const unsigned char *)text;
	if (len >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF))) {
		snprintf(why, why_size, "UTF-16 text (byte-order mark 0x%02X 0x%02X); save it as UTF-8",
			 u[0], u[1]);
		goto cleanup;
	}
	bool bom = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0;
	if (bom) {
		text += 3;
		len -= 3;
	}
	if (memchr(text, '\0', len)) {
		snprintf(why, why_size, "binary file (contains NUL bytes)");
		goto cleanup;
	}
	size_t bad = tl_utf8_invalid_offset((const unsigned char *)text, len);
	if (bad < len) {
		/* Count lines as the line index does: LF, CRLF and a lone CR. */
		uint32_t line = 1;
		size_t line_start = 0;
		for (size_t i = 0; i < bad; i++) {
			if (text[i] == '\r' && i + 1 < bad && text[i + 1] == '\n')
				i++;
			if (text[i] == '\n' || text[i] == '\r') {
				line++;
				line_start = i + 1;
			}
		}
		snprintf(why, why_size,
			 "not valid UTF-8 (byte 0x%02X at line %u, column %u)",
			 (unsigned char)text[bad], line,
			 tl_utf8_count(text + line_start, bad - line_start) + 1);
		goto cleanup;
	}
	src->path = tl_strdup(path);
	if (owned && !bom) {
		src->text = owned; /* text is owned: kept, not copied */
		owned = NULL;
	} else {
		src->text = tl_strndup(text, len);
	}
	src->length = (uint32_t)len;
	src->bom = bom;
	tl_source__index_lines(src);
	/* Lone CRs become LFs in the parser's copy (each CR found by memchr). */
	for (const char *cr = memchr(src->text, '\r', src->length); cr;
	     cr = memchr(cr + 1, '\r', src->length - (size_t)(cr + 1 - src->text))) {
		uint32_t i = (uint32_t)(cr - src->text);
		if (i + 1 < src->length && src->text[i + 1] == '\n')
			continue;
		if (!src->parse_text)
			src->parse_text = tl_strndup(src->text, src->length);
		src->parse_text[i] = '\n';
	}
	ok = true;
cleanup:
	tl_free(owned);
	return ok;
}

/* tl_source_read_fd, starting with room for `hint` bytes (a regular
 * file's size: one read, no growing) and keeping a NUL after the text. */
static bool tl_source__read(int fd, size_t hint, char **text, size_t *len, char *why,
			    size_t why_size)
{
	*text = NULL;
	*len = 0;
	/* One byte past the limit tells "at the limit" from "over it"
	 * without reading the rest (standard input may never end); one more
	 * keeps room for the NUL. */
	size_t want = (size_t)TL_SOURCE_MAX_BYTES + 2, n = 0;
	size_t cap = hint + 2 < 64 * 1024 ? 64 * 1024 : hint + 2;
	if (cap > want)
		cap = want;
	char *buf = tl_malloc(cap);
	for (;;) {
		if (n == cap) {
			cap = cap * 2 > want ? want : cap * 2;
			buf = tl_realloc(buf, cap);
		}
		ssize_t got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			/* A descriptor someone else made non-blocking: wait for data. */
			struct pollfd p = { fd, POLLIN, 0 };
			if (poll(&p, 1, -1) >= 0 || errno == EINTR)
				continue;
		}
		if (got < 0) {
			snprintf(why, why_size, "%s", strerror(errno));
			tl_free(buf);
			return false;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n >= want - 1) {
			snprintf(why, why_size, "file too large (over the limit of %u bytes)",
				 TL_SOURCE_MAX_BYTES);
			tl_free(buf);
			return false;
		}
	}
	if (n == cap)
		buf = tl_realloc(buf, cap + 1);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return true;
}

bool tl_source_read_fd(int fd, char **text, size_t *len, char *why, size_t why_size)
{
	return tl_source__read(fd, 0, text, len, why, why_size);
}

int tl_source_open_regular(const char *path, long long *size, char *why, size_t why_size)
{
	/* O_NONBLOCK: opening a FIFO (or a device) must not wait for a writer;
	 * fstat on what was opened then refuses anything but a regular file,
	 * with no window between the check and the read. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		struct stat st;
		/* A socket cannot be opened at all (ENXIO). */
		if (err == ENXIO && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
			snprintf(why, why_size, "not a regular file");
		else
			snprintf(why, why_size, "%s", strerror(err));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0)
		snprintf(why, why_size, "%s", strerror(errno));
	else if (S_ISDIR(st.st_mode))
		snprintf(why, why_size, "is a directory");
	else if (!S_ISREG(st.st_mode))
		snprintf(why, why_size, "not a regular file");
	else {
		if (size)
			*size = (long long)st.st_size;
		return fd;
	}
	close(fd);
	return -1;
}

bool tl_source_load(TlSource *src, const char *path, char *why, size_t why_size)
{
	memset(src, 0, sizeof *src);
	long long size = 0;
	int fd = tl_source_open_regular(path, &size, why, why_size);
	if (fd < 0)
		return false;
	bool ok = false;
	char *buf = NULL;
	size_t len = 0;
	if (size > (long long)TL_SOURCE_MAX_BYTES) {
		snprintf(why, why_size, "file too large (%lld bytes; the limit is %u)", size,
			 TL_SOURCE_MAX_BYTES);
		goto cleanup;
	}
	if (!tl_source__read(fd, (size_t)size, &buf, &len, why, why_size))
		goto cleanup;
	ok = tl_source__init(src, path, buf, len, buf, why, why_size);
	buf = NULL; /* the source's now, or freed */
cleanup:
	tl_free(buf);
	close(fd);
	return ok;
}

void tl_source_release(TlSource *src)
{
	tl_free(src->path);
	tl_free(src->text);
	tl_free(src->parse_text);
	tl_array_release(&src->line_starts);
	memset(src, 0, sizeof *src);
}

uint32_t tl_source_line_count(const TlSource *src)
{
	return src->line_starts.size;
}

TlPosition tl_source_position(const TlSource *src, uint32_t byte)
{
	if (byte > src->length)
		byte = src->length;
	uint32_t lo = 0, hi = src->line_starts.size;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (src->line_starts.items[mid] <= byte)
			lo = mid;
		else
			hi = mid;
	}
	uint32_t start = src->line_starts.items[lo];
	TlPosition p = { lo + 1, tl_utf8_count(src->text + start, byte - start) + 1 };
	return p;
}

const char *tl_source_line(const TlSource *src, uint32_t line, uint32_t *len)
{
	if (line == 0 || line > src->line_starts.size) {
		*len = 0;
		return "";
	}
	uint32_t start = src->line_starts.items[line - 1];
	uint32_t end = line < src->line_starts.size ? src->line_starts.items[line]
						    : src->length;
	while (end > start && (src->text[end - 1] == '\n' || src->text[end - 1] == '\r'))
		end--;
	*len = end - start;
	return src->text + start;
}
