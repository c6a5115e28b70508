/* Abstract values: what the model knows of one Python value, as a product
 * of small lattices (docs/semantic-model.md, "The lattice"). Every
 * component has a bottom (nothing known yet: no path reaches here) and a
 * top (may be anything); every component but the container's parts has
 * finite height, so every fixpoint over them ends.
 *
 * A container's element value and its positions (`return loss, stats`)
 * live in the pool of the model that made them (TlValPool): a value refers
 * to them by index, so values stay small and plain (copied by
 * assignment). A value from another module's pool is copied into this
 * one with tl_val_import.
 *
 * Owns: TlVal, TlValPool, the joins and the widening. */
#ifndef TL_MODEL_VALUE_H
#define TL_MODEL_VALUE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/array.h"

/* What a value is. Flat: two different kinds join to the top. */
typedef enum TlVKind {
	TL_VK_BOT = 0,
	TL_VK_TENSOR,
	TL_VK_PARAMETER, /* a module's parameter (a tensor that requires grad) */
	TL_VK_MODULE,
	TL_VK_WRAPPER,   /* a module wrapped by DDP, DataParallel, FSDP */
	TL_VK_OPTIMIZER,
	TL_VK_SCALER,
	TL_VK_LOADER,
	TL_VK_SAMPLER,
	TL_VK_CRITERION,
	TL_VK_DEVICE,
	TL_VK_CONTAINER, /* list, tuple, dict, set: see elem and parts */
	TL_VK_NUMBER,    /* a Python int or float */
	TL_VK_BOOL,
	TL_VK_STRING,
	TL_VK_NONE,
	TL_VK_ARRAY,     /* a host array (numpy) */
	TL_VK_FUNCTION,  /* a function of the project: ref, mod */
	TL_VK_CLASS,     /* a class of the project: ref, mod */
	TL_VK_OBJECT,    /* an instance of a class of the project that is no module: ref, mod */
	TL_VK_TOP,
} TlVKind;

/* Whether a value carries autograd history. BOT below all; NONE and MUST
 * join to MAY, history on some paths (a loop-carried state made as zeros
 * and then by a forward), as MUST and UNKNOWN do; UNKNOWN is no evidence
 * at all (a value of an unknown call, a parameter nobody passes), and NONE
 * with UNKNOWN stays UNKNOWN. */
typedef enum TlVGraph {
	TL_VG_BOT = 0,
	TL_VG_NONE,    /* no history: a constant, a detached tensor, made under no_grad */
	TL_VG_MUST,    /* history: a forward's or a loss's result, arithmetic on one */
	TL_VG_MAY,     /* history on some paths, none on others */
	TL_VG_UNKNOWN, /* nothing known */
} TlVGraph;

typedef enum TlVDevice { TL_VD_BOT = 0, TL_VD_HOST, TL_VD_ACCEL, TL_VD_TOP } TlVDevice;

typedef enum TlVDtype {
	TL_VT_BOT = 0, TL_VT_HALF, TL_VT_FLOAT32, TL_VT_FLOAT64, TL_VT_INTEGER, TL_VT_BOOL, TL_VT_TOP,
} TlVDtype;

/* What made a value, as a set (TlVal.made); past these, the set's top. */
enum {
	TL_VM_FORWARD = 1u << 0,  /* a model's forward */
	TL_VM_LOSS = 1u << 1,     /* a loss function or criterion */
	TL_VM_FACTORY = 1u << 2,  /* a tensor factory of a shape (torch.zeros, torch.arange: set tensor-factory) */
	TL_VM_LOADER = 1u << 3,   /* an element of a loader (a batch) */
	TL_VM_TO_HOST = 1u << 4,  /* a transfer to the host (.cpu(), .numpy(), .item()) */
	TL_VM_PARAMS = 1u << 5,   /* a parameter of the function (a summary's input) */
	/* Known only by what the call is (a forward, a loss), not by what it
	 * returns: a tuple or dict it may return has an unknown structure
	 * (its first position is the loss; what follows, statistics). */
	TL_VM_OPAQUE = 1u << 6,
	/* A class a named-tuple maker returned (kind class, no ref): calling
	 * it makes a tuple of the arguments. */
	TL_VM_TUPLE = 1u << 7,
	/* An nn.Sequential: its output is its last layer's (TlVal.act). */
	TL_VM_SEQUENTIAL = 1u << 8,
	/* A parameter whose kind the file's evidence seeds (seeds.c: its
	 * annotation, the methods called on its name, its name), not a making
	 * the model saw. */
	TL_VM_GUESS = 1u << 9,
	TL_VM_TOP = 0xffffu,
};

