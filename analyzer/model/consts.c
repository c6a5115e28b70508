/* Constants as a component of abstract values (docs/semantic-model.md,
 * "Constants and the branches they decide").
 *
 * TlVal.cst is the constant a value holds on every path: None, True or
 * False, a small int, a string (its text interned in the model's names).
 * Literals make one; `not`, `==`, `!=`, `is`, `is not`, `in`, `not in`
 * (against a literal tuple, list or set of constants), `and`, `or` and a
 * conditional expression compute one from constant operands; bindings
 * carry it; a join keeps it only where both sides hold the same. What is
 * read from outside the function (a global, an attribute of an object, an
 * element of a container that a call may have changed) holds none: only
 * the function's own code and its entry context (context.c: the same
 * constant at every call site, all of them known) make one.
 *
 * The interpreter reads a condition's constant truth (interp.c): a branch
 * whose condition is known false is code no path reaches, and the
 * alternatives of one known true too.
 *
 * The tests of a call site's context (sitectx.c) are decided by the same
 * operators: tl_model__const_op and tl_model__const_compare serve both.
 *
 * Owns: tl_in__const_expr, tl_model__const_literal, tl_model__const_of_text,
 * tl_model__const_op, tl_model__const_compare. */
#include <string.h>

#include "model/interp_internal.h"

uint16_t tl_model__const_of_text(TlModel *m, const char *s, uint32_t len)
{
	if (!len)
		return TL_VC(TL_VC_EMPTY, 0);
	int32_t id = tl_path_intern(&m->names, s, len);
	return id >= 0 && id < 0x1fff ? TL_VC(TL_VC_STR, id) : 0;
}

/* The constant of string literal `n`: a plain one, without escapes or
 * interpolations (an f-string, a bytes literal: none). */
static uint16_t tl_consts__string(TlModel *m, const TlIndex *idx, TSNode n)
{
	uint32_t len = 0;
	const char *t = tl_index_text(idx, n, &len);
	uint32_t k = 0, q = 0;
	while (t && k < len && t[k] != '"' && t[k] != '\'') {
		char c = t[k++];
		if (c != 'r' && c != 'R' && c != 'u' && c != 'U')
			return 0; /* f, b: not a plain str */
	}
	while (t && k + q < len && (t[k + q] == '"' || t[k + q] == '\'') && q < 3)
		q++;
	if (q == 2 && len == k + 2)
		return TL_VC(TL_VC_EMPTY, 0); /* "" */
	if (q == 2)
		q = 1;
	if (!t || len < k + 2 * q)
		return 0;
	const char *body = t + k + q;
	uint32_t blen = len - k - 2 * q;
	if (memchr(body, '\\', blen))
		return 0;
	return tl_model__const_of_text(m, body, blen);
}

/* The constant of int literal text `t`: decimal, small. */
static uint16_t tl_consts__int(const char *t, uint32_t len, bool neg)
{
	if (!t || !len || len > 4)
		return 0;
	int v = 0;
	for (uint32_t i = 0; i < len; i++) {
		if (t[i] < '0' || t[i] > '9')
			return 0;
		v = v * 10 + (t[i] - '0');
	}
	if (len > 1 && t[0] == '0')
		return 0;
	if (neg)
		v = -v;
	if (v < -4096 || v > 4095)
		return 0;
	return TL_VC(TL_VC_INT, v + 4096);
}

uint16_t tl_model__const_literal(TlModel *m, const TlIndex *idx, TSNode n)
{
	const TlSyms *sy = tl_syms();
	n = tl_index_unparen(n);
	if (ts_node_is_null(n))
		return 0;
	TSSymbol s = ts_node_symbol(n);
	uint32_t len = 0;
	if (s == sy->true_)
		return TL_VC(TL_VC_BOOL, 1);
	if (s == sy->false_)
		return TL_VC(TL_VC_BOOL, 0);
	if (s == sy->none)
		return TL_VC(TL_VC_NONE, 0);
	if (s == sy->string)
		return tl_consts__string(m, idx, n);
	if (s == sy->integer) {
		/* (the text first: an argument list's order of evaluation is
		 * not defined, and `len` read before the call was 0) */
		const char *t = tl_index_text(idx, n, &len);
		return tl_consts__int(t, len, false);
	}
	if (s == sy->unary_operator) {
		TSNode a = tl_index_unparen(tl_tree_field(n, sy->f_argument));
		const char *t = tl_index_text(idx, n, &len);
		if (!ts_node_is_null(a) && ts_node_symbol(a) == sy->integer && t && len && t[0] == '-') {
			uint32_t al = 0;
			const char *at = tl_index_text(idx, a, &al);
			return tl_consts__int(at, al, true);
		}
	}
	return 0;
}

/* Whether constants `a` and `b` (both known) are equal, as `==` has it
 * (True == 1). */
