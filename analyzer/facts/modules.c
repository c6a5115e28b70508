/* Modules and wrappers: which module a value is (identity through .to(),
 * wrappers and attributes) and the parameters an optimizer was built over.
 *
 * (Wrapper modules whose forward is their entry point, code a module's
 * methods run, forwards that record no graph and flags that need freezing
 * are the logic of TL207, TL216, TL102 and TL211, in rules/checks/.)
 *
 * Owns: module identity, optimizer parameter sets. */
#include "model/model.h"
#include "facts/internal.h"


static TSNode tl_facts__module_root_at(const TlIndex *idx, TSNode expr, TSNode named, TlBuf *path,
				      int depth, uint32_t *budget, TlModStop *stop);

/* ---- module identity --------------------------------------------------------------- */

void tl_facts__modset_release(TlModSet *set)
{
	for (uint32_t i = 0; i < set->size; i++)
		tl_free(set->items[i].path);
	tl_array_release(set);
}

/* Parameters whose callers' constructions are being read, on this
 * thread: one met again (functions handing it round) is not known. A
 * seen-set of at most TL_ROOT_PARAMS (a size, not a depth). */
#define TL_ROOT_PARAMS 32
static _Thread_local const TlBinding *tl_facts__root_params[TL_ROOT_PARAMS];
static _Thread_local int tl_facts__root_nparams;

/* The module a parameter holds, when every caller in the file passes the
 * same construction (`train(netG, ...)` called with `Generator(nz)`): the
 * arguments of its function's own call sites are the model's
 * (model/handedin.c; a bound method's `self`, the call's receiver). */