/* Kinds of wrapper (TlVal.wrap), from the API table's sets wrap-ddp,
 * wrap-fsdp, wrap-data-parallel, wrap-compiled. */
enum {
	TL_VW_DDP = 1u << 0,           /* DistributedDataParallel */
	TL_VW_FSDP = 1u << 1,          /* FullyShardedDataParallel */
	TL_VW_DATA_PARALLEL = 1u << 2, /* DataParallel (one process) */
	TL_VW_COMPILED = 1u << 3,      /* torch.compile's OptimizedModule */
};

/* What a value's contents are made as (TlVal.act): the activation it ends
 * in, a loss scaling, an exponential. Joined flat: two different ones
 * (or one and NONE) join to NONE, the agreement of every path. */
enum {
	TL_VA_NONE = 0,
	TL_VA_SOFTMAX,     /* probabilities: softmax, the exponential of a log-softmax */
	TL_VA_LOG_SOFTMAX, /* log-probabilities */
	TL_VA_SIGMOID,     /* sigmoid, expit */
	TL_VA_SCALED,      /* a GradScaler's scale(loss), the scaler not disabled */
	TL_VA_EXP_SUM,     /* a sum of exponentials: a logsumexp in linear space */
	TL_VA_EXP,         /* an exponential of something not shifted first */
	TL_VA_SHIFTED,     /* a difference (`x - x.max()`): its exponential is no EXP */
	/* Or'ed in: made so by what a call of a forward or a function of the
	 * project returns, not by a call in the value's own function. */
	TL_VA_OUTPUT = 0x80,
	/* Not known yet (an instance whose forward was not interpreted when
	 * it was made): joins as nothing, reads as NONE. */
	TL_VA_PENDING = 0x7f,
};

/* Host copies of device data (TlVal.host): bit d for the loop at depth
 * d of the function (the deeper ones share TL_VH_LOOPS' last bit), and
 * the function's run. */
enum { TL_VH_LOOPS = 7, TL_VH_FUNC = 1u << 7 };

/* The loss a value computes (TlVal.loss). */
enum { TL_VL_OTHER = 0, TL_VL_CROSS_ENTROPY, TL_VL_NLL, TL_VL_BCE, TL_VL_BCE_LOGITS };

/* The number of tuple positions a container keeps (more are joined into
 * its element value) and how deep containers nest (deeper: the top). */
/* TlVal.mode: in train mode, in eval mode, in the mode its function was
 * entered with (a parameter, an attribute of one: what the call sites
 * hand it, model/modes.c). */
#define TL_VMODE_TRAIN 1u
#define TL_VMODE_EVAL 2u
#define TL_VMODE_ENTRY 4u
/* The mode `m.train(flag)` leaves, `flag` being parameter j < 8 of the
 * function: train or eval as the call site's argument is true or false
 * (TL_VMODE_FLAG_OF(j): train|eval for a reader that does not tell). */
#define TL_VMODE_FLAG 8u
#define TL_VMODE_FLAGS 8u /* parameters a flag may name */
#define TL_VMODE_FLAG_OF(j) ((uint8_t)(TL_VMODE_TRAIN | TL_VMODE_EVAL | TL_VMODE_FLAG | ((unsigned)(j) << 4)))
#define TL_VMODE_FLAG_PARAM(m) ((uint32_t)(m) >> 4)
#define TL_VMODE_IS_FLAG(m) (((m) & TL_VMODE_FLAG) && ((uint32_t)(m) >> 4) < TL_VMODE_FLAGS)
/* A mode decided by a test of the function's parameters against constants
 * (`if mode == "train": m.train() else: m.eval()`): entry k < 8 of its
 * model's table of such tests (modes.c, TlModeCond: the test, the mode
 * where it holds, the mode where it fails), read at a call site under the
 * constants that site passes. Its low bits are the join of both modes, so
 * a reader that does not tell reads the join. */
