#include "engine/noqa.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "syntax/syms.h"

/* One code listed in a directive. */
typedef struct TlNoqaCode {
	char *code;          /* as written, upper-cased */
	const TlRule *rule;  /* ours, or NULL: another tool's code */
	bool used;
} TlNoqaCode;

/* One directive. */
typedef struct TlNoqa {
	TSNode comment;
	uint32_t line;      /* 1-based line of the comment */
	bool file_level;    /* `# torchlint: noqa`, on a line of its own */
	bool all;           /* no code list: a blanket */
	bool used_all;
	TlArray(TlNoqaCode) codes;
} TlNoqa;

typedef TlArray(TlNoqa) TlNoqas;

static void tl_noqa__notice(const TlNoqaContext *ctx, uint32_t byte, char *message)
{
	if (!ctx->notices) {
		tl_free(message);
		return;
	}
	TlNotice n;
	memset(&n, 0, sizeof n);
	n.start_byte = byte;
	n.start = tl_source_position(ctx->src, byte);
	n.cell_start = n.start;
	n.message = message;
	tl_array_push(ctx->notices, n);
}

static bool tl_noqa__word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* True for letters followed by digits (TL101, E501, tl101). */
static bool tl_noqa__code_like(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && isalpha((unsigned char)s[i]))
		i++;
	if (i == 0 || i == n)
		return false;
	while (i < n && isdigit((unsigned char)s[i]))
		i++;
	return i == n;
}

/* Lists the codes of the rules whose code starts with `prefix` or whose
 * family is `family` into `b` ("TL101, TL102, ..."). */
static void tl_noqa__codes_of(const TlRuleSet *rules, const char *prefix, const char *family, TlBuf *b)
{
	uint32_t shown = 0;
	for (uint32_t i = 0; i < rules->rules.size; i++) {
		const TlRule *r = rules->rules.items[i];
		bool match = prefix ? strncasecmp(r->code, prefix, strlen(prefix)) == 0
				    : (strcasecmp(family, "ALL") == 0 || strcasecmp(r->family, family) == 0);
		if (!match)
			continue;
		if (shown == 6) {
			tl_buf_add(b, ", ...");
			break;
		}
		tl_buf_addf(b, "%s%s", shown++ ? ", " : "", r->code);
	}
}

/* Reads the code list that starts at t[k] (after "noqa:"): codes separated
 * by commas or spaces, up to the first word that is not a code (free text).
 * Words that name rules in another way draw a warning and count for nothing. */
static void tl_noqa__codes(const TlNoqaContext *ctx, const char *t, size_t n, size_t k,
			   uint32_t base, TlNoqa *d)
{
	bool any = false;
	for (;;) {
		while (k < n && (t[k] == ' ' || t[k] == '\t' || t[k] == ','))
			k++;
		size_t s0 = k;
		while (k < n && tl_noqa__word_char(t[k]))
			k++;
		if (k == s0)
			break;
		char *word = tl_strndup(t + s0, k - s0);
		for (char *c = word; *c; c++)
			*c = (char)toupper((unsigned char)*c);
		const TlRuleSet *rules = ctx->rules;
		const TlRule *rule = NULL, *named = NULL;
		bool family = strcmp(word, "ALL") == 0;
		for (uint32_t i = 0; i < rules->rules.size; i++) {
			const TlRule *r = rules->rules.items[i];
			if (strcmp(r->code, word) == 0)
				rule = r;
			if (strcasecmp(r->family, word) == 0)
				family = true;
			if (strlen(r->name) == k - s0 && strncasecmp(r->name, t + s0, k - s0) == 0)
				named = r;
		}
		TlBuf m;
		tl_buf_init(&m);
		if (tl_noqa__code_like(word, strlen(word))) {
			any = true;
			if (rule || strncmp(word, "TL", 2) != 0) {
				TlNoqaCode c = { word, rule, false };
				tl_array_push(&d->codes, c);
				tl_buf_release(&m);
				continue;
			}
			TlBuf codes;
			tl_buf_init(&codes);
			tl_noqa__codes_of(rules, word, NULL, &codes);
			if (codes.len)
				tl_buf_addf(&m, "`# noqa: %s` suppresses nothing: a noqa takes exact codes, not prefixes (%s)",
					    word, codes.data);
			else
				tl_buf_addf(&m, "`# noqa: %s` suppresses nothing: no rule has that code (see torchlint --list-rules)",
					    word);
			tl_buf_release(&codes);
		} else if (family) {
			any = true;
			TlBuf codes;
			tl_buf_init(&codes);
			tl_noqa__codes_of(rules, NULL, word, &codes);
			tl_buf_addf(&m, "`# noqa: %.*s` suppresses nothing: a noqa takes exact codes, not families (%s)",
				    (int)(k - s0), t + s0, codes.data);
			tl_buf_release(&codes);
		} else if (named) {
			any = true;
			tl_buf_addf(&m, "`# noqa: %.*s` suppresses nothing: write the rule's code, `# noqa: %s`",
				    (int)(k - s0), t + s0, named->code);
		} else {
			/* Free text after the codes. */
			tl_free(word);
			tl_buf_release(&m);
			break;
		}
		tl_noqa__notice(ctx, base + (uint32_t)s0, tl_buf_detach(&m));
		tl_free(word);
	}
	if (!any)
		tl_noqa__notice(ctx, base,
				tl_strdup("`# noqa:` lists no codes, so it suppresses nothing: list codes "
					  "(`# noqa: TL101`), or drop the colon for a blanket `# noqa`"));
}

