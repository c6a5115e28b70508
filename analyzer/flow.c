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
		if (is_call) {
			TSNode e = tl_flow__kwarg(idx, call, "enabled");
			if (!ts_node_is_null(e) && ts_node_symbol(e) == sy->false_)
				return 0;
		}
		return TL_CTX_AUTOCAST;
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
		/* accelerator.autocast(), self.autocast(): the method says it. */
		if (ts_node_symbol(callee) == sy->attribute &&
		    tl_index_text_is(idx, ts_node_child_by_field_id(callee, sy->f_attribute), "autocast"))
			return tl_flow__context_of_name("torch.autocast", call, idx);
	}
	char *q = tl_index_qualify(idx, callee);
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

static bool tl_flow__under_autocast(const TlIndex *idx, TSNode node, int32_t func,
				    int32_t with, int depth)
{
	for (int32_t w = with; w >= 0; w = idx->withs.items[w].parent)
		if (idx->withs.items[w].ctx & TL_CTX_AUTOCAST)
			return true;
	if (func < 0 || depth > TL_FLOW_DEPTH)
		return false;
	const TlFunc *f = &idx->funcs.items[func];
	if (f->decorator_ctx & TL_CTX_AUTOCAST)
		return true;
	if (f->escapes || !f->call_sites.size)
		return false;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (c->func == func)
			return false; /* recursion: no outside context */
		if (!tl_flow__under_autocast(idx, c->node, c->func, c->with, depth + 1))
			return false;
	}
	(void)node;
	return true;
}

bool tl_flow_under(const TlIndex *idx, TSNode node, uint32_t ctx)
{
	if (ctx & TL_CTX_GRAD_OFF)
		return tl_flow_grad_state(idx, node) == TL_GRAD_OFF;
	if (ctx & TL_CTX_AUTOCAST)
		return tl_flow__under_autocast(idx, node, tl_index_func_of(idx, node),
					       tl_index_with_of(idx, node), 0);
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
	TSNode v = tl_flow__bound_value(b);
	if (ts_node_is_null(v) || b->elem >= 0)
		return false;
	return tl_flow__module_value(idx, v, depth + 1);
}

static bool tl_flow__module_return(const TlIndex *idx, TSNode v, int depth)
{
	return tl_flow__module_value(idx, v, depth);
}

static bool tl_flow__module_value(const TlIndex *idx, TSNode v, int depth)
{
	static const char *const same_module[] = {
		"to", "cuda", "cpu", "half", "float", "double", "bfloat16", "train",
		"eval", "requires_grad_", "share_memory", "to_empty",
	};
	static const char *const wrappers[] = {
		"torch.nn.parallel.DistributedDataParallel", "torch.nn.DataParallel",
		"torch.nn.parallel.DataParallel", "torch.compile",
		"torch.distributed.fsdp.FullyShardedDataParallel",
	};
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
		if (IN(c->qname, wrappers) || tl_flow__ends(c->qname, "DistributedDataParallel"))
			return tl_flow__module_value(idx, tl_flow__arg(v, 0), depth + 1);
		if (tl_flow__starts(c->qname, "torchvision.models.") ||
		    strcmp(c->qname, "timm.create_model") == 0 ||
		    strcmp(c->qname, "torch.hub.load") == 0)
			return true;
		if (tl_flow__ends(c->qname, ".from_pretrained") &&
		    (tl_flow__starts(c->qname, "transformers.") ||
		     tl_flow__starts(c->qname, "diffusers.") || tl_flow__starts(c->qname, "peft.")) &&
		    !strstr(c->qname, "Tokenizer") && !strstr(c->qname, "Config") &&
		    !strstr(c->qname, "Processor"))
			return true;
	}
	if (c->receiver.id && IN(c->method, same_module))
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
		if ((strcmp(m, "backward") == 0 || strcmp(m, "manual_backward") == 0) && !dist_autograd)
			ev |= TL_EV_BACKWARD;
		else if (strcmp(m, "zero_grad") == 0)
			ev |= TL_EV_GRAD_RESET;
		else if ((strcmp(m, "zero_") == 0 || strcmp(m, "detach_") == 0) && c->recv_name &&
			 (tl_flow__ends(c->recv_name, ".grad") || tl_flow__ends(c->recv_name, ".grad.data")))
			ev |= TL_EV_GRAD_RESET;
		else if (strcmp(m, "step") == 0) {
			if (tl_flow_is_scaler(idx, c->receiver))
				ev |= TL_EV_SCALER_STEP | TL_EV_OPT_STEP;
			else if (tl_flow_is_optimizer(idx, c->receiver))
				ev |= TL_EV_OPT_STEP;
		} else if (strcmp(m, "update") == 0 && tl_flow_is_scaler(idx, c->receiver)) {
			ev |= TL_EV_SCALER_UPDATE;
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
		}
	}
	if (c->qname && strcmp(c->qname, "torch.autograd.backward") == 0)
		ev |= TL_EV_BACKWARD;
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
		int m = tl_flow__mode_at(idx, c->node, c->func, mapped, depth + 1);
		tl_free(mapped);
		if (m == TL_MODE_UNKNOWN || (agreed != TL_MODE_UNKNOWN && m != agreed))
			return TL_MODE_UNKNOWN;
		agreed = m;
	}
	return agreed;
}

