/* Kind seeds: what a parameter is when no call site the project has says
 * it. Its annotation says it first (`model: nn.Module`, `opt:
 * torch.optim.Optimizer`); in a file of the PyTorch ecosystem, then, the
 * methods the file calls on its name (the index's module evidence: `.eval()`,
 * `.parameters()`) and its name (`scaler`, `optimizer`, `criterion`). A
 * seeded value is marked TL_VM_GUESS: its kind is the file's evidence, not a
 * making the model saw, and it stays a parameter (TL_VM_PARAMS, pgraph) for
 * what its callers pass.
 *
 * A name the code reads whose value the model does not know (a model an
 * unresolved import built, `self.net` a constructor was handed) is a module
 * when the file calls a module's methods on that name; a call of such a
 * name named like a criterion computes a loss, `.step(closure)` of one named
 * like an optimizer runs the closure.
 *
 * A condition narrows too: in the branch of `if isinstance(x, T):` (also
 * the left operands of an `and`), a name the model does not know, or knows
 * only by such evidence, is of the kind T names (a tensor for torch.Tensor
 * and nn.Parameter, a module for a module class).
 *
 * Owns: tl_model_foreign_qname, tl_model_pipeline_qname, tl_model_pretrained_loader, tl_model__seed_param, tl_model__seed_read, tl_model__seed_named, tl_in__narrow,
 * tl_model_optimizer_like_name,
 * tl_model_scaler_like_name, tl_model_loss_like_name. */
#include <ctype.h>
#include <string.h>

#include "base/alloc.h"
#include "model/apitable.h"
#include "model/interp_internal.h"
#include "syntax/syms.h"
#include "syntax/treewalk.h"

static const char *tl_seed__last(const char *name)
{
	const char *dot = strrchr(name, '.');
	return dot ? dot + 1 : name;
}

