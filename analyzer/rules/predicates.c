#include "rules/predicates.h"

#include <string.h>

#include "base/alloc.h"
#include "facts/facts.h"
#include "rules/checks/checks.h"
#include "syntax/syms.h"

static const char *const tl_event_names[] = {
	"backward", "optimizer-step", "grad-reset", "eval", "train", "forward",
	"scaler-update", "scaler-step", "loss", "scaled-backward", "unscaled-backward",
	"plain-step", "scaler-unscale", "autograd-grad", "detach", "grad-clip", NULL,
};
static const unsigned tl_event_bits[] = {
	TL_EV_BACKWARD, TL_EV_OPT_STEP, TL_EV_GRAD_RESET, TL_EV_EVAL, TL_EV_TRAIN,
	TL_EV_FORWARD, TL_EV_SCALER_UPDATE, TL_EV_SCALER_STEP, TL_EV_LOSS,
	TL_EV_SCALED_BACKWARD, TL_EV_UNSCALED_BACKWARD, TL_EV_PLAIN_STEP,
	TL_EV_SCALER_UNSCALE, TL_EV_GRAD_CALL, TL_EV_DETACH, TL_EV_GRAD_CLIP,
};
static const char *const tl_context_names[] = {
	"grad-disabled", "autocast", "device-autocast", "half-autocast", NULL,
};
static const unsigned tl_context_bits[] = {
	TL_CTX_GRAD_OFF, TL_CTX_AUTOCAST, TL_CTX_AUTOCAST | TL_CTX_NOT_CPU,
	TL_CTX_AUTOCAST | TL_CTX_HALF_AUTOCAST,
};
static const char *const tl_mode_names[] = { "eval", "train", "eval-in-a-context", "eval-on-a-path", NULL };
static const char *const tl_made_names[] = {
	"softmax", "log-softmax", "sigmoid", "scaler-scale", "exp-sum", NULL,
};
static const int tl_made_kinds[] = {
	TL_MADE_SOFTMAX, TL_MADE_LOG_SOFTMAX, TL_MADE_SIGMOID, TL_MADE_SCALED, TL_MADE_EXP_SUM,
};
static const char *const tl_loss_names[] = {
	"cross-entropy", "nll", "bce", "bce-with-logits", NULL,
};
static const int tl_loss_kinds[] = {
	TL_LOSS_CROSS_ENTROPY, TL_LOSS_NLL, TL_LOSS_BCE, TL_LOSS_BCE_LOGITS,
};

static const TlCall *tl_pred__call(const TlIndex *idx, TSNode n)
{
	return tl_index_call_at(idx, tl_index_unparen(n));
}

static bool tl_pred_loss_call(const TlIndex *idx, TSNode n, int choice)
{
	(void)choice;
	const TlCall *c = tl_pred__call(idx, n);
	return c && (c->events & TL_EV_LOSS);
}

static bool tl_pred_module_forward(const TlIndex *idx, TSNode n, int choice)
{
	(void)choice;
	const TlCall *c = tl_pred__call(idx, n);
	return c && (c->events & TL_EV_FORWARD);
}

static bool tl_pred_records_graph(const TlIndex *idx, TSNode n, int choice)
{
	(void)choice;
	return tl_check_forward_records_graph(idx, n);
}

static bool tl_pred_call_does(const TlIndex *idx, TSNode n, int choice)
{
	const TlCall *c = tl_pred__call(idx, n);
	return c && (c->events & tl_event_bits[choice]);
}

static bool tl_pred_in_loop(const TlIndex *idx, TSNode n, int choice)
{
	(void)choice;
	return tl_index_loop_of(idx, n) >= 0;
}

static bool tl_pred_step_iteration_lacks(const TlIndex *idx, TSNode n, int choice)
{
	uint32_t missing;
	uint32_t found = tl_facts_step_loops(idx, n, tl_event_bits[choice], &missing);
	return found > 0 && missing == found;
}

static bool tl_pred_step_iteration_has(const TlIndex *idx, TSNode n, int choice)
{
	uint32_t missing;
	uint32_t found = tl_facts_step_loops(idx, n, tl_event_bits[choice], &missing);
	return found > 0 && missing < found;
}

static bool tl_pred_outer_loop_has(const TlIndex *idx, TSNode n, int choice)
{
	return tl_check_outer_loop_has(idx, n, tl_event_bits[choice]);
}

static bool tl_pred_under_context(const TlIndex *idx, TSNode n, int choice)
{
	return tl_facts_under(idx, n, tl_context_bits[choice]);
}

static bool tl_pred_from_context(const TlIndex *idx, TSNode n, int choice)
{
	return tl_check_from_context(idx, n, tl_context_bits[choice]);
}

static bool tl_pred_mode_is(const TlIndex *idx, TSNode n, int choice)
{
	const TlCall *c = tl_pred__call(idx, n);
	if (!c)
		return false;
	/* model(x) tracks `model`; model.forward(x) tracks its receiver. */
	char *subject = tl_facts_mode_subject(idx, c->node);
	int mode = subject ? tl_facts_mode_at(idx, n, subject) : TL_MODE_UNKNOWN;
	/* eval-in-a-context: also eval under the constants some call site
	 * of the function passes; eval-on-a-path: that, or an .eval() the
	 * program makes on some path (TL102) */
	bool yes = mode == (choice == 1 ? TL_MODE_TRAIN : TL_MODE_EVAL) ||
		   (choice >= 2 && subject && mode == TL_MODE_UNKNOWN && tl_facts_mode_eval_in_context(idx, n, subject)) ||
		   (choice == 3 && subject && mode != TL_MODE_EVAL && tl_facts_eval_on_a_path(idx, n, subject));
	tl_free(subject);
	return yes;
}

