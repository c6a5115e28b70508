/* The semantic model: what each value is and what each function does,
 * computed once per module as data (docs/semantic-model.md).
 *
 * For one module (one TlIndex), the model interprets every function and
 * the module's own code once over the structured syntax tree: statements
 * transfer a state (the value of each access path, the grad mode),
 * branches join it, loops run to a fixpoint with widening. It keeps:
 *   - the value of every expression it evaluated (by the node's span),
 *   - each function's summary: the value it returns, as a function of
 *     its parameters (TlVal.pgraph),
 *   - each class's attributes (`self.x = ...` in any method),
 *   - the module's globals at the end of its code.
 * Functions are summarised callees first, over the strongly connected
 * components of the module's call graph (Tarjan, iterative), each
 * component to a fixpoint (widened after TL_MODEL_COMPONENT_ROUNDS).
 * Calls into another module of the project read that module's model,
 * built on demand through the project (TlIndex.imports) and kept with its
 * index, so the command line and the language server share it.
 *
 * The model reads the index and the API table (apitable.h); of the event
 * bits the facts layer writes into the index (TlCall.events) it reads only
 * those the syntax decides (a backward, a detach_()): forwards, losses and
 * optimizer steps it classifies itself (seeds.c). It calls nothing of the
 * facts layer: facts call the model, never the reverse.
 *
 * Owns: TlModel, tl_model_of, the lookups below, `torchlint debug model`'s
 * printing of values (tl_model_describe). */
#ifndef TL_MODEL_MODEL_H
#define TL_MODEL_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include <tree_sitter/api.h>

#include "base/buf.h"
#include "model/value.h"
#include "syntax/index.h"

/* The model's bounds, in one place, counted in steps (docs/semantic-model.md,
 * "Bounds"). Paths: TL_PATH_SELECTORS (path.h); containers: TL_VAL_PARTS and
 * TL_VAL_NEST (value.h). */
#define TL_MODEL_LOOP_ROUNDS 3      /* rounds of a loop body before widening */
#define TL_MODEL_COMPONENT_ROUNDS 8 /* rounds of a call-graph component before widening */
#define TL_MODEL_MODULE_NEST 8      /* modules whose models are being built at once */
#define TL_MODEL_CONTEXTS 4         /* constant contexts of a function (sitectx.c) */
#define TL_MODEL_CONTEXT_RUNS 64    /* context summaries of one question (sitectx.c) */
#define TL_MODEL_TEST_TERMS 16      /* `not`, `and`, `or` nested in a test a context decides (sitectx.c) */
#define TL_MODEL_RECEIVER_STEPS 8   /* bindings a receiver's class is read through (callers.c) */
#define TL_MODEL_CONTEXT_ATTRS 4    /* attributes of `self` a context keeps (sitectx.c) */
#define TL_MODEL_CHAIN_STEPS 16     /* methods and subscripts followed after a forward (requiresgrad.c) */
#define TL_MODEL_BASE_DEPTH 32      /* local base classes followed up from a class (handedin.c) */

typedef struct TlModel TlModel;

/* The model of the module of `idx`, built on first use and kept with the
 * index (released with it). For the index of another module of the
 * project, call it between its imports' enter() and leave(). NULL only
 * when memory ran out. */
const TlModel *tl_model_of(const TlIndex *idx);

/* The value the interpreter gave expression `expr` (parentheses looked
 * through) where it evaluated it: true and *out set, or false when it did
 * not evaluate it (code no path reaches, a default argument, a decorator).
 * Containers in *out refer to the model's pool (tl_model_pool). */
bool tl_model_value(const TlIndex *idx, TSNode expr, TlVal *out);
/* True when the model of `idx` can read no other module's: each of its
 * imports names PyTorch's API, a module of PyTorch's own packages from
 * inside one, or no module of the project, and it calls no getattr(). Its
 * values then come from its own text alone. */
bool tl_model_reads_no_module(const TlIndex *idx);
const TlValPool *tl_model_pool(const TlModel *m);

/* The summary of function `func` of `idx`: the value it returns (its
 * pgraph bits name the parameters the value's graph follows). False when
 * it has none (no such function, or its module's model was cut). */
bool tl_model_returns(const TlIndex *idx, int32_t func, TlVal *out);
/* The attribute of `self` in which method `func` of `idx` keeps what its
 * parameter `param` (0: `self`) is handed, adding to what the attribute
 * held (`self.sum += val * n`, `self.history.append(val)`, a moving
 * average), outside its loops, when the value's history follows the
 * parameter; NULL when it keeps nothing of it (keeps.c). */
