#include "engine/debugmodel.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tree_sitter/api.h>

#include "base/alloc.h"
#include "base/budget.h"
#include "base/buf.h"
#include "base/escape.h"
#include "base/source.h"
#include "model/apitable.h"
#include "model/model.h"
#include "syntax/walk.h"
#include "facts/facts.h"
#include "syntax/index.h"
#include "syntax/syms.h"
#include "project/project.h"

#define TL_DEBUG_USAGE "usage: torchlint debug model FILE[:LINE]\n"

/* A callee text longer than this is cut in the report (it names the call;
 * the position says where it is). */
#define TL_DEBUG_CALLEE_MAX 80

static void tl_debug__row(TlBuf *b, const char *how, const char *prefix, const char *name,
			  const TlApiRow *r)
{
	tl_buf_addf(b, "  %-10s ", how);
	tl_escape_add(b, prefix, strlen(prefix));
	tl_escape_add(b, name, strlen(name));
	if (!r) {
		tl_buf_add(b, ": no row\n");
		return;
	}
	char roles[64], sets[256];
	tl_api_roles_format(r->roles, roles, sizeof roles);
	tl_api_sets_format(r->sets, sets, sizeof sets);
	tl_buf_addf(b, ": api/api.tsv:%u graph=%s kind=%s device=%s dtype=%s roles=%s sets=%s\n",
		    (unsigned)r->line, tl_api_graph_name(r->graph), tl_api_kind_name(r->kind),
		    tl_api_device_name(r->device), tl_api_dtype_name(r->dtype), roles, sets);
}

/* Splits `arg` into a path and a line: `train.py:12` is train.py, line 12,
 * unless a file is named `train.py:12`. *line is 0 for every line. */
static char *tl_debug__target(const char *arg, unsigned long *line)
{
	*line = 0;
	struct stat st;
	const char *colon = strrchr(arg, ':');
	if (!colon || !colon[1] || stat(arg, &st) == 0)
		return tl_strdup(arg);
	char *end = NULL;
	errno = 0;
	unsigned long n = strtoul(colon + 1, &end, 10);
	if (*end || errno || colon[1] < '0' || colon[1] > '9' || n == 0 || n > UINT32_MAX)
		return tl_strdup(arg);
	*line = n;
	return tl_strndup(arg, (size_t)(colon - arg));
}

