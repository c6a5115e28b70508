/* `torchlint server`: the loop, the protocol's lifecycle, document
 * synchronisation, the editor's settings and configuration discovery.
 * Analyses run on the worker thread (server_worker.c); the analysis and
 * the features built on it are in server_diag.c. */
#include "server/server.h"
#include "server/state.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/paths.h"
#include "rules/ruleset.h"
#include "syntax/syms.h"

#ifdef __GLIBC__
#include <malloc.h>

#ifndef TL_HOMEPAGE
#define TL_HOMEPAGE "https://github.com/torchlint/torchlint"
#endif
#endif

#ifndef TL_VERSION
#define TL_VERSION "0.0.0-dev"
#endif

/* Default debounce: long enough to fold a burst of keystrokes into one
 * analysis, short enough to feel immediate. */
#define TL_SERVER_DEBOUNCE_MS 50
/* The longest debounce a client may ask for. */
#define TL_SERVER_MAX_DEBOUNCE_MS 10000
/* Closing a document this large returns the memory it held to the system. */
#define TL_SERVER_LARGE_DOC (1u << 20)
/* How often configuration files are re-checked while idle, for clients that
 * do not watch files. */
#define TL_SERVER_STAMP_PERIOD_NS (2 * 1000000000LL)

int64_t tl_server_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t tl_server_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void tl_server_send(TlServer *s, json_t *msg)
{
	if (!msg)
		return;
	if (!tl_lsp_write(s->out, msg))
		s->exiting = true; /* the client is gone */
	json_decref(msg);
}

void tl_server_message(TlServer *s, int type, const char *text)
{
	fprintf(stderr, "torchlint server: %s\n", text);
	if (s->initialized)
		tl_server_send(s, tl_lsp_notification("window/showMessage",
						      json_pack("{s:i, s:s}", "type", type, "message", text)));
}

uint64_t tl_server_gen(TlServer *s)
{
	return ++s->gen_next;
}

TlDoc *tl_server_doc(TlServer *s, const char *uri)
{
	for (uint32_t i = 0; i < s->docs.size; i++)
		if (strcmp(s->docs.items[i]->uri, uri) == 0)
			return s->docs.items[i];
	return NULL;
}

TlNbDoc *tl_server_notebook(TlServer *s, const char *uri)
{
	for (uint32_t i = 0; i < s->notebooks.size; i++)
		if (strcmp(s->notebooks.items[i]->uri, uri) == 0)
			return s->notebooks.items[i];
	return NULL;
}

/* ---- configuration files ------------------------------------------------------------- */

static bool tl_server__is_config_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	return strcmp(base, "pyproject.toml") == 0 || strcmp(base, "torchlint.toml") == 0 ||
	       strcmp(base, ".torchlint.toml") == 0;
}

void tl_server_mark_all_due(TlServer *s, int64_t when)
{
	for (uint32_t i = 0; i < s->docs.size; i++)
		if (s->docs.items[i]->kind != TL_DOC_CELL)
			s->docs.items[i]->due = when;
	for (uint32_t i = 0; i < s->notebooks.size; i++)
		s->notebooks.items[i]->due = when;
}

static void tl_server__reset_configs(TlServer *s)
{
	tl_configs_release(&s->configs);
	tl_configs_init(&s->configs, &s->rules);
	tl_server_mark_all_due(s, tl_server_now());
}

/* Compares the stat of `path` with the last one seen; records it. */
static bool tl_server__stamp(TlServer *s, const char *path)
{
	struct stat st;
	TlStamp now;
	memset(&now, 0, sizeof now);
	if (stat(path, &st) == 0) {
		now.exists = true;
		now.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
		now.size = (int64_t)st.st_size;
		now.ino = (int64_t)st.st_ino;
	}
	int32_t at;
	if (!tl_strmap_get(&s->stamp_index, path, strlen(path), &at)) {
		tl_strmap_put(&s->stamp_index, path, strlen(path), (int32_t)s->stamps.size);
		tl_array_push(&s->stamps, now);
		return false;
	}
	TlStamp *old = &s->stamps.items[at];
	bool changed = old->exists != now.exists || old->mtime_ns != now.mtime_ns ||
		       old->size != now.size || old->ino != now.ino;
	*old = now;
	return changed;
}

bool tl_server_check_configs(TlServer *s, const char *path)
{
	static const char *const names[] = { ".torchlint.toml", "torchlint.toml", "pyproject.toml" };
	bool changed = false;
	char *dir = tl_path_dirname_abs(path);
	TlBuf p;
	tl_buf_init(&p);
	for (;;) {
		for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
			tl_buf_clear(&p);
			tl_buf_addf(&p, "%s%s", dir, names[k]);
			changed |= tl_server__stamp(s, p.data);
		}
		if (strcmp(dir, "/") == 0)
			break;
		char *up = tl_path_parent(dir);
		tl_free(dir);
		dir = up;
	}
	tl_buf_release(&p);
	tl_free(dir);
	if (changed) {
		fprintf(stderr, "torchlint server: a configuration file changed; re-reading\n");
		tl_server__reset_configs(s);
	}
	return changed;
}

/* ---- the editor's settings -------------------------------------------------------------- */

/* Adds a list of selectors (a JSON array of strings, or one comma-separated
 * string) to `into`; names a bad one in `bad`. */
static bool tl_server__selectors(TlServer *s, json_t *v, TlStrArray *into, char *bad,
				 size_t bad_size)
{
	if (json_is_string(v))
		return tl_selection_add(&s->rules, into, json_string_value(v), bad, bad_size);
	size_t i;
	json_t *item;
	json_array_foreach(v, i, item)
	{
		if (!json_is_string(item)) {
			snprintf(bad, bad_size, "(not a string)");
			return false;
		}
		if (!tl_selection_add(&s->rules, into, json_string_value(item), bad, bad_size))
			return false;
	}
	return true;
}

static json_t *tl_server__key(json_t *o, const char *camel, const char *kebab)
{
	json_t *v = json_object_get(o, camel);
	return v ? v : json_object_get(o, kebab);
}

