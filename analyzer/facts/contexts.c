/* Contexts: which `with` blocks, decorators and call sites put a node under
 * no_grad / inference_mode / autocast (on or off, on which device), the grad mode
 * at a node, and values that come out of a context manager. What the call
 * sites decide is the model's: the grad entry (model/gradmode.c), the
 * autocast entry (model/autocast.c), what the callers hand a parameter
 * that opens a context (model/handedin.c).
 *
 * (A value read outside the context it was made in, and whether code may
 * compute in float16, are the logic of TL401 and TL404, in rules/checks/.)
 *
 * Owns: tl_facts_context_kind, tl_facts_local_grad, tl_facts_grad_state, tl_facts_under,
 * tl_facts_is_half_dtype. */
#include "facts/internal.h"
#include "model/model.h"

/* ---- contexts --------------------------------------------------------------- */

/* `torch.float16` / `torch.half`, import-resolved. */
bool tl_facts_is_half_dtype(const TlIndex *idx, TSNode e)
{
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	if (ts_node_is_null(e) || ts_node_symbol(e) != sy->attribute)
		return false;
	char *q = tl_index_qualify(idx, e);
	bool yes = q && (strcmp(q, "torch.float16") == 0 || strcmp(q, "torch.half") == 0);
	tl_free(q);
	return yes;
}

static uint32_t tl_facts__context_of_name(const char *q, TSNode call, const TlIndex *idx)
{
	const TlSyms *sy = tl_syms();
	bool is_call = !ts_node_is_null(call);
	uint64_t sets = tl_api_qualified_sets(q); /* api/api.tsv */
	if (sets & TL_APIS_GRAD_OFF) {
		/* inference_mode(False) turns inference mode off, grad stays as is. */
		if (is_call) {
			TSNode a = tl_facts__arg(call, 0);
			if (!ts_node_is_null(a) && ts_node_symbol(a) == sy->false_)
				return 0;
		}
		return TL_CTX_GRAD_OFF;
	}
	if (sets & TL_APIS_GRAD_ON)
		return TL_CTX_GRAD_ON;
	if (strcmp(q, "torch.distributed.autograd.context") == 0)
		return TL_CTX_DIST_AUTOGRAD;
	if (sets & TL_APIS_GRAD_SET) {
		TSNode a = is_call ? tl_facts__arg(call, 0) : (TSNode){ 0 };
		if (!ts_node_is_null(a) && ts_node_symbol(a) == sy->true_)
			return TL_CTX_GRAD_ON;
		/* False, or a flag such as `phase == "train"`: possibly off,
		 * and precision comes first, so treated as off. */
		return TL_CTX_GRAD_OFF;
	}
	/* torch.autocast, torch.cuda.amp.autocast, any library's `.autocast` */
	if (tl_facts__ends(q, ".autocast")) {
		uint32_t cpu = tl_facts__starts(q, "torch.cpu.") ? TL_CTX_CPU_AUTOCAST : 0;
		/* float16: named, or the default of torch.cuda.amp / "cuda". */
		bool cuda = tl_facts__starts(q, "torch.cuda."), half = false;
		if (is_call) {
			TSNode e = tl_facts__kwarg(idx, call, "enabled");
			if (!ts_node_is_null(e) && ts_node_symbol(e) == sy->false_)
				return TL_CTX_AUTOCAST_OFF;
			TSNode d = tl_facts__kwarg(idx, call, "device_type");
			if (ts_node_is_null(d) && !cuda)
				d = tl_facts__arg(call, 0);
			if (!ts_node_is_null(d) && ts_node_symbol(d) == sy->string &&
			    (tl_index_text_is(idx, d, "\"cpu\"") || tl_index_text_is(idx, d, "'cpu'")))
				cpu = TL_CTX_CPU_AUTOCAST;
			if (!ts_node_is_null(d) && ts_node_symbol(d) == sy->string &&
			    (tl_index_text_is(idx, d, "\"cuda\"") || tl_index_text_is(idx, d, "'cuda'")))
				cuda = true;
			TSNode dt = tl_facts__kwarg(idx, call, "dtype");
			if (ts_node_is_null(dt) && cuda && q && tl_facts__starts(q, "torch.cuda."))
				dt = tl_facts__arg(call, 1); /* torch.cuda.amp.autocast(enabled, dtype) */
			half = ts_node_is_null(dt) ? cuda : tl_facts_is_half_dtype(idx, dt);
		} else {
			half = cuda;
		}
		return TL_CTX_AUTOCAST | cpu | (half && !cpu ? TL_CTX_HALF_AUTOCAST : 0);
	}
	return 0;
}

