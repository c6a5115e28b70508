/* Answers about single nodes, kept for the life of one file's index so that a
 * question asked again of the same node (name resolution, whether a name
 * holds a module) is read back instead of worked out again. Predicates ask
 * the same few questions at nearly every call node, and the facts ask them
 * of the same names over and over.
 *
 * A table maps a node (by its tree-sitter id, unique within one tree) to one
 * int32 per kind of answer (TlMemoKind); a slot holds 0 until an answer is
 * stored, then the answer + 2 (answers are -1 or more: -1 is "none", kept
 * like any other). Only answers that depend on nothing but the index and
 * the node may be stored: the caller makes sure (see each kind).
 *
 * Ownership: the index owns its table (TlIndex.memo: created by
 * tl_index_build once the name tables are final, freed by tl_index_release);
 * the nodes are borrowed from the indexed tree. Written by the one thread
 * that analyses the file; not thread-safe. Memory: one 32-byte slot (kept
 * under 3/4 load) per node asked about, so bounded by the file's size. */
#ifndef TL_NODEMEMO_H
#define TL_NODEMEMO_H

#include <stdbool.h>
#include <stdint.h>

#include <tree_sitter/api.h>

#include "base/array.h"

typedef enum TlMemoKind {
	TL_MEMO_RESOLVE, /* tl_index_resolve_node: binding index, -1 when unbound */
	TL_MEMO_QUALIFY, /* tl_index_qualified: a kept string (tl_node_memo_keep),
			  * -1 when the node has no qualified name */
	TL_MEMO_CALLEE,  /* the call whose callee (function field) the node is:
			  * its TlCall.qname is the node's qualified name */
	TL_MEMO_COUNT
} TlMemoKind;

typedef struct TlNodeMemoSlot {
	const void *id;               /* the node's id; NULL: an empty slot */
	int32_t value[TL_MEMO_COUNT]; /* answer + 2, or 0 when not known */
} TlNodeMemoSlot;

typedef struct TlNodeMemo {
	TlNodeMemoSlot *slots;
	uint32_t mask;  /* slots - 1 (a power of two), or 0 when empty */
	uint32_t count;
	TlStrArray strings; /* answers that are strings, owned by the table */
} TlNodeMemo;

/* A new, empty table (caller frees with tl_node_memo_free). */
TlNodeMemo *tl_node_memo_new(void);
void tl_node_memo_free(TlNodeMemo *m);
/* Stores the answer of kind `kind` for `n` in *value and returns true when
 * one was stored; false for a null table or node. */
bool tl_node_memo_get(const TlNodeMemo *m, TSNode n, TlMemoKind kind, int32_t *value);
/* Stores `value` (>= -1) as the answer of kind `kind` for `n`; nothing for
 * a null table or node. */
void tl_node_memo_put(TlNodeMemo *m, TSNode n, TlMemoKind kind, int32_t value);
/* Takes ownership of string `s` (not NULL) and returns its number, the
 * value to store for it; tl_node_memo_string gives it back (borrowed, valid
 * until the table is freed). */
int32_t tl_node_memo_keep(TlNodeMemo *m, char *s);
const char *tl_node_memo_string(const TlNodeMemo *m, int32_t k);

#endif
