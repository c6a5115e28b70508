/* libFuzzer target: the machine formats keep every finding. The input's
 * first line is a file name (any bytes), the rest Python source; its
 * findings, and an unreadable file of the same name, are written as JSON
 * and as SARIF, and both must parse back (jansson) with one entry per
 * finding, the same codes and lines, and SARIF ruleIndex pointing at the
 * rule its ruleId names. */
#include "common.h"

#include <jansson.h>

#include "report/output.h"

/* Writes with `emit` into memory and parses the result; aborts if it is
 * not JSON. Caller releases the result. */
static json_t *tl_fuzz__emit(int format, const TlReportSet *set)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		abort();
	if (format == 0)
		tl_output_json(f, set);
	else
		tl_output_sarif(f, set, "/fuzz", true);
	if (fclose(f) != 0)
		abort();
	json_error_t err;
	json_t *doc = json_loadb(text, len, 0, &err);
	if (!doc) {
		fprintf(stderr, "output does not parse (%s at %d): %.*s\n", err.text, err.position,
			(int)(len < 2000 ? len : 2000), text);
		abort();
	}
	free(text);
	return doc;
}

static void tl_fuzz__check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "output check failed: %s\n", what);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tl_fuzz_init();
	size_t name_len = 0;
	while (name_len < size && name_len < 200 && data[name_len] != '\n' && data[name_len] != 0)
		name_len++;
	char *name = name_len ? tl_strndup((const char *)data, name_len) : tl_strdup("fuzz.py");
	size_t skip = name_len < size ? name_len + 1 : size;
	char why[256];
	TlEngine engine;
	tl_engine_init(&engine, &tl_fuzz_rules, &tl_fuzz_all);
	TlFileReport files[2];
	memset(files, 0, sizeof files);
	files[0].path = name;
	tl_array_init(&files[0].findings);
	files[1].path = name;
	files[1].error = "cannot read: fuzzed";
	tl_array_init(&files[1].findings);
	TlFileOptions opt = { .selection = &tl_fuzz_all, .fingerprints = true, .torch_version = 204 };
	TlSource src;
	if (tl_source_init_text(&src, name, (const char *)data + skip, size - skip, why, sizeof why)) {
		tl_engine_analyze_with(&engine, &src, &opt, &files[0].findings);
		tl_source_release(&src);
	}
	const TlFindings *fs = &files[0].findings;
	TlReportSet set = { &tl_fuzz_rules, files, 2 };

	json_t *doc = tl_fuzz__emit(0, &set);
	tl_fuzz__check(json_is_array(doc) && json_array_size(doc) == fs->size, "json: one entry per finding");
	for (uint32_t i = 0; i < fs->size; i++) {
		json_t *o = json_array_get(doc, i);
		const char *code = json_string_value(json_object_get(o, "code"));
		json_t *line = json_object_get(json_object_get(o, "start"), "line");
		tl_fuzz__check(code && strcmp(code, fs->items[i].rule->code) == 0, "json: code");
		tl_fuzz__check(json_integer_value(line) == (json_int_t)fs->items[i].start.line, "json: line");
		tl_fuzz__check(json_is_string(json_object_get(o, "message")), "json: message");
		tl_fuzz__check(json_is_string(json_object_get(o, "path")), "json: path");
	}
	json_decref(doc);

	doc = tl_fuzz__emit(1, &set);
	json_t *run = json_array_get(json_object_get(doc, "runs"), 0);
	json_t *results = json_object_get(run, "results");
	json_t *rules = json_object_get(json_object_get(json_object_get(run, "tool"), "driver"), "rules");
	tl_fuzz__check(json_array_size(results) == fs->size, "sarif: one result per finding");
	tl_fuzz__check(json_array_size(rules) == tl_fuzz_rules.rules.size, "sarif: every rule");
	for (uint32_t i = 0; i < fs->size; i++) {
		json_t *r = json_array_get(results, i);
		const char *id = json_string_value(json_object_get(r, "ruleId"));
		json_int_t index = json_integer_value(json_object_get(r, "ruleIndex"));
		tl_fuzz__check(id && strcmp(id, fs->items[i].rule->code) == 0, "sarif: ruleId");
		const char *at = json_string_value(json_object_get(json_array_get(rules, (size_t)index), "id"));
		tl_fuzz__check(at && strcmp(at, id) == 0, "sarif: ruleIndex names the rule of ruleId");
		json_t *region = json_object_get(
			json_object_get(json_array_get(json_object_get(r, "locations"), 0), "physicalLocation"),
			"region");
		tl_fuzz__check(json_integer_value(json_object_get(region, "startLine")) ==
				       (json_int_t)fs->items[i].start.line,
			       "sarif: startLine");
	}
	json_t *notes = json_object_get(json_array_get(json_object_get(run, "invocations"), 0),
					"toolExecutionNotifications");
	tl_fuzz__check(json_array_size(notes) >= 1, "sarif: the unreadable file's notification");
	json_decref(doc);

	tl_findings_release(&files[0].findings);
	tl_findings_release(&files[1].findings);
	tl_free(name);
	tl_engine_release(&engine);
	return 0;
}
