/* Private to analyzer/model/: the model's tables, the interpreter's state,
 * and the functions interp.c and model.c give each other. */
#ifndef TL_MODEL_MODEL_INTERNAL_H
#define TL_MODEL_MODEL_INTERNAL_H

#include "syntax/scopemap.h"
#include "model/model.h"
#include "model/path.h"

/* What stores into a path do in a loop's iteration (carry.c). */
enum { TL_MCARRY_DETACHED = 1, TL_MCARRY_RESET = 2 };

/* A path a loop carries (carry.c): read in the body before any store on
 * some path, with its value where the iteration ends. */
typedef struct TlCarry {
	TlPath path;
	int32_t val;  /* pool index of its value at the back edge, or -1: the body does not store into it */
	int32_t next; /* the next record with the same key, or -1 */
	uint8_t how;  /* TL_MCARRY_*: what stores in the iteration do */
} TlCarry;

/* One store into a class attribute (model.c): the site (the target's
 * start byte + 1), what its last evaluation stored, the next store of the
 * same attribute, or -1. */
typedef struct TlAttrStore {
	uint32_t site;
	int32_t val;
	int32_t next;
} TlAttrStore;

/* The value of one access path at a program point. */
typedef struct TlSlot {
	TlPath path;
	TlVal val;
	/* Per loop depth d of the function being interpreted (bit d, d < 8):
	 * the path was stored into since the head of that loop's iteration on
	 * every path (must) or on some path (may). A store sets every bit; a
	 * loop's head clears its own (carry.c). */
	uint8_t must, may;
	uint8_t mark; /* state.c: matched by a join, while it runs */
	uint8_t gone; /* state.c: killed, kept until the slots are compacted */
	int32_t next; /* state.c: the next slot with selectors of the same root, or -1 */
} TlSlot;

/* A proper prefix of the paths the state binds (state.c): how many live
 * slots are below it; a root's entry heads the chain of its slots with
 * selectors. */
typedef struct TlStateUp {
	TlPath path;   /* root -1: an empty entry */
	uint32_t below;
	int32_t head;
} TlStateUp;

/* Grad mode at a program point (gradmode.c), ordered for the join (the
 * greater): disabled; the mode the function was entered in (disabled
 * exactly when every call site of the function runs grad-disabled);
 * enabled on some path. */
enum { TL_MGRAD_OFF = 0, TL_MGRAD_ENTRY = 1, TL_MGRAD_ON = 2 };

/* A mode a function leaves a module in at its exit (modes.c): the module
 * its parameter `param` holds (-1: the module global `root`, an interned
 * name), or attribute `attr` of it (an interned name, -1: the object
 * itself); `mode`: TlVal.mode bits joined over its exits. */
typedef struct TlModeEff {
	int32_t param, root, attr;
	uint8_t mode;
	bool elems; /* the mode of the elements of the path (`models[*]`: `for m in models: m.eval()`) */
} TlModeEff;

/* A mode decided by a test of function `func`'s parameters against
 * constants (modes.c, TL_VMODE_COND_OF): `then` where test `test` holds,
 * `other` where it fails; either may be such a mode in turn. */
typedef struct TlModeCond {
	int32_t func;
	TSNode test;
	uint8_t then, other;
} TlModeCond;

/* The program-point state: a value per access path, the grad mode, and
 * whether any path reaches here. A path has one slot at most. Past a few
 * slots (state.c) they are indexed: a table from path to slot, and one
 * from each proper prefix of a bound path to how many are below it, so a
 * lookup, a store and the kill of a path without bound descendants cost
 * no scan; a killed slot stays (gone) until gone slots outnumber the
 * others, then the slots are compacted. */
typedef struct TlState {
	TlArray(TlSlot) slots; /* in binding order */
	uint32_t live;         /* slots not gone */
	bool indexed;
	uint32_t *index;       /* open addressing: slot + 2; 1: removed; 0: empty */
	uint32_t icap, iused;  /* a power of two; entries not empty */
	TlStateUp *ups;        /* open addressing, never removed but by a rebuild */
	uint32_t ucap, uused;
	uint8_t grad;
	bool dead;
} TlState;

/* A function's summary. */
typedef struct TlFuncSum {
	TlVal ret;       /* the join of its returns (pgraph: the parameters it follows) */
	uint8_t status;  /* 0: not interpreted yet, 1: interpreted at least once */
	bool returns;    /* some return statement hands back a value */
	uint16_t ctx_sites; /* its call sites interpreted (context.c) */
	/* Its last interpretation read a value not computed yet (a global
	 * before the module's code ran, a summary not made yet), or its entry
	 * contexts rose since (context.c): the next one replaces its return
	 * value instead of joining into it. */
	bool provisional;
	int8_t generator; /* its text yields: 1, not: 0, not looked at yet: -1 */
	/* Its parameters (bit i: parameter i < 16) that it re-binds to a value
	 * without history or detaches in place (carry.c). */
	uint16_t detaches;
	/* Its parameters (bit i) whose history a store keeps in an attribute
	 * of `self` that it adds to (keeps.c). */
	uint16_t keeps;
	/* Its parameters (bit i) on which, or on whose sampler, it calls
	 * `set_epoch`, itself or through a function of the project (epochs.c). */
	uint16_t epochs;
	/* Its parameters (bit i) whose object, or a container holding it,
	 * `torch.save` writes, itself or through a function of the project it
	 * hands the parameter to (flow.c: tl_in__save_call). */
	uint16_t saves;
	/* What it leaves its parameters' modules in (modes.c): its records in
	 * TlModel.mode_effs from `meff_first`, `meff_n` of them; `meff_wide`:
	 * it may switch a module those do not name. */
	int32_t meff_first;
	uint8_t meff_n;
	bool meff_wide;
	/* deps.c: m->clock when its last interpretation began (0: interpret
	 * it again whatever it read) and when its summary last changed;
	 * whether that interpretation read a value not computed yet or handed
	 * a call site different values; what it returned, before the join. */
	uint32_t ran_at, changed_at;
	/* ... m->clock when its last interpretation began, kept through the
	 * top-down sweep (gradmode.c: the statements it ran) */
	uint32_t last_run;
	bool read_pending, churn;
	TlVal raw;
	/* gradmode.c: the grad mode it is entered in, as its last
	 * interpretation read it (0: not decided yet, read as enabled; 1:
	 * disabled; 2: not known to be). */
	uint8_t entry_grad;
	/* retback.c: whether a caller in an importer differentiates what it
	 * returns (0: not asked yet, 1: none found, 2: one does). */
	uint8_t ret_back;
} TlFuncSum;