static TSNode tl_facts__param_root(const TlIndex *idx, const TlBinding *param, TlBuf *path, uint32_t *budget)
{
	TSNode none = { 0 }, agreed = { 0 };
	if (param->func < 0 || tl_facts__root_nparams == TL_ROOT_PARAMS)
		return none;
	for (int i = 0; i < tl_facts__root_nparams; i++)
		if (tl_facts__root_params[i] == param)
			return none;
	TlParamArgs args;
	tl_array_init(&args);
	if (!tl_model_own_param_args(idx, param, TL_HANDED_DIRECT, &args) || !args.size) {
		tl_array_release(&args);
		return none;
	}
	tl_facts__root_params[tl_facts__root_nparams++] = param;
	TlBuf agreed_path;
	tl_buf_init(&agreed_path);
	bool all = true;
	for (uint32_t i = 0; all && i < args.size; i++) {
		TSNode arg = !*budget ? none : args.items[i].arg;
		if (*budget)
			(*budget)--;
		TlBuf p;
		tl_buf_init(&p);
		TSNode r = ts_node_is_null(arg) ? none : tl_facts__module_root_at(idx, arg, none, &p, 1, budget, NULL);
		bool same = !ts_node_is_null(r) &&
			    (i == 0 || (ts_node_eq(r, agreed) && strcmp(p.data, agreed_path.data) == 0));
		if (same && i == 0) {
			agreed = r;
			tl_buf_add(&agreed_path, p.data);
		}
		tl_buf_release(&p);
		all = same;
	}
	tl_facts__root_nparams--;
	tl_array_release(&args);
	if (!all) {
		tl_buf_release(&agreed_path);
		return none;
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
TSNode tl_facts__module_root(const TlIndex *idx, TSNode expr, TlBuf *path)
{
	uint32_t budget = TL_FACTS_BUDGET;
	TSNode none = { 0 };
	return tl_facts__module_root_at(idx, expr, none, path, 0, &budget, NULL);
}

TSNode tl_facts__module_source(const TlIndex *idx, TSNode expr, TlBuf *path, TlModStop *stop)
{
	uint32_t budget = TL_FACTS_BUDGET;
	TSNode none = { 0 };
	*stop = (TlModStop){ none, -1 };
	TSNode r = tl_facts__module_root_at(idx, expr, none, path, 0, &budget, stop);
	if (!ts_node_is_null(r))
		*stop = (TlModStop){ none, -1 };
	return r;
}

TSNode tl_facts__binding_module_root(const TlIndex *idx, const TlBinding *b, TlBuf *path)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	if (b->kind != TL_BIND_ASSIGN || b->elem >= 0 || ts_node_is_null(b->value))
		return none;
	/* The name the assignment binds stands for the value's later uses
	 * (`model = build_model(cfg)`, then `model.parameters()`). */
	TSNode named = ts_node_symbol(b->stmt) == sy->assignment ? tl_tree_field(b->stmt, sy->f_left)
								  : none;
	if (!ts_node_is_null(named) && ts_node_symbol(named) != sy->identifier &&
	    ts_node_symbol(named) != sy->attribute)
		named = none;
	uint32_t budget = TL_FACTS_BUDGET;
	return tl_facts__module_root_at(idx, b->value, named, path, 0, &budget, NULL);
}

/* True when one of the `n` expressions is used as a module. */
static bool tl_facts__any_module(const TlIndex *idx, const TSNode *parts, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (tl_facts_is_module(idx, parts[i]))
			return true;
	return false;
}

/* Whether class `cls` of `mod`, a module other than the file's `idx`, is
 * an nn.Module to the model: asked under the project's lock, as another
 * module's index and model are shared by the threads. */
static bool tl_facts__ext_class_module(const TlIndex *idx, const TlIndex *mod, int32_t cls)
{
	if (mod == idx)
		return tl_model_class_module(mod, cls);
	tl_facts__ext_enter(idx);
	bool yes = tl_model_class_module(mod, cls);
	tl_facts__ext_leave(idx);
	return yes;
}

/* Call `c` constructs a class of the project that the model takes for an
 * nn.Module: a local class (binding `cb`), one its qualified name names
 * in another module (`segnet.SegNet(...)`, or `SegNet(...)` after `from
 * segnet import SegNet`: the plain name of an import counts as its
 * qualified name does), or one a star import binds. */
static bool tl_facts__project_module_class(const TlIndex *idx, const TlCall *c, const TlBinding *cb)
{
	if (cb && cb->kind == TL_BIND_CLASS)
		return tl_model_class_module(idx, cb->ref);
	if (cb && cb->kind != TL_BIND_IMPORT)
		return false;
	if (c->qname) {
		TlExtDef d;
		return !tl_facts__foreign_qname(c->qname) && !tl_facts__starts(c->qname, "torch.") &&
		       tl_facts__ext_def(idx, c->qname, &d) && d.func < 0 && d.cls >= 0 &&
		       tl_facts__ext_class_module(idx, d.idx, d.cls);
	}
	const TlIndex *mod;
	int32_t cls;
	return c->method && tl_model_star_class(idx, c->method, &mod, &cls) &&
	       tl_facts__ext_class_module(idx, mod, cls);
}

static TSNode tl_facts__module_root_at(const TlIndex *idx, TSNode expr, TSNode named, TlBuf *path,
				      int depth, uint32_t *budget, TlModStop *stop)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	/* The parts of the object stripped below (`D.net`), asked whether one
	 * is used as a module only when an imported construction is reached. */
	TSNode parts[TL_FACTS_DEPTH + 1];
	uint32_t part_count = 0;
	for (; depth <= TL_FACTS_DEPTH; depth++) {
		expr = tl_index_unparen(expr);
		if (ts_node_is_null(expr))
			return none;
		TSSymbol s = ts_node_symbol(expr);
		if (s == sy->identifier || s == sy->attribute) {
			named = expr;
			const TlBinding *b = tl_index_resolve_node(idx, expr);
			if (!b) {
				if (s != sy->attribute)
					return none;
				if (part_count < sizeof parts / sizeof *parts)
					parts[part_count++] = expr;
				/* model.encoder: a part of model. */
				uint32_t len;
				const char *t = tl_index_text(idx,
							      tl_tree_field(expr, sy->f_attribute), &len);
				TlBuf p;
				tl_buf_init(&p);
				tl_buf_addc(&p, '.');
				tl_buf_addn(&p, t, len);
				tl_buf_add(&p, path->data);
				tl_buf_clear(path);
				tl_buf_add(path, p.data);
				tl_buf_release(&p);
				expr = tl_tree_field(expr, sy->f_object);
				continue;
			}
			if (b->kind == TL_BIND_PARAM)
				return tl_facts__param_root(idx, b, path, budget);
			expr = tl_facts__held(idx, b);
			/* `model, opt = get_model(cfg)`: element 0 of what the
			 * call returns (the caller may look into it). */
			if (ts_node_is_null(expr) && stop && b->kind == TL_BIND_ASSIGN && b->elem >= 0 &&
			    !ts_node_is_null(b->value) &&
			    ts_node_symbol(tl_index_unparen(b->value)) == sy->call)
				*stop = (TlModStop){ tl_index_unparen(b->value), b->elem };
			continue;
		}
		if (s != sy->call)
			return none;
		const TlCall *c = tl_index_call_at(idx, expr);
		if (!c)
			return none;
		TSNode through = tl_facts__module_through(c, expr, true);
		if (!ts_node_is_null(through)) {
			expr = through;
			continue;
		}
		if (c->qname && (tl_facts_is_module_class_name(c->qname) ||
				 tl_facts__is_model_loader(c->qname)))
			return expr;
		const TlBinding *cb = tl_index_resolve_node(idx, c->callee);
		if (cb && cb->kind == TL_BIND_CLASS && idx->classes.items[cb->ref].is_module)
			return expr;
		/* A module class of the project the index cannot tell (one a
		 * star import binds, `from .parts import *` then `block(c)`, or
		 * whose base it binds, `class Net(nn.Module)` there), here or
		 * imported: the model says the class is one. */
		if (!c->receiver.id && idx->imports && tl_facts__project_module_class(idx, c, cb))
			return expr;
		/* `gen = build_model(cfg.g)` from an imported factory, used as a
		 * module (`gen.parameters()`), or an object of an imported class
		 * a part of which is one (`D = Discriminator(cfg)`, then
		 * `D.net.parameters()`): that call made it. */
		if (!ts_node_is_null(named) && c->qname && !tl_facts__foreign_qname(c->qname) &&
		    !tl_facts__starts(c->qname, "torch.") &&
		    (tl_facts_is_module(idx, named) || tl_facts__any_module(idx, parts, part_count)))
			return expr;
		if (stop)
			*stop = (TlModStop){ expr, -1 };
		return none;
	}
	return none;
}

