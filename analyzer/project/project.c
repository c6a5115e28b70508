/* The project model: roots, import resolution, modules loaded on demand
 * (project.h says how names are found). */
#include "project/project.h"

#include <pthread.h>
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
#include "syntax/syms.h"

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
} TlModule;

/* Where one folder's files look for absolute imports. */
typedef struct TlRoots {
	TlStrArray dirs; /* each ending in '/' */
	char *only;      /* an installed tree: the one top-level package it may import, or "" */
} TlRoots;

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
	TlStrArray dirs;    /* the real folders of those files, ending in '/' */
	TlStrArray extra;   /* configured roots */
	TlArray(TlOverlay) overlays;
	size_t stat_reused;
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

/* The roots of the files of folder `dir` (real, ending in '/'). */
static int32_t tl_project__roots_for(TlProject *p, const char *dir)
{
	int32_t at;
	if (tl_strmap_get(&p->roots_of, dir, strlen(dir), &at))
		return at;
	TlRoots r;
	tl_array_init(&r.dirs);
	r.only = NULL;
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
	char *marker = NULL;
	for (char *d = tl_strdup(dir); d;) {
		if (tl_project__has(d, "pyproject.toml") || tl_project__has(d, "setup.cfg") ||
		    tl_project__has(d, "setup.py") || tl_project__has(d, ".git")) {
			marker = d;
			break;
		}
		if (strcmp(d, "/") == 0) {
			tl_free(d);
			break;
		}
		char *up = tl_path_parent(d);
		tl_free(d);
		d = up;
	}
	if (marker) {
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
		}
	}
	for (uint32_t i = 0; i < p->extra.size; i++)
		tl_project__add_dir(&r.dirs, p->extra.items[i]);
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

/* Cancels a module's parse past its CPU bound (tree-sitter calls this
 * often: the clock is read every 64 calls). */
static bool tl_project__parse_progress(TSParseState *state)
{
	TlBound *b = state->payload;
	return (++b->polls & 63) == 0 && tl_bound_check(b);
}

static const char *tl_project__read(void *payload, uint32_t byte, TSPoint at, uint32_t *read)
{
	(void)at;
	const TlSource *src = payload;
	const char *t = src->parse_text ? src->parse_text : src->text;
	if (byte >= src->length) {
		*read = 0;
		return "";
	}
	*read = src->length - byte;
	return t + byte;
}

/* Parses, indexes and builds the facts of `m` (read, not yet parsed) within the per-file limits of a file
 * named on the command line (base/budget.h): a module over one is not used
 * and m->skipped says why. Its CPU time is its own, not charged to the
 * file whose import loads it. */
