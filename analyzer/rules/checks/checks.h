/* Rule logic: the questions that serve one rule only, each in a file of
 * that rule's own (analyzer/rules/checks/TLnnn.c), beside the rule's query
 * (queries/TLnnn-*.scm) that asks them through the predicate table
 * (rules/predicates.c). They read the facts layer and the semantic model;
 * neither of those calls them (tests/check-layers.py checks both, and that
 * every predicate a file's functions answer is used by that rule's queries
 * only). A question a second rule comes to need moves back to the facts
 * layer, where the meaning several rules share lives.
 *
 * Each function is named tl_check_<what it asks>; its file says which rule
 * it serves. */
#ifndef TL_CHECKS_H
#define TL_CHECKS_H

#include <stdbool.h>

#include <tree_sitter/api.h>

#include "facts/facts.h"
#include "syntax/index.h"

/* ---- TL101 loss-accumulated-with-graph (TL101.c) ------------------------- */

/* True when `arg` is an argument of a method call on an object that
 * outlives a training step loop around the call (`meter.update(loss)`),
 * and the method (of a helper class that is no module, in this file or
 * another module of the project) adds the parameter it is passed for to
 * `self` state outside any loop of its own (`self.sum += val * n`,
 * `self.history.append(val)`), which no backward reads: each call keeps
 * what it is handed for as long as the object lives. */
bool tl_check_kept_by_callee(const TlIndex *idx, TSNode arg);

/* ---- TL102 eval-without-no-grad (TL102.c) -------------------------------- */

/* Some run reaches `node` as the model interprets its function (model
 * tl_model_unreached): not in a branch a constant decides against, not
 * after a return; true where the model does not know. */
bool tl_check_reached(const TlIndex *idx, TSNode node);

/* False when module forward `call` records no autograd graph: its module
 * holds no parameters (a torch.nn layer without any, `nn.Dropout(0.5)`;
 * a class of the project whose methods bind none, `DropPath(0.1)`) and
 * every input requires no grad (a tensor a torch factory made here
 * without requires_grad, a literal). True when either cannot be told. */
bool tl_check_forward_records_graph(const TlIndex *idx, TSNode call);

/* True when `call`, a call of a local function, runs a module forward in
 * eval mode with gradient tracking on and nothing backpropagates its result
 * when this call runs it: the call is on an evaluation path (nothing
 * backpropagates what it returns) and not grad-disabled (nor all the calls
 * of its own function), the forward is not under a grad-disabled block or
 * decorator of the callee, the callee code this call runs holds it (its
 * constant arguments decide `if train:` tests), the module's mode there is
 * eval as this call's caller leaves it (or the callee sets), and no
 * backward this call runs, nor the caller's use of the result, reaches it.
 * A method of an nn.Module class, or any class's forward(), is no such
 * helper (it is the model). False when the forward itself is reported (every caller agrees on eval
 * mode and nothing backpropagates it): RULES.md TL102 reports a helper the
 * training step also uses at its call on the evaluation path. Also true
 * for a call of a method of the model's class that runs its forward
 * (tl_check__method_forward) on a receiver in eval mode, not grad-disabled,
 * whose result nothing backpropagates. */
bool tl_check_eval_call_with_grad(const TlIndex *idx, TSNode call);

/* ---- TL103 hidden-state-not-detached (TL103.c) --------------------------- */

enum { TL_CARRY_NONE = 0, TL_CARRY_DETACHED = 1, TL_CARRY_ATTACHED = 2 };

/* For `target`, a name bound by an assignment (`h` in `out, h = rnn(x, h)`)
 * inside a step loop, answered from the semantic model (tl_model_carried):
 * TL_CARRY_ATTACHED when the loop carries it into the next iteration with
 * its autograd history (read before any store, stored into, what it hands
 * on and what the statement's call reads have history: `h = h.to(dev)`
 * keeps it), TL_CARRY_DETACHED when a store in the iteration gives it no
 * history (`h.detach()`, `.data`, `detach_()`, a helper or a forward that
 * detaches it), TL_CARRY_NONE when it is not carried (made afresh before
 * it is read), the assignment runs grad-disabled or in no step loop. */
int tl_check_carried_state(const TlIndex *idx, TSNode target);

/* ---- TL104 retain-graph-in-loop (TL104.c) -------------------------------- */

