/* The project model: roots, import resolution, modules loaded on demand
 * (project.h says how names are found). */
#include "project/project.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/budget.h"
#include "base/buf.h"
#include "base/paths.h"
#include "base/source.h"
#include "base/strmap.h"
#include "facts/facts.h"
#include "project/deps.h"
#include "project/scan.h"
#include "syntax/syms.h"
#include "syntax/walk.h"

enum { TL_MOD_LOADING, TL_MOD_READY, TL_MOD_FAILED };

typedef struct TlModule {
	char *path; /* real path */
	char id[48]; /* its file's "device:inode" ("" when stat failed) */
	int state;
	uint64_t hash; /* of its text */
	TlSource src;
	TSTree *tree;
	TlIndex idx;
	char *skipped; /* why a module read was not used (a per-file limit), or NULL */
	bool probe;    /* read only as a candidate importer that imports nothing asked */
	bool retry;    /* its build was cancelled (the server's cancel hook): read again
			* when next asked, never kept as failed */
	bool reindex;  /* its text and parse are kept, its index, facts and model are
			* built again when next asked (a module it read changed) */
} TlModule;

/* Where one folder's files look for absolute imports. */
typedef struct TlRoots {
	TlStrArray dirs; /* each ending in '/' */
	char *only;      /* an installed tree: the one top-level package it may import, or "" */
	char *top;       /* the folder whose files may import them (the project's folder,
			  * else the top of the package chain), ending in '/'; NULL in an
			  * installed tree */
	char *pkg;       /* the top-level package the folder's files belong to, as an
			  * absolute import names it; NULL when the folder is no package */
} TlRoots;

/* The modules that import one module (the reverse question), found once. */
typedef struct TlImporters {
	bool done;      /* false while being found: a question meanwhile gets none */
	TlIntArray mods; /* indices into modules */
} TlImporters;

typedef struct TlOverlay {
	char *path;
	char *text;
	size_t len;
} TlOverlay;

struct TlProject {
	TlImports imports; /* first: the facts layer's view of it */
	pthread_mutex_t lock;
	TSParser *parser;
	TlArray(TlModule *) modules;
	TlStrMap by_path;   /* real path -> index into modules */
	TlStrMap by_id;     /* "device:inode" -> index into modules */
	TlArray(TlRoots) roots;
	TlStrMap roots_of;  /* importing file's folder -> index into roots */
	TlStrMap found;     /* "<base>\n<dotted>" -> index into modules, -1 none */
	TlStrMap dir_of;    /* an importing file's path, as its source names it -> index into dirs */
	TlStrMap real_of;   /* the folder part of such a path, as written -> index into dirs */
	TlStrMap marker_of; /* a real folder -> index into marker_dirs, -1 none (tl_project__marker) */
	TlStrMap files_of;  /* a lookup's key (tl_project__find) -> index into files, -1 none */
	TlStrArray files;   /* the real paths of the files found so */
	TlStrArray marker_dirs;
	TlStrArray dirs;    /* the real folders of those files, ending in '/' */
	TlStrArray extra;   /* configured roots */
	TlArray(TlOverlay) overlays;
	TlDiscoverOptions discover; /* the walk the scans use (excludes) */
	bool has_discover;
	TlArray(TlScan *) scans;
	TlStrMap scan_of;   /* scan root -> index into scans */
	TlArray(TlImporters) importers;
	TlStrMap importers_of; /* a module's real path -> index into importers */
	size_t stat_reused;
	size_t stat_stale; /* changes that built again only what read the module */
	size_t stat_scan_files, stat_candidates; /* the reverse question's work */
	atomic_uint_fast64_t walks; /* folders walked by scans (tl_project_scan_walks) */
	atomic_uint_fast64_t parses, builds; /* modules parsed, and indexed (tl_project_work) */
	bool track;  /* deps is kept (tl_project_track) */
	TlDeps deps; /* what each file's analysis read (deps.h) */
	TlStrMap realfile_of; /* a file's path, as its source names it -> index into real_files */
	TlStrArray real_files;
};

static uint64_t tl_project__hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* A file's identity, "device:inode", into `out` (48 bytes); false when
 * stat fails. One stat, where a real path reads every component. */
static bool tl_project__id(const char *path, char *out)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return false;
	snprintf(out, 48, "%llx:%llx", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	return true;
}

/* True when the two paths name one file. */
static bool tl_project__id_same(const char *a, const char *b)
{
	char ia[48], ib[48];
	return tl_project__id(a, ia) && tl_project__id(b, ib) && strcmp(ia, ib) == 0;
}

static bool tl_project__is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool tl_project__is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* True when folder `dir` (ending in '/') holds an entry `name`. */
static bool tl_project__has(const char *dir, const char *name)
{
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_add(&b, dir);
	tl_buf_add(&b, name);
	struct stat st;
	bool yes = stat(b.data, &st) == 0;
	tl_buf_release(&b);
	return yes;
}

static void tl_project__add_dir(TlStrArray *dirs, const char *dir)
{
	for (uint32_t i = 0; i < dirs->size; i++)
		if (strcmp(dirs->items[i], dir) == 0)
			return;
	tl_array_push(dirs, tl_strdup(dir));
}

/* The last component of folder `dir` (ending in '/'), into out. */
static void tl_project__base(const char *dir, char *out, size_t size)
{
	size_t n = strlen(dir);
	if (n && dir[n - 1] == '/')
		n--;
	size_t s = n;
	while (s && dir[s - 1] != '/')
		s--;
	snprintf(out, size, "%.*s", (int)(n - s), dir + s);
}

/* True for a folder no project is rooted at: one anyone may write (/tmp,
 * /var/tmp, /dev/shm: world-writable or sticky), where a marker or a
 * module may be another user's, and `/`. */
static bool tl_project__shared(const char *dir)
{
	struct stat st;
	return strcmp(dir, "/") == 0 ||
	       (stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & (S_IWOTH | S_ISVTX)));
}

/* The nearest folder at or above `dir` (real, ending in '/') that holds a
 * project marker (pyproject.toml, setup.cfg, setup.py, .git), as a new
 * string, or NULL: none below a shared folder or `/`. Each folder's answer
 * is kept (marker_of): the folders of a tree share their ancestors, each
 * asked 5 stat calls. */
