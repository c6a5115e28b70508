/* Private to the facts layer (the files in analyzer/facts/): the helpers, types and
 * tables that more than one family of facts uses. Nothing outside
 * analyzer/facts/ includes this header; the public questions are in facts.h. */
#ifndef TL_FACTS_INTERNAL_H
#define TL_FACTS_INTERNAL_H

#include <ctype.h>
#include <string.h>

#include "base/alloc.h"
#include "base/budget.h"
#include "base/buf.h"
#include "facts/facts.h"
#include "model/apitable.h"
#include "syntax/syms.h"
#include "syntax/treewalk.h"
#include "syntax/walk.h"

#define IN(s, set) tl_facts__in((s), (set), sizeof(set) / sizeof *(set))

/* Steps (call sites, returns) one question may visit while following
 * parameters to their callers and functions to their returns: depth alone
 * bounds the recursion, not its fan-out (a chain of functions each called
 * from many places). Real code needs a handful. */
#define TL_FACTS_BUDGET 512

#define tl_facts__dotted tl_index_dotted_dup

/* Whether code of a local function runs when one call runs it
 * (tl_facts__runs_at, facts/callsite.c). */
enum { TL_RUNS_NEVER = -1, TL_RUNS_MAYBE = 0, TL_RUNS_ALWAYS = 1 };

typedef TlArray(char *) TlNames;

/* One module, or a part of one: the call that constructed it and the
 * attribute path below it ("" for the module itself, ".encoder"). */
typedef struct TlModRef {
	TSNode root;
	char *path;
} TlModRef;

typedef TlArray(TlModRef) TlModSet;

/* How one module reference relates to another (tl_facts__relate). */
enum { TL_REL_DISJOINT, TL_REL_OVERLAP, TL_REL_COVERS };

/* One call (or `.grad = ...` statement) of an iteration. */
typedef struct TlStep {
	const TlCall *call; /* NULL for a site */
	TSNode node;
	uint32_t events;
	TSNode anchor;      /* the node in the walked range that runs it: itself, or
			     * the call of the local function it runs in */
} TlStep;

typedef TlArray(TlStep) TlSteps;

extern _Thread_local int tl_facts__fan_budget, tl_facts__fan_nesting;

bool tl_facts__in(const char *s, const char *const *set, size_t n);
bool tl_facts__torch_qname(const char *q);
bool tl_facts__foreign_qname(const char *q);
bool tl_facts__foreign_value(const TlIndex *idx, TSNode expr);
/* True when `expr` (a dotted name) sits where an isinstance test on it
 * proved it a tensor (facts/guards.c). */
bool tl_facts__guarded_tensor(const TlIndex *idx, TSNode expr);
TSNode tl_facts__factory_root(const TlIndex *idx, const TlBinding *b);
bool tl_facts__names_hint(const TlIndex *idx);
bool tl_facts__optimizer_by_use(const TlIndex *idx, const TlBinding *b, TSNode ctor);
bool tl_facts__is_criterion(const TlIndex *idx, TSNode m);
/* True when `sub` is an element of a container of modules (`self.model[k]`
 * where the file calls `.eval()`, `.parameters()`, ... on elements of
 * `self.model`): a dict or list of models, as GAN trainers keep them. */
bool tl_facts__module_element(const TlIndex *idx, TSNode sub);
/* The name mode questions track for module `expr`: its dotted name, or
 * for an element of a container `X["gen"]` / `X[0]` (a literal key) and
 * `X[*]` (a loop variable over every key: `for k in X.keys(): X[k]`).
 * Caller frees; NULL when there is none. */
char *tl_facts__mode_name(const TlIndex *idx, TSNode expr);
TSNode tl_facts__element_source(const TlIndex *idx, TSNode id, const TlBinding *b);
/* The differential mode of a family moving onto the model
 * (TORCHLINT_CHECK_MODEL=1, docs/development.md): true when it is on. A
 * predicate that answers from the model then also runs the walk it
 * replaces and reports each difference with tl_facts__model_differs
 * ("model differs: FILE:LINE:COL QUESTION walk=W model=M `TEXT`" on
 * standard error). */