/* Applies the editor's settings: {"torchlint": {select, extendSelect,
 * ignore, torchVersion, debounceMs}} (kebab-case keys too, and the inner
 * object alone). An object naming none of them changes nothing: clients
 * send `{}` when the user configured nothing. */
static void tl_server__settings(TlServer *s, json_t *settings)
{
	json_t *t = json_object_get(settings, "torchlint");
	if (!json_is_object(t))
		t = settings;
	if (!json_is_object(t))
		return;
	json_t *sel = tl_server__key(t, "select", "select");
	json_t *ext = tl_server__key(t, "extendSelect", "extend-select");
	json_t *ign = tl_server__key(t, "ignore", "ignore");
	json_t *tv = tl_server__key(t, "torchVersion", "torch-version");
	json_t *db = tl_server__key(t, "debounceMs", "debounce-ms");
	if (!sel && !ext && !ign && !tv && !db)
		return;
	TlSelection next;
	tl_selection_init(&next);
	char bad[128], msg[256];
	struct {
		json_t *v;
		TlStrArray *into;
		const char *name;
	} lists[] = { { sel, &next.select, "select" },
		      { ext, &next.extend_select, "extendSelect" },
		      { ign, &next.ignore, "ignore" } };
	for (size_t k = 0; k < 3; k++) {
		if (!lists[k].v || json_is_null(lists[k].v))
			continue;
		if (!tl_server__selectors(s, lists[k].v, lists[k].into, bad, sizeof bad)) {
			snprintf(msg, sizeof msg, "settings: %s: '%s' matches no rule; ignored",
				 lists[k].name, bad);
			tl_server_message(s, 2, msg);
		}
	}
	next.has_select = sel && !json_is_null(sel);
	tl_selection_release(&s->client);
	s->client = next;
	s->torch_version = 0;
	if (json_is_string(tv)) {
		int v = tl_torch_version_parse(json_string_value(tv));
		if (v < 0) {
			snprintf(msg, sizeof msg, "settings: torchVersion: '%s' is not a version such as 2.4; ignored",
				 json_string_value(tv));
			tl_server_message(s, 2, msg);
		} else {
			s->torch_version = v;
		}
	}
	if (json_is_integer(db) && json_integer_value(db) >= 0 &&
	    json_integer_value(db) <= TL_SERVER_MAX_DEBOUNCE_MS)
		s->debounce_ns = (int64_t)json_integer_value(db) * 1000000LL;
	tl_server_mark_all_due(s, tl_server_now());
}

/* ---- documents ---------------------------------------------------------------------------- */

/* The path a document's configuration is found for. */
static char *tl_server__path_for(TlServer *s, const char *uri, TlDocKind kind)
{
	char *path = tl_lsp_uri_path(uri);
	if (path)
		return path;
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_addf(&b, "%suntitled%s", s->root, kind == TL_DOC_IPYNB ? ".ipynb" : ".py");
	return tl_buf_detach(&b);
}

static bool tl_server__ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static void tl_server__forget_tree(TlDoc *d)
{
	if (d->tree)
		ts_tree_delete(d->tree);
	d->tree = NULL;
	d->tree_lost = d->tree_lent; /* the tree lent to the worker is of no use now */
	tl_array_clear(&d->lent_edits);
}

static TlDoc *tl_server__open(TlServer *s, const char *uri, TlDocKind kind, const char *text,
			      size_t len, int64_t version)
{
	TlDoc *d = tl_server_doc(s, uri);
	if (!d) {
		d = tl_calloc(1, sizeof *d);
		d->uri = tl_strdup(uri);
		tl_buf_init(&d->text);
		tl_array_init(&d->lent_edits);
		tl_pub_init(&d->pub);
		tl_array_push(&s->docs, d);
	}
	d->kind = kind;
	tl_free(d->path);
	d->path = tl_server__path_for(s, uri, kind);
	tl_buf_clear(&d->text);
	tl_buf_addn(&d->text, text, len);
	tl_server__forget_tree(d);
	d->version = version;
	d->gen = tl_server_gen(s);
	d->due = kind == TL_DOC_CELL ? 0 : tl_server_now();
	return d;
}

void tl_server_doc_clear(TlDoc *d)
{
	tl_pub_clear(&d->pub);
}

static void tl_server__doc_free(TlDoc *d)
{
	tl_server_doc_clear(d);
	tl_server__forget_tree(d);
	tl_array_release(&d->lent_edits);
	tl_array_release(&d->pub.diags);
	tl_buf_release(&d->text);
	tl_free(d->uri);
	tl_free(d->path);
	tl_free(d->notebook);
	tl_free(d);
}

/* Closes `uri` and clears its diagnostics in the client. */
static void tl_server__close(TlServer *s, const char *uri)
{
	for (uint32_t i = 0; i < s->docs.size; i++) {
		TlDoc *d = s->docs.items[i];
		if (strcmp(d->uri, uri) != 0)
			continue;
		tl_server_send(s, tl_lsp_notification("textDocument/publishDiagnostics",
						      json_pack("{s:s, s:[]}", "uri", uri, "diagnostics")));
		bool large = d->text.len >= TL_SERVER_LARGE_DOC;
		tl_server__doc_free(d);
		s->closed = true;
		if (large) {
			/* What it held goes back to the system once the worker
			 * is idle (the parser is the worker's: server_worker.c). */
			s->trim = true;
		}
		s->docs.items[i] = s->docs.items[--s->docs.size];
		return;
	}
}

/* Replaces bytes [a, b) of `t` by `n` bytes of `with`. */
static void tl_server__splice(TlBuf *t, size_t a, size_t b, const char *with, size_t n)
{
	size_t tail = t->len - b, len = a + n + tail;
	if (len + 1 > t->cap) {
		size_t cap = t->cap * 2 > len + 1 ? t->cap * 2 : len + 1;
		t->data = tl_realloc(t->data, cap);
		t->cap = cap;
	}
	memmove(t->data + a + n, t->data + b, tail);
	memcpy(t->data + a, with, n);
	t->len = len;
	t->data[len] = '\0';
}

/* Tree-sitter's point of byte `at` in the parser's text (source.h: a lone
 * CR is a LF there): rows end at LF or a lone CR, columns count bytes. */