/* True when the graph that backward call `call` differentiates may be
 * backpropagated again: another backward or torch.autograd.grad runs in an
 * iteration of its step loop, or its input depends on autograd history made
 * before the iteration (a forward outside an inner loop, a parameter a
 * caller passes a graph tensor in, a list of losses). */
bool tl_check_graph_reused(const TlIndex *idx, TSNode call);

/* True when the graph that backward call `call` differentiates reaches
 * back, through a recurrent state its step loop carries without detaching
 * it (`out, h = rnn(x, h)`), into the previous iteration: the fix is to
 * detach the state (TL103), not only to drop retain_graph. */
bool tl_check_graph_carried(const TlIndex *idx, TSNode call);

/* ---- TL105 distributed-load-without-map-location (TL105.c) --------------- */

/* True when `node` runs only in the process of rank 0: under a condition
 * that says so (`rank == 0`, `dist.get_rank() == 0`, `local_rank in (-1,
 * 0)`, `not rank`, `is_main_process()`, `accelerator.is_main_process`,
 * `trainer.is_global_zero`, also as one side of `and`; the else of `rank
 * != 0`; after `if rank != 0: return`), or in a function every call of
 * which does. */
bool tl_check_rank_zero_only(const TlIndex *idx, TSNode node);

/* True when `call`, a torch.load, returns an object that reaches a
 * load_state_dict(...) call of something whose state may hold tensors (a
 * model's, an optimizer's; not a scheduler's or a GradScaler's) as its
 * first argument or state_dict= (the semantic model's flow graph,
 * model/flow.c): the object, a copy, or what is read out of it
 * (`ckpt["model"]`, `.get()`, `.pop()`, the entries of `.items()` re-keyed
 * in a comprehension or a loop), through bindings, conditionals and the
 * returns of the module's functions to their calls. */
bool tl_check_load_feeds_state(const TlIndex *idx, TSNode call);

/* True when `call` sits in one arm of an if / else or of a conditional
 * expression whose other arm calls the same callee (as written) passing
 * parameter `param` (as tl_facts_passes_argument): the author chose the
 * argument per branch (`torch.load(p)` where the other branch passes
 * `map_location`). */
bool tl_check_other_arm_passes(const TlIndex *idx, TSNode call, const char *param);

/* True when `call`, a torch.load, reads a path (the same expression text)
 * that a torch.save of the same file writes with its values moved to the
 * host (`.cpu()`, `.to("cpu")`, in the saved expression or the value of a
 * name it holds): those tensors load on the CPU. */
bool tl_check_loads_host_copy(const TlIndex *idx, TSNode call);

/* True when the file runs distributed training: it calls
 * torch.distributed's init_process_group, wraps a module in
 * DistributedDataParallel or FSDP (also fully_shard), or reads the
 * launcher's local rank (a "LOCAL_RANK" / "--local_rank" string indexed or
 * passed: os.environ["LOCAL_RANK"], add_argument("--local_rank")). */
bool tl_check_distributed_file(const TlIndex *idx);

/* ---- TL106 tensor-kept-with-graph (TL106.c) ------------------------------ */

/* True when the innermost loop that encloses `expr` carries the object its
 * root names (the semantic model's tl_model_carried): an iteration reads it
 * as the previous one left it, and no store in the iteration makes it
 * afresh (a store that does not read it: `buf = []`; `total += x` and
 * `losses.append(x)` keep it). False outside loops. */
bool tl_check_outlives_iteration(const TlIndex *idx, TSNode expr);

/* ---- TL201 missing-zero-grad (TL201.c) ----------------------------------- */

/* True when the optimizer step `step` runs in step loops none of whose
 * iterations resets the gradients of the optimizer it steps: every gradient
 * reset there is known to miss it (`netD.zero_grad()` for an optimizer
 * built over `netG.parameters()`). A reset whose reach cannot be told
 * counts as covering it. False outside step loops. */
bool tl_check_step_unreset(const TlIndex *idx, TSNode step);

/* ---- TL202 zero-grad-before-step (TL202.c) ------------------------------- */

/* True when the zero_grad() call `reset`, in its loop's iteration (or its
 * function), comes after a backward and before the step of an optimizer it
 * fully covers, with no backward in between, and runs whenever that step
 * does (not in a branch the step is outside of). */
bool tl_check_reset_before_step(const TlIndex *idx, TSNode reset);

/* ---- TL203 eval-mode-not-restored (TL203.c) ------------------------------ */