bool tl_facts__checking_model(void);
void tl_facts__check_forward_events(const TlIndex *idx);
void tl_facts__model_differs(const TlIndex *idx, TSNode n, const char *question, int walk, int model);
void tl_facts__fan_begin(void);
void tl_facts__fan_end(void);
bool tl_facts__fan_step(void);
bool tl_facts__starts(const char *s, const char *prefix);
bool tl_facts__ends(const char *s, const char *suffix);
const char *tl_facts__last(const char *dotted);
bool tl_facts__contains(TSNode outer, TSNode n);
void tl_facts__lower(const char *s, char *out, size_t size);
TSNode tl_facts__arg(TSNode call, uint32_t k);
TSNode tl_facts__kwarg(const TlIndex *idx, TSNode call, const char *name);
uint32_t tl_facts__argc(TSNode call);
TSNode tl_facts__bound_value(const TlBinding *b);
TSNode tl_facts__held(const TlIndex *idx, const TlBinding *b);
/* True when binding `b` is in `seen` (indices into idx->bindings); else
 * adds it and returns false. A chain of bindings that keeps one ends when
 * it meets one again: the bindings are finite, so it ends without a
 * bound on its length. NULL counts as seen. */
bool tl_facts__seen_binding(const TlIndex *idx, TlIntArray *seen, const TlBinding *b);
/* What dotted `name`, read in function `f`, stands for when its root is a
 * local alias of another dotted name, bound once in `f` by a plain
 * assignment (`net = self.net`: "net.head" -> "self.net.head"), through a
 * few such aliases. Caller frees; NULL when the root is no such alias. */
char *tl_facts__unalias(const TlIndex *idx, int32_t f, const char *name);
/* The calls of the file that instantiate local class `cls` by its name
 * (`Trainer(model, loader)`), appended to `out` as indices into idx->calls;
 * false when there is none or a local subclass may instantiate it too. */
bool tl_facts__instantiations(const TlIndex *idx, int32_t cls, TlIntArray *out);
TSNode tl_facts__param_arg(const TlIndex *idx, const TlFunc *f, int32_t k, const TlCall *c);
TSNode tl_facts__param_arg_of(const TlIndex *idx, const TlBinding *param, const TlCall *site);
bool tl_facts__each_return(const TlIndex *idx, int32_t f, bool (*visit)(const TlIndex *, TSNode, void *), void *data);
/* What a local function returns, one summary slot per kind (facts/summary.c). */
typedef enum TlRet {
	TL_RET_MODULE,    /* some return is a known module */
	TL_RET_CRITERION, /* every return is a criterion or loss function */
	TL_RET_COUNT
} TlRet;
/* True when some return value of local function `f` satisfies `pred`
 * (every one, for TL_RET_CRITERION): its summary for `kind`, computed once;
 * `pred` is a question of its own, from no depth. */
bool tl_facts__returns(const TlIndex *idx, int32_t f, TlRet kind, bool (*pred)(const TlIndex *, TSNode));
/* facts/imports.c: definitions in other modules of the project. */
typedef struct TlExtDef {
	const TlIndex *idx; /* the module's index */
	int32_t func;       /* a function or method there, or -1 (a class) */
	int32_t cls;        /* its class (a method's, or the class itself), or -1 */
} TlExtDef;
/* What qualified name `q` ("models.Net", ".losses.focal") names in a
 * module of the project other than by PyTorch's or a library's name. */
bool tl_facts__ext_def(const TlIndex *idx, const char *q, TlExtDef *out);
/* The function of another module that call `c` runs: an imported
 * function, a method of an instance of an imported class, a method
 * inherited from a base class in another module (`self.step()`). */
bool tl_facts__ext_callee(const TlIndex *idx, const TlCall *c, TlExtDef *out);
/* Around questions that read another module's index (re-entrant); only
 * for an index with imports. */
void tl_facts__ext_enter(const TlIndex *idx);
void tl_facts__ext_leave(const TlIndex *idx);
/* True when class `cls` of `mod` defines method `name` or inherits it
 * (from a base in `mod` or, through its imports, in another module). */