static TSPoint tl_server__point(const char *text, uint32_t len, uint32_t at)
{
	TSPoint p = { 0, 0 };
	uint32_t line = 0;
	for (uint32_t i = 0; i < at; i++)
		if (text[i] == '\n' || (text[i] == '\r' && (i + 1 >= len || text[i + 1] != '\n'))) {
			p.row++;
			line = i + 1;
		}
	p.column = at - line;
	return p;
}

/* Applies contentChanges (full or incremental) to `d`, in order; the kept
 * tree is edited alongside. */
static bool tl_server__apply_changes(TlServer *s, TlDoc *d, json_t *changes)
{
	if (!json_is_array(changes))
		return false;
	d->gen = tl_server_gen(s); /* an analysis of the text before is stale */
	size_t i;
	json_t *c;
	json_array_foreach(changes, i, c)
	{
		size_t n;
		const char *text = tl_lsp_string(c, "text", &n);
		if (!text)
			return false;
		json_t *range = json_object_get(c, "range");
		if (!range) {
			tl_buf_clear(&d->text);
			tl_buf_addn(&d->text, text, n);
			tl_server__forget_tree(d);
			continue;
		}
		TlLspRange r;
		if (!tl_lsp_range_parse(range, &r))
			return false;
		uint32_t len = (uint32_t)d->text.len;
		uint32_t a = tl_lsp_offset(d->text.data, len, r.start);
		uint32_t b = tl_lsp_offset(d->text.data, len, r.end);
		if (b < a)
			b = a; /* an inverted range inserts at its start */
		/* Offsets are 32-bit: no document grows past the largest message. */
		if (n > TL_LSP_MAX_BODY || d->text.len - (b - a) + n > TL_LSP_MAX_BODY)
			return false;
		/* The tree is edited along; while it is lent to the worker, the
		 * edit is kept to be made when it comes back. */
		bool track = d->tree || (d->tree_lent && !d->tree_lost);
		TSInputEdit edit;
		if (track) {
			edit.start_byte = a;
			edit.old_end_byte = b;
			edit.new_end_byte = a + (uint32_t)n;
			edit.start_point = tl_server__point(d->text.data, len, a);
			edit.old_end_point = tl_server__point(d->text.data, len, b);
		}
		tl_server__splice(&d->text, a, b, text, n);
		if (track) {
			edit.new_end_point = tl_server__point(d->text.data, (uint32_t)d->text.len,
							      edit.new_end_byte);
			if (d->tree)
				ts_tree_edit(d->tree, &edit);
			else
				tl_array_push(&d->lent_edits, edit);
		}
	}
	return true;
}

/* Marks what `d` belongs to as due in `delay` ns (a cell: its notebook). */
static void tl_server__touch(TlServer *s, TlDoc *d, int64_t delay)
{
	int64_t when = tl_server_now() + delay;
	if (d->kind == TL_DOC_CELL) {
		TlNbDoc *nb = d->notebook ? tl_server_notebook(s, d->notebook) : NULL;
		if (nb) {
			nb->due = when;
			nb->gen = tl_server_gen(s);
		}
	} else {
		d->due = when;
	}
}

/* ---- notebooks (notebookDocument/...) ------------------------------------------------------ */

static void tl_server__notebook_free(TlServer *s, TlNbDoc *nb, bool close_cells)
{
	for (uint32_t i = 0; close_cells && i < nb->cells.size; i++)
		tl_server__close(s, nb->cells.items[i]);
	tl_str_array_release(&nb->cells);
	tl_array_release(&nb->code);
	tl_free(nb->uri);
	tl_free(nb->path);
	tl_free(nb);
}

/* Opens the TextDocumentItems in `items` as cells of `nb`. */
static void tl_server__open_cells(TlServer *s, TlNbDoc *nb, json_t *items)
{
	size_t i;
	json_t *item;
	json_array_foreach(items, i, item)
	{
		size_t n = 0;
		const char *uri = tl_lsp_string(item, "uri", NULL);
		const char *text = tl_lsp_string(item, "text", &n);
		if (!uri || !text)
			continue;
		TlDoc *d = tl_server__open(s, uri, TL_DOC_CELL, text, n,
					   json_integer_value(json_object_get(item, "version")));
		tl_free(d->path);
		d->path = tl_strdup(nb->path);
		tl_free(d->notebook);
		d->notebook = tl_strdup(nb->uri);
	}
}

/* Inserts the NotebookCells of `cells` at `at` in nb's cell list. */
static void tl_server__insert_cells(TlNbDoc *nb, uint32_t at, json_t *cells)
{
	size_t n = json_array_size(cells);
	for (size_t k = 0; k < n; k++) {
		json_t *c = json_array_get(cells, k);
		const char *uri = tl_lsp_string(c, "document", NULL);
		tl_array_push(&nb->cells, NULL);
		tl_array_push(&nb->code, false);
		uint32_t pos = at + (uint32_t)k;
		if (pos > nb->cells.size - 1)
			pos = nb->cells.size - 1;
		memmove(nb->cells.items + pos + 1, nb->cells.items + pos,
			(nb->cells.size - 1 - pos) * sizeof *nb->cells.items);
		memmove(nb->code.items + pos + 1, nb->code.items + pos,
			(nb->code.size - 1 - pos) * sizeof *nb->code.items);
		nb->cells.items[pos] = tl_strdup(uri ? uri : "");
		nb->code.items[pos] = json_integer_value(json_object_get(c, "kind")) == 2;
	}
}

static void tl_server__nb_open(TlServer *s, json_t *params)
{
	json_t *doc = json_object_get(params, "notebookDocument");
	const char *uri = tl_lsp_string(doc, "uri", NULL);
	if (!uri)
		return;
	TlNbDoc *old = tl_server_notebook(s, uri);
	if (old) {
		for (uint32_t i = 0; i < s->notebooks.size; i++)
			if (s->notebooks.items[i] == old)
				s->notebooks.items[i] = s->notebooks.items[--s->notebooks.size];
		tl_server__notebook_free(s, old, true);
	}
	TlNbDoc *nb = tl_calloc(1, sizeof *nb);
	nb->uri = tl_strdup(uri);
	nb->path = tl_server__path_for(s, uri, TL_DOC_IPYNB);
	nb->version = json_integer_value(json_object_get(doc, "version"));
	tl_array_init(&nb->cells);
	tl_array_init(&nb->code);
	tl_server__insert_cells(nb, 0, json_object_get(doc, "cells"));
	tl_array_push(&s->notebooks, nb);
	tl_server__open_cells(s, nb, json_object_get(params, "cellTextDocuments"));
	nb->gen = tl_server_gen(s);
	nb->due = tl_server_now();
}

