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

/* False when module forward `call` records no autograd graph: its module
 * holds no parameters (a torch.nn layer without any, `nn.Dropout(0.5)`;
 * a class of the project whose methods bind none, `DropPath(0.1)`) and
 * every input requires no grad (a tensor a torch factory made here
 * without requires_grad, a literal). True when either cannot be told. */
bool tl_check_forward_records_graph(const TlIndex *idx, TSNode call);

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

/* ---- TL204 scaler-step-without-update (TL204.c) -------------------------- */

/* True when a loop around a step loop of `node` (in the same function, or
 * around the calls of its function) runs one of `events` in its iteration:
 * `scaler.update()` once per epoch around a batch loop that steps. */
bool tl_check_outer_loop_has(const TlIndex *idx, TSNode node, uint32_t events);

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

/* ---- TL213 ddp-module-bypassed (TL213.c) --------------------------------- */

/* True when the training around `node` updates weights: a loop around it
 * (any depth) steps an optimizer in its iteration, or its function does
 * (through the local functions it calls), or that holds around a call
 * site of its function. A backward whose gradients nothing applies (a
 * test comparing gradients, a probe) updates none. */
bool tl_check_updates_weights(const TlIndex *idx, TSNode node);

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

/* ---- TL218 fsdp-optimizer-before-wrap (TL218.c) -------------------------- */

/* True when `ctor`, an optimizer construction over a module's parameters
 * (`AdamW(model.parameters())`, parameter groups), is followed in the same
 * function by a wrapper that replaces that module's parameters by sharded
 * ones (FullyShardedDataParallel(model), torch's or fairscale's, or
 * fully_shard(model)), and no optimizer is built (nor accelerate's
 * prepare called) after the wrap: the optimizer holds parameters the
 * wrapped model no longer uses. */
bool tl_check_optimizer_before_shard(const TlIndex *idx, TSNode ctor);

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

/* ---- TL307 allocation-in-loop (TL307.c) ---------------------------------- */

/* True when the value of `expr` (a call) is not kept past the iteration of
 * its loop (or past its helper function's call): used directly, or bound
 * to a name that is not appended, stored into an attribute or element,
 * returned or yielded. */
bool tl_check_dies_in_iteration(const TlIndex *idx, TSNode expr);

/* ---- TL309 anomaly-detection-enabled (TL309.c) --------------------------- */

/* True when a step loop of `kinds` (TL_STEP_*) runs inside the region
 * `node` opens: the body of a with statement, or, for any other statement,
 * the rest of its function (at module level: every step loop of the file,
 * since a switch set there holds for the whole run); a step loop of its
 * own or of a local function called there (depth-bounded). */
bool tl_check_encloses_step_loop(const TlIndex *idx, TSNode node, uint32_t kinds);

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
