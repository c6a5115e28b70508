/* The per-file semantic index: what the code says (syntax only), computed
 * once per file and consulted by every fact. It calls nothing above it.
 *
 * Recorded (one iterative walk of the tree):
 *   functions (with decorators and parameters), classes and their bases,
 *   loops, `with` blocks, calls, name bindings (assignments, loop targets,
 *   parameters, imports, definitions, `self.x` attributes), and statements
 *   that reset gradients by assignment (`p.grad = None`).
 * Derived from syntax:
 *   import-resolved dotted names of callees, local call targets (the call
 *   graph), functions passed along as arguments or stored (they escape).
 * Left to the facts layer (tl_facts_build in facts/build.c fills them; the
 *   index leaves them zero): the event kinds of each call, function and loop
 *   iteration, the grad/autocast kind of `with` items and decorators, which
 *   local classes are nn.Modules, which functions only run grad-disabled,
 *   the step loops, whether the file uses an accelerator, and whether it
 *   imports PyTorch or a library built on it.
 *
 * Files: index.c (the walk, the lookups by position, pass 2), names.c
 * (dotted and qualified names, the name table, resolution), nodememo.c
 * and scopemap.c (the tables they keep).
 *
 * Nodes are borrowed from the tree passed to tl_index_build; the index must
 * not outlive the tree or the source. */
#ifndef TL_INDEX_H
#define TL_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include <tree_sitter/api.h>

#include "base/array.h"
#include "base/buf.h"
#include "base/source.h"
#include "base/strmap.h"
#include "syntax/nodememo.h"
#include "syntax/parents.h"
#include "syntax/scopemap.h"

/* The default target PyTorch version (RULES.md principle 8): 2.6. */
#define TL_TORCH_VERSION_DEFAULT 206

/* What a call (or a gradient-clearing assignment) does, as a bit set. */
enum {
	TL_EV_BACKWARD = 1u << 0,      /* x.backward(), accelerator.backward(l) */
	TL_EV_OPT_STEP = 1u << 1,      /* opt.step(), scaler.step(opt) */
	TL_EV_GRAD_RESET = 1u << 2,    /* zero_grad(), p.grad = None, grad.zero_() */
	TL_EV_EVAL = 1u << 3,          /* m.eval(), m.train(False) */
	TL_EV_TRAIN = 1u << 4,         /* m.train(), m.train(True) */
	TL_EV_FORWARD = 1u << 5,       /* a call of a known module */
	TL_EV_SCALER_UPDATE = 1u << 6, /* scaler.update() on a scaler not disabled by enabled=False */
	TL_EV_SCALER_STEP = 1u << 7,   /* scaler.step(opt), same */
	TL_EV_LOSS = 1u << 8,          /* a loss function or criterion call */
	TL_EV_SCALED_BACKWARD = 1u << 9,   /* scaler.scale(loss).backward() */
	TL_EV_UNSCALED_BACKWARD = 1u << 10, /* loss.backward() on a value no scaler scaled */
	TL_EV_PLAIN_STEP = 1u << 11,   /* opt.step(), not through a GradScaler */
	TL_EV_SCALER_UNSCALE = 1u << 12, /* scaler.unscale_(opt) */
	TL_EV_GRAD_CALL = 1u << 13,    /* torch.autograd.grad(...): reads a graph, fills no .grad */
	TL_EV_DETACH = 1u << 14,       /* x.detach_() on a value (not on a .grad) */
	TL_EV_MODE_SET = 1u << 15,     /* m.train(flag) with a flag that is no literal */
	TL_EV_GRAD_CLIP = 1u << 16,    /* torch.nn.utils.clip_grad_norm_/value_, p.grad.clamp_() */
};

/* Kinds of step loop (RULES.md, "step loop"), as a bit set. */
enum {
	TL_STEP_TRAIN = 1u << 0, /* its own iteration runs a backward or an optimizer step */
	TL_STEP_EVAL = 1u << 1,  /* ... runs a model forward, and no step loop runs inside it */
};

