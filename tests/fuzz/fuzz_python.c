/* libFuzzer target: Python source through the whole engine (load, parse,
 * index, facts, every rule, suppressions, both text renderings). Whatever
 * the bytes: no crash, no sanitizer report, no leak, and no stall (the
 * per-file limits end in TL002 instead). The dictionary (python.dict) and
 * the seeds (run-fuzz.sh: the corpus, long chains, deep nesting) let it
 * reach the shapes that once crashed the query cursor. */
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tl_fuzz_init();
	char why[256];
	TlEngine engine;
	tl_engine_init(&engine, &tl_fuzz_rules, &tl_fuzz_all);
	TlFindings findings;
	tl_array_init(&findings);
	TlFileOptions opt = { .selection = &tl_fuzz_all, .fingerprints = true, .torch_version = 204 };
	TlSource src;
	if (tl_source_init_text(&src, "fuzz.py", (const char *)data, size, why, sizeof why)) {
		tl_engine_analyze_with(&engine, &src, &opt, &findings);
		tl_fuzz_render(&src, NULL, &findings);
		tl_source_release(&src);
	}
	tl_findings_release(&findings);
	tl_engine_release(&engine);
	return 0;
}
