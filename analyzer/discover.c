#include "discover.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "alloc.h"
#include "buf.h"

bool tl_discover_skip_dir(const char *name)
{
	static const char *const skipped[] = {
		".git", ".hg", ".svn", "__pycache__", "build", "node_modules",
		".venv", "venv", ".tox", ".nox", ".eggs", ".mypy_cache",
		".pytest_cache", ".ruff_cache", "site-packages", ".ipynb_checkpoints",
	};
	for (size_t i = 0; i < sizeof skipped / sizeof *skipped; i++)
		if (strcmp(name, skipped[i]) == 0)
			return true;
	return false;
}

static bool tl_discover__is_python(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && strcmp(name + n - 3, ".py") == 0;
}

static int tl_discover__cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *tl_discover__join(const char *dir, const char *name)
{
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_add(&b, dir);
	if (b.len && b.data[b.len - 1] != '/')
		tl_buf_addc(&b, '/');
	tl_buf_add(&b, name);
	return tl_buf_detach(&b);
}

/* A virtual environment is any folder holding pyvenv.cfg, whatever its name. */
static bool tl_discover__is_venv(const char *dir)
{
	char *cfg = tl_discover__join(dir, "pyvenv.cfg");
	struct stat st;
	bool yes = stat(cfg, &st) == 0;
	tl_free(cfg);
	return yes;
}

static bool tl_discover__walk(const char *root, TlStrArray *files,
			      TlDiscoverError on_error, void *data)
{
	bool ok = true;
	TlStrArray stack;
	tl_array_init(&stack);
	tl_array_push(&stack, tl_strdup(root));
	while (stack.size) {
		char *dir = tl_array_pop(&stack);
		DIR *d = opendir(dir);
		if (!d) {
			on_error(data, dir, strerror(errno));
			ok = false;
			tl_free(dir);
			continue;
		}
		TlStrArray subdirs, found;
		tl_array_init(&subdirs);
		tl_array_init(&found);
		struct dirent *e;
		while ((e = readdir(d))) {
			const char *name = e->d_name;
			if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
				continue;
			char *path = tl_discover__join(dir, name);
			struct stat lst, st;
			if (lstat(path, &lst) != 0) {
				tl_free(path);
				continue;
			}
			bool is_link = S_ISLNK(lst.st_mode);
			if (stat(path, &st) != 0) {
				tl_free(path); /* a dangling link */
				continue;
			}
			if (S_ISDIR(st.st_mode)) {
				if (is_link || tl_discover_skip_dir(name) ||
				    tl_discover__is_venv(path))
					tl_free(path);
				else
					tl_array_push(&subdirs, path);
			} else if (S_ISREG(st.st_mode) && tl_discover__is_python(name)) {
				tl_array_push(&found, path);
			} else {
				tl_free(path);
			}
		}
		closedir(d);
		tl_array_sort(&found, tl_discover__cmp);
		for (uint32_t i = 0; i < found.size; i++)
			tl_array_push(files, found.items[i]);
		/* Pushed in reverse so that they are popped in sorted order. */
		tl_array_sort(&subdirs, tl_discover__cmp);
		for (uint32_t i = subdirs.size; i > 0; i--)
			tl_array_push(&stack, subdirs.items[i - 1]);
		tl_array_release(&found);
		tl_array_release(&subdirs);
		tl_free(dir);
	}
	tl_array_release(&stack);
	return ok;
}

bool tl_discover(const char *const *paths, int count, TlStrArray *files,
		 TlDiscoverError on_error, void *data)
{
	bool ok = true;
	for (int i = 0; i < count; i++) {
		const char *path = paths[i];
		struct stat st;
		if (stat(path, &st) != 0) {
			on_error(data, path, strerror(errno));
			ok = false;
		} else if (S_ISDIR(st.st_mode)) {
			ok &= tl_discover__walk(path, files, on_error, data);
		} else {
			tl_array_push(files, tl_strdup(path));
		}
	}
	return ok;
}
