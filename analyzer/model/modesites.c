/* Module modes: the question (docs/semantic-model.md, "Module modes").
 *
 * model/modes.c transfers a module's mode through a function's body and
 * records, at each call site, the modes of what the call hands on; this
 * file answers the mode a subject has where a rule asks: its value's mode
 * where the function's interpretation knows it, else its entry
 * (TL_VMODE_ENTRY) resolved over every call site in the project (the
 * module's, and those of the modules that import it: model/callers.c),
 * a work list of at most TL_MODES_RESOLVE functions; and the modes a test
 * of the function's parameters decides under a call site's constants.
 *
 * Owns: tl_model_mode, tl_model_mode_eval_on_a_path, tl_model_mode_from,
 * tl_model_mode_nowhere, tl_model_mode_eval_in_context,
 * tl_model__mode_cond, tl_model__mode_under, tl_model__mode_arg,
 * tl_model__mode_flag_at. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "model/apitable.h"
#include "model/interp_internal.h"

/* ---- the question ----------------------------------------------------------- */

/* A function whose parameter's entry mode is being resolved. */
typedef struct TlModeItem {
	const TlIndex *idx;
	int32_t func;
	uint32_t param;
	const char *attr; /* the mode of this attribute of the parameter (`self.net`), or NULL */
	bool elems;       /* ... of its elements (`self.models["g"]`) */
	const char *global; /* not a parameter's: this global's of the module (`model`), or NULL */
} TlModeItem;

typedef struct TlModeWork {
	TlModeItem items[TL_MODES_RESOLVE];
	uint32_t n;
	uint8_t bits;   /* the modes the call sites hand, joined */
	bool unknown;   /* one cannot be told */
	bool lenient;   /* ... and the others are still read (the modes some sites hand) */
	uint32_t sites; /* call sites read */
	const TlModeItem *at; /* the item whose call sites are being read */
} TlModeWork;

/* True when the work stops: a site cannot be told, and the answer is the
 * modes every site hands. */
static bool tl_modes__stopped(const TlModeWork *w)
{
	return w->unknown && !w->lenient;
}

/* Adds (idx, func, param) to the work, once. */
static void tl_modes__push(TlModeWork *w, const TlIndex *idx, int32_t func, uint32_t param, const char *attr,
			   bool elems, const char *global)
{
	for (uint32_t i = 0; i < w->n; i++)
		if (w->items[i].idx == idx && w->items[i].func == func && w->items[i].param == param &&
		    w->items[i].elems == elems && w->items[i].global == global &&
		    (w->items[i].attr == attr || (attr && w->items[i].attr && strcmp(attr, w->items[i].attr) == 0)))
			return;
	if (w->n == TL_MODES_RESOLVE) {
		w->unknown = true;
		return;
	}
	w->items[w->n++] = (TlModeItem){ idx, func, param, attr, elems, global };
}

/* The modes a call's record (its key 0, or its globals') says switches of
 * a module other paths may hold put it in before the call (In.malias_modes):
 * what a mode recorded there joins. */
static uint8_t tl_modes__alias_modes(int32_t stale)
{
	return (uint8_t)(((uint32_t)stale >> 4) & (TL_VMODE_TRAIN | TL_VMODE_EVAL));
}

/* True when call `c` (of the module whose model is `om`) was recorded
 * handing over argument `a` with attribute `attr` bound in the state
 * (om->site_modes): *mode, its mode there (0: not known). */
static bool tl_modes__recorded(const TlModel *om, const TlCall *c, TSNode a, const char *attr, bool elems,
			       uint8_t *mode)
{
	uint32_t site = ts_node_start_byte(tl_index_unparen(a));
	int32_t bits, id = tl_path_lookup(&om->names, attr, strlen(attr));
	if (id < 0 || c->func < 0 || (uint32_t)c->func >= om->funcs.size ||
	    !tl_scopemap_get(&om->site_modes, site, 0, &bits) || (bits & 1))
		return false;
	int32_t stale = bits;
	if (!tl_scopemap_get(&om->site_modes, site, ((uint32_t)id + 1) | (elems ? TL_MODES_ELEMS_KEY : 0u), &bits))
		return false;
	*mode = (bits & 0x80) ? 0 : (uint8_t)(bits | tl_modes__alias_modes(stale));
	return true;
}