/* handedin.c: one parameter's summary (TlModel.handed_sets). */
typedef struct TlHandedSet {
	uint32_t first, n;
	bool known;
	/* tl_model_handed_wrap: the wrapper kinds of the arguments (TL_VW_*),
	 * once asked (wrap_asked). */
	bool wrap_asked;
	uint8_t wrap;
} TlHandedSet;

struct TlModel {
	const TlIndex *idx;
	TlValPool pool;
	TlPathNames names;
	TlScopeMap vals;     /* (start byte, end byte) of an expression -> pool index */
	TlScopeMap attrs;    /* (class, interned name) -> pool index: what `self.name` holds */
	TlScopeMap kept_attr; /* (function, parameter) -> interned name: the attribute of `self` a store keeps it in (keeps.c) */
	TlScopeMap attr_read; /* (class, interned name) -> 1: an attribute a method of the module read */
	/* (class, interned name) -> 1: a buffer `self.register_buffer(name, t)`
	 * registers that requires no grad on every registration; 0: one may */
	TlScopeMap buffers;
	TlScopeMap attr_stores; /* (class, interned name) -> the first of its stores in m->stores */
	TlArray(TlAttrStore) stores;
	TlScopeMap backprop; /* (function + 1, path hash) -> 1: a path a backward consumes */
	TlScopeMap declared; /* (class, interned name) -> 1: a `self.name` some method binds */
	TlScopeMap tensor_keys; /* (0, interned key text) -> 1: a string key the module uses as a tensor */
	/* Loop-carried paths (carry.c): (loop's start byte, 0) -> 0 for a loop
	 * whose iteration ran; (loop's start byte, path hash + 1) -> the first
	 * of its records with that hash (m->carries). */
	TlScopeMap carried;
	TlArray(TlCarry) carries;
	TlArray(TlFuncSum) funcs;
	TlScopeMap ctx_vals; /* (function, parameter) -> pool index: what every call site hands it (context.c) */
	TlScopeMap ctx_seen; /* (function, call start byte + 1) -> 1: a call site interpreted */
	/* (call start byte + 1, function * TL_MODEL_CTX_PARAMS + parameter) ->
	 * pool index: what that site's last evaluation handed the parameter */
	TlScopeMap ctx_site;
	/* bind.c: (function, parameter) -> 1: a call site leaves it to its
	 * default; -> pool index: its default's value where the function was
	 * last entered; (function, 0) -> the parameters some call site of
	 * the module names (bit i); (function, 1 + 2i) -> what the importers'
	 * call sites do with parameter i (bits: 1 one leaves it out, 2 one
	 * passes what is not known), (function, 2 + 2i) -> pool index: the
	 * join of what they pass. */
	TlScopeMap ctx_left, dflt, passed;
	/* context.c, read off the index once (NULL until asked): per class,
	 * 1 + the number of its calls that make an instance of it by its name
	 * (0: not counted yet), and those calls (ctor_calls, from ctor_from[c]
	 * on); per function, 1 + whether a call names it but goes elsewhere
	 * (0: not asked yet); (call start byte + 1, 0) -> the first call of
	 * the index that starts there (call_at, filled with the first). */
	uint32_t *ctor_count;
	uint32_t *ctor_from;
	TlArray(uint32_t) ctor_calls;
	uint8_t *elsewhere;
	TlScopeMap call_at;
	/* bind.c: per function, TL_MODEL_CTX_PARAMS each, the constant
	 * (TlVal.cst) every call site in the modules that import this one
	 * hands the parameter, or leaves to its literal default: 0 none, -2 no
	 * such site, -1 not known (an importer mentions the function other
	 * than by calling it); NULL until asked. */
	int32_t *ext_cst;
	TlScopeMap inplace;  /* (class, interned name) -> TL_VW_* bits: `self.x = DDP(self.x)` in a method */
	struct TlFlow *flow; /* flow.c: what was computed from what (NULL until a value is) */
	struct TlVary *vary; /* vary.c: what each loop's iteration and each helper's call change (NULL until asked) */
	struct TlBackprop *bp; /* backprop.c: the bindings and the backwards' subjects in the flow graph (NULL until one is) */
	TlState globals;     /* the module's own names after its code ran */
	TlModelStats stats;
	bool cut;            /* a bound stopped the interpretation */
	bool changed;        /* a summary or a class attribute rose in this pass */
	bool building;       /* being built (an import cycle reads the top) */
	bool globals_ready;  /* the module's code ran once: m->globals holds its names */
	/* An interpretation read a value not computed yet (a summary of a
	 * function not interpreted, an attribute a method not run yet stores,
	 * a global before the module's code ran): only then can another round
	 * or pass change anything. */
	bool pending;
	uint32_t epoch;      /* the passes run so far (run.c's tl_model__run) */
	/* Another module's model, built for its summaries: no expression's
	 * value is recorded, and one pass is run. */
	bool quiet;
	/* The call graph's components (run.c), kept for the file's own
	 * model, which is interpreted on demand: what a question's function
	 * reaches, once. */
	TlIntArray order, starts;
	int32_t *comp_of;        /* per node (function, then class) */
	TlIntLists comp_edges;   /* per component: the components it leads to */
	TlIntLists comp_from;    /* per component: the components that lead to it */
	uint8_t *comp_done;      /* per component: interpreted */
	bool module_done;        /* the module's own code interpreted */
	bool running;            /* an interpretation is under way */
	TlIntArray requested;    /* functions whose summary was read before they ran */
	/* entry.c: the components the module's own code reaches (NULL until
	 * the first top-down sweep), and whether one is under way. */
	uint8_t *from_module;
	bool topdown;
	/* Grammar symbols tl_syms() does not name, looked up once per model:
	 * try_statement, finally_clause, match_statement, case_clause, slice,
	 * concatenated_string. */
	TSSymbol syms[6];
	/* The named children of the nodes the interpreter read the children
	 * of (eval.c's tl_in__kids), kept for the next pass or round: (the
	 * node's id, low and high half) -> its entry in kid_spans (first in
	 * kid_nodes, count). */
	TlScopeMap kid_at;
	TlArray(uint32_t) kid_spans;
	TlArray(TSNode) kid_nodes;
	/* deps.c: interpretations begun so far; the clock of the last change
	 * of the globals and of each class attribute a function read ((class,
	 * interned name) -> its entry in attr_at); per function what
	 * its last interpretation read (dep_cur: the one under way, recorded
	 * while dep_on) and the entry context it began with (per function and
	 * parameter: pool index, -1 none); (call site, parameter key) -> the
	 * clock of the interpretation that last handed it a value. */
	uint32_t clock, globals_at;
	TlScopeMap attr_keys;
	TlArray(uint32_t) attr_at;
	TlIntLists deps;
	TlIntArray dep_cur;
	bool dep_on, read_pending, churn;
	int32_t *ctx_got;
	TlScopeMap ctx_stamp;
	/* gradmode.c: (start byte, end byte) of each statement interpreted -> the
	 * join of the grad modes it began in (TL_MGRAD_*) in the last
	 * interpretation that ran it, and that interpretation's clock; per function, its
	 * entry mode once resolved (0: not yet, 1: disabled, 2: not known to
	 * be), and whether a resolution is under way (an import cycle). */
	TlScopeMap grad_at;
	uint32_t grad_clock; /* the interpretation under way: its clock (deps.c) */
	uint8_t *grad_entry;
	bool grad_busy;
	uint8_t *holds_none; /* holdsnone.c: per class, 0 not asked, 1 holds none, 2 not known to */
	uint8_t *holds_no_state; /* the same of "holds no state" (tl_model__holds_no_state) */
	/* trains.c: per question (training runs around it, a loop does, a
	 * step loop does) and function, 1 so, 2 not known to be (NULL: not
	 * yet asked). */
	uint8_t *around[3];
	bool around_busy[3];
	/* modes.c: the functions' mode effects (TlFuncSum.meff_first). */
	TlArray(TlModeEff) mode_effs;
	/* handedin.c: (function, parameter) -> its entry in handed_sets: what
	 * the project hands the parameter, those of handed_args from `first`. */
	TlScopeMap handed_at;
	TlArray(TlHandedSet) handed_sets;
	TlArray(TlParamArg) handed_args;
	/* handedin.c: the parameter each (class, attribute) holds, as asked
	 * (tl_model_attr_param); NULL until first asked. */
	struct TlAttrParams *attr_params;
	/* modes.c: at each call of a method of a project class through an
	 * instance (its start byte), the modes the state holds for the
	 * receiver's attributes ((site, attribute's interned name + 1) ->
	 * TlVal.mode bits, joined over the interpretations; (site, 0): the
	 * call was interpreted). */
	TlScopeMap site_modes;
	/* modes.c: the tests that decide a mode (TL_VMODE_COND_OF's k). */
	TlModeCond mode_conds[TL_VMODE_CONDS];
	uint32_t nmode_conds;
};

