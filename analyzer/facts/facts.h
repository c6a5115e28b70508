/* The facts layer: semantic questions about values, answered from the
 * index. Is this an optimizer, a module, a graph tensor; which contexts does
 * a node run under; does a value reach a backward. These are the facts that
 * the query predicates (predicates.c) expose to rules.
 *
 * The answers live in analyzer/facts/, one file per family of facts
 * (contexts, kinds of values, what made a value, iteration events and their
 * order, mode, value flow, APIs and devices, loops and step loops, devices
 * and transfers, data loaders, distributed training, modules and wrappers,
 * resets, carried state, constants, version guards), plus build.c, which fills the index's annotations
 * once per file, and callsite.c, which says what code of a local function
 * runs at one of its calls (the branches its constant arguments select). Each file's opening comment says which questions it owns.
 * A fact may call the index and facts of its own or another family; the
 * index never calls a fact.
 *
 * Every question that follows bindings or calls does so a bounded number of
 * steps (TL_FACTS_DEPTH): enough for real code, and a guarantee that no input
 * makes the analysis recurse deeply. */
#ifndef TL_FACTS_H
#define TL_FACTS_H

#include <stdbool.h>
#include <stdint.h>

#include <tree_sitter/api.h>

#include "syntax/index.h"

#define TL_FACTS_DEPTH 16

enum { TL_GRAD_UNKNOWN = 0, TL_GRAD_OFF = 1, TL_GRAD_ON = 2 };
enum { TL_MODE_UNKNOWN = 0, TL_MODE_EVAL = 1, TL_MODE_TRAIN = 2 };
/* How far a gradient reset reaches into an optimizer's parameters. */
enum { TL_COVER_NONE = 0, TL_COVER_SOME = 1, TL_COVER_FULL = 2, TL_COVER_UNKNOWN = 3 };
/* What made a value (tl_facts_made_by, tl_facts_model_output). */
enum {
	TL_MADE_NONE = 0,
	TL_MADE_SOFTMAX,     /* softmax: probabilities */
	TL_MADE_LOG_SOFTMAX, /* log_softmax: log-probabilities */
	TL_MADE_SIGMOID,     /* sigmoid / expit */
	TL_MADE_SCALED,      /* scaler.scale(loss) of a GradScaler not disabled */
	TL_MADE_EXP_SUM,     /* torch.sum(torch.exp(x)), x.exp().sum(): a logsumexp in linear space */
};
/* The loss a call computes (tl_facts_loss_kind). */
enum {
	TL_LOSS_OTHER = 0,
	TL_LOSS_CROSS_ENTROPY, /* F.cross_entropy, nn.CrossEntropyLoss */
	TL_LOSS_NLL,           /* F.nll_loss, nn.NLLLoss */
	TL_LOSS_BCE,           /* F.binary_cross_entropy, nn.BCELoss */
	TL_LOSS_BCE_LOGITS,    /* F.binary_cross_entropy_with_logits, nn.BCEWithLogitsLoss */
};

/* True for a dotted base-class name that makes a class an nn.Module. */
bool tl_facts_is_module_class_name(const char *qname);
/* Builds the index of `root` (tl_index_build) and then the facts that the
 * index leaves to this layer: classes that are modules, context kinds,
 * call/function/loop events, step loops, accelerator use (facts/build.c).
 * Release with tl_index_release. */
void tl_facts_build(TlIndex *idx, const TlSource *src, TSNode root);
/* The same, the index keeping the nodes of `symbols` (tl_index_build_collecting). */
void tl_facts_build_collecting(TlIndex *idx, const TlSource *src, TSNode root,
			       const uint8_t *symbols);
/* The same, in the project `imports` offers (may be NULL: the file alone):
 * calls of functions and classes of the modules it imports are known
 * (facts/imports.c). */
void tl_facts_build_in(TlIndex *idx, const TlSource *src, TSNode root, const uint8_t *symbols,
		       const TlImports *imports);
/* The TL_EV_* bits of one call (what tl_facts_build records in TlCall.events). */
uint32_t tl_facts_call_events(const TlIndex *idx, const TlCall *c);
/* The TL_CTX_* bits that a `with` item value or a decorator opens. */
uint32_t tl_facts_context_kind(const TlIndex *idx, TSNode expr);

