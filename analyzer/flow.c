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