bool tl_facts__class_has_method(const TlIndex *mod, int32_t cls, const char *name);
/* The argument call `c` passes for parameter `pname` of the function `d`
 * of another module that it runs (its receiver for a bound method's
 * `self`); null when it passes none. Under tl_facts__ext_enter. */
TSNode tl_facts__ext_param_arg(const TlIndex *idx, const TlCall *c, const TlExtDef *d,
				const char *pname, size_t len);
/* facts/mode.c: appends to `out` the receivers, in the scope of call `c`,
 * of the calls with an event in `events` (TL_EV_EVAL, or TL_EV_TRAIN |
 * TL_EV_MODE_SET) that `c` makes (itself, or through the functions it
 * runs, mapped through their parameters); with TL_FACTS_TRAINED_ONLY,
 * only the receivers that another module's function both switches and
 * trains (its summary's `trained`). False when some receiver cannot be
 * told. */
#define TL_FACTS_TRAINED_ONLY (1u << 31)
bool tl_facts__event_receivers(const TlIndex *idx, const TlCall *c, uint32_t events,
			       TlNames *out, int depth, uint32_t *budget);
/* facts/mode.c: true when the module `name` (seen at `pos` in `func`) is
 * being trained in its file: an optimizer there updates its parameters,
 * or the file calls `.train()` on it. */
bool tl_facts__module_trained(const TlIndex *idx, const char *name, int32_t func, uint32_t pos);
/* facts/effects.c: what function `func` does to the modules its
 * parameters (`self` included) hold: the receivers it switches to eval
 * and to train mode, directly or through the functions it runs, named in
 * its own scope (`self.netD`, `model`), computed once per function and
 * kept in its index's facts cache. NULL when it cannot be computed now
 * (asked again while being computed). */
typedef struct TlModeSummary {
	TlNames evals;   /* switched to eval (.eval(), .train(False)) */
	TlNames trained; /* those of evals that its module also trains */
	TlNames trains;  /* switched to train (.train(), .train(flag)) */
	bool evals_ok, trains_ok; /* every receiver could be told */
	/* A method that runs its object's forward (`self.forward(...)`,
	 * `self(...)`, a submodule's `self.conv(x)`, also through the
	 * class's other methods) with gradients on in its own body. */
	bool forwards_self;
	uint8_t state;   /* 0 not computed, 1 being computed, 2 kept */
} TlModeSummary;
const TlModeSummary *tl_facts__mode_summary(const TlIndex *idx, int32_t func);
/* facts/handed.c: what a function of the project (of this module or of
 * another) hands back to its caller and does to what it is handed, for
 * data loaders, samplers and autocast contexts: summaries computed once
 * per function (and per element of what it returns) in the index of the
 * function's own module. */
typedef struct TlMade {
	const TlIndex *idx; /* the module whose tree holds `node` */
	TSNode node;
} TlMade;
typedef TlArray(TlMade) TlMades;
/* The function call `c` of `idx` runs: a local one (out->idx is idx) or
 * one of another module of the project (facts/imports.c). */
bool tl_facts__callee_def(const TlIndex *idx, const TlCall *c, TlExtDef *out);
/* The DataLoader(...) constructions that call `c` hands back, at tuple
 * element `elem` (-1: the whole value) or dict key `key` (NULL: none):
 * appended to `out`; *unknown set when some returned value may be another
 * loader (or none can be told). */
void tl_facts__handed_loaders(const TlIndex *idx, const TlCall *c, int32_t elem, const char *key,
			      TlMades *out, bool *unknown);
/* The one DistributedSampler(...) construction that call `c` hands back
 * (at `elem` / `key` as above); a null node when none or several. */
TlMade tl_facts__handed_sampler(const TlIndex *idx, const TlCall *c, int32_t elem, const char *key);
/* The autocast context (TL_CTX_AUTOCAST and its CPU / float16 bits) that
 * call `c` of a function of the project hands back: every value it returns
 * is one. 0 when not (a nullcontext() among them, or a value that cannot
 * be told). */
uint32_t tl_facts__handed_autocast(const TlIndex *idx, const TlCall *c);
/* facts/loaders.c: the DataLoader constructions `expr` of `idx` may be (as
 * an iterable), from a fresh budget; and the DistributedSampler
 * construction it is. */
