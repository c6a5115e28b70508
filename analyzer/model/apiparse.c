/* The parser and the lookup of an API table (apitable.h): text in, sorted
 * rows out, no allocation (the rows borrow the text). The build runs it
 * over api/api.tsv through tools/apicheck.c; the analyzer over the
 * embedded copy (apitable.c).
 *
 * Owns: tl_api_parse, tl_api_find, the column names. */
#include "model/apitable.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const tl_api__graphs[] = { "-", "keeps", "breaks", "makes", "element" };
static const char *const tl_api__kinds[] = {
	"-", "tensor", "module", "optimizer", "scaler", "loader", "sampler", "criterion",
	"device", "number", "bool", "string", "container", "array", "parameter",
};
static const char *const tl_api__devices[] = { "-", "keeps", "host", "accelerator" };
static const char *const tl_api__dtypes[] = { "-", "keeps", "half", "float32", "float64", "integer", "bool" };
static const char *const tl_api__roles[] = {
	"loss", "forward", "factory", "wrapper", "mode", "grad", "tuple", "copy", "softmax", "log-softmax", "sigmoid",
	"exp", "sum", "reshape", "sequential", "scale", "cross-entropy", "nll", "bce", "bce-logits", "shift",
	"add-layer", "to-host", "saves", "loads-state", "parts", "mutates", "moves", "stores", "varies",
	"mapping", "returns-self", "runs-callable", "defers-callable",
};
/* In the order of the TL_APIS_* bits. */
static const char *const tl_api__sets[] = {
	"tensor-factory", "random-factory", "tensor-from-data", "deprecated-amp", "cpu-amp",
	"torch-load", "hub-load", "activation-checkpoint", "empty-cache", "data-loader", "log",
	"softmax-function", "softmax-module", "functional-dropout", "dropout-module",
	"anomaly-mode", "torch-save", "out-of-place", "adaptive-optimizer", "mode-dependent",
	"eval-mode", "wrap-ddp", "wrap-fsdp", "wrap-data-parallel", "wrap-compiled", "detaching",
	"parameter-free", "tensor-class", "new-leaf", "frozen", "tensor-method", "tensor-namespace",
	"parameters", "parameter-iterator", "named-iterator", "grad-off", "grad-on", "grad-set",
	"batch-norm", "instance-norm", "transformer-layer", "dropout-argument", "layer-container",
	"iterates", "distributed-sampler", "plain-type", "registers", "clip-grad",
	"torch-library", "foreign-framework", "own-package", "api-package", "pretrained-library",
	"not-tensor", "reads-only", "passes-items", "old-api-error", "registers-state",
	"needs-no-grad", "counts", "not-optimizer", "newer-version", "older-version",
};
_Static_assert(sizeof tl_api__roles / sizeof *tl_api__roles == TL_API_ROLE_COUNT, "one name per role bit");
_Static_assert(sizeof tl_api__sets / sizeof *tl_api__sets == TL_API_SET_COUNT, "one name per set bit");
_Static_assert(TL_API_ROLE_COUNT <= 64 && TL_API_SET_COUNT <= 64, "the roles and sets are the bits of a uint64_t");
static const char *const tl_api__columns[] = { "name", "graph", "kind", "device", "dtype", "roles", "sets", "params" };

#define TL_API__N(a) (sizeof(a) / sizeof *(a))
#define TL_API__COLUMNS 8
/* A name longer than this is no Python name anyone writes; the bound keeps
 * the error messages (which quote it) short. */
#define TL_API__NAME_MAX 200

const char *tl_api_graph_name(unsigned graph)
{
	return graph < TL_API__N(tl_api__graphs) ? tl_api__graphs[graph] : "?";
}

const char *tl_api_kind_name(unsigned kind)
{
	return kind < TL_API__N(tl_api__kinds) ? tl_api__kinds[kind] : "?";
}

const char *tl_api_device_name(unsigned device)
{
	return device < TL_API__N(tl_api__devices) ? tl_api__devices[device] : "?";
}

const char *tl_api_dtype_name(unsigned dtype)
{
	return dtype < TL_API__N(tl_api__dtypes) ? tl_api__dtypes[dtype] : "?";
}

/* Writes the names of the bits set in `bits` ("loss,forward"), or "-",
 * into `buf` (`cap` bytes, NUL-terminated, cut if short). */
