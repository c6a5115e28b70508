/* Small helpers shared by every family of facts: string sets, the per-question
 * fan-out budget, dotted names, what a binding holds, parameters and their call sites.
 *
 * Owns: no fact of its own. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/apitable.h"
#include "model/model.h"
#include "facts/internal.h"

/* ---- small helpers -------------------------------------------------------- */

bool tl_facts__in(const char *s, const char *const *set, size_t n)
{
	if (!s)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, set[i]) == 0)
			return true;
	return false;
}

bool tl_facts__checking_model(void)
{
	static _Atomic int check = -1;
	if (check < 0)
		check = getenv("TORCHLINT_CHECK_MODEL") != NULL;
	return check > 0;
}

void tl_facts__model_differs(const TlIndex *idx, TSNode n, const char *question, int walk, int model)
{
	if (walk == model)
		return;
	TSPoint at = ts_node_start_point(n);
	uint32_t len = 0;
	const char *t = tl_index_text(idx, n, &len);
	fprintf(stderr, "model differs: %s:%u:%u %s walk=%d model=%d `%.*s`\n",
		idx->src && idx->src->path ? idx->src->path : "?", at.row + 1, at.column + 1, question, walk,
		model, (int)(len > 60 ? 60 : len), t ? t : "");
}

/* The same bound for the questions that fan out over call sites (the
 * contexts, mode and step loops of a function follow every caller): one
 * budget per top-level question and thread, refilled only by the
 * outermost one. A question that runs out answers cautiously (no
 * finding). */
_Thread_local int tl_facts__fan_budget, tl_facts__fan_nesting;

void tl_facts__fan_begin(void)
{
	if (tl_facts__fan_nesting++ == 0)
		tl_facts__fan_budget = TL_FACTS_BUDGET;
}

void tl_facts__fan_end(void)
{
	tl_facts__fan_nesting--;
}

/* Takes one step from the budget; false once it is spent. */
bool tl_facts__fan_step(void)
{
	return --tl_facts__fan_budget >= 0;
}

bool tl_facts__starts(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

bool tl_facts__ends(const char *s, const char *suffix)
{
	if (!s)
		return false;
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The last dotted component: "self.opt_g" -> "opt_g". */
const char *tl_facts__last(const char *dotted)
{
	const char *dot = strrchr(dotted, '.');
	return dot ? dot + 1 : dotted;
}

bool tl_facts__contains(TSNode outer, TSNode n)
{
	/* (a null node holds nothing: ts_node_end_byte would read through it) */
	if (ts_node_is_null(outer) || ts_node_is_null(n))
		return false;
	return ts_node_start_byte(outer) <= ts_node_start_byte(n) &&
	       ts_node_end_byte(n) <= ts_node_end_byte(outer);
}

void tl_facts__lower(const char *s, char *out, size_t size)
{
	size_t i = 0;
	for (; s[i] && i + 1 < size; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[i] = '\0';
}

TSNode tl_facts__arg(TSNode call, uint32_t k)
{
	const TlSyms *sy = tl_syms();
	TSNode args = tl_tree_field(call, sy->f_arguments);
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

TSNode tl_facts__kwarg(const TlIndex *idx, TSNode call, const char *name)
{
	const TlSyms *sy = tl_syms();
	TSNode args = tl_tree_field(call, sy->f_arguments);
	TSNode none = { 0 };
	if (ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list)
		return none;
	uint32_t count = ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		if (ts_node_symbol(a) == sy->keyword_argument &&
		    tl_index_text_is(idx, tl_tree_field(a, sy->f_name), name))
			return tl_tree_field(a, sy->f_value);
	}
	return none;
}

uint32_t tl_facts__argc(TSNode call)
{
	const TlSyms *sy = tl_syms();
	TSNode args = tl_tree_field(call, sy->f_arguments);
	if (ts_node_is_null(args))
		return 0;
	uint32_t n = 0, count = ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count; i++)
		if (ts_node_symbol(ts_node_named_child(args, i)) != sy->comment)
			n++;
	return n;
}

/* The value a binding gives its name, for bindings that have one. */
TSNode tl_facts__called_object(const TlCall *c)
{
	return c->method && strcmp(c->method, "forward") == 0 && c->receiver.id ? c->receiver : c->callee;
}

TSNode tl_facts__bound_value(const TlBinding *b)
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
TSNode tl_facts__held(const TlIndex *idx, const TlBinding *b)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	if (!b || b->kind != TL_BIND_ASSIGN || ts_node_is_null(b->value))
		return none;
	TSNode v = tl_index_unparen(b->value);
	if (b->elem < 0 && b->depth == 0) {
		const TlCall *c = ts_node_symbol(v) == sy->call ? tl_index_call_at(idx, v) : NULL;
		if (c && c->receiver.id && c->method && strcmp(c->method, "prepare") == 0 &&
		    tl_facts__argc(v) == 1)
			return tl_facts__arg(v, 0);
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
		return tl_facts__arg(v, (uint32_t)b->elem);
	return none;
}

bool tl_facts__seen_binding(const TlIndex *idx, TlIntArray *seen, const TlBinding *b)
{
	if (!b)
		return true;
	int32_t bi = (int32_t)(b - idx->bindings.items);
	for (uint32_t i = 0; i < seen->size; i++)
		if (seen->items[i] == bi)
			return true;
	tl_array_push(seen, bi);
	return false;
}

/* The argument call site `c` passes for parameter `k` of `f`, or a null
 * node (passed through *args / **kwargs, or left to its default). */
TSNode tl_facts__param_arg(const TlIndex *idx, const TlFunc *f, int32_t k, const TlCall *c)
{
	TSNode none = { 0 };
	const char *pname = idx->bindings.items[f->params.items[k]].name;
	TSNode arg = tl_facts__kwarg(idx, c->node, pname);
	if (!ts_node_is_null(arg))
		return arg;
	if (f->cls >= 0 && c->receiver.id)
		k--; /* a bound method: `self` is not passed */
	return k >= 0 ? tl_facts__arg(c->node, (uint32_t)k) : none;
}

/* The argument that call `site` passes for parameter binding `param` of
 * the function it calls (a bound method's `self` is its receiver). Null
 * when the call passes none. */
TSNode tl_facts__param_arg_of(const TlIndex *idx, const TlBinding *param, const TlCall *site)
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
	    ts_node_is_null(tl_facts__kwarg(idx, site->node, param->name)))
		return site->receiver;
	return tl_facts__param_arg(idx, f, k, site);
}