void tl_state_init(TlState *s);
void tl_state_release(TlState *s);
void tl_state_copy(TlState *dst, const TlState *src);
/* dst := dst ⊔ src (a dead state is the join's unit). */
void tl_state_join(TlValPool *p, TlState *dst, const TlState *src);
bool tl_state_equal(const TlValPool *p, const TlState *a, const TlState *b);
/* dst := the widening of dst by now. */
void tl_state_widen(TlValPool *p, TlState *dst, const TlState *now);
const TlVal *tl_state_get(const TlState *s, const TlPath *path);
/* A strong update: the path (and every path below it) gets `v`. */
void tl_state_set(TlState *s, const TlPath *path, const TlVal *v);
void tl_state_kill(TlState *s, const TlPath *path);
/* The slot of `path`, or NULL. */
const TlSlot *tl_state_slot(const TlState *s, const TlPath *path);
/* Sets the TlVal.nograd of the value of `path`, when bound, in place: no
 * store (the object is the same: `x.requires_grad_()`). */
void tl_state_set_nograd(TlState *s, const TlPath *path, uint8_t nograd);
/* Sets the requires-grad flag of the value at `path` (tl_val_set_ng), in place. */
void tl_state_set_ng(TlState *s, const TlPath *path, int32_t ng);
/* Sets the TlVal.mode of `path` and of every path below it, in place (no
 * store: `model.eval()`); when `path` is not bound, binds it to `*unbound`
 * (when not NULL) in that mode, marked as no store. */