/* The mode of attribute `attr` of the object call `c` (of `mod`, whose
 * model is `om`) hands a parameter as argument `a` (valued `v`): what the
 * state held for it at the call (om->site_modes, a method called through
 * an instance), else, the attribute bound nowhere in the caller, the
 * mode of what the object's class stores in it (a module it builds: train
 * mode), or, for an object the caller is handed, that object's entry. 0
 * when not known: the call was not recorded, or the caller may switch
 * modes that its summary does not name. */
static uint8_t tl_modes__attr_at(const TlModel *om, const TlIndex *mod, const TlCall *c, TSNode a,
				 const TlVal *v, const char *attr)
{
	uint32_t site = ts_node_start_byte(tl_index_unparen(a));
	int32_t bits, id = tl_path_intern((TlPathNames *)&om->names, attr, strlen(attr));
	if (c->func < 0 || (uint32_t)c->func >= om->funcs.size || !tl_scopemap_get(&om->site_modes, site, 0, &bits) ||
	    (bits & 1))
		return 0;
	int32_t stale = bits;
	if (tl_scopemap_get(&om->site_modes, site, (uint32_t)id + 1, &bits))
		return (bits & 0x80) ? 0 : (uint8_t)(bits | tl_modes__alias_modes(stale));
	if (stale)
		return 0; /* not bound there, and every mode was forgotten before */
	if (v->kind != TL_VK_OBJECT || v->ref < 0 || !v->mod)
		return 0;
	TlVal cv;
	if (!tl_model__class_attr((TlModel *)om, (const TlIndex *)v->mod, v->ref, id, attr, &cv) ||
	    !(tl_model__module_like(&cv) || cv.kind == TL_VK_TOP))
		return 0;
	if (v->mode)
		return v->mode; /* a submodule (or what the forward asked about holds) of what a parameter holds */
	return (cv.mode & TL_VMODE_ENTRY) ? 0 : cv.mode;
}

/* True when class `cls` of `idx` derives from local class `base`. */
static bool tl_modes__derives(const TlIndex *idx, int32_t cls, int32_t base)
{
	int32_t todo[16];
	uint32_t n = 0;
	todo[n++] = cls;
	for (uint32_t i = 0; i < n; i++) {
		const TlClass *k = &idx->classes.items[todo[i]];
		for (uint32_t j = 0; j < k->bases.size; j++) {
			if (k->bases.items[j] == base)
				return true;
			if (n < 16)
				todo[n++] = k->bases.items[j];
		}
	}
	return false;
}

/* True when class `cls` is no module and none of its bases may make it
 * one: each is a class of the module that is no module, or `object`,
 * `ABC`. The class and its bases in the module, each once (a work list:
 * a base met again, as in a cycle, is already being checked). */
static bool tl_modes__plain_class(const TlIndex *idx, int32_t cls)
{
	TlIntArray todo;
	tl_array_init(&todo);
	tl_array_push(&todo, cls);
	bool plain = true;
	for (uint32_t at = 0; plain && at < todo.size; at++) {
		const TlClass *k = &idx->classes.items[todo.items[at]];
		if (k->is_module) {
			plain = false;
			break;
		}
		for (uint32_t i = 0; plain && i < k->base_qnames.size; i++) {
			const char *q = k->base_qnames.items[i];
			bool local = false;
			for (uint32_t j = 0; j < k->bases.size && !local; j++)
				local = strcmp(idx->classes.items[k->bases.items[j]].name, q) == 0;
			plain = local || strcmp(q, "object") == 0 || strcmp(q, "abc.ABC") == 0 || strcmp(q, "ABC") == 0;
		}
		for (uint32_t j = 0; plain && j < k->bases.size; j++) {
			bool seen = false;
			for (uint32_t t = 0; t < todo.size && !seen; t++)
				seen = todo.items[t] == k->bases.items[j];
			if (!seen)
				tl_array_push(&todo, k->bases.items[j]);
		}
	}
	tl_array_release(&todo);
	return plain;
}

/* The mode attribute `attr` of `self` holds between calls of the methods
 * of a class that is no module (an evaluator putting its model in eval
 * mode in its constructor), as parameter `param` (0, `self`) of method
 * `func` enters it: the mode the class's `__init__` leaves it in, when no
 * other method of the class, or of a class of the module deriving from it,
 * leaves it in another or stores another object there (their summaries'
 * effects), none may switch what its summary does not name, and no call
 * of the module outside them switches an attribute of that name
 * (`evaluator.model.train()`); eval mode only. 0 when not known, and for
 * `__init__`. */