/* True when call `call` (an `.eval()`, or a call of a local function that
 * makes one) switches a trained module (an optimizer updates it, or the
 * file calls .train() on it) to eval mode inside the innermost loop of its
 * function whose iteration runs a backward and an optimizer step, and no
 * call in that iteration switches the module back to train mode. */
bool tl_check_leaves_eval(const TlIndex *idx, TSNode call);
/* True when tl_check_leaves_eval holds of no call of the file: no loop
 * whose iteration, as the index counts its events, backpropagates and
 * steps an optimizer. */
bool tl_check_leaves_eval_nowhere(const TlIndex *idx);

/* ---- TL204 scaler-step-without-update (TL204.c) -------------------------- */

/* True when a loop around a step loop of `node` (in the same function, or
 * around the calls of its function) runs one of `events` in its iteration:
 * `scaler.update()` once per epoch around a batch loop that steps. */
bool tl_check_outer_loop_has(const TlIndex *idx, TSNode node, uint32_t events);

/* ---- TL205 scaler-bypassed (TL205.c) ------------------------------------- */

/* True when the optimizer `expr` is bound to is scale-invariant, as its
 * constructor's import-resolved name says (Adam, AdamW, RMSprop, Adagrad,
 * Lion, their fused and 8-bit forms): a constant factor on every gradient
 * mostly cancels in its update. */
bool tl_check_optimizer_adaptive(const TlIndex *idx, TSNode expr);

/* ---- TL207 forward-called-directly (TL207.c) ----------------------------- */

/* True for a module whose forward is its public entry point, so that
 * calling `.forward()` on it skips nothing the wrapper does: a
 * DistributedDataParallel / DataParallel / FSDP wrapper (the wrapper's
 * forward does the synchronisation work) or a RemoteModule (whose forward
 * is its remote-call API). A name with no binding counts when it says so
 * ("remote", "ddp"). */
bool tl_check_is_wrapper_module(const TlIndex *idx, TSNode expr);

/* ---- TL211 requires-grad-typo (TL211.c) ---------------------------------- */

/* For the object `expr` of an assignment `expr.<flag> = value` (a
 * misspelt requires_grad): false when the value is a literal False, the
 * model knows `expr` requires no grad (a tensor a factory made without
 * requires_grad, what is computed from one; a module that holds no
 * parameters) and no nn.Parameter made of it later in its function
 * requires grad: nothing needed freezing. True otherwise. */
bool tl_check_freeze_matters(const TlIndex *idx, TSNode expr);

/* ---- TL212 evaluation-in-train-mode (TL212.c) ---------------------------- */

/* True when module forward `call` is the first call of the same module
 * (the same dotted callee) in its pass: the innermost loop body of its own
 * function, else that function's body. */
bool tl_check_first_forward(const TlIndex *idx, TSNode call);

/* True when module forward `call` runs in the train mode training (or the
 * construction) left the module in: the file shows where the module was
 * built (tl_check_mode_dependent's construction), and on no path back to it
 * (the call's function, then every call site of it, back to the function
 * that built it or a local factory / __init__ it runs) may anything switch
 * it to eval mode: no `.eval()` / `.train(False)` / `.train(flag)` on it, on
 * a part or a whole of it, on an alias or on something whose module cannot
 * be told, before the call or in a loop around both; no local function
 * (or context manager) that may; no call from another module named like
 * an evaluation that is handed it. False as well when a `.train()` on it
 * after the last training step before the call shows train mode chosen on
 * purpose (Monte Carlo dropout, a batch-norm recalibration). */
bool tl_check_left_in_train_mode(const TlIndex *idx, TSNode call);

/* True when the module `expr` holds layers that behave differently in
 * train and eval mode, as its construction shows: dropout (not with a
 * literal p=0), batch norm (not track_running_stats=False), transformer
 * layers with dropout, code reading `self.training` or calling a
 * functional dropout with `training=`, in a local module class, the local
 * classes it builds or derives from, an nn.Sequential / ModuleList (also
 * of a list built with append), or a torchvision.models / timm model
 * (facts/layers.c). False for a part reached by attribute (`model.head`)
 * and for modules whose construction cannot be told. */
bool tl_check_mode_dependent(const TlIndex *idx, TSNode expr);

/* True when call `call` is a whole expression statement: what it returns is
 * discarded (an evaluation run for its effects, its output unused). */