static void tl_server__nb_change(TlServer *s, json_t *params)
{
	json_t *doc = json_object_get(params, "notebookDocument");
	TlNbDoc *nb = tl_server_notebook(s, tl_lsp_string(doc, "uri", NULL) ? tl_lsp_string(doc, "uri", NULL) : "");
	if (!nb)
		return;
	nb->version = json_integer_value(json_object_get(doc, "version"));
	nb->gen = tl_server_gen(s);
	json_t *cells = json_object_get(json_object_get(params, "change"), "cells");
	json_t *structure = json_object_get(cells, "structure");
	if (structure) {
		json_t *arr = json_object_get(structure, "array");
		json_t *js = json_object_get(arr, "start"), *jd = json_object_get(arr, "deleteCount");
		/* The client's numbers are checked against the cell list before any
		 * arithmetic: a start past the end appends, a count past the end
		 * deletes to the end; anything but an integer deletes nothing. */
		json_int_t size = (json_int_t)nb->cells.size;
		json_int_t start = json_is_integer(js) ? json_integer_value(js) : size;
		json_int_t del = json_is_integer(jd) ? json_integer_value(jd) : 0;
		if (start < 0 || start > size)
			start = size;
		if (del < 0)
			del = 0;
		if (del > size - start)
			del = size - start;
		for (json_int_t k = start; k < start + del; k++)
			tl_free(nb->cells.items[k]);
		memmove(nb->cells.items + start, nb->cells.items + start + del,
			(nb->cells.size - (size_t)(start + del)) * sizeof *nb->cells.items);
		memmove(nb->code.items + start, nb->code.items + start + del,
			(nb->code.size - (size_t)(start + del)) * sizeof *nb->code.items);
		nb->cells.size -= (uint32_t)del;
		nb->code.size -= (uint32_t)del;
		tl_server__insert_cells(nb, (uint32_t)start, json_object_get(arr, "cells"));
		size_t i;
		json_t *item;
		json_array_foreach(json_object_get(structure, "didClose"), i, item)
			tl_server__close(s, tl_lsp_string(item, "uri", NULL) ? tl_lsp_string(item, "uri", NULL) : "");
		tl_server__open_cells(s, nb, json_object_get(structure, "didOpen"));
	}
	size_t i;
	json_t *item;
	json_array_foreach(json_object_get(cells, "data"), i, item)
	{
		const char *uri = tl_lsp_string(item, "document", NULL);
		for (uint32_t k = 0; uri && k < nb->cells.size; k++)
			if (strcmp(nb->cells.items[k], uri) == 0)
				nb->code.items[k] = json_integer_value(json_object_get(item, "kind")) == 2;
	}
	json_array_foreach(json_object_get(cells, "textContent"), i, item)
	{
		json_t *td = json_object_get(item, "document");
		TlDoc *d = tl_server_doc(s, tl_lsp_string(td, "uri", NULL) ? tl_lsp_string(td, "uri", NULL) : "");
		if (!d)
			continue;
		tl_server__apply_changes(s, d, json_object_get(item, "changes"));
		d->version = json_integer_value(json_object_get(td, "version"));
	}
	nb->due = tl_server_now() + s->debounce_ns;
}

static void tl_server__nb_close(TlServer *s, json_t *params)
{
	const char *uri = tl_lsp_string(json_object_get(params, "notebookDocument"), "uri", NULL);
	for (uint32_t i = 0; uri && i < s->notebooks.size; i++) {
		TlNbDoc *nb = s->notebooks.items[i];
		if (strcmp(nb->uri, uri) != 0)
			continue;
		s->notebooks.items[i] = s->notebooks.items[--s->notebooks.size];
		tl_server__notebook_free(s, nb, true);
		return;
	}
}

/* ---- requests and notifications ------------------------------------------------------------ */

typedef json_t *(*TlHandler)(TlServer *s, json_t *params, int *code, const char **why);

static json_t *tl_server__initialize(TlServer *s, json_t *params, int *code, const char **why)
{
	json_t *caps = json_object_get(params, "capabilities");
	json_t *formats = json_object_get(
		json_object_get(json_object_get(caps, "textDocument"), "hover"), "contentFormat");
	s->markdown = !formats; /* unspecified: Markdown is the common case */
	size_t i;
	json_t *f;
	json_array_foreach(formats, i, f)
		if (json_is_string(f) && strcmp(json_string_value(f), "markdown") == 0)
			s->markdown = true;
	s->watch_files = json_is_true(json_object_get(
		json_object_get(json_object_get(caps, "workspace"), "didChangeWatchedFiles"),
		"dynamicRegistration"));
	const char *root = tl_lsp_string(params, "rootUri", NULL);
	char *root_path = root ? tl_lsp_uri_path(root) : NULL;
	if (!root_path && tl_lsp_string(params, "rootPath", NULL))
		root_path = tl_strdup(tl_lsp_string(params, "rootPath", NULL));
	if (root_path) {
		tl_free(s->root);
		s->root = tl_path_with_slash(root_path);
		tl_free(root_path);
	}
	s->initialized = true;
	tl_server__settings(s, json_object_get(params, "initializationOptions"));
	return json_pack(
		"{s:{s:s, s:{s:b, s:i, s:{s:b}}, s:{s:[{s:s, s:[{s:s}]}]}, s:b, s:{s:[s, s]}},"
		" s:{s:s, s:s}}",
		"capabilities", "positionEncoding", "utf-16", "textDocumentSync", "openClose", 1,
		"change", 2, "save", "includeText", 0, "notebookDocumentSync", "notebookSelector",
		"notebook", "*", "cells", "language", "python", "hoverProvider", 1,
		"codeActionProvider", "codeActionKinds", "quickfix", "source.fixAll.torchlint",
		"serverInfo", "name", "torchlint",
		"version", TL_VERSION);
}

