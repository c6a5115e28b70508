/* Private to the interpreter (interp.c: statements; eval.c: expressions,
 * calls and bindings): its frames and its state, and what the two files
 * give each other. */
#ifndef TL_MODEL_INTERP_INTERNAL_H
#define TL_MODEL_INTERP_INTERNAL_H

#include "model/model_internal.h"
#include "syntax/syms.h"
#include "syntax/treewalk.h"
#include "syntax/walk.h"

enum { F_BLOCK, F_IF, F_LOOP, F_WITH, F_TRY };

typedef struct StFrame {
	TSNode node;     /* the block, or the compound statement */
	uint8_t kind;
	uint8_t stage;
	uint8_t grad;    /* F_WITH: the grad mode to restore; F_IF: its condition's constant truth + 1 (0: none) */
	uint8_t depth;   /* F_LOOP: loops around it in the function (carry.c) */
	uint32_t i;      /* F_BLOCK: next statement; F_IF, F_TRY: next part */
	uint32_t round;  /* F_LOOP; F_BLOCK: the end of its statements in in->kids */
	uint32_t kids;   /* F_BLOCK: where its statements start in in->kids */
	TlState a, b, c; /* F_IF: entry, join; F_LOOP: head, breaks, continues; F_TRY: entry, join */
	TlVal iter;      /* F_LOOP: what a `for` iterates */
} StFrame;

/* A path read in a loop's iteration before any store (carry.c). */
typedef struct TlCarryRead {
	uint32_t loop; /* the loop statement's start byte */
	uint8_t depth;
	uint8_t how;   /* a store's marks: TL_MCARRY_DETACHED, TL_MCARRY_RESET */
	TlPath path;
	/* carry.c: the next record of the same loop (exposed) or the same
	 * loop and path key (dstores), newest first, or -1; the round of the
	 * loop a store was made in (dstores). */
	int32_t next;
	uint32_t round;
} TlCarryRead;

typedef struct EvFrame {
	TSNode n;
	uint32_t stage;
	uint32_t base;   /* the value stack's height when its operands started */
	uint32_t aux;    /* comprehensions: the state snapshot's index */
} EvFrame;

/* A mode switch made inside a comprehension (modes.c), made again on the
 * state the comprehension's end restores: which paths it switched, to
 * what, or that every mode was forgotten. */
enum { TL_MODEOP_PATH, TL_MODEOP_ELEMS, TL_MODEOP_FORGET };
typedef struct TlModeOp {
	TlPath path;
	TlVal unbound; /* TL_MODEOP_PATH: the value a path the state lacks is given */
	bool has_unbound;
	uint8_t mode, how;
} TlModeOp;