static char *tl_project__marker(TlProject *p, const char *dir)
{
	TlStrArray walked; /* the folders whose answer is the one found */
	tl_array_init(&walked);
	int32_t found = -1; /* index into marker_dirs */
	for (char *d = tl_strdup(dir); d;) {
		int32_t at;
		if (tl_strmap_get(&p->marker_of, d, strlen(d), &at)) {
			found = at;
			tl_free(d);
			break;
		}
		tl_array_push(&walked, d);
		/* A marker in a shared folder (a setup.py in /tmp) may be anyone's:
		 * the search stops there. */
		if (tl_project__shared(d))
			break;
		if (tl_project__has(d, "pyproject.toml") || tl_project__has(d, "setup.cfg") ||
		    tl_project__has(d, "setup.py") || tl_project__has(d, ".git")) {
			tl_array_push(&p->marker_dirs, tl_strdup(d));
			found = (int32_t)(p->marker_dirs.size - 1);
			break;
		}
		if (strcmp(d, "/") == 0)
			break;
		d = tl_path_parent(d);
	}
	for (uint32_t i = 0; i < walked.size; i++)
		tl_strmap_put(&p->marker_of, walked.items[i], strlen(walked.items[i]), found);
	tl_str_array_release(&walked);
	return found >= 0 ? tl_strdup(p->marker_dirs.items[found]) : NULL;
}

/* The roots of the files of folder `dir` (real, ending in '/'). */
static int32_t tl_project__roots_for(TlProject *p, const char *dir)
{
	int32_t at;
	if (tl_strmap_get(&p->roots_of, dir, strlen(dir), &at))
		return at;
	TlRoots r;
	tl_array_init(&r.dirs);
	r.only = NULL;
	r.top = NULL;
	r.pkg = NULL;
	bool package = tl_project__has(dir, "__init__.py");
	if (!package)
		tl_project__add_dir(&r.dirs, dir);
	/* The top of the package chain, and the package just below it. */
	char *top = tl_strdup(dir), *child = NULL;
	for (int i = 0; i < 64 && strcmp(top, "/") != 0 && tl_project__has(top, "__init__.py"); i++) {
		tl_free(child);
		child = top;
		top = tl_path_parent(child);
	}
	tl_project__add_dir(&r.dirs, top);
	char *marker = tl_project__marker(p, dir);
	if (marker) {
		r.top = tl_strdup(marker);
		tl_project__add_dir(&r.dirs, marker);
		TlBuf s;
		tl_buf_init(&s);
		tl_buf_add(&s, marker);
		tl_buf_add(&s, "src/");
		if (tl_project__is_dir(s.data))
			tl_project__add_dir(&r.dirs, s.data);
		tl_buf_release(&s);
		tl_free(marker);
	} else {
		char name[256];
		tl_project__base(top, name, sizeof name);
		if (strcmp(name, "site-packages") == 0 || strcmp(name, "dist-packages") == 0) {
			char pkg[256] = "";
			if (child)
				tl_project__base(child, pkg, sizeof pkg);
			r.only = tl_strdup(pkg);
		} else if (!tl_project__shared(top)) {
			r.top = tl_strdup(top);
		} else if (!tl_project__shared(dir)) {
			/* No project marker, and the top of the package chain is a
			 * shared folder: the file's own folder, as ruff takes it. */
			r.top = tl_strdup(dir);
		}
		/* Else (a file directly in /tmp): no folder is walked for its
		 * importers, and they are unknown. */
	}
	for (uint32_t i = 0; i < p->extra.size; i++)
		tl_project__add_dir(&r.dirs, p->extra.items[i]);
	if (child) {
		char pkg[256];
		tl_project__base(child, pkg, sizeof pkg);
		r.pkg = tl_strdup(pkg);
	}
	tl_free(top);
	tl_free(child);
	tl_array_push(&p->roots, r);
	at = (int32_t)(p->roots.size - 1);
	tl_strmap_put(&p->roots_of, dir, strlen(dir), at);
	return at;
}

static const TlOverlay *tl_project__overlay(const TlProject *p, const char *path)
{
	for (uint32_t i = 0; i < p->overlays.size; i++)
		if (strcmp(p->overlays.items[i].path, path) == 0)
			return &p->overlays.items[i];
	return NULL;
}

/* Parses, indexes and builds the facts of `m` (read, not yet parsed)
 * within the per-file limits of a file named on the command line (base/budget.h): a module over one is not used
 * and m->skipped says why. Its CPU time is its own, not charged to the
 * file whose import loads it. */
static void tl_project__build(TlProject *p, TlModule *m)
{
	const char *text = m->src.parse_text ? m->src.parse_text : m->src.text;
	TlBound bound;
	memset(&bound, 0, sizeof bound);
	tl_bound_begin(&bound, tl_budget_seconds_for(m->src.length), tl_budget_steps_for(m->src.length));
	/* The asking file's cancel hook stops the build too (the language
	 * server's exit, a newer version of the document). */
	TlBound *asking = tl_bound_current();
	if (asking) {
		bound.cancel = asking->cancel;
		bound.cancel_data = asking->cancel_data;
	}
	double start = tl_bound_cpu();
	TlBound *outer = tl_bound_enter(&bound);
	TlBuf why;
	tl_buf_init(&why);
	uint32_t tokens = m->tree ? 0 : tl_budget_tokens_over(text, m->src.length, TL_BUDGET_MAX_TOKENS);
	atomic_fetch_add(&p->builds, 1);
	if (tokens > TL_BUDGET_MAX_TOKENS) {
		tl_buf_addf(&why, "it holds more than %u tokens, over the per-file memory budget of %u",
			    tokens - 1, TL_BUDGET_MAX_TOKENS);
	} else {
		if (!m->tree) {
			/* (A module whose text did not change keeps its parse.) */
			tl_bound_phase(&bound, "parsing");
			TSInput in = tl_walk_input(&m->src);
			TSParseOptions po = { &bound, tl_walk_parse_progress };
			m->tree = ts_parser_parse_with_options(p->parser, NULL, in, po);
			atomic_fetch_add(&p->parses, 1);
			if (!m->tree)
				ts_parser_reset(p->parser);
		}
		uint32_t nodes = m->tree ? ts_node_descendant_count(ts_tree_root_node(m->tree)) : 0;
		if (nodes > TL_BUDGET_MAX_NODES) {
			tl_buf_addf(&why, "it parses into %u nodes, over the per-file memory budget of %u",
				    nodes, TL_BUDGET_MAX_NODES);
		} else if (m->tree) {
			/* Its facts are built as the file's own (what its calls of
			 * other modules do is not looked up while building: loading
			 * would follow every import of every module read); questions
			 * asked of it later follow its imports in the same project. */
			tl_bound_phase(&bound, "indexing");
			tl_facts_build_in(&m->idx, &m->src, ts_tree_root_node(m->tree), NULL, NULL);
			if (bound.hit)
				tl_index_release(&m->idx);
		}
		if (bound.hit == TL_BOUND_STEPS)
			tl_buf_addf(&why, "its analysis stopped while %s: its work exceeds the per-file budget (%llu steps for %u bytes)",
				    bound.hit_in ? bound.hit_in : "parsing", (unsigned long long)bound.step_limit,
				    m->src.length);
		else if (bound.hit)
			tl_buf_addf(&why, "its analysis stopped while %s: it took more than %.3g s of CPU time (the per-file bound for %u bytes)",
				    bound.hit_in ? bound.hit_in : "parsing", bound.seconds, m->src.length);
	}
	tl_bound_leave(outer);
	if (outer)
		outer->deadline += tl_bound_cpu() - start;
	if (bound.hit == TL_BOUND_CANCELLED) {
		/* Not a property of the module: read again when next asked. The
		 * asking file is cancelled too, at once, so that nothing it
		 * computes from the module's absence is kept. */
		m->retry = true;
		if (outer && !outer->hit) {
			outer->hit = TL_BOUND_CANCELLED;
			outer->hit_in = outer->phase;
		}
	}
	if (why.len) {
		if (m->tree)
			ts_tree_delete(m->tree);
		m->tree = NULL;
		m->skipped = tl_buf_detach(&why);
		m->state = TL_MOD_FAILED;
	} else {
		m->idx.imports = &p->imports;
		m->idx.torch_version = TL_TORCH_VERSION_DEFAULT;
		m->state = TL_MOD_READY;
	}
	tl_buf_release(&why);
}

