/* API knowledge as data: one typed table (api/api.tsv, embedded in the
 * binary) that says, for a qualified name (`torch.argmax`), a method of any
 * receiver (`.item`) or a builtin called by its bare name (`builtins.len`),
 * what a call of it does to the value it returns: its autograd graph, its
 * kind, device and dtype, and its roles (a loss, a forward, a factory, a
 * wrapper, a mode or grad switch). docs/semantic-model.md describes the
 * columns; the file's own header comment repeats them.
 *
 * apiparse.c parses a table's text into rows (no allocation: the rows
 * borrow the text) and looks rows up; the build runs the same parser over
 * api/api.tsv (tools/apicheck.c), so a malformed row, an unknown column
 * value or a repeated name stops the build with the file and line.
 * apitable.c parses the embedded copy once, at first use, on any thread.
 *
 * This header includes only the C library: tools/apicheck.c compiles
 * apiparse.c on its own.
 *
 * Owns: TlApiRow, TlApiTable (apiparse.c), the embedded table (apitable.c). */
#ifndef TL_APITABLE_H
#define TL_APITABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a row's name is matched. */
typedef enum TlApiForm {
	TL_API_QUALIFIED = 0, /* `torch.argmax`: a call whose import-resolved name is this */
	TL_API_METHOD = 1,    /* `.item`: a call of this method on any receiver */
	TL_API_BUILTIN = 2,   /* `builtins.len`: a call of the bare name `len`, no receiver */
	TL_API_ANY = 3,       /* `*.Adam`: a call whose import-resolved name ends in this
			       * part (`torch.optim.Adam`, `bitsandbytes.optim.Adam`) */
	TL_API_UNDER = 4,     /* `torchvision.models.*`: a call whose import-resolved name
			       * is under this module (`torchvision.models.resnet18`),
			       * when no row names it itself */
	TL_API_ATTRIBUTE = 5, /* `@grad`: an attribute of this name read from any value
			       * (`p.grad`): the columns say what the attribute's value
			       * is, not what a call returns */
	TL_API_WORD = 6,      /* `~ema`: a word that a name or an annotation holds
			       * (`ModelEMA`, `TORCH_GE_2_0`, `Optional[Tensor]`):
			       * only its sets say something, what of such a name
			       * (tl_api_word_in) */
} TlApiForm;

/* What a call does to the autograd graph of the value it returns. */
typedef enum TlApiGraph {
	TL_APIG_UNSAID = 0, /* `-`: the table does not say */
	TL_APIG_KEEPS,      /* the result follows its operands (a method: its receiver) */
	TL_APIG_BREAKS,     /* the result carries no history */
	TL_APIG_MAKES,      /* the result has history of its own (a forward, a loss) */
	TL_APIG_ELEMENT,    /* the result is an element of the receiver (`.get`, `.pop`) */
} TlApiGraph;

/* The kind of the value a call returns. */
typedef enum TlApiKind {
	TL_APIK_UNSAID = 0,
	TL_APIK_TENSOR, TL_APIK_MODULE, TL_APIK_OPTIMIZER, TL_APIK_SCALER, TL_APIK_LOADER,
	TL_APIK_SAMPLER, TL_APIK_CRITERION, TL_APIK_DEVICE, TL_APIK_NUMBER, TL_APIK_BOOL,
	TL_APIK_STRING, TL_APIK_CONTAINER, TL_APIK_ARRAY,
	TL_APIK_PARAMETER, /* a module's parameter (an attribute row: `@weight`) */
} TlApiKind;

/* Where the value a call returns lives. */
typedef enum TlApiDevice {
	TL_APID_UNSAID = 0,
	TL_APID_KEEPS,       /* where its operand (receiver) is */
	TL_APID_HOST,        /* host memory */
	TL_APID_ACCELERATOR, /* an accelerator */
} TlApiDevice;

/* The dtype class of the value a call returns. */
typedef enum TlApiDtype {
	TL_APIT_UNSAID = 0,
	TL_APIT_KEEPS, TL_APIT_HALF, TL_APIT_FLOAT32, TL_APIT_FLOAT64, TL_APIT_INTEGER, TL_APIT_BOOL,
} TlApiDtype;

