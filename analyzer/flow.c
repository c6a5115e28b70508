#include "flow.h"

#include <ctype.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "syms.h"
#include "walk.h"

/* ---- small helpers -------------------------------------------------------- */

static bool tl_flow__in(const char *s, const char *const *set, size_t n)
{
	if (!s)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, set[i]) == 0)
			return true;
	return false;
}
#define IN(s, set) tl_flow__in((s), (set), sizeof(set) / sizeof *(set))

/* Steps (call sites, returns) one question may visit while following
 * parameters to their callers and functions to their returns: depth alone
 * bounds the recursion, not its fan-out (a chain of functions each called
 * from many places). Real code needs a handful. */
#define TL_FLOW_BUDGET 512

/* The same bound for the questions that fan out over call sites (the
 * contexts, mode and step loops of a function follow every caller): one
 * budget per top-level question and thread, refilled only by the
 * outermost one. A question that runs out answers cautiously (no
 * finding). */
static _Thread_local int tl_flow__fan_budget, tl_flow__fan_nesting;

static void tl_flow__fan_begin(void)
{
	if (tl_flow__fan_nesting++ == 0)
		tl_flow__fan_budget = TL_FLOW_BUDGET;
}

static void tl_flow__fan_end(void)
{
	tl_flow__fan_nesting--;
}

/* Takes one step from the budget; false once it is spent. */
static bool tl_flow__fan_step(void)
{
	return --tl_flow__fan_budget >= 0;
}

static bool tl_flow__starts(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool tl_flow__ends(const char *s, const char *suffix)
{
	if (!s)
		return false;
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The last dotted component: "self.opt_g" -> "opt_g". */
static const char *tl_flow__last(const char *dotted)
{
	const char *dot = strrchr(dotted, '.');
	return dot ? dot + 1 : dotted;
}

static bool tl_flow__contains(TSNode outer, TSNode n)
{
	return ts_node_start_byte(outer) <= ts_node_start_byte(n) &&
	       ts_node_end_byte(n) <= ts_node_end_byte(outer);
}

static void tl_flow__lower(const char *s, char *out, size_t size)
{
	size_t i = 0;
	for (; s[i] && i + 1 < size; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[i] = '\0';
}

static TSNode tl_flow__arg(TSNode call, uint32_t k)
{
	const TlSyms *sy = tl_syms();
	TSNode args = ts_node_child_by_field_id(call, sy->f_arguments);
	TSNode none = { 0 };
	if (ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list)
		return none;
	uint32_t pos = 0, count = ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		TSSymbol s = ts_node_symbol(a);
		if (s == sy->keyword_argument || s == sy->comment)
			continue;
		if (pos++ == k)
			return a;
	}
	return none;
}

static TSNode tl_flow__kwarg(const TlIndex *idx, TSNode call, const char *name)
{
	const TlSyms *sy = tl_syms();
	TSNode args = ts_node_child_by_field_id(call, sy->f_arguments);
	TSNode none = { 0 };
	if (ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list)
		return none;
	uint32_t count = ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		if (ts_node_symbol(a) == sy->keyword_argument &&
		    tl_index_text_is(idx, ts_node_child_by_field_id(a, sy->f_name), name))
			return ts_node_child_by_field_id(a, sy->f_value);
	}
	return none;
}

static uint32_t tl_flow__argc(TSNode call)
{
	const TlSyms *sy = tl_syms();
	TSNode args = ts_node_child_by_field_id(call, sy->f_arguments);
	if (ts_node_is_null(args))
		return 0;
	uint32_t n = 0, count = ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count; i++)
		if (ts_node_symbol(ts_node_named_child(args, i)) != sy->comment)
			n++;
	return n;
}

#define tl_flow__dotted tl_index_dotted_dup

/* The value a binding gives its name, for bindings that have one. */
static TSNode tl_flow__bound_value(const TlBinding *b)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	if (!b || (b->kind != TL_BIND_ASSIGN && b->kind != TL_BIND_AUG) ||
	    ts_node_is_null(b->value))
		return none;
	TSNode v = tl_index_unparen(b->value);
	if (b->elem >= 0) {
		TSSymbol s = ts_node_symbol(v);
		if (s == sy->tuple || s == sy->list || s == sy->expression_list) {
			if ((uint32_t)b->elem < ts_node_named_child_count(v))
				return ts_node_named_child(v, (uint32_t)b->elem);
			return none;
		}
		/* `out, h = rnn(x, h)`: an element of a call's result is judged
		 * by the call. */
	}
	return v;
}

/* The expression an assigned name holds, for following an object (a
 * module, an optimizer, a loader) through its bindings: the value, its
 * element for a tuple target (`netG, netD = G(), D()`), or the matching
 * argument of `accelerator.prepare(...)` (`model, opt = acc.prepare(model,
 * opt)`), which hands back the objects it is given. Null otherwise. */
static TSNode tl_flow__held(const TlIndex *idx, const TlBinding *b)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	if (!b || b->kind != TL_BIND_ASSIGN || ts_node_is_null(b->value))
		return none;
	TSNode v = tl_index_unparen(b->value);
	if (b->elem < 0 && b->depth == 0) {
		const TlCall *c = ts_node_symbol(v) == sy->call ? tl_index_call_at(idx, v) : NULL;
		if (c && c->receiver.id && c->method && strcmp(c->method, "prepare") == 0 &&
		    tl_flow__argc(v) == 1)
			return tl_flow__arg(v, 0);
		return v;
	}
	if (b->elem < 0)
		return none;
	TSSymbol s = ts_node_symbol(v);
	if (s == sy->tuple || s == sy->list || s == sy->expression_list)
		return (uint32_t)b->elem < ts_node_named_child_count(v)
			       ? ts_node_named_child(v, (uint32_t)b->elem) : none;
	const TlCall *c = s == sy->call ? tl_index_call_at(idx, v) : NULL;
	if (c && c->receiver.id && c->method && strcmp(c->method, "prepare") == 0)
		return tl_flow__arg(v, (uint32_t)b->elem);
	return none;
}

/* The argument call site `c` passes for parameter `k` of `f`, or a null
 * node (passed through *args / **kwargs, or left to its default). */
static TSNode tl_flow__param_arg(const TlIndex *idx, const TlFunc *f, int32_t k, const TlCall *c)
{
	TSNode none = { 0 };
	const char *pname = idx->bindings.items[f->params.items[k]].name;
	TSNode arg = tl_flow__kwarg(idx, c->node, pname);
	if (!ts_node_is_null(arg))
		return arg;
	if (f->cls >= 0 && c->receiver.id)
		k--; /* a bound method: `self` is not passed */
	return k >= 0 ? tl_flow__arg(c->node, (uint32_t)k) : none;
}

/* The argument that call `site` passes for parameter binding `param` of
 * the function it calls (a bound method's `self` is its receiver). Null
 * when the call passes none. */
static TSNode tl_flow__param_arg_of(const TlIndex *idx, const TlBinding *param, const TlCall *site)
{
	TSNode none = { 0 };
	if (param->func < 0)
		return none;
	const TlFunc *f = &idx->funcs.items[param->func];
	int32_t k = -1;
	for (uint32_t p = 0; p < f->params.size; p++)
		if (&idx->bindings.items[f->params.items[p]] == param)
			k = (int32_t)p;
	if (k < 0)
		return none;
	if (k == 0 && f->cls >= 0 && site->receiver.id &&
	    ts_node_is_null(tl_flow__kwarg(idx, site->node, param->name)))
		return site->receiver;
	return tl_flow__param_arg(idx, f, k, site);
}

/* Calls every return value of local function `f` (not of nested defs). */
/* Calls visit(idx, return_statement, data) for each return statement of
 * local function `f` (not of the definitions nested in it) until one
 * visit returns true; returns whether one did. */
static bool tl_flow__each_return(const TlIndex *idx, int32_t f,
				 bool (*visit)(const TlIndex *, TSNode, void *), void *data)
{
	const TlSyms *sy = tl_syms();
	TSNode fn = idx->funcs.items[f].node;
	TSTreeCursor cur = ts_tree_cursor_new(fn);
	bool found = false, descend = true;
	do {
		TSNode n = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(n);
		bool nested = !ts_node_eq(n, fn) && (s == sy->function_definition ||
						      s == sy->class_definition || s == sy->lambda);
		descend = !nested;
		if (s == sy->return_statement && visit(idx, n, data)) {
			found = true;
			break;
		}
	} while (tl_walk_next(&cur, fn, descend));
	ts_tree_cursor_delete(&cur);
	return found;
}

typedef struct TlReturnPred {
	bool (*pred)(const TlIndex *, TSNode, int);
	int depth;
} TlReturnPred;

static bool tl_flow__return_value_is(const TlIndex *idx, TSNode ret, void *data)
{
	const TlReturnPred *rp = data;
	return ts_node_named_child_count(ret) && rp->pred(idx, ts_node_named_child(ret, 0), rp->depth);
}

/* True when some return value of local function `f` satisfies `pred`. */
static bool tl_flow__any_return(const TlIndex *idx, int32_t f,
				bool (*pred)(const TlIndex *, TSNode, int), int depth)
{
	if (f < 0 || depth > TL_FLOW_DEPTH)
		return false;
	TlReturnPred rp = { pred, depth + 1 };
	return tl_flow__each_return(idx, f, tl_flow__return_value_is, &rp);
}

/* ---- names of things ------------------------------------------------------ */

bool tl_flow_is_module_class_name(const char *q)
{
	static const char *const exact[] = {
		"torch.nn.Module", "torch.nn.modules.module.Module",
		"pytorch_lightning.LightningModule", "lightning.LightningModule",
		"lightning.pytorch.LightningModule", "transformers.PreTrainedModel",
		"transformers.modeling_utils.PreTrainedModel", "torch.jit.ScriptModule",
	};
	static const char *const not_modules[] = {
		"torch.nn.Parameter", "torch.nn.ParameterList", "torch.nn.ParameterDict",
		"torch.nn.init", "torch.nn.functional", "torch.nn.utils",
	};
	if (IN(q, exact))
		return true;
	if (IN(q, not_modules))
		return false;
	if (tl_flow__starts(q, "torch.nn.")) {
		const char *last = tl_flow__last(q);
		return isupper((unsigned char)last[0]);
	}
	return false;
}

static bool tl_flow__is_loss_class(const char *q)
{
	if (!q)
		return false;
	if (tl_flow__starts(q, "torch.nn.") && tl_flow__ends(q, "Loss"))
		return true;
	return tl_flow__starts(q, "timm.loss.");
}

static bool tl_flow__is_loss_function(const char *q)
{
	static const char *const losses[] = {
		"cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss",
		"huber_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
		"kl_div", "cosine_embedding_loss", "ctc_loss", "margin_ranking_loss",
		"hinge_embedding_loss", "multilabel_margin_loss", "multi_margin_loss",
		"soft_margin_loss", "triplet_margin_loss", "poisson_nll_loss",
		"gaussian_nll_loss", "multilabel_soft_margin_loss",
		"triplet_margin_with_distance_loss",
	};
	if (!q || !tl_flow__starts(q, "torch.nn.functional."))
		return false;
	return IN(tl_flow__last(q), losses);
}

/* Names people give loss callables; a fallback when no binding decides. */
static bool tl_flow__loss_like_name(const char *name)
{
	char low[128];
	tl_flow__lower(tl_flow__last(name), low, sizeof low);
	return strstr(low, "criterion") || strstr(low, "loss_fn") ||
	       strstr(low, "lossfn") || strstr(low, "loss_func") ||
	       strcmp(low, "compute_loss") == 0 || strcmp(low, "calc_loss") == 0;
}

static bool tl_flow__optimizer_like_name(const char *name)
{
	char low[128];
	tl_flow__lower(tl_flow__last(name), low, sizeof low);
	if (strstr(low, "sched") || strstr(low, "scaler"))
		return false;
	return strstr(low, "optim") || strcmp(low, "opt") == 0 ||
	       tl_flow__starts(low, "opt_") || tl_flow__ends(low, "_opt") ||
	       (strncmp(low, "opt", 3) == 0 && (isdigit((unsigned char)low[3]) ||
					       isupper((unsigned char)tl_flow__last(name)[3])));
}

/* ---- contexts --------------------------------------------------------------- */

static uint32_t tl_flow__context_of_name(const char *q, TSNode call, const TlIndex *idx)
{
	static const char *const off[] = {
		"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad",
		"torch.autograd.grad_mode.no_grad", "torch.autograd.inference_mode",
		"torch.autograd.grad_mode.inference_mode",
	};
	static const char *const on[] = {
		"torch.enable_grad", "torch.autograd.enable_grad",
		"torch.autograd.grad_mode.enable_grad",
	};
	static const char *const set[] = {
		"torch.set_grad_enabled", "torch.autograd.set_grad_enabled",
		"torch.autograd.grad_mode.set_grad_enabled",
	};
	static const char *const autocast[] = {
		"torch.autocast", "torch.amp.autocast", "torch.cuda.amp.autocast",
		"torch.cpu.amp.autocast", "torch.amp.autocast_mode.autocast",
		"torch.cuda.amp.autocast_mode.autocast",
	};
	const TlSyms *sy = tl_syms();
	bool is_call = !ts_node_is_null(call);
	if (IN(q, off)) {
		/* inference_mode(False) turns inference mode off, grad stays as is. */
		if (is_call) {
			TSNode a = tl_flow__arg(call, 0);
			if (!ts_node_is_null(a) && ts_node_symbol(a) == sy->false_)
				return 0;
		}
		return TL_CTX_GRAD_OFF;
	}
	if (IN(q, on))
		return TL_CTX_GRAD_ON;
	if (IN(q, set)) {
		TSNode a = is_call ? tl_flow__arg(call, 0) : (TSNode){ 0 };
		if (!ts_node_is_null(a) && ts_node_symbol(a) == sy->true_)
			return TL_CTX_GRAD_ON;
		/* False, or a flag such as `phase == "train"`: possibly off,
		 * and precision comes first, so treated as off. */
		return TL_CTX_GRAD_OFF;
	}
	if (IN(q, autocast) || tl_flow__ends(q, ".autocast")) {
		uint32_t cpu = tl_flow__starts(q, "torch.cpu.") ? TL_CTX_CPU_AUTOCAST : 0;
		if (is_call) {
			TSNode e = tl_flow__kwarg(idx, call, "enabled");
			if (!ts_node_is_null(e) && ts_node_symbol(e) == sy->false_)
				return TL_CTX_AUTOCAST_OFF;
			TSNode d = tl_flow__kwarg(idx, call, "device_type");
			if (ts_node_is_null(d))
				d = tl_flow__arg(call, 0);
			if (!ts_node_is_null(d) && ts_node_symbol(d) == sy->string &&
			    (tl_index_text_is(idx, d, "\"cpu\"") || tl_index_text_is(idx, d, "'cpu'")))
				cpu = TL_CTX_CPU_AUTOCAST;
		}
		return TL_CTX_AUTOCAST | cpu;
	}
	return 0;
}

static uint32_t tl_flow__context_kind(const TlIndex *idx, TSNode expr, int depth)
{
	const TlSyms *sy = tl_syms();
	if (depth > TL_FLOW_DEPTH)
		return 0;
	expr = tl_index_unparen(expr);
	if (ts_node_is_null(expr))
		return 0;
	TSSymbol s = ts_node_symbol(expr);
	if (s == sy->conditional_expression) {
		uint32_t k = 0, count = ts_node_named_child_count(expr);
		/* `no_grad() if evaluating else nullcontext()`: either branch. */
		for (uint32_t i = 0; i < count && i < 3; i += 2)
			k |= tl_flow__context_kind(idx, ts_node_named_child(expr, i), depth + 1);
		return k;
	}
	TSNode call = { 0 }, callee = expr;
	if (s == sy->call) {
		call = expr;
		callee = tl_index_unparen(ts_node_child_by_field_id(expr, sy->f_function));
	}
	char *q = tl_index_qualify(idx, callee);
	/* accelerator.autocast(), self.autocast(): when the name is no import,
	 * the method says it. */
	if (!q && !ts_node_is_null(call) && ts_node_symbol(callee) == sy->attribute &&
	    tl_index_text_is(idx, ts_node_child_by_field_id(callee, sy->f_attribute), "autocast"))
		return tl_flow__context_of_name("torch.autocast", call, idx);
	uint32_t k = q ? tl_flow__context_of_name(q, call, idx) : 0;
	if (q && !k && strcmp(q, "functools.partial") == 0 && !ts_node_is_null(call)) {
		/* partial(torch.autocast, device_type="cuda") */
		TSNode target = tl_flow__arg(call, 0);
		char *tq = ts_node_is_null(target) ? NULL : tl_index_qualify(idx, target);
		if (tq)
			k = tl_flow__context_of_name(tq, call, idx);
		tl_free(tq);
	}
	tl_free(q);
	if (k)
		return k;
	/* An alias: `no_grad = torch.no_grad()`, `ctx = partial(...)`. */
	TSSymbol cs = ts_node_symbol(callee);
	if (cs == sy->identifier || cs == sy->attribute) {
		const TlBinding *b = tl_index_resolve_node(idx, callee);
		TSNode v = tl_flow__bound_value(b);
		if (!ts_node_is_null(v) && b->elem < 0)
			return tl_flow__context_kind(idx, v, depth + 1);
	}
	return 0;
}

uint32_t tl_flow_context_kind(const TlIndex *idx, TSNode expr)
{
	return tl_flow__context_kind(idx, expr, 0);
}

int tl_flow_local_grad(const TlIndex *idx, TSNode node, int32_t func, int32_t with)
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
	const TlIntArray *calls = tl_index_scope_calls(idx, func);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (ts_node_start_byte(c->node) >= pos)
			break;
		if (!c->stmt_level || !c->qname ||
		    !tl_flow__ends(c->qname, "set_grad_enabled"))
			continue;
		if (ts_node_start_byte(c->node) >= best) {
			best = ts_node_start_byte(c->node);
			uint32_t k = tl_flow__context_of_name(c->qname, c->node, idx);
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

int tl_flow_grad_state(const TlIndex *idx, TSNode node)
{
	int32_t func = tl_index_func_of(idx, node);
	int st = tl_flow_local_grad(idx, node, func, tl_index_with_of(idx, node));
	if (st == TL_GRAD_UNKNOWN && func >= 0 && idx->funcs.items[func].callers_grad_off)
		return TL_GRAD_OFF;
	return st;
}

/* An autocast context counts unless `not_cpu` asks for a device other than
 * the CPU and the context names the CPU. */
static bool tl_flow__autocast_ctx(uint32_t k, bool not_cpu)
{
	return (k & TL_CTX_AUTOCAST) && !(not_cpu && (k & TL_CTX_CPU_AUTOCAST));
}

static bool tl_flow__under_autocast(const TlIndex *idx, int32_t func, int32_t with,
				    bool not_cpu, int depth)
{
	/* The innermost autocast block decides: `autocast(enabled=False)`
	 * inside an autocast region runs in full precision. */
	for (int32_t w = with; w >= 0; w = idx->withs.items[w].parent) {
		uint32_t k = idx->withs.items[w].ctx;
		if (tl_flow__autocast_ctx(k, not_cpu))
			return true;
		if (k & (TL_CTX_AUTOCAST | TL_CTX_AUTOCAST_OFF))
			return false;
	}
	if (func < 0 || depth > TL_FLOW_DEPTH)
		return false;
	const TlFunc *f = &idx->funcs.items[func];
	if (tl_flow__autocast_ctx(f->decorator_ctx, not_cpu))
		return true;
	if (f->decorator_ctx & (TL_CTX_AUTOCAST | TL_CTX_AUTOCAST_OFF))
		return false;
	if (f->escapes || !f->call_sites.size)
		return false;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (c->func == func || !tl_flow__fan_step())
			return false; /* recursion (no outside context), or out of budget */
		if (!tl_flow__under_autocast(idx, c->func, c->with, not_cpu, depth + 1))
			return false;
	}
	return true;
}

bool tl_flow_under(const TlIndex *idx, TSNode node, uint32_t ctx)
{
	if (ctx & TL_CTX_GRAD_OFF)
		return tl_flow_grad_state(idx, node) == TL_GRAD_OFF;
	if (ctx & TL_CTX_AUTOCAST) {
		tl_flow__fan_begin();
		bool under = tl_flow__under_autocast(idx, tl_index_func_of(idx, node),
						     tl_index_with_of(idx, node), (ctx & TL_CTX_NOT_CPU) != 0, 0);
		tl_flow__fan_end();
		return under;
	}
	return false;
}

/* ---- kinds of values ---------------------------------------------------------- */

static bool tl_flow__binding_call_qname_is(const TlIndex *idx, TSNode expr,
					   bool (*pred)(const char *), int *decided)
{
	const TlSyms *sy = tl_syms();
	const TlBinding *b = tl_index_resolve_node(idx, expr);
	*decided = 0;
	TSNode v = tl_flow__bound_value(b);
	if (ts_node_is_null(v) || b->elem >= 0 || ts_node_symbol(v) != sy->call)
		return false;
	char *q = tl_index_qualify(idx, ts_node_child_by_field_id(v, sy->f_function));
	bool yes = q && pred(q);
	*decided = q ? 1 : 0;
	tl_free(q);
	return yes;
}

static bool tl_flow__optimizer_qname(const char *q)
{
	if (tl_flow__starts(q, "torch.optim.lr_scheduler") || strstr(q, "sched"))
		return false;
	return tl_flow__starts(q, "torch.optim.") || strstr(q, "optim") != NULL;
}

bool tl_flow_is_optimizer(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	expr = tl_index_unparen(expr);
	if (ts_node_symbol(expr) == sy->subscript) /* optimizers[0] */
		expr = ts_node_child_by_field_id(expr, sy->f_value);
	int decided;
	if (tl_flow__binding_call_qname_is(idx, expr, tl_flow__optimizer_qname, &decided))
		return true;
	if (decided)
		return false;
	char *name = tl_flow__dotted(idx, expr);
	bool yes = name && tl_flow__optimizer_like_name(name);
	tl_free(name);
	return yes;
}

static bool tl_flow__scaler_qname(const char *q)
{
	return tl_flow__ends(q, "GradScaler");
}

bool tl_flow_is_scaler(const TlIndex *idx, TSNode expr)
{
	int decided;
	if (tl_flow__binding_call_qname_is(idx, expr, tl_flow__scaler_qname, &decided))
		return true;
	if (decided)
		return false;
	char *name = tl_flow__dotted(idx, expr);
	char low[128] = "";
	if (name)
		tl_flow__lower(tl_flow__last(name), low, sizeof low);
	tl_free(name);
	return strstr(low, "scaler") != NULL;
}

static bool tl_flow__module_value(const TlIndex *idx, TSNode v, int depth);

static bool tl_flow__module_expr(const TlIndex *idx, TSNode expr, int depth)
{
	const TlSyms *sy = tl_syms();
	if (depth > TL_FLOW_DEPTH)
		return false;
	expr = tl_index_unparen(expr);
	if (ts_node_is_null(expr))
		return false;
	TSSymbol s = ts_node_symbol(expr);
	if (s != sy->identifier && s != sy->attribute)
		return false;
	char *name = tl_flow__dotted(idx, expr);
	int32_t dummy;
	bool yes = name && tl_strmap_get(&idx->module_evidence, name, strlen(name), &dummy);
	tl_free(name);
	if (yes)
		return true;
	const TlBinding *b = tl_index_resolve_node(idx, expr);
	if (!b)
		return false;
	if (b->kind == TL_BIND_PARAM && !ts_node_is_null(b->value)) {
		char *q = tl_index_qualify(idx, b->value);
		bool m = q && tl_flow_is_module_class_name(q);
		tl_free(q);
		if (m)
			return true;
		const TlBinding *cb = tl_index_resolve_node(idx, b->value);
		return cb && cb->kind == TL_BIND_CLASS && idx->classes.items[cb->ref].is_module;
	}
	/* netG, netD = G(), D(): an element of a tuple value is a value of its
	 * own; an element of a call's result is not judged. */
	TSNode v = tl_flow__bound_value(b);
	if (ts_node_is_null(v) || (b->elem >= 0 && ts_node_eq(v, tl_index_unparen(b->value))))
		return false;
	return tl_flow__module_value(idx, v, depth + 1);
}

static bool tl_flow__module_return(const TlIndex *idx, TSNode v, int depth)
{
	return tl_flow__module_value(idx, v, depth);
}

/* Methods of a module that return the module itself. */
static const char *const tl_flow__same_module[] = {
	"to", "cuda", "cpu", "half", "float", "double", "bfloat16", "train",
	"eval", "requires_grad_", "share_memory", "to_empty",
};
/* Calls that wrap their first argument and run its forward. */
static const char *const tl_flow__wrappers[] = {
	"torch.nn.parallel.DistributedDataParallel", "torch.nn.DataParallel",
	"torch.nn.parallel.DataParallel", "torch.compile",
	"torch.distributed.fsdp.FullyShardedDataParallel",
};

static bool tl_flow__is_wrapper(const char *q)
{
	return IN(q, tl_flow__wrappers) || tl_flow__ends(q, "DistributedDataParallel");
}

/* The module that call `c` (the node `call`) hands back unchanged:
 * `m.to(device)`, `m.train()` -> m; with `wrappers`, also `DDP(m)` and
 * `torch.compile(m)` -> m. A null node otherwise. */
static TSNode tl_flow__module_through(const TlCall *c, TSNode call, bool wrappers)
{
	TSNode none = { 0 };
	if (c->receiver.id && IN(c->method, tl_flow__same_module))
		return c->receiver;
	if (wrappers && c->qname && tl_flow__is_wrapper(c->qname))
		return tl_flow__arg(call, 0);
	return none;
}

/* A call that constructs a model: a hub or zoo loader the file binds. */
static bool tl_flow__is_model_loader(const char *q)
{
	return tl_flow__starts(q, "torchvision.models.") || strcmp(q, "timm.create_model") == 0 ||
	       strcmp(q, "torch.hub.load") == 0 ||
	       (tl_flow__ends(q, ".from_pretrained") &&
		(tl_flow__starts(q, "transformers.") || tl_flow__starts(q, "diffusers.") ||
		 tl_flow__starts(q, "peft.")) &&
		!strstr(q, "Tokenizer") && !strstr(q, "Config") && !strstr(q, "Processor"));
}

static bool tl_flow__module_value(const TlIndex *idx, TSNode v, int depth)
{
	const TlSyms *sy = tl_syms();
	if (depth > TL_FLOW_DEPTH)
		return false;
	v = tl_index_unparen(v);
	if (ts_node_is_null(v))
		return false;
	TSSymbol s = ts_node_symbol(v);
	if (s == sy->identifier || s == sy->attribute)
		return tl_flow__module_expr(idx, v, depth + 1);
	if (s != sy->call)
		return false;
	const TlCall *c = tl_index_call_at(idx, v);
	if (!c)
		return false;
	if (c->qname) {
		if (tl_flow_is_module_class_name(c->qname))
			return true;
		if (tl_flow__is_wrapper(c->qname))
			return tl_flow__module_value(idx, tl_flow__arg(v, 0), depth + 1);
		if (tl_flow__is_model_loader(c->qname))
			return true;
	}
	if (c->receiver.id && IN(c->method, tl_flow__same_module))
		return tl_flow__module_expr(idx, c->receiver, depth + 1) ||
		       tl_flow__module_value(idx, c->receiver, depth + 1);
	const TlBinding *cb = tl_index_resolve_node(idx, c->callee);
	if (cb && cb->kind == TL_BIND_CLASS)
		return idx->classes.items[cb->ref].is_module;
	if (c->target >= 0)
		return tl_flow__any_return(idx, c->target, tl_flow__module_return, depth + 1);
	return false;
}

bool tl_flow_is_module(const TlIndex *idx, TSNode expr)
{
	return tl_flow__module_expr(idx, expr, 0);
}

