/* Unit tests for analyzer/config/discover.h over a temporary directory tree. */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "config/discover.h"

typedef struct {
	char root[64];
} DiscoverState;

/* Creates ROOT/rel (a file with a line of Python, or a directory when
 * `rel` ends with '/'), making parent directories as needed. */
static void make(const DiscoverState *s, const char *rel)
{
	TlBuf p;
	tl_buf_init(&p);
	tl_buf_addf(&p, "%s/%s", s->root, rel);
	for (char *c = p.data + strlen(s->root) + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		if (mkdir(p.data, 0755) != 0)
			assert_true(access(p.data, F_OK) == 0);
		*c = '/';
	}
	if (p.data[p.len - 1] != '/') {
		FILE *f = fopen(p.data, "w");
		assert_non_null(f);
		fputs("x = 1\n", f);
		fclose(f);
	}
	tl_buf_release(&p);
}

static int group_setup(void **state)
{
	DiscoverState *s = tl_calloc(1, sizeof *s);
	snprintf(s->root, sizeof s->root, "/tmp/tl-discover-XXXXXX");
	if (!mkdtemp(s->root)) {
		tl_free(s);
		return -1;
	}
	static const char *const tree[] = {
		"b.py", "a.py", "notes.txt", "setup.cfg", "py", "x.pyc", "data.py.bak",
		"sub/c.py", "sub/deeper/d.py", "sub/deeper/e.txt", "zlast/z.py",
		"sub/B.py", /* uppercase sorts before lowercase (byte order) */
		".git/hooks/h.py", "__pycache__/cached.py", "build/gen.py", "venv/lib/v.py",
		".venv/w.py", "node_modules/pkg/n.py", "myenv/pyvenv.cfg", "myenv/lib/m.py",
		"empty/", "pkg.py/inside.py", /* a directory named like a file */
	};
	for (size_t i = 0; i < sizeof tree / sizeof *tree; i++)
		make(s, tree[i]);
	/* A symbolic link to a directory, one to a .py file, a dangling one. */
	TlBuf p, t;
	tl_buf_init(&p);
	tl_buf_init(&t);
	tl_buf_addf(&p, "%s/link", s->root);
	tl_buf_addf(&t, "%s/sub", s->root);
	int rc = symlink(t.data, p.data);
	tl_buf_clear(&p);
	tl_buf_addf(&p, "%s/dangling.py", s->root);
	rc |= symlink("/nonexistent/target.py", p.data);
	tl_buf_release(&p);
	tl_buf_release(&t);
	if (rc != 0)
		return -1;
	*state = s;
	return 0;
}

static int group_teardown(void **state)
{
	DiscoverState *s = *state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->root);
	int rc = system(cmd);
	tl_free(s);
	return rc == 0 ? 0 : -1;
}

typedef struct {
	int count;
	char path[256];
	char why[256];
} Errors;

static void on_error(void *data, const char *path, const char *why)
{
	Errors *e = data;
	e->count++;
	snprintf(e->path, sizeof e->path, "%s", path);
	snprintf(e->why, sizeof e->why, "%s", why);
}

/* Checks that `files` is ROOT/ + each of `want` (NULL-terminated), in order. */
static void expect_files(const DiscoverState *s, const TlStrArray *files,
			 const char *const *want)
{
	uint32_t n = 0;
	while (want[n])
		n++;
	for (uint32_t i = 0; i < files->size && i < n; i++) {
		TlBuf p;
		tl_buf_init(&p);
		tl_buf_addf(&p, "%s/%s", s->root, want[i]);
		if (strcmp(files->items[i], p.data) != 0)
			fail_msg("file %u is '%s', expected '%s'", i, files->items[i], p.data);
		tl_buf_release(&p);
	}
	if (files->size != n) {
		for (uint32_t i = 0; i < files->size; i++)
			print_message("  %s\n", files->items[i]);
		fail_msg("%u files, expected %u", files->size, n);
	}
}