static bool tl_pred_pass_lacks(const TlIndex *idx, TSNode n, int choice)
{
	return tl_facts_pass_lacks(idx, n, tl_event_bits[choice]);
}

static bool tl_pred_discarded(const TlIndex *idx, TSNode n, int choice)
{
	(void)choice;
	return tl_check_discarded(idx, n);
}

/* ---- speed, precision and safety ------------------------------------------ */

/* Versions a rule can name; each is compared as major * 100 + minor. */
static const char *const tl_version_names[] = {
	"1.8", "1.9", "1.10", "1.11", "1.12", "1.13", "2.0", "2.1", "2.2", "2.3", "2.4",
	"2.5", "2.6", "2.7", "2.8", "2.9", "2.10", NULL,
};
static const char *const tl_api_names[] = {
	"tensor-factory", "random-factory", "tensor-from-data", "deprecated-amp", "cpu-amp", "torch-load", "hub-load",
	"activation-checkpoint", "empty-cache", "data-loader", "log", "softmax-function",
	"softmax-module", "functional-dropout", "dropout-module", "anomaly-mode", "torch-save", "out-of-place",
	NULL,
};
_Static_assert(sizeof tl_api_names / sizeof *tl_api_names == TL_API_COUNT + 1,
	       "one name per TlApi kind, in order");
static const char *const tl_keyword_names[] = {
	"weights_only", "pickle_module", "use_reentrant", "non_blocking", "device",
	"pin_memory", "map_location", "dtype", "out", NULL,
};
/* Parameters asked for by name; their places come from the API's signature. */
static const char *const tl_argument_names[] = {
	"dim", "training", "p", "shuffle", "seed", "sampler", "map_location", NULL,
};
static const char *const tl_step_names[] = { "any", "training", NULL };
static const uint32_t tl_step_bits[] = { TL_STEP_TRAIN | TL_STEP_EVAL, TL_STEP_TRAIN };
static const char *const tl_loader_option_names[] = {
	"pin_memory", "drop_last", "shuffle", "persistent_workers", "num_workers", NULL,
};
static const char *const tl_wrapper_names[] = { "ddp", "fsdp", "prefixed", "data-parallel", "compiled", NULL };

static bool tl_pred_torch_version_at_least(const TlIndex *idx, TSNode n, int choice)
{
	(void)n;
	const char *v = tl_version_names[choice];
	int major = 0, minor = 0;
	while (*v && *v != '.')
		major = major * 10 + (*v++ - '0');
	if (*v == '.')
		v++;
	while (*v)
		minor = minor * 10 + (*v++ - '0');
	return idx->torch_version >= major * 100 + minor;
}

static const char *const tl_literal_names[] = { "False", "True", "None", NULL };

static bool tl_pred_literal(const TlIndex *idx, TSNode n, int choice)
{
	const TlSyms *sy = tl_syms();
	TSNode lit = tl_facts_literal(idx, n);
	if (ts_node_is_null(lit))
		return false;
	TSSymbol want = choice == 0 ? sy->false_ : choice == 1 ? sy->true_ : sy->none;
	return ts_node_symbol(lit) == want;
}

/* Largest finite value of each format a constant may overflow. */
static const char *const tl_format_names[] = { "float16", NULL };
static const double tl_format_max[] = { 65504.0 };

static bool tl_pred_number_beyond(const TlIndex *idx, TSNode n, int choice)
{
	double v;
	if (!tl_facts_number(idx, n, &v) || v != v)
		return false;
	double a = v < 0 ? -v : v;
	/* inf and -inf are representable: only finite values overflow. */
	return a > tl_format_max[choice] && a <= 1.79769313486231570e308;
}

static bool tl_pred_api(const TlIndex *idx, TSNode n, int choice)
{
	return tl_facts_is_api(idx, n, (TlApi)choice);
}

static bool tl_pred_passes_keyword(const TlIndex *idx, TSNode n, int choice)
{
	return tl_facts_passes_keyword(idx, n, tl_keyword_names[choice]);
}

static bool tl_pred_passes_argument(const TlIndex *idx, TSNode n, int choice)
{
	return tl_facts_passes_argument(idx, n, tl_argument_names[choice]);
}

static bool tl_pred_other_arm_passes(const TlIndex *idx, TSNode n, int choice)
{
	return tl_check_other_arm_passes(idx, n, tl_argument_names[choice]);
}

static bool tl_pred_argument_off(const TlIndex *idx, TSNode n, int choice)
{
	return tl_check_argument_off(idx, n, tl_argument_names[choice]);
}

static const char *const tl_module_code_names[] = { "method", "reached", NULL };

static bool tl_pred_in_module_code(const TlIndex *idx, TSNode n, int choice)
{
	return tl_check_in_module_code(idx, n, choice == 1);
}

