#include "report/fixrun.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "engine/notebook.h"
#include "syntax/walk.h"

/* ---- --add-noqa: edits that add `# noqa: CODE` --------------------------------------- */

typedef TlArray(TlEdits) TlEditLists;
typedef TlArray(TlFixChoice) TlFixChoices;

/* True when byte `at` (a line's end) lies inside a node that goes on past
 * it, such as a multi-line string: no comment can go there. */
static bool tl_fixrun__inside_token(TSNode root, uint32_t at)
{
	TSNode n = ts_node_descendant_for_byte_range(root, at, at);
	for (; !ts_node_is_null(n); n = ts_node_parent(n)) {
		const char *t = ts_node_type(n);
		if ((strcmp(t, "string") == 0 || strcmp(t, "concatenated_string") == 0) &&
		    ts_node_start_byte(n) < at && ts_node_end_byte(n) > at)
			return true;
	}
	return false;
}

/* The first line of the statement holding byte `at`. */
static uint32_t tl_fixrun__statement_line(const TlSource *src, TSNode root, uint32_t at)
{
	TSNode n = ts_node_descendant_for_byte_range(root, at, at);
	for (;;) {
		TSNode p = ts_node_parent(n);
		if (ts_node_is_null(p) || strcmp(ts_node_type(p), "block") == 0 || strcmp(ts_node_type(p), "module") == 0)
			break;
		n = p;
	}
	return tl_source_position(src, ts_node_start_byte(n)).line;
}

typedef struct TlNoqaLine {
	uint32_t line;
	TlStrArray codes;
} TlNoqaLine;

/* The end of line `line` without its terminator, as a byte offset. */
static uint32_t tl_fixrun__line_end(const TlSource *src, uint32_t line)
{
	uint32_t len;
	tl_source_line(src, line, &len);
	return src->line_starts.items[line - 1] + len;
}

/* Builds one edit per line that holds findings: a new `  # noqa: CODES`
 * at its end, or the codes added to the noqa comment already there. */
