/* The embedded API table (api/api.tsv, embedded by the build as the other
 * data files are): parsed once, at the first lookup on any thread
 * (pthread_once), and kept for the life of the process.
 *
 * Owns: the embedded table, tl_api_table and its lookups. */
#include "model/apitable.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/embedded.h"

/* The path the build embeds the table under. */
#define TL_API_TABLE_PATH "api/api.tsv"

static pthread_once_t tl_api__once = PTHREAD_ONCE_INIT;
static TlApiTable tl_api__table;
/* The text the rows borrow, for the life of the process (volatile: a
 * pointer to its start, which the optimiser keeps, so leak checkers see
 * it reachable). */
static char *volatile tl_api__text;
/* The table's hash of rows (tl_api_hash), as long. */
static uint32_t *volatile tl_api__slots;

static void tl_api__load(void)
{
	const TlEmbeddedFile *file = NULL;
	for (unsigned i = 0; i < tl_embedded_count; i++)
		if (strcmp(tl_embedded_files[i].path, TL_API_TABLE_PATH) == 0)
			file = &tl_embedded_files[i];
	if (!file) {
		/* The Makefile and tools/build_binary.py always embed it. */
		fprintf(stderr, "torchlint: internal error: '%s' is not embedded\n", TL_API_TABLE_PATH);
		abort();
	}
	/* A copy of the text the rows borrow, in which each name is then
	 * ended by a NUL (over the space or tab after it): the names of the
	 * embedded table are C strings. */
	char *text = tl_api__text = tl_malloc(file->size + 1);
	memcpy(text, file->data, file->size);
	text[file->size] = '\0';
	size_t cap = tl_api_row_bound(text, file->size);
	TlApiRow *rows = tl_calloc(cap, sizeof *rows);
	char err[512];
	if (!tl_api_parse(text, file->size, TL_API_TABLE_PATH, rows, cap, &tl_api__table, err,
			  sizeof err)) {
		/* tools/apicheck.c ran this parser over the same text at build
		 * time, so this cannot happen in a binary the build made. */
		fprintf(stderr, "torchlint: internal error: %s\n", err);
		abort();
	}
	for (size_t i = 0; i < tl_api__table.count; i++)
		text[(size_t)(rows[i].name - text) + rows[i].len] = '\0';
	tl_api__slots = tl_malloc(tl_api_hash_size(&tl_api__table) * sizeof *tl_api__slots);
	tl_api_hash(&tl_api__table, tl_api__slots);
}

const TlApiTable *tl_api_table(void)
{
	pthread_once(&tl_api__once, tl_api__load);
	return &tl_api__table;
}

/* The roles that say what the facts follow, not what a call computes: a
 * row of them alone is passed over by the lookups of what a call does
 * (tl_api_returns_self, tl_api_runs_callable read them). */
#define TL_API__FOLLOWED (TL_APIR_RETURNS_SELF | TL_APIR_RUNS_CALLABLE | TL_APIR_DEFERS_CALLABLE)

/* A row that says something of what a call does (not only its sets, nor
 * only the roles the facts follow). */
static bool tl_api__says_call(const TlApiRow *r)
{
	return r && (r->graph || r->kind || r->device || r->dtype || (r->roles & ~TL_API__FOLLOWED));
}

const TlApiRow *tl_api_qualified(const char *qname)
{
	const TlApiRow *r = qname ? tl_api_find(tl_api_table(), TL_API_QUALIFIED, qname) : NULL;
	/* A qualified row of sets only is found (its name is the API's); one
	 * of the followed roles alone, added for the facts, is not. */
	return r && !tl_api__says_call(r) && !r->sets && !r->params ? NULL : r;
}

const TlApiRow *tl_api_method(const char *method)
{
	const TlApiRow *r = method ? tl_api_find(tl_api_table(), TL_API_METHOD, method) : NULL;
	return tl_api__says_call(r) ? r : NULL;
}

bool tl_api_returns_self(const char *method)
{
	const TlApiRow *r = method ? tl_api_find(tl_api_table(), TL_API_METHOD, method) : NULL;
	return r && (r->roles & TL_APIR_RETURNS_SELF);
}

uint64_t tl_api_runs_callable(const char *qname, const char *builtin)
{
	const TlApiRow *r = qname     ? tl_api_find(tl_api_table(), TL_API_QUALIFIED, qname)
			    : builtin ? tl_api_find(tl_api_table(), TL_API_BUILTIN, builtin)
				      : NULL;
	return r ? r->roles & (TL_APIR_RUNS_CALLABLE | TL_APIR_DEFERS_CALLABLE) : 0;
}