static bool tl_pred_in_step_loop(const TlIndex *idx, TSNode n, int choice)
{
	return tl_facts_in_step_loop(idx, n, tl_step_bits[choice], false);
}

static bool tl_pred_per_step(const TlIndex *idx, TSNode n, int choice)
{
	return tl_facts_in_step_loop(idx, n, tl_step_bits[choice], true);
}

static bool tl_pred_distributed_file(const TlIndex *idx, TSNode n, int choice)
{
	(void)n;
	(void)choice;
	return tl_check_distributed_file(idx);
}

static bool tl_pred_carried_with_graph(const TlIndex *idx, TSNode n, int choice)
{
	(void)choice;
	return tl_check_carried_state(idx, n) == TL_CARRY_ATTACHED;
}

static bool tl_pred_loader_option(const TlIndex *idx, TSNode n, int choice)
{
	return tl_facts_loader_option(idx, n, tl_loader_option_names[choice]);
}

static bool tl_pred_feeds_step_loop(const TlIndex *idx, TSNode n, int choice)
{
	return tl_check_feeds_step_loop(idx, n, tl_step_bits[choice]);
}

static bool tl_pred_file_uses_accelerator(const TlIndex *idx, TSNode n, int choice)
{
	(void)n;
	(void)choice;
	return tl_check_file_uses_accelerator(idx);
}

static bool tl_pred_backward_through(const TlIndex *idx, TSNode n, int choice)
{
	return tl_check_backward_through(idx, n, (TlWrapper)choice);
}

static bool tl_pred_wrapped_module(const TlIndex *idx, TSNode n, int choice)
{
	return tl_facts_wrapped_module(idx, n, (TlWrapper)choice);
}

static bool tl_pred_encloses_step_loop(const TlIndex *idx, TSNode n, int choice)
{
	return tl_check_encloses_step_loop(idx, n, tl_step_bits[choice]);
}

static bool tl_pred_wrapped_by(const TlIndex *idx, TSNode n, int choice)
{
	return tl_check_wrapped_by(idx, n, (TlWrapper)choice);
}

static bool tl_pred_made_by(const TlIndex *idx, TSNode n, int choice)
{
	return tl_facts_made_by(idx, n) == tl_made_kinds[choice];
}

static bool tl_pred_model_output(const TlIndex *idx, TSNode n, int choice)
{
	return tl_facts_model_output(idx, n) == tl_made_kinds[choice];
}

static bool tl_pred_loss_is(const TlIndex *idx, TSNode n, int choice)
{
	const TlCall *c = tl_pred__call(idx, n);
	return c && tl_facts_loss_kind(idx, c) == tl_loss_kinds[choice];
}

size_t tl_predicate_words(const TlPredicateDef *def, int choice, const char **out, size_t cap)
{
	/* #api?: a qualified name ends with an identifier of the file. */
	if (def->fn == tl_pred_api && choice >= 0 && choice < TL_API_COUNT)
		return tl_facts_api_words((TlApi)choice, out, cap);
	/* #loss-is?: the loss's torch.nn name, resolved in the file. */
	if (def->fn == tl_pred_loss_is && choice >= 0 &&
	    (size_t)choice < sizeof tl_loss_kinds / sizeof *tl_loss_kinds)
		return tl_facts_loss_kind_words(tl_loss_kinds[choice], out, cap);
	return 0;
}

