#include "config/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/escape.h"
#include "base/paths.h"
#include "base/source.h"
#include "base/toml.h"

/* Skipped unless `exclude` says otherwise: version control, caches,
 * virtual environments, build output. (Folders holding pyvenv.cfg are
 * always skipped, whatever their name.) */
static const char *const tl_config__default_excludes[] = {
	".git/", ".hg/", ".svn/", "__pycache__/", "build/", "node_modules/", ".venv/",
	"venv/", ".tox/", ".nox/", ".eggs/", ".mypy_cache/", ".pytest_cache/",
	".ruff_cache/", "site-packages/", ".ipynb_checkpoints/",
};

int tl_torch_version_parse(const char *s)
{
	char *end;
	if (!isdigit((unsigned char)*s))
		return -1;
	long major = strtol(s, &end, 10), minor = 0;
	if (*end == '.') {
		if (!isdigit((unsigned char)end[1]))
			return -1;
		minor = strtol(end + 1, &end, 10);
		if (*end == '.') {
			if (!isdigit((unsigned char)end[1]))
				return -1;
			strtol(end + 1, &end, 10);
		}
	}
	if (*end || major > 99 || minor > 99)
		return -1;
	return (int)(major * 100 + minor);
}

void tl_config_defaults(TlConfig *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->dir = tl_strdup("");
	tl_patterns_init(&cfg->exclude, "");
	for (size_t i = 0; i < sizeof tl_config__default_excludes / sizeof *tl_config__default_excludes; i++)
		tl_patterns_add(&cfg->exclude, tl_config__default_excludes[i]);
}

void tl_config_release(TlConfig *cfg)
{
	tl_free(cfg->path);
	tl_free(cfg->dir);
	tl_str_array_release(&cfg->select);
	tl_str_array_release(&cfg->extend_select);
	tl_str_array_release(&cfg->ignore);
	tl_str_array_release(&cfg->external);
	tl_str_array_release(&cfg->src);
	for (uint32_t i = 0; i < cfg->per_file_ignores.size; i++) {
		tl_free(cfg->per_file_ignores.items[i].glob);
		tl_free(cfg->per_file_ignores.items[i].origin);
		tl_str_array_release(&cfg->per_file_ignores.items[i].selectors);
	}
	tl_array_release(&cfg->per_file_ignores);
	tl_patterns_release(&cfg->exclude);
	tl_str_array_release(&cfg->extends);
	for (uint32_t i = 0; i < cfg->inherited_exclude.size; i++)
		tl_patterns_release(&cfg->inherited_exclude.items[i]);
	tl_array_release(&cfg->inherited_exclude);
	memset(cfg, 0, sizeof *cfg);
}

static bool tl_config__error(FILE *err, const char *path, const TlTomlEntry *e, const char *what,
			     const char *key)
{
	tl_diagf(err, "%s:%u:%u: error: %s '%s'\n", path, e ? e->line : 1, e ? e->column : 1, what,
		key);
	return false;
}

/* A comma-separated selector list as --explain reads names: a code in any
 * case (tl101), a rule's name (missing-zero-grad), `all`; codes of other
 * case and prefixes (tl1) upper-cased; families and the rest as given.
 * Caller frees. */
char *tl_config_canonical_selectors(const TlRuleSet *rules, const char *list)
{
	TlBuf b;
	tl_buf_init(&b);
	const char *p = list;
	while (*p) {
		size_t n = strcspn(p, ", \t");
		if (n) {
			char *one = tl_strndup(p, n);
			const TlRule *r = NULL;
			for (uint32_t i = 0; i < rules->rules.size && !r; i++)
				if (strcasecmp(rules->rules.items[i]->code, one) == 0 ||
				    strcasecmp(rules->rules.items[i]->name, one) == 0)
					r = rules->rules.items[i];
			bool prefix = (one[0] == 't' || one[0] == 'T') && (one[1] == 'l' || one[1] == 'L') &&
				      one[2 + strspn(one + 2, "0123456789")] == '\0';
			if (b.len)
				tl_buf_addc(&b, ',');
			if (r)
				tl_buf_add(&b, r->code);
			else if (strcasecmp(one, "ALL") == 0)
				tl_buf_add(&b, "ALL");
			else if (prefix)
				tl_buf_addf(&b, "TL%s", one + 2);
			else
				tl_buf_add(&b, one);
			tl_free(one);
		}
		p += n;
		p += *p != '\0';
	}
	return b.data ? tl_buf_detach(&b) : tl_strdup("");
}