typedef struct In {
	TlModel *m;
	const TlIndex *idx;
	const TlSyms *sy;
	int32_t func;
	int32_t cls;      /* the class of a method, else -1 */
	int32_t self_id;  /* the interned name of a method's first parameter, else -1 */
	TlState st;
	TlArray(StFrame) frames;
	TlArray(EvFrame) ev;
	TlArray(TlVal) vs;
	TlArray(TlState) snaps; /* comprehensions' saved states */
	TlArray(TlModeOp) mdefer; /* mode switches made inside them (modes.c) */
	TlVal ret;
	uint32_t site;    /* the call being evaluated: its start byte + 1 (entry contexts) */
	/* ... its node and its arguments' values, keyword ones included
	 * (bind.c binds them by name) */
	TSNode call_node;
	const TlVal *call_args;
	uint32_t call_nargs;
	bool applied;     /* the call being computed read a summary (made.c) */
	bool in_lambda;   /* evaluating a lambda's body (eval.c) */
	bool returned;
	bool stop;
	bool entry_off;   /* the function is entered grad-disabled (TL_MGRAD_ENTRY is off) */
	bool path_read;   /* eval.c: the node being computed was read as a path of the state */
	/* Children of nodes, read once each with a walk of the subtrees (the
	 * public API reaches child i from the first child each time): a stack,
	 * a block frame's statements below the operands an expression reads. */
	TlTreeWalk walk;
	TlArray(TSNode) kids;
	/* Loops being run (carry.c): how many, the frames of the first 8, and
	 * the paths read in their iterations before any store (loop's start
	 * byte, path), each once. */
	uint32_t loops;
	int32_t loop_frames[8];
	TlArray(TlCarryRead) exposed;
	TlScopeMap exposed_seen; /* (loop, path key) -> a record; (loop, 0) -> the loop's newest, chained by next */
	/* ... the paths a store gives a value without history in the current
	 * round of each loop (loop's start byte, path); the parameters' names
	 * and those so stored into anywhere in the function (bit i); the
	 * function the call being evaluated ran (its summary), if any. */
	TlArray(TlCarryRead) dstores;
	TlScopeMap dstores_at;  /* (loop's start byte, path key) -> its newest store record */
	uint32_t rounds;        /* rounds begun in the function, of any loop */
	uint32_t loop_round[8]; /* the round the loop at each depth is in (dstores of others are stale) */
	TlArray(TlPath) stmt_reads; /* the paths the statement being run reads, in a loop */
	int32_t param_roots[16];
	uint32_t nparams;
	uint16_t pdetached;
	uint16_t pkept; /* the parameters whose history a store keeps in `self` (keeps.c) */
	uint16_t pepochs; /* the parameters it sets a sampler's epoch on (epochs.c) */
	uint16_t psaved;  /* the parameters torch.save writes (flow.c: tl_in__save_call) */
	/* modes.c: the modes its exits leave its parameters' and globals'
	 * modules in, so far; whether an exit was seen; whether it switched
	 * a module those do not name; whether it switched one the state may
	 * hold under other paths it did not forget (an alias, `m =
	 * self.model; m.train()`: the state's modes after it may be stale). */
	TlModeEff mexit[12];
	uint8_t nmexit;
	bool mexit_seen, mwide, malias, mforgot; /* mforgot: every mode was forgotten */
	uint8_t malias_modes; /* the modes switches of such a module (malias) put it in, when known */
	const void *callee_mod;
	int32_t callee_ref;
	uint32_t callee_shift;
	/* Symbols tl_syms() does not name. */
	TSSymbol try_statement, finally_clause, match_statement, case_clause, slice, concatenated_string;
} In;

bool tl_in__poll(In *in);
/* eval.c: the interned name "param.attr" under which the class's summary
 * keeps attribute path `p` of a method's parameter other than `self`
 * (still bound to it), or -1; added to the names when `add`. */
int32_t tl_in__param_attr(In *in, const TlPath *p, bool add);
/* modes.c: the mode switches made inside the comprehension whose state
 * was just restored, made again on it. */
void tl_in__mode_replay(In *in);
/* modes.c: a `for` loop `loop` is done (its head's state is the state):
 * a switch its body makes of every element it runs over, made of them
 * all (an empty iterable holds no module). */
/* 1 when `for` loop `loop` runs over range(...) not known to be empty:
 * its body runs, for the modes it leaves; 2 when it runs over a module's
 * parameters, for what it freezes; else 0 (modes.c). */
int tl_in__mode_loop_once(In *in, TSNode loop);
/* The modes (once 1) or the frozen modules (once 2) of `back` (a loop
 * body's end) for the paths the state and it both bind. */
void tl_in__mode_take(In *in, const TlState *back, TSNode loop, int once);
void tl_in__mode_loop_exit(In *in, TSNode loop);
TlVal tl_in__arith(TlValPool *pool, const TlVal *a, const TlVal *b);
TlVal tl_in__unbound(In *in, TSNode n);
void tl_in__bind(In *in, TSNode target, const TlVal *value);
/* keeps.c: a store of `v` into `target` that adds to what it held (an
 * augmented assignment or a container's append: `rhs` null; an assignment
 * of `rhs`, which must read `target`), in a method: its summary keeps the
 * parameters `v`'s history follows. */
void tl_in__keep_store(In *in, TSNode target, TSNode rhs, const TlVal *v);
TlVal tl_in__eval(In *in, TSNode root);
/* epochs.c: call `c` (its receiver's value `recv` for a method, its
 * arguments `args`) sets a sampler's epoch on the parameters its receiver
 * or, for a function of the project that sets that of its own, its
 * arguments are read from: the summary's `epochs` bits. */
void tl_in__epoch_call(In *in, const TlCall *c, const TlVal *recv, const TlVal *args, uint32_t nargs);
/* flow.c: call `c` (node `n`, `npos` positional arguments) writes its
 * function's parameters with `torch.save`: its `obj` argument, or for a
 * function of the project whose summary saves its own parameter i, its
 * argument i, is one of them (the name itself, or a list, tuple or dict
 * literal that holds it): the summary's `saves` bits. */
void tl_in__save_call(In *in, TSNode n, const TlCall *c, uint32_t npos);

