/* `torchlint server`: the analysis thread.
 *
 * The protocol thread (server.c's loop) reads and answers every message;
 * analyses run here, one at a time. A job is a snapshot of what the
 * analysis reads: the document's text (or a notebook's cells), its
 * generation (TlDoc.gen), a copy of its last parse, the selection and
 * options its configuration gives, and the project model's interface. The
 * protocol thread makes the job while the worker is idle, so the
 * configurations and the project model are only ever touched by one thread
 * at a time: by the protocol thread between jobs, by the engine on the
 * worker during one (what the protocol thread must do to the project model
 * meanwhile waits for the job's end: TlServer.project_closed).
 *
 * Hand-over: one mutex and condition variable guard `job` (to the worker)
 * and `done` (back); the worker writes a byte to a pipe when a job is done,
 * which wakes the protocol thread's poll(2). A job is cancelled through an
 * atomic flag that the engine's cancel hook reads whenever it reads its
 * clock (base/budget.h): a newer version of the document, its close,
 * shutdown or exit. A result is published only when the document's
 * generation still matches, so a stale version is never published, and
 * results are published in the order the jobs ran. */
#include "server/state.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/paths.h"
#include "base/thread.h"
#include "config/discover.h"
#include "config/settings.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

/* Resident memory over the heap in use (KiB) that a close gives back. */
#define TL_WORKER_SLACK_KIB (32L * 1024)

typedef struct TlWorker {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	TlJob *job;   /* handed to the worker, not yet taken */
	TlJob *done;  /* finished, not yet collected */
	bool quit;
	bool exited;  /* the thread's last act, under mu (cv is signalled) */
	atomic_bool cancel;
	int wake[2];  /* the worker writes a byte to wake[1] when a job is done */
	TlEngine *engine;
	const TlRuleSet *rules;
} TlWorker;

/* ---- jobs ---------------------------------------------------------------------------------- */

static void tl_job__free(TlJob *job)
{
	if (!job)
		return;
	for (uint32_t i = 0; i < job->outs.size; i++) {
		TlJobOut *o = &job->outs.items[i];
		tl_free(o->uri);
		tl_buf_release(&o->text);
		tl_pub_clear(&o->pub);
		tl_array_release(&o->pub.diags);
	}
	tl_array_release(&job->outs);
	if (job->tree)
		ts_tree_delete(job->tree);
	tl_selection_release(&job->sel);
	tl_buf_release(&job->text);
	tl_free(job->uri);
	tl_free(job->path);
	tl_free(job);
}

static TlJobOut *tl_job__out(TlJob *job, const char *uri, uint64_t gen)
{
	TlJobOut o;
	memset(&o, 0, sizeof o);
	o.uri = tl_strdup(uri);
	o.gen = gen;
	tl_buf_init(&o.text);
	tl_pub_init(&o.pub);
	tl_array_push(&job->outs, o);
	return tl_array_last(&job->outs);
}

/* The selection and options that apply to `path`; false when the
 * configuration excludes it (then `sel` is left released). Configuration
 * errors are shown to the user. */
static bool tl_worker__settings(TlServer *s, const char *path, TlSelection *sel, int *torch)
{
	char *errs = NULL;
	size_t errlen = 0;
	FILE *err = open_memstream(&errs, &errlen);
	FILE *to = err ? err : stderr;
	const TlConfig *cfg = tl_configs_for(&s->configs, path, false, to);
	TlDiscoverOptions dopt = { &s->configs, false, true, NULL, NULL, to, NULL, 0, 0, false, NULL };
	bool excluded = tl_discover_excluded(&dopt, path, false);
	if (err)
		fclose(err);
	if (errs && errlen) {
		while (errlen && errs[errlen - 1] == '\n')
			errs[--errlen] = '\0';
		tl_server_message(s, 1, errs);
	}
	free(errs); /* open_memstream's allocation */
	if (excluded)
		return false;
	tl_settings_selection(sel, &s->rules, cfg, &s->client, path);
	*torch = s->torch_version ? s->torch_version : cfg->torch_version;
	for (uint32_t i = 0; s->project && i < cfg->src.size; i++)
		tl_project_add_root(s->project, cfg->src.items[i]);
	return true;
}