/* The call that made the module name binding `b` holds when that call is
 * an imported factory or class of no known kind (`autoencoder =
 * SPADEAutoencoderKL(...)`) and the name is used as a module: as
 * tl_facts__module_root judges such a call when it reaches it through the
 * name, for questions that start from the binding. A null node otherwise. */
TSNode tl_facts__factory_root(const TlIndex *idx, const TlBinding *b)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	if (!b || b->kind != TL_BIND_ASSIGN || b->elem >= 0 || ts_node_is_null(b->stmt) ||
	    ts_node_symbol(b->stmt) != sy->assignment)
		return none;
	TSNode v = tl_index_unparen(b->value), left = tl_tree_field(b->stmt, sy->f_left);
	if (ts_node_is_null(v) || ts_node_symbol(v) != sy->call || ts_node_is_null(left))
		return none;
	TSSymbol ls = ts_node_symbol(left);
	if (ls != sy->identifier && ls != sy->attribute)
		return none;
	const TlCall *c = tl_index_call_at(idx, v);
	/* AutoencoderKL(...).to(device): the call below the moves (each a
	 * receiver or an argument inside the last: the chain ends). */
	while (c) {
		TSNode through = tl_index_unparen(tl_facts__module_through(c, v, false));
		if (ts_node_is_null(through) || ts_node_symbol(through) != sy->call)
			break;
		v = through;
		c = tl_index_call_at(idx, v);
	}
	/* An imported class or factory, or a local function (a benchmark's
	 * `module = _build_module(cfg)`), whose result the name uses as a
	 * module. */
	if (!c || (c->qname ? tl_facts__foreign_qname(c->qname) || tl_facts__starts(c->qname, "torch.")
			    : c->target < 0))
		return none;
	return tl_facts_is_module(idx, left) ? v : none;
}

