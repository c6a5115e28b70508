#include "config/discover.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/budget.h"
#include "base/buf.h"
#include "base/glob.h"
#include "base/paths.h"
#include "base/source.h"

/* One .gitignore (or .git/info/exclude) and the scope it applies to. */
typedef struct TlIgnoreScope {
	TlPatterns patterns;
	int32_t parent;
} TlIgnoreScope;

typedef struct TlWalk {
	const TlDiscoverOptions *opt;
	TlArray(TlIgnoreScope) scopes;
	bool failed; /* an ignore file could not be read (and was reported) */
	uint32_t entries; /* directory entries looked at */
	bool stop;        /* over max_files, max_entries or the bound */
} TlWalk;

typedef struct TlDirItem {
	char *path;    /* as it will be reported */
	int32_t scope; /* innermost ignore scope, or -1 */
} TlDirItem;

static bool tl_discover__has_ext(const char *name, const char *ext)
{
	size_t n = strlen(name), e = strlen(ext);
	return n > e && strcmp(name + n - e, ext) == 0;
}

static int tl_discover__cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *tl_discover__join(const char *dir, const char *name)
{
	if (strcmp(dir, ".") == 0 || strcmp(dir, "./") == 0)
		return tl_strdup(name); /* "sub/a.py", as ruff shows it, not "./sub/a.py" */
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_add(&b, dir);
	if (b.len && b.data[b.len - 1] != '/')
		tl_buf_addc(&b, '/');
	tl_buf_add(&b, name);
	return tl_buf_detach(&b);
}

static bool tl_discover__is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Adds the patterns of `file` (if it exists) as a scope below `parent`.
 * One that exists but cannot be read (a FIFO, no permission, not UTF-8) is
 * reported: what it ignores would otherwise be analysed without a word. */
static int32_t tl_discover__push_scope(TlWalk *w, const char *abs_dir, const char *file,
				       int32_t parent)
{
	char *path = tl_discover__join(abs_dir, file);
	TlSource src;
	char why[256];
	int32_t scope = parent;
	if (!tl_discover__is_file(path)) {
		/* absent: nothing to apply */
	} else if (tl_source_load(&src, path, why, sizeof why)) {
		TlIgnoreScope s;
		tl_patterns_init(&s.patterns, abs_dir);
		tl_patterns_add_text(&s.patterns, src.text);
		s.parent = parent;
		scope = (int32_t)w->scopes.size;
		tl_array_push(&w->scopes, s);
		tl_source_release(&src);
	} else {
		w->opt->on_error(w->opt->data, path, why);
		w->failed = true;
	}
	tl_free(path);
	return scope;
}

/* The scopes of the .gitignore files from the repository root down to (not
 * including) `abs_dir`, when `abs_dir` is inside a git work tree. */
static int32_t tl_discover__ancestor_scopes(TlWalk *w, const char *abs_dir)
{
	char *root = tl_path_with_slash(abs_dir);
	TlStrArray chain;
	tl_array_init(&chain);
	bool in_repo = false;
	for (;;) {
		tl_array_push(&chain, tl_strdup(root));
		char *git = tl_discover__join(root, ".git");
		in_repo = tl_discover__is_file(git);
		tl_free(git);
		if (in_repo || strcmp(root, "/") == 0)
			break;
		char *parent = tl_path_parent(root);
		tl_free(root);
		root = parent;
	}
	tl_free(root);
	int32_t scope = -1;
	if (in_repo) {
		/* chain: abs_dir ... repo root; apply from the root down. */
		const char *repo = chain.items[chain.size - 1];
		scope = tl_discover__push_scope(w, repo, ".git/info/exclude", scope);
		for (uint32_t i = chain.size; i > 1; i--)
			scope = tl_discover__push_scope(w, chain.items[i - 1], ".gitignore", scope);
	}
	tl_str_array_release(&chain);
	return scope;
}

/* True when git ignores `abs` (a path below the scopes' directories). */
static bool tl_discover__git_ignored(const TlWalk *w, int32_t scope, const char *abs, bool is_dir)
{
	for (int32_t s = scope; s >= 0; s = w->scopes.items[s].parent) {
		TlMatch m = tl_patterns_match(&w->scopes.items[s].patterns, abs, is_dir);
		if (m != TL_MATCH_NONE)
			return m == TL_MATCH_EXCLUDE;
	}
	return false;
}