const char *tl_model_kept_attr(const TlIndex *idx, int32_t func, uint32_t param);
/* The parameters (bit i: parameter i < 16) of function `func` of `idx` on
 * which, or on whose sampler (`loader.sampler`,
 * `loader.batch_sampler.sampler`, a name holding one), it calls
 * `set_epoch`, itself or through a function of the project it hands them
 * to (epochs.c). */
uint16_t tl_model_epoch_params(const TlIndex *idx, int32_t func);

/* Whether constructor call `call` of a class of the project holds the
 * object its argument `arg` (a direct argument or a keyword argument's
 * value) hands over: 1 when its `__init__` reads the parameter other than
 * as the first argument of a copy (`deepcopy(model)`), 0 when it keeps at
 * most a copy, -1 when the model does not know the class or the parameter
 * (keeps.c). */
int tl_model_ctor_holds(const TlIndex *idx, TSNode call, TSNode arg);

/* The method `name` that calling it on a value of class `v` runs (a module
 * or an object of a class of the project: `v.ref` of `v.mod`, its bases
 * in the project included): its function index, its module in *where; -1
 * when `v` has no known class or the class no such method. */
int32_t tl_model_method_of(const TlVal *v, const char *name, const TlIndex **where);

/* What backward call `c` consumes: `loss` of `loss.backward()`,
 * `scaler.scale(loss).backward()`, `accelerator.backward(loss)`,
 * `torch.autograd.backward(loss)`; null for a call that is no backward. */
TSNode tl_model_backward_subject(const TlIndex *idx, const TlCall *c);

/* Loop-carried paths (carry.c). For loop `loop` (a `for` or `while`
 * statement of idx) and the access path `expr` names (a name, an
 * attribute chain, a constant subscript): 1 when a read in the loop's
 * iteration sees the value the previous iteration left (on some path: no
 * store before it on every path), with *out filled; 0 when the model ran
 * the loop and no read does; -1 when it did not run the loop (code no path
 * reaches, a loop 8 deep in its function). */
typedef struct TlCarryInfo {
	bool stored;   /* the body stores into the path itself, on some path */
	TlVal val;     /* then: its value where an iteration ends (joined with
			* its `continue`s); containers refer to the model's pool */
	bool detached; /* some store in the iteration gives it a value without
			* history: a detach, in place or through a function of the
			* project, a value made afresh or an empty container, a
			* value of a call nothing is known of */
	bool reset;    /* some store in the iteration does not read the path
			* (`buf = []`, `h = None`; not `total += x`, `h = h.to(d)`) */
} TlCarryInfo;
int tl_model_carried(const TlIndex *idx, TSNode loop, TSNode expr, TlCarryInfo *out);

/* Where the history of the value of `expr` comes from (prov.c), as seen
 * in loop `loop` (an index of idx->loops, the loop around `expr` in its
 * function; -1: none): `before`, it includes history that was in the
 * state when the loop's iteration began (made before the loop, which
 * does not store it again); `carried`, history the previous iteration
 * handed on through a path it stores into without detaching; `params`,
 * bit i: the value is computed from parameter i of its function (< 16).
 * 1 with *out filled; -1 when the model has no value for `expr` or the
 * loop is 8 deep in its function. */
typedef struct TlProvInfo {
	bool before, carried;
	uint16_t params;
	/* it holds an element read out of a container a parameter or `self`
	 * holds: kept by an earlier call (a pipeline's saved activations) */
	bool kept;
} TlProvInfo;
int tl_model_graph_from_before(const TlIndex *idx, int32_t loop, TSNode expr, TlProvInfo *out);

/* True when loop `loop` (an index of idx->loops) is a run per
 * configuration, not a step loop (fresh.c): its iteration runs its
 * backwards, optimizer steps and forwards itself (none in a function it
 * calls), and each one's receiver (`loss.backward()`, `opt.step()`) or
 * callee (`model(x)`), and every argument, is
 * known to be made in the current round from nothing that holds state
 * from before it, or to hold none (TlVal.fresh): a model, a loss object
 * and data built afresh for each configuration. False where the model
 * has no value for one of them, or the loop is 7 deep in its function;
 * 1: a run per configuration, 0: not known to be, -1: the module's
 * model is being built (not known yet), or is another module's, built
 * for its summaries only (not asked: its events decide). */
