#include "rules/rules.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/embedded.h"
#include "base/escape.h"
#include "base/source.h"
#include "base/toml.h"
#include "rules/qexec.h"
#include "syntax/syms.h"

static const struct {
	const char *name, *prefix;
} tl_families[] = {
	{ "memory", "TL1" }, { "correctness", "TL2" }, { "speed", "TL3" },
	{ "precision", "TL4" }, { "safety", "TL5" }, { "engine", "TL0" },
};

const char *tl_severity_name(TlSeverity s)
{
	return s == TL_SEV_ERROR ? "error" : s == TL_SEV_WARNING ? "warning" : "info";
}

/* ---- error reporting with a caret ------------------------------------------- */

static void tl_rules__caret(FILE *err, const char *path, const char *text, size_t len,
			    uint32_t offset, const char *what)
{
	uint32_t line = 1, line_start = 0;
	for (uint32_t i = 0; i < offset && i < len; i++)
		if (text[i] == '\n') {
			line++;
			line_start = i + 1;
		}
	uint32_t line_end = line_start;
	while (line_end < len && text[line_end] != '\n')
		line_end++;
	uint32_t col = tl_utf8_count(text + line_start, offset - line_start) + 1;
	tl_diagf(err, "%s:%u:%u: error: %s\n", path, line, col, what);
	TlBuf shown;
	tl_buf_init(&shown);
	tl_escape_add_snippet(&shown, text + line_start, line_end - line_start);
	fprintf(err, "%5u | %s\n      | ", line, shown.data);
	tl_buf_release(&shown);
	for (uint32_t i = line_start; i < offset; i++)
		if (((unsigned char)text[i] & 0xC0) != 0x80)
			fputc(text[i] == '\t' ? '\t' : ' ', err);
	fputs("^\n", err);
}

/* ---- predicates --------------------------------------------------------------- */

static void tl_pred_release(TlPred *p)
{
	tl_free(p->string);
	tl_str_array_release(&p->strings);
	if (p->has_regex)
		regfree(&p->regex);
}

static void tl_pred_list_release(TlPredList *list)
{
	for (uint32_t k = 0; k < list->size; k++)
		tl_pred_release(&list->items[k]);
	tl_array_release(list);
}

/* Where `#name` first appears in the pattern's source, for error messages. */
static uint32_t tl_rules__pred_offset(const TlQPattern *qp, const char *text, const char *name)
{
	size_t nlen = strlen(name);
	for (uint32_t i = qp->start; i + nlen + 1 <= qp->end; i++)
		if (text[i] == '#' && strncmp(text + i + 1, name, nlen) == 0)
			return i;
	return qp->start;
}

/* Compiles the predicates of scanned pattern `qp` into `preds`; errors
 * are reported against `path` / `text`. */