const TlPredicateDef tl_predicates[] = {
	{ "loss-call", NULL, NULL, tl_pred_loss_call, NULL,
	  "the call computes a loss: a torch.nn.functional loss, a criterion module bound in the file, or a callable named like a criterion" },
	{ "module-forward", NULL, NULL, tl_pred_module_forward, NULL,
	  "the call runs a known module's forward (bound to an nn.Module, a model constructor or hub loader, or used as a module)" },
	{ "records-graph", NULL, NULL, tl_pred_records_graph, NULL,
	  "the module forward may record an autograd graph: false when the model knows its module holds no parameter that requires grad (a parameter-free layer, a frozen embedding, a layer after requires_grad_(False), a project class whose stores hold none) and no input requires grad (a tensor a factory made without requires_grad, what arithmetic and tensor methods compute from one, a literal), or when its code froze the module (`requires_grad_(False)`) and no input is known to carry history)" },
	{ "call-does", "event", tl_event_names, tl_pred_call_does, NULL,
	  "the call itself is the event (backward, optimizer-step, grad-reset, eval, train, forward, scaler-update, scaler-step, loss, scaled-backward, unscaled-backward, plain-step, scaler-unscale, autograd-grad, detach)" },
	{ "loss-is", "loss", tl_loss_names, tl_pred_loss_is, NULL,
	  "the call computes that loss (cross-entropy, nll, bce, bce-with-logits): the torch.nn.functional function or a criterion module bound to the class" },
	{ "optimizer", NULL, NULL, NULL, tl_facts_is_optimizer,
	  "the expression is an optimizer (bound to torch.optim.*, else named like one)" },
	{ "adaptive-optimizer", NULL, NULL, NULL, tl_check_optimizer_adaptive,
	  "the expression is bound to a scale-invariant optimizer (Adam, AdamW, RMSprop, Adagrad, Lion, ..., import-resolved): a constant factor on the gradients mostly cancels" },
	{ "grad-scaler", NULL, NULL, NULL, tl_facts_is_scaler,
	  "the expression is a GradScaler (bound to one, else named like a scaler)" },
	{ "module", NULL, NULL, NULL, tl_facts_is_module,
	  "the expression is a known module" },
	{ "parameter", NULL, NULL, NULL, tl_facts_is_parameter,
	  "the expression is a parameter or buffer of a module: a target of iterating .parameters() / .buffers(), the tensor of a .named_parameters() pair, an nn.Parameter bound in the file, or .weight / .bias of a known module" },
	{ "wrapper-module", NULL, NULL, NULL, tl_check_is_wrapper_module,
	  "the module's forward is its entry point: a DistributedDataParallel, DataParallel or FSDP wrapper, or a RemoteModule (else named like one)" },
	{ "graph-tensor", NULL, NULL, NULL, tl_facts_is_graph,
	  "the value carries autograd history: a graph tensor, made by a forward or a loss while gradients are on" },
	{ "holds-graph", NULL, NULL, NULL, tl_facts_holds_graph,
	  "the value is a container (dict, list, tuple) holding a graph tensor: a literal with one, one stored into it, or an element of it consumed by a backward (`out[\"loss\"].backward()`)" },
	{ "in-loop", NULL, NULL, tl_pred_in_loop, NULL,
	  "the node is inside a loop body of its own function" },
	{ "model-computation", NULL, NULL, NULL, tl_facts_model_computation,
	  "the stored-to container is a local of a model's own computation: a loop in an nn.Module method (or a helper only its methods call) that runs no backward nor optimizer step, not self. state" },
	{ "kept-across-training-step", NULL, NULL, NULL, tl_facts_kept_across_training_step,
	  "the stored-to name survives the iterations of a training step loop around the store (one whose iteration runs a backward or an optimizer step): it is bound anew neither in that loop nor in a loop between it and the store" },
	{ "store-keeps-graph", NULL, NULL, NULL, tl_facts_store_keeps_graph,
	  "a store into the container keeps the history of what it stores: false for a tensor (the store copies values) written with gradients off" },
	{ "detaching-container", NULL, NULL, NULL, tl_facts_detaching_container,
	  "the container is a name bound once to a library container whose stores detach what they are handed (MONAI's CumulativeAverage)" },
	{ "kept-by-callee", NULL, NULL, NULL, tl_check_kept_by_callee,
	  "the argument is handed to a method of a helper object (no module; its class in this file or another module of the project) that adds it to `self` state (`self.sum += val * n`, `self.history.append(val)`), on an object that outlives a training step loop around the call" },
	{ "outlives-iteration", NULL, NULL, NULL, tl_check_outlives_iteration,
	  "the stored-to name is not re-bound inside the innermost enclosing loop, so it survives across iterations" },
	{ "step-iteration-lacks", "event", tl_event_names, tl_pred_step_iteration_lacks, NULL,
	  "every step loop of the node (the innermost loop whose iteration runs a backward, through callers) lacks the event in its iteration" },
	{ "step-iteration-has", "event", tl_event_names, tl_pred_step_iteration_has, NULL,
	  "some step loop of the node has the event in its iteration" },
	{ "loop-element", NULL, NULL, NULL, tl_facts_loop_element,
	  "the expression is a name the innermost loop around it binds as its target: each iteration holds another element" },
	{ "updates-weights", NULL, NULL, NULL, tl_check_updates_weights,
	  "the training around the node steps an optimizer: a loop around it (any depth) in its iteration, its function (through local calls), or the same around a call site of its function" },
	{ "outer-loop-has", "event", tl_event_names, tl_pred_outer_loop_has, NULL,
	  "a loop around a step loop of the node (in its function, or around the calls of its function) has the event in its iteration" },
	{ "in-step-loop", "kind", tl_step_names, tl_pred_in_step_loop, NULL,
	  "the node runs in the iteration of a step loop (any: training or evaluation; training: one that runs a backward or an optimizer step), in its function or through call sites" },
	{ "per-step", "kind", tl_step_names, tl_pred_per_step, NULL,
	  "like in-step-loop, along a path with no every-N-steps guard: the node runs on every step" },
	{ "every-n-steps", NULL, NULL, NULL, tl_facts_under_every_n,
	  "the node is in the body of an if/elif of its function that holds every N steps (`step % N == 0`, `accelerator.sync_gradients`, ...)" },
	{ "loop-invariant", NULL, NULL, NULL, tl_facts_loop_invariant,
	  "every name the expression reads holds the same, unchanged object in every iteration of its loop (through call sites)" },
	{ "freeze-matters", NULL, NULL, NULL, tl_check_freeze_matters,
	  "the object of an assignment `x.<flag> = value` may need freezing: false when the value is a literal False and the model knows the object requires no grad (a tensor a factory made without requires_grad, what is computed from one, a module that holds no parameters) and no nn.Parameter made of it later in its function requires grad" },
	{ "known-tensor", NULL, NULL, NULL, tl_facts_is_tensor,
	  "the value is a known tensor: a factory result, an element of a DataLoader batch, a Tensor-annotated parameter, a graph tensor, and what tensor methods, arithmetic and names make of them; never a module" },
	{ "host-array", NULL, NULL, NULL, tl_check_is_host_array,
	  "the value is a host (numpy) array on every path, as the semantic model computes it: what `.numpy()` or a numpy factory made, through names" },
	{ "device-tensor", NULL, NULL, NULL, tl_check_on_device,
	  "the expression is a tensor in accelerator memory: moved or made there, or a forward or loss result" },
	{ "device", NULL, NULL, NULL, tl_facts_is_device,
	  "the expression names an accelerator device (\"cuda\", torch.device, x.device, a device or rank variable); \"cpu\" does not" },
	{ "moves-to-device", NULL, NULL, NULL, tl_facts_moves_to_device,
	  "the call is `.cuda(...)` or `.to(...)` with a device" },
	{ "transfer-varies", NULL, NULL, NULL, tl_check_transfer_varies,
	  "the transfer does not repeat one move: its destination changes in its loop, or the same receiver is moved elsewhere in the same iteration (offloading) or, outside loops, the same call (a saved device restored)" },
	{ "transfer-noop", NULL, NULL, NULL, tl_check_transfer_noop,
	  "the `.to(device)` moves a tensor its binding already made or moved to that device, named the same way (device=self._device, then .to(self._device)): no copy; or a move to the device of a value computed in the same function (target.to(output.device)) of a tensor not known to be made on the host" },
	{ "host-factory", NULL, NULL, NULL, tl_facts_host_factory,
	  "the expression is a tensor factory made on the host (no device=), also inside Variable(...) or behind host-side casts and fills" },
	{ "host-derived", NULL, NULL, NULL, tl_check_host_derived,
	  "the expression holds data a device tensor sent to the host (.cpu(), .tolist()) earlier in the same loop iteration, or a value computed from it" },
	{ "from-loader", NULL, NULL, NULL, tl_check_from_loader,
	  "every way the value arrives is a batch (or part of one) of a DataLoader constructed in the file" },
	{ "loader-option", "option", tl_loader_option_names, tl_pred_loader_option, NULL,
	  "a DataLoader the value's batches come from (or the DataLoader(...) call itself) sets the option (not a literal False / None / 0), or may through **kwargs" },
	{ "feeds-step-loop", "kind", tl_step_names, tl_pred_feeds_step_loop, NULL,
	  "the DataLoader(...) call's batches are iterated by a step loop of that kind (any: training or evaluation; training): a for loop over it, a name bound to it, a local function returning it, a parameter passed it" },
	{ "file-uses-accelerator", NULL, NULL, tl_pred_file_uses_accelerator, NULL,
	  "the node's file puts something on an accelerator (.cuda(), .to(device), device= with a device, accelerate)" },
	{ "accumulation-backward", NULL, NULL, NULL, tl_check_accumulation_backward,
	  "the backward runs on iterations without an optimizer step (its loop steps under an every-N guard, or it is a micro-batch loop)" },
	{ "no-sync", NULL, NULL, NULL, tl_check_no_sync,
	  "the node runs with DDP gradient sync off: under `with model.no_sync():` or accelerator.accumulate, or in a loop that sets require_backward_grad_sync" },
	{ "backward-through", "wrapper", tl_wrapper_names, tl_pred_backward_through, NULL,
	  "the backward differentiates a value computed by a forward of a module wrapped in DistributedDataParallel (ddp) or FSDP (fsdp)" },
	{ "wrapped-module", "wrapper", tl_wrapper_names, tl_pred_wrapped_module, NULL,
	  "the expression is the module inside a DistributedDataParallel (ddp) or FSDP (fsdp) wrapper, reached around it: `ddp.module`, `self.model.module`, or a name bound to one" },
	{ "encloses-step-loop", "kind", tl_step_names, tl_pred_encloses_step_loop, NULL,
	  "a step loop of that kind (any, training) runs in the region the node opens: a with block's body, else the rest of its function (module level: the whole file), or a local function called there" },
	{ "reached", NULL, NULL, NULL, tl_check_reached,
	  "some run reaches the node as the semantic model interprets its function: not in a branch that a constant decides against (a literal condition, or a parameter every call site of the file passes as the same constant, or leaves to the same literal default), not after a return; true where the model does not know (module-level code, a bound cut)" },
	{ "under-condition", NULL, NULL, NULL, tl_check_under_condition,
	  "the node sits, in its own function, in an if / elif / else branch, a conditional expression or an operand of and / or" },
	{ "wrapped-by", "wrapper", tl_wrapper_names, tl_pred_wrapped_by, NULL,
	  "the expression is a wrapper of that kind itself (ddp, fsdp, prefixed: DistributedDataParallel, DataParallel or torch.compile, whose state_dict keys carry a prefix; data-parallel: the first two; compiled: torch.compile): a call of it, a name or attribute bound to one, a parameter every caller passes one; not one bound on the other branch of an if that the use runs under (`if ddp:` ... `else:`), nor, where it is a wrapper on some paths only, in an arm whose other arm reads its `.module` or `._orig_mod`" },
	{ "distributed-file", NULL, NULL, tl_pred_distributed_file, NULL,
	  "the node's file runs distributed training: it calls init_process_group, wraps a module in DistributedDataParallel or FSDP, or reads LOCAL_RANK (os.environ[\"LOCAL_RANK\"], a --local_rank option)" },
	{ "rank-zero-only", NULL, NULL, NULL, tl_check_rank_zero_only,
	  "the node runs only in the process of rank 0: under a test that says so (rank == 0, dist.get_rank() == 0, local_rank in (-1, 0), is_main_process(), accelerator.is_main_process), after `if rank != 0: return`, or in a function every call of which does" },
	{ "load-feeds-state", NULL, NULL, NULL, tl_check_load_feeds_state,
	  "the torch.load call's result reaches a load_state_dict(...) of a model or an optimizer: the object, a copy or what is read out of it (entries, .get, the items of .items() re-keyed in a comprehension or a loop), through names, conditionals and the callers of a function of the file that returns it" },
	{ "loads-host-copy", NULL, NULL, NULL, tl_check_loads_host_copy,
	  "the torch.load call reads a path (same expression text) that a torch.save of the same file writes with its values moved to the host (.cpu(), .to(\"cpu\"))" },
	{ "saved", NULL, NULL, NULL, tl_check_saved,
	  "the object is what torch.save writes, or a copy with the same keys (copy.deepcopy, .copy()), or a container that holds it (a literal, a store under a key, an append, a spread), through names, conditionals and the callers of a function of the file that returns it; not once its keys are rewritten" },
	{ "displayed", NULL, NULL, NULL, tl_facts_displayed,
	  "the expression statement around the node is at the top level of a notebook, where Jupyter displays a cell's last value" },
	{ "in-test-code", NULL, NULL, NULL, tl_facts_in_test_code,
	  "the node is in a function named test... (or one nested in it) or a method of a class named Test..." },
	{ "dies-in-iteration", NULL, NULL, NULL, tl_check_dies_in_iteration,
	  "the call's value is not kept past the loop iteration (not appended, stored into an attribute or element, returned)" },
	{ "api", "kind", tl_api_names, tl_pred_api, NULL,
	  "the call's callee (or the reference itself) resolves to an API of that kind (tensor-factory, random-factory: torch.rand/randn/randint, tensor-from-data, deprecated-amp, cpu-amp: the deprecated torch.cpu.amp ones, torch-load, hub-load: torch.hub.load_state_dict_from_url / torch.utils.model_zoo.load_url, activation-checkpoint, empty-cache, data-loader, log: torch.log, softmax-function: F.softmax / log_softmax / softmin, softmax-module: nn.Softmax / LogSoftmax / Softmin, functional-dropout: F.dropout and its variants, dropout-module: nn.Dropout and its variants, anomaly-mode: torch.autograd.set_detect_anomaly / detect_anomaly, torch-save, out-of-place: torch functions with an in-place twin and the view functions, torch.clamp, torch.unsqueeze, ...)" },
	{ "literal", "value", tl_literal_names, tl_pred_literal, NULL,
	  "the expression is that literal (False, True, None), written in place or held by a name bound exactly once in its scope to it (`flag = False`); parameters and names bound twice are not" },
	{ "number-beyond", "format", tl_format_names, tl_pred_number_beyond, NULL,
	  "the expression is a finite constant number (a literal, `-1e9`, `float(\"1e10\")`, or a name bound once to one) whose magnitude exceeds the largest finite value of the format (float16: 65504)" },
	{ "passes-keyword", "keyword", tl_keyword_names, tl_pred_passes_keyword, NULL,
	  "the call passes that keyword argument, or a **mapping that may hold it" },
	{ "passes-argument", "parameter", tl_argument_names, tl_pred_passes_argument, NULL,
	  "the call passes that parameter of the torch API it calls (dim, training, p, shuffle, seed, sampler, map_location): by keyword, or at its place in the API's signature (softmax, dropout, DistributedSampler, DataLoader, torch.load), or through a *args / **kwargs that may" },
	{ "other-arm-passes", "parameter", tl_argument_names, tl_pred_other_arm_passes, NULL,
	  "the call sits in one arm of an if / else or a conditional expression whose other arm calls the same callee (as written) passing that parameter (as passes-argument): the argument is chosen per branch" },
	{ "argument-off", "parameter", tl_argument_names, tl_pred_argument_off, NULL,
	  "the call passes that parameter (as passes-argument, not through *args / **kwargs) a constant False, None or zero, in place or through a name bound once to it" },
	{ "in-module-code", "where", tl_module_code_names, tl_pred_in_module_code, NULL,
	  "the node runs in code of a local nn.Module subclass (method: a method with `self`, or a function nested in one; reached: also static methods and the local functions such code calls)" },
	{ "unregistered-submodules", NULL, NULL, NULL, tl_check_unregistered_submodules,
	  "the assignment binds self.<name>, in a method of a local nn.Module subclass, to a plain list / tuple / dict (a literal, a comprehension, or an empty one filled with append or [k] =) holding new modules with state or nn.Parameters, which nothing in the class registers (nn.ModuleList(...), add_module, a helper it is handed to)" },
	{ "sampler-epoch-unset", NULL, NULL, NULL, tl_check_sampler_epoch_unset,
	  "the iterable is DataLoaders built in the file whose shuffling DistributedSampler nothing may call set_epoch on (no .set_epoch() but on another sampler, the sampler handed to no call but a DataLoader)" },
	{ "repeated-step-loop", NULL, NULL, NULL, tl_check_repeated_step_loop,
	  "the for / while loop is a training step loop that an outer loop runs again and again (an epoch loop around it in its function, or around a call of its function)" },
	{ "optimizer-before-shard", NULL, NULL, NULL, tl_check_optimizer_before_shard,
	  "the optimizer construction is over a module's parameters that a later FSDP / fully_shard wrap in the same function replaces, and no optimizer is built (nor accelerate's prepare called) after the wrap" },
	{ "mode-guarded", NULL, NULL, NULL, tl_check_mode_guarded,
	  "the node runs only in one mode or computes from it: a test around it reads self.training / a train or eval flag, a call's argument reads one, its function is named for training (training_step), or a comment after it on its line says it is always on" },
	{ "torch-version-at-least", "version", tl_version_names, tl_pred_torch_version_at_least, NULL,
	  "the target PyTorch version (torch-version, --torch-version; default 2.6) is at least the given one" },
	{ "old-torch-only", NULL, NULL, NULL, tl_facts_old_torch_only,
	  "the node runs only on a PyTorch older than the target version: the fallback branch of a version guard (`else` of `if version.parse(torch.__version__) >= ...`, of `hasattr(torch, ...)`, of `A if TORCH_GE_2_4 else B`; `except ImportError/AttributeError/TypeError:`)" },
	{ "under-context", "context", tl_context_names, tl_pred_under_context, NULL,
	  "the node runs under the context (grad-disabled, autocast, device-autocast: autocast not on the CPU, half-autocast: float16 autocast, named or CUDA's default): a with block, a decorator, or every call site of its function" },
	{ "from-context", "context", tl_context_names, tl_pred_from_context, NULL,
	  "the expression reads a module forward's output bound inside a with block of that context that does not enclose it" },
	{ "half-dtype", NULL, NULL, NULL, tl_facts_is_half_dtype,
	  "the expression is torch.float16 / torch.half (import-resolved)" },
	{ "float32-value", NULL, NULL, NULL, tl_check_float32_value,
	  "the value was explicitly converted to float32 or wider in its function (.float(), .double(), .to(torch.float32)), through names, subscripts and methods that keep the dtype" },
	{ "runs-in-half", NULL, NULL, NULL, tl_check_runs_in_half,
	  "the node may compute in float16: under a float16 autocast region, or in a file that converts a module or tensor to float16 (.half(), torch.float16 / torch.half passed to a call)" },
	{ "reaches-backward", NULL, NULL, NULL, tl_facts_reaches_backward,
	  "the value flows into a backward or torch.autograd.grad (in its function, through local calls, or returned to callers that differentiate it)" },
	{ "mode-is", "mode", tl_mode_names, tl_pred_mode_is, NULL,
	  "the module called was last put in that mode (eval or train) before the call, following call sites; eval-in-a-context: eval, or eval under the constants some call site of its function passes (`if not train: model.eval()`); eval-on-a-path: eval in a context, or an .eval() the program makes (or a library model in eval mode) reaches the call on some path, whatever the others (a test not decided), not a .train(flag) of a flag not known" },
	{ "left-in-train-mode", NULL, NULL, NULL, tl_check_left_in_train_mode,
	  "the module called runs in the train mode training or its construction left it in: no path back to where the file builds it may switch it to eval mode (an .eval() on it, a part, an alias or an unknown module, a local helper or context manager that may, an evaluation call from another module handed it), and no .train() after the last training step chose train mode on purpose" },
	{ "mode-dependent", NULL, NULL, NULL, tl_check_mode_dependent,
	  "the module holds layers that behave differently in train and eval mode (dropout, batch norm, code reading self.training; instance norm tracking running statistics only in a file that may put a module in eval mode), as its construction in the file shows: a torch.nn layer, an nn.Sequential's layers, a local module class, a torchvision.models / timm model" },
	{ "pass-lacks", "event", tl_event_names, tl_pred_pass_lacks, NULL,
	  "the pass around the node lacks the event: the innermost loop of its own function (its iteration, through local calls), else its function; module-level code outside loops is no pass" },
	{ "first-forward", NULL, NULL, NULL, tl_check_first_forward,
	  "the call is the first forward of its module (the same dotted callee) in its pass: the innermost loop body of its own function, else the function body" },
	{ "evaluation-pass", NULL, NULL, NULL, tl_facts_evaluation_pass,
	  "the module forward runs in an evaluation pass: a step loop (through call sites) whose pass runs no backward nor optimizer step, its result reaching no backward, in a program that trains; grad-disabled, or iterating data (a for loop over no counter, literal, batch part, tensor, module or dict items) with a model that training around it trains (not a criterion, a parameter-free module, the loop's element or a value bound to _), whatever the model's mode" },
	{ "discarded", NULL, NULL, tl_pred_discarded, NULL,
	  "the call is a whole expression statement: its value is thrown away" },
	{ "evaluates-with-grad", NULL, NULL, NULL, tl_check_eval_call_with_grad,
	  "the call of a local function runs a module forward in eval mode with gradients on, judged at this call (its constant arguments select the callee's branches), whose result nothing backpropagates, and the forward is not reported itself (another call trains through it); or the call, made from outside the class on a model in eval mode with gradients on, runs a method of the model's class (in the file or in another module) that runs the model's own forward and no backward nor optimizer step, and nothing backpropagates its result" },
	{ "leaves-eval-mode", NULL, NULL, NULL, tl_check_leaves_eval,
	  "the call (an .eval() or a local function making one) puts a trained module in eval mode inside a step loop whose iteration never switches it back to train mode" },
	{ "made-by", "kind", tl_made_names, tl_pred_made_by, NULL,
	  "the value was made, in its function, by that call (softmax, log-softmax, sigmoid, scaler-scale, exp-sum: a sum of exponentials), through names, subscripts and reshaping methods" },
	{ "model-output", "kind", tl_made_names, tl_pred_model_output, NULL,
	  "the value is the output of a model (or local function) whose every output ends in that activation: an nn.Sequential's last layer, every return of a local forward" },
	{ "carried-with-graph", NULL, NULL, tl_pred_carried_with_graph, NULL,
	  "the name bound here is carried into the next iteration of its step loop with its autograd history: never re-bound afresh nor detached in the iteration" },
	{ "graph-reused", NULL, NULL, NULL, tl_check_graph_reused,
	  "the graph the backward call differentiates may be backpropagated again: another backward or autograd.grad in the iteration, or history made before it" },
	{ "iteration-builds-model", NULL, NULL, NULL, tl_facts_iteration_builds_model,
	  "every step loop of the node builds a new model in its iteration (a module constructed and bound in the loop body): a sweep or benchmark over configurations" },
	{ "graph-carried", NULL, NULL, NULL, tl_check_graph_carried,
	  "the graph the backward call differentiates reaches into the previous iteration through a recurrent state its step loop carries without detaching it" },
	{ "stepped-params-not-reset", NULL, NULL, NULL, tl_check_step_unreset,
	  "every step loop of the optimizer step runs no gradient reset that may cover the stepped optimizer (its own, a module it updates, or one whose reach cannot be told)" },
	{ "reset-before-step", NULL, NULL, NULL, tl_check_reset_before_step,
	  "the zero_grad() call runs after a backward and before the step of an optimizer it fully covers, with no backward in between, in its loop's iteration" },
	{ "clip-before-unscale", NULL, NULL, NULL, tl_check_clip_before_unscale,
	  "the gradient clipping runs after a GradScaler-scaled backward and before the scaler's step, with no scaler.unscale_ between, in one iteration (local helpers followed)" },
};
const unsigned tl_predicate_count = sizeof tl_predicates / sizeof *tl_predicates;