/* Kinds of context a `with` item or a decorator opens, as a bit set. */
enum {
	TL_CTX_GRAD_OFF = 1u << 0, /* no_grad, inference_mode, set_grad_enabled(False or unknown) */
	TL_CTX_GRAD_ON = 1u << 1,  /* enable_grad, set_grad_enabled(True) */
	TL_CTX_AUTOCAST = 1u << 2, /* autocast not disabled by a literal enabled=False */
	TL_CTX_CPU_AUTOCAST = 1u << 3, /* with TL_CTX_AUTOCAST: a literal "cpu" device */
	/* Not a context: asks tl_facts_under for autocast regions not on the CPU. */
	TL_CTX_NOT_CPU = 1u << 4,
	TL_CTX_AUTOCAST_OFF = 1u << 5, /* autocast(enabled=False): full precision inside */
	/* With TL_CTX_AUTOCAST: float16 autocast (dtype=torch.float16 / torch.half,
	 * or no dtype on a CUDA device); asked of tl_facts_under, only such regions. */
	TL_CTX_HALF_AUTOCAST = 1u << 6,
	/* torch.distributed.autograd.context(): gradients accumulate in the
	 * context, not in .grad, and a new context starts with none. */
	TL_CTX_DIST_AUTOGRAD = 1u << 7,
};

typedef enum TlBindKind {
	TL_BIND_ASSIGN,  /* x = value (value: the right-hand side) */
	TL_BIND_AUG,     /* x += value */
	TL_BIND_FOR,     /* for x in value */
	TL_BIND_WITH,    /* with value as x */
	TL_BIND_PARAM,   /* a parameter (value: its annotation, if any) */
	TL_BIND_IMPORT,  /* import / from-import (qname holds the target) */
	TL_BIND_DEF,     /* def x (target: the function index) */
	TL_BIND_CLASS,   /* class x (target: the class index) */
} TlBindKind;

typedef struct TlBinding {
	char *name;     /* "x" or a dotted attribute target such as "self.model" */
	TlBindKind kind;
	TSNode stmt;    /* the statement (or definition) that binds */
	TSNode value;   /* see TlBindKind; may be null */
	int32_t elem;   /* index within a tuple target, or -1 for the whole value */
	int32_t top;    /* the top-level element of a tuple target that holds the
			 * name (`for i, (x, y) in ...`: 1 for x), or -1 */
	int32_t depth;  /* nesting of the name in the target: 0 for the whole
			 * target, 1 for a top-level element, 2 for x above */
	int32_t func;   /* enclosing function, -1 at module level */
	int32_t cls;    /* for "self.x": the class of the method, else -1 */
	int32_t ref;    /* TL_BIND_DEF: function index; TL_BIND_CLASS: class index */
	char *qname;    /* TL_BIND_IMPORT: "torch.nn.functional" etc. */
	bool class_body; /* bound in a class body (a class attribute), cls set */
	uint32_t pos;   /* byte offset from which the binding is visible */
} TlBinding;

typedef struct TlFunc {
	TSNode node;      /* function_definition */
	TSNode outer;     /* decorated_definition when decorated, else node */
	uint32_t start_byte, end_byte; /* node's, kept (filled after the walk):
					* tl_index_func_of searches by them */
	char *name;
	int32_t parent;   /* enclosing function, or -1 */
	int32_t cls;      /* class whose body defines it (a method), or -1 */
	uint32_t decorator_ctx; /* TL_CTX_* opened by its decorators */
	uint32_t events;        /* TL_EV_* of its own body (not nested defs) */
	uint32_t reach_events;  /* ... plus every local function it reaches */
	bool escapes;           /* referenced other than by a call: callers unknown */
	TlIntArray call_sites;  /* calls that target it, and `self.m()` calls in the
				 * methods of a local base class that it overrides
				 * (virtual dispatch may run it there) */
	TlIntArray params;      /* binding indices of its parameters, in order */
	TlArray(TSNode) returns; /* its return statements in source order (not those
				  * of the definitions nested in it) */
	uint32_t flat_events;   /* TL_EV_* it runs outside its own loops, also through
				 * the functions it calls outside them */
	bool runs_step_loop;    /* a loop that runs steps (or forwards) is inside it
				 * or inside a function it calls */
	/* Its summary (what it returns), owned by the facts layer and filled as
	 * questions ask for it (facts/summary.c): TL_RET_* bits computed,
	 * those that hold, those being computed. */
	uint32_t ret_known, ret_yes, ret_busy;
} TlFunc;

