#include "engine/explain.h"

#include <stdbool.h>
#include <string.h>

#include "base/alloc.h"
#include "base/escape.h"
#include "engine/evidence.h"
#include "engine/skills.h"

#ifndef TL_HOMEPAGE
#define TL_HOMEPAGE "https://github.com/torchlint/torchlint"
#endif

static void tl_explain__cost(const TlRule *r, TlBuf *out);
static void tl_explain__repo_links(const char *text, size_t len, TlBuf *out);

void tl_explain_render(const TlRule *r, TlBuf *out)
{
	tl_buf_addf(out, "%s %s (%s, %s, %s%s)\n\n", r->code, r->name, r->family,
		    tl_severity_name(r->severity),
		    r->default_on ? "on by default" : "opt-in: enable with --extend-select ", r->default_on ? "" : r->code);
	size_t len;
	const char *path;
	const char *section = tl_skills_section(r->code, &len, &path);
	if (!section) {
		/* A --rules-dir rule's own text: no escape sequences reach the
		 * terminal (escape.h). */
		const char *text = r->help ? r->help : r->message;
		tl_escape_add(out, text, strlen(text));
		tl_buf_addc(out, '\n');
	} else {
		/* The section without its own "## CODE name" heading line. */
		const char *nl = memchr(section, '\n', len);
		const char *body = nl ? nl + 1 : section + len;
		while (body < section + len && *body == '\n')
			body++;
		while (section + len > body && section[len - 1] == '\n')
			len--;
		tl_explain__repo_links(body, (size_t)(section + len - body), out);
		/* The project's page, not a path that exists only in a checkout. */
		tl_buf_addf(out, "\n\n(from %s/blob/main/%s)\n", TL_HOMEPAGE, path);
	}
	if (strncmp(r->code, "TL0", 3) != 0)
		tl_explain__cost(r, out); /* engine findings have no cost to measure */
	if (r->embedded) {
		tl_buf_add(out, "\nDocumentation: ");
		tl_explain_page_uri(r, out);
		tl_buf_addc(out, '\n');
	}
}

void tl_explain_page_uri(const TlRule *r, TlBuf *out)
{
	tl_buf_addf(out, "%s/blob/main/docs/rules/%s.md", TL_HOMEPAGE, r->code);
}

/* Appends `text`, turning each repository path that starts a word
 * (validate/results/..., validate/cases/..., docs/costs/README.md) into a
 * link to that file on the homepage: a user of the installed binary has no
 * checkout to look in. */
static void tl_explain__repo_links(const char *text, size_t len, TlBuf *out)
{
	static const char *const prefixes[] = { "validate/", "docs/" };
	for (const char *p = text; p < text + len; p++) {
		bool starts_word = p == text || p[-1] == ' ' || p[-1] == '(' || p[-1] == '\n' || p[-1] == '`';
		for (size_t i = 0; starts_word && i < sizeof prefixes / sizeof prefixes[0]; i++) {
			size_t n = strlen(prefixes[i]);
			if ((size_t)(text + len - p) >= n && memcmp(p, prefixes[i], n) == 0) {
				tl_buf_addf(out, "%s/blob/main/", TL_HOMEPAGE);
				break;
			}
		}
		tl_buf_addc(out, *p);
	}
}

static void tl_explain__cost(const TlRule *r, TlBuf *out)
{
	/* The measurement, generated from validate/results/ by validate/report.py;
	 * never a number that no result file holds. */
	tl_buf_add(out, "\n### Measured cost (validate/)\n\n");
	char *evidence = tl_evidence_text(r->code, NULL);
	if (evidence) {
		tl_explain__repo_links(evidence, strlen(evidence), out);
		tl_buf_addc(out, '\n');
	} else
		tl_buf_addf(out, "Not yet measured: validate/results/ holds no result for %s.\n",
			    r->code);
	tl_free(evidence);
}