void tl_state_set_mode(TlState *s, const TlPath *path, uint8_t mode, const TlVal *unbound);
/* Every path's mode no longer known (a call that may switch some). */
void tl_state_forget_modes(TlState *s);
/* The value at `path` replaced in place: no store (the object is the
 * same; its must and may bits kept). Nothing when the state lacks it. */
void tl_state_replace(TlState *s, const TlPath *path, const TlVal *v);
/* Clears bit `bit` of every slot's stores (a loop's head). */
void tl_state_clear_stores(TlState *s, uint8_t bit);

/* interp.c: interprets function `func` of the model's module (-1: its
 * own code) with the summaries as they stand: records the value of every
 * expression it evaluates, joins what the function returns into its
 * summary and, for the module's code, leaves its names in m->globals. */
void tl_model__interpret(TlModel *m, int32_t func);
/* deps.c: what interpretations read, so that a pass interprets again
 * only the functions whose inputs changed. dep_begin starts function
 * `func`'s interpretation (-1: the module's code) and returns the clock;
 * dep_end records what it read and returned (`raw`, before the join). The
 * reads: a summary of the module's function `func` (`requested`: asked
 * for, not made yet), attribute `name` of class `cls`, the globals. A
 * change stamps TlFuncSum.changed_at, attr_at (dep_attr_changed) or
 * globals_at with m->clock.
 * dep_stamp_ctx: call site `site` handed key `key` a value (`differs`:
 * not the one it held). dep_clean: nothing `func` read changed since its
 * last interpretation; dep_skip: what interpreting it again would do. */
void tl_model__deps_init(TlModel *m);
void tl_model__deps_release(TlModel *m);
uint32_t tl_model__dep_begin(TlModel *m, int32_t func);
void tl_model__dep_end(TlModel *m, int32_t func, const TlVal *raw);
void tl_model__dep_summary(TlModel *m, int32_t func, bool requested);
void tl_model__dep_attr(TlModel *m, int32_t cls, int32_t name);
void tl_model__dep_attr_changed(TlModel *m, int32_t cls, int32_t name);
void tl_model__dep_globals(TlModel *m);
void tl_model__dep_stamp_ctx(TlModel *m, uint32_t site, uint32_t key, bool differs);
/* The same for store `site` into an attribute of `self`. */
void tl_model__dep_stamp_store(TlModel *m, uint32_t site, bool differs);
bool tl_model__dep_clean(TlModel *m, int32_t func);
void tl_model__dep_skip(TlModel *m, int32_t func);
/* run.c: interprets what a question about function `func` (-1: the
 * module's own code) needs, once. */
void tl_model__ensure(TlModel *m, int32_t func);

/* model.c, for the interpreter. The value a class attribute holds (class
 * `cls` of module `mod`, bases of the project included), copied into m's
 * pool; false when none is known. */
bool tl_model__class_attr(TlModel *m, const TlIndex *mod, int32_t cls, int32_t name, const char *text,
			  TlVal *out);
/* holdsnone.c: class `cls` of module `mod` (m's, or another of the
 * project, its model read under the project's lock) is an nn.Module that
 * holds no parameter that requires grad. */
bool tl_model__holds_none(TlModel *m, const TlIndex *mod, int32_t cls);
/* holdsnone.c: parameter binding `b` of a function of `mod` holds a plain
 * value (a number, a string, a flag: a literal default, a plain
 * annotation, a size handed to a parameter-free layer). */
bool tl_model__plain_param(const TlModel *m, const TlIndex *mod, const TlBinding *b);
/* holdsnone.c: class `cls` of `mod` is an nn.Module that holds no state at
 * all: no parameter or buffer (frozen or not) and no layer whose mode
 * matters (dropout), only numbers, flags, plain tensors and layers of the
 * table's parameter-free set, its bases and the project's classes it
 * holds the same. Registering an instance changes nothing then. */
bool tl_model__holds_no_state(TlModel *m, const TlIndex *mod, int32_t cls);
/* callers.c: a call site in a module that imports m's (`mod`, its model
 * `om` with the caller interpreted, NULL in an import cycle) of function
 * `func` of m's module. tl_model__importer_calls visits each, those of
 * the functions `want` (NULL: all) takes; `how` (TL_CALLERS_*): also
 * methods called through an instance the importer's model holds, and
 * constructors. tl_model__twin: the
 * function of `idx` that function `ref` of `mod` (the project's reading of
 * the same file) is, by place; -1 none. */
typedef struct TlExtCall {
	const TlIndex *mod;
	TlModel *om;
	const TlCall *call;
	int32_t func;
	bool bound; /* the call binds the method's first parameter (an instance's, a constructor) */
} TlExtCall;
/* What tl_model__importer_calls visits besides calls by name: methods
 * through an instance, constructors (a class's own `__init__`); with
 * TL_CALLERS_TEXT the calls only, no importer's model asked (om NULL);
 * with TL_CALLERS_NAMES also methods through an instance that the
 * receiver's bindings tell (`self`, a name or `self.<attr>` assigned a
 * construction, a parameter annotated with a class; inherited from a base
 * in m's module) or a factory of m's package made (`model =
 * create_model(opt)`: the one class of m's module defining the method);
 * with TL_CALLERS_VALUES also a call of a local name that the importer's
 * model holds as a function of m's module, a value the importer was
 * handed (`fn = make_fn(model)`, then `fn(x)`: the closure a factory of
 * m's module returns), in an importer that calls a function of m's module
 * by name. */
