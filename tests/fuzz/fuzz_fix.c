/* libFuzzer target: --fix, --unsafe-fixes and --add-noqa on arbitrary
 * input. The first byte picks the mode and whether the text is a Python
 * file or a notebook; the rest is the file. Whatever the bytes: no crash,
 * no sanitizer report, no leak, no stall; and a Python file that parsed
 * without errors before its fixes still parses without errors after them
 * (fixrun.c drops a round that breaks the parse: this checks it does). */
#include "common.h"

#include "base/source.h"
#include "report/fixrun.h"
#include "syntax/syms.h"

static bool tl_fuzz__parses_clean(const char *text, size_t len)
{
	char why[256];
	TlSource src;
	if (!tl_source_init_text(&src, "fuzz.py", text, len, why, sizeof why))
		return false;
	TSParser *parser = ts_parser_new();
	ts_parser_set_language(parser, tl_python_language());
	TSTree *tree = ts_parser_parse_string(parser, NULL, src.parse_text ? src.parse_text : src.text,
					     src.length);
	bool clean = tree && !ts_node_has_error(ts_tree_root_node(tree));
	if (tree)
		ts_tree_delete(tree);
	ts_parser_delete(parser);
	tl_source_release(&src);
	return clean;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	tl_fuzz_init();
	uint8_t mode = data[0];
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	bool notebook = mode & 4;
	TlFixRun how = { .allowed = (mode & 1) ? TL_FIX_UNSAFE : TL_FIX_SAFE, .add_noqa = mode & 2 };
	TlEngine engine;
	tl_engine_init(&engine, &tl_fuzz_rules, &tl_fuzz_all);
	TlFileOptions opt = { .selection = &tl_fuzz_all, .torch_version = 204 };
	char why[256];
	uint32_t applied = 0;
	const char *path = notebook ? "fuzz.ipynb" : "fuzz.py";
	bool clean_before = !notebook && tl_fuzz__parses_clean(text, len);
	char *fixed = tl_fixrun_text(&engine, &opt, path, text, len, &how, &applied, why, sizeof why);
	if (fixed) {
		if (clean_before && !tl_fuzz__parses_clean(fixed, strlen(fixed)))
			abort(); /* a fix broke a file that parsed */
		tl_free(fixed);
	}
	tl_engine_release(&engine);
	return 0;
}
