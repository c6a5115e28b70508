#include "rules/precheck.h"

#include <string.h>

#include "base/alloc.h"

/* ---- reading a shape ----------------------------------------------------------------- */

enum { TL_PN_NODE, TL_PN_STRING, TL_PN_ALT, TL_PN_GROUP };

/* One node expression of a shape. */
typedef struct TlPNode {
	int32_t parent;     /* enclosing expression, or -1 */
	uint8_t kind;       /* TL_PN_* */
	TSFieldId field;    /* the field it is written in, or 0 */
	uint8_t match;      /* TL_PRECHECK_*: for nodes and strings */
	TSSymbol symbol;
	bool quantified;
	bool approx;        /* a supertype or a name not known: read as any node */
	uint32_t children;  /* expressions directly inside it */
	int64_t path;       /* its path, or -1: none (optional, or under a group) */
	bool strict;        /* under no alternation: every match has a node there */
	bool det_child;     /* some strict child has a path */
	int64_t host;       /* an alternation: the path its members hang from, or -1 */
	TSFieldId host_field; /* ... and the field they are in */
} TlPNode;

typedef TlArray(TlPNode) TlPNodes;

static bool tl_precheck__ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.' || c == '?' || c == '!';
}

/* A character of a node type's or a field's name. */
static bool tl_precheck__name(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

static bool tl_precheck__space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The index after the string that starts at s[i] == '"'. */
static size_t tl_precheck__string_end(const char *s, size_t n, size_t i)
{
	for (i++; i < n && s[i] != '"'; i++)
		if (s[i] == '\\')
			i++;
	return i < n ? i + 1 : n;
}

/* Marks node `k` quantified when a quantifier follows at s[i]. */
static size_t tl_precheck__quantifier(TlPNode *nodes, int32_t k, const char *s, size_t n, size_t i)
{
	while (i < n && tl_precheck__space(s[i]))
		i++;
	if (i < n && (s[i] == '?' || s[i] == '*' || s[i] == '+')) {
		if (k >= 0)
			nodes[k].quantified = true;
		i++;
	}
	return i;
}

static void tl_precheck__symbol(TlPNode *p, const TSLanguage *lang, const char *name, size_t len,
				bool named)
{
	p->match = TL_PRECHECK_ANY;
	if (len == 1 && name[0] == '_') {
		p->match = named ? TL_PRECHECK_NAMED : TL_PRECHECK_ANY;
		return;
	}
	p->approx = true;
	if (memchr(name, '\\', len) || memchr(name, '/', len))
		return;
	TSSymbol sym = ts_language_symbol_for_name(lang, name, (uint32_t)len, named);
	/* Unknown names and supertypes: any node (a supertype's nodes have
	 * their own symbols). */
	if (sym == 0 || (sym != (TSSymbol)-1 && ts_language_symbol_type(lang, sym) == TSSymbolTypeSupertype))
		return;
	p->match = TL_PRECHECK_SYMBOL;
	p->symbol = sym;
	p->approx = false;
}

/* Reads `shape` into `nodes`, and which node each canonical capture names
 * into `captures` (-1 none, -2 more than one). False when it cannot be read
 * (then nothing is checked). */
static bool tl_precheck__read(const TSLanguage *lang, const char *s, TlPNodes *nodes,
			      TlIntArray *captures, TlIntArray *occurrences, bool *exotic)
{
	*exotic = false;
	size_t n = strlen(s), i = 0;
	int32_t open = -1, last = -1; /* the innermost open expression; the last one closed */
	TSFieldId field = 0;
	while (i < n) {
		char c = s[i];
		if (tl_precheck__space(c)) {
			i++;
		} else if (c == '.') {
			*exotic = true; /* an anchor */
			i++;
		} else if (c == ';') {
			while (i < n && s[i] != '\n')
				i++;
		} else if (c == '(' || c == '[' || c == '"' || (c == '_' && (i + 1 >= n || !tl_precheck__ident(s[i + 1])))) {
			TlPNode p;
			memset(&p, 0, sizeof p);
			p.parent = open;
			p.field = field;
			p.path = -1;
			p.host = -1;
			field = 0;
			if (open >= 0)
				nodes->items[open].children++;
			if (c == '"') {
				size_t end = tl_precheck__string_end(s, n, i);
				if (end < i + 2)
					return false;
				p.kind = TL_PN_STRING;
				tl_precheck__symbol(&p, lang, s + i + 1, end - i - 2, false);
				tl_array_push(nodes, p);
				last = (int32_t)nodes->size - 1;
				i = tl_precheck__quantifier(nodes->items, last, s, n, end);
			} else if (c == '_') {
				p.kind = TL_PN_NODE;
				p.match = TL_PRECHECK_ANY;
				tl_array_push(nodes, p);
				last = (int32_t)nodes->size - 1;
				i = tl_precheck__quantifier(nodes->items, last, s, n, i + 1);
			} else if (c == '[') {
				p.kind = TL_PN_ALT;
				tl_array_push(nodes, p);
				open = (int32_t)nodes->size - 1;
				i++;
			} else {
				size_t j = i + 1;
				while (j < n && tl_precheck__space(s[j]))
					j++;
				if (j < n && s[j] == '#')
					return false; /* a predicate: shapes have none */
				if (j < n && (s[j] == '(' || s[j] == '[' || s[j] == '"')) {
					p.kind = TL_PN_GROUP;
					i = j;
				} else {
					size_t k = j;
					while (k < n && tl_precheck__name(s[k]))
						k++;
					if (k < n && s[k] == '/') /* supertype/subtype: the supertype */
						while (k < n && s[k] != ')' && !tl_precheck__space(s[k]))
							k++;
					if (k == j)
						return false;
					p.kind = TL_PN_NODE;
					tl_precheck__symbol(&p, lang, s + j, k - j, true);
					i = k;
				}
				tl_array_push(nodes, p);
				open = (int32_t)nodes->size - 1;
			}
		} else if (c == ')' || c == ']') {
			if (open < 0)
				return false;
			last = open;
			open = nodes->items[open].parent;
			i = tl_precheck__quantifier(nodes->items, last, s, n, i + 1);
		} else if (c == '@') {
			size_t k = i + 1;
			while (k < n && tl_precheck__ident(s[k]))
				k++;
			/* Canonical names: c<k>. */
			if (last < 0 || k - i < 3 || s[i + 1] != 'c')
				return false;
			uint32_t idx = 0;
			for (size_t d = i + 2; d < k; d++) {
				if (s[d] < '0' || s[d] > '9' || idx > 100000)
					return false;
				idx = idx * 10 + (uint32_t)(s[d] - '0');
			}
			while (captures->size <= idx)
				tl_array_push(captures, -1);
			captures->items[idx] = captures->items[idx] == -1 ? last : -2;
			tl_array_push(occurrences, (int32_t)idx);
			tl_array_push(occurrences, last);
			i = k;
		} else if (c == '!') {
			/* a negated field: not checked */
			*exotic = true;
			for (i++; i < n && tl_precheck__ident(s[i]); i++)
				;
		} else if (tl_precheck__name(c)) {
			size_t k = i;
			while (k < n && tl_precheck__name(s[k]))
				k++;
			size_t e = k;
			while (e < n && tl_precheck__space(s[e]))
				e++;
			if (e >= n || s[e] != ':')
				return false;
			field = ts_language_field_id_for_name(lang, s + i, (uint32_t)(k - i));
			if (!field)
				return false;
			i = e + 1;
		} else {
			return false;
		}
	}
	return open < 0;
}

static uint32_t tl_precheck__intern(TlPrechecks *pc, uint32_t parent, TSFieldId field,
				    const TlPNode *p)
{
	for (uint32_t i = 1; i < pc->paths.size; i++) {
		const TlPrecheckPath *q = &pc->paths.items[i];
		if (q->parent == parent && q->step.field == field && q->step.match == p->match &&
		    (p->match != TL_PRECHECK_SYMBOL || q->step.symbol == p->symbol))
			return i;
	}
	TlPrecheckPath q = { parent, { field, p->match == TL_PRECHECK_SYMBOL ? p->symbol : 0, p->match } };
	tl_array_push(&pc->paths, q);
	return pc->paths.size - 1;
}

void tl_prechecks_init(TlPrechecks *pc)
{
	tl_array_init(&pc->paths);
	tl_array_init(&pc->checks);
	tl_array_init(&pc->patterns);
	tl_array_init(&pc->shape_nodes);
	tl_array_init(&pc->shape_captures);
	tl_array_init(&pc->shapes);
	tl_array_init(&pc->lengths);
	tl_array_init(&pc->check_paths);
	tl_array_init(&pc->questions);
	TlPrecheckPath root = { 0, { 0, 0, TL_PRECHECK_ANY } };
	tl_array_push(&pc->paths, root);
}

void tl_prechecks_release(TlPrechecks *pc)
{
	tl_array_release(&pc->paths);
	tl_array_release(&pc->checks);
	tl_array_release(&pc->patterns);
	tl_array_release(&pc->shape_nodes);
	tl_array_release(&pc->shape_captures);
	tl_array_release(&pc->shapes);
	tl_array_release(&pc->lengths);
	tl_array_release(&pc->check_paths);
	tl_array_release(&pc->questions);
}

/* Cost classes: the order checks are tried in. */
static int tl_precheck__cost(const TlPred *p)
{
	if (!p)
		return 0;
	if (p->kind == TL_PRED_EQ || p->kind == TL_PRED_ANY_OF)
		return 1;
	return p->kind == TL_PRED_MATCH ? 2 : 3;
}

/* Finds the root of `nodes` and gives a path to every node that has one
 * (a node under an alternation hangs where the alternation does, in its
 * field); returns the root's index, or -1 when the shape has no plain
 * root. */
static int32_t tl_precheck__paths(TlPrechecks *pc, TlPNodes *nodes)
{
	/* The root: the first expression that is no group; a group around it
	 * must hold nothing else. */
	int32_t root = -1;
	for (uint32_t k = 0; k < nodes->size && root < 0; k++) {
		const TlPNode *p = &nodes->items[k];
		if (p->kind == TL_PN_GROUP) {
			if (p->children != 1 || p->quantified)
				return -1;
			continue;
		}
		root = (int32_t)k;
	}
	if (root < 0 || nodes->items[root].quantified)
		return -1;
	for (int32_t a = nodes->items[root].parent; a >= 0; a = nodes->items[a].parent)
		if (nodes->items[a].kind != TL_PN_GROUP)
			return -1;
	nodes->items[root].path = 0;
	nodes->items[root].strict = true;
	/* Parents come before their children. Members of an alternation at
	 * the root have no path (the root is whichever matched). */
	for (uint32_t k = (uint32_t)root + 1; k < nodes->size; k++) {
		TlPNode *p = &nodes->items[k];
		if (p->parent < 0 || p->quantified)
			continue;
		TlPNode *up = &nodes->items[p->parent];
		int64_t from = -1;
		TSFieldId field = p->field;
		bool strict = false;
		if (up->kind == TL_PN_NODE && up->path >= 0) {
			from = up->path;
			strict = up->strict;
		} else if (up->kind == TL_PN_ALT && up->host >= 0) {
			from = up->host;
			field = up->host_field ? up->host_field : p->field;
		}
		if (from < 0)
			continue;
		if (p->kind == TL_PN_ALT) {
			p->host = from;
			p->host_field = field;
		} else if (p->kind == TL_PN_NODE || p->kind == TL_PN_STRING) {
			p->path = tl_precheck__intern(pc, (uint32_t)from, field, p);
			p->strict = strict;
			if (strict)
				up->det_child = true;
		}
	}
	return root;
}

/* True when node `n` lies inside node `a` (or is it). */
static bool tl_precheck__inside(const TlPNodes *nodes, int32_t n, int32_t a)
{
	for (; n >= 0; n = nodes->items[n].parent)
		if (n == a)
			return true;
	return false;
}

/* The paths where capture `c` may be, in pc->check_paths (from *from,
 * *count of them): one per place it is written (an alternation's
 * capture: its members'). False when some match may leave it without a
 * node (then a predicate on it holds, and nothing can be checked): it is
 * written under a quantifier or group, or not in every member of an
 * alternation around it. */
static bool tl_precheck__capture_paths(TlPrechecks *pc, const TlPNodes *nodes, int32_t root,
				       const TlIntArray *occ, uint32_t c, uint32_t *from,
				       uint32_t *count)
{
	*from = pc->check_paths.size;
	for (uint32_t i = 0; i + 1 < occ->size; i += 2) {
		if ((uint32_t)occ->items[i] != c)
			continue;
		int32_t o = occ->items[i + 1];
		const TlPNode *n = &nodes->items[o];
		/* Every alternation around it holds the capture in each member. */
		for (int32_t m = o, a = n->parent; a >= 0; m = a, a = nodes->items[a].parent) {
			if (nodes->items[a].kind != TL_PN_ALT)
				continue;
			for (uint32_t k = (uint32_t)a + 1; k < nodes->size; k++) {
				if (nodes->items[k].parent != a || (int32_t)k == m)
					continue;
				bool has = false;
				for (uint32_t j = 0; j + 1 < occ->size && !has; j += 2)
					has = (uint32_t)occ->items[j] == c &&
					      tl_precheck__inside(nodes, occ->items[j + 1], (int32_t)k);
				if (!has)
					goto fail;
			}
		}
		if (n->kind == TL_PN_ALT && o == root) {
			tl_array_push(&pc->check_paths, 0);
		} else if (n->kind == TL_PN_ALT) {
			/* Whichever member matched: each must have a path. */
			if (n->host < 0)
				goto fail;
			for (uint32_t k = (uint32_t)o + 1; k < nodes->size; k++) {
				if (nodes->items[k].parent != o)
					continue;
				if (nodes->items[k].path < 0)
					goto fail;
				tl_array_push(&pc->check_paths, (uint32_t)nodes->items[k].path);
			}
		} else if (n->path >= 0) {
			tl_array_push(&pc->check_paths, (uint32_t)n->path);
		} else {
			goto fail;
		}
	}
	*count = pc->check_paths.size - *from;
	if (*count)
		return true;
fail:
	pc->check_paths.size = *from;
	*count = 0;
	return false;
}

uint32_t tl_prechecks_add(TlPrechecks *pc, const TSLanguage *lang, const char *shape,
			  const TlPredList *preds)
{
	TlPrecheckPattern pat = { pc->checks.size, 0, 0 };
	TlPNodes nodes;
	TlIntArray captures, occ;
	tl_array_init(&nodes);
	tl_array_init(&captures);
	tl_array_init(&occ);
	bool exotic;
	int32_t root = -1;
	if (!tl_precheck__read(lang, shape, &nodes, &captures, &occ, &exotic) ||
	    (root = tl_precheck__paths(pc, &nodes)) < 0)
		goto done;
	/* Structure: the deepest nodes every match has are there. */
	for (uint32_t k = 0; k < nodes.size; k++)
		if (nodes.items[k].path > 0 && nodes.items[k].strict && !nodes.items[k].det_child) {
			TlPrecheck c = { NULL, pc->check_paths.size, 1, 0, 0, 0, 0, UINT32_MAX };
			tl_array_push(&pc->check_paths, (uint32_t)nodes.items[k].path);
			tl_array_push(&pc->checks, c);
		}
	/* Predicates on captures with paths, cheapest first. A semantic one
	 * only when every predicate before it is checked too: the match would
	 * have asked it anyway (a predicate before it that fails cheaply on the
	 * match, such as a test of a capture that is not always there, keeps it
	 * from being asked at every node). */
	uint32_t n = preds->size < 64 ? preds->size : 64;
	TlPrecheck *plan = tl_calloc(n ? n : 1, sizeof *plan);
	bool *checked = tl_calloc(n ? n : 1, sizeof *checked);
	bool prefix = true;
	for (uint32_t i = 0; i < n; i++) {
		const TlPred *p = &preds->items[i];
		if (p->kind == TL_PRED_SET)
			continue;
		TlPrecheck *c = &plan[i];
		c->pred = p;
		c->question = UINT32_MAX;
		for (uint32_t q = 0; p->kind == TL_PRED_SEMANTIC && q <= pc->questions.size; q++) {
			if (q == pc->questions.size) {
				TlPrecheckQuestion nq = { p->def, p->choice };
				tl_array_push(&pc->questions, nq);
			}
			if (pc->questions.items[q].def == p->def &&
			    pc->questions.items[q].choice == p->choice) {
				c->question = q;
				break;
			}
		}
		bool ok = tl_precheck__capture_paths(pc, &nodes, root, &occ, p->capture, &c->path_from,
						     &c->path_count);
		if (ok && p->kind == TL_PRED_EQ && p->capture2 >= 0)
			ok = tl_precheck__capture_paths(pc, &nodes, root, &occ, (uint32_t)p->capture2,
							&c->path2_from, &c->path2_count);
		checked[i] = ok && (p->kind != TL_PRED_SEMANTIC || prefix);
		prefix = prefix && checked[i];
		/* Exact: the capture is the root itself. */
		if (checked[i] && c->path_count == 1 && pc->check_paths.items[c->path_from] == 0 &&
		    !(p->kind == TL_PRED_EQ && p->capture2 >= 0))
			pat.exact |= (uint64_t)1 << i;
	}
	for (int cost = 1; cost <= 3; cost++) {
		for (uint32_t i = 0; i < n; i++) {
			const TlPred *pr = &preds->items[i];
			if (!checked[i] || tl_precheck__cost(pr) != cost)
				continue;
			TlPrecheck c = plan[i];
			/* The lengths of the strings a string test compares with. */
			c.length_from = pc->lengths.size;
			if (pr->kind == TL_PRED_EQ && pr->capture2 < 0) {
				tl_array_push(&pc->lengths, (uint32_t)strlen(pr->string));
				c.length_count = 1;
			} else if (pr->kind == TL_PRED_ANY_OF) {
				for (uint32_t k = 0; k < pr->strings.size; k++)
					tl_array_push(&pc->lengths, (uint32_t)strlen(pr->strings.items[k]));
				c.length_count = pr->strings.size;
			}
			tl_array_push(&pc->checks, c);
		}
	}
	tl_free(plan);
	tl_free(checked);
done:
	pat.count = pc->checks.size - pat.from;
	tl_array_push(&pc->patterns, pat);
	tl_array_release(&nodes);
	tl_array_release(&captures);
	tl_array_release(&occ);
	return pc->patterns.size - 1;
}

uint32_t tl_prechecks_add_shape(TlPrechecks *pc, const TSLanguage *lang, const char *shape)
{
	TlPrecheckShape sh = { false, pc->shape_nodes.size, 0, pc->shape_captures.size, 0 };
	TlPNodes nodes;
	TlIntArray captures;
	tl_array_init(&nodes);
	tl_array_init(&captures);
	bool exotic, native = false;
	int32_t root = -1;
	TlIntArray occ;
	tl_array_init(&occ);
	bool read = tl_precheck__read(lang, shape, &nodes, &captures, &occ, &exotic);
	tl_array_release(&occ);
	if (!read || exotic || (root = tl_precheck__paths(pc, &nodes)) < 0)
		goto done;
	/* Every expression but the groups around the root is a node with a
	 * path (so no alternation, quantifier, anchor, negated field, child
	 * without a field); `at`: its index among the shape's nodes. */
	int32_t *at = tl_calloc(nodes.size, sizeof *at);
	native = true;
	for (uint32_t k = 0; k < nodes.size && native; k++) {
		const TlPNode *p = &nodes.items[k];
		at[k] = -1;
		if ((int32_t)k < root)
			continue;
		if (p->path < 0 || !p->strict || p->approx || ((int32_t)k != root && !p->field) ||
		    (p->kind != TL_PN_NODE && p->kind != TL_PN_STRING)) {
			native = false;
			break;
		}
		TlPrecheckNode n = { (uint32_t)p->path, (int32_t)k == root ? -1 : at[p->parent], p->match,
				     p->symbol };
		at[k] = (int32_t)(pc->shape_nodes.size - sh.from);
		tl_array_push(&pc->shape_nodes, n);
	}
	for (uint32_t c = 0; c < captures.size && native; c++) {
		if (captures.items[c] == -1)
			continue;
		if (captures.items[c] < 0 || at[captures.items[c]] < 0) {
			native = false;
			break;
		}
		TlPrecheckCapture cap = { c, (uint32_t)at[captures.items[c]] };
		tl_array_push(&pc->shape_captures, cap);
	}
	tl_free(at);
done:
	if (native) {
		sh.native = true;
		sh.count = pc->shape_nodes.size - sh.from;
		sh.cap_count = pc->shape_captures.size - sh.cap_from;
	} else {
		pc->shape_nodes.size = sh.from;
		pc->shape_captures.size = sh.cap_from;
	}
	tl_array_push(&pc->shapes, sh);
	tl_array_release(&nodes);
	tl_array_release(&captures);
	return pc->shapes.size - 1;
}

/* ---- checking ------------------------------------------------------------------------- */

void tl_precheck_run_init(TlPrecheckRun *r, const TlPrechecks *pc, TlPrecheckPredFn fn, void *ctx)
{
	memset(r, 0, sizeof *r);
	r->pc = pc;
	r->fn = fn;
	r->ctx = ctx;
	tl_array_init(&r->state);
	tl_array_init(&r->first);
	tl_array_init(&r->nodes);
	tl_array_init(&r->kids);
	tl_array_init(&r->stack);
	tl_tree_walk_init(&r->kids_walk);
	tl_array_init(&r->asked_gen);
	tl_array_init(&r->answer);
	for (uint32_t i = 0; i < pc->questions.size; i++) {
		tl_array_push(&r->asked_gen, 0);
		tl_array_push(&r->answer, 0);
	}
	for (uint32_t i = 0; i < pc->paths.size; i++) {
		TlPrecheckPathState st = { 0, 0, 0, 0, 0 };
		tl_array_push(&r->state, st);
		TSNode none = { { 0, 0, 0, 0 }, NULL, NULL };
		tl_array_push(&r->first, none);
	}
}

void tl_precheck_run_release(TlPrecheckRun *r)
{
	tl_array_release(&r->state);
	tl_array_release(&r->first);
	tl_array_release(&r->nodes);
	tl_array_release(&r->kids);
	tl_array_release(&r->stack);
	tl_tree_walk_release(&r->kids_walk);
	tl_array_release(&r->asked_gen);
	tl_array_release(&r->answer);
}

void tl_precheck_run_at(TlPrecheckRun *r, TSNode node)
{
	r->node = node;
	r->memo_count = 0;
	tl_array_clear(&r->nodes);
	tl_array_clear(&r->kids);
	if (++r->generation == 0) {
		/* wrapped: forget every path */
		for (uint32_t i = 0; i < r->state.size; i++)
			r->state.items[i].gen = r->state.items[i].exists_gen = r->state.items[i].first_gen = 0;
		for (uint32_t i = 0; i < r->asked_gen.size; i++)
			r->asked_gen.items[i] = 0;
		r->generation = 1;
	}
}

static bool tl_precheck__step(const TlPrecheckStep *st, const TlPrecheckKid *k)
{
	if (st->field && k->field != st->field)
		return false;
	switch (st->match) {
	case TL_PRECHECK_SYMBOL:
		return k->symbol == st->symbol;
	case TL_PRECHECK_NAMED:
		/* a wildcard matches no ERROR node (tree-sitter's query.c) */
		return k->named && k->symbol != (TSSymbol)-1;
	default:
		return k->symbol != (TSSymbol)-1;
	}
}

static void tl_precheck__push(TlPrecheckRun *r, TSNode n)
{
	TlPrecheckFound f = { n, ts_node_start_byte(n), ts_node_end_byte(n), 0, 0, false };
	tl_array_push(&r->nodes, f);
}

/* The children of found node `i` (read once per node checked). */
static void tl_precheck__kids(TlPrecheckRun *r, uint32_t i)
{
	if (r->nodes.items[i].kids_read)
		return;
	r->nodes.items[i].kids_read = true;
	r->nodes.items[i].kid_from = r->kids.size;
	tl_tree_walk_kids(&r->kids_walk, r->nodes.items[i].node, TL_TREE_WALK_FIELDS);
	TlTreeNode t;
	while (tl_tree_walk_next(&r->kids_walk, false, &t)) {
		TlPrecheckKid k = { t.node, t.field, t.symbol, t.named };
		tl_array_push(&r->kids, k);
	}
	r->nodes.items[i].kid_count = r->kids.size - r->nodes.items[i].kid_from;
}

/* Finds the nodes at `path` under the current node (once per node): the
 * paths from it up to one already found, then down, without recursion. */
static void tl_precheck__find(TlPrecheckRun *r, uint32_t path)
{
	const TlPrecheckPath *paths = r->pc->paths.items;
	tl_array_clear(&r->stack);
	uint32_t p = path;
	while (r->state.items[p].gen != r->generation) {
		if (p == 0) {
			r->state.items[0].gen = r->generation;
			r->state.items[0].from = r->nodes.size;
			r->state.items[0].count = 1;
			tl_precheck__push(r, r->node);
			break;
		}
		/* remember the path to fill; its parent comes first */
		tl_array_push(&r->stack, p);
		p = paths[p].parent;
	}
	while (r->stack.size) {
		uint32_t q = tl_array_pop(&r->stack);
		const TlPrecheckStep *st = &paths[q].step;
		uint32_t from = r->state.items[paths[q].parent].from, count = r->state.items[paths[q].parent].count;
		uint32_t start = r->nodes.size;
		for (uint32_t k = 0; k < count; k++) {
			tl_precheck__kids(r, from + k);
			const TlPrecheckFound *up = &r->nodes.items[from + k];
			for (uint32_t c = 0; c < up->kid_count; c++) {
				const TlPrecheckKid *kid = &r->kids.items[up->kid_from + c];
				if (tl_precheck__step(st, kid)) {
					TSNode n = kid->node;
					tl_precheck__push(r, n);
					up = &r->nodes.items[from + k]; /* the push may move it */
				}
			}
		}
		r->state.items[q].gen = r->generation;
		r->state.items[q].from = start;
		r->state.items[q].count = r->nodes.size - start;
	}
}

/* True when some node is at `path` under the current node, found cheaply
 * without reading whole child lists: down the path's steps from the root
 * (or from the first node of the nearest path already found), one field
 * child each (tl_tree_field: the first child in the field),
 * and a last step without a field that any named (or any) child passes,
 * decided by the child counts of a node without errors. False when that
 * finds nothing, or the path has a step it cannot take so (the caller then
 * finds the path's nodes the full way). */
static bool tl_precheck__exists(TlPrecheckRun *r, uint32_t path)
{
	const TlPrecheckPath *paths = r->pc->paths.items;
	uint32_t chain[16], n = 0, p = path;
	while (p != 0 && r->state.items[p].gen != r->generation && r->state.items[p].first_gen != r->generation) {
		if (n == sizeof chain / sizeof *chain)
			return false;
		chain[n++] = p;
		p = paths[p].parent;
	}
	TSNode node = r->node;
	if (p != 0 && r->state.items[p].gen == r->generation) {
		if (!r->state.items[p].count)
			return false;
		node = r->nodes.items[r->state.items[p].from].node;
	} else if (p != 0) {
		node = r->first.items[p];
	}
	while (n) {
		uint32_t q = chain[--n];
		const TlPrecheckStep *st = &paths[q].step;
		if (!st->field) {
			if (n || st->match == TL_PRECHECK_SYMBOL || ts_node_has_error(node))
				return false;
			return (st->match == TL_PRECHECK_NAMED ? ts_node_named_child_count(node)
							       : ts_node_child_count(node)) > 0;
		}
		TSNode c = tl_tree_field(node, st->field);
		if (ts_node_is_null(c))
			return false;
		TlPrecheckKid k = { c, st->field, ts_node_symbol(c), ts_node_is_named(c) };
		if (!tl_precheck__step(st, &k))
			return false;
		/* A node at q: the paths below it start from there. */
		r->state.items[q].first_gen = r->generation;
		r->first.items[q] = c;
		node = c;
	}
	return true;
}

/* The predicate's answer for `n`, semantic ones remembered per node. */
static bool tl_precheck__pred(TlPrecheckRun *r, const TlPrecheck *c, const TlPrecheckFound *f, bool at_root)
{
	const TlPred *p = c->pred;
	TSNode n = f->node;
	if (p->kind == TL_PRED_EQ || p->kind == TL_PRED_ANY_OF) {
		/* As the engine compares: the node's text, whole. */
		uint32_t len = f->end - f->start;
		const uint32_t *lens = r->pc->lengths.items + c->length_from;
		for (uint32_t i = 0; i < c->length_count; i++) {
			const char *str = p->kind == TL_PRED_EQ ? p->string : p->strings.items[i];
			if (lens[i] == len && memcmp(r->text + f->start, str, len) == 0)
				return true;
		}
		return false;
	}
	if (p->kind != TL_PRED_SEMANTIC)
		return r->fn(r->ctx, p, n);
	/* About the node itself: remembered by question. */
	if (at_root && c->question < r->asked_gen.size) {
		if (r->asked_gen.items[c->question] != r->generation) {
			r->asked_gen.items[c->question] = r->generation;
			r->answer.items[c->question] = r->fn(r->ctx, p, n);
		}
		return r->answer.items[c->question];
	}
	for (uint32_t i = 0; i < r->memo_count; i++)
		if (r->memo[i].def == p->def && r->memo[i].choice == p->choice && r->memo[i].id == n.id &&
		    r->memo[i].start == ts_node_start_byte(n))
			return r->memo[i].result;
	bool v = r->fn(r->ctx, p, n);
	if (r->memo_count < sizeof r->memo / sizeof *r->memo) {
		r->memo[r->memo_count].id = n.id;
		r->memo[r->memo_count].start = ts_node_start_byte(n);
		r->memo[r->memo_count].def = p->def;
		r->memo[r->memo_count].choice = p->choice;
		r->memo[r->memo_count].result = v;
		r->memo_count++;
	}
	return v;
}

/* True when some node at the check's paths passes it (a pair of nodes, for
 * #eq? of two captures). */
static bool tl_precheck__check(TlPrecheckRun *r, const TlPrecheck *c)
{
	const uint32_t *paths = r->pc->check_paths.items;
	/* A structure check: a node there is enough. */
	for (uint32_t i = 0; !c->pred && i < c->path_count; i++) {
		uint32_t path = paths[c->path_from + i];
		if (r->state.items[path].exists_gen == r->generation)
			return true;
		if (r->state.items[path].gen == r->generation ? r->state.items[path].count > 0
							     : tl_precheck__exists(r, path)) {
			r->state.items[path].exists_gen = r->generation;
			return true;
		}
	}
	/* Find every path first: finding may move r->nodes. */
	for (uint32_t i = 0; i < c->path_count; i++)
		tl_precheck__find(r, paths[c->path_from + i]);
	for (uint32_t i = 0; i < c->path2_count; i++)
		tl_precheck__find(r, paths[c->path2_from + i]);
	for (uint32_t i = 0; i < c->path_count; i++) {
		uint32_t path = paths[c->path_from + i];
		uint32_t from = r->state.items[path].from, count = r->state.items[path].count;
		if (!c->pred) {
			if (count)
				return true;
			continue;
		}
		for (uint32_t k = 0; k < count; k++) {
			const TlPrecheckFound *f = &r->nodes.items[from + k];
			if (!c->path2_count) {
				if (tl_precheck__pred(r, c, f, path == 0) != c->pred->negated)
					return true;
				continue;
			}
			/* #eq? @a @b: the two texts, as the engine compares them. */
			for (uint32_t j = 0; j < c->path2_count; j++) {
				uint32_t path2 = paths[c->path2_from + j];
				uint32_t from2 = r->state.items[path2].from, count2 = r->state.items[path2].count;
				for (uint32_t m = 0; m < count2; m++) {
					const TlPrecheckFound *g = &r->nodes.items[from2 + m];
					bool eq = f->end - f->start == g->end - g->start &&
						  memcmp(r->text + f->start, r->text + g->start, f->end - f->start) == 0;
					if (eq != c->pred->negated)
						return true;
				}
			}
		}
	}
	return false;
}

bool tl_precheck_run_holds(TlPrecheckRun *r, uint32_t pattern)
{
	const TlPrecheckPattern *pat = &r->pc->patterns.items[pattern];
	for (uint32_t i = 0; i < pat->count; i++)
		if (!tl_precheck__check(r, &r->pc->checks.items[pat->from + i]))
			return false;
	return true;
}

int tl_precheck_run_native(TlPrecheckRun *r, uint32_t shape, TSNode *nodes)
{
	const TlPrecheckShape *sh = &r->pc->shapes.items[shape];
	const TlPrecheckNode *ns = r->pc->shape_nodes.items + sh->from;
	if (!sh->native)
		return -1;
	/* The root: what tree-sitter asks of its first step. */
	TSSymbol sym = ts_node_symbol(r->node);
	if (ns[0].match == TL_PRECHECK_SYMBOL ? sym != ns[0].symbol
	    : sym == (TSSymbol)-1 || (ns[0].match == TL_PRECHECK_NAMED && !ts_node_is_named(r->node)))
		return 0;
	nodes[0] = r->node;
	for (uint32_t i = 1; i < sh->count; i++) {
		tl_precheck__find(r, ns[i].path);
		uint32_t count = r->state.items[ns[i].path].count;
		if (count != 1)
			return count ? -1 : 0;
		nodes[i] = r->nodes.items[r->state.items[ns[i].path].from].node;
		/* Children of one node match its steps in order, one child each:
		 * after the previous sibling step's child. */
		for (uint32_t j = i - 1; j > 0; j--) {
			if (ns[j].parent != ns[i].parent)
				continue;
			if (ts_node_eq(nodes[j], nodes[i]))
				return 0;
			uint32_t a = ts_node_start_byte(nodes[j]), b = ts_node_start_byte(nodes[i]);
			if (a == b)
				return -1; /* empty nodes: let tree-sitter order them */
			if (a > b)
				return 0;
			break;
		}
	}
	return 1;
}