static void tl_api__bits_format(uint64_t bits, const char *const *names, size_t n, char *buf, size_t cap)
{
	size_t used = 0;
	if (!cap)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (!(bits & (UINT64_C(1) << i)))
			continue;
		int k = snprintf(buf + used, cap - used, "%s%s", used ? "," : "", names[i]);
		if (k < 0 || (size_t)k >= cap - used)
			return;
		used += (size_t)k;
	}
	if (!used)
		snprintf(buf, cap, "-");
}

void tl_api_roles_format(uint64_t roles, char *buf, size_t cap)
{
	tl_api__bits_format(roles, tl_api__roles, TL_API__N(tl_api__roles), buf, cap);
}

const char *tl_api_set_name(unsigned bit)
{
	return bit < TL_API__N(tl_api__sets) ? tl_api__sets[bit] : "?";
}

void tl_api_sets_format(uint64_t sets, char *buf, size_t cap)
{
	tl_api__bits_format(sets, tl_api__sets, TL_API__N(tl_api__sets), buf, cap);
}

size_t tl_api_row_bound(const char *text, size_t len)
{
	size_t n = 1;
	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	return n;
}

/* A field of a line: bytes [s, s + n). */
typedef struct TlApiField {
	const char *s;
	size_t n;
} TlApiField;

static bool tl_api__is(TlApiField f, const char *word)
{
	return strlen(word) == f.n && memcmp(f.s, word, f.n) == 0;
}

/* The index of `f` in `names`, or -1. */
static int tl_api__index(TlApiField f, const char *const *names, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (tl_api__is(f, names[i]))
			return (int)i;
	return -1;
}