const TlApiRow *tl_api_builtin(const char *name)
{
	const TlApiRow *r = name ? tl_api_find(tl_api_table(), TL_API_BUILTIN, name) : NULL;
	return tl_api__says_call(r) ? r : NULL;
}

const TlApiRow *tl_api_attribute(const char *name, size_t len)
{
	char buf[64];
	if (!name || !len || len >= sizeof buf || memchr(name, '\0', len))
		return NULL;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return tl_api_find(tl_api_table(), TL_API_ATTRIBUTE, buf);
}

const TlApiRow *tl_api_any(const char *qname)
{
	if (!qname)
		return NULL;
	const char *dot = strrchr(qname, '.');
	const TlApiRow *r = tl_api_find(tl_api_table(), TL_API_ANY, dot ? dot + 1 : qname);
	return tl_api__says_call(r) ? r : NULL;
}

uint64_t tl_api_any_sets(const char *name)
{
	if (!name)
		return 0;
	const char *dot = strrchr(name, '.');
	const TlApiRow *r = tl_api_find(tl_api_table(), TL_API_ANY, dot ? dot + 1 : name);
	return r ? r->sets : 0;
}

bool tl_api_word_in(const char *s, size_t n, uint64_t sets)
{
	const TlApiTable *t = tl_api_table();
	/* The rows are sorted by form: the `~` rows are the table's last. */
	for (size_t i = t->count; i > 0 && t->rows[i - 1].form == TL_API_WORD; i--) {
		const TlApiRow *r = &t->rows[i - 1];
		if (!(r->sets & sets) || r->len > n)
			continue;
		for (size_t k = 0; k + r->len <= n; k++)
			if (s[k] == r->name[0] && memcmp(s + k, r->name, r->len) == 0)
				return true;
	}
	return false;
}

uint64_t tl_api_method_sets(const char *method)
{
	const TlApiRow *r = method ? tl_api_find(tl_api_table(), TL_API_METHOD, method) : NULL;
	return r ? r->sets : 0;
}

uint64_t tl_api_qualified_sets(const char *qname)
{
	const TlApiRow *r = tl_api_qualified(qname);
	return r ? r->sets : 0;
}

uint64_t tl_api_builtin_sets(const char *name)
{
	const TlApiRow *r = name ? tl_api_find(tl_api_table(), TL_API_BUILTIN, name) : NULL;
	return r ? r->sets : 0;
}

uint64_t tl_api_builtin_sets_text(const char *s, size_t n)
{
	char buf[64];
	if (!s || n >= sizeof buf || memchr(s, '\0', n))
		return 0;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return tl_api_builtin_sets(buf);
}

uint64_t tl_api_package_sets(const char *q, size_t len)
{
	char buf[64];
	size_t n = 0;
	while (q && n < len && q[n] != '.')
		n++;
	if (!n || n >= sizeof buf || memchr(q, '\0', n))
		return 0;
	memcpy(buf, q, n);
	buf[n] = '\0';
	const TlApiRow *r = tl_api_find(tl_api_table(), TL_API_UNDER, buf);
	return r ? r->sets : 0;
}

bool tl_api_own_package(const char *root)
{
	return root && !strchr(root, '.') && (tl_api_package_sets(root, strlen(root)) & TL_APIS_OWN_PACKAGE);
}

const TlApiRow *tl_api_under(const char *qname)
{
	if (!qname)
		return NULL;
	char buf[256];
	size_t n = strlen(qname);
	if (n >= sizeof buf)
		return NULL;
	memcpy(buf, qname, n + 1);
	for (char *dot = strrchr(buf, '.'); dot; dot = strrchr(buf, '.')) {
		*dot = '\0';
		const TlApiRow *r = tl_api_find(tl_api_table(), TL_API_UNDER, buf);
		if (tl_api__says_call(r))
			return r;
	}
	return NULL;
}

uint64_t tl_api_module_sets(const char *qname)
{
	const char *dot = qname ? strrchr(qname, '.') : NULL;
	char buf[256];
	if (!dot || (size_t)(dot - qname) >= sizeof buf)
		return 0;
	memcpy(buf, qname, (size_t)(dot - qname));
	buf[dot - qname] = '\0';
	const TlApiRow *r = tl_api_find(tl_api_table(), TL_API_UNDER, buf);
	return r ? r->sets : 0;
}
