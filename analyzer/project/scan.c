/* The project's Python files and the text of their import statements
 * (scan.h). */
#include "project/scan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/budget.h"
#include "base/buf.h"
#include "base/paths.h"
#include "base/source.h"

static void tl_scan__quiet(void *data, const char *path, const char *why)
{
	(void)data;
	(void)path;
	(void)why;
}

static int tl_scan__cmp(const void *a, const void *b)
{
	return strcmp(((const TlScanFile *)a)->path, ((const TlScanFile *)b)->path);
}

static bool tl_scan__word_char(char c)
{
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (unsigned char)c >= 0x80;
}

bool tl_scan_has_word(const char *text, const char *word, size_t len)
{
	if (!len)
		return false;
	for (const char *at = strstr(text, word); at; at = strstr(at + 1, word)) {
		/* strstr matched `word` as a prefix of the rest: check its length. */
		if (strncmp(at, word, len) != 0)
			continue;
		if ((at == text || !tl_scan__word_char(at[-1])) && !tl_scan__word_char(at[len]))
			return true;
	}
	return false;
}

void tl_scan_imports(const char *text, size_t n, TlBuf *out)
{
	size_t i = 0;
	while (i < n) {
		size_t e = i;
		while (e < n && text[e] != '\n')
			e++;
		size_t s = i;
		while (s < e && (text[s] == ' ' || text[s] == '\t'))
			s++;
		if ((e - s > 7 && memcmp(text + s, "import", 6) == 0 && !tl_scan__word_char(text[s + 6])) ||
		    (e - s > 5 && memcmp(text + s, "from", 4) == 0 && !tl_scan__word_char(text[s + 4]))) {
			for (size_t k = s; k < e; k++)
				tl_buf_addc(out, text[k] ? text[k] : ' ');
			tl_buf_addc(out, '\n');
		}
		i = e + 1;
	}
}

/* Up to `max` bytes of the file at `path` into `text` (appended); false
 * when it cannot be opened or is no regular file (a FIFO swapped in after
 * the walk saw a file is never waited on: base/source.h). */
static bool tl_scan__slurp(const char *path, size_t max, TlBuf *text)
{
	char why[128];
	int fd = tl_source_open_regular(path, NULL, why, sizeof why);
	if (fd < 0)
		return false;
	char chunk[16384];
	size_t start = text->len;
	while (text->len - start < max) {
		ssize_t got = read(fd, chunk, sizeof chunk);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		tl_buf_addn(text, chunk, (size_t)got);
	}
	close(fd);
	return true;
}

bool tl_scan_file_imports(const char *path, TlBuf *out)
{
	TlBuf text;
	tl_buf_init(&text);
	bool ok = tl_scan__slurp(path, TL_SCAN_MAX_BYTES, &text);
	if (ok)
		tl_scan_imports(text.data ? text.data : "", text.len, out);
	tl_buf_release(&text);
	return ok;
}

/* Reads the file at `path` into the scan (its import lines); false when
 * the byte bound is passed. */
static bool tl_scan__read(TlScan *s, const char *path, size_t *bytes, TlBuf *text, TlBuf *imports)
{
	text->len = 0;
	if (!tl_scan__slurp(path, TL_SCAN_MAX_BYTES - *bytes + 1, text))
		return true;
	*bytes += text->len;
	if (*bytes > TL_SCAN_MAX_BYTES)
		return false;
	imports->len = 0;
	if (imports->data)
		imports->data[0] = 0;
	tl_scan_imports(text->data ? text->data : "", text->len, imports);
	char *real = tl_path_real(path);
	TlScanFile sf = { real, tl_strdup(imports->data ? imports->data : "") };
	tl_array_push(&s->files, sf);
	return true;
}

void tl_scan_build(TlScan *s, const char *root, const TlDiscoverOptions *opt)
{
	s->root = tl_strdup(root);
	s->complete = true;
	s->cut = false;
	tl_array_init(&s->files);
	TlDiscoverOptions o;
	if (opt) {
		o = *opt;
	} else {
		memset(&o, 0, sizeof o);
		o.respect_gitignore = true;
	}
	o.force_exclude = false; /* the root is named: what is above it does not count */
	o.on_error = tl_scan__quiet;
	o.data = NULL;
	o.on_skip = NULL;
	o.max_files = TL_SCAN_MAX_FILES;
	o.max_entries = TL_SCAN_MAX_ENTRIES;
	o.bounded = true;
	bool stopped = false;
	o.stopped = &stopped;
	if (!o.err)
		o.err = stderr;
	TlStrArray found;
	tl_array_init(&found);
	const char *paths[1] = { root };
	if (!tl_discover_ex(paths, 1, &o, &found) || stopped || found.size > TL_SCAN_MAX_FILES)
		s->complete = false;
	size_t bytes = 0;
	TlBuf text, imports;
	tl_buf_init(&text);
	tl_buf_init(&imports);
	for (uint32_t i = 0; i < found.size && s->complete; i++) {
		const char *f = found.items[i];
		size_t fl = strlen(f);
		if (fl < 4 || strcmp(f + fl - 3, ".py") != 0)
			continue;
		if (tl_bound_step(1) || !tl_scan__read(s, f, &bytes, &text, &imports))
			s->complete = false;
	}
	if (tl_bound_hit_ever())
		s->cut = true;
	tl_buf_release(&text);
	tl_buf_release(&imports);
	tl_str_array_release(&found);
	tl_array_sort(&s->files, tl_scan__cmp);
}

void tl_scan_update(TlScan *s, const char *path, const char *text, size_t len)
{
	/* Sorted by path: halving. */
	uint32_t lo = 0, hi = s->files.size;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->files.items[mid].path, path);
		if (c == 0) {
			tl_free(s->files.items[mid].imports);
			s->files.items[mid].imports = tl_strndup(text, len);
			return;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
}

void tl_scan_release(TlScan *s)
{
	for (uint32_t i = 0; i < s->files.size; i++) {
		tl_free(s->files.items[i].path);
		tl_free(s->files.items[i].imports);
	}
	tl_array_release(&s->files);
	tl_free(s->root);
	s->root = NULL;
}