static json_t *tl_server__initialized(TlServer *s, json_t *params, int *code, const char **why)
{
	if (!s->watch_files)
		return NULL;
	/* Ask the client to tell us when a configuration file changes. */
	json_t *req = json_pack(
		"{s:s, s:I, s:s, s:{s:[{s:s, s:s, s:{s:[{s:s}, {s:s}, {s:s}]}}]}}", "jsonrpc", "2.0", "id",
		(json_int_t)s->next_id++, "method", "client/registerCapability", "params",
		"registrations", "id", "torchlint-config", "method", "workspace/didChangeWatchedFiles",
		"registerOptions", "watchers", "globPattern", "**/pyproject.toml", "globPattern",
		"**/torchlint.toml", "globPattern", "**/.torchlint.toml");
	tl_server_send(s, req);
	/* And when a module of the project changes on disk. */
	req = json_pack("{s:s, s:I, s:s, s:{s:[{s:s, s:s, s:{s:[{s:s}]}}]}}", "jsonrpc", "2.0", "id",
			(json_int_t)s->next_id++, "method", "client/registerCapability", "params",
			"registrations", "id", "torchlint-modules", "method",
			"workspace/didChangeWatchedFiles", "registerOptions", "watchers", "globPattern",
			"**/*.py");
	tl_server_send(s, req);
	return NULL;
}

static json_t *tl_server__shutdown(TlServer *s, json_t *params, int *code, const char **why)
{
	s->shutdown = true;
	return json_null();
}

static json_t *tl_server__exit(TlServer *s, json_t *params, int *code, const char **why)
{
	s->exiting = true;
	return NULL;
}

static json_t *tl_server__did_open(TlServer *s, json_t *params, int *code, const char **why)
{
	json_t *td = json_object_get(params, "textDocument");
	size_t n = 0;
	const char *uri = tl_lsp_string(td, "uri", NULL), *text = tl_lsp_string(td, "text", &n);
	const char *lang = tl_lsp_string(td, "languageId", NULL);
	if (!uri || !text)
		return NULL;
	TlDocKind kind = tl_server__ends_with(uri, ".ipynb") || (lang && strcmp(lang, "jupyter") == 0)
				 ? TL_DOC_IPYNB
				 : TL_DOC_PYTHON;
	tl_server__open(s, uri, kind, text, n, json_integer_value(json_object_get(td, "version")));
	return NULL;
}

static json_t *tl_server__did_change(TlServer *s, json_t *params, int *code, const char **why)
{
	json_t *td = json_object_get(params, "textDocument");
	const char *uri = tl_lsp_string(td, "uri", NULL);
	TlDoc *d = uri ? tl_server_doc(s, uri) : NULL;
	if (!d) {
		fprintf(stderr, "torchlint server: didChange for a document that is not open: %s\n",
			uri ? uri : "(no uri)");
		return NULL;
	}
	if (!tl_server__apply_changes(s, d, json_object_get(params, "contentChanges")))
		fprintf(stderr, "torchlint server: malformed contentChanges for %s\n", uri);
	d->version = json_integer_value(json_object_get(td, "version"));
	tl_server__touch(s, d, s->debounce_ns);
	return NULL;
}

static json_t *tl_server__did_save(TlServer *s, json_t *params, int *code, const char **why)
{
	const char *uri = tl_lsp_string(json_object_get(params, "textDocument"), "uri", NULL);
	if (!uri)
		return NULL;
	char *path = tl_lsp_uri_path(uri);
	if (path && tl_server__is_config_name(path))
		tl_server__reset_configs(s);
	tl_free(path);
	TlDoc *d = tl_server_doc(s, uri);
	if (d)
		tl_server__touch(s, d, 0);
	return NULL;
}

static json_t *tl_server__did_close(TlServer *s, json_t *params, int *code, const char **why)
{
	const char *uri = tl_lsp_string(json_object_get(params, "textDocument"), "uri", NULL);
	TlDoc *d = uri ? tl_server_doc(s, uri) : NULL;
	/* Its file on disk stands for the module again (once the worker is
	 * idle: the project model is the engine's during an analysis). */
	if (d && d->kind == TL_DOC_PYTHON && s->project)
		tl_array_push(&s->project_closed, tl_strdup(d->path));
	if (uri)
		tl_server__close(s, uri);
	return NULL;
}

static json_t *tl_server__did_change_configuration(TlServer *s, json_t *params, int *code,
						   const char **why)
{
	tl_server__settings(s, json_object_get(params, "settings"));
	return NULL;
}

static json_t *tl_server__did_change_watched(TlServer *s, json_t *params, int *code,
					     const char **why)
{
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(params, "changes"), i, c)
	{
		const char *uri = tl_lsp_string(c, "uri", NULL);
		char *path = uri ? tl_lsp_uri_path(uri) : NULL;
		bool config = path && tl_server__is_config_name(path);
		/* A module changed on disk: what was read for context is read
		 * again. */
		bool module = path && tl_server__ends_with(path, ".py");
		tl_free(path);
		if (module && s->project)
			s->project_forget = true; /* done once the worker is idle */
		if (config) {
			tl_server__reset_configs(s);
			break;
		}
	}
	return NULL;
}

static json_t *tl_server__nb_open_h(TlServer *s, json_t *params, int *code, const char **why)
{
	tl_server__nb_open(s, params);
	return NULL;
}

static json_t *tl_server__nb_change_h(TlServer *s, json_t *params, int *code, const char **why)
{
	tl_server__nb_change(s, params);
	return NULL;
}

static json_t *tl_server__nb_save_h(TlServer *s, json_t *params, int *code, const char **why)
{
	TlNbDoc *nb = tl_server_notebook(
		s, tl_lsp_string(json_object_get(params, "notebookDocument"), "uri", NULL)
			   ? tl_lsp_string(json_object_get(params, "notebookDocument"), "uri", NULL)
			   : "");
	if (nb)
		nb->due = tl_server_now();
	return NULL;
}

