/* `torchlint server`: analysis of open documents into diagnostics, and the
 * features that read them: hover (the rule's --explain text) and code
 * actions (`# noqa: CODE`).
 *
 * Rule fixes: a finding's fix (the rule's [[fix]] tables, fix.h) is kept
 * with its diagnostic as byte-range edits of the document, and offered as
 * a quickfix ("Fix TL206: ..."; an unsafe fix says so and is not marked
 * preferred). `source.fixAll.torchlint` applies every safe fix that does
 * not overlap another, in one round, as one edit of the document (the CLI's
 * --fix goes on for up to 10 rounds; a second request here does the next).
 * Python documents only: in a notebook the edits are on its program. */
#include "server/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <tree_sitter/api.h>

#include "base/alloc.h"
#include "base/budget.h"
#include "config/discover.h"
#include "config/settings.h"
#include "engine/explain.h"
#include "engine/notebook.h"
#include "report/output.h"
#include "syntax/walk.h"

/* ---- diagnostics ------------------------------------------------------------------------ */

static int tl_diag__severity(TlSeverity s)
{
	return s == TL_SEV_ERROR ? 1 : s == TL_SEV_WARNING ? 2 : 3;
}

void tl_pub_init(TlPub *p)
{
	tl_array_init(&p->diags);
	p->published = NULL;
	p->gen = 0;
}

void tl_pub_clear(TlPub *p)
{
	for (uint32_t i = 0; i < p->diags.size; i++)
		tl_edits_release(&p->diags.items[i].edits);
	tl_array_clear(&p->diags);
	if (p->published)
		json_decref(p->published);
	p->published = NULL;
}

void tl_pub_move(TlPub *to, TlPub *from)
{
	tl_pub_clear(to);
	tl_array_release(&to->diags);
	*to = *from;
	tl_pub_init(from);
}

/* Records one diagnostic in `p` (to publish, and for hover/code actions). */
static void tl_diag__add(TlPub *p, const TlRule *r, TlLspRange range, const char *message)
{
	TlBuf href;
	tl_buf_init(&href);
	tl_output_help_uri(r, &href);
	json_t *j = json_pack("{s:o, s:i, s:s, s:{s:s}, s:s, s:s}", "range", tl_lsp_range_json(range),
			      "severity", tl_diag__severity(r->severity), "code", r->code,
			      "codeDescription", "href", href.data, "source", "torchlint", "message",
			      message);
	tl_buf_release(&href);
	/* An unused suppression is shown faded, as editors do for dead code. */
	if (strcmp(r->code, "TL001") == 0)
		json_object_set_new(j, "tags", json_pack("[i]", 1));
	if (!p->published)
		p->published = json_array();
	json_array_append_new(p->published, j);
	TlDiag dg = { r, range, { 0 }, TL_FIX_NONE, NULL };
	tl_array_push(&p->diags, dg);
}

/* Moves finding `f`'s fix to the diagnostic just added, its edits shifted
 * by `bom` (the analysed text is the document without its byte-order
 * mark). */
static void tl_diag__take_fix(TlPub *p, TlFinding *f, uint32_t bom)
{
	if (!p->diags.size || !f->edits.size)
		return;
	TlDiag *g = tl_array_last(&p->diags);
	g->edits = f->edits;
	tl_array_init(&f->edits);
	for (uint32_t i = 0; i < g->edits.size; i++) {
		g->edits.items[i].start += bom;
		g->edits.items[i].end += bom;
	}
	g->applicability = f->applicability;
	g->fix_title = f->fix_title;
}

/* A document that cannot be analysed at all (NUL bytes, too large, not a
 * notebook): one TL000 diagnostic at `at` (its start, or where the notebook's
 * JSON breaks) saying why. */
static void tl_diag__unreadable(const TlRuleSet *rules, TlPub *p, const char *why, TlLspRange at)
{
	const TlRule *r = tl_rules_find(rules, "TL000");
	if (!r)
		return;
	TlBuf m;
	tl_buf_init(&m);
	tl_buf_addf(&m, "cannot analyse this document: %s", why);
	tl_diag__add(p, r, at, m.data);
	tl_buf_release(&m);
}