static void tl_fixrun__noqa_edits(TSParser *parser, const TlSource *src, const TlFindings *findings,
				  TlEditLists *out)
{
	TSTree *tree = ts_parser_parse_string(parser, NULL, src->parse_text ? src->parse_text : src->text,
					      src->length);
	TSNode root = ts_tree_root_node(tree);
	TlArray(TlNoqaLine) lines;
	tl_array_init(&lines);
	for (uint32_t i = 0; i < findings->size; i++) {
		const TlFinding *f = &findings->items[i];
		if (strcmp(f->rule->code, "TL000") == 0 || strcmp(f->rule->code, "TL001") == 0)
			continue; /* a syntax error or an unused noqa is not hidden by a noqa */
		uint32_t line = f->start.line;
		if (tl_fixrun__inside_token(root, tl_fixrun__line_end(src, line))) {
			line = tl_fixrun__statement_line(src, root, f->start_byte);
			if (tl_fixrun__inside_token(root, tl_fixrun__line_end(src, line)))
				continue;
		}
		TlNoqaLine *at = NULL;
		for (uint32_t k = 0; k < lines.size && !at; k++)
			if (lines.items[k].line == line)
				at = &lines.items[k];
		if (!at) {
			TlNoqaLine nl = { line, { NULL, 0, 0 } };
			tl_array_push(&lines, nl);
			at = tl_array_last(&lines);
		}
		bool have = false;
		for (uint32_t k = 0; k < at->codes.size; k++)
			have |= strcmp(at->codes.items[k], f->rule->code) == 0;
		if (!have)
			tl_array_push(&at->codes, tl_strdup(f->rule->code));
	}
	for (uint32_t i = 0; i < lines.size; i++) {
		TlNoqaLine *nl = &lines.items[i];
		uint32_t end = tl_fixrun__line_end(src, nl->line);
		uint32_t start = src->line_starts.items[nl->line - 1];
		/* A noqa comment on the line already? */
		const char *line_text = src->text + start;
		uint32_t at = end, list_end = 0;
		bool blanket = false;
		TSNode c = ts_node_descendant_for_byte_range(root, end > start ? end - 1 : end, end > start ? end - 1 : end);
		if (!ts_node_is_null(c) && strcmp(ts_node_type(c), "comment") == 0) {
			uint32_t a = ts_node_start_byte(c), b = ts_node_end_byte(c);
			for (uint32_t k = a; k + 4 <= b; k++) {
				if (strncasecmp(src->text + k, "noqa", 4) != 0)
					continue;
				uint32_t j = k + 4;
				while (j < b && src->text[j] == ' ')
					j++;
				if (j >= b || src->text[j] != ':') {
					blanket = true;
					break;
				}
				j++;
				list_end = j;
				for (;;) {
					while (j < b && (src->text[j] == ' ' || src->text[j] == ','))
						j++;
					uint32_t s0 = j;
					while (j < b && ((src->text[j] >= 'A' && src->text[j] <= 'Z') ||
							 (src->text[j] >= 'a' && src->text[j] <= 'z') ||
							 (src->text[j] >= '0' && src->text[j] <= '9')))
						j++;
					if (j == s0)
						break;
					list_end = j;
				}
				break;
			}
		}
		(void)line_text;
		if (!blanket) {
			TlBuf t;
			tl_buf_init(&t);
			for (uint32_t k = 0; k < nl->codes.size; k++)
				tl_buf_addf(&t, "%s%s", k || list_end ? ", " : "", nl->codes.items[k]);
			TlEdits edits;
			tl_array_init(&edits);
			if (list_end) {
				at = list_end;
				TlEdit e = { .start = at, .end = at, .text = tl_buf_detach(&t) };
				tl_array_push(&edits, e);
			} else {
				while (at > start && (src->text[at - 1] == ' ' || src->text[at - 1] == '\t'))
					at--;
				TlBuf n;
				tl_buf_init(&n);
				tl_buf_addf(&n, "  # noqa: %s", t.data);
				tl_buf_release(&t);
				TlEdit e = { .start = at, .end = end, .text = tl_buf_detach(&n) };
				tl_array_push(&edits, e);
			}
			tl_array_push(out, edits);
		}
		tl_str_array_release(&nl->codes);
	}
	tl_array_release(&lines);
	ts_tree_delete(tree);
}

/* ---- notebooks: a cell's source, decoded and rewritten ------------------------------- */

/* The byte after the JSON string that opens at raw[at]. */
static uint32_t tl_fixrun__json_string_end(const char *raw, uint32_t len, uint32_t at)
{
	uint32_t k = at + 1;
	while (k < len && raw[k] != '"')
		k += raw[k] == '\\' ? 2 : 1;
	return k < len ? k + 1 : len;
}