static bool tl_rules__compile_pattern(const TlQPattern *qp, const char *path,
				      const char *text, size_t len, TlPredList *preds, FILE *err)
{
	for (uint32_t q = 0; q < qp->predicates.size; q++) {
		const TlQPredicate *st = &qp->predicates.items[q];
		const char *name = st->name;
		char msg[256];
		uint32_t at = tl_rules__pred_offset(qp, text, name);
		TlPred pr;
		memset(&pr, 0, sizeof pr);
		tl_array_init(&pr.strings);
		pr.capture2 = -1;
		uint32_t argc = st->args.size;
		const TlQArg *a = st->args.items;
		bool ok = true;
		const char *base = name;
		if (strncmp(base, "not-", 4) == 0) {
			pr.negated = true;
			base += 4;
		}
		if (strncmp(base, "any-", 4) == 0 && strcmp(base, "any-of?") != 0) {
			pr.any = true;
			base += 4;
		}
		if (strcmp(base, "eq?") == 0 || strcmp(base, "match?") == 0) {
			pr.kind = base[0] == 'e' ? TL_PRED_EQ : TL_PRED_MATCH;
			if (argc != 2 || !a[0].is_capture || (pr.kind == TL_PRED_MATCH && a[1].is_capture)) {
				snprintf(msg, sizeof msg, "#%s takes a capture and %s", name,
					 pr.kind == TL_PRED_EQ ? "a string or a capture" : "a regex string");
				ok = false;
			} else {
				pr.capture = a[0].capture;
				if (a[1].is_capture)
					pr.capture2 = (int32_t)a[1].capture;
				else
					pr.string = tl_strndup(a[1].string, a[1].length);
				if (pr.kind == TL_PRED_MATCH) {
					if (regcomp(&pr.regex, pr.string, REG_EXTENDED | REG_NOSUB) != 0) {
						snprintf(msg, sizeof msg, "invalid regular expression \"%s\"", pr.string);
						ok = false;
					} else {
						pr.has_regex = true;
					}
				}
			}
		} else if (strcmp(name, "set!") == 0) {
			/* (#set! name "value"): a property of the pattern that its
			 * rule's message can quote as {name}. */
			pr.kind = TL_PRED_SET;
			if (argc != 2 || a[0].is_capture || a[1].is_capture) {
				snprintf(msg, sizeof msg, "#set! takes a property name and a string value");
				ok = false;
			} else {
				tl_array_push(&pr.strings, tl_strndup(a[0].string, a[0].length));
				pr.string = tl_strndup(a[1].string, a[1].length);
			}
		} else if (strcmp(base, "any-of?") == 0) {
			pr.kind = TL_PRED_ANY_OF;
			if (argc < 2 || !a[0].is_capture) {
				snprintf(msg, sizeof msg, "#%s takes a capture and one or more strings", name);
				ok = false;
			} else {
				pr.capture = a[0].capture;
				for (uint32_t k = 1; k < argc && ok; k++) {
					if (a[k].is_capture) {
						snprintf(msg, sizeof msg, "#%s takes strings after the capture", name);
						ok = false;
						break;
					}
					tl_array_push(&pr.strings, tl_strndup(a[k].string, a[k].length));
				}
			}
		} else {
			size_t bl = strlen(base);
			const TlPredicateDef *def = NULL;
			if (!pr.any && bl > 1 && base[bl - 1] == '?')
				def = tl_predicate_find(base, bl - 1);
			if (!def) {
				snprintf(msg, sizeof msg, "unknown predicate #%s (see torchlint --list-predicates)", name);
				ok = false;
			} else {
				pr.kind = TL_PRED_SEMANTIC;
				pr.def = def;
				pr.choice = -1;
				uint32_t want = def->arg_name ? 2 : 1;
				if (argc != want || !a[0].is_capture || (want == 2 && a[1].is_capture)) {
					if (def->arg_name)
						snprintf(msg, sizeof msg, "#%s takes a capture and %s %s", name,
							 strchr("aeiou", def->arg_name[0]) ? "an" : "a", def->arg_name);
					else
						snprintf(msg, sizeof msg, "#%s takes exactly one capture", name);
					ok = false;
				} else {
					pr.capture = a[0].capture;
					if (want == 2) {
						char *v = tl_strndup(a[1].string, a[1].length);
						pr.choice = tl_predicate_choice(def, v);
						if (pr.choice < 0) {
							TlBuf b;
							tl_buf_init(&b);
							for (int k = 0; def->choices[k]; k++)
								tl_buf_addf(&b, "%s%s", k ? ", " : "", def->choices[k]);
							snprintf(msg, sizeof msg, "#%s: unknown %s \"%s\" (one of: %s)",
								 name, def->arg_name, v, b.data);
							tl_buf_release(&b);
							ok = false;
						}
						tl_free(v);
					}
				}
			}
		}
		if (!ok) {
			tl_pred_release(&pr);
			tl_rules__caret(err, path, text, len, at, msg);
			return false;
		}
		tl_array_push(preds, pr);
	}
	return true;
}

static bool tl_rules__compile_preds(TlRule *r, const char *text, size_t len, FILE *err)
{
	for (uint32_t p = 0; p < r->text.size; p++) {
		TlPredList list;
		tl_array_init(&list);
		tl_array_push(&r->patterns, list);
		if (!tl_rules__compile_pattern(&r->text.items[p], r->query_path, text, len,
					       tl_array_last(&r->patterns), err))
			return false;
	}
	return true;
}

