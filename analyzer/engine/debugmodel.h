/* `torchlint debug model FILE[:LINE]`: what the analyzer knows about the
 * calls of a file (or of one line of it), for rule authors and bug reports.
 *
 * Partial, and says so in its output: the semantic model
 * (docs/semantic-model.md) does not exist yet, so it prints, for each call,
 * its import-resolved qualified name and the rows of the API table
 * (api/api.tsv) that a lookup by that name, by its method or as a builtin
 * finds, the way the graph-tensor questions look them up; no abstract
 * values, program-point state or summaries. The file is analysed alone
 * (imports of the project's other modules are not followed).
 *
 * Owns: tl_debug_main. */
#ifndef TL_DEBUGMODEL_H
#define TL_DEBUGMODEL_H

#include <stdio.h>

/* Runs `torchlint debug ...` with argv[0] = "debug"; writes the report to
 * `out` and diagnostics to `err`. Returns 0, or 2 on a usage error or a
 * file that cannot be read. */
int tl_debug_main(int argc, char **argv, FILE *out, FILE *err);

#endif
