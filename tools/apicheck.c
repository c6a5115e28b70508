/* Build tool: checks the API tables (the .tsv files under api/) with the
 * analyzer's own parser (analyzer/model/apiparse.c) before they are
 * embedded, so that a malformed row, an unknown column value or a repeated
 * name stops the build with the file and line.
 * usage: apicheck TABLE... */
#include <stdio.h>
#include <stdlib.h>

#include "model/apitable.h"

static int tl_apicheck_one(const char *path)
{
	FILE *in = fopen(path, "rb");
	if (!in) {
		perror(path);
		return 1;
	}
	size_t cap = 1 << 16, len = 0;
	char *text = malloc(cap);
	size_t n;
	while (text && (n = fread(text + len, 1, cap - len, in)) > 0) {
		len += n;
		if (len == cap) {
			char *bigger = realloc(text, cap * 2);
			if (!bigger) {
				free(text);
				text = NULL;
				break;
			}
			text = bigger;
			cap *= 2;
		}
	}
	fclose(in);
	if (!text) {
		fprintf(stderr, "apicheck: out of memory reading '%s'\n", path);
		return 1;
	}
	size_t bound = tl_api_row_bound(text, len);
	TlApiRow *rows = calloc(bound, sizeof *rows);
	TlApiTable table;
	char err[512];
	int rc = 0;
	if (!rows) {
		fprintf(stderr, "apicheck: out of memory parsing '%s'\n", path);
		rc = 1;
	} else if (!tl_api_parse(text, len, path, rows, bound, &table, err, sizeof err)) {
		fprintf(stderr, "%s\n", err);
		rc = 1;
	}
	free(rows);
	free(text);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: apicheck TABLE...\n");
		return 2;
	}
	int rc = 0;
	for (int i = 1; i < argc; i++)
		rc |= tl_apicheck_one(argv[i]);
	return rc;
}