static void test_walk_sorted_and_skipping(void **state)
{
	DiscoverState *s = *state;
	const char *paths[] = { s->root };
	TlStrArray files;
	tl_array_init(&files);
	Errors err = { 0 };
	assert_true(tl_discover(paths, 1, &files, on_error, &err));
	assert_int_equal(err.count, 0);
	/* Files of a directory (sorted) before its subdirectories (sorted,
	 * depth first); no .git, __pycache__, build, venv, .venv,
	 * node_modules, pyvenv.cfg folder, non-.py file, link to a directory
	 * or dangling link; a directory named pkg.py is walked, not taken. */
	static const char *const want[] = {
		"a.py", "b.py", "pkg.py/inside.py", "sub/B.py", "sub/c.py", "sub/deeper/d.py",
		"zlast/z.py", NULL,
	};
	expect_files(s, &files, want);
	tl_str_array_release(&files);
}

static void test_root_with_trailing_slash(void **state)
{
	DiscoverState *s = *state;
	TlBuf p;
	tl_buf_init(&p);
	tl_buf_addf(&p, "%s/sub/", s->root);
	const char *paths[] = { p.data };
	TlStrArray files;
	tl_array_init(&files);
	Errors err = { 0 };
	assert_true(tl_discover(paths, 1, &files, on_error, &err));
	static const char *const want[] = { "sub/B.py", "sub/c.py", "sub/deeper/d.py", NULL };
	expect_files(s, &files, want);
	tl_str_array_release(&files);
	tl_buf_release(&p);
}

static void test_explicit_files_taken(void **state)
{
	DiscoverState *s = *state;
	TlBuf a, b;
	tl_buf_init(&a);
	tl_buf_init(&b);
	tl_buf_addf(&a, "%s/notes.txt", s->root);
	tl_buf_addf(&b, "%s/build/gen.py", s->root);
	/* Named explicitly: taken whatever the extension or the folder. */
	const char *paths[] = { a.data, b.data };
	TlStrArray files;
	tl_array_init(&files);
	Errors err = { 0 };
	assert_true(tl_discover(paths, 2, &files, on_error, &err));
	assert_int_equal(files.size, 2);
	assert_string_equal(files.items[0], a.data);
	assert_string_equal(files.items[1], b.data);
	tl_str_array_release(&files);
	tl_buf_release(&a);
	tl_buf_release(&b);
}

static void test_missing_path(void **state)
{
	DiscoverState *s = *state;
	TlBuf missing, ok;
	tl_buf_init(&missing);
	tl_buf_init(&ok);
	tl_buf_addf(&missing, "%s/nope.py", s->root);
	tl_buf_addf(&ok, "%s/a.py", s->root);
	const char *paths[] = { missing.data, ok.data };
	TlStrArray files;
	tl_array_init(&files);
	Errors err = { 0 };
	assert_false(tl_discover(paths, 2, &files, on_error, &err));
	assert_int_equal(err.count, 1);
	assert_string_equal(err.path, missing.data);
	assert_string_equal(err.why, "No such file or directory");
	/* The other paths are still listed. */
	assert_int_equal(files.size, 1);
	assert_string_equal(files.items[0], ok.data);
	tl_str_array_release(&files);
	tl_buf_release(&missing);
	tl_buf_release(&ok);
}

static void test_symlinked_directory_not_followed(void **state)
{
	DiscoverState *s = *state;
	const char *paths[] = { s->root };
	TlStrArray files;
	tl_array_init(&files);
	Errors err = { 0 };
	assert_true(tl_discover(paths, 1, &files, on_error, &err));
	for (uint32_t i = 0; i < files.size; i++)
		if (strstr(files.items[i], "/link/"))
			fail_msg("followed the link: %s", files.items[i]);
	/* The linked directory itself is found once, by its own name. */
	int c = 0;
	for (uint32_t i = 0; i < files.size; i++)
		c += strstr(files.items[i], "/c.py") != NULL;
	assert_int_equal(c, 1);
	tl_str_array_release(&files);
}

