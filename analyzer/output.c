#include "output.h"

#include <jansson.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "escape.h"
#include "skills.h"

#ifndef TL_VERSION
#define TL_VERSION "0.0.0-dev"
#endif

/* Everything a document needs while it is built: jansson refuses a string
 * that is not valid UTF-8 (json_pack returns NULL, an append of NULL fails),
 * which would drop a finding while the summary still counts it. So every
 * string from outside goes through tl_output__s, and every jansson result
 * through tl_output__ok: a failure marks the document, which is then not
 * written at all (the caller reports it, exit 2). */
typedef struct TlJsonDoc {
	TlStrArray keep; /* valid-UTF-8 copies handed to jansson; freed at the end */
	bool failed;
} TlJsonDoc;

/* `s` itself when valid UTF-8 (or NULL), else a copy with each bad byte
 * replaced by U+FFFD that lives until tl_output__dump. */
static const char *tl_output__s(TlJsonDoc *d, const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s);
	if (tl_utf8_invalid_offset((const unsigned char *)s, n) == n)
		return s;
	TlBuf b;
	tl_buf_init(&b);
	tl_escape_add_json(&b, s);
	char *copy = tl_buf_detach(&b);
	tl_array_push(&d->keep, copy);
	return copy;
}

static json_t *tl_output__ok(TlJsonDoc *d, json_t *v)
{
	if (!v)
		d->failed = true;
	return v;
}

/* Appends `v` (stolen) to `list`; a NULL or failed append marks `d`. */
static void tl_output__append(TlJsonDoc *d, json_t *list, json_t *v)
{
	if (!v || json_array_append_new(list, v) != 0)
		d->failed = true;
}

static void tl_output__set(TlJsonDoc *d, json_t *obj, const char *key, json_t *v)
{
	if (!v || json_object_set_new(obj, key, v) != 0)
		d->failed = true;
}

/* Writes `doc` (stolen) unless building it failed. Write errors are left
 * on the stream for the caller's ferror/fclose check. */
static bool tl_output__dump(FILE *out, TlJsonDoc *d, json_t *doc)
{
	bool ok = doc && !d->failed;
	if (ok) {
		json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
		fputc('\n', out);
	}
	json_decref(doc);
	tl_str_array_release(&d->keep);
	return ok;
}

static json_t *tl_output__position(TlPosition p)
{
	return json_pack("{s:i, s:i}", "line", (json_int_t)p.line, "column", (json_int_t)p.column);
}

/* ---- JSON ------------------------------------------------------------------ */

bool tl_output_json(FILE *out, const TlReportSet *set)
{
	TlJsonDoc d = { .failed = false };
	tl_array_init(&d.keep);
	json_t *list = tl_output__ok(&d, json_array());
	for (uint32_t i = 0; i < set->count && list; i++) {
		const TlFileReport *fr = &set->files[i];
		for (uint32_t k = 0; k < fr->findings.size; k++) {
			const TlFinding *f = &fr->findings.items[k];
			const TlRule *r = f->rule;
			json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s?, s:s, s:o, s:o, s:o}",
					      "code", tl_output__s(&d, r->code), "name", tl_output__s(&d, r->name),
					      "family", tl_output__s(&d, r->family),
					      "severity", tl_severity_name(r->severity),
					      "message", tl_output__s(&d, f->message), "fix", tl_output__s(&d, r->help),
					      "path", tl_output__s(&d, fr->path),
					      "start", tl_output__position(f->cell ? f->cell_start : f->start),
					      "end", tl_output__position(f->cell ? f->cell_end : f->end),
					      "cell", f->cell ? json_integer(f->cell) : json_null());
			tl_output__append(&d, list, o);
		}
	}
	return tl_output__dump(out, &d, list);
}

/* ---- rule catalog ---------------------------------------------------------------- */

static json_t *tl_output__rule(TlJsonDoc *d, const TlRule *r)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:b, s:s, s:s?, s:s?, s:s?}",
			      "code", tl_output__s(d, r->code), "name", tl_output__s(d, r->name),
			      "family", tl_output__s(d, r->family),
			      "severity", tl_severity_name(r->severity), "default", r->default_on,
			      "message", tl_output__s(d, r->message), "fix", tl_output__s(d, r->help),
			      "skill", tl_output__s(d, r->skill), "validate", tl_output__s(d, r->validate));
	return o;
}

