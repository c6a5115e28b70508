/* Kinds of values: optimizer, GradScaler, module, tensor, graph tensor (a value
 * that carries autograd history), and tensors whose construction is known.
 *
 * Owns: tl_facts_is_optimizer, tl_facts_is_scaler, tl_facts_in_scaler_class, tl_facts_is_module, tl_facts_is_graph,
 * tl_facts__model_kind_is and the module-class names. */
#include "model/apitable.h"
#include "model/model.h"
#include "facts/internal.h"

static bool tl_facts__module_value(const TlIndex *idx, TSNode v, int depth);
static bool tl_facts__module_arg(const TlIndex *idx, TSNode v, int *budget);
static bool tl_facts__module_param(const TlIndex *idx, const TlBinding *b);

/* ---- kinds of values ---------------------------------------------------------- */

bool tl_facts__binding_call_qname_is(const TlIndex *idx, TSNode expr,
					   bool (*pred)(const char *), int *decided)
{
	const TlSyms *sy = tl_syms();
	const TlBinding *b = tl_index_resolve_node(idx, expr);
	*decided = 0;
	TSNode v = tl_facts__bound_value(b);
	if (ts_node_is_null(v) || b->elem >= 0 || ts_node_symbol(v) != sy->call)
		return false;
	char *q = tl_index_qualify(idx, tl_tree_field(v, sy->f_function));
	bool yes = q && pred(q);
	*decided = q ? 1 : 0;
	tl_free(q);
	return yes;
}

bool tl_facts__optimizer_qname(const char *q)
{
	if (tl_facts__foreign_qname(q))
		return false; /* paddle.optimizer.Adam */
	if (tl_facts__starts(q, "torch.optim.lr_scheduler") || strstr(q, "sched"))
		return false;
	return tl_facts__starts(q, "torch.optim.") || strstr(q, "optim") != NULL;
}

static bool tl_facts__parameters_call(const TlIndex *idx, TSNode e);

/* True when list `b` (bound to `[]`) is filled, in its function, by
 * `b.append(p)` / `b.extend(...)` of a module's parameters. */
static bool tl_facts__filled_with_parameters(const TlIndex *idx, const TlBinding *b)
{
	const TlIntArray *calls = tl_index_scope_calls(idx, b->func);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (!c->method || !c->recv_name || strcmp(c->recv_name, b->name) != 0 ||
		    (strcmp(c->method, "append") != 0 && strcmp(c->method, "extend") != 0))
			continue;
		TSNode a = tl_facts__arg(c->node, 0);
		if (ts_node_is_null(a))
			continue;
		if (strcmp(c->method, "append") == 0 ? tl_facts_is_parameter(idx, a)
						      : tl_facts__parameters_call(idx, a))
			return true;
	}
	return false;
}

/* True when `arg` hands a model's parameters over: `m.parameters()`,
 * `m.named_parameters()`, `filter(f, m.parameters())`, a list or dict of
 * parameter groups holding one, or a name bound to one of these. */
/* `m.parameters()` / `m.named_parameters()`. */
static bool tl_facts__parameters_call(const TlIndex *idx, TSNode e)
{
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	const TlCall *c = ts_node_symbol(e) == sy->call ? tl_index_call_at(idx, e) : NULL;
	return c && c->receiver.id && (tl_api_method_sets(c->method) & TL_APIS_PARAMETERS);
}

