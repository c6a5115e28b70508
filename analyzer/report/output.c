#include "report/output.h"

#include <jansson.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/escape.h"
#include "base/paths.h"
#include "engine/explain.h"
#include "engine/skills.h"

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

/* A finding's fix as JSON, shaped like ruff's `fix` object (which name our
 * `fix` field already holds, the rule's hint text): {"applicability",
 * "message", "edits": [{"content", "location", "end_location"}]}, with our
 * {"line", "column"} positions (within the cell for notebooks); null when
 * the finding has no fix. */
static json_t *tl_output__autofix(TlJsonDoc *d, const TlFinding *f)
{
	if (!f->edits.size)
		return json_null();
	json_t *edits = tl_output__ok(d, json_array());
	for (uint32_t i = 0; edits && i < f->edits.size; i++) {
		const TlEdit *e = &f->edits.items[i];
		tl_output__append(d, edits, json_pack("{s:s, s:o, s:o}", "content", tl_output__s(d, e->text),
						      "location", tl_output__position(e->start_pos),
						      "end_location", tl_output__position(e->end_pos)));
	}
	return json_pack("{s:s, s:s?, s:o}", "applicability",
			 f->applicability == TL_FIX_SAFE ? "safe" : "unsafe", "message",
			 tl_output__s(d, f->fix_title), "edits", edits);
}

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
			if (o)
				tl_output__set(&d, o, "autofix", tl_output__autofix(&d, f));
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

/* The artifact location of `path`: symbolic links and ".." resolved, then
 * relative to %SRCROOT% (`srcroot`, the repository's root, which is what
 * code scanning resolves relative URIs against) when it lies below it, else
 * an absolute file URI. Percent-encoding keeps every byte of a name that is
 * not UTF-8: the URI stays exact where the JSON strings get U+FFFD. */
static json_t *tl_output__artifact(const char *path, const char *srcroot)
{
	char *real = tl_path_real(path);
	size_t rl = strlen(srcroot);
	json_t *o;
	if (strncmp(real, srcroot, rl) == 0 && real[rl]) {
		char *u = tl_output__uri_path(real + rl);
		o = json_pack("{s:s, s:s}", "uri", u, "uriBaseId", "%SRCROOT%");
		tl_free(u);
	} else {
		char *u = tl_output__uri_path(real);
		TlBuf f;
		tl_buf_init(&f);
		tl_buf_addf(&f, "file://%s", u);
		o = json_pack("{s:s}", "uri", f.data);
		tl_buf_release(&f);
		tl_free(u);
	}
	tl_free(real);
	return o;
}

char *tl_output_repo_path(const char *path, const char *srcroot)
{
	char *real = tl_path_real(path);
	size_t rl = strlen(srcroot);
	if (strncmp(real, srcroot, rl) == 0 && real[rl]) {
		char *rel = tl_strdup(real + rl);
		tl_free(real);
		return rel;
	}
	return real;
}

