/* What values are made as (TlVal.act) and the loss they compute
 * (TlVal.loss): the interpreter's transfers for the made-by questions
 * (docs/semantic-model.md, "The lattice"), from the API table's roles.
 *
 * A call's result is made as the activation its row names (F.softmax,
 * torch.sigmoid, `x.log_softmax(1)`); a module class whose row names one
 * makes a module whose call computes it (nn.Softmax), and an
 * nn.Sequential's call computes what its last layer does. A reshaping
 * method (`.view`, `.to`, `.float`) keeps what its receiver was made as.
 * An exponential of a log-softmax is a softmax; a sum of an exponential
 * of something not shifted first (`x - x.max()`) is a logsumexp in linear
 * space. A GradScaler's scale of a loss is a scaled loss, unless the
 * scaler is built with `enabled=False`. What a call of a forward or of a
 * function of the project returns keeps what it was made as, marked
 * TL_VA_OUTPUT (made in another function). A criterion (nn.BCELoss())
 * and a loss function's result carry the loss their row names. (What
 * a value is, where it lives and its dtype are model/devices.c's.)
 *
 * Owns: tl_in__made_call, tl_in__made_param_forward, tl_in__made_op, tl_in__made_output,
 * tl_in__made_instance, tl_in__made_layer. */
#include "model/interp_internal.h"

#include <string.h>

#include "model/apitable.h"

static unsigned tl_made__row_act(const TlApiRow *r)
{
	if (!r)
		return TL_VA_NONE;
	if (r->roles & TL_APIR_SOFTMAX)
		return TL_VA_SOFTMAX;
	if (r->roles & TL_APIR_LOG_SOFTMAX)
		return TL_VA_LOG_SOFTMAX;
	if (r->roles & TL_APIR_SIGMOID)
		return TL_VA_SIGMOID;
	return TL_VA_NONE;
}

static unsigned tl_made__row_loss(const TlApiRow *r)
{
	if (!r)
		return TL_VL_OTHER;
	if (r->roles & TL_APIR_CROSS_ENTROPY)
		return TL_VL_CROSS_ENTROPY;
	if (r->roles & TL_APIR_NLL)
		return TL_VL_NLL;
	if (r->roles & TL_APIR_BCE)
		return TL_VL_BCE;
	if (r->roles & TL_APIR_BCE_LOGITS)
		return TL_VL_BCE_LOGITS;
	return TL_VL_OTHER;
}

/* An exponential of `x`, a sum of `x`. */
static unsigned tl_made__exp(unsigned x)
{
	if (x == TL_VA_LOG_SOFTMAX)
		return TL_VA_SOFTMAX;
	return x == TL_VA_SHIFTED ? TL_VA_NONE : TL_VA_EXP;
}

static unsigned tl_made__sum(unsigned x)
{
	return x == TL_VA_EXP ? TL_VA_EXP_SUM : TL_VA_NONE;
}

static bool tl_made__module_like(const TlVal *v)
{
	return v->kind == TL_VK_MODULE || v->kind == TL_VK_WRAPPER || v->kind == TL_VK_CRITERION ||
	       v->kind == TL_VK_OBJECT;
}

void tl_in__made_output(TlValPool *p, TlVal *v)
{
	/* The value, and the positions and element of a tuple it is (one
	 * level: `return F.softmax(x), h`). */
	if (v->act)
		v->act |= TL_VA_OUTPUT;
	/* A criterion a factory returns keeps its loss; a loss a function
	 * computes is that function's result, not a loss call's. */
	if (v->kind != TL_VK_CRITERION)
		v->loss = TL_VL_OTHER;
	if (v->kind != TL_VK_CONTAINER)
		return;
	bool inner = false;
	for (int32_t i = v->parts; i >= 0 && !inner; i = p->vals.items[i].next)
		inner = p->vals.items[i].act && !(p->vals.items[i].act & TL_VA_OUTPUT);
	if (v->elem >= 0 && p->vals.items[v->elem].act && !(p->vals.items[v->elem].act & TL_VA_OUTPUT))
		inner = true;
	if (!inner)
		return;
	if (v->elem >= 0) {
		TlVal e = p->vals.items[v->elem];
		if (e.act)
			e.act |= TL_VA_OUTPUT;
		v->elem = tl_val_pool_add(p, e);
	}
	int32_t last = -1, first = -1;
	for (int32_t i = v->parts; i >= 0; i = p->vals.items[i].next) {
		TlVal part = p->vals.items[i];
		if (part.act)
			part.act |= TL_VA_OUTPUT;
		tl_val_chain_append(p, &first, &last, part);
	}
	v->parts = first;
}

/* What a module `layer` (an argument of an nn.Sequential) outputs: an
 * activation module's activation, a nested Sequential's, what every
 * return of a project module's forward is made as. */