static TlJob *tl_job__new(TlServer *s, const char *uri, const char *path)
{
	TlJob *job = tl_calloc(1, sizeof *job);
	job->t0 = tl_server_now();
	job->uri = tl_strdup(uri);
	job->path = tl_strdup(path);
	tl_buf_init(&job->text);
	tl_array_init(&job->outs);
	tl_selection_init(&job->sel);
	job->imports = s->project ? tl_project_imports(s->project) : NULL;
	if (!tl_worker__settings(s, path, &job->sel, &job->torch_version)) {
		job->excluded = true;
		tl_selection_init(&job->sel); /* released by tl_worker__settings */
	}
	return job;
}

/* ---- the project model: open documents stand for their files ------------------------------- */

/* Makes due, now, the open documents and notebooks (but `self`) that
 * `change` says may change: all, or those whose files are in `affected`
 * (real paths). One whose own analysis is already due keeps its time. */
static void tl_worker__affect(TlServer *s, TlProjectChange change, const TlStrArray *affected,
			      const void *self)
{
	if (change == TL_PROJECT_SAME)
		return;
	int64_t now = tl_server_now();
	TlStrMap in;
	tl_strmap_init(&in);
	for (uint32_t i = 0; affected && i < affected->size; i++)
		tl_strmap_put(&in, affected->items[i], strlen(affected->items[i]), 1);
	for (uint32_t i = 0; i < s->docs.size + s->notebooks.size; i++) {
		bool doc = i < s->docs.size;
		TlDoc *d = doc ? s->docs.items[i] : NULL;
		TlNbDoc *nb = doc ? NULL : s->notebooks.items[i - s->docs.size];
		if ((doc && d->kind == TL_DOC_CELL) || (const void *)(doc ? (void *)d : (void *)nb) == self)
			continue;
		int64_t *due = doc ? &d->due : &nb->due;
		if (*due)
			continue;
		bool hit = change == TL_PROJECT_ALL;
		if (!hit) {
			char *real = tl_path_real(doc ? d->path : nb->path);
			int32_t v;
			hit = tl_strmap_get(&in, real, strlen(real), &v);
			tl_free(real);
		}
		if (hit)
			*due = now;
	}
	tl_strmap_release(&in);
}

/* Hands the project model the text of every open Python document that
 * changed since it last did, so that an analysis reads every open
 * document's text for its module, whichever document it is of; the
 * documents whose analyses read a module that changed are made due. */
static void tl_worker__sync(TlServer *s)
{
	if (!s->project)
		return;
	for (uint32_t i = 0; i < s->docs.size; i++) {
		TlDoc *d = s->docs.items[i];
		if (d->kind != TL_DOC_PYTHON || d->synced == d->gen)
			continue;
		d->synced = d->gen;
		/* A document that is no local file (untitled, another scheme or
		 * host) stands for no module: its path is a stand-in that other
		 * such documents share. */
		char *file = tl_lsp_uri_path(d->uri);
		tl_free(file);
		if (!file)
			continue;
		TlStrArray affected;
		tl_array_init(&affected);
		TlProjectChange change = tl_project_set_text(s->project, d->path, d->text.data, d->text.len,
							     &affected);
		tl_worker__affect(s, change, &affected, d);
		tl_str_array_release(&affected);
	}
}

/* A job for `d` (a Python or .ipynb document). */
static TlJob *tl_job__doc(TlServer *s, TlDoc *d)
{
	int64_t c0 = tl_server_cpu();
	tl_server_check_configs(s, d->path);
	tl_worker__sync(s);
	d->due = 0;
	TlJob *job = tl_job__new(s, d->uri, d->path);
	job->kind = d->kind;
	job->gen = d->gen;
	job->version = d->version;
	tl_buf_addn(&job->text, d->text.data, d->text.len);
	/* The tree goes with the job (state.h: TlDoc.tree_lent). */
	job->tree = d->tree;
	d->tree = NULL;
	d->tree_lent = true;
	d->tree_lost = false;
	tl_array_clear(&d->lent_edits);
	tl_job__out(job, d->uri, d->gen);
	job->prep_cpu_ns = tl_server_cpu() - c0;
	return job;
}

