/* What made a value: the activation (softmax, log_softmax, sigmoid), loss
 * scaling or exponential sum a value ends in, what a model's forward or a
 * function's returns are made as, a value's float32 dtype, and which loss
 * a loss call computes: the semantic model's answers (model/made.c sets
 * them in the model's values, from the API table's roles). Also the
 * criteria and scaled losses the index's events need before any model
 * (events.c: tl_facts__is_criterion, tl_facts__scaled_call).
 *
 * Owns: tl_facts_made_by, tl_facts_model_output (`float32-value` is TL404's,
 * rules/checks/TL404.c),
 * tl_facts_loss_kind, tl_facts_loss_kind_words, tl_facts__is_criterion,
 * tl_facts__scaled_call, tl_facts__producer. */
#include "model/apitable.h"
#include "model/model.h"
#include "facts/internal.h"

/* ---- for the index's events (before the model) ------------------------------------ */

/* Methods that change a value's shape, dtype or device but not what it holds
 * (the table's method rows of role reshape: `.view`, `.to`, `.float`, `.clone`,
 * `.resize`, the deprecated out-of-place Tensor.resize, a view of the same
 * elements in old code): probabilities stay probabilities through them. */
static bool tl_facts__reshaping(const char *method)
{
	const TlApiRow *r = tl_api_method(method);
	return r && (r->roles & TL_APIR_RESHAPE);
}

/* True for a GradScaler that a literal `enabled=False` turns into a no-op. */
bool tl_facts__scaler_disabled(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	const TlBinding *b = tl_index_resolve_node(idx, expr);
	TSNode v = tl_facts__bound_value(b);
	if (ts_node_is_null(v) || b->elem >= 0 || ts_node_symbol(v) != sy->call)
		return false;
	TSNode e = tl_facts__kwarg(idx, v, "enabled");
	return !ts_node_is_null(e) && ts_node_symbol(e) == sy->false_;
}

/* The call whose whole result `expr` holds: through parentheses,
 * subscripts, reshaping methods and names (to the value their visible
 * binding gives them); NULL when the value is not a call's whole result. */
const TlCall *tl_facts__producer(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	for (int step = 0; step <= TL_FACTS_DEPTH; step++) {
		expr = tl_index_unparen(expr);
		if (ts_node_is_null(expr))
			return NULL;
		TSSymbol s = ts_node_symbol(expr);
		if (s == sy->subscript) {
			expr = tl_tree_field(expr, sy->f_value);
			continue;
		}
		if (s == sy->identifier || s == sy->attribute) {
			const TlBinding *b = tl_index_resolve_node(idx, expr);
			TSNode v = tl_facts__bound_value(b);
			if (ts_node_is_null(v) || b->kind != TL_BIND_ASSIGN || b->elem >= 0)
				return NULL;
			expr = v;
			continue;
		}
		if (s != sy->call)
			return NULL;
		const TlCall *c = tl_index_call_at(idx, expr);
		if (!c)
			return NULL;
		if (c->receiver.id && tl_facts__reshaping(c->method) &&
		    !tl_facts_is_module(idx, c->receiver)) {
			expr = c->receiver;
			continue;
		}
		return c;
	}
	return NULL;
}

bool tl_facts__scaled_call(const TlIndex *idx, const TlCall *c)
{
	return c->method && strcmp(c->method, "scale") == 0 && c->receiver.id &&
	       tl_facts_is_scaler(idx, c->receiver) && !tl_facts__scaler_disabled(idx, c->receiver);
}

/* Parameters whose callers' arguments are being judged, on this thread:
 * a name that leads back to one of them (`l = loss_fn` handed round two
 * functions) is not known. A seen-set of at most TL_MADE_JUDGING (a size,
 * not a depth). */
#define TL_MADE_JUDGING 32
static _Thread_local const TlBinding *tl_made__judging[TL_MADE_JUDGING];
static _Thread_local int tl_made__njudging;