#define TL_VMODE_CONDS 8u
#define TL_VMODE_COND_OF(k, bits)                                                                            \
	((uint8_t)(((bits) & TL_VMODE_BITS) | TL_VMODE_FLAG | ((unsigned)(TL_VMODE_FLAGS + (k)) << 4)))
#define TL_VMODE_IS_COND(m) (((m) & TL_VMODE_FLAG) && ((uint32_t)(m) >> 4) >= TL_VMODE_FLAGS)
#define TL_VMODE_COND_INDEX(m) (((uint32_t)(m) >> 4) - TL_VMODE_FLAGS)
#define TL_VMODE_BITS (TL_VMODE_TRAIN | TL_VMODE_EVAL | TL_VMODE_ENTRY)
/* The join of two modes (0, not known, absorbs; so does a flag joined
 * with another mode: train|eval from a switch on each path is known, a
 * flag's value is not; a test's mode joined with another is its two
 * modes, both switches the program makes). */
#define TL_VMODE_JOIN(a, b)                                                                                  \
	((a) && (b) ? ((a) == (b) ? (uint8_t)(a)                                                              \
				  : (TL_VMODE_IS_FLAG(a) || TL_VMODE_IS_FLAG(b)) ? (uint8_t)0                 \
								  : (uint8_t)(((a) | (b)) & TL_VMODE_BITS))   \
		    : (uint8_t)0)
/* TlVal.meval: eval on some path that `mode` does not say; the mode
 * forgotten on some path (a call the model cannot apply may have switched
 * it: not known, which no eval on another path outweighs); `mode`'s eval
 * bit is a switch's (`m.eval()`, a summary's), not a library's
 * (`from_pretrained`). */
#define TL_VMEVAL_MAY 1u
#define TL_VMEVAL_FORGOT 2u
#define TL_VMEVAL_SWITCHED 4u
/* True when a value's mode says eval on some path from a switch the
 * program makes (not a flag's value, which is not known; a test's mode
 * is read under its call sites' constants, tl_model_mode_eval_in_context). */
#define TL_VMODE_SOME_EVAL(m) (((m) & TL_VMODE_EVAL) && !((m) & TL_VMODE_FLAG))
/* The mode of a path bound on one side of a join only: on the other, it
 * is as it stands outside the state (the entry's). */
static inline uint8_t tl_val_mode_outside(uint8_t mode)
{
	return mode && !TL_VMODE_IS_FLAG(mode) ? (uint8_t)((mode & TL_VMODE_BITS) | TL_VMODE_ENTRY) : (uint8_t)0;
}

/* TlVal.cst: a tag in the top three bits, a payload in the other 13.
 * TL_VC_INT: the value + 4096 (-4096..4095); TL_VC_STR: the text's
 * interned id in its model's names (tl_path_intern), below 8191;
 * TL_VC_EMPTY: the empty string; TL_VC_LEN: a list or tuple of that many
 * items, the items not kept (only a construction's constants hold one:
 * model/sitectx.c; no comparison of it is known). Larger ints, more
 * names: not kept. */
enum { TL_VC_NONE = 1, TL_VC_BOOL = 2, TL_VC_INT = 3, TL_VC_STR = 4, TL_VC_EMPTY = 5, TL_VC_LEN = 6 };
#define TL_VC(tag, payload) ((uint16_t)(((unsigned)(tag) << 13) | ((unsigned)(payload) & 0x1fffu)))
#define TL_VC_TAG(c) ((unsigned)(c) >> 13)
#define TL_VC_PAYLOAD(c) ((unsigned)(c) & 0x1fffu)
/* The truth of constant `c` (`if c:`): 1 true, 0 false, -1 not known. */
int tl_val_const_truth(uint16_t c);

#define TL_VAL_PARTS 8
#define TL_VAL_NEST 3
/* TlVal.fresh: the loops' bits (depth below TL_FRESH_LOOPS) and the run's. */
#define TL_FRESH_LOOPS 7u
#define TL_FRESH_RUN 0x80u

/* TlVal.nograd of a module frozen by `.requires_grad_(False)`: none of its
 * parameters requires grad, whatever its class holds. */
#define TL_VNOGRAD_FROZEN 2

