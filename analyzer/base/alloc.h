/* Allocation wrappers: every allocation in torchlint goes through these.
 * On out-of-memory they print a message and abort, so callers never check
 * for NULL. tl_alloc_install() routes tree-sitter's allocations here too. */
#ifndef TL_ALLOC_H
#define TL_ALLOC_H

#include <stddef.h>

void *tl_malloc(size_t size);
void *tl_calloc(size_t count, size_t size);
void *tl_realloc(void *ptr, size_t size);
void tl_free(void *ptr);
/* Copies `s`; caller frees. */
char *tl_strdup(const char *s);
/* Copies the first `n` bytes of `s` and NUL-terminates; caller frees. */
char *tl_strndup(const char *s, size_t n);
/* Makes tree-sitter allocate through the wrappers above. Call once, early. */
void tl_alloc_install(void);

#endif