bool tl_flow_is_loss_call(const TlIndex *idx, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	if (c->qname)
		return tl_flow__is_loss_function(c->qname) || tl_flow__is_loss_class(c->qname) == false
			       ? tl_flow__is_loss_function(c->qname)
			       : false;
	TSNode callee = tl_index_unparen(c->callee);
	if (ts_node_is_null(callee))
		return false;
	TSSymbol s = ts_node_symbol(callee);
	if (s == sy->call) { /* nn.MSELoss()(a, b) */
		const TlCall *inner = tl_index_call_at(idx, callee);
		return inner && inner->qname && tl_flow__is_loss_class(inner->qname);
	}
	if (s != sy->identifier && s != sy->attribute)
		return false;
	const TlBinding *b = tl_index_resolve_node(idx, callee);
	TSNode v = tl_flow__bound_value(b);
	if (!ts_node_is_null(v) && b->elem < 0 && ts_node_symbol(v) == sy->call) {
		const TlCall *made = tl_index_call_at(idx, v);
		/* nn.CrossEntropyLoss().to(device): the criterion moved. */
		for (int depth = 0; made && !made->qname && made->receiver.id && depth < TL_FLOW_DEPTH &&
				    IN(made->method, tl_flow__same_module) &&
				    ts_node_symbol(tl_index_unparen(made->receiver)) == sy->call;
		     depth++)
			made = tl_index_call_at(idx, tl_index_unparen(made->receiver));
		if (made && made->qname)
			return tl_flow__is_loss_class(made->qname) ||
			       tl_flow__is_loss_function(made->qname);
		const TlBinding *cb = made ? tl_index_resolve_node(idx, made->callee) : NULL;
		if (cb && cb->kind == TL_BIND_CLASS)
			return tl_flow__ends(idx->classes.items[cb->ref].name, "Loss");
	}
	if (b && b->kind == TL_BIND_DEF)
		return tl_flow__loss_like_name(idx->funcs.items[b->ref].name);
	char *name = tl_flow__dotted(idx, callee);
	bool yes = name && tl_flow__loss_like_name(name);
	tl_free(name);
	return yes;
}

bool tl_flow_is_forward(const TlIndex *idx, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	TSNode callee = tl_index_unparen(c->callee);
	if (ts_node_is_null(callee))
		return false;
	if (c->method && strcmp(c->method, "forward") == 0 && c->receiver.id)
		return tl_flow__module_expr(idx, c->receiver, 0);
	TSSymbol s = ts_node_symbol(callee);
	if (s != sy->identifier && s != sy->attribute)
		return false;
	if (s == sy->identifier) {
		const TlBinding *b = tl_index_resolve_node(idx, callee);
		if (b && (b->kind == TL_BIND_CLASS || b->kind == TL_BIND_DEF ||
			  b->kind == TL_BIND_IMPORT))
			return false;
	}
	if (!tl_flow__module_expr(idx, callee, 0))
		return false;
	/* A criterion module's call is a loss, not a model forward. */
	return !tl_flow_is_loss_call(idx, c);
}

/* ---- what made a value ---------------------------------------------------------- */

/* Methods that change a value's shape, dtype or device but not what it holds:
 * probabilities stay probabilities through them. */
static const char *const tl_flow__reshaping[] = {
	"view", "reshape", "view_as", "reshape_as", "squeeze", "unsqueeze", "flatten",
	"unflatten", "contiguous", "permute", "transpose", "t", "movedim", "to", "cuda",
	"cpu", "float", "half", "double", "bfloat16", "type", "type_as", "clone",
};

/* True for a GradScaler that a literal `enabled=False` turns into a no-op. */
static bool tl_flow__scaler_disabled(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	const TlBinding *b = tl_index_resolve_node(idx, expr);
	TSNode v = tl_flow__bound_value(b);
	if (ts_node_is_null(v) || b->elem >= 0 || ts_node_symbol(v) != sy->call)
		return false;
	TSNode e = tl_flow__kwarg(idx, v, "enabled");
	return !ts_node_is_null(e) && ts_node_symbol(e) == sy->false_;
}

/* The call whose result `expr` holds: through parentheses, subscripts,
 * reshaping methods and names (to the value their visible binding gives
 * them). When the value is one element of a call's tuple result
 * (`validity, label = netD(x)`), *elem receives its index (else -1).
 * NULL when the value is not a call's result. */
static const TlCall *tl_flow__producer_elem(const TlIndex *idx, TSNode expr, int depth,
					    int32_t *elem)
{
	const TlSyms *sy = tl_syms();
	*elem = -1;
	for (; depth <= TL_FLOW_DEPTH; depth++) {
		expr = tl_index_unparen(expr);
		if (ts_node_is_null(expr))
			return NULL;
		TSSymbol s = ts_node_symbol(expr);
		if (s == sy->subscript) {
			expr = ts_node_child_by_field_id(expr, sy->f_value);
			continue;
		}
		if (s == sy->identifier || s == sy->attribute) {
			const TlBinding *b = tl_index_resolve_node(idx, expr);
			TSNode v = tl_flow__bound_value(b);
			if (ts_node_is_null(v) || b->kind != TL_BIND_ASSIGN)
				return NULL;
			if (b->elem >= 0 && ts_node_symbol(tl_index_unparen(b->value)) == sy->call) {
				/* probs, aux = model(x): one part of a result */
				*elem = b->elem;
				return tl_index_call_at(idx, tl_index_unparen(b->value));
			}
			expr = v;
			continue;
		}
		if (s != sy->call)
			return NULL;
		const TlCall *c = tl_index_call_at(idx, expr);
		if (!c)
			return NULL;
		if (c->receiver.id && IN(c->method, tl_flow__reshaping) &&
		    !tl_flow__module_expr(idx, c->receiver, 0)) {
			expr = c->receiver;
			continue;
		}
		return c;
	}
	return NULL;
}

/* Same, for a value that is a call's whole result. */
static const TlCall *tl_flow__producer(const TlIndex *idx, TSNode expr, int depth)
{
	int32_t elem;
	const TlCall *c = tl_flow__producer_elem(idx, expr, depth, &elem);
	return elem < 0 ? c : NULL;
}

static int tl_flow__activation_name(const char *last)
{
	if (strcmp(last, "softmax") == 0 || strcmp(last, "Softmax") == 0)
		return TL_MADE_SOFTMAX;
	if (strcmp(last, "log_softmax") == 0 || strcmp(last, "LogSoftmax") == 0)
		return TL_MADE_LOG_SOFTMAX;
	if (strcmp(last, "sigmoid") == 0 || strcmp(last, "Sigmoid") == 0 ||
	    strcmp(last, "expit") == 0)
		return TL_MADE_SIGMOID;
	return TL_MADE_NONE;
}

/* The activation a dotted torch name computes: a function (torch.softmax,
 * F.log_softmax, torch.special.expit) or, when `classes`, a module class
 * (nn.Softmax). */
static int tl_flow__activation_qname(const char *q, bool classes)
{
	if (!q || !tl_flow__starts(q, "torch."))
		return TL_MADE_NONE;
	const char *last = tl_flow__last(q);
	bool is_class = isupper((unsigned char)last[0]);
	if (is_class ? !classes || !tl_flow__starts(q, "torch.nn.")
		     : !(last == q + 6 || tl_flow__starts(q, "torch.nn.functional.") ||
			 tl_flow__starts(q, "torch.special.")))
		return TL_MADE_NONE;
	return tl_flow__activation_name(last);
}

/* The activation module a callee is bound to (`act = nn.Sigmoid()`,
 * `self.softmax = nn.Softmax(dim=1)`, `nn.Softmax(dim=1)(x)`). */
static int tl_flow__activation_module(const TlIndex *idx, TSNode callee, int depth)
{
	const TlSyms *sy = tl_syms();
	for (; depth <= TL_FLOW_DEPTH; depth++) {
		callee = tl_index_unparen(callee);
		if (ts_node_is_null(callee))
			return TL_MADE_NONE;
		TSSymbol s = ts_node_symbol(callee);
		if (s == sy->identifier || s == sy->attribute) {
			const TlBinding *b = tl_index_resolve_node(idx, callee);
			TSNode v = tl_flow__bound_value(b);
			if (ts_node_is_null(v) || b->elem >= 0)
				return TL_MADE_NONE;
			callee = v;
			continue;
		}
		if (s != sy->call)
			return TL_MADE_NONE;
		const TlCall *c = tl_index_call_at(idx, callee);
		if (!c)
			return TL_MADE_NONE;
		TSNode through = tl_flow__module_through(c, callee, false);
		if (!ts_node_is_null(through)) {
			callee = through;
			continue;
		}
		return tl_flow__activation_qname(c->qname, true);
	}
	return TL_MADE_NONE;
}

/* What call `c` computes when it is an explicit activation or a loss scaling:
 * TL_MADE_*. */
static int tl_flow__call_made(const TlIndex *idx, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	if (c->method && strcmp(c->method, "scale") == 0 && c->receiver.id &&
	    tl_flow_is_scaler(idx, c->receiver))
		return tl_flow__scaler_disabled(idx, c->receiver) ? TL_MADE_NONE : TL_MADE_SCALED;
	int k = tl_flow__activation_qname(c->qname, false);
	if (k)
		return k;
	k = tl_flow__activation_module(idx, c->callee, 0);
	if (k)
		return k;
	/* logits.softmax(-1): a tensor method, not a module attribute that
	 * happens to be named so (self.softmax may be an nn.LogSoftmax). */
	TSNode callee = tl_index_unparen(c->callee);
	if (c->receiver.id && !c->qname && ts_node_symbol(callee) == sy->attribute &&
	    !tl_flow__module_expr(idx, c->receiver, 0)) {
		const TlBinding *b = tl_index_resolve_node(idx, callee);
		if (!b)
			return tl_flow__activation_name(c->method);
	}
	return TL_MADE_NONE;
}

int tl_flow_made_by(const TlIndex *idx, TSNode expr)
{
	const TlCall *c = tl_flow__producer(idx, expr, 0);
	return c ? tl_flow__call_made(idx, c) : TL_MADE_NONE;
}

static int tl_flow__made_through(const TlIndex *idx, TSNode expr, int depth, uint32_t *budget);
static int tl_flow__made_through_returns(const TlIndex *idx, int32_t f, int32_t elem, int depth,
					 uint32_t *budget);

static int tl_flow__module_output(const TlIndex *idx, TSNode m, int32_t elem, int depth,
				  uint32_t *budget);

/* What the module a parameter holds outputs, when every caller in the file
 * passes modules that agree. */
static int tl_flow__param_output(const TlIndex *idx, const TlBinding *param, int32_t elem,
				 int depth, uint32_t *budget)
{
	if (param->func < 0 || depth > TL_FLOW_DEPTH)
		return TL_MADE_NONE;
	const TlFunc *f = &idx->funcs.items[param->func];
	if (f->escapes || !f->call_sites.size)
		return TL_MADE_NONE;
	int agreed = TL_MADE_NONE;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (!*budget)
			return TL_MADE_NONE;
		(*budget)--;
		TSNode arg = c->func == param->func ? (TSNode){ 0 } : tl_flow__param_arg_of(idx, param, c);
		int k = ts_node_is_null(arg) ? TL_MADE_NONE
					     : tl_flow__module_output(idx, arg, elem, depth + 1, budget);
		if (k == TL_MADE_NONE || (i > 0 && k != agreed))
			return TL_MADE_NONE;
		agreed = k;
	}
	return agreed;
}

/* The activation every output of module `m` ends in: the last layer of an
 * nn.Sequential, or what every return of a local module's forward ends in.
 * With `elem` >= 0, what element `elem` of every tuple it returns ends in. */
static int tl_flow__module_output(const TlIndex *idx, TSNode m, int32_t elem, int depth,
				  uint32_t *budget)
{
	const TlSyms *sy = tl_syms();
	for (; depth <= TL_FLOW_DEPTH; depth++) {
		m = tl_index_unparen(m);
		if (ts_node_is_null(m))
			return TL_MADE_NONE;
		TSSymbol s = ts_node_symbol(m);
		if (s == sy->identifier || s == sy->attribute) {
			const TlBinding *b = tl_index_resolve_node(idx, m);
			if (b && b->kind == TL_BIND_PARAM)
				return tl_flow__param_output(idx, b, elem, depth + 1, budget);
			m = tl_flow__held(idx, b);
			continue;
		}
		if (s != sy->call)
			return TL_MADE_NONE;
		const TlCall *c = tl_index_call_at(idx, m);
		if (!c)
			return TL_MADE_NONE;
		TSNode through = tl_flow__module_through(c, m, true);
		if (!ts_node_is_null(through)) {
			m = through;
			continue;
		}
		if (c->qname && strcmp(c->qname, "torch.nn.Sequential") == 0) {
			if (elem >= 0)
				return TL_MADE_NONE;
			/* The last positional layer. */
			uint32_t n = 0;
			while (!ts_node_is_null(tl_flow__arg(m, n)))
				n++;
			TSNode last = n ? tl_flow__arg(m, n - 1) : (TSNode){ 0 };
			if (ts_node_is_null(last) || ts_node_symbol(last) == sy->list_splat)
				return TL_MADE_NONE;
			const TlCall *lc = ts_node_symbol(tl_index_unparen(last)) == sy->call
						   ? tl_index_call_at(idx, tl_index_unparen(last)) : NULL;
			int k = lc ? tl_flow__activation_qname(lc->qname, true) : TL_MADE_NONE;
			if (k)
				return k;
			m = last;
			continue;
		}
		const TlBinding *cb = tl_index_resolve_node(idx, c->callee);
		if (!cb || cb->kind != TL_BIND_CLASS || !idx->classes.items[cb->ref].is_module)
			return TL_MADE_NONE;
		/* A local module: its forward, found in the class or its bases. */
		int32_t f = -1;
		for (int32_t cls = cb->ref, hop = 0; cls >= 0 && f < 0 && hop < TL_FLOW_DEPTH; hop++) {
			f = tl_index_method(idx, cls, "forward", 7);
			const TlClass *k = &idx->classes.items[cls];
			cls = k->bases.size ? k->bases.items[0] : -1;
		}
		if (f < 0)
			return TL_MADE_NONE;
		return tl_flow__made_through_returns(idx, f, elem, depth + 1, budget);
	}
	return TL_MADE_NONE;
}

typedef struct TlMadeReturns {
	int kind;     /* agreed kind so far, -1 before the first return */
	int32_t elem; /* the element of a returned tuple, or -1 */
	int depth;
	uint32_t *budget;
} TlMadeReturns;

static bool tl_flow__made_return(const TlIndex *idx, TSNode ret, void *data)
{
	const TlSyms *sy = tl_syms();
	TlMadeReturns *mr = data;
	TSNode v = ts_node_named_child_count(ret) ? tl_index_unparen(ts_node_named_child(ret, 0))
						  : (TSNode){ 0 };
	if (!ts_node_is_null(v) && mr->elem >= 0) {
		TSSymbol s = ts_node_symbol(v);
		v = (s == sy->tuple || s == sy->expression_list || s == sy->list) &&
			    (uint32_t)mr->elem < ts_node_named_child_count(v)
			    ? ts_node_named_child(v, (uint32_t)mr->elem) : (TSNode){ 0 };
	}
	int k = ts_node_is_null(v) ? TL_MADE_NONE : tl_flow__made_through(idx, v, mr->depth, mr->budget);
	if (mr->kind >= 0 && mr->kind != k)
		k = TL_MADE_NONE;
	mr->kind = k;
	return k == TL_MADE_NONE; /* stop: the returns disagree */
}

/* The kind every return of local function `f` (or, with `elem` >= 0, that
 * element of every tuple it returns) agrees on, or TL_MADE_NONE. */
static int tl_flow__made_through_returns(const TlIndex *idx, int32_t f, int32_t elem, int depth,
					 uint32_t *budget)
{
	if (f < 0 || depth > TL_FLOW_DEPTH || !*budget)
		return TL_MADE_NONE;
	(*budget)--;
	TlMadeReturns mr = { -1, elem, depth + 1, budget };
	if (tl_flow__each_return(idx, f, tl_flow__made_return, &mr))
		return TL_MADE_NONE;
	return mr.kind < 0 ? TL_MADE_NONE : mr.kind;
}

/* What made `expr`: an explicit activation, or a module forward or local
 * function whose every output (or the element of it that `expr` holds)
 * ends in one. */
static int tl_flow__made_through(const TlIndex *idx, TSNode expr, int depth, uint32_t *budget)
{
	if (depth > TL_FLOW_DEPTH)
		return TL_MADE_NONE;
	int32_t elem;
	const TlCall *c = tl_flow__producer_elem(idx, expr, depth, &elem);
	if (!c)
		return TL_MADE_NONE;
	int k = elem < 0 ? tl_flow__call_made(idx, c) : TL_MADE_NONE;
	if (k)
		return k;
	if (c->events & TL_EV_FORWARD) {
		bool direct = c->method && strcmp(c->method, "forward") == 0 && c->receiver.id;
		return tl_flow__module_output(idx, direct ? c->receiver : c->callee, elem, depth + 1, budget);
	}
	if (c->target >= 0)
		return tl_flow__made_through_returns(idx, c->target, elem, depth + 1, budget);
	return TL_MADE_NONE;
}

int tl_flow_model_output(const TlIndex *idx, TSNode expr)
{
	int32_t elem;
	const TlCall *c = tl_flow__producer_elem(idx, expr, 0, &elem);
	if (!c || (elem < 0 && tl_flow__call_made(idx, c)))
		return TL_MADE_NONE; /* explicit: tl_flow_made_by's answer */
	uint32_t budget = TL_FLOW_BUDGET;
	return tl_flow__made_through(idx, expr, 0, &budget);
}

/* The criterion class or loss function a dotted name names. */
static int tl_flow__loss_kind_name(const char *q)
{
	static const struct {
		const char *name;
		int kind;
	} kinds[] = {
		{ "cross_entropy", TL_LOSS_CROSS_ENTROPY }, { "CrossEntropyLoss", TL_LOSS_CROSS_ENTROPY },
		{ "nll_loss", TL_LOSS_NLL }, { "NLLLoss", TL_LOSS_NLL },
		{ "binary_cross_entropy", TL_LOSS_BCE }, { "BCELoss", TL_LOSS_BCE },
		{ "binary_cross_entropy_with_logits", TL_LOSS_BCE_LOGITS },
		{ "BCEWithLogitsLoss", TL_LOSS_BCE_LOGITS },
	};
	if (!q || !tl_flow__starts(q, "torch.nn."))
		return TL_LOSS_OTHER;
	const char *last = tl_flow__last(q);
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (strcmp(last, kinds[i].name) == 0)
			return kinds[i].kind;
	return TL_LOSS_OTHER;
}

int tl_flow_loss_kind(const TlIndex *idx, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	if (!(c->events & TL_EV_LOSS))
		return TL_LOSS_OTHER;
	if (c->qname)
		return tl_flow__is_loss_function(c->qname) ? tl_flow__loss_kind_name(c->qname)
							    : TL_LOSS_OTHER;
	/* A criterion: nn.BCELoss()(p, y), or a name bound to one (through
	 * .to(device) and friends). */
	TSNode m = c->callee;
	for (int depth = 0; depth <= TL_FLOW_DEPTH; depth++) {
		m = tl_index_unparen(m);
		if (ts_node_is_null(m))
			break;
		TSSymbol s = ts_node_symbol(m);
		if (s == sy->identifier || s == sy->attribute) {
			const TlBinding *b = tl_index_resolve_node(idx, m);
			TSNode v = tl_flow__bound_value(b);
			if (ts_node_is_null(v) || b->elem >= 0)
				break;
			m = v;
			continue;
		}
		if (s != sy->call)
			break;
		const TlCall *k = tl_index_call_at(idx, m);
		if (!k)
			break;
		if (k->receiver.id && IN(k->method, tl_flow__same_module)) {
			m = k->receiver;
			continue;
		}
		return tl_flow__loss_kind_name(k->qname);
	}
	return TL_LOSS_OTHER;
}

/* ---- what a backward consumes ------------------------------------------------ */

/* The tensor a backward call differentiates, for the forms where the call
 * shows it (`x.backward()`, `torch.autograd.backward(x)`); null for
 * wrappers that take the loss as an argument (`accelerator.backward(loss)`),
 * whose scaling the wrapper handles. */
static TSNode tl_flow__backward_tensor(const TlIndex *idx, const TlCall *c)
{
	TSNode none = { 0 };
	if (c->qname && strcmp(c->qname, "torch.autograd.backward") == 0)
		return tl_flow__arg(c->node, 0);
	if (!c->receiver.id || !c->method || strcmp(c->method, "backward") != 0)
		return none;
	if (c->recv_name) {
		char low[128];
		tl_flow__lower(tl_flow__last(c->recv_name), low, sizeof low);
		if (strstr(low, "accelerator") || strstr(low, "fabric") || strstr(low, "engine") ||
		    strcmp(low, "self") == 0 || strcmp(low, "trainer") == 0)
			return none;
	}
	return c->receiver;
}

/* ---- events ------------------------------------------------------------------ */

uint32_t tl_flow_call_events(const TlIndex *idx, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	uint32_t ev = 0;
	const char *m = c->method;
	bool has_recv = c->receiver.id != NULL;
	/* Distributed autograd keeps gradients per context, not in .grad:
	 * dist_autograd.backward(ctx, [loss]) accumulates nothing. */
	bool dist_autograd = c->qname && tl_flow__starts(c->qname, "torch.distributed.autograd.");
	if (m && has_recv) {
		bool on_grad = c->recv_name && (tl_flow__ends(c->recv_name, ".grad") ||
						tl_flow__ends(c->recv_name, ".grad.data"));
		if ((strcmp(m, "backward") == 0 || strcmp(m, "manual_backward") == 0) && !dist_autograd) {
			ev |= TL_EV_BACKWARD;
			TSNode t = tl_flow__backward_tensor(idx, c);
			if (!ts_node_is_null(t)) {
				const TlCall *p = tl_flow__producer(idx, t, 0);
				if (p && tl_flow__call_made(idx, p) == TL_MADE_SCALED)
					ev |= TL_EV_SCALED_BACKWARD;
				else if (!(p && p->method && strcmp(p->method, "scale") == 0 &&
					   p->receiver.id && tl_flow_is_scaler(idx, p->receiver)))
					ev |= TL_EV_UNSCALED_BACKWARD; /* a disabled scaler's is neither */
			}
		} else if (strcmp(m, "zero_grad") == 0) {
			ev |= TL_EV_GRAD_RESET;
		} else if ((strcmp(m, "zero_") == 0 || strcmp(m, "detach_") == 0) && on_grad) {
			ev |= TL_EV_GRAD_RESET;
		} else if (strcmp(m, "detach_") == 0) {
			ev |= TL_EV_DETACH;
		} else if (strcmp(m, "step") == 0) {
			if (tl_flow_is_scaler(idx, c->receiver))
				ev |= TL_EV_OPT_STEP | (tl_flow__scaler_disabled(idx, c->receiver)
								? 0 : TL_EV_SCALER_STEP);
			else if (tl_flow_is_optimizer(idx, c->receiver))
				ev |= TL_EV_OPT_STEP | TL_EV_PLAIN_STEP;
		} else if (strcmp(m, "update") == 0 && tl_flow_is_scaler(idx, c->receiver)) {
			if (!tl_flow__scaler_disabled(idx, c->receiver))
				ev |= TL_EV_SCALER_UPDATE;
		} else if (strcmp(m, "unscale_") == 0 && tl_flow_is_scaler(idx, c->receiver)) {
			ev |= TL_EV_SCALER_UNSCALE;
		} else if (strcmp(m, "eval") == 0 && tl_flow__argc(c->node) == 0) {
			ev |= TL_EV_EVAL;
		} else if (strcmp(m, "train") == 0) {
			TSNode a = tl_flow__arg(c->node, 0);
			if (ts_node_is_null(a))
				a = tl_flow__kwarg(idx, c->node, "mode");
			if (ts_node_is_null(a) || ts_node_symbol(a) == sy->true_)
				ev |= TL_EV_TRAIN;
			else if (ts_node_symbol(a) == sy->false_)
				ev |= TL_EV_EVAL;
			else
				ev |= TL_EV_MODE_SET;
		}
	}
	/* zero_grad(params): a helper from another module (improved-diffusion's
	 * fp16_util) that says what it does. */
	if (m && !has_recv && strcmp(m, "zero_grad") == 0 && c->target < 0)
		ev |= TL_EV_GRAD_RESET;
	if (c->qname && strcmp(c->qname, "torch.autograd.backward") == 0) {
		ev |= TL_EV_BACKWARD;
		const TlCall *p = tl_flow__producer(idx, tl_flow__arg(c->node, 0), 0);
		ev |= (p && tl_flow__call_made(idx, p) == TL_MADE_SCALED) ? TL_EV_SCALED_BACKWARD
									 : TL_EV_UNSCALED_BACKWARD;
	}
	if (c->qname && strcmp(c->qname, "torch.autograd.grad") == 0)
		ev |= TL_EV_GRAD_CALL;
	if (tl_flow_is_loss_call(idx, c))
		ev |= TL_EV_LOSS;
	else if (tl_flow_is_forward(idx, c))
		ev |= TL_EV_FORWARD;
	return ev;
}

/* ---- graph tensors -------------------------------------------------------------- */

static bool tl_flow__graph(const TlIndex *idx, TSNode expr, int depth);

static bool tl_flow__graph_return(const TlIndex *idx, TSNode v, int depth)
{
	return tl_flow__graph(idx, v, depth);
}

/* The node whose value a backward call consumes. */
static TSNode tl_flow__backward_subject(const TlIndex *idx, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	if (!(c->events & TL_EV_BACKWARD))
		return none;
	if (!c->receiver.id)
		return tl_flow__arg(c->node, 0);
	TSNode r = tl_index_unparen(c->receiver);
	if (ts_node_symbol(r) == sy->call) { /* scaler.scale(loss).backward() */
		const TlCall *inner = tl_index_call_at(idx, r);
		if (inner && inner->method && strcmp(inner->method, "scale") == 0)
			return tl_flow__arg(r, 0);
		return r;
	}
	if (c->qname && strcmp(c->qname, "torch.autograd.backward") == 0)
		return tl_flow__arg(c->node, 0);
	if (c->recv_name) {
		char low[128];
		tl_flow__lower(tl_flow__last(c->recv_name), low, sizeof low);
		if (strstr(low, "accelerator") || strstr(low, "fabric") || strstr(low, "engine") ||
		    strcmp(low, "self") == 0 || strcmp(low, "trainer") == 0)
			return tl_flow__arg(c->node, 0);
	}
	return r;
}

/* True when some backward in the binding's function consumes exactly the
 * value of binding `b`. */
static bool tl_flow__backpropagated(const TlIndex *idx, const TlBinding *b)
{
	const TlIntArray *calls = tl_index_scope_calls(idx, b->func);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (!(c->events & TL_EV_BACKWARD))
			continue;
		TSNode subj = tl_index_unparen(tl_flow__backward_subject(idx, c));
		if (ts_node_is_null(subj))
			continue;
		if (tl_index_resolve_node(idx, subj) == b)
			return true;
	}
	return false;
}

