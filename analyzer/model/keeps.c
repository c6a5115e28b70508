/* What a method keeps of its arguments in its object (model.h:
 * tl_model_kept_attr): a summary field.
 *
 * A running-average meter (`self.sum += val * n`), a step log
 * (`self.history.append(val)`) or a moving average (`self.value = d *
 * self.value + (1 - d) * val`) keeps something of each call's argument in
 * an attribute of `self` that outlives the call: with a graph tensor, its
 * graph, call after call. The interpreter tells such a store where it runs
 * it (tl_in__keep_store): a store into `self.<attr>` that adds to what the
 * attribute held, outside any loop of the method, of a value whose history
 * follows some of the method's parameters (TlVal.pgraph: `val * n` follows
 * both, `val.item()` neither). Those parameters are the summary's `keeps`
 * bits, and the attribute the first store named is kept per parameter
 * (TlModel.kept_attr).
 *
 * A constructor holds what it is handed unless it keeps only a copy
 * (`self.module = deepcopy(model)`: a model's moving average is another
 * object, which the optimizer that trains the model does not update).
 *
 * Owns: tl_model_kept_attr, tl_model_ctor_holds and the interpreter's
 * tl_in__keep_store. */
#include "model/apitable.h"
#include "model/interp_internal.h"

#include <string.h>

/* Bounds the nodes of one right-hand side looked at for the attribute a
 * moving average reads. */
#define TL_KEEPS_TERMS 64

/* True when expression `rhs` reads `target` (an attribute, by its text)
 * outside any call or lambda: `d * self.value + (1 - d) * val` reads
 * `self.value`. */
static bool tl_keeps__reads(In *in, TSNode rhs, TSNode target)
{
	const TlSyms *sy = in->sy;
	uint32_t tlen = 0;
	const char *ttext = tl_index_text(in->idx, target, &tlen);
	int left = TL_KEEPS_TERMS;
	bool found = false;
	TlWalk w;
	tl_walk_start(&w, rhs);
	bool descend = true;
	do {
		TSNode x = w.node;
		TSSymbol s = ts_node_symbol(x);
		descend = s != sy->call && s != sy->lambda && --left > 0;
		if (s == sy->attribute) {
			uint32_t len = 0;
			const char *t = tl_index_text(in->idx, x, &len);
			found = len == tlen && memcmp(t, ttext, len) == 0;
			descend = false;
		}
	} while (!found && left > 0 && tl_walk_step(&w, descend));
	tl_walk_end(&w);
	return found;
}

void tl_in__keep_store(In *in, TSNode target, TSNode rhs, const TlVal *v)
{
	if (in->func < 0 || in->cls < 0 || in->self_id < 0 || in->loops || !v->pgraph)
		return;
	TlPath p;
	target = tl_index_unparen(target);
	if (!tl_path_of(&in->m->names, in->idx, target, &p) || p.root != in->self_id || p.n != 1 || p.sel[0] < 0)
		return;
	/* A plain assignment keeps the value only when it adds to what the
	 * attribute held (a moving average); `self.last = val` replaces it. */
	if (!ts_node_is_null(rhs) && !tl_keeps__reads(in, rhs, target))
		return;
	/* The object's own parameter (`self`) is no argument handed over. */
	uint16_t bits = v->pgraph;
	for (uint32_t i = 0; i < in->nparams && i < 16; i++)
		if (in->param_roots[i] == in->self_id)
			bits = (uint16_t)(bits & ~(1u << i));
	in->pkept = (uint16_t)(in->pkept | bits);
	for (uint32_t i = 0; i < 16; i++)
		if (bits & (1u << i)) {
			int32_t at;
			if (!tl_scopemap_get(&in->m->kept_attr, (uint32_t)in->func, i, &at))
				tl_scopemap_put(&in->m->kept_attr, (uint32_t)in->func, i, p.sel[0]);
		}
}

const char *tl_model_kept_attr(const TlIndex *idx, int32_t func, uint32_t param)
{
	const TlModel *m = tl_model_of(idx);
	if (!m || func < 0 || (uint32_t)func >= m->funcs.size || param >= 16)
		return NULL;
	tl_model__ensure((TlModel *)m, func); /* computed on demand: no answer changes */
	const TlFuncSum *s = &m->funcs.items[func];
	int32_t name;
	if (!s->status || !(s->keeps & (1u << param)) ||
	    !tl_scopemap_get(&m->kept_attr, (uint32_t)func, param, &name) || name < 0 ||
	    (uint32_t)name >= m->names.names.size)
		return NULL;
	return m->names.names.items[name];
}

/* ---- what a constructor holds of its arguments ---------------------------------- */

/* True when `read`, a read of a parameter, hands over only a copy of it:
 * the first argument of a call whose row says copy (`deepcopy(model)`). */
