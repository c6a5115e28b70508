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
/* Makes tree-sitter allocate through the wrappers above (or the thread's
 * arena, below). Call once, early. */
void tl_alloc_install(void);

/* An arena for one parse: while a thread has entered it, tree-sitter's
 * allocations on that thread are cut from large blocks and what it frees
 * is kept for its next allocations (the last piece given is taken back;
 * any other goes to a list per size), so a tree parsed inside is
 * freed all at once with the arena instead of node by node. Everything
 * tree-sitter allocates while the arena is entered must die with it: enter
 * it around a parser made and deleted inside it, and never hand the tree
 * to ts_tree_delete, ts_tree_copy or an incremental parse. */
typedef struct TlArena TlArena;
/* A new, empty arena; tl_arena_free frees it. NULL before
 * tl_alloc_install (a unit test's engine): the caller then parses and
 * frees as usual. */
TlArena *tl_arena_new(void);
/* Tree-sitter's allocations on this thread go to `a` until tl_arena_leave. */
void tl_arena_enter(TlArena *a);
void tl_arena_leave(void);
/* The bytes of `a`'s blocks, all together (NULL: 0): what a parse in it
 * holds, its garbage reused. The memory budget does not count them
 * (base/budget.h: with reuse the parse peaks where malloc's did). */
size_t tl_arena_bytes(const TlArena *a);
/* Frees every block of `a` and `a` itself (NULL: nothing). Not entered. */
void tl_arena_free(TlArena *a);

#endif
