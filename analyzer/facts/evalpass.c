/* The evaluation pass (RULES.md, "Evaluation pass"): a loop, or the function
 * holding it, that runs a model forward over a data loader, dataset or
 * batches while the same program trains, and whose forward results reach
 * no backward and no optimizer step: the validation or test pass of a
 * training program, whether or not it calls .eval() or disables gradients.
 *
 * Built on the step-loop facts (facts/loops.c: the pass around a node and
 * what its iteration runs), value flow to a backward (facts/valueflow.c),
 * the grad-disabled context joined over call sites (tl_facts_under) and
 * whether the program trains (facts/mode.c). Without a grad-disabled
 * context, the pass must iterate data: a for loop over something that is
 * no count (`range(n)`, `itertools.count()`), no literal, no part of one
 * batch, no tensor's rows, no module's layers or parameters and no dict's
 * items (sampling, decoding and rollout loops over a counter are no
 * evaluation pass in this sense); it must run a model (not a criterion, a
 * parameter-free module, the loop's own element, a value bound to `_`);
 * and that model must be trained around it: in its own scope for a model
 * built there, else in the pass's function, its class or its callers (in
 * the file or in a module that imports it: model/trains.c).
 *
 * A pass may also be one batch inside a training iteration: a block under
 * an `if` of the step loop's body (RULES.md: work under a guard such as
 * `if i % N == 0:` is not per step) that draws a batch from data with
 * `next(...)`, runs the model on what it binds from that batch, and runs
 * no backward nor optimizer step itself or in what it calls (pointnet's
 * `j, data = next(enumerate(testdataloader))` every ten steps).
 *
 * Owns: tl_facts_evaluation_pass, tl_facts_batch_pass. */
#include "facts/internal.h"
#include "model/model.h"

/* True when `iter`, the iterable of a for loop, may hold data (batches,
 * samples): not a counter, a literal, or a module's own parts. */
static bool tl_evalpass__data_iterable(const TlIndex *idx, TSNode iter)
{
	const TlSyms *sy = tl_syms();
	for (int depth = 0; depth < 8; depth++) {
		iter = tl_index_unparen(iter);
		if (ts_node_is_null(iter))
			return false;
		TSSymbol s = ts_node_symbol(iter);
		/* A literal, the parts of one batch (`imgs["A"]`), the rows
		 * of a tensor, the layers of a module: no data iterated. */
		if (s == sy->list || s == sy->tuple || s == sy->string || s == sy->integer ||
		    s == sy->dictionary || s == sy->set || s == sy->subscript ||
		    tl_facts_is_tensor(idx, iter) || tl_facts_is_module(idx, iter))
			return false;
		if (s != sy->call)
			return true;
		const TlCall *c = tl_index_call_at(idx, iter);
		const char *name = c ? (c->qname ? c->qname : c->method) : NULL;
		if (!name)
			return true;
		/* api/api.tsv: the `*.` rows of the last part of the call's
		 * name, or of its method or bare name; a count or a module's
		 * or mapping's parts (set counts) iterates no data, and a call
		 * that hands on its first argument's items (iterates) what
		 * that argument does. */
		uint64_t sets = tl_api_any_sets(name);
		if (sets & TL_APIS_COUNTS)
			return false;
		if (!(sets & TL_APIS_ITERATES))
			return true;
		TSNode args = tl_tree_field(iter, sy->f_arguments);
		if (ts_node_is_null(args) || ts_node_named_child_count(args) == 0)
			return false;
		iter = ts_node_named_child(args, 0);
	}
	return false;
}

/* True when loop `l` is a for loop over data. */
static bool tl_evalpass__data_loop(const TlIndex *idx, int32_t l)
{
	const TlSyms *sy = tl_syms();
	TSNode n = idx->loops.items[l].node;
	return ts_node_symbol(n) == sy->for_statement &&
	       tl_evalpass__data_iterable(idx, tl_tree_field(n, sy->f_right));
}

/* True when the pass of forward call `c` iterates data: the innermost loop
 * of its own function, else (the pass is its function) a step loop that
 * runs it through its call sites and trains nothing (a sample drawn once
 * every N steps of a training loop over data is no evaluation pass). */
static bool tl_evalpass__over_data(const TlIndex *idx, const TlCall *c)
{
	if (c->loop >= 0)
		return tl_evalpass__data_loop(idx, c->loop);
	TlIntArray loops;
	tl_array_init(&loops);
	tl_facts__step_loop_list(idx, c->node, &loops);
	bool data = false;
	for (uint32_t i = 0; i < loops.size && !data; i++)
		data = !(idx->loops.items[loops.items[i]].events & (TL_EV_BACKWARD | TL_EV_OPT_STEP)) &&
		       tl_evalpass__data_loop(idx, loops.items[i]);
	tl_array_release(&loops);
	return data;
}

enum { TL_EVALPASS_TRAINS = TL_EV_BACKWARD | TL_EV_OPT_STEP };

/* The root name of the module forward `c` runs (`model` of `model(x)`,
 * `self` of `self.net(x)`), into `out`; false when there is none. */