/* Grad mode of `node` from its own function only: enclosing with blocks
 * (`with` = innermost with index), earlier `torch.set_grad_enabled(...)`
 * statements, the function's decorators. TL_GRAD_UNKNOWN if none says. */
int tl_facts_local_grad(const TlIndex *idx, TSNode node, int32_t func, int32_t with);
/* Same, and when the function says nothing, its call sites (principle 2). */
int tl_facts_grad_state(const TlIndex *idx, TSNode node);
/* True when `node` runs under a context of kind `ctx` (TL_CTX_GRAD_OFF or
 * TL_CTX_AUTOCAST, the latter with TL_CTX_NOT_CPU for autocast regions not
 * on the CPU): an enclosing with block, a decorator, or every call site of
 * its function. */
bool tl_facts_under(const TlIndex *idx, TSNode node, uint32_t ctx);
/* True for `torch.float16` / `torch.half` (import-resolved). */
bool tl_facts_is_half_dtype(const TlIndex *idx, TSNode expr);

/* Kinds of values, by what the code binds first (`opt = torch.optim.AdamW(...)`,
 * an imported class handed a model's parameters and stepped after a
 * backward); a value made by another framework (paddle, tensorflow, jax, ...)
 * is never one. Names (`optimizer`, `scaler`) and module methods (`.eval()`,
 * `.parameters()`) hint only in a file that imports PyTorch or a library
 * built on it (TlIndex.torch_ecosystem). */
bool tl_facts_is_optimizer(const TlIndex *idx, TSNode expr);
bool tl_facts_is_scaler(const TlIndex *idx, TSNode expr);
bool tl_facts_is_module(const TlIndex *idx, TSNode expr);
/* True when `node` is in a method of a class of the file that stands in
 * for a GradScaler (not an nn.Module, defines `step` and `scale`, `update`
 * or `unscale_`, or is named like a scaler): a no-op scaler used when AMP
 * is off, whose `optimizer.step()` implements `scaler.step(optimizer)`. */
bool tl_facts_in_scaler_class(const TlIndex *idx, TSNode node);
/* A parameter or buffer of a module: a target of iterating m.parameters() /
 * m.buffers() (also through list()/filter()), the tensor of a
 * named_parameters() / named_buffers() pair, an nn.Parameter(...) bound in
 * the file, or the .weight / .bias of a known module (facts/kinds.c). */
bool tl_facts_is_parameter(const TlIndex *idx, TSNode expr);
bool tl_facts_is_loss_call(const TlIndex *idx, const TlCall *c);
bool tl_facts_is_forward(const TlIndex *idx, const TlCall *c);
/* A value that carries autograd history (RULES.md, "graph tensor"). */
bool tl_facts_is_graph(const TlIndex *idx, TSNode expr);
/* A container (dict, list, tuple) that holds a graph tensor: a literal
 * with one, a container one is stored into, a value whose element a
 * backward consumes (`out["loss"].backward()`), through names
 * (facts/containers.c). */
bool tl_facts_holds_graph(const TlIndex *idx, TSNode expr);

/* What made the value of `expr`, in its own function: TL_MADE_* of the
 * call whose result it holds, following names, parentheses, subscripts and
 * reshaping methods (`.view`, `.to`, ...) back to an explicit activation
 * (`F.softmax(x)`, `x.sigmoid()`, `torch.log_softmax(x)`, an `nn.Softmax`
 * module called in the function, `torch.exp` of a log-softmax) or to
 * `scaler.scale(loss)`; for a parameter, what every caller passes. */
int tl_facts_made_by(const TlIndex *idx, TSNode expr);
/* When `expr` holds the output of a model forward (or of a local function),
 * the activation every output of it ends in: the last layer of an
 * nn.Sequential, or what every return of a local module's forward ends in.
 * TL_MADE_NONE for explicit activations (see tl_facts_made_by). */
