#include "report.h"

#include <string.h>

#include "alloc.h"
#include "escape.h"

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

static void tl_report__line(const TlReportOptions *opt, const TlSource *src,
			    const TlNotebook *nb, unsigned width, uint32_t line, TlBuf *out)
{
	uint32_t len;
	const char *text = tl_source_line(src, line, &len);
	tl_report__gutter(opt, width, tl_report__shown_line(nb, line), out);
	if (len) {
		tl_buf_addc(out, ' ');
		tl_escape_add_snippet(out, text, len);
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
	/* Underline: copy the line's leading bytes as spaces (tabs kept, so
	 * the carets line up), then one caret per code point of the span. */
	uint32_t len;
	const char *text = tl_source_line(src, first, &len);
	uint32_t span_end_col = (last == first) ? f->end.column
						: tl_utf8_count(text, len) + 1;
	tl_report__gutter(opt, width, 0, out);
	tl_buf_addc(out, ' ');
	uint32_t col = 1;
	for (uint32_t i = 0; i < len && col < f->start.column; i++) {
		if (((unsigned char)text[i] & 0xC0) == 0x80)
			continue;
		tl_buf_addc(out, text[i] == '\t' ? '\t' : ' ');
		col++;
	}
	const char *color = tl_report__color(opt, f->rule->severity);
	tl_buf_add(out, color);
	uint32_t carets = span_end_col > f->start.column ? span_end_col - f->start.column : 1;
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