enum { TL_CALLERS_INSTANCES = 1, TL_CALLERS_MAKERS = 2, TL_CALLERS_TEXT = 4, TL_CALLERS_NAMES = 8, TL_CALLERS_VALUES = 16 };
void tl_model__importer_calls(TlModel *m, unsigned how, bool (*want)(void *ctx, int32_t func),
			      void (*visit)(void *ctx, const TlExtCall *s), void *ctx);
/* The same of idx's module from the indexes alone (as TL_CALLERS_TEXT: no
 * model asked, m's or an importer's; a global of another module that an
 * import names is none of its functions): what the index's events may ask
 * while the facts are built, before any model. */
void tl_model__importer_calls_index(const TlIndex *idx, unsigned how, bool (*want)(void *ctx, int32_t func),
				    void (*visit)(void *ctx, const TlExtCall *s), void *ctx);
/* callers.c: the end of a call's callee in an importer (TlExtCall's
 * mod, the end byte of call->callee, the function it calls). Marks in
 * `bad` (per function) each function of m's module whose name (a whole
 * word of the text) a module that imports m's mentions other than as the
 * callee of one of the calls `ends` (sorted here), or in an import
 * statement that keeps its name in a module that calls it (passed as a
 * value, renamed, in a string, imported only: a re-export, whose own
 * importers are not read), or mentions at all when it is a package's
 * __init__.py; false when an importer has a star import (it may
 * re-export any), or the importers are more than tl_model__importer_calls
 * reads. */
typedef struct TlExtEnd {
	const TlIndex *mod;
	uint32_t end;
	int32_t func;
} TlExtEnd;
bool tl_model__importers_mentions(TlModel *m, TlExtEnd *ends, uint32_t nends, uint8_t *bad);
int32_t tl_model__twin(const TlIndex *idx, const TlIndex *mod, int32_t ref);
/* A module-level name the module binds by no statement of its own, bound
 * by one of its star imports of project modules (`from .parts import *`):
 * the class or function it names there. */
bool tl_model__star_name(TlModel *m, const char *name, TlVal *out);
/* Dotted name `q` whose root `mod` binds by no statement of its own but a
 * star import of a project module binds to a library's module (`nn` of
 * `import torch.nn as nn` there): the qualified name (`torch.nn.Module`),
 * caller frees; NULL otherwise. */
char *tl_model__star_qualify(const TlIndex *mod, const char *q);
/* The method `name` of class `cls` of `mod`, or of a base of it in the
 * project: its module and index (-1: none). */
int32_t tl_model__method(const TlIndex *mod, int32_t cls, const char *name, const TlIndex **where);
/* True when class `cls` of `mod` is an nn.Module: it or a base derives
 * from one, in its module or (through `mod`'s imports) in another of the
 * project. */
bool tl_model__class_is_module(TlModel *m, const TlIndex *mod, int32_t cls);
/* The class another module of the project defines that a base of class
 * `c` of `mod` names (its index in *cls), or NULL. */
const TlIndex *tl_model__far_base(TlModel *m, const TlIndex *mod, const TlClass *c, int32_t *cls);
/* A class and its bases, breadth first: those of its module, one another
 * module of the project defines (through the imports), a few classes in
 * all. tl_model__bases_next gives the class itself first, then each base
 * (its module in *at); NULL when none is left. */
typedef struct {
	struct { const TlIndex *mod; int32_t cls; } todo[16];
	uint32_t n, head;
} TlBaseWalk;
void tl_model__bases_begin(TlBaseWalk *w, const TlIndex *mod, int32_t cls);
const TlClass *tl_model__bases_next(TlModel *m, TlBaseWalk *w, const TlIndex **at);
/* bases.c: the API table's row of the loader or sampler class that class
 * `cls` of `mod` derives from (in its module or through other modules of
 * the project), when no class on the way defines `__iter__`; else NULL. */
const struct TlApiRow *tl_model__class_api(TlModel *m, const TlIndex *mod, int32_t cls);
/* A class and its bases, depth first, the first base first: at each
 * class, its bases in its module, then those its bases name in another
 * module of the project (through the imports), each resolved when
 * reached; each class once, at most TL_MODEL_WALK_CLASSES in all.
 * tl_model__class_walk_next gives the class itself first, then each base
 * (its index in *cls, its module returned); NULL when none is left. `m`
 * may be NULL (no global's value is read on the way). */
#define TL_MODEL_WALK_CLASSES 64
typedef struct {
	TlModel *m;
	bool far;
	uint32_t n, visited;
	struct {
		const TlIndex *mod;
		int32_t cls;
		const char *base; /* a base's qualified name, resolved when popped */
	} stack[TL_MODEL_WALK_CLASSES];
	struct {
		const TlIndex *mod;
		int32_t cls;
	} seen[TL_MODEL_WALK_CLASSES];
} TlClassWalk;
void tl_model__class_walk_begin(TlClassWalk *w, TlModel *m, const TlIndex *mod, int32_t cls);
const TlIndex *tl_model__class_walk_next(TlClassWalk *w, int32_t *cls);
/* The method `name` of class `cls` of `mod` or of a base, following bases
 * that other modules of the project define (through the imports), depth
 * first (tl_model_class_method); `m` may be NULL (no global's value is
 * then read on the way). */