static bool tl_made__judge_enter(const TlBinding *b)
{
	for (int i = 0; i < tl_made__njudging; i++)
		if (tl_made__judging[i] == b)
			return false;
	if (tl_made__njudging == TL_MADE_JUDGING)
		return false;
	tl_made__judging[tl_made__njudging++] = b;
	return true;
}

static void tl_made__judge_leave(void)
{
	tl_made__njudging--;
}

/* What the module's own call sites hand parameter `b`, a parameter of a
 * caller followed to its callers' (model/handedin.c,
 * tl_model_own_param_args), into *args; false when not known, when
 * nothing is left, or when `b` is being judged already (the caller then
 * judges the arguments and calls tl_made__judge_leave). */
static bool tl_made__handed(const TlIndex *idx, const TlBinding *b, TlParamArgs *args)
{
	tl_array_init(args);
	if (!b || b->kind != TL_BIND_PARAM || b->func < 0 || !tl_made__judge_enter(b))
		return false;
	if (tl_model_own_param_args(idx, b, TL_HANDED_EVERY, args) && args->size)
		return true;
	tl_array_release(args);
	tl_made__judge_leave();
	return false;
}

static void tl_made__handed_done(TlParamArgs *args)
{
	tl_array_release(args);
	tl_made__judge_leave();
}

/* Criteria: what a value used as a loss callable is, for the index's loss
 * events. The value is followed through names, `.to(device)` and friends,
 * the returns of local factories (`criterion = build_loss(cfg)`, one
 * summary per factory) and parameters whose every caller passes one
 * (`train_loop(loader, model, loss_fn, opt)`). A criterion is a loss
 * module (`nn.CrossEntropyLoss()`, a local class named ...Loss) or a loss
 * function passed by name (`F.cross_entropy`). */
static bool tl_facts__criterion(const TlIndex *idx, TSNode m);

/* Every argument the module hands parameter `b` is a criterion. */
static bool tl_facts__criterion_param(const TlIndex *idx, const TlBinding *b)
{
	TlParamArgs args;
	if (!tl_made__handed(idx, b, &args))
		return false;
	bool yes = true;
	for (uint32_t i = 0; i < args.size && yes; i++)
		yes = tl_facts__fan_step() && tl_facts__criterion(idx, args.items[i].arg);
	tl_made__handed_done(&args);
	return yes;
}

static bool tl_facts__criterion(const TlIndex *idx, TSNode m)
{
	const TlSyms *sy = tl_syms();
	for (int step = 0; step <= TL_FACTS_DEPTH; step++) {
		m = tl_index_unparen(m);
		if (ts_node_is_null(m))
			return false;
		TSSymbol s = ts_node_symbol(m);
		if (s == sy->identifier || s == sy->attribute) {
			/* F.cross_entropy handed over as a function */
			char *q = tl_index_qualify(idx, m);
			if (q) {
				bool yes = tl_facts__is_loss_function(q) || tl_facts__is_loss_class(q);
				tl_free(q);
				return yes;
			}
			const TlBinding *b = tl_index_resolve_node(idx, m);
			if (b && b->kind == TL_BIND_PARAM)
				return tl_facts__criterion_param(idx, b);
			TSNode v = tl_facts__bound_value(b);
			if (ts_node_is_null(v) || b->elem >= 0)
				return false;
			m = v;
			continue;
		}
		if (s != sy->call)
			return false;
		const TlCall *k = tl_index_call_at(idx, m);
		if (!k)
			return false;
		if (k->receiver.id && tl_api_returns_self(k->method)) {
			m = k->receiver;
			continue;
		}
		if (k->qname) {
			if (tl_facts__is_loss_class(k->qname))
				return true;
			/* A loss class of another module of the project (as a
			 * local one: by its name), or a factory there. */
			char buf[128];
			const char *name = tl_facts__ext_class_named(idx, k->qname, buf, sizeof buf);
			if (name)
				return tl_facts__ends(name, "Loss");
			return tl_facts__ext_any_return(idx, k, TL_RET_CRITERION, tl_facts__criterion);
		}
		const TlBinding *cb = tl_index_resolve_node(idx, k->callee);
		if (cb && cb->kind == TL_BIND_CLASS)
			return tl_facts__ends(idx->classes.items[cb->ref].name, "Loss");
		if (k->target >= 0)
			return tl_facts__returns(idx, k->target, TL_RET_CRITERION, tl_facts__criterion);
		return false;
	}
	return false;
}

