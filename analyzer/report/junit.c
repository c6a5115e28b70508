/* JUnit XML, as CI systems read test reports (GitLab's junit artifacts,
 * Jenkins, Azure): one <testsuite> per analysed file, a failing <testcase>
 * per finding, one passing <testcase> for a file without findings (so the
 * report lists what was checked) and an <error> for a file that could not
 * be analysed. tests/fixtures/junit.xsd is the shape, checked by xmllint. */
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/source.h"
#include "report/output.h"

/* Appends `s` as XML 1.0 character data or attribute text: the five
 * markup characters as entities, and what XML 1.0 cannot hold at all (C0
 * controls but tab, LF and CR; U+FFFE, U+FFFF; bytes that are not UTF-8)
 * as U+FFFD. CR and LF in attributes as character references, so that they
 * survive attribute normalisation. */
static void tl_junit__text(TlBuf *b, const char *s, bool attribute)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	while (n) {
		size_t ok = tl_utf8_invalid_offset(p, n);
		if (ok == 0) {
			tl_buf_add(b, "\xEF\xBF\xBD");
			p++;
			n--;
			continue;
		}
		for (size_t i = 0; i < ok; i++) {
			unsigned char c = p[i];
			if (c == '&')
				tl_buf_add(b, "&amp;");
			else if (c == '<')
				tl_buf_add(b, "&lt;");
			else if (c == '>')
				tl_buf_add(b, "&gt;");
			else if (c == '"')
				tl_buf_add(b, "&quot;");
			else if (attribute && c == '\n')
				tl_buf_add(b, "&#10;");
			else if (attribute && c == '\r')
				tl_buf_add(b, "&#13;");
			else if (attribute && c == '\t')
				tl_buf_add(b, "&#9;");
			else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
				tl_buf_add(b, "\xEF\xBF\xBD");
			else if (c == 0xEF && i + 2 < ok && p[i + 1] == 0xBF && (p[i + 2] == 0xBE || p[i + 2] == 0xBF)) {
				tl_buf_add(b, "\xEF\xBF\xBD"); /* U+FFFE, U+FFFF */
				i += 2;
			} else
				tl_buf_addc(b, (char)c);
		}
		p += ok;
		n -= ok;
	}
}

static void tl_junit__attr(TlBuf *b, const char *name, const char *value)
{
	tl_buf_addf(b, " %s=\"", name);
	tl_junit__text(b, value, true);
	tl_buf_addc(b, '"');
}

bool tl_output_junit(FILE *out, const TlReportSet *set)
{
	uint32_t tests = 0, failures = 0, errors = 0;
	for (uint32_t i = 0; i < set->count; i++) {
		const TlFileReport *fr = &set->files[i];
		uint32_t n = fr->findings.size;
		tests += n ? n : 1;
		failures += n;
		errors += fr->error != NULL;
	}
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_add(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	tl_buf_addf(&b, "<testsuites name=\"torchlint\" tests=\"%u\" failures=\"%u\" errors=\"%u\">\n", tests,
		    failures, errors);
	for (uint32_t i = 0; i < set->count; i++) {
		const TlFileReport *fr = &set->files[i];
		uint32_t n = fr->findings.size;
		tl_buf_add(&b, "  <testsuite");
		tl_junit__attr(&b, "name", fr->path);
		tl_buf_addf(&b, " tests=\"%u\" failures=\"%u\" errors=\"%u\">\n", n ? n : 1, n, fr->error ? 1u : 0u);
		if (!n) {
			tl_buf_add(&b, "    <testcase name=\"torchlint\"");
			tl_junit__attr(&b, "classname", fr->path);
			tl_junit__attr(&b, "file", fr->path);
			if (fr->error) {
				tl_buf_add(&b, ">\n      <error");
				tl_junit__attr(&b, "message", fr->error);
				tl_buf_add(&b, "/>\n    </testcase>\n");
			} else
				tl_buf_add(&b, "/>\n");
		}
		for (uint32_t k = 0; k < n; k++) {
			const TlFinding *f = &fr->findings.items[k];
			TlBuf name, where;
			tl_buf_init(&name);
			tl_buf_init(&where);
			if (f->cell)
				tl_buf_addf(&where, "cell %u:%u:%u", f->cell, f->cell_start.line, f->cell_start.column);
			else
				tl_buf_addf(&where, "%u:%u", f->start.line, f->start.column);
			tl_buf_addf(&name, "%s %s at %s", f->rule->code, f->rule->name, where.data);
			tl_buf_add(&b, "    <testcase");
			tl_junit__attr(&b, "name", name.data);
			tl_junit__attr(&b, "classname", fr->path);
			tl_junit__attr(&b, "file", fr->path);
			tl_buf_addf(&b, " line=\"%u\">\n      <failure", f->start.line);
			tl_junit__attr(&b, "type", f->rule->code);
			tl_junit__attr(&b, "message", f->message);
			tl_buf_add(&b, ">");
			tl_junit__text(&b, fr->path, false);
			tl_buf_addf(&b, ":%s: %s [%s]\n", where.data, tl_severity_name(f->rule->severity), f->rule->code);
			tl_junit__text(&b, f->message, false);
			tl_buf_add(&b, "\n");
			tl_junit__text(&b, f->rule->help ? f->rule->help : "", false);
			tl_buf_add(&b, "</failure>\n    </testcase>\n");
			tl_buf_release(&name);
			tl_buf_release(&where);
		}
		tl_buf_add(&b, "  </testsuite>\n");
	}
	tl_buf_add(&b, "</testsuites>\n");
	fwrite(b.data, 1, b.len, out);
	tl_buf_release(&b);
	return true;
}