void tl_facts__loader_values(const TlIndex *idx, TSNode expr, TlMades *out, bool *unknown);
TlMade tl_facts__sampler_of(const TlIndex *idx, TSNode expr);
/* facts/loops.c: tl_facts_kept_across_training_step in two parts. The
 * training step loop that decides for `expr`, from the loops alone (no
 * model), or -1: not kept; then whether `expr` survives every loop up to
 * that one (the model's carried values). */
int32_t tl_facts__deciding_step_loop(const TlIndex *idx, TSNode expr);
bool tl_facts__kept_until(const TlIndex *idx, TSNode expr, int32_t decides);
/* True for `accelerator.unwrap_model(model)`, which hands back `model`. */
bool tl_facts__unwraps(const TlCall *c);
/* Fills c->callee_events / callee_flat / callee_steps (tl_facts_build). */
/* Fills call `c`'s callee_events, callee_flat and callee_steps from the
 * function of another module it runs, and appends to `overrides` the local
 * overrides that function runs when it is a method inherited by an object
 * of a local class (tl_facts__ext_overrides; the caller adds their events
 * once the file's own reach is known). */
void tl_facts__ext_call_events(TlIndex *idx, TlCall *c, TlIntArray *overrides);
/* What a method of another module that call `c` runs on an object of a
 * known class reaches (its reach_events): c->callee_events when the build
 * found them, else looked up now (a call outside the loops, whose events
 * the build did not look for in other modules). */
uint32_t tl_facts__callee_reach(const TlIndex *idx, const TlCall *c);
/* The local overrides that the inherited method of another module call `c`
 * runs on an object of a local derived class, as `self.m(...)` there:
 * function indices appended to `out`. */
void tl_facts__ext_overrides(const TlIndex *idx, const TlCall *c, TlIntArray *out);
/* tl_facts__returns of the function of another module that call `c`
 * runs (false when none). */
bool tl_facts__ext_any_return(const TlIndex *idx, const TlCall *c, TlRet kind, bool (*pred)(const TlIndex *, TSNode));
/* True when `q` names a class of another module that is an nn.Module and
 * may hold parameters (a model: not a parameter-free transform such as a
 * feature extractor, whose output carries no graph of its own). */
bool tl_facts__ext_class_is_model(const TlIndex *idx, const char *q);
/* True when `q` names a class of another module that is an nn.Module. */
bool tl_facts__ext_class_is_module(const TlIndex *idx, const char *q);
/* The value of identifier `name` when it is bound exactly once in its
 * scope, by a plain assignment of the whole value (`flag = False`, not
 * `a, flag = ...`, not `flag += ...`, not a parameter, loop target or class
 * attribute). Null otherwise: a name bound twice may hold either value. */
TSNode tl_facts__bound_once(const TlIndex *idx, TSNode name);
/* The name of the class of another module that `q` names, into buf; NULL
 * when it names none. */
const char *tl_facts__ext_class_named(const TlIndex *idx, const char *q, char *buf, size_t size);
bool tl_facts__is_loss_class(const char *q);
bool tl_facts__is_loss_function(const char *q);
bool tl_facts__loss_like_name(const char *name);
bool tl_facts__optimizer_like_name(const char *name);
bool tl_facts__optimizer_qname(const char *q);
bool tl_facts__module_expr(const TlIndex *idx, TSNode expr, int depth);
bool tl_facts__is_wrapper(const char *q);
/* kinds.c: the model's kind of `expr`: 1 one of `kinds` (bits 1 <<
 * TlVKind), 0 another kind, -1 not known (asked once the facts are built;
 * TL217's host arrays read it too). */