bool tl_output_rules_json(FILE *out, const TlRuleSet *rules)
{
	TlJsonDoc d = { .failed = false };
	tl_array_init(&d.keep);
	json_t *list = tl_output__ok(&d, json_array());
	for (uint32_t i = 0; i < rules->rules.size && list; i++)
		tl_output__append(&d, list, tl_output__rule(&d, rules->rules.items[i]));
	return tl_output__dump(out, &d, list);
}

/* ---- SARIF -------------------------------------------------------------------------- */

static const char *tl_output__level(TlSeverity s)
{
	return s == TL_SEV_ERROR ? "error" : s == TL_SEV_WARNING ? "warning" : "note";
}

/* Percent-encodes a path for a URI (RFC 3986: unreserved characters and
 * '/' stay). Caller frees. */
static char *tl_output__uri_path(const char *path)
{
	TlBuf b;
	tl_buf_init(&b);
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			tl_buf_addc(&b, (char)*p);
		else
			tl_buf_addf(&b, "%%%02X", *p);
	}
	return tl_buf_detach(&b);
}

/* The artifact location of `path`: relative to %SRCROOT% when it lies
 * below `srcroot`, else an absolute file URI. Percent-encoding keeps every
 * byte of a name that is not UTF-8: the URI stays exact where the JSON
 * strings get U+FFFD. */
static json_t *tl_output__artifact(const char *path, const char *srcroot)
{
	const char *rel = NULL;
	size_t rl = strlen(srcroot);
	if (path[0] != '/') {
		rel = path;
		while (strncmp(rel, "./", 2) == 0)
			rel += 2;
		if (strncmp(rel, "../", 3) == 0)
			rel = NULL;
	} else if (strncmp(path, srcroot, rl) == 0) {
		rel = path + rl;
	}
	json_t *o;
	if (rel) {
		char *u = tl_output__uri_path(rel);
		o = json_pack("{s:s, s:s}", "uri", u, "uriBaseId", "%SRCROOT%");
		tl_free(u);
	} else {
		TlBuf b;
		tl_buf_init(&b);
		if (path[0] != '/')
			tl_buf_add(&b, srcroot);
		tl_buf_add(&b, path);
		char *u = tl_output__uri_path(b.data);
		tl_buf_release(&b);
		TlBuf f;
		tl_buf_init(&f);
		tl_buf_addf(&f, "file://%s", u);
		o = json_pack("{s:s}", "uri", f.data);
		tl_buf_release(&f);
		tl_free(u);
	}
	return o;
}

void tl_output_help_uri(const TlRule *r, TlBuf *out)
{
	size_t len = 0;
	const char *path = NULL;
	tl_skills_section(r->code, &len, &path);
	tl_buf_addf(out, "%s/blob/main/%s", TL_HOMEPAGE, path ? path : "README.md");
	if (path) {
		/* GitHub's anchor for "## TL101 loss-...": lowercased, spaces to '-'. */
		tl_buf_addc(out, '#');
		for (const char *c = r->code; *c; c++)
			tl_buf_addc(out, (char)((*c >= 'A' && *c <= 'Z') ? *c + 32 : *c));
		tl_buf_addf(out, "-%s", r->name);
	}
}