/* Copies a list of selectors, checking each names some rule; reports
 * every one that does not. */
static bool tl_config__selectors(const char *path, const TlTomlEntry *e, const TlRuleSet *rules,
				 TlStrArray *into, FILE *err)
{
	if (e->kind != TL_TOML_STRING_ARRAY)
		return tl_config__error(err, path, e, "expected a list of strings for", e->key);
	bool ok = true;
	for (uint32_t i = 0; i < e->array.size; i++) {
		char bad[128];
		char *canon = tl_config_canonical_selectors(rules, e->array.items[i]);
		bool added = tl_selection_add(rules, into, canon, bad, sizeof bad);
		tl_free(canon);
		if (!added) {
			/* Point at the string that holds it. */
			const TlTomlValue *item = e->value->items.items[i];
			tl_diagf(err, "%s:%u:%u: error: '%s' in '%s' matches no rule (see torchlint --list-rules)\n",
				path, item->line, item->column, bad, e->key);
			ok = false;
		}
	}
	return ok;
}

/* How many `extend` links one configuration may follow: a chain that long
 * is a cycle or a mistake. */
#define TL_CONFIG_EXTEND_MAX 8

static void tl_config__copy_patterns(TlPatterns *to, const TlPatterns *from)
{
	tl_patterns_init(to, from->base);
	for (uint32_t i = 0; i < from->items.size; i++) {
		TlPattern p = from->items.items[i];
		p.glob = tl_strdup(p.glob);
		tl_array_push(&to->items, p);
	}
}

/* `cfg` (just reset) starts from `base`, the configuration it extends:
 * its settings, its per-file-ignores anchored at its directory, its
 * excludes kept relative to it. */
static void tl_config__inherit(TlConfig *cfg, const TlConfig *base)
{
	cfg->has_select = base->has_select;
	for (uint32_t i = 0; i < base->select.size; i++)
		tl_array_push(&cfg->select, tl_strdup(base->select.items[i]));
	for (uint32_t i = 0; i < base->extend_select.size; i++)
		tl_array_push(&cfg->extend_select, tl_strdup(base->extend_select.items[i]));
	for (uint32_t i = 0; i < base->ignore.size; i++)
		tl_array_push(&cfg->ignore, tl_strdup(base->ignore.items[i]));
	for (uint32_t i = 0; i < base->external.size; i++)
		tl_array_push(&cfg->external, tl_strdup(base->external.items[i]));
	cfg->torch_version = base->torch_version;
	for (uint32_t i = 0; i < base->src.size; i++) /* absolute already */
		tl_array_push(&cfg->src, tl_strdup(base->src.items[i]));
	for (uint32_t i = 0; i < base->per_file_ignores.size; i++) {
		const TlPerFileIgnore *p = &base->per_file_ignores.items[i];
		TlPerFileIgnore c = { .absolute = true, .origin = tl_strdup(p->origin ? p->origin : base->path) };
		TlBuf g;
		tl_buf_init(&g);
		if (p->absolute)
			tl_buf_add(&g, p->glob);
		else if (!strchr(p->glob, '/'))
			tl_buf_addf(&g, "**/%s", p->glob);
		else
			tl_buf_addf(&g, "%s%s", base->dir, p->glob[0] == '/' ? p->glob + 1 : p->glob);
		c.glob = tl_buf_detach(&g);
		tl_array_init(&c.selectors);
		for (uint32_t k = 0; k < p->selectors.size; k++)
			tl_array_push(&c.selectors, tl_strdup(p->selectors.items[k]));
		tl_array_push(&cfg->per_file_ignores, c);
	}
	tl_array_push(&cfg->extends, tl_strdup(base->path));
	for (uint32_t i = 0; i < base->extends.size; i++)
		tl_array_push(&cfg->extends, tl_strdup(base->extends.items[i]));
	TlPatterns own;
	tl_config__copy_patterns(&own, &base->exclude);
	tl_array_push(&cfg->inherited_exclude, own);
	for (uint32_t i = 0; i < base->inherited_exclude.size; i++) {
		TlPatterns p;
		tl_config__copy_patterns(&p, &base->inherited_exclude.items[i]);
		tl_array_push(&cfg->inherited_exclude, p);
	}
}