static uint8_t tl_modes__held(const TlIndex *idx, int32_t func, uint32_t param, const char *attr)
{
	if (param != 0 || !attr || func < 0)
		return 0;
	const TlFunc *fn = &idx->funcs.items[func];
	int32_t cls = fn->cls;
	if (cls < 0 || strcmp(fn->name, "__init__") == 0 || !tl_modes__plain_class(idx, cls))
		return 0;
	bool is_static = false, is_classmethod = false;
	tl_model__method_kind(idx, fn, &is_static, &is_classmethod);
	if (is_static || is_classmethod)
		return 0;
	TlModel *m = (TlModel *)tl_model_of(idx);
	int32_t id = m ? tl_path_lookup(&m->names, attr, strlen(attr)) : -1;
	if (id < 0)
		return 0;
	uint8_t held = 0, others = 0;
	for (uint32_t f = 0; f < idx->funcs.size; f++) {
		const TlFunc *g = &idx->funcs.items[f];
		if (g->cls < 0 || (g->cls != cls && !tl_modes__derives(idx, g->cls, cls)))
			continue;
		tl_model__ensure(m, (int32_t)f);
		const TlFuncSum *sum = &m->funcs.items[f];
		if (!sum->status || sum->meff_wide)
			return 0;
		uint8_t got = TL_VMODE_ENTRY; /* as it was */
		for (uint32_t e = 0; e < sum->meff_n; e++) {
			const TlModeEff *ef = &m->mode_effs.items[(uint32_t)sum->meff_first + e];
			if (ef->param == 0 && !ef->elems && (ef->attr == id || ef->attr < 0))
				got = ef->attr == id || got == TL_VMODE_ENTRY ? (uint8_t)(ef->mode & TL_VMODE_BITS) : got;
		}
		if (g->cls == cls && strcmp(g->name, "__init__") == 0) {
			if (!got || (got & TL_VMODE_ENTRY))
				return 0;
			held = got;
		} else if (!got) {
			return 0;
		} else {
			others |= (uint8_t)(got & ~TL_VMODE_ENTRY);
		}
	}
	/* Eval mode only: a model the constructor builds is in train mode,
	 * which a caller the model does not read (`trainer.model.eval()` in
	 * another program) may well switch before an evaluation method. */
	if (held != TL_VMODE_EVAL || (others & ~held))
		return 0;
	/* `evaluator.model.train()` outside the class (another class's
	 * `self.model` is its own) */
	size_t al = strlen(attr);
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (!(c->events & (TL_EV_TRAIN | TL_EV_MODE_SET)) || !c->recv_name)
			continue;
		int32_t ck = c->func >= 0 ? idx->funcs.items[c->func].cls : -1;
		if (ck >= 0 && (ck == cls || tl_modes__derives(idx, ck, cls)))
			continue;
		const char *r = c->recv_name;
		size_t rl = strlen(r);
		if (rl > al && r[rl - al - 1] == '.' && strcmp(r + rl - al, attr) == 0 &&
		    !(ck >= 0 && strncmp(r, "self.", 5) == 0))
			return 0;
	}
	return held;
}

/* The parameter of function `func` of `idx` that identifier path `p`'s
 * root names, or -1. */
static int32_t tl_modes__param(const TlModel *m, const TlIndex *idx, int32_t func, const TlPath *p)
{
	if (func < 0)
		return -1;
	const TlFunc *fn = &idx->funcs.items[func];
	const char *root = m->names.names.items[p->root];
	for (uint32_t k = 0; k < fn->params.size; k++) {
		const TlBinding *b = &idx->bindings.items[fn->params.items[k]];
		if (b->name && strcmp(b->name, root) == 0)
			return (int32_t)k;
	}
	return -1;
}

/* The argument call `c` passes for parameter `k` of `fn` (a method's
 * `self`: the receiver), or a null node. */