static bool tl_facts__hands_parameters(const TlIndex *idx, TSNode arg)
{
	const TlSyms *sy = tl_syms();
	TSNode todo[32];
	uint32_t n = 0, seen = 0;
	todo[n++] = arg;
	while (n && seen++ < 64) {
		TSNode e = tl_index_unparen(todo[--n]);
		if (ts_node_is_null(e))
			continue;
		TSSymbol s = ts_node_symbol(e);
		if (s == sy->call) {
			const TlCall *c = tl_index_call_at(idx, e);
			if (c && c->receiver.id && (tl_api_method_sets(c->method) & TL_APIS_PARAMETERS))
				return true;
			if (c && !c->receiver.id && c->method &&
			    (strcmp(c->method, "filter") == 0 || strcmp(c->method, "list") == 0)) {
				for (uint32_t k = 0; k < 2 && n < 32; k++)
					todo[n++] = tl_facts__arg(e, k);
			}
			continue;
		}
		if (s == sy->identifier) {
			const TlBinding *b = tl_index_resolve_node(idx, e);
			TSNode v = tl_facts__bound_value(b);
			if (!ts_node_is_null(v) && b->kind == TL_BIND_ASSIGN && b->elem < 0 && n < 32)
				todo[n++] = v;
			/* decay = [] filled by `decay.append(p)` over
			 * model.named_parameters() (weight-decay groups). */
			TSNode vs = tl_index_unparen(v);
			if (!ts_node_is_null(vs) && ts_node_symbol(vs) == sy->list &&
			    !ts_node_named_child_count(vs) && tl_facts__filled_with_parameters(idx, b))
				return true;
			continue;
		}
		if (s == sy->list || s == sy->tuple || s == sy->dictionary || s == sy->pair ||
		    s == sy->list_comprehension || s == sy->generator_expression) {
			uint32_t count = ts_node_named_child_count(e);
			for (uint32_t k = 0; k < count && n < 32; k++)
				todo[n++] = ts_node_named_child(e, k);
		}
	}
	return false;
}

/* An optimizer known by its use (principle 3, imported classes): the value
 * of binding `b` is made by `ctor`, an imported or local class or factory
 * that is not one of PyTorch's, that is handed a model's parameters, and
 * the file calls `.step()` on it and runs a backward. EMA helpers and
 * schedulers, also built over parameters, are left out by their names (the
 * table's words of set not-optimizer: `ema`, `sched`, ...). */
bool tl_facts__optimizer_by_use(const TlIndex *idx, const TlBinding *b, TSNode ctor)
{
	const TlSyms *sy = tl_syms();
	if (!tl_facts__names_hint(idx) || b->elem >= 0 || ts_node_symbol(ctor) != sy->call)
		return false;
	const TlCall *c = tl_index_call_at(idx, ctor);
	if (!c || (c->qname && (tl_facts__foreign_qname(c->qname) ||
				 tl_facts__starts(c->qname, "torch."))))
		return false;
	char *callee = tl_facts__dotted(idx, c->callee);
	char low[128] = "";
	if (callee)
		tl_facts__lower(tl_facts__last(callee), low, sizeof low);
	tl_free(callee);
	if (tl_api_word_in(low, strlen(low), TL_APIS_NOT_OPTIMIZER))
		return false;
	TSNode params = tl_facts__arg(ctor, 0);
	if (ts_node_is_null(params))
		params = tl_facts__kwarg(idx, ctor, "params");
	if (ts_node_is_null(params))
		params = tl_facts__kwarg(idx, ctor, "parameters");
	if (ts_node_is_null(params) || !tl_facts__hands_parameters(idx, params))
		return false;
	bool stepped = false, backward = false;
	for (uint32_t i = 0; i < idx->calls.size && !(stepped && backward); i++) {
		const TlCall *k = &idx->calls.items[i];
		if (!k->method || !k->receiver.id)
			continue;
		if (strcmp(k->method, "backward") == 0)
			backward = true;
		else if (strcmp(k->method, "step") == 0 && k->recv_name &&
			 strcmp(k->recv_name, b->name) == 0)
			stepped = true;
	}
	return stepped && backward;
}

static bool tl_facts__walk_optimizer(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	expr = tl_index_unparen(expr);
	if (ts_node_symbol(expr) == sy->subscript) /* optimizers[0] */
		expr = tl_tree_field(expr, sy->f_value);
	int decided;
	if (tl_facts__binding_call_qname_is(idx, expr, tl_facts__optimizer_qname, &decided))
		return true;
	const TlBinding *b = tl_index_resolve_node(idx, expr);
	TSNode v = tl_facts__bound_value(b);
	if (!ts_node_is_null(v) && tl_facts__optimizer_by_use(idx, b, v))
		return true;
	if (decided)
		return false;
	char *name = tl_facts__names_hint(idx) ? tl_facts__dotted(idx, expr) : NULL;
	bool yes = name && tl_facts__optimizer_like_name(name);
	tl_free(name);
	return yes;
}

static bool tl_facts__scaler_qname(const char *q)
{
	return tl_facts__ends(q, "GradScaler") && !tl_facts__foreign_qname(q);
}