static bool tl_flow__graph(const TlIndex *idx, TSNode expr, int depth)
{
	static const char *const breaks_graph[] = {
		"item", "detach", "tolist", "numpy", "argmax", "argmin", "size", "dim",
		"numel", "nelement", "eq", "ne", "lt", "gt", "le", "ge", "isnan",
		"isinf", "isfinite", "any", "all", "long", "int", "bool", "byte",
		"data_ptr", "get_device", "equal", "nonzero", "stride", "element_size",
		"count_nonzero", "__len__",
	};
	static const char *const keeps_graph[] = {
		"mean", "sum", "cpu", "to", "cuda", "float", "half", "double",
		"bfloat16", "view", "reshape", "squeeze", "unsqueeze", "clone",
		"contiguous", "flatten", "mul", "add", "sub", "div", "pow", "sqrt",
		"exp", "log", "abs", "neg", "norm", "t", "transpose", "permute",
		"expand", "repeat", "softmax", "log_softmax", "sigmoid", "tanh",
		"relu", "clamp", "squeeze_", "unsqueeze_", "view_as", "reshape_as",
		"max", "min", "prod", "std", "var", "logsumexp", "cumsum", "square",
		"type_as", "masked_fill", "gather", "index_select",
	};
	static const char *const builtins_break[] = {
		"float", "int", "bool", "len", "str", "round", "repr", "isinstance",
	};
	static const char *const builtins_keep[] = { "sum", "max", "min", "abs" };
	/* torch functions whose result has no autograd history. */
	static const char *const torch_breaks_graph[] = {
		"torch.autograd.grad", "torch.argmax", "torch.argmin", "torch.eq", "torch.ne",
		"torch.lt", "torch.gt", "torch.le", "torch.ge", "torch.isnan", "torch.isinf",
		"torch.isfinite", "torch.equal", "torch.allclose", "torch.isclose", "torch.numel",
		"torch.is_tensor", "torch.nonzero", "torch.count_nonzero", "torch.bucketize",
		"torch.searchsorted", "torch.unique", "torch.zeros_like", "torch.ones_like",
		"torch.empty_like", "torch.randn_like", "torch.rand_like", "torch.full_like",
	};
	const TlSyms *sy = tl_syms();
	if (depth > TL_FLOW_DEPTH)
		return false;
	expr = tl_index_unparen(expr);
	if (ts_node_is_null(expr))
		return false;
	TSSymbol s = ts_node_symbol(expr);
	if (s == sy->comparison_operator || s == sy->boolean_operator ||
	    s == sy->not_operator || s == sy->integer || s == sy->string ||
	    s == sy->true_ || s == sy->false_ || s == sy->none)
		return false;
	if (tl_flow_grad_state(idx, expr) == TL_GRAD_OFF)
		return false;
	if (s == sy->call) {
		const TlCall *c = tl_index_call_at(idx, expr);
		if (!c)
			return false;
		if (c->receiver.id) {
			if (IN(c->method, breaks_graph))
				return false;
			if (IN(c->method, keeps_graph))
				return tl_flow__graph(idx, c->receiver, depth + 1);
		} else if (IN(c->method, builtins_break)) {
			return false;
		} else if (IN(c->method, builtins_keep)) {
			return tl_flow__graph(idx, tl_flow__arg(expr, 0), depth + 1);
		}
		if (c->events & (TL_EV_LOSS | TL_EV_FORWARD))
			return true;
		if (c->qname && IN(c->qname, torch_breaks_graph))
			return false;
		if (c->qname && tl_flow__starts(c->qname, "torch.") &&
		    !tl_flow__starts(c->qname, "torch.nn.") && !tl_flow__starts(c->qname, "torch.optim")) {
			/* torch.stack(losses), torch.cat(...), torch.mean(x): the
			 * result follows the tensors passed in. */
			for (uint32_t k = 0; k < 4; k++) {
				TSNode a = tl_flow__arg(expr, k);
				if (ts_node_is_null(a))
					break;
				if (tl_flow__graph(idx, a, depth + 1))
					return true;
			}
			return false;
		}
		if (c->target >= 0)
			return tl_flow__any_return(idx, c->target, tl_flow__graph_return, depth + 1);
		return false;
	}
	if (s == sy->attribute) {
		TSNode attr = ts_node_child_by_field_id(expr, sy->f_attribute);
		static const char *const plain[] = {
			"data", "grad", "shape", "dtype", "device", "requires_grad",
			"is_cuda", "ndim", "T_max",
		};
		uint32_t len;
		const char *t = tl_index_text(idx, attr, &len);
		char name[64];
		if (len >= sizeof name)
			return false;
		memcpy(name, t, len);
		name[len] = '\0';
		if (IN(name, plain))
			return false;
		/* A bound attribute (self.total) is a name; otherwise the field
		 * of a value (outputs.loss) follows the value. */
		const TlBinding *b = tl_index_resolve_node(idx, expr);
		if (b) {
			TSNode v = tl_flow__bound_value(b);
			if (!ts_node_is_null(v) && tl_flow__graph(idx, v, depth + 1))
				return true;
			return tl_flow__backpropagated(idx, b);
		}
		return tl_flow__graph(idx, ts_node_child_by_field_id(expr, sy->f_object), depth + 1);
	}
	if (s == sy->subscript)
		return tl_flow__graph(idx, ts_node_child_by_field_id(expr, sy->f_value), depth + 1);
	if (s == sy->binary_operator)
		return tl_flow__graph(idx, ts_node_child_by_field_id(expr, sy->f_left), depth + 1) ||
		       tl_flow__graph(idx, ts_node_child_by_field_id(expr, sy->f_right), depth + 1);
	if (s == sy->unary_operator)
		return tl_flow__graph(idx, ts_node_child_by_field_id(expr, sy->f_argument), depth + 1);
	if (s == sy->conditional_expression) {
		return ts_node_named_child_count(expr) >= 3 &&
		       tl_flow__graph(idx, ts_node_named_child(expr, 0), depth + 1) &&
		       tl_flow__graph(idx, ts_node_named_child(expr, 2), depth + 1);
	}
	if (s == sy->identifier) {
		const TlBinding *b = tl_index_resolve_node(idx, expr);
		if (!b)
			return false;
		TSNode v = tl_flow__bound_value(b);
		if (!ts_node_is_null(v)) {
			if (tl_flow_grad_state(idx, v) == TL_GRAD_OFF)
				return false;
			if (tl_flow__graph(idx, v, depth + 1))
				return true;
		}
		return tl_flow__backpropagated(idx, b);
	}
	return false;
}

bool tl_flow_is_graph(const TlIndex *idx, TSNode expr)
{
	return tl_flow__graph(idx, expr, 0);
}

/* ---- mode ------------------------------------------------------------------------ */

static int tl_flow__mode_at(const TlIndex *idx, TSNode node, int32_t func,
			    const char *recv, int depth)
{
	if (!recv || depth > TL_FLOW_DEPTH)
		return TL_MODE_UNKNOWN;
	uint32_t pos = ts_node_start_byte(node);
	const TlCall *best = NULL;
	const TlIntArray *calls = tl_index_scope_calls(idx, func);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (ts_node_start_byte(c->node) >= pos)
			break;
		if (!(c->events & (TL_EV_EVAL | TL_EV_TRAIN)) ||
		    !c->recv_name || strcmp(c->recv_name, recv) != 0)
			continue;
		best = c;
	}
	if (best) {
		/* `f = torch.jit.freeze(f.eval())`: the name now holds another
		 * object, whose mode this call says nothing about. */
		const TlIntArray *same = tl_index_bindings_of(idx, func, recv);
		for (uint32_t i = 0; same && i < same->size; i++) {
			const TlBinding *b = &idx->bindings.items[same->items[i]];
			if (b->pos > ts_node_start_byte(best->node) && b->pos <= pos &&
			    b->kind != TL_BIND_AUG)
				return TL_MODE_UNKNOWN;
		}
		return (best->events & TL_EV_EVAL) ? TL_MODE_EVAL : TL_MODE_TRAIN;
	}
	if (func < 0)
		return TL_MODE_UNKNOWN;
	const TlFunc *f = &idx->funcs.items[func];
	if (f->escapes || !f->call_sites.size)
		return TL_MODE_UNKNOWN;
	/* Map the receiver's root through the parameters to each call site. */
	size_t root_len = strcspn(recv, ".");
	int32_t param = -1;
	for (uint32_t k = 0; k < f->params.size; k++) {
		const char *pn = idx->bindings.items[f->params.items[k]].name;
		if (strlen(pn) == root_len && strncmp(pn, recv, root_len) == 0)
			param = (int32_t)k;
	}
	int agreed = TL_MODE_UNKNOWN;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (c->func == func)
			return TL_MODE_UNKNOWN;
		char *mapped = NULL;
		if (param < 0) {
			mapped = tl_strdup(recv);
		} else {
			const char *pname = idx->bindings.items[f->params.items[param]].name;
			TSNode arg = tl_flow__kwarg(idx, c->node, pname);
			if (ts_node_is_null(arg)) {
				int32_t k = param;
				if (f->cls >= 0 && c->receiver.id)
					k--; /* bound method: `self` is not passed */
				if (k >= 0)
					arg = tl_flow__arg(c->node, (uint32_t)k);
			}
			char *an = ts_node_is_null(arg) ? NULL : tl_flow__dotted(idx, arg);
			if (an) {
				TlBuf b;
				tl_buf_init(&b);
				tl_buf_add(&b, an);
				tl_buf_add(&b, recv + root_len);
				mapped = tl_buf_detach(&b);
				tl_free(an);
			}
		}
		int m = tl_flow__fan_step() ? tl_flow__mode_at(idx, c->node, c->func, mapped, depth + 1)
					    : TL_MODE_UNKNOWN;
		tl_free(mapped);
		if (m == TL_MODE_UNKNOWN || (agreed != TL_MODE_UNKNOWN && m != agreed))
			return TL_MODE_UNKNOWN;
		agreed = m;
	}
	return agreed;
}

int tl_flow_mode_at(const TlIndex *idx, TSNode node, const char *recv)
{
	tl_flow__fan_begin();
	int mode = tl_flow__mode_at(idx, node, tl_index_func_of(idx, node), recv, 0);
	tl_flow__fan_end();
	return mode;
}

/* ---- value flow ---------------------------------------------------------------- */

typedef TlArray(char *) TlNames;

static bool tl_flow__has_name(const TlNames *names, const char *s, size_t len)
{
	for (uint32_t i = 0; i < names->size; i++)
		if (strlen(names->items[i]) == len && memcmp(names->items[i], s, len) == 0)
			return true;
	return false;
}

/* True when the subtree of `n` reads one of `names` (as a name or as the
 * dotted prefix of an attribute chain). Iterative. */
static bool tl_flow__mentions(const TlIndex *idx, TSNode n, const TlNames *names)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_is_null(n) || !names->size)
		return false;
	TSTreeCursor cur = ts_tree_cursor_new(n);
	bool found = false, descend = true;
	TlBuf b;
	tl_buf_init(&b);
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(x);
		descend = true;
		if (s == sy->identifier || s == sy->attribute) {
			tl_buf_clear(&b);
			if (tl_index_dotted(idx, x, &b)) {
				/* "self.losses" matches "self.losses" and "self.losses.x". */
				for (uint32_t i = 0; i < names->size && !found; i++) {
					size_t l = strlen(names->items[i]);
					if (b.len >= l && memcmp(b.data, names->items[i], l) == 0 &&
					    (b.len == l || b.data[l] == '.'))
						found = true;
				}
				descend = false;
			}
		}
	} while (!found && tl_walk_next(&cur, n, descend));
	tl_buf_release(&b);
	ts_tree_cursor_delete(&cur);
	return found;
}

static void tl_flow__names_release(TlNames *names)
{
	tl_str_array_release((TlStrArray *)names);
}

static bool tl_flow__reaches(const TlIndex *idx, TSNode expr, int depth);

/* An expression whose value carries no autograd history whatever its
 * inputs: `x.item()`, `(a == b).sum().item()`, `float(x)`, `len(xs)`. */
static bool tl_flow__kills_graph(const TlIndex *idx, TSNode v)
{
	static const char *const killers[] = {
		"item", "detach", "tolist", "numpy", "argmax", "argmin", "size",
		"numel", "float_", "isnan", "isinf", "long", "int", "bool",
	};
	static const char *const builtins[] = { "float", "int", "bool", "len", "str", "round" };
	const TlSyms *sy = tl_syms();
	v = tl_index_unparen(v);
	if (ts_node_is_null(v))
		return true;
	TSSymbol s = ts_node_symbol(v);
	if (s == sy->comparison_operator || s == sy->boolean_operator || s == sy->not_operator ||
	    s == sy->integer || s == sy->string || s == sy->true_ || s == sy->false_ ||
	    s == sy->none)
		return true;
	if (s == sy->attribute)
		return tl_index_text_is(idx, ts_node_child_by_field_id(v, sy->f_attribute), "data");
	if (s != sy->call)
		return false;
	const TlCall *c = tl_index_call_at(idx, v);
	if (!c)
		return false;
	return c->receiver.id ? IN(c->method, killers) : IN(c->method, builtins);
}

/* A function whose callers the file does not show, returning a value: when
 * it computes losses, outside a loop that runs its own backward and not in
 * eval mode, it is a loss function, and its caller will backpropagate. */
static bool tl_flow__returns_loss_to_unknown(const TlIndex *idx, const TlFunc *f,
					     bool in_step_loop)
{
	if (in_step_loop || (f->events & TL_EV_EVAL))
		return false;
	/* A module's own methods (its forward and the helpers it calls)
	 * build the graph their caller backpropagates. */
	if (f->cls >= 0 && idx->classes.items[f->cls].is_module)
		return true;
	return (f->reach_events & TL_EV_LOSS) != 0;
}

/* True when the value of `expr` dies before it reaches `top` (an ancestor):
 * on the way up it is compared, converted to a number, `.item()`-ed, ... */
static bool tl_flow__killed_between(const TlIndex *idx, TSNode expr, TSNode top)
{
	const TlSyms *sy = tl_syms();
	TSNode child = expr;
	for (TSNode p = ts_node_parent(expr); !ts_node_is_null(p); p = ts_node_parent(p)) {
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->comparison_operator || s == sy->boolean_operator || s == sy->not_operator)
			return true;
		if (s == sy->call && tl_flow__kills_graph(idx, p)) {
			/* x.item() kills x; f(x.item()) does not kill f's other inputs,
			 * but x inside float(x) or x.argmax() dies. */
			const TlCall *c = tl_index_call_at(idx, p);
			if (c && (!c->receiver.id || tl_flow__contains(c->receiver, child)))
				return true;
		}
		if (ts_node_eq(p, top))
			break;
		child = p;
	}
	return false;
}

static bool tl_flow__return_mentions(const TlIndex *idx, TSNode ret, void *taint)
{
	return tl_flow__mentions(idx, ret, taint);
}

static bool tl_flow__tainted_reach(const TlIndex *idx, TlNames *taint, int32_t func,
				   uint32_t from, bool in_step_loop, int depth)
{
	/* Names computed from tainted names are tainted: a fixpoint over the
	 * function's bindings, bounded by the number of names it can add. */
	const TlIntArray *binds = tl_index_scope_binds(idx, func);
	for (uint32_t round = 0; round < 64; round++) {
		bool changed = false;
		for (uint32_t i = 0; binds && i < binds->size; i++) {
			const TlBinding *b = &idx->bindings.items[binds->items[i]];
			if (b->pos < from ||
			    (b->kind != TL_BIND_ASSIGN && b->kind != TL_BIND_AUG))
				continue;
			if (tl_flow__has_name(taint, b->name, strlen(b->name)))
				continue;
			if (!tl_flow__kills_graph(idx, b->value) &&
			    tl_flow__mentions(idx, b->value, taint)) {
				tl_array_push(taint, tl_strdup(b->name));
				changed = true;
			}
		}
		if (!changed)
			break;
	}
	const TlIntArray *calls = tl_index_scope_calls(idx, func);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		bool backward = (c->events & TL_EV_BACKWARD) ||
				(c->target >= 0 && (idx->funcs.items[c->target].reach_events & TL_EV_BACKWARD));
		if (backward && tl_flow__mentions(idx, c->node, taint))
			return true;
	}
	/* Returned to callers: reaches a backward if some caller's use does. */
	if (func < 0 || depth > TL_FLOW_DEPTH)
		return false;
	const TlFunc *f = &idx->funcs.items[func];
	if (!tl_flow__each_return(idx, func, tl_flow__return_mentions, taint))
		return false;
	/* Returned to callers this file cannot see (the function is passed
	 * around, or called from elsewhere): a value built where no backward
	 * runs (a loss assembled for the caller) may well be backpropagated
	 * there. One built in a loop that runs its own backward is not. */
	if (f->escapes || !f->call_sites.size)
		return tl_flow__returns_loss_to_unknown(idx, f, in_step_loop);
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (c->func != func && (!tl_flow__fan_step() || tl_flow__reaches(idx, c->node, depth + 1)))
			return true;
	}
	return false;
}

static bool tl_flow__reaches(const TlIndex *idx, TSNode expr, int depth)
{
	const TlSyms *sy = tl_syms();
	if (depth > TL_FLOW_DEPTH)
		return false;
	int32_t func = tl_index_func_of(idx, expr);
	/* Inside the consumed expression of a backward itself. */
	const TlIntArray *calls = tl_index_scope_calls(idx, func);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (ts_node_start_byte(c->node) > ts_node_start_byte(expr))
			break;
		if ((c->events & TL_EV_BACKWARD) && tl_flow__contains(c->node, expr))
			return true;
	}
	TlNames taint;
	tl_array_init(&taint);
	uint32_t from = ts_node_start_byte(expr);
	TSNode e = tl_index_unparen(expr);
	TSSymbol s = ts_node_symbol(e);
	char *name = (s == sy->identifier || s == sy->attribute) ? tl_flow__dotted(idx, e) : NULL;
	if (name) {
		tl_array_push(&taint, name);
		from = 0;
	} else {
		/* The names bound by the assignment whose value holds `expr`,
		 * unless the value dies on the way (`hits += (f(x) == y).sum().item()`). */
		const TlIntArray *binds = tl_index_scope_binds(idx, func);
		for (uint32_t i = 0; binds && i < binds->size; i++) {
			const TlBinding *b = &idx->bindings.items[binds->items[i]];
			if ((b->kind == TL_BIND_ASSIGN || b->kind == TL_BIND_AUG) &&
			    !ts_node_is_null(b->value) && tl_flow__contains(b->value, expr) &&
			    !tl_flow__killed_between(idx, expr, b->stmt) &&
			    !tl_flow__has_name(&taint, b->name, strlen(b->name)))
				tl_array_push(&taint, tl_strdup(b->name));
		}
	}
	bool yes = false;
	int32_t loop = tl_index_loop_of(idx, expr);
	bool in_step_loop = loop >= 0 && (idx->loops.items[loop].events & TL_EV_BACKWARD);
	if (taint.size) {
		yes = tl_flow__tainted_reach(idx, &taint, func, from, in_step_loop, depth);
	} else if (func >= 0) {
		/* `return model(x)`: the callers decide. */
		TSNode p = ts_node_parent(expr);
		while (!ts_node_is_null(p) && ts_node_symbol(p) != sy->return_statement &&
		       ts_node_symbol(p) != sy->expression_statement &&
		       ts_node_symbol(p) != sy->block)
			p = ts_node_parent(p);
		if (!ts_node_is_null(p) && ts_node_symbol(p) == sy->return_statement &&
		    !tl_flow__killed_between(idx, expr, p)) {
			const TlFunc *f = &idx->funcs.items[func];
			yes = (f->escapes || !f->call_sites.size) &&
			      tl_flow__returns_loss_to_unknown(idx, f, in_step_loop);
			for (uint32_t i = 0; i < f->call_sites.size && !yes; i++) {
				const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
				if (c->func != func)
					yes = !tl_flow__fan_step() || tl_flow__reaches(idx, c->node, depth + 1);
			}
		}
	}
	tl_flow__names_release(&taint);
	return yes;
}

bool tl_flow_reaches_backward(const TlIndex *idx, TSNode expr)
{
	tl_flow__fan_begin();
	bool yes = tl_flow__reaches(idx, expr, 0);
	tl_flow__fan_end();
	return yes;
}

/* x.float(), x.double(), x.to(torch.float32): a cast to full precision. */
static bool tl_flow__upcast(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, call);
	if (!c || !c->method || !c->receiver.id)
		return false;
	if (strcmp(c->method, "float") == 0 || strcmp(c->method, "double") == 0)
		return true;
	if (strcmp(c->method, "to") != 0 && strcmp(c->method, "type") != 0)
		return false;
	for (uint32_t k = 0; k < 3; k++) {
		TSNode a = tl_flow__arg(call, k);
		if (ts_node_is_null(a))
			break;
		char *q = tl_index_qualify(idx, a);
		bool full = q && (strcmp(q, "torch.float32") == 0 || strcmp(q, "torch.float") == 0 ||
				  strcmp(q, "torch.float64") == 0 || strcmp(q, "torch.double") == 0);
		tl_free(q);
		if (full)
			return true;
	}
	TSNode d = tl_flow__kwarg(idx, call, "dtype");
	char *q = ts_node_is_null(d) ? NULL : tl_index_qualify(idx, d);
	bool full = q && (strcmp(q, "torch.float32") == 0 || strcmp(q, "torch.float") == 0);
	tl_free(q);
	return full;
}

/* The binding of the longest bound prefix of an attribute chain:
 * `logits.reshape` -> the binding of `logits`. */
static const TlBinding *tl_flow__resolve_prefix(const TlIndex *idx, TSNode n)
{
	const TlSyms *sy = tl_syms();
	n = tl_index_unparen(n);
	while (!ts_node_is_null(n)) {
		const TlBinding *b = tl_index_resolve_node(idx, n);
		if (b || ts_node_symbol(n) != sy->attribute)
			return b;
		n = tl_index_unparen(ts_node_child_by_field_id(n, sy->f_object));
	}
	return NULL;
}

/* ---- contexts of values --------------------------------------------------------- */

static bool tl_flow__value_has_forward(const TlIndex *idx, TSNode v)
{
	for (uint32_t i = tl_index_first_call_from(idx, ts_node_start_byte(v)); i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (ts_node_start_byte(c->node) >= ts_node_end_byte(v))
			break;
		if ((c->events & TL_EV_FORWARD) && tl_flow__contains(v, c->node))
			return true;
	}
	return false;
}

bool tl_flow_from_context(const TlIndex *idx, TSNode expr, uint32_t ctx)
{
	const TlSyms *sy = tl_syms();
	/* Breadth-first over the names the expression reads and the bindings
	 * they come from, a bounded number of steps. */
	TlArray(TSNode) todo;
	tl_array_init(&todo);
	tl_array_push(&todo, expr);
	bool found = false;
	TlBuf b;
	tl_buf_init(&b);
	for (uint32_t step = 0; step < todo.size && step < 64 && !found; step++) {
		TSNode n = todo.items[step];
		TSTreeCursor cur = ts_tree_cursor_new(n);
		bool descend = true;
		do {
			TSNode x = ts_tree_cursor_current_node(&cur);
			TSSymbol s = ts_node_symbol(x);
			descend = true;
			if (s == sy->call && (ctx & TL_CTX_AUTOCAST) && tl_flow__upcast(idx, x)) {
				/* logits.float(): reduced precision ends here. */
				descend = false;
			} else if (s == sy->identifier || s == sy->attribute) {
				tl_buf_clear(&b);
				if (tl_index_dotted(idx, x, &b)) {
					descend = false;
					const TlBinding *bd = tl_flow__resolve_prefix(idx, x);
					TSNode v = tl_flow__bound_value(bd);
					if (!ts_node_is_null(v)) {
						int32_t w = tl_index_with_of(idx, bd->stmt);
						bool inside = false;
						for (; w >= 0; w = idx->withs.items[w].parent)
							if ((idx->withs.items[w].ctx & ctx) &&
							    !tl_flow__contains(idx->withs.items[w].body, expr))
								inside = true;
						if (inside && tl_flow__value_has_forward(idx, v)) {
							found = true;
							break;
						}
						if (!inside && todo.size < 64)
							tl_array_push(&todo, v);
					}
				}
			}
		} while (tl_walk_next(&cur, n, descend));
		ts_tree_cursor_delete(&cur);
	}
	tl_buf_release(&b);
	tl_array_release(&todo);
	return found;
}

/* The speed, precision and safety facts below follow bindings and call
 * sites. Depth alone (TL_FLOW_DEPTH) does not bound a walk that fans out
 * over several call sites at each step, so each question also gets a
 * budget of steps (TL_FLOW_BUDGET, above): real code needs a few dozen;
 * when it runs out, the answer is the cautious one. */

/* ---- APIs, keywords, devices ------------------------------------------------------ */

/* The qualified names of each TlApi kind. */
static const char *const tl_flow__api_factory[] = {
	"torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.rand", "torch.randn",
	"torch.randint", "torch.arange", "torch.linspace", "torch.eye",
};
static const char *const tl_flow__api_from_data[] = {
	"torch.tensor", "torch.as_tensor", "torch.from_numpy",
};
static const char *const tl_flow__api_deprecated_amp[] = {
	"torch.cuda.amp.autocast", "torch.cuda.amp.GradScaler", "torch.cuda.amp.custom_fwd",
	"torch.cuda.amp.custom_bwd", "torch.cpu.amp.autocast", "torch.cpu.amp.GradScaler",
	"torch.cuda.amp.autocast_mode.autocast", "torch.cuda.amp.autocast_mode.custom_fwd",
	"torch.cuda.amp.autocast_mode.custom_bwd", "torch.cuda.amp.grad_scaler.GradScaler",
	"torch.cpu.amp.autocast_mode.autocast", "torch.cpu.amp.grad_scaler.GradScaler",
};
static const char *const tl_flow__api_torch_load[] = { "torch.load", "torch.serialization.load" };
static const char *const tl_flow__api_checkpoint[] = {
	"torch.utils.checkpoint.checkpoint", "torch.utils.checkpoint.checkpoint_sequential",
};
static const char *const tl_flow__api_empty_cache[] = {
	"torch.cuda.empty_cache", "torch.cuda.memory.empty_cache", "torch.mps.empty_cache",
	"torch.xpu.empty_cache",
};
static const char *const tl_flow__api_loader[] = {
	"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader",
};

static bool tl_flow__qname_is_api(const char *q, TlApi api)
{
	switch (api) {
	case TL_API_TENSOR_FACTORY:
		return IN(q, tl_flow__api_factory);
	case TL_API_TENSOR_FROM_DATA:
		return IN(q, tl_flow__api_from_data);
	case TL_API_DEPRECATED_AMP:
		return IN(q, tl_flow__api_deprecated_amp);
	case TL_API_TORCH_LOAD:
		return IN(q, tl_flow__api_torch_load);
	case TL_API_ACTIVATION_CHECKPOINT:
		return IN(q, tl_flow__api_checkpoint);
	case TL_API_EMPTY_CACHE:
		return IN(q, tl_flow__api_empty_cache);
	case TL_API_DATA_LOADER:
		return IN(q, tl_flow__api_loader);
	case TL_API_COUNT:
		break;
	}
	return false;
}

bool tl_flow_is_api(const TlIndex *idx, TSNode node, TlApi api)
{
	const TlSyms *sy = tl_syms();
	node = tl_index_unparen(node);
	if (ts_node_is_null(node))
		return false;
	TSSymbol s = ts_node_symbol(node);
	if (s == sy->call) {
		const TlCall *c = tl_index_call_at(idx, node);
		return c && c->qname && tl_flow__qname_is_api(c->qname, api);
	}
	if (s != sy->identifier && s != sy->attribute)
		return false;
	char *q = tl_index_qualify(idx, node);
	bool yes = q && tl_flow__qname_is_api(q, api);
	tl_free(q);
	return yes;
}

bool tl_flow_passes_keyword(const TlIndex *idx, TSNode call, const char *name)
{
	const TlSyms *sy = tl_syms();
	call = tl_index_unparen(call);
	if (ts_node_is_null(call) || ts_node_symbol(call) != sy->call)
		return false;
	TSNode args = ts_node_child_by_field_id(call, sy->f_arguments);
	if (ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list)
		return false;
	uint32_t count = ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		TSSymbol s = ts_node_symbol(a);
		/* f(**options) may pass it: the file cannot say it does not. */
		if (s == sy->dictionary_splat)
			return true;
		if (s == sy->keyword_argument &&
		    tl_index_text_is(idx, ts_node_child_by_field_id(a, sy->f_name), name))
			return true;
	}
	return false;
}

/* The text of a string literal without prefix and quotes, or NULL; *len
 * receives its length. */
static const char *tl_flow__string_body(const TlIndex *idx, TSNode n, uint32_t *len)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_is_null(n) || ts_node_symbol(n) != sy->string)
		return NULL;
	uint32_t tlen;
	const char *t = tl_index_text(idx, n, &tlen);
	uint32_t k = 0;
	while (k < tlen && t[k] != '"' && t[k] != '\'')
		k++;
	uint32_t q = 0;
	while (k + q < tlen && (t[k + q] == '"' || t[k + q] == '\'') && q < 3)
		q++;
	if (tlen < k + 2 * q)
		return NULL;
	*len = tlen - k - 2 * q;
	return t + k + q;
}

static bool tl_flow__device_name(const char *dotted)
{
	static const char *const names[] = {
		"dev", "gpu", "gpu_id", "gpu_ids", "rank", "local_rank", "cuda", "device_id",
	};
	char low[128];
	tl_flow__lower(tl_flow__last(dotted), low, sizeof low);
	return strstr(low, "device") != NULL || IN(low, names);
}

