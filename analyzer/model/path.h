/* Typed access paths: how the model names an object (docs/semantic-model.md,
 * "The lattice"). A root (a name) followed by selectors: an attribute
 * (`.encoder`), a constant key (`["loss"]`, `[0]`) or any element (`[*]`).
 * `self.net.encoder`, `model.module` and `batch["x"]` are paths. Names and
 * keys are interned in a TlPathNames table (ids), so paths are compared,
 * related and hashed as integers, without building strings.
 *
 * Owns: TlPath, TlPathNames. */
#ifndef TL_MODEL_PATH_H
#define TL_MODEL_PATH_H

#include <stdbool.h>
#include <stdint.h>

#include <tree_sitter/api.h>

#include "base/array.h"
#include "base/buf.h"
#include "base/strmap.h"
#include "syntax/index.h"

/* Selectors a path keeps; a longer one is cut to its first ones (and
 * stands for everything below them). */
#define TL_PATH_SELECTORS 6

/* A selector: an interned attribute name (>= 0), any element, or a key
 * (an interned key text k as TL_PATH_KEY(k)). */
#define TL_PATH_ANY (-1)
#define TL_PATH_KEY(k) (-2 - (int32_t)(k))
#define TL_PATH_IS_KEY(s) ((s) <= -2)
#define TL_PATH_KEY_ID(s) (-2 - (s))

typedef struct TlPath {
	int32_t root; /* an interned name */
	uint8_t n;    /* selectors used */
	bool cut;     /* the source had more selectors than kept */
	int32_t sel[TL_PATH_SELECTORS];
} TlPath;

typedef struct TlPathNames {
	TlStrMap ids;
	TlStrArray names;
} TlPathNames;

void tl_path_names_init(TlPathNames *t);
void tl_path_names_release(TlPathNames *t);
/* The id of `len` bytes of `s`, interned on first use. */
int32_t tl_path_intern(TlPathNames *t, const char *s, size_t len);
/* The id of a name already interned, or -1. */
int32_t tl_path_lookup(const TlPathNames *t, const char *s, size_t len);

/* The path that an identifier, an attribute chain or a subscript by a
 * constant key (`a.b["k"][0]`) names, parentheses looked through; false
 * for any other expression. Iterative. */
bool tl_path_of(TlPathNames *t, const TlIndex *idx, TSNode n, TlPath *out);
/* The interned id of a constant key (a string, quotes made alike, or an
 * integer), or -1 for any other subscript. */
int32_t tl_path_key_id(TlPathNames *t, const TlIndex *idx, TSNode key);
/* The interned id of the string key `"name"` (`dict(name=v)`, the key
 * of a keyword argument), or -1 for a name too long. */
int32_t tl_path_name_key_id(TlPathNames *t, const char *name, size_t len);
/* The path of a name (`x`) or a dotted name ("self.model"). */
bool tl_path_of_dotted(TlPathNames *t, const char *dotted, TlPath *out);

bool tl_path_equal(const TlPath *a, const TlPath *b);
/* True when `a` is `b` or a prefix of it (`self.net` of `self.net.fc`). */
bool tl_path_prefix(const TlPath *a, const TlPath *b);
uint32_t tl_path_hash(const TlPath *p);
/* `p` without its last selector (false for a bare root). */
bool tl_path_up(const TlPath *p, TlPath *out);
/* Appends "self.net[\"k\"]" to `out`. */
void tl_path_print(const TlPathNames *t, const TlPath *p, TlBuf *out);

#endif