static bool tl_facts__walk_scaler(const TlIndex *idx, TSNode expr)
{
	int decided;
	if (tl_facts__binding_call_qname_is(idx, expr, tl_facts__scaler_qname, &decided))
		return true;
	if (decided)
		return false;
	char *name = tl_facts__names_hint(idx) ? tl_facts__dotted(idx, expr) : NULL;
	char low[128] = "";
	if (name)
		tl_facts__lower(tl_facts__last(name), low, sizeof low);
	tl_free(name);
	return strstr(low, "scaler") != NULL;
}

bool tl_facts_in_scaler_class(const TlIndex *idx, TSNode node)
{
	int32_t f = tl_index_func_of(idx, node);
	int32_t cls = -1;
	/* The innermost method around the node (a closure inside one counts):
	 * up the index's chain of enclosing functions, each made before the
	 * functions nested in it (a lower index), so the chain ends. */
	for (; f >= 0 && cls < 0; f = idx->funcs.items[f].parent)
		cls = idx->funcs.items[f].cls;
	if (cls < 0)
		return false;
	const TlClass *k = &idx->classes.items[cls];
	if (k->is_module)
		return false;
	if (tl_index_method(idx, cls, "step", 4) < 0)
		return false;
	char low[128] = "";
	tl_facts__lower(k->name ? k->name : "", low, sizeof low);
	return strstr(low, "scaler") || tl_index_method(idx, cls, "scale", 5) >= 0 ||
	       tl_index_method(idx, cls, "update", 6) >= 0 ||
	       tl_index_method(idx, cls, "unscale_", 8) >= 0;
}

/* An inference pipeline (diffusers `*Pipeline`, `AutoPipelineFor*`,
 * transformers.pipeline): no nn.Module, it runs without gradients and
 * returns images, text or arrays. */
static bool tl_facts__pipeline_qname(const char *q)
{
	return tl_model_pipeline_qname(q);
}

/* True when `expr` holds an inference pipeline: what it is bound to (also
 * through `.to(...)` and other methods of it) is made by one. */
static bool tl_facts__pipeline_value(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	/* A chain: down a call's receiver (inside the call), or from a name
	 * to the value of its binding. The bindings followed are kept: one
	 * met again (`x = x.to(d)` read where the name's binding is its own)
	 * ends the chain, which then ends whatever its length. */
	TlIntArray seen;
	tl_array_init(&seen);
	bool yes = false;
	for (;;) {
		expr = tl_index_unparen(expr);
		if (ts_node_is_null(expr))
			break;
		TSSymbol s = ts_node_symbol(expr);
		if (s == sy->call) {
			const TlCall *c = tl_index_call_at(idx, expr);
			if (!c)
				break;
			if (c->qname) {
				yes = tl_facts__pipeline_qname(c->qname);
				break;
			}
			if (!c->receiver.id || !tl_api_returns_self(c->method))
				break;
			expr = c->receiver;
			continue;
		}
		if (s != sy->identifier && s != sy->attribute)
			break;
		const TlBinding *b = tl_index_resolve_node(idx, expr);
		TSNode v = tl_facts__bound_value(b);
		if (ts_node_is_null(v) || b->kind != TL_BIND_ASSIGN || b->elem >= 0 ||
		    tl_facts__seen_binding(idx, &seen, b))
			break;
		expr = v;
	}
	tl_array_release(&seen);
	return yes;
}

bool tl_facts__module_expr(const TlIndex *idx, TSNode expr, int depth)
{
	const TlSyms *sy = tl_syms();
	if (depth > TL_FACTS_DEPTH)
		return false;
	expr = tl_index_unparen(expr);
	if (ts_node_is_null(expr))
		return false;
	TSSymbol s = ts_node_symbol(expr);
	if (s != sy->identifier && s != sy->attribute)
		return false;
	/* Another framework's model is no module of ours, whatever its use;
	 * nor is an inference pipeline, though it moves like one. */
	if (tl_facts__foreign_value(idx, expr) || tl_facts__pipeline_value(idx, expr))
		return false;
	/* `if isinstance(m, nn.Parameter): m.requires_grad = ...`: a tensor
	 * there, whatever the other branch does with the name. */
	if (depth == 0 && tl_facts__guarded_tensor(idx, expr))
		return false;
	if (tl_facts__names_hint(idx) && idx->module_evidence.count) {
		char buf[128], *owned;
		const char *name = tl_index_dotted_view(idx, expr, buf, sizeof buf, &owned);
		int32_t dummy;
		bool yes = name && tl_strmap_get(&idx->module_evidence, name, strlen(name), &dummy);
		tl_free(owned);
		if (yes)
			return true;
	}
	const TlBinding *b = tl_index_resolve_node(idx, expr);
	if (!b)
		return false;
	if (b->kind == TL_BIND_PARAM && !ts_node_is_null(b->value)) {
		char *q = tl_index_qualify(idx, b->value);
		bool m = q && tl_facts_is_module_class_name(q);
		tl_free(q);
		if (m)
			return true;
		const TlBinding *cb = tl_index_resolve_node(idx, b->value);
		return cb && cb->kind == TL_BIND_CLASS && idx->classes.items[cb->ref].is_module;
	}
	if (b->kind == TL_BIND_PARAM)
		return tl_facts__module_param(idx, b);
	/* netG, netD = G(), D(): an element of a tuple value is a value of its
	 * own; an element of a call's result is not judged. */
	TSNode v = tl_facts__bound_value(b);
	if (ts_node_is_null(v) || (b->elem >= 0 && ts_node_eq(v, tl_index_unparen(b->value))))
		return false;
	return tl_facts__module_value(idx, v, depth + 1);
}