int tl_model_fresh_run(const TlIndex *idx, int32_t loop);

/* Whether loop `l` (an index of idx->loops) is a step loop (RULES.md,
 * "step loop"), TL_STEP_* or 0: a loop whose iteration runs a backward or
 * an optimizer step (TL_STEP_TRAIN), or a model's forward (TL_STEP_EVAL),
 * unless the model knows it for a run per configuration
 * (tl_model_fresh_run: every module, optimizer and tensor it steps,
 * differentiates or runs forward is made in the iteration). Asked once
 * per loop; while the module's model is being built, the loop's events
 * alone decide. */
uint32_t tl_model_loop_step(const TlIndex *idx, int32_t l);

/* Where the value of `expr` goes (flow.c): 1 when a backward (a
 * `.backward()`, `torch.autograd.grad`, a call of a function of the module
 * that reaches one) differentiates something computed from it, through
 * bindings, calls, containers, attributes of `self` and the returns of
 * the module's functions to the calls the model evaluated; 0 when none
 * does; -1 when the model has no value for `expr`. With `site` not null
 * (a call of the function holding `expr`), only what that call does with
 * the function's return is followed. Each function of the module whose
 * return the value reaches is appended to `rets` (when not NULL): its
 * callers elsewhere may differentiate it; with `backs` not NULL, every
 * backward reached is appended to it (an index of idx->calls). The whole
 * module is interpreted for the first such question. */
int tl_model_reaches_backward(const TlIndex *idx, TSNode expr, TSNode site, TlIntArray *rets,
			      TlIntArray *backs);

/* True when a call of function `func` of `idx` in another module of the
 * project (an importer: by name, or a method through an instance) leads
 * the call's result to a backward there (retback.c): what the function
 * returns is differentiated, though no backward of its own module is. */
bool tl_model_return_differentiated(const TlIndex *idx, int32_t func);

/* Loop invariance (vary.c): true when what expression `expr` reads holds
 * the same object with the same contents in every iteration of the loop
 * around it (`x.to(device)` with `device` bound before the loop), or,
 * outside the loops of its function, at every call of the function (its
 * parameters as each call site passes them): no store of the iteration
 * into a path it reads, above it (a binding) or below it, no call whose
 * result varies by itself (random numbers, `next()`, the clock), no name
 * a comprehension or lambda binds. `except` (a call, or null) is the call
 * that reads `expr`, whose change of its own receiver does not count. */
bool tl_model_loop_invariant(const TlIndex *idx, TSNode expr, TSNode except);
/* True when identifier `id` is bound by a comprehension (`for` clause) or
 * a lambda (a parameter) around it: its value changes per element. */
bool tl_model_comprehension_local(const TlIndex *idx, TSNode id);
/* True when the value expression `expr` makes is not kept past the
 * iteration of the loop around it (vary.c): not appended to a container,
 * not stored into an attribute or an element, not bound to a name the
 * iteration keeps (returns, appends, stores into an attribute or an
 * element); in a helper called per step (outside its loops), the call is
 * the iteration, and a value it returns dies where every call's does. */
bool tl_model_dies_in_iteration(const TlIndex *idx, TSNode expr);
/* Where the object `expr` evaluates to is stored (flow.c), for `what`:
 * TL_MODEL_SAVED, a `torch.save` (a row of role saves) writes it, or a
 * copy of it with the same keys (`copy.deepcopy`, `.copy()`), or a
 * container that holds it; TL_MODEL_LOADED, a `load_state_dict` (role
 * loads-state) reads it, or what is read out of it (`ckpt["model"]`,
 * `.get`, the entries of `.items()` re-keyed in a comprehension or a
 * loop). Through bindings, conditionals, containers and the returns of
 * the module's functions to the calls the model evaluated; never
 * through what is computed from it (a call of another function, an
 * operator). 1 when one is, with the index of each such call in idx->calls
 * appended to `calls` (when not NULL: then every one); 0 when none is; -1
 * when the model has no value for `expr`. The whole module is
 * interpreted for the first question. */
enum { TL_MODEL_SAVED = 1, TL_MODEL_LOADED = 2 };
int tl_model_stored(const TlIndex *idx, TSNode expr, unsigned what, TlIntArray *calls);
/* Whether some call of the file is a store of `what` (a row of role saves,
 * of role loads-state), the only calls a sink of tl_model_stored can be:
 * false says tl_model_stored finds none, without the model. */