static json_t *tl_output__sarif_rule(TlJsonDoc *d, const TlRule *r)
{
	size_t len = 0;
	const char *path = NULL;
	const char *section = tl_skills_section(r->code, &len, &path);
	char *what = section ? tl_skills_subsection_text(section, len, "What it does") : NULL;
	char *why = section ? tl_skills_subsection_text(section, len, "Why is this bad?") : NULL;
	/* shortDescription: the first sentence of "What it does". */
	TlBuf shortd;
	tl_buf_init(&shortd);
	if (what) {
		const char *stop = strstr(what, ". ");
		tl_buf_addn(&shortd, what, stop ? (size_t)(stop - what + 1) : strlen(what));
	} else {
		tl_buf_add(&shortd, r->name);
	}
	TlBuf full;
	tl_buf_init(&full);
	tl_buf_add(&full, what ? what : shortd.data);
	if (why) {
		tl_buf_addc(&full, ' ');
		tl_buf_add(&full, why);
	}
	TlBuf md;
	tl_buf_init(&md);
	if (section)
		tl_buf_addn(&md, section, len);
	else
		tl_buf_addf(&md, "%s %s: %s", r->code, r->name, r->help ? r->help : r->name);
	TlBuf uri;
	tl_buf_init(&uri);
	tl_output_help_uri(r, &uri);
	const char *md_text = tl_output__s(d, md.data);
	json_t *o = json_pack(
		"{s:s, s:s, s:{s:s}, s:{s:s}, s:{s:s, s:s}, s:s, s:{s:s}, s:{s:[s, s], s:s}}",
		"id", tl_output__s(d, r->code), "name", tl_output__s(d, r->name), "shortDescription",
		"text", tl_output__s(d, shortd.data), "fullDescription", "text",
		tl_output__s(d, full.data), "help", "text", md_text, "markdown", md_text,
		"helpUri", tl_output__s(d, uri.data), "defaultConfiguration", "level",
		tl_output__level(r->severity), "properties", "tags", tl_output__s(d, r->family),
		"pytorch", "precision", r->default_on ? "high" : "medium");
	if (!o) /* keep the rule's place: ruleIndex counts positions in this list */
		o = tl_output__ok(d, json_pack("{s:s}", "id", tl_output__s(d, r->code)));
	tl_free(what);
	tl_free(why);
	tl_buf_release(&shortd);
	tl_buf_release(&full);
	tl_buf_release(&md);
	tl_buf_release(&uri);
	return o;
}

static json_t *tl_output__region(TlPosition s, TlPosition e)
{
	return json_pack("{s:i, s:i, s:i, s:i}", "startLine", (json_int_t)s.line, "startColumn",
			 (json_int_t)s.column, "endLine", (json_int_t)e.line, "endColumn",
			 (json_int_t)e.column);
}