static void tl_project__build(TlProject *p, TlModule *m)
{
	const char *text = m->src.parse_text ? m->src.parse_text : m->src.text;
	TlBound bound;
	memset(&bound, 0, sizeof bound);
	tl_bound_begin(&bound, tl_budget_seconds_for(m->src.length));
	double start = tl_bound_cpu();
	TlBound *outer = tl_bound_enter(&bound);
	TlBuf why;
	tl_buf_init(&why);
	uint32_t tokens = tl_budget_tokens_over(text, m->src.length, TL_BUDGET_MAX_TOKENS);
	if (tokens > TL_BUDGET_MAX_TOKENS) {
		tl_buf_addf(&why, "it holds more than %u tokens, over the per-file memory budget of %u",
			    tokens - 1, TL_BUDGET_MAX_TOKENS);
	} else {
		tl_bound_phase(&bound, "parsing");
		TSInput in = { &m->src, tl_project__read, TSInputEncodingUTF8, NULL };
		TSParseOptions po = { &bound, tl_project__parse_progress };
		m->tree = ts_parser_parse_with_options(p->parser, NULL, in, po);
		if (!m->tree)
			ts_parser_reset(p->parser);
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
		if (bound.hit)
			tl_buf_addf(&why, "its analysis stopped while %s: it took more than %.3g s of CPU time (the per-file bound for %u bytes)",
				    bound.hit_in ? bound.hit_in : "parsing", bound.seconds, m->src.length);
	}
	tl_bound_leave(outer);
	if (outer)
		outer->deadline += tl_bound_cpu() - start;
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
	if (tl_strmap_get(&p->by_path, path, strlen(path), &at))
		return at;
	TlModule *m = tl_calloc(1, sizeof *m);
	m->path = tl_strdup(path);
	m->state = TL_MOD_LOADING;
	tl_array_push(&p->modules, m);
	at = (int32_t)(p->modules.size - 1);
	tl_strmap_put(&p->by_path, path, strlen(path), at);
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

static const TlIndex *tl_project__module(const TlImports *self, const TlIndex *from,
					 const char *dotted, size_t len)
{
	TlProject *p = (TlProject *)self;
	if (!from->src || !from->src->path || !len)
		return NULL;
	pthread_mutex_lock(&p->lock);
	const TlIndex *result = NULL;
	/* The importing file's real folder, once per file (realpath reads
	 * every component of the path). */
	const char *fp = from->src->path;
	int32_t di;
	if (!tl_strmap_get(&p->dir_of, fp, strlen(fp), &di)) {
		char *real = tl_path_real(fp);
		tl_array_push(&p->dirs, tl_path_dirname_abs(real));
		tl_free(real);
		di = (int32_t)(p->dirs.size - 1);
		tl_strmap_put(&p->dir_of, fp, strlen(fp), di);
	}
	const char *dir = p->dirs.items[di];
	size_t lead = 0;
	while (lead < len && dotted[lead] == '.')
		lead++;
	TlBuf key;
	tl_buf_init(&key);
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
		tl_buf_add(&key, base);
	} else {
		roots = tl_project__roots_for(p, dir);
		tl_buf_addf(&key, "#%d", roots);
	}
	tl_buf_addc(&key, '\n');
	tl_buf_addn(&key, dotted + lead, len - lead);
	int32_t at;
	if (!tl_strmap_get(&p->found, key.data, key.len, &at)) {
		at = -1;
		TlBuf file;
		tl_buf_init(&file);
		if (lead) {
			if (tl_project__file(base, dotted + lead, len - lead, &file))
				at = -2;
		} else {
			const TlRoots *r = &p->roots.items[roots];
			size_t first = strcspn(dotted, ".");
			if (first > len)
				first = len;
			bool allowed = !r->only || (strlen(r->only) == first &&
						    memcmp(r->only, dotted, first) == 0);
			for (uint32_t i = 0; allowed && at == -1 && i < r->dirs.size; i++) {
				file.len = 0;
				if (file.data)
					file.data[0] = 0;
				if (tl_project__file(r->dirs.items[i], dotted, len, &file))
					at = -2;
			}
		}
		if (at == -2) {
			char *rp = tl_path_real(file.data);
			at = tl_project__load(p, rp);
			tl_free(rp);
		}
		tl_buf_release(&file);
		tl_strmap_put(&p->found, key.data, key.len, at);
	}
	if (at >= 0 && p->modules.items[at]->state == TL_MOD_READY &&
	    &p->modules.items[at]->idx != from)
		result = &p->modules.items[at]->idx;
	tl_buf_release(&key);
	tl_free(base);
	pthread_mutex_unlock(&p->lock);
	return result;
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
	tl_array_init(&p->dirs);
	tl_array_init(&p->extra);
	tl_array_init(&p->overlays);
	for (uint32_t i = 0; src_roots && i < src_roots->size; i++)
		tl_project_add_root(p, src_roots->items[i]);
	return p;
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

static void tl_project__drop(TlProject *p)
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
		if (m->state == TL_MOD_READY && m->tree && m->src.length == len &&
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
	tl_project__drop(p);
	pthread_mutex_unlock(&p->lock);
}

bool tl_project_set_text(TlProject *p, const char *path, const char *text, size_t len)
{
	char *real = tl_path_real(path);
	pthread_mutex_lock(&p->lock);
	TlOverlay *o = (TlOverlay *)tl_project__overlay(p, real);
	int32_t at;
	bool loaded = tl_strmap_get(&p->by_path, real, strlen(real), &at);
	/* Only a change of what a loaded module holds forgets the loaded ones. */
	bool changed = loaded && (!text || p->modules.items[at]->state != TL_MOD_READY ||
				  p->modules.items[at]->hash != tl_project__hash(text, len));
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
	if (changed)
		tl_project__drop(p);
	pthread_mutex_unlock(&p->lock);
	tl_free(real);
	return changed;
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
	}
	tl_project__drop(p);
	tl_array_release(&p->modules);
	tl_array_release(&p->roots);
	tl_strmap_release(&p->by_path);
	tl_strmap_release(&p->by_id);
	tl_strmap_release(&p->roots_of);
	tl_strmap_release(&p->found);
	tl_strmap_release(&p->dir_of);
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
	return i < p->modules.size && p->modules.items[i]->state == TL_MOD_READY
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