bool tl_facts__is_criterion(const TlIndex *idx, TSNode m)
{
	tl_facts__fan_begin();
	bool yes = tl_facts__criterion(idx, m);
	tl_facts__fan_end();
	return yes;
}

/* ---- the semantic model's answers ------------------------------------------------- */

static int tl_facts__made_of_act(unsigned act)
{
	switch (act & ~(unsigned)TL_VA_OUTPUT) {
	case TL_VA_SOFTMAX: return TL_MADE_SOFTMAX;
	case TL_VA_LOG_SOFTMAX: return TL_MADE_LOG_SOFTMAX;
	case TL_VA_SIGMOID: return TL_MADE_SIGMOID;
	case TL_VA_SCALED: return TL_MADE_SCALED;
	case TL_VA_EXP_SUM: return TL_MADE_EXP_SUM;
	default: return TL_MADE_NONE;
	}
}

/* The model's value of `expr`; a subscript of a tensor (`probs[:, 0]`,
 * `p[idx, labels]`) whose value the model does not say is made as the
 * tensor is. */
static bool tl_facts__model_made_value(const TlIndex *idx, TSNode expr, TlVal *v)
{
	const TlSyms *sy = tl_syms();
	for (int depth = 0; depth <= TL_FACTS_DEPTH; depth++) {
		expr = tl_index_unparen(expr);
		if (ts_node_is_null(expr))
			return false;
		bool known = tl_model_value(idx, expr, v);
		if ((known && v->act) || ts_node_symbol(expr) != sy->subscript)
			return known;
		TSNode obj = tl_tree_field(expr, sy->f_value);
		TlVal o;
		if (!tl_model_value(idx, obj, &o) || o.kind != TL_VK_TENSOR)
			return known;
		expr = obj;
	}
	return false;
}

/* What the model says made `expr`: in its own function (`output` false)
 * or through what a forward or a function of the project returns. */
static int tl_facts__model_made(const TlIndex *idx, TSNode expr, bool output)
{
	TlVal v;
	if (!tl_facts__model_made_value(idx, expr, &v))
		return TL_MADE_NONE;
	if (!(v.act & TL_VA_OUTPUT) != !output)
		return TL_MADE_NONE;
	return tl_facts__made_of_act(v.act);
}

static int tl_facts__model_made_param(const TlIndex *idx, TSNode expr);

/* What made the argument a call site passes: in the caller's function, or
 * as what every caller of the caller passes. */
static int tl_facts__model_made_arg(const TlIndex *idx, TSNode arg)
{
	int k = tl_facts__model_made(idx, arg, false);
	return k ? k : tl_facts__model_made_param(idx, arg);
}

/* A parameter: what every caller in the file hands it, when they agree
 * (the model's parameters are symbolic: the caller decides), a parameter
 * of a caller followed to its callers (tl_model_own_param_args). */
static int tl_facts__model_made_param(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	expr = tl_index_unparen(expr);
	if (ts_node_is_null(expr) || ts_node_symbol(expr) != sy->identifier)
		return TL_MADE_NONE;
	TlParamArgs args;
	if (!tl_made__handed(idx, tl_index_resolve_node(idx, expr), &args))
		return TL_MADE_NONE;
	int agreed = TL_MADE_NONE;
	for (uint32_t i = 0; i < args.size; i++) {
		int k = tl_facts__fan_step() ? tl_facts__model_made_arg(idx, args.items[i].arg) : TL_MADE_NONE;
		if (k == TL_MADE_NONE || (i > 0 && k != agreed)) {
			agreed = TL_MADE_NONE;
			break;
		}
		agreed = k;
	}
	tl_made__handed_done(&args);
	return agreed;
}

