/* What made a value: the activation (softmax, log_softmax, sigmoid) or scaling
 * a value ends in, through names, reshaping methods, local functions and model
 * outputs; and which loss a loss call computes.
 *
 * Owns: tl_facts_made_by, tl_facts_float32_value, tl_facts_model_output, tl_facts_loss_kind, tl_facts_is_loss_call. */
#include "model/apitable.h"
#include "model/model.h"
#include "facts/internal.h"

typedef struct TlMadeReturns {
	int kind;     /* agreed kind so far, -1 before the first return */
	int32_t elem; /* the element of a returned tuple, or -1 */
	int depth;
	uint32_t *budget;
} TlMadeReturns;

static int tl_facts__module_output(const TlIndex *idx, TSNode m, int32_t elem, int depth, uint32_t *budget);
static int tl_facts__made_through_returns(const TlIndex *idx, int32_t f, int32_t elem, int depth, uint32_t *budget);
static int tl_facts__returned_modules_output(const TlIndex *idx, int32_t f, int depth, uint32_t *budget);
static int tl_facts__made_through(const TlIndex *idx, TSNode expr, int depth, uint32_t *budget);

/* ---- what made a value ---------------------------------------------------------- */

/* Methods that change a value's shape, dtype or device but not what it holds:
 * probabilities stay probabilities through them (`resize`: the deprecated
 * out-of-place Tensor.resize, a view of the same elements in old code). */
const char *const tl_facts__reshaping[24] = {
	"view", "reshape", "view_as", "reshape_as", "squeeze", "unsqueeze", "flatten",
	"unflatten", "contiguous", "permute", "transpose", "t", "movedim", "to", "cuda",
	"cpu", "float", "half", "double", "bfloat16", "type", "type_as", "clone", "resize",
};

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

/* The call whose result `expr` holds: through parentheses, subscripts,
 * reshaping methods and names (to the value their visible binding gives
 * them). When the value is one element of a call's tuple result
 * (`validity, label = netD(x)`), *elem receives its index (else -1).
 * NULL when the value is not a call's result. */
static const TlCall *tl_facts__producer_elem(const TlIndex *idx, TSNode expr, int depth,
					    int32_t *elem)
{
	const TlSyms *sy = tl_syms();
	*elem = -1;
	for (; depth <= TL_FACTS_DEPTH; depth++) {
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
		if (c->receiver.id && IN(c->method, tl_facts__reshaping) &&
		    !tl_facts__module_expr(idx, c->receiver, 0)) {
			expr = c->receiver;
			continue;
		}
		return c;
	}
	return NULL;
}

/* Same, for a value that is a call's whole result. */
const TlCall *tl_facts__producer(const TlIndex *idx, TSNode expr, int depth)
{
	int32_t elem;
	const TlCall *c = tl_facts__producer_elem(idx, expr, depth, &elem);
	return elem < 0 ? c : NULL;
}

/* Methods that keep a tensor's dtype: the reshaping ones but the casts,
 * and the out-of-place fills and masks. */
static const char *const tl_facts__same_dtype[] = {
	"view", "reshape", "view_as", "reshape_as", "squeeze", "unsqueeze", "flatten",
	"unflatten", "contiguous", "permute", "transpose", "t", "movedim", "cuda", "cpu",
	"clone", "detach", "masked_fill", "masked_fill_", "fill_", "clamp", "clamp_",
	"expand", "expand_as", "repeat", "narrow", "chunk", "split", "index_fill",
};

static bool tl_facts__walk_float32_value(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	for (int depth = 0; depth <= TL_FACTS_DEPTH; depth++) {
		expr = tl_index_unparen(expr);
		if (ts_node_is_null(expr))
			return false;
		TSSymbol s = ts_node_symbol(expr);
		if (s == sy->subscript) {
			expr = tl_tree_field(expr, sy->f_value);
			continue;
		}
		if (s == sy->identifier || s == sy->attribute) {
			const TlBinding *b = tl_index_resolve_node(idx, expr);
			TSNode v = tl_facts__bound_value(b);
			if (ts_node_is_null(v) || b->kind != TL_BIND_ASSIGN || b->elem >= 0)
				return false;
			expr = v;
			continue;
		}
		if (s != sy->call)
			return false;
		if (tl_facts__upcast(idx, expr))
			return true;
		const TlCall *c = tl_index_call_at(idx, expr);
		if (!c || !c->receiver.id || !c->method)
			return false;
		/* .to(device) keeps the dtype; .to(torch.half) is no upcast. */
		bool keeps = IN(c->method, tl_facts__same_dtype) ||
			     (strcmp(c->method, "to") == 0 && ts_node_is_null(tl_facts__kwarg(idx, expr, "dtype")) &&
			      tl_facts_is_device(idx, tl_facts__arg(expr, 0)) &&
			      ts_node_is_null(tl_facts__arg(expr, 1)));
		if (!keeps)
			return false;
		expr = c->receiver;
	}
	return false;
}

static int tl_facts__activation_name(const char *last)
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
static int tl_facts__activation_qname(const char *q, bool classes)
{
	if (!q || !tl_facts__starts(q, "torch."))
		return TL_MADE_NONE;
	const char *last = tl_facts__last(q);
	bool is_class = isupper((unsigned char)last[0]);
	if (is_class ? !classes || !tl_facts__starts(q, "torch.nn.")
		     : !(last == q + 6 || tl_facts__starts(q, "torch.nn.functional.") ||
			 tl_facts__starts(q, "torch.special.")))
		return TL_MADE_NONE;
	return tl_facts__activation_name(last);
}