static bool tl_discover__excluded(const TlWalk *w, int32_t scope, const char *path, bool is_dir)
{
	const TlDiscoverOptions *opt = w->opt;
	char *abs = tl_path_absolute(path);
	bool skip = false;
	const char *base = strrchr(abs, '/');
	base = base ? base + 1 : abs;
	if (is_dir && strcmp(base, ".git") == 0)
		skip = true;
	if (!skip && is_dir) {
		/* A virtual environment is any folder holding pyvenv.cfg. */
		char *cfg = tl_discover__join(abs, "pyvenv.cfg");
		skip = tl_discover__is_file(cfg);
		tl_free(cfg);
	}
	if (!skip) {
		TlConfig fallback;
		const TlConfig *cfg;
		if (opt->configs) {
			cfg = tl_configs_for(opt->configs, abs, is_dir, opt->err);
		} else {
			tl_config_defaults(&fallback);
			cfg = &fallback;
		}
		if (opt->configs && opt->configs->has_exclude) {
			/* --exclude replaces the configurations' excludes. */
			skip = tl_patterns_match(&opt->configs->exclude, abs, is_dir) == TL_MATCH_EXCLUDE;
		} else {
			skip = tl_patterns_match(&cfg->exclude, abs, is_dir) == TL_MATCH_EXCLUDE;
			for (uint32_t i = 0; !skip && i < cfg->inherited_exclude.size; i++)
				skip = tl_patterns_match(&cfg->inherited_exclude.items[i], abs, is_dir) ==
				       TL_MATCH_EXCLUDE;
		}
		if (!skip && opt->configs && opt->configs->extend_exclude.items.size)
			skip = tl_patterns_match(&opt->configs->extend_exclude, abs, is_dir) == TL_MATCH_EXCLUDE;
		if (!opt->configs)
			tl_config_release(&fallback);
	}
	if (!skip && opt->respect_gitignore)
		skip = tl_discover__git_ignored(w, scope, abs, is_dir);
	tl_free(abs);
	return skip;
}

/* --force-exclude: `path` (named on the command line) is excluded when it,
 * or any directory above it, is excluded by its configuration or ignored
 * by git, as a directory walk would have found. */
static bool tl_discover__force_excluded(TlWalk *w, const char *path, bool is_dir)
{
	char *abs = tl_path_absolute(path);
	bool skip = false;
	/* Each ancestor directory, from the top down, then the path itself. */
	for (char *p = abs + 1; !skip; p++) {
		bool last = *p == '\0';
		if (!last && *p != '/')
			continue;
		char saved = *p;
		*p = '\0';
		char *parent = tl_path_dirname_abs(abs);
		int32_t scope = -1;
		if (w->opt->respect_gitignore) {
			scope = tl_discover__ancestor_scopes(w, parent);
			scope = tl_discover__push_scope(w, parent, ".gitignore", scope);
		}
		skip = tl_discover__excluded(w, scope, abs, last ? is_dir : true);
		tl_free(parent);
		*p = saved;
		if (last)
			break;
	}
	tl_free(abs);
	return skip;
}