static bool tl_flow__device(const TlIndex *idx, TSNode e, int depth)
{
	static const char *const accelerators[] = { "cuda", "mps", "xpu", "npu", "hpu", "xla" };
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	if (ts_node_is_null(e) || depth > TL_FLOW_DEPTH)
		return false;
	TSSymbol s = ts_node_symbol(e);
	if (s == sy->integer)
		return true; /* .cuda(0), .to(1) */
	if (s == sy->string) {
		uint32_t len;
		const char *body = tl_flow__string_body(idx, e, &len);
		for (size_t i = 0; body && i < sizeof accelerators / sizeof *accelerators; i++) {
			size_t al = strlen(accelerators[i]);
			if (len >= al && memcmp(body, accelerators[i], al) == 0 &&
			    (len == al || body[al] == ':'))
				return true;
		}
		return false;
	}
	if (s == sy->conditional_expression) {
		/* "cuda" if use_cuda else "cpu": the device when there is one. */
		uint32_t count = ts_node_named_child_count(e);
		return (count > 0 && tl_flow__device(idx, ts_node_named_child(e, 0), depth + 1)) ||
		       (count > 2 && tl_flow__device(idx, ts_node_named_child(e, 2), depth + 1));
	}
	if (s == sy->call) {
		const TlCall *c = tl_index_call_at(idx, e);
		if (!c)
			return false;
		if (c->qname && strcmp(c->qname, "torch.device") == 0) {
			TSNode a = tl_flow__arg(e, 0);
			if (ts_node_is_null(a))
				a = tl_flow__kwarg(idx, e, "type");
			if (ts_node_is_null(a))
				return false;
			TSSymbol as = ts_node_symbol(tl_index_unparen(a));
			/* torch.device(kind) with a computed kind may well be a GPU. */
			return (as != sy->string && as != sy->conditional_expression) ||
			       tl_flow__device(idx, a, depth + 1);
		}
		/* local_rank = int(os.environ["LOCAL_RANK"]): a device index */
		if (!c->receiver.id && c->method && strcmp(c->method, "int") == 0 && !c->qname)
			return true;
		return c->qname && (strcmp(c->qname, "torch.cuda.current_device") == 0 ||
				    strcmp(c->qname, "torch.cuda.device") == 0 ||
				    strcmp(c->qname, "torch.accelerator.current_accelerator") == 0);
	}
	if (s != sy->identifier && s != sy->attribute)
		return false;
	if (s == sy->attribute &&
	    tl_index_text_is(idx, ts_node_child_by_field_id(e, sy->f_attribute), "device"))
		return true; /* x.device, accelerator.device, self.device */
	const TlBinding *b = tl_index_resolve_node(idx, e);
	TSNode v = tl_flow__bound_value(b);
	if (!ts_node_is_null(v) && b->elem < 0) {
		/* `device = accelerator() if ... else torch.device("cpu")` in two
		 * branches: a device when any binding of the scope is one. */
		const TlIntArray *all = b->class_body || b->cls >= 0
						? NULL : tl_index_bindings_of(idx, b->func, b->name);
		for (uint32_t i = 0; all && i < all->size; i++) {
			const TlBinding *o = &idx->bindings.items[all->items[i]];
			TSNode ov = tl_flow__bound_value(o);
			if (o != b && !ts_node_is_null(ov) && o->elem < 0 &&
			    !tl_flow__contains(ov, e) && tl_flow__device(idx, ov, depth + 1))
				return true;
		}
		if (tl_flow__device(idx, v, depth + 1))
			return true;
		/* A literal or torch.device(...) decides; other values (rank =
		 * dist.get_rank()) leave it to the name. */
		TSSymbol vs = ts_node_symbol(v);
		if (vs == sy->string || vs == sy->conditional_expression ||
		    (vs == sy->call && tl_index_call_at(idx, v) && tl_index_call_at(idx, v)->qname &&
		     strcmp(tl_index_call_at(idx, v)->qname, "torch.device") == 0))
			return false;
	}
	char *name = tl_flow__dotted(idx, e);
	bool yes = name && tl_flow__device_name(name);
	tl_free(name);
	return yes;
}

bool tl_flow_is_device(const TlIndex *idx, TSNode expr)
{
	return tl_flow__device(idx, expr, 0);
}

bool tl_flow_moves_to_device(const TlIndex *idx, TSNode call)
{
	call = tl_index_unparen(call);
	const TlCall *c = tl_index_call_at(idx, call);
	if (!c || !c->method || !c->receiver.id)
		return false;
	if (strcmp(c->method, "cuda") == 0)
		return true;
	if (strcmp(c->method, "to") != 0)
		return false;
	TSNode a = tl_flow__arg(call, 0);
	if (!ts_node_is_null(a) && tl_flow__device(idx, a, 0))
		return true;
	TSNode d = tl_flow__kwarg(idx, call, "device");
	return !ts_node_is_null(d) && tl_flow__device(idx, d, 0);
}

/* ---- parameters and call sites ----------------------------------------------------- */

/* The position of parameter `name` (a plain name) among function f's, or -1. */
static int32_t tl_flow__param_index(const TlIndex *idx, const TlFunc *f, const char *name,
				    size_t len)
{
	for (uint32_t k = 0; k < f->params.size; k++) {
		const char *pn = idx->bindings.items[f->params.items[k]].name;
		if (strlen(pn) == len && strncmp(pn, name, len) == 0)
			return (int32_t)k;
	}
	return -1;
}

/* True when parameter binding `b` receives, at every call site of its
 * function (one at least, none unknown), an argument that satisfies `pred`. */
static bool tl_flow__param_all(const TlIndex *idx, const TlBinding *b,
			       bool (*pred)(const TlIndex *, TSNode, int, int *), int depth,
			       int *budget)
{
	if (b->kind != TL_BIND_PARAM || b->func < 0 || depth > TL_FLOW_DEPTH)
		return false;
	const TlFunc *f = &idx->funcs.items[b->func];
	int32_t k = tl_flow__param_index(idx, f, b->name, strlen(b->name));
	if (k < 0 || f->escapes || !f->call_sites.size)
		return false;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		TSNode arg = c->func == b->func ? (TSNode){ 0 } : tl_flow__param_arg(idx, f, k, c);
		if (ts_node_is_null(arg) || !pred(idx, arg, depth + 1, budget))
			return false;
	}
	return true;
}

/* ---- step loops and every-N-steps guards ------------------------------------------- */

/* `step % N`: a modulo binary operator. */
static bool tl_flow__is_modulo(const TlIndex *idx, TSNode e)
{
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	return !ts_node_is_null(e) && ts_node_symbol(e) == sy->binary_operator &&
	       tl_index_text_is(idx, ts_node_child_by_field_id(e, sy->f_operator), "%");
}

/* True for a comparison whose operators are all `==`. */
static bool tl_flow__equality(const TlIndex *idx, TSNode e)
{
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	if (ts_node_is_null(e) || ts_node_symbol(e) != sy->comparison_operator)
		return false;
	uint32_t count = ts_node_child_count(e);
	bool any = false;
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_child(e, i);
		if (ts_node_is_named(c))
			continue;
		if (!tl_index_text_is(idx, c, "=="))
			return false;
		any = true;
	}
	return any;
}

static bool tl_flow__every_n(const TlIndex *idx, TSNode cond, int depth);

/* A condition that holds on few iterations: an every-N test, an equality
 * (`batch_idx == last_idx`), or a name bound to one. */
static bool tl_flow__rare(const TlIndex *idx, TSNode cond, int depth)
{
	const TlSyms *sy = tl_syms();
	cond = tl_index_unparen(cond);
	if (ts_node_is_null(cond) || depth > TL_FLOW_DEPTH)
		return false;
	if (tl_flow__every_n(idx, cond, depth + 1) || tl_flow__equality(idx, cond))
		return true;
	if (ts_node_symbol(cond) == sy->identifier) {
		const TlBinding *b = tl_index_resolve_node(idx, cond);
		TSNode v = tl_flow__bound_value(b);
		return !ts_node_is_null(v) && b->elem < 0 && tl_flow__rare(idx, v, depth + 1);
	}
	return false;
}

/* Names people give periodic decisions (`should_log`, `should_eval(step)`):
 * a hint that only ever makes a rule stay silent. */
static bool tl_flow__periodic_name(const TlIndex *idx, TSNode n)
{
	char *name = tl_flow__dotted(idx, n);
	bool yes = name && (tl_flow__starts(tl_flow__last(name), "should_") ||
			    strcmp(tl_flow__last(name), "sync_gradients") == 0);
	tl_free(name);
	return yes;
}

/* `step % N == 0`, `(i + 1) % accum == 0 and is_main`, `not it % N`,
 * `last or i % N == 0`, `accelerator.sync_gradients`, `should_log(step)`,
 * or a name bound to one of these. */
static bool tl_flow__every_n(const TlIndex *idx, TSNode cond, int depth)
{
	const TlSyms *sy = tl_syms();
	cond = tl_index_unparen(cond);
	if (ts_node_is_null(cond) || depth > TL_FLOW_DEPTH)
		return false;
	TSSymbol s = ts_node_symbol(cond);
	if (s == sy->comparison_operator) {
		if (!tl_flow__equality(idx, cond))
			return false;
		uint32_t count = ts_node_named_child_count(cond);
		for (uint32_t i = 0; i < count; i++)
			if (tl_flow__is_modulo(idx, ts_node_named_child(cond, i)))
				return true;
		return false;
	}
	if (s == sy->not_operator)
		return tl_flow__is_modulo(idx, ts_node_child_by_field_id(cond, sy->f_argument));
	if (s == sy->boolean_operator) {
		TSNode l = ts_node_child_by_field_id(cond, sy->f_left);
		TSNode r = ts_node_child_by_field_id(cond, sy->f_right);
		if (tl_index_text_is(idx, ts_node_child_by_field_id(cond, sy->f_operator), "and"))
			return tl_flow__every_n(idx, l, depth + 1) || tl_flow__every_n(idx, r, depth + 1);
		/* or: rare on both sides, and an every-N test on one. */
		return tl_flow__rare(idx, l, depth + 1) && tl_flow__rare(idx, r, depth + 1) &&
		       (tl_flow__every_n(idx, l, depth + 1) || tl_flow__every_n(idx, r, depth + 1));
	}
	if (s == sy->call)
		return tl_flow__periodic_name(idx, ts_node_child_by_field_id(cond, sy->f_function));
	if (s == sy->attribute || s == sy->identifier) {
		if (tl_flow__periodic_name(idx, cond))
			return true;
		const TlBinding *b = tl_index_resolve_node(idx, cond);
		TSNode v = tl_flow__bound_value(b);
		return !ts_node_is_null(v) && b->elem < 0 && tl_flow__every_n(idx, v, depth + 1);
	}
	return false;
}

/* The opposite of an every-N test, as an early exit writes it:
 * `not should_log`, `step % N != 0`, `step % N`. */
static bool tl_flow__skip_unless_every_n(const TlIndex *idx, TSNode cond)
{
	const TlSyms *sy = tl_syms();
	cond = tl_index_unparen(cond);
	if (ts_node_is_null(cond))
		return false;
	TSSymbol s = ts_node_symbol(cond);
	if (s == sy->not_operator)
		return tl_flow__every_n(idx, ts_node_child_by_field_id(cond, sy->f_argument), 0);
	if (tl_flow__is_modulo(idx, cond))
		return true;
	if (s != sy->comparison_operator || ts_node_named_child_count(cond) != 2)
		return false;
	uint32_t count = ts_node_child_count(cond);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_child(cond, i);
		if (!ts_node_is_named(c) && !tl_index_text_is(idx, c, "!="))
			return false;
	}
	return tl_flow__is_modulo(idx, ts_node_named_child(cond, 0)) ||
	       tl_flow__is_modulo(idx, ts_node_named_child(cond, 1));
}

/* `if <skip>: continue` / `return` / `break` (alone in its body): the code
 * after it in the same block runs only when the test lets it. */
static bool tl_flow__early_exit(const TlIndex *idx, TSNode stmt)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_symbol(stmt) != sy->if_statement ||
	    !ts_node_is_null(ts_node_child_by_field_id(stmt, sy->f_alternative)))
		return false;
	TSNode body = ts_node_child_by_field_id(stmt, sy->f_consequence);
	uint32_t count = ts_node_is_null(body) ? 0 : ts_node_named_child_count(body);
	if (!count)
		return false;
	const char *t = ts_node_type(ts_node_named_child(body, count - 1));
	return (strcmp(t, "continue_statement") == 0 || strcmp(t, "return_statement") == 0 ||
		strcmp(t, "break_statement") == 0) &&
	       tl_flow__skip_unless_every_n(idx, ts_node_child_by_field_id(stmt, sy->f_condition));
}

/* The every-N guard that holds `node`, below `top`: an if_statement or
 * elif_clause with `node` in its consequence, an early exit before it in a
 * block around it, or an except clause around it; a null node when there
 * is none. */
static TSNode tl_flow__guard_between(const TlIndex *idx, TSNode node, TSNode top)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	TSNode child = node;
	for (TSNode p = ts_node_parent(node); !ts_node_is_null(p) && !ts_node_eq(child, top);
	     child = p, p = ts_node_parent(p)) {
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->function_definition || s == sy->class_definition)
			break;
		if ((s == sy->if_statement || s == sy->elif_clause) &&
		    ts_node_eq(ts_node_child_by_field_id(p, sy->f_consequence), child) &&
		    tl_flow__every_n(idx, ts_node_child_by_field_id(p, sy->f_condition), 0))
			return p;
		/* An exception handler runs when a step fails, not per step. */
		if (s == sy->except_clause)
			return p;
		if (s == sy->block || s == sy->module) {
			/* An early exit earlier in the same block. */
			for (TSNode prev = ts_node_prev_named_sibling(child); !ts_node_is_null(prev);
			     prev = ts_node_prev_named_sibling(prev))
				if (tl_flow__early_exit(idx, prev))
					return prev;
		}
	}
	return none;
}

bool tl_flow_under_every_n(const TlIndex *idx, TSNode node)
{
	int32_t func = tl_index_func_of(idx, node);
	TSNode top = func >= 0 ? idx->funcs.items[func].node : idx->root;
	return !ts_node_is_null(tl_flow__guard_between(idx, node, top));
}

static bool tl_flow__in_step(const TlIndex *idx, TSNode node, int32_t func, int32_t loop,
			     uint32_t kinds, bool per_step, int depth, int *budget)
{
	if (--*budget < 0)
		return false;
	/* The innermost step loop decides: a rollout (an evaluating loop) in
	 * a training loop's iteration is evaluation, not a training step. */
	for (int32_t l = loop; l >= 0; l = idx->loops.items[l].parent) {
		if (!idx->loops.items[l].step)
			continue;
		if (!(idx->loops.items[l].step & kinds))
			return false;
		return !per_step ||
		       ts_node_is_null(tl_flow__guard_between(idx, node, idx->loops.items[l].body));
	}
	if (func < 0 || depth > TL_FLOW_DEPTH)
		return false;
	const TlFunc *f = &idx->funcs.items[func];
	if (per_step && !ts_node_is_null(tl_flow__guard_between(idx, node, f->node)))
		return false;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (c->func != func &&
		    tl_flow__in_step(idx, c->node, c->func, c->loop, kinds, per_step, depth + 1, budget))
			return true;
	}
	return false;
}

bool tl_flow_in_step_loop(const TlIndex *idx, TSNode node, uint32_t kinds, bool per_step)
{
	int budget = TL_FLOW_BUDGET;
	return tl_flow__in_step(idx, node, tl_index_func_of(idx, node), tl_index_loop_of(idx, node),
				kinds, per_step, 0, &budget);
}

/* ---- loop invariance ------------------------------------------------------------------ */

/* How a dotted store target relates to `name`: the same name, a prefix
 * of it (re-binding `args` changes `args.w`), or a field of it (`x.data`,
 * `x[i]` have root `x`). */
static bool tl_flow__names_overlap(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t l = la < lb ? la : lb;
	return strncmp(a, b, l) == 0 && (la == lb || (la > lb ? a[l] : b[l]) == '.');
}

/* True when a store target (a name, an attribute, a subscript, or a
 * pattern of them) writes `name` or part of it. Iterative. */
static bool tl_flow__target_hits(const TlIndex *idx, TSNode target, const char *name)
{
	const TlSyms *sy = tl_syms();
	TlArray(TSNode) todo;
	tl_array_init(&todo);
	tl_array_push(&todo, target);
	bool hit = false;
	while (todo.size && !hit) {
		TSNode n = tl_index_unparen(tl_array_pop(&todo));
		if (ts_node_is_null(n))
			continue;
		TSSymbol s = ts_node_symbol(n);
		if (s == sy->pattern_list || s == sy->tuple_pattern || s == sy->list_pattern ||
		    s == sy->tuple || s == sy->list || s == sy->expression_list ||
		    s == sy->list_splat_pattern) {
			uint32_t count = ts_node_named_child_count(n);
			for (uint32_t i = 0; i < count; i++)
				tl_array_push(&todo, ts_node_named_child(n, i));
			continue;
		}
		char *root = tl_flow_root_name(idx, n);
		hit = root && tl_flow__names_overlap(root, name);
		tl_free(root);
	}
	tl_array_release(&todo);
	return hit;
}

/* Methods that change their receiver in place (besides the `x_()` ones). */
static bool tl_flow__mutates(const char *method)
{
	static const char *const mutators[] = {
		"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
		"add", "discard", "load_state_dict", "apply", "register_buffer",
	};
	size_t n = strlen(method);
	return (n > 1 && method[n - 1] == '_' && !(n > 2 && method[n - 2] == '_')) ||
	       IN(method, mutators);
}

/* Module methods that move or cast the module in place; as a statement
 * (result discarded) on a tensor they do nothing, on a module they change it. */
static bool tl_flow__moves_in_place(const char *method)
{
	static const char *const movers[] = {
		"to", "cuda", "cpu", "half", "float", "double", "bfloat16", "type", "to_empty",
	};
	return IN(method, movers);
}

/* `model = model.to(device)`: a module moves in place and the name keeps
 * the same object. */
static bool tl_flow__module_moved_onto_itself(const TlIndex *idx, TSNode assign, const char *name)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_symbol(assign) != sy->assignment)
		return false;
	TSNode left = tl_index_unparen(ts_node_child_by_field_id(assign, sy->f_left));
	TSNode right = tl_index_unparen(ts_node_child_by_field_id(assign, sy->f_right));
	const TlCall *c = ts_node_symbol(right) == sy->call ? tl_index_call_at(idx, right) : NULL;
	char *target = tl_flow__dotted(idx, left);
	bool yes = target && strcmp(target, name) == 0 && c && c->recv_name &&
		   strcmp(c->recv_name, name) == 0 && tl_flow__moves_in_place(c->method) &&
		   tl_flow_is_module(idx, c->receiver);
	tl_free(target);
	return yes;
}

/* True when loop `l` leaves `name` alone: its target does not bind it, and
 * its body neither binds it, stores into it, changes it in place, nor
 * writes into it through `out=`. `except` is the call being judged. */
static bool tl_flow__untouched_in_loop(const TlIndex *idx, const char *name, int32_t l,
				       TSNode except)
{
	const TlSyms *sy = tl_syms();
	const TlLoop *lp = &idx->loops.items[l];
	if (ts_node_symbol(lp->node) == sy->for_statement &&
	    tl_flow__target_hits(idx, ts_node_child_by_field_id(lp->node, sy->f_left), name))
		return false;
	TSTreeCursor cur = ts_tree_cursor_new(lp->body);
	bool touched = false, descend = true;
	do {
		TSNode n = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(n);
		descend = true;
		if (s == sy->function_definition || s == sy->class_definition) {
			descend = false; /* its own scope */
		} else if (s == sy->assignment || s == sy->augmented_assignment ||
			   s == sy->for_statement) {
			touched = tl_flow__target_hits(idx, ts_node_child_by_field_id(n, sy->f_left), name) &&
				  !tl_flow__module_moved_onto_itself(idx, n, name);
		} else if (s == sy->named_expression) {
			touched = tl_flow__target_hits(idx, ts_node_child_by_field_id(n, sy->f_name), name);
		} else if (s == sy->as_pattern_target || s == sy->delete_statement) {
			touched = ts_node_named_child_count(n) &&
				  tl_flow__target_hits(idx, ts_node_named_child(n, 0), name);
		} else if (s == sy->keyword_argument &&
			   tl_index_text_is(idx, ts_node_child_by_field_id(n, sy->f_name), "out")) {
			touched = tl_flow__target_hits(idx, ts_node_child_by_field_id(n, sy->f_value), name);
		} else if (s == sy->call && !ts_node_eq(n, except)) {
			const TlCall *c = tl_index_call_at(idx, n);
			if (c && c->method && c->recv_name && tl_flow__names_overlap(c->recv_name, name) &&
			    strlen(c->recv_name) >= strlen(name))
				touched = tl_flow__mutates(c->method) ||
					  (c->stmt_level && tl_flow__moves_in_place(c->method));
		}
	} while (!touched && tl_walk_next(&cur, lp->body, descend));
	ts_tree_cursor_delete(&cur);
	return !touched;
}

/* True when `self.x` is bound only in __init__ (or in `func`, outside the
 * loop being judged): no other method re-binds it between steps. */
static bool tl_flow__attribute_stable(const TlIndex *idx, const char *name, int32_t func)
{
	for (uint32_t i = 0; i < idx->bindings.size; i++) {
		const TlBinding *b = &idx->bindings.items[i];
		if (b->class_body || strcmp(b->name, name) != 0 || b->func < 0 || b->func == func)
			continue;
		if (strcmp(idx->funcs.items[b->func].name, "__init__") != 0)
			return false;
	}
	return true;
}

/* True when identifier `id` is bound by a comprehension or lambda around
 * it: its value changes per element. */
static bool tl_flow__comprehension_local(const TlIndex *idx, TSNode id)
{
	const TlSyms *sy = tl_syms();
	uint32_t len;
	const char *t = tl_index_text(idx, id, &len);
	for (TSNode p = ts_node_parent(id); !ts_node_is_null(p); p = ts_node_parent(p)) {
		TSSymbol s = ts_node_symbol(p);
		TSNode binders = { 0 };
		if (s == sy->list_comprehension || s == sy->generator_expression ||
		    s == sy->set_comprehension || s == sy->dictionary_comprehension) {
			uint32_t count = ts_node_named_child_count(p);
			for (uint32_t i = 0; i < count; i++) {
				TSNode cl = ts_node_named_child(p, i);
				if (ts_node_symbol(cl) != sy->for_in_clause)
					continue;
				TSNode left = ts_node_child_by_field_id(cl, sy->f_left);
				char *name = tl_strndup(t, len);
				bool hit = tl_flow__target_hits(idx, left, name);
				tl_free(name);
				if (hit)
					return true;
			}
		} else if (s == sy->lambda) {
			binders = ts_node_child_by_field_id(p, sy->f_parameters);
		}
		if (!ts_node_is_null(binders)) {
			uint32_t count = ts_node_named_child_count(binders);
			for (uint32_t i = 0; i < count; i++) {
				TSNode pn = ts_node_named_child(binders, i);
				if (ts_node_symbol(pn) != sy->identifier)
					pn = ts_node_named_child(pn, 0);
				if (!ts_node_is_null(pn) && ts_node_symbol(pn) == sy->identifier) {
					uint32_t pl;
					const char *pt = tl_index_text(idx, pn, &pl);
					if (pl == len && memcmp(pt, t, len) == 0)
						return true;
				}
			}
		}
		if (s == sy->function_definition || s == sy->class_definition)
			break;
	}
	return false;
}

static bool tl_flow__invariant(const TlIndex *idx, TSNode expr, TSNode except, int depth,
			       int *budget);

/* Callees whose result changes from call to call whatever their inputs. */
static bool tl_flow__impure_callee(const char *q)
{
	static const char *const impure[] = { "next", "iter", "input", "open" };
	return tl_flow__starts(q, "random.") || tl_flow__starts(q, "numpy.random.") ||
	       tl_flow__starts(q, "torch.rand") || tl_flow__starts(q, "time.") || IN(q, impure);
}

/* True when name `name`, read at `at`, holds the same object with the same
 * contents in every iteration of the loop around `at`, or, when `at` is in
 * no loop of its function, at every call site of the function (parameters
 * map to the arguments passed, `self.x` to the receiver's attribute). */
static bool tl_flow__name_invariant_at(const TlIndex *idx, const char *name, TSNode at,
				       TSNode except, int depth, int *budget)
{
	if (depth > TL_FLOW_DEPTH || --*budget < 0)
		return false;
	int32_t func = tl_index_func_of(idx, at);
	int32_t loop = tl_index_loop_of(idx, at);
	bool attr_of_self = strncmp(name, "self.", 5) == 0;
	if (loop >= 0)
		return tl_flow__untouched_in_loop(idx, name, loop, except) &&
		       (!attr_of_self || tl_flow__attribute_stable(idx, name, func));
	if (func < 0)
		return false; /* module level, in no loop: nothing repeats */
	const TlFunc *f = &idx->funcs.items[func];
	if (f->escapes || !f->call_sites.size)
		return false;
	size_t root_len = strcspn(name, ".");
	int32_t param = attr_of_self ? -1 : tl_flow__param_index(idx, f, name, root_len);
	if (attr_of_self) {
		if (!tl_flow__attribute_stable(idx, name, -2))
			return false;
	} else if (param < 0) {
		/* A local of the function is made anew on every call. */
		char root[256];
		if (root_len >= sizeof root)
			return false;
		memcpy(root, name, root_len);
		root[root_len] = '\0';
		if (tl_index_bindings_of(idx, func, root))
			return false;
	}
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (c->func == func)
			return false; /* recursion */
		bool ok;
		if (param >= 0 && name[root_len] == '\0') {
			TSNode arg = tl_flow__param_arg(idx, f, param, c);
			ok = !ts_node_is_null(arg) && tl_flow__invariant(idx, arg, except, depth + 1, budget);
		} else if (param >= 0 || attr_of_self) {
			/* model.fc with `model` a parameter: the argument's field;
			 * self.buf: the receiver's (trainer.buf, or self.buf). */
			TSNode base = param >= 0 ? tl_flow__param_arg(idx, f, param, c) : c->receiver;
			char *mapped_root = ts_node_is_null(base) ? NULL : tl_flow__dotted(idx, base);
			ok = mapped_root != NULL;
			if (ok) {
				TlBuf m;
				tl_buf_init(&m);
				tl_buf_add(&m, mapped_root);
				tl_buf_add(&m, name + (attr_of_self ? 4 : root_len));
				ok = tl_flow__name_invariant_at(idx, m.data, c->node, except, depth + 1, budget);
				tl_buf_release(&m);
			}
			tl_free(mapped_root);
		} else {
			ok = tl_flow__name_invariant_at(idx, name, c->node, except, depth + 1, budget);
		}
		if (!ok)
			return false;
	}
	return true;
}

/* True when every name `expr` reads is loop-invariant at `expr`, and it
 * calls nothing whose result varies by itself (random numbers, next()). */
static bool tl_flow__invariant(const TlIndex *idx, TSNode expr, TSNode except, int depth,
			       int *budget)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_is_null(expr) || depth > TL_FLOW_DEPTH)
		return false;
	TSTreeCursor cur = ts_tree_cursor_new(expr);
	bool ok = true, descend = true;
	do {
		TSNode n = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(n);
		descend = true;
		if (s == sy->keyword_argument) {
			/* Only the value is read; the name is a label. */
			TSNode v = ts_node_child_by_field_id(n, sy->f_value);
			ok = tl_flow__invariant(idx, v, except, depth + 1, budget);
			descend = false;
		} else if (s == sy->call) {
			const TlCall *c = tl_index_call_at(idx, n);
			if (c && c->qname && tl_flow__impure_callee(c->qname))
				ok = false;
		} else if (s == sy->identifier || s == sy->attribute) {
			char *name = tl_flow__dotted(idx, n);
			descend = name == NULL; /* f(x).attr: look inside */
			if (name) {
				TSNode root = n;
				while (ts_node_symbol(root) == sy->attribute)
					root = tl_index_unparen(ts_node_child_by_field_id(root, sy->f_object));
				const TlBinding *b = tl_flow__resolve_prefix(idx, n);
				if (tl_flow__comprehension_local(idx, root))
					ok = false;
				else if (b && b->kind == TL_BIND_IMPORT)
					ok = true; /* torch.float32, np.pi */
				else if (!b && ts_node_symbol(n) == sy->identifier)
					ok = true; /* a builtin such as len */
				else
					ok = tl_flow__name_invariant_at(idx, name, n, except, depth + 1, budget);
			}
			tl_free(name);
		}
	} while (ok && tl_walk_next(&cur, expr, descend));
	ts_tree_cursor_delete(&cur);
	return ok;
}