/* The activation module a callee is bound to (`act = nn.Sigmoid()`,
 * `self.softmax = nn.Softmax(dim=1)`, `nn.Softmax(dim=1)(x)`). */
static int tl_facts__activation_module(const TlIndex *idx, TSNode callee, int depth)
{
	const TlSyms *sy = tl_syms();
	for (; depth <= TL_FACTS_DEPTH; depth++) {
		callee = tl_index_unparen(callee);
		if (ts_node_is_null(callee))
			return TL_MADE_NONE;
		TSSymbol s = ts_node_symbol(callee);
		if (s == sy->identifier || s == sy->attribute) {
			const TlBinding *b = tl_index_resolve_node(idx, callee);
			TSNode v = tl_facts__bound_value(b);
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
		TSNode through = tl_facts__module_through(c, callee, false);
		if (!ts_node_is_null(through)) {
			callee = through;
			continue;
		}
		return tl_facts__activation_qname(c->qname, true);
	}
	return TL_MADE_NONE;
}

/* True when call `c` is the tensor method or torch function `name`
 * (`x.exp()`, `torch.exp(x)`), not a module attribute that is so named. */
static bool tl_facts__tensor_op(const TlIndex *idx, const TlCall *c, const char *name)
{
	const TlSyms *sy = tl_syms();
	if (c->qname) {
		if (!tl_facts__starts(c->qname, "torch."))
			return false;
		const char *last = tl_facts__last(c->qname);
		return strcmp(last, name) == 0 && last == c->qname + 6;
	}
	TSNode callee = tl_index_unparen(c->callee);
	return c->method && strcmp(c->method, name) == 0 && c->receiver.id &&
	       ts_node_symbol(callee) == sy->attribute && !tl_index_resolve_node(idx, callee) &&
	       !tl_facts__module_expr(idx, c->receiver, 0);
}

/* The operand of a one-operand tensor op: the receiver of `x.exp()`, the
 * first argument of `torch.exp(x)`. */
static TSNode tl_facts__op_operand(const TlCall *c)
{
	return c->qname ? tl_facts__arg(c->node, 0) : c->receiver;
}

/* True when the name `x` was shifted in place earlier in its function,
 * before byte `before`: `x.sub_(m)` or `x -= m` (a manual logsumexp that
 * subtracts the maximum from the logits it then exponentiates). */
static bool tl_facts__shifted_in_place(const TlIndex *idx, TSNode x, uint32_t before)
{
	const TlSyms *sy = tl_syms();
	uint32_t xlen;
	const char *xt = tl_index_text(idx, x, &xlen);
	int32_t func = tl_index_func_of(idx, x);
	/* Within a function only: its body bounds the walk (one per sum of
	 * exponentials asked about). */
	if (func < 0)
		return false;
	TSNode scope = idx->funcs.items[func].node;
	TSTreeCursor cur = ts_tree_cursor_new(scope);
	bool found = false, descend = true;
	/* A budget of nodes visited: one walk per sum of exponentials asked
	 * about must stay linear in the function's size overall. */
	int budget = 4096;
	do {
		TSNode n = ts_tree_cursor_current_node(&cur);
		if (--budget < 0)
			break;
		descend = ts_node_start_byte(n) < before;
		if (!descend)
			continue;
		TSSymbol s = ts_node_symbol(n);
		TSNode target = { 0 };
		if (s == sy->augmented_assignment) {
			TSNode op = tl_tree_field(n, sy->f_operator);
			if (!ts_node_is_null(op) && tl_index_text_is(idx, op, "-="))
				target = tl_tree_field(n, sy->f_left);
		} else if (s == sy->call) {
			const TlCall *c = tl_index_call_at(idx, n);
			if (c && c->method && c->receiver.id && strcmp(c->method, "sub_") == 0)
				target = c->receiver;
		} else if (s == sy->function_definition && !ts_node_eq(n, scope)) {
			descend = false;
		}
		target = tl_index_unparen(target);
		if (!ts_node_is_null(target) && ts_node_end_byte(n) <= before) {
			uint32_t tlen;
			const char *tt = tl_index_text(idx, target, &tlen);
			found = tlen == xlen && memcmp(tt, xt, xlen) == 0;
		}
	} while (!found && tl_walk_next(&cur, scope, descend));
	ts_tree_cursor_delete(&cur);
	return found;
}

/* `torch.sum(torch.exp(x), d)`, `x.exp().sum(d)` and their mixes: a sum of
 * exponentials, the linear-space form of a logsumexp. An exponent that
 * subtracts something first (`torch.exp(x - x.max())`) is the stable
 * manual form, and not this. */
static bool tl_facts__exp_sum(const TlIndex *idx, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	if (!tl_facts__tensor_op(idx, c, "sum"))
		return false;
	const TlCall *e = tl_facts__producer(idx, tl_facts__op_operand(c), 0);
	if (!e || !tl_facts__tensor_op(idx, e, "exp"))
		return false;
	/* The exponent, through names bound to it (`shifted = x - m`). */
	TSNode x = tl_facts__op_operand(e);
	for (int depth = 0; depth <= TL_FACTS_DEPTH; depth++) {
		x = tl_index_unparen(x);
		if (ts_node_is_null(x))
			return false;
		if (ts_node_symbol(x) == sy->binary_operator) {
			TSNode op = tl_tree_field(x, sy->f_operator);
			return ts_node_is_null(op) || !tl_index_text_is(idx, op, "-");
		}
		if (ts_node_symbol(x) != sy->identifier)
			return true;
		if (tl_facts__shifted_in_place(idx, x, ts_node_start_byte(e->node)))
			return false;
		const TlBinding *b = tl_index_resolve_node(idx, x);
		if (!b || b->kind != TL_BIND_ASSIGN || b->elem >= 0)
			return true;
		x = tl_facts__bound_value(b);
	}
	return true;
}

static int tl_facts__explicit_activation(const TlIndex *idx, const TlCall *c);

/* `torch.exp(F.log_softmax(s, 1))`, `self.lsm(s).exp()`: a softmax written
 * as the exponential of a log-softmax. */
static bool tl_facts__exp_of_log_softmax(const TlIndex *idx, const TlCall *c)
{
	if (!tl_facts__tensor_op(idx, c, "exp"))
		return false;
	const TlCall *e = tl_facts__producer(idx, tl_facts__op_operand(c), 0);
	return e && tl_facts__explicit_activation(idx, e) == TL_MADE_LOG_SOFTMAX;
}

/* The activation call `c` computes by name: a torch function, an
 * activation module called, a tensor method (no exponential of one). */
static int tl_facts__explicit_activation(const TlIndex *idx, const TlCall *c)
{
	const TlSyms *sy = tl_syms();
	int k = tl_facts__activation_qname(c->qname, false);
	if (k)
		return k;
	k = tl_facts__activation_module(idx, c->callee, 0);
	if (k)
		return k;
	/* logits.softmax(-1): a tensor method, not a module attribute that
	 * happens to be named so (self.softmax may be an nn.LogSoftmax). */
	TSNode callee = tl_index_unparen(c->callee);
	if (c->receiver.id && !c->qname && ts_node_symbol(callee) == sy->attribute &&
	    !tl_facts__module_expr(idx, c->receiver, 0) && !tl_index_resolve_node(idx, callee))
		return tl_facts__activation_name(c->method);
	return TL_MADE_NONE;
}

/* What call `c` computes when it is an explicit activation or a loss scaling:
 * TL_MADE_*. */
int tl_facts__call_made(const TlIndex *idx, const TlCall *c)
{
	if (c->method && strcmp(c->method, "scale") == 0 && c->receiver.id &&
	    tl_facts_is_scaler(idx, c->receiver))
		return tl_facts__scaler_disabled(idx, c->receiver) ? TL_MADE_NONE : TL_MADE_SCALED;
	if (tl_facts__exp_sum(idx, c))
		return TL_MADE_EXP_SUM;
	if (tl_facts__exp_of_log_softmax(idx, c))
		return TL_MADE_SOFTMAX;
	return tl_facts__explicit_activation(idx, c);
}

/* Agreement of the arguments that external callers pass (importers.c):
 * what made each (`value`), or the module output each ends in. */
typedef struct TlMadeAgree {
	int kind;         /* agreed so far, TL_MADE_NONE before the first */
	int depth;
	uint32_t *budget; /* for module outputs */
	int32_t elem;
	bool value;       /* what made the argument, not its module's output */
} TlMadeAgree;

static int tl_facts__made_param(const TlIndex *idx, TSNode expr, int depth);
static int tl_facts__module_output(const TlIndex *idx, TSNode m, int32_t elem, int depth,
				  uint32_t *budget);

static bool tl_facts__made_agree(const TlIndex *mod, TSNode arg, void *data)
{
	TlMadeAgree *ag = data;
	int k;
	if (ag->value) {
		if (!tl_facts__fan_step())
			return false;
		const TlCall *p = tl_facts__producer(mod, arg, 0);
		k = p ? tl_facts__call_made(mod, p) : tl_facts__made_param(mod, arg, ag->depth + 1);
	} else {
		if (!*ag->budget)
			return false;
		(*ag->budget)--;
		k = tl_facts__module_output(mod, arg, ag->elem, ag->depth + 1, ag->budget);
	}
	if (k == TL_MADE_NONE || (ag->kind != TL_MADE_NONE && k != ag->kind))
		return false;
	ag->kind = k;
	return true;
}

/* What made the value parameter `expr` holds, when every caller of its
 * function passes a value made by the same activation (a softmax handed
 * to a loss helper: `def ce(p, t): return F.cross_entropy(p, t)` called
 * with `F.softmax(s, 1)`); principle 3, through parameters whose callers
 * all agree. */
static int tl_facts__made_param(const TlIndex *idx, TSNode expr, int depth)
{
	const TlSyms *sy = tl_syms();
	expr = tl_index_unparen(expr);
	if (depth > TL_FACTS_DEPTH || ts_node_is_null(expr) || ts_node_symbol(expr) != sy->identifier)
		return TL_MADE_NONE;
	const TlBinding *b = tl_index_resolve_node(idx, expr);
	if (!b || b->kind != TL_BIND_PARAM || b->func < 0)
		return TL_MADE_NONE;
	const TlFunc *f = &idx->funcs.items[b->func];
	if (!f->escapes && !f->call_sites.size && idx->imports) {
		/* Called from the modules that import this one. */
		TlMadeAgree ag = { TL_MADE_NONE, depth, NULL, -1, true };
		return tl_facts__ext_param_args(idx, b, tl_facts__made_agree, &ag) ? ag.kind
										    : TL_MADE_NONE;
	}
	if (f->escapes || !f->call_sites.size)
		return TL_MADE_NONE;
	int agreed = TL_MADE_NONE;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (c->func == b->func || !tl_facts__fan_step())
			return TL_MADE_NONE;
		TSNode arg = tl_facts__param_arg_of(idx, b, c);
		if (ts_node_is_null(arg))
			return TL_MADE_NONE;
		const TlCall *p = tl_facts__producer(idx, arg, 0);
		int k = p ? tl_facts__call_made(idx, p) : tl_facts__made_param(idx, arg, depth + 1);
		if (k == TL_MADE_NONE || (i > 0 && k != agreed))
			return TL_MADE_NONE;
		agreed = k;
	}
	return agreed;
}