/* bind.c: notes call site in->site of function `func` of the module (its
 * parameters from `shift` on), or of class `cls`'s `__init__`, with the
 * positional arguments `args`, binding the call's keyword arguments by
 * name and marking the parameters it leaves to their defaults. At a
 * function's entry, before its parameters are bound: its parameters'
 * default values evaluated (tl_model__default_ctx). A parameter no call
 * site of the module passes starts as its default (set in *v). */
void tl_in__ctx_call(In *in, int32_t func, uint32_t shift, const TlVal *args, uint32_t nargs);
void tl_in__ctx_construct(In *in, int32_t cls, const TlVal *args, uint32_t nargs);
void tl_in__defaults(In *in, const TlFunc *fn);
bool tl_in__default_seed(In *in, uint32_t i, TlVal *v);
/* bind.c: in a model built for another module's summaries (which records
 * no value), the values call `c` (node `n`) passes, when its name
 * resolves to a function or class of another module of the project
 * (`args`, one per argument): what that module's default seeds read of
 * its importers' call sites. */
void tl_in__record_args(In *in, const TlCall *c, TSNode n, const TlVal *args, uint32_t nargs);
/* made.c: what call `n` (`c`) makes its result `*r` as (TlVal.act) and
 * the loss it computes (TlVal.loss), once the call's value is known. `fn`:
 * the receiver's value (a method call) or the callee's; `callee`: the
 * value of the callee when one is known (a bare name's, an attribute's
 * the state or a class holds), else NULL; `args`: the `npos` positional
 * arguments' values. */
void tl_in__made_call(In *in, TSNode n, const TlCall *c, const TlVal *fn, const TlVal *callee, const TlVal *args,
		      uint32_t npos, TlVal *r);
/* What an instance `v` of a module class of the project outputs (its
 * forward's returns, made as one thing), kept in the instance's act: a
 * value that may be one of several modules still knows it. */
void tl_in__made_instance(In *in, TlVal *v);
/* Marks the result of a forward of a module a parameter holds with the
 * parameter (TlVal.pcall), after the grad mode applied. */
void tl_in__made_param_forward(const TlCall *c, const TlVal *fn, TlVal *r);
/* The same for operator `n` (binary or augmented): a difference is shifted. */
void tl_in__made_op(In *in, TSNode n, TlVal *r);
/* Marks `v` (and a tuple's positions) as made in another function: a
 * summary's return applied at a call. */
void tl_in__made_output(TlValPool *p, TlVal *v);
/* What a module `layer` outputs when called as an nn.Sequential's layer
 * (TL_VA_*, without TL_VA_OUTPUT): an activation module's activation, a
 * nested Sequential's, what every return of a project module's forward
 * is made as; TL_VA_NONE for any other value. */
unsigned tl_in__made_layer(In *in, const TlVal *layer);
/* requiresgrad.c: whether call `n`'s result `*r` requires grad (TlVal.nograd),
 * once its value is known, before the grad mode applies (`fn`, `callee`:
 * as made.c's; `args`: every argument's value, keywords' too), and what
 * an in-place method does to its receiver's; what store `target = v` (an
 * attribute or a subscript) does to its object's. */
void tl_in__grad_call(In *in, TSNode n, const TlCall *c, const TlVal *fn, const TlVal *callee, const TlVal *args,
		      uint32_t nargs, TlVal *r);
void tl_in__grad_store(In *in, TSNode target, const TlVal *v);
/* Sets what the value at `expr`'s path says of requires grad (a module
 * no slot holds yet, read where it is bound, when frozen). */
void tl_in__set_path_nograd(In *in, TSNode expr, uint8_t nograd);
/* requiresgrad.c: the table's row of torch.nn layer `q` (`torch.nn.modules.
 * activation.ReLU` is `torch.nn.ReLU`), or of any other qualified name. */
const struct TlApiRow *tl_in__layer_row(const char *q);
/* The requires-grad flag of value `v` of pool `p` as a set of its
 * function's parameters (tl_val_ng), a container's its elements' too. */
int32_t tl_in__val_ng(const TlValPool *p, const TlVal *v);
/* calls.c: value `v` stored into an attribute of `self` with each flag
 * that follows the storing function's parameters resolved (known when
 * they are plain, else not known). */
void tl_in__ng_store(In *in, TlVal *v);
/* modes.c: the train / eval mode (TlVal.mode) of call `c`'s result `*r`
 * (`fn`: the receiver's value for a method, else the callee's; `args`: the
 * `npos` positional arguments' values), and a switch's effect on the
 * receiver's path; an attribute `*v` read off `obj`. */