bool tl_check_discarded(const TlIndex *idx, TSNode call);

/* ---- TL213 ddp-module-bypassed (TL213.c) --------------------------------- */

/* True when the training around `node` updates weights: a loop around it
 * (any depth) steps an optimizer in its iteration, or its function does
 * (through the local functions it calls), or that holds around a call
 * site of its function. A backward whose gradients nothing applies (a
 * test comparing gradients, a probe) updates none. */
bool tl_check_updates_weights(const TlIndex *idx, TSNode node);
/* True when tl_check_updates_weights holds of no node of the file: no
 * call or site of it steps an optimizer, nor runs a callee that does. */
bool tl_check_updates_weights_nowhere(const TlIndex *idx);

/* ---- TL214 submodules-in-plain-container (TL214.c) ----------------------- */

/* True when `assign`, an assignment to `self.<name>` in a method of a local
 * nn.Module subclass, binds a plain Python container (a list, tuple, set or
 * dict literal, a comprehension, list()/tuple()/dict() of one, or an empty
 * one that the class or the function fills with append / extend / insert
 * / `[k] = ...`, also through a local list) holding new modules or
 * parameters: constructors of torch.nn layers with state (not activations,
 * pooling, padding or losses), of local nn.Module subclasses, or
 * nn.Parameter, also through a local name bound to one and read nowhere
 * else. False when nothing shows it unregistered: the class registers
 * attributes by hand (add_module, register_*, setattr, _modules), or the
 * container is handed to a call that may register it (nn.ModuleList(...),
 * nn.Sequential(*layers), a helper). */
bool tl_check_unregistered_submodules(const TlIndex *idx, TSNode assign);

/* ---- TL215 sampler-epoch-not-set (TL215.c) ------------------------------- */

/* True when `loop` (a for / while statement) is a training step loop that
 * an outer loop runs again and again: a loop of its own function around
 * it, or a loop around a call of its function, through callers (an epoch
 * loop around the step loop). */
bool tl_check_repeated_step_loop(const TlIndex *idx, TSNode loop);

/* True when iterable `expr` (a for loop's, through enumerate / tqdm) is
 * DataLoaders (every way it arrives is one built in the file) each drawing
 * from a shuffling torch DistributedSampler (its `sampler`, or the sampler
 * of its BatchSampler `batch_sampler`; no `shuffle`, or a literal
 * True) on which nothing in the file may call set_epoch: no `.set_epoch()`
 * call but on another DistributedSampler, and no name bound to it handed
 * to a call other than a DataLoader or BatchSampler (facts/loaders.c). */
bool tl_check_sampler_epoch_unset(const TlIndex *idx, TSNode expr);

/* ---- TL216 functional-dropout-always-on (TL216.c) ------------------------ */

/* True when call `call` passes for parameter `name` a constant that turns
 * it off: False, None or zero (written in place, or held by a name bound
 * once to it; tl_facts_literal, tl_facts_number). */
bool tl_check_argument_off(const TlIndex *idx, TSNode call, const char *name);

/* True when `node` runs in code of a local nn.Module subclass: a method of
 * the class, or a function nested in one, whose first parameter is `self`
 * (`self` is in scope there); with `reached`, also a method without `self`
 * and any local function such code calls, through its call sites. */
bool tl_check_in_module_code(const TlIndex *idx, TSNode node, bool reached);

/* True when `node` runs only in one mode, or computes from the mode, as
 * the code says: a test around it in its function (`if self.training:`,
 * `x if train else y`, `training and ...`) or, for a call, an argument
 * (directly or through a name bound to it) reads a name of the mode
 * (`self.training`, `is_train`, `deterministic`, `eval`), or its function
 * (or one it is nested in) is named for training (`training_step`,
 * `forward_train`), or a comment after it on its line says it is always
 * on (`# always applies dropout`: a stated decision) (facts/mode.c). */
bool tl_check_mode_guarded(const TlIndex *idx, TSNode node);

/* ---- TL217 softmax-implicit-dim (TL217.c) -------------------------------- */

/* True when the model knows `expr` holds a host (numpy) array on every
 * path: what `.numpy()` or a numpy factory made, through names. */
bool tl_check_is_host_array(const TlIndex *idx, TSNode expr);

/* ---- TL218 fsdp-optimizer-before-wrap (TL218.c) -------------------------- */