bool tl_model_calls_store(const TlIndex *idx, unsigned what);

/* True when expression `e` names an accelerator, as written: "cuda",
 * "cuda:1", an index (`.cuda(0)`), `torch.device(...)` of one or of a
 * computed kind, `x.device`, a name bound to one of these or that says
 * it holds a device (`device`, `args.device`, `local_rank`). The model's
 * `.to(e)` reads it where e's value does not say. */
bool tl_model_names_device(const TlIndex *idx, TSNode e);

/* The kinds of wrapper (TL_VW_* of value.h) a call of import-resolved
 * name `qname` makes: the sets of its table row of role wrapper (the row
 * of the name, else its `*.` row), as the model's values of such calls
 * hold them; 0 for no wrapper of a known kind. */
unsigned tl_model_wrapper_kinds(const char *qname);

/* True when the model knows that forward call `call` (`m(x)`, `self.net(x)`,
 * `m.forward(x)`) records no autograd graph (requiresgrad.c): its module holds no
 * parameter that requires grad (a parameter-free layer, a frozen
 * embedding, an instance of a class of the module whose stores hold
 * none) and no argument requires grad. False when it may, or when the
 * model does not know. */
bool tl_model_forward_no_graph(const TlIndex *idx, TSNode call);
/* The same, three-valued: 0 records no graph (as above), 1 may record
 * one, -1 not known: an input follows the parameters of the module's
 * forward the call is in, and no call site in the project tells whether
 * what it is handed requires grad (a class a registry builds, called
 * from other code); no input may require grad otherwise. */
int tl_model_forward_graph(const TlIndex *idx, TSNode call);
/* The same of a method of the module's class called on it
 * (`fsp.indices_to_codes(i)`): the receiver is the module, the call's
 * arguments its inputs. */
int tl_model_method_graph(const TlIndex *idx, TSNode call);
/* True when call `call` makes an instance of a class of the project that
 * holds no state (holdsnone.c: no parameter, buffer or dropout; only
 * numbers, flags and parameter-free layers, and such classes): keeping it
 * unregistered loses nothing. False when it may, or is not known. */
bool tl_model_makes_stateless_module(const TlIndex *idx, TSNode call);

/* Grad mode (gradmode.c). tl_model_grad_local: the mode the statement
 * around `node` began in, in its function: disabled, the mode the
 * function was entered in, or enabled on some path; UNKNOWN where the
 * model ran no such statement (code no path reaches). tl_model_grad: the
 * same with the function's entry mode resolved: OFF where the entry is
 * disabled, ENTRY left for one that is not known to be (then neither
 * answer is disabled on every path). tl_model_grad_entry_off: every call site of
 * function `func` in the project runs grad-disabled (or its decorators
 * disable it). */
enum { TL_MODEL_GRAD_UNKNOWN = -1, TL_MODEL_GRAD_OFF = 0, TL_MODEL_GRAD_ENTRY = 1, TL_MODEL_GRAD_ON = 2 };
int tl_model_grad_local(const TlIndex *idx, TSNode node);
/* True when the interpretation of the function around `node` ran no path
 * to the statement around it: a branch a constant decides against (the
 * constant every call site passes, model/consts.c), code after a return.
 * False when it did, when a bound cut the model short, or when the model
 * does not know (module-level code, a function not interpreted). */
bool tl_model_unreached(const TlIndex *idx, TSNode node);
/* The events (TL_EV_* bits of `events`) call `c` runs (sitectx.c): its
 * own, its callee's in another module, a function it is handed, and with
 * `contexts` those of its local callee under the constant context the
 * call hands it (the constants it passes, and the attributes of `self`
 * its caller has just stored, for a method called on `self`): calls
 * under a test the context decides against do not run, through every
 * local callee under the context it is handed in turn. Without
 * `contexts`, every call of the callee, as the index's reach counts them.
 * Bounded (TL_MODEL_CONTEXTS per function, TL_MODEL_CONTEXT_RUNS in all,
 * steps of the thread's bound): past a bound, the callee's whole reach. */
uint32_t tl_model_call_events(const TlIndex *idx, const TlCall *c, uint32_t events, bool contexts);
/* Module mode (modes.c): the modes (TL_MODEL_MODE_TRAIN, _EVAL bits) the
 * module expression `subject` (`model` of `model(x)`) may be in where it
 * is evaluated, its function's entry joined over every call site in the
 * project (with `callers` false: a mode the entry decides is not known);
 * 0 when not known. */