typedef struct TlClass {
	TSNode node;
	char *name;
	int32_t func;           /* enclosing function, or -1 */
	TlIntArray bases;       /* local class indices among its bases */
	TlStrArray base_qnames; /* resolved dotted names of its bases */
	bool is_module;         /* derives from nn.Module (directly or locally) */
} TlClass;

typedef struct TlLoop {
	TSNode node;     /* for_statement / while_statement */
	TSNode body;
	int32_t func;
	int32_t parent;  /* enclosing loop in the same function, or -1 */
	uint32_t events; /* TL_EV_* of its iteration (body + reached functions) */
	uint32_t own_events; /* TL_EV_* of its iteration outside the loops nested in
			      * it (directly or in the functions it calls) */
	uint32_t step;   /* TL_STEP_* when it is a step loop by its events, else 0:
			  * read through tl_model_loop_step (facts/loops.c) */
	uint8_t run;     /* tl_model_loop_step's cache: 0 not asked, 1 a step loop, 2 a run per configuration */
	uint8_t ctx;     /* tl_model_loop_step's cache of the step kind its calls' constant
			  * contexts leave: 0 not asked, else the TL_STEP_* bits + 1 */
} TlLoop;

typedef struct TlWith {
	TSNode node;     /* with_statement */
	TSNode body;
	int32_t func;
	int32_t parent;  /* enclosing with block in the same function, or -1 */
	uint32_t ctx;    /* TL_CTX_* opened by its items */
} TlWith;

typedef struct TlCall {
	TSNode node;      /* call */
	uint32_t start_byte, end_byte; /* the node's, kept: calls are looked up by them */
	TSNode callee;    /* its `function` field */
	TSNode receiver;  /* object of an attribute callee, else null */
	char *method;     /* attribute name, or the identifier called, or NULL */
	char *qname;      /* import-resolved dotted callee, or NULL */
	char *recv_name;  /* dotted name of the receiver ("self.model"), or NULL */
	int32_t func;
	int32_t loop;     /* innermost loop of the same function, or -1 */
	int32_t with;     /* innermost with block of the same function, or -1 */
	int32_t target;   /* local function it calls, or -1; `self.m()` whose class
			   * and bases define no `m`, or only a stub of it (`pass`,
			   * `raise NotImplementedError`), targets the one override
			   * in a derived local class, if exactly one defines it */
	int32_t arg_target; /* local function passed as an argument (a closure
			     * for opt.step), which it may call; or -1 */
	uint32_t events;
	/* When it calls a function of another module of the project (filled by
	 * the facts layer, facts/imports.c): that function's reach_events and
	 * flat_events, and whether it runs a step loop. Zero otherwise. */
	uint32_t callee_events, callee_flat;
	bool callee_steps;
	bool stmt_level;  /* the call is a whole expression statement */
} TlCall;

/* A gradient-clearing assignment (`p.grad = None`). */
typedef struct TlSite {
	TSNode node;
	int32_t func;
	int32_t loop;
	uint32_t events;
} TlSite;

/* A node the caller asked the walk to keep (tl_index_build_collecting). */
typedef struct TlIndexNode {
	TSNode node;
	TSSymbol symbol;
	uint32_t ordinal; /* its number in the preorder of every node, from 0 */
} TlIndexNode;

struct TlIndex;

/* The modules of the project a file belongs to (RULES.md principle 2), as
 * the project model (analyzer/project/) offers them to the facts layer:
 * the index of the module that `dotted` names when the file of `from`
 * imports it ("models.net", ".losses", "..utils"), loaded on demand and
 * kept for the run, or NULL (a third-party module, no such file, a module
 * whose own load is under way). Another module's index is shared by every
 * worker thread: a question reads or fills it only between enter() and
 * leave() (re-entrant). */
