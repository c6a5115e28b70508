/* libFuzzer target for the loader and the engine: whatever the bytes, no
 * crash, no sanitizer report, no leak. The first byte picks the entry:
 *   0: a Python file (load, parse, index, every rule, both text renderings)
 *   1: a notebook (load, analyse the program, map positions back)
 *   2: a TOML document (rule metadata and configuration parser) */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "engine.h"
#include "notebook.h"
#include "report.h"
#include "rules.h"
#include "toml.h"

static TlRuleSet tl_fuzz__rules;
static TlSelection tl_fuzz__all;
static int tl_fuzz__ready;

static void tl_fuzz__init(void)
{
	if (tl_fuzz__ready)
		return;
	tl_alloc_install();
	if (!tl_rules_load(&tl_fuzz__rules, NULL, stderr))
		__builtin_trap();
	tl_selection_init(&tl_fuzz__all);
	tl_fuzz__all.has_select = true;
	tl_array_push(&tl_fuzz__all.select, tl_strdup("ALL"));
	tl_fuzz__ready = 1;
}

static void tl_fuzz__render(const TlSource *src, const TlNotebook *nb, const TlFindings *f)
{
	TlReportOptions opt = { TL_FORMAT_FULL, true };
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

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Loading the rules once, before the first input, keeps that one-time cost
 * out of the per-input timeout (a loaded machine compiles slowly). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	tl_fuzz__init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tl_fuzz__init();
	if (size < 1)
		return 0;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	char why[256];
	TlEngine engine;
	tl_engine_init(&engine, &tl_fuzz__rules, &tl_fuzz__all);
	TlFindings findings;
	tl_array_init(&findings);
	TlFileOptions opt = { &tl_fuzz__all, true, 204 };
	switch (data[0] % 3) {
	case 0: {
		TlSource src;
		if (tl_source_init_text(&src, "fuzz.py", text, len, why, sizeof why)) {
			tl_engine_analyze_with(&engine, &src, &opt, &findings);
			tl_fuzz__render(&src, NULL, &findings);
			tl_source_release(&src);
		}
		break;
	}
	case 1: {
		TlNotebook nb;
		if (tl_notebook_load(&nb, "fuzz.ipynb", text, len, why, sizeof why)) {
			tl_engine_analyze_with(&engine, &nb.program, &opt, &findings);
			tl_fuzz__render(&nb.program, &nb, &findings);
			for (uint32_t i = 0; i < findings.size; i++)
				tl_notebook_map(&nb, &findings.items[i]);
			tl_notebook_release(&nb);
		}
		break;
	}
	default: {
		TlToml doc;
		if (tl_toml_parse(&doc, text, len, why, sizeof why))
			tl_toml_release(&doc);
		break;
	}
	}
	tl_findings_release(&findings);
	tl_engine_release(&engine);
	return 0;
}