/* Decodes the JSON string at raw[at] onto `out`. */
static bool tl_fixrun__json_string(const char *raw, uint32_t len, uint32_t at, TlBuf *out)
{
	uint32_t end = tl_fixrun__json_string_end(raw, len, at);
	json_error_t err;
	json_t *s = json_loadb(raw + at, end - at, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
	if (!json_is_string(s)) {
		json_decref(s);
		return false;
	}
	tl_buf_addn(out, json_string_value(s), json_string_length(s));
	json_decref(s);
	return true;
}

/* The bytes of cell `c`'s "source" value in the raw notebook: an array of
 * strings, or one string. */
static bool tl_fixrun__source_range(const TlNotebook *nb, const TlNbCell *c, uint32_t *start,
				    uint32_t *end, bool *array, TlBuf *indent)
{
	if (!c->pieces.size)
		return false;
	const char *raw = nb->raw.text;
	uint32_t len = nb->raw.length;
	uint32_t first = c->pieces.items[0].raw_start;
	uint32_t k = first;
	while (k > 0 && (raw[k - 1] == ' ' || raw[k - 1] == '\t' || raw[k - 1] == '\n' || raw[k - 1] == '\r'))
		k--;
	*array = k > 0 && raw[k - 1] == '[';
	*start = *array ? k - 1 : first;
	uint32_t last_end = tl_fixrun__json_string_end(raw, len, c->pieces.items[c->pieces.size - 1].raw_start);
	k = last_end;
	if (*array) {
		while (k < len && (raw[k] == ' ' || raw[k] == '\t' || raw[k] == '\n' || raw[k] == '\r'))
			k++;
		if (k >= len || raw[k] != ']')
			return false;
		k++;
	}
	*end = k;
	/* The indentation of the first string, when it starts a line. */
	uint32_t ls = first;
	while (ls > 0 && (raw[ls - 1] == ' ' || raw[ls - 1] == '\t'))
		ls--;
	if (ls > 0 && raw[ls - 1] == '\n')
		tl_buf_addn(indent, raw + ls, first - ls);
	return true;
}

/* `text` as a cell's "source": an array of lines, each ending in its
 * newline (Jupyter's own layout), indented like the original. */
static void tl_fixrun__source_json(const char *text, size_t len, bool array, const char *indent,
				   TlBuf *out)
{
	if (!array) {
		json_t *s = json_stringn(text, len);
		char *d = json_dumps(s, JSON_ENCODE_ANY);
		tl_buf_add(out, d);
		free(d); /* jansson's buffer */
		json_decref(s);
		return;
	}
	tl_buf_addc(out, '[');
	size_t at = 0;
	bool first = true;
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) + 1 : len;
		json_t *s = json_stringn(text + at, end - at);
		char *d = json_dumps(s, JSON_ENCODE_ANY);
		if (*indent)
			tl_buf_addf(out, "%s\n%s%s", first ? "" : ",", indent, d);
		else
			tl_buf_addf(out, "%s%s", first ? "" : ", ", d);
		free(d); /* jansson's buffer */
		json_decref(s);
		first = false;
		at = end;
	}
	if (*indent && !first) {
		/* The closing bracket one level out (Jupyter indents by one). */
		size_t n = strlen(indent);
		tl_buf_addf(out, "\n%.*s", (int)(n ? n - 1 : 0), indent);
	}
	tl_buf_addc(out, ']');
}

/* ---- one round ------------------------------------------------------------------------- */

/* The rule of each fix choice, in the same order. */
typedef TlArray(const TlRule *) TlFixRules;

void tl_fix_counts_add(TlFixCounts *counts, const TlRule *rule, uint32_t n)
{
	if (!n)
		return;
	for (uint32_t i = 0; i < counts->size; i++)
		if (counts->items[i].rule == rule) {
			counts->items[i].count += n;
			return;
		}
	TlFixCount c = { rule, n };
	tl_array_push(counts, c);
}

bool tl_fixrun_fixable(const TlFixRun *how, const TlRule *rule)
{
	return !how->fixable || tl_rule_selected(rule, how->fixable);
}

/* The fixes of `findings` as choices (edits borrowed from the findings),
 * and in `rules` the rule of each choice. */
static void tl_fixrun__choices(const TlFindings *findings, const TlFixRun *how, TlFixChoices *out,
				TlFixRules *rules)
{
	for (uint32_t i = 0; i < findings->size; i++) {
		const TlFinding *f = &findings->items[i];
		if (!f->edits.size || !tl_fixrun_fixable(how, f->rule))
			continue;
		TlFixChoice c = { &f->edits, f->applicability };
		tl_array_push(out, c);
		tl_array_push(rules, f->rule);
	}
}