TSNode tl_model__mode_arg(const TlIndex *idx, const TlFunc *fn, const TlCall *c, uint32_t k)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	const TlBinding *pb = &idx->bindings.items[fn->params.items[k]];
	bool bound = fn->cls >= 0 && c->receiver.id != NULL;
	if (bound && k == 0)
		return c->receiver;
	uint32_t pos = k - (bound ? 1u : 0u);
	TSNode args = tl_tree_field(c->node, sy->f_arguments);
	if (ts_node_is_null(args))
		return none;
	uint32_t count = ts_node_named_child_count(args), at = 0;
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		TSSymbol s = ts_node_symbol(a);
		if (s == sy->keyword_argument) {
			TSNode name = tl_tree_field(a, sy->f_name);
			uint32_t len;
			const char *t = ts_node_is_null(name) ? NULL : tl_index_text(idx, name, &len);
			if (t && pb->name && strlen(pb->name) == len && memcmp(t, pb->name, len) == 0)
				return tl_tree_field(a, sy->f_value);
			continue;
		}
		if (s == sy->list_splat || s == sy->dictionary_splat)
			return none;
		if (at++ == pos)
			return a;
	}
	return none;
}

/* The mode `m.train(flag)` leaves when call `c` (of module `cmod`) runs
 * function `fn` of `fidx`, `flag` being its parameter `j`: train or eval
 * as the argument (a literal, a constant the caller's model knows, or
 * the parameter's default the call leaves) is true or false; `flag`
 * (TL_VMODE_FLAG_OF) when not known. `arg`: the argument's value when
 * the caller's interpreter has it, else NULL. */
uint8_t tl_model__mode_flag_at(const TlIndex *fidx, const TlFunc *fn, const TlCall *c, const TlIndex *cmod,
			       uint32_t j, const TlVal *arg, uint8_t flag)
{
	const TlSyms *sy = tl_syms();
	if (j >= fn->params.size)
		return flag;
	TSNode a = tl_index_unparen(tl_model__mode_arg(fidx, fn, c, j));
	const TlIndex *in_idx = cmod;
	if (ts_node_is_null(a)) {
		TSNode args = tl_tree_field(c->node, sy->f_arguments);
		uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
		for (uint32_t i = 0; i < count; i++) {
			TSSymbol s = ts_node_symbol(ts_node_named_child(args, i));
			if (s == sy->list_splat || s == sy->dictionary_splat)
				return flag;
		}
		const TlBinding *pb = &fidx->bindings.items[fn->params.items[j]];
		TSSymbol ps = ts_node_symbol(pb->stmt);
		if (ps != sy->default_parameter && ps != sy->typed_default_parameter)
			return flag;
		a = tl_index_unparen(tl_tree_field(pb->stmt, sy->f_value));
		in_idx = fidx;
		arg = NULL;
	}
	if (ts_node_is_null(a))
		return flag;
	TSSymbol s = ts_node_symbol(a);
	int truth = s == sy->true_ ? 1 : s == sy->false_ ? 0 : -1;
	TlVal v;
	if (truth < 0 && arg)
		truth = tl_val_const_truth(arg->cst);
	else if (truth < 0 && in_idx == cmod && tl_model_value(cmod, a, &v))
		truth = tl_val_const_truth(v.cst);
	return truth == 1 ? TL_VMODE_TRAIN : truth == 0 ? TL_VMODE_EVAL : flag;
}

/* Call site `c` (in module `mod`) of the function of w->at: what it hands
 * the parameter. */