typedef struct TlImports {
	const struct TlIndex *(*module)(const struct TlImports *self, const struct TlIndex *from,
					const char *dotted, size_t len);
	void (*enter)(const struct TlImports *self);
	void (*leave)(const struct TlImports *self);
	/* The reverse question: the index of the i-th module of the project
	 * that imports the module of `of` (or a name its package defines),
	 * loaded on demand, or NULL past the last one. None at all when they
	 * cannot all be known (a scan over its bounds: project/scan.h). */
	const struct TlIndex *(*importer)(const struct TlImports *self, const struct TlIndex *of,
					  uint32_t i);
	/* True when `mod` is the project's reading of the file of `of`, with
	 * the same text (their functions and classes then match by place). */
	bool (*same_file)(const struct TlImports *self, const struct TlIndex *of,
			  const struct TlIndex *mod);
	/* The top-level package that the file of `from` belongs to, as an
	 * absolute import names it (the top of its `__init__.py` chain:
	 * "torch" for torch/nn/modules/linear.py), or NULL when its folder
	 * is no package. A relative import there names a module of it. */
	const char *(*package)(const struct TlImports *self, const struct TlIndex *from);
	/* True when a module of the project that `text` (the file at `path`,
	 * `len` bytes) imports, or a module of the project that one imports,
	 * imports one of `names` (top-level module names, NULL-terminated):
	 * read from import lines only, nothing parsed. */
	bool (*imports_any)(const struct TlImports *self, const char *path, const char *text,
			    size_t len, const char *const *names);
	/* False when `dotted` (`len` bytes), or a prefix of it, can name no
	 * module of the project for `from` (nothing is loaded to tell):
	 * `module` would find none. */
	bool (*may_name)(const struct TlImports *self, const struct TlIndex *from, const char *dotted,
			 size_t len);
} TlImports;