bool tl_flow_loop_invariant(const TlIndex *idx, TSNode expr)
{
	/* The call that reads `expr` (a transfer's receiver) is no change of it. */
	TSNode except = ts_node_parent(ts_node_parent(expr));
	int budget = TL_FLOW_BUDGET;
	return tl_flow__invariant(idx, expr, except, 0, &budget);
}

/* ---- tensors and where they live ---------------------------------------------------- */

/* Methods of a tensor that return a tensor (on the receiver's device). */
static const char *const tl_flow__tensor_methods[] = {
	"detach", "float", "half", "double", "bfloat16", "long", "int", "bool", "byte",
	"clone", "contiguous", "view", "reshape", "squeeze", "unsqueeze", "flatten",
	"permute", "transpose", "t", "expand", "repeat", "sum", "mean", "argmax", "argmin",
	"softmax", "log_softmax", "sigmoid", "tanh", "exp", "log", "abs", "pow", "sqrt",
	"norm", "std", "var", "clamp", "round", "eq", "ne", "gt", "lt", "ge", "le",
	"masked_fill", "gather", "index_select", "type_as", "view_as", "reshape_as",
	"mul", "add", "sub", "div", "neg", "square", "cumsum", "prod", "max", "min",
	"topk", "sort", "squeeze_", "unsqueeze_", "requires_grad_", "narrow", "chunk",
	"split", "unbind", "logsumexp", "float_power", "sign", "floor", "ceil", "type",
};

/* torch functions whose result is a tensor on the device of their inputs. */
static bool tl_flow__tensor_function(const char *q)
{
	static const char *const fns[] = {
		"torch.cat", "torch.stack", "torch.where", "torch.matmul", "torch.mm",
		"torch.bmm", "torch.einsum", "torch.argmax", "torch.argmin", "torch.softmax",
		"torch.sigmoid", "torch.exp", "torch.log", "torch.abs", "torch.clamp",
		"torch.sum", "torch.mean", "torch.max", "torch.min", "torch.flatten",
		"torch.squeeze", "torch.unsqueeze", "torch.sqrt", "torch.norm", "torch.topk",
		"torch.sort", "torch.gather", "torch.masked_select", "torch.eq", "torch.ne",
		"torch.nn.functional.softmax", "torch.nn.functional.log_softmax",
		"torch.nn.functional.sigmoid", "torch.nn.functional.normalize",
		"torch.nn.functional.one_hot", "torch.nn.functional.relu",
	};
	return IN(q, fns);
}

/* For an expression whose value follows its operands (a subscript, an
 * arithmetic or unary operation, a comparison), sets *handled and returns
 * whether some operand satisfies `fn`; leaves *handled false otherwise. */
static bool tl_flow__via_operands(const TlIndex *idx, TSNode e, int depth, int *budget,
				  bool (*fn)(const TlIndex *, TSNode, int, int *), bool *handled)
{
	const TlSyms *sy = tl_syms();
	TSSymbol s = ts_node_symbol(e);
	*handled = true;
	if (s == sy->subscript)
		return fn(idx, ts_node_child_by_field_id(e, sy->f_value), depth + 1, budget);
	if (s == sy->binary_operator)
		return fn(idx, ts_node_child_by_field_id(e, sy->f_left), depth + 1, budget) ||
		       fn(idx, ts_node_child_by_field_id(e, sy->f_right), depth + 1, budget);
	if (s == sy->unary_operator)
		return fn(idx, ts_node_child_by_field_id(e, sy->f_argument), depth + 1, budget);
	if (s == sy->comparison_operator) {
		uint32_t count = ts_node_named_child_count(e);
		for (uint32_t i = 0; i < count; i++)
			if (fn(idx, ts_node_named_child(e, i), depth + 1, budget))
				return true;
		return false;
	}
	*handled = false;
	return false;
}

static bool tl_flow__tensor(const TlIndex *idx, TSNode e, int depth, int *budget);

/* tl_flow__any_return passes no budget: returns get a fresh, smaller one. */
static bool tl_flow__tensor_return(const TlIndex *idx, TSNode v, int depth)
{
	int budget = TL_FLOW_BUDGET / 4;
	return tl_flow__tensor(idx, v, depth, &budget);
}

/* Known tensor (RULES.md definitions). */
static bool tl_flow__tensor(const TlIndex *idx, TSNode e, int depth, int *budget)
{
	static const char *const like[] = {
		"torch.zeros_like", "torch.ones_like", "torch.empty_like", "torch.full_like",
		"torch.rand_like", "torch.randn_like", "torch.randint_like", "torch.randperm",
	};
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	if (ts_node_is_null(e) || depth > TL_FLOW_DEPTH || --*budget < 0)
		return false;
	TSSymbol s = ts_node_symbol(e);
	if (s == sy->call) {
		const TlCall *c = tl_index_call_at(idx, e);
		if (!c)
			return false;
		if (c->qname && (tl_flow__qname_is_api(c->qname, TL_API_TENSOR_FACTORY) ||
				 tl_flow__qname_is_api(c->qname, TL_API_TENSOR_FROM_DATA) ||
				 IN(c->qname, like)))
			return true;
		if (c->events & (TL_EV_LOSS | TL_EV_FORWARD))
			return true;
		if (c->qname) {
			if (!tl_flow__tensor_function(c->qname))
				return false;
			for (uint32_t k = 0; k < 2; k++) {
				TSNode a = tl_flow__arg(e, k);
				if (!ts_node_is_null(a) && tl_flow__tensor(idx, a, depth + 1, budget))
					return true;
			}
			return false;
		}
		if (c->receiver.id && c->method &&
		    (IN(c->method, tl_flow__tensor_methods) || strcmp(c->method, "to") == 0 ||
		     strcmp(c->method, "cuda") == 0 || strcmp(c->method, "cpu") == 0 ||
		     strcmp(c->method, "pin_memory") == 0))
			return tl_flow__tensor(idx, c->receiver, depth + 1, budget);
		if (c->target >= 0)
			return tl_flow__any_return(idx, c->target, tl_flow__tensor_return, depth + 1);
		return false;
	}
	bool handled;
	bool via = tl_flow__via_operands(idx, e, depth, budget, tl_flow__tensor, &handled);
	if (handled)
		return via;
	if (s != sy->identifier && s != sy->attribute)
		return false;
	if (s == sy->attribute) {
		TSNode attr = ts_node_child_by_field_id(e, sy->f_attribute);
		if (tl_index_text_is(idx, attr, "data") || tl_index_text_is(idx, attr, "grad") ||
		    tl_index_text_is(idx, attr, "T"))
			return tl_flow__tensor(idx, ts_node_child_by_field_id(e, sy->f_object), depth + 1, budget);
	}
	if (s == sy->identifier && tl_flow__comprehension_local(idx, e))
		return false; /* the index does not bind comprehension variables */
	if (tl_flow_from_loader(idx, e))
		return true;
	if (tl_flow__graph(idx, e, depth + 1))
		return true;
	const TlBinding *b = tl_index_resolve_node(idx, e);
	if (!b)
		return false;
	if (b->kind == TL_BIND_PARAM && !ts_node_is_null(b->value)) {
		char *q = tl_index_qualify(idx, b->value);
		bool yes = q && strcmp(q, "torch.Tensor") == 0;
		tl_free(q);
		return yes;
	}
	if (b->kind == TL_BIND_PARAM)
		return tl_flow__param_all(idx, b, tl_flow__tensor, depth, budget);
	TSNode v = tl_flow__bound_value(b);
	return !ts_node_is_null(v) && tl_flow__tensor(idx, v, depth + 1, budget);
}

static bool tl_flow__tensor_batch(const TlIndex *idx, TSNode expr, int depth);

static int tl_flow__batch_depth(const TlIndex *idx, const TlBinding *b);

bool tl_flow_is_tensor(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	expr = tl_index_unparen(expr);
	/* A module is never a tensor, whatever its name or binding suggests. */
	if (ts_node_is_null(expr) || tl_flow__module_expr(idx, expr, 0))
		return false;
	/* Nor a whole batch (`for batch in loader`): it may be a dict or a
	 * BatchEncoding, whose .to() works in place. Its elements are tensors. */
	if (ts_node_symbol(expr) == sy->identifier) {
		const TlBinding *b = tl_index_resolve_node(idx, expr);
		if (b && b->kind == TL_BIND_FOR && tl_flow__batch_depth(idx, b) == 0)
			return false;
	}
	int budget = TL_FLOW_BUDGET;
	return tl_flow__tensor(idx, expr, 0, &budget) || tl_flow__tensor_batch(idx, expr, 0);
}

static bool tl_flow__on_device(const TlIndex *idx, TSNode e, int depth, int *budget);

static bool tl_flow__device_return(const TlIndex *idx, TSNode v, int depth)
{
	int budget = TL_FLOW_BUDGET / 4;
	return tl_flow__on_device(idx, v, depth, &budget);
}

/* The binding an augmented assignment `b` (`x += v`) updates: the one `x`
 * had just before it; NULL for other bindings. */
static const TlBinding *tl_flow__aug_previous(const TlIndex *idx, const TlBinding *b)
{
	if (!b || b->kind != TL_BIND_AUG || ts_node_start_byte(b->stmt) == 0)
		return NULL;
	const TlBinding *p = tl_index_resolve(idx, b->name, b->func, ts_node_start_byte(b->stmt) - 1);
	return p == b ? NULL : p;
}

/* True when the name `e` is called like a function in its scope (`m(x)`):
 * a module or a function, whatever its binding says. */
static bool tl_flow__called(const TlIndex *idx, TSNode e)
{
	char *name = tl_flow__dotted(idx, e);
	if (!name)
		return false;
	bool yes = false;
	TlBuf b;
	tl_buf_init(&b);
	const TlIntArray *calls = tl_index_scope_calls(idx, tl_index_func_of(idx, e));
	for (uint32_t i = 0; calls && i < calls->size && !yes; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		tl_buf_clear(&b);
		yes = tl_index_dotted(idx, c->callee, &b) && strcmp(b.data, name) == 0;
	}
	tl_buf_release(&b);
	tl_free(name);
	return yes;
}

/* A tensor in accelerator memory: moved there, made there, or computed
 * there by a model (in a file that uses an accelerator at all). */
static bool tl_flow__on_device(const TlIndex *idx, TSNode e, int depth, int *budget)
{
	static const char *const descriptive[] = {
		"shape", "dtype", "device", "ndim", "requires_grad", "is_cuda", "is_leaf",
		"layout", "names", "grad_fn",
	};
	static const char *const host[] = {
		"cpu", "numpy", "tolist", "item", "pin_memory", "size", "dim", "numel",
		"nelement", "stride", "data_ptr", "element_size", "get_device", "is_contiguous",
		"storage", "untyped_storage", "__len__", "keys", "values", "items", "parameters",
		"state_dict", "named_parameters",
	};
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	if (ts_node_is_null(e) || depth > TL_FLOW_DEPTH || --*budget < 0)
		return false;
	TSSymbol s = ts_node_symbol(e);
	if (s == sy->call) {
		const TlCall *c = tl_index_call_at(idx, e);
		if (!c)
			return false;
		if (tl_flow_moves_to_device(idx, e))
			return !tl_flow_is_module(idx, c->receiver);
		if (c->events & (TL_EV_LOSS | TL_EV_FORWARD))
			return idx->uses_device;
		if (c->qname) {
			/* A function: torch.* and F.* follow their inputs unless
			 * told where to allocate; others (numpy, ...) are not known. */
			if (!tl_flow__starts(c->qname, "torch."))
				return false;
			TSNode d = tl_flow__kwarg(idx, e, "device");
			if (!ts_node_is_null(d))
				return tl_flow__device(idx, d, depth + 1);
			if (tl_flow__qname_is_api(c->qname, TL_API_TENSOR_FACTORY) ||
			    tl_flow__qname_is_api(c->qname, TL_API_TENSOR_FROM_DATA))
				return false;
			for (uint32_t k = 0; k < 2; k++) {
				TSNode a = tl_flow__arg(e, k);
				if (!ts_node_is_null(a) && tl_flow__on_device(idx, a, depth + 1, budget))
					return true;
			}
			return false;
		}
		if (c->receiver.id) {
			/* A method of a device tensor returns a device tensor, but
			 * for those that bring data to the host or describe it. */
			return c->method && !IN(c->method, host) &&
			       tl_flow__on_device(idx, c->receiver, depth + 1, budget);
		}
		if (c->target >= 0)
			return tl_flow__any_return(idx, c->target, tl_flow__device_return, depth + 1);
		/* model(x) with `model` a parameter the file does not show: a
		 * callable applied to a device tensor gives one. */
		const TlBinding *cb = !c->receiver.id ? tl_index_resolve_node(idx, c->callee) : NULL;
		if (cb && cb->kind == TL_BIND_PARAM) {
			TSNode a = tl_flow__arg(e, 0);
			return !ts_node_is_null(a) && tl_flow__on_device(idx, a, depth + 1, budget);
		}
		return false;
	}
	bool handled;
	bool via = tl_flow__via_operands(idx, e, depth, budget, tl_flow__on_device, &handled);
	if (handled)
		return via;
	if (s != sy->identifier && s != sy->attribute)
		return false;
	if (tl_flow_is_module(idx, e) || tl_flow__called(idx, e) ||
	    (s == sy->identifier && tl_flow__comprehension_local(idx, e)))
		return false;
	const TlBinding *b = tl_index_resolve_node(idx, e);
	if (!b && s == sy->attribute) {
		/* outputs.loss, out.logits, x.data, topk.values: a field of a
		 * device value, unless it describes the tensor. */
		uint32_t len;
		const char *t = tl_index_text(idx, ts_node_child_by_field_id(e, sy->f_attribute), &len);
		char field[64];
		if (len >= sizeof field)
			return false;
		memcpy(field, t, len);
		field[len] = '\0';
		return !IN(field, descriptive) &&
		       tl_flow__on_device(idx, ts_node_child_by_field_id(e, sy->f_object), depth + 1, budget);
	}
	if (b && b->kind == TL_BIND_PARAM)
		return tl_flow__param_all(idx, b, tl_flow__on_device, depth, budget);
	TSNode v = tl_flow__bound_value(b);
	if (!ts_node_is_null(v) && tl_flow__on_device(idx, v, depth + 1, budget))
		return true;
	/* `loss *= w`: the name keeps what it held before, combined with w. */
	const TlBinding *before = tl_flow__aug_previous(idx, b);
	TSNode pv = tl_flow__bound_value(before);
	return !ts_node_is_null(pv) && tl_flow__on_device(idx, pv, depth + 1, budget);
}

bool tl_flow_on_device(const TlIndex *idx, TSNode expr)
{
	int budget = TL_FLOW_BUDGET;
	return tl_flow__on_device(idx, expr, 0, &budget);
}

bool tl_flow_host_factory(const TlIndex *idx, TSNode expr)
{
	static const char *const host_methods[] = {
		"float", "long", "int", "half", "double", "bool", "byte", "char", "short",
		"bfloat16", "type", "pin_memory", "contiguous", "requires_grad_", "unsqueeze",
		"view", "reshape", "t", "fill_", "normal_", "uniform_", "zero_", "repeat",
		"expand", "bernoulli_", "random_", "exponential_", "fill_diagonal_",
	};
	static const char *const variables[] = {
		"torch.autograd.Variable", "torch.autograd.variable.Variable",
	};
	const TlSyms *sy = tl_syms();
	for (int depth = 0; depth <= TL_FLOW_DEPTH; depth++) {
		expr = tl_index_unparen(expr);
		if (ts_node_is_null(expr) || ts_node_symbol(expr) != sy->call)
			return false;
		const TlCall *c = tl_index_call_at(idx, expr);
		if (!c)
			return false;
		if (c->qname && tl_flow__qname_is_api(c->qname, TL_API_TENSOR_FACTORY)) {
			TSNode d = tl_flow__kwarg(idx, expr, "device");
			if (ts_node_is_null(d))
				return !tl_flow_passes_keyword(idx, expr, "device");
			/* device="cpu" makes it on the host too. */
			uint32_t len;
			const char *body = tl_flow__string_body(idx, tl_index_unparen(d), &len);
			return body && len == 3 && memcmp(body, "cpu", 3) == 0;
		}
		if (c->qname && IN(c->qname, variables)) {
			expr = tl_flow__arg(expr, 0);
			continue;
		}
		if (c->receiver.id && c->method &&
		    (IN(c->method, host_methods) ||
		     (strcmp(c->method, "to") == 0 && !tl_flow_moves_to_device(idx, expr)))) {
			expr = c->receiver;
			continue;
		}
		return false;
	}
	return false;
}

/* ---- values that came back from the device ----------------------------------------------- */

typedef TlArray(char *) TlHostNames;

static bool tl_flow__host_names_has(const TlHostNames *names, const char *s)
{
	for (uint32_t i = 0; i < names->size; i++)
		if (tl_flow__names_overlap(names->items[i], s) &&
		    strlen(s) >= strlen(names->items[i]))
			return true;
	return false;
}

/* True when the value of `e` is a device tensor's data brought to the host
 * (`.cpu()`, `.tolist()`, `.numpy()` after them), or is computed from one
 * by operators, numpy or torch functions, builtins and the value's own
 * methods; names in `taint` hold such values. A call of any other function
 * (an environment's step, a dataset) ends the chain: its result is new data. */
static bool tl_flow__host_value(const TlIndex *idx, TSNode e, const TlHostNames *taint, int depth)
{
	static const char *const copies[] = { "cpu", "tolist" };
	static const char *const builtins[] = {
		"list", "tuple", "float", "int", "sum", "max", "min", "abs", "round", "sorted",
	};
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	if (ts_node_is_null(e) || depth > TL_FLOW_DEPTH)
		return false;
	TSSymbol s = ts_node_symbol(e);
	if (s == sy->call) {
		const TlCall *c = tl_index_call_at(idx, e);
		if (!c)
			return false;
		if (c->receiver.id && IN(c->method, copies) && tl_flow_on_device(idx, c->receiver))
			return true;
		bool pure = c->qname ? (tl_flow__starts(c->qname, "numpy.") ||
					(tl_flow__starts(c->qname, "torch.") &&
					 !tl_flow__starts(c->qname, "torch.nn.") &&
					 !tl_flow__starts(c->qname, "torch.distributed.")))
				     : (!c->receiver.id && IN(c->method, builtins));
		if (pure) {
			TSNode args = ts_node_child_by_field_id(e, sy->f_arguments);
			uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
			for (uint32_t i = 0; i < count; i++) {
				TSNode a = ts_node_named_child(args, i);
				if (ts_node_symbol(a) == sy->keyword_argument)
					a = ts_node_child_by_field_id(a, sy->f_value);
				if (tl_flow__host_value(idx, a, taint, depth + 1))
					return true;
			}
			return false;
		}
		/* The value's own methods: arr.astype(...), preds.reshape(...). */
		if (c->receiver.id && !c->qname)
			return tl_flow__host_value(idx, c->receiver, taint, depth + 1);
		return false;
	}
	if (s == sy->identifier || s == sy->attribute) {
		char *name = tl_flow__dotted(idx, e);
		bool yes = name && tl_flow__host_names_has(taint, name);
		tl_free(name);
		if (!yes && !name && s == sy->attribute)
			yes = tl_flow__host_value(idx, ts_node_child_by_field_id(e, sy->f_object), taint,
						  depth + 1);
		return yes;
	}
	if (s == sy->lambda || s == sy->string)
		return false;
	/* Operators, subscripts, containers, comprehensions: any part. */
	uint32_t count = ts_node_named_child_count(e);
	for (uint32_t i = 0; i < count; i++)
		if (tl_flow__host_value(idx, ts_node_named_child(e, i), taint, depth + 1))
			return true;
	return false;
}

bool tl_flow_host_derived(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	int32_t loop = tl_index_loop_of(idx, expr);
	int32_t func = tl_index_func_of(idx, expr);
	if (loop < 0 && func < 0)
		return false;
	/* The iteration: the loop body, or the body of a helper called per step. */
	TSNode body = loop >= 0 ? idx->loops.items[loop].body
				: ts_node_child_by_field_id(idx->funcs.items[func].node, sy->f_body);
	uint32_t at = ts_node_start_byte(expr);
	TlHostNames taint;
	tl_array_init(&taint);
	/* Names bound earlier in the same iteration to host copies, or to
	 * values computed from them: a fixpoint bounded by the names it adds. */
	const TlIntArray *binds = tl_index_scope_binds(idx, func);
	for (uint32_t round = 0; round < 64; round++) {
		bool changed = false;
		for (uint32_t i = 0; binds && i < binds->size; i++) {
			const TlBinding *b = &idx->bindings.items[binds->items[i]];
			if (b->pos > at || !tl_flow__contains(body, b->stmt) ||
			    (b->kind != TL_BIND_ASSIGN && b->kind != TL_BIND_AUG && b->kind != TL_BIND_FOR) ||
			    tl_flow__host_names_has(&taint, b->name))
				continue;
			if (tl_flow__host_value(idx, b->value, &taint, 0)) {
				tl_array_push(&taint, tl_strdup(b->name));
				changed = true;
			}
		}
		if (!changed)
			break;
	}
	bool yes = tl_flow__host_value(idx, expr, &taint, 0);
	tl_str_array_release((TlStrArray *)&taint);
	return yes;
}

/* ---- DataLoader batches ---------------------------------------------------------------- */

typedef struct TlLoaders {
	TlArray(TSNode) calls; /* DataLoader(...) constructions */
	bool unknown;          /* some way the value arrives is not one */
	int budget;            /* steps left (TL_FLOW_BUDGET) */
} TlLoaders;

static void tl_flow__loader_source(const TlIndex *idx, TSNode it, TlLoaders *out, int depth);
static void tl_flow__loaders(const TlIndex *idx, TSNode expr, TlLoaders *out, int depth);

static void tl_flow__loader_return(const TlIndex *idx, int32_t f, TlLoaders *out, int depth)
{
	const TlSyms *sy = tl_syms();
	TSNode fn = idx->funcs.items[f].node;
	TSTreeCursor cur = ts_tree_cursor_new(fn);
	bool descend = true, any = false;
	do {
		TSNode n = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(n);
		descend = ts_node_eq(n, fn) || (s != sy->function_definition &&
						s != sy->class_definition && s != sy->lambda);
		if (s == sy->return_statement && ts_node_named_child_count(n)) {
			any = true;
			tl_flow__loader_source(idx, ts_node_named_child(n, 0), out, depth + 1);
		}
	} while (tl_walk_next(&cur, fn, descend));
	ts_tree_cursor_delete(&cur);
	if (!any)
		out->unknown = true;
}

/* Follows parameter binding `b` to the arguments of its function's call
 * sites: as iterables (`source`) or as batches. */
static void tl_flow__loader_param(const TlIndex *idx, const TlBinding *b, TlLoaders *out,
				  int depth, bool source)
{
	const TlFunc *f = b->func >= 0 ? &idx->funcs.items[b->func] : NULL;
	int32_t k = f ? tl_flow__param_index(idx, f, b->name, strlen(b->name)) : -1;
	if (k < 0 || f->escapes || !f->call_sites.size) {
		out->unknown = true;
		return;
	}
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		TSNode arg = c->func == b->func ? (TSNode){ 0 } : tl_flow__param_arg(idx, f, k, c);
		if (ts_node_is_null(arg)) {
			out->unknown = true;
			continue;
		}
		if (source)
			tl_flow__loader_source(idx, arg, out, depth + 1);
		else
			tl_flow__loaders(idx, arg, out, depth + 1);
	}
}

/* The loaders an iterable expression is (a DataLoader, a name bound to
 * one, a local function returning one, a parameter passed one). */
static void tl_flow__loader_source(const TlIndex *idx, TSNode it, TlLoaders *out, int depth)
{
	const TlSyms *sy = tl_syms();
	it = tl_index_unparen(it);
	if (ts_node_is_null(it) || depth > TL_FLOW_DEPTH || --out->budget < 0) {
		out->unknown = true;
		return;
	}
	TSSymbol s = ts_node_symbol(it);
	if (s == sy->call) {
		const TlCall *c = tl_index_call_at(idx, it);
		if (c && c->qname && tl_flow__qname_is_api(c->qname, TL_API_DATA_LOADER)) {
			tl_array_push(&out->calls, it);
			return;
		}
		if (c && c->target >= 0) {
			tl_flow__loader_return(idx, c->target, out, depth + 1);
			return;
		}
		out->unknown = true;
		return;
	}
	if (s != sy->identifier && s != sy->attribute) {
		out->unknown = true;
		return;
	}
	const TlBinding *b = tl_index_resolve_node(idx, it);
	if (b && b->kind == TL_BIND_PARAM) {
		tl_flow__loader_param(idx, b, out, depth, true);
		return;
	}
	TSNode v = tl_flow__bound_value(b);
	if (ts_node_is_null(v) || b->elem >= 0) {
		out->unknown = true;
		return;
	}
	tl_flow__loader_source(idx, v, out, depth + 1);
}

/* Wrappers that iterate what they wrap: enumerate(loader), tqdm(loader). */
static TSNode tl_flow__unwrap_iterable(const TlIndex *idx, TSNode it, bool *enumerated)
{
	static const char *const wrappers[] = {
		"enumerate", "iter", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm",
	};
	const TlSyms *sy = tl_syms();
	for (int depth = 0; depth < TL_FLOW_DEPTH; depth++) {
		it = tl_index_unparen(it);
		if (ts_node_is_null(it) || ts_node_symbol(it) != sy->call)
			return it;
		const TlCall *c = tl_index_call_at(idx, it);
		const char *name = c ? (c->qname ? c->qname : (!c->receiver.id ? c->method : NULL)) : NULL;
		if (!name || !IN(name, wrappers))
			return it;
		if (strcmp(name, "enumerate") == 0)
			*enumerated = true;
		it = tl_flow__arg(it, 0);
	}
	return it;
}

/* Collects the DataLoaders whose batches `expr` holds: a loop target over
 * a loader (not enumerate's counter), an element or field of one, a name
 * unpacked from one, `next(iter(loader))`, a parameter passed one. */