static bool tl_evalpass__subject_root(const TlIndex *idx, const TlCall *c, TlBuf *out)
{
	TSNode callee = c->method && c->receiver.id ? c->receiver : c->callee;
	if (ts_node_is_null(callee) || !tl_index_dotted(idx, callee, out) || !out->len)
		return false;
	size_t root = strcspn(out->data, ".");
	out->data[root] = 0;
	out->len = root;
	return true;
}

/* True when module `root`, bound in function `func` (-1: module level)
 * and not a parameter there, is trained in that scope: its parameters are
 * handed to something (`optim.Adam(model.parameters())`), or a loop whose
 * iteration backpropagates or steps runs it. A model built and only run
 * (a test, a demo of a layer, a freshly loaded model) is not trained. */
static bool tl_evalpass__trained_in_scope(const TlIndex *idx, int32_t func, const char *root)
{
	const TlIntArray *calls = tl_index_scope_calls(idx, func);
	TlBuf k_root;
	tl_buf_init(&k_root);
	bool trained = false;
	for (uint32_t i = 0; calls && i < calls->size && !trained; i++) {
		const TlCall *k = &idx->calls.items[calls->items[i]];
		bool params = (tl_api_method_sets(k->method) & TL_APIS_PARAMETERS) != 0;
		bool trains_it = (k->events & TL_EV_FORWARD) && k->loop >= 0 &&
				 (idx->loops.items[k->loop].events & TL_EVALPASS_TRAINS);
		if (!params && !trains_it)
			continue;
		tl_buf_clear(&k_root);
		trained = tl_evalpass__subject_root(idx, k, &k_root) && strcmp(k_root.data, root) == 0;
	}
	tl_buf_release(&k_root);
	return trained;
}

/* True when the module forward `c` runs is a model some training around
 * the pass trains: a module bound locally (not a parameter nor `self`) must
 * be trained in its own scope; any other, by training around the pass's
 * function (the model's tl_model_trains_around, over the project's call
 * sites). */
static bool tl_evalpass__trained(const TlIndex *idx, const TlCall *c)
{
	TlBuf root;
	tl_buf_init(&root);
	bool local = false;
	if (tl_evalpass__subject_root(idx, c, &root) && strcmp(root.data, "self") != 0) {
		const TlFunc *f = c->func >= 0 ? &idx->funcs.items[c->func] : NULL;
		local = tl_index_bindings_of(idx, c->func, root.data) != NULL &&
			!(f && tl_facts__param_index(idx, f, root.data, root.len) >= 0);
	}
	bool trained;
	if (local)
		trained = tl_evalpass__trained_in_scope(idx, c->func, root.data);
	else
		trained = tl_model_trains_around(idx, c->func);
	tl_buf_release(&root);
	return trained;
}

/* True when forward `c` runs no model: a loss or criterion, a forward
 * whose value is bound to `_`, a torch.nn module that
 * holds no parameters (nn.CosineSimilarity), or the element of the loop
 * around it (`for layer in layers: x = layer(x)`, a list of reward
 * functions): the layers or callables iterated, not data. */
static bool tl_evalpass__no_model(const TlIndex *idx, const TlCall *c)
{
	if (c->events & TL_EV_LOSS)
		return true;
	/* `_ = model(x)`: a forward run for its side effects (lazy modules'
	 * initialisation), its value thrown away. */
	const TlSyms *sy = tl_syms();
	TSNode up = tl_index_parent(idx, c->node);
	if (!ts_node_is_null(up) && ts_node_symbol(up) == sy->assignment) {
		TSNode left = tl_tree_field(up, sy->f_left);
		if (!ts_node_is_null(left) && tl_index_text_is(idx, left, "_"))
			return true;
	}
	TSNode obj = tl_facts__called_object(c);
	if (!ts_node_is_null(obj) && tl_facts_loop_element(idx, obj))
		return true;
	TlBuf path;
	tl_buf_init(&path);
	TSNode root = tl_facts__module_root(idx, obj, &path);
	bool part = path.len > 0;
	tl_buf_release(&path);
	const TlCall *rc = ts_node_is_null(root) || part ? NULL : tl_index_call_at(idx, root);
	if (!rc)
		return false;
	/* torch.nn's criteria (also the deprecated ones, nn.NLLLoss2d). */
	return rc->qname && tl_facts__starts(rc->qname, "torch.nn.") &&
	       (strstr(tl_facts__last(rc->qname), "Loss") || tl_facts__parameter_free_layer(rc->qname));
}

/* The events call `k` runs, itself or in what it calls. */
static uint32_t tl_evalpass__runs(const TlIndex *idx, const TlCall *k)
{
	uint32_t ev = k->events | k->callee_events;
	if (k->target >= 0)
		ev |= idx->funcs.items[k->target].reach_events;
	if (k->arg_target >= 0)
		ev |= idx->funcs.items[k->arg_target].reach_events;
	return ev;
}