bool tl_output_sarif(FILE *out, const TlReportSet *set, const char *srcroot, bool success)
{
	TlJsonDoc d = { .failed = false };
	tl_array_init(&d.keep);
	json_t *rules = tl_output__ok(&d, json_array());
	for (uint32_t i = 0; i < set->rules->rules.size && rules; i++)
		tl_output__append(&d, rules, tl_output__sarif_rule(&d, set->rules->rules.items[i]));
	json_t *results = tl_output__ok(&d, json_array());
	json_t *notes = tl_output__ok(&d, json_array());
	for (uint32_t i = 0; i < set->count && results && notes; i++) {
		const TlFileReport *fr = &set->files[i];
		if (fr->error) {
			tl_output__append(
				&d, notes,
				json_pack("{s:s, s:{s:s}, s:[{s:{s:o}}]}", "level", "error", "message", "text",
					  tl_output__s(&d, fr->error), "locations", "physicalLocation",
					  "artifactLocation", tl_output__artifact(fr->path, srcroot)));
		}
		for (uint32_t k = 0; k < fr->findings.size; k++) {
			const TlFinding *f = &fr->findings.items[k];
			uint32_t index = 0;
			while (index < set->rules->rules.size && set->rules->rules.items[index] != f->rule)
				index++;
			json_t *loc = json_pack("{s:{s:o, s:o}}", "physicalLocation", "artifactLocation",
						tl_output__artifact(fr->path, srcroot), "region",
						tl_output__region(f->start, f->end));
			json_t *res = json_pack("{s:s, s:i, s:s, s:{s:s}, s:[o]}", "ruleId",
						tl_output__s(&d, f->rule->code), "ruleIndex", (json_int_t)index,
						"level", tl_output__level(f->rule->severity), "message", "text",
						tl_output__s(&d, f->message), "locations", loc);
			if (res && f->fingerprint)
				tl_output__set(&d, res, "partialFingerprints",
					       json_pack("{s:s}", "primaryLocationLineHash",
							 tl_output__s(&d, f->fingerprint)));
			if (res && f->cell)
				tl_output__set(&d, res, "properties",
					       json_pack("{s:i, s:o}", "cell", (json_int_t)f->cell,
							 "cellRegion", tl_output__region(f->cell_start, f->cell_end)));
			tl_output__append(&d, results, res);
			/* A parse error or a per-file limit: also a notification. */
			bool limit = strcmp(f->rule->code, "TL002") == 0;
			if (limit || strcmp(f->rule->code, "TL000") == 0)
				tl_output__append(
					&d, notes,
					json_pack("{s:s, s:{s:s}, s:[{s:{s:o, s:o}}]}", "level", limit ? "error" : "warning",
						  "message", "text", tl_output__s(&d, f->message), "locations",
						  "physicalLocation", "artifactLocation",
						  tl_output__artifact(fr->path, srcroot), "region",
						  tl_output__region(f->start, f->end)));
		}
	}
	TlBuf root;
	tl_buf_init(&root);
	char *root_uri = tl_output__uri_path(srcroot);
	tl_buf_addf(&root, "file://%s", root_uri);
	if (root.len && root.data[root.len - 1] != '/')
		tl_buf_addc(&root, '/');
	tl_free(root_uri);
	json_t *run = json_pack(
		"{s:{s:{s:s, s:s, s:s, s:s, s:o}}, s:{s:{s:s}}, s:s, s:o, s:[{s:b, s:o}]}",
		"tool", "driver", "name", "torchlint", "version", TL_VERSION, "semanticVersion",
		TL_VERSION, "informationUri", TL_HOMEPAGE, "rules", rules, "originalUriBaseIds",
		"%SRCROOT%", "uri", root.data, "columnKind", "unicodeCodePoints", "results", results,
		"invocations", "executionSuccessful", success, "toolExecutionNotifications", notes);
	tl_buf_release(&root);
	json_t *doc = tl_output__ok(&d, json_pack("{s:s, s:s, s:[o]}", "$schema",
						  "https://json.schemastore.org/sarif-2.1.0.json",
						  "version", "2.1.0", "runs", run));
	return tl_output__dump(out, &d, doc);
}

/* ---- GitHub workflow commands ------------------------------------------------------------ */

char *tl_output_github_escape(const char *s, bool property)
{
	TlBuf b;
	tl_buf_init(&b);
	for (; *s; s++) {
		if (*s == '%')
			tl_buf_add(&b, "%25");
		else if (*s == '\r')
			tl_buf_add(&b, "%0D");
		else if (*s == '\n')
			tl_buf_add(&b, "%0A");
		else if (property && *s == ':')
			tl_buf_add(&b, "%3A");
		else if (property && *s == ',')
			tl_buf_add(&b, "%2C");
		else
			tl_buf_addc(&b, *s);
	}
	return tl_buf_detach(&b);
}

bool tl_output_github(FILE *out, const TlReportSet *set)
{
	for (uint32_t i = 0; i < set->count; i++) {
		const TlFileReport *fr = &set->files[i];
		char *file = tl_output_github_escape(fr->path, true);
		for (uint32_t k = 0; k < fr->findings.size; k++) {
			const TlFinding *f = &fr->findings.items[k];
			const TlRule *r = f->rule;
			TlBuf title;
			tl_buf_init(&title);
			tl_buf_addf(&title, "%s %s", r->code, r->name);
			char *t = tl_output_github_escape(title.data, true);
			char *m = tl_output_github_escape(f->message, false);
			const char *cmd = r->severity == TL_SEV_ERROR ? "error"
					  : r->severity == TL_SEV_WARNING ? "warning" : "notice";
			fprintf(out, "::%s file=%s,line=%u,col=%u,endLine=%u,endColumn=%u,title=%s::%s\n",
				cmd, file, f->start.line, f->start.column, f->end.line, f->end.column, t, m);
			tl_free(t);
			tl_free(m);
			tl_buf_release(&title);
		}
		tl_free(file);
	}
	return true;
}
