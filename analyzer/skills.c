#include "skills.h"

#include <stdbool.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "embedded.h"

/* The line starting at `p` within [p, end): its length without the newline. */
static size_t tl_skills__line_len(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return (size_t)((nl ? nl : end) - p);
}

const char *tl_skills_section(const char *code, size_t *len, const char **path)
{
	size_t code_len = strlen(code);
	for (unsigned i = 0; i < tl_embedded_count; i++) {
		const TlEmbeddedFile *f = &tl_embedded_files[i];
		if (strncmp(f->path, "skills/", 7) != 0)
			continue;
		const char *p = f->data, *end = f->data + f->size, *start = NULL;
		while (p < end) {
			size_t l = tl_skills__line_len(p, end);
			if (start && l >= 3 && strncmp(p, "## ", 3) == 0) {
				*len = (size_t)(p - start);
				*path = f->path;
				return start;
			}
			if (!start && l > 3 + code_len && strncmp(p, "## ", 3) == 0 &&
			    strncmp(p + 3, code, code_len) == 0 && p[3 + code_len] == ' ')
				start = p;
			p += l + (p + l < end);
		}
		if (start) {
			*len = (size_t)(end - start);
			*path = f->path;
			return start;
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
