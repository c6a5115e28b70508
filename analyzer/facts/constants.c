/* Constants: the literal an expression always holds, written in place or
 * through a name bound once to it (`flag = False; f(x, flag)`), and the
 * numeric value of constant numbers (`-1e9`, `float("1e10")`, `NEG = -1e4`).
 * Any rule may ask these through #literal? and #number-beyond?.
 *
 * Owns: tl_facts_literal, tl_facts_number. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "facts/internal.h"

/* ---- literals through names bound once --------------------------------------------- */

TSNode tl_facts__bound_once(const TlIndex *idx, TSNode name)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	if (ts_node_symbol(name) != sy->identifier)
		return none;
	const TlBinding *b = tl_index_resolve_node(idx, name);
	if (!b || b->kind != TL_BIND_ASSIGN || b->elem >= 0 || b->depth != 0 ||
	    b->class_body || b->cls >= 0 || ts_node_is_null(b->value))
		return none;
	const TlIntArray *all = tl_index_bindings_of(idx, b->func, b->name);
	if (!all || all->size != 1)
		return none;
	return tl_index_unparen(b->value);
}

/* The expression `expr` stands for: itself, or what the names it goes
 * through are bound once to (`a = b = ...` chains of single bindings). */
static TSNode tl_facts__constant_expr(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	TSNode e = tl_index_unparen(expr);
	for (int depth = 0; depth <= TL_FACTS_DEPTH && !ts_node_is_null(e); depth++) {
		if (ts_node_symbol(e) != sy->identifier)
			return e;
		e = tl_facts__bound_once(idx, e);
	}
	TSNode none = { 0 };
	return none;
}

TSNode tl_facts_literal(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	TSNode e = tl_facts__constant_expr(idx, expr);
	if (ts_node_is_null(e))
		return none;
	TSSymbol s = ts_node_symbol(e);
	if (s == sy->true_ || s == sy->false_ || s == sy->none || s == sy->integer ||
	    s == sy->float_ || s == sy->string)
		return e;
	if (s == sy->unary_operator) {
		TSNode arg = tl_index_unparen(tl_tree_field(e, sy->f_argument));
		TSSymbol as = ts_node_symbol(arg);
		return (as == sy->integer || as == sy->float_) ? e : none;
	}
	return none;
}

/* ---- numbers ------------------------------------------------------------------------ */

/* Parses a Python number literal (`1e9`, `65_504`, `0x10`); false for
 * complex numbers and text that is not one. */
static bool tl_facts__parse_number(const char *s, uint32_t len, double *out)
{
	char buf[64];
	uint32_t n = 0;
	for (uint32_t i = 0; i < len; i++) {
		if (s[i] == '_')
			continue;
		if (n + 1 >= sizeof buf || s[i] == 'j' || s[i] == 'J')
			return false;
		buf[n++] = s[i];
	}
	buf[n] = '\0';
	if (!n)
		return false;
	char *end = NULL;
	errno = 0;
	bool integer = n > 1 && buf[0] == '0' && strchr("xXoObB", buf[1]);
	double v = integer ? (double)strtoull(buf + 2, &end,
					      strchr("xX", buf[1]) ? 16 : strchr("oO", buf[1]) ? 8 : 2)
			   : strtod(buf, &end);
	if (!end || *end)
		return false;
	*out = v;
	return true;
}

/* The number a literal (or `-literal`) node holds. */
static bool tl_facts__number_node(const TlIndex *idx, TSNode e, double *out)
{
	const TlSyms *sy = tl_syms();
	TSSymbol s = ts_node_symbol(e);
	double sign = 1.0;
	if (s == sy->unary_operator) {
		TSNode op = tl_tree_field(e, sy->f_operator);
		if (tl_index_text_is(idx, op, "-"))
			sign = -1.0;
		else if (!tl_index_text_is(idx, op, "+"))
			return false;
		e = tl_index_unparen(tl_tree_field(e, sy->f_argument));
		s = ts_node_symbol(e);
	}
	if (s != sy->integer && s != sy->float_)
		return false;
	uint32_t len = 0;
	const char *t = tl_index_text(idx, e, &len);
	if (!t || !tl_facts__parse_number(t, len, out))
		return false;
	*out *= sign;
	return true;
}

bool tl_facts_number(const TlIndex *idx, TSNode expr, double *out)
{
	const TlSyms *sy = tl_syms();
	TSNode e = tl_facts__constant_expr(idx, expr);
	if (ts_node_is_null(e))
		return false;
	/* float("1e10"), float("-inf"): a builtin float of a string literal. */
	if (ts_node_symbol(e) == sy->call) {
		const TlCall *c = tl_index_call_at(idx, e);
		if (!c || c->receiver.id || !c->method || strcmp(c->method, "float") != 0 ||
		    c->qname || tl_facts__argc(e) != 1)
			return false;
		TSNode a = tl_facts_literal(idx, tl_facts__arg(e, 0));
		if (ts_node_is_null(a))
			return false;
		if (ts_node_symbol(a) != sy->string)
			return tl_facts__number_node(idx, a, out);
		uint32_t len = 0;
		const char *t = tl_index_text(idx, a, &len);
		if (!t || len < 2 || len > 40 || (t[0] != '"' && t[0] != '\''))
			return false;
		char buf[48];
		memcpy(buf, t + 1, len - 2);
		buf[len - 2] = '\0';
		char *end = NULL;
		double v = strtod(buf, &end);
		if (end == buf || *end)
			return false;
		*out = v;
		return true;
	}
	TSNode lit = tl_facts_literal(idx, e);
	return !ts_node_is_null(lit) && tl_facts__number_node(idx, lit, out);
}