typedef struct TlVal {
	uint8_t kind, graph, device, dtype; /* TlVKind, TlVGraph, TlVDevice, TlVDtype */
	uint16_t made;   /* TL_VM_* */
	/* In a summary: the graph also follows that of parameter i for each
	 * bit i set (i < 16): `return x * 2` of parameter 0 sets bit 0. */
	uint16_t pgraph;
	/* In a summary: the value is (also) what calling parameter i returns,
	 * for each bit i set (`loss = closure()` of a step(closure)). */
	uint16_t pcall;
	/* TL_VW_* bits: of a wrapper (kind wrapper), the kinds of wrapper it
	 * is; of a module read through a wrapper's `.module`, the kinds of
	 * wrapper it was read through (`ddp.module`). Joined as a set. */
	uint8_t wrap;
	/* In a summary: the value is parameter i unwrapped (`m.module if
	 * hasattr(m, "module") else m`: the module inside a wrapper, or the
	 * module itself), for each bit i set (i < 8). */
	uint8_t punwrap;
	/* What the value's contents are made as (TL_VA_*: a softmax's
	 * probabilities, a sigmoid's): the same on every path, else NONE. */
	uint8_t act;
	/* The loss a criterion, a loss function or a loss's result computes
	 * (TL_VL_*): the same on every path, else OTHER. */
	uint8_t loss;
	/* Where its history comes from, relative to the loops around it in
	 * its function (model/prov.c): bit d of `old`, history that was
	 * already in the state when the iteration of the loop at depth d
	 * began (made before that loop, which never stores it again); bit d
	 * of `prev`, history the previous iteration of that loop handed on
	 * through a path it stores into without detaching. In a summary,
	 * `pold` bit i: the value is computed from parameter i (its graph or
	 * not: a loss of it counts). A container's bits are its elements'
	 * too. Joined as sets (`kept` too). */
	uint8_t old, prev;
	uint16_t pold;
	/* An element read out of a container that a parameter or `self`
	 * holds (`activations[i][j]`, `self.saved[k]`): kept there by an
	 * earlier call, whose graph another call may backpropagate too. */
	uint8_t kept;
	/* Data a device tensor copied to the host (model/host.c), TL_VH_*:
	 * made so in the current round of the loop at depth d of its
	 * function (bit d), in the function's current run (TL_VH_FUNC). A
	 * container's bits are its elements' (which hold none of their own). */
	uint8_t host;
	/* Made in the current round of a loop (model/fresh.c): bit d, on
	 * every path, made by the iteration of the loop at depth d of its
	 * function from nothing that holds state from before that iteration
	 * (a module, an optimizer, a parameter, a tensor that may require
	 * grad or carry history: `model = Net()` in a loop over
	 * configurations). 0: not known to be. Joined as an intersection.
	 * Bit 7 (TL_FRESH_RUN): made in the function's current run from its
	 * parameters and what it makes itself (the parameters hold it at
	 * the entry): a summary's says what the function returns reads
	 * nothing else. Loops 7 deep or more hold none. */
	uint8_t fresh;
	/* Whether it requires grad (model/requiresgrad.c), 1 when known not to on
	 * every path: of a tensor or a number, neither a leaf that requires
	 * grad nor a value with autograd history (a factory's tensor made
	 * without requires_grad, arithmetic on such, a constant); of a
	 * module, one that holds no parameter that requires grad beyond what
	 * its class holds (a parameter-free layer of the API table; an
	 * instance of a class of the project no store from outside gave a
	 * parameter: the class's own summary is asked for at the question,
	 * tl_model_forward_no_graph). 0: not known. Joined as an and.
	 * TL_VNOGRAD_FROZEN (2), of an instance of a class of the project:
	 * `.requires_grad_(False)` froze it, whatever its class holds. */
	uint8_t nograd;
	/* A module's train / eval mode (model/modes.c), TL_VMODE_* bits: the
	 * modes it may be in on the paths here; 0: not known. Joined as a
	 * union, 0 absorbing. */
	uint8_t mode;
	/* The constant it holds on every path (model/consts.c), TL_VC_*: None,
	 * a bool, a small int, a string; 0: not known to be one. Joined flat
	 * (two different constants: 0). */
	uint16_t cst;
	int32_t elem;    /* a container's element value: an index into the pool, or -1 */
	int32_t parts;   /* its first tuple position (a pool index, chained by `next`), or -1 */
	int32_t next;    /* in the pool: the next tuple position, or -1 */
	int32_t key;     /* in the pool: the constant key of a dict's part (interned), or -1 */
	int32_t ref;     /* a function or class: its index in `mod`; else -1 */
	uint32_t origin; /* where its history was made (a call's start byte + 1), 0: unknown */
	/* What it was computed from (model/flow.c): a set of the flow nodes
	 * (the calls, operators and bindings) of its model that made it, kept
	 * in the pool (tl_val_flow_*); 0: none, TL_VAL_FLOW_TOP: too many. */
	uint32_t flow;
	/* In a summary (model/host.c), for parameter i < 8: bit i, a host
	 * copy of its data (a copy from the device where the caller passes a
	 * device tensor); bit 8 + i, computed from its data (the caller's
	 * argument's host copies are the value's). A container's as `host`. */
	uint16_t phost;
	/* In a function's values and its summary, with nograd 0: the value
	 * requires no grad when each parameter i whose bit is set (i < 16)
	 * requires none (`torch.sqrt(x ** 2 + y ** 2)` of parameters 0 and 1
	 * sets bits 0 and 1), resolved at each call with what the call hands
	 * them (model/calls.c); 0 with nograd 0: not known. Joined as a union
	 * (a side not known absorbs). */
	uint16_t pnograd;
	/* TL_VMEVAL_* bits (model/modes.c): a switch the program makes left
	 * the module in eval mode on some path here (`if flag: m.eval()`),
	 * which `mode` no longer says (a join with a module whose mode is not
	 * known); a call forgot its mode on some path; `mode`'s eval is a
	 * switch's. Set again by each switch. */
	uint8_t meval;
	/* Of a list: what calling its last element computes (TL_VA_*, as a
	 * layer of an nn.Sequential: an activation module's activation, what
	 * a project module's forward returns), so that `nn.Sequential(*layers)`
	 * knows its last layer (model/made.c). Set by a list display (its last
	 * item) and by `.append(x)` / `.extend(y)`; any other method called on
	 * the list, a slice of it, a store into or a deletion of one of its
	 * items, the list handed to a call (but a builtin that only reads
	 * it) leaves it TL_VA_NONE (not known). Joined flat, as `act`. */
	uint8_t lastact;
	const void *mod; /* the index that `ref` is of (a const TlIndex *) */
} TlVal;

