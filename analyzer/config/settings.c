#include "config/settings.h"

#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/glob.h"
#include "base/paths.h"

static void tl_settings__copy(TlStrArray *into, const TlStrArray *from)
{
	for (uint32_t i = 0; i < from->size; i++)
		tl_array_push(into, tl_strdup(from->items[i]));
}

/* Applies one layer of selectors (ruff's layering): a `select` starts
 * over (syntax errors stay reported), then `extend-select` adds and
 * `ignore` removes. */
static void tl_settings__layer(const TlRuleSet *rules, bool *on, bool has_select,
			       const TlStrArray *select, const TlStrArray *extend,
			       const TlStrArray *ignore)
{
	for (uint32_t r = 0; r < rules->rules.size; r++) {
		const TlRule *rule = rules->rules.items[r];
		if (has_select)
			on[r] = tl_selectors_match(select, rule) || strcmp(rule->code, "TL000") == 0;
		if (tl_selectors_match(extend, rule))
			on[r] = true;
		if (tl_selectors_match(ignore, rule))
			on[r] = false;
	}
}

/* The selectors that `path`'s per-file-ignores of `cfg` name. */
static void tl_settings__per_file_ignores(const TlConfig *cfg, const char *path, TlStrArray *into)
{
	if (!cfg->per_file_ignores.size)
		return;
	char *abs = tl_path_absolute(path);
	size_t dl = strlen(cfg->dir);
	const char *rel = strncmp(abs, cfg->dir, dl) == 0 ? abs + dl : abs;
	for (uint32_t i = 0; i < cfg->per_file_ignores.size; i++) {
		const TlPerFileIgnore *p = &cfg->per_file_ignores.items[i];
		TlBuf g;
		tl_buf_init(&g);
		if (p->absolute)
			tl_buf_add(&g, p->glob); /* --per-file-ignores: whole, against the absolute path */
		else if (!strchr(p->glob, '/'))
			tl_buf_add(&g, "**/"); /* a bare name matches at any depth */
		if (!p->absolute)
			tl_buf_add(&g, p->glob[0] == '/' ? p->glob + 1 : p->glob);
		if (tl_glob_match(g.data, p->absolute ? abs : rel))
			tl_settings__copy(into, &p->selectors);
		tl_buf_release(&g);
	}
	tl_free(abs);
}

void tl_settings_selection(TlSelection *sel, const TlRuleSet *rules, const TlConfig *cfg,
			   const TlSelection *cli, const char *path)
{
	uint32_t n = rules->rules.size;
	bool *on = tl_calloc(n ? n : 1, sizeof(bool));
	for (uint32_t r = 0; r < n; r++)
		on[r] = rules->rules.items[r]->default_on;
	tl_settings__layer(rules, on, cfg->has_select, &cfg->select, &cfg->extend_select,
			   &cfg->ignore);
	tl_settings__layer(rules, on, cli->has_select, &cli->select, &cli->extend_select,
			   &cli->ignore);
	TlStrArray pfi;
	tl_array_init(&pfi);
	tl_settings__per_file_ignores(cfg, path, &pfi);
	TlStrArray none;
	tl_array_init(&none);
	tl_settings__layer(rules, on, false, &none, &none, &pfi);
	tl_str_array_release(&pfi);
	tl_selection_init(sel);
	sel->has_select = true;
	for (uint32_t r = 0; r < n; r++) {
		const char *code = rules->rules.items[r]->code;
		if (on[r])
			tl_array_push(&sel->select, tl_strdup(code));
		else if (strcmp(code, "TL000") == 0)
			tl_array_push(&sel->ignore, tl_strdup(code));
	}
	tl_free(on);
}
