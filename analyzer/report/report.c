#include "report/report.h"

#include <string.h>

#include "base/alloc.h"
#include "base/escape.h"

#define TL_BOLD "\033[1m"
#define TL_RED "\033[1;31m"
#define TL_YELLOW "\033[1;33m"
#define TL_CYAN "\033[1;36m"
#define TL_BLUE "\033[1;34m"
#define TL_RESET "\033[0m"

/* Lines of a multi-line span shown in the full format before eliding. */
#define TL_REPORT_MAX_SPAN_LINES 3

static const char *tl_report__color(const TlReportOptions *opt, TlSeverity s)
{
	if (!opt->color)
		return "";
	return s == TL_SEV_ERROR ? TL_RED : s == TL_SEV_WARNING ? TL_YELLOW : TL_CYAN;
}

/* The line number shown for program line `line`: the line within its cell
 * for notebooks. */
static uint32_t tl_report__shown_line(const TlNotebook *nb, uint32_t line)
{
	const TlNbCell *cell = nb ? tl_notebook_cell_of_line(nb, line) : NULL;
	return cell ? line - cell->first_line + 1 : line;
}

static void tl_report__header(const TlReportOptions *opt, const TlSource *src,
			      const TlNotebook *nb, const TlFinding *f, TlBuf *out)
{
	const char *bold = opt->color ? TL_BOLD : "", *reset = opt->color ? TL_RESET : "";
	/* The name and the message may hold anything a file name or quoted
	 * source can (escape.h); the line starts with the name. */
	char *path = tl_escape(src->path);
	tl_buf_add(out, bold);
	tl_escape_add_line_start(out, path);
	tl_buf_addf(out, "%s:", reset);
	tl_free(path);
	const TlNbCell *cell = nb ? tl_notebook_cell_of_line(nb, f->start.line) : NULL;
	if (cell)
		tl_buf_addf(out, "cell %u:", cell->number);
	tl_buf_addf(out, "%u:%u: %s%s%s ", tl_report__shown_line(nb, f->start.line),
		    f->start.column, tl_report__color(opt, f->rule->severity), f->rule->code,
		    reset);
	/* [*]: --fix (with --unsafe-fixes for an unsafe fix) would fix it, as ruff marks it. */
	if ((f->applicability == TL_FIX_SAFE || (f->applicability == TL_FIX_UNSAFE && opt->unsafe_fixes)) &&
	    (!opt->fixable || tl_rule_selected(f->rule, opt->fixable)))
		tl_buf_add(out, "[*] ");
	tl_escape_add(out, f->message, strlen(f->message));
	tl_buf_addc(out, '\n');
}

static unsigned tl_report__digits(uint32_t n)
{
	unsigned d = 1;
	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

static void tl_report__gutter(const TlReportOptions *opt, unsigned width, uint32_t line,
			      TlBuf *out)
{
	const char *blue = opt->color ? TL_BLUE : "", *reset = opt->color ? TL_RESET : "";
	if (line)
		tl_buf_addf(out, "%s%*u |%s", blue, (int)width, line, reset);
	else
		tl_buf_addf(out, "%s%*s |%s", blue, (int)width, "", reset);
}

/* Tabs are shown as spaces up to the next multiple of this (ruff's default
 * tab size), so that the carets line up whatever the terminal's tab stops. */
#define TL_REPORT_TAB 4

/* The decoded code point at s[*i] (advancing *i); U+FFFD on a bad byte. */
static uint32_t tl_report__next_cp(const char *s, uint32_t len, uint32_t *i)
{
	unsigned char c = (unsigned char)s[(*i)++];
	int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
	uint32_t cp = more ? c & (0x3F >> more) : c;
	for (; more > 0 && *i < len && ((unsigned char)s[*i] & 0xC0) == 0x80; more--)
		cp = (cp << 6) | ((unsigned char)s[(*i)++] & 0x3F);
	return more ? 0xFFFD : cp;
}

/* Terminal columns of code point `cp`: 2 for East Asian wide and fullwidth
 * characters (CJK, Hangul, fullwidth forms, most emoji), 0 for combining
 * marks and zero-width characters, else 1. */
static uint32_t tl_report__cp_width(uint32_t cp)
{
	if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0xFE00 && cp <= 0xFE0F) ||
	    (cp >= 0x20D0 && cp <= 0x20FF))
		return 0;
	if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) || (cp >= 0x3041 && cp <= 0x33FF) ||
	    (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
	    (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) ||
	    (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
	    (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD))
		return 2;
	return 1;
}

/* The display column (0-based) where code point column `col` (1-based) of
 * the line starts, tabs expanded. */
static uint32_t tl_report__display_col(const char *text, uint32_t len, uint32_t col)
{
	uint32_t at = 0, i = 0;
	for (uint32_t cps = 1; i < len && cps < col; cps++) {
		uint32_t cp = tl_report__next_cp(text, len, &i);
		at += cp == '\t' ? TL_REPORT_TAB - at % TL_REPORT_TAB : tl_report__cp_width(cp);
	}
	return at;
}