unsigned tl_in__made_layer(In *in, const TlVal *layer)
{
	if (layer->kind != TL_VK_MODULE)
		return TL_VA_NONE;
	if (layer->act)
		return layer->act & (unsigned)~TL_VA_OUTPUT;
	const TlIndex *where = NULL;
	int32_t f = layer->ref >= 0 && layer->mod
			    ? tl_model__method_far(in->m, (const TlIndex *)layer->mod, layer->ref, "forward", &where)
			    : -1;
	TlVal ret;
	if (f < 0 || !where || !tl_model__summary(in->m, where, f, &ret))
		return TL_VA_NONE;
	return ret.kind == TL_VK_CONTAINER ? TL_VA_NONE : ret.act & (unsigned)~TL_VA_OUTPUT;
}

/* The index among call `n`'s arguments of its last positional one when
 * that is a list splat (`nn.Sequential(*layers)`), else -1. */
static int32_t tl_made__last_splat(In *in, TSNode n)
{
	const TlSyms *sy = in->sy;
	TSNode al = tl_tree_field(n, sy->f_arguments);
	uint32_t base = in->kids.size, k = ts_node_is_null(al) ? 0 : tl_in__kids(in, al);
	int32_t last = -1;
	for (uint32_t i = 0; i < k && i < in->call_nargs; i++) {
		TSSymbol s = ts_node_symbol(in->kids.items[base + i]);
		if (s != sy->keyword_argument && s != sy->dictionary_splat)
			last = s == sy->list_splat ? (int32_t)i : -1;
	}
	in->kids.size = base;
	return last;
}

/* `enabled=False` among call `n`'s keyword arguments. */
static bool tl_made__disabled(In *in, TSNode n)
{
	const TlSyms *sy = in->sy;
	TSNode al = tl_tree_field(n, sy->f_arguments);
	uint32_t base = in->kids.size, k = ts_node_is_null(al) ? 0 : tl_in__kids(in, al);
	bool off = false;
	for (uint32_t i = 0; i < k && !off; i++) {
		TSNode a = in->kids.items[base + i];
		if (ts_node_symbol(a) != sy->keyword_argument)
			continue;
		TSNode name = tl_tree_field(a, sy->f_name), v = tl_tree_field(a, sy->f_value);
		off = !ts_node_is_null(v) && ts_node_symbol(v) == sy->false_ && tl_index_text_is(in->idx, name, "enabled");
	}
	in->kids.size = base;
	return off;
}

/* The receiver at `recv` (a name or a path) now holds `v`: an in-place
 * change. */
static void tl_made__rebind(In *in, TSNode recv, const TlVal *v)
{
	TlPath p;
	if (tl_path_of(&in->m->names, in->idx, recv, &p) && tl_state_get(&in->st, &p))
		tl_state_set(&in->st, &p, v);
}