/* ---- one rule ------------------------------------------------------------------ */

void tl_rule_free(TlRule *r)
{
	if (!r)
		return;
	tl_free(r->code);
	tl_free(r->name);
	tl_free(r->family);
	tl_free(r->message);
	tl_free(r->help);
	tl_free(r->skill);
	tl_free(r->validate);
	tl_str_array_release(&r->tags);
	tl_free(r->security_severity);
	tl_fix_specs_release(&r->fixes);
	tl_free(r->meta_path);
	tl_free(r->query_path);
	for (uint32_t p = 0; p < r->patterns.size; p++)
		tl_pred_list_release(&r->patterns.items[p]);
	tl_free(r->query_source);
	tl_array_release(&r->patterns);
	tl_qtext_release(&r->text);
	if (r->query)
		ts_query_delete(r->query);
	tl_free(r);
}

static char *tl_rules__meta_string(const TlToml *doc, const char *key, bool required,
				   const char *path, FILE *err, bool *ok)
{
	const TlTomlEntry *e = tl_toml_get(doc, "", key);
	if (!e) {
		if (required) {
			tl_diagf(err, "%s: error: missing key '%s'\n", path, key);
			*ok = false;
		}
		return NULL;
	}
	if (e->kind != TL_TOML_STRING) {
		tl_diagf(err, "%s:%u:%u: error: '%s' must be a string\n", path, e->line, e->column, key);
		*ok = false;
		return NULL;
	}
	return tl_strdup(e->str);
}

static bool tl_rules__check_placeholders(const TlRule *r, FILE *err)
{
	for (const char *p = r->message; (p = strchr(p, '{')); p++) {
		const char *close = strchr(p, '}');
		if (!close) {
			tl_diagf(err, "%s:%u:%u: error: unclosed '{' in message\n", r->meta_path,
				r->message_line, r->message_column);
			return false;
		}
		bool found = false;
		for (uint32_t i = 0; i < r->text.size && !found; i++)
			found = tl_qtext_capture(&r->text.items[i], p + 1, (size_t)(close - p - 1)) >= 0;
		/* Else a property that every pattern sets with #set!. */
		size_t plen = (size_t)(close - p - 1);
		for (uint32_t k = 0; !found && k < r->patterns.size; k++) {
			const TlPredList *pl = &r->patterns.items[k];
			bool set = false;
			for (uint32_t j = 0; j < pl->size && !set; j++)
				set = pl->items[j].kind == TL_PRED_SET &&
				      strlen(pl->items[j].strings.items[0]) == plen &&
				      memcmp(pl->items[j].strings.items[0], p + 1, plen) == 0;
			if (!set)
				break;
			found = k + 1 == r->patterns.size;
		}
		if (!found) {
			tl_diagf(err, "%s:%u:%u: error: message placeholder '%.*s' names no capture of %s (nor a property that every pattern sets with #set!)\n",
				r->meta_path, r->message_line, r->message_column, (int)(close - p + 1), p,
				r->query_source ? r->query_path : "the rule (it has no query)");
			return false;
		}
	}
	return true;
}

/* TlFixCapture for a check: whether some pattern of the rule captures `name`. */
static bool tl_rules__has_capture(void *data, const char *name, size_t len, TSNode *out)
{
	const TlRule *r = data;
	(void)out;
	for (uint32_t i = 0; i < r->text.size; i++)
		if (tl_qtext_capture(&r->text.items[i], name, len) >= 0)
			return true;
	return false;
}

static const char *const tl_rules__query_errors[] = {
	"no error", "invalid query syntax", "unknown node type",
	"unknown field name", "unknown capture", "impossible pattern structure",
	"incompatible grammar",
};

