#include "engine/skills.h"

#include <stdbool.h>
#include <pthread.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/embedded.h"

/* The line starting at `p` within [p, end): its length without the newline. */
static size_t tl_skills__line_len(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return (size_t)((nl ? nl : end) - p);
}

/* The "## " heading lines of the embedded skills, in file order, found
 * once: a language server looks a rule's section up for every finding
 * (its codeDescription link), and scanning the skills each time cost about
 * 70,000 instructions a finding. */
typedef struct TlSkillsHeading {
	const char *line;   /* the heading line, in its file's data */
	size_t len;         /* its length, without the newline */
	const char *end;    /* where its section ends: the next heading or the file's end */
	const char *path;
} TlSkillsHeading;

static TlSkillsHeading *tl_skills__headings;
static unsigned tl_skills__heading_count;
static pthread_once_t tl_skills__once = PTHREAD_ONCE_INIT;

static void tl_skills__index(void)
{
	unsigned n = 0, cap = 64;
	TlSkillsHeading *h = tl_malloc(cap * sizeof *h);
	for (unsigned i = 0; i < tl_embedded_count; i++) {
		const TlEmbeddedFile *f = &tl_embedded_files[i];
		if (strncmp(f->path, "skills/", 7) != 0)
			continue;
		const char *p = f->data, *end = f->data + f->size;
		unsigned first = n;
		while (p < end) {
			size_t l = tl_skills__line_len(p, end);
			if (l >= 3 && strncmp(p, "## ", 3) == 0) {
				if (n == cap)
					h = tl_realloc(h, (cap *= 2) * sizeof *h);
				if (n > first)
					h[n - 1].end = p;
				h[n].line = p;
				h[n].len = l;
				h[n].end = end;
				h[n].path = f->path;
				n++;
			}
			p += l + (p + l < end);
		}
	}
	tl_skills__headings = h;
	tl_skills__heading_count = n;
}

const char *tl_skills_section(const char *code, size_t *len, const char **path)
{
	pthread_once(&tl_skills__once, tl_skills__index);
	size_t code_len = strlen(code);
	for (unsigned i = 0; i < tl_skills__heading_count; i++) {
		const TlSkillsHeading *h = &tl_skills__headings[i];
		if (h->len > 3 + code_len && strncmp(h->line + 3, code, code_len) == 0 &&
		    h->line[3 + code_len] == ' ') {
			*len = (size_t)(h->end - h->line);
			*path = h->path;
			return h->line;
		}
	}
	return NULL;
}

char *tl_skills_subsection_text(const char *section, size_t len, const char *title)
{
	const char *p = section, *end = section + len;
	size_t tl = strlen(title);
	bool inside = false, fence = false;
	TlBuf b;
	tl_buf_init(&b);
	while (p < end) {
		size_t l = tl_skills__line_len(p, end);
		if (l >= 4 && strncmp(p, "### ", 4) == 0) {
			if (inside)
				break;
			inside = l == 4 + tl && strncmp(p + 4, title, tl) == 0;
		} else if (inside) {
			if (l >= 3 && strncmp(p, "```", 3) == 0) {
				fence = !fence;
			} else if (!fence) {
				for (size_t i = 0; i < l; i++) {
					char c = p[i];
					if (c == ' ' || c == '\t') {
						if (b.len && b.data[b.len - 1] != ' ')
							tl_buf_addc(&b, ' ');
					} else {
						tl_buf_addc(&b, c);
					}
				}
				if (b.len && b.data[b.len - 1] != ' ')
					tl_buf_addc(&b, ' ');
			}
		}
		p += l + (p + l < end);
	}
	while (b.len && b.data[b.len - 1] == ' ')
		b.data[--b.len] = '\0';
	if (!b.len) {
		tl_buf_release(&b);
		return NULL;
	}
	return tl_buf_detach(&b);
}