/* Calls visit(idx, return_statement, data) for each return statement of
 * local function `f` (not of the definitions nested in it) until one
 * visit returns true; returns whether one did. The index lists them: a
 * walk of the body per question made a long function quadratic. */
bool tl_facts__each_return(const TlIndex *idx, int32_t f,
				 bool (*visit)(const TlIndex *, TSNode, void *), void *data)
{
	const TlFunc *fn = &idx->funcs.items[f];
	for (uint32_t i = 0; i < fn->returns.size; i++)
		if (visit(idx, fn->returns.items[i], data))
			return true;
	return false;
}

/* ---- frameworks ------------------------------------------------------------ */

/* The first component of a dotted name, copied into `out`. */
static void tl_facts__root(const char *q, char *out, size_t size)
{
	size_t n = strcspn(q, ".");
	if (n >= size)
		n = size - 1;
	memcpy(out, q, n);
	out[n] = '\0';
}

/* True for a dotted name from PyTorch or a library built on it: a
 * package whose name starts with `torch` or `pytorch` (torch, torchvision,
 * torch_ema, pytorch_lightning, pytorch_pretrained_bert), or one of the
 * table's set torch-library (transformers, timm, monai, ...). */
bool tl_facts__torch_qname(const char *q)
{
	char root[64];
	if (!q)
		return false;
	tl_facts__root(q, root, sizeof root);
	return tl_facts__starts(root, "torch") || tl_facts__starts(root, "pytorch") ||
	       (tl_api_package_sets(q, strlen(q)) & TL_APIS_TORCH_LIBRARY);
}

/* True for a dotted name from another deep-learning framework: a value it
 * makes is never a PyTorch object. */
bool tl_facts__foreign_qname(const char *q)
{
	return tl_model_foreign_qname(q);
}

/* True when the value of `expr` (a name, or a call) is made by another
 * framework: `opt = paddle.optimizer.Adam(...)`, `tf.keras.Model(...)`. */