/* Roles (bits of TlApiRow.roles). */
#define TL_APIR_LOSS (UINT64_C(1) << 0)
#define TL_APIR_FORWARD (UINT64_C(1) << 1)
#define TL_APIR_FACTORY (UINT64_C(1) << 2)
#define TL_APIR_WRAPPER (UINT64_C(1) << 3)
#define TL_APIR_MODE (UINT64_C(1) << 4) /* switches a module's train / eval mode */
#define TL_APIR_GRAD (UINT64_C(1) << 5) /* switches gradient recording */
#define TL_APIR_TUPLE (UINT64_C(1) << 6) /* makes a tuple class: calling what it returns makes a tuple of the arguments */
#define TL_APIR_COPY (UINT64_C(1) << 7)  /* returns a copy of its first argument: of the same class, holding the same structure */
/* What the result's contents are made as (TlVal.act), read by the
 * model (model/made.c): an activation (a function's result, or a
 * module class whose call computes it), an exponential, a sum, a
 * method that reshapes, moves or casts its receiver's values (they
 * stay what they were made as), a module that runs its arguments in
 * order (its output is its last layer's), a GradScaler's scale. */
#define TL_APIR_SOFTMAX (UINT64_C(1) << 8)
#define TL_APIR_LOG_SOFTMAX (UINT64_C(1) << 9)
#define TL_APIR_SIGMOID (UINT64_C(1) << 10)
#define TL_APIR_EXP (UINT64_C(1) << 11)
#define TL_APIR_SUM (UINT64_C(1) << 12)
#define TL_APIR_RESHAPE (UINT64_C(1) << 13)
#define TL_APIR_SEQUENTIAL (UINT64_C(1) << 14)
#define TL_APIR_SCALE (UINT64_C(1) << 15)
/* The loss a loss function or a criterion class computes (TlVal.loss). */
#define TL_APIR_CROSS_ENTROPY (UINT64_C(1) << 16)
#define TL_APIR_NLL (UINT64_C(1) << 17)
#define TL_APIR_BCE (UINT64_C(1) << 18)
#define TL_APIR_BCE_LOGITS (UINT64_C(1) << 19)
/* An in-place subtraction (`x.sub_(m)`): its receiver becomes a
 * difference, whose exponential is no plain exponential. */
#define TL_APIR_SHIFT (UINT64_C(1) << 20)
/* Adds a layer to its receiver module (`add_module(name, layer)`):
 * an nn.Sequential's output becomes the new last layer's. */
#define TL_APIR_ADD_LAYER (UINT64_C(1) << 21)
/* Copies its receiver's data to the host (`.cpu()`, `.item()`,
 * `.tolist()`): from a tensor on an accelerator, a copy that waits
 * for it (model/host.c). */
#define TL_APIR_TO_HOST (UINT64_C(1) << 22)
/* Stores an object the flow graph follows (model/flow.c): writes
 * its first argument (`obj`) to a file (`torch.save`); loads its
 * first argument (`state_dict`) into its receiver's state
 * (`.load_state_dict`). A method whose result holds its receiver's
 * entries (`.items()`, `.values()`): what it hands out is read out
 * of the receiver. */
#define TL_APIR_SAVES (UINT64_C(1) << 23)
#define TL_APIR_LOADS_STATE (UINT64_C(1) << 24)
#define TL_APIR_PARTS (UINT64_C(1) << 25)
/* What a call does to what the loop around it reads again
 * (model/vary.c): a method that changes its receiver in place
 * (`xs.append(v)`, `d.update(e)`, `model.load_state_dict(sd)`; the
 * `x_()` methods are known by their name); a method that moves or
 * casts a module in place when called as a statement
 * (`model.to(device)`, `.half()`); a method that keeps what it is
 * handed in its receiver (`xs.append(v)`, `q.put(v)`); a call whose
 * result changes from call to call whatever its inputs (random
 * numbers, the clock, `next()`, `input()`). */
#define TL_APIR_MUTATES (UINT64_C(1) << 26)
#define TL_APIR_MOVES (UINT64_C(1) << 27)
#define TL_APIR_STORES (UINT64_C(1) << 28)
#define TL_APIR_VARIES (UINT64_C(1) << 29)
/* A mapping class called with keyword arguments (`dict(gen=g)`,
 * `Munch(gen=g)`): a dict of them under their names, with the entries
 * of a mapping it is handed (positionally or as `**d`). */
