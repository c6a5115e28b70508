/* File discovery: turns the paths named on the command line into the list
 * of files to analyse. */
#ifndef TL_DISCOVER_H
#define TL_DISCOVER_H

#include <stdbool.h>

#include "array.h"

/* Called for each path that cannot be read; `why` is a short reason. */
typedef void (*TlDiscoverError)(void *data, const char *path, const char *why);

/* Appends to `files` (caller frees the strings) every file named in
 * `paths`, and every `.py` file below each named directory, skipping
 * version-control folders, caches, virtual environments and `build`.
 * A file named explicitly is taken whatever its extension. The walk is
 * iterative and does not follow symbolic links to directories. Files come
 * out sorted within each directory. Returns false if any path failed
 * (after reporting it through `on_error`); the others are still listed. */
bool tl_discover(const char *const *paths, int count, TlStrArray *files,
		 TlDiscoverError on_error, void *data);

/* True for a directory name that the walk never enters. */
bool tl_discover_skip_dir(const char *name);

#endif