int32_t tl_model__method_far(TlModel *m, const TlIndex *mod, int32_t cls, const char *name,
			     const TlIndex **where);
/* What a dotted name `qname` (as the index resolves imports: "models.Net",
 * ".losses.focal") names in a module of the project: a function, a class
 * or a global's value, copied into m's pool. */
bool tl_model__resolve(TlModel *m, const char *qname, TlVal *out);
/* seeds.c: the kind of parameter `b` that no call site tells, from its
 * annotation, the file's module evidence and its name, set in `*v` (marked
 * TL_VM_GUESS); false when nothing says it. */
bool tl_model__seed_param(TlModel *m, const TlBinding *b, TlVal *v);
/* ... a value `v` read through name `n` (identifier, attribute, subscript)
 * that the model does not know becomes a module (TL_VM_GUESS) when the file
 * calls a module's methods on that name; true when name `n` (identifier or
 * attribute) is named like a `kind` (TL_VK_CRITERION: `criterion`, `loss_fn`;
 * TL_VK_OPTIMIZER; TL_VK_SCALER) in a file of the PyTorch ecosystem. */
void tl_model__seed_read(TlModel *m, TSNode n, TlVal *v);
bool tl_model__seed_named(const TlModel *m, TSNode n, TlVKind kind);
/* The summary of function `func` of module `mod` (m's own or another),
 * copied into m's pool; false when it is not known. */
bool tl_model__summary(TlModel *m, const TlIndex *mod, int32_t func, TlVal *out);
/* Records `v` as the value a store `self.name = v` at `site` (its
 * target's start byte + 1) in a method of class `cls` of m's module
 * stores: the attribute holds the join of what each of its stores last
 * stored. */
void tl_model__store_attr(TlModel *m, int32_t cls, int32_t name, const TlVal *v, uint32_t site);
/* A buffer of class `cls` registered under `name` that requires no grad
 * (`nograd`) or may (TlModel.buffers; joined as an and). */
void tl_model__store_buffer(TlModel *m, int32_t cls, int32_t name, bool nograd);
/* 1 when buffer `name` of class `cls` of the model's module requires no
 * grad, 0 when it may, -1 when the class registers no such buffer (a
 * method that reads it depends on it). */
int tl_model__buffer_nograd(TlModel *m, int32_t cls, int32_t name);
/* Records that a method of class `cls` wraps attribute `name` in place
 * (`self.model = DDP(self.model)`), a wrapper of kinds `wrap`: from then on
 * a read of the attribute is the wrapper of what it holds. */
void tl_model__wrap_in_place(TlModel *m, int32_t cls, int32_t name, unsigned wrap);
/* True when string key `key` (a string node) is one the module uses as a
 * tensor: `out["loss"].backward()`, `F.mse_loss(out["y"], t)`,
 * `out["feat"].detach()`. */
bool tl_model__tensor_key(const TlModel *m, const TlIndex *idx, TSNode key);
/* context.c: entry contexts. The parameters a context is kept for. */
#define TL_MODEL_CTX_PARAMS 16
/* Notes a call of function `func` of m's module at call site `site` (its
 * start byte + 1) with the values `args` it hands the parameters from
 * `shift` on (a method's `self` before them); `left`, bit i: the site
 * leaves parameter i to its default (bind.c). */
void tl_model__ctx_note(TlModel *m, int32_t func, uint32_t site, const TlVal *args, uint32_t nargs,
			uint32_t shift, uint16_t left);
/* The parts of an argument an entry context keeps (its kind, class, what
 * its call computes; a tensor's device and dtype), not its history. */
TlVal tl_model__ctx_part(const TlVal *arg);
/* bind.c: the value parameter `i` of `func` takes when a call leaves it
 * out, as its entry last evaluated it (a context's part); false when
 * none was. */
bool tl_model__default_ctx(const TlModel *m, int32_t func, uint32_t i, TlVal *out);
/* What every call site of `func` hands its parameter `i`, once every call
 * site was interpreted and nothing else can call it: a value of kind
 * module, wrapper, object, optimizer, scaler or criterion, a tensor (its
 * device and dtype) or a DataLoader, or of unknown kind with a device or
 * a batch's made-by; false when there is none. A site that leaves the
 * parameter out hands it its default's value. */
bool tl_model__ctx_param(TlModel *m, int32_t func, uint32_t i, TlVal *out);
/* entry.c. During the top-down sweep: the class parameter `i` of
 * function `func` holds when every call site in the module passes an
 * object of that class (its kind, ref and mod set in *out): entry
 * contexts (context.c) settle one caller deep in the passes; the sweep,
 * callers first, carries them down a chain of helpers. */
bool tl_model__entry(TlModel *m, int32_t func, uint32_t i, TlVal *out);
/* After the module's code and what it reaches ran: each of those
 * functions with a parameter so refined, interpreted again, callers
 * first. */
void tl_model__topdown(TlModel *m);
/* consts.c: the constant (TlVal.cst) of literal `n` of `idx` (a string,
 * an int, True, False, None), of `len` bytes of text; 0: none. */
uint16_t tl_model__const_literal(TlModel *m, const TlIndex *idx, TSNode n);
uint16_t tl_model__const_of_text(TlModel *m, const char *s, uint32_t len);
/* context.c: the constant every call site of `func` hands its parameter
 * `i` (a default where a site leaves it out), when every caller is known:
 * no module of the project imports this one, the function is never
 * referenced but by a call, every call site was interpreted, and (a
 * method) no call of its name goes elsewhere; 0: none. */
