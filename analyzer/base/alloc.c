#include "base/alloc.h"

#include <stdbool.h>
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

/* ---- the arena ---------------------------------------------------------------- */

/* A block the arena cuts from; its bytes follow. */
typedef struct TlArenaChunk {
	struct TlArenaChunk *prev;
	char *end;
} TlArenaChunk;

/* Freed pieces are kept for reuse: those of up to TL_ARENA_SMALL bytes in
 * a list per size (8-byte steps: tree-sitter frees a few sizes again and
 * again, its stack nodes and subtrees), larger ones in a list per power of
 * two. A freed piece's first word links it to the next. */
#define TL_ARENA_SMALL 1024u
#define TL_ARENA_SMALL_LISTS (TL_ARENA_SMALL / 8 + 1)
#define TL_ARENA_LARGE_LISTS 64
/* Pieces of a large list looked at for one that fits before the next
 * list up, where every piece does. */
#define TL_ARENA_LARGE_LOOKS 8

struct TlArena {
	TlArenaChunk *chunk; /* the newest block, cut from at `top` */
	char *top;
	char *last;          /* the last piece given (its header), or NULL */
	size_t next;         /* the size of the next block */
	size_t bytes;        /* the blocks' bytes, all together */
	char *small[TL_ARENA_SMALL_LISTS]; /* freed pieces by size / 8 (their headers) */
	char *large[TL_ARENA_LARGE_LISTS]; /* freed larger pieces by the power of two of their size */
};

/* The first block's size; each next one doubles, up to the cap. */
#define TL_ARENA_FIRST ((size_t)256 << 10)
#define TL_ARENA_CAP ((size_t)8 << 20)
/* Each piece is preceded by its size (for realloc), 8-byte aligned: no
 * tree-sitter structure needs more. */
#define TL_ARENA_HEAD 8u

#define TL_ARENA_NEXT(h) (*(char **)((h) + TL_ARENA_HEAD))
#define TL_ARENA_SIZE(h) (*(size_t *)(h))
static _Thread_local TlArena *tl_alloc__arena;

/* Whether tl_alloc_install routed tree-sitter's allocations here: an
 * arena is only given out then (else what tree-sitter allocates would
 * not come from it, nor be freed with it). */
static bool tl_alloc__installed;

TlArena *tl_arena_new(void)
{
	if (!tl_alloc__installed)
		return NULL;
	TlArena *a = tl_calloc(1, sizeof *a);
	a->next = TL_ARENA_FIRST;
	return a;
}

void tl_arena_enter(TlArena *a)
{
	tl_alloc__arena = a;
}

void tl_arena_leave(void)
{
	tl_alloc__arena = NULL;
}

size_t tl_arena_bytes(const TlArena *a)
{
	return a ? a->bytes : 0;
}

void tl_arena_free(TlArena *a)
{
	if (!a)
		return;
	TlArenaChunk *c = a->chunk;
	while (c) {
		TlArenaChunk *prev = c->prev;
		free(c);
		c = prev;
	}
	free(a);
}

static unsigned tl_arena__log2(size_t n)
{
	unsigned b = 0;
	while (n >>= 1)
		b++;
	return b;
}


/* A freed piece of at least `want` bytes (a multiple of 8), taken off its
 * list; its header, or NULL. */
static char *tl_arena__reuse(TlArena *a, size_t want)
{
	if (want <= TL_ARENA_SMALL) {
		char *h = a->small[want / 8];
		if (h)
			a->small[want / 8] = TL_ARENA_NEXT(h);
		return h;
	}
	unsigned b = tl_arena__log2(want);
	char **at = &a->large[b];
	for (unsigned k = 0; *at && k < TL_ARENA_LARGE_LOOKS; k++, at = &TL_ARENA_NEXT(*at))
		if (TL_ARENA_SIZE(*at) >= want) {
			char *h = *at;
			*at = TL_ARENA_NEXT(h);
			return h;
		}
	for (unsigned u = b + 1; u < TL_ARENA_LARGE_LISTS; u++)
		if (a->large[u]) {
			char *h = a->large[u];
			a->large[u] = TL_ARENA_NEXT(h);
			return h;
		}
	return NULL;
}