/* True when `ctor`, an optimizer construction over a module's parameters
 * (`AdamW(model.parameters())`, parameter groups), is followed in the same
 * function by a wrapper that replaces that module's parameters by sharded
 * ones (FullyShardedDataParallel(model), torch's or fairscale's, or
 * fully_shard(model)), and no optimizer is built (nor accelerate's
 * prepare called) after the wrap: the optimizer holds parameters the
 * wrapped model no longer uses. */
bool tl_check_optimizer_before_shard(const TlIndex *idx, TSNode ctor);
/* True when tl_check_optimizer_before_shard holds of no call of the file:
 * it calls no FSDP / fully_shard wrapper. */
bool tl_check_optimizer_before_shard_nowhere(const TlIndex *idx);

/* ---- TL302 loop-invariant-transfer (TL302.c) ----------------------------- */

/* True when transfer `call` (`.to(...)`, `.cuda()`) does not repeat one
 * move every iteration: its destination changes in its loop
 * (`scale.to(p.device)` over parameters), or the same receiver is moved
 * elsewhere in the same pass (the iteration of its loop, else its
 * function): offloading (`enc.to("cuda")` ... `enc.to("cpu")`), a device
 * restored after `model.cpu()`. */
bool tl_check_transfer_varies(const TlIndex *idx, TSNode call);

/* (Asked of tensors only: a module's `.to()` still walks its parameters.)
 * True when `.to(dest)` call `call` moves a tensor that its binding
 * already made or moved to the same device, named the same way
 * (`self.stop = torch.tensor(ids, device=self._device)`, later
 * `self.stop.to(self._device)`): it returns the tensor itself, no copy.
 * Also when `dest` is the device of a value computed in the same function
 * (`target.to(output.device)`) and the tensor is not known to be made on
 * the host: whether it copies cannot be told. */
bool tl_check_transfer_noop(const TlIndex *idx, TSNode call);

/* ---- TL303 host-round-trip-in-loop (TL303.c) ----------------------------- */

/* True when `expr` holds data a device tensor sent to the host earlier in
 * the same iteration of its loop (or, outside loops, earlier in the same
 * call of its function): `.cpu()`, `.tolist()`, or a value computed from
 * such data by operators, numpy or torch functions, builtins or its own
 * methods. A call of any other function ends the chain (new data). */
bool tl_check_host_derived(const TlIndex *idx, TSNode expr);

/* ---- TL304 sync-in-hot-loop (TL304.c) ------------------------------------ */

/* A tensor in accelerator memory: moved there (`.to(device)`, `.cuda()`),
 * made there (`device=`), or computed there (a forward or a loss, in a file
 * that uses an accelerator), also through its methods (but those that
 * bring data to the host or describe it), torch functions, arithmetic,
 * names, augmented assignments and parameters whose every call site passes
 * one. Modules and names called like functions are not tensors. */
bool tl_check_on_device(const TlIndex *idx, TSNode expr);

/* ---- TL306 non-blocking-without-pinned-memory (TL306.c) ------------------ */

/* True when every way `expr` gets its value is a batch (or an element or
 * field of one) of a DataLoader constructed in the file: a loop over it
 * (through enumerate / tqdm; not enumerate's counter), `next(iter(...))`,
 * names unpacked from one, parameters passed one. */
bool tl_check_from_loader(const TlIndex *idx, TSNode expr);

/* ---- TL307 allocation-in-loop (TL307.c) ---------------------------------- */

/* True when the value of `expr` (a call) is not kept past the iteration of
 * its loop (or past its helper function's call): used directly, or bound
 * to a name that is not appended, stored into an attribute or element,
 * returned or yielded. */
bool tl_check_dies_in_iteration(const TlIndex *idx, TSNode expr);

/* ---- TL308 dataloader-in-main-process (TL308.c) -------------------------- */

/* True when the DataLoader(...) call `call` feeds a step loop of one of
 * `kinds` (TL_STEP_*): a for loop that is one iterates it (through
 * enumerate / tqdm, names bound to it, local functions returning it,
 * parameters every caller passes it). */
bool tl_check_feeds_step_loop(const TlIndex *idx, TSNode call, uint32_t kinds);

/* True when the file puts something on an accelerator (the index's
 * TlIndex.uses_device: `.cuda()`, `.to(device)`, `device=...`,
 * `Accelerator()`). */
bool tl_check_file_uses_accelerator(const TlIndex *idx);