void tl_output_help_uri(const TlRule *r, TlBuf *out)
{
	/* A built-in rule has its page, docs/rules/CODE.md (tools/gen_rule_docs.py). */
	if (r->embedded) {
		tl_explain_page_uri(r, out);
		return;
	}
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

/* GitHub code scanning shows at most this many characters of a rule's
 * fullDescription (and of its shortDescription). */
#define TL_SARIF_DESCRIPTION_MAX 1024

/* The end (exclusive) of the sentence of `s` that starts at `from`: after a
 * '.', '!' or '?' followed by a space or the end, outside `code` and
 * brackets; with `colon`, also at a ':' followed by a space. */
static size_t tl_output__sentence_end(const char *s, size_t n, size_t from, bool colon)
{
	bool code = false;
	int depth = 0;
	for (size_t i = from; i < n; i++) {
		char c = s[i];
		if (c == '`')
			code = !code;
		if (code)
			continue;
		if (c == '(' || c == '[')
			depth++;
		else if ((c == ')' || c == ']') && depth > 0)
			depth--;
		bool end = i + 1 == n || s[i + 1] == ' ' || s[i + 1] == '\n';
		if (depth == 0 && end && (c == '.' || c == '!' || c == '?'))
			return i + 1;
		if (depth == 0 && end && colon && c == ':')
			return i + 1;
	}
	return n;
}

/* Appends to `out` the longest run of whole sentences of `s` that fits in
 * `max` bytes; a first sentence longer than that is cut at a space and
 * ends in "...". */
static void tl_output__clip(const char *s, size_t n, size_t max, TlBuf *out)
{
	if (n <= max) {
		tl_buf_addn(out, s, n);
		return;
	}
	size_t keep = 0, at = 0;
	while (at < n) {
		size_t end = tl_output__sentence_end(s, n, at, false);
		if (end > max)
			break;
		keep = end;
		at = end;
		while (at < n && (s[at] == ' ' || s[at] == '\n'))
			at++;
	}
	if (keep) {
		tl_buf_addn(out, s, keep);
		return;
	}
	size_t cut = max - 3;
	while (cut > 0 && s[cut] != ' ')
		cut--;
	/* Never split a UTF-8 sequence. */
	while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
		cut--;
	tl_buf_addn(out, s, cut ? cut : max - 3);
	tl_buf_add(out, "...");
}

static json_t *tl_output__sarif_rule(TlJsonDoc *d, const TlRule *r)
{
	size_t len = 0;
	const char *path = NULL;
	const char *section = tl_skills_section(r->code, &len, &path);
	char *what = section ? tl_skills_subsection_text(section, len, "What it does") : NULL;
	char *why = section ? tl_skills_subsection_text(section, len, "Why is this bad?") : NULL;
	/* shortDescription: one sentence, the first of "What it does", up to
	 * its first colon; fullDescription: "What it does" then "Why is this
	 * bad?", cut at a sentence within GitHub's 1,024 characters. The whole
	 * text stays in help.markdown. */
	TlBuf shortd;
	tl_buf_init(&shortd);
	if (what) {
		size_t n = strlen(what);
		size_t end = tl_output__sentence_end(what, n, 0, true);
		tl_buf_addn(&shortd, what, end);
		while (shortd.len && (shortd.data[shortd.len - 1] == ':' || shortd.data[shortd.len - 1] == ' '))
			shortd.data[--shortd.len] = '\0';
		if (shortd.len && shortd.data[shortd.len - 1] != '.')
			tl_buf_addc(&shortd, '.');
	} else {
		/* No guidance section (engine rules): the message, as a sentence. */
		const char *m = r->message;
		size_t n = strcspn(m, ";{");
		while (n && m[n - 1] == ' ')
			n--;
		tl_buf_addn(&shortd, m, n);
		if (shortd.len && shortd.data[0] >= 'a' && shortd.data[0] <= 'z')
			shortd.data[0] = (char)(shortd.data[0] - 32);
		tl_buf_addc(&shortd, '.');
	}
	TlBuf all;
	tl_buf_init(&all);
	tl_buf_add(&all, what ? what : shortd.data);
	if (why) {
		tl_buf_addc(&all, ' ');
		tl_buf_add(&all, why);
	}
	TlBuf full;
	tl_buf_init(&full);
	tl_output__clip(all.data, all.len, TL_SARIF_DESCRIPTION_MAX, &full);
	tl_buf_release(&all);
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
	/* properties: tags (the family, "pytorch", the rule's own), GitHub's
	 * problem.severity (error, warning or recommendation) and, for
	 * security rules, its security-severity. */
	json_t *tags = json_pack("[s, s]", tl_output__s(d, r->family), "pytorch");
	for (uint32_t i = 0; tags && i < r->tags.size; i++)
		tl_output__append(d, tags, json_string(tl_output__s(d, r->tags.items[i])));
	json_t *props = json_pack("{s:o, s:s, s:s}", "tags", tags, "precision",
				  r->default_on ? "high" : "medium", "problem.severity",
				  r->severity == TL_SEV_ERROR     ? "error"
				  : r->severity == TL_SEV_WARNING ? "warning"
								  : "recommendation");
	if (props && r->security_severity)
		tl_output__set(d, props, "security-severity", json_string(tl_output__s(d, r->security_severity)));
	json_t *o = json_pack(
		"{s:s, s:s, s:{s:s}, s:{s:s}, s:{s:s, s:s}, s:s, s:{s:s}, s:o}",
		"id", tl_output__s(d, r->code), "name", tl_output__s(d, r->name), "shortDescription",
		"text", tl_output__s(d, shortd.data), "fullDescription", "text",
		tl_output__s(d, full.data), "help", "text", md_text, "markdown", md_text,
		"helpUri", tl_output__s(d, uri.data), "defaultConfiguration", "level",
		tl_output__level(r->severity), "properties", props);
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
		for (uint32_t k = 0; k < fr->notices.size; k++) {
			const TlNotice *n = &fr->notices.items[k];
			/* In a notebook the position is within a cell: given in properties,
			 * as results give cellRegion. */
			json_t *where = json_pack("{s:o}", "artifactLocation", tl_output__artifact(fr->path, srcroot));
			if (where && !n->cell)
				tl_output__set(&d, where, "region",
					       json_pack("{s:i, s:i}", "startLine", (json_int_t)n->start.line,
							 "startColumn", (json_int_t)n->start.column));
			json_t *note = json_pack("{s:s, s:{s:s}, s:[{s:o}]}", "level", "warning", "message", "text",
						 tl_output__s(&d, n->message), "locations", "physicalLocation", where);
			if (note && n->cell)
				tl_output__set(&d, note, "properties",
					       json_pack("{s:i, s:i, s:i}", "cell", (json_int_t)n->cell, "cellLine",
							 (json_int_t)n->cell_start.line, "cellColumn",
							 (json_int_t)n->cell_start.column));
			tl_output__append(&d, notes, note);
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
			/* SARIF fixes: replacements in the file (not for notebooks, whose
			 * edits are on cell text, not on the JSON file). */
			if (res && f->edits.size && !f->cell) {
				json_t *reps = tl_output__ok(&d, json_array());
				for (uint32_t e = 0; reps && e < f->edits.size; e++) {
					const TlEdit *x = &f->edits.items[e];
					tl_output__append(&d, reps,
							  json_pack("{s:o, s:{s:s}}", "deletedRegion",
								    tl_output__region(x->start_pos, x->end_pos),
								    "insertedContent", "text", tl_output__s(&d, x->text)));
				}
				tl_output__set(&d, res, "fixes",
					       json_pack("[{s:{s:s}, s:[{s:o, s:o}]}]", "description", "text",
							 tl_output__s(&d, f->fix_title ? f->fix_title : "fix"),
							 "artifactChanges", "artifactLocation",
							 tl_output__artifact(fr->path, srcroot), "replacements", reps));
				tl_output__set(&d, res, "properties",
					       json_pack("{s:s}", "fixApplicability",
							 f->applicability == TL_FIX_SAFE ? "safe" : "unsafe"));
			}
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
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			/* Any other control byte (ESC from a file name would reach
			 * the log raw): percent-encoded, shown as such. */
			tl_buf_addf(&b, "%%%02X", (unsigned)(unsigned char)*s);
		else
			tl_buf_addc(&b, *s);
	}
	return tl_buf_detach(&b);
}

bool tl_output_github(FILE *out, const TlReportSet *set, const char *srcroot)
{
	for (uint32_t i = 0; i < set->count; i++) {
		const TlFileReport *fr = &set->files[i];
		if (!fr->findings.size)
			continue;
		char *rel = tl_output_repo_path(fr->path, srcroot);
		char *file = tl_output_github_escape(rel, true);
		tl_free(rel);
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

/* ---- GitLab Code Quality ---------------------------------------------------------------- */

/* Code Climate's categories, which GitLab shows, by rule family. */
static const char *tl_output__gitlab_category(const char *family)
{
	if (strcmp(family, "memory") == 0 || strcmp(family, "speed") == 0)
		return "Performance";
	if (strcmp(family, "safety") == 0)
		return "Security";
	return "Bug Risk";
}

/* 64-bit FNV-1a over `s` and its terminating NUL, continuing from `h`. */
static uint64_t tl_output__fnv(uint64_t h, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s;; p++) {
		h = (h ^ *p) * 0x100000001b3ULL;
		if (!*p)
			return h;
	}
}

bool tl_output_gitlab(FILE *out, const TlReportSet *set, const char *srcroot)
{
	TlJsonDoc d = { .failed = false };
	tl_array_init(&d.keep);
	json_t *list = tl_output__ok(&d, json_array());
	for (uint32_t i = 0; i < set->count && list; i++) {
		const TlFileReport *fr = &set->files[i];
		if (!fr->findings.size)
			continue;
		char *rel = tl_output_repo_path(fr->path, srcroot);
		for (uint32_t k = 0; k < fr->findings.size; k++) {
			const TlFinding *f = &fr->findings.items[k];
			const TlRule *r = f->rule;
			/* The fingerprint follows the finding, not its line number: the
			 * rule, the file, the line's content hash (SARIF's, numbered
			 * among identical lines) and its rank among the same rule's
			 * findings on that line (adjacent: findings are sorted by line). */
			uint32_t rank = 0;
			for (uint32_t j = k; j-- > 0 && fr->findings.items[j].start.line == f->start.line;)
				rank += fr->findings.items[j].rule == r;
			char rank_s[16];
			snprintf(rank_s, sizeof rank_s, "%u", rank);
			const char *parts[] = { r->code, rel, f->fingerprint ? f->fingerprint : "", rank_s };
			uint64_t h1 = 0xcbf29ce484222325ULL, h2 = 0x84222325cbf29ce4ULL;
			for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
				h1 = tl_output__fnv(h1, parts[p]);
				h2 = tl_output__fnv(h2 ^ h1, parts[p]);
			}
			char fp[33];
			snprintf(fp, sizeof fp, "%016llx%016llx", (unsigned long long)h1, (unsigned long long)h2);
			TlBuf desc;
			tl_buf_init(&desc);
			tl_buf_addf(&desc, "%s %s: %s", r->code, r->name, f->message);
			const char *sev = r->severity == TL_SEV_ERROR ? "critical" : r->severity == TL_SEV_WARNING ? "major" : "info";
			json_t *o = json_pack("{s:s, s:s, s:s, s:[s], s:s, s:s, s:{s:s, s:{s:i, s:i}}}", "type", "issue",
					      "check_name", tl_output__s(&d, r->code), "description",
					      tl_output__s(&d, desc.data), "categories", tl_output__gitlab_category(r->family),
					      "severity", sev, "fingerprint", fp, "location", "path",
					      tl_output__s(&d, rel), "lines", "begin", (json_int_t)f->start.line, "end",
					      (json_int_t)f->end.line);
			tl_buf_release(&desc);
			tl_output__append(&d, list, o);
		}
		tl_free(rel);
	}
	return tl_output__dump(out, &d, list);
}