/* The requires-grad flag of `v` as a set of parameters: -1 not known, 0
 * known to require none, else the parameters (bits) whose flags decide. */
static inline int32_t tl_val_ng(const TlVal *v)
{
	return v->nograd ? 0 : v->pnograd ? (int32_t)v->pnograd : -1;
}
/* Both flags (of a value computed from two): -1 absorbs, the sets join. */
static inline int32_t tl_val_ng_and(int32_t a, int32_t b)
{
	return a < 0 || b < 0 ? -1 : (a | b);
}
/* Sets `v`'s flag to `ng` (a module frozen stays frozen). */
static inline void tl_val_set_ng(TlVal *v, int32_t ng)
{
	v->pnograd = ng > 0 ? (uint16_t)ng : 0;
	v->nograd = ng == 0 ? (uint8_t)(v->nograd ? v->nograd : 1) : 0;
}

typedef struct TlValPool {
	TlArray(TlVal) vals;
	/* Flow sets (TlVal.flow - 1 is an offset here): a count, then that
	 * many node numbers, ascending. */
	TlArray(uint32_t) flows;
	/* Where a union would hold more than TL_VAL_FLOW_SET nodes: the one
	 * node that stands for those `n` (model/flow.c: a node each of them
	 * leads to); NULL: the union is the top. */
	uint32_t (*flow_merge)(void *ctx, const uint32_t *ids, uint32_t n);
	void *flow_ctx;
} TlValPool;

/* The flow sets of values (model/flow.c): at most TL_VAL_FLOW_SET nodes;
 * past that, the pool's flow_merge node, or the top (computed from
 * anything). The union of two sets, a
 * set of one node, whether two are the same, and a set's nodes (false for
 * the top). */
