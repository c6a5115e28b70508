#include "base/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <tree_sitter/api.h>

static void tl_alloc__die(size_t size)
{
	fprintf(stderr, "torchlint: out of memory (allocating %zu bytes)\n", size);
	abort();
}

void *tl_malloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		tl_alloc__die(size);
	return p;
}

void *tl_calloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		tl_alloc__die(count * size);
	return p;
}

void *tl_realloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (!p)
		tl_alloc__die(size);
	return p;
}

void tl_free(void *ptr)
{
	free(ptr);
}

char *tl_strdup(const char *s)
{
	return tl_strndup(s, strlen(s));
}

char *tl_strndup(const char *s, size_t n)
{
	char *p = tl_malloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void tl_alloc_install(void)
{
#ifdef __GLIBC__
	/* No fastbins: freeing a file's text (over 64 KiB) made glibc merge
	 * every small chunk a parse and its tree had freed (malloc_consolidate).
	 * Without them, 1.3% less CPU time over the torch tree at -j1; the
	 * thread caches (tcache) still serve the small sizes. */
	mallopt(M_MXFAST, 0);
#endif
	ts_set_allocator(tl_malloc, tl_calloc, tl_realloc, tl_free);
}
