#include "report/showsettings.h"

#include <string.h>

static void tl_show__list(FILE *out, const TlStrArray *a)
{
	fputc('[', out);
	for (uint32_t i = 0; i < a->size; i++)
		fprintf(out, "%s\"%s\"", i ? ", " : "", a->items[i]);
	fputc(']', out);
}

static void tl_show__line(FILE *out, const char *key, const TlStrArray *a, const char *from)
{
	fprintf(out, "  %-18s ", key);
	tl_show__list(out, a);
	fprintf(out, "  (%s)\n", from);
}

void tl_show_settings(FILE *out, const TlShowSettings *s)
{
	const TlConfig *c = s->config;
	const char *from = c->path ? c->path : "built-in default";
	if (s->is_dir)
		fprintf(out, "Settings for the files in: %s\n", s->file);
	else
		fprintf(out, "Settings for: %s\n", s->file);
	if (c->path)
		fprintf(out, "Configuration file: %s%s\n", c->path, s->forced ? " (--config)" : "");
	else
		fprintf(out, "Configuration file: none (%s)\n",
			s->isolated ? "--isolated" : "no .torchlint.toml, torchlint.toml or pyproject.toml with [tool.torchlint] above it");
	for (uint32_t i = 0; c->path && i < c->extends.size; i++)
		fprintf(out, "  which extends: %s\n", c->extends.items[i]);
	fprintf(out, "\nRule selection, applied in this order:\n");
	fprintf(out, "  %-18s the rules marked on in --list-rules  (built-in default)\n", "defaults");
	if (c->has_select)
		tl_show__line(out, "select", &c->select, from);
	if (c->extend_select.size)
		tl_show__line(out, "extend-select", &c->extend_select, from);
	if (c->ignore.size)
		tl_show__line(out, "ignore", &c->ignore, from);
	for (uint32_t i = 0; s->overrides && i < s->overrides->size; i++)
		fprintf(out, "  %-18s %s  (command line; replaces that key everywhere)\n", "--config",
			s->overrides->items[i]);
	if (s->cli->has_select)
		tl_show__line(out, "--select", &s->cli->select, "command line");
	if (s->cli->extend_select.size)
		tl_show__line(out, "--extend-select", &s->cli->extend_select, "command line");
	if (s->cli->ignore.size)
		tl_show__line(out, "--ignore", &s->cli->ignore, "command line");
	for (uint32_t i = 0; i < c->per_file_ignores.size; i++) {
		const TlPerFileIgnore *p = &c->per_file_ignores.items[i];
		fprintf(out, "  %-18s \"%s\" = ", "per-file-ignores", p->glob);
		tl_show__list(out, &p->selectors);
		fprintf(out, "  (%s; applies when the glob matches)\n", p->origin ? p->origin : from);
	}
	fprintf(out, "\nRules that run on %s (%u):\n  ", s->is_dir ? "its files, before per-file-ignores" : "this file",
		s->selected->select.size);
	for (uint32_t i = 0; i < s->selected->select.size; i++)
		fprintf(out, "%s%s", i ? (i % 10 ? ", " : ",\n  ") : "", s->selected->select.items[i]);
	fprintf(out, "\n\nOther settings:\n");
	if (s->cli_torch_version)
		fprintf(out, "  %-18s %s  (command line)\n", "torch-version", s->cli_torch_version);
	else if (c->torch_version)
		fprintf(out, "  %-18s %d.%d  (%s)\n", "torch-version", c->torch_version / 100, c->torch_version % 100,
			from);
	else
		fprintf(out, "  %-18s %d.%d  (built-in default)\n", "torch-version", TL_TORCH_VERSION_DEFAULT / 100,
			TL_TORCH_VERSION_DEFAULT % 100);
	tl_show__line(out, "external", &c->external, c->external.size ? from : "built-in default");
	fprintf(out, "  %-18s ", c->has_exclude ? "exclude" : "exclude (default)");
	for (uint32_t i = 0; i < c->exclude.items.size; i++)
		fprintf(out, "%s%s", i ? ", " : "", c->exclude.items.items[i].glob);
	fprintf(out, "  (%s)\n", c->has_exclude ? from : "built-in default, plus any extend-exclude");
	if (s->cli_exclude && s->cli_exclude->items.size) {
		fprintf(out, "  %-18s ", "--extend-exclude");
		for (uint32_t i = 0; i < s->cli_exclude->items.size; i++)
			fprintf(out, "%s%s", i ? ", " : "", s->cli_exclude->items.items[i].glob);
		fprintf(out, "  (command line, relative to %s)\n", s->cli_exclude->base);
	}
}
