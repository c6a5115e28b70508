/* Text that came from outside (file names, quoted source, rule metadata
 * from --rules-dir, configuration keys) made safe for where it is written.
 *
 * Terminals and stderr (the full and concise formats, every diagnostic):
 * - names and messages (tl_escape_add): when a string holds a control
 *   character (C0, DEL, C1) or a byte that is not UTF-8, those are written
 *   as C escapes (\n, \r, \t, \xHH for a byte, \u0085 for a C1 code point)
 *   and every backslash is doubled, so the text stays on one line, sends no
 *   escape sequence to the terminal and reads back unambiguously; a string
 *   with none of them is written as it is (git's quoting of path names,
 *   without the quotes);
 * - source lines shown in a snippet (tl_escape_add_snippet): a control
 *   character becomes its Unicode control picture (ESC -> U+241B, as ruff
 *   shows them) and a C1 code point U+FFFD, one column for one, so that the
 *   carets below still line up; tabs stay;
 * - a line that would begin with a GitHub workflow command ("::" or "##[",
 *   after blanks) gets "./" in front (tl_escape_guard_line): only
 *   --format github writes commands.
 * JSON and SARIF (tl_escape_add_json): a byte that is not UTF-8 becomes
 * U+FFFD, so that jansson accepts every string and no finding is dropped. */
#ifndef TL_ESCAPE_H
#define TL_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/buf.h"

/* True when the `n` bytes at `s` hold something tl_escape_add rewrites. */
bool tl_escape_needed(const char *s, size_t n);
/* Appends `n` bytes of `s` to `out`, escaped for a terminal (see above). */
void tl_escape_add(TlBuf *out, const char *s, size_t n);
/* tl_escape_add of a NUL-terminated string into a new one. Caller frees. */
char *tl_escape(const char *s);
/* Appends a source line for a snippet: control pictures, tabs kept. */
void tl_escape_add_snippet(TlBuf *out, const char *s, size_t n);
/* True when a line starting with `s` would be read as a workflow command. */
bool tl_escape_command_like(const char *s);
/* Appends `path` (already escaped) to `out`, with "./" in front when it
 * would start a line as a workflow command (a relative path; an absolute
 * one starts with '/'). */
void tl_escape_add_line_start(TlBuf *out, const char *s);
/* Appends `s` as valid UTF-8: each byte of an invalid sequence becomes
 * U+FFFD. */
void tl_escape_add_json(TlBuf *out, const char *s);

/* fprintf for diagnostics: formats, then writes the result escaped as
 * one line (everything but a final newline goes through tl_escape_add and
 * tl_escape_add_line_start). Use it for every message that may carry a
 * name or text from a file. */
void tl_diagf(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