/* tl_facts__module_arg of what `accelerator.unwrap_model(model)` hands
 * back: the model itself. */
static bool tl_facts__module_unwrapped_arg(const TlIndex *idx, TSNode v, int *budget)
{
	TSNode e = tl_index_unparen(v);
	const TlCall *u = ts_node_is_null(e) ? NULL : tl_index_call_at(idx, e);
	return tl_facts__module_arg(idx, u && tl_facts__unwraps(u) ? tl_facts__arg(u->node, 0) : v, budget);
}

/* A model every caller passes (`train(model, ...)` called with
 * `Net().to(device)`); for a function only other modules of the project
 * call (`eval_net(net, loader)` in train.py), every importer's argument
 * (tl_model_importer_args) a module there. Each argument a question of
 * its own; the parameters being judged end modules that hand one round. */
static bool tl_facts__module_param(const TlIndex *idx, const TlBinding *b)
{
	int budget = TL_FACTS_BUDGET / 4;
	if (tl_facts__param_all(idx, b, TL_PARAM_OWN, tl_facts__module_arg, &budget))
		return true;
	budget = TL_FACTS_BUDGET / 4;
	return tl_facts__param_all(idx, b, TL_PARAM_IMPORTERS, tl_facts__module_unwrapped_arg, &budget);
}

/* An argument a call site hands a parameter is a module: a question of
 * its own (the depth of the one that asked does not bound it; the
 * parameters met on the way do, tl_facts__param_all). */
static bool tl_facts__module_arg(const TlIndex *idx, TSNode v, int *budget)
{
	return --*budget >= 0 && tl_facts__module_value(idx, v, 1);
}

/* A return value of a function is a module: a question of its own. */
static bool tl_facts__module_return(const TlIndex *idx, TSNode v)
{
	return tl_facts__module_value(idx, v, 0);
}

/* Calls that wrap their first argument and run its forward: the table's
 * rows of role wrapper, and any DistributedDataParallel. */
bool tl_facts__is_wrapper(const char *q)
{
	const TlApiRow *r = tl_api_qualified(q);
	return (r && (r->roles & TL_APIR_WRAPPER)) || tl_facts__ends(q, "DistributedDataParallel");
}

/* The module that call `c` (the node `call`) hands back unchanged:
 * `m.to(device)`, `m.train()` -> m, or a copy of: `copy.deepcopy(m)` -> m;
 * with `wrappers`, also `DDP(m)` and `torch.compile(m)` -> m. A null node
 * otherwise. */
TSNode tl_facts__module_through(const TlCall *c, TSNode call, bool wrappers)
{
	TSNode none = { 0 };
	if (c->receiver.id && tl_api_returns_self(c->method))
		return c->receiver;
	if (wrappers && c->qname && tl_facts__is_wrapper(c->qname))
		return tl_facts__arg(call, 0);
	/* copy.deepcopy(m): a module of m's class with m's layers. */
	const TlApiRow *r = c->qname ? tl_api_qualified(c->qname) : NULL;
	if (r && (r->roles & TL_APIR_COPY))
		return tl_facts__arg(call, 0);
	return none;
}