static bool tl_discover__walk(TlWalk *w, const char *root, TlStrArray *files)
{
	const TlDiscoverOptions *opt = w->opt;
	bool ok = true;
	TlArray(TlDirItem) stack;
	tl_array_init(&stack);
	int32_t top_scope = -1;
	if (opt->respect_gitignore) {
		char *abs = tl_path_absolute(root);
		top_scope = tl_discover__ancestor_scopes(w, abs);
		tl_free(abs);
	}
	TlDirItem first = { tl_strdup(root), top_scope };
	tl_array_push(&stack, first);
	while (stack.size) {
		if (w->stop || (opt->max_files && files->size > opt->max_files)) {
			w->stop = true;
			/* Over the bound: the rest is not walked. */
			for (uint32_t i = 0; i < stack.size; i++)
				tl_free(stack.items[i].path);
			stack.size = 0;
			break;
		}
		TlDirItem item = tl_array_pop(&stack);
		char *dir = item.path;
		int32_t scope = item.scope;
		if (opt->respect_gitignore) {
			char *abs = tl_path_absolute(dir);
			scope = tl_discover__push_scope(w, abs, ".gitignore", scope);
			tl_free(abs);
		}
		DIR *d = opendir(dir);
		if (!d) {
			opt->on_error(opt->data, dir, strerror(errno));
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
			if ((opt->max_entries && ++w->entries > opt->max_entries) ||
			    (opt->bounded && tl_bound_step(1))) {
				w->stop = true;
				break;
			}
			char *path = tl_discover__join(dir, name);
			struct stat lst, st;
			if (lstat(path, &lst) != 0) {
				if (errno == ENAMETOOLONG) {
					/* Deeper than the system lets a path go: say so
					 * rather than skip what lies there. */
					char why[96];
					snprintf(why, sizeof why,
						 "path too long (the system limit is %d bytes); not analysed",
						 PATH_MAX);
					opt->on_error(opt->data, path, why);
					ok = false;
				} else if (errno != ENOENT) {
					opt->on_error(opt->data, path, strerror(errno));
					ok = false;
				}
				tl_free(path); /* else it vanished */
				continue;
			}
			if (stat(path, &st) != 0) {
				tl_free(path); /* a dangling link, or a loop of links */
				continue;
			}
			bool is_dir = S_ISDIR(st.st_mode);
			bool source = !is_dir && (tl_discover__has_ext(name, ".py") ||
						  tl_discover__has_ext(name, ".ipynb"));
			bool wanted = is_dir ? !S_ISLNK(lst.st_mode) : source;
			if (!wanted && is_dir && opt->on_skip && !tl_discover__excluded(w, scope, path, is_dir))
				opt->on_skip(opt->data, path, "a symbolic link to a folder: a walk does not follow it");
			if (!wanted || tl_discover__excluded(w, scope, path, is_dir)) {
				tl_free(path);
				continue;
			}
			if (!is_dir && !S_ISREG(st.st_mode)) {
				/* A FIFO, device or socket named like a source file:
				 * reading it could wait forever; say so rather than
				 * pass over it in silence. */
				opt->on_error(opt->data, path, "not a regular file");
				ok = false;
				tl_free(path);
				continue;
			}
			tl_array_push(is_dir ? &subdirs : &found, path);
		}
		closedir(d);
		tl_array_sort(&found, tl_discover__cmp);
		for (uint32_t i = 0; i < found.size; i++)
			tl_array_push(files, found.items[i]);
		/* Pushed in reverse so that they are popped in sorted order. */
		tl_array_sort(&subdirs, tl_discover__cmp);
		for (uint32_t i = subdirs.size; i > 0; i--) {
			TlDirItem sub = { subdirs.items[i - 1], scope };
			tl_array_push(&stack, sub);
		}
		tl_array_release(&found);
		tl_array_release(&subdirs);
		tl_free(dir);
	}
	tl_array_release(&stack);
	return ok;
}

bool tl_discover_ex(const char *const *paths, int count, const TlDiscoverOptions *opt,
		    TlStrArray *files)
{
	TlWalk w;
	w.opt = opt;
	w.failed = false;
	w.entries = 0;
	w.stop = false;
	tl_array_init(&w.scopes);
	bool ok = true;
	for (int i = 0; i < count; i++) {
		const char *path = paths[i];
		struct stat st;
		if (stat(path, &st) != 0) {
			opt->on_error(opt->data, path, strerror(errno));
			ok = false;
			continue;
		}
		bool is_dir = S_ISDIR(st.st_mode);
		if (opt->force_exclude && tl_discover__force_excluded(&w, path, is_dir))
			continue;
		if (!is_dir && !S_ISREG(st.st_mode)) {
			/* A FIFO, device or socket: reading it could wait forever
			 * (tl_source_load refuses it too, whatever it becomes). */
			opt->on_error(opt->data, path, "not a regular file");
			ok = false;
			continue;
		}
		if (is_dir)
			ok &= tl_discover__walk(&w, path, files);
		else
			tl_array_push(files, tl_strdup(path));
	}
	for (uint32_t i = 0; i < w.scopes.size; i++)
		tl_patterns_release(&w.scopes.items[i].patterns);
	tl_array_release(&w.scopes);
	if (w.stop && opt->stopped)
		*opt->stopped = true;
	return ok && !w.failed;
}

bool tl_discover_excluded(const TlDiscoverOptions *opt, const char *path, bool is_dir)
{
	TlWalk w;
	w.opt = opt;
	w.failed = false;
	w.entries = 0;
	w.stop = false;
	tl_array_init(&w.scopes);
	bool skip = tl_discover__force_excluded(&w, path, is_dir);
	for (uint32_t i = 0; i < w.scopes.size; i++)
		tl_patterns_release(&w.scopes.items[i].patterns);
	tl_array_release(&w.scopes);
	return skip;
}

bool tl_discover(const char *const *paths, int count, TlStrArray *files,
		 TlDiscoverError on_error, void *data)
{
	TlDiscoverOptions opt = { NULL, false, false, on_error, data, stderr, NULL, 0, 0, false, NULL };
	return tl_discover_ex(paths, count, &opt, files);
}