static json_t *tl_server__nb_close_h(TlServer *s, json_t *params, int *code, const char **why)
{
	tl_server__nb_close(s, params);
	return NULL;
}

/* Process memory now: resident set (KiB) from /proc, heap bytes in use. */
void tl_server_memory(long *rss_kib, long *heap)
{
	*rss_kib = -1;
	*heap = -1;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f) {
		long pages, resident;
		if (fscanf(f, "%ld %ld", &pages, &resident) == 2)
			*rss_kib = resident * (sysconf(_SC_PAGESIZE) / 1024);
		fclose(f);
	}
	/* glibc's count of heap bytes in use. */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
	*heap = (long)mallinfo2().uordblks;
#endif
}

/* torchlint/stats: the server's own timings, for measuring latency
 * (answered at once, like every request: after a publication it counts
 * the analysis published). */
static json_t *tl_server__stats(TlServer *s, json_t *params, int *code, const char **why)
{
	long rss, heap;
	tl_server_memory(&rss, &heap);
	const TlServerStats *st = &s->stats;
	uint64_t parses = 0, builds = 0;
	if (s->project)
		tl_project_work(s->project, &parses, &builds);
	json_t *r = json_pack("{s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:I}",
			 "cancelled", (json_int_t)st->cancelled, "analyses",
			 (json_int_t)st->analyses, "lastMs", st->last_ns / 1e6, "lastEngineMs",
			 st->last_engine_ns / 1e6, "lastCpuMs", st->last_cpu_ns / 1e6, "maxCpuMs",
			 st->max_cpu_ns / 1e6, "maxMs", st->max_ns / 1e6, "meanMs",
			 st->analyses ? st->total_ns / 1e6 / (double)st->analyses : 0.0, "totalMs",
			 st->total_ns / 1e6, "lastLines", (json_int_t)st->last_lines, "documents",
			 (json_int_t)s->docs.size, "rssKiB", (json_int_t)rss, "heapBytes",
			 (json_int_t)heap, "hoversDuringAnalysis", (json_int_t)st->hovers_during_analysis,
			 "projectScans", (json_int_t)(s->project ? tl_project_scan_walks(s->project) : 0));
	/* Analyses due or running; modules the project parsed, and indexed. */
	json_object_set_new(r, "pending", json_integer((json_int_t)tl_worker_pending(s)));
	json_object_set_new(r, "projectParses", json_integer((json_int_t)parses));
	json_object_set_new(r, "projectBuilds", json_integer((json_int_t)builds));
	return r;
}

typedef struct TlMethod {
	const char *name;
	TlHandler fn;
	bool request;
} TlMethod;

static const TlMethod tl_server__methods[] = {
	{ "initialize", tl_server__initialize, true },
	{ "initialized", tl_server__initialized, false },
	{ "shutdown", tl_server__shutdown, true },
	{ "exit", tl_server__exit, false },
	{ "textDocument/didOpen", tl_server__did_open, false },
	{ "textDocument/didChange", tl_server__did_change, false },
	{ "textDocument/didSave", tl_server__did_save, false },
	{ "textDocument/didClose", tl_server__did_close, false },
	{ "textDocument/hover", tl_server_hover, true },
	{ "textDocument/codeAction", tl_server_code_action, true },
	{ "workspace/didChangeConfiguration", tl_server__did_change_configuration, false },
	{ "workspace/didChangeWatchedFiles", tl_server__did_change_watched, false },
	{ "notebookDocument/didOpen", tl_server__nb_open_h, false },
	{ "notebookDocument/didChange", tl_server__nb_change_h, false },
	{ "notebookDocument/didSave", tl_server__nb_save_h, false },
	{ "notebookDocument/didClose", tl_server__nb_close_h, false },
	{ "torchlint/stats", tl_server__stats, true },
};

static void tl_server__reply_error(TlServer *s, json_t *id, int code, const char *why)
{
	tl_server_send(s, tl_lsp_error(id ? json_incref(id) : NULL, code, why));
}

/* Calls method `t` and answers request `id` (NULL: a notification). */
static void tl_server__respond(TlServer *s, const TlMethod *t, json_t *id, json_t *params)
{
	int code = 0;
	const char *why = NULL;
	json_t *result = t->fn(s, params, &code, &why);
	if (!id) {
		json_decref(result);
		return;
	}
	if (code)
		tl_server__reply_error(s, id, code, why ? why : "error");
	else
		tl_server_send(s, tl_lsp_response(json_incref(id), result));
	if (code)
		json_decref(result);
}

/* True when request `msg` is to wait for an analysis: every request is
 * answered at once from the diagnostics last published, except a code
 * action asking for source.fixAll alone (an editor's fix on save, often
 * sent right after the last keystroke) on a Python document whose text
 * changed since they were published and whose analysis is due or under
 * way: the old diagnostics' edits are of the old text, and an empty answer
 * would skip the fix. It is answered once that analysis is published. */
static bool tl_server__must_wait(TlServer *s, json_t *msg)
{
	const char *m = tl_lsp_string(msg, "method", NULL);
	if (!m || strcmp(m, "textDocument/codeAction") != 0 || s->shutdown || s->exiting)
		return false;
	json_t *params = json_object_get(msg, "params");
	bool quick, fix_all;
	tl_server_action_kinds(params, &quick, &fix_all);
	if (quick || !fix_all)
		return false;
	const char *uri = tl_lsp_string(json_object_get(params, "textDocument"), "uri", NULL);
	TlDoc *d = uri ? tl_server_doc(s, uri) : NULL;
	if (!d || d->kind != TL_DOC_PYTHON || d->pub.gen == d->gen)
		return false;
	return d->due || (s->inflight && !s->inflight->notebook && strcmp(s->inflight->uri, d->uri) == 0);
}

static const TlMethod *tl_server__method(const char *name)
{
	for (size_t k = 0; k < sizeof tl_server__methods / sizeof *tl_server__methods; k++)
		if (strcmp(tl_server__methods[k].name, name) == 0)
			return &tl_server__methods[k];
	return NULL;
}