/* True when `x`, read in the arguments `args` of constructor call `a`, is
 * a whole argument (or keyword value) that the constructor of a class of
 * the project keeps only a copy of: `ModelEma(model)` whose `__init__`
 * stores `deepcopy(model)` (model.h: tl_model_ctor_holds). */
static bool tl_facts__copied_in(const TlIndex *idx, TSNode a, TSNode args, TSNode x)
{
	TSNode up = tl_index_parent(idx, x);
	if (!ts_node_eq(up, args) && !(ts_node_symbol(up) == tl_syms()->keyword_argument &&
				       ts_node_eq(tl_index_parent(idx, up), args)))
		return false;
	return tl_model_ctor_holds(idx, a, x) == 0;
}

/* True when constructor call `a` is given (an argument whose module root
 * is) constructor call `b`: `Seq2Seq(encoder, decoder)` holds the encoder;
 * not when it keeps only a copy of the argument. */
static bool tl_facts__built_from(const TlIndex *idx, TSNode a, TSNode b)
{
	const TlSyms *sy = tl_syms();
	TSNode args = tl_tree_field(a, sy->f_arguments);
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
			TSNode r = tl_facts__module_root(idx, x, &p);
			found = !ts_node_is_null(r) && ts_node_eq(r, b);
			if (!found) {
				/* The object `b` made, handed over whole (`Encoder(cfg,
				 * critic=D)`), a module or not. */
				const TlBinding *xb = tl_index_resolve_node(idx, x);
				TSNode v = xb ? tl_index_unparen(tl_facts__held(idx, xb)) : (TSNode){ 0 };
				found = !ts_node_is_null(v) && ts_node_eq(v, b);
			}
			if (found && tl_facts__copied_in(idx, a, args, x))
				found = false;
		}
	} while (!found && tl_walk_next(&cur, args, descend));
	tl_buf_release(&p);
	ts_tree_cursor_delete(&cur);
	return found;
}

/* How module `r` relates to module part `e`: it covers all of `e` (the same
 * module, or a whole module containing the part), overlaps it, or is
 * disjoint from it (two modules built independently). */
int tl_facts__relate(const TlIndex *idx, const TlModRef *r, const TlModRef *e)
{
	if (ts_node_eq(r->root, e->root))
		return (!r->path[0] || strcmp(r->path, e->path) == 0) ? TL_REL_COVERS : TL_REL_OVERLAP;
	if (tl_facts__built_from(idx, r->root, e->root) || tl_facts__built_from(idx, e->root, r->root))
		return TL_REL_OVERLAP;
	return TL_REL_DISJOINT;
}

/* True when `n` sits inside a comprehension or lambda below `top`: names
 * there are the comprehension's own. */
bool tl_facts__in_comprehension(const TlIndex *idx, TSNode n, TSNode top)
{
	const TlSyms *sy = tl_syms();
	for (TSNode p = tl_index_parent(idx, n); !ts_node_is_null(p) && !ts_node_eq(p, top);
	     p = tl_index_parent(idx, p)) {
		TSSymbol s = ts_node_symbol(p);
		if (s == sy->list_comprehension || s == sy->generator_expression || s == sy->lambda)
			return true;
	}
	return false;
}

/* True when `n` is the function a call calls. */
bool tl_facts__is_callee(const TlIndex *idx, TSNode n)
{
	const TlSyms *sy = tl_syms();
	TSNode p = tl_index_parent(idx, n);
	return !ts_node_is_null(p) && ts_node_symbol(p) == sy->call &&
	       ts_node_eq(tl_tree_field(p, sy->f_function), n);
}

/* The modules whose parameters optimizer `opt` updates: every
 * `m.parameters()` (or module passed whole, as to timm's
 * create_optimizer_v2) in the parameter argument of its construction,
 * following names. False when they cannot all be told. */
