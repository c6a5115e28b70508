/* TL212's rule logic (evaluation-in-train-mode). Whether a module forward is
 * the first of its module in its pass; whether an evaluation runs with its
 * model left in train mode; whether a model holds layers that behave
 * differently in train and eval mode (a model handed in: what the project
 * hands it, the model's summary).
 *
 * Owns: tl_check_first_forward, tl_check_left_in_train_mode,
 * tl_check_mode_dependent, tl_check_discarded; how two dotted names
 * overlap (from facts/loops.c). */
#include "rules/checks/checks.h"

#include "facts/internal.h"
#include "model/apitable.h"
#include "model/model.h"

/* ---- dotted names -------------------------------------------------------- */

/* How a dotted store target relates to `name`: the same name, a prefix
 * of it (re-binding `args` changes `args.w`), or a field of it (`x.data`,
 * `x[i]` have root `x`). */
static bool tl_check__names_overlap(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t l = la < lb ? la : lb;
	return strncmp(a, b, l) == 0 && (la == lb || (la > lb ? a[l] : b[l]) == '.');
}

bool tl_check_first_forward(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!c || !(c->events & TL_EV_FORWARD))
		return false;
	TSNode range = c->loop >= 0 ? idx->loops.items[c->loop].body
				    : (c->func >= 0 ? idx->funcs.items[c->func].node : idx->root);
	TSNode block;
	if (c->loop >= 0 && tl_facts_batch_pass(idx, c->node, &block))
		range = block; /* a pass of one batch in a training iteration */
	TlBuf mine, other;
	tl_buf_init(&mine);
	tl_buf_init(&other);
	bool first = true;
	if (tl_index_dotted(idx, c->callee, &mine)) {
		const TlIntArray *calls = tl_index_scope_calls(idx, c->func);
		uint32_t start = ts_node_start_byte(range), pos = ts_node_start_byte(c->node);
		for (uint32_t i = 0; calls && i < calls->size && first; i++) {
			const TlCall *k = &idx->calls.items[calls->items[i]];
			uint32_t kpos = ts_node_start_byte(k->node);
			if (kpos >= pos)
				break;
			if (kpos < start || !(k->events & TL_EV_FORWARD))
				continue;
			tl_buf_clear(&other);
			first = !(tl_index_dotted(idx, k->callee, &other) && strcmp(other.data, mine.data) == 0);
		}
	}
	tl_buf_release(&mine);
	tl_buf_release(&other);
	return first;
}

/* The construction of the module a forward runs and its name there. */
typedef struct TlLeftWalk {
	TSNode root;  /* the module's construction (never null) */
} TlLeftWalk;

/* True when the module behind `recv` (an expression in the scope of a
 * switch call) may be or hold the module `w->root`: its name overlaps
 * `name` (NULL inside a callee), or its construction cannot be told, or it
 * is that construction (an alias, a wrapper, a list element passed). */
static bool tl_check__may_be_module(const TlIndex *idx, TSNode recv, const char *recv_name,
				   const char *name, const TlLeftWalk *w)
{
	if (ts_node_is_null(recv) || !recv_name)
		return true;
	if (name && tl_check__names_overlap(recv_name, name))
		return true;
	TlBuf path;
	tl_buf_init(&path);
	TSNode r = tl_facts__module_root(idx, recv, &path);
	bool may = true;
	if (!ts_node_is_null(r)) {
		TlModRef a = { r, path.data }, b = { w->root, "" };
		may = tl_facts__relate(idx, &a, &b) != TL_REL_DISJOINT;
	}
	tl_buf_release(&path);
	return may;
}

/* True when local function `f` (or one it calls) may put the module in
 * eval mode: an `.eval()` / `.train(False)` / `.train(flag)` on something
 * that may be it, wherever it stands in the body (a context manager's
 * `model.eval(); yield; model.train()` counts). */