static uint32_t tl_facts__context_kind(const TlIndex *idx, TSNode expr, int depth);
static uint32_t tl_facts__param_context_kind(const TlIndex *idx, const TlBinding *b);

/* True when nested function `inner` of decorator `func` calls what the
 * decorator is handed (its first parameter), and only inside a
 * grad-disabling `with` block: `def nograd(f): def new_f(*a, **k): with
 * torch.no_grad(): return f(*a, **k); return new_f`. */
static bool tl_facts__calls_handed_off(const TlIndex *idx, int32_t func, int32_t inner)
{
	const TlFunc *f = &idx->funcs.items[func];
	if (idx->funcs.items[inner].parent != func || !f->params.size)
		return false;
	const char *name = idx->bindings.items[f->params.items[0]].name;
	const TlIntArray *calls = tl_index_scope_calls(idx, inner);
	bool any = false;
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (c->receiver.id || !c->method || strcmp(c->method, name) != 0)
			continue;
		bool off = false;
		for (int32_t w = c->with; w >= 0 && !off; w = idx->withs.items[w].parent)
			off = (idx->withs.items[w].ctx & TL_CTX_GRAD_OFF) != 0;
		if (!off)
			return false;
		any = true;
	}
	return any;
}

/* The grad-disabling context that function `func` of `idx` wraps what it is
 * handed in: a return of `CTX()(fn)` (`(torch.inference_mode if new else
 * torch.no_grad)()(fn)`), or of a nested function that calls it inside
 * such a `with` block, or, `hops` times, of a nested function that does
 * (a decorator factory: `def smart_inference_mode(): def decorate(fn):
 * return torch.inference_mode()(fn); return decorate`). 0 when none. */
static uint32_t tl_facts__wrapping_ctx(const TlIndex *idx, int32_t func, int hops, int depth)
{
	const TlSyms *sy = tl_syms();
	if (func < 0 || depth > TL_FACTS_DEPTH)
		return 0;
	const TlFunc *f = &idx->funcs.items[func];
	for (uint32_t i = 0; i < f->returns.size; i++) {
		TSNode r = f->returns.items[i];
		TSNode v = ts_node_named_child_count(r) ? tl_index_unparen(ts_node_named_child(r, 0)) : (TSNode){ 0 };
		if (ts_node_is_null(v))
			continue;
		TSSymbol s = ts_node_symbol(v);
		if (s == sy->call) {
			TSNode callee = tl_index_unparen(tl_tree_field(v, sy->f_function));
			if (!ts_node_is_null(callee) && ts_node_symbol(callee) == sy->call) {
				/* (torch.inference_mode if new else torch.no_grad)(): the
				 * choice of context, called */
				TSNode inner = tl_index_unparen(tl_tree_field(callee, sy->f_function));
				TSNode ctx = !ts_node_is_null(inner) && ts_node_symbol(inner) == sy->conditional_expression
						     ? inner : callee;
				uint32_t k = tl_facts__context_kind(idx, ctx, depth + 1) & TL_CTX_GRAD_OFF;
				if (k)
					return k;
			}
		} else if (s == sy->identifier && hops == 0) {
			const TlBinding *b = tl_index_resolve_node(idx, v);
			if (b && b->kind == TL_BIND_DEF && b->ref >= 0 && b->ref != func &&
			    tl_facts__calls_handed_off(idx, func, b->ref))
				return TL_CTX_GRAD_OFF;
		} else if (s == sy->identifier && hops > 0) {
			const TlBinding *b = tl_index_resolve_node(idx, v);
			if (b && b->kind == TL_BIND_DEF && b->ref != func) {
				uint32_t k = tl_facts__wrapping_ctx(idx, b->ref, hops - 1, depth + 1);
				if (k)
					return k;
			}
		}
	}
	return 0;
}

/* A decorator the project defines, here or in another module, that wraps
 * the function in a grad-disabling context: `@smart_inference_mode()` (a
 * factory, called) or `@no_grad_wrapper` (the decorator itself). */
