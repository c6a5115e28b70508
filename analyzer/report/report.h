/* Reporters: render a file's findings as text, in the full format (the
 * source line with the span underlined, as ruff and rustc show it) or the
 * concise one (one line per finding). */
#ifndef TL_REPORT_H
#define TL_REPORT_H

#include <stdbool.h>

#include "base/buf.h"
#include "base/source.h"
#include "engine/engine.h"
#include "engine/notebook.h"

typedef enum TlFormat { TL_FORMAT_FULL, TL_FORMAT_CONCISE } TlFormat;

typedef struct TlReportOptions {
	TlFormat format;
	bool color;
	bool unsafe_fixes; /* --unsafe-fixes: unsafe fixes count as fixable ([*]) */
	/* --fixable / --unfixable: the rules whose fixes count (NULL: all). */
	const TlSelection *fixable;
} TlReportOptions;

/* Appends the rendering of `findings` (all from `src`) to `out`. */
void tl_report_file(const TlReportOptions *opt, const TlSource *src,
		    const TlFindings *findings, TlBuf *out);
/* Same, for findings on a notebook's program (before tl_notebook_map):
 * positions read "nb.ipynb:cell 3:4:5", and snippets number cell lines. */
void tl_report_notebook(const TlReportOptions *opt, const TlNotebook *nb,
			const TlFindings *findings, TlBuf *out);

#endif
