/* The names an expression reads, by root: for each assignment's value (and
 * each call, on demand), the first names of the dotted chains it reads
 * (`loss` for `loss`, `self` for `self.losses.append`), found as the value
 * flow's readers find them (an identifier or attribute chain that
 * tl_index_dotted spells is one read, not descended into; anything else is
 * descended into). And the other way round: which assignments read a
 * root.
 *
 * Value flow asks, again and again, whether an assignment reads a tainted
 * name; a value that reads none of the tainted roots cannot, so it is
 * rejected without walking its tree. With one question per statement of a
 * long loop body, walking every later assignment for each question was
 * quadratic (1,000 accumulating steps: 3.6 s).
 *
 * Syntax only. Built a scope at a time, when first asked for it (each
 * assignment's value once: chained targets share their value): a file
 * asked one question pays for one function, not for every assignment of
 * the file; calls' roots are read when first asked. Owned by the index
 * (TlIndex.reads), released with it;
 * written through a const index (it changes no answer). Not thread-safe:
 * one index, one thread. */
#ifndef TL_READS_H
#define TL_READS_H

#include <stdint.h>

#include <stdbool.h>

#include <tree_sitter/api.h>

#include "base/array.h"
#include "base/buf.h"

struct TlIndex;
typedef struct TlReads TlReads;

/* The id of `root` (a plain name, `len` bytes) if some assignment value or
 * asked call reads it, else -1. */
int32_t tl_reads_root_id(const struct TlIndex *idx, const char *root, size_t len);
/* Reads the assignments of scope `func` (a function, or -1: the module),
 * once. */
void tl_reads_scope(const struct TlIndex *idx, int32_t func);
/* The assignments (indices into idx->bindings) of the scopes read so far
 * whose value reads root `id`; an augmented assignment also reads its own
 * target. */
const TlIntArray *tl_reads_readers(const struct TlIndex *idx, int32_t id);
/* The root ids call `ci` (an index into idx->calls) reads, its callee
 * included. */
const TlIntArray *tl_reads_call_roots(const struct TlIndex *idx, uint32_t ci);
/* The name of root `id`. */
const char *tl_reads_root_name(const struct TlIndex *idx, int32_t id);

/* Calls `fn` with each read in the subtree of `n`: the node and its dotted
 * spelling in `dotted` (which `fn` may change). An identifier or attribute
 * chain that tl_index_dotted spells is one read, not descended into;
 * anything else is descended into. Stops when `fn` returns true, and
 * returns whether it did. The roots above are found this way, and so are
 * value flow's reads, so a value that reads no tainted root cannot read a
 * tainted value. Iterative. */
typedef bool (*TlReadFn)(void *data, TSNode node, TlBuf *dotted);
bool tl_reads_each(const struct TlIndex *idx, TSNode n, TlReadFn fn, void *data);

void tl_reads_free(TlReads *r);

#endif