static void tl_seed__lower(const char *s, char *out, size_t size)
{
	size_t i = 0;
	for (; s[i] && i + 1 < size; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[i] = '\0';
}

bool tl_model_foreign_qname(const char *q)
{
	return q && (tl_api_package_sets(q, strlen(q)) & TL_APIS_FOREIGN_FRAMEWORK);
}

bool tl_model_pipeline_qname(const char *q)
{
	return q && (strcmp(q, "transformers.pipeline") == 0 ||
		     (strstr(q, "Pipeline") && strncmp(q, "torch.", 6) != 0));
}

bool tl_model_pretrained_loader(const char *q)
{
	if (tl_model_pipeline_qname(q))
		return false;
	static const char *const not_models[] = { "Tokenizer", "Config", "Processor" };
	size_t n = q ? strlen(q) : 0;
	const char *tail = ".from_pretrained";
	if (n <= strlen(tail) || strcmp(q + n - strlen(tail), tail) != 0)
		return false;
	bool library = (tl_api_package_sets(q, n) & TL_APIS_PRETRAINED_LIBRARY) != 0;
	for (size_t i = 0; library && i < sizeof not_models / sizeof *not_models; i++)
		if (strstr(q, not_models[i]))
			return false;
	return library;
}

bool tl_model_loss_like_name(const char *name)
{
	char low[128];
	tl_seed__lower(tl_seed__last(name), low, sizeof low);
	return strstr(low, "criterion") || strstr(low, "loss_fn") || strstr(low, "lossfn") ||
	       strstr(low, "loss_func") || strcmp(low, "compute_loss") == 0 || strcmp(low, "calc_loss") == 0;
}

bool tl_model_optimizer_like_name(const char *name)
{
	char low[128];
	const char *last = tl_seed__last(name);
	tl_seed__lower(last, low, sizeof low);
	size_t n = strlen(low);
	if (strstr(low, "sched") || strstr(low, "scaler"))
		return false;
	return strstr(low, "optim") || strcmp(low, "opt") == 0 || strncmp(low, "opt_", 4) == 0 ||
	       (n >= 4 && strcmp(low + n - 4, "_opt") == 0) ||
	       (strncmp(low, "opt", 3) == 0 && (isdigit((unsigned char)low[3]) || isupper((unsigned char)last[3])));
}

bool tl_model_scaler_like_name(const char *name)
{
	char low[128];
	tl_seed__lower(tl_seed__last(name), low, sizeof low);
	return strstr(low, "scaler") != NULL;
}

/* The kind an annotation names: a module class (the table's, a capitalised
 * torch.nn name, one of the project's), an optimizer, a scaler. */
static bool tl_seed__annotation(TlModel *m, TSNode ann, TlVal *v)
{
	const TlIndex *idx = m->idx;
	const TlSyms *sy = tl_syms();
	ann = tl_index_unparen(ann);
	if (ts_node_is_null(ann))
		return false;
	if (ts_node_symbol(ann) == sy->type_ && ts_node_named_child_count(ann))
		ann = ts_node_named_child(ann, 0);
	TSSymbol s = ts_node_symbol(ann);
	if (s != sy->identifier && s != sy->attribute)
		return false;
	const TlBinding *b = tl_index_resolve_node(idx, ann);
	if (b && b->kind == TL_BIND_CLASS) {
		if (!tl_model__class_is_module(m, idx, b->ref))
			return false;
		*v = tl_val_of(TL_VK_MODULE, TL_VG_NONE);
		v->ref = b->ref;
		v->mod = idx;
		return true;
	}
	char *q = tl_index_qualify(idx, ann);
	if (!q)
		return false;
	const TlApiRow *r = tl_api_qualified(q);
	TlVKind k = TL_VK_TOP;
	if (r && r->kind == TL_APIK_MODULE)
		k = TL_VK_MODULE;
	else if (r && r->kind == TL_APIK_OPTIMIZER)
		k = TL_VK_OPTIMIZER;
	else if (r && r->kind == TL_APIK_SCALER)
		k = TL_VK_SCALER;
	else if (!r && strncmp(q, "torch.nn.", 9) == 0 && strncmp(q, "torch.nn.functional", 19) != 0) {
		const char *last = tl_seed__last(q);
		size_t n = strlen(last);
		if (last[0] >= 'A' && last[0] <= 'Z')
			k = n > 4 && strcmp(last + n - 4, "Loss") == 0 ? TL_VK_CRITERION : TL_VK_MODULE;
	}
	tl_free(q);
	if (k == TL_VK_TOP)
		return false;
	*v = tl_val_of(k, TL_VG_NONE);
	return true;
}

/* A name spelt as a class is (`Model`, `QNetwork`: a capital first, a
 * small letter after): by the language's convention, a class. */
static bool tl_seed__class_like_name(const char *name)
{
	if (!(name[0] >= 'A' && name[0] <= 'Z'))
		return false;
	for (const char *c = name + 1; *c; c++)
		if (*c >= 'a' && *c <= 'z')
			return true;
	return false;
}

bool tl_model__seed_param(TlModel *m, const TlBinding *b, TlVal *v)
{
	const TlIndex *idx = m->idx;
	TlVal seed;
	if (!b->name)
		return false;
	/* `Model: nn.Module` that the function calls to build its model
	 * (`model = Model(envs)`): the annotation names what the class
	 * makes; the parameter, named as a class, is one */
	if (tl_seed__class_like_name(b->name))
		return false;
	if (!tl_seed__annotation(m, b->value, &seed)) {
		if (!idx->torch_ecosystem)
			return false;
		int32_t one;
		if (idx->module_evidence.count &&
		    tl_strmap_get(&idx->module_evidence, b->name, strlen(b->name), &one))
			seed = tl_val_of(TL_VK_MODULE, TL_VG_NONE);
		else if (tl_model_scaler_like_name(b->name))
			seed = tl_val_of(TL_VK_SCALER, TL_VG_NONE);
		else if (tl_model_optimizer_like_name(b->name))
			seed = tl_val_of(TL_VK_OPTIMIZER, TL_VG_NONE);
		else
			return false;
	}
	v->kind = seed.kind;
	v->ref = seed.ref;
	v->mod = seed.mod;
	v->made |= TL_VM_GUESS;
	return true;
}

/* True when the file calls a module's methods on the dotted name of `n`
 * (`model.eval()`, `self.net.parameters()`, `self.models[k].train()`). */
static bool tl_seed__evidence(const TlIndex *idx, TSNode n)
{
	const TlSyms *sy = tl_syms();
	if (!idx->torch_ecosystem || !idx->module_evidence.count)
		return false;
	TSSymbol s = ts_node_symbol(n);
	TlBuf b;
	tl_buf_init(&b);
	bool named;
	if (s == sy->subscript)
		named = tl_index_dotted(idx, tl_tree_field(n, sy->f_value), &b) && (tl_buf_add(&b, "[]"), true);
	else
		named = (s == sy->identifier || s == sy->attribute) && tl_index_dotted(idx, n, &b);
	int32_t one;
	bool yes = named && b.len && tl_strmap_get(&idx->module_evidence, b.data, b.len, &one);
	tl_buf_release(&b);
	return yes;
}

void tl_model__seed_read(TlModel *m, TSNode n, TlVal *v)
{
	bool unknown = v->kind == TL_VK_TOP || (v->kind == TL_VK_TENSOR && v->made == TL_VM_TOP);
	/* A parameter of the function was seeded at its entry (an attribute
	 * holding what a constructor was handed is not one of this function's). */
	bool param = v->made != TL_VM_TOP && (v->made & TL_VM_PARAMS) &&
		     ts_node_symbol(n) == tl_syms()->identifier;
	/* A wrapper on some paths (`model = DDP(model)` under an `if`) stays
	 * as the join says: its wrap bits are what the wrapper questions read. */
	if (!unknown || param || v->wrap || !tl_seed__evidence(m->idx, n))
		return;
	TlVal g = tl_val_of(TL_VK_MODULE, TL_VG_NONE);
	g.made = TL_VM_GUESS;
	g.flow = v->flow; /* what it was computed from stays (flow.c) */
	g.mode = v->mode; /* and the mode a switch put it in (modes.c) */
	g.meval = v->meval;
	g.fresh = v->fresh; /* and where it was made (fresh.c) */
	*v = g;
}

bool tl_model__seed_named(const TlModel *m, TSNode n, TlVKind kind)
{
	const TlIndex *idx = m->idx;
	const TlSyms *sy = tl_syms();
	n = tl_index_unparen(n);
	if (!idx->torch_ecosystem || ts_node_is_null(n))
		return false;
	TSSymbol s = ts_node_symbol(n);
	if (s != sy->identifier && s != sy->attribute)
		return false;
	char buf[128], *owned = NULL;
	const char *name = tl_index_dotted_view(idx, n, buf, sizeof buf, &owned);
	bool yes = name && (kind == TL_VK_CRITERION   ? tl_model_loss_like_name(name)
			    : kind == TL_VK_OPTIMIZER ? tl_model_optimizer_like_name(name)
			    : kind == TL_VK_SCALER    ? tl_model_scaler_like_name(name)
						      : false);
	tl_free(owned);
	return yes;
}

/* The kind type expression `t` names (a name, or a tuple of names of one
 * kind), TL_VK_TOP when none or several. */
static TlVKind tl_seed__name_kind(In *in, TSNode t);

static TlVKind tl_seed__type_kind(In *in, TSNode t)
{
	t = tl_index_unparen(t);
	if (ts_node_is_null(t) || ts_node_symbol(t) != in->sy->tuple)
		return tl_seed__name_kind(in, t);
	TlVKind k = TL_VK_BOT;
	uint32_t n = ts_node_named_child_count(t);
	for (uint32_t i = 0; i < n && i < 8; i++) {
		TlVKind e = tl_seed__name_kind(in, tl_index_unparen(ts_node_named_child(t, i)));
		if (e == TL_VK_TOP || (k != TL_VK_BOT && e != k))
			return TL_VK_TOP;
		k = e;
	}
	return n && n <= 8 ? k : TL_VK_TOP;
}

static TlVKind tl_seed__name_kind(In *in, TSNode t)
{
	const TlSyms *sy = in->sy;
	if (ts_node_is_null(t))
		return TL_VK_TOP;
	TSSymbol s = ts_node_symbol(t);
	if (s != sy->identifier && s != sy->attribute)
		return TL_VK_TOP;
	const TlBinding *b = tl_index_resolve_node(in->idx, t);
	if (b && b->kind == TL_BIND_CLASS)
		return tl_model__class_is_module(in->m, in->idx, b->ref) ? TL_VK_MODULE : TL_VK_OBJECT;
	char *q = tl_index_qualify(in->idx, t);
	if (!q)
		return TL_VK_TOP;
	const TlApiRow *r = tl_api_qualified(q);
	TlVKind k = TL_VK_TOP;
	if (r && (r->kind == TL_APIK_TENSOR || (r->sets & TL_APIS_TENSOR_CLASS)))
		k = TL_VK_TENSOR;
	else if (r && r->kind == TL_APIK_MODULE)
		k = TL_VK_MODULE;
	else if (!r && strncmp(q, "torch.nn.", 9) == 0 && strncmp(q, "torch.nn.functional", 19) != 0 &&
		 tl_seed__last(q)[0] >= 'A' && tl_seed__last(q)[0] <= 'Z')
		k = TL_VK_MODULE;
	tl_free(q);
	return k;
}

void tl_in__narrow(In *in, TSNode cond)
{
	const TlSyms *sy = in->sy;
	/* `a and b and c`: every operand holds; the left spine, a few deep */
	for (int depth = 0; depth < 8; depth++) {
		cond = tl_index_unparen(cond);
		if (ts_node_is_null(cond))
			return;
		if (ts_node_symbol(cond) == sy->boolean_operator) {
			TSNode op = tl_tree_field(cond, sy->f_operator);
			if (ts_node_is_null(op) || !tl_index_text_is(in->idx, op, "and"))
				return;
			tl_in__narrow_one(in, tl_tree_field(cond, sy->f_right));
			cond = tl_tree_field(cond, sy->f_left);
			continue;
		}
		tl_in__narrow_one(in, cond);
		return;
	}
}

/* The test `isinstance(x, T)` that condition `cond` is, with x a path:
 * the path and T's expression; false when `cond` is no such test. */
static bool tl_seed__isinstance_of(In *in, TSNode cond, TlPath *p, TSNode *type)
{
	const TlSyms *sy = in->sy;
	cond = tl_index_unparen(cond);
	if (ts_node_is_null(cond) || ts_node_symbol(cond) != sy->call)
		return false;
	const TlCall *c = tl_index_call_at(in->idx, cond);
	if (!c || c->receiver.id || !c->method || strcmp(c->method, "isinstance") != 0 ||
	    tl_index_resolve_node(in->idx, c->callee))
		return false;
	TSNode args = tl_tree_field(cond, sy->f_arguments);
	if (ts_node_is_null(args) || ts_node_named_child_count(args) != 2 ||
	    !tl_path_of(&in->m->names, in->idx, ts_node_named_child(args, 0), p))
		return false;
	*type = ts_node_named_child(args, 1);
	return true;
}

/* The kind T names in the test `isinstance(x, T)` that `cond` is (the
 * path of x in `p`); TL_VK_BOT when `cond` is no such test. */
static TlVKind tl_seed__isinstance(In *in, TSNode cond, TlPath *p)
{
	TSNode type;
	return tl_seed__isinstance_of(in, cond, p, &type) ? tl_seed__type_kind(in, type) : TL_VK_BOT;
}

/* The kinds of wrapper (TL_VW_*) type expression `t` names: a wrapper
 * class of the API table (`nn.DataParallel`, DDP), or a tuple of them. */
static unsigned tl_seed__wrap_kinds(In *in, TSNode t)
{
	t = tl_index_unparen(t);
	if (ts_node_is_null(t))
		return 0;
	bool tuple = ts_node_symbol(t) == in->sy->tuple;
	uint32_t n = tuple ? ts_node_named_child_count(t) : 1;
	unsigned bits = 0;
	for (uint32_t i = 0; i < n && i < 8; i++) {
		TSNode e = tuple ? tl_index_unparen(ts_node_named_child(t, i)) : t;
		if (ts_node_symbol(e) != in->sy->identifier && ts_node_symbol(e) != in->sy->attribute)
			continue;
		char *q = tl_index_qualify(in->idx, e);
		bits |= tl_model_wrapper_kinds(q);
		tl_free(q);
	}
	return bits;
}

/* The value at `p` in `st` is no wrapper of the kinds `bits`: a value that
 * may be one loses those kinds; left with none, it is the module itself. */
static void tl_seed__drop_wraps(TlState *st, const TlPath *p, unsigned bits)
{
	const TlVal *cur = tl_state_get(st, p);
	if (!bits || !cur || !(cur->wrap & bits) || (cur->kind != TL_VK_WRAPPER && cur->kind != TL_VK_TOP))
		return;
	TlVal v = *cur;
	v.wrap = (uint8_t)(v.wrap & ~bits);
	if (!v.wrap)
		v.kind = TL_VK_MODULE;
	tl_state_set(st, p, &v);
}

/* Where `isinstance(x, W)` fails for a wrapper class W: x is no such
 * wrapper. A value that may be one (`model = DataParallel(net)` on one
 * path) loses those kinds; left with none, it is the module itself (`if
 * isinstance(model, nn.DataParallel): model = model.module`, then the
 * join is the module either way). */
static void tl_seed__narrow_not_wrapper(In *in, TlState *st, TSNode cond)
{
	TlPath p;
	TSNode type;
	if (!tl_seed__isinstance_of(in, cond, &p, &type))
		return;
	tl_seed__drop_wraps(st, &p, tl_seed__wrap_kinds(in, type));
}

/* `hasattr(x, "module")` (its path in `p`): the test code writes to
 * know whether it wrapped x (`x.module.state_dict() if hasattr(x,
 * "module") else x.state_dict()`). */
static bool tl_seed__has_module_attr(In *in, TSNode cond, TlPath *p)
{
	const TlSyms *sy = in->sy;
	cond = tl_index_unparen(cond);
	if (ts_node_is_null(cond) || ts_node_symbol(cond) != sy->call)
		return false;
	const TlCall *c = tl_index_call_at(in->idx, cond);
	if (!c || c->receiver.id || !c->method || strcmp(c->method, "hasattr") != 0 ||
	    tl_index_resolve_node(in->idx, c->callee))
		return false;
	TSNode args = tl_tree_field(cond, sy->f_arguments);
	if (ts_node_is_null(args) || ts_node_named_child_count(args) != 2)
		return false;
	TSNode name = ts_node_named_child(args, 1);
	uint32_t len = 0;
	const char *t = ts_node_symbol(name) == sy->string ? tl_index_text(in->idx, name, &len) : NULL;
	return t && len == 8 && (memcmp(t, "\"module\"", 8) == 0 || memcmp(t, "'module'", 8) == 0) &&
	       tl_path_of(&in->m->names, in->idx, ts_node_named_child(args, 0), p);
}

/* Where `hasattr(x, "module")` fails: x is no wrapper that holds its
 * module as `.module` (DistributedDataParallel, FullyShardedDataParallel,
 * DataParallel; torch.compile's wrapper holds it elsewhere). */
static void tl_seed__narrow_not_module_attr(In *in, TlState *st, TSNode cond)
{
	TlPath p;
	if (!tl_seed__has_module_attr(in, cond, &p))
		return;
	tl_seed__drop_wraps(st, &p, TL_VW_DDP | TL_VW_FSDP | TL_VW_DATA_PARALLEL);
}

bool tl_in__narrows_not(In *in, TSNode cond)
{
	TlPath p;
	return tl_seed__has_module_attr(in, cond, &p);
}

void tl_in__narrow_not(In *in, TlState *st, TSNode cond)
{
	TlPath p;
	tl_seed__narrow_not_wrapper(in, st, cond);
	tl_seed__narrow_not_module_attr(in, st, cond);
	if (tl_seed__isinstance(in, cond, &p) != TL_VK_TENSOR)
		return;
	const TlVal *cur = tl_state_get(st, &p);
	/* Not a tensor there: no history of its own (a container keeps its
	 * elements'). A value every caller passes as a tensor does not get
	 * there at all: nothing it holds there flows anywhere. */
	if (!cur || cur->kind == TL_VK_CONTAINER)
		return;
	TlVal v = *cur;
	if (v.graph != TL_VG_BOT || v.pgraph)
		v.graph = TL_VG_NONE;
	v.pgraph = 0;
	tl_state_set(st, &p, &v);
}

void tl_in__narrow_one(In *in, TSNode cond)
{
	TlPath p;
	TlVKind k = tl_seed__isinstance(in, cond, &p);
	if (k != TL_VK_TENSOR && k != TL_VK_MODULE)
		return;
	const TlVal *cur = tl_state_get(&in->st, &p);
	TlVal v = cur ? *cur : tl_val_top();
	if (v.kind != TL_VK_TOP && !(v.made != TL_VM_TOP && (v.made & TL_VM_GUESS)))
		return;
	v.kind = (uint8_t)k;
	if (v.made == TL_VM_TOP)
		v.made = TL_VM_GUESS;
	tl_state_set(&in->st, &p, &v);
}