static void tl_report__line(const TlReportOptions *opt, const TlSource *src,
			    const TlNotebook *nb, unsigned width, uint32_t line, TlBuf *out)
{
	uint32_t len;
	const char *text = tl_source_line(src, line, &len);
	tl_report__gutter(opt, width, tl_report__shown_line(nb, line), out);
	if (len) {
		tl_buf_addc(out, ' ');
		/* Tabs as spaces to the next stop (the carets below count the
		 * same columns), then the terminal-safe form of the line. */
		TlBuf shown;
		tl_buf_init(&shown);
		uint32_t at = 0;
		for (uint32_t i = 0; i < len;) {
			uint32_t start = i;
			uint32_t cp = tl_report__next_cp(text, len, &i);
			if (cp == '\t') {
				do
					tl_buf_addc(&shown, ' ');
				while (++at % TL_REPORT_TAB);
			} else {
				tl_buf_addn(&shown, text + start, i - start);
				at += tl_report__cp_width(cp);
			}
		}
		tl_escape_add_snippet(out, shown.data, shown.len);
		tl_buf_release(&shown);
	}
	tl_buf_addc(out, '\n');
}

static void tl_report__full(const TlReportOptions *opt, const TlSource *src,
			    const TlNotebook *nb, const TlFinding *f, TlBuf *out)
{
	tl_report__header(opt, src, nb, f, out);
	uint32_t first = f->start.line;
	uint32_t last = f->end.line;
	/* An end at column 1 means the span stops at the previous line's end. */
	if (last > first && f->end.column == 1)
		last--;
	uint32_t shown_last = last;
	if (shown_last - first + 1 > TL_REPORT_MAX_SPAN_LINES)
		shown_last = first + TL_REPORT_MAX_SPAN_LINES - 1;
	uint32_t context = first > 1 ? first - 1 : first;
	const TlNbCell *cell = nb ? tl_notebook_cell_of_line(nb, first) : NULL;
	if (cell && context < cell->first_line)
		context = first; /* no context from the previous cell */
	unsigned width = tl_report__digits(tl_report__shown_line(nb, shown_last));
	tl_report__gutter(opt, width, 0, out);
	tl_buf_addc(out, '\n');
	if (context < first) {
		uint32_t len;
		tl_source_line(src, context, &len);
		if (len)
			tl_report__line(opt, src, nb, width, context, out);
	}
	tl_report__line(opt, src, nb, width, first, out);
	/* Underline: spaces up to the span's display column, then one caret
	 * per terminal column of the span (two for a wide character; tabs
	 * expanded as in the line above). */
	uint32_t len;
	const char *text = tl_source_line(src, first, &len);
	uint32_t span_end_col = (last == first) ? f->end.column
						: tl_utf8_count(text, len) + 1;
	tl_report__gutter(opt, width, 0, out);
	tl_buf_addc(out, ' ');
	uint32_t from = tl_report__display_col(text, len, f->start.column);
	uint32_t to = tl_report__display_col(text, len, span_end_col);
	for (uint32_t i = 0; i < from; i++)
		tl_buf_addc(out, ' ');
	const char *color = tl_report__color(opt, f->rule->severity);
	tl_buf_add(out, color);
	uint32_t carets = to > from ? to - from : 1;
	for (uint32_t i = 0; i < carets; i++)
		tl_buf_addc(out, '^');
	tl_buf_addf(out, " %s%s\n", f->rule->code, opt->color ? TL_RESET : "");
	for (uint32_t l = first + 1; l <= shown_last; l++)
		tl_report__line(opt, src, nb, width, l, out);
	if (shown_last < last) {
		tl_report__gutter(opt, width, 0, out);
		tl_buf_add(out, " ...\n");
	}
	tl_report__gutter(opt, width, 0, out);
	tl_buf_addc(out, '\n');
	if (f->rule->help) {
		tl_buf_addf(out, "%*s = help: ", (int)width, "");
		tl_escape_add(out, f->rule->help, strlen(f->rule->help));
		tl_buf_addc(out, '\n');
	}
	tl_buf_addc(out, '\n');
}

static void tl_report__all(const TlReportOptions *opt, const TlSource *src, const TlNotebook *nb,
			   const TlFindings *findings, TlBuf *out)
{
	for (uint32_t i = 0; i < findings->size; i++) {
		const TlFinding *f = &findings->items[i];
		if (opt->format == TL_FORMAT_CONCISE)
			tl_report__header(opt, src, nb, f, out);
		else
			tl_report__full(opt, src, nb, f, out);
	}
}

void tl_report_file(const TlReportOptions *opt, const TlSource *src,
		    const TlFindings *findings, TlBuf *out)
{
	tl_report__all(opt, src, NULL, findings, out);
}

void tl_report_notebook(const TlReportOptions *opt, const TlNotebook *nb,
			const TlFindings *findings, TlBuf *out)
{
	tl_report__all(opt, &nb->program, nb, findings, out);
}
