/* A loaded source file: its text as UTF-8 (BOM removed), and a line index
 * that turns byte offsets into 1-based lines and code-point columns. */
#ifndef TL_SOURCE_H
#define TL_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/array.h"

/* Files larger than this are refused: tree-sitter counts bytes in 32 bits,
 * and no training script comes near it. */
#define TL_SOURCE_MAX_BYTES (16u * 1024u * 1024u)

typedef struct TlSource {
	char *path;  /* as given or discovered; owned */
	char *text;  /* NUL-terminated UTF-8, BOM stripped; owned */
	uint32_t length;
	bool bom;    /* the file began with a UTF-8 byte-order mark */
	/* The text for the parser: `text` with each lone CR made a LF (Python
	 * ends lines at CR, LF and CRLF; tree-sitter-python only at LF), same
	 * length and offsets; NULL when there is no lone CR. Owned. */
	char *parse_text;
	TlArray(uint32_t) line_starts; /* byte offset where each line starts */
} TlSource;

typedef struct TlPosition {
	uint32_t line;   /* 1-based */
	uint32_t column; /* 1-based, in Unicode code points */
} TlPosition;

/* Reads `path`, which must be a regular file: a FIFO, device, socket or
 * directory is refused without waiting on it ("not a regular file"). On
 * failure returns false, leaves `src` released, and writes a one-line
 * reason (no "torchlint:" prefix) into `why`. */
bool tl_source_load(TlSource *src, const char *path, char *why, size_t why_size);
/* Opens `path` for reading when it is a regular file, without waiting on
 * it: O_NONBLOCK (a FIFO swapped in after a check must not block the open
 * on a writer), then fstat on what was opened, so nothing can change
 * between the check and the read. The descriptor (close it), its size in
 * *size (may be NULL); -1 with the reason in `why` ("not a regular file",
 * "is a directory", strerror) otherwise. Every read of a file by path goes
 * through it. */
int tl_source_open_regular(const char *path, long long *size, char *why, size_t why_size);
/* Takes `len` bytes of `text` (copied) as the contents of `path`. Same
 * checks and contract as tl_source_load. */
bool tl_source_init_text(TlSource *src, const char *path, const char *text,
			 size_t len, char *why, size_t why_size);
void tl_source_release(TlSource *src);
/* Reads `fd` to its end (a pipe, standard input), but never more than
 * TL_SOURCE_MAX_BYTES: past it, stops and fails with "file too large".
 * On success *text (caller frees; not NUL-terminated) holds *len bytes. */
bool tl_source_read_fd(int fd, char **text, size_t *len, char *why, size_t why_size);

TlPosition tl_source_position(const TlSource *src, uint32_t byte);
uint32_t tl_source_line_count(const TlSource *src);
/* Borrows line `line` (1-based) without its line terminator. */
const char *tl_source_line(const TlSource *src, uint32_t line, uint32_t *len);

/* Returns the byte offset of the first invalid UTF-8 sequence in `s`, or
 * `len` when all of it is valid. */
size_t tl_utf8_invalid_offset(const unsigned char *s, size_t len);
/* Number of code points in the first `n` bytes of valid UTF-8 `s`. */
uint32_t tl_utf8_count(const char *s, size_t n);

#endif