/* True when only whitespace precedes byte `at` on its line. */
static bool tl_noqa__own_line(const TlSource *src, uint32_t at)
{
	while (at > 0 && (src->text[at - 1] == ' ' || src->text[at - 1] == '\t' || src->text[at - 1] == '\f'))
		at--;
	return at == 0 || src->text[at - 1] == '\n' || src->text[at - 1] == '\r';
}

/* Reads the directive in comment `c` (`# noqa: TL101`, `# type: ignore  # noqa`,
 * `# torchlint: noqa`), if it holds one. */
static bool tl_noqa__parse(const TlNoqaContext *ctx, TSNode c, TlNoqa *out)
{
	const TlSource *src = ctx->src;
	uint32_t a = ts_node_start_byte(c), b = ts_node_end_byte(c);
	const char *t = src->text + a;
	size_t n = b - a;
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < n; i++) {
		if (t[i] != '#')
			continue;
		size_t k = i + 1;
		while (k < n && t[k] == ' ')
			k++;
		bool file = n - k >= 10 && strncasecmp(t + k, "torchlint:", 10) == 0;
		if (file) {
			k += 10;
			while (k < n && t[k] == ' ')
				k++;
		}
		if (n - k < 4 || strncasecmp(t + k, "noqa", 4) != 0)
			continue;
		k += 4;
		if (k < n && (isalnum((unsigned char)t[k]) || t[k] == '_'))
			continue; /* "noqaxyz" is not a directive */
		out->comment = c;
		out->line = tl_source_position(src, a).line;
		tl_array_init(&out->codes);
		if (file && !tl_noqa__own_line(src, a)) {
			tl_noqa__notice(ctx, a + (uint32_t)i,
					tl_strdup("`# torchlint: noqa` is ignored here: a file-level directive must be "
						  "on a line of its own (use `# noqa` for this line)"));
			return false;
		}
		out->file_level = file;
		size_t after = k;
		while (k < n && t[k] == ' ')
			k++;
		if (k < n && t[k] == ':') {
			tl_noqa__codes(ctx, t, n, k + 1, a, out);
		} else if (k > after && k < n && tl_noqa__word_char(t[k])) {
			/* `# noqa TL101`: codes without the colon. Read as codes (never as a
			 * blanket), with a warning. */
			size_t e = k;
			while (e < n && tl_noqa__word_char(t[e]))
				e++;
			if (tl_noqa__code_like(t + k, e - k)) {
				/* Only a torchlint code draws the warning: `# noqa B950`
				 * belongs to another tool, which reads it its own way. */
				if (strncasecmp(t + k, "TL", 2) == 0)
					tl_noqa__notice(ctx, a + (uint32_t)i,
							tl_strdup("`# noqa` codes need a colon: `# noqa: TL101`"));
				tl_noqa__codes(ctx, t, n, k, a, out);
			} else {
				out->all = true;
			}
		} else {
			out->all = true;
		}
		return true;
	}
	return false;
}