/* One round on a Python file: returns the new text or NULL. */
static char *tl_fixrun__round_py(TlEngine *e, const TlFileOptions *fo, const char *path, const char *text,
				 size_t len, const TlFixRun *how, uint32_t *applied, TlFixCounts *counts,
				 char *why, size_t why_size)
{
	TlSource src;
	if (!tl_source_init_text(&src, path, text, len, why, why_size))
		return NULL;
	TlFindings findings;
	tl_array_init(&findings);
	tl_engine_analyze_with(e, &src, fo, &findings);
	TlFixChoices choices;
	tl_array_init(&choices);
	TlEditLists noqa;
	tl_array_init(&noqa);
	TlFixRules rules;
	tl_array_init(&rules);
	if (how->add_noqa) {
		tl_fixrun__noqa_edits(e->parser, &src, &findings, &noqa);
		for (uint32_t i = 0; i < noqa.size; i++) {
			TlFixChoice c = { &noqa.items[i], TL_FIX_SAFE };
			tl_array_push(&choices, c);
		}
	} else {
		tl_fixrun__choices(&findings, how, &choices, &rules);
	}
	TlBuf out;
	tl_buf_init(&out);
	bool *taken = tl_calloc(choices.size ? choices.size : 1, sizeof *taken);
	uint32_t n = tl_fix_apply(text, len, choices.items, choices.size,
				  how->add_noqa ? TL_FIX_SAFE : how->allowed, &out, taken);
	for (uint32_t i = 0; i < rules.size; i++)
		if (taken[i])
			tl_fix_counts_add(counts, rules.items[i], 1);
	tl_free(taken);
	tl_array_release(&rules);
	*applied += n;
	char *result = n ? tl_buf_detach(&out) : NULL;
	tl_buf_release(&out);
	for (uint32_t i = 0; i < noqa.size; i++)
		tl_edits_release(&noqa.items[i]);
	tl_array_release(&noqa);
	tl_array_release(&choices);
	tl_findings_release(&findings);
	tl_source_release(&src);
	return result;
}

/* One round on a notebook: the fixes of each code cell are applied to that
 * cell's source (not to the program, where IPython syntax is blanked). */
static char *tl_fixrun__round_nb(TlEngine *e, const TlFileOptions *fo, const char *path, const char *text,
				 size_t len, const TlFixRun *how, uint32_t *applied, TlFixCounts *counts,
				 char *why, size_t why_size)
{
	TlNotebook nb;
	if (!tl_notebook_load(&nb, path, text, len, why, why_size)) {
		if (nb.malformed)
			why[0] = '\0'; /* nothing to fix: the analysis reports it (TL000) */
		return NULL;
	}
	TlFindings findings;
	tl_array_init(&findings);
	tl_engine_analyze_notebook(e, &nb, fo, &findings);
	TlEditLists lists;
	tl_array_init(&lists);
	TlFixRules rules; /* the rule of each list (fixes only) */
	tl_array_init(&rules);
	if (how->add_noqa) {
		tl_fixrun__noqa_edits(e->parser, &nb.program, &findings, &lists);
	} else {
		for (uint32_t i = 0; i < findings.size; i++) {
			const TlFinding *f = &findings.items[i];
			if (!f->edits.size || f->applicability > how->allowed || !tl_fixrun_fixable(how, f->rule))
				continue;
			TlEdits copy;
			tl_array_init(&copy);
			for (uint32_t k = 0; k < f->edits.size; k++) {
				TlEdit x = f->edits.items[k];
				x.text = tl_strdup(x.text);
				tl_array_push(&copy, x);
			}
			tl_array_push(&lists, copy);
			tl_array_push(&rules, f->rule);
		}
	}
	/* Raw edits: one per changed cell, its whole "source" value. */
	TlEdits raw;
	tl_array_init(&raw);
	for (uint32_t ci = 0; ci < nb.cells.size; ci++) {
		const TlNbCell *cell = &nb.cells.items[ci];
		TlFixChoices choices;
		tl_array_init(&choices);
		TlEditLists shifted;
		tl_array_init(&shifted);
		TlFixRules shifted_rules;
		tl_array_init(&shifted_rules);
		for (uint32_t i = 0; i < lists.size; i++) {
			const TlEdits *l = &lists.items[i];
			bool inside = l->size > 0;
			for (uint32_t k = 0; k < l->size && inside; k++)
				inside = l->items[k].start >= cell->text_start && l->items[k].end <= cell->text_end;
			if (!inside)
				continue;
			TlEdits s;
			tl_array_init(&s);
			for (uint32_t k = 0; k < l->size; k++) {
				TlEdit x = { .start = l->items[k].start - cell->text_start,
					     .end = l->items[k].end - cell->text_start,
					     .text = tl_strdup(l->items[k].text) };
				tl_array_push(&s, x);
			}
			tl_array_push(&shifted, s);
			tl_array_push(&shifted_rules, i < rules.size ? rules.items[i] : NULL);
		}
		for (uint32_t i = 0; i < shifted.size; i++) {
			TlFixChoice c = { &shifted.items[i], TL_FIX_SAFE };
			tl_array_push(&choices, c);
		}
		TlBuf source, indent;
		tl_buf_init(&source);
		tl_buf_init(&indent);
		bool ok = choices.size > 0;
		for (uint32_t p = 0; ok && p < cell->pieces.size; p++)
			ok = tl_fixrun__json_string(nb.raw.text, nb.raw.length, cell->pieces.items[p].raw_start, &source);
		/* The program holds the cell's text, IPython syntax blanked to the
		 * same length: offsets carry over. */
		ok = ok && source.len == cell->text_end - cell->text_start;
		uint32_t vs, ve;
		bool array;
		ok = ok && tl_fixrun__source_range(&nb, cell, &vs, &ve, &array, &indent);
		if (ok) {
			TlBuf fixed;
			tl_buf_init(&fixed);
			bool *taken = tl_calloc(choices.size ? choices.size : 1, sizeof *taken);
			uint32_t n = tl_fix_apply(source.data, source.len, choices.items, choices.size, TL_FIX_SAFE,
						  &fixed, taken);
			for (uint32_t i = 0; i < shifted_rules.size; i++)
				if (taken[i] && shifted_rules.items[i])
					tl_fix_counts_add(counts, shifted_rules.items[i], 1);
			tl_free(taken);
			if (n) {
				*applied += n;
				TlBuf j;
				tl_buf_init(&j);
				tl_fixrun__source_json(fixed.data, fixed.len, array, indent.data, &j);
				TlEdit r = { .start = vs, .end = ve, .text = tl_buf_detach(&j) };
				tl_array_push(&raw, r);
			}
			tl_buf_release(&fixed);
		}
		tl_buf_release(&source);
		tl_buf_release(&indent);
		for (uint32_t i = 0; i < shifted.size; i++)
			tl_edits_release(&shifted.items[i]);
		tl_array_release(&shifted);
		tl_array_release(&shifted_rules);
		tl_array_release(&choices);
	}
	char *result = NULL;
	if (raw.size) {
		TlFixChoice c = { &raw, TL_FIX_SAFE };
		TlBuf out;
		tl_buf_init(&out);
		tl_fix_apply(nb.raw.text, nb.raw.length, &c, 1, TL_FIX_SAFE, &out, NULL);
		result = tl_buf_detach(&out);
	}
	tl_edits_release(&raw);
	for (uint32_t i = 0; i < lists.size; i++)
		tl_edits_release(&lists.items[i]);
	tl_array_release(&lists);
	tl_array_release(&rules);
	tl_findings_release(&findings);
	tl_notebook_release(&nb);
	return result;
}

