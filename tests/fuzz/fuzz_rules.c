/* libFuzzer target: --rules-dir files. The input is a rule's query (.scm),
 * or its metadata (.toml), a line "%%", then its query. A rule that
 * compiles is run alone on a training script; its matches render their
 * {capture} placeholders and both text formats. */
#include "common.h"

static FILE *tl_fuzz__null;

static const char tl_fuzz__meta[] =
	"code = \"TL599\"\nname = \"fuzzed\"\nfamily = \"safety\"\nseverity = \"warning\"\n"
	"default = true\nmessage = \"fuzzed {finding}\"\n";

static const char tl_fuzz__script[] =
	"import torch\nimport torch.nn.functional as F\n\n"
	"def train(model, loader, opt, scaler):\n"
	"    losses = []\n    model.train()\n"
	"    for step, (x, y) in enumerate(loader):\n"
	"        with torch.autocast('cuda'):\n"
	"            out = model(x.to('cuda', non_blocking=True))\n"
	"        loss = F.cross_entropy(out.softmax(-1), y)  # noqa: TL208\n"
	"        scaler.scale(loss).backward(retain_graph=True)\n"
	"        scaler.step(opt)\n"
	"        losses.append(loss)\n"
	"        total = total + loss\n"
	"        print(loss.item(), f(x).f(x).f(x), [1, (2, {3: 4})])\n"
	"    model.eval()\n"
	"    state = torch.load('ckpt.pt')\n"
	"    return [a for a in losses if a], lambda q: q\n"
	"x = f(f(f(f(1))))\n# a comment\n\"\"\"doc\"\"\"\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tl_fuzz_init();
	if (!tl_fuzz__null) {
		tl_fuzz__null = fopen("/dev/null", "w");
		if (!tl_fuzz__null)
			abort();
	}
	const char *text = (const char *)data;
	const char *meta = tl_fuzz__meta, *query = text;
	size_t meta_len = sizeof tl_fuzz__meta - 1, query_len = size;
	for (size_t i = 0; i + 4 <= size; i++) {
		if (memcmp(text + i, "\n%%\n", 4) == 0) {
			meta = text;
			meta_len = i + 1;
			query = text + i + 4;
			query_len = size - i - 4;
			break;
		}
	}
	TlRule *rule = tl_rule_compile("fuzz/TL599-fuzzed.toml", meta, meta_len,
				       "fuzz/TL599-fuzzed.scm", query, query_len, tl_fuzz__null);
	if (!rule)
		return 0;
	TlRuleSet set;
	tl_rules_init(&set);
	tl_array_push(&set.rules, rule);
	TlEngine engine;
	tl_engine_init(&engine, &set, &tl_fuzz_all);
	TlFindings findings;
	tl_array_init(&findings);
	char why[256];
	TlSource src;
	if (!tl_source_init_text(&src, "t.py", tl_fuzz__script, sizeof tl_fuzz__script - 1, why,
				 sizeof why))
		abort();
	tl_engine_analyze(&engine, &src, &findings);
	tl_fuzz_render(&src, NULL, &findings);
	tl_source_release(&src);
	tl_findings_release(&findings);
	tl_engine_release(&engine);
	tl_rules_release(&set);
	return 0;
}