void tl_in__made_call(In *in, TSNode n, const TlCall *c, const TlVal *fn, const TlVal *callee, const TlVal *args,
		      uint32_t npos, TlVal *r)
{
	bool method = c->receiver.id != NULL;
	unsigned act = TL_VA_NONE, loss = TL_VL_OTHER;
	if (c->qname) {
		/* A function or class of a library, by its qualified name. */
		const TlApiRow *q = tl_api_qualified(c->qname);
		if (!q) {
			/* a function of the project (what its summary says), an
			 * instance of a class of the project (what its forward
			 * outputs) */
			if (!in->applied && !(r->kind == TL_VK_MODULE && r->ref >= 0))
				r->act = r->loss = 0;
			return;
		}
		if (q->roles & TL_APIR_COPY)
			return; /* a copy is what it copies */
		act = tl_made__row_act(q);
		loss = tl_made__row_loss(q);
		if (q->roles & TL_APIR_EXP)
			act = npos ? tl_made__exp(args[0].act) : TL_VA_NONE;
		else if (q->roles & TL_APIR_SUM)
			act = npos ? tl_made__sum(args[0].act) : TL_VA_NONE;
		else if (q->roles & TL_APIR_SEQUENTIAL) {
			/* its last layer's; `nn.Sequential(*layers)`: the list's last item's */
			int32_t sp = tl_made__last_splat(in, n);
			if (sp >= 0 && args[sp].kind == TL_VK_CONTAINER)
				act = args[sp].lastact | TL_VA_OUTPUT;
			else
				act = npos ? tl_in__made_layer(in, &args[npos - 1]) | TL_VA_OUTPUT : TL_VA_NONE;
			r->made |= TL_VM_SEQUENTIAL;
		}
		if (act == TL_VA_OUTPUT)
			act = TL_VA_NONE;
		if (r->kind == TL_VK_SCALER && !tl_made__disabled(in, n))
			act = TL_VA_SCALED; /* what its scale() makes */
	} else if (callee) {
		/* A value called: a module (an activation module, a Sequential,
		 * a module of the project: what its forward returns), a
		 * criterion, a function of the project. */
		if (in->applied || callee->kind == TL_VK_CLASS)
			return; /* an instance: what its forward outputs */
		if (callee->kind == TL_VK_MODULE || callee->kind == TL_VK_WRAPPER)
			act = callee->act;
		else if (callee->kind == TL_VK_CRITERION)
			loss = callee->loss;
	} else if (method && tl_made__module_like(fn)) {
		/* A method of a module or criterion that moves or casts it
		 * (`.to(device)`, `.float()`) returns it. */
		const TlApiRow *row = c->method ? tl_api_method(c->method) : NULL;
		if (row && (row->roles & TL_APIR_RESHAPE)) {
			*r = *fn;
			return;
		}
		if (row && (row->roles & TL_APIR_ADD_LAYER) && (fn->made & TL_VM_SEQUENTIAL) && npos >= 2) {
			/* model.add_module("softmax", nn.Softmax(dim=1)): the new last layer */
			TlVal seq = *fn;
			seq.act = (uint8_t)(tl_in__made_layer(in, &args[1]) | TL_VA_OUTPUT);
			if (seq.act == TL_VA_OUTPUT)
				seq.act = TL_VA_NONE;
			tl_made__rebind(in, c->receiver, &seq);
		}
		if (in->applied)
			return; /* a method of a class of the project */
		/* `model.forward(x)` of a module known only by what it computes
		 * (an nn.Sequential, an activation module) */
		if (c->method && strcmp(c->method, "forward") == 0 && fn->kind == TL_VK_MODULE && fn->ref < 0) {
			r->act = fn->act;
			r->loss = TL_VL_OTHER;
			return;
		}
	} else if (method) {
		/* A tensor's method. */
		const TlApiRow *row = c->method ? tl_api_method(c->method) : NULL;
		if (in->applied)
			return;
		act = tl_made__row_act(row);
		if (!row)
			act = TL_VA_NONE;
		else if (row->roles & TL_APIR_EXP)
			act = tl_made__exp(fn->act);
		else if (row->roles & TL_APIR_SUM)
			act = tl_made__sum(fn->act);
		else if (row->roles & TL_APIR_RESHAPE)
			act = fn->act;
		else if ((row->roles & TL_APIR_SCALE) && fn->kind == TL_VK_SCALER && fn->act == TL_VA_SCALED)
			act = TL_VA_SCALED;
		if (row && (row->roles & TL_APIR_SHIFT)) {
			TlVal shifted = *fn;
			shifted.act = TL_VA_SHIFTED;
			tl_made__rebind(in, c->receiver, &shifted);
		}
	} else if (in->applied) {
		return; /* a function of the project, called by its name */
	}
	r->act = (uint8_t)act;
	r->loss = (uint8_t)loss;
}

void tl_in__made_param_forward(const TlCall *c, const TlVal *fn, TlVal *r)
{
	/* A forward of a module a parameter holds (`model(x)`,
	 * `model.forward(x)`): what its caller passes decides (the facts
	 * ask each call site); under no_grad too. A module the file's
	 * evidence seeds (seeds.c) is such a parameter still. */
	bool method = c->receiver.id != NULL;
	bool guessed = (fn->made & TL_VM_GUESS) && fn->kind == TL_VK_MODULE;
	/* a module of no known class nor output (`layer: nn.Module`) */
	bool open = fn->kind == TL_VK_MODULE && fn->ref < 0 && !fn->act;
	if ((fn->kind == TL_VK_TOP || guessed || open) && (fn->made & TL_VM_PARAMS) && fn->pgraph && !r->pcall &&
	    (r->made == TL_VM_TOP || !(r->made & TL_VM_LOSS)) &&
	    (!method || (c->method && strcmp(c->method, "forward") == 0)))
		r->pcall = fn->pgraph;
}

void tl_in__made_op(In *in, TSNode n, TlVal *r)
{
	/* A difference: its exponential is the stable form of a logsumexp. */
	TSNode op = tl_tree_field(n, in->sy->f_operator);
	r->act = (uint8_t)(!ts_node_is_null(op) && (tl_index_text_is(in->idx, op, "-") ||
						     tl_index_text_is(in->idx, op, "-="))
				   ? TL_VA_SHIFTED : TL_VA_NONE);
	r->loss = TL_VL_OTHER;
}

void tl_in__made_instance(In *in, TlVal *v)
{
	if (v->kind != TL_VK_MODULE || v->ref < 0 || !v->mod)
		return;
	const TlIndex *where = NULL;
	int32_t f = tl_model__method_far(in->m, (const TlIndex *)v->mod, v->ref, "forward", &where);
	TlVal ret;
	if (f < 0 || !where || !tl_model__summary(in->m, where, f, &ret) || ret.kind == TL_VK_CONTAINER)
		return;
	if (tl_val_is_bot(&ret)) {
		v->act = TL_VA_PENDING; /* its forward not interpreted yet */
		return;
	}
	unsigned a = ret.act & (unsigned)~TL_VA_OUTPUT;
	v->act = (uint8_t)(a ? a | TL_VA_OUTPUT : TL_VA_NONE);
}