int tl_facts__model_kind_is(const TlIndex *idx, TSNode expr, uint32_t kinds);
TSNode tl_facts__module_through(const TlCall *c, TSNode call, bool wrappers);
bool tl_facts__is_model_loader(const char *q);
bool tl_facts__scaler_disabled(const TlIndex *idx, TSNode expr);
const TlCall *tl_facts__producer(const TlIndex *idx, TSNode expr);
/* True for `scaler.scale(loss)` of a GradScaler not disabled (made.c). */
bool tl_facts__scaled_call(const TlIndex *idx, const TlCall *c);
TSNode tl_facts__backward_tensor(const TlIndex *idx, const TlCall *c);
bool tl_facts__mentions(const TlIndex *idx, TSNode n, const TlNames *names);
void tl_facts__names_release(TlNames *names);
bool tl_facts__qname_is_api(const char *q, TlApi api);
/* `q` names a loader class of the API table (loaders.c). */
bool tl_facts__qname_loader(const char *q);
const char *tl_facts__string_body(const TlIndex *idx, TSNode n, uint32_t *len);
bool tl_facts__user_method(const TlIndex *idx, const TlCall *c);
int32_t tl_facts__param_index(const TlIndex *idx, const TlFunc *f, const char *name, size_t len);
/* common.c: an argument every call site hands parameter `b` satisfies
 * `pred`; `from`: the module's own sites, or the importers' sites of a
 * function its module never calls. The parameters being judged are shared
 * by both, so that modules handing a parameter round end. */
enum { TL_PARAM_OWN = 0, TL_PARAM_IMPORTERS = 1 };
bool tl_facts__param_all(const TlIndex *idx, const TlBinding *b, unsigned from,
			 bool (*pred)(const TlIndex *, TSNode, int *), int *budget);
TSNode tl_facts__guard_between(const TlIndex *idx, TSNode node, TSNode top);
bool tl_facts__comprehension_local(const TlIndex *idx, TSNode id);
/* The calls that differentiate what they read: a backward, or
 * torch.autograd.grad (a gradient penalty, an input saliency, classifier
 * guidance). A value one of them reads needs the graph it carries. */
#define TL_EV_DIFFERENTIATES (TL_EV_BACKWARD | TL_EV_GRAD_CALL)
/* The guard of summaries computed inside summaries (summary.c, effects.c,
 * handed.c: one per family and thread). They nest at most a bound deep; an
 * answer that met that bound, or met a summary being computed (a
 * recursion), is given but not kept, so that a kept summary never depends on
 * the order of the questions. Nor is one computed after the file's CPU
 * bound was hit (a star-import lookup stopped by it: imports.c). */
typedef struct TlNest {
	int depth;
	unsigned refused;
} TlNest;
/* Starts a summary: false, with a refusal counted, when it is `busy` (being
 * computed) or `max` are under way; else *mark notes the refusals so far. */
bool tl_facts__nest_enter(TlNest *n, bool busy, int max, unsigned *mark);
/* Ends it: true when nothing was refused since `mark` (keep the answer). */
bool tl_facts__nest_leave(TlNest *n, unsigned mark);
void tl_facts__step_loop_list(const TlIndex *idx, TSNode node, TlIntArray *out);
/* facts/mode.c: true when the program trains something: a call of the file
 * runs a backward or an optimizer step (through what it reaches), or
 * function `func` is called from another module of the project. */
bool tl_facts__program_trains(const TlIndex *idx, int32_t func);
void tl_facts__modset_release(TlModSet *set);
TSNode tl_facts__module_root(const TlIndex *idx, TSNode expr, TlBuf *path);
/* Where tl_facts__module_root stopped when it finds no construction: the
 * call of no known kind the module comes from (`get_model_from_name[b](...)`),
 * or the call whose returned tuple's element `elem` a name was bound to
 * (`model, opt, loss = get_model(cfg)`: elem 0); a null call otherwise. */
typedef struct TlModStop {
	TSNode call;
	int32_t elem; /* -1: the call's whole result */
} TlModStop;
TSNode tl_facts__module_source(const TlIndex *idx, TSNode expr, TlBuf *path, TlModStop *stop);
/* tl_facts__module_root of the value assignment `b` binds, the bound name
 * standing for the value where its use says what it is (a module made by
 * an unknown factory, `model = build_model(cfg)`, handed to an optimizer). */
