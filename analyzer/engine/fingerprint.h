/* The line hash GitHub code scanning uses for SARIF's
 * partialFingerprints.primaryLocationLineHash, so that an alert keeps its
 * identity when unrelated lines move. The algorithm (as the upload action
 * applies it): a rolling polynomial hash, base 37 in wrapping 64-bit
 * arithmetic, over a window of the 100 characters (UTF-16 code units)
 * starting at each line, with spaces and tabs skipped and CR / CRLF read as
 * LF; identical hashes are numbered in order of appearance ("hex:n"). */
#ifndef TL_FINGERPRINT_H
#define TL_FINGERPRINT_H

#include <stddef.h>
#include <stdint.h>

typedef struct TlLineHashes {
	char **lines; /* lines[i]: the hash of line i + 1; owned */
	uint32_t count;
} TlLineHashes;

/* Hashes every line of `len` bytes of UTF-8 `text`. `bom`: the file began
 * with a byte-order mark (not in `text`), which the hash counts. */
void tl_line_hashes(TlLineHashes *out, const char *text, size_t len, int bom);
void tl_line_hashes_release(TlLineHashes *h);
/* The hash of 1-based `line`, or "" when out of range. Borrowed. */
const char *tl_line_hash(const TlLineHashes *h, uint32_t line);

#endif