static void tl_flow__loaders(const TlIndex *idx, TSNode expr, TlLoaders *out, int depth)
{
	const TlSyms *sy = tl_syms();
	expr = tl_index_unparen(expr);
	if (ts_node_is_null(expr) || depth > TL_FLOW_DEPTH || --out->budget < 0) {
		out->unknown = true;
		return;
	}
	TSSymbol s = ts_node_symbol(expr);
	if (s == sy->subscript) {
		tl_flow__loaders(idx, ts_node_child_by_field_id(expr, sy->f_value), out, depth + 1);
		return;
	}
	if (s == sy->call) {
		/* next(it), next(iter(loader)) */
		const TlCall *c = tl_index_call_at(idx, expr);
		if (c && !c->receiver.id && c->method && strcmp(c->method, "next") == 0 && !c->qname) {
			bool enumerated = false;
			TSNode it = tl_flow__unwrap_iterable(idx, tl_flow__arg(expr, 0), &enumerated);
			const TlBinding *ib = ts_node_symbol(tl_index_unparen(it)) == sy->identifier
						      ? tl_index_resolve_node(idx, it) : NULL;
			TSNode iv = tl_flow__bound_value(ib);
			if (!ts_node_is_null(iv))
				it = tl_flow__unwrap_iterable(idx, iv, &enumerated);
			if (!enumerated) {
				tl_flow__loader_source(idx, it, out, depth + 1);
				return;
			}
		}
		out->unknown = true;
		return;
	}
	if (s != sy->identifier && s != sy->attribute) {
		out->unknown = true;
		return;
	}
	if (s == sy->identifier && tl_flow__comprehension_local(idx, expr)) {
		out->unknown = true;
		return;
	}
	const TlBinding *b = tl_index_resolve_node(idx, expr);
	if (!b && s == sy->attribute) { /* batch.image */
		tl_flow__loaders(idx, ts_node_child_by_field_id(expr, sy->f_object), out, depth + 1);
		return;
	}
	if (!b) {
		out->unknown = true;
		return;
	}
	if (b->kind == TL_BIND_FOR) {
		bool enumerated = false;
		TSNode it = tl_flow__unwrap_iterable(idx, b->value, &enumerated);
		if (enumerated && b->elem == 0) {
			out->unknown = true; /* enumerate's counter */
			return;
		}
		/* for k, v in batch.items(): the values of a batch */
		const TlCall *c = ts_node_symbol(tl_index_unparen(it)) == sy->call
					  ? tl_index_call_at(idx, tl_index_unparen(it)) : NULL;
		if (c && c->receiver.id && c->method &&
		    (strcmp(c->method, "items") == 0 || strcmp(c->method, "values") == 0)) {
			tl_flow__loaders(idx, c->receiver, out, depth + 1);
			return;
		}
		tl_flow__loader_source(idx, it, out, depth + 1);
		return;
	}
	if (b->kind == TL_BIND_PARAM) {
		tl_flow__loader_param(idx, b, out, depth, false);
		return;
	}
	TSNode v = tl_flow__bound_value(b);
	if (ts_node_is_null(v)) {
		out->unknown = true;
		return;
	}
	TSSymbol vs = ts_node_symbol(v);
	if (vs == sy->identifier || vs == sy->attribute || vs == sy->subscript || vs == sy->call)
		tl_flow__loaders(idx, v, out, depth + 1);
	else
		out->unknown = true;
}

static void tl_flow__loaders_collect(const TlIndex *idx, TSNode expr, TlLoaders *out)
{
	tl_array_init(&out->calls);
	out->unknown = false;
	out->budget = TL_FLOW_BUDGET;
	tl_flow__loaders(idx, expr, out, 0);
}

bool tl_flow_from_loader(const TlIndex *idx, TSNode expr)
{
	TlLoaders ls;
	tl_flow__loaders_collect(idx, expr, &ls);
	bool yes = ls.calls.size > 0 && !ls.unknown;
	tl_array_release(&ls.calls);
	return yes;
}

/* DataLoader's positional parameters, in order (for options passed without
 * their keyword). */
static const char *const tl_flow__loader_params[] = {
	"dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers",
	"collate_fn", "pin_memory", "drop_last", "timeout", "worker_init_fn",
	"multiprocessing_context", "generator",
};

bool tl_flow_loader_option(const TlIndex *idx, TSNode expr, const char *option)
{
	const TlSyms *sy = tl_syms();
	TlLoaders ls;
	tl_flow__loaders_collect(idx, expr, &ls);
	bool set = false;
	for (uint32_t i = 0; i < ls.calls.size && !set; i++) {
		TSNode call = ls.calls.items[i];
		TSNode v = tl_flow__kwarg(idx, call, option);
		for (uint32_t k = 0; ts_node_is_null(v) &&
				     k < sizeof tl_flow__loader_params / sizeof *tl_flow__loader_params; k++)
			if (strcmp(tl_flow__loader_params[k], option) == 0)
				v = tl_flow__arg(call, k);
		if (ts_node_is_null(v)) {
			/* DataLoader(ds, **kwargs) may set it. */
			set = tl_flow_passes_keyword(idx, call, option);
			continue;
		}
		v = tl_index_unparen(v);
		TSSymbol s = ts_node_symbol(v);
		set = !(s == sy->false_ || s == sy->none ||
			(s == sy->integer && tl_index_text_is(idx, v, "0")));
	}
	tl_array_release(&ls.calls);
	return set;
}

/* ---- gradient accumulation and DDP ------------------------------------------------------- */

/* True when the backward at `at` (in `loop` of `func`) runs on iterations
 * that do not step: see tl_flow_accumulation_backward. */
static bool tl_flow__accum_at(const TlIndex *idx, TSNode at, int32_t func, int32_t loop, int depth,
			      int *budget)
{
	if (depth > TL_FLOW_DEPTH || --*budget < 0)
		return false;
	if (loop < 0) {
		if (func < 0)
			return false;
		const TlFunc *f = &idx->funcs.items[func];
		for (uint32_t i = 0; i < f->call_sites.size; i++) {
			const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
			if (c->func != func && tl_flow__accum_at(idx, c->node, c->func, c->loop, depth + 1, budget))
				return true;
		}
		return false;
	}
	const TlLoop *l = &idx->loops.items[loop];
	if (!(l->own_events & TL_EV_OPT_STEP)) {
		/* A micro-batch loop: the step comes after it, in the loop around it. */
		return l->parent >= 0 && (idx->loops.items[l->parent].own_events & TL_EV_OPT_STEP);
	}
	/* Every step of the iteration sits under an every-N guard that does
	 * not also hold `at`. */
	const TlIntArray *calls = tl_index_scope_calls(idx, l->func);
	bool any = false;
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (c->loop != loop)
			continue;
		uint32_t ev = c->events | (c->target >= 0 ? idx->funcs.items[c->target].flat_events : 0);
		if (!(ev & TL_EV_OPT_STEP))
			continue;
		any = true;
		TSNode g = tl_flow__guard_between(idx, c->node, l->body);
		TSNode ga = tl_flow__guard_between(idx, at, l->body);
		if (ts_node_is_null(g) || tl_flow__contains(g, at) ||
		    (!ts_node_is_null(ga) && ts_node_eq(ga, g)))
			return false;
	}
	return any;
}

bool tl_flow_accumulation_backward(const TlIndex *idx, TSNode call)
{
	int budget = TL_FLOW_BUDGET;
	return tl_flow__accum_at(idx, call, tl_index_func_of(idx, call), tl_index_loop_of(idx, call), 0,
				 &budget);
}

/* True when the subtree of `n` names an attribute `attr` (`model.no_sync`). */
static bool tl_flow__names_attribute(const TlIndex *idx, TSNode n, const char *attr, int depth,
				     int *budget)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_is_null(n) || depth > TL_FLOW_DEPTH || --*budget < 0)
		return false;
	TSTreeCursor cur = ts_tree_cursor_new(n);
	bool found = false, descend = true;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(x);
		descend = true;
		if (s == sy->attribute &&
		    tl_index_text_is(idx, ts_node_child_by_field_id(x, sy->f_attribute), attr)) {
			found = true;
		} else if (s == sy->identifier && !ts_node_eq(x, n)) {
			/* ctx = model.no_sync if ... else nullcontext; with ctx(): */
			const TlBinding *b = tl_index_resolve_node(idx, x);
			TSNode v = tl_flow__bound_value(b);
			if (!ts_node_is_null(v) && b->elem < 0 && !tl_flow__contains(v, x))
				found = tl_flow__names_attribute(idx, v, attr, depth + 1, budget);
		}
	} while (!found && tl_walk_next(&cur, n, descend));
	ts_tree_cursor_delete(&cur);
	return found;
}

static bool tl_flow__assigns_attribute(const TlIndex *idx, TSNode body, const char *attr)
{
	const TlSyms *sy = tl_syms();
	TSTreeCursor cur = ts_tree_cursor_new(body);
	bool found = false, descend = true;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		descend = true;
		if (ts_node_symbol(x) == sy->assignment) {
			TSNode left = tl_index_unparen(ts_node_child_by_field_id(x, sy->f_left));
			found = ts_node_symbol(left) == sy->attribute &&
				tl_index_text_is(idx, ts_node_child_by_field_id(left, sy->f_attribute), attr);
		}
	} while (!found && tl_walk_next(&cur, body, descend));
	ts_tree_cursor_delete(&cur);
	return found;
}

static bool tl_flow__no_sync(const TlIndex *idx, TSNode node, int32_t func, int32_t with,
			     int32_t loop, int depth, int *budget)
{
	if (--*budget < 0)
		return false;
	for (int32_t w = with; w >= 0; w = idx->withs.items[w].parent) {
		TSNode wn = idx->withs.items[w].node;
		uint32_t count = ts_node_named_child_count(wn);
		for (uint32_t k = 0; k < count; k++) {
			TSNode clause = ts_node_named_child(wn, k);
			if (ts_node_eq(clause, idx->withs.items[w].body))
				continue;
			if (tl_flow__names_attribute(idx, clause, "no_sync", 0, budget) ||
			    tl_flow__names_attribute(idx, clause, "accumulate", 0, budget))
				return true;
		}
	}
	/* model.require_backward_grad_sync = (micro_step == last) */
	for (int32_t l = loop; l >= 0; l = idx->loops.items[l].parent)
		if (tl_flow__assigns_attribute(idx, idx->loops.items[l].body, "require_backward_grad_sync"))
			return true;
	if (func < 0 || depth > TL_FLOW_DEPTH)
		return false;
	const TlFunc *f = &idx->funcs.items[func];
	if (f->escapes || !f->call_sites.size)
		return false;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (c->func == func || !tl_flow__no_sync(idx, c->node, c->func, c->with, c->loop, depth + 1, budget))
			return false;
	}
	(void)node;
	return true;
}

bool tl_flow_no_sync(const TlIndex *idx, TSNode node)
{
	int budget = TL_FLOW_BUDGET;
	return tl_flow__no_sync(idx, node, tl_index_func_of(idx, node), tl_index_with_of(idx, node),
				tl_index_loop_of(idx, node), 0, &budget);
}

static bool tl_flow__wrapper_qname(const char *q, TlWrapper kind)
{
	switch (kind) {
	case TL_WRAP_DDP:
		return tl_flow__ends(q, "DistributedDataParallel");
	case TL_WRAP_FSDP:
		return tl_flow__ends(q, "FullyShardedDataParallel");
	}
	return false;
}

static bool tl_flow__wrapped(const TlIndex *idx, TSNode e, TlWrapper kind, int depth, int *budget)
{
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	if (ts_node_is_null(e) || depth > TL_FLOW_DEPTH || --*budget < 0)
		return false;
	TSSymbol s = ts_node_symbol(e);
	if (s == sy->call) {
		const TlCall *c = tl_index_call_at(idx, e);
		return c && c->qname && tl_flow__wrapper_qname(c->qname, kind);
	}
	if (s != sy->identifier && s != sy->attribute)
		return false;
	const TlBinding *b = tl_index_resolve_node(idx, e);
	if (b && b->kind == TL_BIND_PARAM && b->func >= 0) {
		const TlFunc *f = &idx->funcs.items[b->func];
		int32_t k = tl_flow__param_index(idx, f, b->name, strlen(b->name));
		if (k < 0 || f->escapes || !f->call_sites.size)
			return false;
		for (uint32_t i = 0; i < f->call_sites.size; i++) {
			const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
			TSNode arg = c->func == b->func ? (TSNode){ 0 } : tl_flow__param_arg(idx, f, k, c);
			if (ts_node_is_null(arg) || !tl_flow__wrapped(idx, arg, kind, depth + 1, budget))
				return false;
		}
		return true;
	}
	TSNode v = tl_flow__bound_value(b);
	return !ts_node_is_null(v) && tl_flow__wrapped(idx, v, kind, depth + 1, budget);
}

/* True when the value of `e` was computed by a forward of a wrapped module,
 * or from a name bound to one (`loss = criterion(model(x), y)`), or by a
 * call that is handed the wrapped module (`loss = step(model, batch)`). */
static bool tl_flow__through(const TlIndex *idx, TSNode e, TlWrapper kind, int depth, int *budget)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_is_null(e) || depth > TL_FLOW_DEPTH || --*budget < 0)
		return false;
	TSTreeCursor cur = ts_tree_cursor_new(e);
	bool found = false, descend = true;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(x);
		descend = true;
		if (s == sy->identifier || s == sy->attribute) {
			char *name = tl_flow__dotted(idx, x);
			if (name) {
				descend = false;
				if (tl_flow__wrapped(idx, x, kind, 0, budget)) {
					found = true;
				} else {
					const TlBinding *b = tl_index_resolve_node(idx, x);
					TSNode v = tl_flow__bound_value(b);
					if (!ts_node_is_null(v) && !tl_flow__contains(v, x))
						found = tl_flow__through(idx, v, kind, depth + 1, budget);
				}
			}
			tl_free(name);
		}
	} while (!found && tl_walk_next(&cur, e, descend));
	ts_tree_cursor_delete(&cur);
	return found;
}

bool tl_flow_backward_through(const TlIndex *idx, TSNode call, TlWrapper kind)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!c || !(c->events & TL_EV_BACKWARD))
		return false;
	int budget = TL_FLOW_BUDGET;
	return tl_flow__through(idx, tl_flow__backward_subject(idx, c), kind, 0, &budget);
}

/* ---- scratch values --------------------------------------------------------------------- */

/* True when `name` is stored somewhere that outlives the iteration of loop
 * `l`: appended to a container, assigned into an attribute or an element,
 * returned or yielded. */
static bool tl_flow__kept(const TlIndex *idx, const char *name, TSNode body)
{
	static const char *const storing[] = { "append", "extend", "insert", "add", "put", "setdefault" };
	const TlSyms *sy = tl_syms();
	TlNames one;
	tl_array_init(&one);
	tl_array_push(&one, tl_strdup(name));
	TSTreeCursor cur = ts_tree_cursor_new(body);
	bool kept = false, descend = true;
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(x);
		descend = true;
		if (s == sy->return_statement || s == sy->yield) {
			kept = tl_flow__mentions(idx, x, &one);
		} else if (s == sy->call) {
			const TlCall *c = tl_index_call_at(idx, x);
			kept = c && c->receiver.id && IN(c->method, storing) &&
			       tl_flow__mentions(idx, ts_node_child_by_field_id(x, sy->f_arguments), &one);
		} else if (s == sy->assignment) {
			TSNode left = tl_index_unparen(ts_node_child_by_field_id(x, sy->f_left));
			TSNode right = ts_node_child_by_field_id(x, sy->f_right);
			TSSymbol ls = ts_node_symbol(left);
			kept = (ls == sy->attribute || ls == sy->subscript) &&
			       tl_flow__mentions(idx, right, &one);
		}
	} while (!kept && tl_walk_next(&cur, body, descend));
	ts_tree_cursor_delete(&cur);
	tl_flow__names_release(&one);
	return kept;
}

static bool tl_flow__dies(const TlIndex *idx, TSNode expr, int depth, int *budget)
{
	const TlSyms *sy = tl_syms();
	int32_t loop = tl_index_loop_of(idx, expr);
	int32_t func = tl_index_func_of(idx, expr);
	if ((loop < 0 && func < 0) || depth > TL_FLOW_DEPTH || --*budget < 0)
		return false;
	/* In a helper called per step, the helper's body is the iteration. */
	TSNode body = loop >= 0 ? idx->loops.items[loop].body
				: ts_node_child_by_field_id(idx->funcs.items[func].node, sy->f_body);
	TSNode child = expr;
	for (TSNode p = ts_node_parent(expr); !ts_node_is_null(p) && !ts_node_eq(p, body);
	     child = p, p = ts_node_parent(p)) {
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->yield)
			return false;
		if (s == sy->return_statement) {
			/* Returned from a helper: it dies if it dies at every call. */
			if (loop >= 0 || func < 0)
				return false;
			const TlFunc *f = &idx->funcs.items[func];
			if (f->escapes || !f->call_sites.size)
				return false;
			for (uint32_t i = 0; i < f->call_sites.size; i++) {
				const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
				if (c->func == func || !tl_flow__dies(idx, c->node, depth + 1, budget))
					return false;
			}
			return true;
		}
		if (s == sy->call) {
			const TlCall *c = tl_index_call_at(idx, p);
			if (c && c->receiver.id && c->method &&
			    (strcmp(c->method, "append") == 0 || strcmp(c->method, "extend") == 0 ||
			     strcmp(c->method, "insert") == 0))
				return false;
		}
		if (s == sy->assignment || s == sy->augmented_assignment) {
			if (!ts_node_eq(ts_node_child_by_field_id(p, sy->f_right), child))
				return false;
			TSNode left = tl_index_unparen(ts_node_child_by_field_id(p, sy->f_left));
			if (ts_node_symbol(left) != sy->identifier)
				return false; /* self.buf = ..., cache[k] = ... */
			char *name = tl_flow__dotted(idx, left);
			bool kept = !name || tl_flow__kept(idx, name, body);
			tl_free(name);
			return !kept;
		}
		if (s == sy->expression_statement || s == sy->block)
			return true;
	}
	return true;
}

bool tl_flow_dies_in_iteration(const TlIndex *idx, TSNode expr)
{
	int budget = TL_FLOW_BUDGET;
	return tl_flow__dies(idx, expr, 0, &budget);
}

/* ---- loops ------------------------------------------------------------------------ */

char *tl_flow_root_name(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	expr = tl_index_unparen(expr);
	while (!ts_node_is_null(expr)) {
		TSSymbol s = ts_node_symbol(expr);
		if (s == sy->subscript)
			expr = tl_index_unparen(ts_node_child_by_field_id(expr, sy->f_value));
		else if (s == sy->call) /* history.setdefault(k, []) */
			expr = tl_index_unparen(ts_node_child_by_field_id(
				tl_index_unparen(ts_node_child_by_field_id(expr, sy->f_function)),
				sy->f_object));
		else
			break;
	}
	if (ts_node_is_null(expr))
		return NULL;
	return tl_flow__dotted(idx, expr);
}

bool tl_flow_outlives_iteration(const TlIndex *idx, TSNode expr)
{
	int32_t loop = tl_index_loop_of(idx, expr);
	if (loop < 0)
		return false;
	char *name = tl_flow_root_name(idx, expr);
	if (!name)
		return false;
	const TlLoop *l = &idx->loops.items[loop];
	bool rebound = false;
	const TlIntArray *same = tl_index_bindings_of(idx, l->func, name);
	for (uint32_t i = 0; same && i < same->size && !rebound; i++) {
		const TlBinding *b = &idx->bindings.items[same->items[i]];
		if (b->kind == TL_BIND_AUG)
			continue;
		if (b->kind == TL_BIND_FOR) {
			/* The loop's own target, or a loop nested in its body. */
			if (ts_node_eq(b->stmt, l->node) || tl_flow__contains(l->body, b->stmt))
				rebound = true;
			continue;
		}
		if (tl_flow__contains(b->stmt, expr))
			continue; /* the store itself: total = total + loss */
		if (tl_flow__contains(l->body, b->stmt))
			rebound = true;
	}
	tl_free(name);
	return !rebound;
}

/* Counts the step loops of a node in function `func` whose innermost loop
 * there is `loop`; appends their indices to `out` when not NULL. */
static uint32_t tl_flow__step_loops(const TlIndex *idx, int32_t func, int32_t loop,
				    uint32_t events, uint32_t *missing, TlIntArray *out,
				    int depth)
{
	for (int32_t l = loop; l >= 0; l = idx->loops.items[l].parent) {
		const TlLoop *lp = &idx->loops.items[l];
		if (lp->events & TL_EV_BACKWARD) {
			if (!(lp->events & events))
				(*missing)++;
			if (out)
				tl_array_push(out, l);
			return 1;
		}
	}
	if (func < 0 || depth > TL_FLOW_DEPTH)
		return 0;
	const TlFunc *f = &idx->funcs.items[func];
	uint32_t found = 0;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (c->func == func)
			continue;
		if (!tl_flow__fan_step())
			return 0;
		found += tl_flow__step_loops(idx, c->func, c->loop, events, missing, out, depth + 1);
	}
	return found;
}

uint32_t tl_flow_step_loops(const TlIndex *idx, TSNode node, uint32_t events,
			    uint32_t *missing)
{
	*missing = 0;
	tl_flow__fan_begin();
	uint32_t found = tl_flow__step_loops(idx, tl_index_func_of(idx, node), tl_index_loop_of(idx, node),
					     events, missing, NULL, 0);
	tl_flow__fan_end();
	if (tl_flow__fan_budget < 0)
		found = *missing = 0; /* out of budget: no answer */
	return found;
}

/* The step loops of `node` (see tl_flow_step_loops), as loop indices. */
static void tl_flow__step_loop_list(const TlIndex *idx, TSNode node, TlIntArray *out)
{
	uint32_t missing = 0;
	tl_flow__fan_begin();
	tl_flow__step_loops(idx, tl_index_func_of(idx, node), tl_index_loop_of(idx, node), 0,
			    &missing, out, 0);
	tl_flow__fan_end();
}

/* ---- module identity --------------------------------------------------------------- */

/* One module, or a part of one: the call that constructed it and the
 * attribute path below it ("" for the module itself, ".encoder"). */
typedef struct TlModRef {
	TSNode root;
	char *path;
} TlModRef;

typedef TlArray(TlModRef) TlModSet;

static void tl_flow__modset_release(TlModSet *set)
{
	for (uint32_t i = 0; i < set->size; i++)
		tl_free(set->items[i].path);
	tl_array_release(set);
}

static TSNode tl_flow__module_root_at(const TlIndex *idx, TSNode expr, TlBuf *path, int depth,
				      uint32_t *budget);

/* The module a parameter holds, when every caller in the file passes the
 * same construction (`train(netG, ...)` called with `Generator(nz)`). */
static TSNode tl_flow__param_root(const TlIndex *idx, const TlBinding *param, TlBuf *path,
				  int depth, uint32_t *budget)
{
	TSNode none = { 0 }, agreed = { 0 };
	if (param->func < 0)
		return none;
	const TlFunc *f = &idx->funcs.items[param->func];
	if (f->escapes || !f->call_sites.size)
		return none;
	TlBuf agreed_path;
	tl_buf_init(&agreed_path);
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		TSNode arg = c->func == param->func || !*budget ? none : tl_flow__param_arg_of(idx, param, c);
		if (*budget)
			(*budget)--;
		TlBuf p;
		tl_buf_init(&p);
		TSNode r = ts_node_is_null(arg) ? none
					       : tl_flow__module_root_at(idx, arg, &p, depth + 1, budget);
		bool same = !ts_node_is_null(r) &&
			    (i == 0 || (ts_node_eq(r, agreed) && strcmp(p.data, agreed_path.data) == 0));
		if (same && i == 0) {
			agreed = r;
			tl_buf_add(&agreed_path, p.data);
		}
		tl_buf_release(&p);
		if (!same) {
			tl_buf_release(&agreed_path);
			return none;
		}
	}
	/* The argument's own path comes before what was below the parameter. */
	TlBuf joined;
	tl_buf_init(&joined);
	tl_buf_add(&joined, agreed_path.data);
	tl_buf_add(&joined, path->data);
	tl_buf_clear(path);
	tl_buf_add(path, joined.data);
	tl_buf_release(&joined);
	tl_buf_release(&agreed_path);
	return agreed;
}

/* The call that constructed the module `expr` holds (`Generator(nz)` for
 * `netG = Generator(nz).to(device)`), following names, `self.` attributes,
 * methods that return the module, wrappers, `accelerator.prepare` and
 * parameters whose callers agree. Prepends the attribute path below it
 * (`model.encoder`: ".encoder") to `path`. Null when the construction cannot
 * be told. */
static TSNode tl_flow__module_root(const TlIndex *idx, TSNode expr, TlBuf *path)
{
	uint32_t budget = TL_FLOW_BUDGET;
	return tl_flow__module_root_at(idx, expr, path, 0, &budget);
}

static TSNode tl_flow__module_root_at(const TlIndex *idx, TSNode expr, TlBuf *path, int depth,
				      uint32_t *budget)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	for (; depth <= TL_FLOW_DEPTH; depth++) {
		expr = tl_index_unparen(expr);
		if (ts_node_is_null(expr))
			return none;
		TSSymbol s = ts_node_symbol(expr);
		if (s == sy->identifier || s == sy->attribute) {
			const TlBinding *b = tl_index_resolve_node(idx, expr);
			if (!b) {
				if (s != sy->attribute)
					return none;
				/* model.encoder: a part of model. */
				uint32_t len;
				const char *t = tl_index_text(idx,
							      ts_node_child_by_field_id(expr, sy->f_attribute), &len);
				TlBuf p;
				tl_buf_init(&p);
				tl_buf_addc(&p, '.');
				tl_buf_addn(&p, t, len);
				tl_buf_add(&p, path->data);
				tl_buf_clear(path);
				tl_buf_add(path, p.data);
				tl_buf_release(&p);
				expr = ts_node_child_by_field_id(expr, sy->f_object);
				continue;
			}
			if (b->kind == TL_BIND_PARAM)
				return tl_flow__param_root(idx, b, path, depth, budget);
			expr = tl_flow__held(idx, b);
			continue;
		}
		if (s != sy->call)
			return none;
		const TlCall *c = tl_index_call_at(idx, expr);
		if (!c)
			return none;
		TSNode through = tl_flow__module_through(c, expr, true);
		if (!ts_node_is_null(through)) {
			expr = through;
			continue;
		}
		if (c->qname && (tl_flow_is_module_class_name(c->qname) ||
				 tl_flow__is_model_loader(c->qname)))
			return expr;
		const TlBinding *cb = tl_index_resolve_node(idx, c->callee);
		if (cb && cb->kind == TL_BIND_CLASS && idx->classes.items[cb->ref].is_module)
			return expr;
		return none;
	}
	return none;
}

/* True when constructor call `a` is given (an argument whose module root
 * is) constructor call `b`: `Seq2Seq(encoder, decoder)` holds the encoder. */
static bool tl_flow__built_from(const TlIndex *idx, TSNode a, TSNode b)
{
	const TlSyms *sy = tl_syms();
	TSNode args = ts_node_child_by_field_id(a, sy->f_arguments);
	if (ts_node_is_null(args))
		return false;
	bool found = false;
	TSTreeCursor cur = ts_tree_cursor_new(args);
	bool descend = true;
	TlBuf p;
	tl_buf_init(&p);
	do {
		TSNode x = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(x);
		descend = true;
		if (s == sy->identifier || s == sy->attribute) {
			descend = false;
			tl_buf_clear(&p);
			TSNode r = tl_flow__module_root(idx, x, &p);
			found = !ts_node_is_null(r) && ts_node_eq(r, b);
		}
	} while (!found && tl_walk_next(&cur, args, descend));
	tl_buf_release(&p);
	ts_tree_cursor_delete(&cur);
	return found;
}

enum { TL_REL_DISJOINT, TL_REL_OVERLAP, TL_REL_COVERS };

/* How module `r` relates to module part `e`: it covers all of `e` (the same
 * module, or a whole module containing the part), overlaps it, or is
 * disjoint from it (two modules built independently). */
static int tl_flow__relate(const TlIndex *idx, const TlModRef *r, const TlModRef *e)
{
	if (ts_node_eq(r->root, e->root))
		return (!r->path[0] || strcmp(r->path, e->path) == 0) ? TL_REL_COVERS : TL_REL_OVERLAP;
	if (tl_flow__built_from(idx, r->root, e->root) || tl_flow__built_from(idx, e->root, r->root))
		return TL_REL_OVERLAP;
	return TL_REL_DISJOINT;
}

/* True when `n` sits inside a comprehension or lambda below `top`: names
 * there are the comprehension's own. */
static bool tl_flow__in_comprehension(TSNode n, TSNode top)
{
	const TlSyms *sy = tl_syms();
	for (TSNode p = ts_node_parent(n); !ts_node_is_null(p) && !ts_node_eq(p, top);
	     p = ts_node_parent(p)) {
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->list_comprehension || s == sy->generator_expression || s == sy->lambda)
			return true;
	}
	return false;
}

/* True when `n` is the function a call calls. */
static bool tl_flow__is_callee(TSNode n)
{
	const TlSyms *sy = tl_syms();
	TSNode p = ts_node_parent(n);
	return !ts_node_is_null(p) && ts_node_symbol(p) == sy->call &&
	       ts_node_eq(ts_node_child_by_field_id(p, sy->f_function), n);
}

static bool tl_flow__ctor_modules(const TlIndex *idx, TSNode ctor, TlModSet *out);