/* The module at real path `path`, loaded now when it was not; -1 when it
 * cannot be read. */
static int32_t tl_project__load(TlProject *p, const char *path)
{
	int32_t at;
	TlModule *m;
	if (tl_strmap_get(&p->by_path, path, strlen(path), &at)) {
		m = p->modules.items[at];
		if (m->reindex) {
			/* Its text and parse are what they were: indexed again. */
			m->reindex = false;
			m->state = TL_MOD_LOADING;
			tl_project__build(p, m);
			return at;
		}
		if (!m->retry)
			return at;
		/* Its build was cancelled: read it again. */
		m->retry = false;
		tl_free(m->skipped);
		m->skipped = NULL;
		tl_source_release(&m->src);
		m->state = TL_MOD_LOADING;
	} else {
		m = tl_calloc(1, sizeof *m);
		m->path = tl_strdup(path);
		m->state = TL_MOD_LOADING;
		tl_array_push(&p->modules, m);
		at = (int32_t)(p->modules.size - 1);
		tl_strmap_put(&p->by_path, path, strlen(path), at);
	}
	char why[256];
	const TlOverlay *o = tl_project__overlay(p, path);
	bool read = o ? tl_source_init_text(&m->src, path, o->text, o->len, why, sizeof why)
		      : tl_source_load(&m->src, path, why, sizeof why);
	if (!read) {
		m->state = TL_MOD_FAILED;
		return at;
	}
	m->hash = tl_project__hash(m->src.text, m->src.length);
	if (tl_project__id(path, m->id))
		tl_strmap_put(&p->by_id, m->id, strlen(m->id), at);
	tl_project__build(p, m);
	return at;
}

/* The file that `dotted` (no leading dots) names below `base` (ending in
 * '/'): base/a/b.py or base/a/b/__init__.py; an empty name is the package
 * `base` itself. Into `out`; false when there is none. */
static bool tl_project__file(const char *base, const char *dotted, size_t len, TlBuf *out)
{
	tl_buf_add(out, base);
	for (size_t i = 0; i < len; i++)
		tl_buf_addc(out, dotted[i] == '.' ? '/' : dotted[i]);
	size_t keep = out->len;
	if (len) {
		tl_buf_add(out, ".py");
		if (tl_project__is_file(out->data))
			return true;
		out->len = keep;
		out->data[keep] = 0;
		tl_buf_addc(out, '/');
	}
	tl_buf_add(out, "__init__.py");
	return tl_project__is_file(out->data);
}

/* The real folder of the file a source names, once per file (realpath
 * reads every component of the path): an index into p->dirs. */
static const char *tl_project__dir(TlProject *p, const char *fp)
{
	int32_t di;
	size_t n = strlen(fp);
	if (tl_strmap_get(&p->dir_of, fp, n, &di))
		return p->dirs.items[di];
	/* A file that is no symbolic link is in the real folder of the folder
	 * its path names: that folder's, found once for all its files. */
	const char *slash = strrchr(fp, '/');
	struct stat st;
	size_t dn = slash ? (size_t)(slash - fp) + 1 : 0;
	if (dn && dn < n && lstat(fp, &st) == 0 && !S_ISLNK(st.st_mode)) {
		if (!tl_strmap_get(&p->real_of, fp, dn, &di)) {
			char *folder = tl_strndup(fp, dn);
			char *real = realpath(folder, NULL);
			tl_free(folder);
			di = -1;
			if (real) {
				tl_array_push(&p->dirs, tl_path_with_slash(real));
				di = (int32_t)(p->dirs.size - 1);
			}
			free(real); /* realpath's buffer comes from malloc */
			tl_strmap_put(&p->real_of, fp, dn, di);
		}
		if (di >= 0) {
			tl_strmap_put(&p->dir_of, fp, n, di);
			return p->dirs.items[di];
		}
	}
	char *real = tl_path_real(fp);
	tl_array_push(&p->dirs, tl_path_dirname_abs(real));
	tl_free(real);
	di = (int32_t)(p->dirs.size - 1);
	tl_strmap_put(&p->dir_of, fp, n, di);
	return p->dirs.items[di];
}

/* The real path of the file of `idx`, once per path its source names. */
static const char *tl_project__real_file(TlProject *p, const TlIndex *idx)
{
	const char *fp = idx->src->path;
	size_t n = strlen(fp);
	int32_t at;
	if (!tl_strmap_get(&p->realfile_of, fp, n, &at)) {
		tl_array_push(&p->real_files, tl_path_real(fp));
		at = (int32_t)(p->real_files.size - 1);
		tl_strmap_put(&p->realfile_of, fp, n, at);
	}
	return p->real_files.items[at];
}

/* The real path of the file of `idx` (its real folder, and the file's own
 * name), into `out`. */
static void tl_project__real_of(TlProject *p, const TlIndex *idx, TlBuf *out)
{
	const char *fp = idx->src->path;
	const char *slash = strrchr(fp, '/');
	tl_buf_add(out, tl_project__dir(p, fp));
	tl_buf_add(out, slash ? slash + 1 : fp);
}

/* Where `dotted` (`len` bytes, leading dots for a relative import) is
 * looked up from a file of folder `dir`: the cache key into *key, and
 * the file it names, real, into *file when `file` is not NULL (empty when
 * none). */
