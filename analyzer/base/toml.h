/* TOML 1.0 documents (https://toml.io/en/v1.0.0): a complete reader, written
 * for torchlint's configuration and rule metadata, and checked against the
 * toml-test suite (tests/toml-test/).
 *
 * The reader accepts exactly the documents TOML 1.0 accepts: every string
 * form with its escapes, integers (decimal, hex, octal, binary) and floats
 * with their underscore rules, offset and local date-times, dates and times
 * (validated: 2023-02-29 is an error), arrays (multi-line, comments, trailing
 * commas), inline tables, dotted keys, tables and arrays of tables, with the
 * rules on defining a key or a table twice. Input must be UTF-8. Nothing in
 * it recurses on the input: nested arrays and inline tables use an explicit
 * stack, so a deeply nested document cannot exhaust the C stack. Keys are
 * kept in a hash map per table: a document with n keys is read in O(n).
 *
 * Two views of a parsed document:
 *   - the tree (`root`): every table, array and value, in document order;
 *   - the flat list (`entries`) of every value that is not a table, with the
 *     path of the table holding it, as most readers want it
 *     (`tl_toml_get(doc, "tool.torchlint", "select")`). */
#ifndef TL_TOML_H
#define TL_TOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/array.h"
#include "base/strmap.h"

/* The type of a value in the tree. */
typedef enum TlTomlType {
	TL_TOML_T_STRING,
	TL_TOML_T_INTEGER,
	TL_TOML_T_FLOAT,
	TL_TOML_T_BOOL,
	TL_TOML_T_DATETIME,       /* offset date-time: 1979-05-27T07:32:00Z */
	TL_TOML_T_DATETIME_LOCAL, /* 1979-05-27T07:32:00 */
	TL_TOML_T_DATE_LOCAL,     /* 1979-05-27 */
	TL_TOML_T_TIME_LOCAL,     /* 07:32:00 */
	TL_TOML_T_ARRAY,
	TL_TOML_T_TABLE,
} TlTomlType;

typedef struct TlTomlValue TlTomlValue;

/* One key of a table. */
typedef struct TlTomlMember {
	char *key;          /* decoded; may hold NUL bytes (a "\u0000" escape) */
	uint32_t key_len;
	TlTomlValue *value; /* owned */
	uint32_t line, column; /* of the key (for a [header]'s table: the header) */
} TlTomlMember;

struct TlTomlValue {
	TlTomlType type;
	uint32_t line, column; /* 1-based; column in code points. Of the value, or of
				* the header / key that created a table */
	/* Strings: the decoded text (NUL-terminated, `len` bytes, may hold NUL).
	 * Dates and times: the text normalised to upper-case `T`/`Z`, a space
	 * delimiter written as `T`. Floats: the text as written. */
	char *text;
	uint32_t len;
	long long integer;
	double real;
	bool boolean;
	TlArray(TlTomlValue *) items;   /* arrays: the elements (owned) */
	TlArray(TlTomlMember) members;  /* tables: the keys in document order */
	TlStrMap index;                 /* tables: key -> position in members */
	uint8_t flags;                  /* reader bookkeeping (definition rules) */
};

/* The flat view's kinds. */
typedef enum TlTomlKind {
	TL_TOML_STRING,
	TL_TOML_BOOL,
	TL_TOML_INT,
	TL_TOML_STRING_ARRAY, /* an array whose elements are all strings (or none) */
	TL_TOML_OTHER,        /* floats, dates, times, other arrays */
} TlTomlKind;

/* A value that is not a table, with where it lives. */
typedef struct TlTomlEntry {
	/* The path of the table holding it: "" for the root, else its keys joined
	 * with '.', each written as a bare key when it is one, else quoted
	 * ("tool.torchlint", "a.\"b.c\""); an element of an array of tables reads
	 * "name[0]"; the tables inside an inline table are tables too. */
	char *table;
	char *key;      /* the last key (decoded; a key with a NUL byte is cut there) */
	TlTomlKind kind;
	char *str;      /* TL_TOML_STRING: borrowed from the tree */
	bool boolean;
	long long integer;
	TlStrArray array; /* TL_TOML_STRING_ARRAY: the strings (owned copies) */
	uint32_t line, column;         /* 1-based position of the value */
	uint32_t key_line, key_column; /* 1-based position of the key */
	const TlTomlValue *value;      /* the value in the tree (borrowed) */
} TlTomlEntry;

typedef struct TlToml {
	TlTomlValue *root; /* the document's table; NULL after a failed parse */
	TlArray(TlTomlEntry) entries; /* in document order */
} TlToml;

/* Parses `len` bytes of `text`. On error returns false and writes
 * "line:col: what" into `why` (the first error; line and column 1-based,
 * the column in code points); `doc` is then empty but valid to release. */
bool tl_toml_parse(TlToml *doc, const char *text, size_t len, char *why, size_t why_size);
void tl_toml_release(TlToml *doc);
/* The entry for `key` in `table` (a path as in TlTomlEntry.table), or NULL.
 * Borrowed from `doc`. */
const TlTomlEntry *tl_toml_get(const TlToml *doc, const char *table, const char *key);
/* The value at `key` of table `t`, or NULL. Borrowed. */
const TlTomlValue *tl_toml_table_get(const TlTomlValue *t, const char *key);
/* The name toml-test uses for `type` ("string", "datetime-local", ...). */
const char *tl_toml_type_name(TlTomlType type);

#endif