/* The byte offset in `l` of 1-based line `line`, 1-based code-point column
 * `column` (the engine's positions), kept within that line. */
static uint32_t tl_diag__offset(const TlLspLines *l, uint32_t line, uint32_t column)
{
	uint32_t s, e;
	tl_lsp_lines_span(l, line ? line - 1 : 0, &s, &e);
	if (line > l->starts.size)
		return l->len;
	uint32_t i = s;
	for (uint32_t c = 1; c < column && i < e; c++) {
		i++;
		while (i < e && ((unsigned char)l->text[i] & 0xC0) == 0x80)
			i++;
	}
	return i;
}

static uint32_t tl_diag__bom(const TlBuf *t)
{
	return t->len >= 3 && memcmp(t->data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

/* A Python document or an .ipynb opened as JSON text. */
static void tl_diag__run_doc(TlEngine *e, const TlRuleSet *rules, TlJob *job, TlFileOptions *fo)
{
	TlPub *out = &job->outs.items[0].pub;
	TlLspLines lines;
	tl_lsp_lines_init(&lines, job->text.data, (uint32_t)job->text.len);
	job->lines = lines.starts.size;
	uint32_t bom = tl_diag__bom(&job->text);
	TlFindings fs;
	tl_array_init(&fs);
	char why[256];
	TSTree *old = job->tree;
	job->tree = NULL;
	if (job->excluded)
		goto done;
	if (job->kind == TL_DOC_PYTHON) {
		TlSource src;
		if (!tl_source_init_text(&src, job->path, job->text.data, job->text.len, why, sizeof why)) {
			tl_diag__unreadable(rules, out, why, (TlLspRange){ { 0, 0 }, { 0, 0 } });
			goto done;
		}
		int64_t e0 = tl_server_now();
		/* Reparse from the edited tree: only what changed is parsed again. */
		/* Over the memory budget: not parsed (the engine says so). */
		bool huge = tl_engine_tokens(src.parse_text ? src.parse_text : src.text, src.length,
					     TL_ENGINE_MAX_TOKENS) > TL_ENGINE_MAX_TOKENS;
		/* The parse has the engine's CPU bound and its cancel hook (a
		 * newer version stops it); one cut short is left to the engine,
		 * which reports it (TL002). */
		TlBound bound;
		memset(&bound, 0, sizeof bound);
		tl_bound_begin(&bound, tl_budget_seconds_for(src.length), tl_budget_steps_for(src.length));
		bound.cancel = e->qexec.bound.cancel;
		bound.cancel_data = e->qexec.bound.cancel_data;
		TSInput in = tl_walk_input(&src);
		TSParseOptions po = { &bound, tl_walk_parse_progress };
		TSTree *tree = bom || huge ? NULL : ts_parser_parse_with_options(e->parser, old, in, po);
		if (!tree && !bom && !huge)
			ts_parser_reset(e->parser);
		if (bound.hit == TL_BOUND_CANCELLED) {
			/* The old tree goes back to the document, for the next parse. */
			if (tree)
				ts_tree_delete(tree);
			job->tree = old;
			old = NULL;
			job->cancelled = true;
			tl_source_release(&src);
			goto done;
		}
		if (tree)
			tl_engine_analyze_tree(e, &src, tree, fo, &fs);
		else
			tl_engine_analyze_with(e, &src, fo, &fs);
		job->tree = tree;
		job->engine_ns = tl_server_now() - e0;
		if (e->qexec.status & TL_QEXEC_CANCELLED) {
			job->cancelled = true; /* stale: nothing published */
			tl_source_release(&src);
			goto done;
		}
		for (uint32_t i = 0; i < fs.size; i++) {
			TlFinding *f = &fs.items[i];
			TlLspRange r = { tl_lsp_lines_position(&lines, f->start_byte + bom),
					 tl_lsp_lines_position(&lines, f->end_byte + bom) };
			tl_diag__add(out, f->rule, r, f->message);
			tl_diag__take_fix(out, f, bom);
		}
		tl_source_release(&src);
	} else {
		/* An .ipynb as JSON text: positions land inside the cells' strings. */
		TlNotebook nb;
		if (!tl_notebook_load(&nb, job->path, job->text.data, job->text.len, why, sizeof why)) {
			TlLspPos at = tl_lsp_lines_position(&lines, nb.malformed ? nb.error_byte + bom : 0);
			tl_diag__unreadable(rules, out, why, (TlLspRange){ at, at });
			goto done;
		}
		int64_t e0 = tl_server_now();
		tl_engine_analyze_notebook(e, &nb, fo, &fs);
		job->engine_ns = tl_server_now() - e0;
		if (e->qexec.status & TL_QEXEC_CANCELLED)
			job->cancelled = true;
		for (uint32_t i = 0; i < fs.size && !job->cancelled; i++) {
			TlFinding *f = &fs.items[i];
			tl_notebook_map(&nb, f);
			/* start/end are now raw-file positions; the raw text is
			 * the document without its BOM. */
			uint32_t a = tl_diag__offset(&lines, f->start.line, f->start.column + (bom && f->start.line == 1));
			uint32_t b = tl_diag__offset(&lines, f->end.line, f->end.column + (bom && f->end.line == 1));
			TlLspRange r = { tl_lsp_lines_position(&lines, a), tl_lsp_lines_position(&lines, b) };
			tl_diag__add(out, f->rule, r, f->message);
		}
		tl_notebook_release(&nb);
	}
done:
	if (old)
		ts_tree_delete(old);
	tl_findings_release(&fs);
	tl_lsp_lines_release(&lines);
}

/* The cells of a notebook synchronised cell by cell, analysed together;
 * job->text holds them as an .ipynb, so that notebook.c handles IPython
 * syntax and maps positions back to cells exactly as for a file. */
static void tl_diag__run_notebook(TlEngine *e, const TlRuleSet *rules, TlJob *job,
				  TlFileOptions *fo)
{
	uint32_t n = job->outs.size;
	TlLspLines *lines = tl_calloc(n ? n : 1, sizeof *lines);
	for (uint32_t i = 0; i < n; i++)
		tl_lsp_lines_init(&lines[i], job->outs.items[i].text.data,
				  (uint32_t)job->outs.items[i].text.len);
	TlFindings fs;
	tl_array_init(&fs);
	char why[256];
	TlNotebook tnb;
	if (job->excluded)
		goto done;
	if (!tl_notebook_load(&tnb, job->path, job->text.data, job->text.len, why, sizeof why)) {
		for (uint32_t i = 0; i < n; i++)
			if (job->outs.items[i].code && *job->outs.items[i].uri) {
				tl_diag__unreadable(rules, &job->outs.items[i].pub, why,
						    (TlLspRange){ { 0, 0 }, { 0, 0 } });
				break;
			}
		goto done;
	}
	int64_t e0 = tl_server_now();
	tl_engine_analyze_notebook(e, &tnb, fo, &fs);
	job->engine_ns = tl_server_now() - e0;
	if (e->qexec.status & TL_QEXEC_CANCELLED)
		job->cancelled = true; /* stale: nothing published */
	for (uint32_t k = 0; k < fs.size && !job->cancelled; k++) {
		TlFinding *f = &fs.items[k];
		tl_notebook_map(&tnb, f);
		uint32_t c = f->cell ? f->cell - 1 : 0;
		if (c >= n)
			continue;
		uint32_t a = tl_diag__offset(&lines[c], f->cell_start.line, f->cell_start.column);
		uint32_t b = tl_diag__offset(&lines[c], f->cell_end.line, f->cell_end.column);
		TlLspRange r = { tl_lsp_lines_position(&lines[c], a),
				 tl_lsp_lines_position(&lines[c], b < a ? a : b) };
		tl_diag__add(&job->outs.items[c].pub, f->rule, r, f->message);
	}
	tl_notebook_release(&tnb);
done:
	tl_findings_release(&fs);
	for (uint32_t i = 0; i < n; i++)
		tl_lsp_lines_release(&lines[i]);
	tl_free(lines);
}

void tl_diag_run_job(TlEngine *e, const TlRuleSet *rules, TlJob *job)
{
	int64_t c0 = tl_server_cpu();
	TlFileOptions fo = { .selection = &job->sel, .torch_version = job->torch_version,
			     .imports = job->imports };
	if (job->notebook)
		tl_diag__run_notebook(e, rules, job, &fo);
	else
		tl_diag__run_doc(e, rules, job, &fo);
	/* Every document the job covers gets a list, empty or not. */
	for (uint32_t i = 0; i < job->outs.size && !job->cancelled; i++)
		if (!job->outs.items[i].pub.published)
			job->outs.items[i].pub.published = json_array();
	job->cpu_ns = tl_server_cpu() - c0;
	job->done_ns = tl_server_now();
}

/* ---- hover --------------------------------------------------------------------------------- */

static bool tl_diag__contains(TlLspRange r, TlLspPos p)
{
	if (!tl_lsp_pos_le(r.start, p))
		return false;
	bool empty = r.start.line == r.end.line && r.start.character == r.end.character;
	return empty ? p.line == r.start.line && p.character == r.start.character
		     : !tl_lsp_pos_le(r.end, p);
}

json_t *tl_server_hover(TlServer *s, json_t *params, int *code, const char **why)
{
	const char *uri = tl_lsp_string(json_object_get(params, "textDocument"), "uri", NULL);
	TlLspPos pos;
	if (!uri || !tl_lsp_pos_parse(json_object_get(params, "position"), &pos)) {
		*code = TL_LSP_INVALID_PARAMS;
		*why = "hover needs textDocument.uri and position";
		return NULL;
	}
	/* Answered at once from the diagnostics last published, also while
	 * the document is being analysed again (the worker replaces them only
	 * once its analysis is done and still matches the document). */
	TlDoc *d = tl_server_doc(s, uri);
	if (!d)
		return json_null();
	if (s->inflight)
		s->stats.hovers_during_analysis++;
	TlBuf md;
	tl_buf_init(&md);
	const TlDiag *first = NULL;
	for (uint32_t i = 0; i < d->pub.diags.size; i++) {
		const TlDiag *g = &d->pub.diags.items[i];
		if (!tl_diag__contains(g->range, pos))
			continue;
		bool seen = false;
		for (uint32_t k = 0; k < i && !seen; k++)
			seen = d->pub.diags.items[k].rule == g->rule && tl_diag__contains(d->pub.diags.items[k].range, pos);
		if (seen)
			continue;
		if (first)
			tl_buf_add(&md, s->markdown ? "\n\n---\n\n" : "\n\n");
		else
			first = g;
		if (s->markdown)
			tl_buf_add(&md, "## "); /* the title line as a heading above the skill's ### */
		tl_explain_render(g->rule, &md);
	}
	json_t *result = json_null();
	if (first)
		result = json_pack("{s:{s:s, s:s}, s:o}", "contents", "kind",
				   s->markdown ? "markdown" : "plaintext", "value", md.data, "range",
				   tl_lsp_range_json(first->range));
	tl_buf_release(&md);
	return result;
}

/* ---- code actions ------------------------------------------------------------------------------ */

/* A code action's edits are TlEdit (fix.h): bytes [start, end) of the
 * document become `text`; only those three fields are used here. */

/* A quickfix applying `edits` (byte ranges of d's text) to `d`. */
static json_t *tl_diag__edit_action(const TlDoc *d, const TlLspLines *lines, const char *title,
				    json_t *diagnostic, const TlEdit *edits, uint32_t count)
{
	json_t *list = json_array();
	for (uint32_t i = 0; i < count; i++) {
		TlLspRange r = { tl_lsp_lines_position(lines, edits[i].start),
				 tl_lsp_lines_position(lines, edits[i].end) };
		json_array_append_new(list, json_pack("{s:o, s:s}", "range", tl_lsp_range_json(r),
						      "newText", edits[i].text));
	}
	json_t *changes = json_object();
	json_object_set_new(changes, d->uri, list);
	return json_pack("{s:s, s:s, s:[O], s:{s:o}}", "title", title, "kind", "quickfix",
			 "diagnostics", diagnostic, "edit", "changes", changes);
}

/* The quickfix of diagnostic `diag`'s rule fix, if it has one. */
static void tl_diag__fix_actions(const TlDoc *d, const TlLspLines *lines, uint32_t diag,
				 json_t *out)
{
	const TlDiag *g = &d->pub.diags.items[diag];
	if (d->kind != TL_DOC_PYTHON || !g->edits.size)
		return;
	TlBuf title;
	tl_buf_init(&title);
	tl_buf_addf(&title, "Fix %s: %s%s", g->rule->code, g->fix_title ? g->fix_title : "apply the fix",
		    g->applicability == TL_FIX_UNSAFE ? " (unsafe: may change what the code does)" : "");
	json_t *a = tl_diag__edit_action(d, lines, title.data, json_array_get(d->pub.published, diag),
					 g->edits.items, g->edits.size);
	if (g->applicability == TL_FIX_SAFE)
		json_object_set_new(a, "isPreferred", json_true());
	json_array_append_new(out, a);
	tl_buf_release(&title);
}

/* source.fixAll.torchlint: every safe fix of `d` that does not overlap
 * another, as one edit replacing the document; NULL when there is none. */
static json_t *tl_diag__fix_all(const TlDoc *d, const TlLspLines *lines)
{
	if (d->kind != TL_DOC_PYTHON)
		return NULL;
	TlArray(TlFixChoice) choices;
	tl_array_init(&choices);
	for (uint32_t i = 0; i < d->pub.diags.size; i++)
		if (d->pub.diags.items[i].edits.size) {
			TlFixChoice c = { &d->pub.diags.items[i].edits, d->pub.diags.items[i].applicability };
			tl_array_push(&choices, c);
		}
	TlBuf fixed;
	tl_buf_init(&fixed);
	uint32_t n = choices.size ? tl_fix_apply(d->text.data, d->text.len, choices.items, choices.size,
						   TL_FIX_SAFE, &fixed, NULL) : 0;
	json_t *a = NULL;
	if (n) {
		TlEdit all = { 0, (uint32_t)d->text.len, fixed.data ? fixed.data : (char *)"",
			       { 0, 0 }, { 0, 0 } };
		char title[64];
		snprintf(title, sizeof title, "Fix all auto-fixable torchlint findings (%u)", n);
		json_t *none = json_array();
		a = tl_diag__edit_action(d, lines, title, none, &all, 1);
		json_decref(none);
		json_object_set_new(a, "kind", json_string("source.fixAll.torchlint"));
		json_object_del(a, "diagnostics");
	}
	tl_buf_release(&fixed);
	tl_array_release(&choices);
	return a;
}

static bool tl_diag__is_code_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* In comment [a, b) of `t`: the line-level `noqa` directive, as the
 * engine reads it. Returns 0 for none, 1 for a blanket `# noqa` (nothing to
 * add), 2 with *after = where ", CODE" goes (after the last code listed),
 * and sets *listed when `code` is already there. */
static int tl_diag__directive(const char *t, uint32_t a, uint32_t b, const char *code,
			      uint32_t *after, bool *listed)
{
	for (uint32_t i = a; i < b; i++) {
		if (t[i] != '#')
			continue;
		uint32_t k = i + 1;
		while (k < b && t[k] == ' ')
			k++;
		if (b - k >= 10 && strncmp(t + k, "torchlint:", 10) == 0)
			continue; /* a file-level directive: not this line's */
		if (b - k < 4 || strncasecmp(t + k, "noqa", 4) != 0)
			continue;
		k += 4;
		if (k < b && (tl_diag__is_code_char(t[k]) || t[k] == '_'))
			continue;
		if (k >= b || t[k] != ':')
			return 1;
		k++;
		uint32_t last = 0;
		for (;;) {
			while (k < b && (t[k] == ' ' || t[k] == ','))
				k++;
			uint32_t s0 = k;
			while (k < b && tl_diag__is_code_char(t[k]))
				k++;
			if (k == s0)
				break;
			if (k - s0 == strlen(code) && strncasecmp(t + s0, code, k - s0) == 0)
				*listed = true;
			last = k;
		}
		if (!last)
			return 1; /* `# noqa:` with no codes suppresses everything */
		*after = last;
		return 2;
	}
	return 0;
}

/* The first line (0-based) of the statement holding byte `at`. */
static uint32_t tl_diag__statement_line(TSNode root, uint32_t at, const TlLspLines *lines,
					uint32_t bom)
{
	TSNode n = ts_node_descendant_for_byte_range(root, at, at);
	for (;;) {
		TSNode p = ts_node_parent(n);
		if (ts_node_is_null(p) || strcmp(ts_node_type(p), "block") == 0 ||
		    strcmp(ts_node_type(p), "module") == 0)
			break;
		n = p;
	}
	return tl_lsp_lines_position(lines, ts_node_start_byte(n) + bom).line;
}

/* The edit that puts `code` in a `# noqa` on line `line` (0-based); false
 * when that line cannot carry a comment (it ends inside a string or with a
 * backslash continuation) or a blanket noqa is already there. */
static bool tl_diag__noqa_on(const TlDoc *d, const TlLspLines *lines, TSNode root, uint32_t bom,
			     uint32_t line, const char *code, TlEdit *edit)
{
	const char *t = d->text.data;
	uint32_t s, e;
	tl_lsp_lines_span(lines, line, &s, &e);
	while (e > s && (t[e - 1] == ' ' || t[e - 1] == '\t'))
		e--;
	TSNode comment = { { 0 }, NULL, NULL };
	bool have_comment = false;
	if (e > s) {
		/* The tree is of the text without its BOM. */
		uint32_t last = e - 1 - bom;
		for (TSNode n = ts_node_descendant_for_byte_range(root, last, last); !ts_node_is_null(n);
		     n = ts_node_parent(n)) {
			const char *type = ts_node_type(n);
			if (strcmp(type, "comment") == 0) {
				comment = n;
				have_comment = true;
				break;
			}
			if ((strcmp(type, "string") == 0 || strcmp(type, "concatenated_string") == 0) &&
			    ts_node_end_byte(n) + bom > e)
				return false; /* a string that goes on past this line */
		}
		if (!have_comment && t[e - 1] == '\\')
			return false;
	}
	edit->start = edit->end = e;
	TlBuf b;
	tl_buf_init(&b);
	if (have_comment) {
		uint32_t after = 0;
		bool listed = false;
		int kind = tl_diag__directive(t, ts_node_start_byte(comment) + bom,
					      ts_node_end_byte(comment) + bom, code, &after, &listed);
		if (kind == 1 || (kind == 2 && listed)) {
			tl_buf_release(&b);
			return false;
		}
		if (kind == 2) {
			edit->start = edit->end = after;
			tl_buf_addf(&b, ", %s", code);
		}
	}
	if (!b.len)
		tl_buf_addf(&b, "%s# noqa: %s", e > s ? "  " : "", code);
	edit->text = tl_buf_detach(&b);
	return true;
}

void tl_server_action_kinds(json_t *params, bool *quick, bool *fix_all)
{
	/* `only` names kinds; a kind asks for itself and the kinds below it
	 * ("source" asks for "source.fixAll.torchlint"). */
	json_t *only = json_object_get(json_object_get(params, "context"), "only");
	*quick = *fix_all = true;
	if (!json_is_array(only))
		return;
	*quick = *fix_all = false;
	size_t i;
	json_t *k;
	json_array_foreach(only, i, k)
	{
		const char *kind = json_string_value(k);
		if (!kind)
			continue;
		*quick |= !*kind || strcmp(kind, "quickfix") == 0;
		*fix_all |= !*kind || strcmp(kind, "source") == 0 || strcmp(kind, "source.fixAll") == 0 ||
			    strcmp(kind, "source.fixAll.torchlint") == 0;
	}
}

json_t *tl_server_code_action(TlServer *s, json_t *params, int *code, const char **why)
{
	const char *uri = tl_lsp_string(json_object_get(params, "textDocument"), "uri", NULL);
	TlLspRange range;
	if (!uri || !tl_lsp_range_parse(json_object_get(params, "range"), &range)) {
		*code = TL_LSP_INVALID_PARAMS;
		*why = "codeAction needs textDocument.uri and range";
		return NULL;
	}
	bool quick, fix_all;
	tl_server_action_kinds(params, &quick, &fix_all);
	if (!quick && !fix_all)
		return json_array();
	TlDoc *d = tl_server_doc(s, uri);
	json_t *out = json_array();
	/* In an .ipynb opened as JSON the source is inside JSON strings: a
	 * comment typed there would be JSON, not Python. */
	if (!d || d->kind == TL_DOC_IPYNB)
		return out;
	/* Answered at once from the diagnostics last published. Their edits
	 * are byte ranges of the text they were computed on: once the text
	 * has changed (an analysis of the new text is due or under way) they
	 * could land on the wrong bytes, so there is nothing to offer until
	 * the new diagnostics are published (clients ask again then). */
	if (d->pub.gen != d->gen)
		return out;
	TlLspLines lines;
	tl_lsp_lines_init(&lines, d->text.data, (uint32_t)d->text.len);
	if (fix_all) {
		json_t *a = tl_diag__fix_all(d, &lines);
		if (a)
			json_array_append_new(out, a);
	}
	if (!quick) {
		tl_lsp_lines_release(&lines);
		return out;
	}
	uint32_t bom = tl_diag__bom(&d->text);
	TSTree *tree = NULL;
	for (uint32_t i = 0; i < d->pub.diags.size; i++) {
		const TlDiag *g = &d->pub.diags.items[i];
		if (!tl_lsp_pos_le(g->range.start, range.end) || !tl_lsp_pos_le(range.start, g->range.end))
			continue;
		tl_diag__fix_actions(d, &lines, i, out);
		if (strcmp(g->rule->code, "TL001") == 0)
			continue; /* an unused suppression is removed, not suppressed */
		bool dup = false;
		for (uint32_t k = 0; k < i && !dup; k++)
			dup = d->pub.diags.items[k].rule == g->rule &&
			      d->pub.diags.items[k].range.start.line == g->range.start.line;
		if (dup)
			continue;
		if (!tree)
			tree = ts_parser_parse_string(s->parser, NULL, d->text.data + bom,
						      (uint32_t)d->text.len - bom);
		TSNode root = ts_tree_root_node(tree);
		TlEdit edit;
		uint32_t at = tl_lsp_lines_offset(&lines, g->range.start);
		uint32_t stmt = tl_diag__statement_line(root, at > bom ? at - bom : 0, &lines, bom);
		if (!tl_diag__noqa_on(d, &lines, root, bom, g->range.start.line, g->rule->code, &edit) &&
		    (stmt == g->range.start.line ||
		     !tl_diag__noqa_on(d, &lines, root, bom, stmt, g->rule->code, &edit)))
			continue;
		char title[96];
		snprintf(title, sizeof title, "Suppress %s with `# noqa: %s`", g->rule->code, g->rule->code);
		json_array_append_new(out, tl_diag__edit_action(d, &lines, title,
								json_array_get(d->pub.published, i), &edit, 1));
		tl_free(edit.text);
	}
	if (tree)
		ts_tree_delete(tree);
	tl_lsp_lines_release(&lines);
	return out;
}
