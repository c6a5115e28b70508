/* The TOML reader against the toml-test suite (tests/toml-test/, the
 * TOML 1.0.0 cases of github.com/toml-lang/toml-test; see its LICENSE and
 * README.md): every valid document must parse to exactly the values of its
 * .json twin (toml-test's tagged JSON), every invalid one must be refused.
 * Also: the reader stays linear in the number of keys. */
#include "helpers.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/buf.h"
#include "base/toml.h"

#define SUITE "tests/toml-test/"

/* jansson refuses NUL bytes in object keys: U+0000 in the expected JSON is
 * read as U+FFFF, and our strings' NUL bytes are compared as U+FFFF too. */
static json_t *load_json(const char *path, json_error_t *err)
{
	size_t len;
	char *text = tl_test_read_file(path, &len);
	if (!text)
		return NULL;
	for (size_t i = 0; i + 6 <= len; i++) {
		if (text[i] != '\\')
			continue;
		if (memcmp(text + i, "\\u0000", 6) == 0)
			memcpy(text + i, "\\uFFFF", 6);
		i++; /* an escape: its second character is not a backslash that starts one */
	}
	json_t *j = json_loadb(text, len, JSON_ALLOW_NUL, err);
	tl_free(text);
	return j;
}

/* `s` (`n` bytes) with NUL bytes written as U+FFFF. Caller frees. */
static char *nul_as_ffff(const char *s, size_t n, size_t *out_len)
{
	TlBuf b;
	tl_buf_init(&b);
	for (size_t i = 0; i < n; i++) {
		if (s[i])
			tl_buf_addc(&b, s[i]);
		else
			tl_buf_add(&b, "\xEF\xBF\xBF");
	}
	*out_len = b.len;
	return tl_buf_detach(&b);
}

/* Date-times compare after dropping trailing zeros of fractional seconds
 * ("56.6Z" and "56.600Z" are the same instant). */
static void normalize_datetime(const char *s, TlBuf *out)
{
	tl_buf_clear(out);
	for (const char *p = s; *p; p++) {
		if (*p == '.') {
			const char *q = p + 1;
			while (*q >= '0' && *q <= '9')
				q++;
			const char *end = q;
			while (end > p + 1 && end[-1] == '0')
				end--;
			if (end > p + 1)
				tl_buf_addn(out, p, (size_t)(end - p));
			p = q - 1;
			continue;
		}
		tl_buf_addc(out, *p);
	}
}

static bool same_float(const char *want, double got)
{
	const char *w = want[0] == '+' ? want + 1 : want;
	if (strstr(w, "nan"))
		return isnan(got);
	if (strcmp(w, "inf") == 0)
		return isinf(got) && got > 0;
	if (strcmp(w, "-inf") == 0)
		return isinf(got) && got < 0;
	double d = strtod(w, NULL);
	return d == got || fabs(d - got) <= 1e-12 * fabs(d);
}

/* Compares our value with the expected tagged JSON; on a difference writes
 * where into `why`. Test-only recursion, bounded by the fixtures' depth. */
static bool same(const TlTomlValue *v, json_t *want, TlBuf *where, TlBuf *why)
{
	size_t mark = where->len;
	bool ok = true;
	if (v->type == TL_TOML_T_TABLE) {
		if (!json_is_object(want) || json_object_size(want) != v->members.size) {
			tl_buf_addf(why, "%s: table of %u keys, expected %s", where->data, v->members.size,
				    json_is_object(want) ? "another number of keys" : "something else");
			return false;
		}
		for (uint32_t i = 0; i < v->members.size && ok; i++) {
			const TlTomlMember *m = &v->members.items[i];
			json_t *w = NULL;
			void *it = json_object_iter(want);
			while (it) {
				const char *key = json_object_iter_key(it);
				size_t klen = json_object_iter_key_len(it);
				size_t ml;
				char *mk = nul_as_ffff(m->key, m->key_len, &ml);
				bool match = klen == ml && memcmp(key, mk, klen) == 0;
				tl_free(mk);
				if (match) {
					w = json_object_iter_value(it);
					break;
				}
				it = json_object_iter_next(want, it);
			}
			tl_buf_addf(where, ".%s", m->key);
			if (!w) {
				tl_buf_addf(why, "%s: unexpected key", where->data);
				return false;
			}
			ok = same(m->value, w, where, why);
			where->len = mark;
			where->data[mark] = '\0';
		}
		return ok;
	}
	if (v->type == TL_TOML_T_ARRAY) {
		if (!json_is_array(want) || json_array_size(want) != v->items.size) {
			tl_buf_addf(why, "%s: array of %u, expected otherwise", where->data, v->items.size);
			return false;
		}
		for (uint32_t i = 0; i < v->items.size && ok; i++) {
			tl_buf_addf(where, "[%u]", i);
			ok = same(v->items.items[i], json_array_get(want, i), where, why);
			where->len = mark;
			where->data[mark] = '\0';
		}
		return ok;
	}
	json_t *type = json_object_get(want, "type"), *value = json_object_get(want, "value");
	if (!json_is_string(type) || !json_is_string(value)) {
		tl_buf_addf(why, "%s: a %s, expected a table or array", where->data, tl_toml_type_name(v->type));
		return false;
	}
	if (strcmp(json_string_value(type), tl_toml_type_name(v->type)) != 0) {
		tl_buf_addf(why, "%s: type %s, expected %s", where->data, tl_toml_type_name(v->type),
			    json_string_value(type));
		return false;
	}
	const char *w = json_string_value(value);
	char got[64];
	switch (v->type) {
	case TL_TOML_T_STRING: {
		size_t gl;
		char *g = nul_as_ffff(v->text, v->len, &gl);
		ok = json_string_length(value) == gl && memcmp(w, g, gl) == 0;
		tl_free(g);
		break;
	}
	case TL_TOML_T_INTEGER:
		snprintf(got, sizeof got, "%lld", v->integer);
		ok = strcmp(got, w) == 0;
		break;
	case TL_TOML_T_FLOAT:
		ok = same_float(w, v->real);
		break;
	case TL_TOML_T_BOOL:
		ok = strcmp(w, v->boolean ? "true" : "false") == 0;
		break;
	default: {
		TlBuf a, b;
		tl_buf_init(&a);
		tl_buf_init(&b);
		normalize_datetime(w, &a);
		normalize_datetime(v->text, &b);
		ok = strcmp(a.data, b.data) == 0;
		tl_buf_release(&a);
		tl_buf_release(&b);
	}
	}
	if (!ok)
		tl_buf_addf(why, "%s: value differs from '%s'", where->data, w);
	return ok;
}

