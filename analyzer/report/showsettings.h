/* `torchlint --show-settings PATH`: the configuration that applies to one
 * file, or to the files in a directory, and where each value comes from
 * (the configuration file, the command line or the built-in default). */
#ifndef TL_SHOWSETTINGS_H
#define TL_SHOWSETTINGS_H

#include <stdio.h>

#include "config/config.h"
#include "rules/rules.h"

typedef struct TlShowSettings {
	const char *file;            /* as given */
	const TlConfig *config;      /* what tl_configs_for found (borrowed) */
	const TlRuleSet *rules;
	const TlSelection *cli;      /* the command line's selectors */
	const TlSelection *selected; /* the final selection for the file (explicit codes) */
	const char *cli_torch_version; /* --torch-version, or NULL */
	bool isolated, forced;       /* --isolated; --config */
	bool is_dir;                 /* `file` is a directory: its files' settings */
	const TlPatterns *cli_exclude; /* --extend-exclude (none: no items) */
	const TlStrArray *overrides;   /* --config KEY=VALUE lines, or NULL */
} TlShowSettings;

void tl_show_settings(FILE *out, const TlShowSettings *s);

#endif