bool tl_facts__foreign_value(const TlIndex *idx, TSNode expr)
{
	const TlSyms *sy = tl_syms();
	/* Each way below to a foreign answer ends at an import's qualified
	 * name (a call's qname, an import binding, a qualified annotation). */
	if (!idx->foreign_imports)
		return false;
	for (int depth = 0; depth <= TL_FACTS_DEPTH; depth++) {
		expr = tl_index_unparen(expr);
		if (ts_node_is_null(expr))
			return false;
		TSSymbol s = ts_node_symbol(expr);
		if (s == sy->call) {
			const TlCall *c = tl_index_call_at(idx, expr);
			if (!c)
				return false;
			if (c->qname)
				return tl_facts__foreign_qname(c->qname);
			if (!c->receiver.id)
				return false;
			expr = c->receiver; /* model.to(...) keeps what model is */
			continue;
		}
		if (s != sy->identifier && s != sy->attribute)
			return false;
		const TlBinding *b = tl_index_resolve_node(idx, expr);
		if (b && b->kind == TL_BIND_IMPORT)
			return tl_facts__foreign_qname(b->qname);
		if (b && b->kind == TL_BIND_PARAM && !ts_node_is_null(b->value)) {
			char *q = tl_index_qualify(idx, b->value);
			bool yes = q && tl_facts__foreign_qname(q);
			tl_free(q);
			return yes;
		}
		TSNode v = tl_facts__held(idx, b);
		if (ts_node_is_null(v))
			return false;
		expr = v;
	}
	return false;
}

/* True when the file imports PyTorch or a library built on it (filled by
 * tl_facts_build): only then may a name (`optimizer`, `criterion`) or a
 * method (`.eval()`, `.parameters()`) hint at what a value is. */
bool tl_facts__names_hint(const TlIndex *idx)
{
	return idx->torch_ecosystem;
}

/* ---- names of things ------------------------------------------------------ */

/* The table says of a name that it is a module (the base classes of
 * models), or a tensor or a container of tensors (nn.Parameter,
 * nn.ParameterList, which live under torch.nn); otherwise any capitalised
 * name under torch.nn is a module class. */
const TlApiRow *tl_facts__nn_layer_row(const char *q)
{
	if (!q || !tl_facts__starts(q, "torch.nn."))
		return NULL;
	/* torch.nn.modules.activation.ReLU is torch.nn.ReLU */
	char buf[128];
	int n = snprintf(buf, sizeof buf, "torch.nn.%s", tl_facts__last(q));
	return n > 0 && (size_t)n < sizeof buf ? tl_api_qualified(buf) : NULL;
}

bool tl_facts__parameter_free_layer(const char *q)
{
	const TlApiRow *r = tl_facts__nn_layer_row(q);
	return r && (r->sets & TL_APIS_PARAMETER_FREE);
}

bool tl_facts_is_module_class_name(const char *q)
{
	const TlApiRow *r = tl_api_qualified(q);
	if (r && r->kind == TL_APIK_MODULE)
		return true;
	if ((r && (r->kind == TL_APIK_TENSOR || r->kind == TL_APIK_CONTAINER)) ||
	    tl_facts__starts(q, "torch.nn.parameter."))
		return false;
	if (tl_facts__starts(q, "torch.nn.")) {
		/* `torch.nn.modules.instancenorm._InstanceNorm`: a private
		 * base class of the library's layers is one too */
		const char *last = tl_facts__last(q);
		while (*last == '_')
			last++;
		return isupper((unsigned char)last[0]);
	}
	return false;
}

bool tl_facts__is_loss_class(const char *q)
{
	if (!q)
		return false;
	if (tl_facts__starts(q, "torch.nn.") && tl_facts__ends(q, "Loss"))
		return true;
	if (tl_facts__starts(q, "timm.loss."))
		return true;
	/* Another library's criterion classes (monai.losses.DiceLoss). */
	const TlApiRow *r = tl_api_qualified(q);
	return r && (r->roles & TL_APIR_LOSS) && r->kind == TL_APIK_CRITERION;
}

/* A loss function: the table's rows of role loss that make no criterion
 * (torch.nn.functional.cross_entropy). */
bool tl_facts__is_loss_function(const char *q)
{
	const TlApiRow *r = q ? tl_api_qualified(q) : NULL;
	return r && (r->roles & TL_APIR_LOSS) && r->kind != TL_APIK_CRITERION;
}