static void test_toml_test_suite(void **state)
{
	(void)state;
	size_t len;
	char *list = tl_test_read_file(SUITE "files-toml-1.0.0", &len);
	assert_non_null(list);
	unsigned valid = 0, invalid = 0, failures = 0;
	TlBuf report;
	tl_buf_init(&report);
	for (char *line = strtok(list, "\n"); line; line = strtok(NULL, "\n")) {
		size_t n = strlen(line);
		if (n < 5 || strcmp(line + n - 5, ".toml") != 0)
			continue;
		TlBuf path;
		tl_buf_init(&path);
		tl_buf_addf(&path, SUITE "%s", line);
		size_t tlen;
		char *text = tl_test_read_file(path.data, &tlen);
		assert_non_null(text);
		TlToml doc;
		char why[256] = "";
		bool parsed = tl_toml_parse(&doc, text, tlen, why, sizeof why);
		if (strncmp(line, "invalid/", 8) == 0) {
			invalid++;
			if (parsed) {
				failures++;
				tl_buf_addf(&report, "  %s: accepted, must be refused\n", line);
			}
		} else {
			valid++;
			if (!parsed) {
				failures++;
				tl_buf_addf(&report, "  %s: refused: %s\n", line, why);
			} else {
				path.len -= 5;
				path.data[path.len] = '\0';
				tl_buf_add(&path, ".json");
				json_error_t err;
				json_t *want = load_json(path.data, &err);
				if (!want)
					fail_msg("%s: %s", path.data, err.text);
				TlBuf where, diff;
				tl_buf_init(&where);
				tl_buf_init(&diff);
				if (!same(doc.root, want, &where, &diff)) {
					failures++;
					tl_buf_addf(&report, "  %s: %s\n", line, diff.data);
				}
				tl_buf_release(&where);
				tl_buf_release(&diff);
				json_decref(want);
			}
		}
		tl_toml_release(&doc);
		tl_free(text);
		tl_buf_release(&path);
	}
	printf("toml-test: %u valid and %u invalid documents, %u failures\n", valid, invalid, failures);
	if (failures)
		fail_msg("toml-test failures:\n%s", report.data);
	/* The suite is all there: a lost file list would make this vacuous. */
	assert_true(valid > 150 && invalid > 400);
	tl_buf_release(&report);
	tl_free(list);
}

/* Seconds to parse a document of `n` keys in another table, plus `n`
 * single-key tables (best of three runs). */
static double parse_seconds(unsigned n)
{
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_add(&b, "[tool.other]\n");
	for (unsigned i = 0; i < n; i++)
		tl_buf_addf(&b, "key_%u = \"value %u\"  # comment\n", i, i);
	for (unsigned i = 0; i < n; i++)
		tl_buf_addf(&b, "[t.\"sub %u\"]\nx = [1, 2]\n", i);
	tl_buf_add(&b, "[tool.torchlint]\nselect = [\"ALL\"]\n");
	double best = 1e9;
	for (int run = 0; run < 3; run++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		TlToml doc;
		char why[256];
		assert_true(tl_toml_parse(&doc, b.data, b.len, why, sizeof why));
		assert_non_null(tl_toml_get(&doc, "tool.torchlint", "select"));
		tl_toml_release(&doc);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (s < best)
			best = s;
	}
	tl_buf_release(&b);
	return best;
}

/* Growth: eight times the keys must cost about eight times the time, not
 * sixty-four (the duplicate-key check used to compare every pair of keys: a
 * pyproject.toml with 50,000 keys took 11 s). The bound of 32x leaves room
 * for noise on a busy machine and still fails a quadratic reader. */
static void test_linear_in_keys(void **state)
{
	(void)state;
	double small = parse_seconds(6250), large = parse_seconds(50000);
	printf("toml: 6,250 keys %.4f s, 50,000 keys %.4f s (x%.1f)\n", small, large, large / small);
	/* No absolute bound: sanitizer builds on a loaded machine are slow. */
	assert_true(large < 32 * small + 0.05);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_toml_test_suite),
		cmocka_unit_test(test_linear_in_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