static bool tl_config__load(TlConfig *cfg, const char *path, const TlRuleSet *rules, bool *found,
			    FILE *err, int depth);

bool tl_config_load(TlConfig *cfg, const char *path, const TlRuleSet *rules, bool *found,
		    FILE *err)
{
	return tl_config__load(cfg, path, rules, found, err, 0);
}

static bool tl_config__load(TlConfig *cfg, const char *path, const TlRuleSet *rules, bool *found,
			    FILE *err, int depth)
{
	tl_config_defaults(cfg);
	*found = false;
	TlSource src;
	char why[256];
	if (!tl_source_load(&src, path, why, sizeof why)) {
		tl_diagf(err, "torchlint: cannot read configuration '%s': %s\n", path, why);
		return false;
	}
	TlToml doc;
	if (!tl_toml_parse(&doc, src.text, src.length, why, sizeof why)) {
		unsigned line = 1, col = 1;
		int used = 0;
		if (sscanf(why, "%u:%u: %n", &line, &col, &used) < 2)
			used = 0;
		tl_diagf(err, "%s:%u:%u: error: %s\n", path, line, col, why + used);
		tl_source_release(&src);
		return false;
	}
	tl_source_release(&src);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *table = strcmp(base, "pyproject.toml") == 0 ? "tool.torchlint" : "";
	size_t tlen = strlen(table);
	/* A [tool.torchlint] table counts, even an empty one (as ruff's). */
	bool any = tlen && tl_toml_table_get(tl_toml_table_get(doc.root, "tool"), "torchlint");
	char *dir = tl_path_dirname_abs(path);
	tl_free(cfg->dir);
	cfg->dir = dir;
	cfg->path = tl_strdup(path);
	tl_patterns_release(&cfg->exclude);
	tl_patterns_init(&cfg->exclude, dir);
	TlPatterns extend;
	tl_patterns_init(&extend, dir);
	bool ok = true, exclude_set = false, base_excludes = false;
	char pfi_table[64];
	snprintf(pfi_table, sizeof pfi_table, "%s%sper-file-ignores", table, tlen ? "." : "");
	/* extend = "PATH" (relative to this file's directory): that
	 * configuration first, then this file's keys over it, as ruff's. */
	bool inherited = false;
	for (uint32_t i = 0; i < doc.entries.size; i++) {
		const TlTomlEntry *e = &doc.entries.items[i];
		if (strcmp(e->table, table) != 0 || strcmp(e->key, "extend") != 0)
			continue;
		any = true;
		if (e->kind != TL_TOML_STRING || !e->str[0]) {
			ok = tl_config__error(err, path, e, "expected the path of a configuration file for", "extend");
			continue;
		}
		if (depth >= TL_CONFIG_EXTEND_MAX) {
			tl_diagf(err, "%s:%u:%u: error: 'extend' goes %d files deep (a cycle?)\n", path, e->line,
				 e->column, TL_CONFIG_EXTEND_MAX);
			ok = false;
			continue;
		}
		TlBuf b;
		tl_buf_init(&b);
		if (e->str[0] == '/')
			tl_buf_add(&b, e->str);
		else
			tl_buf_addf(&b, "%s%s", dir, e->str);
		char *clean = tl_path_absolute(b.data); /* without "..": shown by --show-settings */
		tl_buf_clear(&b);
		tl_buf_add(&b, clean);
		tl_free(clean);
		TlConfig parent;
		bool parent_found;
		if (!tl_config__load(&parent, b.data, rules, &parent_found, err, depth + 1)) {
			tl_diagf(err, "%s:%u:%u: error: the configuration 'extend' names is invalid (above)\n", path,
				 e->line, e->column);
			ok = false;
		} else {
			/* The reset cfg keeps its path, directory and (empty) excludes. */
			tl_config__inherit(cfg, &parent);
			inherited = true;
			base_excludes = parent.has_exclude;
		}
		tl_config_release(&parent);
		tl_buf_release(&b);
	}
	/* This file's select, ignore and external replace the extended ones;
	 * extend-select and per-file-ignores add to them. */
	bool replaced_select = !inherited, replaced_ignore = !inherited, replaced_external = !inherited;
	/* Every error of the file is reported, not only the first: a run
	 * stops on an invalid configuration, so one run should show them all. */
	for (uint32_t i = 0; i < doc.entries.size; i++) {
		const TlTomlEntry *e = &doc.entries.items[i];
		if (strcmp(e->table, pfi_table) == 0) {
			any = true;
			TlPerFileIgnore pfi = { .absolute = false };
			tl_array_init(&pfi.selectors);
			if (!tl_config__selectors(path, e, rules, &pfi.selectors, err)) {
				tl_str_array_release(&pfi.selectors);
				ok = false;
				continue;
			}
			pfi.glob = tl_strdup(e->key);
			tl_array_push(&cfg->per_file_ignores, pfi);
			continue;
		}
		/* Only our table: other tools' tables in pyproject.toml are theirs. */
		if (strcmp(e->table, table) != 0) {
			if ((tlen && strncmp(e->table, table, tlen) == 0 && e->table[tlen] == '.') || !tlen) {
				tl_diagf(err, "%s:%u:%u: error: unknown table '[%s]'\n", path, e->line, 1,
					e->table);
				ok = false;
			}
			continue;
		}
		any = true;
		const char *k = e->key;
		if (strcmp(k, "extend") == 0) {
			continue; /* read above */
		} else if (strcmp(k, "select") == 0) {
			cfg->has_select = true;
			if (!replaced_select) {
				tl_str_array_release(&cfg->select);
				tl_array_init(&cfg->select);
				replaced_select = true;
			}
			ok &= tl_config__selectors(path, e, rules, &cfg->select, err);
		} else if (strcmp(k, "extend-select") == 0) {
			ok &= tl_config__selectors(path, e, rules, &cfg->extend_select, err);
		} else if (strcmp(k, "ignore") == 0) {
			if (!replaced_ignore) {
				tl_str_array_release(&cfg->ignore);
				tl_array_init(&cfg->ignore);
				replaced_ignore = true;
			}
			ok &= tl_config__selectors(path, e, rules, &cfg->ignore, err);
		} else if (strcmp(k, "exclude") == 0 || strcmp(k, "extend-exclude") == 0) {
			if (e->kind != TL_TOML_STRING_ARRAY) {
				ok = tl_config__error(err, path, e, "expected a list of globs for", k);
				continue;
			}
			bool replace = strcmp(k, "exclude") == 0;
			exclude_set |= replace;
			if (replace) {
				/* This file's exclude replaces the extended ones too. */
				for (uint32_t j = 0; j < cfg->inherited_exclude.size; j++)
					tl_patterns_release(&cfg->inherited_exclude.items[j]);
				cfg->inherited_exclude.size = 0;
				base_excludes = false;
			}
			for (uint32_t j = 0; j < e->array.size; j++)
				tl_patterns_add(replace ? &cfg->exclude : &extend, e->array.items[j]);
		} else if (strcmp(k, "external") == 0) {
			if (e->kind != TL_TOML_STRING_ARRAY) {
				ok = tl_config__error(err, path, e, "expected a list of codes for", k);
				continue;
			}
			if (!replaced_external) {
				tl_str_array_release(&cfg->external);
				tl_array_init(&cfg->external);
				replaced_external = true;
			}
			for (uint32_t j = 0; j < e->array.size; j++) {
				const char *c = e->array.items[j];
				size_t n = strspn(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789");
				if (!*c || c[n]) {
					tl_diagf(err, "%s:%u:%u: error: '%s' in 'external' is not a rule code or prefix (such as \"E501\" or \"B\")\n",
						path, e->line, e->column, c);
					ok = false;
				} else {
					tl_array_push(&cfg->external, tl_strdup(c));
				}
			}
		} else if (strcmp(k, "src") == 0) {
			/* Roots of the project's imports (ruff's `src`), relative
			 * to the configuration's directory. */
			if (e->kind != TL_TOML_STRING_ARRAY) {
				ok = tl_config__error(err, path, e, "expected a list of folders for", k);
				continue;
			}
			/* This file's src replaces an extended one's. */
			tl_str_array_release(&cfg->src);
			tl_array_init(&cfg->src);
			for (uint32_t j = 0; j < e->array.size; j++) {
				const char *d = e->array.items[j];
				TlBuf b;
				tl_buf_init(&b);
				if (d[0] != '/')
					tl_buf_add(&b, cfg->dir);
				tl_buf_add(&b, d);
				char *abs = tl_path_absolute(b.data);
				tl_buf_release(&b);
				tl_array_push(&cfg->src, abs);
			}
		} else if (strcmp(k, "torch-version") == 0) {
			int v = e->kind == TL_TOML_STRING ? tl_torch_version_parse(e->str) : -1;
			if (v < 0)
				ok = tl_config__error(err, path, e,
						      "expected a version string such as \"2.4\" for", k);
			else
				cfg->torch_version = v;
		} else {
			ok = tl_config__error(err, path, e, "unknown key", k);
		}
	}
	tl_toml_release(&doc);
	/* The defaults, unless this file or one it extends set `exclude`. */
	if (ok && !exclude_set && !base_excludes)
		for (size_t i = 0; i < sizeof tl_config__default_excludes / sizeof *tl_config__default_excludes; i++)
			tl_patterns_add(&cfg->exclude, tl_config__default_excludes[i]);
	cfg->has_exclude = exclude_set || base_excludes;
	/* extend-exclude adds after the base list (later patterns win). */
	for (uint32_t i = 0; ok && i < extend.items.size; i++) {
		TlPattern p = extend.items.items[i];
		p.glob = tl_strdup(p.glob);
		tl_array_push(&cfg->exclude.items, p);
	}
	tl_patterns_release(&extend);
	*found = any || !tlen;
	return ok;
}

static void tl_configs__add_cli_extra(const TlConfigs *cs, TlConfig *cfg);

/* Applies the --config KEY=VALUE lines `text` to `cfg`: each key given
 * replaces what the file set (per-file-ignores: the whole table). Errors
 * name the override by its number. */
static bool tl_config__override(TlConfig *cfg, const char *text, const TlRuleSet *rules, FILE *err)
{
	TlToml doc;
	char why[256];
	if (!tl_toml_parse(&doc, text, strlen(text), why, sizeof why)) {
		unsigned line = 1, col = 1;
		int used = 0;
		if (sscanf(why, "%u:%u: %n", &line, &col, &used) < 2)
			used = 0;
		/* Overrides are checked one by one as they come: the error is in the last. */
		unsigned n = 0;
		for (const char *c = text; *c; c++)
			n += *c == '\n';
		(void)line;
		tl_diagf(err, "torchlint: --config override %u: %s\n", n ? n : 1, why + used);
		return false;
	}
	bool ok = true, pfi_cleared = false;
	for (uint32_t i = 0; i < doc.entries.size; i++) {
		const TlTomlEntry *e = &doc.entries.items[i];
		const char *k = e->key;
		char where[64];
		snprintf(where, sizeof where, "--config override %u", e->key_line);
		if (strcmp(e->table, "per-file-ignores") == 0) {
			if (!pfi_cleared) {
				for (uint32_t j = 0; j < cfg->per_file_ignores.size; j++) {
					tl_free(cfg->per_file_ignores.items[j].glob);
					tl_free(cfg->per_file_ignores.items[j].origin);
					tl_str_array_release(&cfg->per_file_ignores.items[j].selectors);
				}
				cfg->per_file_ignores.size = 0;
				pfi_cleared = true;
			}
			TlPerFileIgnore pfi = { .absolute = false };
			tl_array_init(&pfi.selectors);
			if (!tl_config__selectors(where, e, rules, &pfi.selectors, err)) {
				tl_str_array_release(&pfi.selectors);
				ok = false;
				continue;
			}
			pfi.glob = tl_strdup(k);
			tl_array_push(&cfg->per_file_ignores, pfi);
			continue;
		}
		if (e->table[0]) {
			tl_diagf(err, "torchlint: %s: unknown table '%s'\n", where, e->table);
			ok = false;
			continue;
		}
		TlStrArray *list = strcmp(k, "select") == 0	   ? &cfg->select
				   : strcmp(k, "extend-select") == 0 ? &cfg->extend_select
				   : strcmp(k, "ignore") == 0	   ? &cfg->ignore
								   : NULL;
		if (list) {
			tl_str_array_release(list);
			tl_array_init(list);
			if (list == &cfg->select)
				cfg->has_select = true;
			ok &= tl_config__selectors(where, e, rules, list, err);
		} else if (strcmp(k, "torch-version") == 0) {
			int v = e->kind == TL_TOML_STRING ? tl_torch_version_parse(e->str) : -1;
			if (v < 0) {
				tl_diagf(err, "torchlint: %s: expected a version string such as \"2.4\" for '%s'\n", where, k);
				ok = false;
			} else {
				cfg->torch_version = v;
			}
		} else if (strcmp(k, "external") == 0 && e->kind == TL_TOML_STRING_ARRAY) {
			tl_str_array_release(&cfg->external);
			tl_array_init(&cfg->external);
			for (uint32_t j = 0; j < e->array.size; j++)
				tl_array_push(&cfg->external, tl_strdup(e->array.items[j]));
		} else if (strcmp(k, "exclude") == 0 || strcmp(k, "extend-exclude") == 0) {
			tl_diagf(err, "torchlint: %s: '%s' cannot be set this way (its globs are relative to a "
				 "configuration file); use --extend-exclude\n", where, k);
			ok = false;
		} else {
			tl_diagf(err, "torchlint: %s: unknown key '%s'\n", where, k);
			ok = false;
		}
	}
	tl_toml_release(&doc);
	return ok;
}

bool tl_configs_override(TlConfigs *cs, const char *kv, FILE *err)
{
	/* Numbered as its line in the joined text, which is how it is parsed. */
	TlBuf b;
	tl_buf_init(&b);
	if (cs->overrides)
		tl_buf_add(&b, cs->overrides);
	tl_buf_addf(&b, "%s\n", kv);
	/* Checked on a scratch configuration first: a bad override stops here. */
	TlConfig scratch;
	tl_config_defaults(&scratch);
	bool one_line = !strchr(kv, '\n') && !strchr(kv, '\r');
	if (!one_line)
		tl_diagf(err, "torchlint: --config: one KEY = VALUE line is expected\n");
	bool ok = one_line && tl_config__override(&scratch, b.data, cs->rules, err);
	tl_config_release(&scratch);
	if (!ok) {
		tl_buf_release(&b);
		return false;
	}
	tl_free(cs->overrides);
	cs->overrides = tl_buf_detach(&b);
	/* The defaults apply where no file does. */
	tl_config_release(&cs->defaults);
	tl_config_defaults(&cs->defaults);
	bool applied = tl_config__override(&cs->defaults, cs->overrides, cs->rules, err);
	tl_configs__add_cli_extra(cs, &cs->defaults);
	return applied;
}

/* ---- the set of configurations ------------------------------------------------- */

void tl_configs_init(TlConfigs *cs, const TlRuleSet *rules)
{
	memset(cs, 0, sizeof *cs);
	cs->rules = rules;
	tl_strmap_init(&cs->by_dir);
	tl_config_defaults(&cs->defaults);
	tl_patterns_init(&cs->extend_exclude, "");
	tl_patterns_init(&cs->exclude, "");
	tl_config_defaults(&cs->cli_extra);
}

/* Appends copies of the --per-file-ignores entries to `cfg`. */
static void tl_configs__add_cli_extra(const TlConfigs *cs, TlConfig *cfg)
{
	for (uint32_t i = 0; i < cs->cli_extra.per_file_ignores.size; i++) {
		const TlPerFileIgnore *p = &cs->cli_extra.per_file_ignores.items[i];
		TlPerFileIgnore c = { .glob = tl_strdup(p->glob), .absolute = true, .origin = tl_strdup("--per-file-ignores") };
		tl_array_init(&c.selectors);
		for (uint32_t k = 0; k < p->selectors.size; k++)
			tl_array_push(&c.selectors, tl_strdup(p->selectors.items[k]));
		tl_array_push(&cfg->per_file_ignores, c);
	}
}

bool tl_configs_per_file_ignores(TlConfigs *cs, const char *spec, FILE *err)
{
	const char *colon = strrchr(spec, ':');
	if (!colon || colon == spec || !colon[1]) {
		tl_diagf(err, "torchlint: --per-file-ignores '%s': expected GLOB:CODES (such as 'tests/*.py:TL101,TL2')\n",
			 spec);
		return false;
	}
	TlPerFileIgnore p = { .absolute = true, .origin = tl_strdup("--per-file-ignores") };
	tl_array_init(&p.selectors);
	char *canon = tl_config_canonical_selectors(cs->rules, colon + 1);
	char bad[128];
	bool ok = tl_selection_add(cs->rules, &p.selectors, canon, bad, sizeof bad);
	tl_free(canon);
	if (!ok) {
		tl_diagf(err, "torchlint: --per-file-ignores: '%s' matches no rule (see --list-rules)\n", bad);
		tl_str_array_release(&p.selectors);
		tl_free(p.origin);
		return false;
	}
	/* Anchored at the working directory; a bare name matches at any depth. */
	char *glob = tl_strndup(spec, (size_t)(colon - spec));
	TlBuf g;
	tl_buf_init(&g);
	if (strchr(glob, '/')) {
		char *cwd = tl_path_cwd();
		tl_buf_add(&g, cwd);
		tl_buf_add(&g, glob[0] == '/' ? glob + 1 : glob);
		tl_free(cwd);
	} else {
		tl_buf_addf(&g, "**/%s", glob);
	}
	tl_free(glob);
	p.glob = tl_buf_detach(&g);
	tl_array_push(&cs->cli_extra.per_file_ignores, p);
	/* The defaults get it now; files as they are loaded. */
	TlPerFileIgnore c = { .glob = tl_strdup(p.glob), .absolute = true, .origin = tl_strdup("--per-file-ignores") };
	tl_array_init(&c.selectors);
	for (uint32_t k = 0; k < p.selectors.size; k++)
		tl_array_push(&c.selectors, tl_strdup(p.selectors.items[k]));
	tl_array_push(&cs->defaults.per_file_ignores, c);
	return true;
}

/* Adds a comma-separated list of globs to `into`, whose base becomes the
 * working directory. */
static void tl_configs__add_globs(TlPatterns *into, const char *list)
{
	if (!into->base[0]) {
		tl_patterns_release(into);
		char *cwd = tl_path_cwd();
		tl_patterns_init(into, cwd);
		tl_free(cwd);
	}
	const char *p = list;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char *one = tl_strndup(p, n);
		/* A pattern is a .gitignore line: surrounding spaces are not part of it. */
		char *a = one, *z = one + n;
		while (*a == ' ')
			a++;
		while (z > a && z[-1] == ' ')
			*--z = '\0';
		if (*a)
			tl_patterns_add(into, a);
		tl_free(one);
		p += n + (end != NULL);
	}
}