TSNode tl_facts__binding_module_root(const TlIndex *idx, const TlBinding *b, TlBuf *path);
int tl_facts__relate(const TlIndex *idx, const TlModRef *r, const TlModRef *e);
bool tl_facts__in_comprehension(const TlIndex *idx, TSNode n, TSNode top);
bool tl_facts__is_callee(const TlIndex *idx, TSNode n);
bool tl_facts__ctor_modules(const TlIndex *idx, TSNode ctor, TlModSet *out);
/* The modules whose parameters optimizer `opt` updates: every
 * `m.parameters()` (or module passed whole) in the parameter argument of
 * its construction, following names. False when they cannot all be told
 * (facts/modules.c). */
bool tl_facts__optimizer_modules(const TlIndex *idx, TSNode opt, TlModSet *out);
TSNode tl_facts__stepped(const TlIndex *idx, const TlCall *step);
int tl_facts__reset_covers(const TlIndex *idx, const TlCall *reset, TSNode opt);
void tl_facts__sequence(const TlIndex *idx, int32_t func, TSNode range, uint32_t mask, TlSteps *out);
/* facts/callsite.c: `node` of function `func` when call `site` (NULL: any
 * call) runs it: TL_RUNS_NEVER when an `if` / conditional expression
 * around it in the function is decided false by the constants the call
 * passes, TL_RUNS_ALWAYS when no test stands between it and the body,
 * TL_RUNS_MAYBE otherwise (an undecided test, an except clause). */
int tl_facts__runs_at(const TlIndex *idx, TSNode node, int32_t func, const TlCall *site);
/* facts/branches.c: the if conditions a node runs under in its own
 * function, each with whether it holds there (the consequence: true; an
 * else / elif: false; after `if C: return` in the same block: false),
 * innermost first, at most TL_BRANCH_MAX. */
#define TL_BRANCH_MAX 16
typedef struct TlBranchCond {
	TSNode cond; /* without parentheses and `not` */
	bool holds;
} TlBranchCond;
typedef struct TlBranchPath {
	TlBranchCond items[TL_BRANCH_MAX];
	uint32_t size;
} TlBranchPath;
/* facts/loops.c: the node that roots `expr`, as tl_facts_root_name names
 * it (subscripts and calls looked through); whether loop `loop` carries
 * `root`'s object into its next iteration with no store in its iteration
 * making it afresh (the model's tl_model_carried). */
TSNode tl_facts__root_node(const TlIndex *idx, TSNode expr);
bool tl_facts__kept_by_loop(const TlIndex *idx, int32_t loop, TSNode root);
/* facts/distributed.c: wrappers. A call of qualified name `q` makes a
 * wrapper of `kind` (its table row's wrap-* sets); the model's answer for
 * `e` (1: a wrapper of `kind`, with `inner` the module read through one;
 * 0: not; -1: the model has no value); a wrapper that replaces a module's
 * parameters by sharded ones (FSDP, fully_shard). */
bool tl_facts__wrapper_qname(const char *q, TlWrapper kind);
int tl_facts__model_wrapped(const TlIndex *idx, TSNode e, TlWrapper kind, bool inner);
bool tl_facts__sharding_qname(const char *q);
/* The graph of `v`, or of a container's elements (containers in it
 * looked through) (facts/carried.c). */
struct TlVal;
unsigned tl_facts__history(const TlIndex *idx, const struct TlVal *v);
/* `cond` without parentheses and leading `not`s; *holds flips per `not`
 * (facts/branches.c). */
TSNode tl_facts__cond_core(TSNode cond, bool *holds);
void tl_facts__branch_path(const TlIndex *idx, TSNode node, TlBranchPath *out);
/* Adds the conditions `node` runs under to `path`; false (path partly
 * filled) when one of them contradicts a condition already there (the same
 * text, the other outcome): no run goes through both. */
bool tl_facts__path_add(const TlIndex *idx, TlBranchPath *path, TSNode node);

/* facts/valueflow.c: tl_facts_reaches_backward for `expr` in the local
 * function that call `site` runs, judged at that call only: what the call
 * does with the function's return, and the backwards of the function the
 * call runs (its constant arguments decide); the other callers are left
 * out. */
bool tl_facts__reaches_at(const TlIndex *idx, TSNode expr, const TlCall *site);
TSNode tl_facts__const_param(const TlIndex *idx, int32_t func, const TlCall *site,
			     const char *name, size_t len);