#define TL_VAL_FLOW_SET 8
#define TL_VAL_FLOW_TOP UINT32_MAX
/* A set's mark (its top bit): the value is read out of what the nodes
 * made (an element, a field, an entry of `.items()`), not the object
 * itself. A union keeps either's mark; a set of one node has none. */
#define TL_VAL_FLOW_PART (1u << 31)
uint32_t tl_val_flow_union(TlValPool *p, uint32_t a, uint32_t b);
uint32_t tl_val_flow_one(TlValPool *p, uint32_t node);
/* `set` marked TL_VAL_FLOW_PART (0 and the top stay). */
uint32_t tl_val_flow_part(uint32_t set);
bool tl_val_flow_same(const TlValPool *p, uint32_t a, uint32_t b);
bool tl_val_flow_nodes(const TlValPool *p, uint32_t set, const uint32_t **nodes, uint32_t *n);

void tl_val_pool_init(TlValPool *p);
void tl_val_pool_release(TlValPool *p);
/* Appends `v` to the pool, returns its index. */
int32_t tl_val_pool_add(TlValPool *p, TlVal v);
/* Appends `v` to the pool as the last position of a chain being built
 * (`*first` and `*last` are -1 before the first): links it after `*last`,
 * or makes it `*first`; `*last` becomes it, which is returned. */
int32_t tl_val_chain_append(TlValPool *p, int32_t *first, int32_t *last, TlVal v);

/* The bottom value (nothing known yet), and the top (anything). */
TlVal tl_val_bot(void);
TlVal tl_val_top(void);
/* A value of kind `k` with graph `g`, everything else unknown. */
TlVal tl_val_of(TlVKind k, TlVGraph g);
bool tl_val_is_bot(const TlVal *v);

/* The join of `a` and `b` (both of pool `p`), containers joined elementwise
 * to TL_VAL_NEST deep. */
TlVal tl_val_join(TlValPool *p, const TlVal *a, const TlVal *b);
/* True when `a` and `b` are the same value (containers compared through
 * the pool). */
bool tl_val_equal(const TlValPool *p, const TlVal *a, const TlVal *b);
/* The widening of a value that is still rising after the rounds a loop or
 * a component is given: every component that differs from `old` goes to
 * its top. */
TlVal tl_val_widen(TlValPool *p, const TlVal *old, const TlVal *now);

/* A container of `elem` (which may be bot). */
TlVal tl_val_container(TlValPool *p, const TlVal *elem);
/* The element value of `v`: a container's element, a tensor's (a tensor
 * with its graph), a library module's (a module: a child of a Sequential,
 * a ModuleList), else the top. */
TlVal tl_val_element(const TlValPool *p, const TlVal *v);
/* Tuple position `i` of `v` when it keeps one, else its element value. */
TlVal tl_val_part(const TlValPool *p, const TlVal *v, uint32_t i);
/* Appends a position to a container being built (`last` is the index of
 * the last position appended, -1 before the first; returns the new one). */
int32_t tl_val_add_part(TlValPool *p, TlVal *container, int32_t last, const TlVal *part);
/* Container `v` with every element (its element value and each position
 * or key) in module mode `mode`; any other value as it is. */
TlVal tl_val_elements_mode(TlValPool *p, const TlVal *v, uint8_t mode);

/* The value under constant key `key` (an interned key) of container `v`:
 * its part with that key, else its element value. */
TlVal tl_val_keyed(const TlValPool *p, const TlVal *v, int32_t key);
/* Container `v` with the part under `key` replaced by (or set to) `part`:
 * a strong update; the element value becomes the join of the parts. Past
 * TL_VAL_KEYS keys, the container keeps its element value only. */
#define TL_VAL_KEYS 16
TlVal tl_val_with_key(TlValPool *p, const TlVal *v, int32_t key, const TlVal *part);

/* A copy of value `v` of pool `from` in pool `to` (containers copied). */
TlVal tl_val_import(TlValPool *to, const TlValPool *from, const TlVal *v);

/* Names for `torchlint debug model`. */
const char *tl_val_kind_name(unsigned k);
const char *tl_val_graph_name(unsigned g);
const char *tl_val_device_name(unsigned d);
const char *tl_val_dtype_name(unsigned t);
const char *tl_val_act_name(unsigned a);
const char *tl_val_loss_name(unsigned l);

#endif