static bool tl_keeps__copied(const TlIndex *idx, TSNode read)
{
	const TlSyms *sy = tl_syms();
	TSNode args = tl_index_parent(idx, read);
	if (ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list ||
	    !ts_node_eq(ts_node_named_child(args, 0), read))
		return false;
	TSNode call = tl_index_parent(idx, args);
	const TlCall *c = ts_node_is_null(call) ? NULL : tl_index_call_at(idx, call);
	const TlApiRow *r = c && c->qname ? tl_api_qualified(c->qname) : NULL;
	return r && (r->roles & TL_APIR_COPY);
}

/* True when read `x` of a constructor's parameter may keep the object: it
 * is handed whole to a call (`super().__init__(model)`, `self.add(model)`:
 * the callee may store it), or it is in the value an assignment stores
 * (`self.module = model`, `m = model`, `self.params =
 * list(model.parameters())`). Not: a copy, or a use that stores nothing
 * (`model.eval()`, `if next(model.parameters()).is_cuda:`). */
static bool tl_keeps__may_hold(const TlIndex *idx, TSNode x)
{
	const TlSyms *sy = tl_syms();
	if (tl_keeps__copied(idx, x))
		return false;
	TSNode node = x;
	for (int up = 0; up < 64; up++) {
		TSNode p = tl_index_parent(idx, node);
		if (ts_node_is_null(p))
			return false;
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->argument_list && ts_node_eq(node, x))
			return true;
		if (s == sy->keyword_argument && ts_node_eq(node, x) && ts_node_eq(tl_tree_field(p, sy->f_value), x))
			return true;
		if ((s == sy->assignment || s == sy->augmented_assignment) &&
		    ts_node_eq(tl_tree_field(p, sy->f_right), node))
			return true;
		if (s == sy->expression_statement || s == sy->block || s == sy->if_statement ||
		    s == sy->while_statement || s == sy->for_statement || s == sy->function_definition)
			return false;
		node = p;
	}
	return true;
}

int tl_model_ctor_holds(const TlIndex *idx, TSNode call, TSNode arg)
{
	const TlSyms *sy = tl_syms();
	TlVal v;
	call = tl_index_unparen(call);
	if (ts_node_is_null(call) || ts_node_symbol(call) != sy->call || !tl_model_value(idx, call, &v) ||
	    v.ref < 0 || !v.mod)
		return -1;
	const TlIndex *where = NULL;
	int32_t f = tl_model_method_of(&v, "__init__", &where);
	if (f < 0 || !where)
		return -1;
	/* The parameter that receives `arg`: by position after `self`, or by
	 * its keyword. */
	TSNode args = tl_index_parent(idx, arg);
	const char *pname = NULL;
	const TlFunc *fn = &where->funcs.items[f];
	if (!ts_node_is_null(args) && ts_node_symbol(args) == sy->keyword_argument) {
		TSNode key = tl_tree_field(args, sy->f_name);
		uint32_t len = 0;
		const char *t = tl_index_text(idx, key, &len);
		for (uint32_t i = 1; t && i < fn->params.size && !pname; i++) {
			const char *n = where->bindings.items[fn->params.items[i]].name;
			if (n && strlen(n) == len && memcmp(n, t, len) == 0)
				pname = n;
		}
	} else if (!ts_node_is_null(args) && ts_node_symbol(args) == sy->argument_list) {
		uint32_t pos = 0, count = ts_node_named_child_count(args);
		for (uint32_t i = 0; i < count; i++) {
			TSNode a = ts_node_named_child(args, i);
			TSSymbol s = ts_node_symbol(a);
			if (s == sy->list_splat || s == sy->dictionary_splat)
				return -1;
			if (ts_node_eq(a, arg))
				break;
			if (s != sy->keyword_argument && s != sy->comment)
				pos++;
		}
		if (pos + 1 < fn->params.size)
			pname = where->bindings.items[fn->params.items[pos + 1]].name;
	}
	if (!pname)
		return -1;
	/* Every read of it in the constructor: one that may keep the object
	 * (stored, passed on) holds it. */
	size_t plen = strlen(pname);
	TlWalk w;
	tl_walk_start(&w, fn->node);
	bool descend = true, held = false;
	do {
		TSNode x = w.node;
		descend = true;
		if (ts_node_symbol(x) != sy->identifier)
			continue;
		uint32_t len = 0;
		const char *t = tl_index_text(where, x, &len);
		TSNode up = tl_index_parent(where, x);
		if (!t || len != plen || memcmp(t, pname, plen) != 0 || ts_node_is_null(up) ||
		    ts_node_symbol(up) == sy->parameters || ts_node_symbol(up) == sy->default_parameter ||
		    ts_node_symbol(up) == sy->typed_parameter || ts_node_symbol(up) == sy->typed_default_parameter ||
		    (ts_node_symbol(up) == sy->attribute && !ts_node_eq(tl_tree_field(up, sy->f_object), x)) ||
		    (ts_node_symbol(up) == sy->keyword_argument && ts_node_eq(tl_tree_field(up, sy->f_name), x)))
			continue;
		held = tl_keeps__may_hold(where, x);
	} while (!held && tl_walk_step(&w, descend));
	tl_walk_end(&w);
	return held;
}