/* Names people give loss callables; a fallback when no binding decides. */
bool tl_facts__loss_like_name(const char *name)
{
	char low[128];
	tl_facts__lower(tl_facts__last(name), low, sizeof low);
	return strstr(low, "criterion") || strstr(low, "loss_fn") ||
	       strstr(low, "lossfn") || strstr(low, "loss_func") ||
	       strcmp(low, "compute_loss") == 0 || strcmp(low, "calc_loss") == 0;
}

bool tl_facts__optimizer_like_name(const char *name)
{
	char low[128];
	tl_facts__lower(tl_facts__last(name), low, sizeof low);
	if (strstr(low, "sched") || strstr(low, "scaler"))
		return false;
	return strstr(low, "optim") || strcmp(low, "opt") == 0 ||
	       tl_facts__starts(low, "opt_") || tl_facts__ends(low, "_opt") ||
	       (strncmp(low, "opt", 3) == 0 && (isdigit((unsigned char)low[3]) ||
					       isupper((unsigned char)tl_facts__last(name)[3])));
}

/* ---- parameters and call sites ----------------------------------------------------- */

/* True when call `c` runs a method of a local class that is not an
 * nn.Module: its body, not its name, says what it does (`self.eval()` of a
 * trainer class that defines eval(), `self.cuda(*batch)`). */
bool tl_facts__user_method(const TlIndex *idx, const TlCall *c)
{
	if (c->target < 0 || !c->receiver.id)
		return false;
	int32_t cls = idx->funcs.items[c->target].cls;
	return cls >= 0 && !idx->classes.items[cls].is_module;
}

/* The position of parameter `name` (a plain name) among function f's, or -1. */
int32_t tl_facts__param_index(const TlIndex *idx, const TlFunc *f, const char *name,
				    size_t len)
{
	for (uint32_t k = 0; k < f->params.size; k++) {
		const char *pn = idx->bindings.items[f->params.items[k]].name;
		if (strlen(pn) == len && strncmp(pn, name, len) == 0)
			return (int32_t)k;
	}
	return -1;
}

/* Parameters whose arguments are being judged, on this thread: a
 * parameter met again (functions handing it round) is not known. A
 * seen-set of at most TL_PARAM_ALL_SEEN (a size, not a depth). */
#define TL_PARAM_ALL_SEEN 32
static _Thread_local const TlBinding *tl_facts__param_all_seen[TL_PARAM_ALL_SEEN];
static _Thread_local int tl_facts__param_all_n;

/* True when parameter binding `b` receives, at every call site of its
 * function (one at least, none unknown), an argument that satisfies
 * `pred`, each read in its module: the arguments are the model's
 * (model/handedin.c), as they are; a parameter among them is `pred`'s to
 * follow. TL_PARAM_OWN: the module's own call sites
 * (tl_model_own_param_args), a bound method's `self` none of them;
 * TL_PARAM_IMPORTERS: the importers' sites of a function its module never
 * calls (tl_model_importer_args). */
bool tl_facts__param_all(const TlIndex *idx, const TlBinding *b, unsigned from,
			 bool (*pred)(const TlIndex *, TSNode, int *), int *budget)
{
	bool importers = from == TL_PARAM_IMPORTERS;
	if (b->kind != TL_BIND_PARAM || b->func < 0 || tl_facts__param_all_n == TL_PARAM_ALL_SEEN)
		return false;
	if (importers && !idx->imports)
		return false;
	if (!importers) {
		const TlFunc *f = &idx->funcs.items[b->func];
		int32_t k = tl_facts__param_index(idx, f, b->name, strlen(b->name));
		if (k < 0 || (k == 0 && f->cls >= 0))
			return false;
	}
	for (int i = 0; i < tl_facts__param_all_n; i++)
		if (tl_facts__param_all_seen[i] == b)
			return false;
	TlParamArgs args;
	tl_array_init(&args);
	tl_facts__param_all_seen[tl_facts__param_all_n++] = b;
	bool yes = importers ? tl_model_importer_args(idx, b, &args)
			     : tl_model_own_param_args(idx, b, TL_HANDED_DIRECT, &args) && args.size;
	/* the importers' indexes are shared: read under the project's lock */
	bool other = yes && importers;
	if (other)
		tl_facts__ext_enter(idx);
	for (uint32_t i = 0; yes && i < args.size; i++)
		yes = pred(args.items[i].mod, args.items[i].arg, budget);
	if (other)
		tl_facts__ext_leave(idx);
	tl_facts__param_all_n--;
	tl_array_release(&args);
	return yes;
}