#define TL_APIR_MAPPING (UINT64_C(1) << 30)
/* A method of a module that returns the module itself (`.to`, `.cuda`,
 * `.half`, `.train`, `.eval`, `.requires_grad_`, `.share_memory`,
 * `.to_empty`): the facts' module questions follow it to its receiver
 * (`Net().to(device)` is the module `Net()` builds), read by
 * tl_api_returns_self. Alone on a row it says nothing of what the model
 * computes: tl_api_method passes over such a row, as over one of sets
 * only. */
#define TL_APIR_RETURNS_SELF (UINT64_C(1) << 31)
/* What a callee does with the callables it is handed, changing neither
 * the grad mode nor any module's mode (facts/mode.c: a lambda handed to
 * it runs where it is handed, as far as the facts' mode questions go),
 * read by tl_api_runs_callable. runs-callable: it calls them before it
 * returns (`sorted`, `min`, `max` with `key=`, `functools.reduce`).
 * defers-callable: it returns an object that calls them when iterated or
 * called (`map`, `filter`, `itertools.starmap`; MONAI's
 * `TestTimeAugmentation`, whose call runs its `inferrer_fn`), in the
 * grad mode there. Alone on a row they say nothing of what the model
 * computes: tl_api_builtin and tl_api_qualified pass over such a row. */
#define TL_APIR_RUNS_CALLABLE (UINT64_C(1) << 32)
#define TL_APIR_DEFERS_CALLABLE (UINT64_C(1) << 33)
/* How many roles there are. */
#define TL_API_ROLE_COUNT 34

/* The named sets a name belongs to (the `sets` column, bits): the sets of
 * the `api` predicate, in the order of its names (TlApi in facts.h), and
 * the facts' own sets after them. */
#define TL_APIS_TENSOR_FACTORY (UINT64_C(1) << 0)
#define TL_APIS_RANDOM_FACTORY (UINT64_C(1) << 1)
#define TL_APIS_TENSOR_FROM_DATA (UINT64_C(1) << 2)
#define TL_APIS_DEPRECATED_AMP (UINT64_C(1) << 3)
#define TL_APIS_CPU_AMP (UINT64_C(1) << 4)
#define TL_APIS_TORCH_LOAD (UINT64_C(1) << 5)
#define TL_APIS_HUB_LOAD (UINT64_C(1) << 6)
#define TL_APIS_ACTIVATION_CHECKPOINT (UINT64_C(1) << 7)
#define TL_APIS_EMPTY_CACHE (UINT64_C(1) << 8)
#define TL_APIS_DATA_LOADER (UINT64_C(1) << 9)
#define TL_APIS_LOG (UINT64_C(1) << 10)
#define TL_APIS_SOFTMAX_FUNCTION (UINT64_C(1) << 11)
#define TL_APIS_SOFTMAX_MODULE (UINT64_C(1) << 12)
#define TL_APIS_FUNCTIONAL_DROPOUT (UINT64_C(1) << 13)
#define TL_APIS_DROPOUT_MODULE (UINT64_C(1) << 14)
#define TL_APIS_ANOMALY_MODE (UINT64_C(1) << 15)
#define TL_APIS_TORCH_SAVE (UINT64_C(1) << 16)
#define TL_APIS_OUT_OF_PLACE (UINT64_C(1) << 17)
/* An optimizer whose update divides by a running scale of the
 * gradients (Adam and its kin, RMSprop, Adagrad) or keeps only their
 * sign (Lion): a constant factor on every gradient mostly cancels. */
#define TL_APIS_ADAPTIVE_OPTIMIZER (UINT64_C(1) << 18)
/* A module that behaves differently in train and eval mode as the
 * library builds it by default (batch norm, dropout). */
#define TL_APIS_MODE_DEPENDENT (UINT64_C(1) << 19)
/* A call that returns a module in eval mode (the libraries' loaders
 * of pretrained weights call `eval()` on it). */
#define TL_APIS_EVAL_MODE (UINT64_C(1) << 20)
/* A wrapper (role wrapper) of that kind: DistributedDataParallel,
 * FullyShardedDataParallel, DataParallel, torch.compile. */