void tl_in__mode_call(In *in, TSNode n, const TlCall *c, const TlVal *fn, const TlVal *args, uint32_t npos,
		      TlVal *r);
void tl_in__mode_field(TlVal *v, const TlVal *obj);
/* modes.c: the mode of element `e` of container `obj` read by subscript
 * `n`: what the state holds for the container's elements (`models[*]`),
 * else the container's own (an nn.ModuleDict's, a parameter's entry). */
void tl_in__mode_element(In *in, TSNode n, TlVal *e, const TlVal *obj);
/* modes.c and modesites.c share: functions a resolution of an entry mode
 * follows (its callers, their callers...): past it, the mode is not known;
 * the key of site_modes for the elements of an attribute
 * (`self.models[*]`); ... for a global of the module, at the call's start
 * (its name's id + 1; 0: the call's globals were recorded). */
#define TL_MODES_RESOLVE 32
#define TL_MODES_ELEMS_KEY 0x40000000u
#define TL_MODES_GLOBAL_KEY 0x20000000u
/* modes.c: a module or a wrapper of one. */
bool tl_model__module_like(const TlVal *v);
/* modesites.c: the argument call `c` passes for parameter `k` of `fn` (a
 * method's `self`: the receiver), or a null node. */
TSNode tl_model__mode_arg(const TlIndex *idx, const TlFunc *fn, const TlCall *c, uint32_t k);
/* modesites.c: the mode `m.train(flag)` leaves when call `c` (of `cmod`)
 * runs `fn` of `fidx`, `flag` being its parameter `j` (the argument's value
 * `arg` when the caller's interpreter has it, else NULL); `flag` when not
 * known. */
uint8_t tl_model__mode_flag_at(const TlIndex *fidx, const TlFunc *fn, const TlCall *c, const TlIndex *cmod,
			       uint32_t j, const TlVal *arg, uint8_t flag);
/* ... an exit of the function (a return, the end of its body) in in->st;
 * the function's interpretation ended: its effects into its summary
 * (true when they changed). */
void tl_in__mode_exit(In *in);
bool tl_in__mode_summary(In *in);
/* dynamic.c: the value of `getattr(module, name)` (call node `call`) for
 * a module of the project that defines one thing a call can run. */
bool tl_in__getattr_module(In *in, TSNode call, TlVal *out);

/* devices.c: what a value is and where it lives. Arithmetic's device and
 * dtype (into r); a summary's value that follows an argument (into r);
 * a comparison's value; a tensor's `.data`, `.grad`, `.T`;
 * the device of another field of a value; a string's (the device it names);
 * a parameter's annotation and what its callers pass (parameter `k` of
 * in->func); a call's result (`vals` as tl_in__call's). */
void tl_in__promote(TlVal *r, const TlVal *a, const TlVal *b);
void tl_in__follow(TlVal *r, const TlVal *ret, const TlVal *av);
TlVal tl_in__compare(const TlVal *vals, uint32_t nv);
bool tl_in__tensor_attr(const TlVal *obj, const char *name, uint32_t len, TlVal *out);
void tl_in__field(const TlVal *obj, TlVal *v);
TlVal tl_in__string_value(In *in, TSNode n);
void tl_in__param(In *in, const TlBinding *b, uint32_t k, TlVal *v);
void tl_in__place(In *in, TSNode n, const TlCall *c, bool runs, const TlVal *vals, uint32_t nv, TlVal *r);

/* consts.c: the constant (TlVal.cst) node `n` computes from its operands
 * `vals` into `*r`: a literal's, an operator's on constants. */
void tl_in__const_expr(In *in, TSNode n, const TlVal *vals, uint32_t nv, TlVal *r);

/* Appends the named children of `parent` (comments left out) to in->kids;
 * returns how many. */
uint32_t tl_in__kids(In *in, TSNode parent);

/* carry.c: loop-carried paths. A loop frame starts (push) and ends (pop);
 * a round starts at its head (the state's stores of its depth cleared);
 * a round's body ends (the state at the back edge: what each path read
 * before a store holds); path `p` is read (its slot, NULL when the state
 * has none: the object's attribute or a global, read as it stands). */
