/* Where the report goes: standard output, or the file named by -o. The
 * file is opened without truncating it, so that it can be compared with
 * the inputs first: `-o train.py train.py` (or a link to it) must not
 * destroy the input before it is read. Every write error, including one
 * that only shows when the stream is flushed or closed (a full disk,
 * /dev/full, a closed standard output), is reported by tl_outfile_finish. */
#ifndef TL_OUTFILE_H
#define TL_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct TlOutFile {
	FILE *stream;     /* where to write; stdout until tl_outfile_start */
	const char *path; /* the -o file (borrowed), or NULL for standard output */
	int fd;           /* the -o file before tl_outfile_start, else -1 */
	bool regular;     /* a regular file: compared with inputs and truncated */
	int err;          /* errno of the first failed flush, or 0 */
	dev_t dev;
	ino_t ino;
} TlOutFile;

/* Standard output. */
void tl_outfile_init_stdout(TlOutFile *o);
/* Opens (creates) `path` for writing, not yet truncated. False with the
 * reason in `why` when it cannot be opened. */
bool tl_outfile_open(TlOutFile *o, const char *path, char *why, size_t why_size);
/* True when the input file `path` is the output file (same device and
 * inode: the same name, a symbolic link or a hard link to it). */
bool tl_outfile_is(const TlOutFile *o, const char *path);
/* True when descriptor `fd` (standard input) is the output file. */
bool tl_outfile_is_fd(const TlOutFile *o, int fd);
/* Truncates the -o file and makes o->stream write to it. */
bool tl_outfile_start(TlOutFile *o, char *why, size_t why_size);
/* Flushes what was written so far (before writing elsewhere), keeping
 * the reason of a failure for tl_outfile_finish. */
void tl_outfile_flush(TlOutFile *o);
/* Flushes and closes (standard output: flushes). False, with the reason,
 * when anything written was lost. Safe to call once in any state. */
bool tl_outfile_finish(TlOutFile *o, char *why, size_t why_size);

#endif