bool tl_facts__optimizer_modules(const TlIndex *idx, TSNode opt, TlModSet *out)
{
	const TlSyms *sy = tl_syms();
	opt = tl_index_unparen(opt);
	TSNode ctor = { 0 };
	/* From name to name (`opt = self.opt`) to the construction: a binding
	 * met again ends the chain (tl_facts__seen_binding). */
	TlIntArray seen;
	tl_array_init(&seen);
	while (ts_node_is_null(ctor)) {
		TSSymbol s = ts_node_symbol(opt);
		if (s != sy->identifier && s != sy->attribute)
			break;
		const TlBinding *b = tl_index_resolve_node(idx, opt);
		TSNode v = tl_index_unparen(tl_facts__held(idx, b));
		if (ts_node_is_null(v) || tl_facts__seen_binding(idx, &seen, b))
			break;
		if (ts_node_symbol(v) != sy->call) {
			opt = v; /* another name */
			continue;
		}
		const TlCall *c = tl_index_call_at(idx, v);
		if (!c || !((c->qname && tl_facts__optimizer_qname(c->qname)) ||
			    tl_facts__optimizer_by_use(idx, b, v)))
			break;
		ctor = v;
	}
	tl_array_release(&seen);
	return !ts_node_is_null(ctor) && tl_facts__ctor_modules(idx, ctor, out);
}

/* True when a statement of function `func` (-1: the module) inside
 * `range` binds a module constructed there: `model = nn.Linear(w,
 * w).cuda()`, `net = Net(cfg)` of a local model class, `m =
 * timm.create_model(...)`; not a module moved or wrapped there after being
 * built elsewhere, nor a criterion or a layer without parameters. */
static bool tl_facts__builds_module_in(const TlIndex *idx, int32_t func, TSNode range)
{
	const TlSyms *sy = tl_syms();
	uint32_t from = ts_node_start_byte(range), to = ts_node_end_byte(range);
	const TlIntArray *binds = tl_index_scope_binds(idx, func);
	for (uint32_t i = 0; binds && i < binds->size; i++) {
		const TlBinding *b = &idx->bindings.items[binds->items[i]];
		if (b->kind != TL_BIND_ASSIGN || b->elem >= 0 || ts_node_is_null(b->value) ||
		    ts_node_start_byte(b->stmt) < from || ts_node_end_byte(b->stmt) > to)
			continue;
		TSNode v = tl_index_unparen(b->value);
		if (ts_node_symbol(v) != sy->call)
			continue;
		TlBuf path;
		tl_buf_init(&path);
		TSNode root = tl_facts__module_root(idx, v, &path);
		tl_buf_release(&path);
		if (ts_node_is_null(root))
			root = tl_facts__factory_root(idx, b);
		if (ts_node_is_null(root) || ts_node_start_byte(root) < from || ts_node_end_byte(root) > to)
			continue;
		/* A criterion or a layer without parameters built per step is
		 * no new model: the loop stays a hot loop. */
		const TlCall *rc = tl_index_call_at(idx, root);
		if (rc && rc->qname && (tl_facts__is_loss_class(rc->qname) ||
					tl_facts__parameter_free_layer(rc->qname)))
			continue;
		return true;
	}
	return false;
}

/* True when the body of loop `l` builds a model: in its own statements, or
 * in a local function it calls (a benchmark's `run_one(cfg)` that builds
 * the model it measures). */
static bool tl_facts__loop_builds_module(const TlIndex *idx, const TlLoop *l)
{
	if (tl_facts__builds_module_in(idx, l->func, l->body))
		return true;
	uint32_t from = 0, to = 0;
	tl_index_scope_calls_in(idx, l->func, l->body, &from, &to);
	const TlIntArray *calls = tl_index_scope_calls(idx, l->func);
	for (uint32_t i = from; i < to && i < from + 256; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (c->target >= 0 && c->target != l->func &&
		    tl_facts__builds_module_in(idx, c->target, idx->funcs.items[c->target].node))
			return true;
	}
	return false;
}