void tl_in__carry_push(In *in, StFrame *f);
void tl_in__carry_pop(In *in, const StFrame *f);
void tl_in__carry_head(In *in, const StFrame *f);
void tl_in__carry_back(In *in, const StFrame *f);
void tl_in__carry_read(In *in, const TlPath *p, const TlSlot *slot);
void tl_in__carry_release(In *in);
/* ... the function's parameters are bound (its entry); value `v` is
 * stored into path `p`; call `n` (`c` of the index) was evaluated: a
 * detach_() detaches its receiver in place, a function of the project
 * that detaches a parameter detaches what is passed for it. */
void tl_in__carry_enter(In *in, const TlFunc *fn);
void tl_in__carry_store(In *in, const TlPath *p, const TlVal *v);
void tl_in__carry_call(In *in, TSNode n, const TlCall *c);

/* seeds.c: narrows the state by condition `cond` holding (`if
 * isinstance(x, nn.Parameter):` makes an unknown `x` a tensor); the one
 * operand form. */
void tl_in__narrow(In *in, TSNode cond);
void tl_in__narrow_one(In *in, TSNode cond);
/* In state `st`, where condition `cond` does not hold: the value an
 * `isinstance(x, <tensor class>)` test rejects carries no history of its
 * own (seeds.c). */
/* True when the `else` of a test `cond` narrows a value (tl_in__narrow_not
 * changes it): a conditional expression whose test this is evaluates its
 * `else` arm in the narrowed state. */
bool tl_in__narrows_not(In *in, TSNode cond);
void tl_in__narrow_not(In *in, TlState *st, TSNode cond);
/* prov.c: where values' history comes from (TlVal.old, prev, pold). A
 * loop frame's entry state is ready (f->a); a round's body ended (in->st,
 * after tl_in__carry_back); a `for` binds element `e` of what it
 * iterates; a summary `ret` was applied to the arguments (its result
 * `*r`); call `c` computed `*r` (`recv`: the receiver of a method call,
 * else NULL); `v` has no history. */
void tl_in__prov_entry(In *in, StFrame *f);
void tl_in__prov_back(In *in, const StFrame *f);
void tl_in__prov_target(In *in, const StFrame *f, TlVal *e);
void tl_in__prov_apply(In *in, const TlVal *ret, const TlVal *args, uint32_t nargs, uint32_t shift, TlVal *r);
void tl_in__prov_call(In *in, const TlCall *c, bool runs, const TlVal *recv, const TlVal *args, uint32_t nargs, TlVal *r);
void tl_in__prov_none(TlVal *v);
/* ... subscript `n` of value `obj` read `*r` (an element of a store kept
 * across calls?). */
void tl_in__prov_subscript(In *in, TSNode n, const TlVal *obj, TlVal *r);

/* flow.c: what values are computed from (TlVal.flow). Expression `n`
 * computed `*r` from operands `ops` (a call, an operator: a node of its
 * own; a field, an element: the operand's set); an operator-like node (an
 * augmented assignment) did; target `t` is bound to `*v`; parameter `i`
 * of in->func enters as `*v`; `*part` is read out of `whole`; a return
 * statement hands back `v`. */
void tl_in__flow_expr(In *in, TSNode n, const TlVal *ops, uint32_t nops, TlVal *r);
void tl_in__flow_op(In *in, TSNode n, const TlVal *ops, uint32_t nops, TlVal *r);
void tl_in__flow_bind(In *in, TSNode target, TlVal *v);
void tl_in__flow_param(In *in, uint32_t i, TlVal *v);
void tl_in__flow_part(In *in, TlVal *part, const TlVal *whole);
void tl_in__flow_return(In *in, const TlVal *v);
/* `obj[key] = v`: what obj's value (`*obj`) was made by holds `v` from
 * now on; the holder's value `*before` (when not NULL) becomes `*after`,
 * the same object. */
void tl_in__flow_store(In *in, const TlVal *obj, const TlVal *before, TlVal *after, const TlVal *v);
/* `*part` is what a literal spreads of `whole` (`{**ckpt, "k": v}`,
 * `[*parts]`): its entries, the same objects. */
void tl_in__flow_spread(In *in, TlVal *part, const TlVal *whole);

/* host.c: host copies of device data (TlVal.host, phost). A round of
 * loop frame `f` begins (in->st); the function's parameters are bound;
 * `v` comes from outside the function (a global, an object's attribute
 * held elsewhere: none, or those of the object `obj` it is read off);
 * expression `n` (no call) computed `*r` of its operands `ops`; call `c`
 * computed `*r` (`vals` as tl_in__call's); a summary `ret` was applied
 * (as tl_in__prov_apply). */
