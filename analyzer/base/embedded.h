/* Files embedded into the binary at build time (tools/embed.c writes the
 * table): the rule metadata, the queries and the skills. */
#ifndef TL_EMBEDDED_H
#define TL_EMBEDDED_H

#include <stddef.h>

typedef struct TlEmbeddedFile {
	const char *path; /* repository-relative, e.g. "queries/TL101-....scm" */
	const char *data; /* NUL-terminated */
	size_t size;
} TlEmbeddedFile;

extern const TlEmbeddedFile tl_embedded_files[];
extern const unsigned tl_embedded_count;

#endif