static int tl_facts__walk_made_by(const TlIndex *idx, TSNode expr)
{
	const TlCall *c = tl_facts__producer(idx, expr, 0);
	if (c)
		return tl_facts__call_made(idx, c);
	tl_facts__fan_begin();
	int k = tl_facts__made_param(idx, expr, 0);
	tl_facts__fan_end();
	return k;
}

/* What the module a parameter holds outputs, when every caller in the file
 * passes modules that agree. */
static int tl_facts__param_output(const TlIndex *idx, const TlBinding *param, int32_t elem,
				 int depth, uint32_t *budget)
{
	if (param->func < 0 || depth > TL_FACTS_DEPTH)
		return TL_MADE_NONE;
	const TlFunc *f = &idx->funcs.items[param->func];
	if (!f->escapes && !f->call_sites.size && idx->imports) {
		/* Called from the modules that import this one. */
		TlMadeAgree ag = { TL_MADE_NONE, depth, budget, elem, false };
		return tl_facts__ext_param_args(idx, param, tl_facts__made_agree, &ag) ? ag.kind
											: TL_MADE_NONE;
	}
	if (f->escapes || !f->call_sites.size)
		return TL_MADE_NONE;
	int agreed = TL_MADE_NONE;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (!*budget)
			return TL_MADE_NONE;
		(*budget)--;
		TSNode arg = c->func == param->func ? (TSNode){ 0 } : tl_facts__param_arg_of(idx, param, c);
		int k = ts_node_is_null(arg) ? TL_MADE_NONE
					     : tl_facts__module_output(idx, arg, elem, depth + 1, budget);
		if (k == TL_MADE_NONE || (i > 0 && k != agreed))
			return TL_MADE_NONE;
		agreed = k;
	}
	return agreed;
}