/* Loads one rule; with `check`, tree-sitter compiles its query too. */
static TlRule *tl_rules__compile(const char *meta_path, const char *meta, size_t meta_len,
				 const char *query_path, const char *query, size_t query_len,
				 bool check, FILE *err)
{
	TlRule *r = tl_calloc(1, sizeof *r);
	tl_array_init(&r->patterns);
	tl_array_init(&r->text);
	r->meta_path = tl_strdup(meta_path);
	r->query_path = query_path ? tl_strdup(query_path) : NULL;
	r->finding_capture = -1;
	TlToml doc;
	char why[256];
	if (!tl_toml_parse(&doc, meta, meta_len, why, sizeof why)) {
		/* why is "line:col: what" */
		unsigned line = 1, col = 1;
		int used = 0;
		if (sscanf(why, "%u:%u: %n", &line, &col, &used) < 2 || used == 0)
			used = 0;
		tl_diagf(err, "%s:%u:%u: error: %s\n", meta_path, line, col, why + used);
		tl_rule_free(r);
		return NULL;
	}
	bool ok = true;
	r->code = tl_rules__meta_string(&doc, "code", true, meta_path, err, &ok);
	r->name = tl_rules__meta_string(&doc, "name", true, meta_path, err, &ok);
	r->family = tl_rules__meta_string(&doc, "family", true, meta_path, err, &ok);
	r->message = tl_rules__meta_string(&doc, "message", true, meta_path, err, &ok);
	r->help = tl_rules__meta_string(&doc, "help", false, meta_path, err, &ok);
	r->skill = tl_rules__meta_string(&doc, "skill", false, meta_path, err, &ok);
	r->validate = tl_rules__meta_string(&doc, "validate", false, meta_path, err, &ok);
	char *sev = tl_rules__meta_string(&doc, "severity", true, meta_path, err, &ok);
	const TlTomlEntry *sev_at = tl_toml_get(&doc, "", "severity");
	const TlTomlEntry *fam_at = tl_toml_get(&doc, "", "family");
	const TlTomlEntry *msg_at = tl_toml_get(&doc, "", "message");
	r->message_line = msg_at ? msg_at->line : 1;
	r->message_column = msg_at ? msg_at->column : 1;
	r->security_severity = tl_rules__meta_string(&doc, "security-severity", false, meta_path, err, &ok);
	if (r->security_severity) {
		char *end;
		double v = strtod(r->security_severity, &end);
		if (*end || end == r->security_severity || v < 0.0 || v > 10.0) {
			fprintf(err, "%s: error: 'security-severity' must be a number from 0.0 to 10.0 in a string\n",
				meta_path);
			ok = false;
		}
	}
	const TlTomlEntry *tags = tl_toml_get(&doc, "", "tags");
	if (tags && tags->kind != TL_TOML_STRING_ARRAY) {
		fprintf(err, "%s:%u:%u: error: 'tags' must be a list of strings\n", meta_path, tags->line,
			tags->column);
		ok = false;
	} else if (tags) {
		for (uint32_t i = 0; i < tags->array.size; i++)
			tl_array_push(&r->tags, tl_strdup(tags->array.items[i]));
	}
	if (ok)
		ok = tl_fix_specs_load(&r->fixes, &doc, meta_path, err);
	const TlTomlEntry *def = tl_toml_get(&doc, "", "default");
	if (!def || def->kind != TL_TOML_BOOL) {
		tl_diagf(err, "%s: error: 'default' must be true or false\n", meta_path);
		ok = false;
	} else {
		r->default_on = def->boolean;
	}
	if (ok && sev) {
		if (strcmp(sev, "error") == 0)
			r->severity = TL_SEV_ERROR;
		else if (strcmp(sev, "warning") == 0)
			r->severity = TL_SEV_WARNING;
		else if (strcmp(sev, "info") == 0)
			r->severity = TL_SEV_INFO;
		else {
			tl_diagf(err, "%s:%u:%u: error: severity must be error, warning or info, not '%s'\n",
				meta_path, sev_at ? sev_at->line : 1, sev_at ? sev_at->column : 1, sev);
			ok = false;
		}
	}
	tl_free(sev);
	if (ok) {
		bool family_ok = false;
		for (size_t i = 0; i < sizeof tl_families / sizeof *tl_families; i++)
			if (strcmp(r->family, tl_families[i].name) == 0)
				family_ok = strncmp(r->code, tl_families[i].prefix, 3) == 0;
		if (!family_ok) {
			tl_diagf(err, "%s:%u:%u: error: family '%s' does not fit code %s\n", meta_path,
				fam_at ? fam_at->line : 1, fam_at ? fam_at->column : 1, r->family, r->code);
			ok = false;
		}
	}
	tl_toml_release(&doc);
	if (ok && query) {
		uint32_t offset = 0;
		TSQueryError qerr = TSQueryErrorNone;
		r->query_source = tl_strndup(query, query_len);
		/* Queries tree-sitter 0.25 mishandles are refused before it sees
		 * them (qexec.h). */
		const char *what = check ? tl_qexec_precheck(tl_python_language(), query,
							     (uint32_t)query_len, &offset) : NULL;
		if (check && !what)
			r->query = ts_query_new(tl_python_language(), query, (uint32_t)query_len, &offset, &qerr);
		if (what) {
			/* refused by the pre-check */
		} else if (check && !r->query) {
			what = (unsigned)qerr < sizeof tl_rules__query_errors / sizeof *tl_rules__query_errors
				       ? tl_rules__query_errors[qerr] : "invalid query";
		} else if (!tl_qtext_scan(query, query_len, &r->text, &offset, &what)) {
			tl_array_init(&r->text);
		}
		if (what) {
			tl_rules__caret(err, query_path, query, query_len, offset, what);
			ok = false;
		} else {
			for (uint32_t p = 0; p < r->text.size && r->finding_capture < 0; p++)
				r->finding_capture = tl_qtext_capture(&r->text.items[p], "finding", 7);
			if (r->finding_capture < 0) {
				tl_rules__caret(err, query_path, query, query_len, 0,
						"the query has no @finding capture");
				ok = false;
			} else {
				ok = tl_rules__compile_preds(r, query, query_len, err);
			}
		}
	}
	if (ok)
		ok = tl_rules__check_placeholders(r, err);
	if (ok)
		ok = tl_fix_specs_check(&r->fixes, tl_rules__has_capture, r, meta_path, err);
	if (!ok) {
		tl_rule_free(r);
		return NULL;
	}
	r->embedded = !check;
	return r;
}

