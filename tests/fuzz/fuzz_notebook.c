/* libFuzzer target: a Jupyter notebook (JSON) through the loader, the
 * engine and the mapping of findings back into cells. */
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tl_fuzz_init();
	char why[256];
	TlEngine engine;
	tl_engine_init(&engine, &tl_fuzz_rules, &tl_fuzz_all);
	TlFindings findings;
	tl_array_init(&findings);
	TlFileOptions opt = { .selection = &tl_fuzz_all };
	TlNotebook nb;
	if (tl_notebook_load(&nb, "fuzz.ipynb", (const char *)data, size, why, sizeof why)) {
		tl_engine_analyze_with(&engine, &nb.program, &opt, &findings);
		tl_fuzz_render(&nb.program, &nb, &findings);
		for (uint32_t i = 0; i < findings.size; i++) {
			tl_notebook_map(&nb, &findings.items[i]);
			/* A mapped finding lies inside the raw file. */
			if (findings.items[i].start.line < 1 ||
			    findings.items[i].start.line > nb.raw.line_starts.size)
				abort();
		}
		tl_notebook_release(&nb);
	}
	tl_findings_release(&findings);
	tl_engine_release(&engine);
	return 0;
}