/* A call that constructs a model: a hub or zoo loader the file binds. */
bool tl_facts__is_model_loader(const char *q)
{
	const TlApiRow *r = tl_api_qualified(q);
	if (!r)
		r = tl_api_under(q);
	return (r && r->kind == TL_APIK_MODULE) || tl_model_pretrained_loader(q);
}

static bool tl_facts__module_value(const TlIndex *idx, TSNode v, int depth)
{
	const TlSyms *sy = tl_syms();
	if (depth > TL_FACTS_DEPTH)
		return false;
	v = tl_index_unparen(v);
	if (ts_node_is_null(v))
		return false;
	TSSymbol s = ts_node_symbol(v);
	if (s == sy->identifier || s == sy->attribute)
		return tl_facts__module_expr(idx, v, depth + 1);
	if (s != sy->call)
		return false;
	const TlCall *c = tl_index_call_at(idx, v);
	if (!c)
		return false;
	if (c->qname) {
		if (tl_facts_is_module_class_name(c->qname))
			return true;
		if (tl_facts__is_wrapper(c->qname))
			return tl_facts__module_value(idx, tl_facts__arg(v, 0), depth + 1);
		if (tl_facts__is_model_loader(c->qname))
			return true;
		/* A model class of another module of the project (one that
		 * may hold parameters). */
		if (tl_facts__ext_class_is_model(idx, c->qname))
			return true;
	}
	if (c->receiver.id && tl_api_returns_self(c->method))
		return tl_facts__module_expr(idx, c->receiver, depth + 1) ||
		       tl_facts__module_value(idx, c->receiver, depth + 1);
	const TlBinding *cb = tl_index_resolve_node(idx, c->callee);
	if (cb && cb->kind == TL_BIND_CLASS)
		return idx->classes.items[cb->ref].is_module;
	/* what the function returns: its summary (a question of its own),
	 * asked while this walk is within its bound */
	if (depth >= TL_FACTS_DEPTH)
		return false;
	if (c->target >= 0)
		return tl_facts__returns(idx, c->target, TL_RET_MODULE, tl_facts__module_return);
	return tl_facts__ext_any_return(idx, c, TL_RET_MODULE, tl_facts__module_return);
}

/* The model's kind of `expr` for the kind family's differential: 1 one of
 * `kinds` (bits 1 << TlVKind), 0 another kind, -1 not known. Asked only
 * once the facts are built (the model reads the events the build
 * writes). */
int tl_facts__model_kind_is(const TlIndex *idx, TSNode expr, uint32_t kinds)
{
	TlVal v;
	if (!idx->facts_cache || !idx->facts_cache->complete || !tl_model_value(idx, expr, &v) ||
	    v.kind == TL_VK_BOT)
		return -1;
	/* a wrapper on some paths, a module or nothing known on the others */
	if (v.kind == TL_VK_TOP && v.wrap && (kinds & (1u << TL_VK_WRAPPER)))
		return 1;
	if (v.kind == TL_VK_TOP)
		return -1;
	return (kinds >> v.kind) & 1u;
}

/* The kind family: once the facts are built, the model's kind of the
 * value (a name it does not know is seeded from the file's evidence and
 * names: model/seeds.c); while the build writes the calls' events, which
 * runs before any model, the walks above. `names`: the value the model
 * does not know counts when its name says so (an optimizer, a scaler). */
static bool tl_facts__kind(const TlIndex *idx, TSNode expr, uint32_t kinds, const char *question,
			   bool (*walk)(const TlIndex *, TSNode), bool (*names)(const char *))
{
	if (!idx->facts_cache || !idx->facts_cache->complete)
		return walk(idx, expr);
	int m = tl_facts__model_kind_is(idx, expr, kinds);
	if (m < 0 && names && tl_facts__names_hint(idx)) {
		char *name = tl_facts__dotted(idx, expr);
		m = name && names(name) ? 1 : m;
		tl_free(name);
	}
	bool yes = m == 1;
	if (tl_facts__checking_model())
		tl_facts__model_differs(idx, expr, question, walk(idx, expr), yes);
	return yes;
}

/* TORCHLINT_CHECK_MODEL: the forward events the build's walk wrote
 * (tl_facts_is_forward, before any model), against the model's kind of
 * the called value once the facts are built: each call the two disagree
 * on, printed (tl_facts__model_differs: question `forward-event`). What
 * the event classifier would answer from the model, measured before it
 * moves there. */