static int tl_debug__model(const char *arg, FILE *out, FILE *err)
{
	unsigned long line;
	char *path = tl_debug__target(arg, &line);
	TlSource src;
	char why[256];
	if (!tl_source_load(&src, path, why, sizeof why)) {
		tl_diagf(err, "torchlint debug model: cannot read '%s': %s\n", path, why);
		tl_free(path);
		return 2;
	}
	size_t plen = strlen(path);
	if (plen >= 6 && strcmp(path + plen - 6, ".ipynb") == 0) {
		tl_diagf(err, "torchlint debug model: '%s' is a notebook; give it a .py file\n", path);
		tl_source_release(&src);
		tl_free(path);
		return 2;
	}
	/* The memory budget of every analysis (base/budget.h). */
	if (tl_budget_tokens_over(src.text, src.length, TL_BUDGET_MAX_TOKENS) > TL_BUDGET_MAX_TOKENS) {
		tl_diagf(err, "torchlint debug model: '%s' holds more than %u tokens\n", path,
			 (unsigned)TL_BUDGET_MAX_TOKENS);
		tl_source_release(&src);
		tl_free(path);
		return 2;
	}
	TSParser *parser = ts_parser_new();
	ts_parser_set_language(parser, tl_python_language());
	TSTree *tree = ts_parser_parse_string(parser, NULL, src.text, src.length);
	/* The file in its project, as the analysis reads it: the modules it
	 * imports are read for their summaries (the file's own path made
	 * absolute, as the project's roots are found from its place). */
	TlProject *project = tl_project_new(NULL);
	char *abs = realpath(path, NULL);
	if (abs) {
		tl_free(src.path);
		src.path = tl_strdup(abs);
		free(abs);
	}
	TlIndex idx;
	tl_facts_build_in(&idx, &src, ts_tree_root_node(tree), NULL, tl_project_imports(project));

	TlBuf b;
	tl_buf_init(&b);
	tl_buf_add(&b, "# torchlint debug model: the semantic model of the file, read in its project (the\n"
		       "# modules it imports give their summaries). Each function's summary (the value it\n"
		       "# returns; +params: its graph follows those parameters), then each call with its\n"
		       "# qualified name and API table rows, then the value of each name, attribute,\n"
		       "# subscript and call the interpreter evaluated.\n");
	const TlModel *model = tl_model_of(&idx);
	if (model) {
		TlModelStats st;
		tl_model_stats(model, &st);
		tl_buf_addf(&b, "# %u values, %u function interpretations in %u components (%u left out: nothing they read changed), %u loop rounds, %u widened%s\n",
			    st.values, st.functions, st.components, st.skipped, st.rounds, st.widened,
			    tl_model_cut(model) ? ", cut by the work budget" : "");
		for (uint32_t f = 0; f < idx.funcs.size; f++) {
			TlVal r;
			TSPoint at = ts_node_start_point(idx.funcs.items[f].node);
			if (line && at.row + 1 != line)
				continue;
			if (!tl_model_returns(&idx, (int32_t)f, &r))
				continue;
			tl_escape_add(&b, path, strlen(path));
			tl_buf_addf(&b, ":%u:%u: def %s returns ", at.row + 1, at.column + 1, idx.funcs.items[f].name);
			tl_model_describe(model, &r, &b);
			if (r.fresh & TL_FRESH_RUN) /* fresh.c: computed from its arguments only */
				tl_buf_addf(&b, " of-its-arguments");
			tl_buf_addc(&b, '\n');
		}
	}
	unsigned shown = 0;
	for (uint32_t i = 0; i < idx.calls.size; i++) {
		const TlCall *c = &idx.calls.items[i];
		TSPoint at = ts_node_start_point(c->node);
		if (line && at.row + 1 != line)
			continue;
		shown++;
		uint32_t len = 0;
		const char *callee = tl_index_text(&idx, c->callee, &len);
		tl_escape_add(&b, path, strlen(path));
		tl_buf_addf(&b, ":%u:%u: call `", at.row + 1, at.column + 1);
		if (callee) {
			tl_escape_add(&b, callee, len > TL_DEBUG_CALLEE_MAX ? TL_DEBUG_CALLEE_MAX : len);
			if (len > TL_DEBUG_CALLEE_MAX)
				tl_buf_add(&b, "...");
		}
		tl_buf_add(&b, "(...)`\n  qualified  ");
		if (c->qname)
			tl_escape_add(&b, c->qname, strlen(c->qname));
		else
			tl_buf_add(&b, "(none)");
		tl_buf_add(&b, "\n");
		/* The lookups the facts make: a call on a receiver by its
		 * method, a call of a bare name as a builtin, the qualified
		 * name, and (where the table has it) the last part of the
		 * qualified name from any module. */
		if (c->method && !ts_node_is_null(c->receiver))
			tl_debug__row(&b, "method", ".", c->method, tl_api_method(c->method));
		else if (c->method)
			tl_debug__row(&b, "builtin", "builtins.", c->method, tl_api_builtin(c->method));
		if (c->qname) {
			tl_debug__row(&b, "qualified", "", c->qname, tl_api_qualified(c->qname));
			const TlApiRow *any = tl_api_any(c->qname);
			if (any) {
				const char *dot = strrchr(c->qname, '.');
				tl_debug__row(&b, "any", "*.", dot ? dot + 1 : c->qname, any);
			}
			const TlApiRow *under = tl_api_under(c->qname);
			if (under)
				tl_debug__row(&b, "under", "", c->qname, under);
		}
	}
	if (model) {
		/* The values, in preorder. */
		const TlSyms *sy = tl_syms();
		TSTreeCursor cur = ts_tree_cursor_new(ts_tree_root_node(tree));
		TSNode root = ts_tree_root_node(tree);
		do {
			TSNode n = ts_tree_cursor_current_node(&cur);
			TSSymbol s = ts_node_symbol(n);
			if (s != sy->identifier && s != sy->attribute && s != sy->subscript && s != sy->call)
				continue;
			TSPoint at = ts_node_start_point(n);
			if (line && at.row + 1 != line)
				continue;
			TlVal v;
			if (!tl_model_value(&idx, n, &v))
				continue;
			uint32_t len = 0;
			const char *t = tl_index_text(&idx, n, &len);
			tl_escape_add(&b, path, strlen(path));
			tl_buf_addf(&b, ":%u:%u: value `", at.row + 1, at.column + 1);
			if (t)
				tl_escape_add(&b, t, len > TL_DEBUG_CALLEE_MAX ? TL_DEBUG_CALLEE_MAX : len);
			tl_buf_add(&b, "` ");
			tl_model_describe(model, &v, &b);
			tl_buf_addc(&b, '\n');
			shown++;
		} while (tl_walk_next(&cur, root, true));
		ts_tree_cursor_delete(&cur);
	}
	if (!shown) {
		if (line)
			tl_buf_addf(&b, "# no call starts on line %lu\n", line);
		else
			tl_buf_add(&b, "# no calls\n");
	}
	fputs(b.data, out);
	tl_buf_release(&b);
	tl_index_release(&idx);
	tl_project_free(project);
	ts_tree_delete(tree);
	ts_parser_delete(parser);
	tl_source_release(&src);
	tl_free(path);
	return 0;
}

int tl_debug_main(int argc, char **argv, FILE *out, FILE *err)
{
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(TL_DEBUG_USAGE "Prints what the analyzer knows about the calls of FILE (or of its line LINE):\n"
				     "the summary of each function, each call's qualified name and API table rows,\n"
				     "and the abstract value of each name, attribute, subscript and call.\n",
		      out);
		return 0;
	}
	if (argc != 3 || strcmp(argv[1], "model") != 0) {
		if (argc >= 2 && strcmp(argv[1], "model") != 0)
			tl_diagf(err, "torchlint debug: unknown subcommand '%s'\n", argv[1]);
		fputs(TL_DEBUG_USAGE, err);
		return 2;
	}
	return tl_debug__model(argv[2], out, err);
}