static bool tl_consts__equal(uint16_t a, uint16_t b)
{
	unsigned ta = TL_VC_TAG(a), tb = TL_VC_TAG(b);
	if (ta == TL_VC_BOOL && tb == TL_VC_INT)
		return TL_VC_PAYLOAD(b) == 4096 + TL_VC_PAYLOAD(a);
	if (tb == TL_VC_BOOL && ta == TL_VC_INT)
		return TL_VC_PAYLOAD(a) == 4096 + TL_VC_PAYLOAD(b);
	return a == b;
}

const char *tl_model__const_op(TSNode n)
{
	const char *op = NULL;
	uint32_t nc = ts_node_child_count(n);
	for (uint32_t i = 0; i < nc; i++) {
		TSNode ch = ts_node_child(n, i);
		if (ts_node_is_named(ch))
			continue;
		if (op)
			return NULL;
		op = ts_node_type(ch);
	}
	return op;
}

int tl_model__const_compare(const char *op, uint16_t a, uint16_t b)
{
	int t = -1;
	if (!op || !a || !b)
		return -1;
	if (!strcmp(op, "==") || !strcmp(op, "!=")) {
		/* a list's items are not kept */
		if (TL_VC_TAG(a) == TL_VC_LEN || TL_VC_TAG(b) == TL_VC_LEN)
			return -1;
		t = tl_consts__equal(a, b);
		if (op[0] == '!')
			t = !t;
	} else if (!strcmp(op, "is") || !strcmp(op, "is not")) {
		unsigned ta = TL_VC_TAG(a), tb = TL_VC_TAG(b);
		bool single = (ta == TL_VC_NONE || ta == TL_VC_BOOL) && (tb == TL_VC_NONE || tb == TL_VC_BOOL);
		t = single ? a == b : ta != tb ? 0 : -1;
		if (t >= 0 && op[2] == ' ')
			t = !t;
	}
	return t;
}

/* `x in (a, b, c)`: 1, 0, or -1 when not known (the right operand a
 * literal tuple, list or set of at most TL_VAL_PARTS known constants). */
static int tl_consts__in(In *in, TSNode right, uint16_t x, const TlVal *c)
{
	const TlSyms *sy = in->sy;
	right = tl_index_unparen(right);
	if (ts_node_is_null(right) || c->kind != TL_VK_CONTAINER)
		return -1;
	TSSymbol s = ts_node_symbol(right);
	if (s != sy->tuple && s != sy->list && s != sy->set)
		return -1;
	uint32_t n = ts_node_named_child_count(right);
	if (n > TL_VAL_PARTS)
		return -1;
	uint32_t seen = 0;
	bool hit = false;
	for (int32_t k = c->parts; k >= 0; k = in->m->pool.vals.items[k].next) {
		uint16_t e = in->m->pool.vals.items[k].cst;
		if (!e)
			return -1;
		hit = hit || tl_consts__equal(x, e);
		seen++;
	}
	return seen == n ? hit : -1;
}

void tl_in__const_expr(In *in, TSNode n, const TlVal *vals, uint32_t nv, TlVal *r)
{
	const TlSyms *sy = in->sy;
	TSSymbol s = ts_node_symbol(n);
	if (s == sy->true_ || s == sy->false_ || s == sy->none || s == sy->string || s == sy->integer) {
		r->cst = tl_model__const_literal(in->m, in->idx, n);
	} else if (s == sy->unary_operator) {
		r->cst = tl_model__const_literal(in->m, in->idx, n);
	} else if (s == sy->not_operator) {
		int t = nv >= 1 ? tl_val_const_truth(vals[0].cst) : -1;
		r->cst = t < 0 ? 0 : TL_VC(TL_VC_BOOL, !t);
	} else if (s == sy->comparison_operator) {
		const char *op = nv == 2 ? tl_model__const_op(n) : NULL;
		uint16_t a = nv == 2 ? vals[0].cst : 0, b = nv == 2 ? vals[1].cst : 0;
		int t = -1;
		if (!op || !a) {
			t = -1;
		} else if (!strcmp(op, "in") || !strcmp(op, "not in")) {
			uint32_t nc = ts_node_named_child_count(n);
			t = nc == 2 ? tl_consts__in(in, ts_node_named_child(n, 1), a, &vals[1]) : -1;
			if (t >= 0 && op[0] == 'n')
				t = !t;
		} else {
			t = tl_model__const_compare(op, a, b);
		}
		r->cst = t < 0 ? 0 : TL_VC(TL_VC_BOOL, t);
	} else if (s == sy->boolean_operator && nv >= 2) {
		const char *op = tl_model__const_op(n);
		int t = tl_val_const_truth(vals[0].cst);
		r->cst = 0;
		if (op && t >= 0)
			r->cst = !strcmp(op, "and") ? (t ? vals[1].cst : vals[0].cst)
			       : !strcmp(op, "or") ? (t ? vals[0].cst : vals[1].cst) : 0;
	} else if (s == sy->conditional_expression && nv >= 3) {
		int t = tl_val_const_truth(vals[1].cst);
		r->cst = t < 0 ? 0 : t ? vals[0].cst : vals[2].cst;
	}
}
