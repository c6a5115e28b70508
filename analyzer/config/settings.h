/* What applies to one file: its rule selection, built the same way for the
 * command line and the language server. The layers, in order: the rules'
 * defaults, the file's configuration (select / extend-select / ignore), the
 * caller's options (command-line flags or editor settings), then the
 * configuration's per-file-ignores that match the file. */
#ifndef TL_SETTINGS_H
#define TL_SETTINGS_H

#include "config/config.h"
#include "rules/rules.h"

/* Fills `sel` (initialised here; caller releases with tl_selection_release)
 * with the rules for `path` as an explicit list of codes. `cli` is the
 * caller's layer (borrowed; an empty selection for none). TL000 stays on
 * across a `select` unless some layer ignores it. */
void tl_settings_selection(TlSelection *sel, const TlRuleSet *rules, const TlConfig *cfg,
			   const TlSelection *cli, const char *path);

#endif