int tl_facts_model_output(const TlIndex *idx, TSNode expr);
/* The loss a loss call computes: TL_LOSS_*. */
int tl_facts_loss_kind(const TlIndex *idx, const TlCall *c);
/* The identifiers whose torch.nn names make a loss of `kind` (cross_entropy,
 * CrossEntropyLoss), into out[0..cap) (static strings); returns how many.
 * Every kind tl_facts_loss_kind gives other than TL_LOSS_OTHER comes from
 * such a name resolved in the file (through criteria, factories and
 * parameters), so the file holds one of them as a whole identifier. */
size_t tl_facts_loss_kind_words(int kind, const char **out, size_t cap);

/* The train/eval mode of the module named `recv` ("model", "self.net") at
 * `node`: the last `.eval()` / `.train()` on it before `node` in the same
 * function, else what every call site of the function says. */
int tl_facts_mode_at(const TlIndex *idx, TSNode node, const char *recv);
/* True when the module named `recv` may be in eval mode at `node` because
 * a switch the program makes reaches it on some path (`if flag:
 * m.eval()`), or tl_facts_mode_at answers eval (TL102: a forward after
 * `.eval()`); a flag whose value is not known is not such a switch. */
bool tl_facts_eval_on_a_path(const TlIndex *idx, TSNode node, const char *recv);
/* True when the module named `recv` at `node` is in eval mode under the
 * constants some call site of its function passes (a mode a test of the
 * function's parameters decides, `if not train: model.eval()`), that
 * context reaching `node` (model/modes.c, tl_model_mode_eval_in_context). */
bool tl_facts_mode_eval_in_context(const TlIndex *idx, TSNode node, const char *recv);
/* True when tl_facts_mode_at answers `mode` (TL_MODE_EVAL or TL_MODE_TRAIN)
 * nowhere in the file: no call of it switches a module to that mode, nor
 * takes a mode flag (`.train(flag)`); every answer of that mode starts at
 * such a call. */
bool tl_facts_mode_nowhere(const TlIndex *idx, int mode);
/* The name whose mode forward call `call` depends on (for tl_facts_mode_at):
 * `model` for model(x), the receiver of model.forward(x), `self.model["gen"]`
 * for an element of a container of modules. Caller frees; NULL if none. */
char *tl_facts_mode_subject(const TlIndex *idx, TSNode call);


/* True when the value of `expr` (a name, or the result of the expression
 * whose assignment contains it) may flow into a backward: in its function,
 * through local functions it is passed to, or by being returned to callers
 * that backpropagate it or that the file does not show (precision first:
 * an unknown caller may). */
bool tl_facts_reaches_backward(const TlIndex *idx, TSNode expr);


/* --- Speed, precision and safety facts ----------------------------------- */

/* Kinds of API, recognised by their import-resolved dotted names. */
typedef enum TlApi {
	TL_API_TENSOR_FACTORY,   /* torch.zeros/ones/empty/full/rand/randn/randint/arange/linspace/eye */
	TL_API_RANDOM_FACTORY,   /* torch.rand/randn/randint: factories that fill with random numbers */
	TL_API_TENSOR_FROM_DATA, /* torch.tensor, torch.as_tensor, torch.from_numpy */
	TL_API_DEPRECATED_AMP,   /* torch.cuda.amp.{autocast,GradScaler,custom_fwd,custom_bwd}, torch.cpu.amp.* */
	TL_API_CPU_AMP,          /* torch.cpu.amp.{autocast,GradScaler}: the deprecated CPU ones */
	TL_API_TORCH_LOAD,       /* torch.load */
	TL_API_HUB_LOAD,         /* torch.hub.load_state_dict_from_url, torch.utils.model_zoo.load_url */
	TL_API_ACTIVATION_CHECKPOINT, /* torch.utils.checkpoint.checkpoint / checkpoint_sequential */
	TL_API_EMPTY_CACHE,      /* torch.cuda.empty_cache (and the mps / xpu ones) */
	TL_API_DATA_LOADER,      /* torch.utils.data.DataLoader */
	TL_API_LOG,              /* torch.log */
	TL_API_SOFTMAX_FUNCTION, /* torch.nn.functional.softmax / log_softmax / softmin */
	TL_API_SOFTMAX_MODULE,   /* torch.nn.Softmax / LogSoftmax / Softmin (not Softmax2d) */
	TL_API_FUNCTIONAL_DROPOUT, /* torch.nn.functional.dropout, dropout1d/2d/3d, alpha_dropout,
				    * feature_alpha_dropout */
	TL_API_DROPOUT_MODULE,   /* torch.nn.Dropout, Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout */
	TL_API_ANOMALY_MODE,     /* torch.autograd.set_detect_anomaly / detect_anomaly */
	TL_API_TORCH_SAVE,       /* torch.save */
	TL_API_OUT_OF_PLACE,     /* torch functions with an in-place twin or a view: torch.clamp, torch.unsqueeze, ... */
	TL_API_COUNT
} TlApi;