/* The modules whose parameters optimizer `opt` updates: every
 * `m.parameters()` (or module passed whole, as to timm's
 * create_optimizer_v2) in the parameter argument of its construction,
 * following names. False when they cannot all be told. */
static bool tl_flow__optimizer_modules(const TlIndex *idx, TSNode opt, TlModSet *out)
{
	const TlSyms *sy = tl_syms();
	opt = tl_index_unparen(opt);
	TSNode ctor = { 0 };
	for (int depth = 0; depth <= TL_FLOW_DEPTH && ts_node_is_null(ctor); depth++) {
		TSSymbol s = ts_node_symbol(opt);
		if (s != sy->identifier && s != sy->attribute)
			return false;
		const TlBinding *b = tl_index_resolve_node(idx, opt);
		TSNode v = tl_index_unparen(tl_flow__held(idx, b));
		if (ts_node_is_null(v))
			return false;
		if (ts_node_symbol(v) != sy->call) {
			opt = v; /* another name */
			continue;
		}
		const TlCall *c = tl_index_call_at(idx, v);
		if (!c || !c->qname || !tl_flow__optimizer_qname(c->qname))
			return false;
		ctor = v;
	}
	return !ts_node_is_null(ctor) && tl_flow__ctor_modules(idx, ctor, out);
}

/* The modules whose parameters the optimizer constructed by call `ctor`
 * updates (see tl_flow__optimizer_modules). */
static bool tl_flow__ctor_modules(const TlIndex *idx, TSNode ctor, TlModSet *out)
{
	const TlSyms *sy = tl_syms();
	TSNode params = tl_flow__kwarg(idx, ctor, "params");
	if (ts_node_is_null(params))
		params = tl_flow__arg(ctor, 0);
	if (ts_node_is_null(params))
		return false;
	/* Breadth-first over the argument and the values of the names it
	 * reads; 16 values are plenty for a parameter list. */
	TlArray(TSNode) todo;
	tl_array_init(&todo);
	tl_array_push(&todo, params);
	bool ok = true;
	TlBuf path;
	tl_buf_init(&path);
	for (uint32_t step = 0; ok && step < todo.size; step++) {
		TSNode top = todo.items[step];
		TSTreeCursor cur = ts_tree_cursor_new(top);
		bool descend = true;
		do {
			TSNode x = ts_tree_cursor_current_node(&cur);
			TSSymbol s = ts_node_symbol(x);
			descend = true;
			const TlCall *c = s == sy->call ? tl_index_call_at(idx, x) : NULL;
			TSNode module = { 0 };
			if (c && c->receiver.id && c->method &&
			    (strcmp(c->method, "parameters") == 0 ||
			     strcmp(c->method, "named_parameters") == 0)) {
				module = c->receiver;
			} else if (s == sy->keyword_argument) {
				x = ts_node_child_by_field_id(x, sy->f_value);
				if (ts_node_is_null(x))
					continue;
				s = ts_node_symbol(x);
				descend = false;
				if (s != sy->identifier && s != sy->attribute) {
					if (todo.size < 16)
						tl_array_push(&todo, x);
					continue;
				}
			}
			if (ts_node_is_null(module) && (s == sy->identifier || s == sy->attribute)) {
				descend = false;
				if (tl_flow__is_callee(x) || tl_flow__in_comprehension(x, top))
					continue;
				if (tl_flow__module_expr(idx, x, 0)) {
					module = x;
				} else {
					const TlBinding *b = tl_index_resolve_node(idx, x);
					if (!b || b->kind == TL_BIND_IMPORT || b->kind == TL_BIND_DEF ||
					    b->kind == TL_BIND_CLASS)
						continue;
					if (b->kind == TL_BIND_ASSIGN && b->elem < 0 &&
					    !ts_node_is_null(b->value) && todo.size < 16) {
						tl_array_push(&todo, b->value);
						continue;
					}
					ok = false;
					break;
				}
			}
			if (!ts_node_is_null(module)) {
				descend = false;
				tl_buf_clear(&path);
				TSNode r = tl_flow__module_root(idx, module, &path);
				if (ts_node_is_null(r)) {
					ok = false;
					break;
				}
				TlModRef m = { r, tl_strdup(path.data) };
				tl_array_push(out, m);
			}
		} while (tl_walk_next(&cur, top, descend));
		ts_tree_cursor_delete(&cur);
	}
	tl_buf_release(&path);
	tl_array_release(&todo);
	return ok && out->size > 0;
}

/* The optimizer a step call steps: `opt` of opt.step(), or of scaler.step(opt). */
static TSNode tl_flow__stepped(const TlIndex *idx, const TlCall *step)
{
	if (step->receiver.id && tl_flow_is_scaler(idx, step->receiver))
		return tl_flow__arg(step->node, 0);
	return step->receiver;
}

/* How far gradient reset `reset` (a zero_grad() call; NULL for a
 * `p.grad = None` statement) reaches into the parameters of optimizer
 * `opt`: TL_COVER_*. */
static int tl_flow__reset_covers(const TlIndex *idx, const TlCall *reset, TSNode opt)
{
	if (!reset || !reset->method || strcmp(reset->method, "zero_grad") != 0 ||
	    !reset->receiver.id || ts_node_is_null(opt))
		return TL_COVER_UNKNOWN;
	TSNode x = reset->receiver;
	const TlBinding *bx = tl_index_resolve_node(idx, x);
	const TlBinding *bo = tl_index_resolve_node(idx, opt);
	if (bx && bx == bo)
		return TL_COVER_FULL;
	char *nx = tl_flow__dotted(idx, x), *no = tl_flow__dotted(idx, opt);
	bool same = nx && no && strcmp(nx, no) == 0 &&
		    tl_index_func_of(idx, x) == tl_index_func_of(idx, opt);
	tl_free(nx);
	tl_free(no);
	if (same)
		return TL_COVER_FULL;
	TlModSet oset, rset;
	tl_array_init(&oset);
	tl_array_init(&rset);
	int cover = TL_COVER_UNKNOWN;
	if (!tl_flow__optimizer_modules(idx, opt, &oset))
		goto cleanup;
	if (tl_flow_is_optimizer(idx, x)) {
		if (!tl_flow__optimizer_modules(idx, x, &rset))
			goto cleanup;
	} else {
		TlBuf path;
		tl_buf_init(&path);
		TSNode r = tl_flow__module_root(idx, x, &path);
		if (ts_node_is_null(r)) {
			tl_buf_release(&path);
			goto cleanup;
		}
		TlModRef m = { r, tl_buf_detach(&path) };
		tl_array_push(&rset, m);
	}
	/* Full when the reset covers every part the optimizer updates, none
	 * when it is disjoint from every one. */
	uint32_t covered = 0, disjoint = 0;
	for (uint32_t i = 0; i < oset.size; i++) {
		bool cov = false, dis = true;
		for (uint32_t k = 0; k < rset.size; k++) {
			int rel = tl_flow__relate(idx, &rset.items[k], &oset.items[i]);
			cov = cov || rel == TL_REL_COVERS;
			dis = dis && rel == TL_REL_DISJOINT;
		}
		covered += cov;
		disjoint += dis;
	}
	cover = covered == oset.size ? TL_COVER_FULL
		: disjoint == oset.size ? TL_COVER_NONE : TL_COVER_SOME;
cleanup:
	tl_flow__modset_release(&oset);
	tl_flow__modset_release(&rset);
	return cover;
}

/* ---- an iteration in order ----------------------------------------------------------- */

/* One call (or `.grad = ...` statement) of an iteration. */
typedef struct TlStep {
	const TlCall *call; /* NULL for a site */
	TSNode node;
	uint32_t events;
	TSNode anchor;      /* the node in the walked range that runs it: itself, or
			     * the call of the local function it runs in */
} TlStep;

typedef TlArray(TlStep) TlSteps;

/* Calls and sites of function `func` (-1: module) inside `range`, in source
 * order. */
static void tl_flow__range_items(const TlIndex *idx, int32_t func, TSNode range, TlSteps *out)
{
	uint32_t start = ts_node_start_byte(range), end = ts_node_end_byte(range);
	const TlIntArray *calls = tl_index_scope_calls(idx, func);
	uint32_t k = 0, i = 0, ncalls = calls ? calls->size : 0;
	for (;;) {
		while (k < ncalls && (ts_node_start_byte(idx->calls.items[calls->items[k]].node) < start ||
				      ts_node_end_byte(idx->calls.items[calls->items[k]].node) > end))
			k++;
		while (i < idx->sites.size &&
		       (idx->sites.items[i].func != func ||
			ts_node_start_byte(idx->sites.items[i].node) < start ||
			ts_node_end_byte(idx->sites.items[i].node) > end))
			i++;
		const TlCall *c = k < ncalls ? &idx->calls.items[calls->items[k]] : NULL;
		const TlSite *st = i < idx->sites.size ? &idx->sites.items[i] : NULL;
		if (!c && !st)
			break;
		TlStep item;
		if (c && (!st || ts_node_start_byte(c->node) <= ts_node_start_byte(st->node))) {
			item = (TlStep){ c, c->node, c->events, c->node };
			k++;
		} else {
			item = (TlStep){ NULL, st->node, st->events, st->node };
			i++;
		}
		tl_array_push(out, item);
	}
}

/* The calls and sites of `range` (a loop body or a function body) of
 * function `func` that do something in `mask`, in execution order as far as
 * source order tells: the calls of a local function (and of a closure passed
 * to a call) are expanded where it is called, each function once, at most
 * TL_FLOW_DEPTH calls deep. */
static void tl_flow__sequence(const TlIndex *idx, int32_t func, TSNode range, uint32_t mask,
			      TlSteps *out)
{
	typedef struct {
		TlSteps items;
		uint32_t next;
		TSNode anchor; /* null in the outermost frame */
	} Frame;
	TlArray(Frame) stack;
	tl_array_init(&stack);
	bool *seen = tl_calloc(idx->funcs.size + 1, sizeof *seen);
	if (func >= 0)
		seen[func] = true;
	Frame first;
	memset(&first, 0, sizeof first);
	tl_flow__range_items(idx, func, range, &first.items);
	tl_array_push(&stack, first);
	while (stack.size) {
		Frame *fr = tl_array_last(&stack);
		if (fr->next >= fr->items.size) {
			tl_array_release(&fr->items);
			stack.size--;
			continue;
		}
		TlStep it = fr->items.items[fr->next++];
		TSNode anchor = ts_node_is_null(fr->anchor) ? it.node : fr->anchor;
		if (it.events & mask) {
			TlStep e = it;
			e.anchor = anchor;
			tl_array_push(out, e);
		}
		if (!it.call || stack.size > TL_FLOW_DEPTH)
			continue;
		/* A call of a local function runs it; a closure passed along
		 * (opt.step(closure)) is run by the callee. */
		int32_t f = it.call->target;
		if (f < 0 || seen[f] || !(idx->funcs.items[f].reach_events & mask))
			f = it.call->arg_target;
		if (f < 0 || seen[f] || !(idx->funcs.items[f].reach_events & mask))
			continue;
		seen[f] = true;
		Frame sub;
		memset(&sub, 0, sizeof sub);
		sub.anchor = anchor;
		tl_flow__range_items(idx, f, idx->funcs.items[f].node, &sub.items);
		tl_array_push(&stack, sub);
	}
	tl_free(seen);
	tl_array_release(&stack);
}

/* ---- gradient resets and steps ----------------------------------------------------- */

bool tl_flow_step_unreset(const TlIndex *idx, TSNode step)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(step));
	if (!c || !(c->events & TL_EV_OPT_STEP))
		return false;
	TSNode opt = tl_flow__stepped(idx, c);
	TlIntArray loops;
	tl_array_init(&loops);
	tl_flow__step_loop_list(idx, c->node, &loops);
	bool unreset = loops.size > 0;
	for (uint32_t i = 0; unreset && i < loops.size; i++) {
		const TlLoop *l = &idx->loops.items[loops.items[i]];
		TlSteps resets;
		tl_array_init(&resets);
		tl_flow__sequence(idx, l->func, l->body, TL_EV_GRAD_RESET, &resets);
		for (uint32_t k = 0; unreset && k < resets.size; k++)
			if (tl_flow__reset_covers(idx, resets.items[k].call, opt) != TL_COVER_NONE)
				unreset = false;
		tl_array_release(&resets);
	}
	tl_array_release(&loops);
	return unreset;
}

/* True when a statement that leaves the block early (continue, break,
 * return, raise) starts in `block` between bytes `from` and `to`. */
static bool tl_flow__jump_between(TSNode block, uint32_t from, uint32_t to)
{
	const TlSyms *sy = tl_syms();
	TSTreeCursor cur = ts_tree_cursor_new(block);
	bool found = false, descend = true;
	do {
		TSNode n = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(n);
		uint32_t at = ts_node_start_byte(n);
		descend = ts_node_end_byte(n) > from && at < to && s != sy->function_definition &&
			  s != sy->class_definition && s != sy->lambda;
		if (descend && at >= from && at < to &&
		    (s == sy->continue_statement || s == sy->break_statement ||
		     s == sy->return_statement || s == sy->raise_statement))
			found = true;
	} while (!found && tl_walk_next(&cur, block, descend));
	ts_tree_cursor_delete(&cur);
	return found;
}

bool tl_flow_reset_before_step(const TlIndex *idx, TSNode reset)
{
	const TlSyms *sy = tl_syms();
	const TlCall *r = tl_index_call_at(idx, tl_index_unparen(reset));
	if (!r || !(r->events & TL_EV_GRAD_RESET) || !r->method || strcmp(r->method, "zero_grad") != 0)
		return false;
	TSNode range = r->loop >= 0 ? idx->loops.items[r->loop].body
		       : r->func >= 0 ? idx->funcs.items[r->func].node : idx->root;
	TlSteps seq;
	tl_array_init(&seq);
	tl_flow__sequence(idx, r->func, range, TL_EV_BACKWARD | TL_EV_OPT_STEP | TL_EV_GRAD_RESET, &seq);
	uint32_t at = 0;
	while (at < seq.size && seq.items[at].call != r)
		at++;
	bool found = false;
	/* A backward before it, with no step in between... */
	bool after_backward = false;
	for (uint32_t j = at; j-- > 0 && at < seq.size;) {
		uint32_t ev = seq.items[j].events;
		if (ev & TL_EV_BACKWARD) {
			after_backward = true;
			break;
		}
		if (ev & TL_EV_OPT_STEP)
			break;
	}
	/* ...and the next step that it fully covers, with no backward first. */
	const TlStep *step = NULL;
	for (uint32_t j = at + 1; after_backward && j < seq.size; j++) {
		const TlStep *e = &seq.items[j];
		/* A backward, or `p.grad = g` (gradient surgery writes the
		 * gradients the step applies): the reset is not the last word. */
		if ((e->events & TL_EV_BACKWARD) || !e->call)
			break;
		if (!(e->events & TL_EV_OPT_STEP))
			continue;
		int cov = tl_flow__reset_covers(idx, r, tl_flow__stepped(idx, e->call));
		if (cov == TL_COVER_FULL)
			step = e;
		if (cov != TL_COVER_NONE)
			break;
	}
	if (step) {
		/* The reset runs whenever the step does: the step is in the
		 * reset's block, and nothing leaves that block between them. */
		TSNode block = ts_node_parent(r->node);
		while (!ts_node_is_null(block) && ts_node_symbol(block) != sy->block &&
		       ts_node_symbol(block) != sy->module)
			block = ts_node_parent(block);
		found = !ts_node_is_null(block) && tl_flow__contains(block, step->anchor) &&
			!tl_flow__jump_between(block, ts_node_end_byte(r->node),
					       ts_node_start_byte(step->anchor));
	}
	tl_array_release(&seq);
	return found;
}

/* ---- train / eval across an iteration --------------------------------------------- */

/* `name` as the caller of local function `f` at call `c` sees it: a
 * parameter's root is replaced by the argument passed (`self` by the
 * receiver of a bound method call); a name local to `f` has no meaning to
 * the caller (NULL); any other name (a global, a closure's) is kept.
 * Caller frees. */
static char *tl_flow__to_caller(const TlIndex *idx, int32_t f, const TlCall *c, const char *name)
{
	const TlFunc *fn = &idx->funcs.items[f];
	size_t root_len = strcspn(name, ".");
	int32_t param = -1;
	for (uint32_t k = 0; k < fn->params.size; k++) {
		const char *pn = idx->bindings.items[fn->params.items[k]].name;
		if (strlen(pn) == root_len && strncmp(pn, name, root_len) == 0)
			param = (int32_t)k;
	}
	if (param < 0) {
		TlBuf root;
		tl_buf_init(&root);
		tl_buf_addn(&root, name, root_len);
		const TlIntArray *own = tl_index_bindings_of(idx, f, root.data);
		tl_buf_release(&root);
		return own ? NULL : tl_strdup(name);
	}
	const char *pname = idx->bindings.items[fn->params.items[param]].name;
	TSNode arg = tl_flow__kwarg(idx, c->node, pname);
	if (ts_node_is_null(arg)) {
		int32_t k = param;
		if (fn->cls >= 0 && c->receiver.id)
			k--; /* a bound method: `self` is the receiver */
		arg = k >= 0 ? tl_flow__arg(c->node, (uint32_t)k) : c->receiver;
	}
	char *an = ts_node_is_null(arg) ? NULL : tl_flow__dotted(idx, arg);
	if (!an)
		return NULL;
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_add(&b, an);
	tl_buf_add(&b, name + root_len);
	tl_free(an);
	return tl_buf_detach(&b);
}

/* Appends to `out` the receivers, in the scope of call `c`, of the calls
 * with an event in `events` that `c` makes (itself, or through the local
 * functions it runs, mapped through their parameters). Returns false when
 * some receiver cannot be told. */
static bool tl_flow__event_receivers(const TlIndex *idx, const TlCall *c, uint32_t events,
				     TlNames *out, int depth, uint32_t *budget)
{
	bool ok = true;
	if (c->events & events) {
		if (c->recv_name)
			tl_array_push(out, tl_strdup(c->recv_name));
		else
			ok = false;
	}
	int32_t targets[2] = { c->target, c->arg_target };
	for (int t = 0; t < 2; t++) {
		int32_t f = targets[t];
		if (f < 0 || !(idx->funcs.items[f].reach_events & events))
			continue;
		if (depth > TL_FLOW_DEPTH || f == c->func || !*budget)
			return false;
		(*budget)--;
		const TlIntArray *calls = tl_index_scope_calls(idx, f);
		for (uint32_t i = 0; calls && i < calls->size; i++) {
			const TlCall *inner = &idx->calls.items[calls->items[i]];
			uint32_t reach = inner->events |
					 (inner->target >= 0 ? idx->funcs.items[inner->target].reach_events : 0) |
					 (inner->arg_target >= 0 ? idx->funcs.items[inner->arg_target].reach_events : 0);
			if (!(reach & events))
				continue;
			TlNames sub;
			tl_array_init(&sub);
			ok = tl_flow__event_receivers(idx, inner, events, &sub, depth + 1, budget) && ok;
			for (uint32_t k = 0; k < sub.size; k++) {
				/* A closure passed along is called by the callee, not by
				 * `c`: its names are `c`'s own scope's. */
				char *mapped = t == 0 ? tl_flow__to_caller(idx, f, c, sub.items[k])
						      : tl_strdup(sub.items[k]);
				if (mapped)
					tl_array_push(out, mapped);
				else
					ok = false;
			}
			tl_flow__names_release(&sub);
		}
	}
	return ok;
}

/* The module construction behind dotted `name` as seen at `pos` in `func`. */
static TSNode tl_flow__name_root(const TlIndex *idx, const char *name, int32_t func,
				 uint32_t pos, TlBuf *path)
{
	TSNode none = { 0 };
	TlBuf n;
	tl_buf_init(&n);
	tl_buf_add(&n, name);
	TSNode root = none;
	/* model.encoder: the longest bound prefix, the rest is a path. */
	for (int depth = 0; depth <= TL_FLOW_DEPTH; depth++) {
		const TlBinding *b = tl_index_resolve(idx, n.data, func, pos);
		if (b) {
			if (b->kind == TL_BIND_ASSIGN && b->elem < 0 && !ts_node_is_null(b->value)) {
				TlBuf rest;
				tl_buf_init(&rest);
				tl_buf_add(&rest, path->data);
				tl_buf_clear(path);
				root = tl_flow__module_root(idx, b->value, path);
				tl_buf_add(path, rest.data);
				tl_buf_release(&rest);
			}
			break;
		}
		char *dot = strrchr(n.data, '.');
		if (!dot)
			break;
		TlBuf p;
		tl_buf_init(&p);
		tl_buf_add(&p, dot);
		tl_buf_add(&p, path->data);
		tl_buf_clear(path);
		tl_buf_add(path, p.data);
		tl_buf_release(&p);
		n.len = (size_t)(dot - n.data);
		n.data[n.len] = '\0';
	}
	tl_buf_release(&n);
	return root;
}

/* True when the module `name` (seen at `pos` in `func`) is being trained:
 * an optimizer in the file updates its parameters, or the file calls
 * `.train()` on it. */
static bool tl_flow__trained(const TlIndex *idx, const char *name, int32_t func, uint32_t pos)
{
	const TlSyms *sy = tl_syms();
	TlBuf path;
	tl_buf_init(&path);
	TSNode root = tl_flow__name_root(idx, name, func, pos, &path);
	TlModRef me = { root, path.data };
	const TlBinding *mine = tl_index_resolve(idx, name, func, pos);
	bool yes = false;
	for (uint32_t i = 0; !yes && i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (!(c->events & (TL_EV_TRAIN | TL_EV_MODE_SET)) || !c->recv_name)
			continue;
		if (strcmp(c->recv_name, name) == 0 &&
		    (c->func == func || (mine && tl_index_resolve_node(idx, c->receiver) == mine))) {
			yes = true;
		} else if (!ts_node_is_null(root)) {
			TlBuf p;
			tl_buf_init(&p);
			TSNode r = tl_flow__module_root(idx, c->receiver, &p);
			yes = !ts_node_is_null(r) && ts_node_eq(r, root);
			tl_buf_release(&p);
		}
	}
	for (uint32_t i = 0; !yes && !ts_node_is_null(root) && i < idx->bindings.size; i++) {
		const TlBinding *b = &idx->bindings.items[i];
		if (b->kind != TL_BIND_ASSIGN || ts_node_is_null(b->value))
			continue;
		TSNode v = tl_index_unparen(tl_flow__held(idx, b));
		const TlCall *c = !ts_node_is_null(v) && ts_node_symbol(v) == sy->call
					  ? tl_index_call_at(idx, v) : NULL;
		if (!c || !c->qname || !tl_flow__optimizer_qname(c->qname))
			continue;
		TlModSet set;
		tl_array_init(&set);
		if (tl_flow__ctor_modules(idx, v, &set))
			for (uint32_t k = 0; k < set.size && !yes; k++)
				yes = tl_flow__relate(idx, &me, &set.items[k]) != TL_REL_DISJOINT;
		tl_flow__modset_release(&set);
	}
	tl_buf_release(&path);
	return yes;
}

/* True when a module switch to train mode on `by` also switches `name`:
 * the same module, a module containing it, or the same construction. */
static bool tl_flow__switches(const TlIndex *idx, const char *by, const char *name,
			      int32_t func, uint32_t pos)
{
	size_t l = strlen(by);
	if (strncmp(by, name, l) == 0 && (name[l] == '\0' || name[l] == '.'))
		return true;
	TlBuf a, b;
	tl_buf_init(&a);
	tl_buf_init(&b);
	TSNode ra = tl_flow__name_root(idx, by, func, pos, &a);
	TSNode rb = tl_flow__name_root(idx, name, func, pos, &b);
	bool yes = !ts_node_is_null(ra) && !ts_node_is_null(rb) && ts_node_eq(ra, rb) &&
		   (!a.data[0] || strcmp(a.data, b.data) == 0);
	tl_buf_release(&a);
	tl_buf_release(&b);
	return yes;
}

bool tl_flow_leaves_eval(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!c)
		return false;
	/* A training loop: its iteration backpropagates and steps (an
	 * adversarial evaluation backpropagates to its inputs only). */
	const uint32_t training = TL_EV_BACKWARD | TL_EV_OPT_STEP;
	int32_t loop = c->loop;
	while (loop >= 0 && (idx->loops.items[loop].events & training) != training)
		loop = idx->loops.items[loop].parent;
	if (loop < 0)
		return false;
	const TlLoop *l = &idx->loops.items[loop];
	TlNames evals, trains;
	tl_array_init(&evals);
	tl_array_init(&trains);
	bool left = false;
	uint32_t budget = TL_FLOW_BUDGET;
	tl_flow__event_receivers(idx, c, TL_EV_EVAL, &evals, 0, &budget);
	if (!evals.size)
		goto cleanup;
	/* Every module the iteration switches back: train() / train(flag)
	 * calls in the loop body, directly or in the functions it runs. */
	const TlIntArray *calls = tl_index_scope_calls(idx, l->func);
	uint32_t start = ts_node_start_byte(l->body), end = ts_node_end_byte(l->body);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *k = &idx->calls.items[calls->items[i]];
		if (ts_node_start_byte(k->node) < start || ts_node_end_byte(k->node) > end)
			continue;
		if (!tl_flow__event_receivers(idx, k, TL_EV_TRAIN | TL_EV_MODE_SET, &trains, 0, &budget))
			goto cleanup; /* a switch to train mode on something unknown */
	}
	uint32_t pos = ts_node_start_byte(c->node);
	for (uint32_t i = 0; i < evals.size && !left; i++) {
		const char *m = evals.items[i];
		if (!tl_flow__trained(idx, m, c->func, pos))
			continue;
		bool restored = false;
		for (uint32_t k = 0; k < trains.size && !restored; k++)
			restored = tl_flow__switches(idx, trains.items[k], m, c->func, pos);
		left = !restored;
	}
cleanup:
	tl_flow__names_release(&evals);
	tl_flow__names_release(&trains);
	return left;
}

/* ---- values carried across iterations --------------------------------------------- */

static bool tl_flow__detaches(const TlIndex *idx, TSNode v, int depth);

static bool tl_flow__detached_return(const TlIndex *idx, TSNode v, int depth)
{
	return tl_flow__detaches(idx, v, depth);
}

/* True when the value of `v` has no autograd history because the
 * expression cuts it: `.detach()`, `.data`, `Variable(h.data)`, a tuple or
 * comprehension of such, a moved copy of such (`h.detach().to(device)`), or
 * a local function that returns one (`repackage_hidden(h)`). */
static bool tl_flow__detaches(const TlIndex *idx, TSNode v, int depth)
{
	static const char *const wrappers[] = { "tuple", "list", "Variable" };
	const TlSyms *sy = tl_syms();
	for (; depth <= TL_FLOW_DEPTH; depth++) {
		v = tl_index_unparen(v);
		if (ts_node_is_null(v))
			return false;
		TSSymbol s = ts_node_symbol(v);
		if (s == sy->tuple || s == sy->list || s == sy->expression_list) {
			/* (h.detach(), c.detach()): one detached part is taken as
			 * intent enough. */
			uint32_t n = ts_node_named_child_count(v);
			for (uint32_t i = 0; i < n; i++)
				if (tl_flow__detaches(idx, ts_node_named_child(v, i), depth + 1))
					return true;
			return false;
		}
		if (s == sy->generator_expression || s == sy->list_comprehension) {
			v = ts_node_named_child(v, 0);
			continue;
		}
		if (s == sy->conditional_expression) {
			return ts_node_named_child_count(v) >= 3 &&
			       (tl_flow__detaches(idx, ts_node_named_child(v, 0), depth + 1) ||
				tl_flow__detaches(idx, ts_node_named_child(v, 2), depth + 1));
		}
		if (s == sy->attribute)
			return tl_index_text_is(idx, ts_node_child_by_field_id(v, sy->f_attribute), "data");
		if (s != sy->call)
			return false;
		const TlCall *c = tl_index_call_at(idx, v);
		if (!c)
			return false;
		if (c->receiver.id && c->method &&
		    (strcmp(c->method, "detach") == 0 || strcmp(c->method, "detach_") == 0))
			return true;
		if (c->receiver.id && IN(c->method, tl_flow__reshaping)) {
			v = c->receiver;
			continue;
		}
		if (c->method && IN(c->method, wrappers)) {
			/* tuple(s.detach() for s in h): the generator is the
			 * whole argument list. */
			TSNode args = ts_node_child_by_field_id(v, sy->f_arguments);
			v = !ts_node_is_null(args) && ts_node_symbol(args) == sy->generator_expression
				    ? args : tl_flow__arg(v, 0);
			continue;
		}
		if (c->target >= 0)
			return tl_flow__any_return(idx, c->target, tl_flow__detached_return, depth + 1);
		return false;
	}
	return false;
}