/* The layer added last to the empty nn.Sequential `ctor` that binding `b`
 * holds (`model = nn.Sequential()`, then `model.add_module("fc", ...)`,
 * `model.add_module("softmax", nn.Softmax())`), when every add_module call
 * on the name is a statement of the block the binding is made in (no
 * layer added only on some paths) and nothing else adds to it; null
 * otherwise. */
static TSNode tl_facts__last_added(const TlIndex *idx, const TlBinding *b, TSNode ctor)
{
	TSNode none = { 0 };
	if (!b || b->kind != TL_BIND_ASSIGN || b->elem >= 0 || !ts_node_eq(tl_index_unparen(b->value), ctor))
		return none;
	TSNode block = tl_index_parent(idx, b->stmt); /* the assignment's expression statement */
	block = ts_node_is_null(block) ? none : tl_index_parent(idx, block);
	if (ts_node_is_null(block))
		return none;
	const TlIntArray *calls = tl_index_scope_calls(idx, b->func);
	TSNode last = none;
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (!c->receiver.id || !c->method || ts_node_start_byte(c->node) < ts_node_end_byte(b->stmt) ||
		    tl_index_resolve_node(idx, c->receiver) != b)
			continue;
		bool adds = strcmp(c->method, "add_module") == 0;
		if (!adds && (strcmp(c->method, "append") == 0 || strcmp(c->method, "extend") == 0 ||
			      strcmp(c->method, "insert") == 0 || strcmp(c->method, "register_module") == 0))
			return none;
		if (!adds)
			continue;
		TSNode stmt = tl_index_parent(idx, c->node);
		if (!c->stmt_level || ts_node_is_null(stmt) || !ts_node_eq(tl_index_parent(idx, stmt), block))
			return none;
		last = tl_facts__arg(c->node, 1);
		if (ts_node_is_null(last))
			last = tl_facts__kwarg(idx, c->node, "module");
		if (ts_node_is_null(last))
			return none;
	}
	return last;
}

/* The forward of local class `cls`, its own or a local base's; -1 if none. */
static int32_t tl_facts__class_forward(const TlIndex *idx, int32_t cls)
{
	int32_t f = -1;
	for (int hop = 0; cls >= 0 && f < 0 && hop < TL_FACTS_DEPTH; hop++) {
		f = tl_index_method(idx, cls, "forward", 7);
		const TlClass *k = &idx->classes.items[cls];
		cls = k->bases.size ? k->bases.items[0] : -1;
	}
	return f;
}

/* The activation every output of module `m` ends in: the last layer of an
 * nn.Sequential, or what every return of a local module's forward ends in.
 * With `elem` >= 0, what element `elem` of every tuple it returns ends in. */