uint16_t tl_model__ctx_const(TlModel *m, int32_t func, uint32_t i);
/* bind.c: the default value's expression of parameter `i` of `fn`, or a
 * null node. */
TSNode tl_model__param_default(const TlIndex *idx, const TlFunc *fn, uint32_t i);
/* bind.c: how call node `call` binds the parameters of `fn` from `shift`
 * on (i < TL_MODEL_CTX_PARAMS and the parameters' count): arg[i] the
 * argument's expression (a keyword argument's value), null when none
 * does; left[i] 1 when the call leaves it to its default (no splat that
 * may pass it, a default to take). */
void tl_model__site_args(const TlIndex *idx, const TlFunc *fn, TSNode call, uint32_t shift, TSNode *arg,
			 uint8_t *left);
/* bind.c: the same for call node `call` of module `cidx` and `fn` a
 * function of module `idx` (a construction in another module). */
void tl_model__site_args_in(const TlIndex *idx, const TlFunc *fn, const TlIndex *cidx, TSNode call, uint32_t shift,
			    TSNode *arg, uint8_t *left);
/* sitectx.c: the constants construction call `call` (of module `cidx`,
 * in its function `caller`, whose parameters hold the constants `outer`,
 * NULL none) hands the parameters of constructor `init` of module `idx`
 * (its own literal arguments, the literal defaults it leaves, a
 * parameter of the caller passed through, a test of them): into p[]
 * (TL_MODEL_CTX_PARAMS, 0 none). */
void tl_model__ctor_consts(TlModel *m, const TlIndex *idx, int32_t init, const TlIndex *cidx, TSNode call,
			   int32_t caller, const uint16_t *outer, uint16_t *p);
/* sitectx.c: the truth of condition `cond` of function `func` of `idx`
 * whose parameters hold the constants p[] (and the attributes of `self`
 * its body stores from them before `cond`): 1, 0, -1 not known. */
int tl_model__ctx_cond(TlModel *m, const TlIndex *idx, int32_t func, const uint16_t *p, TSNode cond);
/* sitectx.c: the constant expression `e` of `func` holds under them, 0
 * none. */
uint16_t tl_model__ctx_value(TlModel *m, const TlIndex *idx, int32_t func, const uint16_t *p, TSNode e);
/* sitectx.c: false when those constants decide a test around `node` (of
 * `func`) against it. */
bool tl_model__ctx_runs(TlModel *m, const TlIndex *idx, int32_t func, const uint16_t *p, TSNode node);
/* sitectx.c: the constants call `site` (of module `cidx`, NULL: none)
 * hands the first TL_MODEL_CTX_PARAMS parameters of function `f` of
 * `idx` (m: idx's model): a literal, a test of literals, the literal
 * default it leaves; 0 where none. */
void tl_model__site_consts(TlModel *m, const TlIndex *idx, int32_t f, const TlIndex *cidx, const TlCall *site,
			   uint16_t *p);
/* sitectx.c: true when condition `cond` of function `f` reads one of its
 * first TL_MODEL_CTX_PARAMS parameters (bound nowhere else in `f`), which
 * a call site's constants may decide. */
bool tl_model__ctx_test_on_params(const TlIndex *idx, int32_t f, TSNode cond);
/* modes.c: mode `mode` of function `f` (of m's module `idx`) under the
 * parameters' constants `p`: its tests (TL_VMODE_COND_OF) decided where
 * the constants decide them, else the join of their modes. */
uint8_t tl_model__mode_under(TlModel *m, const TlIndex *idx, uint8_t mode, int32_t f, const uint16_t *p);
/* modes.c: the mode test `test` of function `func` decides, `then` where
 * it holds and `other` where it fails (TL_VMODE_COND_OF), or their join. */
uint8_t tl_model__mode_cond(TlModel *m, int32_t func, TSNode test, uint8_t then, uint8_t other);
/* holdsnone.c: an instance of class `cls` of `mod` built by call `call`
 * of m's module (in function `caller`) holds no parameter that requires
 * grad under the constants that call passes (docs/semantic-model.md,
 * "Parameters under a construction's constants"). */
bool tl_model__site_holds_none(TlModel *m, TSNode call, int32_t caller, const TlIndex *mod, int32_t cls);
/* consts.c: the operator token of `n` (a comparison of two operands, a
 * boolean operator): its type, or NULL when there is not exactly one. */
const char *tl_model__const_op(TSNode n);
/* consts.c: the truth of `a OP b` for constants `a` and `b` (0 when not
 * known) and OP one of `==`, `!=` (True == 1), `is`, `is not`: 1, 0, or -1
 * when it is not known (another operator, or `is` between values that
 * need not be one object). */
int tl_model__const_compare(const char *op, uint16_t a, uint16_t b);
/* bind.c: the constant every call site of `func` in the modules that
 * import m's hands its parameter `i` (a literal argument, or the literal
 * default a site leaves it to) into *out (0: none), TL_MODEL_EXT_NO_SITE
 * when none calls it; false when they are not all known
 * (tl_model__importers_only_call). Found once per function, from the
 * importers' text alone (no importer's model is asked). */
#define TL_MODEL_EXT_NO_SITE 0xffffu
bool tl_model__ext_const(TlModel *m, int32_t func, uint32_t i, uint32_t *out);
/* Records the value of the expression spanning [start, end). */
void tl_model__record(TlModel *m, uint32_t start, uint32_t end, const TlVal *v);