void tl_configs_extend_exclude(TlConfigs *cs, const char *list)
{
	tl_configs__add_globs(&cs->extend_exclude, list);
}

void tl_configs_exclude(TlConfigs *cs, const char *list)
{
	tl_configs__add_globs(&cs->exclude, list);
	cs->has_exclude = true;
}

void tl_configs_release(TlConfigs *cs)
{
	for (uint32_t i = 0; i < cs->loaded.size; i++) {
		tl_config_release(cs->loaded.items[i]);
		tl_free(cs->loaded.items[i]);
	}
	tl_array_release(&cs->loaded);
	tl_strmap_release(&cs->by_dir);
	tl_config_release(&cs->defaults);
	tl_patterns_release(&cs->extend_exclude);
	tl_patterns_release(&cs->exclude);
	tl_free(cs->overrides);
	tl_config_release(&cs->cli_extra);
}

bool tl_configs_force(TlConfigs *cs, const char *path, FILE *err)
{
	TlConfig *cfg = tl_calloc(1, sizeof *cfg);
	bool found;
	if (!tl_config_load(cfg, path, cs->rules, &found, err) ||
	    (cs->overrides && !tl_config__override(cfg, cs->overrides, cs->rules, err))) {
		tl_config_release(cfg);
		tl_free(cfg);
		return false;
	}
	tl_configs__add_cli_extra(cs, cfg);
	tl_array_push(&cs->loaded, cfg);
	cs->forced = cfg;
	return true;
}