void tl_facts__check_forward_events(const TlIndex *idx)
{
	const TlSyms *sy = tl_syms();
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (c->qname || (c->events & TL_EV_LOSS))
			continue;
		bool fwd = c->method && c->receiver.id && strcmp(c->method, "forward") == 0;
		TSNode callee = tl_index_unparen(fwd ? c->receiver : c->callee);
		if (ts_node_is_null(callee) ||
		    (ts_node_symbol(callee) != sy->identifier && ts_node_symbol(callee) != sy->attribute))
			continue;
		TlVal v;
		int model = -1;
		if (tl_model_value(idx, callee, &v) && v.kind != TL_VK_BOT && v.kind != TL_VK_TOP)
			model = v.kind == TL_VK_MODULE || v.kind == TL_VK_WRAPPER;
		else if (tl_model_value(idx, callee, &v) && v.kind == TL_VK_TOP && v.wrap)
			model = 1;
		int walk = (c->events & TL_EV_FORWARD) != 0;
		if (model >= 0)
			tl_facts__model_differs(idx, c->node, "forward-event", walk, model);
		else if (walk)
			tl_facts__model_differs(idx, c->node, "forward-event-unknown", walk, -1);
	}
}

static bool tl_facts__walk_module(const TlIndex *idx, TSNode expr)
{
	return tl_facts__module_expr(idx, expr, 0);
}

bool tl_facts_is_module(const TlIndex *idx, TSNode expr)
{
	return tl_facts__kind(idx, expr, 1u << TL_VK_MODULE | 1u << TL_VK_WRAPPER | 1u << TL_VK_CRITERION,
			      "module", tl_facts__walk_module, NULL);
}

bool tl_facts_is_loss_call(const TlIndex *idx, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	if (c->qname)
		return tl_facts__is_loss_function(c->qname);
	/* criterion.forward(p, y) calls the criterion. */
	TSNode callee = tl_index_unparen(tl_facts__called_object(c));
	if (ts_node_is_null(callee))
		return false;
	TSSymbol s = ts_node_symbol(callee);
	if (s == sy->call) { /* nn.MSELoss()(a, b) */
		const TlCall *inner = tl_index_call_at(idx, callee);
		return inner && inner->qname && tl_facts__is_loss_class(inner->qname);
	}
	if (s != sy->identifier && s != sy->attribute)
		return false;
	const TlBinding *b = tl_index_resolve_node(idx, callee);
	TSNode v = tl_facts__bound_value(b);
	if (!ts_node_is_null(v) && b->elem < 0 && ts_node_symbol(v) == sy->call) {
		const TlCall *made = tl_index_call_at(idx, v);
		/* nn.CrossEntropyLoss().to(device): the criterion moved. Down the
		 * receivers of the call's text, each inside the last: it ends. */
		while (made && !made->qname && made->receiver.id && tl_api_returns_self(made->method) &&
		       ts_node_symbol(tl_index_unparen(made->receiver)) == sy->call)
			made = tl_index_call_at(idx, tl_index_unparen(made->receiver));
		if (made && made->qname) {
			if (tl_facts__is_loss_class(made->qname) || tl_facts__is_loss_function(made->qname))
				return true;
			/* A class of another module of the project: a criterion by
			 * its name, as a local one; a factory there: below. */
			char nb[128];
			const char *n = tl_facts__ext_class_named(idx, made->qname, nb, sizeof nb);
			if (n)
				return tl_facts__ends(n, "Loss");
			TlExtDef d;
			if (!tl_facts__ext_def(idx, made->qname, &d) || d.func < 0)
				return false;
		}
		const TlBinding *cb = made ? tl_index_resolve_node(idx, made->callee) : NULL;
		if (cb && cb->kind == TL_BIND_CLASS)
			return tl_facts__ends(idx->classes.items[cb->ref].name, "Loss");
	}
	/* A local factory's criterion (`criterion = build_loss(cfg)`), one
	 * passed in by every caller (`train_loop(loader, model, loss_fn, opt)`). */
	if (((b && b->kind == TL_BIND_PARAM) || (!ts_node_is_null(v) && ts_node_symbol(v) == sy->call)) &&
	    tl_facts__is_criterion(idx, callee))
		return true;
	if (!tl_facts__names_hint(idx))
		return false;
	if (b && b->kind == TL_BIND_DEF)
		return tl_facts__loss_like_name(idx->funcs.items[b->ref].name);
	char buf[128], *owned;
	const char *name = tl_index_dotted_view(idx, callee, buf, sizeof buf, &owned);
	bool yes = name && tl_facts__loss_like_name(name);
	tl_free(owned);
	return yes;
}