#define TL_MODEL_MODE_TRAIN 1
#define TL_MODEL_MODE_EVAL 2
/* `callers`: TL_MODEL_CALLERS_ALL, every call site in the project;
 * TL_MODEL_CALLERS_LOCAL, the call sites in the module (a method of a
 * module class, run by the module's own code); TL_MODEL_CALLERS_NONE. */
enum { TL_MODEL_CALLERS_NONE, TL_MODEL_CALLERS_ALL, TL_MODEL_CALLERS_LOCAL };
int tl_model_mode(const TlIndex *idx, TSNode subject, int callers);
/* True when the module expression `subject` may be in eval mode where it
 * is evaluated because a switch the program makes (`m.eval()`, a library
 * model in eval mode) reaches it on some path, whatever the others (a
 * test the model does not decide: `if flag: m.eval()`), or entered in
 * eval mode at some call site (with `callers`, as tl_model_mode) while no
 * site hands it train mode and whatever the sites that cannot be told; a
 * `.train(flag)` whose flag is not known is no such switch. */
bool tl_model_mode_eval_on_a_path(const TlIndex *idx, TSNode subject, int callers);
/* tl_model_mode as call `site` (of idx, a call of subject's function) runs
 * the function: its entry the mode that call hands it (its caller's entry
 * joined over that caller's call sites in turn). */
int tl_model_mode_from(const TlIndex *idx, TSNode subject, const TlCall *site);
/* True when `subject` (a module whose mode a test of its function's
 * parameters decides, `if mode == "train": model.train() else:
 * model.eval()`) is in eval mode under the constants some call site of
 * the function passes (in the module or an importer), that site's
 * context reaching node `at` and the site not run grad-disabled. */
bool tl_model_mode_eval_in_context(const TlIndex *idx, TSNode subject, TSNode at);
/* True when no module value of `idx` can be in mode `mode` (one
 * TL_MODEL_MODE_* bit) but through a call of the file that switches a
 * module's mode (the index's mode events, which the caller asks): for
 * eval mode, no call of the file is of the API table's set eval-mode
 * (`from_pretrained`), and no other module of the project can hand the
 * file a module (the file is analysed alone, or is a module of PyTorch's
 * own packages, whose importers are not read). Train mode: false (a
 * module the code builds is in train mode). Asked before the model is
 * built (modes.c). */
bool tl_model_mode_nowhere(const TlIndex *idx, int mode);
int tl_model_grad(const TlIndex *idx, TSNode node);
bool tl_model_grad_entry_off(const TlIndex *idx, int32_t func);
/* Training runs around function `func` (-1: the module's code) (trains.c):
 * it, a method of its class, or code around one of its call sites in the
 * project (the module's, its importers') backpropagates or steps. */
bool tl_model_trains_around(const TlIndex *idx, int32_t func);
/* A loop runs around function `func` (trains.c): one of its call sites in
 * the project (the module's, its importers') is inside a loop, or in a
 * function a loop runs around. */
bool tl_model_loop_around(const TlIndex *idx, int32_t func);
/* What parameter binding `param` of `idx` is bound to over every call site
 * in the project (handedin.c): the module's own and its importers'
 * (model/callers.c), a parameter handed on from the function around a call
 * followed to that function's call sites in turn. *args gets the
 * expressions left, each with its module (*n of them, kept in the model);
 * false when that is not known: a function on the way escapes, has no
 * call site or calls itself, a site passes nothing for the parameter, or
 * more than a bounded number of functions hand it on. */
typedef struct TlParamArg {
	const TlIndex *mod;
	TSNode arg;
} TlParamArg;
bool tl_model_param_args(const TlIndex *idx, const TlBinding *param, const TlParamArg **args, uint32_t *n);
/* What every call site in the project may hand parameter binding `param`
 * of `idx`, read to the end: each expression found into *args (*n of them,
 * kept in the model), also when another site's is not known; true when
 * every one is known (as tl_model_param_args). A function's sites are its
 * module's (an argument by keyword, else at its position; a bound
 * method's `self`: the call's receiver) and its importers' (callers.c:
 * by name, through an instance the importer's model holds or its
 * receiver's bindings tell, on what a factory of the module's package
 * made); a parameter of the function around a site is followed to that
 * function's sites in turn, each (function, parameter) once. `how`:
 * TL_SITES_MAKERS_HERE, a class's `__init__` that no site calls by name
 * is called by the module's instantiations of its class (none, or a
 * local class deriving from it: not known), and by no importer's;
 * TL_SITES_IMPORTERS_ALONE, the importers' sites are read only for a
 * function with none in its module. */