/* True when call `k` draws one batch from data: `next(it)` of an iterable
 * that may hold data (`next(iter(val_loader))`, `next(enumerate(test_loader))`). */
static bool tl_evalpass__draws_batch(const TlIndex *idx, const TlCall *k)
{
	if (k->receiver.id || k->qname || !k->method || strcmp(k->method, "next") != 0)
		return false;
	TSNode args = tl_tree_field(k->node, tl_syms()->f_arguments);
	return !ts_node_is_null(args) && ts_node_named_child_count(args) >= 1 &&
	       tl_evalpass__data_iterable(idx, ts_node_named_child(args, 0));
}

bool tl_facts_batch_pass(const TlIndex *idx, TSNode call, TSNode *block)
{
	const TlSyms *sy = tl_syms();
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!c || c->loop < 0 || !(c->events & TL_EV_FORWARD) ||
	    !(idx->loops.items[c->loop].events & TL_EVALPASS_TRAINS))
		return false;
	/* the outermost `if` of the loop's body that holds the call */
	TSNode body = idx->loops.items[c->loop].body, blk = { 0 };
	for (TSNode n = tl_index_parent(idx, c->node); !ts_node_is_null(n) && !ts_node_eq(n, body);
	     n = tl_index_parent(idx, n))
		if (ts_node_symbol(n) == sy->if_statement)
			blk = n;
	if (ts_node_is_null(blk))
		return false;
	uint32_t from = ts_node_start_byte(blk), to = ts_node_end_byte(blk), at = ts_node_start_byte(c->node);
	const TlIntArray *calls = tl_index_scope_calls(idx, c->func);
	TlNames drawn;
	tl_array_init(&drawn);
	bool trains = false;
	TSNode draw = { 0 };
	for (uint32_t i = 0; calls && i < calls->size && !trains; i++) {
		const TlCall *k = &idx->calls.items[calls->items[i]];
		uint32_t kpos = ts_node_start_byte(k->node);
		if (kpos < from || kpos >= to)
			continue;
		trains = (tl_evalpass__runs(idx, k) & TL_EVALPASS_TRAINS) != 0;
		if (ts_node_is_null(draw) && kpos < at && tl_evalpass__draws_batch(idx, k))
			draw = k->node;
	}
	bool yes = false;
	if (!trains && !ts_node_is_null(draw)) {
		/* what the block binds from the batch it drew, in order (`j, data
		 * = next(...)`, `points, target = data`, `points =
		 * points.cuda()`), and the forward is run on some of it */
		uint32_t dfrom = ts_node_start_byte(draw), dto = ts_node_end_byte(draw);
		for (uint32_t i = 0; i < idx->bindings.size && drawn.size < 32; i++) {
			const TlBinding *b = &idx->bindings.items[i];
			if (b->func != c->func || !b->name || ts_node_is_null(b->value) || ts_node_is_null(b->stmt))
				continue;
			uint32_t spos = ts_node_start_byte(b->stmt);
			if (spos < from || spos >= at)
				continue;
			uint32_t vfrom = ts_node_start_byte(b->value), vto = ts_node_end_byte(b->value);
			if ((vfrom <= dfrom && dto <= vto) || tl_facts__mentions(idx, b->value, &drawn))
				tl_array_push(&drawn, tl_strdup(b->name));
		}
		TSNode args = tl_tree_field(c->node, sy->f_arguments);
		yes = tl_facts__mentions(idx, args, &drawn);
	}
	tl_facts__names_release(&drawn);
	if (yes && block)
		*block = blk;
	return yes;
}

bool tl_facts_evaluation_pass(const TlIndex *idx, TSNode call)
{
	const TlCall *c = tl_index_call_at(idx, tl_index_unparen(call));
	if (!c || !(c->events & TL_EV_FORWARD))
		return false;
	if (!tl_facts__program_trains(idx, c->func) || tl_facts_reaches_backward(idx, c->node))
		return false;
	if (!tl_facts_pass_lacks(idx, c->node, TL_EV_BACKWARD | TL_EV_OPT_STEP)) {
		/* a batch evaluated under a guard of the training iteration */
		if (!tl_facts_batch_pass(idx, call, NULL) || tl_evalpass__no_model(idx, c))
			return false;
		return tl_evalpass__trained(idx, c);
	}
	bool in_step = tl_facts_in_step_loop(idx, c->node, TL_STEP_TRAIN | TL_STEP_EVAL, false);
	/* Grad-disabled code that trains nothing in a program that trains is
	 * evaluation, in a step loop of its module or of any call site in the
	 * project (the model's: a method an importer's loop calls through an
	 * instance, `model.validate_on_batch(batch)`); otherwise the pass must
	 * iterate data, with training around it. */
	if (tl_facts_under(idx, c->node, TL_CTX_GRAD_OFF))
		return in_step || (c->func >= 0 && tl_model_step_around(idx, c->func));
	if (!in_step)
		return false;
	if (!tl_evalpass__over_data(idx, c) || tl_evalpass__no_model(idx, c))
		return false;
	return tl_evalpass__trained(idx, c);
}
