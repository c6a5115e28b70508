/* `torchlint server`: a language server (LSP 3.17 over stdio) that keeps the
 * rules compiled and re-analyses open documents as they are edited.
 *
 * The rule set is loaded once; the engine compiles the query groups a
 * document needs the first time they are needed and keeps them (queryset.h),
 * so a re-analysis costs the analysis only.
 *
 * Two threads. The protocol thread's loop poll(2)s standard input and the
 * worker's pipe with a timeout equal to the time left before the next due
 * analysis: an edit makes its document due `debounce` later (a burst of
 * keystrokes costs one analysis), an open or a save makes it due at once.
 * Due documents are analysed one at a time on the worker thread
 * (server_worker.c); every request is answered at once, hover and code
 * actions from the diagnostics last published. A newer version of the
 * document being analysed cancels its analysis, which is never published.
 *
 * Documents: Python text documents, `.ipynb` files opened as JSON text
 * (analysed as notebooks, positions mapped into the JSON), and notebooks
 * synchronised with notebookDocument/... (each code cell is a text document;
 * the cells are analysed together, diagnostics are published per cell).
 *
 * Configuration per document as the CLI finds it (config.h, settings.h),
 * with the editor's settings (initializationOptions or
 * workspace/didChangeConfiguration, key "torchlint") as the command line's
 * layer. The configuration files that could apply to an open document are
 * stat(2)ed before each analysis and every two seconds while documents are
 * open; a change (or workspace/didChangeWatchedFiles naming one) drops the
 * cached configurations and re-analyses every open document.
 *
 * Memory: per open document its text, its last diagnostics and, for cells,
 * the notebook's cell list; per directory seen, one cached configuration
 * and two stat stamps; during an analysis, a copy of the analysed text.
 * Nothing grows with the number of edits. */
#ifndef TL_SERVER_H
#define TL_SERVER_H

/* Runs the server on standard input and output; `argv` follows the word
 * "server" (options: --rules-dir DIR, --debounce-ms N). Returns the exit
 * status: 0 after shutdown + exit, 1 on exit (or end of input) without
 * shutdown, 2 on a usage error or rules that do not load. */
int tl_server_main(int argc, char **argv);

#endif
