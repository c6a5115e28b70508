/* File discovery: turns the paths named on the command line into the list
 * of files to analyse. */
#ifndef TL_DISCOVER_H
#define TL_DISCOVER_H

#include <stdbool.h>

#include "base/array.h"
#include "config/config.h"

/* Called for each path that cannot be read; `why` is a short reason. */
typedef void (*TlDiscoverError)(void *data, const char *path, const char *why);

typedef struct TlDiscoverOptions {
	TlConfigs *configs;      /* excludes come from each path's configuration; NULL: defaults */
	bool respect_gitignore;  /* skip what .gitignore files (and .git/info/exclude) ignore */
	bool force_exclude;      /* apply excludes to paths named explicitly too */
	TlDiscoverError on_error;
	void *data;
	FILE *err;               /* where configuration errors go */
	/* Called for each symbolic link to a folder that a walk passes over
	 * (not followed); NULL: not told. */
	void (*on_skip)(void *data, const char *path, const char *why);
	/* When not 0: a walk stops once it has listed more files than this
	 * (the project's scan for importers, project/scan.h, is bounded). */
	uint32_t max_files;
	/* When not 0: a walk stops once it has looked at more directory
	 * entries than this, of any kind (files of every extension, folders,
	 * links): a tree of 150,000 images costs as much to list as one of
	 * sources. */
	uint32_t max_entries;
	/* True: every entry looked at is a step of the current bound
	 * (base/budget.h, tl_bound_step: its work budget, CPU time and cancel
	 * hook), and a hit stops the walk (the project's scan, which runs
	 * within a file's analysis). */
	bool bounded;
	/* When not NULL, set to true when a walk stopped at max_files,
	 * max_entries or the bound. */
	bool *stopped;
} TlDiscoverOptions;

/* Appends to `files` (caller frees the strings) every file named in
 * `paths`, and every `.py` and `.ipynb` file below each named directory,
 * skipping what the configuration excludes (by default version-control
 * folders, caches, virtual environments and `build`), folders holding a
 * pyvenv.cfg, and, if asked, what git ignores. A file named explicitly is
 * taken whatever its extension, unless force_exclude and excluded. The walk
 * is iterative and does not follow symbolic links to directories. A named
 * path that is not a regular file or directory (a FIFO, device, socket),
 * an ignore file that exists but cannot be read, and an entry whose path
 * is longer than PATH_MAX are reported through on_error. Returns false if
 * any path failed (after reporting it); the others are listed. */
bool tl_discover_ex(const char *const *paths, int count, const TlDiscoverOptions *opt,
		    TlStrArray *files);
/* True when --force-exclude would drop `path` (which need not exist): it,
 * or a directory above it, is excluded or ignored by git. */
bool tl_discover_excluded(const TlDiscoverOptions *opt, const char *path, bool is_dir);
/* tl_discover_ex with the default configuration and no .gitignore. */
bool tl_discover(const char *const *paths, int count, TlStrArray *files,
		 TlDiscoverError on_error, void *data);

#endif