static void tl_project__find(TlProject *p, const char *dir, const char *dotted, size_t len,
			     TlBuf *key, char **file)
{
	size_t lead = 0;
	while (lead < len && dotted[lead] == '.')
		lead++;
	char *base = NULL;
	int32_t roots = -1;
	if (lead) {
		/* One dot: the importing file's package; each more, one up. */
		base = tl_strdup(dir);
		for (size_t i = 1; i < lead; i++) {
			char *up = tl_path_parent(base);
			tl_free(base);
			base = up;
		}
		tl_buf_add(key, base);
	} else {
		roots = tl_project__roots_for(p, dir);
		/* "#<roots>", written without printf (asked for most calls) */
		char digits[16];
		int nd = 0;
		for (uint32_t v = (uint32_t)roots; nd == 0 || v; v /= 10)
			digits[nd++] = (char)('0' + v % 10);
		tl_buf_addc(key, '#');
		while (nd)
			tl_buf_addc(key, digits[--nd]);
	}
	tl_buf_addc(key, '\n');
	tl_buf_addn(key, dotted + lead, len - lead);
	if (file) {
		*file = NULL;
		TlBuf f;
		tl_buf_init(&f);
		bool found = false;
		if (lead) {
			found = tl_project__file(base, dotted + lead, len - lead, &f);
		} else {
			const TlRoots *r = &p->roots.items[roots];
			size_t first = strcspn(dotted, ".");
			if (first > len)
				first = len;
			bool allowed = !r->only || (strlen(r->only) == first &&
						    memcmp(r->only, dotted, first) == 0);
			for (uint32_t i = 0; allowed && !found && i < r->dirs.size; i++) {
				f.len = 0;
				if (f.data)
					f.data[0] = 0;
				found = tl_project__file(r->dirs.items[i], dotted, len, &f);
			}
		}
		if (found)
			*file = tl_path_real(f.data);
		tl_buf_release(&f);
	}
	tl_free(base);
}

static const TlIndex *tl_project__module(const TlImports *self, const TlIndex *from,
					 const char *dotted, size_t len)
{
	TlProject *p = (TlProject *)self;
	if (!from->src || !from->src->path || !len)
		return NULL;
	pthread_mutex_lock(&p->lock);
	const TlIndex *result = NULL;
	const char *dir = tl_project__dir(p, from->src->path);
	TlBuf key;
	tl_buf_init(&key);
	tl_project__find(p, dir, dotted, len, &key, NULL);
	int32_t at;
	if (!tl_strmap_get(&p->found, key.data, key.len, &at)) {
		at = -1;
		char *file = NULL;
		key.len = 0;
		tl_project__find(p, dir, dotted, len, &key, &file);
		if (file)
			at = tl_project__load(p, file);
		tl_free(file);
		tl_strmap_put(&p->found, key.data, key.len, at);
	} else if (at >= 0 && (p->modules.items[at]->retry || p->modules.items[at]->reindex)) {
		tl_project__load(p, p->modules.items[at]->path);
	}
	if (at >= 0 && p->track) {
		/* What the asking file's analysis read (deps.h), whatever the
		 * module holds: its absence is read too. */
		tl_deps_add(&p->deps, tl_project__real_file(p, from), p->modules.items[at]->path);
	}
	if (at >= 0 && p->modules.items[at]->state == TL_MOD_READY &&
	    &p->modules.items[at]->idx != from) {
		result = &p->modules.items[at]->idx;
		p->modules.items[at]->probe = false; /* imported: read for context */
	}
	tl_buf_release(&key);
	pthread_mutex_unlock(&p->lock);
	return result;
}

/* False when no module of the project can be what `dotted` (absolute, or
 * a prefix of it) names for the file of `from`: an installed tree's
 * imports reach only its own package, and a module a.b.c lies below a
 * file a.py or a folder a/ of one of the roots. Nothing is loaded; a
 * relative name may always be one. */
static bool tl_project__may_name(const TlImports *self, const TlIndex *from, const char *dotted, size_t len)
{
	TlProject *p = (TlProject *)self;
	if (!from->src || !from->src->path || !len || dotted[0] == '.')
		return true;
	size_t first = 0;
	while (first < len && dotted[first] != '.')
		first++;
	pthread_mutex_lock(&p->lock);
	const char *dir = tl_project__dir(p, from->src->path);
	int32_t ri = tl_project__roots_for(p, dir); /* may grow p->roots */
	const TlRoots *r = &p->roots.items[ri];
	bool yes;
	if (r->only) {
		/* its own package: a module of it */
		yes = strlen(r->only) == first && memcmp(r->only, dotted, first) == 0;
	} else {
		yes = false;
		TlBuf b;
		tl_buf_init(&b);
		for (uint32_t i = 0; !yes && i < r->dirs.size; i++) {
			b.len = 0;
			tl_buf_add(&b, r->dirs.items[i]);
			tl_buf_addn(&b, dotted, first);
			size_t keep = b.len;
			yes = tl_project__is_dir(b.data);
			b.len = keep;
			b.data[keep] = 0;
			tl_buf_add(&b, ".py");
			yes = yes || tl_project__is_file(b.data);
		}
		tl_buf_release(&b);
	}
	pthread_mutex_unlock(&p->lock);
	return yes;
}

/* ---- the reverse question: which modules import a module ------------------ */

/* The scan of the folder whose files may import the files of `dir` (real,
 * ending in '/'), made once per run; NULL in an installed tree. */
static const TlScan *tl_project__scan_for(TlProject *p, const char *dir)
{
	int32_t ri = tl_project__roots_for(p, dir); /* may grow p->roots */
	const TlRoots *r = &p->roots.items[ri];
	if (!r->top || r->only)
		return NULL;
	int32_t at;
	if (!tl_strmap_get(&p->scan_of, r->top, strlen(r->top), &at)) {
		TlScan *s = tl_calloc(1, sizeof *s);
		tl_scan_build(s, r->top, p->has_discover ? &p->discover : NULL);
		atomic_fetch_add(&p->walks, 1);
		p->stat_scan_files += s->files.size;
		if (s->cut) {
			/* Stopped by the asking file's bound (its analysis is
			 * thrown away): not kept for the next file. */
			tl_scan_release(s);
			tl_free(s);
			return NULL;
		}
		tl_array_push(&p->scans, s);
		at = (int32_t)(p->scans.size - 1);
		tl_strmap_put(&p->scan_of, r->top, strlen(r->top), at);
	}
	return p->scans.items[at];
}

/* True when module `m` imports, by one of its import bindings, the module
 * at real path `path`, or a name its package `pkg_init` (the __init__.py
 * of the folder holding it, or NULL) defines or re-exports: the longest
 * prefix of the imported name that names a file of the project is that
 * module or that package. */