static void tl_modes__site(TlModeWork *w, const TlIndex *mod, const TlIndex *fidx, int32_t f, const TlCall *c)
{
	if (tl_modes__stopped(w))
		return;
	w->sites++;
	const TlModel *om = tl_model_of(mod);
	if (!om || (mod == fidx && c->func == f)) { /* recursion: the entry is its own */
		w->unknown = true;
		return;
	}
	TSNode a = tl_model__mode_arg(fidx, &fidx->funcs.items[f], c, w->at->param);
	TlVal v;
	tl_model__ensure((TlModel *)om, c->func);
	if (ts_node_is_null(a) || !tl_model_value(mod, a, &v)) {
		w->unknown = true;
		return;
	}
	/* `self.net` of a method called through an instance, or an object
	 * that holds its model (`trainer.model`): that attribute's mode; of
	 * a module, the mode the state held for the attribute at the call
	 * (`self.model.eval()` before `self._forward(x)`), else the module's
	 * own (a submodule is in its owner's mode). */
	const char *attr = w->at->attr;
	bool elems = w->at->elems;
	uint8_t mode;
	if (attr && tl_modes__recorded(om, c, a, attr, elems, &mode)) {
		/* as the state held it at the call */
	} else if (attr && tl_model__module_like(&v)) {
		/* not bound at the call: the module's mode, whose entry part
		 * is the attribute's entry */
		mode = v.mode;
		if (!(mode & TL_VMODE_ENTRY))
			attr = NULL, elems = false;
	} else if (elems) {
		mode = 0; /* the elements of an object's attribute: not read yet */
	} else {
		mode = attr ? tl_modes__attr_at(om, mod, c, a, &v, attr) : v.mode;
	}
	if (!mode) {
		w->unknown = true;
		return;
	}
	w->bits |= (uint8_t)(mode & (TL_VMODE_TRAIN | TL_VMODE_EVAL));
	if (!(mode & TL_VMODE_ENTRY))
		return;
	/* The caller's entry: of its parameter itself, which an attribute is
	 * then read off at its call sites in turn. */
	TlPath p;
	int32_t k = tl_path_of((TlPathNames *)&om->names, mod, a, &p) && (!attr || p.n == 0)
			    ? tl_modes__param(om, mod, c->func, &p) : -1;
	if (k < 0) {
		w->unknown = true;
		return;
	}
	tl_modes__push(w, mod, c->func, (uint32_t)k, attr, elems, NULL);
}

/* Call site `c` (in `mod`) of w->at's function, whose item is a global of
 * the module: its mode recorded at the call; not bound in the caller's
 * state there, the caller's entry of it (a function of the module that
 * binds no local of that name). */
static void tl_modes__global_site(TlModeWork *w, const TlIndex *mod, const TlCall *c)
{
	if (tl_modes__stopped(w))
		return;
	w->sites++;
	const TlModel *om = tl_model_of(mod);
	if (!om || mod != w->at->idx || c->func == w->at->func) {
		w->unknown = true;
		return;
	}
	tl_model__ensure((TlModel *)om, c->func);
	uint32_t here = ts_node_start_byte(c->node);
	int32_t bits, id = tl_path_lookup(&om->names, w->at->global, strlen(w->at->global));
	int32_t stale = 0;
	if (id < 0 || !tl_scopemap_get(&om->site_modes, here, TL_MODES_GLOBAL_KEY, &stale) || (stale & 1)) {
		w->unknown = true;
		return;
	}
	if (tl_scopemap_get(&om->site_modes, here, ((uint32_t)id + 1) | TL_MODES_GLOBAL_KEY, &bits)) {
		uint8_t mode = (bits & 0x80) ? 0 : (uint8_t)(bits | tl_modes__alias_modes(stale));
		if (!mode) {
			w->unknown = true;
			return;
		}
		w->bits |= (uint8_t)(mode & (TL_VMODE_TRAIN | TL_VMODE_EVAL));
		if (!(mode & TL_VMODE_ENTRY))
			return;
	}
	if (stale || c->func < 0 || tl_index_bindings_of(mod, c->func, w->at->global) ||
	    tl_modes__param(om, mod, c->func, &(TlPath){ .root = id }) >= 0) {
		w->unknown = true;
		return;
	}
	tl_modes__push(w, mod, c->func, 0, NULL, false, w->at->global);
}

/* tl_model__importer_calls: the call sites of w->at's function in the
 * modules that import its module. */
static bool tl_modes__want(void *ctx, int32_t func)
{
	const TlModeWork *w = ctx;
	return !tl_modes__stopped(w) && func == w->at->func;
}

static void tl_modes__ext_visit(void *ctx, const TlExtCall *s)
{
	TlModeWork *w = ctx;
	if (tl_modes__stopped(w) || s->func != w->at->func || s->mod == w->at->idx)
		return;
	if (!s->om) {
		w->unknown = true; /* an import cycle */
		return;
	}
	tl_modes__site(w, s->mod, w->at->idx, s->func, s->call);
}

/* ... of a global item: an importer's call, whose globals are its own. */
static void tl_modes__ext_global(void *ctx, const TlExtCall *s)
{
	TlModeWork *w = ctx;
	if (s->func == w->at->func && s->mod != w->at->idx)
		w->unknown = true;
}