bool tl_facts_iteration_builds_model(const TlIndex *idx, TSNode node)
{
	/* In a loop of its own function: the innermost loop around it that
	 * trains or evaluates (runs a backward, a step or a forward) decides.
	 * Only a loop that trains what it builds is a sweep over models; one
	 * that runs a forward only may build a helper module per item (a
	 * smoothing filter for each attention map) and still be hot. */
	for (int32_t l = tl_index_loop_of(idx, node); l >= 0; l = idx->loops.items[l].parent) {
		const TlLoop *lp = &idx->loops.items[l];
		if ((lp->events & (TL_EV_BACKWARD | TL_EV_OPT_STEP)) && tl_facts__loop_builds_module(idx, lp))
			return true;
		if (lp->events & (TL_EV_BACKWARD | TL_EV_OPT_STEP | TL_EV_FORWARD))
			return false;
	}
	TlIntArray loops;
	tl_array_init(&loops);
	tl_facts__step_loop_list(idx, node, &loops);
	bool builds = loops.size > 0;
	for (uint32_t i = 0; builds && i < loops.size; i++)
		builds = tl_facts__loop_builds_module(idx, &idx->loops.items[loops.items[i]]);
	tl_array_release(&loops);
	return builds;
}

/* The modules whose parameters the optimizer constructed by call `ctor`
 * updates (see tl_facts__optimizer_modules). */
bool tl_facts__ctor_modules(const TlIndex *idx, TSNode ctor, TlModSet *out)
{
	const TlSyms *sy = tl_syms();
	TSNode params = tl_facts__kwarg(idx, ctor, "params");
	if (ts_node_is_null(params))
		params = tl_facts__arg(ctor, 0);
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
			if (c && c->receiver.id && (tl_api_method_sets(c->method) & TL_APIS_PARAMETERS)) {
				module = c->receiver;
			} else if (s == sy->keyword_argument) {
				x = tl_tree_field(x, sy->f_value);
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
				if (tl_facts__is_callee(idx, x) || tl_facts__in_comprehension(idx, x, top))
					continue;
				if (tl_facts_is_module(idx, x)) {
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
				TSNode r = tl_facts__module_root(idx, module, &path);
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
TSNode tl_facts__stepped(const TlIndex *idx, const TlCall *step)
{
	if (step->receiver.id && tl_facts_is_scaler(idx, step->receiver))
		return tl_facts__arg(step->node, 0);
	return step->receiver;
}

/* How far gradient reset `reset` (a zero_grad() call; NULL for a
 * `p.grad = None` statement) reaches into the parameters of optimizer
 * `opt`: TL_COVER_*. */
int tl_facts__reset_covers(const TlIndex *idx, const TlCall *reset, TSNode opt)
{
	if (!reset || !reset->method || strcmp(reset->method, "zero_grad") != 0 ||
	    !reset->receiver.id || ts_node_is_null(opt))
		return TL_COVER_UNKNOWN;
	TSNode x = reset->receiver;
	const TlBinding *bx = tl_index_resolve_node(idx, x);
	const TlBinding *bo = tl_index_resolve_node(idx, opt);
	if (bx && bx == bo)
		return TL_COVER_FULL;
	char *nx = tl_facts__dotted(idx, x), *no = tl_facts__dotted(idx, opt);
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
	if (!tl_facts__optimizer_modules(idx, opt, &oset))
		goto cleanup;
	if (tl_facts_is_optimizer(idx, x)) {
		if (!tl_facts__optimizer_modules(idx, x, &rset))
			goto cleanup;
	} else {
		TlBuf path;
		tl_buf_init(&path);
		TSNode r = tl_facts__module_root(idx, x, &path);
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
			int rel = tl_facts__relate(idx, &rset.items[k], &oset.items[i]);
			cov = cov || rel == TL_REL_COVERS;
			dis = dis && rel == TL_REL_DISJOINT;
		}
		covered += cov;
		disjoint += dis;
	}
	cover = covered == oset.size ? TL_COVER_FULL
		: disjoint == oset.size ? TL_COVER_NONE : TL_COVER_SOME;
cleanup:
	tl_facts__modset_release(&oset);
	tl_facts__modset_release(&rset);
	return cover;
}