#define TL_APIS_WRAP_DDP (UINT64_C(1) << 21)
#define TL_APIS_WRAP_FSDP (UINT64_C(1) << 22)
#define TL_APIS_WRAP_DATA_PARALLEL (UINT64_C(1) << 23)
#define TL_APIS_WRAP_COMPILED (UINT64_C(1) << 24)
/* A container class whose stores keep what they are handed detached
 * (MONAI's CumulativeAverage keeps `val.detach()`). */
#define TL_APIS_DETACHING (UINT64_C(1) << 25)
/* A torch.nn module class that holds no parameters or buffers
 * (activations, pooling, padding, dropout). */
#define TL_APIS_PARAMETER_FREE (UINT64_C(1) << 26)
/* A class whose instances are tensors (torch.Tensor, the typed
 * tensor classes, nn.Parameter): what an isinstance test or an
 * annotation names. */
#define TL_APIS_TENSOR_CLASS (UINT64_C(1) << 27)
/* A call that makes a new tensor without autograd history, which
 * requires grad only when its `requires_grad` argument says so
 * (torch.zeros, torch.randn, torch.tensor; not torch.as_tensor, which
 * may hand back its argument). */
#define TL_APIS_NEW_LEAF (UINT64_C(1) << 28)
/* A module constructor whose parameters do not require grad unless its
 * `freeze` argument is false (nn.Embedding.from_pretrained). */
#define TL_APIS_FROZEN (UINT64_C(1) << 29)
/* A method of tensors: the subscript it is called on (`batch["x"].view(n, -1)`)
 * holds a tensor under that string key (model/model.c). */
#define TL_APIS_TENSOR_METHOD (UINT64_C(1) << 30)
/* A module whose functions are tensor operations (an `M.*` row: `torch.*`,
 * `torch.linalg.*`): a call of one of its functions that the table does
 * not list computes a tensor (model/devices.c). */
#define TL_APIS_TENSOR_NAMESPACE (UINT64_C(1) << 31)
/* A module's methods: that hand over its parameters (`.parameters`,
 * `.named_parameters`: what an optimizer is given); whose iteration
 * yields its parameters or buffers; the named forms of these, which yield
 * (name, tensor) pairs (facts/kinds.c). */
#define TL_APIS_PARAMETERS (UINT64_C(1) << 32)
#define TL_APIS_PARAMETER_ITERATOR (UINT64_C(1) << 33)
#define TL_APIS_NAMED_ITERATOR (UINT64_C(1) << 34)
/* A context manager or decorator that turns gradient recording off
 * (`torch.no_grad`, `torch.inference_mode`), on (`torch.enable_grad`), or
 * on or off as its first argument says (`torch.set_grad_enabled`)
 * (facts/contexts.c). */
#define TL_APIS_GRAD_OFF (UINT64_C(1) << 35)
#define TL_APIS_GRAD_ON (UINT64_C(1) << 36)
#define TL_APIS_GRAD_SET (UINT64_C(1) << 37)
/* What decides whether a torch.nn layer behaves differently in train and
 * eval mode (facts/layers.c): batch norm, unless built with
 * `track_running_stats=False`; instance norm, when built with
 * `track_running_stats=True`; a transformer layer, unless its dropout is
 * 0; a recurrent layer or attention, when its `dropout` is not 0; a
 * container, the layers it holds. */
#define TL_APIS_BATCH_NORM (UINT64_C(1) << 38)
#define TL_APIS_INSTANCE_NORM (UINT64_C(1) << 39)
#define TL_APIS_TRANSFORMER_LAYER (UINT64_C(1) << 40)
#define TL_APIS_DROPOUT_ARGUMENT (UINT64_C(1) << 41)
#define TL_APIS_LAYER_CONTAINER (UINT64_C(1) << 42)
/* A call that iterates its first argument (`enumerate(loader)`,
 * `tqdm(loader)`); torch's DistributedSampler (facts/loaders.c). */
#define TL_APIS_ITERATES (UINT64_C(1) << 43)
#define TL_APIS_DISTRIBUTED_SAMPLER (UINT64_C(1) << 44)
/* A type whose values hold no tensor (`int`, `float`, `str`, `bool`: what
 * an annotation says); a call that adds an attribute to an object by
 * name (`.add_module`, `.register_parameter`, `setattr`) (model/holdsnone.c,
 * facts/imports.c). */