static bool tl_check__may_evaluate_in(const TlIndex *idx, int32_t f, const TlLeftWalk *w, int depth)
{
	if (f < 0 || !(idx->funcs.items[f].reach_events & TL_SWITCHES))
		return false;
	if (depth > TL_FACTS_DEPTH || !tl_facts__fan_step())
		return true;
	const TlIntArray *calls = tl_index_scope_calls(idx, f);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *k = &idx->calls.items[calls->items[i]];
		if ((k->events & TL_SWITCHES) && tl_check__may_be_module(idx, k->receiver, k->recv_name, NULL, w))
			return true;
		if ((k->target != f && tl_check__may_evaluate_in(idx, k->target, w, depth + 1)) ||
		    (k->arg_target != f && tl_check__may_evaluate_in(idx, k->arg_target, w, depth + 1)))
			return true;
	}
	return false;
}

/* Calls from another module that say they evaluate (`evaluate(model, ...)`,
 * `inference_on_dataset(model, ...)`) and are handed the module: they may
 * switch it to eval mode and leave it there. */
static bool tl_check__evaluating_call(const TlIndex *idx, const TlCall *c, const char *name,
				     const TlLeftWalk *w)
{
	const char *callee = c->qname ? tl_facts__last(c->qname) : c->method;
	if (!callee || c->target >= 0)
		return false;
	char low[64];
	tl_facts__lower(callee, low, sizeof low);
	if (!strstr(low, "eval") && !strstr(low, "infer"))
		return false;
	const TlSyms *sy = tl_syms();
	TSNode args = tl_tree_field(c->node, sy->f_arguments);
	uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		if (ts_node_symbol(a) == sy->keyword_argument)
			a = tl_tree_field(a, sy->f_value);
		char *an = tl_facts__dotted(idx, a);
		bool hit = an && tl_check__may_be_module(idx, a, an, name, w);
		tl_free(an);
		if (hit)
			return true;
	}
	return false;
}

/* True when call `k` of function `func` may run before `node` does: it
 * comes first, or a loop of `func` holds both (a later iteration). */
static bool tl_check__runs_before(const TlIndex *idx, const TlCall *k, TSNode node)
{
	if (ts_node_start_byte(k->node) < ts_node_start_byte(node))
		return true;
	for (int32_t l = k->loop; l >= 0; l = idx->loops.items[l].parent)
		if (tl_facts__contains(idx->loops.items[l].body, node))
			return true;
	return false;
}

/* True when the module `name` (at `node` in `func`) is in the train mode
 * training left it in: no path back to its construction may switch it to
 * eval mode, and no `.train()` on it after the last training step before
 * `node` shows train mode chosen for this code (Monte Carlo dropout, a
 * batch-norm recalibration). */
static bool tl_check__left_in_train(const TlIndex *idx, TSNode node, int32_t func, const char *name,
				   TlLeftWalk *w, int depth)
{
	if (depth > TL_FACTS_DEPTH || !tl_facts__fan_step())
		return false;
	const uint32_t training = TL_EV_BACKWARD | TL_EV_OPT_STEP;
	uint32_t pos = ts_node_start_byte(node), last_train = 0, last_step = 0;
	bool trained_here = false;
	const TlIntArray *calls = tl_index_scope_calls(idx, func);
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *k = &idx->calls.items[calls->items[i]];
		if (!tl_check__runs_before(idx, k, node) || tl_facts__contains(node, k->node))
			continue;
		if ((k->events & TL_SWITCHES) &&
		    tl_check__may_be_module(idx, k->receiver, k->recv_name, name, w))
			return false;
		if (tl_check__may_evaluate_in(idx, k->target, w, 0) ||
		    tl_check__may_evaluate_in(idx, k->arg_target, w, 0) ||
		    tl_check__evaluating_call(idx, k, name, w))
			return false;
		uint32_t kpos = ts_node_start_byte(k->node);
		if (kpos >= pos)
			continue;
		uint32_t reach = k->events | (k->target >= 0 ? idx->funcs.items[k->target].reach_events : 0);
		if (reach & training)
			last_step = kpos;
		if ((k->events & TL_EV_TRAIN) && k->recv_name && tl_check__names_overlap(k->recv_name, name)) {
			last_train = kpos;
			trained_here = true;
		}
	}
	if (trained_here && last_train >= last_step)
		return false;
	/* Where the module comes from: this function, or its callers. */
	size_t root_len = strcspn(name, ".");
	const TlFunc *f = func >= 0 ? &idx->funcs.items[func] : NULL;
	bool param = f && tl_facts__param_index(idx, f, name, root_len) >= 0;
	TlBuf root;
	tl_buf_init(&root);
	tl_buf_addn(&root, name, root_len);
	bool own = !param && tl_index_bindings_of(idx, func, root.data) != NULL;
	tl_buf_release(&root);
	if (own) {
		/* Built here, or by code this function runs (a local factory,
		 * a local class's __init__) that switches nothing to eval mode;
		 * a module built by a caller and passed in under another name
		 * (`m = model`) cannot be followed. */
		int32_t maker = tl_index_func_of(idx, w->root);
		if (maker == func)
			return true;
		if (maker < 0 || (idx->funcs.items[maker].reach_events & TL_SWITCHES))
			return false;
		int32_t maker_cls = idx->funcs.items[maker].cls;
		for (uint32_t i = 0; calls && i < calls->size; i++) {
			const TlCall *k = &idx->calls.items[calls->items[i]];
			if (k->target == maker)
				return true;
			const TlBinding *cb = maker_cls >= 0 ? tl_index_resolve_node(idx, k->callee) : NULL;
			if (cb && cb->kind == TL_BIND_CLASS && cb->ref == maker_cls)
				return true;
		}
		return false;
	}
	if (!f || f->escapes || !f->call_sites.size)
		return false;
	for (uint32_t i = 0; i < f->call_sites.size; i++) {
		const TlCall *c = &idx->calls.items[f->call_sites.items[i]];
		if (c->func == func)
			return false;
		char *outer = param ? tl_facts__to_caller(idx, func, c, name) : tl_strdup(name);
		bool left = outer && tl_check__left_in_train(idx, c->node, c->func, outer, w, depth + 1);
		tl_free(outer);
		if (!left)
			return false;
	}
	return true;
}

