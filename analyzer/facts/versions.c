/* Version-guarded code: the code that runs only on a PyTorch older than the
 * target version (RULES.md, "Version-guarded code"). A project that still
 * supports an old PyTorch keeps the old API in a fallback branch: the
 * `else` of `if version.parse(torch.__version__) >= version.parse("1.11")`,
 * the body of `if TORCH_LT_2_4:`, the `B` of `A if TORCH_GE_2_4 else B`,
 * the `else` of `if hasattr(torch, "compile")`, an `except (ImportError,
 * AttributeError, TypeError):` around the newer API. A finding that rests on
 * the newer API being available does not belong there.
 *
 * A guard names a version when it can (a string "1.11", a tuple (1, 11), a
 * flag's digits `TORCH_GE_2_4`); the fallback of a guard on a version newer
 * than the target still runs on the target, so it is no fallback. A guard
 * whose version cannot be told (hasattr, a flag without digits) counts.
 *
 * Owns: tl_facts_old_torch_only. */
#include <stdio.h>

#include "facts/internal.h"

/* What a condition says about the PyTorch that runs a branch: when it is
 * true (false), the running PyTorch is older than the target. */
typedef struct TlVersionTest {
	bool true_old;
	bool false_old;
} TlVersionTest;

static int tl_facts__small_int(const char *s, uint32_t len)
{
	if (!len || len > 3)
		return -1;
	int v = 0;
	for (uint32_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* major * 100 + minor of the first version written in `s` ("1.11",
 * "2.4.0", "v1.13", "2_4" in a flag's name); -1 when it holds none. */
static int tl_facts__version_text(const char *s, uint32_t len)
{
	uint32_t i = 0;
	while (i < len && !isdigit((unsigned char)s[i]))
		i++;
	uint32_t a = i;
	while (i < len && isdigit((unsigned char)s[i]))
		i++;
	int major = tl_facts__small_int(s + a, i - a);
	if (major < 0)
		return -1;
	if (i + 1 >= len || (s[i] != '.' && s[i] != '_') || !isdigit((unsigned char)s[i + 1]))
		return major * 100;
	uint32_t b = ++i;
	while (i < len && isdigit((unsigned char)s[i]))
		i++;
	int minor = tl_facts__small_int(s + b, i - b);
	return minor < 0 ? -1 : major * 100 + minor;
}

/* The version an expression names: a string, a tuple of numbers, or a
 * version parser's call on one (`version.parse("1.11")`, `Version("2.0")`);
 * -1 for anything else. */
static int tl_facts__version_of(const TlIndex *idx, TSNode e)
{
	const TlSyms *sy = tl_syms();
	for (int depth = 0; depth < TL_FACTS_DEPTH; depth++) {
		e = tl_index_unparen(e);
		if (ts_node_is_null(e))
			return -1;
		TSSymbol s = ts_node_symbol(e);
		uint32_t len = 0;
		if (s == sy->string) {
			const char *t = tl_facts__string_body(idx, e, &len);
			return t ? tl_facts__version_text(t, len) : -1;
		}
		if (s == sy->tuple && ts_node_named_child_count(e) >= 2) {
			TSNode a = ts_node_named_child(e, 0), b = ts_node_named_child(e, 1);
			uint32_t la = 0, lb = 0;
			const char *ta = tl_index_text(idx, a, &la), *tb = tl_index_text(idx, b, &lb);
			int major = tl_facts__small_int(ta, la), minor = tl_facts__small_int(tb, lb);
			return major < 0 || minor < 0 ? -1 : major * 100 + minor;
		}
		if (s != sy->call)
			return -1;
		TSNode args = tl_tree_field(e, sy->f_arguments);
		if (ts_node_is_null(args) || ts_node_named_child_count(args) != 1)
			return -1;
		e = ts_node_named_child(args, 0);
	}
	return -1;
}

/* Whether the text of `e` speaks of PyTorch's version: `torch.__version__`,
 * `TORCH_VERSION`, `version.parse(torch.__version__)`, `_torch_ver`. */
static bool tl_facts__torch_version_expr(const TlIndex *idx, TSNode e)
{
	uint32_t len = 0;
	const char *t = tl_index_text(idx, e, &len);
	if (!t || len > 200)
		return false;
	char low[201];
	for (uint32_t i = 0; i < len; i++)
		low[i] = (char)tolower((unsigned char)t[i]);
	low[len] = '\0';
	return strstr(low, "torch") && (strstr(low, "version") || strstr(low, "_ver"));
}

/* A flag's name says which way it points: `TORCH_GE_2_4`,
 * `is_torch_greater_or_equal_than_2_0` (+1: true on newer versions),
 * `TORCH_LT_1_11`, `is_torch_less_than_1_13` (-1); 0 when it says
 * neither or does not name torch. */
static int tl_facts__flag_polarity(const char *name)
{
	char low[128];
	tl_facts__lower(tl_facts__last(name), low, sizeof low);
	if (!strstr(low, "torch"))
		return 0;
	/* api/api.tsv: the words of sets newer-version and older-version
	 * (`_ge`, `greater`, ...; `_lt`, `less`, ...), newer first. */
	size_t n = strlen(low);
	if (tl_api_word_in(low, n, TL_APIS_NEWER_VERSION))
		return 1;
	if (tl_api_word_in(low, n, TL_APIS_OLDER_VERSION))
		return -1;
	return 0;
}

/* Whether a guard on version `v` (-1: not told) makes its fallback code
 * run only below the target: the guard's version is at most the target. */
static bool tl_facts__below_target(const TlIndex *idx, int v)
{
	return v < 0 || v <= idx->torch_version;
}

/* `e`, an atom of a condition (no `not`, `and`, `or`): +1 when it holds on
 * a PyTorch at least as new as the version it names and not below it, -1
 * the other way round, 0 when it is no version test or its fallback still
 * runs on the target. */
static int tl_facts__version_atom(const TlIndex *idx, TSNode e, int depth)
{
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	if (ts_node_is_null(e))
		return 0;
	TSSymbol s = ts_node_symbol(e);
	if (s == sy->comparison_operator && ts_node_named_child_count(e) == 2) {
		TSNode l = ts_node_named_child(e, 0), r = ts_node_named_child(e, 1);
		uint32_t ol = 0;
		TSNode op = ts_node_child(e, 1);
		const char *o = tl_index_text(idx, op, &ol);
		int dir = 0;
		if (ol == 1 && o[0] == '>')
			dir = 1;
		else if (ol == 2 && o[0] == '>' && o[1] == '=')
			dir = 1;
		else if (ol >= 1 && o[0] == '<' && (ol == 1 || o[1] == '='))
			dir = -1;
		if (!dir)
			return 0;
		int v;
		if (tl_facts__torch_version_expr(idx, l) && (v = tl_facts__version_of(idx, r)) >= 0)
			return tl_facts__below_target(idx, v) ? dir : 0;
		if (tl_facts__torch_version_expr(idx, r) && (v = tl_facts__version_of(idx, l)) >= 0)
			return tl_facts__below_target(idx, v) ? -dir : 0;
		return 0;
	}
	if (s == sy->call) {
		/* The callee's last name: builtins and local helpers are not
		 * imports, so the written name counts. */
		char buf[128], *owned = NULL;
		const char *callee = tl_index_dotted_view(idx, tl_tree_field(e, sy->f_function), buf,
							  sizeof buf, &owned);
		char last[128];
		snprintf(last, sizeof last, "%s", callee ? tl_facts__last(callee) : "");
		tl_free(owned);
		TSNode args = tl_tree_field(e, sy->f_arguments);
		if (!last[0] || ts_node_is_null(args))
			return 0;
		/* hasattr(torch, "compile"), hasattr(torch.amp, "GradScaler") */
		if (strcmp(last, "hasattr") == 0 && ts_node_named_child_count(args) == 2) {
			const char *obj = tl_index_qualified(idx, ts_node_named_child(args, 0));
			return obj && (strcmp(obj, "torch") == 0 || tl_facts__starts(obj, "torch.")) ? 1 : 0;
		}
		/* is_torch_version(">=", "1.11"), and helpers named by their
		 * direction: is_torch_greater_or_equal("2.0") */
		char low[128];
		tl_facts__lower(last, low, sizeof low);
		if (!strstr(low, "torch") || (!strstr(low, "version") && !tl_facts__flag_polarity(low)))
			return 0;
		uint32_t n = ts_node_named_child_count(args);
		int v = -1, dir = tl_facts__flag_polarity(low);
		for (uint32_t k = 0; k < n && k < 3; k++) {
			TSNode a = ts_node_named_child(args, k);
			uint32_t len = 0;
			const char *t = tl_facts__string_body(idx, a, &len);
			if (!t)
				continue;
			if (len >= 1 && len <= 2 && t[0] == '>')
				dir = 1;
			else if (len >= 1 && len <= 2 && t[0] == '<')
				dir = -1;
			else if (v < 0)
				v = tl_facts__version_text(t, len);
		}
		return dir && tl_facts__below_target(idx, v) ? dir : 0;
	}
	if (s == sy->identifier || s == sy->attribute) {
		/* A flag bound once to a version test, else named for one. */
		if (s == sy->identifier && depth < TL_FACTS_DEPTH) {
			const TlBinding *b = tl_index_resolve_node(idx, e);
			if (b && b->kind == TL_BIND_ASSIGN && b->elem < 0 && !ts_node_is_null(b->value)) {
				const TlIntArray *all = tl_index_bindings_of(idx, b->func, b->name);
				if (all && all->size == 1) {
					int d = tl_facts__version_atom(idx, b->value, depth + 1);
					if (d)
						return d;
				}
			}
		}
		char *name = tl_index_dotted_dup(idx, e);
		if (!name)
			return 0;
		int dir = tl_facts__flag_polarity(name);
		int v = tl_facts__version_text(name, (uint32_t)strlen(name));
		tl_free(name);
		return dir && tl_facts__below_target(idx, v) ? dir : 0;
	}
	return 0;
}

/* What condition `cond` says when true and when false (`not`, `and`,
 * `or` combine their operands' answers; bounded: a deeper chain says
 * nothing). */
static TlVersionTest tl_facts__version_test(const TlIndex *idx, TSNode cond, int depth)
{
	const TlSyms *sy = tl_syms();
	TlVersionTest none = { false, false };
	cond = tl_index_unparen(cond);
	if (ts_node_is_null(cond) || depth > TL_FACTS_DEPTH)
		return none;
	TSSymbol s = ts_node_symbol(cond);
	if (s == sy->not_operator) {
		TlVersionTest t = tl_facts__version_test(idx, tl_tree_field(cond, sy->f_argument), depth + 1);
		TlVersionTest swapped = { t.false_old, t.true_old };
		return swapped;
	}
	if (s == sy->boolean_operator) {
		TlVersionTest l = tl_facts__version_test(idx, tl_tree_field(cond, sy->f_left), depth + 1);
		TlVersionTest r = tl_facts__version_test(idx, tl_tree_field(cond, sy->f_right), depth + 1);
		uint32_t ol = 0;
		const char *o = tl_index_text(idx, tl_tree_field(cond, sy->f_operator), &ol);
		bool is_and = ol == 3 && memcmp(o, "and", 3) == 0;
		TlVersionTest t;
		if (is_and) {
			t.true_old = l.true_old || r.true_old;
			t.false_old = l.false_old && r.false_old;
		} else {
			t.true_old = l.true_old && r.true_old;
			t.false_old = l.false_old || r.false_old;
		}
		return t;
	}
	int dir = tl_facts__version_atom(idx, cond, depth);
	TlVersionTest t = { dir < 0, dir > 0 };
	return t;
}

/* An except clause that catches what calling a newer API raises on an old
 * PyTorch: ImportError, ModuleNotFoundError, AttributeError, TypeError (an
 * unknown keyword such as use_reentrant=). */
static bool tl_facts__fallback_except(const TlIndex *idx, TSNode clause)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_named_child_count(clause) < 2)
		return false;
	TSNode types = ts_node_named_child(clause, 0);
	if (ts_node_symbol(types) == sy->block)
		return false;
	uint32_t len = 0;
	const char *t = tl_index_text(idx, types, &len);
	/* Each name in the clause's types (`(ImportError, AttributeError)`,
	 * `builtins.TypeError`): the table's builtins of set old-api-error. */
	for (uint32_t k = 0; k < len;) {
		if (!(isalnum((unsigned char)t[k]) || t[k] == '_')) {
			k++;
			continue;
		}
		uint32_t a = k;
		while (k < len && (isalnum((unsigned char)t[k]) || t[k] == '_'))
			k++;
		if (tl_api_builtin_sets_text(t + a, k - a) & TL_APIS_OLD_API_ERROR)
			return true;
	}
	return false;
}

bool tl_facts_old_torch_only(const TlIndex *idx, TSNode node)
{
	const TlSyms *sy = tl_syms();
	TSNode child = node;
	TSNode parent = tl_index_parent(idx, child);
	/* The walk goes up once per enclosing node; tree-sitter's trees are
	 * finite, and nothing here recurses along it. */
	while (!ts_node_is_null(parent)) {
		TSSymbol ps = ts_node_symbol(parent);
		if (ps == sy->if_statement || ps == sy->elif_clause) {
			TSNode cond = tl_tree_field(parent, sy->f_condition);
			TSNode body = tl_tree_field(parent, sy->f_consequence);
			if (ts_node_eq(child, body)) {
				if (tl_facts__version_test(idx, cond, 0).true_old)
					return true;
			} else if (ps == sy->if_statement && !ts_node_eq(child, cond)) {
				/* An elif or else runs when the conditions before it
				 * are false. */
				if (tl_facts__version_test(idx, cond, 0).false_old)
					return true;
				uint32_t n = ts_node_named_child_count(parent);
				for (uint32_t k = 0; k < n; k++) {
					TSNode c = ts_node_named_child(parent, k);
					if (ts_node_eq(c, child) || ts_node_start_byte(c) >= ts_node_start_byte(child))
						break;
					if (ts_node_symbol(c) == sy->elif_clause &&
					    tl_facts__version_test(idx, tl_tree_field(c, sy->f_condition), 0).false_old)
						return true;
				}
			}
		} else if (ps == sy->conditional_expression && ts_node_named_child_count(parent) == 3) {
			TSNode cond = ts_node_named_child(parent, 1);
			if (ts_node_eq(child, ts_node_named_child(parent, 0)) &&
			    tl_facts__version_test(idx, cond, 0).true_old)
				return true;
			if (ts_node_eq(child, ts_node_named_child(parent, 2)) &&
			    tl_facts__version_test(idx, cond, 0).false_old)
				return true;
		} else if (ps == sy->except_clause) {
			if (tl_facts__fallback_except(idx, parent) &&
			    !ts_node_eq(child, ts_node_named_child(parent, 0)))
				return true;
		}
		child = parent;
		parent = tl_index_parent(idx, child);
	}
	return false;
}
