/* The floor for `make bench`: reads each file named on standard input (one
 * path per line) and parses it with the same tree-sitter objects torchlint
 * links, then frees the tree. Nothing else: no index, no rules, no output.
 * Prints the number of files, lines and bytes it parsed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_python(void);

static char *parse_only__read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 65536, n = 0, got;
	char *buf = malloc(cap);
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *bigger = realloc(buf, cap *= 2);
			if (!bigger) {
				free(buf);
				buf = NULL;
			}
			buf = bigger;
		}
	}
	fclose(f);
	*len = n;
	return buf;
}

int main(void)
{
	TSParser *parser = ts_parser_new();
	ts_parser_set_language(parser, tree_sitter_python());
	char path[4096];
	unsigned long files = 0, lines = 0, bytes = 0, failed = 0;
	while (fgets(path, sizeof path, stdin)) {
		path[strcspn(path, "\n")] = '\0';
		if (!path[0])
			continue;
		size_t len;
		char *text = parse_only__read(path, &len);
		if (!text) {
			fprintf(stderr, "parse_only: cannot read '%s'\n", path);
			failed++;
			continue;
		}
		TSTree *tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)len);
		ts_tree_delete(tree);
		for (size_t i = 0; i < len; i++)
			lines += text[i] == '\n';
		bytes += len;
		files++;
		free(text);
	}
	ts_parser_delete(parser);
	printf("%lu files, %lu lines, %lu bytes\n", files, lines, bytes);
	return failed ? 1 : 0;
}