bool tl_predicate_nowhere(const TlPredicateDef *def, int choice, const TlIndex *idx)
{
	/* Each answer is what the predicate's first test needs somewhere in
	 * the file (tl_pred__call: a call of idx->calls, its events). */
	if (def->fn == tl_pred_call_does)
		return choice >= 0 && tl_index_no_call_has(idx, tl_event_bits[choice], 0);
	if (def->fn == tl_pred_module_forward)
		return tl_index_no_call_has(idx, TL_EV_FORWARD, 0);
	if (def->fn == tl_pred_loss_call)
		return tl_index_no_call_has(idx, TL_EV_LOSS, 0);
	if (def->fn == tl_pred_in_loop)
		return idx->loops.size == 0;
	/* Names of the API: the calls, the imports, the words' occurrences. */
	if (def->fn == tl_pred_api)
		return choice >= 0 && choice < TL_API_COUNT && tl_facts_api_nowhere(idx, (TlApi)choice);
	/* The model's module modes (tl_facts_mode_at); a helper's forward in
	 * eval mode too (tl_check_eval_call_with_grad asks them on every path). */
	if (def->fn == tl_pred_mode_is)
		return (choice == 0 || choice == 1 || choice == 2 || choice == 3) &&
		       tl_facts_mode_nowhere(idx, choice == 1 ? TL_MODE_TRAIN : TL_MODE_EVAL);
	if (def->fact == tl_check_eval_call_with_grad)
		return tl_facts_mode_nowhere(idx, TL_MODE_EVAL);
	/* Both need the training step loop that decides
	 * (tl_facts__deciding_step_loop). */
	if (def->fact == tl_facts_kept_across_training_step || def->fact == tl_check_kept_by_callee)
		return tl_facts_no_training_loop(idx);
	if (def->fact == tl_check_leaves_eval)
		return tl_check_leaves_eval_nowhere(idx);
	if (def->fact == tl_check_updates_weights)
		return tl_check_updates_weights_nowhere(idx);
	if (def->fact == tl_check_optimizer_before_shard)
		return tl_check_optimizer_before_shard_nowhere(idx);
	if (def->fact == tl_check_clip_before_unscale)
		return tl_check_clip_before_unscale_nowhere(idx);
	return false;
}

const TlPredicateDef *tl_predicate_find(const char *name, size_t len)
{
	for (unsigned i = 0; i < tl_predicate_count; i++)
		if (strlen(tl_predicates[i].name) == len &&
		    memcmp(tl_predicates[i].name, name, len) == 0)
			return &tl_predicates[i];
	return NULL;
}

int tl_predicate_choice(const TlPredicateDef *def, const char *value)
{
	if (!def->choices)
		return -1;
	for (int i = 0; def->choices[i]; i++)
		if (strcmp(def->choices[i], value) == 0)
			return i;
	return -1;
}
