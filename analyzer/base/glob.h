/* Glob patterns as .gitignore and ruff-style `exclude` settings write them,
 * and lists of such patterns read from a .gitignore file or a config.
 *
 * Pattern syntax: `*` (any run of characters but '/'), `?`, `[a-z]` /
 * `[!a-z]` classes, `**` (anything, '/' included; `**` followed by '/' also
 * matches no directory at all), backslash escapes. */
#ifndef TL_GLOB_H
#define TL_GLOB_H

#include <stdbool.h>

#include "base/array.h"

/* True when all of `path` matches all of `pattern`. */
bool tl_glob_match(const char *pattern, const char *path);

typedef struct TlPattern {
	char *glob;     /* anchored: matched against the path relative to the base */
	bool negate;    /* "!pattern": re-includes */
	bool dir_only;  /* "pattern/": matches directories only */
} TlPattern;

typedef struct TlPatterns {
	char *base;     /* directory the patterns are relative to ("" or ending in '/') */
	TlArray(TlPattern) items;
} TlPatterns;

typedef enum TlMatch { TL_MATCH_NONE, TL_MATCH_EXCLUDE, TL_MATCH_INCLUDE } TlMatch;

void tl_patterns_init(TlPatterns *p, const char *base);
void tl_patterns_release(TlPatterns *p);
/* Adds one pattern line in .gitignore syntax: blank lines and '#' comments
 * are skipped, '!' negates, a trailing '/' restricts to directories, a
 * pattern with no '/' but a trailing one matches a name at any depth, and
 * any other is anchored at the base. */
void tl_patterns_add(TlPatterns *p, const char *line);
/* Adds every line of a .gitignore text. */
void tl_patterns_add_text(TlPatterns *p, const char *text);
/* The last pattern that matches `path` (a path below p->base, given with
 * the base prefix or relative to it) decides; TL_MATCH_NONE if none does
 * or the path is not below the base. */
TlMatch tl_patterns_match(const TlPatterns *p, const char *path, bool is_dir);

#endif