/* A job for the cells of `nb`, as one .ipynb. */
static TlJob *tl_job__notebook(TlServer *s, TlNbDoc *nb)
{
	int64_t c0 = tl_server_cpu();
	tl_server_check_configs(s, nb->path);
	tl_worker__sync(s);
	nb->due = 0;
	TlJob *job = tl_job__new(s, nb->uri, nb->path);
	job->notebook = true;
	job->kind = TL_DOC_IPYNB;
	job->gen = nb->gen;
	job->version = nb->version;
	json_t *cells = json_array();
	for (uint32_t i = 0; i < nb->cells.size; i++) {
		TlDoc *d = tl_server_doc(s, nb->cells.items[i]);
		const char *text = d ? d->text.data : "";
		size_t len = d ? d->text.len : 0;
		json_array_append_new(cells, json_pack("{s:s, s:s%}", "cell_type",
						       nb->code.items[i] ? "code" : "markdown",
						       "source", text, len));
		/* Every cell gets an entry, so that finding k of cell k lands
		 * there; a cell without its document publishes nothing. */
		TlJobOut *o = tl_job__out(job, d ? d->uri : "", d ? d->gen : 0);
		o->code = nb->code.items[i];
		if (d)
			tl_buf_addn(&o->text, text, len);
	}
	json_t *ipynb = json_pack("{s:o, s:i, s:i}", "cells", cells, "nbformat", 4, "nbformat_minor", 5);
	char *raw = json_dumps(ipynb, JSON_COMPACT);
	json_decref(ipynb);
	if (raw)
		tl_buf_add(&job->text, raw);
	free(raw); /* jansson's allocation */
	job->prep_cpu_ns = tl_server_cpu() - c0;
	return job;
}

/* ---- the thread ------------------------------------------------------------------------------ */

/* The engine's cancel hook (TlBound.cancel). */
static bool tl_worker__cancelled(void *data)
{
	TlWorker *w = data;
	return atomic_load_explicit(&w->cancel, memory_order_relaxed);
}

static void *tl_worker__main(void *arg)
{
	TlWorker *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->job && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->quit)
			break;
		TlJob *job = w->job;
		w->job = NULL;
		pthread_mutex_unlock(&w->mu);
		tl_diag_run_job(w->engine, w->rules, job);
		pthread_mutex_lock(&w->mu);
		w->done = job;
		char byte = 1;
		ssize_t rc;
		do
			rc = write(w->wake[1], &byte, 1);
		while (rc < 0 && errno == EINTR);
	}
	w->exited = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

bool tl_worker_start(TlServer *s)
{
	TlWorker *w = tl_calloc(1, sizeof *w);
	w->engine = &s->engine;
	w->rules = &s->rules;
	atomic_init(&w->cancel, false);
	if (pipe(w->wake) != 0) {
		tl_free(w);
		return false;
	}
	fcntl(w->wake[0], F_SETFL, fcntl(w->wake[0], F_GETFL) | O_NONBLOCK);
	fcntl(w->wake[0], F_SETFD, FD_CLOEXEC);
	fcntl(w->wake[1], F_SETFD, FD_CLOEXEC);
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	/* A long analysis stops when what it analyses changes (or the client
	 * leaves): the engine asks the flag whenever it reads its clock. */
	s->engine.qexec.bound.cancel = tl_worker__cancelled;
	s->engine.qexec.bound.cancel_data = w;
	/* The worker's stack is the CLI workers' (8 MiB; musl's default is
	 * 128 KiB): the parser and the index go deep on deep code. */
	if (tl_thread_start(&w->thread, tl_worker__main, w) != 0) {
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
		close(w->wake[0]);
		close(w->wake[1]);
		tl_free(w);
		return false;
	}
	s->worker = w;
	return true;
}