static bool tl_project__imports_file(TlProject *p, const TlModule *m, const char *path,
				     const char *pkg_init)
{
	const TlIndex *idx = &m->idx;
	const char *dir = tl_project__dir(p, m->path);
	TlBuf key;
	tl_buf_init(&key);
	bool yes = false;
	for (uint32_t i = 0; !yes && i < idx->bindings.size; i++) {
		const TlBinding *b = &idx->bindings.items[i];
		if (b->kind != TL_BIND_IMPORT || !b->qname)
			continue;
		const char *q = b->qname;
		size_t len = strlen(q);
		/* Longest prefix first: "a.b.C", "a.b", "a"; ".x.C", ".x", ".". */
		size_t lead = 0;
		while (lead < len && q[lead] == '.')
			lead++;
		for (int steps = 0; steps < 32; steps++) {
			char *file = NULL;
			key.len = 0;
			tl_project__find(p, dir, q, len, &key, &file);
			if (file) {
				yes = strcmp(file, path) == 0 || (pkg_init && strcmp(file, pkg_init) == 0);
				tl_free(file);
				break;
			}
			size_t k = len;
			while (k > lead && q[k - 1] != '.')
				k--;
			if (k <= lead) {
				if (len > lead && lead) {
					len = lead; /* the package of a relative import */
					continue;
				}
				break;
			}
			len = k - 1;
		}
	}
	tl_buf_release(&key);
	return yes;
}

/* The words an import of the module at real path `path` must name: its
 * name (its package's for an __init__.py) and, when its folder is a
 * package, that package's name. Into words (2 at most); their count. */
static int tl_project__import_words(const char *path, char words[2][256])
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	size_t n = strlen(name);
	int count = 0;
	char *dir = tl_path_dirname_abs(path);
	char pkg[256] = "";
	tl_project__base(dir, pkg, sizeof pkg);
	bool package = tl_project__has(dir, "__init__.py");
	tl_free(dir);
	if (strcmp(name, "__init__.py") == 0) {
		if (pkg[0])
			snprintf(words[count++], 256, "%s", pkg);
		return count;
	}
	if (n > 3 && n - 3 < 256)
		snprintf(words[count++], 256, "%.*s", (int)(n - 3), name);
	if (package && pkg[0])
		snprintf(words[count++], 256, "%s", pkg);
	return count;
}

/* Candidate importers parsed at most per module: past it the module's
 * importers are unknown (a name such as `utils` that every file imports). */
#define TL_PROJECT_MAX_IMPORTERS 24

/* The importers of the module at real path `path` (found once), for the
 * analysis of the file at real path `asker` (deps.h: it reads every
 * candidate). */
static const TlImporters *tl_project__importers_of(TlProject *p, const char *path, const char *asker)
{
	int32_t at;
	if (tl_strmap_get(&p->importers_of, path, strlen(path), &at))
		return &p->importers.items[at];
	TlImporters fresh = { false, { 0 } };
	tl_array_init(&fresh.mods);
	tl_array_push(&p->importers, fresh);
	at = (int32_t)(p->importers.size - 1);
	tl_strmap_put(&p->importers_of, path, strlen(path), at);
	char *dir = tl_path_dirname_abs(path);
	char *slash = tl_path_with_slash(dir);
	size_t plen = strlen(path);
	/* Only a .py file can be imported (not a notebook, not stdin's name
	 * for one). */
	const TlScan *scan = plen > 3 && strcmp(path + plen - 3, ".py") == 0
				     ? tl_project__scan_for(p, slash) : NULL;
	bool complete = scan && scan->complete;
	char words[2][256];
	int nwords = tl_project__import_words(path, words);
	TlBuf init;
	tl_buf_init(&init);
	tl_buf_add(&init, slash);
	tl_buf_add(&init, "__init__.py");
	const char *slash_name = strrchr(path, '/');
	bool is_init = slash_name && strcmp(slash_name + 1, "__init__.py") == 0;
	const char *pkg_init = !is_init && tl_project__is_file(init.data) ? init.data : NULL;
	TlIntArray cands;
	tl_array_init(&cands);
	for (uint32_t i = 0; complete && scan && i < scan->files.size; i++) {
		const TlScanFile *f = &scan->files.items[i];
		if (strcmp(f->path, path) == 0)
			continue;
		bool hit = false;
		for (int w = 0; !hit && w < nwords; w++)
			hit = tl_scan_has_word(f->imports, words[w], strlen(words[w]));
		if (!hit)
			continue;
		if (cands.size >= TL_PROJECT_MAX_IMPORTERS) {
			complete = false;
			break;
		}
		tl_array_push(&cands, (int32_t)i);
	}
	TlIntArray mods;
	tl_array_init(&mods);
	for (uint32_t k = 0; complete && k < cands.size; k++) {
		const char *fp = scan->files.items[cands.items[k]].path;
		p->stat_candidates++;
		bool fresh_load = !tl_strmap_get(&p->by_path, fp, strlen(fp), &(int32_t){ 0 });
		int32_t mi = tl_project__load(p, fp);
		TlModule *m = mi >= 0 ? p->modules.items[mi] : NULL;
		if (fresh_load && m)
			m->probe = true;
		if (m && p->track)
			tl_deps_add(&p->deps, asker, m->path); /* read as a candidate */
		if (!m || m->state != TL_MOD_READY)
			continue; /* unreadable or over a limit: not used, as for an import */
		if (tl_project__imports_file(p, m, path, pkg_init)) {
			m->probe = false;
			tl_array_push(&mods, mi);
		}
	}
	/* p->importers may have grown meanwhile (loads ask nothing, but stay safe). */
	TlImporters *r = &p->importers.items[at];
	if (complete) {
		r->mods = mods;
	} else {
		tl_array_release(&mods);
	}
	r->done = true;
	tl_array_release(&cands);
	tl_buf_release(&init);
	tl_free(slash);
	tl_free(dir);
	return r;
}

static const TlIndex *tl_project__importer(const TlImports *self, const TlIndex *of, uint32_t i)
{
	TlProject *p = (TlProject *)self;
	if (!of->src || !of->src->path)
		return NULL;
	pthread_mutex_lock(&p->lock);
	const TlIndex *result = NULL;
	TlBuf path;
	tl_buf_init(&path);
	tl_project__real_of(p, of, &path);
	int32_t at;
	const TlImporters *r = NULL;
	if (tl_strmap_get(&p->importers_of, path.data, path.len, &at))
		r = &p->importers.items[at];
	else
		r = tl_project__importers_of(p, path.data, tl_project__real_file(p, of));
	if (r->done && i < r->mods.size) {
		TlModule *m = p->modules.items[r->mods.items[i]];
		if (m->state == TL_MOD_READY && &m->idx != of)
			result = &m->idx;
	}
	tl_buf_release(&path);
	pthread_mutex_unlock(&p->lock);
	return result;
}

static bool tl_project__same_file(const TlImports *self, const TlIndex *of, const TlIndex *mod)
{
	(void)self;
	if (!of->src || !mod->src || of == mod)
		return of == mod;
	return of->src->length == mod->src->length &&
	       memcmp(of->src->text, mod->src->text, of->src->length) == 0 &&
	       tl_project__id_same(of->src->path, mod->src->path);
}