int tl_facts_made_by(const TlIndex *idx, TSNode expr)
{
	tl_facts__fan_begin();
	int k = tl_facts__model_made_arg(idx, expr);
	tl_facts__fan_end();
	return k;
}

/* What module value `v` outputs (with `elem` >= 0: that position of the
 * tuple it returns): an nn.Sequential's last layer, what every return of
 * a project module's forward is made as. */
static int tl_facts__module_value_output(const TlIndex *idx, const TlVal *v, int32_t elem)
{
	if (v->kind != TL_VK_MODULE)
		return TL_MADE_NONE;
	if (v->act)
		return elem < 0 ? tl_facts__made_of_act(v->act) : TL_MADE_NONE;
	const TlIndex *cm = v->mod;
	if (v->ref < 0 || !cm)
		return TL_MADE_NONE;
	int32_t f = -1;
	for (int32_t cls = v->ref, hop = 0; cls >= 0 && f < 0 && hop < TL_FACTS_DEPTH; hop++) {
		f = tl_index_method(cm, cls, "forward", 7);
		const TlClass *k = &cm->classes.items[cls];
		cls = k->bases.size ? k->bases.items[0] : -1;
	}
	bool other = cm != idx;
	if (other)
		tl_facts__ext_enter(idx);
	TlVal ret;
	int k = TL_MADE_NONE;
	if (f >= 0 && tl_model_returns(cm, f, &ret)) {
		if (elem >= 0 && ret.kind == TL_VK_CONTAINER && ret.parts >= 0) {
			const TlModel *m = tl_model_of(cm);
			TlVal part = m ? tl_val_part(tl_model_pool(m), &ret, (uint32_t)elem) : tl_val_top();
			k = tl_facts__made_of_act(part.act);
		} else if (elem < 0 && ret.kind != TL_VK_CONTAINER) {
			k = tl_facts__made_of_act(ret.act);
		}
	}
	if (other)
		tl_facts__ext_leave(idx);
	return k;
}

typedef struct TlMadeModuleAgree {
	const TlIndex *idx;
	int32_t elem;
	int kind;
} TlMadeModuleAgree;

static bool tl_facts__module_agree(const TlIndex *mod, TSNode arg, TlMadeModuleAgree *ag)
{
	TlVal v;
	if (!tl_facts__fan_step() || !tl_model_value(mod, arg, &v))
		return false;
	int k = tl_facts__module_value_output(ag->idx, &v, ag->elem);
	if (k == TL_MADE_NONE || (ag->kind != TL_MADE_NONE && k != ag->kind))
		return false;
	ag->kind = k;
	return true;
}

/* A forward of the module parameter of `expr`'s function that the model's
 * pcall bit names: what every caller passes outputs, when they agree (in
 * the file, else in the modules that import it). A name bound to one
 * position of the forward's tuple (`validity, label = netD(x)`) asks for
 * that position. */