/* True when `text` parses without a syntax error (for a notebook: its
 * program). */
static bool tl_fixrun__parses(TlEngine *e, const char *path, const char *text, size_t len)
{
	char why[256];
	bool nb = tl_notebook_path(path);
	TlNotebook book;
	TlSource src;
	if (nb ? !tl_notebook_load(&book, path, text, len, why, sizeof why)
	       : !tl_source_init_text(&src, path, text, len, why, sizeof why))
		return false;
	const TlSource *s = nb ? &book.program : &src;
	TSTree *tree = ts_parser_parse_string(e->parser, NULL, s->parse_text ? s->parse_text : s->text, s->length);
	bool ok = !ts_node_has_error(ts_tree_root_node(tree));
	ts_tree_delete(tree);
	if (nb)
		tl_notebook_release(&book);
	else
		tl_source_release(&src);
	return ok;
}

char *tl_fixrun_text(TlEngine *e, const TlFileOptions *fo, const char *path, const char *text,
		     size_t len, const TlFixRun *how, uint32_t *applied, char *why, size_t why_size)
{
	return tl_fixrun_text_counted(e, fo, path, text, len, how, applied, NULL, why, why_size);
}

char *tl_fixrun_text_counted(TlEngine *e, const TlFileOptions *fo, const char *path, const char *text,
			     size_t len, const TlFixRun *how, uint32_t *applied, TlFixCounts *counts,
			     char *why, size_t why_size)
{
	bool nb = tl_notebook_path(path);
	*applied = 0;
	why[0] = '\0';
	char *cur = NULL;
	int rounds = how->add_noqa ? 1 : TL_FIX_MAX_ROUNDS;
	for (int r = 0; r < rounds; r++) {
		const char *t = cur ? cur : text;
		size_t tl = cur ? strlen(cur) : len;
		uint32_t n = 0;
		TlFixCounts round;
		tl_array_init(&round);
		char *next = nb ? tl_fixrun__round_nb(e, fo, path, t, tl, how, &n, &round, why, why_size)
				: tl_fixrun__round_py(e, fo, path, t, tl, how, &n, &round, why, why_size);
		if (!next) {
			tl_array_release(&round);
			break;
		}
		/* A fix must never break a file that parsed: then nothing of this
		 * round is kept, and the file is reported as it is. */
		if (!tl_fixrun__parses(e, path, next, strlen(next)) && tl_fixrun__parses(e, path, t, tl)) {
			tl_free(next);
			tl_array_release(&round);
			snprintf(why, why_size, "a fix would have made the file invalid Python; that round was not applied");
			break;
		}
		*applied += n;
		for (uint32_t i = 0; counts && i < round.size; i++)
			tl_fix_counts_add(counts, round.items[i].rule, round.items[i].count);
		tl_array_release(&round);
		tl_free(cur);
		cur = next;
	}
	if (why[0] && !cur)
		return NULL;
	return cur; /* the rounds that succeeded (why may say why the next did not) */
}