static int tl_facts__module_output(const TlIndex *idx, TSNode m, int32_t elem, int depth,
				  uint32_t *budget)
{
	const TlSyms *sy = tl_syms();
	const TlBinding *named = NULL; /* the binding the call below was reached through */
	for (; depth <= TL_FACTS_DEPTH; depth++) {
		m = tl_index_unparen(m);
		if (ts_node_is_null(m))
			return TL_MADE_NONE;
		TSSymbol s = ts_node_symbol(m);
		if (s == sy->identifier || s == sy->attribute) {
			const TlBinding *b = tl_index_resolve_node(idx, m);
			if (b && b->kind == TL_BIND_PARAM)
				return tl_facts__param_output(idx, b, elem, depth + 1, budget);
			named = b;
			m = tl_facts__held(idx, b);
			continue;
		}
		if (s != sy->call)
			return TL_MADE_NONE;
		const TlCall *c = tl_index_call_at(idx, m);
		if (!c)
			return TL_MADE_NONE;
		TSNode through = tl_facts__module_through(c, m, true);
		if (!ts_node_is_null(through)) {
			m = through;
			continue;
		}
		if (c->qname && strcmp(c->qname, "torch.nn.Sequential") == 0) {
			if (elem >= 0)
				return TL_MADE_NONE;
			/* The last positional layer. */
			uint32_t n = 0;
			while (!ts_node_is_null(tl_facts__arg(m, n)))
				n++;
			TSNode last = n ? tl_facts__arg(m, n - 1) : tl_facts__last_added(idx, named, m);
			if (ts_node_is_null(last) || ts_node_symbol(last) == sy->list_splat)
				return TL_MADE_NONE;
			const TlCall *lc = ts_node_symbol(tl_index_unparen(last)) == sy->call
						   ? tl_index_call_at(idx, tl_index_unparen(last)) : NULL;
			int k = lc ? tl_facts__activation_qname(lc->qname, true) : TL_MADE_NONE;
			if (k)
				return k;
			m = last;
			continue;
		}
		const TlBinding *cb = tl_index_resolve_node(idx, c->callee);
		if ((!cb || cb->kind != TL_BIND_CLASS) && c->qname && idx->imports &&
		    tl_facts__ext_class_is_module(idx, c->qname)) {
			/* A module class of another module: its forward there (or
			 * its bases'). */
			TlBuf fq;
			tl_buf_init(&fq);
			tl_buf_add(&fq, c->qname);
			tl_buf_add(&fq, ".forward");
			int k = TL_MADE_NONE;
			tl_facts__ext_enter(idx);
			TlExtDef d;
			if (tl_facts__ext_def(idx, fq.data, &d) && d.func >= 0)
				k = tl_facts__made_through_returns(d.idx, d.func, elem, depth + 1, budget);
			tl_facts__ext_leave(idx);
			tl_buf_release(&fq);
			return k;
		}
		if ((!cb || cb->kind != TL_BIND_CLASS) && c->target >= 0 && elem < 0)
			/* A local function that builds the model (`model =
			 * build_model(784, 10)`): what every module it returns
			 * outputs. */
			return tl_facts__returned_modules_output(idx, c->target, depth + 1, budget);
		if (!cb || cb->kind != TL_BIND_CLASS || !idx->classes.items[cb->ref].is_module)
			return TL_MADE_NONE;
		/* A local module: its forward, found in the class or its bases. */
		int32_t f = tl_facts__class_forward(idx, cb->ref);
		if (f < 0)
			return TL_MADE_NONE;
		return tl_facts__made_through_returns(idx, f, elem, depth + 1, budget);
	}
	return TL_MADE_NONE;
}

static bool tl_facts__module_return(const TlIndex *idx, TSNode ret, void *data)
{
	TlMadeReturns *mr = data;
	TSNode v = ts_node_named_child_count(ret) ? tl_index_unparen(ts_node_named_child(ret, 0))
						  : (TSNode){ 0 };
	int k = ts_node_is_null(v) ? TL_MADE_NONE
				   : tl_facts__module_output(idx, v, -1, mr->depth, mr->budget);
	if (mr->kind >= 0 && mr->kind != k)
		k = TL_MADE_NONE;
	mr->kind = k;
	return k == TL_MADE_NONE; /* stop: the returns disagree */
}

/* The activation every output of every module that local function `f`
 * returns ends in (a model factory), or TL_MADE_NONE. */
static int tl_facts__returned_modules_output(const TlIndex *idx, int32_t f, int depth, uint32_t *budget)
{
	if (f < 0 || depth > TL_FACTS_DEPTH || !*budget)
		return TL_MADE_NONE;
	(*budget)--;
	TlMadeReturns mr = { -1, -1, depth + 1, budget };
	if (tl_facts__each_return(idx, f, tl_facts__module_return, &mr))
		return TL_MADE_NONE;
	return mr.kind < 0 ? TL_MADE_NONE : mr.kind;
}

static bool tl_facts__made_return(const TlIndex *idx, TSNode ret, void *data)
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
	int k = ts_node_is_null(v) ? TL_MADE_NONE : tl_facts__made_through(idx, v, mr->depth, mr->budget);
	if (mr->kind >= 0 && mr->kind != k)
		k = TL_MADE_NONE;
	mr->kind = k;
	return k == TL_MADE_NONE; /* stop: the returns disagree */
}

/* The kind every return of local function `f` (or, with `elem` >= 0, that
 * element of every tuple it returns) agrees on, or TL_MADE_NONE. */
static int tl_facts__made_through_returns(const TlIndex *idx, int32_t f, int32_t elem, int depth,
					 uint32_t *budget)
{
	if (f < 0 || depth > TL_FACTS_DEPTH || !*budget)
		return TL_MADE_NONE;
	(*budget)--;
	TlMadeReturns mr = { -1, elem, depth + 1, budget };
	if (tl_facts__each_return(idx, f, tl_facts__made_return, &mr))
		return TL_MADE_NONE;
	return mr.kind < 0 ? TL_MADE_NONE : mr.kind;
}

/* What made `expr`: an explicit activation, or a module forward or local
 * function whose every output (or the element of it that `expr` holds)
 * ends in one. */
