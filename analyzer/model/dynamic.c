/* Names looked up at run time that the project still decides: a builder
 * taken from a module of the project by a name the configuration holds,
 * `getattr(builder, hparams.builder)(...)`. Whatever the name, the call
 * can only run something that module defines; when it defines one
 * function or class and nothing else that could be called (its other
 * names are `from __future__` features and dunder constants), the call
 * runs that one.
 *
 * Owns: tl_in__getattr_module. */
#include <string.h>

#include "base/alloc.h"
#include "model/interp_internal.h"

/* True when module-level binding `b` of a module can be nothing a call
 * runs: a `from __future__ import` feature, or a dunder constant
 * (`__all__`, `__version__`) bound to a literal. */
static bool tl_in__not_callable(const TlIndex *mod, const TlBinding *b)
{
	const TlSyms *sy = tl_syms();
	if (b->kind == TL_BIND_IMPORT)
		return b->qname && strncmp(b->qname, "__future__.", 11) == 0;
	if (b->kind != TL_BIND_ASSIGN || !b->name)
		return false;
	size_t n = strlen(b->name);
	if (n < 5 || strncmp(b->name, "__", 2) != 0 || strcmp(b->name + n - 2, "__") != 0)
		return false;
	TSNode v = tl_index_unparen(b->value);
	if (ts_node_is_null(v))
		return false;
	TSSymbol s = ts_node_symbol(v);
	return s == sy->string || s == sy->list || s == sy->tuple || s == sy->integer ||
	       s == sy->float_;
}

bool tl_in__getattr_module(In *in, TSNode call, TlVal *out)
{
	const TlSyms *sy = in->sy;
	const TlIndex *idx = in->idx;
	if (!idx->imports)
		return false;
	TSNode fn = tl_index_unparen(tl_tree_field(call, sy->f_function));
	TSNode al = tl_tree_field(call, sy->f_arguments);
	if (ts_node_is_null(fn) || ts_node_symbol(fn) != sy->identifier || !tl_index_text_is(idx, fn, "getattr") ||
	    tl_index_resolve_node(idx, fn) || ts_node_is_null(al) || ts_node_named_child_count(al) != 2)
		return false;
	TSNode obj = tl_index_unparen(ts_node_named_child(al, 0));
	TSNode key = ts_node_named_child(al, 1);
	if (ts_node_symbol(obj) != sy->identifier && ts_node_symbol(obj) != sy->attribute)
		return false;
	if (ts_node_symbol(key) == sy->keyword_argument || ts_node_symbol(key) == sy->list_splat ||
	    ts_node_symbol(key) == sy->dictionary_splat)
		return false;
	char *q = tl_index_qualify(idx, obj);
	if (!q)
		return false;
	const TlIndex *mod = idx->imports->module(idx->imports, idx, q, strlen(q));
	tl_free(q);
	if (!mod || mod == idx)
		return false;
	const TlBinding *one = NULL;
	for (uint32_t i = 0; i < mod->bindings.size; i++) {
		const TlBinding *b = &mod->bindings.items[i];
		if (b->func != -1 || b->class_body || b->kind == TL_BIND_PARAM)
			continue;
		if (tl_in__not_callable(mod, b))
			continue;
		if ((b->kind != TL_BIND_DEF && b->kind != TL_BIND_CLASS) || b->ref < 0)
			return false; /* an import, an assignment: could be anything */
		if (one && (one->kind != b->kind || one->ref != b->ref))
			return false; /* two things it could run */
		one = b;
	}
	if (!one)
		return false;
	*out = tl_val_of(one->kind == TL_BIND_DEF ? TL_VK_FUNCTION : TL_VK_CLASS, TL_VG_NONE);
	out->ref = one->ref;
	out->mod = mod;
	return true;
}