static void test_unreadable_directory(void **state)
{
	DiscoverState *s = *state;
	TlBuf p;
	tl_buf_init(&p);
	tl_buf_addf(&p, "%s/locked", s->root);
	make(s, "locked/");
	assert_int_equal(chmod(p.data, 0), 0);
	/* Root reads any directory: walk as "nobody" (the effective uid
	 * decides access; the saved uid lets us switch back). */
	bool dropped = false;
	if (geteuid() == 0) {
		assert_int_equal(chmod(s->root, 0755), 0);
		assert_int_equal(seteuid(65534), 0);
		dropped = true;
	}
	const char *paths[] = { s->root };
	TlStrArray files;
	tl_array_init(&files);
	Errors err = { 0 };
	bool ok = tl_discover(paths, 1, &files, on_error, &err);
	if (dropped)
		assert_int_equal(seteuid(0), 0);
	chmod(p.data, 0755);
	rmdir(p.data);
	assert_false(ok);
	assert_int_equal(err.count, 1);
	assert_string_equal(err.path, p.data);
	assert_string_equal(err.why, "Permission denied");
	/* The rest of the walk went on. */
	assert_int_equal(files.size, 7);
	tl_str_array_release(&files);
	tl_buf_release(&p);
}

static void test_appends_to_existing(void **state)
{
	DiscoverState *s = *state;
	TlBuf p;
	tl_buf_init(&p);
	tl_buf_addf(&p, "%s/zlast", s->root);
	const char *paths[] = { p.data, p.data };
	TlStrArray files;
	tl_array_init(&files);
	tl_array_push(&files, tl_strdup("already.py"));
	Errors err = { 0 };
	assert_true(tl_discover(paths, 2, &files, on_error, &err));
	/* Appended after what was there; a path named twice is walked twice
	 * (the caller de-duplicates). */
	assert_int_equal(files.size, 3);
	assert_string_equal(files.items[0], "already.py");
	assert_non_null(strstr(files.items[1], "/zlast/z.py"));
	assert_string_equal(files.items[1], files.items[2]);
	tl_str_array_release(&files);
	tl_buf_release(&p);
}

/* The default configuration's excludes skip these folder names at any
 * depth, and only as folders. */
static bool default_excludes(const char *path, bool is_dir)
{
	TlConfig cfg;
	tl_config_defaults(&cfg);
	bool skip = tl_patterns_match(&cfg.exclude, path, is_dir) == TL_MATCH_EXCLUDE;
	tl_config_release(&cfg);
	return skip;
}

static void test_skip_dir_names(void **state)
{
	(void)state;
	static const char *const skipped[] = {
		".git", ".hg", ".svn", "__pycache__", "build", "venv", ".venv",
		"node_modules", ".tox", ".mypy_cache", "site-packages",
	};
	char path[128];
	for (size_t i = 0; i < sizeof skipped / sizeof *skipped; i++) {
		snprintf(path, sizeof path, "/home/u/proj/%s", skipped[i]);
		if (!default_excludes(path, true))
			fail_msg("'%s' is not skipped", skipped[i]);
		if (default_excludes(path, false))
			fail_msg("a file named '%s' is skipped", skipped[i]);
	}
	assert_false(default_excludes("/home/u/proj/src", true));
	assert_false(default_excludes("/home/u/proj/builds", true));
	assert_false(default_excludes("/home/u/proj/Build", true));
	assert_true(default_excludes("/home/u/build/deep/__pycache__", true));
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_sorted_and_skipping),
		cmocka_unit_test(test_root_with_trailing_slash),
		cmocka_unit_test(test_explicit_files_taken),
		cmocka_unit_test(test_missing_path),
		cmocka_unit_test(test_symlinked_directory_not_followed),
		cmocka_unit_test(test_unreadable_directory),
		cmocka_unit_test(test_appends_to_existing),
		cmocka_unit_test(test_skip_dir_names),
	};
	return cmocka_run_group_tests_name("discover", tests, group_setup, group_teardown);
}