int tl_flow_mode_at(const TlIndex *idx, TSNode node, const char *recv)
{
	return tl_flow__mode_at(idx, node, tl_index_func_of(idx, node), recv, 0);
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
		if (c->func != func && tl_flow__reaches(idx, c->node, depth + 1))
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
					yes = tl_flow__reaches(idx, c->node, depth + 1);
			}
		}
	}
	tl_flow__names_release(&taint);
	return yes;
}

bool tl_flow_reaches_backward(const TlIndex *idx, TSNode expr)
{
	return tl_flow__reaches(idx, expr, 0);
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
 * budget of steps: real code needs a few dozen; when it runs out, the
 * answer is the cautious one. */
#define TL_FLOW_BUDGET 256

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
	if (s == sy->subscript)
		return tl_flow__tensor(idx, ts_node_child_by_field_id(e, sy->f_value), depth + 1, budget);
	if (s == sy->binary_operator)
		return tl_flow__tensor(idx, ts_node_child_by_field_id(e, sy->f_left), depth + 1, budget) ||
		       tl_flow__tensor(idx, ts_node_child_by_field_id(e, sy->f_right), depth + 1, budget);
	if (s == sy->unary_operator)
		return tl_flow__tensor(idx, ts_node_child_by_field_id(e, sy->f_argument), depth + 1, budget);
	if (s == sy->comparison_operator) {
		uint32_t count = ts_node_named_child_count(e);
		for (uint32_t i = 0; i < count; i++)
			if (tl_flow__tensor(idx, ts_node_named_child(e, i), depth + 1, budget))
				return true;
		return false;
	}
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

bool tl_flow_is_tensor(const TlIndex *idx, TSNode expr)
{
	int budget = TL_FLOW_BUDGET;
	return tl_flow__tensor(idx, expr, 0, &budget);
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
	if (s == sy->subscript)
		return tl_flow__on_device(idx, ts_node_child_by_field_id(e, sy->f_value), depth + 1, budget);
	if (s == sy->binary_operator)
		return tl_flow__on_device(idx, ts_node_child_by_field_id(e, sy->f_left), depth + 1, budget) ||
		       tl_flow__on_device(idx, ts_node_child_by_field_id(e, sy->f_right), depth + 1, budget);
	if (s == sy->unary_operator)
		return tl_flow__on_device(idx, ts_node_child_by_field_id(e, sy->f_argument), depth + 1, budget);
	if (s == sy->comparison_operator) {
		uint32_t count = ts_node_named_child_count(e);
		for (uint32_t i = 0; i < count; i++)
			if (tl_flow__on_device(idx, ts_node_named_child(e, i), depth + 1, budget))
				return true;
		return false;
	}
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

static uint32_t tl_flow__step_loops(const TlIndex *idx, TSNode node, int32_t func,
				    int32_t loop, uint32_t events, uint32_t *missing,
				    int depth)
{
	for (int32_t l = loop; l >= 0; l = idx->loops.items[l].parent) {
		const TlLoop *lp = &idx->loops.items[l];
		if (lp->events & TL_EV_BACKWARD) {
			if (!(lp->events & events))
				(*missing)++;
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
		found += tl_flow__step_loops(idx, c->node, c->func, c->loop, events, missing,
					     depth + 1);
	}
	(void)node;
	return found;
}

uint32_t tl_flow_step_loops(const TlIndex *idx, TSNode node, uint32_t events,
			    uint32_t *missing)
{
	*missing = 0;
	return tl_flow__step_loops(idx, node, tl_index_func_of(idx, node),
				   tl_index_loop_of(idx, node), events, missing, 0);
}