static int tl_facts__model_param_output(const TlIndex *idx, TSNode expr, uint16_t pcall)
{
	const TlSyms *sy = tl_syms();
	int32_t func = tl_index_func_of(idx, expr);
	if (func < 0 || !pcall || (pcall & (pcall - 1)))
		return TL_MADE_NONE;
	const TlFunc *f = &idx->funcs.items[func];
	uint32_t i = 0;
	while (!(pcall & (1u << i)))
		i++;
	if (i >= f->params.size || f->escapes)
		return TL_MADE_NONE;
	const TlBinding *b = &idx->bindings.items[f->params.items[i]];
	TlMadeModuleAgree ag = { idx, -1, TL_MADE_NONE };
	/* Through the reshaping methods the name is read by (`log_probs.view(-1, n)`). */
	for (int depth = 0; depth <= TL_FACTS_DEPTH; depth++) {
		expr = tl_index_unparen(expr);
		const TlCall *c = ts_node_symbol(expr) == sy->call ? tl_index_call_at(idx, expr) : NULL;
		const TlApiRow *row = c && c->receiver.id && c->method && !c->qname ? tl_api_method(c->method) : NULL;
		if (!row || !(row->roles & TL_APIR_RESHAPE))
			break;
		expr = c->receiver;
	}
	if (ts_node_symbol(expr) == sy->identifier) {
		const TlBinding *eb = tl_index_resolve_node(idx, expr);
		if (eb && eb->kind == TL_BIND_ASSIGN && eb->elem >= 0)
			ag.elem = eb->elem;
	}
	if (!f->call_sites.size) {
		/* what the importers' call sites pass (the model's, callers.c) */
		TlParamArgs args;
		tl_array_init(&args);
		bool ok = idx->imports && tl_model_importer_args(idx, b, &args);
		if (ok) {
			tl_facts__ext_enter(idx);
			for (uint32_t k = 0; ok && k < args.size; k++)
				ok = tl_facts__module_agree(args.items[k].mod, args.items[k].arg, &ag);
			tl_facts__ext_leave(idx);
		}
		tl_array_release(&args);
		return ok ? ag.kind : TL_MADE_NONE;
	}
	for (uint32_t k = 0; k < f->call_sites.size; k++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[k]];
		TSNode arg = c->func == func ? (TSNode){ 0 } : tl_facts__param_arg_of(idx, b, c);
		if (ts_node_is_null(arg) || !tl_facts__module_agree(idx, arg, &ag))
			return TL_MADE_NONE;
	}
	return ag.kind;
}

/* A parameter (a loss helper's `y_hat`): what every caller in the file
 * hands it was made as by a forward or a function of the project there
 * (`validity, pred_label = self.discriminator(x)`, then
 * `self.auxiliary_loss(pred_label, y)`), when they agree. The callers'
 * own parameters are not followed. */
static int tl_facts__model_output_param(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	expr = tl_index_unparen(expr);
	if (ts_node_is_null(expr) || ts_node_symbol(expr) != sy->identifier)
		return TL_MADE_NONE;
	const TlBinding *b = tl_index_resolve_node(idx, expr);
	if (!b || b->kind != TL_BIND_PARAM)
		return TL_MADE_NONE;
	TlParamArgs args;
	if (!tl_made__handed(idx, b, &args))
		return TL_MADE_NONE;
	int agreed = TL_MADE_NONE;
	for (uint32_t i = 0; i < args.size; i++) {
		int k = tl_facts__fan_step() ? tl_facts__model_made(idx, args.items[i].arg, true) : TL_MADE_NONE;
		if (k == TL_MADE_NONE || (i > 0 && k != agreed)) {
			agreed = TL_MADE_NONE;
			break;
		}
		agreed = k;
	}
	tl_made__handed_done(&args);
	return agreed;
}

int tl_facts_model_output(const TlIndex *idx, TSNode expr)
{
	int k = tl_facts__model_made(idx, expr, true);
	TlVal v;
	if (!k && tl_facts__model_made_value(idx, expr, &v) && !v.act) {
		tl_facts__fan_begin();
		k = v.pcall ? tl_facts__model_param_output(idx, expr, v.pcall) : tl_facts__model_output_param(idx, expr);
		tl_facts__fan_end();
	}
	return k;
}

static int tl_facts__loss_of_row(const TlApiRow *r)
{
	if (r->roles & TL_APIR_CROSS_ENTROPY)
		return TL_LOSS_CROSS_ENTROPY;
	if (r->roles & TL_APIR_NLL)
		return TL_LOSS_NLL;
	if (r->roles & TL_APIR_BCE)
		return TL_LOSS_BCE;
	if (r->roles & TL_APIR_BCE_LOGITS)
		return TL_LOSS_BCE_LOGITS;
	return TL_LOSS_OTHER;
}

static int tl_facts__loss_of(unsigned loss)
{
	switch (loss) {
	case TL_VL_CROSS_ENTROPY: return TL_LOSS_CROSS_ENTROPY;
	case TL_VL_NLL: return TL_LOSS_NLL;
	case TL_VL_BCE: return TL_LOSS_BCE;
	case TL_VL_BCE_LOGITS: return TL_LOSS_BCE_LOGITS;
	default: return TL_LOSS_OTHER;
	}
}