/* True when binding `b` re-binds its name to a wrapper of the module the
 * name held (`model = torch.nn.DataParallel(model)`, `net = DDP(net,
 * device_ids=[r])`): the wrapper's mode is its module's, so for a mode
 * switch the name still names that module. */
static bool tl_facts__wraps_itself(const TlIndex *idx, const TlBinding *b)
{
	const TlSyms *sy = tl_syms();
	TSNode v = tl_index_unparen(b->value);
	if (b->kind != TL_BIND_ASSIGN || b->elem >= 0 || ts_node_is_null(v) || ts_node_symbol(v) != sy->call)
		return false;
	const TlCall *c = tl_index_call_at(idx, v);
	TSNode first = tl_index_unparen(tl_facts__arg(v, 0));
	return c && c->qname && tl_facts__is_wrapper(c->qname) && !ts_node_is_null(first) &&
	       ts_node_symbol(first) == sy->identifier && tl_index_text_is(idx, first, b->name);
}

/* Local aliases: `net = self.net` then `net.eval()` switches self.net;
 * so it does after `net = DataParallel(net)` (tl_facts__wraps_itself). */
char *tl_facts__unalias(const TlIndex *idx, int32_t f, const char *name)
{
	const TlSyms *sy = tl_syms();
	if (f < 0)
		return NULL;
	char *cur = NULL;
	/* An alias of an alias is rare; a few steps also end `a = b; b = a`. */
	for (int step = 0; step < 4; step++) {
		const char *n = cur ? cur : name;
		size_t root_len = strcspn(n, ".");
		char root[128];
		if (root_len >= sizeof root)
			break;
		memcpy(root, n, root_len);
		root[root_len] = 0;
		const TlIntArray *own = tl_index_bindings_of(idx, f, root);
		if (!own)
			break;
		/* The one binding that is no wrapping of the name itself. */
		const TlBinding *b = NULL;
		uint32_t others = 0;
		for (uint32_t i = 0; i < own->size; i++) {
			const TlBinding *o = &idx->bindings.items[own->items[i]];
			if (!tl_facts__wraps_itself(idx, o)) {
				b = o;
				others++;
			}
		}
		if (others != 1)
			break;
		if (b->kind != TL_BIND_ASSIGN || b->elem >= 0 || b->depth != 0 || ts_node_is_null(b->value))
			break;
		TSNode v = tl_index_unparen(b->value);
		if (ts_node_symbol(v) != sy->identifier && ts_node_symbol(v) != sy->attribute)
			break;
		char *target = tl_facts__dotted(idx, v);
		if (!target)
			break;
		if (strncmp(target, root, root_len) == 0 &&
		    (target[root_len] == '\0' || target[root_len] == '.')) {
			tl_free(target); /* `x = x.module` reads the name it binds */
			break;
		}
		TlBuf b2;
		tl_buf_init(&b2);
		tl_buf_add(&b2, target);
		tl_buf_add(&b2, n + root_len);
		tl_free(target);
		tl_free(cur);
		cur = tl_buf_detach(&b2);
	}
	return cur;
}

bool tl_facts__instantiations(const TlIndex *idx, int32_t cls, TlIntArray *out)
{
	/* A subclass may pass its own arguments through super().__init__. */
	for (uint32_t i = 0; i < idx->classes.size; i++) {
		const TlClass *k = &idx->classes.items[i];
		for (uint32_t j = 0; j < k->bases.size; j++)
			if (k->bases.items[j] == cls)
				return false;
	}
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		if (c->receiver.id || !c->method || strcmp(c->method, idx->classes.items[cls].name) != 0)
			continue;
		const TlBinding *b = tl_index_resolve_node(idx, c->callee);
		if (b && b->kind == TL_BIND_CLASS && b->ref == cls)
			tl_array_push(out, (int32_t)i);
	}
	return out->size > 0;
}

bool tl_facts__nest_enter(TlNest *n, bool busy, int max, unsigned *mark)
{
	if (busy || n->depth >= max) {
		n->refused++;
		return false;
	}
	n->depth++;
	*mark = n->refused;
	return true;
}

bool tl_facts__nest_leave(TlNest *n, unsigned mark)
{
	n->depth--;
	/* An answer computed after the file's bound was hit (a star-import
	 * lookup stopped by it answers none) is not kept. */
	return n->refused == mark && !tl_bound_hit_ever();
}