enum { TL_SITES_MAKERS_HERE = 1, TL_SITES_IMPORTERS_ALONE = 2 };
bool tl_model_param_sites(const TlIndex *idx, const TlBinding *param, unsigned how, const TlParamArg **args,
			  uint32_t *n);
/* The same over the module's own call sites alone (TlFunc.call_sites): an
 * argument by keyword, else at its position (a bound method's `self`: the
 * call's receiver). Needs only the index (the index's events ask it before
 * any model is built); kept in the model once one is. The expressions are
 * appended to `out` (cleared first), each in idx; false when not known.
 * `how`: TL_HANDED_MAY, what some call may hand it (a function on the way
 * that escapes or has no call site adds nothing, a call in itself is
 * passed over, a site that passes nothing hands the parameter's default);
 * TL_HANDED_DIRECT, the arguments of the function's own call sites as
 * they are, a parameter of a caller not followed (the asker judges it). */
typedef TlArray(TlParamArg) TlParamArgs;
enum { TL_HANDED_EVERY = 0, TL_HANDED_MAY = 1, TL_HANDED_DIRECT = 2 };
bool tl_model_own_param_args(const TlIndex *idx, const TlBinding *param, unsigned how, TlParamArgs *out);
/* The kinds of wrapper (TL_VW_* of value.h) parameter binding `param` of
 * `idx` may hold as the project hands it (handedin.c): of the arguments
 * tl_model_param_args finds (the module's own call sites and its
 * importers', parameters handed on followed), each read in its module's
 * model, those that are a wrapper, or one on some path (`if cuda: model =
 * nn.DataParallel(model)` before the model is handed in). 0 when none is,
 * or the arguments are not known. Kept in the model once asked. */
unsigned tl_model_handed_wrap(const TlIndex *idx, const TlBinding *param);
/* The same for the entries of what parameter `param` holds (handedin.c):
 * the wrapper kinds of the elements of each container the project hands
 * it (`save_all(nets)` of a dict of wrappers) and, for a `**kwargs`
 * parameter, of each keyword argument no other parameter takes and of
 * the entries of each `**d` a call hands on (`CheckpointIO(path,
 * **nets)`). 0 when none is a wrapper, or the arguments are not known. */
unsigned tl_model_handed_elem_wrap(const TlIndex *idx, const TlBinding *param);
/* The arguments the importers' call sites (callers.c, as the indexes
 * alone tell: by name, through an instance its receiver's bindings tell,
 * on what a factory of the module's package made) pass parameter binding
 * `param` of a function its module never calls, each with its module,
 * appended to `out` (cleared first), as they are (a parameter of the
 * function around a site is not followed: the asker judges it). False
 * when the function escapes or has a call site in its module, no importer
 * calls it, or a site passes nothing for the parameter. Needs only the
 * indexes (the index's events ask it before any model is built); kept in
 * the model once one is. */
bool tl_model_importer_args(const TlIndex *idx, const TlBinding *param, TlParamArgs *out);
/* The calls of the modules that import idx's module that run one of its
 * functions, found as tl_model_importer_args finds them (callers.c, the
 * indexes alone: by name, through an instance its receiver's bindings
 * tell, on what a factory of the module's package made): each importer,
 * its call and the function of idx's module it runs, appended to `out`
 * (cleared first) in importer order, then call order. The importers'
 * indexes are shared with the threads analysing them: read them under the
 * project's lock (facts: tl_facts__ext_enter). */
typedef struct TlImporterSite {
	const TlIndex *mod;
	const TlCall *call;
	int32_t func;
} TlImporterSite;
typedef TlArray(TlImporterSite) TlImporterSites;
void tl_model_importer_sites(const TlIndex *idx, TlImporterSites *out);
/* True when a call of a module importing idx's module runs function
 * `func` of it (one of tl_model_importer_sites). Kept with the index
 * (TlIndex.tables), model or none: the sites are listed once per module. */