TlRule *tl_rule_compile(const char *meta_path, const char *meta, size_t meta_len,
			const char *query_path, const char *query, size_t query_len,
			FILE *err)
{
	return tl_rules__compile(meta_path, meta, meta_len, query_path, query, query_len, true, err);
}

/* ---- rule sets --------------------------------------------------------------- */

typedef struct TlRuleFile {
	char *path;
	char *data; /* owned copy */
	size_t size;
} TlRuleFile;

typedef TlArray(TlRuleFile) TlRuleFiles;

static int tl_rules__cmp(const void *a, const void *b)
{
	return strcmp((*(TlRule *const *)a)->code, (*(TlRule *const *)b)->code);
}

static const char *tl_rules__basename(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static bool tl_rules__ends(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Pairs rules/STEM.toml with queries/STEM.scm among `files` and adds them. */
static bool tl_rules__add_files(TlRuleSet *set, TlRuleFile *files, uint32_t n, bool check,
				FILE *err)
{
	bool ok = true;
	for (uint32_t i = 0; i < n; i++) {
		if (!tl_rules__ends(files[i].path, ".toml"))
			continue;
		const char *base = tl_rules__basename(files[i].path);
		size_t stem_len = strlen(base) - 5;
		const TlRuleFile *q = NULL;
		for (uint32_t k = 0; k < n; k++) {
			const char *qb = tl_rules__basename(files[k].path);
			if (tl_rules__ends(qb, ".scm") && strlen(qb) == stem_len + 4 &&
			    strncmp(qb, base, stem_len) == 0)
				q = &files[k];
		}
		bool engine_rule = strncmp(base, "TL0", 3) == 0;
		if (!q && !engine_rule) {
			tl_diagf(err, "%s: error: no query %.*s.scm for this rule\n", files[i].path,
				(int)stem_len, base);
			ok = false;
			continue;
		}
		TlRule *r = tl_rules__compile(files[i].path, files[i].data, files[i].size,
					      q ? q->path : NULL, q ? q->data : NULL, q ? q->size : 0,
					      check, err);
		if (!r) {
			ok = false;
			continue;
		}
		/* One stem per pitfall: the file is named CODE-name. */
		size_t cl = strlen(r->code);
		if (stem_len != cl + 1 + strlen(r->name) || strncmp(base, r->code, cl) != 0 ||
		    base[cl] != '-' || strncmp(base + cl + 1, r->name, strlen(r->name)) != 0) {
			tl_diagf(err, "%s: error: file name does not match code '%s' and name '%s'\n",
				files[i].path, r->code, r->name);
			tl_rule_free(r);
			ok = false;
			continue;
		}
		if (tl_rules_find(set, r->code)) {
			tl_diagf(err, "%s: error: rule %s is defined twice\n", files[i].path, r->code);
			tl_rule_free(r);
			ok = false;
			continue;
		}
		tl_array_push(&set->rules, r);
		tl_array_sort(&set->rules, tl_rules__cmp);
	}
	for (uint32_t k = 0; k < n; k++) {
		if (!tl_rules__ends(files[k].path, ".scm"))
			continue;
		const char *qb = tl_rules__basename(files[k].path);
		bool paired = false;
		for (uint32_t i = 0; i < n && !paired; i++) {
			const char *mb = tl_rules__basename(files[i].path);
			paired = tl_rules__ends(mb, ".toml") && strlen(mb) - 5 == strlen(qb) - 4 &&
				 strncmp(mb, qb, strlen(qb) - 4) == 0;
		}
		if (!paired) {
			tl_diagf(err, "%s: error: no rule metadata %.*s.toml for this query\n",
				files[k].path, (int)(strlen(qb) - 4), qb);
			ok = false;
		}
	}
	return ok;
}

static bool tl_rules__read_dir(const char *dir, TlRuleFiles *out, FILE *err)
{
	DIR *d = opendir(dir);
	if (!d) {
		tl_diagf(err, "torchlint: cannot read rules directory '%s': %s\n", dir, strerror(errno));
		return false;
	}
	struct dirent *e;
	bool ok = true;
	while ((e = readdir(d))) {
		if (!tl_rules__ends(e->d_name, ".toml") && !tl_rules__ends(e->d_name, ".scm"))
			continue;
		TlBuf p;
		tl_buf_init(&p);
		tl_buf_addf(&p, "%s/%s", dir, e->d_name);
		TlSource src;
		char why[256];
		if (!tl_source_load(&src, p.data, why, sizeof why)) {
			tl_diagf(err, "torchlint: cannot read '%s': %s\n", p.data, why);
			ok = false;
			tl_buf_release(&p);
			continue;
		}
		TlRuleFile f = { tl_buf_detach(&p), tl_strndup(src.text, src.length), src.length };
		tl_array_push(out, f);
		tl_source_release(&src);
		tl_buf_release(&p);
	}
	closedir(d);
	return ok;
}

void tl_rules_init(TlRuleSet *set)
{
	memset(set, 0, sizeof *set);
	tl_array_init(&set->rules);
}

bool tl_rules_read(TlRuleSet *set, const char *dir, FILE *err)
{
	tl_rules_init(set);
	TlRuleFiles files;
	tl_array_init(&files);
	for (unsigned i = 0; i < tl_embedded_count; i++) {
		const TlEmbeddedFile *e = &tl_embedded_files[i];
		if (strncmp(e->path, "rules/", 6) != 0 && strncmp(e->path, "queries/", 8) != 0)
			continue;
		TlRuleFile f = { tl_strdup(e->path), tl_strndup(e->data, e->size), e->size };
		tl_array_push(&files, f);
	}
	/* The embedded queries are checked by the tests, not at every start. */
	bool ok = tl_rules__add_files(set, files.items, files.size, false, err);
	for (uint32_t i = 0; i < files.size; i++) {
		tl_free(files.items[i].path);
		tl_free(files.items[i].data);
	}
	files.size = 0;
	if (ok && dir) {
		ok = tl_rules__read_dir(dir, &files, err);
		if (ok)
			ok = tl_rules__add_files(set, files.items, files.size, true, err);
		for (uint32_t i = 0; i < files.size; i++) {
			tl_free(files.items[i].path);
			tl_free(files.items[i].data);
		}
	}
	tl_array_release(&files);
	return ok;
}

void tl_rules_clear(TlRuleSet *set)
{
	for (uint32_t i = 0; i < set->rules.size; i++)
		tl_rule_free(set->rules.items[i]);
	tl_array_release(&set->rules);
}

const TlRule *tl_rules_find(const TlRuleSet *set, const char *code)
{
	for (uint32_t i = 0; i < set->rules.size; i++)
		if (strcmp(set->rules.items[i]->code, code) == 0)
			return set->rules.items[i];
	return NULL;
}

/* ---- selection ----------------------------------------------------------------- */

void tl_selection_init(TlSelection *sel)
{
	memset(sel, 0, sizeof *sel);
}

void tl_selection_release(TlSelection *sel)
{
	tl_str_array_release(&sel->select);
	tl_str_array_release(&sel->extend_select);
	tl_str_array_release(&sel->ignore);
}

static bool tl_selection__lists_equal(const TlStrArray *a, const TlStrArray *b)
{
	if (a->size != b->size)
		return false;
	for (uint32_t i = 0; i < a->size; i++)
		if (strcmp(a->items[i], b->items[i]) != 0)
			return false;
	return true;
}

bool tl_selection_equal(const TlSelection *a, const TlSelection *b)
{
	return a->has_select == b->has_select && tl_selection__lists_equal(&a->select, &b->select) &&
	       tl_selection__lists_equal(&a->extend_select, &b->extend_select) &&
	       tl_selection__lists_equal(&a->ignore, &b->ignore);
}

static void tl_selection__copy_list(TlStrArray *to, const TlStrArray *from)
{
	for (uint32_t i = 0; i < from->size; i++)
		tl_array_push(to, tl_strdup(from->items[i]));
}

void tl_selection_copy(TlSelection *to, const TlSelection *from)
{
	tl_selection_init(to);
	to->has_select = from->has_select;
	tl_selection__copy_list(&to->select, &from->select);
	tl_selection__copy_list(&to->extend_select, &from->extend_select);
	tl_selection__copy_list(&to->ignore, &from->ignore);
}

static bool tl_selector_matches(const char *selector, const TlRule *r)
{
	if (strcmp(selector, "ALL") == 0)
		return true;
	if (strcmp(selector, r->family) == 0)
		return true;
	return strncmp(r->code, selector, strlen(selector)) == 0;
}

bool tl_selection_add(const TlRuleSet *set, TlStrArray *into, const char *list,
		      char *bad, size_t bad_size)
{
	const char *p = list;
	while (*p) {
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		const char *start = p;
		while (*p && *p != ',' && !isspace((unsigned char)*p))
			p++;
		if (p == start)
			continue;
		char *sel = tl_strndup(start, (size_t)(p - start));
		for (char *c = sel; *c && strncmp(sel, "TL", 2) != 0 && strcmp(sel, "ALL") != 0; c++)
			; /* codes are case-sensitive, like ruff's */
		bool known = false;
		for (uint32_t i = 0; i < set->rules.size && !known; i++)
			known = tl_selector_matches(sel, set->rules.items[i]);
		if (!known) {
			snprintf(bad, bad_size, "%s", sel);
			tl_free(sel);
			return false;
		}
		tl_array_push(into, sel);
	}
	return true;
}

bool tl_selectors_match(const TlStrArray *list, const TlRule *r)
{
	for (uint32_t i = 0; i < list->size; i++)
		if (tl_selector_matches(list->items[i], r))
			return true;
	return false;
}

bool tl_rule_selected(const TlRule *r, const TlSelection *sel)
{
	bool on;
	if (strcmp(r->code, "TL000") == 0)
		on = true; /* syntax errors are always reported (unless ignored) */
	else if (sel->has_select)
		on = tl_selectors_match(&sel->select, r);
	else
		on = r->default_on;
	if (tl_selectors_match(&sel->extend_select, r))
		on = true;
	if (tl_selectors_match(&sel->ignore, r))
		on = false;
	return on;
}