typedef struct TlIndex {
	const TlSource *src;
	/* The project's modules, or NULL when the file is analysed alone (set
	 * by the facts layer's build, tl_facts_build_in). */
	const TlImports *imports;
	TSNode root;
	/* The nodes of the symbols given to tl_index_build_collecting, in
	 * preorder, and how many nodes the tree has: the engine runs its
	 * queries at these instead of walking the tree again. */
	TlArray(TlIndexNode) collected;
	uint32_t node_count;
	TlArray(TlFunc) funcs;
	TlArray(TlClass) classes;
	TlArray(TlLoop) loops;
	TlArray(TlWith) withs;
	TlArray(TlCall) calls;    /* sorted by (start byte, end byte) */
	TlScopeMap call_spans;    /* (start byte, end byte) -> index into calls, -1 for a
				   * span two calls share (tl_index_call_at) */
	/* The span tl_index_call_at was last asked of and its answer (index
	 * into calls, -1 none, -2 not asked): the predicates of several rules
	 * ask it of one call node in turn. A cache the index's one thread
	 * writes behind its const face, as the parent table. */
	uint32_t call_last_start, call_last_end;
	int32_t call_last;
	TlArray(TlSite) sites;
	TlArray(TlBinding) bindings; /* in source order */
	/* Scoped names -> index into name_lists (binding indices, in source
	 * order). Each distinct binding name ("x", "self.model") has an id in
	 * name_ids; `scoped` maps (scope, name id) to the list, the scopes
	 * being function F (-1: module), the attributes of class C
	 * ("self.x"), its methods and its class-body names (index.c,
	 * tl_index__scope_code). */
	TlStrMap name_ids;
	TlScopeMap scoped;
	TlIntLists name_lists;
	TlArray(uint8_t) name_sorted; /* per name list: 1 when its bindings' pos never
				       * decreases (then searched by halving) */
	/* Per scope (function index + 1; 0 is the module): its calls, bindings,
	 * loops and with blocks, in source order. Nested functions are their
	 * own scopes. */
	TlIntLists scope_calls;
	TlIntLists scope_binds;
	TlIntLists scope_loops;
	TlIntLists scope_withs;
	TlStrMap module_evidence;    /* receivers used as modules (.eval(), .parameters());
				      * "x[]" when elements of container x are */
	TlArray(TSNode) comments;    /* every comment, in source order */
	/* Every plain string literal (no interpolation: no node of code
	 * inside), as start byte << 32 | end byte, in source order. */
	TlArray(uint64_t) plain_strings;
	/* Where the text holds a word as the engine's pre-filter read it
	 * (rules/queryset.h, tl_queryset_word_offsets: the offsets, ascending,
	 * into out[0..cap), how many there are, UINT32_MAX when not known),
	 * set by the engine once the index is built; NULL: not known. */
	uint32_t (*word_offsets)(const void *ctx, const char *word, size_t len, uint32_t *out,
				 uint32_t cap);
	const void *word_ctx;
	TlParents parents;           /* each named node's parent (tl_index_parent) */
	int torch_version;           /* the oldest PyTorch the code must run on (206: 2.6) */
	bool uses_device;            /* the file puts something on an accelerator (.cuda(),
				      * .to(device), device=..., Accelerator()) */
	bool torch_ecosystem;        /* the file imports PyTorch or a library built on it:
				      * names (`optimizer`, `criterion`) and methods
				      * (`.eval()`, `.parameters()`) may then hint at kinds */
	bool foreign_imports;        /* the file imports another deep-learning framework
				      * (paddle, tensorflow, jax, ...): only then may a
				      * value be made by one (filled by the facts layer) */
	/* Answers about single nodes, kept as questions ask them (nodememo.h):
	 * created once the name tables are final, owned by the index. The
	 * table is written through a const index: it changes no answer. */
	TlNodeMemo *memo;
	/* The roots assignment values read (reads.h): built when value flow
	 * first asks, owned by the index, which releases it with reads_release
	 * (set with it: reads.c builds on the index, not the reverse). */
	struct TlReads *reads;
	void (*reads_release)(struct TlReads *reads);
	/* Where each `continue`, `break` and `return` statement starts, in
	 * ascending order. */
	TlIntArray exits;
	/* The facts layer's tables of this file (facts/cache.c), built as
	 * questions need them; owned by the index, which releases them with
	 * facts_release (set with them; the index calls no fact). */
	struct TlFactsCache *facts_cache;
	void (*facts_release)(struct TlFactsCache *cache);
	/* The semantic model of this module (model/model.h), built when a
	 * question first needs it; owned by the index, which releases it with
	 * model_release (set with it: the index calls nothing above it). */
	struct TlModel *model;
	void (*model_release)(struct TlModel *model);
	/* The modules this module's star imports reach and the names looked up
	 * in them (model/model.c), built when a lookup first needs it; owned
	 * by the index, which releases it with stars_release. */
	struct TlStarTable *stars;
	void (*stars_release)(struct TlStarTable *stars);
	/* The model's tables that need only this index (model/steps.c: step
	 * entries, backward loops, autocast entries), kept whether or not a
	 * model is built; owned by the index, which releases them with
	 * tables_release. Each table is published once with a
	 * compare-and-exchange: another module's index is shared between
	 * threads. */
	struct TlIndexTables *tables;
	void (*tables_release)(struct TlIndexTables *tables);
} TlIndex;

void tl_index_build(TlIndex *idx, const TlSource *src, TSNode root);
/* The same, keeping the nodes whose symbol is set in `symbols` (a bitmap
 * over TSSymbol: 8192 bytes, ERROR's bit included) in idx->collected. */
void tl_index_build_collecting(TlIndex *idx, const TlSource *src, TSNode root,
			       const uint8_t *symbols);
void tl_index_release(TlIndex *idx);

/* --- Node helpers ------------------------------------------------------ */

/* The calls of scope `func` (-1: the module) that start inside `range`:
 * indices [*from, *to) of tl_index_scope_calls(idx, func), found by binary
 * search (the list is in source order). */
void tl_index_scope_calls_in(const TlIndex *idx, int32_t func, TSNode range, uint32_t *from,
			     uint32_t *to);
/* The node's parent, as ts_node_parent gives it, in O(1) for the named
 * nodes of the indexed tree (parents.h). */
TSNode tl_index_parent(const TlIndex *idx, TSNode n);
/* Whether a `continue`, `break` or `return` statement starts at a byte in
 * [from, to) (halving over TlIndex.exits). */