bool tl_model_importer_called(const TlIndex *idx, int32_t func);
/* What a class hands an attribute (handedin.c): the parameter whose
 * argument `self.<attr>` (`attr` spelt so: "self.model") holds in the
 * methods of local class `cls`: every binding of the attribute in the
 * methods of the class and of its local bases, up the bases (a class among
 * its own bases answers none), is one plain assignment of a parameter of
 * that method (`self.model = model` in `__init__`); a base's parameter,
 * when the class overrides the method that binds it, is the parameter of
 * the override that its `super().<method>(...)` call passes on. NULL
 * otherwise (bound twice, or to anything else, or the override passes
 * something else). Kept in the model once one is built. */
const TlBinding *tl_model_attr_param(const TlIndex *idx, int32_t cls, const char *attr);
/* Autocast entry context (autocast.c): every call site of function `func`
 * of `idx` in its module runs under an autocast region of a kind `ask`
 * accepts (TL_CTX_NOT_CPU: not a CPU one; TL_CTX_HALF_AUTOCAST: a float16
 * one): the innermost autocast block around the site, else the entry of
 * the function around it; the function's decorators decide first. False
 * for a function that escapes, has no call site, or calls itself. Needs
 * only the index's contexts; kept with the index (TlIndex.tables), model
 * or none.
 * tl_model_autocast_at: what the `with` blocks from `with` out decide (1
 * under one, 0 an autocast block of another kind or disabled is
 * innermost, -1 none). */
bool tl_model_autocast_entry(const TlIndex *idx, int32_t func, uint32_t ask);
int tl_model_autocast_at(const TlIndex *idx, int32_t with, uint32_t ask);
/* Step loops through call sites (steps.c), over the module's own call
 * sites (TlFunc.call_sites), a call of a function in itself passed over;
 * needs only the index, kept with it (TlIndex.tables), model or none.
 * tl_model_step_entry: some call site of function `func` is in a step loop
 * (TlLoop.step) of a kind in `kinds`, the innermost step loop around the
 * site deciding, or, outside any step loop, in a function so entered in
 * turn (module code's sites are in none). `guard`, when not NULL, is the
 * asker's per-step guard: true when a test holds `node` on few iterations
 * below `top` (kept per kinds and guard or none: pass the same guard each
 * time); a site it holds below its step loop's body, or below its
 * function outside any, counts not. tl_model_backward_loops: the loops
 * (indices, each once, ascending) whose iteration runs a backward and does
 * not always leave at its end that run code of function `func` whose
 * innermost loop there is `loop`: the innermost such loop around it, else
 * those around its function's call sites, their callers' in turn; appended
 * to `out`. tl_model_exits_at_end: the body of `lp` always leaves the loop
 * at its end (its last statement a `return`, `break` or `raise`): a retry
 * loop, or one that runs once. */
typedef bool (*TlStepGuard)(const TlIndex *idx, TSNode node, TSNode top);
bool tl_model_step_entry(const TlIndex *idx, int32_t func, uint32_t kinds, TlStepGuard guard);
void tl_model_backward_loops(const TlIndex *idx, int32_t func, int32_t loop, TlIntArray *out);
bool tl_model_exits_at_end(const TlLoop *lp);
/* A step loop runs around function `func` (trains.c): one of its call
 * sites in the project is inside a loop whose iteration trains or runs a
 * model's forward (TlLoop.step; counting the call's own: a method called
 * through an instance), or in a function a step loop runs around. */
bool tl_model_step_around(const TlIndex *idx, int32_t func);
/* What dotted name `q` ("models.Net", ".losses.focal", "pkg.Trainer.step")
 * names in a module of the project, as module `from` imports it: the one
 * resolution the model reads names by (model.c), re-exports, star imports
 * and methods of bases (tl_model_class_method) followed. A function (*func;
 * *cls its class, -1 for a module-level one) or a class (*cls, *func -1)
 * of module *mod; false for anything else (a module, a global's value, a
 * name of PyTorch's API or of no module of the project). */
bool tl_model_project_def(const TlIndex *from, const char *q, const TlIndex **mod, int32_t *func, int32_t *cls);
/* The method `name` of class `cls` of `mod`, or of a base: the class, then
 * its bases depth first, the first first (at each class, those of its
 * module, then those another module of the project defines, through the
 * imports); its module in *where, -1 none. */
/* The module-level assignment that dotted name `q` names, as module `from`
 * imports it (`from nets import MODELS`: `MODELS = {...}` in nets/__init__.py;
 * a re-export there followed), its last one in that module: *mod, *out. */