/* facts/cache.c: the syntax-only tables of one file that questions scan
 * again and again, built once on first use and kept in the index
 * (TlIndex.facts_cache, created by tl_facts_build). */
typedef struct TlStoringCall {
	int32_t call; /* index into idx->calls */
	char *name;   /* its receiver's name (recv_name, else the root name of
		       * `history["loss"]`), "" when it has none */
} TlStoringCall;
typedef TlArray(TlStoringCall) TlStoringCalls;
typedef struct TlStoreSite {
	TSNode stmt;  /* an assignment (or augmented one) to a subscript */
	char *name;   /* the dotted name of the subscripted value */
} TlStoreSite;
typedef TlArray(TlStoreSite) TlStoreSites;
typedef struct TlFactsCache {
	/* Whether the model may know a call's loss (made.c): 0 not asked
	 * yet, 1 yes, -1 no. */
	int8_t loss_named;
	/* Whether some call of the file is a torch.save (TL504.c): 0 not
	 * asked yet, 1 yes, -1 no. */
	int8_t saves_called;
	bool storing_ready;
	TlStoringCalls storing;
	/* Subscript stores per scope: [0] the module, [1 + f] function f,
	 * [1 + funcs + c] class c; NULL until asked. */
	TlStoreSites **stores;
	uint32_t store_scopes;
	/* Set by tl_facts_build once every fact of the index is filled. */
	bool complete;
	/* The statement calls of set_grad_enabled (indices into calls, in
	 * source order). */
	bool grad_switches_ready;
	TlIntArray grad_switches;
	/* The `isinstance(name, <tensor class>)` tests written in the file,
	 * each as its scope and the dotted name it tests (guards.c climbs to
	 * a guard only from a name some test of its scope names); filled
	 * when first asked. */
	bool tensor_tests_ready;
	struct TlTensorTest *tensor_tests;
	uint32_t tensor_test_count;
	/* The named children of the blocks that branch paths climbed through
	 * (branches.c); NULL until asked. */
	struct TlBlockCache *blocks;
	/* What this module's functions hand back and do to their arguments
	 * (handed.c): loaders, samplers, autocast contexts; NULL until
	 * asked. */
	struct TlHandedCache *handed;
	/* Per function, its mode summary (effects.c); NULL until asked. */
	struct TlModeSummary *mode_sums;
	uint32_t mode_count;
	/* Whether a call of the file switches a module to eval mode (itself,
	 * or the function of another module it runs): 0 not yet asked, 1 no,
	 * 2 yes (effects.c). */
	uint8_t eval_switches;
	/* Whether the file converts a module or tensor to float16 (contexts.c,
	 * tl_facts__file_converts_to_half): 0 not yet asked, 1 no, 2 yes. */
	uint8_t converts_half;
} TlFactsCache;
/* facts/handed.c: frees TlFactsCache.handed. */
void tl_facts__handed_release(TlFactsCache *fc);
/* facts/common.c: the API table's row of torch.nn layer class `q` (any
 * module path under torch.nn, read by its last name: torch.nn.ReLU for
 * torch.nn.modules.activation.ReLU), or NULL. */
const TlApiRow *tl_facts__nn_layer_row(const char *q);
/* facts/common.c: a torch.nn layer class that holds no parameters or
 * buffers (the table's set parameter-free: activations, pooling, padding,
 * dropout). */
bool tl_facts__parameter_free_layer(const char *q);
/* facts/effects.c: frees TlFactsCache.mode_sums. */
void tl_facts__mode_summaries_release(TlFactsCache *fc);
/* facts/branches.c: true when `node` sits in one arm of a conditional
 * expression, or of an `if` with an `else` (in its own function), whose
 * other arm `test(idx, arm, data)` accepts. */
bool tl_facts__other_arm(const TlIndex *idx, TSNode node, bool (*test)(const TlIndex *, TSNode, void *), void *data);
/* facts/common.c: what call `c` calls: its callee, or, for `x.forward(...)`
 * (a module's or a criterion's forward called directly), the object x. */