/* ---- TL309 anomaly-detection-enabled (TL309.c) --------------------------- */

/* True when a step loop of `kinds` (TL_STEP_*) runs inside the region
 * `node` opens: the body of a with statement, or, for any other statement,
 * the rest of its function (at module level: every step loop of the file,
 * since a switch set there holds for the whole run); a step loop of its
 * own or of a local function called there (depth-bounded). */
bool tl_check_encloses_step_loop(const TlIndex *idx, TSNode node, uint32_t kinds);

/* True when `node` sits, in its own function, under a condition: in a
 * branch of an if / elif / else, a conditional expression, or the operand
 * of `and` / `or`. */
bool tl_check_under_condition(const TlIndex *idx, TSNode node);

/* ---- TL401 loss-outside-autocast (TL401.c) ------------------------------- */

/* True when `expr` reads a module forward's output that was bound inside a
 * `with` block of kind `ctx` (TL_CTX_*) which does not enclose `expr`. */
bool tl_check_from_context(const TlIndex *idx, TSNode expr, uint32_t ctx);

/* ---- TL404 half-overflow-constant (TL404.c) ------------------------------ */

/* True when the value of `expr` was explicitly converted to float32 or
 * wider in its function (`.float()`, `.double()`, `.to(torch.float32)`),
 * followed through names, subscripts and methods that keep the dtype
 * (`.view`, `.masked_fill`, `.to(device)`): a constant written into it
 * later does not meet float16. */
bool tl_check_float32_value(const TlIndex *idx, TSNode expr);

/* True when `node` may compute in float16: it runs under a float16 autocast
 * region (TL_CTX_HALF_AUTOCAST), or its file converts a module or tensor to
 * float16 (`.half()`, torch.float16 / torch.half passed to a call). */
bool tl_check_runs_in_half(const TlIndex *idx, TSNode node);

/* ---- TL405 clip-before-unscale (TL405.c) --------------------------------- */

/* True when gradient clipping `clip` (TL_EV_GRAD_CLIP) runs, in one
 * iteration of a step loop around it (or its function's body when no step
 * loop is known), after a GradScaler-scaled backward with no
 * scaler.unscale_ between them, and before the scaler's step: it clips
 * gradients still multiplied by the loss scale. Local helpers are followed. */
bool tl_check_clip_before_unscale(const TlIndex *idx, TSNode clip);
/* True when tl_check_clip_before_unscale holds of no call of the file: no
 * call of it clips gradients. */
bool tl_check_clip_before_unscale_nowhere(const TlIndex *idx);

/* ---- TL502 ddp-accumulation-without-no-sync (TL502.c) -------------------- */

/* True for a backward that runs on iterations without an optimizer step
 * (gradient accumulation): the steps of its loop are all under an every-N
 * guard that does not hold the backward, or it is in a micro-batch loop
 * whose enclosing loop steps; through call sites for helpers. */
bool tl_check_accumulation_backward(const TlIndex *idx, TSNode call);

/* True when `node` runs with DDP gradient synchronisation off: inside
 * `with model.no_sync():` (also a conditional or aliased one, or
 * `accelerator.accumulate(...)`), in a loop that sets
 * `require_backward_grad_sync`, or only ever called from such places. */
bool tl_check_no_sync(const TlIndex *idx, TSNode node);

/* True when backward `call` differentiates a value computed by a forward
 * of a module wrapped in `kind` (or by a call that is handed it). */
bool tl_check_backward_through(const TlIndex *idx, TSNode call, TlWrapper kind);

/* ---- TL504 wrapped-state-dict-saved (TL504.c) ---------------------------- */

/* True when the object `node` evaluates to is written by torch.save (the
 * semantic model's flow graph, model/flow.c): as its first argument (or
 * obj=), or a copy with the same keys (`copy.deepcopy`, `.copy()`), or a
 * container that holds it (a literal, a store under a key, an append, a
 * spread), through bindings, conditionals and the returns of the module's
 * functions; not once its keys are rewritten (a comprehension or a loop
 * over `.items()`), nor an entry read out of it. */
bool tl_check_saved(const TlIndex *idx, TSNode node);

/* True when `expr` is itself a wrapper of `kind`: a call of the wrapper, a
 * name or attribute bound to one, a parameter every caller passes one. */
bool tl_check_wrapped_by(const TlIndex *idx, TSNode expr, TlWrapper kind);

#endif