/* ---- writing a fixed file back --------------------------------------------------------- */

/* A temporary file is ".NAME.torchlint-fix.PID.RANDOM.tmp" in NAME's folder:
 * hidden, never ending in .py or .ipynb (no walk takes it for a source),
 * with the writer's process id so that a later run can tell a leftover of
 * a killed run from a file another run is writing now. */
#define TL_FIXRUN_TMP_MARK ".torchlint-fix."

/* Removes the temporary files for `base` in folder `dir` whose process is
 * gone: regular files (not links) of this user only. */
static void tl_fixrun__clean_leftovers(const char *dir, const char *base)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	size_t blen = strlen(base), mlen = strlen(TL_FIXRUN_TMP_MARK);
	struct dirent *ent;
	while ((ent = readdir(d)) != NULL) {
		const char *n = ent->d_name;
		size_t nlen = strlen(n);
		if (n[0] != '.' || nlen < 1 + blen + mlen + 4 || strncmp(n + 1, base, blen) != 0 ||
		    strncmp(n + 1 + blen, TL_FIXRUN_TMP_MARK, mlen) != 0 || strcmp(n + nlen - 4, ".tmp") != 0)
			continue;
		const char *p = n + 1 + blen + mlen;
		char *end;
		errno = 0;
		long pid = strtol(p, &end, 10);
		if (errno || end == p || *end != '.' || pid <= 0 || pid > INT_MAX || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* that run may still be writing */
		TlBuf full;
		tl_buf_init(&full);
		tl_buf_addf(&full, "%s/%s", dir, n);
		struct stat st;
		if (lstat(full.data, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
			unlink(full.data);
		tl_buf_release(&full);
	}
	closedir(d);
}

/* Creates a new temporary file for `base` in `dir`, exclusively: never
 * opens a file or follows a link that is already there. */
static int tl_fixrun__create_tmp(const char *dir, const char *base, TlBuf *name)
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15u ^ (uint64_t)ts.tv_sec ^
		     (uint64_t)(uintptr_t)name * 0xBF58476D1CE4E5B9u ^ (uint64_t)getpid() << 32;
	for (int attempt = 0; attempt < 100; attempt++) {
		char rnd[9];
		for (int k = 0; k < 8; k++) {
			x ^= x >> 31;
			x *= 0x94D049BB133111EBu;
			x ^= x >> 29;
			rnd[k] = letters[(x >> 7) % (sizeof letters - 1)];
		}
		rnd[8] = '\0';
		tl_buf_clear(name);
		tl_buf_addf(name, "%s/.%s%s%ld.%s.tmp", dir, base, TL_FIXRUN_TMP_MARK, (long)getpid(), rnd);
		int fd = open(name->data, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
		x += (uint64_t)attempt + 1;
	}
	errno = EEXIST;
	return -1;
}

static bool tl_fixrun__write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

bool tl_fixrun_write(const char *path, bool bom, const char *text, size_t len, char *why, size_t why_size)
{
	why[0] = '\0';
	struct stat st;
	if (lstat(path, &st) != 0) {
		snprintf(why, why_size, "cannot read its status: %s", strerror(errno));
		return false;
	}
	/* A symbolic link: the file it names is fixed; the link stays. */
	char *target = NULL;
	if (S_ISLNK(st.st_mode)) {
		target = realpath(path, NULL);
		if (!target || lstat(target, &st) != 0) {
			snprintf(why, why_size, "it is a symbolic link whose target cannot be resolved: %s",
				 strerror(errno));
			free(target); /* realpath's buffer */
			return false;
		}
	}
	const char *real = target ? target : path;
	bool ok = false;
	int fd = -1;
	TlBuf dir, tmp;
	tl_buf_init(&dir);
	tl_buf_init(&tmp);
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, why_size, "it is not a regular file");
		goto out;
	}
	if (st.st_nlink > 1) {
		snprintf(why, why_size,
			 "it has %lu hard links, and replacing it would split them (use --diff and apply the patch)",
			 (unsigned long)st.st_nlink);
		goto out;
	}
	const char *slash = strrchr(real, '/');
	const char *base = slash ? slash + 1 : real;
	if (slash)
		tl_buf_addn(&dir, real, slash == real ? 1 : (size_t)(slash - real));
	else
		tl_buf_add(&dir, ".");
	tl_fixrun__clean_leftovers(dir.data, base);
	fd = tl_fixrun__create_tmp(dir.data, base, &tmp);
	if (fd < 0) {
		snprintf(why, why_size, "cannot create a temporary file in '%s': %s", dir.data, strerror(errno));
		goto out;
	}
	const char *step = "cannot write the temporary file";
	bool done = (!bom || tl_fixrun__write_all(fd, "\xEF\xBB\xBF", 3)) && tl_fixrun__write_all(fd, text, len);
	if (done && (st.st_uid != geteuid() || st.st_gid != getegid())) {
		/* The owner where permitted (root), else at least the group. */
		if (fchown(fd, st.st_uid, st.st_gid) != 0)
			(void)!fchown(fd, (uid_t)-1, st.st_gid);
	}
	if (done && fchmod(fd, st.st_mode & 07777) != 0) {
		step = "cannot set the temporary file's mode";
		done = false;
	}
	if (done && fsync(fd) != 0) {
		step = "cannot flush the temporary file to disk";
		done = false;
	}
	int err = errno;
	if (close(fd) != 0 && done) {
		err = errno;
		step = "cannot write the temporary file";
		done = false;
	}
	fd = -1;
	/* Still the file that was read (not replaced meanwhile)? */
	struct stat now;
	if (done && lstat(real, &now) != 0) {
		err = errno;
		step = "cannot read its status again";
		done = false;
	} else if (done && (now.st_dev != st.st_dev || now.st_ino != st.st_ino)) {
		err = 0;
		step = "the file was replaced while it was being fixed";
		done = false;
	}
	if (done && rename(tmp.data, real) != 0) {
		err = errno;
		step = "cannot rename the temporary file over it";
		done = false;
	}
	if (!done) {
		unlink(tmp.data);
		if (err)
			snprintf(why, why_size, "%s: %s", step, strerror(err));
		else
			snprintf(why, why_size, "%s", step);
		goto out;
	}
	/* The rename itself on disk. */
	int dfd = open(dir.data, O_RDONLY | O_CLOEXEC);
	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	ok = true;
out:
	if (fd >= 0)
		close(fd);
	tl_buf_release(&dir);
	tl_buf_release(&tmp);
	free(target); /* realpath's buffer */
	return ok;
}