bool tl_facts__module_element(const TlIndex *idx, TSNode sub)
{
	const TlSyms *sy = tl_syms();
	sub = tl_index_unparen(sub);
	if (ts_node_symbol(sub) != sy->subscript || !tl_facts__names_hint(idx) ||
	    !idx->module_evidence.count)
		return false;
	char *base = tl_facts__dotted(idx, tl_tree_field(sub, sy->f_value));
	if (!base)
		return false;
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_add(&b, base);
	tl_buf_add(&b, "[]");
	int32_t dummy;
	bool yes = tl_strmap_get(&idx->module_evidence, b.data, b.len, &dummy);
	tl_buf_release(&b);
	tl_free(base);
	return yes;
}

bool tl_facts_is_forward(const TlIndex *idx, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	TSNode callee = tl_index_unparen(c->callee);
	if (ts_node_is_null(callee))
		return false;
	if (c->method && strcmp(c->method, "forward") == 0 && c->receiver.id)
		return tl_facts__module_expr(idx, c->receiver, 0);
	TSSymbol s = ts_node_symbol(callee);
	if (s == sy->subscript)
		return tl_facts__module_element(idx, callee);
	if (s != sy->identifier && s != sy->attribute)
		return false;
	if (s == sy->identifier) {
		const TlBinding *b = tl_index_resolve_node(idx, callee);
		if (b && (b->kind == TL_BIND_CLASS || b->kind == TL_BIND_DEF ||
			  b->kind == TL_BIND_IMPORT))
			return false;
	}
	if (!tl_facts__module_expr(idx, callee, 0))
		return false;
	/* A criterion module's call is a loss, not a model forward. */
	return !tl_facts_is_loss_call(idx, c);
}

/* ---- graph tensors: the semantic model's answer ----------------------------------- */

/* The model's answer (model/model.h): 1 history, 0 none, -1 not known
 * (not evaluated, may or may not, or only through the function's
 * parameters). */
static int tl_facts_model_graph(const TlIndex *idx, TSNode expr)
{
	TlVal v;
	if (!tl_model_value(idx, expr, &v))
		return -1;
	/* History on some paths counts for a value that is a tensor on every
	 * path (a state made as zeros, then by a forward); a join of different
	 * kinds (a tensor on one branch, a dict of detached values on the
	 * other) is not known. */
	if (v.graph == TL_VG_MUST || (v.graph == TL_VG_MAY && v.kind == TL_VK_TENSOR))
		return 1;
	if (v.graph == TL_VG_NONE && !v.pgraph)
		return 0;
	return -1;
}

/* True for a call of a builtin by its bare name with nothing passed
 * (`seen = set()`, `d = dict()`) that the API table has no row for: the
 * interpreter has no case for it, so the model's value of it holds no
 * history (unknown; none under no_grad), and no file is interpreted to say
 * so. known-tensor asks it of the receiver of `seen.add(x)` (TL219): 56 of
 * the 1,141 files of PyTorch's sources interpreted their whole model for
 * that question alone. */
static bool tl_facts__bare_builtin_call(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_symbol(expr) != sy->call)
		return false;
	const TlCall *c = tl_index_call_at(idx, expr);
	if (!c || c->receiver.id || !c->method || c->qname || c->target >= 0 || c->arg_target >= 0 ||
	    (c->events & (TL_EV_LOSS | TL_EV_FORWARD)) || tl_facts__argc(expr) || tl_api_builtin(c->method))
		return false;
	TSNode callee = tl_index_unparen(c->callee);
	return ts_node_symbol(callee) == sy->identifier && !tl_index_resolve_node(idx, callee) &&
	       !tl_facts__comprehension_local(idx, callee);
}

bool tl_facts_is_graph(const TlIndex *idx, TSNode expr)
{
	if (tl_facts__bare_builtin_call(idx, tl_index_unparen(expr)))
		return false;
	return tl_facts_model_graph(idx, expr) == 1;
}

/* ---- parameters ---------------------------------------------------------------------- */