/* Module wrappers that change how gradients are synchronised. */
/* TL_WRAP_PREFIXED: the wrappers whose state_dict() prefixes every key
 * (DistributedDataParallel and DataParallel: `module.`; torch.compile:
 * `_orig_mod.`). */
/* TL_WRAP_DATA_PARALLEL: DistributedDataParallel or DataParallel (prefix
 * `module.`); TL_WRAP_COMPILED: torch.compile (prefix `_orig_mod.`). */
typedef enum TlWrapper {
	TL_WRAP_DDP, TL_WRAP_FSDP, TL_WRAP_PREFIXED, TL_WRAP_DATA_PARALLEL, TL_WRAP_COMPILED
} TlWrapper;

/* True when `node` is a call whose callee, or a reference (a decorator
 * without parentheses) that, resolves to an API of kind `api`. */
bool tl_facts_is_api(const TlIndex *idx, TSNode node, TlApi api);
/* The last parts of the dotted names of kind `api` ("empty_cache" for
 * torch.cuda.empty_cache), each once, into out[0..cap) (static strings);
 * returns how many. A qualified name is built from the file's own
 * identifiers (the callee's attribute chain, an import, an assignment), so
 * a file where tl_facts_is_api(..., api) holds anywhere holds one of these
 * as a whole identifier. */
size_t tl_facts_api_words(TlApi api, const char **out, size_t cap);
/* True when tl_facts_is_api(idx, node, api) holds of no node of the file:
 * no call's qualified callee and no import is of the API, and each of its
 * words (tl_facts_api_words) occurs in the code (outside plain strings and
 * comments) only as the last identifier of a call's callee. False when it
 * may hold somewhere. */
bool tl_facts_api_nowhere(const TlIndex *idx, TlApi api);
/* True when call `call` passes keyword `name`, or a `**mapping` that may. */
bool tl_facts_passes_keyword(const TlIndex *idx, TSNode call, const char *name);
/* The value call `call` passes for parameter `name` of the torch API it
 * calls: the keyword argument, else the positional argument at that
 * parameter's place in the API's signature (softmax, dropout,
 * DistributedSampler, BatchSampler, DataLoader; facts/api.c). Null when
 * not passed, when the callee's signature is not known, or when only a
 * `*args` / `**kwargs` could pass it. */
TSNode tl_facts_argument(const TlIndex *idx, TSNode call, const char *name);
/* True when call `call` passes parameter `name` (tl_facts_argument), or a
 * `*args` reaching its place or a `**kwargs` may. */
bool tl_facts_passes_argument(const TlIndex *idx, TSNode call, const char *name);
/* True when `expr` names an accelerator device: "cuda" / "cuda:1" / "mps",
 * torch.device of one (or of a computed kind), `x.device`, a device index,
 * or a name bound to one or called like one (`device`, `local_rank`). A
 * literal "cpu" is not one. */
bool tl_facts_is_device(const TlIndex *idx, TSNode expr);
/* True for `x.cuda(...)` and `x.to(<device>, ...)` / `x.to(device=...)`. */
bool tl_facts_moves_to_device(const TlIndex *idx, TSNode call);

/* The literal `expr` always holds (True, False, None, a number, `-1e9`, a
 * string): itself, or the value of a name bound exactly once in its scope
 * by a plain assignment (`flag = False`), followed a bounded number of
 * names. Null otherwise: parameters, names bound twice, computed values
 * (facts/constants.c). */
TSNode tl_facts_literal(const TlIndex *idx, TSNode expr);
/* True when `expr` is a constant number (a literal, `-literal`,
 * `float("1e10")`, or a name bound once to one); stores it in `*out`. */