bool tl_worker_stop(TlServer *s, double grace)
{
	TlWorker *w = s->worker;
	if (!w)
		return true;
	atomic_store(&w->cancel, true);
	pthread_mutex_lock(&w->mu);
	w->quit = true;
	pthread_cond_broadcast(&w->cv);
	if (grace >= 0) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		long long ns = (long long)until.tv_nsec + (long long)(grace * 1e9);
		until.tv_sec += (time_t)(ns / 1000000000LL);
		until.tv_nsec = (long)(ns % 1000000000LL);
		while (!w->exited && pthread_cond_timedwait(&w->cv, &w->mu, &until) == 0)
			;
		if (!w->exited) {
			/* Still in work that reads no cancel flag: left running. */
			pthread_mutex_unlock(&w->mu);
			return false;
		}
	}
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	/* The job out, if any, is in w->job (never taken) or w->done. */
	tl_job__free(w->job);
	tl_job__free(w->done);
	s->inflight = NULL;
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	close(w->wake[0]);
	close(w->wake[1]);
	tl_free(w);
	s->worker = NULL;
	return true;
}

int tl_worker_fd(const TlServer *s)
{
	return s->worker ? s->worker->wake[0] : -1;
}

static void tl_worker__hand(TlServer *s, TlJob *job)
{
	TlWorker *w = s->worker;
	atomic_store(&w->cancel, false);
	pthread_mutex_lock(&w->mu);
	w->job = job;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	s->inflight = job;
}

/* ---- results --------------------------------------------------------------------------------- */

static void tl_worker__account(TlServer *s, const TlJob *job)
{
	int64_t dt = job->done_ns - job->t0, cpu = job->cpu_ns + job->prep_cpu_ns;
	TlServerStats *st = &s->stats;
	st->last_cpu_ns = cpu;
	if (cpu > st->max_cpu_ns)
		st->max_cpu_ns = cpu;
	st->analyses++;
	st->cancelled += job->cancelled;
	st->last_ns = dt;
	st->last_engine_ns = job->engine_ns;
	st->total_ns += dt;
	if (dt > st->max_ns)
		st->max_ns = dt;
	st->last_lines = job->lines;
}

/* Installs `o` as the diagnostics of its document and publishes them. */
static void tl_worker__publish(TlServer *s, TlDoc *d, TlJobOut *o)
{
	tl_pub_move(&d->pub, &o->pub);
	d->pub.gen = o->gen;
	tl_server_send(s, tl_lsp_notification(
				  "textDocument/publishDiagnostics",
				  json_pack("{s:s, s:I, s:O}", "uri", d->uri, "version", (json_int_t)d->version,
					    "diagnostics", d->pub.published)));
}

/* What waited for the job's end: the project model's changes, memory
 * given back after a large document closed. */
static void tl_worker__idle(TlServer *s)
{
	for (uint32_t i = 0; s->project && i < s->project_closed.size; i++) {
		/* Its file stands for the module again. */
		TlStrArray affected;
		tl_array_init(&affected);
		TlProjectChange change = tl_project_set_text(s->project, s->project_closed.items[i], NULL, 0,
							     &affected);
		tl_worker__affect(s, change, &affected, NULL);
		tl_str_array_release(&affected);
	}
	tl_str_array_release(&s->project_closed);
	tl_array_init(&s->project_closed);
	if (s->project_forget && s->project) {
		tl_project_forget(s->project);
		tl_server_mark_all_due(s, tl_server_now());
	}
	s->project_forget = false;
	if (s->closed) {
		/* Many small documents closed add up as one large one does:
		 * 3,000 of them left 1.1 GB resident over a heap of 1.6 MB.
		 * When what is resident exceeds the heap in use by more than
		 * TL_WORKER_SLACK_KIB, it goes back too (one read of /proc and
		 * of malloc's counts per idle turn after a close). */
		s->closed = false;
		long rss, heap;
		tl_server_memory(&rss, &heap);
		if (rss >= 0 && heap >= 0 && rss - heap / 1024 > TL_WORKER_SLACK_KIB)
			s->trim = true;
	}
	if (s->trim) {
		/* What a large document held (its tree, the parser's stacks
		 * grown for it) goes back to the system, not only to malloc:
		 * 1.75 GB stayed resident after closing one (issue 26). */
		ts_parser_reset(s->engine.parser);
#ifdef __GLIBC__
		malloc_trim(0);
#endif
		s->trim = false;
	}
}