TSNode tl_facts__called_object(const TlCall *c);
/* guards.c: frees TlFactsCache.tensor_tests. */
void tl_facts__tensor_tests_release(TlFactsCache *fc);
/* facts/branches.c: frees TlFactsCache.blocks. */
void tl_facts__block_cache_release(TlFactsCache *fc);
/* Installs an empty cache in `idx` (tl_facts_build does). */
void tl_facts__cache_install(TlIndex *idx);
/* The subscript stores (`d[k] = v`, `d[k] += v`) of the subtree of `top`
 * with a dotted subscripted value, in pre-order, not inside class
 * definitions below `top`, among the first 20,000 nodes of the walk (huge
 * scopes answer no); `top` is the module (cls < 0 and func < 0), function
 * `func`, or class `cls`. */
const TlStoreSites *tl_facts__subscript_sites(const TlIndex *idx, int32_t func, int32_t cls);
/* The statement calls of set_grad_enabled (`torch.set_grad_enabled(False)`
 * alone on its line), as indices into idx->calls in source order. */
const TlIntArray *tl_facts__grad_switches(const TlIndex *idx);

/* kinds.c, shared with rules/checks/ (TL205). */
bool tl_facts__binding_call_qname_is(const TlIndex *idx, TSNode expr,
					   bool (*pred)(const char *), int *decided);

/* loaders.c, shared with rules/checks/ (TL306, TL308, TL215): the
 * DataLoader constructions a value may come from. */
typedef struct TlLoaders {
	TlMades calls;         /* DataLoader(...) constructions */
	bool unknown;          /* some way the value arrives is not one */
	int budget;            /* steps left (TL_FACTS_BUDGET) */
} TlLoaders;
void tl_facts__loader_source(const TlIndex *idx, TSNode it, TlLoaders *out);
TSNode tl_facts__unwrap_iterable(const TlIndex *idx, TSNode it, bool *enumerated);
void tl_facts__loaders_collect(const TlIndex *idx, TSNode expr, TlLoaders *out);
bool tl_facts__makes_loader(const TlIndex *idx, const TlCall *c);
TlMade tl_facts__sampler_ctor(const TlIndex *idx, TSNode e, int depth);

/* mode.c, shared with rules/checks/ (TL102, TL203, TL212): the calls that
 * switch a module's mode, and the helpers of the mode walks. */
enum { TL_SWITCHES = TL_EV_EVAL | TL_EV_MODE_SET };
TSNode tl_facts__mode_expr(const TlIndex *idx, TSNode node, const char *recv);
/* The mode (TL_MODE_*) of `recv` at `node`, in the function call `site`
 * runs, as that call runs it (the model's, model/modes.c). */
int tl_facts__mode_from(const TlIndex *idx, TSNode node, const char *recv, const TlCall *site);
char *tl_facts__forward_subject(const TlIndex *idx, const TlCall *c);
char *tl_facts__to_caller(const TlIndex *idx, int32_t f, const TlCall *c, const char *name);
bool tl_facts__names_have(const TlNames *names, const char *s);
TSNode tl_facts__name_root(const TlIndex *idx, const char *name, int32_t func,
				 uint32_t pos, TlBuf *path);
bool tl_facts__in_handed_lambda(const TlIndex *idx, TSNode node);

/* layers.c, shared with rules/checks/ (TL212): what the layers a
 * construction `root` holds say, TL_LAYER_DEPENDENT, _NONE (known to act
 * the same in both modes) or _UNKNOWN; _TRACKED: its only mode-dependent
 * layers are instance norms that track running statistics
 * (`InstanceNorm2d(c, track_running_stats=True)`), which only eval mode
 * reads; _LOOK_INSIDE only within. */
enum { TL_LAYER_NONE, TL_LAYER_DEPENDENT, TL_LAYER_LOOK_INSIDE, TL_LAYER_UNKNOWN, TL_LAYER_TRACKED };
int tl_facts__layers_of(const TlIndex *idx, TSNode root);
/* The same for the module that forward call `site` (null: none) runs: a
 * dropout layer its class's `forward` builds at a rate a parameter of the
 * forward carries is judged at the rate `site` hands it (a literal zero:
 * the identity). */
int tl_facts__layers_at(const TlIndex *idx, TSNode root, TSNode site);
int tl_facts__layers_made(const TlIndex *idx, const TlModStop *stop);

#endif