static bool tl_api__ident(const char *s, size_t n)
{
	if (!n || !(s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
		return false;
	for (size_t i = 1; i < n; i++) {
		char c = s[i];
		if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
			return false;
	}
	return true;
}

/* A dotted name of `min` parts or more, each an identifier. */
static bool tl_api__dotted(const char *s, size_t n, size_t min)
{
	size_t parts = 0, start = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		if (!tl_api__ident(s + start, i - start))
			return false;
		parts++;
		start = i + 1;
	}
	return parts >= min;
}

typedef struct TlApiErr {
	char *buf;
	size_t cap;
	const char *file;
} TlApiErr;

static bool tl_api__fail(TlApiErr *e, uint32_t line, const char *fmt, ...)
{
	if (!e->cap)
		return false;
	int n = snprintf(e->buf, e->cap, "%s:%u: ", e->file ? e->file : "<table>", (unsigned)line);
	if (n >= 0 && (size_t)n < e->cap) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->buf + n, e->cap - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return false;
}

/* Parses one column value of `names` into *out, or says what is wrong. */
static bool tl_api__column(TlApiErr *e, uint32_t line, const char *column, TlApiField f,
			   const char *const *names, size_t count, uint8_t *out)
{
	int i = tl_api__index(f, names, count);
	if (i < 0) {
		char allowed[256];
		size_t used = 0;
		allowed[0] = '\0';
		for (size_t k = 0; k < count; k++) {
			int n = snprintf(allowed + used, sizeof allowed - used, "%s%s", k ? ", " : "", names[k]);
			if (n < 0 || (size_t)n >= sizeof allowed - used)
				break;
			used += (size_t)n;
		}
		return tl_api__fail(e, line, "unknown %s '%.*s' (one of: %s)", column,
				    (int)(f.n > 64 ? 64 : f.n), f.s, allowed);
	}
	*out = (uint8_t)i;
	return true;
}

/* The next item of a comma-separated field: *pos is where it starts (0
 * first); false past the last item. */
static bool tl_api__item(TlApiField f, size_t *pos, TlApiField *one)
{
	if (*pos > f.n)
		return false;
	size_t i = *pos;
	while (i < f.n && f.s[i] != ',')
		i++;
	one->s = f.s + *pos;
	one->n = i - *pos;
	*pos = i + 1;
	return true;
}

static bool tl_api__roles_parse(TlApiErr *e, uint32_t line, TlApiField f, uint64_t *out)
{
	*out = 0;
	if (tl_api__is(f, "-"))
		return true;
	size_t pos = 0;
	TlApiField one;
	while (tl_api__item(f, &pos, &one)) {
		int r = tl_api__index(one, tl_api__roles, TL_API__N(tl_api__roles));
		if (r < 0)
			return tl_api__fail(e, line,
					    "unknown role '%.*s' (roles are '-' or a comma-separated set of: "
					    "loss, forward, factory, wrapper, mode, grad, tuple, copy, softmax, "
					    "log-softmax, sigmoid, exp, sum, reshape, sequential, scale, "
					    "cross-entropy, nll, bce, bce-logits, shift, add-layer)",
					    (int)(one.n > 64 ? 64 : one.n), one.s);
		if (*out & (UINT64_C(1) << r))
			return tl_api__fail(e, line, "role '%s' given twice", tl_api__roles[r]);
		*out |= UINT64_C(1) << r;
	}
	return true;
}

static bool tl_api__sets_parse(TlApiErr *e, uint32_t line, TlApiField f, uint64_t *out)
{
	*out = 0;
	if (tl_api__is(f, "-"))
		return true;
	size_t pos = 0;
	TlApiField one;
	while (tl_api__item(f, &pos, &one)) {
		int r = tl_api__index(one, tl_api__sets, TL_API__N(tl_api__sets));
		if (r < 0)
			return tl_api__fail(e, line, "unknown set '%.*s' (sets are '-' or a comma-separated list of the names in api/api.tsv's header comment)",
					    (int)(one.n > 64 ? 64 : one.n), one.s);
		if (*out & (UINT64_C(1) << r))
			return tl_api__fail(e, line, "set '%s' given twice", tl_api__sets[r]);
		*out |= UINT64_C(1) << r;
	}
	return true;
}

/* The `params` column: `-`, or a comma-separated list of identifiers,
 * none twice. */
static bool tl_api__params_parse(TlApiErr *e, uint32_t line, TlApiField f, TlApiRow *r)
{
	r->params = NULL;
	r->params_len = 0;
	if (tl_api__is(f, "-"))
		return true;
	size_t pos = 0;
	TlApiField one;
	while (tl_api__item(f, &pos, &one)) {
		if (!tl_api__ident(one.s, one.n))
			return tl_api__fail(e, line,
					    "bad parameter '%.*s' (params are '-' or a comma-separated list of "
					    "parameter names)",
					    (int)(one.n > 64 ? 64 : one.n), one.s);
		TlApiField before = { f.s, (size_t)(one.s - f.s) };
		size_t k = 0;
		TlApiField seen;
		while (before.n > 0 && tl_api__item(before, &k, &seen) && seen.s < one.s)
			if (seen.n == one.n && memcmp(seen.s, one.s, one.n) == 0)
				return tl_api__fail(e, line, "parameter '%.*s' given twice", (int)one.n, one.s);
	}
	r->params = f.s;
	r->params_len = (uint32_t)f.n;
	return true;
}

int tl_api_param_place(const TlApiRow *r, const char *name)
{
	if (!r || !r->params || !name)
		return -1;
	size_t n = strlen(name), start = 0;
	int place = 0;
	for (size_t i = 0; i <= r->params_len; i++) {
		if (i < r->params_len && r->params[i] != ',')
			continue;
		if (i - start == n && memcmp(r->params + start, name, n) == 0)
			return place;
		place++;
		start = i + 1;
	}
	return -1;
}

static int tl_api__cmp_key(unsigned form_a, const char *a, size_t na, unsigned form_b, const char *b,
			   size_t nb)
{
	if (form_a != form_b)
		return form_a < form_b ? -1 : 1;
	size_t n = na < nb ? na : nb;
	int c = memcmp(a, b, n);
	if (c)
		return c;
	return na == nb ? 0 : (na < nb ? -1 : 1);
}

static int tl_api__cmp_rows(const void *pa, const void *pb)
{
	const TlApiRow *a = pa, *b = pb;
	int c = tl_api__cmp_key(a->form, a->name, a->len, b->form, b->name, b->len);
	if (c)
		return c;
	return a->line < b->line ? -1 : a->line > b->line;
}

bool tl_api_parse(const char *text, size_t len, const char *file, TlApiRow *rows, size_t cap,
		  TlApiTable *out, char *err, size_t errcap)
{
	TlApiErr e = { err, errcap, file };
	if (errcap)
		err[0] = '\0';
	out->rows = rows;
	out->count = 0;
	out->slots = NULL;
	out->mask = 0;
	bool header = false;
	uint32_t line = 0;
	size_t pos = 0;
	while (pos <= len) {
		size_t end = pos;
		while (end < len && text[end] != '\n')
			end++;
		line++;
		TlApiField f[TL_API__COLUMNS + 1];
		size_t nf = 0;
		for (size_t i = pos; i < end;) {
			char c = text[i];
			if (c == ' ' || c == '\t' || c == '\r') {
				i++;
				continue;
			}
			if (c == '#' && nf == 0)
				break; /* a comment line */
			size_t s = i;
			while (i < end && text[i] != ' ' && text[i] != '\t' && text[i] != '\r')
				i++;
			if (nf <= TL_API__COLUMNS)
				f[nf] = (TlApiField){ text + s, i - s };
			nf++;
		}
		pos = end + 1;
		if (nf == 0)
			continue;
		if (!header) {
			if (nf != TL_API__COLUMNS)
				return tl_api__fail(&e, line, "the header has %zu columns, expected %d (name graph "
							      "kind device dtype roles sets params)",
						    nf, TL_API__COLUMNS);
			for (size_t k = 0; k < TL_API__COLUMNS; k++)
				if (!tl_api__is(f[k], tl_api__columns[k]))
					return tl_api__fail(&e, line, "the header must be 'name graph kind device "
								     "dtype roles sets params' (column %zu is '%.*s')",
							    k + 1, (int)(f[k].n > 64 ? 64 : f[k].n), f[k].s);
			header = true;
			continue;
		}
		if (nf != TL_API__COLUMNS && nf != TL_API__COLUMNS - 1)
			return tl_api__fail(&e, line,
					    "%zu columns, expected %d (name graph kind device dtype roles sets params) "
					    "or %d (params left off)",
					    nf, TL_API__COLUMNS, TL_API__COLUMNS - 1);
		if (out->count >= cap)
			return tl_api__fail(&e, line, "more rows than the %zu room was made for", cap);
		TlApiRow r = { 0 };
		r.line = line;
		TlApiField name = f[0];
		if (name.n > TL_API__NAME_MAX)
			return tl_api__fail(&e, line, "name longer than %d bytes", TL_API__NAME_MAX);
		if (name.n > 1 && name.s[0] == '.') {
			r.form = TL_API_METHOD;
			r.name = name.s + 1;
			r.len = (uint32_t)name.n - 1;
			if (!tl_api__ident(r.name, r.len))
				return tl_api__fail(&e, line, "bad method name '%.*s' (a '.' and an identifier)",
						    (int)name.n, name.s);
		} else if (name.n > 1 && name.s[0] == '@') {
			r.form = TL_API_ATTRIBUTE;
			r.name = name.s + 1;
			r.len = (uint32_t)name.n - 1;
			if (!tl_api__ident(r.name, r.len))
				return tl_api__fail(&e, line, "bad attribute name '%.*s' (an '@' and an identifier)",
						    (int)name.n, name.s);
		} else if (name.n > 9 && memcmp(name.s, "builtins.", 9) == 0) {
			r.form = TL_API_BUILTIN;
			r.name = name.s + 9;
			r.len = (uint32_t)name.n - 9;
			if (!tl_api__ident(r.name, r.len))
				return tl_api__fail(&e, line, "bad builtin name '%.*s' ('builtins.' and an identifier)",
						    (int)name.n, name.s);
		} else if (name.n > 2 && name.s[0] == '*' && name.s[1] == '.') {
			r.form = TL_API_ANY;
			r.name = name.s + 2;
			r.len = (uint32_t)name.n - 2;
			if (!tl_api__ident(r.name, r.len))
				return tl_api__fail(&e, line, "bad name '%.*s' ('*.' and an identifier: the last part of a name from any module)",
						    (int)name.n, name.s);
		} else if (name.n > 1 && name.s[0] == '~') {
			r.form = TL_API_WORD;
			r.name = name.s + 1;
			r.len = (uint32_t)name.n - 1;
			if (!tl_api__ident(r.name, r.len))
				return tl_api__fail(&e, line, "bad word '%.*s' ('~' and an identifier: a word a name holds)",
						    (int)name.n, name.s);
		} else if (name.n > 2 && name.s[name.n - 1] == '*' && name.s[name.n - 2] == '.') {
			r.form = TL_API_UNDER;
			r.name = name.s;
			r.len = (uint32_t)name.n - 2;
			if (!tl_api__dotted(r.name, r.len, 1))
				return tl_api__fail(&e, line, "bad name '%.*s' (a module name and '.*': what is under that module)",
						    (int)name.n, name.s);
		} else {
			r.form = TL_API_QUALIFIED;
			r.name = name.s;
			r.len = (uint32_t)name.n;
			if (!tl_api__dotted(r.name, r.len, 2))
				return tl_api__fail(&e, line,
						    "bad name '%.*s' (a dotted name such as torch.argmax, a method "
						    "such as .item, or builtins.len)",
						    (int)name.n, name.s);
		}
		if (!tl_api__column(&e, line, "graph effect", f[1], tl_api__graphs, TL_API__N(tl_api__graphs), &r.graph) ||
		    !tl_api__column(&e, line, "kind", f[2], tl_api__kinds, TL_API__N(tl_api__kinds), &r.kind) ||
		    !tl_api__column(&e, line, "device", f[3], tl_api__devices, TL_API__N(tl_api__devices), &r.device) ||
		    !tl_api__column(&e, line, "dtype", f[4], tl_api__dtypes, TL_API__N(tl_api__dtypes), &r.dtype) ||
		    !tl_api__roles_parse(&e, line, f[5], &r.roles) || !tl_api__sets_parse(&e, line, f[6], &r.sets) ||
		    (nf == TL_API__COLUMNS && !tl_api__params_parse(&e, line, f[7], &r)))
			return false;
		if (!r.graph && !r.kind && !r.device && !r.dtype && !r.roles && !r.sets && !r.params)
			return tl_api__fail(&e, line, "'%.*s' says nothing (every column is '-')", (int)name.n, name.s);
		rows[out->count++] = r;
	}
	if (!header)
		return tl_api__fail(&e, line, "no header line 'name graph kind device dtype roles sets params'");
	qsort(rows, out->count, sizeof *rows, tl_api__cmp_rows);
	for (size_t i = 1; i < out->count; i++) {
		const TlApiRow *a = &rows[i - 1], *b = &rows[i];
		if (tl_api__cmp_key(a->form, a->name, a->len, b->form, b->name, b->len) == 0)
			return tl_api__fail(&e, b->line, "'%s%.*s%s' repeats the row of line %u",
					    b->form == TL_API_METHOD      ? "."
					    : b->form == TL_API_ATTRIBUTE ? "@"
					    : b->form == TL_API_BUILTIN   ? "builtins."
					    : b->form == TL_API_ANY     ? "*."
					    : b->form == TL_API_WORD    ? "~"
									: "",
					    (int)b->len, b->name, b->form == TL_API_UNDER ? ".*" : "",
					    (unsigned)a->line);
	}
	return true;
}

/* FNV-1a over the name, the form mixed in. */
static uint32_t tl_api__hash(unsigned form, const char *name, size_t n)
{
	uint32_t h = 2166136261u ^ form;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	return h ^ (h >> 15);
}

size_t tl_api_hash_size(const TlApiTable *t)
{
	size_t size = 64;
	while (size < 2 * t->count)
		size *= 2;
	return size;
}

void tl_api_hash(TlApiTable *t, uint32_t *slots)
{
	t->slots = slots;
	t->mask = (uint32_t)tl_api_hash_size(t) - 1;
	memset(slots, 0, ((size_t)t->mask + 1) * sizeof *slots);
	for (size_t i = 0; i < t->count; i++) {
		const TlApiRow *r = &t->rows[i];
		uint32_t h = tl_api__hash(r->form, r->name, r->len) & t->mask;
		while (t->slots[h])
			h = (h + 1) & t->mask;
		t->slots[h] = (uint32_t)i + 1;
	}
}

const TlApiRow *tl_api_find(const TlApiTable *t, TlApiForm form, const char *name)
{
	if (!t || !name)
		return NULL;
	size_t n = strlen(name);
	if (t->slots) {
		for (uint32_t h = tl_api__hash((unsigned)form, name, n) & t->mask; t->slots[h];
		     h = (h + 1) & t->mask) {
			const TlApiRow *r = &t->rows[t->slots[h] - 1];
			if (r->form == form && r->len == n && memcmp(r->name, name, n) == 0)
				return r;
		}
		return NULL;
	}
	size_t lo = 0, hi = t->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const TlApiRow *r = &t->rows[mid];
		int c = tl_api__cmp_key((unsigned)form, name, n, r->form, r->name, r->len);
		if (c == 0)
			return r;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}
