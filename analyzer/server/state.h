/* The language server's shared state: the types and functions that
 * server.c (protocol, documents, configuration) and server_diag.c (analysis,
 * diagnostics, hover, code actions) both use. Private to analyzer/server/;
 * the rest of the program sees server.h only. */
#ifndef TL_SERVER_STATE_H
#define TL_SERVER_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <tree_sitter/api.h>

#include "base/array.h"
#include "base/buf.h"
#include "base/strmap.h"
#include "config/config.h"
#include "engine/engine.h"
#include "project/project.h"
#include "rules/rules.h"
#include "server/lsp.h"

typedef enum TlDocKind {
	TL_DOC_PYTHON,   /* a Python text document */
	TL_DOC_IPYNB,    /* an .ipynb file opened as JSON text */
	TL_DOC_CELL,     /* a cell of a notebook synchronised with notebookDocument/... */
} TlDocKind;

/* One published diagnostic, kept for hover and code actions. */
typedef struct TlDiag {
	const TlRule *rule; /* borrowed from the server's rule set */
	TlLspRange range;
	/* The finding's fix (Python documents only): edits on the bytes of the
	 * document's text as the client holds it; owned. */
	TlEdits edits;
	TlApplicability applicability;
	const char *fix_title; /* borrowed from the rule, or NULL */
} TlDiag;

typedef struct TlDoc {
	char *uri;
	char *path;          /* the file, or a stand-in below the workspace for other schemes */
	TlDocKind kind;
	char *notebook;      /* cells: the notebook's URI; else NULL */
	TlBuf text;          /* as the client holds it (UTF-8) */
	TSTree *tree;        /* Python documents without a BOM: the last parse, edited
			      * along with the text so the next parse is incremental; owned */
	int64_t version;
	int64_t due;         /* CLOCK_MONOTONIC ns when an analysis is due; 0: none */
	TlArray(TlDiag) diags;
	json_t *published;   /* the diagnostics last published (owned), parallel to diags */
} TlDoc;

typedef struct TlNbDoc {
	char *uri, *path;
	int64_t version;
	TlStrArray cells;    /* the cells' URIs, in order */
	TlArray(bool) code;  /* per cell: a code cell (others are Markdown) */
	int64_t due;
} TlNbDoc;

/* A configuration file's stat(2), to notice edits made outside the editor. */
typedef struct TlStamp {
	bool exists;
	int64_t mtime_ns, size, ino;
} TlStamp;

typedef struct TlServerStats {
	uint64_t analyses;
	int64_t last_ns, max_ns, total_ns; /* whole re-analysis: config lookup to JSON built */
	int64_t last_engine_ns;            /* of which the engine (parse included) */
	int64_t last_cpu_ns, max_cpu_ns;   /* the same re-analysis in CPU time: what it
					    * costs, whatever else the machine runs */
	uint32_t last_lines;               /* lines of the document last analysed */
	uint64_t hovers_during_analysis;   /* hovers answered while an analysis ran */
} TlServerStats;

typedef struct TlServer {
	TlRuleSet rules;
	TlEngine engine;
	TlConfigs configs;
	TlSelection client;    /* the editor's select/extend-select/ignore */
	int torch_version;     /* the editor's torch-version, 0 when not set */
	int64_t debounce_ns;
	char *root;            /* workspace root directory ending in '/' (stand-in paths) */
	TlArray(TlDoc *) docs;
	TlArray(TlNbDoc *) notebooks;
	TlArray(TlStamp) stamps;
	TlStrMap stamp_index;  /* config file path -> index into stamps */
	int64_t next_stamp_check;
	bool initialized, shutdown, exiting;
	bool markdown;         /* the client renders Markdown in hovers */
	bool watch_files;      /* the client registers file watchers dynamically */
	int out;               /* file descriptor messages are written to */
	int64_t next_id;       /* of requests the server sends */
	TlServerStats stats;
	/* The modules open documents import (project/): an open document's
	 * text stands for its file; a change to a module read for context
	 * makes every open document due. */
	TlProject *project;
	/* Input. During an analysis the engine's cancel hook reads what the
	 * client sends into `queue` (each item [0, message] or [1, why a frame
	 * was bad]), handled in order afterwards; a change to the document
	 * being analysed (`analysing`: its URI, or its notebook's), shutdown,
	 * exit or the end of input makes the analysis stale: it stops, and
	 * the document is analysed again once the queue is handled. */
	TlLspReader reader;
	json_t *queue;
	const char *analysing;
	bool stale, input_ended;
	int64_t next_peek;
} TlServer;

int64_t tl_server_now(void);
/* CPU time of the process, ns (the server is one thread). */
int64_t tl_server_cpu(void);
/* Sends `msg` (stolen) to the client. */
void tl_server_send(TlServer *s, json_t *msg);
/* window/showMessage (type 1 error, 2 warning, 3 info) and a log line on stderr. */
void tl_server_message(TlServer *s, int type, const char *text);
TlDoc *tl_server_doc(TlServer *s, const char *uri);
TlNbDoc *tl_server_notebook(TlServer *s, const char *uri);
/* Stats the configuration files that could apply to `path`; when one
 * changed since last seen, drops the cached configurations and makes every
 * open document due. Returns true when something changed. */
bool tl_server_check_configs(TlServer *s, const char *path);
/* Makes every open document (and notebook) due at `when`. */
void tl_server_mark_all_due(TlServer *s, int64_t when);

/* server_diag.c */
/* Analyses `d` (a Python or .ipynb document) and publishes its diagnostics. */
/* The engine's cancel hook (TlQexec.bound.cancel): true when the analysis in
 * progress is stale. */
bool tl_server_stale(void *data);
void tl_server_analyze_doc(TlServer *s, TlDoc *d);
/* Analyses the cells of `nb` together and publishes each cell's diagnostics. */
void tl_server_analyze_notebook(TlServer *s, TlNbDoc *nb);
/* Analyses what owns `d` (itself or its notebook) if it is due. */
void tl_server_flush(TlServer *s, TlDoc *d);
void tl_server_doc_clear(TlDoc *d);
json_t *tl_server_hover(TlServer *s, json_t *params, int *code, const char **why);
json_t *tl_server_code_action(TlServer *s, json_t *params, int *code, const char **why);

#endif