bool tl_worker_collect(TlServer *s)
{
	TlWorker *w = s->worker;
	if (!w)
		return false;
	char buf[64];
	while (read(w->wake[0], buf, sizeof buf) > 0)
		;
	pthread_mutex_lock(&w->mu);
	TlJob *job = w->done;
	w->done = NULL;
	pthread_mutex_unlock(&w->mu);
	if (!job)
		return false;
	s->inflight = NULL;
	tl_worker__account(s, job);
	TlDoc *lender = job->notebook ? NULL : tl_server_doc(s, job->uri);
	if (lender && lender->tree_lent) {
		/* The tree comes back, with the edits made meanwhile. */
		lender->tree_lent = false;
		if (!lender->tree_lost && job->tree && !lender->tree) {
			for (uint32_t i = 0; i < lender->lent_edits.size; i++)
				ts_tree_edit(job->tree, &lender->lent_edits.items[i]);
			lender->tree = job->tree;
			job->tree = NULL;
		}
		lender->tree_lost = false;
		tl_array_clear(&lender->lent_edits);
	}
	if (!job->cancelled && !job->notebook) {
		TlDoc *d = lender;
		if (d && d->gen == job->gen && d->kind == job->kind)
			tl_worker__publish(s, d, &job->outs.items[0]);
	} else if (!job->cancelled) {
		TlNbDoc *nb = tl_server_notebook(s, job->uri);
		for (uint32_t i = 0; nb && nb->gen == job->gen && i < job->outs.size; i++) {
			TlJobOut *o = &job->outs.items[i];
			TlDoc *d = *o->uri ? tl_server_doc(s, o->uri) : NULL;
			if (d && d->gen == o->gen)
				tl_worker__publish(s, d, o);
		}
	}
	tl_job__free(job);
	tl_worker__idle(s);
	return true;
}

void tl_worker_check_stale(TlServer *s)
{
	TlJob *job = s->inflight;
	if (!job)
		return;
	bool stale = s->exiting || s->shutdown || s->input_ended;
	if (!stale && job->notebook) {
		TlNbDoc *nb = tl_server_notebook(s, job->uri);
		stale = !nb || nb->gen != job->gen;
	} else if (!stale) {
		TlDoc *d = tl_server_doc(s, job->uri);
		stale = !d || d->gen != job->gen;
	}
	if (stale)
		atomic_store(&s->worker->cancel, true);
}

void tl_worker_run_due(TlServer *s)
{
	if (s->inflight || !s->worker || s->exiting || s->shutdown)
		return;
	tl_worker__idle(s);
	int64_t now = tl_server_now();
	for (uint32_t i = 0; i < s->docs.size; i++) {
		TlDoc *d = s->docs.items[i];
		if (d->due && d->due <= now && d->kind != TL_DOC_CELL) {
			tl_worker__hand(s, tl_job__doc(s, d));
			return;
		}
	}
	for (uint32_t i = 0; i < s->notebooks.size; i++) {
		TlNbDoc *nb = s->notebooks.items[i];
		if (nb->due && nb->due <= now) {
			tl_worker__hand(s, tl_job__notebook(s, nb));
			return;
		}
	}
}

uint32_t tl_worker_pending(const TlServer *s)
{
	/* A closed document or a module changed on disk may make others due
	 * once the worker is idle. */
	uint32_t n = (s->inflight ? 1 : 0) + (s->project_closed.size || s->project_forget ? 1 : 0);
	for (uint32_t i = 0; i < s->docs.size; i++)
		n += s->docs.items[i]->kind != TL_DOC_CELL && s->docs.items[i]->due;
	for (uint32_t i = 0; i < s->notebooks.size; i++)
		n += s->notebooks.items[i]->due != 0;
	return n;
}
