/* The project model (RULES.md principle 2): which modules of the project a
 * file imports, found as Python finds them, and those modules loaded on
 * demand (read, parsed, indexed, their facts built) once per run, whether
 * or not they were named on the command line. The facts layer reads them
 * through the TlImports interface (syntax/index.h) that a project offers.
 *
 * Roots, searched in this order for an absolute import `a.b`: the
 * importing file's folder when it is no package (a script's folder is
 * sys.path[0]), the folder above the top of its package chain (the
 * folders holding __init__.py), the closest folder above it with
 * pyproject.toml, setup.cfg, setup.py or .git (below any folder anyone may
 * write, such as /tmp, where a marker may be another user's), that
 * folder's src/ (a src
 * layout), and the roots given by `src` in [tool.torchlint]. A name is a
 * module `root/a/b.py` or a package `root/a/b/__init__.py`. A relative
 * import (`from ..utils import f`) is resolved from the importing file's
 * package. A file in an installed tree (site-packages, dist-packages: no
 * project file above it) sees its own top-level package only.
 *
 * Loading is under one re-entrant lock, which every question that reads a
 * loaded module also holds (TlImports.enter / leave): worker threads share
 * the loaded modules. A module whose load is under way is unknown to the
 * loads it starts, so import cycles end. Modules are keyed by their real
 * path and remember a hash of their text.
 *
 * The reverse question (TlImports.importer): the modules of the project
 * that import a module M, found once per run. The project's .py files are
 * listed once per project folder (project/scan.h: the discovery walk with
 * the configured excludes and .gitignore, bounded in entries, files and
 * steps; never a shared folder such as /tmp), keeping only their
 * import lines; a file whose
 * import lines name M (its module name, or its package's) is parsed and
 * counts when one of its imports resolves to M, or to a name of M's
 * package __init__.py (a factory or re-export there). More than
 * TL_PROJECT_MAX_IMPORTERS such candidates, or a scan over its bounds,
 * and M's importers are unknown (none).
 *
 * Owns: TlProject. */
#ifndef TL_PROJECT_H
#define TL_PROJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/array.h"
#include "config/discover.h"
#include "syntax/index.h"

typedef struct TlProject TlProject;

/* A new project; `src_roots` (may be NULL) are extra absolute roots. */
TlProject *tl_project_new(const TlStrArray *src_roots);
void tl_project_free(TlProject *p);
/* The walk (its configurations' excludes) that lists the project's files
 * for the reverse question; NULL (the default) walks with the default
 * excludes.
 * Its configurations are read under the project's lock: nothing else may
 * use them while files are analysed. */
void tl_project_set_discover(TlProject *p, const TlDiscoverOptions *opt);
/* Adds an absolute root searched after the ones a file's place gives. */
void tl_project_add_root(TlProject *p, const char *dir);
/* The interface the facts layer reads the project through. */
const TlImports *tl_project_imports(TlProject *p);
/* What a new text of a file changed for the files analysed with the
 * project: nothing; the analyses of some files (the ones named); every
 * file's. */
typedef enum TlProjectChange {
	TL_PROJECT_SAME,
	TL_PROJECT_SOME,
	TL_PROJECT_ALL,
} TlProjectChange;

/* The text to read for `path` instead of the file's (an editor's unsaved
 * document), or NULL to read the file again. When its import lines change,
 * every loaded module is forgotten (what imports what may differ): ALL.
 * Else, when it changes what a loaded module holds, the files whose
 * analyses read that module, directly or through others (project/deps.h),
 * may change: their real paths are appended to `affected` (may be NULL;
 * the file's own among them) and the modules among them are built again
 * when next asked (the module read again; the others indexed again on
 * their kept parse; the rest keep their index, facts and model): SOME.
 * Only while no question is being answered. */
TlProjectChange tl_project_set_text(TlProject *p, const char *path, const char *text, size_t len,
				    TlStrArray *affected);
/* Forgets every loaded module (a file changed on disk). Only while no
 * question is being answered. */
void tl_project_forget(TlProject *p);
/* The parse the project holds of the file at `path` when it reads `text`
 * (`len` bytes) there: a copy the caller deletes, or NULL. A file analysed
 * after a module import read it needs no second parse. */
TSTree *tl_project_tree_for(TlProject *p, const char *path, const char *text, size_t len);
/* How many modules were loaded for context, and the path of each (as
 * real paths), in load order; a module that could not be read is left
 * out. */
size_t tl_project_module_count(const TlProject *p);
const char *tl_project_module_path(const TlProject *p, size_t i);
/* The real path of module `i` when it was read but not used, over a
 * per-file limit (memory budget, CPU-time bound: base/budget.h), with the
 * reason in *why (a sentence starting "it ..."); else NULL. */
const char *tl_project_module_skipped(const TlProject *p, size_t i, const char **why);
/* How many folders the scans for importers have walked (each walk is
 * kept until tl_project_forget: an editor's text changing updates it in
 * place). Read from any thread. */
uint64_t tl_project_scan_walks(const TlProject *p);
/* Keeps what each file's analysis reads of the project's modules from
 * now on (project/deps.h), so that tl_project_set_text builds again only
 * what read a changed module; without it, a change forgets every loaded
 * module. For a project that lives across analyses (the language server). */
void tl_project_track(TlProject *p);
/* How many modules the project has parsed, and indexed (a module whose
 * text did not change is indexed again on its kept parse), so far. Read
 * from any thread. */
void tl_project_work(const TlProject *p, uint64_t *parses, uint64_t *builds);
/* True when the loaded module at real path `path` was read. */
bool tl_project_has_module(const TlProject *p, const char *path);

#endif
