#include "base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void tl_outfile_init_stdout(TlOutFile *o)
{
	memset(o, 0, sizeof *o);
	o->stream = stdout;
	o->fd = -1;
}

bool tl_outfile_open(TlOutFile *o, const char *path, char *why, size_t why_size)
{
	tl_outfile_init_stdout(o);
	o->path = path;
	/* No O_TRUNC: the file may be one of the inputs (tl_outfile_is). */
	o->fd = open(path, O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC, 0666);
	if (o->fd < 0) {
		snprintf(why, why_size, "%s", strerror(errno));
		return false;
	}
	struct stat st;
	if (fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		o->regular = true;
		o->dev = st.st_dev;
		o->ino = st.st_ino;
	}
	return true;
}

bool tl_outfile_is(const TlOutFile *o, const char *path)
{
	struct stat st;
	return o->regular && stat(path, &st) == 0 && st.st_dev == o->dev && st.st_ino == o->ino;
}

bool tl_outfile_is_fd(const TlOutFile *o, int fd)
{
	struct stat st;
	return o->regular && fstat(fd, &st) == 0 && st.st_dev == o->dev && st.st_ino == o->ino;
}

bool tl_outfile_start(TlOutFile *o, char *why, size_t why_size)
{
	if (o->fd < 0)
		return true;
	if (o->regular && ftruncate(o->fd, 0) != 0) {
		snprintf(why, why_size, "%s", strerror(errno));
		return false;
	}
	FILE *f = fdopen(o->fd, "w");
	if (!f) {
		snprintf(why, why_size, "%s", strerror(errno));
		return false;
	}
	o->fd = -1; /* owned by the stream now */
	o->stream = f;
	return true;
}

void tl_outfile_flush(TlOutFile *o)
{
	if (o->stream && fflush(o->stream) != 0 && !o->err)
		o->err = errno;
}

bool tl_outfile_finish(TlOutFile *o, char *why, size_t why_size)
{
	bool ok = !o->err;
	int err = o->err;
	if (o->fd >= 0) {
		close(o->fd); /* opened, never written */
		o->fd = -1;
	}
	if (!o->stream)
		return true;
	/* errno of the flush that failed; an earlier failed write leaves only
	 * the error flag. */
	if (fflush(o->stream) != 0) {
		if (!err)
			err = errno;
		ok = false;
	}
	if (ferror(o->stream))
		ok = false;
	if (o->stream != stdout && fclose(o->stream) != 0) {
		if (!err)
			err = errno;
		ok = false;
	}
	o->stream = NULL;
	if (!ok)
		snprintf(why, why_size, "%s", err ? strerror(err) : "write error");
	return ok;
}