static const char *tl_project__package(const TlImports *self, const TlIndex *from)
{
	TlProject *p = (TlProject *)self;
	if (!from->src || !from->src->path)
		return NULL;
	pthread_mutex_lock(&p->lock);
	const char *dir = tl_project__dir(p, from->src->path);
	int32_t ri = tl_project__roots_for(p, dir); /* may move p->roots */
	const char *pkg = p->roots.items[ri].pkg;
	pthread_mutex_unlock(&p->lock);
	return pkg;
}

/* The modules one import line names, as dotted names (leading dots for a
 * relative one), into `out`: `import a.b as c, d` names a.b and d; `from
 * .x import y, z` names .x, .x.y and .x.z (y may be a module of package
 * .x). A name list in parentheses on later lines is not read. */
static void tl_project__line_names(const char *s, size_t n, TlStrArray *out)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	bool from = n - i > 4 && memcmp(s + i, "from", 4) == 0;
	i += from ? 4 : 6;
	char base[256] = "";
	for (int part = 0; i < n;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == ','))
			i++;
		size_t b = i;
		while (i < n && (s[i] == '.' || s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') ||
				 (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
			i++;
		if (i == b || i - b >= sizeof base)
			return;
		char name[512];
		if (from && part == 0) {
			snprintf(base, sizeof base, "%.*s", (int)(i - b), s + b);
			tl_array_push(out, tl_strdup(base));
			while (i < n && (s[i] == ' ' || s[i] == '\t'))
				i++;
			if (n - i < 6 || memcmp(s + i, "import", 6) != 0)
				return;
			i += 6;
		} else if (from) {
			size_t bl = strlen(base);
			snprintf(name, sizeof name, "%s%s%.*s", base, bl && base[bl - 1] == '.' ? "" : ".",
				 (int)(i - b), s + b);
			tl_array_push(out, tl_strdup(name));
		} else {
			snprintf(name, sizeof name, "%.*s", (int)(i - b), s + b);
			tl_array_push(out, tl_strdup(name));
		}
		part++;
		/* `as alias`, then the next name after a comma */
		while (i < n && s[i] != ',')
			i++;
	}
}

/* The import lines of the module at real path `path` (an editor's text
 * when it has one), into `out`; false when it cannot be read. */
static bool tl_project__import_lines(TlProject *p, const char *path, TlBuf *out)
{
	const TlOverlay *o = tl_project__overlay(p, path);
	if (o) {
		tl_scan_imports(o->text, o->len, out);
		return true;
	}
	return tl_scan_file_imports(path, out);
}

/* Modules the question below reads at most, and imported names it looks
 * up per module (each a few stat calls). */
#define TL_PROJECT_IMPORTS_ANY_MAX 32
#define TL_PROJECT_IMPORTS_ANY_NAMES 256

/* The real path of the file that `dotted` names from folder `dir` (as
 * tl_project__find finds it), as a new string, or NULL when none; each
 * answer kept (files_of): the files of a folder import the same modules. */
static char *tl_project__file_of(TlProject *p, const char *dir, const char *dotted)
{
	TlBuf key;
	tl_buf_init(&key);
	size_t len = strlen(dotted);
	tl_project__find(p, dir, dotted, len, &key, NULL);
	int32_t at;
	if (!tl_strmap_get(&p->files_of, key.data, key.len, &at)) {
		char *file = NULL;
		TlBuf again;
		tl_buf_init(&again);
		tl_project__find(p, dir, dotted, len, &again, &file);
		tl_buf_release(&again);
		at = -1;
		if (file) {
			tl_array_push(&p->files, file);
			at = (int32_t)(p->files.size - 1);
		}
		tl_strmap_put(&p->files_of, key.data, key.len, at);
	}
	tl_buf_release(&key);
	return at >= 0 ? tl_strdup(p->files.items[at]) : NULL;
}

static bool tl_project__imports_any(const TlImports *self, const char *path, const char *text,
				    size_t len, const char *const *names)
{
	TlProject *p = (TlProject *)self;
	if (!path || !names)
		return false;
	pthread_mutex_lock(&p->lock);
	/* Breadth first: the file (level 0), the modules it imports (1), the
	 * modules those import (2). */
	TlStrArray paths;
	TlIntArray levels;
	tl_array_init(&paths);
	tl_array_init(&levels);
	tl_array_push(&paths, tl_strdup(path));
	tl_array_push(&levels, 0);
	bool yes = false;
	TlBuf lines;
	tl_buf_init(&lines);
	TlStrArray dotted;
	tl_array_init(&dotted);
	for (uint32_t at = 0; at < paths.size && !yes; at++) {
		int level = levels.items[at];
		uint32_t looked = 0;
		lines.len = 0;
		if (at == 0)
			tl_scan_imports(text, len, &lines);
		else if (!tl_project__import_lines(p, paths.items[at], &lines))
			continue;
		const char *dir = tl_project__dir(p, paths.items[at]);
		for (size_t i = 0; i < lines.len && !yes;) {
			const char *e = memchr(lines.data + i, '\n', lines.len - i);
			size_t n = e ? (size_t)(e - (lines.data + i)) : lines.len - i;
			tl_str_array_release(&dotted);
			tl_array_init(&dotted);
			tl_project__line_names(lines.data + i, n, &dotted);
			for (uint32_t k = 0; k < dotted.size && !yes; k++) {
				const char *d = dotted.items[k];
				size_t root = strcspn(d, ".");
				for (int w = 0; level > 0 && d[0] != '.' && names[w] && !yes; w++)
					yes = strlen(names[w]) == root && memcmp(names[w], d, root) == 0;
				if (yes || level >= 2 || paths.size >= TL_PROJECT_IMPORTS_ANY_MAX ||
				    ++looked > TL_PROJECT_IMPORTS_ANY_NAMES)
					continue;
				char *file = tl_project__file_of(p, dir, d);
				bool seen = !file;
				for (uint32_t j = 0; file && j < paths.size && !seen; j++)
					seen = strcmp(paths.items[j], file) == 0;
				if (seen) {
					tl_free(file);
					continue;
				}
				tl_array_push(&paths, file);
				tl_array_push(&levels, level + 1);
			}
			i += n + 1;
		}
	}
	tl_str_array_release(&dotted);
	tl_buf_release(&lines);
	tl_str_array_release(&paths);
	tl_array_release(&levels);
	pthread_mutex_unlock(&p->lock);
	return yes;
}

static void tl_project__enter(const TlImports *self)
{
	pthread_mutex_lock(&((TlProject *)self)->lock);
}

static void tl_project__leave(const TlImports *self)
{
	pthread_mutex_unlock(&((TlProject *)self)->lock);
}

TlProject *tl_project_new(const TlStrArray *src_roots)
{
	TlProject *p = tl_calloc(1, sizeof *p);
	p->imports.module = tl_project__module;
	p->imports.importer = tl_project__importer;
	p->imports.same_file = tl_project__same_file;
	p->imports.package = tl_project__package;
	p->imports.imports_any = tl_project__imports_any;
	p->imports.may_name = tl_project__may_name;
	p->imports.enter = tl_project__enter;
	p->imports.leave = tl_project__leave;
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&p->lock, &a);
	pthread_mutexattr_destroy(&a);
	p->parser = ts_parser_new();
	ts_parser_set_language(p->parser, tl_python_language());
	tl_array_init(&p->modules);
	tl_strmap_init(&p->by_path);
	tl_strmap_init(&p->by_id);
	tl_array_init(&p->roots);
	tl_strmap_init(&p->roots_of);
	tl_strmap_init(&p->found);
	tl_strmap_init(&p->dir_of);
	tl_strmap_init(&p->real_of);
	tl_strmap_init(&p->marker_of);
	tl_strmap_init(&p->files_of);
	tl_array_init(&p->files);
	tl_array_init(&p->marker_dirs);
	tl_array_init(&p->dirs);
	tl_array_init(&p->extra);
	tl_array_init(&p->overlays);
	tl_array_init(&p->scans);
	tl_strmap_init(&p->scan_of);
	tl_array_init(&p->importers);
	tl_strmap_init(&p->importers_of);
	atomic_init(&p->walks, 0);
	atomic_init(&p->parses, 0);
	atomic_init(&p->builds, 0);
	tl_deps_init(&p->deps);
	tl_strmap_init(&p->realfile_of);
	tl_array_init(&p->real_files);
	for (uint32_t i = 0; src_roots && i < src_roots->size; i++)
		tl_project_add_root(p, src_roots->items[i]);
	return p;
}

