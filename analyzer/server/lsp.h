/* The Language Server Protocol's plumbing (LSP 3.17): JSON-RPC 2.0 messages
 * framed by `Content-Length` headers on a byte stream, the error codes, and
 * the protocol's text coordinates (0-based line, UTF-16 code units within
 * the line, lines ended by LF, CRLF or a lone CR) converted to and from byte
 * offsets of UTF-8 text. No document or analysis state lives here: that is
 * server.c's. */
#ifndef TL_LSP_H
#define TL_LSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/array.h"
#include "base/buf.h"

/* JSON-RPC and LSP error codes. */
enum {
	TL_LSP_PARSE_ERROR = -32700,
	TL_LSP_INVALID_REQUEST = -32600,
	TL_LSP_METHOD_NOT_FOUND = -32601,
	TL_LSP_INVALID_PARAMS = -32602,
	TL_LSP_INTERNAL_ERROR = -32603,
	TL_LSP_SERVER_NOT_INITIALIZED = -32002,
};

/* A header block longer than this is not a header: the reader resynchronises. */
#define TL_LSP_MAX_HEADER 4096
/* The largest message body accepted: a source file at the engine's limit
 * (16 MiB), escaped as JSON, with room to spare. Larger frames are skipped. */
#define TL_LSP_MAX_BODY (64u * 1024u * 1024u)

/* Reads framed messages from a file descriptor without blocking the
 * caller beyond one read(2): the caller polls the descriptor, calls
 * tl_lsp_reader_fill when it is readable, then takes messages with
 * tl_lsp_reader_next until it answers TL_LSP_READ_NONE. */
typedef struct TlLspReader {
	int fd;
	TlBuf in;      /* bytes read and not yet consumed start at in.data + pos */
	size_t pos;
	size_t skip;   /* body bytes of an oversized frame still to drop */
	bool eof;
} TlLspReader;

typedef enum TlLspRead {
	TL_LSP_READ_NONE,      /* no complete message buffered */
	TL_LSP_READ_MESSAGE,   /* *msg holds a JSON object or array (caller decrefs) */
	TL_LSP_READ_BAD_FRAME, /* a header block without a usable Content-Length, or junk */
	TL_LSP_READ_BAD_JSON,  /* a complete frame whose body is not JSON */
} TlLspRead;

void tl_lsp_reader_init(TlLspReader *r, int fd);
void tl_lsp_reader_release(TlLspReader *r);
/* One read(2) of what is available. Returns false at end of input or on a
 * read error (then r->eof is set); EINTR and EAGAIN count as "nothing yet". */
bool tl_lsp_reader_fill(TlLspReader *r);
/* Takes the next message from the buffered bytes. On BAD_FRAME and
 * BAD_JSON, `why` says what was wrong and the reader has already moved past
 * the bad bytes (to the next "Content-Length" header it can find), so
 * reading can go on. */
TlLspRead tl_lsp_reader_next(TlLspReader *r, json_t **msg, char *why, size_t why_size);

/* Writes `msg` (borrowed) framed to `fd`, retrying partial writes. Returns
 * false when the peer is gone. */
bool tl_lsp_write(int fd, const json_t *msg);

/* Message builders; each steals the references it is given. */
json_t *tl_lsp_response(json_t *id, json_t *result);
json_t *tl_lsp_error(json_t *id, int code, const char *message);
json_t *tl_lsp_notification(const char *method, json_t *params);

/* A string member of `o` with its length (JSON strings may hold NUL); NULL
 * when absent or not a string. */
const char *tl_lsp_string(const json_t *o, const char *key, size_t *len);

/* ---- text coordinates -------------------------------------------------------------- */

typedef struct TlLspPos {
	uint32_t line;      /* 0-based */
	uint32_t character; /* UTF-16 code units from the line's start */
} TlLspPos;

typedef struct TlLspRange {
	TlLspPos start, end;
} TlLspRange;

/* The line starts of a UTF-8 text (borrowed; it must outlive the index). */
typedef struct TlLspLines {
	const char *text;
	uint32_t len;
	TlArray(uint32_t) starts;
} TlLspLines;

void tl_lsp_lines_init(TlLspLines *l, const char *text, uint32_t len);
void tl_lsp_lines_release(TlLspLines *l);
/* The byte offset of `p`. As the protocol says, a character past the end
 * of the line means the line's end (before its terminator) and a line past
 * the last means the end of the text; a character inside a surrogate pair
 * (the middle of one astral code point) means the start of that code point. */
uint32_t tl_lsp_lines_offset(const TlLspLines *l, TlLspPos p);
/* The position of byte offset `byte` (clamped to the text's length). */
TlLspPos tl_lsp_lines_position(const TlLspLines *l, uint32_t byte);
/* The bytes of line `line` (0-based) without its terminator: [*start, *end). */
void tl_lsp_lines_span(const TlLspLines *l, uint32_t line, uint32_t *start, uint32_t *end);

/* Byte offset of `p` in `text`, for one-off conversions (a linear scan). */
uint32_t tl_lsp_offset(const char *text, uint32_t len, TlLspPos p);

/* Parses {"line": n, "character": n}; false when malformed. */
bool tl_lsp_pos_parse(const json_t *o, TlLspPos *p);
bool tl_lsp_range_parse(const json_t *o, TlLspRange *r);
json_t *tl_lsp_range_json(TlLspRange r);
/* a <= b in document order. */
bool tl_lsp_pos_le(TlLspPos a, TlLspPos b);

/* ---- URIs ----------------------------------------------------------------------------- */

/* The local path of a `file:` URI (percent-decoded; caller frees), or NULL
 * for other schemes (untitled:, vscode-notebook-cell:, ...) and malformed
 * ones. */
char *tl_lsp_uri_path(const char *uri);

#endif