void tl_in__host_head(In *in, const StFrame *f);
/* fresh.c: what a loop's round makes afresh (TlVal.fresh). A round of
 * loop frame `f` begins; the function's parameters are bound; `*e` is an
 * element a `for` of frame `f` binds from `of`; `*part` is read out of
 * `whole` (an unpacked position, a comprehension's element); expression
 * `n` (a call too: `ops` as tl_in__call's `vals`) computed `*r`; an
 * augmented assignment computed `*v` of `l` and `r`. */
void tl_in__fresh_head(In *in, const StFrame *f);
void tl_in__fresh_enter(In *in);
void tl_in__fresh_elem(const StFrame *f, TlVal *e, const TlVal *of);
void tl_in__fresh_part(TlVal *part, const TlVal *whole);
void tl_in__fresh_expr(In *in, TSNode n, const TlVal *ops, uint32_t nv, TlVal *r);
void tl_in__fresh_op(In *in, const TlVal *l, const TlVal *r, TlVal *v);
void tl_in__host_enter(In *in);
void tl_in__host_clear(TlVal *v);
void tl_in__host_field(TlVal *v, const TlVal *obj);
/* ... `*e` is an element of `of` (what a `for` or a comprehension
 * iterates), or computed from it (an augmented assignment's operand). */
void tl_in__host_elem(TlVal *e, const TlVal *of);
void tl_in__host_expr(In *in, TSNode n, const TlVal *ops, uint32_t nv, TlVal *r);
void tl_in__host_call(In *in, const TlCall *c, const TlVal *vals, uint32_t nv, TlVal *r);
void tl_in__host_apply(In *in, const TlVal *ret, const TlVal *args, uint32_t nargs, uint32_t shift, TlVal *r);

/* interp.c: whether function `fn` (a method) is a staticmethod or a
 * classmethod, by its decorators' text. */
void tl_model__method_kind(const TlIndex *idx, const TlFunc *fn, bool *is_static, bool *is_classmethod);

/* Shared by eval.c (expressions, bindings) and calls.c (calls). */
bool tl_in__module_like(const TlVal *v);
TlVal tl_in__call(In *in, TSNode n, const TlVal *vals, uint32_t nv, const bool *kw);
TlVal tl_in__inner(In *in, const TlVal *w);
void tl_in__store_into(In *in, TSNode recv, const TlVal *elem);
/* The list at `recv` now ends in an item whose call computes `act`
 * (TlVal.lastact; TL_VA_NONE: not known). */
void tl_in__set_last(In *in, TSNode recv, unsigned act);
bool tl_in__unwrap_shape(In *in, TSNode n);
bool tl_in__unwrap_idiom(In *in, TSNode n, const TlVal *mv, TlVal *out);
bool tl_in__unwrapped(In *in, const TlVal *mv, TlVal *out);
bool tl_in__unwrap_branches(In *in, TSNode s, const TlState *fail, TSNode *target, TSNode *m);
unsigned tl_in__graph_op(unsigned a, unsigned b);
void tl_in__refine(In *in, const TlPath *p, TlVal *v);
void tl_in__refine_how(In *in, const TlPath *p, TlVal *v, int32_t how);
/* backprop.c: path `p` (target `target`; null: a parameter) is bound to
 * `v` (its flow set the binding's node);
 * call `c` is a backward (its subject's flow nodes are noted). */
void tl_in__backprop_bind(In *in, const TlPath *p, const TlVal *v, TSNode target);
void tl_in__backprop_call(In *in, const TlCall *c);
/* ... whether the binding of `target` is one what a backward of the
 * function consumes keeps the history of (the value bound has history). */
bool tl_in__backprop_marked(In *in, TSNode target);
TlVKind tl_in__api_kind(unsigned k);
TlVal tl_in__attr(In *in, const TlVal *obj, int32_t id, const char *name, uint32_t len);
void tl_in__record(In *in, TSNode n, const TlVal *v);
TlVal tl_in__no_graph(In *in, const TlVal *v);
TlVal tl_in__top(void);
/* eval.c: an attribute whose value has no history whatever the object's (`.data`, `.shape`). */
bool tl_in__plain_attr(const char *t, uint32_t len);

/* True when function `func` is nested, at any depth, in function `outer`
 * (modes.c). */
bool tl_model__nested_in(const TlIndex *idx, int32_t func, int32_t outer);

#endif