bool tl_facts_number(const TlIndex *idx, TSNode expr, double *out);

/* True when `node` runs only on a PyTorch older than the target version
 * (TlIndex.torch_version): in the fallback branch of a version guard
 * (the `else` of `if version.parse(torch.__version__) >= ...` or of
 * `hasattr(torch, ...)`, the body of `if TORCH_LT_2_4:`, the `else` part
 * of `A if TORCH_GE_2_4 else B`, an `except ImportError / AttributeError /
 * TypeError:` clause), at any depth; a guard on a version newer than the
 * target does not count (facts/versions.c). */
bool tl_facts_old_torch_only(const TlIndex *idx, TSNode node);

/* Step-loop membership (RULES.md, "step loop"): true when the innermost
 * step loop around `node` is of one of `kinds` (TL_STEP_*): in the loops of
 * its own function, or else through the call sites of its function. With
 * `per_step`, only along a path with no every-N-steps guard (see
 * tl_facts_under_every_n) between `node` and that loop. */
bool tl_facts_in_step_loop(const TlIndex *idx, TSNode node, uint32_t kinds, bool per_step);
/* True when `node` sits, in its own function, in the body of an `if` (or
 * `elif`) whose condition holds only every N steps (`step % N == 0`,
 * `(i + 1) % accum == 0 and is_main`, `not it % N`, `last or i % N == 0`,
 * `accelerator.sync_gradients`, `should_log(step)`, or a name bound to one
 * of these), after an early exit that skips the other steps
 * (`if step % N != 0: continue`), or in an `except` clause (it runs when a
 * step fails). */
bool tl_facts_under_every_n(const TlIndex *idx, TSNode node);
/* True when `node` is in test code: a function (or one around it) named
 * `test...`, or a method of a class named `Test...`. */
bool tl_facts_in_test_code(const TlIndex *idx, TSNode node);
/* True when the value of the expression statement around `node` may be
 * shown rather than thrown away: a statement at the top level of a
 * notebook, which Jupyter displays when it ends its cell (the cells are
 * one program here, so every top-level statement counts). */
bool tl_facts_displayed(const TlIndex *idx, TSNode node);
/* True when every name `expr` reads holds the same object, unchanged, in
 * every iteration of the loop around it (through call sites when it is in
 * none in its own function): not re-bound by or in the loop, not stored
 * into, not changed in place, not passed as `out=`; and `expr` calls
 * nothing that varies by itself (random numbers, next()). */
bool tl_facts_loop_invariant(const TlIndex *idx, TSNode expr);


/* A known tensor (RULES.md definitions), also through tensor methods,
 * arithmetic and indexing on one, and names bound to one. */
bool tl_facts_is_tensor(const TlIndex *idx, TSNode expr);
/* A tensor factory made on the host (no `device=`, or "cpu"), also inside
 * `Variable(...)` or behind host-side casts and fills (`.float()`,
 * `.normal_()`). */
bool tl_facts_host_factory(const TlIndex *idx, TSNode expr);

/* True when some DataLoader that `expr`'s batches come from (or `expr`, a
 * DataLoader(...) call itself) sets `option` (by keyword or position) to
 * anything but a literal False / None / 0, or may set it through
 * `**kwargs`. */
bool tl_facts_loader_option(const TlIndex *idx, TSNode expr, const char *option);


/* True when `expr` is the module a wrapper of `kind` holds, bypassing the
 * wrapper: `ddp.module` (`self.model.module`, a parameter every caller
 * passes a wrapped model) or a name bound to it (`inner = ddp.module`). */
bool tl_facts_wrapped_module(const TlIndex *idx, TSNode expr, TlWrapper kind);
/* True when no single run reaches both `a` and `b`: one runs under an if
 * condition that the other runs under the opposite outcome of (the same
 * text: `if ddp:` ... `else:`; also after `if C: return`)
 * (facts/branches.c). */
bool tl_facts_exclusive_paths(const TlIndex *idx, TSNode a, TSNode b);

/* The dotted name a store writes through: `history["loss"]` -> "history",
 * `self.losses` -> "self.losses". Caller frees; NULL if none. */