bool tl_model_project_global(const TlIndex *from, const char *q, const TlIndex **mod, const TlBinding **out);
int32_t tl_model_class_method(const TlIndex *mod, int32_t cls, const char *name, const TlIndex **where);
/* Class `cls` of `mod` or a base of it, in the order tl_model_class_method
 * reads them, is marked an nn.Module by its module's index (TlClass
 * .is_module: by names and local bases): what the facts layer asks of a
 * class of another module (tl_model_class_module, the model's own
 * question, also reads the API table's module classes). */
bool tl_model_class_derives_module(const TlIndex *mod, int32_t cls);
/* Module-level name `name`, bound by no statement of `idx`, is class *cls
 * of project module *mod that one of idx's star imports binds (`from
 * .parts import *`), theirs too. */
bool tl_model_star_class(const TlIndex *idx, const char *name, const TlIndex **mod, int32_t *cls);
/* The same for a function or a class: module-level name `name`, bound by
 * no statement of `idx`, is what one of idx's star imports binds there, a
 * function (*func; *cls its class or -1) or a class (*cls, *func -1) of
 * project module *mod, a re-export there followed (`from .data import
 * *`, then `create_dataloader(...)`). */
bool tl_model_star_def(const TlIndex *idx, const char *name, const TlIndex **mod, int32_t *func, int32_t *cls);
/* Class `cls` of `mod` is an nn.Module: it or a base derives from one, in
 * its module, in another of the project, or through a star import that
 * binds the base's root (`nn` of `class Net(nn.Module)`). */
bool tl_model_class_module(const TlIndex *mod, int32_t cls);
/* Class `cls` of `mod` derives from bases the model reads, every one
 * (bases.c): a class of the project (its module or another, through the
 * imports), whose bases are read in turn (none at all there), or a class
 * the API table names (`object` too). False for a class with no base of
 * its own (nothing says what it is), when a base is a name of neither (a
 * library the table does not know, a module that cannot be read) or an
 * expression the index does not name (`Base[T]`), or the file has no
 * model: what the class is may then come from that base. */
bool tl_model_class_bases_read(const TlIndex *mod, int32_t cls);

/* True when a bound of the work budget cut the module's interpretation:
 * its answers are then partial (values not reached stay unevaluated). */
bool tl_model_cut(const TlModel *m);

/* Appends a one-line description of `v` (of model `m`'s pool) to `out`:
 * "tensor graph=must device=⊤ ..."; containers show their element and
 * positions. */
void tl_model_describe(const TlModel *m, const TlVal *v, TlBuf *out);

/* Counts for `torchlint debug model` and the tests: values recorded,
 * functions summarised, components, rounds run. */
typedef struct TlModelStats {
	uint32_t values, functions, components, rounds, widened, classes;
	/* Interpretations a pass or round left out: nothing the function read
	 * changed since its last one (deps.c). */
	uint32_t skipped;
	/* Nodes whose children the interpreter asked for, and those read
	 * from the tree (each node once: the next pass reads them kept). */
	uint32_t kids_asked, kids_read;
} TlModelStats;
void tl_model_stats(const TlModel *m, TlModelStats *out);

/* Names that say what a value is, in a file of the PyTorch ecosystem
 * (seeds.c; the last part of a dotted name, any case): an optimizer
 * (`optimizer`, `opt_g`, `d_opt`, not a scheduler or scaler), a gradient
 * scaler, a loss function or criterion (`criterion`, `loss_fn`). */
bool tl_model_optimizer_like_name(const char *name);
/* True for a dotted name of another deep-learning framework (paddle,
 * tensorflow, jax, ...): what it makes is no PyTorch object. */
bool tl_model_foreign_qname(const char *q);
/* True for `X.from_pretrained` of transformers, diffusers or peft where X
 * is no tokenizer, configuration or processor: it loads a model (the
 * table's rows name the classes it knows more of). */
bool tl_model_pretrained_loader(const char *q);
/* True for an inference pipeline's maker (diffusers' `*Pipeline`,
 * `AutoPipelineFor*`, transformers.pipeline): no nn.Module, it runs without
 * gradients and returns images, text or arrays. */
bool tl_model_pipeline_qname(const char *q);
bool tl_model_scaler_like_name(const char *name);
bool tl_model_loss_like_name(const char *name);

#endif