/* The first line of the statement that holds [start, end). */
static uint32_t tl_noqa__statement_line(const TlSource *src, TSNode root, uint32_t start, uint32_t end)
{
	const TlSyms *sy = tl_syms();
	TSNode n = ts_node_descendant_for_byte_range(root, start, end);
	for (;;) {
		TSNode p = ts_node_parent(n);
		if (ts_node_is_null(p) || ts_node_symbol(p) == sy->block || ts_node_symbol(p) == sy->module)
			break;
		n = p;
	}
	return tl_source_position(src, ts_node_start_byte(n)).line;
}

/* True (and marks the directive used) when `d` suppresses `f`. */
static bool tl_noqa__suppresses(TlNoqa *d, const TlFinding *f)
{
	if (d->all) {
		d->used_all = true;
		return true;
	}
	for (uint32_t i = 0; i < d->codes.size; i++)
		if (d->codes.items[i].rule == f->rule) {
			d->codes.items[i].used = true;
			return true;
		}
	return false;
}

static void tl_noqa__report(const TlNoqaContext *ctx, const TlRule *unused, TSNode comment,
			    char *message, TlFindings *out)
{
	TlFinding f;
	memset(&f, 0, sizeof f);
	f.rule = unused;
	f.start_byte = ts_node_start_byte(comment);
	f.end_byte = ts_node_end_byte(comment);
	f.start = tl_source_position(ctx->src, f.start_byte);
	f.end = tl_source_position(ctx->src, f.end_byte);
	f.cell_start = f.start;
	f.cell_end = f.end;
	f.message = message;
	tl_array_push(out, f);
}

void tl_noqa_apply(const TlNoqaContext *ctx, TlFindings *out, uint32_t first)
{
	TlNoqas ds;
	tl_array_init(&ds);
	for (uint32_t i = 0; i < ctx->comment_count; i++) {
		TlNoqa d;
		if (tl_noqa__parse(ctx, ctx->comments[i], &d))
			tl_array_push(&ds, d);
	}
	if (ds.size) {
		uint32_t w = first;
		for (uint32_t i = first; i < out->size; i++) {
			TlFinding *f = &out->items[i];
			uint32_t stmt = tl_noqa__statement_line(ctx->src, ctx->root, f->start_byte, f->end_byte);
			bool hidden = false;
			for (uint32_t k = 0; k < ds.size && !hidden; k++) {
				TlNoqa *d = &ds.items[k];
				if (d->file_level || d->line == f->start.line || d->line == stmt)
					hidden = tl_noqa__suppresses(d, f);
			}
			if (hidden)
				tl_finding_release(f);
			else
				out->items[w++] = *f;
		}
		out->size = w;
	}
	const TlRule *unused = tl_rules_find(ctx->rules, "TL001");
	bool report = unused && tl_rule_selected(unused, ctx->sel);
	const char *where_file = "in this file", *where_line = "on this line";
	for (uint32_t k = 0; k < ds.size; k++) {
		TlNoqa *d = &ds.items[k];
		const char *where = d->file_level ? where_file : where_line;
		/* A blanket `# noqa` on a line is also flake8's, ruff's or
		 * pylint's: another tool may still need it. Only a file-level
		 * `# torchlint: noqa`, which is ours alone, is reported. */
		if (report && d->all && !d->used_all && d->file_level) {
			TlBuf m;
			tl_buf_init(&m);
			tl_buf_addf(&m, "unused blanket `noqa` directive: nothing %s is reported; remove it", where);
			tl_noqa__report(ctx, unused, d->comment, tl_buf_detach(&m), out);
		}
		for (uint32_t i = 0; i < d->codes.size; i++) {
			TlNoqaCode *c = &d->codes.items[i];
			/* Other tools' codes (E501, B950) are theirs to judge. */
			if (report && !c->used && c->rule) {
				TlBuf m;
				tl_buf_init(&m);
				tl_buf_addf(&m, "unused `noqa` directive: no %s finding %s; remove `%s`", c->code,
					    where, c->code);
				tl_noqa__report(ctx, unused, d->comment, tl_buf_detach(&m), out);
			}
			tl_free(c->code);
		}
		tl_array_release(&d->codes);
	}
	tl_array_release(&ds);
}
