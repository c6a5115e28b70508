/* libFuzzer target: configuration files. The bytes are written to a
 * private temporary directory as pyproject.toml or torchlint.toml (by the
 * parity of the length) and loaded as --config would; the TOML reader
 * also parses them directly. Errors are expected; crashes, leaks and
 * sanitizer reports are not. */
#include "common.h"

#include <unistd.h>

#include "base/toml.h"
#include "config/config.h"

static char tl_fuzz__dir[64];
static FILE *tl_fuzz__null;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tl_fuzz_init();
	if (!tl_fuzz__dir[0]) {
		strcpy(tl_fuzz__dir, "/tmp/tl-fuzz-config-XXXXXX");
		if (!mkdtemp(tl_fuzz__dir))
			abort();
		tl_fuzz__null = fopen("/dev/null", "w");
		if (!tl_fuzz__null)
			abort();
	}
	TlToml doc;
	char why[256];
	if (tl_toml_parse(&doc, (const char *)data, size, why, sizeof why))
		tl_toml_release(&doc);

	char path[128];
	snprintf(path, sizeof path, "%s/%s", tl_fuzz__dir, size & 1 ? "pyproject.toml" : "torchlint.toml");
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	if (fclose(f) != 0)
		abort();
	TlConfig cfg;
	bool found = false;
	/* Released whatever the result, as its callers do. */
	tl_config_load(&cfg, path, &tl_fuzz_rules, &found, tl_fuzz__null);
	tl_config_release(&cfg);
	unlink(path);
	return 0;
}