#define TL_APIS_PLAIN_TYPE (UINT64_C(1) << 45)
#define TL_APIS_REGISTERS (UINT64_C(1) << 46)
/* A function that clips the gradients as they are (`clip_grad_norm_`,
 * `clip_grad_value_`), read of the row torch.nn.utils.<last part>
 * (facts/events.c). */
#define TL_APIS_CLIP_GRAD (UINT64_C(1) << 47)
/* Sets of the `R.*` row of a top-level package R (tl_api_package_sets):
 * PyTorch or a library built on it (a name from it is PyTorch's;
 * facts/common.c, beside the packages whose names start with `torch` or
 * `pytorch`); another deep-learning framework, whose values are never
 * PyTorch's (model/seeds.c); PyTorch's own packages, whose APIs are known
 * by name and whose relative imports name the API as their absolute
 * spelling does (facts/imports.c, model/model.c); the packages whose
 * names are the table's and never a module of the project, as Python
 * finds the installed package first (model/model.c); the libraries whose
 * `from_pretrained` returns a model (model/seeds.c). */
#define TL_APIS_TORCH_LIBRARY (UINT64_C(1) << 48)
#define TL_APIS_FOREIGN_FRAMEWORK (UINT64_C(1) << 49)
#define TL_APIS_OWN_PACKAGE (UINT64_C(1) << 50)
#define TL_APIS_API_PACKAGE (UINT64_C(1) << 51)
#define TL_APIS_PRETRAINED_LIBRARY (UINT64_C(1) << 52)
/* A type that is no tensor, as the head of an annotation names it
 * (`Set[str]`, `int`): Python's containers, strings and numbers, by their
 * builtin and typing names (facts/devices.c). */
#define TL_APIS_NOT_TENSOR (UINT64_C(1) << 53)
/* Builtins that only read what they are handed and keep nothing of it
 * (`len`, `enumerate`, `print`, `getattr`): a container of modules
 * handed to one needs no registering (rules/checks/TL214.c). */
#define TL_APIS_READS_ONLY (UINT64_C(1) << 54)
/* Builtins whose result holds the items of their last argument (`list`,
 * `tuple`, `filter`, `sorted`): `list(m.parameters())` is still the
 * module's parameters (facts/kinds.c). */
#define TL_APIS_PASSES_ITEMS (UINT64_C(1) << 55)
/* The exceptions that calling a newer API raises on an older library
 * (`ImportError`, `ModuleNotFoundError`, `AttributeError`, `TypeError`
 * for an unknown keyword): an except clause naming one is a fallback
 * for old versions (facts/versions.c). */
#define TL_APIS_OLD_API_ERROR (UINT64_C(1) << 56)
/* Methods that give a module state of its own beyond what its attributes
 * hold (`.register_buffer`): a class that calls one is not stateless
 * (model/holdsnone.c). */
#define TL_APIS_REGISTERS_STATE (UINT64_C(1) << 57)
/* Methods that raise on a tensor that requires grad (`.numpy`): code that
 * calls one on a forward's result, directly or through methods that keep
 * its history, runs only where that result requires none
 * (model/requiresgrad.c). */
#define TL_APIS_NEEDS_NO_GRAD (UINT64_C(1) << 58)
/* A call whose iteration yields no data (facts/evalpass.c): counts
 * (`range`, `itertools.count`, `torch.arange`) or the parts of a module or
 * mapping (`.parameters`, `.modules`, `.items`); read on the `*.` rows of
 * the last part of a call's name, its method or bare name, with `iterates`
 * there for what hands on the items of its first argument (`enumerate`,
 * `zip`, `tqdm`, `islice`). */
#define TL_APIS_COUNTS (UINT64_C(1) << 59)
/* Sets of the `~` rows, words that names hold (tl_api_word_in): a class
 * whose lower-cased name holds one is no optimizer, whatever it is handed
 * (`ModelEMA`, `SWALR`, `CosineScheduler`: facts/kinds.c); a flag whose
 * lower-cased name holds one tests for a PyTorch at least (newer) or below
 * (older) the version it names (`TORCH_GE_2_0`, `is_torch_less_than_1_13`:
 * facts/versions.c). `tensor-class` on a `~` row: an annotation whose text
 * holds the word may name a tensor (`Tensor`, `Parameter`, `Variable`; `Any`
 * and `object`, which take one: facts/devices.c). */