static int tl_facts__made_through(const TlIndex *idx, TSNode expr, int depth, uint32_t *budget)
{
	if (depth > TL_FACTS_DEPTH)
		return TL_MADE_NONE;
	int32_t elem;
	const TlCall *c = tl_facts__producer_elem(idx, expr, depth, &elem);
	if (!c)
		return TL_MADE_NONE;
	int k = elem < 0 ? tl_facts__call_made(idx, c) : TL_MADE_NONE;
	if (k)
		return k;
	if (c->events & TL_EV_FORWARD) {
		return tl_facts__module_output(idx, tl_facts__called_object(c), elem, depth + 1, budget);
	}
	if (c->target >= 0)
		return tl_facts__made_through_returns(idx, c->target, elem, depth + 1, budget);
	if (idx->imports) {
		/* A function of another module of the project. */
		tl_facts__ext_enter(idx);
		TlExtDef d;
		if (tl_facts__ext_callee(idx, c, &d))
			k = tl_facts__made_through_returns(d.idx, d.func, elem, depth + 1, budget);
		tl_facts__ext_leave(idx);
		return k;
	}
	return TL_MADE_NONE;
}

static int tl_facts__walk_model_output(const TlIndex *idx, TSNode expr)
{
	int32_t elem;
	const TlCall *c = tl_facts__producer_elem(idx, expr, 0, &elem);
	if (!c || (elem < 0 && tl_facts__call_made(idx, c)))
		return TL_MADE_NONE; /* explicit: tl_facts_made_by's answer */
	uint32_t budget = TL_FACTS_BUDGET;
	return tl_facts__made_through(idx, expr, 0, &budget);
}

/* The criterion class or loss function a dotted name names. */
/* The last parts of the torch.nn names of each known loss. */
static const struct {
	const char *name;
	int kind;
} tl_facts__loss_kinds[] = {
	{ "cross_entropy", TL_LOSS_CROSS_ENTROPY }, { "CrossEntropyLoss", TL_LOSS_CROSS_ENTROPY },
	{ "nll_loss", TL_LOSS_NLL }, { "NLLLoss", TL_LOSS_NLL },
	{ "binary_cross_entropy", TL_LOSS_BCE }, { "BCELoss", TL_LOSS_BCE },
	{ "binary_cross_entropy_with_logits", TL_LOSS_BCE_LOGITS },
	{ "BCEWithLogitsLoss", TL_LOSS_BCE_LOGITS },
};

static int tl_facts__loss_kind_name(const char *q)
{
	if (!q || !tl_facts__starts(q, "torch.nn."))
		return TL_LOSS_OTHER;
	const char *last = tl_facts__last(q);
	for (size_t i = 0; i < sizeof tl_facts__loss_kinds / sizeof *tl_facts__loss_kinds; i++)
		if (strcmp(last, tl_facts__loss_kinds[i].name) == 0)
			return tl_facts__loss_kinds[i].kind;
	return TL_LOSS_OTHER;
}

size_t tl_facts_loss_kind_words(int kind, const char **out, size_t cap)
{
	size_t count = 0;
	for (size_t i = 0; i < sizeof tl_facts__loss_kinds / sizeof *tl_facts__loss_kinds; i++)
		if (tl_facts__loss_kinds[i].kind == kind && count < cap)
			out[count++] = tl_facts__loss_kinds[i].name;
	return count;
}

/* Criteria: what a value used as a loss callable is. The value is followed
 * through names, `.to(device)` and friends, the returns of local factories
 * (`criterion = build_loss(cfg)`, one summary per factory) and parameters
 * whose every caller agrees (`train_loop(loader, model, loss_fn, opt)`).
 * A criterion is a loss module (`nn.CrossEntropyLoss()`, a local class
 * named ...Loss) or a loss function passed by name (`F.cross_entropy`). */

/* The loss kind (TL_LOSS_*) criterion `m` computes; `*known` receives
 * whether `m` is a criterion at all. */
static int tl_facts__criterion(const TlIndex *idx, TSNode m, int depth, bool *known);

static int tl_facts__criterion_kind_of(const TlIndex *idx, TSNode v, int depth)
{
	bool known = false;
	int k = tl_facts__criterion(idx, v, depth, &known);
	return known ? k : TL_LOSS_OTHER;
}

static bool tl_facts__criterion_return(const TlIndex *idx, TSNode v, int depth)
{
	bool known = false;
	tl_facts__criterion(idx, v, depth, &known);
	return known;
}

/* Every caller of parameter `b`'s function passes a criterion, all of one
 * kind: *known and that kind. */
static int tl_facts__criterion_param(const TlIndex *idx, const TlBinding *b, int depth, bool *known)
{
	*known = false;
	if (b->func < 0 || depth > TL_FACTS_DEPTH)
		return TL_LOSS_OTHER;
	const TlFunc *f = &idx->funcs.items[b->func];
	if (f->escapes || !f->call_sites.size)
		return TL_LOSS_OTHER;
	int agreed = -1;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (!tl_facts__fan_step())
			return TL_LOSS_OTHER;
		TSNode arg = c->func == b->func ? (TSNode){ 0 } : tl_facts__param_arg_of(idx, b, c);
		bool k_known = false;
		int k = ts_node_is_null(arg) ? TL_LOSS_OTHER : tl_facts__criterion(idx, arg, depth + 1, &k_known);
		if (!k_known)
			return TL_LOSS_OTHER;
		/* Criteria of different kinds: a criterion, but of no one kind. */
		agreed = agreed < 0 || agreed == k ? k : TL_LOSS_OTHER;
	}
	*known = true;
	return agreed < 0 ? TL_LOSS_OTHER : agreed;
}