bool tl_model_mode_nowhere(const TlIndex *idx, int mode)
{
	if (mode != TL_MODEL_MODE_EVAL)
		return false;
	/* A caller in an importer (callers.c), a module or a summary read
	 * through an import: the file's own calls do not tell. */
	if (idx->imports && !tl_model__torch_package(idx))
		return false;
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const char *q = idx->calls.items[i].qname;
		const TlApiRow *row = q ? tl_api_qualified(q) : NULL;
		if (row && (row->sets & TL_APIS_EVAL_MODE))
			return false;
	}
	return true;
}

/* The mode that test `test` of function `func` decides: `then` where it
 * holds, `other` where it fails (TL_VMODE_COND_OF); their join when the
 * table is full or they are the same. */
uint8_t tl_model__mode_cond(TlModel *m, int32_t func, TSNode test, uint8_t then, uint8_t other)
{
	uint8_t join = TL_VMODE_JOIN(then, other);
	if (!then || !other || then == other || !join)
		return join;
	for (uint32_t k = 0; k < m->nmode_conds; k++) {
		const TlModeCond *e = &m->mode_conds[k];
		if (e->func == func && e->then == then && e->other == other && ts_node_eq(e->test, test))
			return TL_VMODE_COND_OF(k, join);
	}
	if (m->nmode_conds == TL_VMODE_CONDS)
		return join;
	m->mode_conds[m->nmode_conds] = (TlModeCond){ func, test, then, other };
	return TL_VMODE_COND_OF(m->nmode_conds++, join);
}

uint8_t tl_model__mode_under(TlModel *m, const TlIndex *idx, uint8_t mode, int32_t f, const uint16_t *p)
{
	for (uint32_t guard = 0; TL_VMODE_IS_COND(mode) && guard <= TL_VMODE_CONDS; guard++) {
		uint32_t k = TL_VMODE_COND_INDEX(mode);
		if (k >= m->nmode_conds || m->mode_conds[k].func != f)
			break;
		int t = tl_model__ctx_cond(m, idx, f, p, m->mode_conds[k].test);
		if (t < 0)
			break;
		mode = t ? m->mode_conds[k].then : m->mode_conds[k].other;
	}
	return TL_VMODE_IS_COND(mode) ? (uint8_t)(mode & TL_VMODE_BITS) : mode;
}

/* tl_model_mode; with `site` (a call of subject's function in `idx`), its
 * entry read at that call only (its callers' entries, at all of theirs). */