/* flow.c: the flow graph's release. */
typedef struct TlFlow TlFlow;
void tl_model__flow_release(TlModel *m);
/* flow.c: function `func` (-1: the module's code) is interpreted from now
 * on (`record`: another module's model records its flow graph for it);
 * the edges of kind keep made while it was, appended to `from` and `to`. */
void tl_model__flow_begin(TlModel *m, int32_t func, bool record);
void tl_model__flow_kept(const TlModel *m, int32_t func, TlIntArray *from, TlIntArray *to);
/* ... the node of the binding of `target`, or -1: none made yet. */
int32_t tl_model__flow_bind_node(const TlModel *m, TSNode target);
/* backprop.c: the paths the backwards consume (m->backprop), before any
 * interpretation; function `func`'s interpretation begins; it ended:
 * the paths what its backwards consume keeps the history of, marked,
 * true when that grew (interpret it again). */
typedef struct TlBackprop TlBackprop;
void tl_model__backprop(TlModel *m);
void tl_model__backprop_begin(TlModel *m, int32_t func);
bool tl_model__backprop_end(TlModel *m, int32_t func);
void tl_model__backprop_release(TlModel *m);
/* vary.c: the loop-invariance tables' release. */
typedef struct TlVary TlVary;
void tl_model__vary_release(TlModel *m);

/* model.c: models being built on this thread, one inside another (an
 * import's), and interpretations under way (run.c counts them too). */
extern _Thread_local int tl_model__nesting;
/* run.c. The call graph's components, callees first (m->order,
 * m->starts), and the graph of the components (m->comp_of,
 * m->comp_edges, m->comp_from, m->comp_done), from the index. */
void tl_model__order(TlModel *m);
/* Interprets the components marked in `want` (every one when NULL),
 * callees first, each to a fixpoint; then, with `module_code`, the
 * module's own code; again while something rose that an interpretation
 * read before it was computed. */
void tl_model__run(TlModel *m, const uint8_t *want, bool module_code);
/* The module's code ran: its globals are what a function reads of them
 * from now on. */
void tl_model__globals_ready(TlModel *m);
/* Every component of the module interpreted (a question whose answer is
 * anywhere in it). */
void tl_model__ensure_all(TlModel *m);
/* model.c, for gradmode.c: another module's model (NULL in an import cycle or
 * past the nesting bound); the project's lock and the work bound around
 * reading another module; what dotted name `q` names as module `from`
 * imports it. */
const TlModel *tl_model__other(const TlModel *m, const TlIndex *mod);
void tl_model__enter(const TlIndex *idx);
/* True when `from` is a module of PyTorch's own packages (by the top of
 * its package chain): no module is read for its relative imports, and no
 * importer is read for its call sites. */
bool tl_model__torch_package(const TlIndex *from);
void tl_model__leave(const TlIndex *idx);
bool tl_model__resolve_in(TlModel *m, const TlIndex *from, const char *q, size_t len, TlVal *out);
/* The module of the project that dotted name `q` (a call's qualified name)
 * is defined in, as module `from` imports it; NULL for none (the API, a
 * name no module of the project holds). */
const TlIndex *tl_model__module_of_name(const TlIndex *from, const char *q);
/* gradmode.c: notes the grad mode statement `s` begins in; runs a statement
 * `torch.set_grad_enabled(...)` (call `c`); releases the tables. */
void tl_model__grad_note(TlModel *m, TSNode s, uint8_t grad);
uint8_t tl_model__grad_switch(const TlIndex *idx, const TlCall *c, uint8_t grad);
void tl_model__grad_release(TlModel *m);
void tl_model__handed_release(TlModel *m);
/* The tables of a module that need only its index, kept with it
 * (TlIndex.tables) whether or not its model is built: with the model not
 * yet built, every question solved the whole module again. Each pointer is
 * NULL until first asked, then published once with a compare-and-exchange
 * and never changed (another module's index is shared between threads; a
 * thread that loses the exchange frees its copy and reads the winner's). */
typedef struct TlIndexTables {
	/* autocast.c: per kind of autocast asked (not-CPU, float16: bits 0, 1),
	 * each function's entry (1 under it, 2 not known to be). */
	uint8_t *autocast_entry[4];
	/* steps.c: per kinds of step loop asked (TL_STEP_* bits) and guard
	 * (bit 2), each function's step entry (1 so, 2 not known to be); the
	 * backward loops per function. */
	uint8_t *step_entry[8];
	struct TlBwSets *bw_sets;
	/* callers.c: per function, 1 when a call of a module importing this
	 * one runs it (tl_model_importer_sites), else 2. */
	uint8_t *importer_called;
} TlIndexTables;
/* steps.c: the tables of `idx`, made on first use. */
TlIndexTables *tl_model__tables(const TlIndex *idx);
/* steps.c: publishes `made` in *slot unless another is there; returns the
 * one published (`made` is then the caller's to free when they differ). */
void *tl_model__publish(void **slot, void *made);
/* gradmode.c: the entry modes of the functions of the components marked
 * in `want` (every one when NULL), after the bottom-up run interpreted
 * them and their callers; those that changed are interpreted again
 * (tl_model__run with `module_code`), to a fixpoint in at most
 * TL_GRAD_ENTRY_STEPS steps. */
void tl_model__grad_phase(TlModel *m, const uint8_t *want, bool module_code);
/* modes.c: releases the mode effects. */
void tl_model__modes_release(TlModel *m);

#endif
