#include "base/glob.h"

#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"

typedef enum { TOK_CHAR, TOK_ANY, TOK_STAR, TOK_GLOBSTAR, TOK_GLOBSTAR_DIR, TOK_CLASS } TokKind;

typedef struct Tok {
	TokKind kind;
	unsigned char c;
	const char *cls; /* TOK_CLASS: the text between '[' and ']' */
	size_t cls_len;
} Tok;

static bool tl_glob__class(const Tok *t, unsigned char c)
{
	const char *s = t->cls, *end = t->cls + t->cls_len;
	bool neg = s < end && (*s == '!' || *s == '^');
	if (neg)
		s++;
	bool hit = false;
	while (s < end) {
		unsigned char lo = (unsigned char)*s++;
		if (lo == '\\' && s < end)
			lo = (unsigned char)*s++;
		unsigned char hi = lo;
		if (s + 1 < end && *s == '-') {
			hi = (unsigned char)s[1];
			s += 2;
		}
		if (c >= lo && c <= hi)
			hit = true;
	}
	return hit != neg;
}

bool tl_glob_match(const char *pattern, const char *path)
{
	/* Tokenise, then match by dynamic programming over (token, position):
	 * no backtracking, no recursion, O(tokens x path). */
	TlArray(Tok) toks;
	tl_array_init(&toks);
	for (const char *p = pattern; *p;) {
		Tok t = { TOK_CHAR, 0, NULL, 0 };
		if (p[0] == '*' && p[1] == '*') {
			p += 2;
			while (*p == '*')
				p++;
			t.kind = TOK_GLOBSTAR;
			if (*p == '/') {
				t.kind = TOK_GLOBSTAR_DIR;
				p++;
			}
		} else if (*p == '*') {
			t.kind = TOK_STAR;
			p++;
		} else if (*p == '?') {
			t.kind = TOK_ANY;
			p++;
		} else if (*p == '[' && strchr(p + 1, ']')) {
			const char *close = strchr(p + 2, ']');
			if (!close)
				close = strchr(p + 1, ']');
			t.kind = TOK_CLASS;
			t.cls = p + 1;
			t.cls_len = (size_t)(close - p - 1);
			p = close + 1;
		} else {
			if (*p == '\\' && p[1])
				p++;
			t.c = (unsigned char)*p++;
		}
		tl_array_push(&toks, t);
	}
	size_t n = strlen(path);
	bool *prev = tl_calloc(n + 1, sizeof(bool)), *cur = tl_calloc(n + 1, sizeof(bool));
	prev[0] = true;
	for (uint32_t i = 0; i < toks.size; i++) {
		const Tok *t = &toks.items[i];
		bool seen = false; /* some prev[k], k < j */
		for (size_t j = 0; j <= n; j++) {
			unsigned char c = j ? (unsigned char)path[j - 1] : 0;
			bool v = false;
			switch (t->kind) {
			case TOK_CHAR: v = j && prev[j - 1] && c == t->c; break;
			case TOK_ANY: v = j && prev[j - 1] && c != '/'; break;
			case TOK_CLASS: v = j && prev[j - 1] && c != '/' && tl_glob__class(t, c); break;
			case TOK_STAR: v = prev[j] || (j && cur[j - 1] && c != '/'); break;
			case TOK_GLOBSTAR: v = prev[j] || (j && cur[j - 1]); break;
			case TOK_GLOBSTAR_DIR: v = prev[j] || (j && c == '/' && seen); break;
			}
			if (j && prev[j - 1])
				seen = true;
			cur[j] = v;
		}
		bool *tmp = prev;
		prev = cur;
		cur = tmp;
	}
	bool match = prev[n];
	tl_free(prev);
	tl_free(cur);
	tl_array_release(&toks);
	return match;
}

void tl_patterns_init(TlPatterns *p, const char *base)
{
	size_t l = strlen(base);
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_add(&b, base);
	if (l && base[l - 1] != '/')
		tl_buf_addc(&b, '/');
	p->base = tl_buf_detach(&b);
	tl_array_init(&p->items);
}

void tl_patterns_release(TlPatterns *p)
{
	for (uint32_t i = 0; i < p->items.size; i++)
		tl_free(p->items.items[i].glob);
	tl_array_release(&p->items);
	tl_free(p->base);
}

void tl_patterns_add(TlPatterns *p, const char *line)
{
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_add(&b, line);
	/* Trailing spaces are dropped unless escaped; CR from CRLF files too. */
	while (b.len && (b.data[b.len - 1] == '\r' || b.data[b.len - 1] == '\n' ||
			 (b.data[b.len - 1] == ' ' && !(b.len > 1 && b.data[b.len - 2] == '\\'))))
		b.data[--b.len] = '\0';
	const char *s = b.data;
	if (!*s || *s == '#') {
		tl_buf_release(&b);
		return;
	}
	TlPattern pat = { NULL, false, false };
	if (*s == '!') {
		pat.negate = true;
		s++;
	} else if (*s == '\\' && (s[1] == '#' || s[1] == '!')) {
		s++;
	}
	size_t len = strlen(s);
	if (len && s[len - 1] == '/') {
		pat.dir_only = true;
		len--;
	}
	if (!len) {
		tl_buf_release(&b);
		return;
	}
	TlBuf g;
	tl_buf_init(&g);
	const char *slash = memchr(s, '/', len);
	if (!slash)
		tl_buf_add(&g, "**/"); /* a bare name matches at any depth */
	else if (*s == '/') {
		s++;
		len--;
	}
	tl_buf_addn(&g, s, len);
	pat.glob = tl_buf_detach(&g);
	tl_array_push(&p->items, pat);
	tl_buf_release(&b);
}

void tl_patterns_add_text(TlPatterns *p, const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t l = nl ? (size_t)(nl - text) : strlen(text);
		char *line = tl_strndup(text, l);
		tl_patterns_add(p, line);
		tl_free(line);
		text += l + (nl != NULL);
	}
}

TlMatch tl_patterns_match(const TlPatterns *p, const char *path, bool is_dir)
{
	size_t bl = strlen(p->base);
	const char *rel = path;
	if (bl && strncmp(path, p->base, bl) == 0)
		rel = path + bl;
	else if (bl && path[0] == '/')
		return TL_MATCH_NONE;
	while (strncmp(rel, "./", 2) == 0)
		rel += 2;
	for (uint32_t i = p->items.size; i > 0; i--) {
		const TlPattern *pat = &p->items.items[i - 1];
		if (pat->dir_only && !is_dir)
			continue;
		if (tl_glob_match(pat->glob, rel))
			return pat->negate ? TL_MATCH_INCLUDE : TL_MATCH_EXCLUDE;
	}
	return TL_MATCH_NONE;
}
