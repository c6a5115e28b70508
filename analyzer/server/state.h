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

/* A document's published diagnostics: what hover and code actions read. */
typedef struct TlPub {
	TlArray(TlDiag) diags;
	json_t *published; /* the diagnostics as published (owned), parallel to diags */
	uint64_t gen;      /* the document's generation they were computed for */
} TlPub;

typedef struct TlDoc {
	char *uri;
	char *path;          /* the file, or a stand-in below the workspace for other schemes */
	TlDocKind kind;
	char *notebook;      /* cells: the notebook's URI; else NULL */
	TlBuf text;          /* as the client holds it (UTF-8) */
	TSTree *tree;        /* Python documents without a BOM: the last parse, edited
			      * along with the text so the next parse is incremental; owned */
	/* A tree is never shared between threads (tree-sitter's reference
	 * counts are not read atomically everywhere): a job takes the tree
	 * (`tree_lent`, `tree` NULL meanwhile) and gives back the new parse
	 * (or the old tree, cancelled), on which the edits made meanwhile
	 * (`lent_edits`) are then made; a full-text change or a reopen
	 * meanwhile makes it of no use (`tree_lost`). */
	bool tree_lent, tree_lost;
	TlArray(TSInputEdit) lent_edits;
	int64_t version;
	/* Changes with every open and edit of the text (a server-wide counter,
	 * so a document closed and opened again never repeats one): an
	 * analysis's result is published only while it still matches. */
	uint64_t gen;
	/* Python documents: the generation whose text the project model reads
	 * for the file (server_worker.c: every open document's text stands
	 * for its module before any analysis starts); 0: none yet. */
	uint64_t synced;
	int64_t due;         /* CLOCK_MONOTONIC ns when an analysis is due; 0: none */
	TlPub pub;           /* the last published diagnostics (of generation pub.gen) */
} TlDoc;

/* One document's diagnostics out of an analysis. */
typedef struct TlJobOut {
	char *uri;
	uint64_t gen;   /* the document's generation when the job was made */
	bool code;      /* cells: a code cell (others are Markdown) */
	TlBuf text;     /* cells: the cell's text then (positions are mapped in it) */
	TlPub pub;
} TlJobOut;

/* An analysis handed to the worker: a snapshot of everything it reads,
 * so that the protocol thread goes on changing documents meanwhile. */
typedef struct TlJob {
	/* Filled by the protocol thread; read by the worker. */
	bool notebook;       /* the cells of a notebook synchronised cell by cell */
	TlDocKind kind;      /* else: the document's kind */
	char *uri;           /* the document's, or the notebook's */
	char *path;
	uint64_t gen;        /* its generation when the job was made */
	int64_t version;
	TlBuf text;          /* the document's text, or the cells as an .ipynb */
	TSTree *tree;        /* in: a copy of the document's edited last parse, or
			      * NULL; out: the new parse (Python documents) */
	bool excluded;       /* the configuration excludes the file: nothing to report */
	TlSelection sel;
	int torch_version;
	const TlImports *imports;
	TlArray(TlJobOut) outs; /* a document: one; a notebook: one per cell */
	int64_t t0, prep_cpu_ns; /* when the job was made, and what making it cost */
	/* Filled by the worker. */
	bool cancelled;      /* stopped by the cancel flag: nothing to publish */
	int64_t done_ns, engine_ns, cpu_ns;
	uint32_t lines;
} TlJob;

typedef struct TlNbDoc {
	char *uri, *path;
	int64_t version;
	TlStrArray cells;    /* the cells' URIs, in order */
	TlArray(bool) code;  /* per cell: a code cell (others are Markdown) */
	uint64_t gen;        /* as TlDoc.gen: changes with the cells or their text */
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
	uint64_t cancelled;                /* analyses stopped as stale (of `analyses`) */
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
	/* The modules open documents import or are imported by (project/):
	 * an open document's text stands for its file; a change to a module
	 * makes due the open documents whose analyses read it, directly or
	 * through other modules (project/deps.h); a change of its import
	 * lines, every open document. */
	TlProject *project;
	/* Input, read by the loop (the protocol thread), which answers every
	 * request at once; analyses run on the worker (server_worker.c). */
	TlLspReader reader;
	bool input_ended;
	uint64_t gen_next;     /* the last generation handed out (TlDoc.gen) */
	/* The analysis thread and the job it holds (NULL: idle). While a job
	 * is out, the engine, the project model and the engine's parser are
	 * the worker's; the protocol thread touches them only while idle. */
	struct TlWorker *worker;
	struct TlJob *inflight;
	/* What the protocol thread could not do to the project model while a
	 * job was out, done before the next job starts: the paths of closed
	 * documents (their files count again), and whether every loaded
	 * module is to be forgotten (a module changed on disk). */
	TlStrArray project_closed;
	bool project_forget;
	bool trim;             /* a large document was closed: give memory back when idle */
	bool closed;           /* a document was closed since the worker was last idle */
	TSParser *parser;      /* the protocol thread's own (code actions) */
	/* Requests answered once the analysis of their document's text is
	 * published (server.c: tl_server__must_wait), in arrival order. */
	json_t *parked;
} TlServer;

int64_t tl_server_now(void);
/* CPU time of the calling thread, ns. */
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

/* Generations (TlDoc.gen): the next one. */
uint64_t tl_server_gen(TlServer *s);
void tl_server_doc_clear(TlDoc *d);
void tl_pub_init(TlPub *p);
void tl_pub_clear(TlPub *p);
/* Moves `from`'s diagnostics into `to` (whose old ones are released). */
void tl_pub_move(TlPub *to, TlPub *from);

/* server_diag.c: analysis (run on the worker thread: it reads only the job
 * and the read-only rule set, and uses the engine handed to it) and the
 * features that read published diagnostics (on the protocol thread). */
struct TlJob;
void tl_diag_run_job(TlEngine *e, const TlRuleSet *rules, struct TlJob *job);
json_t *tl_server_hover(TlServer *s, json_t *params, int *code, const char **why);
json_t *tl_server_code_action(TlServer *s, json_t *params, int *code, const char **why);
/* The kinds a codeAction request asks for (its context.only). */
void tl_server_action_kinds(json_t *params, bool *quick, bool *fix_all);

/* Process memory now: resident set (KiB) from /proc, heap bytes in use
 * (glibc); -1 for what cannot be read. */
void tl_server_memory(long *rss_kib, long *heap);

/* server_worker.c: the analysis thread. */
/* Starts the worker; false when the thread cannot be created. */
bool tl_worker_start(TlServer *s);
/* Cancels the job out (if any), stops the thread and waits for it: at
 * most `grace` seconds when not negative, and then false if it is still
 * running (left as it is: the process is about to end). */
bool tl_worker_stop(TlServer *s, double grace);
/* The descriptor that becomes readable when the job out is done. */
int tl_worker_fd(const TlServer *s);
/* Takes the finished job, if there is one, and publishes its diagnostics
 * when its document has not changed since. Returns true when one was taken. */
bool tl_worker_collect(TlServer *s);
/* Cancels the job out when its document changed, closed, or the server is
 * shutting down (its result could never be published). */
void tl_worker_check_stale(TlServer *s);
/* Starts the analysis of one due document (or notebook) when the worker
 * is idle. */
void tl_worker_run_due(TlServer *s);
/* Open documents and notebooks whose analysis is due or running (for
 * torchlint/stats). */
uint32_t tl_worker_pending(const TlServer *s);

#endif
