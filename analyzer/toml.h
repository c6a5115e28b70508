/* TOML documents read with the tree-sitter TOML grammar, flattened into
 * (table, key) -> value entries. Enough of TOML for rule metadata and for
 * configuration: strings (all four forms, with escapes), booleans, integers,
 * arrays of strings, tables and dotted keys. */
#ifndef TL_TOML_H
#define TL_TOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "array.h"

typedef enum TlTomlKind {
	TL_TOML_STRING,
	TL_TOML_BOOL,
	TL_TOML_INT,
	TL_TOML_STRING_ARRAY,
	TL_TOML_OTHER, /* floats, dates, inline tables, mixed arrays */
} TlTomlKind;

typedef struct TlTomlEntry {
	char *table; /* "" for the root, else "tool.torchlint" etc. */
	char *key;   /* dotted key within the table */
	TlTomlKind kind;
	char *str;   /* TL_TOML_STRING */
	bool boolean;
	long long integer;
	TlStrArray array; /* TL_TOML_STRING_ARRAY */
	uint32_t line, column; /* 1-based position of the value */
} TlTomlEntry;

typedef struct TlToml {
	TlArray(TlTomlEntry) entries;
} TlToml;

/* Parses `len` bytes of `text`. On a syntax error returns false and writes
 * "line:col: what" into `why`; `doc` is then empty but valid to release. */
bool tl_toml_parse(TlToml *doc, const char *text, size_t len, char *why, size_t why_size);
void tl_toml_release(TlToml *doc);
/* The entry for `key` in `table`, or NULL. Borrowed from `doc`. */
const TlTomlEntry *tl_toml_get(const TlToml *doc, const char *table, const char *key);

#endif