/* Answers the parked requests that need not wait any longer, in order. */
static void tl_server__unpark(TlServer *s)
{
	for (size_t i = 0; i < json_array_size(s->parked);) {
		json_t *msg = json_array_get(s->parked, i);
		if (tl_server__must_wait(s, msg)) {
			i++;
			continue;
		}
		json_incref(msg);
		json_array_remove(s->parked, i);
		tl_server__respond(s, tl_server__method(tl_lsp_string(msg, "method", NULL)),
				   json_object_get(msg, "id"), json_object_get(msg, "params"));
		json_decref(msg);
	}
}

static void tl_server__handle(TlServer *s, json_t *msg)
{
	if (!json_is_object(msg)) {
		tl_server__reply_error(s, NULL, TL_LSP_INVALID_REQUEST,
				       "a message must be a JSON object (batches are not used by LSP)");
		return;
	}
	json_t *id = json_object_get(msg, "id");
	json_t *m = json_object_get(msg, "method");
	if (id && !json_is_string(id) && !json_is_integer(id)) {
		tl_server__reply_error(s, NULL, TL_LSP_INVALID_REQUEST, "id must be a string or an integer");
		return;
	}
	if (!m) {
		if (id && (json_object_get(msg, "result") || json_object_get(msg, "error")))
			return; /* the answer to a request of ours (registerCapability) */
		tl_server__reply_error(s, id, TL_LSP_INVALID_REQUEST, "no method");
		return;
	}
	if (!json_is_string(m)) {
		tl_server__reply_error(s, id, TL_LSP_INVALID_REQUEST, "method must be a string");
		return;
	}
	const char *method = json_string_value(m);
	json_t *params = json_object_get(msg, "params");
	bool request = id != NULL;
	if (strcmp(method, "exit") == 0) {
		s->exiting = true;
		return;
	}
	if (!s->initialized && strcmp(method, "initialize") != 0) {
		if (request)
			tl_server__reply_error(s, id, TL_LSP_SERVER_NOT_INITIALIZED,
					       "the server is not initialized");
		return;
	}
	if (s->initialized && strcmp(method, "initialize") == 0) {
		if (request)
			tl_server__reply_error(s, id, TL_LSP_INVALID_REQUEST, "already initialized");
		return;
	}
	if (s->shutdown) {
		if (request)
			tl_server__reply_error(s, id, TL_LSP_INVALID_REQUEST, "the server is shut down");
		return;
	}
	for (size_t k = 0; k < sizeof tl_server__methods / sizeof *tl_server__methods; k++) {
		const TlMethod *t = &tl_server__methods[k];
		if (strcmp(t->name, method) != 0)
			continue;
		if (t->request != request) {
			if (request)
				tl_server__reply_error(s, id, TL_LSP_INVALID_REQUEST,
						       "a notification was sent as a request");
			return;
		}
		if (request && tl_server__must_wait(s, msg)) {
			/* Its analysis starts now, without the debounce. */
			TlDoc *d = tl_server_doc(s, tl_lsp_string(json_object_get(params, "textDocument"),
								  "uri", NULL));
			if (d->due)
				d->due = tl_server_now();
			json_array_append(s->parked, msg);
			return;
		}
		tl_server__respond(s, t, request ? id : NULL, params);
		return;
	}
	if (request) {
		char why[300];
		snprintf(why, sizeof why, "unhandled method %.256s", method);
		tl_server__reply_error(s, id, TL_LSP_METHOD_NOT_FOUND, why);
	}
	/* Unknown notifications ($/cancelRequest, $/setTrace, ...) are dropped. */
}

/* ---- the loop ------------------------------------------------------------------------------- */

/* Handles the complete messages the reader holds, in order; after each,
 * an analysis it made stale is cancelled. */
static void tl_server__handle_input(TlServer *s)
{
	while (!s->exiting) {
		json_t *msg;
		char why[256];
		TlLspRead r = tl_lsp_reader_next(&s->reader, &msg, why, sizeof why);
		if (r == TL_LSP_READ_NONE)
			break;
		if (r == TL_LSP_READ_MESSAGE) {
			tl_server__handle(s, msg);
			json_decref(msg);
		} else {
			fprintf(stderr, "torchlint server: %s\n", why);
			tl_server__reply_error(s, NULL, TL_LSP_PARSE_ERROR, why);
		}
		tl_worker_check_stale(s);
	}
}

/* The earliest due time, or 0 when nothing is due. While the worker holds
 * a job, due documents wait for its end (its pipe wakes the loop). */
static int64_t tl_server__next_due(const TlServer *s)
{
	int64_t due = 0;
	for (uint32_t i = 0; !s->inflight && i < s->docs.size; i++) {
		int64_t d = s->docs.items[i]->due;
		if (d && (!due || d < due))
			due = d;
	}
	for (uint32_t i = 0; !s->inflight && i < s->notebooks.size; i++) {
		int64_t d = s->notebooks.items[i]->due;
		if (d && (!due || d < due))
			due = d;
	}
	if (s->docs.size && (!due || s->next_stamp_check < due))
		due = s->next_stamp_check;
	return due;
}

static void tl_server__run_due(TlServer *s)
{
	int64_t now = tl_server_now();
	if (s->docs.size && now >= s->next_stamp_check) {
		s->next_stamp_check = now + TL_SERVER_STAMP_PERIOD_NS;
		for (uint32_t i = 0; i < s->docs.size; i++)
			if (tl_server_check_configs(s, s->docs.items[i]->path))
				break; /* every document is due now */
	}
	/* One analysis at a time: the first due document (or notebook), if
	 * the worker is idle; the next when its result is in. */
	tl_worker_run_due(s);
}

static void tl_server__init(TlServer *s)
{
	memset(s, 0, sizeof *s);
	tl_rules_init(&s->rules);
	tl_selection_init(&s->client);
	tl_array_init(&s->docs);
	tl_array_init(&s->notebooks);
	tl_array_init(&s->stamps);
	tl_strmap_init(&s->stamp_index);
	s->root = tl_path_cwd();
	s->debounce_ns = TL_SERVER_DEBOUNCE_MS * 1000000LL;
	s->out = STDOUT_FILENO;
	s->next_id = 1;
	tl_array_init(&s->project_closed);
}