/* Keeps the piece with header `h` for reuse. */
static void tl_arena__keep(TlArena *a, char *h)
{
	size_t size = TL_ARENA_SIZE(h);
	char **list = size <= TL_ARENA_SMALL ? &a->small[size / 8] : &a->large[tl_arena__log2(size)];
	TL_ARENA_NEXT(h) = *list;
	*list = h;
}

static void *tl_arena__alloc(TlArena *a, size_t size)
{
	/* At least a word: a freed piece holds its link. */
	size_t want = size <= 8 ? 8 : (size + 7) & ~(size_t)7;
	char *h = tl_arena__reuse(a, want);
	if (h)
		return h + TL_ARENA_HEAD;
	size_t need = want + TL_ARENA_HEAD;
	if (!a->chunk || (size_t)(a->chunk->end - a->top) < need) {
		size_t bytes = a->next;
		if (a->next < TL_ARENA_CAP)
			a->next *= 2;
		if (bytes < need + sizeof(TlArenaChunk))
			bytes = need + sizeof(TlArenaChunk);
		TlArenaChunk *c = malloc(bytes);
		if (!c)
			tl_alloc__die(size);
		c->prev = a->chunk;
		c->end = (char *)c + bytes;
		a->chunk = c;
		a->top = (char *)(c + 1);
		a->bytes += bytes;
	}
	h = a->top;
	TL_ARENA_SIZE(h) = want;
	a->last = h;
	a->top += need;
	return h + TL_ARENA_HEAD;
}

/* True when `p` was cut from one of `a`'s blocks. */
static bool tl_arena__owns(const TlArena *a, const void *p)
{
	for (const TlArenaChunk *c = a->chunk; c; c = c->prev)
		if ((const char *)p > (const char *)c && (const char *)p < c->end)
			return true;
	return false;
}

/* Gives back a piece of `a`: the last one cut lowers the top, any other is
 * kept for reuse. */
static void tl_arena__give_back(TlArena *a, void *ptr)
{
	char *h = (char *)ptr - TL_ARENA_HEAD;
	if (h == a->last) {
		a->top = h;
		a->last = NULL;
		return;
	}
	tl_arena__keep(a, h);
}

static void *tl_alloc__ts_malloc(size_t size)
{
	TlArena *a = tl_alloc__arena;
	return a ? tl_arena__alloc(a, size) : tl_malloc(size);
}

static void *tl_alloc__ts_calloc(size_t count, size_t size)
{
	TlArena *a = tl_alloc__arena;
	if (!a)
		return tl_calloc(count, size);
	void *p = tl_arena__alloc(a, count * size);
	memset(p, 0, count * size);
	return p;
}

static void tl_alloc__ts_free(void *ptr)
{
	TlArena *a = tl_alloc__arena;
	if (!ptr)
		return;
	if (!a || !tl_arena__owns(a, ptr)) {
		free(ptr);
		return;
	}
	tl_arena__give_back(a, ptr);
}

static void *tl_alloc__ts_realloc(void *ptr, size_t size)
{
	TlArena *a = tl_alloc__arena;
	if (!a)
		return tl_realloc(ptr, size);
	if (!ptr)
		return tl_arena__alloc(a, size);
	if (!tl_arena__owns(a, ptr))
		return tl_realloc(ptr, size); /* made before the arena was entered */
	char *h = (char *)ptr - TL_ARENA_HEAD;
	size_t old = TL_ARENA_SIZE(h);
	size_t want = (size + 7) & ~(size_t)7;
	if (want <= old)
		return ptr;
	if (h == a->last && (size_t)(a->chunk->end - h) >= want + TL_ARENA_HEAD) {
		/* The last piece grows in place. */
		TL_ARENA_SIZE(h) = want;
		a->top = h + TL_ARENA_HEAD + want;
		return ptr;
	}
	void *p = tl_arena__alloc(a, size);
	memcpy(p, ptr, old);
	tl_arena__give_back(a, ptr);
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
	ts_set_allocator(tl_alloc__ts_malloc, tl_alloc__ts_calloc, tl_alloc__ts_realloc, tl_alloc__ts_free);
	tl_alloc__installed = true;
}