bool tl_index_exit_between(const TlIndex *idx, uint32_t from, uint32_t to);
/* Borrows the node's text; *len receives its length. */
const char *tl_index_text(const TlIndex *idx, TSNode n, uint32_t *len);
bool tl_index_text_is(const TlIndex *idx, TSNode n, const char *s);
/* Appends the dotted name of an identifier / attribute chain ("self.model")
 * to `out`; false (and `out` unspecified) for any other expression. */
bool tl_index_dotted(const TlIndex *idx, TSNode n, TlBuf *out);
/* Same, as a new string (caller frees); NULL when not a dotted name. */
char *tl_index_dotted_dup(const TlIndex *idx, TSNode n);
/* Same, written into `buf` (`size` bytes) when it fits, else as a new
 * string stored in *owned too (caller frees *owned, NULL when unused);
 * NULL when not a dotted name. For questions that only look at the name. */
const char *tl_index_dotted_view(const TlIndex *idx, TSNode n, char *buf, size_t size,
				 char **owned);
/* Resolves an identifier / attribute chain through imports and module
 * aliases ("nn.CrossEntropyLoss" -> "torch.nn.CrossEntropyLoss"). Caller
 * frees; NULL when the root is not an import. */
char *tl_index_qualify(const TlIndex *idx, TSNode n);
/* The same, borrowed: kept per node in the index (TlIndex.memo) and valid
 * until tl_index_release; for questions asked of the same node again and
 * again (by kind of API, by each predicate). Once the index is built only. */
const char *tl_index_qualified(const TlIndex *idx, TSNode n);
/* Strips parentheses around an expression. */
TSNode tl_index_unparen(TSNode n);

/* --- Lookups ------------------------------------------------------------ */

const TlCall *tl_index_call_at(const TlIndex *idx, TSNode call);
int32_t tl_index_func_of(const TlIndex *idx, TSNode n);
int32_t tl_index_loop_of(const TlIndex *idx, TSNode n);
int32_t tl_index_with_of(const TlIndex *idx, TSNode n);
/* The binding that `name` refers to at byte `pos` inside function `func`:
 * the latest visible one in that function, then enclosing functions, then
 * the class (for "self.x"), then module level. NULL when unbound. */
const TlBinding *tl_index_resolve(const TlIndex *idx, const char *name,
				  int32_t func, uint32_t pos);
/* Same, for an identifier or attribute-chain node. */
const TlBinding *tl_index_resolve_node(const TlIndex *idx, TSNode n);
/* The binding of the longest bound prefix of an attribute chain:
 * `logits.reshape` -> the binding of `logits`; NULL when none is bound. */
const TlBinding *tl_index_resolve_prefix(const TlIndex *idx, TSNode n);
/* The names another module may call a function of this one by (module-
 * level functions and the methods of module-level classes), each mapped
 * to its function; fills `out` (initialised here, the caller releases it)
 * and returns how many. */
uint32_t tl_index_outer_names(const TlIndex *idx, TlStrMap *out);
/* Every binding of `name` made directly in function `func` (-1: module),
 * in source order; NULL when there is none. */
const TlIntArray *tl_index_bindings_of(const TlIndex *idx, int32_t func, const char *name);
/* Every binding of attribute `name` ("self.x") in the methods of class
 * `cls`; NULL when there is none. */
const TlIntArray *tl_index_attr_bindings(const TlIndex *idx, int32_t cls, const char *name);
/* The method `name` of local class `cls`, or -1. */
int32_t tl_index_method(const TlIndex *idx, int32_t cls, const char *name, size_t len);
/* Indices into idx->calls / idx->bindings of one scope (func -1: module). */
const TlIntArray *tl_index_scope_calls(const TlIndex *idx, int32_t func);
const TlIntArray *tl_index_scope_binds(const TlIndex *idx, int32_t func);
/* The first call (index into idx->calls) starting at or after `byte`. */
uint32_t tl_index_first_call_from(const TlIndex *idx, uint32_t byte);
/* True when no call of the file has one of the events `bits` (TlCall.events)
 * nor one of `callee_bits` among its callee's (TlCall.callee_events): a
 * question whose first test needs such a call holds nowhere in the file.
 * The events are the facts layer's, filled in before it is asked. */
bool tl_index_no_call_has(const TlIndex *idx, uint32_t bits, uint32_t callee_bits);

#endif