static int tl_modes__resolve(const TlIndex *idx, TSNode subject, int callers, const TlCall *site,
			     const TlIndex *smod, bool lenient)
{
	const TlModel *m = tl_model_of(idx);
	if (!m || ts_node_is_null(subject))
		return 0;
	int32_t func = tl_index_func_of(idx, subject);
	tl_model__ensure((TlModel *)m, func);
	TlVal v;
	if (!tl_model_value(idx, subject, &v) || !v.mode)
		return 0;
	if (TL_VMODE_IS_COND(v.mode) && site && func >= 0) {
		/* decided by a test of the function's parameters: under the
		 * constants the call passes */
		uint16_t p[TL_MODEL_CTX_PARAMS];
		tl_model__site_consts((TlModel *)m, idx, func, smod, site, p);
		v.mode = tl_model__mode_under((TlModel *)m, idx, v.mode, func, p);
	}
	if (TL_VMODE_IS_FLAG(v.mode) && site && func >= 0 && smod == idx) {
		/* `m.train(flag)`: as the call's argument says */
		uint8_t flag = tl_model__mode_flag_at(idx, &idx->funcs.items[func], site, idx, TL_VMODE_FLAG_PARAM(v.mode),
						 NULL, 0);
		return flag ? flag : TL_VMODE_TRAIN | TL_VMODE_EVAL;
	}
	v.mode &= TL_VMODE_BITS;
	if (!(v.mode & TL_VMODE_ENTRY))
		return v.mode;
	if (!callers)
		return 0;
	TlPath p;
	if (!tl_path_of((TlPathNames *)&m->names, idx, subject, &p))
		return 0;
	int32_t k = tl_modes__param(m, idx, func, &p);
	/* a global of the module (`model`), not bound in the function: as
	 * its callers hold it */
	const char *global = NULL;
	if (k < 0 && func >= 0 && !p.n && !p.cut) {
		const char *name = m->names.names.items[p.root];
		const TlBinding *b = tl_index_resolve_node(idx, tl_index_unparen(subject));
		if (b && (b->func == -1 || (b->kind != TL_BIND_PARAM && tl_model__nested_in(idx, func, b->func))) &&
		    !tl_index_bindings_of(idx, func, name))
			global = name; /* or a local of the function a closure is nested in */
	}
	if (k < 0 && !global)
		return 0;
	TlModeWork *w = tl_calloc(1, sizeof *w);
	w->lenient = lenient;
	w->bits = (uint8_t)(v.mode & (TL_VMODE_TRAIN | TL_VMODE_EVAL));
	/* An attribute of the parameter (`self.net`): read at each call site
	 * off the object handed in, when that is no module. */
	const char *attr = (p.n == 1 || p.n == 2) && !p.cut && p.sel[0] >= 0 ? m->names.names.items[p.sel[0]] : NULL;
	/* `self.models["g"]`: of the attribute's elements */
	bool elems = attr && p.n == 2 && (p.sel[1] == TL_PATH_ANY || TL_PATH_IS_KEY(p.sel[1]));
	if (p.n == 2 && !elems)
		attr = NULL;
	if (global)
		tl_modes__push(w, idx, func, 0, NULL, false, global);
	else
		tl_modes__push(w, idx, func, (uint32_t)k, attr, elems, NULL);
	bool project = idx->imports != NULL;
	if (project)
		tl_model__enter(idx);
	for (uint32_t i = 0; i < w->n && !tl_modes__stopped(w); i++) {
		w->at = &w->items[i];
		const TlIndex *fidx = w->at->idx;
		const TlFunc *fn = &fidx->funcs.items[w->at->func];
		const TlModel *fm = tl_model_of(fidx);
		/* `self.model` of an evaluator whose constructor sets its mode */
		uint8_t held = w->at->global ? 0 : tl_modes__held(fidx, w->at->func, w->at->param, w->at->attr);
		if (held) {
			w->bits |= held;
			continue;
		}
		if (!fm || (fn->escapes && !(i == 0 && site))) {
			w->unknown = true;
			break;
		}
		uint32_t sites = w->sites;
		if (w->at->global) {
			/* the module's own calls only: an importer's globals are its own */
			for (uint32_t s = 0; s < fn->call_sites.size && !tl_modes__stopped(w); s++) {
				const TlCall *ks = &fidx->calls.items[fn->call_sites.items[s]];
				if (!(i == 0 && site) || ks == site)
					tl_modes__global_site(w, fidx, ks);
			}
			if (i == 0 && site && w->sites == sites)
				tl_modes__global_site(w, fidx, site);
			if (!tl_modes__stopped(w) && callers == TL_MODEL_CALLERS_ALL)
				tl_model__importer_calls((TlModel *)fm, TL_CALLERS_INSTANCES, tl_modes__want,
							 tl_modes__ext_global, w);
		} else if (i == 0 && site) {
			tl_modes__site(w, smod, fidx, w->at->func, site);
		} else {
			for (uint32_t s = 0; s < fn->call_sites.size && !tl_modes__stopped(w); s++) {
				const TlCall *ks = &fidx->calls.items[fn->call_sites.items[s]];
				/* A module's method: run by its class's own code
				 * (elsewhere, judged where the model runs) */
				int32_t kc = ks->func >= 0 ? fidx->funcs.items[ks->func].cls : -1;
				if (callers == TL_MODEL_CALLERS_LOCAL && fn->cls >= 0 &&
				    (kc < 0 || (kc != fn->cls && !tl_modes__derives(fidx, kc, fn->cls)))) {
					w->unknown = true;
					break;
				}
				tl_modes__site(w, fidx, fidx, w->at->func, ks);
			}
			if (!tl_modes__stopped(w) && callers == TL_MODEL_CALLERS_ALL)
				tl_model__importer_calls((TlModel *)fm, TL_CALLERS_INSTANCES, tl_modes__want,
							 tl_modes__ext_visit, w);
		}
		if (w->sites == sites)
			w->unknown = true; /* no call site known */
	}
	if (project)
		tl_model__leave(idx);
	int bits = w->unknown && !lenient ? 0 : w->bits;
	tl_free(w);
	return bits;
}

int tl_model_mode(const TlIndex *idx, TSNode subject, int callers)
{
	return tl_modes__resolve(idx, subject, callers, NULL, NULL, false);
}