static uint32_t tl_facts__project_decorator_ctx(const TlIndex *idx, TSNode callee, bool called,
						 int depth)
{
	const TlSyms *sy = tl_syms();
	TSSymbol cs = ts_node_symbol(callee);
	if (cs != sy->identifier && cs != sy->attribute)
		return 0;
	int hops = called ? 1 : 0;
	const TlBinding *b = tl_index_resolve_node(idx, callee);
	if (b && b->kind == TL_BIND_DEF)
		return tl_facts__wrapping_ctx(idx, b->ref, hops, depth + 1);
	if (!idx->imports)
		return 0;
	char *q = tl_index_qualify(idx, callee);
	uint32_t k = 0;
	TlExtDef d;
	if (q && !tl_facts__torch_qname(q) && tl_facts__ext_def(idx, q, &d) && d.func >= 0 && d.cls < 0) {
		tl_facts__ext_enter(idx);
		k = tl_facts__wrapping_ctx(d.idx, d.func, hops, depth + 1);
		tl_facts__ext_leave(idx);
	}
	tl_free(q);
	return k;
}

static uint32_t tl_facts__context_kind(const TlIndex *idx, TSNode expr, int depth)
{
	const TlSyms *sy = tl_syms();
	if (depth > TL_FACTS_DEPTH)
		return 0;
	expr = tl_index_unparen(expr);
	if (ts_node_is_null(expr))
		return 0;
	TSSymbol s = ts_node_symbol(expr);
	if (s == sy->conditional_expression) {
		uint32_t k = 0, count = ts_node_named_child_count(expr);
		/* `no_grad() if evaluating else nullcontext()`: either branch. */
		for (uint32_t i = 0; i < count && i < 3; i += 2)
			k |= tl_facts__context_kind(idx, ts_node_named_child(expr, i), depth + 1);
		return k;
	}
	TSNode call = { 0 }, callee = expr;
	if (s == sy->call) {
		call = expr;
		callee = tl_index_unparen(tl_tree_field(expr, sy->f_function));
	}
	char *q = tl_index_qualify(idx, callee);
	/* accelerator.autocast(), self.autocast(): when the name is no import,
	 * the method says it. */
	if (!q && !ts_node_is_null(call) && ts_node_symbol(callee) == sy->attribute &&
	    tl_index_text_is(idx, tl_tree_field(callee, sy->f_attribute), "autocast"))
		return tl_facts__context_of_name("torch.autocast", call, idx);
	uint32_t k = q ? tl_facts__context_of_name(q, call, idx) : 0;
	if (q && !k && strcmp(q, "functools.partial") == 0 && !ts_node_is_null(call)) {
		/* partial(torch.autocast, device_type="cuda") */
		TSNode target = tl_facts__arg(call, 0);
		char *tq = ts_node_is_null(target) ? NULL : tl_index_qualify(idx, target);
		if (tq)
			k = tl_facts__context_of_name(tq, call, idx);
		tl_free(tq);
	}
	tl_free(q);
	if (k)
		return k;
	/* An alias: `no_grad = torch.no_grad()`, `ctx = partial(...)`. */
	TSSymbol cs = ts_node_symbol(callee);
	if (cs == sy->identifier || cs == sy->attribute) {
		const TlBinding *b = tl_index_resolve_node(idx, callee);
		if (!b || b->kind == TL_BIND_DEF || b->kind == TL_BIND_IMPORT) {
			k = tl_facts__project_decorator_ctx(idx, callee, !ts_node_is_null(call), depth);
			/* A helper of the project that returns an autocast
			 * context (`with amp_ctx():`, facts/handed.c). */
			if (!k && !ts_node_is_null(call))
				k = tl_facts__handed_autocast(idx, tl_index_call_at(idx, call));
			return k;
		}
		if (b->kind == TL_BIND_PARAM)
			return tl_facts__param_context_kind(idx, b);
		TSNode v = tl_facts__bound_value(b);
		if (!ts_node_is_null(v) && b->elem < 0)
			return tl_facts__context_kind(idx, v, depth + 1);
	}
	return 0;
}

/* Parameters whose callers' arguments are being read, on this thread: a
 * name that leads back to one (handed round through an alias) adds
 * nothing. A seen-set of at most TL_CTX_PARAMS (a size, not a depth). */
#define TL_CTX_PARAMS 32
static _Thread_local const TlBinding *tl_ctx__params[TL_CTX_PARAMS];
static _Thread_local int tl_ctx__nparams;

/* The contexts parameter `b` may open (`with amp_autocast():`, the callers
 * passing `partial(torch.autocast, ...)` or `suppress`): those of what
 * each caller in the file may hand it (model/handedin.c,
 * tl_model_own_param_args: a parameter of a caller followed to its
 * callers, the parameter's default where a caller passes nothing, a call
 * of the function in itself passed over). None when its function escapes,
 * has no caller here, or the callers are too many to follow. */
