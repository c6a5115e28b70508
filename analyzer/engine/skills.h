/* The guidance in skills/, embedded in the binary: the section a rule's
 * --explain prints, and the texts SARIF's rule metadata carries. */
#ifndef TL_SKILLS_H
#define TL_SKILLS_H

#include <stddef.h>

/* The Markdown section headed "## CODE ..." (up to the next "## " heading),
 * borrowed from the embedded skills; NULL when no skill explains `code`.
 * *path receives the skill file's repository path. */
const char *tl_skills_section(const char *code, size_t *len, const char **path);

/* The text of subsection "### `title`" within a section, whitespace
 * collapsed to single spaces, code fences dropped; caller frees. NULL when
 * absent. */
char *tl_skills_subsection_text(const char *section, size_t len, const char *title);

#endif