bool tl_model_mode_eval_on_a_path(const TlIndex *idx, TSNode subject, int callers)
{
	const TlModel *m = tl_model_of(idx);
	if (!m || ts_node_is_null(subject))
		return false;
	tl_model__ensure((TlModel *)m, tl_index_func_of(idx, subject));
	TlVal v;
	/* eval on some path from a switch the program makes (not a library's
	 * eval mode, nor a flag whose value is not known), no path's mode
	 * forgotten by a call the model cannot apply */
	if (!tl_model_value(idx, subject, &v))
		return false;
	if (!(v.meval & TL_VMEVAL_FORGOT) &&
	    ((v.meval & TL_VMEVAL_MAY) || (TL_VMODE_SOME_EVAL(v.mode) && (v.meval & TL_VMEVAL_SWITCHED))))
		return true;
	if (!v.mode || (v.mode & TL_VMODE_FLAG))
		return false;
	if (!(v.mode & TL_VMODE_ENTRY) || (v.mode & TL_VMODE_TRAIN) || !callers)
		return false;
	/* as entered: eval at a call site, none handing train mode (callers
	 * that disagree are judged at the eval one's call, TL102's helper
	 * calls); a site that cannot be told does not make it unknown */
	int bits = tl_modes__resolve(idx, subject, callers, NULL, NULL, true);
	return (bits & TL_MODEL_MODE_EVAL) && !(bits & TL_MODEL_MODE_TRAIN);
}

int tl_model_mode_from(const TlIndex *idx, TSNode subject, const TlCall *site)
{
	if (!site || site->target != tl_index_func_of(idx, subject))
		return 0;
	return tl_modes__resolve(idx, subject, TL_MODEL_CALLERS_ALL, site, idx, false);
}

/* The call sites of a function, its module's and its importers'. */
typedef struct {
	int32_t func;
	const TlIndex *idx;
	TlArray(TlExtCall) sites;
	bool cycle;
} TlModeSites;

static bool tl_modes__sites_want(void *ctx, int32_t func)
{
	return func == ((TlModeSites *)ctx)->func;
}

static void tl_modes__sites_visit(void *ctx, const TlExtCall *s)
{
	TlModeSites *w = ctx;
	if (s->func != w->func || s->mod == w->idx)
		return;
	if (!s->om)
		w->cycle = true;
	else
		tl_array_push(&w->sites, *s);
}

bool tl_model_mode_eval_in_context(const TlIndex *idx, TSNode subject, TSNode at)
{
	const TlModel *m = tl_model_of(idx);
	if (!m || ts_node_is_null(subject) || ts_node_is_null(at))
		return false;
	int32_t func = tl_index_func_of(idx, subject);
	if (func < 0)
		return false;
	tl_model__ensure((TlModel *)m, func);
	TlVal v;
	if (!tl_model_value(idx, subject, &v) || !TL_VMODE_IS_COND(v.mode))
		return false;
	const TlFunc *fn = &idx->funcs.items[func];
	TlModeSites w = { .func = func, .idx = idx };
	for (uint32_t s = 0; s < fn->call_sites.size; s++)
		tl_array_push(&w.sites, ((TlExtCall){ idx, (TlModel *)m, &idx->calls.items[fn->call_sites.items[s]], func, false }));
	if (idx->imports) {
		tl_model__enter(idx);
		tl_model__importer_calls((TlModel *)m, TL_CALLERS_INSTANCES, tl_modes__sites_want, tl_modes__sites_visit,
					 &w);
		tl_model__leave(idx);
	}
	bool yes = false;
	for (uint32_t s = 0; s < w.sites.size && !yes; s++) {
		const TlExtCall *x = &w.sites.items[s];
		uint16_t p[TL_MODEL_CTX_PARAMS];
		tl_model__site_consts((TlModel *)m, idx, func, x->mod, x->call, p);
		/* a context that decides a test around `at` against it runs
		 * none of it; a call run grad-disabled records no graph */
		if (!tl_model__ctx_runs((TlModel *)m, idx, func, p, at) ||
		    tl_model_grad(x->mod, x->call->node) == TL_MODEL_GRAD_OFF)
			continue;
		yes = tl_modes__resolve(idx, subject, TL_MODEL_CALLERS_ALL, x->call, x->mod, false) == TL_MODEL_MODE_EVAL;
	}
	tl_array_release(&w.sites);
	return yes;
}