static uint32_t tl_facts__param_context_kind(const TlIndex *idx, const TlBinding *b)
{
	if (b->func < 0 || tl_ctx__nparams == TL_CTX_PARAMS)
		return 0;
	for (int i = 0; i < tl_ctx__nparams; i++)
		if (tl_ctx__params[i] == b)
			return 0;
	TlParamArgs args;
	tl_array_init(&args);
	uint32_t k = 0;
	tl_ctx__params[tl_ctx__nparams++] = b;
	if (tl_model_own_param_args(idx, b, TL_HANDED_MAY, &args)) {
		tl_facts__fan_begin();
		for (uint32_t i = 0; i < args.size; i++) {
			if (!tl_facts__fan_step()) {
				k = 0;
				break;
			}
			k |= tl_facts__context_kind(idx, args.items[i].arg, 0);
		}
		tl_facts__fan_end();
	}
	tl_ctx__nparams--;
	tl_array_release(&args);
	return k;
}

uint32_t tl_facts_context_kind(const TlIndex *idx, TSNode expr)
{
	return tl_facts__context_kind(idx, expr, 0);
}

int tl_facts_local_grad(const TlIndex *idx, TSNode node, int32_t func, int32_t with)
{
	for (int32_t w = with; w >= 0; w = idx->withs.items[w].parent) {
		uint32_t k = idx->withs.items[w].ctx;
		if (k & TL_CTX_GRAD_OFF)
			return TL_GRAD_OFF;
		if (k & TL_CTX_GRAD_ON)
			return TL_GRAD_ON;
	}
	/* A statement `torch.set_grad_enabled(False)` earlier in the function
	 * (or module) switches grad off until switched back. */
	uint32_t pos = ts_node_start_byte(node), best = 0;
	int state = TL_GRAD_UNKNOWN;
	/* The file's set_grad_enabled statements, found once (scanning the
	 * scope's calls before `node` for each question was quadratic in a
	 * long function body). */
	const TlIntArray *switches = tl_facts__grad_switches(idx);
	for (uint32_t i = 0; i < switches->size; i++) {
		/* A step of the file's bound each: a file of many functions
		 * each switching grad makes this quadratic. Past the bound the
		 * answer is not used. */
		if (tl_bound_poll())
			break;
		const TlCall *c = &idx->calls.items[switches->items[i]];
		if (c->func != func)
			continue;
		if (ts_node_start_byte(c->node) >= pos)
			break;
		if (ts_node_start_byte(c->node) >= best) {
			best = ts_node_start_byte(c->node);
			uint32_t k = tl_facts__context_of_name(c->qname, c->node, idx);
			state = (k & TL_CTX_GRAD_ON) ? TL_GRAD_ON : TL_GRAD_OFF;
		}
	}
	if (state != TL_GRAD_UNKNOWN)
		return state;
	if (func >= 0) {
		uint32_t k = idx->funcs.items[func].decorator_ctx;
		if (k & TL_CTX_GRAD_OFF)
			return TL_GRAD_OFF;
		if (k & TL_CTX_GRAD_ON)
			return TL_GRAD_ON;
	}
	return TL_GRAD_UNKNOWN;
}

/* The model's program-point grad mode, its entry joined over every call
 * site in the project (model/gradmode.c): disabled on every path, enabled by
 * the function's own code on some path, or as its callers enter it. */
int tl_facts_grad_state(const TlIndex *idx, TSNode node)
{
	int g = tl_model_grad(idx, node);
	return g == TL_MODEL_GRAD_OFF ? TL_GRAD_OFF : g == TL_MODEL_GRAD_ON ? TL_GRAD_ON : TL_GRAD_UNKNOWN;
}

bool tl_facts_under(const TlIndex *idx, TSNode node, uint32_t ctx)
{
	if (ctx & TL_CTX_GRAD_OFF)
		return tl_facts_grad_state(idx, node) == TL_GRAD_OFF;
	if (ctx & TL_CTX_AUTOCAST) {
		/* The innermost autocast block decides (`autocast(enabled=False)`
		 * inside an autocast region runs in full precision); outside
		 * any, the function's autocast entry context over its call
		 * sites (model/autocast.c). */
		uint32_t ask = ctx & (TL_CTX_NOT_CPU | TL_CTX_HALF_AUTOCAST);
		int at = tl_model_autocast_at(idx, tl_index_with_of(idx, node), ask);
		return at >= 0 ? at == 1 : tl_model_autocast_entry(idx, tl_index_func_of(idx, node), ask);
	}
	return false;
}