/* True when `v` is a call whose result the file does not show for the
 * state `names` it is given: not a local function, not a module forward,
 * not a torch function, not a method of the state itself, not the
 * tuple/list builtins (`h = repackage_hidden(h)` imported from another file
 * may well detach). */
static bool tl_flow__opaque_call(const TlIndex *idx, TSNode v, const TlNames *names)
{
	const TlSyms *sy = tl_syms();
	v = tl_index_unparen(v);
	if (ts_node_is_null(v) || ts_node_symbol(v) != sy->call)
		return false;
	const TlCall *c = tl_index_call_at(idx, v);
	if (!c || c->target >= 0 || (c->events & TL_EV_FORWARD))
		return false;
	if (c->qname)
		return !tl_flow__starts(c->qname, "torch.");
	if (c->receiver.id)
		return !tl_flow__mentions(idx, c->receiver, names);
	if (c->method && (strcmp(c->method, "tuple") == 0 || strcmp(c->method, "list") == 0))
		return tl_index_resolve_node(idx, c->callee) != NULL;
	return true;
}

/* True when a call in the iteration `loop` detaches `name` in place:
 * `h.detach_()`, `h[0].detach_()`, `for s in h: s.detach_()`, or a local
 * function given `h` that calls detach_(). */
static bool tl_flow__detached_in_place(const TlIndex *idx, const TlLoop *l, const char *name)
{
	const TlSyms *sy = tl_syms();
	const TlIntArray *calls = tl_index_scope_calls(idx, l->func);
	uint32_t start = ts_node_start_byte(l->body), end = ts_node_end_byte(l->body);
	TlNames names;
	tl_array_init(&names);
	tl_array_push(&names, tl_strdup(name));
	bool yes = false;
	for (uint32_t i = 0; calls && i < calls->size && !yes; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (ts_node_start_byte(c->node) < start || ts_node_end_byte(c->node) > end)
			continue;
		if (c->events & TL_EV_DETACH) {
			TSNode r = tl_index_unparen(c->receiver);
			while (ts_node_symbol(r) == sy->subscript)
				r = tl_index_unparen(ts_node_child_by_field_id(r, sy->f_value));
			char *rn = tl_flow__dotted(idx, r);
			if (rn && strcmp(rn, name) == 0) {
				yes = true;
			} else if (rn) {
				/* for s in h: s.detach_() */
				const TlBinding *b = tl_index_resolve_node(idx, r);
				yes = b && b->kind == TL_BIND_FOR && tl_flow__mentions(idx, b->value, &names);
			}
			tl_free(rn);
		} else if (c->target >= 0 && (idx->funcs.items[c->target].reach_events & TL_EV_DETACH)) {
			TSNode args = ts_node_child_by_field_id(c->node, sy->f_arguments);
			yes = !ts_node_is_null(args) && tl_flow__mentions(idx, args, &names);
		}
	}
	tl_flow__names_release(&names);
	return yes;
}

/* The forward method of the local nn.Module class that module `m` is an
 * instance of (found in the class or its local bases), or -1. */
static int32_t tl_flow__forward_of(const TlIndex *idx, TSNode m)
{
	const TlSyms *sy = tl_syms();
	TlBuf path;
	tl_buf_init(&path);
	TSNode root = tl_flow__module_root(idx, m, &path);
	bool whole = path.data[0] == '\0';
	tl_buf_release(&path);
	if (ts_node_is_null(root) || !whole || ts_node_symbol(root) != sy->call)
		return -1;
	const TlBinding *cb = tl_index_resolve_node(idx, ts_node_child_by_field_id(root, sy->f_function));
	if (!cb || cb->kind != TL_BIND_CLASS)
		return -1;
	int32_t f = -1;
	for (int32_t cls = cb->ref, hop = 0; cls >= 0 && f < 0 && hop < TL_FLOW_DEPTH; hop++) {
		f = tl_index_method(idx, cls, "forward", 7);
		const TlClass *k = &idx->classes.items[cls];
		cls = k->bases.size ? k->bases.items[0] : -1;
	}
	return f;
}

typedef struct TlElemReturn {
	int32_t elem;
} TlElemReturn;

static bool tl_flow__return_elem_detaches(const TlIndex *idx, TSNode ret, void *data)
{
	const TlSyms *sy = tl_syms();
	const TlElemReturn *er = data;
	if (!ts_node_named_child_count(ret))
		return false;
	TSNode v = tl_index_unparen(ts_node_named_child(ret, 0));
	if (er->elem >= 0) {
		TSSymbol s = ts_node_symbol(v);
		if ((s != sy->tuple && s != sy->expression_list && s != sy->list) ||
		    (uint32_t)er->elem >= ts_node_named_child_count(v))
			return false;
		v = ts_node_named_child(v, (uint32_t)er->elem);
	}
	return tl_flow__detaches(idx, v, 0);
}

/* True when local function `f` detaches its parameter `param` (a binding)
 * before using it: re-binds it through a detaching expression, or calls
 * detach_() on it. */
static bool tl_flow__detaches_param(const TlIndex *idx, int32_t f, const TlBinding *param)
{
	const TlIntArray *binds = tl_index_scope_binds(idx, f);
	for (uint32_t i = 0; binds && i < binds->size; i++) {
		const TlBinding *b = &idx->bindings.items[binds->items[i]];
		if (b != param && b->kind == TL_BIND_ASSIGN && strcmp(b->name, param->name) == 0 &&
		    tl_flow__detaches(idx, tl_flow__bound_value(b), 0))
			return true;
	}
	const TlIntArray *calls = tl_index_scope_calls(idx, f);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if ((c->events & TL_EV_DETACH) && c->recv_name && strcmp(c->recv_name, param->name) == 0)
			return true;
	}
	return false;
}

/* True when the module forward `call` hands back the state it returns as
 * element `elem` (-1: its whole result) already detached: some return of
 * the local forward detaches that element, or the forward detaches the
 * parameter that receives `state` (the argument node holding the state). */
static bool tl_flow__forward_detaches(const TlIndex *idx, const TlCall *call, int32_t elem,
				      const char *state)
{
	if (!(call->events & TL_EV_FORWARD))
		return false;
	bool direct = call->method && strcmp(call->method, "forward") == 0 && call->receiver.id;
	int32_t f = tl_flow__forward_of(idx, direct ? call->receiver : call->callee);
	if (f < 0)
		return false;
	TlElemReturn er = { elem };
	if (tl_flow__each_return(idx, f, tl_flow__return_elem_detaches, &er))
		return true;
	/* forward(self, x, h): h = h.detach() */
	const TlFunc *fn = &idx->funcs.items[f];
	for (uint32_t k = 1; k < fn->params.size; k++) {
		/* Calling the module passes `self` implicitly: parameter k is
		 * positional argument k - 1, or a keyword. */
		const TlBinding *param = &idx->bindings.items[fn->params.items[k]];
		TSNode arg = tl_flow__kwarg(idx, call->node, param->name);
		if (ts_node_is_null(arg))
			arg = tl_flow__arg(call->node, k - 1);
		if (ts_node_is_null(arg))
			continue;
		char *an = tl_flow__dotted(idx, arg);
		bool is_state = an && strcmp(an, state) == 0;
		tl_free(an);
		if (is_state && tl_flow__detaches_param(idx, f, param))
			return true;
	}
	return false;
}

int tl_flow_carried_state(const TlIndex *idx, TSNode target)
{
	const TlSyms *sy = tl_syms();
	TSNode stmt = target;
	while (!ts_node_is_null(stmt) && ts_node_symbol(stmt) != sy->assignment &&
	       ts_node_symbol(stmt) != sy->augmented_assignment)
		stmt = ts_node_parent(stmt);
	if (ts_node_is_null(stmt))
		return TL_CARRY_NONE;
	int32_t loop = tl_index_loop_of(idx, stmt);
	while (loop >= 0 && !(idx->loops.items[loop].events & TL_EV_BACKWARD))
		loop = idx->loops.items[loop].parent;
	if (loop < 0 || tl_flow_grad_state(idx, stmt) == TL_GRAD_OFF)
		return TL_CARRY_NONE;
	const TlLoop *l = &idx->loops.items[loop];
	char *name = tl_flow__dotted(idx, target);
	if (!name)
		return TL_CARRY_NONE;
	TlNames names;
	tl_array_init(&names);
	tl_array_push(&names, name);
	int carry = TL_CARRY_ATTACHED;
	/* Every other binding of the name in the iteration: afresh (not a
	 * state), detached, or from itself (`h = h.to(device)`). */
	const TlIntArray *binds = tl_index_scope_binds(idx, l->func);
	for (uint32_t i = 0; binds && i < binds->size && carry == TL_CARRY_ATTACHED; i++) {
		const TlBinding *b = &idx->bindings.items[binds->items[i]];
		if (strcmp(b->name, name) != 0 || ts_node_eq(b->stmt, stmt))
			continue;
		bool in_iteration = b->kind == TL_BIND_FOR
					    ? (ts_node_eq(b->stmt, l->node) || tl_flow__contains(l->body, b->stmt))
					    : tl_flow__contains(l->body, b->stmt);
		if (!in_iteration || b->kind == TL_BIND_AUG)
			continue;
		if (b->kind != TL_BIND_ASSIGN) {
			carry = TL_CARRY_NONE;
			continue;
		}
		TSNode v = tl_flow__bound_value(b);
		if (tl_flow__detaches(idx, v, 0))
			carry = TL_CARRY_DETACHED;
		else if (!tl_flow__mentions(idx, v, &names) || tl_flow__opaque_call(idx, v, &names))
			carry = TL_CARRY_NONE; /* afresh, or through code the file does not show */
	}
	if (carry == TL_CARRY_ATTACHED && tl_flow__detached_in_place(idx, l, name))
		carry = TL_CARRY_DETACHED;
	/* The model may hand the state back detached itself. */
	for (uint32_t i = 0; binds && i < binds->size && carry == TL_CARRY_ATTACHED; i++) {
		const TlBinding *b = &idx->bindings.items[binds->items[i]];
		if (strcmp(b->name, name) != 0 || !ts_node_eq(b->stmt, stmt) || ts_node_is_null(b->value))
			continue;
		TSNode v = tl_index_unparen(b->value);
		const TlCall *c = ts_node_symbol(v) == sy->call ? tl_index_call_at(idx, v) : NULL;
		if (c && tl_flow__forward_detaches(idx, c, b->depth == 0 ? -1 : b->top, name))
			carry = TL_CARRY_DETACHED;
	}
	tl_flow__names_release(&names);
	return carry;
}

/* ---- graphs backpropagated more than once -------------------------------------- */

/* True when some call inside `v` does one of `events`. */
static bool tl_flow__value_has(const TlIndex *idx, TSNode v, uint32_t events)
{
	for (uint32_t i = tl_index_first_call_from(idx, ts_node_start_byte(v)); i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (ts_node_start_byte(c->node) >= ts_node_end_byte(v))
			break;
		if ((c->events & events) && tl_flow__contains(v, c->node))
			return true;
	}
	return false;
}

/* True when the name bound by `b` (read at `use`) holds autograd history
 * made where it was bound: a graph tensor, a value built from losses or
 * forwards (`[crit(o, t) for ...]`), or a list that graph tensors are
 * appended to. */
static bool tl_flow__holds_graph(const TlIndex *idx, const TlBinding *b, TSNode use)
{
	if (tl_flow_is_graph(idx, use))
		return true;
	TSNode v = tl_flow__bound_value(b);
	if (!ts_node_is_null(v) && tl_flow__value_has(idx, v, TL_EV_LOSS | TL_EV_FORWARD))
		return true;
	const TlIntArray *calls = tl_index_scope_calls(idx, b->func);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (c->recv_name && strcmp(c->recv_name, b->name) == 0 && c->method &&
		    (strcmp(c->method, "append") == 0 || strcmp(c->method, "extend") == 0) &&
		    tl_flow_is_graph(idx, tl_flow__arg(c->node, 0)))
			return true;
	}
	return false;
}

/* True when a parameter of a function may hold a graph tensor: some caller
 * passes one, or the callers are unknown (precision first). */
static bool tl_flow__param_graph(const TlIndex *idx, const TlBinding *b)
{
	if (b->func < 0)
		return true;
	const TlFunc *f = &idx->funcs.items[b->func];
	if (f->escapes || !f->call_sites.size)
		return true;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		TSNode arg = tl_flow__param_arg_of(idx, b, c);
		if (!ts_node_is_null(arg) && tl_flow_is_graph(idx, arg))
			return true;
	}
	return false;
}

/* True when the name read at `use` in loop `l` is re-bound later in the
 * loop body (or by the assignment it is read in) to a value with autograd
 * history: the next iteration reads the graph this one made
 * (`out, h = rnn(x, h)`). */
static bool tl_flow__carried_graph(const TlIndex *idx, const TlLoop *l, TSNode use)
{
	char *name = tl_flow__dotted(idx, use);
	if (!name)
		return false;
	bool yes = false;
	const TlIntArray *binds = tl_index_scope_binds(idx, l->func);
	for (uint32_t i = 0; binds && i < binds->size && !yes; i++) {
		const TlBinding *b = &idx->bindings.items[binds->items[i]];
		if (b->kind != TL_BIND_ASSIGN || strcmp(b->name, name) != 0 ||
		    !tl_flow__contains(l->body, b->stmt) || b->pos <= ts_node_start_byte(use))
			continue;
		TSNode v = tl_flow__bound_value(b);
		yes = !ts_node_is_null(v) && (tl_flow_is_graph(idx, v) ||
					      tl_flow__value_has(idx, v, TL_EV_LOSS | TL_EV_FORWARD));
	}
	tl_free(name);
	return yes;
}

/* True when the tensor `subject`, differentiated in loop `l` (or, when `l`
 * is NULL, in function `func`), depends on autograd history made before
 * the iteration began: the next iteration backpropagates through it again. */
static bool tl_flow__graph_from_before(const TlIndex *idx, TSNode subject, const TlLoop *l,
				       int32_t func)
{
	const TlSyms *sy = tl_syms();
	typedef struct {
		TSNode n;
		bool iterable; /* iterated by a loop: a parameter here is data */
	} Item;
	TlArray(Item) todo;
	tl_array_init(&todo);
	Item first = { subject, false };
	tl_array_push(&todo, first);
	bool before = false;
	for (uint32_t step = 0; step < todo.size && !before; step++) {
		Item it = todo.items[step];
		TSTreeCursor cur = ts_tree_cursor_new(it.n);
		bool descend = true;
		do {
			TSNode x = ts_tree_cursor_current_node(&cur);
			TSSymbol s = ts_node_symbol(x);
			descend = true;
			if (s == sy->call && tl_flow__detaches(idx, x, 0)) {
				descend = false; /* h.detach(), repackage_hidden(h): no history */
				continue;
			}
			if (s == sy->keyword_argument) {
				x = ts_node_child_by_field_id(x, sy->f_value);
				if (ts_node_is_null(x))
					continue;
				s = ts_node_symbol(x);
			}
			if (s != sy->identifier && s != sy->attribute)
				continue;
			descend = false;
			if (tl_flow__in_comprehension(x, it.n))
				continue;
			if (tl_flow__is_callee(x)) {
				/* x.view(...), h[0].pow(2).mean(): a method of a value,
				 * whose receiver is data; model(x), F.mse_loss(...),
				 * helper(...): what is called is not. */
				const TlCall *pc = tl_index_call_at(idx, ts_node_parent(x));
				if (s == sy->attribute && pc && pc->receiver.id && !pc->qname &&
				    pc->target < 0 && !(pc->events & (TL_EV_FORWARD | TL_EV_LOSS)) &&
				    todo.size < 64) {
					Item next = { pc->receiver, it.iterable };
					tl_array_push(&todo, next);
				}
				continue;
			}
			const TlBinding *b = tl_flow__resolve_prefix(idx, x);
			if (!b || b->kind == TL_BIND_IMPORT || b->kind == TL_BIND_DEF ||
			    b->kind == TL_BIND_CLASS)
				continue;
			if (b->kind == TL_BIND_PARAM) {
				if (!l || b->func != l->func || !it.iterable)
					before = tl_flow__param_graph(idx, b);
				continue;
			}
			bool inside = l ? b->func == l->func && tl_flow__contains(l->body, b->stmt)
					: b->func == func;
			if (!inside && l && tl_flow__carried_graph(idx, l, x)) {
				before = true; /* made by the previous iteration */
				continue;
			}
			if (b->kind == TL_BIND_FOR) {
				/* The items of a loop: what it iterates decides. */
				if (todo.size < 64) {
					Item next = { b->value, true };
					tl_array_push(&todo, next);
				}
				continue;
			}
			if (!inside) {
				before = tl_flow__holds_graph(idx, b, x);
				continue;
			}
			if (!ts_node_is_null(b->value) && todo.size < 64) {
				/* x, y = next(batches): an item of what is iterated. */
				TSNode v = tl_index_unparen(b->value);
				const TlCall *vc = ts_node_symbol(v) == sy->call ? tl_index_call_at(idx, v) : NULL;
				bool item = vc && !vc->receiver.id && vc->method &&
					    (strcmp(vc->method, "next") == 0 || strcmp(vc->method, "iter") == 0) &&
					    !tl_index_resolve_node(idx, vc->callee);
				Item next = { b->value, it.iterable || item };
				tl_array_push(&todo, next);
			}
		} while (!before && tl_walk_next(&cur, it.n, descend));
		ts_tree_cursor_delete(&cur);
	}
	tl_array_release(&todo);
	return before;
}

bool tl_flow_graph_reused(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!c || !(c->events & TL_EV_BACKWARD))
		return false;
	/* Another backward (or autograd.grad) in an iteration of the call. */
	TlIntArray loops;
	tl_array_init(&loops);
	tl_flow__step_loop_list(idx, c->node, &loops);
	bool again = false;
	for (uint32_t i = 0; i < loops.size && !again; i++) {
		const TlLoop *l = &idx->loops.items[loops.items[i]];
		TlSteps seq;
		tl_array_init(&seq);
		tl_flow__sequence(idx, l->func, l->body, TL_EV_BACKWARD | TL_EV_GRAD_CALL, &seq);
		again = seq.size > 1;
		tl_array_release(&seq);
	}
	tl_array_release(&loops);
	if (again)
		return true;
	/* A graph made before the iteration, reached again by the next one. */
	int32_t loop = c->loop;
	while (loop >= 0 && !(idx->loops.items[loop].events & TL_EV_BACKWARD))
		loop = idx->loops.items[loop].parent;
	TSNode subject = tl_flow__backward_tensor(idx, c);
	if (ts_node_is_null(subject))
		subject = tl_flow__arg(c->node, 0);
	if (ts_node_is_null(subject))
		return true;
	return tl_flow__graph_from_before(idx, subject, loop >= 0 ? &idx->loops.items[loop] : NULL,
					  c->func);
}

/* ---- known tensors ---------------------------------------------------------------- */

static bool tl_flow__is_loader(const TlIndex *idx, TSNode it)
{
	const TlSyms *sy = tl_syms();
	for (int depth = 0; depth <= TL_FLOW_DEPTH; depth++) {
		it = tl_index_unparen(it);
		if (ts_node_is_null(it))
			return false;
		TSSymbol s = ts_node_symbol(it);
		if (s == sy->call) {
			const TlCall *c = tl_index_call_at(idx, it);
			return c && c->qname && (strcmp(c->qname, "torch.utils.data.DataLoader") == 0 ||
						 strcmp(c->qname, "torch.utils.data.dataloader.DataLoader") == 0);
		}
		if (s != sy->identifier && s != sy->attribute)
			return false;
		const TlBinding *b = tl_index_resolve_node(idx, it);
		if (!b || ts_node_is_null(b->value))
			return false;
		if (b->kind == TL_BIND_PARAM) {
			char *q = tl_index_qualify(idx, b->value);
			bool yes = q && tl_flow__ends(q, "utils.data.DataLoader");
			tl_free(q);
			return yes;
		}
		it = tl_flow__held(idx, b);
	}
	return false;
}

/* For a name bound by a for loop over a DataLoader the file shows, how deep
 * inside one batch it sits: 0 for the whole batch (`for batch in loader`),
 * 1 for an element (`for x, y in loader`, `for i, (x, y) in
 * enumerate(loader)`); -1 for any other loop. */
static int tl_flow__batch_depth(const TlIndex *idx, const TlBinding *b)
{
	const TlSyms *sy = tl_syms();
	if (b->kind != TL_BIND_FOR)
		return -1;
	TSNode it = b->value;
	int32_t depth = b->depth, top = b->top;
	for (int k = 0; k < 4; k++) {
		it = tl_index_unparen(it);
		if (ts_node_is_null(it))
			return -1;
		if (ts_node_symbol(it) == sy->call) {
			const TlCall *c = tl_index_call_at(idx, it);
			const char *m = c && !c->receiver.id ? c->method : NULL;
			const char *q = c ? c->qname : NULL;
			if (m && strcmp(m, "enumerate") == 0) {
				if (depth < 1 || top != 1)
					return -1;
				depth--;
				top = -1;
				it = tl_flow__arg(it, 0);
				continue;
			}
			if (m && strcmp(m, "zip") == 0) {
				if (depth < 1 || top < 0)
					return -1;
				it = tl_flow__arg(it, (uint32_t)top);
				depth--;
				top = -1;
				continue;
			}
			if ((m && (strcmp(m, "iter") == 0 || strcmp(m, "tqdm") == 0)) ||
			    (q && (strcmp(q, "tqdm.tqdm") == 0 || strcmp(q, "tqdm.auto.tqdm") == 0))) {
				it = tl_flow__arg(it, 0);
				continue;
			}
		}
		return tl_flow__is_loader(idx, it) ? depth : -1;
	}
	return -1;
}

/* Known tensor, the batch view: factory results, elements of DataLoader
 * batches (`x, y = batch`, `batch[0]`), Tensor-annotated parameters;
 * never a module. Part of tl_flow_is_tensor. */
static bool tl_flow__tensor_batch(const TlIndex *idx, TSNode expr, int depth)
{
	static const char *const factories[] = {
		"zeros", "ones", "empty", "full", "rand", "randn", "randint", "arange",
		"linspace", "logspace", "eye", "tensor", "as_tensor", "from_numpy",
		"zeros_like", "ones_like", "empty_like", "full_like", "rand_like",
		"randn_like", "randint_like", "randperm",
	};
	static const char *const tensor_methods[] = {
		"detach", "long", "int", "bool", "byte", "pin_memory", "abs", "exp", "log",
	};
	const TlSyms *sy = tl_syms();
	if (depth > TL_FLOW_DEPTH)
		return false;
	expr = tl_index_unparen(expr);
	if (ts_node_is_null(expr) || tl_flow__module_expr(idx, expr, 0))
		return false;
	TSSymbol s = ts_node_symbol(expr);
	if (s == sy->call) {
		const TlCall *c = tl_index_call_at(idx, expr);
		if (!c)
			return false;
		if (c->qname && tl_flow__starts(c->qname, "torch.") && strchr(c->qname + 6, '.') == NULL &&
		    IN(c->qname + 6, factories))
			return true;
		if (c->receiver.id && (IN(c->method, tl_flow__reshaping) || IN(c->method, tensor_methods)))
			return tl_flow__tensor_batch(idx, c->receiver, depth + 1);
		return tl_flow_is_graph(idx, expr);
	}
	if (s == sy->subscript) {
		TSNode v = tl_index_unparen(ts_node_child_by_field_id(expr, sy->f_value));
		const TlBinding *b = ts_node_symbol(v) == sy->identifier ? tl_index_resolve_node(idx, v) : NULL;
		if (b && tl_flow__batch_depth(idx, b) == 0)
			return true; /* batch[0], batch["input_ids"] */
		return tl_flow__tensor_batch(idx, v, depth + 1);
	}
	if (s != sy->identifier && s != sy->attribute)
		return false;
	const TlBinding *b = tl_index_resolve_node(idx, expr);
	if (!b)
		return false;
	if (b->kind == TL_BIND_PARAM) {
		char *q = ts_node_is_null(b->value) ? NULL : tl_index_qualify(idx, b->value);
		bool yes = q && (strcmp(q, "torch.Tensor") == 0 || strcmp(q, "torch.FloatTensor") == 0 ||
				 strcmp(q, "torch.LongTensor") == 0);
		tl_free(q);
		return yes;
	}
	if (b->kind == TL_BIND_FOR)
		return tl_flow__batch_depth(idx, b) >= 1;
	if (b->kind != TL_BIND_ASSIGN || ts_node_is_null(b->value))
		return false;
	TSNode v = tl_index_unparen(b->value);
	if (b->elem >= 0 && ts_node_symbol(v) == sy->identifier) {
		/* x, y = batch */
		const TlBinding *vb = tl_index_resolve_node(idx, v);
		if (vb && tl_flow__batch_depth(idx, vb) == 0)
			return true;
	}
	if (b->elem >= 0 && ts_node_symbol(v) == sy->call)
		return false; /* one part of a call's result */
	v = tl_flow__bound_value(b);
	return !ts_node_is_null(v) && tl_flow__tensor_batch(idx, v, depth + 1);
}


/* ---- wrapper modules -------------------------------------------------------------- */

static bool tl_flow__wrapper_name(const char *name)
{
	char low[128];
	tl_flow__lower(tl_flow__last(name), low, sizeof low);
	return strstr(low, "remote") || strstr(low, "ddp");
}

/* True when the value held by binding `b` is a wrapper module. */
static bool tl_flow__wrapper_binding(const TlIndex *idx, const TlBinding *b)
{
	const TlSyms *sy = tl_syms();
	if (b->kind != TL_BIND_ASSIGN)
		return tl_flow__wrapper_name(b->name); /* a parameter, a loop target: the name hints */
	TSNode expr = tl_flow__held(idx, b);
	for (int depth = 0; depth <= TL_FLOW_DEPTH; depth++) {
		expr = tl_index_unparen(expr);
		if (ts_node_is_null(expr))
			return false;
		TSSymbol s = ts_node_symbol(expr);
		if (s == sy->identifier || s == sy->attribute) {
			const TlBinding *nb = tl_index_resolve_node(idx, expr);
			if (!nb || nb->kind != TL_BIND_ASSIGN)
				return false;
			expr = tl_flow__held(idx, nb);
			continue;
		}
		if (s != sy->call)
			return false;
		const TlCall *c = tl_index_call_at(idx, expr);
		if (!c)
			return false;
		TSNode through = tl_flow__module_through(c, expr, false);
		if (!ts_node_is_null(through)) {
			expr = through;
			continue;
		}
		return c->qname && (tl_flow__is_wrapper(c->qname) || tl_flow__ends(c->qname, "RemoteModule") ||
				    tl_flow__ends(c->qname, "FullyShardedDataParallel"));
	}
	return false;
}

bool tl_flow_is_wrapper_module(const TlIndex *idx, TSNode expr)
{
	expr = tl_index_unparen(expr);
	const TlBinding *b = tl_index_resolve_node(idx, expr);
	if (!b) {
		char *name = tl_flow__dotted(idx, expr);
		bool yes = name && tl_flow__wrapper_name(name);
		tl_free(name);
		return yes;
	}
	if (b->cls >= 0 && !b->class_body && strncmp(b->name, "self.", 5) == 0) {
		/* self.model: wrapped in some method (`self.model = DDP(self.model)`). */
		for (uint32_t i = 0; i < idx->bindings.size; i++) {
			const TlBinding *o = &idx->bindings.items[i];
			if (o->cls == b->cls && !o->class_body && strcmp(o->name, b->name) == 0 &&
			    tl_flow__wrapper_binding(idx, o))
				return true;
		}
		return false;
	}
	return tl_flow__wrapper_binding(idx, b);
}
