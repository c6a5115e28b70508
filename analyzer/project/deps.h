/* What the analyses of a project read of each other (private to
 * analyzer/project/): an edge from file A to file B when a question asked
 * while A was analysed, or while A's module's facts or model were built,
 * was answered with module B: the module an import of A names
 * (TlImports.module), or a module that imports A or was read as a
 * candidate importer of A (TlImports.importer). Every other module's index,
 * summary or model an answer about A rests on was reached so, one edge at
 * a time, so the files whose findings may change when B's text changes are
 * those from which B can be reached (tl_deps_reaching): the rest keep what
 * they computed. Files are named by their real paths; an open document's
 * own analysis asks as its file.
 *
 * Owns: TlDeps. */
#ifndef TL_PROJECT_DEPS_H
#define TL_PROJECT_DEPS_H

#include <stdbool.h>

#include "base/array.h"
#include "base/strmap.h"

typedef struct TlDeps {
	TlStrMap node_of;   /* real path -> node */
	TlStrArray paths;   /* per node, its real path */
	TlIntLists out;     /* per node, the nodes it read (each once) */
	TlStrMap edge_of;   /* (node, node) as 8 bytes -> 1: the edges already noted */
} TlDeps;

void tl_deps_init(TlDeps *d);
void tl_deps_release(TlDeps *d);
/* Notes that an analysis of `from` read module `to` (real paths). */
void tl_deps_add(TlDeps *d, const char *from, const char *to);
/* The real paths of the files from which `path` can be reached (itself
 * included, when it is a node), appended to `out`; none when it is no
 * node. Breadth first over the reversed edges (no recursion). */
void tl_deps_reaching(const TlDeps *d, const char *path, TlStrArray *out);

#endif