static int tl_facts__criterion(const TlIndex *idx, TSNode m, int depth, bool *known)
{
	const TlSyms *sy = tl_syms();
	*known = false;
	for (; depth <= TL_FACTS_DEPTH; depth++) {
		m = tl_index_unparen(m);
		if (ts_node_is_null(m))
			return TL_LOSS_OTHER;
		TSSymbol s = ts_node_symbol(m);
		if (s == sy->identifier || s == sy->attribute) {
			/* F.cross_entropy handed over as a function */
			char *q = tl_index_qualify(idx, m);
			if (q) {
				*known = tl_facts__is_loss_function(q) || tl_facts__is_loss_class(q);
				int k = *known && tl_facts__is_loss_function(q) ? tl_facts__loss_kind_name(q)
									 : TL_LOSS_OTHER;
				tl_free(q);
				return k;
			}
			const TlBinding *b = tl_index_resolve_node(idx, m);
			if (b && b->kind == TL_BIND_PARAM)
				return tl_facts__criterion_param(idx, b, depth + 1, known);
			TSNode v = tl_facts__bound_value(b);
			if (ts_node_is_null(v) || b->elem >= 0)
				return TL_LOSS_OTHER;
			m = v;
			continue;
		}
		if (s != sy->call)
			return TL_LOSS_OTHER;
		const TlCall *k = tl_index_call_at(idx, m);
		if (!k)
			return TL_LOSS_OTHER;
		if (k->receiver.id && IN(k->method, tl_facts__same_module)) {
			m = k->receiver;
			continue;
		}
		if (k->qname) {
			*known = tl_facts__is_loss_class(k->qname);
			if (*known)
				return tl_facts__loss_kind_name(k->qname);
			/* A loss class of another module of the project (as a
			 * local one: by its name), or a factory there. */
			char buf[128];
			const char *name = tl_facts__ext_class_named(idx, k->qname, buf, sizeof buf);
			if (name) {
				*known = tl_facts__ends(name, "Loss");
				return TL_LOSS_OTHER;
			}
			*known = tl_facts__ext_any_return(idx, k, TL_RET_CRITERION,
							  tl_facts__criterion_return, depth + 1);
			return *known ? tl_facts__ext_returned_loss_kind(idx, k, tl_facts__criterion_kind_of)
				      : TL_LOSS_OTHER;
		}
		const TlBinding *cb = tl_index_resolve_node(idx, k->callee);
		if (cb && cb->kind == TL_BIND_CLASS) {
			*known = tl_facts__ends(idx->classes.items[cb->ref].name, "Loss");
			return TL_LOSS_OTHER;
		}
		if (k->target >= 0) {
			*known = tl_facts__any_return(idx, k->target, TL_RET_CRITERION,
						      tl_facts__criterion_return, depth + 1);
			return *known ? tl_facts__returned_loss_kind(idx, k->target,
								     tl_facts__criterion_kind_of)
				      : TL_LOSS_OTHER;
		}
		return TL_LOSS_OTHER;
	}
	return TL_LOSS_OTHER;
}

bool tl_facts__is_criterion(const TlIndex *idx, TSNode m)
{
	bool known = false;
	tl_facts__fan_begin();
	tl_facts__criterion(idx, m, 0, &known);
	tl_facts__fan_end();
	return known;
}

static int tl_facts__walk_loss_kind(const TlIndex *idx, const TlCall *c)
{
	if (!(c->events & TL_EV_LOSS))
		return TL_LOSS_OTHER;
	if (c->qname)
		return tl_facts__is_loss_function(c->qname) ? tl_facts__loss_kind_name(c->qname)
							    : TL_LOSS_OTHER;
	/* A criterion: nn.BCELoss()(p, y), or a name bound to one (its
	 * forward called directly: criterion.forward(p, y)). */
	bool known = false;
	tl_facts__fan_begin();
	int k = tl_facts__criterion(idx, tl_facts__called_object(c), 0, &known);
	tl_facts__fan_end();
	return known ? k : TL_LOSS_OTHER;
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

static int tl_facts__model_made_param(const TlIndex *idx, TSNode expr, int depth);

/* What made the argument a call site passes: in the caller's function, or
 * as what every caller of the caller passes. */
static int tl_facts__model_made_arg(const TlIndex *idx, TSNode arg, int depth)
{
	int k = tl_facts__model_made(idx, arg, false);
	return k ? k : tl_facts__model_made_param(idx, arg, depth + 1);
}

/* A parameter: what every caller in the file passes, when they agree
 * (the model's parameters are symbolic: the caller decides). */
static int tl_facts__model_made_param(const TlIndex *idx, TSNode expr, int depth)
{
	const TlSyms *sy = tl_syms();
	expr = tl_index_unparen(expr);
	if (depth > TL_FACTS_DEPTH || ts_node_is_null(expr) || ts_node_symbol(expr) != sy->identifier)
		return TL_MADE_NONE;
	const TlBinding *b = tl_index_resolve_node(idx, expr);
	if (!b || b->kind != TL_BIND_PARAM || b->func < 0)
		return TL_MADE_NONE;
	const TlFunc *f = &idx->funcs.items[b->func];
	if (f->escapes || !f->call_sites.size)
		return TL_MADE_NONE;
	int agreed = TL_MADE_NONE;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (c->func == b->func || !tl_facts__fan_step())
			return TL_MADE_NONE;
		TSNode arg = tl_facts__param_arg_of(idx, b, c);
		int k = ts_node_is_null(arg) ? TL_MADE_NONE : tl_facts__model_made_arg(idx, arg, depth);
		if (k == TL_MADE_NONE || (i > 0 && k != agreed))
			return TL_MADE_NONE;
		agreed = k;
	}
	return agreed;
}