char *tl_facts_root_name(const TlIndex *idx, TSNode expr);
/* True when the stored-to object of `expr` survives the iterations of a
 * training step loop around it (one whose iteration runs a backward or an
 * optimizer step, directly or through the functions it calls): that loop
 * and every loop between it and `expr` carry it, as for
 * tl_facts_outlives_iteration. What such a container holds outlives every
 * training step (TL101). */
bool tl_facts_kept_across_training_step(const TlIndex *idx, TSNode expr);
/* True when no loop of the file is a training step loop (TL_STEP_TRAIN):
 * tl_facts_kept_across_training_step then holds nowhere (the loop that
 * decides is one). */
bool tl_facts_no_training_loop(const TlIndex *idx);
/* True when `container` is a name bound once to a library container whose
 * stores detach what they are handed (MONAI's CumulativeAverage): it keeps
 * no graph (facts/containers.c). */
bool tl_facts_detaching_container(const TlIndex *idx, TSNode container);
/* False when a store into `container` (`c[i] = v`, `c[0] += v`) keeps no
 * autograd history of what it stores: the container is a tensor (the
 * store copies values into it) and the store runs with gradients off. True
 * otherwise (a list keeps the tensor object, graph and all). Reads the
 * model's kind of the container. */
bool tl_facts_store_keeps_graph(const TlIndex *idx, TSNode container);

/* True when `container`, stored into in a loop, is a local of a model's
 * own computation: no loop around it in its function runs a backward or an
 * optimizer step, the container is no `self.` state, and either the loop is
 * in a method of a model class (or in a helper only such methods call), or
 * no loop around it runs a forward either and the function binds the
 * container itself (a criterion summing per-level terms). Tiles, chunks or
 * terms collected there make the function's result; nothing is kept across
 * training steps (facts/loops.c). */
bool tl_facts_model_computation(const TlIndex *idx, TSNode container);

/* The step loops of `node`: the innermost loop of its function whose
 * iteration runs a backward (but not a loop whose body always exits at its
 * end: a retry loop, a loop that runs once), or, when there is none, the
 * step loops of its function's call sites. Returns how many were found, and in *missing how
 * many of them lack every bit of `events` in their iteration. */
uint32_t tl_facts_step_loops(const TlIndex *idx, TSNode node, uint32_t events,
			    uint32_t *missing);

/* True when every step loop of `node` builds a new model in its
 * iteration (a module constructed in the loop body and bound there): a
 * sweep over configurations, a benchmark per model size, where each
 * iteration is a one-off rather than a hot step (facts/modules.c). */
bool tl_facts_iteration_builds_model(const TlIndex *idx, TSNode node);


/* True when `expr` is a name the innermost loop around it binds as its
 * target (`for opt in optimizers: scaler.step(opt)`): each iteration holds
 * another element (facts/loops.c). */
bool tl_facts_loop_element(const TlIndex *idx, TSNode expr);


/* True when the pass around `node` runs none of `events` (TL_EV_*): the
 * innermost loop of its own function (its iteration, through the local
 * functions it calls), or, outside loops, its function (with everything it
 * reaches). Module-level code outside loops is no pass (false). */
bool tl_facts_pass_lacks(const TlIndex *idx, TSNode node, uint32_t events);
/* True when module forward `call` runs in an evaluation pass (RULES.md,
 * "Evaluation pass"): it runs in a step loop (through call sites) whose
 * pass runs no backward nor optimizer step, its result reaches no
 * backward, the program trains, and either it runs grad-disabled or the
 * pass iterates data (a for loop over no counter, literal, batch part,
 * tensor, module or dict items; a function-level pass, a loop that trains
 * nothing) and runs a model that training around it trains, whatever the
 * model's mode (facts/evalpass.c). */
bool tl_facts_evaluation_pass(const TlIndex *idx, TSNode call);
/* True when module forward `call` runs in a pass of one batch inside a
 * training iteration: the outermost `if` of its step loop's body that
 * holds it draws a batch from data with `next(...)` before it, binds the
 * forward's arguments from that batch, and runs no backward nor optimizer
 * step (facts/evalpass.c); `block` gets that `if` statement. */
bool tl_facts_batch_pass(const TlIndex *idx, TSNode call, TSNode *block);


#endif
