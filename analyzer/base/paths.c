#include "base/paths.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/buf.h"

char *tl_path_cwd(void)
{
	/* glibc's getcwd(NULL, 0) allocates what the path needs, also past
	 * PATH_MAX. When there is none (the directory was removed), "./":
	 * paths stay relative, never resolved against a wrong root. */
	char *cwd = getcwd(NULL, 0);
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_add(&b, cwd && cwd[0] == '/' ? cwd : "./");
	free(cwd); /* getcwd's allocation */
	if (b.data[b.len - 1] != '/')
		tl_buf_addc(&b, '/');
	return tl_buf_detach(&b);
}

char *tl_path_absolute(const char *path)
{
	TlBuf in;
	tl_buf_init(&in);
	if (path[0] != '/') {
		char *cwd = tl_path_cwd();
		tl_buf_add(&in, cwd);
		tl_free(cwd);
	}
	tl_buf_add(&in, path);
	/* Split into components, dropping "." and popping for "..". */
	TlArray(const char *) parts;
	TlArray(size_t) lens;
	tl_array_init(&parts);
	tl_array_init(&lens);
	const char *p = in.data;
	while (*p) {
		while (*p == '/')
			p++;
		const char *start = p;
		while (*p && *p != '/')
			p++;
		size_t l = (size_t)(p - start);
		if (!l || (l == 1 && start[0] == '.'))
			continue;
		if (l == 2 && start[0] == '.' && start[1] == '.') {
			if (parts.size) {
				parts.size--;
				lens.size--;
			}
			continue;
		}
		tl_array_push(&parts, start);
		tl_array_push(&lens, l);
	}
	TlBuf out;
	tl_buf_init(&out);
	for (uint32_t i = 0; i < parts.size; i++) {
		tl_buf_addc(&out, '/');
		tl_buf_addn(&out, parts.items[i], lens.items[i]);
	}
	if (!out.len)
		tl_buf_addc(&out, '/');
	tl_array_release(&parts);
	tl_array_release(&lens);
	tl_buf_release(&in);
	return tl_buf_detach(&out);
}

char *tl_path_with_slash(const char *dir)
{
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_add(&b, dir);
	while (b.len > 1 && b.data[b.len - 1] == '/')
		b.data[--b.len] = '\0';
	if (b.data[b.len - 1] != '/')
		tl_buf_addc(&b, '/');
	return tl_buf_detach(&b);
}

char *tl_path_dirname_abs(const char *path)
{
	char *abs = tl_path_absolute(path);
	char *slash = strrchr(abs, '/');
	slash[1] = '\0';
	return abs;
}

char *tl_path_parent(const char *dir)
{
	char *d = tl_path_with_slash(dir);
	size_t l = strlen(d);
	if (l <= 1)
		return d;
	d[l - 1] = '\0';
	char *slash = strrchr(d, '/');
	slash[1] = '\0';
	return d;
}

char *tl_path_real(const char *path)
{
	char *r = realpath(path, NULL);
	if (!r)
		return tl_path_absolute(path);
	char *copy = tl_strdup(r);
	free(r); /* realpath's buffer comes from malloc */
	return copy;
}

char *tl_path_repo_root(void)
{
	char *cwd = tl_path_real(".");
	char *dir = tl_path_with_slash(cwd);
	tl_free(cwd);
	for (;;) {
		TlBuf git;
		tl_buf_init(&git);
		tl_buf_addf(&git, "%s.git", dir);
		struct stat st;
		bool found = lstat(git.data, &st) == 0;
		tl_buf_release(&git);
		if (found || strcmp(dir, "/") == 0)
			break;
		char *parent = tl_path_parent(dir);
		tl_free(dir);
		dir = parent;
	}
	if (strcmp(dir, "/") == 0) {
		struct stat st;
		if (lstat("/.git", &st) != 0) {
			tl_free(dir);
			char *c = tl_path_real(".");
			dir = tl_path_with_slash(c);
			tl_free(c);
		}
	}
	return dir;
}