static void tl_server__release(TlServer *s, bool engine)
{
	tl_worker_stop(s, -1); /* first: the worker uses the engine and the project */
	for (uint32_t i = 0; i < s->notebooks.size; i++)
		tl_server__notebook_free(s, s->notebooks.items[i], false);
	tl_array_release(&s->notebooks);
	for (uint32_t i = 0; i < s->docs.size; i++)
		tl_server__doc_free(s->docs.items[i]);
	tl_array_release(&s->docs);
	tl_array_release(&s->stamps);
	tl_strmap_release(&s->stamp_index);
	tl_selection_release(&s->client);
	if (engine) {
		tl_engine_release(&s->engine);
		tl_configs_release(&s->configs);
	}
	tl_rules_release(&s->rules);
	tl_str_array_release(&s->project_closed);
	if (s->parked)
		json_decref(s->parked);
	if (s->parser)
		ts_parser_delete(s->parser);
	tl_project_free(s->project);
	s->project = NULL;
	tl_free(s->root);
}

static void tl_server__usage(FILE *out)
{
	fputs("usage: torchlint server [--rules-dir DIR] [--debounce-ms N]\n"
	      "\n"
	      "Runs the language server (LSP 3.17) on standard input and output, for\n"
	      "editors: diagnostics as you type, the rule's explanation on hover, and\n"
	      "`# noqa` quick fixes. Logs go to standard error. See\n"
	      TL_HOMEPAGE "#editors.\n",
	      out);
}

int tl_server_main(int argc, char **argv)
{
	const char *rules_dir = NULL;
	long debounce = -1;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--rules-dir") == 0 && i + 1 < argc) {
			rules_dir = argv[++i];
		} else if (strcmp(argv[i], "--debounce-ms") == 0 && i + 1 < argc) {
			char *end;
			debounce = strtol(argv[++i], &end, 10);
			if (*end || debounce < 0 || debounce > TL_SERVER_MAX_DEBOUNCE_MS) {
				fprintf(stderr, "torchlint: invalid value '%s' for --debounce-ms: expected 0 to %d\n",
					argv[i], TL_SERVER_MAX_DEBOUNCE_MS);
				return 2;
			}
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			tl_server__usage(stdout);
			return 0;
		} else if (strcmp(argv[i], "--stdio") == 0) {
			/* What some clients add; stdio is the only transport. */
		} else {
			fprintf(stderr, "torchlint: server: unknown option '%s'\n", argv[i]);
			tl_server__usage(stderr);
			return 2;
		}
	}
	TlServer s;
	tl_server__init(&s);
	if (debounce >= 0)
		s.debounce_ns = debounce * 1000000LL;
	/* The rules are compiled once and kept: a re-analysis costs only the analysis. */
	if (!tl_rules_load(&s.rules, rules_dir, stderr)) {
		tl_server__release(&s, false);
		return 2;
	}
	tl_engine_init(&s.engine, &s.rules, NULL);
	tl_configs_init(&s.configs, &s.rules);
	s.project = tl_project_new(NULL);
	/* A change rebuilds only what read the changed module. */
	tl_project_track(s.project);
	/* The scan for importers walks as the CLI does: the configured
	 * excludes (the configurations the worker reads, only while a job
	 * runs) and .gitignore. */
	TlDiscoverOptions scan_walk = { &s.configs, true, false, NULL, NULL, stderr, NULL, 0, 0, false, NULL };
	tl_project_set_discover(s.project, &scan_walk);
#ifdef __GLIBC__
	/* One malloc arena for both threads: the heap counted in
	 * torchlint/stats (mallinfo2 reads the main arena only) is all of it,
	 * and the worker does not reserve an arena of its own. */
	mallopt(M_ARENA_MAX, 1);
#endif
	s.parser = ts_parser_new();
	ts_parser_set_language(s.parser, tl_python_language());
	signal(SIGPIPE, SIG_IGN); /* a vanished client is seen as a failed write */
	tl_lsp_reader_init(&s.reader, STDIN_FILENO);
	s.parked = json_array();
	if (!tl_worker_start(&s)) {
		fprintf(stderr, "torchlint server: cannot start the analysis thread\n");
		tl_lsp_reader_release(&s.reader);
		tl_server__release(&s, true);
		return 2;
	}
	s.next_stamp_check = tl_server_now() + TL_SERVER_STAMP_PERIOD_NS;
	/* The protocol thread: it reads and answers; the worker analyses. */
	while (!s.exiting) {
		int64_t due = tl_server__next_due(&s), now = tl_server_now();
		int timeout = -1;
		if (due)
			timeout = due <= now ? 0 : (int)((due - now + 999999) / 1000000);
		struct pollfd pfd[2] = { { STDIN_FILENO, POLLIN, 0 }, { tl_worker_fd(&s), POLLIN, 0 } };
		int rc = poll(pfd, 2, timeout);
		if (rc < 0 && errno != EINTR)
			break;
		/* A finished analysis is published before the input read with
		 * it is handled: its result matched the document when it ended. */
		if (rc > 0 && pfd[1].revents && tl_worker_collect(&s))
			tl_server__unpark(&s);
		if (rc > 0 && pfd[0].revents) {
			if (!tl_lsp_reader_fill(&s.reader))
				s.input_ended = true;
			tl_server__handle_input(&s);
			tl_server__unpark(&s);
			if (s.input_ended) {
				/* What came before the end is handled; then stop. */
				if (s.reader.in.len > s.reader.pos)
					fprintf(stderr, "torchlint server: end of input inside a message\n");
				break;
			}
		}
		if (!s.exiting)
			tl_server__run_due(&s);
	}
	/* Exit is prompt even mid-analysis: the job is cancelled and the
	 * worker joined (the engine, the project's module loads and scans
	 * read the cancel flag often). Work that reads none (one long parse
	 * step, a slow file system) gets half a second; then the process
	 * ends without it, its answers all sent (they are written with
	 * write(2), nothing is buffered). */
	int status = s.shutdown ? 0 : 1;
	if (!tl_worker_stop(&s, 0.5))
		_exit(status);
	tl_lsp_reader_release(&s.reader);
	tl_server__release(&s, true);
	return status;
}