#define TL_APIS_NOT_OPTIMIZER (UINT64_C(1) << 60)
#define TL_APIS_NEWER_VERSION (UINT64_C(1) << 61)
#define TL_APIS_OLDER_VERSION (UINT64_C(1) << 62)
/* How many sets there are. */
#define TL_API_SET_COUNT 63

typedef struct TlApiRow {
	const char *name; /* the name without its `.` or `builtins.` (borrowed, not NUL-terminated) */
	uint32_t len;     /* bytes of `name` */
	uint32_t line;    /* line of the row in its file */
	uint8_t form;     /* TlApiForm */
	uint8_t graph;    /* TlApiGraph */
	uint8_t kind;     /* TlApiKind */
	uint8_t device;   /* TlApiDevice */
	uint8_t dtype;    /* TlApiDtype */
	uint64_t roles;   /* TL_APIR_* bits */
	uint64_t sets;    /* TL_APIS_* bits */
	/* The `params` column: the parameters a call may pass by position,
	 * in order, comma-separated (`dataset,batch_size,shuffle`; borrowed,
	 * not NUL-terminated), or NULL for `-` or a row without the column.
	 * tl_api_param_place reads it. */
	const char *params;
	uint32_t params_len;
} TlApiRow;

/* A parsed table: rows sorted by (form, name), no two alike. `slots`, when
 * set (tl_api_hash), hashes (form, name) to row + 1 (0 empty; mask + 1
 * slots): a lookup then hashes the name once, where the sorted rows take
 * some ten comparisons. */
typedef struct TlApiTable {
	TlApiRow *rows;
	size_t count;
	uint32_t *slots;
	uint32_t mask;
} TlApiTable;

/* An upper bound on the rows `text` can hold (its lines): the capacity to
 * give tl_api_parse. */
size_t tl_api_row_bound(const char *text, size_t len);
/* Parses the table `text` (`len` bytes, which the rows then borrow: keep
 * it alive) into `rows` (room for `cap`, see tl_api_row_bound) and sorts
 * them. The first non-comment line is the header `name graph kind device
 * dtype roles sets params`; every other line that is not blank or a `#`
 * comment is a row of those columns, separated by spaces or tabs, or of
 * the first seven (a row that says no signature may leave `params` off). On
 * success fills `*out` (its rows are `rows`) and returns true; otherwise
 * returns false and writes `file:line: what is wrong` (NUL-terminated,
 * cut to `errcap` bytes) into `err`. */
bool tl_api_parse(const char *text, size_t len, const char *file, TlApiRow *rows, size_t cap,
		  TlApiTable *out, char *err, size_t errcap);
/* The row of `name` (NUL-terminated, without `.` or `builtins.`) in form
 * `form`, or NULL: a binary search. */
const TlApiRow *tl_api_find(const TlApiTable *t, TlApiForm form, const char *name);
/* Gives a parsed table its hash of rows in `slots`, room for
 * tl_api_hash_size(t) (kept for the table's life). */
size_t tl_api_hash_size(const TlApiTable *t);
void tl_api_hash(TlApiTable *t, uint32_t *slots);
/* The place (0-based) of parameter `name` in row `r`'s `params`, or -1
 * (no row, no params, or no such parameter). */
int tl_api_param_place(const TlApiRow *r, const char *name);
/* The column values as the table writes them ("keeps", "tensor", ...;
 * "-" for UNSAID), for printing. */
const char *tl_api_graph_name(unsigned graph);
const char *tl_api_kind_name(unsigned kind);
const char *tl_api_device_name(unsigned device);
const char *tl_api_dtype_name(unsigned dtype);
/* The name of set bit `bit` (0 .. TL_API_SET_COUNT - 1) as the table
 * writes it ("tensor-factory"), or "?". */
const char *tl_api_set_name(unsigned bit);
/* Writes the roles of `roles` as the table does ("loss,forward", "-") into
 * `buf` (`cap` bytes, NUL-terminated). */
void tl_api_roles_format(uint64_t roles, char *buf, size_t cap);
/* The same for the sets of `sets`. */
void tl_api_sets_format(uint64_t sets, char *buf, size_t cap);

