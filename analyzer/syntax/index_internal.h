/* Private to the index (index.c, names.c): the name helpers that the
 * index's passes share with name resolution. The public questions are in
 * index.h (tl_index_dotted, tl_index_qualify, tl_index_resolve, ...). */
#ifndef TL_INDEX_INTERNAL_H
#define TL_INDEX_INTERNAL_H

#include "syntax/index.h"

/* Scopes of the name table (TlIndex.scoped): a function's (-1: the
 * module's) names, a class's "self.x" attributes, its methods, and the
 * other names bound in its body. */
enum { TL_SCOPE_FUNC, TL_SCOPE_ATTRS, TL_SCOPE_METHODS, TL_SCOPE_BODY };

/* The dotted name of `n` when the source spells it out (an identifier, or
 * an attribute chain written as a plain dotted name, with no parentheses,
 * spaces or comments in it): borrowed from the source, *len its length.
 * NULL otherwise (tl_index_dotted may still find one). */
const char *tl_index__plain_name(const TlIndex *idx, TSNode n, uint32_t *len);
/* tl_index_resolve for a name of `len` bytes, not necessarily NUL-ended. */
const TlBinding *tl_index__resolve_n(const TlIndex *idx, const char *name, size_t len,
				     int32_t func, uint32_t pos);
/* Files binding `bi` under its name in scope `n` of kind `tag` (see
 * TlIndex.scoped); names are interned in TlIndex.name_ids as they come. */
void tl_index__file(TlIndex *idx, int tag, int32_t n, const char *name, int32_t bi);

/* A set of binding names (by name id), with masks of their lengths and
 * first bytes that turn most other words away before a table lookup. */
typedef struct TlNameSet {
	uint8_t *ids;      /* one byte per name id of TlIndex.name_ids: 1 in the set */
	uint64_t lens;     /* bit min(length, 63) of each name */
	uint64_t firsts[2]; /* bit of each name's first byte (ASCII) */
} TlNameSet;

/* An empty set for the names of `idx` (release with tl_index__name_set_release). */
void tl_index__name_set_init(TlNameSet *set, const TlIndex *idx);
void tl_index__name_set_add(TlNameSet *set, const TlIndex *idx, const char *name);
void tl_index__name_set_release(TlNameSet *set);
/* False when the source text of `n` certainly names none of the names in
 * `set`: no identifier in it (nor in its strings or comments) is one. True
 * when one may be, or when the text is long or not ASCII (then it is not
 * read). */
bool tl_index__may_mention(const TlIndex *idx, TSNode n, const TlNameSet *set);

#endif
