/* Shared set-up for the libFuzzer targets: the embedded rules with every
 * rule selected, and the text renderings. Header-only: each target
 * includes it once. */
#ifndef TL_FUZZ_COMMON_H
#define TL_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "engine/engine.h"
#include "engine/notebook.h"
#include "report/report.h"
#include "rules/rules.h"
#include "rules/ruleset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static TlRuleSet tl_fuzz_rules;
static TlSelection tl_fuzz_all;
static int tl_fuzz_ready;

static inline void tl_fuzz_init(void)
{
	if (tl_fuzz_ready)
		return;
	tl_alloc_install();
	if (!tl_rules_load(&tl_fuzz_rules, NULL, stderr))
		abort();
	tl_selection_init(&tl_fuzz_all);
	tl_fuzz_all.has_select = true;
	tl_array_push(&tl_fuzz_all.select, tl_strdup("ALL"));
	tl_fuzz_ready = 1;
}

/* Compiling the embedded rules' queries takes seconds in a sanitizer and
 * coverage build: done here, before libFuzzer's per-input timeout starts. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* The per-file CPU-time bound at 2 s (a sanitizer build is 10 to 30
	 * times slower than a release one): an input whose analysis is slow
	 * but bounded (tree-sitter's error recovery on 28 KB of a broken list,
	 * 0.3 s in a release build, 9 s here) ends in TL002 well within
	 * libFuzzer's timeout on a loaded machine, so that a timeout means a
	 * phase the bound does not stop. */
	setenv("TORCHLINT_CPU_SECONDS", "2", 0);
	tl_fuzz_init();
	return 0;
}

/* The text renderings of a file's (or a notebook's) findings. */
static inline void tl_fuzz_render(const TlSource *src, const TlNotebook *nb, const TlFindings *f)
{
	TlReportOptions opt = { TL_FORMAT_FULL, true, true, NULL };
	TlBuf out;
	tl_buf_init(&out);
	if (nb)
		tl_report_notebook(&opt, nb, f, &out);
	else
		tl_report_file(&opt, src, f, &out);
	opt.format = TL_FORMAT_CONCISE;
	opt.color = false;
	if (!nb)
		tl_report_file(&opt, src, f, &out);
	tl_buf_release(&out);
}

#endif