bool tl_check_left_in_train_mode(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!c || !(c->events & TL_EV_FORWARD) || !tl_facts__program_trains(idx, c->func))
		return false;
	char *name = tl_facts__forward_subject(idx, c);
	TSNode subject = tl_facts__called_object(c);
	TlBuf path;
	tl_buf_init(&path);
	TlLeftWalk w;
	memset(&w, 0, sizeof w);
	if (name)
		w.root = tl_facts__module_root(idx, subject, &path);
	tl_buf_release(&path);
	bool left = false;
	if (name && !ts_node_is_null(w.root)) {
		tl_facts__fan_begin();
		left = tl_check__left_in_train(idx, c->node, c->func, name, &w, 0);
		tl_facts__fan_end();
	}
	/* A model that only other modules of the project hand in (the walk
	 * follows this file's callers), or a module of the object of a method
	 * that no call of this file names and that switches no mode itself
	 * (`self.net` in a method an importer calls through an instance; a
	 * `self.net.train()` there chooses train mode for this code): in train
	 * mode at every call site there and on every path here, as the model's
	 * module modes say. */
	const uint32_t switches = TL_EV_EVAL | TL_EV_TRAIN | TL_EV_MODE_SET;
	bool own_part = name && strncmp(name, "self.", 5) == 0 && c->func >= 0 &&
			!(idx->funcs.items[c->func].reach_events & switches);
	/* Or a parameter whose construction no caller here tells (`val(net,
	 * loader)` called by `train(net, ...)`, which main.py calls with what
	 * its factory built): as the model's module modes say at every call
	 * site in the project. */
	bool handed_in = false;
	if (name && ts_node_is_null(w.root) && c->func >= 0) {
		const TlFunc *f = &idx->funcs.items[c->func];
		int32_t k = tl_facts__param_index(idx, f, name, strcspn(name, "."));
		handed_in = k > 0 || (k == 0 && f->cls < 0); /* not a method's `self` */
	}
	if (!left && name && (ts_node_is_null(w.root) || own_part) && c->func >= 0 &&
	    (!idx->funcs.items[c->func].call_sites.size || handed_in) && idx->imports) {
		TSNode e = tl_facts__mode_expr(idx, c->node, name);
		left = !ts_node_is_null(e) && tl_model_mode(idx, e, TL_MODEL_CALLERS_ALL) == TL_MODEL_MODE_TRAIN;
	}
	tl_free(name);
	return left;
}

/* The module `expr` holds, judged by its construction: dependent when it
 * is the whole of what was built there (not a part reached by attribute,
 * `model.encoder`, which its construction does not say) and that holds a
 * mode-dependent layer. `handed`: whether `expr` may be a parameter,
 * followed to what the project hands it. */