void tl_project_set_discover(TlProject *p, const TlDiscoverOptions *opt)
{
	pthread_mutex_lock(&p->lock);
	p->has_discover = opt != NULL;
	if (opt)
		p->discover = *opt;
	pthread_mutex_unlock(&p->lock);
}

void tl_project_add_root(TlProject *p, const char *dir)
{
	char *real = tl_path_real(dir);
	char *slash = tl_path_with_slash(real);
	pthread_mutex_lock(&p->lock);
	tl_project__add_dir(&p->extra, slash);
	pthread_mutex_unlock(&p->lock);
	tl_free(slash);
	tl_free(real);
}

/* Forgets every loaded module; the scans too unless `keep_scans` (an
 * editor's text changed: the scans are updated in place, no walk again). */
static void tl_project__drop(TlProject *p, bool keep_scans)
{
	for (uint32_t i = 0; i < p->modules.size; i++) {
		TlModule *m = p->modules.items[i];
		if (m->state == TL_MOD_READY)
			tl_index_release(&m->idx);
		if (m->tree)
			ts_tree_delete(m->tree);
		tl_source_release(&m->src);
		tl_free(m->path);
		tl_free(m->skipped);
		tl_free(m);
	}
	p->modules.size = 0;
	for (uint32_t i = 0; i < p->roots.size; i++) {
		tl_str_array_release(&p->roots.items[i].dirs);
		tl_free(p->roots.items[i].only);
		tl_free(p->roots.items[i].top);
		tl_free(p->roots.items[i].pkg);
	}
	for (uint32_t i = 0; i < p->importers.size; i++)
		tl_array_release(&p->importers.items[i].mods);
	p->importers.size = 0;
	tl_strmap_release(&p->importers_of);
	tl_strmap_init(&p->importers_of);
	for (uint32_t i = 0; !keep_scans && i < p->scans.size; i++) {
		tl_scan_release(p->scans.items[i]);
		tl_free(p->scans.items[i]);
	}
	if (!keep_scans) {
		p->scans.size = 0;
		tl_strmap_release(&p->scan_of);
		tl_strmap_init(&p->scan_of);
	}
	p->roots.size = 0;
	tl_strmap_release(&p->by_path);
	tl_strmap_release(&p->by_id);
	tl_strmap_release(&p->roots_of);
	tl_strmap_release(&p->found);
	tl_strmap_init(&p->by_path);
	tl_strmap_init(&p->by_id);
	tl_strmap_init(&p->roots_of);
	tl_strmap_init(&p->found);
	/* What was found on disk is looked for again (files come and go). */
	tl_strmap_release(&p->marker_of);
	tl_strmap_init(&p->marker_of);
	tl_str_array_release(&p->marker_dirs);
	tl_array_init(&p->marker_dirs);
	tl_strmap_release(&p->files_of);
	tl_strmap_init(&p->files_of);
	tl_str_array_release(&p->files);
	tl_array_init(&p->files);
	tl_deps_release(&p->deps);
	tl_strmap_release(&p->realfile_of);
	tl_strmap_init(&p->realfile_of);
	tl_str_array_release(&p->real_files);
	tl_array_init(&p->real_files);
}

TSTree *tl_project_tree_for(TlProject *p, const char *path, const char *text, size_t len)
{
	char id[48];
	if (!tl_project__id(path, id))
		return NULL;
	TSTree *tree = NULL;
	pthread_mutex_lock(&p->lock);
	int32_t at;
	if (tl_strmap_get(&p->by_id, id, strlen(id), &at)) {
		const TlModule *m = p->modules.items[at];
		if ((m->state == TL_MOD_READY || m->reindex) && m->tree && m->src.length == len &&
		    m->hash == tl_project__hash(text, len) && !m->src.bom) {
			tree = ts_tree_copy(m->tree);
			p->stat_reused++;
		}
	}
	pthread_mutex_unlock(&p->lock);
	return tree;
}

void tl_project_forget(TlProject *p)
{
	pthread_mutex_lock(&p->lock);
	tl_project__drop(p, false);
	pthread_mutex_unlock(&p->lock);
}

/* The modules that the analyses of `reaching` (real paths, deps.h) hold,
 * to be built again when next asked: `changed` (real path) read again, the
 * others indexed again on their kept text and parse. Every importer list
 * is found again (a changed candidate's imports are read again). */
static void tl_project__stale(TlProject *p, const char *changed, const TlStrArray *reaching)
{
	for (uint32_t i = 0; i < reaching->size; i++) {
		const char *path = reaching->items[i];
		int32_t at;
		if (!tl_strmap_get(&p->by_path, path, strlen(path), &at))
			continue; /* an open document's own analysis, no module */
		TlModule *m = p->modules.items[at];
		if (m->state == TL_MOD_READY)
			tl_index_release(&m->idx);
		m->state = TL_MOD_FAILED;
		if (strcmp(path, changed) == 0 || !m->tree || m->retry) {
			if (m->tree)
				ts_tree_delete(m->tree);
			m->tree = NULL;
			m->retry = true;
			m->reindex = false;
		} else {
			m->reindex = true;
		}
	}
	for (uint32_t i = 0; i < p->importers.size; i++)
		tl_array_release(&p->importers.items[i].mods);
	p->importers.size = 0;
	tl_strmap_release(&p->importers_of);
	tl_strmap_init(&p->importers_of);
}