int tl_facts_made_by(const TlIndex *idx, TSNode expr)
{
	tl_facts__fan_begin();
	int k = tl_facts__model_made_arg(idx, expr, 0);
	tl_facts__fan_end();
	if (tl_facts__checking_model())
		tl_facts__model_differs(idx, expr, "made-by", tl_facts__walk_made_by(idx, expr), k);
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

static bool tl_facts__module_agree(const TlIndex *mod, TSNode arg, void *data)
{
	TlMadeModuleAgree *ag = data;
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
		if (!idx->imports)
			return TL_MADE_NONE;
		return tl_facts__ext_param_args(idx, b, tl_facts__module_agree, &ag) ? ag.kind : TL_MADE_NONE;
	}
	for (uint32_t k = 0; k < f->call_sites.size; k++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[k]];
		TSNode arg = c->func == func ? (TSNode){ 0 } : tl_facts__param_arg_of(idx, b, c);
		if (ts_node_is_null(arg) || !tl_facts__module_agree(idx, arg, &ag))
			return TL_MADE_NONE;
	}
	return ag.kind;
}

int tl_facts_model_output(const TlIndex *idx, TSNode expr)
{
	int k = tl_facts__model_made(idx, expr, true);
	TlVal v;
	if (!k && tl_facts__model_made_value(idx, expr, &v) && v.pcall && !v.act) {
		tl_facts__fan_begin();
		k = tl_facts__model_param_output(idx, expr, v.pcall);
		tl_facts__fan_end();
	}
	if (tl_facts__checking_model())
		tl_facts__model_differs(idx, expr, "model-output", tl_facts__walk_model_output(idx, expr), k);
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

static int tl_facts__model_criterion(const TlIndex *idx, TSNode m, int depth, bool *known);

/* A parameter's criterion: every caller in the file passes one, all of
 * one kind (else a criterion of no one kind). */
static int tl_facts__model_criterion_param(const TlIndex *idx, const TlBinding *b, int depth, bool *known)
{
	*known = false;
	if (b->func < 0 || depth > TL_FACTS_DEPTH)
		return TL_LOSS_OTHER;
	const TlFunc *f = &idx->funcs.items[b->func];
	if (f->escapes || !f->call_sites.size)
		return TL_LOSS_OTHER;
	int agreed = -1;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (!tl_facts__fan_step())
			return TL_LOSS_OTHER;
		TSNode arg = c->func == b->func ? (TSNode){ 0 } : tl_facts__param_arg_of(idx, b, c);
		bool k_known = false;
		int k = ts_node_is_null(arg) ? TL_LOSS_OTHER : tl_facts__model_criterion(idx, arg, depth + 1, &k_known);
		if (!k_known)
			return TL_LOSS_OTHER;
		agreed = agreed < 0 || agreed == k ? k : TL_LOSS_OTHER;
	}
	*known = true;
	return agreed < 0 ? TL_LOSS_OTHER : agreed;
}

/* The loss criterion `m` computes (TL_LOSS_*), *known: `m` is one at all:
 * the model's value of it (nn.BCELoss(), what a factory returns), a loss
 * function it names (F.cross_entropy handed over), or, for a parameter,
 * what every caller passes. */
static int tl_facts__model_criterion(const TlIndex *idx, TSNode m, int depth, bool *known)
{
	const TlSyms *sy = tl_syms();
	*known = false;
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
		return tl_facts__model_criterion_param(idx, b, depth + 1, known);
	/* A name of an enclosing function (a closure's criterion): its value
	 * where it is bound. */
	if (b && b->kind == TL_BIND_ASSIGN && b->elem < 0 && b->func != tl_index_func_of(idx, m) &&
	    depth <= TL_FACTS_DEPTH && !ts_node_is_null(b->value))
		return tl_facts__model_criterion(idx, b->value, depth + 1, known);
	return TL_LOSS_OTHER;
}

int tl_facts_loss_kind(const TlIndex *idx, const TlCall *c)
{
	if (!(c->events & TL_EV_LOSS))
		return TL_LOSS_OTHER;
	TlVal v;
	int k = TL_LOSS_OTHER;
	if (tl_model_value(idx, c->node, &v) && v.loss && v.kind != TL_VK_CRITERION) {
		k = tl_facts__loss_of(v.loss);
	} else if (!c->qname) {
		/* A criterion called: one the model does not know, a parameter. */
		bool known = false;
		tl_facts__fan_begin();
		k = tl_facts__model_criterion(idx, tl_facts__called_object(c), 0, &known);
		tl_facts__fan_end();
		if (!known)
			k = TL_LOSS_OTHER;
	}
	if (tl_facts__checking_model())
		tl_facts__model_differs(idx, c->node, "loss-is", tl_facts__walk_loss_kind(idx, c), k);
	return k;
}

bool tl_facts_float32_value(const TlIndex *idx, TSNode expr)
{
	TlVal v;
	bool yes = tl_model_value(idx, expr, &v) && (v.dtype == TL_VT_FLOAT32 || v.dtype == TL_VT_FLOAT64);
	if (tl_facts__checking_model())
		tl_facts__model_differs(idx, expr, "float32-value", tl_facts__walk_float32_value(idx, expr), yes);
	return yes;
}