/* True when a call of module `idx` may put a module in eval mode: an
 * `.eval()`, a `.train(False)` or `.train(flag)`, a call of the API
 * table's set eval-mode (`from_pretrained`). */
static bool tl_check__may_eval(const TlIndex *idx)
{
	if (!tl_index_no_call_has(idx, TL_EV_EVAL | TL_EV_MODE_SET, 0))
		return true;
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const char *q = idx->calls.items[i].qname;
		const TlApiRow *row = q ? tl_api_qualified(q) : NULL;
		if (row && (row->sets & TL_APIS_EVAL_MODE))
			return true;
	}
	return false;
}

static bool tl_check__dependent_at(const TlIndex *idx, TSNode expr, bool handed, const TlIndex *at, TSNode site)
{
	/* accelerator.unwrap_model(model), handed in, hands back the model
	 * itself. */
	const TlCall *u = handed ? NULL : tl_index_call_at(idx, tl_index_unparen(expr));
	if (u && tl_facts__unwraps(u))
		expr = tl_facts__arg(u->node, 0);
	TlBuf path;
	tl_buf_init(&path);
	TlModStop stop;
	TSNode root = tl_facts__module_source(idx, expr, &path, &stop);
	bool whole = path.len == 0;
	tl_buf_release(&path);
	/* What a factory of the project returns where no construction is
	 * told: the element of its returned tuple a name took (`model, opt,
	 * loss, hp = get_model(name)`), an entry of a list or dict of
	 * factories called through it (`get_model_from_name[backbone](...)`). */
	if (ts_node_is_null(root) && whole && !ts_node_is_null(stop.call) &&
	    tl_facts__layers_made(idx, &stop) == TL_LAYER_DEPENDENT)
		return true;
	if (ts_node_is_null(root) && whole && handed && idx->imports) {
		/* A parameter: what the project hands it, at every call site
		 * of its function, its importers' included, and theirs when
		 * the argument is a parameter in turn (`fit(net=net)` in
		 * train.py's main, then `evaluate(net, val)`): the model's
		 * summary (model/handedin.c). Dependent when every argument
		 * is. */
		TSNode e = tl_index_unparen(expr);
		const TlBinding *b = ts_node_symbol(e) == tl_syms()->identifier ? tl_index_resolve_node(idx, e) : NULL;
		const TlParamArg *args;
		uint32_t n;
		if (!b || b->kind != TL_BIND_PARAM || b->func < 0 || !tl_model_param_args(idx, b, &args, &n) || !n)
			return false;
		TlParamArg *own = tl_malloc(n * sizeof *own);
		memcpy(own, args, n * sizeof *own);
		bool yes = true;
		for (uint32_t i = 0; i < n && yes; i++)
			yes = tl_check__dependent_at(own[i].mod, own[i].arg, false, at, (TSNode){ 0 });
		tl_free(own);
		return yes;
	}
	if (ts_node_is_null(root) || !whole)
		return false;
	int kind = tl_facts__layers_at(idx, root, site);
	/* Instance norms that track running statistics act differently
	 * only in eval mode, which reads those statistics: a model never put
	 * in eval mode (nor loaded in it) gives in train mode the outputs it
	 * was trained with. */
	return kind == TL_LAYER_DEPENDENT ||
	       (kind == TL_LAYER_TRACKED && (tl_check__may_eval(idx) || tl_check__may_eval(at)));
}

bool tl_check_mode_dependent(const TlIndex *idx, TSNode expr)
{
	/* `self.net.forward(x)` runs the module `self.net`, as its other
	 * questions (the forward's subject) take it. */
	TSNode up = tl_index_parent(idx, expr);
	const TlCall *c = ts_node_is_null(up) ? NULL : tl_index_call_at(idx, up);
	if (c && ts_node_eq(c->callee, expr))
		expr = tl_facts__called_object(c);
	/* the forward call it is the callee of, whose arguments a layer built
	 * in the forward may take its rate from */
	TSNode site = c && ts_node_eq(c->callee, expr) && !c->receiver.id ? c->node : (TSNode){ 0 };
	return tl_check__dependent_at(idx, expr, true, idx, site);
}

bool tl_check_discarded(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	return c && c->stmt_level;
}