TlProjectChange tl_project_set_text(TlProject *p, const char *path, const char *text, size_t len,
				    TlStrArray *affected)
{
	char *real = tl_path_real(path);
	pthread_mutex_lock(&p->lock);
	TlOverlay *o = (TlOverlay *)tl_project__overlay(p, real);
	int32_t at;
	bool loaded = tl_strmap_get(&p->by_path, real, strlen(real), &at);
	bool changed = loaded && (!text || p->modules.items[at]->state != TL_MOD_READY ||
				  p->modules.items[at]->hash != tl_project__hash(text, len));
	/* The import lines the project read there (the editor's last text,
	 * else the file's), and the ones it now has. */
	TlBuf before, lines;
	tl_buf_init(&before);
	tl_buf_init(&lines);
	if (o)
		tl_scan_imports(o->text, o->len, &before);
	else
		tl_scan_file_imports(real, &before);
	if (text)
		tl_scan_imports(text, len, &lines);
	else
		tl_scan_file_imports(real, &lines);
	bool imports = before.len != lines.len ||
		       (lines.len && memcmp(before.data, lines.data, lines.len) != 0);
	if (text) {
		if (!o) {
			TlOverlay n = { tl_strdup(real), NULL, 0 };
			tl_array_push(&p->overlays, n);
			o = tl_array_last(&p->overlays);
		}
		tl_free(o->text);
		o->text = tl_malloc(len + 1);
		memcpy(o->text, text, len);
		o->text[len] = 0;
		o->len = len;
	} else if (o) {
		tl_free(o->path);
		tl_free(o->text);
		*o = p->overlays.items[--p->overlays.size];
	}
	/* The scans list the file with the import lines it now has: the
	 * editor's, or the file's again once closed. */
	for (uint32_t i = 0; i < p->scans.size; i++)
		tl_scan_update(p->scans.items[i], real, lines.data ? lines.data : "", lines.len);
	tl_buf_release(&lines);
	tl_buf_release(&before);
	TlProjectChange result = TL_PROJECT_SAME;
	if (imports) {
		/* What imports what may have changed (the importers of any
		 * module, what a file imports through its project): everything
		 * is read again. */
		tl_project__drop(p, true);
		result = TL_PROJECT_ALL;
	} else if (changed && !p->track) {
		tl_project__drop(p, true);
		result = TL_PROJECT_ALL;
	} else if (changed) {
		/* Only the analyses that read the module, directly or through
		 * others, may change (deps.h); the rest keep what they hold. */
		TlStrArray reaching;
		tl_array_init(&reaching);
		tl_deps_reaching(&p->deps, real, &reaching);
		if (!reaching.size)
			tl_array_push(&reaching, tl_strdup(real));
		tl_project__stale(p, real, &reaching);
		p->stat_stale++;
		if (affected) {
			for (uint32_t i = 0; i < reaching.size; i++)
				tl_array_push(affected, reaching.items[i]);
			tl_array_release(&reaching);
		} else {
			tl_str_array_release(&reaching);
		}
		result = TL_PROJECT_SOME;
	}
	pthread_mutex_unlock(&p->lock);
	tl_free(real);
	return result;
}

void tl_project_free(TlProject *p)
{
	if (!p)
		return;
	if (getenv("TORCHLINT_PROJECT_STATS")) {
		/* For measuring (bench/): what the run read for context. */
		size_t bytes = 0, ready = 0;
		for (uint32_t i = 0; i < p->modules.size; i++)
			if (p->modules.items[i]->state == TL_MOD_READY) {
				ready++;
				bytes += p->modules.items[i]->src.length;
			}
		fprintf(stderr, "torchlint: project: %zu modules read for context, %zu bytes; %zu parses reused by analyses\n",
			ready, bytes, p->stat_reused);
		fprintf(stderr, "torchlint: project: importers: %u folders scanned, %zu files listed, %zu candidates parsed\n",
			p->scans.size, p->stat_scan_files, p->stat_candidates);
	}
	tl_project__drop(p, false);
	tl_array_release(&p->modules);
	tl_array_release(&p->scans);
	tl_strmap_release(&p->scan_of);
	tl_array_release(&p->importers);
	tl_strmap_release(&p->importers_of);
	tl_array_release(&p->roots);
	tl_strmap_release(&p->by_path);
	tl_strmap_release(&p->by_id);
	tl_strmap_release(&p->roots_of);
	tl_strmap_release(&p->found);
	tl_strmap_release(&p->dir_of);
	tl_strmap_release(&p->real_of);
	tl_strmap_release(&p->marker_of);
	tl_strmap_release(&p->files_of);
	tl_str_array_release(&p->files);
	tl_str_array_release(&p->marker_dirs);
	tl_str_array_release(&p->dirs);
	tl_str_array_release(&p->extra);
	for (uint32_t i = 0; i < p->overlays.size; i++) {
		tl_free(p->overlays.items[i].path);
		tl_free(p->overlays.items[i].text);
	}
	tl_array_release(&p->overlays);
	ts_parser_delete(p->parser);
	pthread_mutex_destroy(&p->lock);
	tl_free(p);
}

const TlImports *tl_project_imports(TlProject *p)
{
	return &p->imports;
}

size_t tl_project_module_count(const TlProject *p)
{
	return p->modules.size;
}

const char *tl_project_module_path(const TlProject *p, size_t i)
{
	return i < p->modules.size && p->modules.items[i]->state == TL_MOD_READY &&
			       !p->modules.items[i]->probe
		       ? p->modules.items[i]->path
		       : NULL;
}

const char *tl_project_module_skipped(const TlProject *p, size_t i, const char **why)
{
	if (i >= p->modules.size || !p->modules.items[i]->skipped)
		return NULL;
	*why = p->modules.items[i]->skipped;
	return p->modules.items[i]->path;
}

bool tl_project_has_module(const TlProject *p, const char *path)
{
	int32_t at;
	return tl_strmap_get(&p->by_path, path, strlen(path), &at) &&
	       p->modules.items[at]->state == TL_MOD_READY;
}

void tl_project_track(TlProject *p)
{
	pthread_mutex_lock(&p->lock);
	p->track = true;
	pthread_mutex_unlock(&p->lock);
}

void tl_project_work(const TlProject *p, uint64_t *parses, uint64_t *builds)
{
	*parses = atomic_load(&((TlProject *)p)->parses);
	*builds = atomic_load(&((TlProject *)p)->builds);
}

uint64_t tl_project_scan_walks(const TlProject *p)
{
	return atomic_load(&((TlProject *)p)->walks);
}