/* The embedded table (api/api.tsv), parsed at the first call on any
 * thread; the same table for the life of the process. Its rows' names are
 * NUL-terminated (at `len`). Never NULL: a table
 * the build let through but that does not parse stops the program with
 * its message (the build's check makes that impossible). */
const TlApiTable *tl_api_table(void);
/* Lookups in the embedded table. `method` and `builtin` are the bare
 * names (`item`, `len`), `qname` the import-resolved dotted name. NULL
 * when the table has no such row (or the argument is NULL). A method or
 * builtin row of sets only says nothing of what its calls do:
 * tl_api_method and tl_api_builtin pass over it (tl_api_method_sets and
 * tl_api_builtin_sets read it); so is a row whose only role is
 * returns-self (tl_api_returns_self reads it), or runs-callable or
 * defers-callable (tl_api_runs_callable reads them; tl_api_qualified
 * passes over a qualified row of those roles alone too, as it does not
 * over a qualified row of sets only). */
const TlApiRow *tl_api_qualified(const char *qname);
const TlApiRow *tl_api_method(const char *method);
/* True when method `method` (the bare name, NULL: false) returns its
 * receiver, a module: its row's role returns-self. */
bool tl_api_returns_self(const char *method);
/* What the callee of a call does with the callables it is handed, in
 * the caller's grad mode and module modes: TL_APIR_RUNS_CALLABLE,
 * TL_APIR_DEFERS_CALLABLE or 0, the role the row of `qname` (the call's
 * import-resolved name) has or, when `qname` is NULL, the row of builtin
 * `builtin` (a bare name bound nowhere in the file; NULL: 0). */
uint64_t tl_api_runs_callable(const char *qname, const char *builtin);
const TlApiRow *tl_api_builtin(const char *name);
/* The row of attribute `name` (`len` bytes at `name`, not NUL-terminated:
 * source text), `@name` in the table, or NULL. */
const TlApiRow *tl_api_attribute(const char *name, size_t len);
/* The `*.last` row of `qname`'s last dotted part (the whole of a name
 * without a dot), or NULL; as tl_api_method, it passes over a row of sets
 * only (tl_api_any_sets reads it). */
const TlApiRow *tl_api_any(const char *qname);
/* The sets of the `*.last` row of `name`'s last dotted part (the whole of
 * a name without a dot: a method or bare name), or 0. */
uint64_t tl_api_any_sets(const char *name);
/* True when the `n` bytes at `s` (not NUL-terminated) hold the word of a
 * `~` row of one of the sets `sets`: a plain, case-sensitive search, each
 * word in turn (callers lower-case `s` where the words are lower case). */
bool tl_api_word_in(const char *s, size_t n, uint64_t sets);
/* The sets (TL_APIS_* bits) of the row of method `method`, of qualified
 * name `qname`; 0 when there is none. */
uint64_t tl_api_method_sets(const char *method);
uint64_t tl_api_qualified_sets(const char *qname);
uint64_t tl_api_builtin_sets(const char *name);
/* The same of the `n` bytes at `s` (not NUL-terminated: source text). */
uint64_t tl_api_builtin_sets_text(const char *s, size_t n);
/* The sets of the `R.*` row of the top-level package R that dotted name
 * `q` (`len` bytes, not NUL-terminated) is in: R is the part before its
 * first dot, all of it without one (`transformers` for
 * transformers.AutoModel). 0 when there is no such row. */
uint64_t tl_api_package_sets(const char *q, size_t len);
/* True when `root` (a top-level package name, no dots) is one of
 * PyTorch's own packages (the table's set own-package: torch,
 * torchvision, ..., functorch, pytorch_lightning), matched exactly:
 * their APIs are known by name, and a relative import inside one of them
 * names the API as its absolute spelling does. */
bool tl_api_own_package(const char *root);

/* The row of the innermost module `qname` is under (`torchvision.models.*`
 * for torchvision.models.detection.fasterrcnn_resnet50_fpn), or NULL. An
 * `M.*` row of sets only says nothing of the calls under M: passed over. */
const TlApiRow *tl_api_under(const char *qname);
/* The sets of the `M.*` row of the module M that `qname` is directly in
 * (`torch.linalg` for torch.linalg.norm), or 0. */
uint64_t tl_api_module_sets(const char *qname);

#endif