static int tl_facts__model_criterion(const TlIndex *idx, TSNode m, bool *known);

/* A parameter's criterion: every argument the file hands it is one (a
 * parameter of a caller followed to its callers), all of one kind (else
 * a criterion of no one kind). */
static int tl_facts__model_criterion_param(const TlIndex *idx, const TlBinding *b, bool *known)
{
	*known = false;
	TlParamArgs args;
	if (!tl_made__handed(idx, b, &args))
		return TL_LOSS_OTHER;
	int agreed = -1;
	bool all = true;
	for (uint32_t i = 0; i < args.size && all; i++) {
		bool k_known = false;
		int k = tl_facts__fan_step() ? tl_facts__model_criterion(idx, args.items[i].arg, &k_known) : TL_LOSS_OTHER;
		all = k_known;
		agreed = agreed < 0 || agreed == k ? k : TL_LOSS_OTHER;
	}
	tl_made__handed_done(&args);
	*known = all;
	return !all || agreed < 0 ? TL_LOSS_OTHER : agreed;
}

/* The loss criterion `m` computes (TL_LOSS_*), *known: `m` is one at all:
 * the model's value of it (nn.BCELoss(), what a factory returns), a loss
 * function it names (F.cross_entropy handed over), or, for a parameter,
 * what every caller passes. */
static int tl_facts__model_criterion(const TlIndex *idx, TSNode m, bool *known)
{
	const TlSyms *sy = tl_syms();
	*known = false;
	for (int step = 0; step <= TL_FACTS_DEPTH; step++) {
		m = tl_index_unparen(m);
		if (ts_node_is_null(m))
			return TL_LOSS_OTHER;
		TlVal v;
		if (tl_model_value(idx, m, &v) && v.kind == TL_VK_CRITERION) {
			*known = true;
			return tl_facts__loss_of(v.loss);
		}
		TSSymbol s = ts_node_symbol(m);
		if (s != sy->identifier && s != sy->attribute)
			return TL_LOSS_OTHER;
		char *q = tl_index_qualify(idx, m);
		if (q) {
			const TlApiRow *r = tl_api_qualified(q);
			tl_free(q);
			*known = r && (r->roles & TL_APIR_LOSS);
			return *known && r->kind != TL_APIK_CRITERION ? tl_facts__loss_of_row(r) : TL_LOSS_OTHER;
		}
		const TlBinding *b = tl_index_resolve_node(idx, m);
		if (b && b->kind == TL_BIND_PARAM)
			return tl_facts__model_criterion_param(idx, b, known);
		/* A name of an enclosing function (a closure's criterion): its
		 * value where it is bound. */
		if (!b || b->kind != TL_BIND_ASSIGN || b->elem >= 0 || b->func == tl_index_func_of(idx, m) ||
		    ts_node_is_null(b->value))
			return TL_LOSS_OTHER;
		m = b->value;
	}
	return TL_LOSS_OTHER;
}

/* True when the object call `c` calls is a parameter, or a name or an
 * attribute bound to one (`self.loss = loss` in a constructor): the index's
 * events do not follow what its callers pass by keyword or leave to its
 * default; the model does. */
static bool tl_facts__calls_param(const TlIndex *idx, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	if (c->qname || c->target >= 0)
		return false;
	TSNode m = tl_index_unparen(tl_facts__called_object(c));
	for (int depth = 0; depth <= TL_FACTS_DEPTH && !ts_node_is_null(m); depth++) {
		TSSymbol s = ts_node_symbol(m);
		if (s != sy->identifier && s != sy->attribute)
			return false;
		const TlBinding *b = tl_index_resolve_node(idx, m);
		if (!b)
			return false;
		if (b->kind == TL_BIND_PARAM)
			return true;
		if (b->kind != TL_BIND_ASSIGN || b->elem >= 0)
			return false;
		m = tl_index_unparen(b->value);
	}
	return false;
}

static bool tl_facts__word_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
	       (unsigned char)ch >= 0x80;
}