static bool tl_configs__exists(const char *dir, const char *name, char **path)
{
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_addf(&b, "%s%s", dir, name);
	struct stat st;
	/* Not only regular files: a FIFO or device by that name is refused
	 * by tl_config_load with a message, instead of being passed over. */
	if (stat(b.data, &st) == 0 && !S_ISDIR(st.st_mode)) {
		*path = tl_buf_detach(&b);
		return true;
	}
	tl_buf_release(&b);
	return false;
}

const TlConfig *tl_configs_for(TlConfigs *cs, const char *file, bool is_dir, FILE *err)
{
	if (cs->forced)
		return cs->forced;
	if (cs->isolated)
		return &cs->defaults;
	char *abs = tl_path_absolute(file);
	char *dir = is_dir ? tl_path_with_slash(abs) : tl_path_dirname_abs(abs);
	tl_free(abs);
	/* Walk up, remembering the directories passed, to cache the answer
	 * for each of them. */
	TlStrArray passed;
	tl_array_init(&passed);
	int32_t found = -1;
	for (;;) {
		int32_t cached;
		if (tl_strmap_get(&cs->by_dir, dir, strlen(dir), &cached)) {
			found = cached;
			break;
		}
		tl_array_push(&passed, tl_strdup(dir));
		char *path = NULL;
		bool have = false;
		/* In ruff's order (.ruff.toml, ruff.toml, pyproject.toml). */
		const char *names[] = { ".torchlint.toml", "torchlint.toml", "pyproject.toml" };
		for (int k = 0; k < 3 && !have; k++) {
			if (!tl_configs__exists(dir, names[k], &path))
				continue;
			TlConfig *cfg = tl_calloc(1, sizeof *cfg);
			bool any;
			if (!tl_config_load(cfg, path, cs->rules, &any, err)) {
				cs->failed = true;
				tl_config_release(cfg);
				tl_free(cfg);
				have = true; /* an invalid file still stops the search */
				found = -1;
			} else if (any) {
				/* Checked when added: applying them again cannot fail. */
				if (cs->overrides)
					tl_config__override(cfg, cs->overrides, cs->rules, err);
				tl_configs__add_cli_extra(cs, cfg);
				found = (int32_t)cs->loaded.size;
				tl_array_push(&cs->loaded, cfg);
				have = true;
			} else {
				tl_config_release(cfg);
				tl_free(cfg);
			}
			tl_free(path);
		}
		if (have || strcmp(dir, "/") == 0)
			break;
		char *parent = tl_path_parent(dir);
		tl_free(dir);
		dir = parent;
	}
	for (uint32_t i = 0; i < passed.size; i++)
		tl_strmap_put(&cs->by_dir, passed.items[i], strlen(passed.items[i]), found);
	tl_str_array_release(&passed);
	tl_free(dir);
	return found >= 0 ? cs->loaded.items[found] : &cs->defaults;
}