/* The call `list(m.parameters())` / `m.parameters()` inside an iterable. */
static const TlCall *tl_facts__param_iter_call(const TlIndex *idx, TSNode it)
{
	const TlSyms *sy = tl_syms();
	/* Down the last argument of each call, inside the one before: it ends. */
	for (;;) {
		it = tl_index_unparen(it);
		/* list(m.parameters())[:-2] */
		if (!ts_node_is_null(it) && ts_node_symbol(it) == sy->subscript)
			it = tl_index_unparen(tl_tree_field(it, sy->f_value));
		if (ts_node_is_null(it) || ts_node_symbol(it) != sy->call)
			return NULL;
		const TlCall *c = tl_index_call_at(idx, it);
		if (!c)
			return NULL;
		/* m.parameters(), m.named_buffers(): api/api.tsv */
		if (!ts_node_is_null(c->receiver) && (tl_api_method_sets(c->method) & TL_APIS_PARAMETER_ITERATOR))
			return c;
		/* list(...), tuple(...), filter(fn, ...): the parameters pass
		 * through (the table's builtins of set passes-items) */
		if (!ts_node_is_null(c->receiver) || !c->method ||
		    !(tl_api_builtin_sets(c->method) & TL_APIS_PASSES_ITEMS) ||
		    tl_index_resolve_node(idx, c->callee))
			return NULL;
		uint32_t n = tl_facts__argc(it);
		it = tl_facts__arg(it, n ? n - 1 : 0);
	}
}

static bool tl_facts__walk_parameter(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	expr = tl_index_unparen(expr);
	if (ts_node_is_null(expr))
		return false;
	TSSymbol s = ts_node_symbol(expr);
	if (s == sy->attribute) {
		/* model.fc.weight: a parameter of a module (the table's
		 * attribute rows of kind parameter) */
		TSNode attr = tl_tree_field(expr, sy->f_attribute);
		const TlApiRow *r = tl_api_attribute(idx->src->text + ts_node_start_byte(attr),
						     ts_node_end_byte(attr) - ts_node_start_byte(attr));
		return r && r->kind == TL_APIK_PARAMETER && tl_facts_is_module(idx, tl_tree_field(expr, sy->f_object));
	}
	if (s != sy->identifier)
		return false;
	const TlBinding *b = tl_index_resolve_node(idx, expr);
	if (!b)
		return false;
	if (b->kind == TL_BIND_FOR) {
		const TlCall *c = tl_facts__param_iter_call(idx, b->value);
		if (!c)
			return false;
		/* for p in m.parameters(); for name, p in m.named_parameters() */
		return (tl_api_method_sets(c->method) & TL_APIS_NAMED_ITERATOR) ? b->elem == 1 && b->depth == 1
										 : b->elem < 0;
	}
	TSNode v = tl_facts__bound_value(b);
	if (b->kind != TL_BIND_ASSIGN || b->elem >= 0 || ts_node_is_null(v) ||
	    ts_node_symbol(v) != sy->call)
		return false;
	const TlCall *c = tl_index_call_at(idx, v);
	return c && c->qname && (strcmp(c->qname, "torch.nn.Parameter") == 0 ||
				 strcmp(c->qname, "torch.nn.parameter.Parameter") == 0);
}

bool tl_facts_is_optimizer(const TlIndex *idx, TSNode expr)
{
	if (tl_facts__kind(idx, expr, 1u << TL_VK_OPTIMIZER, "optimizer", tl_facts__walk_optimizer,
			   tl_model_optimizer_like_name))
		return true;
	/* optimizers[0] of a list the model does not know: its name */
	TSNode e = tl_index_unparen(expr);
	return !ts_node_is_null(e) && ts_node_symbol(e) == tl_syms()->subscript &&
	       tl_facts__kind(idx, tl_tree_field(e, tl_syms()->f_value), 1u << TL_VK_OPTIMIZER, "optimizer",
			      tl_facts__walk_optimizer, tl_model_optimizer_like_name);
}

bool tl_facts_is_scaler(const TlIndex *idx, TSNode expr)
{
	return tl_facts__kind(idx, expr, 1u << TL_VK_SCALER, "grad-scaler", tl_facts__walk_scaler,
			      tl_model_scaler_like_name);
}

bool tl_facts_is_parameter(const TlIndex *idx, TSNode expr)
{
	return tl_facts__kind(idx, expr, 1u << TL_VK_PARAMETER, "parameter", tl_facts__walk_parameter, NULL);
}