/* True when the file's code (not its strings or comments) names a loss
 * of the API table's as a whole identifier (`cross_entropy`,
 * `BCELoss`): the model's loss kinds come from such a name resolved
 * where it is called. */
static bool tl_facts__loss_named_in_code(const TlIndex *idx)
{
	const char *text = idx->src ? idx->src->text : NULL;
	uint32_t n = idx->src ? idx->src->length : 0;
	for (int kind = TL_LOSS_CROSS_ENTROPY; text && kind <= TL_LOSS_BCE_LOGITS; kind++) {
		const char *words[16];
		size_t count = tl_facts_loss_kind_words(kind, words, 16);
		for (size_t w = 0; w < count; w++) {
			size_t wl = strlen(words[w]);
			for (const char *at = text; wl && (size_t)(text + n - at) >= wl;) {
				const char *hit = memchr(at, words[w][0], (size_t)(text + n - at) - wl + 1);
				if (!hit)
					break;
				at = hit + 1;
				uint32_t start = (uint32_t)(hit - text), end = start + (uint32_t)wl;
				if (memcmp(hit, words[w], wl) != 0 || (start && tl_facts__word_char(text[start - 1])) ||
				    (end < n && tl_facts__word_char(text[end])))
					continue;
				TSNode node = ts_node_descendant_for_byte_range(idx->root, start, end);
				if (ts_node_symbol(node) == tl_syms()->identifier && ts_node_start_byte(node) == start &&
				    ts_node_end_byte(node) == end)
					return true;
			}
		}
	}
	return false;
}

/* False when no value of the file's model can compute a loss of the
 * table's: its code names none, and the model reads no other module
 * (whose values could). Found once per file. */
static bool tl_facts__model_may_know_loss(const TlIndex *idx)
{
	TlFactsCache *fc = idx->facts_cache;
	if (fc && fc->loss_named)
		return fc->loss_named > 0;
	bool yes = tl_facts__loss_named_in_code(idx) || !tl_model_reads_no_module(idx);
	if (fc)
		fc->loss_named = yes ? 1 : -1;
	return yes;
}

int tl_facts_loss_kind(const TlIndex *idx, const TlCall *c)
{
	TlVal v;
	if (!(c->events & TL_EV_LOSS)) {
		/* A criterion a parameter holds that the events missed: what the
		 * model says its call computes. */
		if (tl_facts__calls_param(idx, c) && tl_facts__model_may_know_loss(idx) &&
		    tl_model_value(idx, c->node, &v) && v.loss && v.kind != TL_VK_CRITERION)
			return tl_facts__loss_of(v.loss);
		return TL_LOSS_OTHER;
	}
	int k = TL_LOSS_OTHER;
	if (tl_model_value(idx, c->node, &v) && v.loss && v.kind != TL_VK_CRITERION) {
		k = tl_facts__loss_of(v.loss);
	} else if (!c->qname) {
		/* A criterion called: one the model does not know, a parameter. */
		bool known = false;
		tl_facts__fan_begin();
		k = tl_facts__model_criterion(idx, tl_facts__called_object(c), &known);
		tl_facts__fan_end();
		if (!known)
			k = TL_LOSS_OTHER;
	}
	return k;
}

size_t tl_facts_loss_kind_words(int kind, const char **out, size_t cap)
{
	/* The last parts of the table's names of that loss (cross_entropy,
	 * CrossEntropyLoss), each once. */
	const TlApiTable *t = tl_api_table();
	size_t count = 0;
	for (size_t i = 0; i < t->count && count < cap; i++) {
		const TlApiRow *r = &t->rows[i];
		if (r->form != TL_API_QUALIFIED || tl_facts__loss_of_row(r) != kind || kind == TL_LOSS_OTHER)
			continue;
		const char *last = tl_facts__last(r->name);
		bool seen = false;
		for (size_t k = 0; k < count && !seen; k++)
			seen = strcmp(out[k], last) == 0;
		if (!seen)
			out[count++] = last;
	}
	return count;
}
