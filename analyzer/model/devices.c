/* The interpreter's transfers of what a value is and where it lives
 * (interp_internal.h): the tensor kind, the device (host or accelerator)
 * and the dtype class of call results, attributes, comparisons and
 * arithmetic, read from the API table's kind, device and dtype columns;
 * a DataLoader's batches (on the host); parameters annotated as tensors.
 * eval.c and interp.c call these at the few places a value is made. */
#include "model/interp_internal.h"

#include <string.h>

#include "base/alloc.h"
#include "model/apitable.h"
#include "syntax/syms.h"

static bool tl_in__tensorish(unsigned k)
{
	return k == TL_VK_TENSOR || k == TL_VK_PARAMETER;
}

/* Where the result of arithmetic on `a` and `b` lives: where its
 * operands that live somewhere are (a number goes wherever the tensor is;
 * an operand of no known place, `loss / args.steps`, goes along, as
 * tensors of two devices would not compute). */
static bool tl_in__placed(unsigned d)
{
	return d == TL_VD_HOST || d == TL_VD_ACCEL;
}

void tl_in__promote(TlVal *r, const TlVal *a, const TlVal *b)
{
	bool ta = tl_in__tensorish(a->kind), tb = tl_in__tensorish(b->kind);
	bool pa = tl_in__placed(a->device), pb = tl_in__placed(b->device);
	if (pa && pb)
		r->device = a->device == b->device ? a->device : TL_VD_TOP;
	else if (pa || pb)
		r->device = pa ? a->device : b->device;
	if (ta && tb)
		r->dtype = a->dtype == b->dtype ? a->dtype : TL_VT_TOP;
	else
		r->dtype = TL_VT_TOP; /* a Python float may promote an integer tensor */
}

/* A summary's value that follows argument `av` (its pgraph names the
 * parameter: `return t.clone() / n`) lives where the argument does,
 * unless the function says where (`return t.cpu()`). */
void tl_in__follow(TlVal *r, const TlVal *ret, const TlVal *av)
{
	if (tl_in__placed(ret->device) || !tl_in__placed(av->device))
		return;
	r->device = tl_in__placed(r->device) && r->device != av->device ? TL_VD_TOP : av->device;
}

/* A comparison of a tensor with anything is a tensor of booleans where
 * the tensor is; other comparisons are booleans. */
TlVal tl_in__compare(const TlVal *vals, uint32_t nv)
{
	for (uint32_t i = 0; i < nv; i++)
		if (tl_in__tensorish(vals[i].kind) || tl_in__placed(vals[i].device)) {
			/* a value of unknown kind that lives on a device: not known
			 * as a tensor, but where its comparison lives */
			TlVal t = tl_val_of(tl_in__tensorish(vals[i].kind) ? TL_VK_TENSOR : TL_VK_TOP, TL_VG_NONE);
			t.device = vals[i].device;
			t.dtype = TL_VT_BOOL;
			return t;
		}
	return tl_val_of(TL_VK_BOOL, TL_VG_NONE);
}

/* `t.data`, `t.grad`, `t.T`, `t.mT`, `t.H` of a tensor: a tensor where it
 * is (`.data` and `.grad` without history, the transposes with its). */
bool tl_in__tensor_attr(const TlVal *obj, const char *name, uint32_t len, TlVal *out)
{
	bool placed = obj->kind == TL_VK_TOP && tl_in__placed(obj->device); /* an output known by what made it */
	if (!tl_in__tensorish(obj->kind) && !placed)
		return false;
	bool plain = (len == 4 && memcmp(name, "data", 4) == 0) || (len == 4 && memcmp(name, "grad", 4) == 0);
	bool view = (len == 1 && (name[0] == 'T' || name[0] == 'H')) || (len == 2 && memcmp(name, "mT", 2) == 0);
	if (!plain && !view)
		return false;
	*out = tl_val_of(placed ? TL_VK_TOP : TL_VK_TENSOR, plain ? TL_VG_NONE : (TlVGraph)obj->graph);
	out->device = obj->device;
	out->dtype = obj->dtype;
	if (view) {
		out->pgraph = obj->pgraph;
		out->origin = obj->origin;
		out->made = obj->made;
	}
	return true;
}

static uint8_t tl_in__api_device(unsigned d, const TlVal *operand)
{
	switch (d) {
	case TL_APID_KEEPS: return operand ? operand->device : TL_VD_TOP;
	case TL_APID_HOST: return TL_VD_HOST;
	case TL_APID_ACCELERATOR: return TL_VD_ACCEL;
	default: return TL_VD_TOP;
	}
}

static uint8_t tl_in__api_dtype(unsigned t, const TlVal *operand)
{
	switch (t) {
	case TL_APIT_KEEPS: return operand ? operand->dtype : TL_VT_TOP;
	case TL_APIT_HALF: return TL_VT_HALF;
	case TL_APIT_FLOAT32: return TL_VT_FLOAT32;
	case TL_APIT_FLOAT64: return TL_VT_FLOAT64;
	case TL_APIT_INTEGER: return TL_VT_INTEGER;
	case TL_APIT_BOOL: return TL_VT_BOOL;
	default: return TL_VT_TOP;
	}
}

/* The dtype a call's arguments name (`.to(torch.float32)`,
 * `.to(device, dtype=torch.half)`, `.type(torch.double)`; only its
 * keyword `dtype=` when `keyword_only`: `torch.zeros(n, dtype=...)`), by
 * the table's rows of the dtype names; TL_VT_BOT when none does. */
static uint8_t tl_in__cast_dtype(In *in, TSNode n, bool keyword_only)
{
	const TlSyms *sy = in->sy;
	TSNode al = tl_tree_field(n, sy->f_arguments);
	uint32_t base = in->kids.size, k = ts_node_is_null(al) ? 0 : tl_in__kids(in, al);
	uint8_t d = TL_VT_BOT;
	for (uint32_t i = 0; i < k && (keyword_only || i < 4) && d == TL_VT_BOT; i++) {
		TSNode a = in->kids.items[base + i];
		if (ts_node_symbol(a) == sy->keyword_argument) {
			if (!tl_index_text_is(in->idx, tl_tree_field(a, sy->f_name), "dtype"))
				continue;
			a = tl_tree_field(a, sy->f_value);
		} else if (keyword_only) {
			continue;
		}
		TSSymbol s = ts_node_symbol(a);
		if (s != sy->attribute && s != sy->identifier)
			continue;
		char *q = tl_index_qualify(in->idx, a);
		const TlApiRow *row = q ? tl_api_qualified(q) : NULL;
		if (row && row->dtype && row->dtype != TL_APIT_KEEPS && !row->kind && !row->roles)
			d = tl_in__api_dtype(row->dtype, NULL);
		tl_free(q);
	}
	in->kids.size = base;
	return d;
}

/* The dtype of a tensor method's result (`recv.m(args)`, row `row`): the
 * row's dtype column (`.float()`, `.long()`; `keeps`: the receiver's);
 * for a reshaping method without one (`.to`, `.type`), the dtype an
 * argument names, else the receiver's when it is given a device
 * (`.to(device)`) or another tensor's (`.to(other)`), else not known. */
static uint8_t tl_in__method_dtype(In *in, TSNode n, const TlApiRow *row, const TlVal *recv, const TlVal *args,
				   uint32_t nargs)
{
	if (row->dtype)
		return tl_in__api_dtype(row->dtype, recv);
	if (!(row->roles & TL_APIR_RESHAPE))
		return TL_VT_BOT;
	uint8_t d = tl_in__cast_dtype(in, n, false);
	if (d != TL_VT_BOT)
		return d;
	if (nargs >= 1 && (args[0].kind == TL_VK_DEVICE || args[0].kind == TL_VK_STRING))
		return recv->dtype;
	return nargs >= 1 && args[0].kind == TL_VK_TENSOR ? args[0].dtype : TL_VT_TOP;
}

static const char *tl_model__string_body(const TlIndex *idx, TSNode n, uint32_t *len);

/* 1: the literal names an accelerator ("cuda", "cuda:1", "mps", ...);
 * 0: the host ("cpu"); -1: neither. */
static int tl_model__literal_accel(const char *s, uint32_t len)
{
	static const char *const accelerators[] = { "cuda", "mps", "xpu", "npu", "hpu", "xla" };
	if (len >= 3 && memcmp(s, "cpu", 3) == 0 && (len == 3 || s[3] == ':'))
		return 0;
	for (size_t i = 0; i < sizeof accelerators / sizeof *accelerators; i++) {
		size_t al = strlen(accelerators[i]);
		if (len >= al && memcmp(s, accelerators[i], al) == 0 && (len == al || s[al] == ':'))
			return 1;
	}
	return -1;
}

/* The device a literal names: "cpu" the host; "cuda", "cuda:1", "mps",
 * an index (`.cuda(0)`, `.to(1)`) an accelerator; TOP for any other. */
static uint8_t tl_in__literal_device(In *in, TSNode a)
{
	a = tl_index_unparen(a);
	if (ts_node_is_null(a))
		return TL_VD_TOP;
	if (ts_node_symbol(a) == in->sy->integer)
		return TL_VD_ACCEL;
	uint32_t len = 0;
	const char *s = tl_model__string_body(in->idx, a, &len);
	if (!s)
		return TL_VD_TOP;
	int accel = tl_model__literal_accel(s, len);
	return accel == 0 ? TL_VD_HOST : accel == 1 ? TL_VD_ACCEL : TL_VD_TOP;
}

/* Argument `i` of call `n` (positional when `name` is NULL or absent) and
 * its value; the keyword argument `name` wins. vals: the arguments'
 * values in source order (as tl_in__call receives them). */
static bool tl_in__argument(In *in, TSNode n, uint32_t i, const char *name, const TlVal *vals, uint32_t nv,
			    TSNode *node, TlVal *val)
{
	const TlSyms *sy = in->sy;
	TSNode al = tl_tree_field(n, sy->f_arguments);
	if (ts_node_is_null(al) || ts_node_symbol(al) != sy->argument_list)
		return false;
	uint32_t base = in->kids.size, k = tl_in__kids(in, al);
	bool found = false;
	uint32_t pos = 0;
	for (uint32_t j = 0; j < k && j < nv; j++) {
		TSNode a = in->kids.items[base + j];
		TSSymbol s = ts_node_symbol(a);
		if (s == sy->keyword_argument) {
			if (name && tl_index_text_is(in->idx, tl_tree_field(a, sy->f_name), name)) {
				*node = tl_tree_field(a, sy->f_value);
				*val = vals[j];
				found = true;
				break;
			}
			continue;
		}
		if (s == sy->list_splat || s == sy->dictionary_splat)
			break;
		if (pos++ == i && !found) {
			*node = a;
			*val = vals[j];
			found = true;
			if (!name)
				break;
		}
	}
	in->kids.size = base;
	return found;
}

/* True when call `n` passes `**kwargs`. */
static bool tl_in__splat(In *in, TSNode n)
{
	TSNode al = tl_tree_field(n, in->sy->f_arguments);
	uint32_t k = ts_node_is_null(al) ? 0 : ts_node_named_child_count(al);
	for (uint32_t i = 0; i < k; i++)
		if (ts_node_symbol(ts_node_named_child(al, i)) == in->sy->dictionary_splat)
			return true;
	return false;
}

/* Where `.to(dest)`, `torch.zeros(n, device=dest)` put a tensor: a device
 * value's device, another tensor's, what a literal names; TOP otherwise
 * (a dtype, a name of a device the file computes). */
static uint8_t tl_in__dest(In *in, TSNode a, const TlVal *av)
{
	if ((av->kind == TL_VK_DEVICE || tl_in__tensorish(av->kind) || av->kind == TL_VK_STRING) &&
	    av->device != TL_VD_TOP && av->device != TL_VD_BOT)
		return av->device;
	uint8_t d = tl_in__literal_device(in, a);
	if (d == TL_VD_TOP && tl_model_names_device(in->idx, a))
		d = TL_VD_ACCEL;
	return d;
}

/* A string literal: one that names a device ("cuda:0", "cpu") has that
 * device, which `.to(name)` of a name bound to it reads. */
TlVal tl_in__string_value(In *in, TSNode n)
{
	TlVal v = tl_val_of(TL_VK_STRING, TL_VG_NONE);
	if (ts_node_symbol(n) == in->sy->string) {
		uint8_t d = tl_in__literal_device(in, n);
		if (d != TL_VD_TOP)
			v.device = d;
	}
	return v;
}

/* `torch.device(...)`: the accelerator when its kind is one, or may be
 * one (a computed kind, "cuda" on one branch); the host for "cpu". */
static uint8_t tl_in__device_value(In *in, TSNode n, const TlVal *vals, uint32_t nv)
{
	TSNode a = { 0 };
	TlVal av;
	if (!tl_in__argument(in, n, 0, "type", vals, nv, &a, &av))
		return TL_VD_TOP;
	a = tl_index_unparen(a);
	if (ts_node_symbol(a) == in->sy->conditional_expression && ts_node_named_child_count(a) >= 3) {
		uint8_t x = tl_in__literal_device(in, ts_node_named_child(a, 0));
		uint8_t y = tl_in__literal_device(in, ts_node_named_child(a, 2));
		return x == TL_VD_ACCEL || y == TL_VD_ACCEL ? TL_VD_ACCEL : x == y ? x : TL_VD_TOP;
	}
	uint8_t d = tl_in__literal_device(in, a);
	return d == TL_VD_TOP && ts_node_symbol(a) != in->sy->string ? TL_VD_ACCEL : d;
}

/* A batch's `.items()` and `.values()` (its keys and tensors); a
 * `prepare(model, optimizer, loader)` (accelerate's, a strategy's), which
 * hands back what it is given, each prepared: a loader stays a loader. */
static bool tl_in__batch_method(In *in, const TlCall *c, const TlVal *recv, const TlVal *args, uint32_t nargs,
				TlVal *r)
{
	TlValPool *pool = &in->m->pool;
	bool batch = recv->kind == TL_VK_TOP && (recv->made & TL_VM_LOADER) && recv->made != TL_VM_TOP;
	if (batch && (strcmp(c->method, "items") == 0 || strcmp(c->method, "values") == 0)) {
		TlVal e = tl_val_element(pool, recv);
		if (c->method[0] == 'i') {
			TlVal key = tl_val_of(TL_VK_STRING, TL_VG_NONE);
			TlVal pair = tl_val_of(TL_VK_CONTAINER, TL_VG_NONE);
			int32_t last = tl_val_add_part(pool, &pair, -1, &key);
			tl_val_add_part(pool, &pair, last, &e);
			e = pair;
		}
		*r = tl_val_container(pool, &e);
		return true;
	}
	if (strcmp(c->method, "prepare") == 0 && nargs >= 1 && r->kind == TL_VK_TOP) {
		TlVal tup = tl_val_of(TL_VK_CONTAINER, TL_VG_NONE);
		int32_t last = -1;
		for (uint32_t i = 0; i < nargs && i < TL_VAL_PARTS; i++) {
			TlVal x = args[i].kind == TL_VK_LOADER ? args[i] : tl_val_top();
			last = tl_val_add_part(pool, &tup, last, &x);
		}
		*r = nargs == 1 ? (args[0].kind == TL_VK_LOADER ? args[0] : *r) : tup;
		return true;
	}
	return false;
}

/* A row of kind container and device keeps (`x.topk(k)`, `x.chunk(2)`,
 * `torch.autograd.grad(loss, params)`): tensors where `operand` is. */
static void tl_in__tensors(In *in, const TlVal *operand, TlVal *r)
{
	TlVal e = tl_val_of(TL_VK_TENSOR, r->kind == TL_VK_CONTAINER ? (TlVGraph)r->graph : TL_VG_UNKNOWN);
	e.device = tl_in__tensorish(operand->kind) ? operand->device : TL_VD_TOP;
	TlVal cont = tl_val_container(&in->m->pool, &e);
	if (r->kind == TL_VK_CONTAINER && r->elem >= 0) {
		TlVal old = tl_val_element(&in->m->pool, r);
		if (!tl_val_is_bot(&old) && old.kind != TL_VK_TOP)
			return; /* the model knows better what it holds */
	}
	*r = cont;
}

/* `torch.sin`, `torch.nn.functional.pad`, `torch.linalg.norm`: a name of
 * a namespace of tensor operations (api/api.tsv). */
static bool tl_in__tensor_namespace(const char *q)
{
	return (tl_api_module_sets(q) & TL_APIS_TENSOR_NAMESPACE) != 0;
}

/* Some positional argument is a tensor, or a container of tensors. */
static bool tl_in__given_tensor(In *in, const TlVal *args, uint32_t nargs)
{
	for (uint32_t k = 0; k < nargs && k < 4; k++) {
		TlVal x = args[k];
		if (x.kind == TL_VK_CONTAINER)
			x = tl_val_element(&in->m->pool, &x);
		if (tl_in__tensorish(x.kind))
			return true;
	}
	return false;
}

/* What call `n` makes, as to its kind, device and dtype (`r` as eval.c
 * computed it from the table, the summaries and the facts' events).
 * vals: the receiver's (a method) or the callee's value, then the
 * arguments' in source order. */
static void tl_in__place_api(In *in, TSNode n, const TlCall *c, const TlVal *vals, uint32_t nv, TlVal *r)
{
	const TlVal *recv = c->receiver.id ? &vals[0] : NULL;
	/* A function, class or method of the project: its summary said. */
	const TlVal *fn = nv ? &vals[0] : NULL;
	bool obj = fn && fn->ref >= 0 && fn->mod &&
		   (fn->kind == TL_VK_MODULE || fn->kind == TL_VK_OBJECT || fn->kind == TL_VK_WRAPPER);
	const TlIndex *where = NULL;
	bool summary = c->target >= 0 ||
		       (recv ? obj && c->method && tl_model__method((const TlIndex *)fn->mod, fn->ref, c->method, &where) >= 0
			     : (fn && fn->ref >= 0 && fn->mod &&
				(obj || fn->kind == TL_VK_FUNCTION || fn->kind == TL_VK_CLASS)));
	const TlVal *args = vals + 1;
	uint32_t nargs = nv ? nv - 1 : 0;
	TSNode a = { 0 };
	TlVal av;
	if (summary)
		return;
	if (recv && c->method && !c->qname && tl_in__batch_method(in, c, recv, args, nargs, r))
		return;
	if (recv && c->method && !c->qname) {
		const TlApiRow *row = tl_api_method(c->method);
		/* A method the table does not know, of a tensor or of an object
		 * on the accelerator: it computes where its receiver is
		 * (`out.argsort(1)`, `dist.sample()`); a dict's views (an output
		 * known only as a forward's may be one) do not. */
		if (!row && (tl_in__tensorish(recv->kind) || (recv->kind == TL_VK_TOP && recv->device == TL_VD_ACCEL)) &&
		    r->kind == TL_VK_TOP && strcmp(c->method, "keys") != 0 &&
		    strcmp(c->method, "values") != 0 && strcmp(c->method, "items") != 0)
			r->device = recv->device;
		if (!row)
			return;
		/* A tensor's method (`.to`, `.float`, `.view`, `.detach`) makes
		 * a tensor of a tensor; of a module (`self.vae.to(dtype)`) the
		 * module, of what is not known, what is not known. */
		if (row->kind == TL_APIK_TENSOR && r->kind == TL_VK_TENSOR && !tl_in__tensorish(recv->kind) &&
		    !(recv->kind == TL_VK_TOP && (recv->made & TL_VM_LOADER) && recv->made != TL_VM_TOP))
			r->kind = recv->kind == TL_VK_BOT ? TL_VK_TOP : recv->kind;
		/* its dtype (a module's methods hand back the module, which
		 * has none) */
		uint8_t dt = tl_in__method_dtype(in, n, row, recv, args, nargs);
		if (dt != TL_VT_BOT && recv->kind != TL_VK_MODULE && recv->kind != TL_VK_WRAPPER &&
		    recv->kind != TL_VK_CRITERION && recv->kind != TL_VK_OBJECT)
			r->dtype = dt;
		if (strcmp(c->method, "to") == 0) {
			bool dest = tl_in__argument(in, n, 0, "device", args, nargs, &a, &av);
			uint8_t d = dest ? tl_in__dest(in, a, &av) : TL_VD_TOP;
			/* `.to(torch.float16)`, `.to(dtype=...)`: stays where it is */
			r->device = d != TL_VD_TOP ? d : recv->device;
			return;
		}
		if (strcmp(c->method, "cuda") == 0) {
			r->device = TL_VD_ACCEL;
			return;
		}
		/* `t.pin_memory()`, `t.normal_()`: the table says a tensor, not
		 * what history; made as the receiver was */
		if (row->kind == TL_APIK_TENSOR && !row->graph && tl_in__tensorish(recv->kind)) {
			r->kind = TL_VK_TENSOR;
			r->made = recv->made;
		}
		if (row->kind == TL_APIK_CONTAINER && row->device == TL_APID_KEEPS) {
			tl_in__tensors(in, recv, r);
			return;
		}
		r->device = tl_in__api_device(row->device, recv);
		/* a copy of a factory's tensor (`torch.arange(n).long()`) is too */
		if (row->kind == TL_APIK_TENSOR && row->device == TL_APID_KEEPS && tl_in__tensorish(recv->kind))
			r->made = (uint16_t)(r->made | (recv->made & TL_VM_FACTORY));
		return;
	}
	/* `policy(obs)` of a parameter `policy`: a callable given a tensor on
	 * the accelerator computes there. */
	if (!recv && nargs >= 1 && fn && fn->kind == TL_VK_TOP && (fn->made & TL_VM_PARAMS) && fn->made != TL_VM_TOP &&
	    args[0].device == TL_VD_ACCEL && r->device == TL_VD_TOP)
		r->device = TL_VD_ACCEL;
	/* next(it): an element of what it iterates */
	if (!recv && !c->qname && c->method && strcmp(c->method, "next") == 0 && nargs >= 1 && r->kind == TL_VK_TOP) {
		TlVal e = tl_val_element(&in->m->pool, &args[0]);
		if (!tl_val_is_bot(&e)) {
			/* where its history comes from is the call's (prov.c) */
			e.old = r->old;
			e.prev = r->prev;
			e.pold = r->pold;
			e.kept = r->kept;
			*r = e;
		}
		return;
	}
	if (!c->qname)
		return;
	if (strcmp(c->qname, "torch.device") == 0) {
		*r = tl_val_of(TL_VK_DEVICE, TL_VG_NONE);
		r->device = tl_in__device_value(in, n, args, nargs);
		return;
	}
	/* tqdm(loader): what it wraps is iterated. */
	if ((strcmp(c->qname, "tqdm.tqdm") == 0 || strcmp(c->qname, "tqdm.auto.tqdm") == 0) && nargs >= 1) {
		TlVal e = tl_val_element(&in->m->pool, &args[0]);
		*r = tl_val_container(&in->m->pool, &e);
		return;
	}
	const TlApiRow *q = tl_api_qualified(c->qname);
	if (q && q->kind == TL_APIK_TENSOR && (q->roles & TL_APIR_FACTORY)) {
		r->kind = TL_VK_TENSOR;
		/* made of a shape by the tensor factories (torch.zeros,
		 * torch.arange: the set tensor-factory), not of data
		 * (torch.tensor(data)) nor after another tensor (zeros_like) */
		if (q->sets & TL_APIS_TENSOR_FACTORY)
			r->made = (uint16_t)(r->made | TL_VM_FACTORY);
		const TlVal *like = nargs >= 1 ? &args[0] : NULL;
		if (tl_in__argument(in, n, 99, "device", args, nargs, &a, &av))
			r->device = tl_in__dest(in, a, &av);
		else if (tl_in__splat(in, n))
			r->device = TL_VD_TOP; /* torch.zeros(n, **kw): kw may say where */
		else
			r->device = q->device ? tl_in__api_device(q->device, like) : TL_VD_HOST;
		if (q->dtype)
			r->dtype = tl_in__api_dtype(q->dtype, like);
		return;
	}
	/* torch.nn.Parameter(t): the table says a tensor (not a module, as
	 * other capitalised names under torch.nn are); a parameter */
	if (q && q->kind == TL_APIK_TENSOR && !q->graph && !tl_in__tensorish(r->kind) && r->kind != TL_VK_TOP) {
		*r = tl_val_of(TL_VK_PARAMETER, TL_VG_NONE); /* (its module may move it: no device) */
		return;
	}
	if (q && q->kind == TL_APIK_CONTAINER && q->device == TL_APID_KEEPS && nargs >= 1) {
		tl_in__tensors(in, &args[0], r);
		return;
	}
	/* torch.autograd.Variable(t): the tensor itself */
	if (q && q->graph == TL_APIG_KEEPS && q->kind == TL_APIK_TENSOR && q->device == TL_APID_KEEPS &&
	    q->dtype == TL_APIT_KEEPS && nargs >= 1 && tl_in__tensorish(args[0].kind)) {
		r->made = (uint16_t)(r->made | (args[0].made & TL_VM_FACTORY));
		r->device = args[0].device;
		r->dtype = args[0].dtype;
		return;
	}
	if (q && q->device && tl_in__tensorish(r->kind))
		r->device = tl_in__api_device(q->device, nargs >= 1 ? &args[0] : NULL);
	if (q && q->dtype && tl_in__tensorish(r->kind))
		r->dtype = tl_in__api_dtype(q->dtype, nargs >= 1 ? &args[0] : NULL);
	/* A function of torch that the table does not list is a tensor
	 * operation (a tensor, below) when it is one of torch's own
	 * namespaces of them or is given a tensor; another (torch's own
	 * helpers, `torch.ao.ns.fx.mappings.get_unmatchable_types_map()`)
	 * makes what its code makes, a class (`torch.distributions.
	 * Categorical(logits=out)`) an object, and a function the table lists
	 * for a set only (`torch.load`) what the table does not say. */
	const char *last = strrchr(c->qname, '.');
	bool cls = last && last[1] >= 'A' && last[1] <= 'Z'; /* torch.distributions.Categorical(...) */
	bool unsaid = !q || (!q->kind && !q->graph); /* torch.load: a row of a set only */
	if (unsaid && r->kind == TL_VK_TENSOR &&
	    (q || cls || (!tl_in__tensor_namespace(c->qname) && !tl_in__given_tensor(in, args, nargs))))
		r->kind = TL_VK_TOP;
	/* Other torch functions, and torch's classes given tensors (a
	 * distribution over a model's outputs): where their tensor operands
	 * are. */
	if ((!q || !q->device) && (tl_in__tensorish(r->kind) || (cls && !q)) && strncmp(c->qname, "torch.", 6) == 0) {
		uint8_t d = TL_VD_BOT;
		bool seen = false;
		for (uint32_t k = 0; k < nargs && k < 4; k++) {
			TlVal x = args[k];
			if (x.kind == TL_VK_CONTAINER)
				x = tl_val_element(&in->m->pool, &x);
			if (!tl_in__tensorish(x.kind) || x.device == TL_VD_BOT)
				continue; /* (not computed yet: a later round says) */
			seen = true;
			d = d == TL_VD_BOT || d == x.device ? x.device : TL_VD_TOP;
		}
		r->device = seen ? d : TL_VD_TOP;
		for (uint32_t k = 0; k < nargs && k < 4 && !seen; k++)
			if (tl_in__tensorish(args[k].kind) && args[k].device == TL_VD_BOT)
				r->device = TL_VD_BOT;
	}
}

/* A tensor, or a value of unknown kind with history (what a forward
 * computed). */
static bool tl_in__computed(const TlVal *x)
{
	return tl_in__tensorish(x->kind) || (x->kind == TL_VK_TOP && x->graph == TL_VG_MUST);
}

/* Container `r` (a forward's tuple) with its tensors of no known place
 * on the accelerator: positions and element; keyed parts are left. */
static void tl_in__accel_parts(TlValPool *p, TlVal *r)
{
	TlVal out = tl_val_of(TL_VK_CONTAINER, (TlVGraph)r->graph);
	out.made = r->made;
	int32_t last = -1;
	bool keyed = false;
	for (int32_t k = r->parts; k >= 0; k = p->vals.items[k].next) {
		TlVal x = p->vals.items[k];
		keyed = keyed || x.key >= 0;
		if (tl_in__computed(&x) && x.device == TL_VD_TOP)
			x.device = TL_VD_ACCEL;
		x.next = -1;
		last = tl_val_add_part(p, &out, last, &x);
	}
	if (keyed || r->parts < 0) {
		TlVal e = tl_val_element(p, r);
		if (!tl_in__computed(&e) || e.device != TL_VD_TOP)
			return;
		e.device = TL_VD_ACCEL;
		TlVal c = tl_val_container(p, &e);
		r->elem = c.elem;
		r->parts = -1;
		return;
	}
	*r = out;
}

void tl_in__place(In *in, TSNode n, const TlCall *c, bool runs, const TlVal *vals, uint32_t nv, TlVal *r)
{
	tl_in__place_api(in, n, c, vals, nv, r);
	/* A model's output or a loss whose operands' place is not known: on
	 * the accelerator in a file that puts anything there. */
	const TlApiRow *qr = c->qname ? tl_api_qualified(c->qname) : NULL;
	bool made = runs || (qr && (qr->roles & (TL_APIR_LOSS | TL_APIR_FORWARD))) ||
		    ((r->made & (TL_VM_FORWARD | TL_VM_LOSS)) && r->made != TL_VM_TOP);
	if (made && tl_in__tensorish(r->kind) && r->device == TL_VD_TOP && in->idx->uses_device)
		r->device = TL_VD_ACCEL;
	/* `out_src, out_cls = self.D(x)`: the tensors of a forward's tuple */
	if (made && r->kind == TL_VK_CONTAINER && in->idx->uses_device)
		tl_in__accel_parts(&in->m->pool, r);
}

/* ---- parameters ------------------------------------------------------------ */

/* A field of a value on the accelerator (`out.loss`, `topk.values`,
 * `outputs.logits`) is there too, but for those that describe it
 * (`x.shape`, `x.device`: plain attributes, which eval.c reads before). */
void tl_in__field(const TlVal *obj, TlVal *v)
{
	if (obj->device == TL_VD_ACCEL && v->device == TL_VD_TOP && obj->kind != TL_VK_MODULE &&
	    obj->kind != TL_VK_WRAPPER && obj->kind != TL_VK_OBJECT)
		v->device = TL_VD_ACCEL;
}

void tl_in__param(In *in, const TlBinding *b, uint32_t k, TlVal *v)
{
	if (!ts_node_is_null(b->value)) {
		/* A parameter annotated as a tensor (`x: torch.Tensor`) is one. */
		char *q = tl_index_qualify(in->idx, b->value);
		const TlApiRow *r = q ? tl_api_qualified(q) : NULL;
		/* (a parameter annotated nn.Parameter keeps what its callers say) */
		if (r && (r->sets & TL_APIS_TENSOR_CLASS) && strncmp(q, "torch.nn.", 9) != 0)
			v->kind = TL_VK_TENSOR;
		tl_free(q);
	}
	/* What every caller hands it (context.c): where a tensor lives, its
	 * dtype, a DataLoader's batch. */
	TlVal ctx;
	if (in->func < 0 || !tl_model__ctx_param(in->m, in->func, k, &ctx))
		return;
	if (tl_in__placed(ctx.device))
		v->device = ctx.device;
	if (ctx.dtype != TL_VT_BOT)
		v->dtype = ctx.dtype;
	if ((ctx.made & TL_VM_LOADER) && ctx.made != TL_VM_TOP)
		v->made = (uint16_t)(v->made | TL_VM_LOADER);
}

/* ---- expressions that name a device ------------------------------------------ */

/* The text of string literal `n` (no prefix, no quotes), or NULL. */
static const char *tl_model__string_body(const TlIndex *idx, TSNode n, uint32_t *len)
{
	if (ts_node_is_null(n) || ts_node_symbol(n) != tl_syms()->string)
		return NULL;
	uint32_t tlen = 0;
	const char *t = tl_index_text(idx, n, &tlen);
	uint32_t k = 0, q = 0;
	while (t && k < tlen && t[k] != '"' && t[k] != '\'')
		k++;
	while (t && k + q < tlen && (t[k + q] == '"' || t[k + q] == '\'') && q < 3)
		q++;
	if (!t || tlen < k + 2 * q)
		return NULL;
	*len = tlen - k - 2 * q;
	return t + k + q;
}

/* A name that says it holds a device: `device`, `self.device`, `dev`,
 * `local_rank`, `gpu_id`. */
static bool tl_model__device_name(const TlIndex *idx, TSNode e)
{
	static const char *const names[] = {
		"dev", "gpu", "gpu_id", "gpu_ids", "rank", "local_rank", "cuda", "device_id",
	};
	char *dotted = tl_index_dotted_dup(idx, e);
	if (!dotted)
		return false;
	const char *last = strrchr(dotted, '.');
	last = last ? last + 1 : dotted;
	char low[128];
	size_t n = 0;
	for (; last[n] && n + 1 < sizeof low; n++)
		low[n] = (char)(last[n] >= 'A' && last[n] <= 'Z' ? last[n] + 32 : last[n]);
	low[n] = '\0';
	bool yes = strstr(low, "device") != NULL;
	for (size_t i = 0; !yes && i < sizeof names / sizeof *names; i++)
		yes = strcmp(low, names[i]) == 0;
	tl_free(dotted);
	return yes;
}

/* The positional argument `k` of call `call`, or its keyword `name`. */
static TSNode tl_model__arg(const TlIndex *idx, TSNode call, uint32_t k, const char *name)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 }, args = tl_tree_field(call, sy->f_arguments);
	if (ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list)
		return none;
	uint32_t pos = 0, count = ts_node_named_child_count(args);
	TSNode found = none;
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		TSSymbol s = ts_node_symbol(a);
		if (s == sy->keyword_argument) {
			if (name && tl_index_text_is(idx, tl_tree_field(a, sy->f_name), name))
				return tl_tree_field(a, sy->f_value);
		} else if (s != sy->comment && pos++ == k && ts_node_is_null(found)) {
			found = a;
		}
	}
	return found;
}

static bool tl_model__names_device_at(const TlIndex *idx, TSNode e, int depth)
{
	const TlSyms *sy = tl_syms();
	e = tl_index_unparen(e);
	if (ts_node_is_null(e) || depth > 16)
		return false;
	TSSymbol s = ts_node_symbol(e);
	if (s == sy->integer)
		return true; /* .cuda(0), .to(1) */
	if (s == sy->string) {
		uint32_t len = 0;
		const char *body = tl_model__string_body(idx, e, &len);
		return body && tl_model__literal_accel(body, len) == 1;
	}
	if (s == sy->conditional_expression) {
		/* "cuda" if use_cuda else "cpu": the device when there is one. */
		uint32_t count = ts_node_named_child_count(e);
		return (count > 0 && tl_model__names_device_at(idx, ts_node_named_child(e, 0), depth + 1)) ||
		       (count > 2 && tl_model__names_device_at(idx, ts_node_named_child(e, 2), depth + 1));
	}
	if (s == sy->call) {
		const TlCall *c = tl_index_call_at(idx, e);
		if (!c)
			return false;
		if (c->qname && strcmp(c->qname, "torch.device") == 0) {
			TSNode a = tl_model__arg(idx, e, 0, "type");
			if (ts_node_is_null(a))
				return false;
			TSSymbol as = ts_node_symbol(tl_index_unparen(a));
			/* torch.device(kind) with a computed kind may well be a GPU. */
			return (as != sy->string && as != sy->conditional_expression) ||
			       tl_model__names_device_at(idx, a, depth + 1);
		}
		/* local_rank = int(os.environ["LOCAL_RANK"]): a device index */
		if (!c->receiver.id && c->method && strcmp(c->method, "int") == 0 && !c->qname)
			return true;
		return c->qname && (strcmp(c->qname, "torch.cuda.current_device") == 0 ||
				    strcmp(c->qname, "torch.cuda.device") == 0 ||
				    strcmp(c->qname, "torch.accelerator.current_accelerator") == 0);
	}
	if (s != sy->identifier && s != sy->attribute)
		return false;
	if (s == sy->attribute && tl_index_text_is(idx, tl_tree_field(e, sy->f_attribute), "device"))
		return true; /* x.device, accelerator.device, self.device */
	const TlBinding *b = tl_index_resolve_node(idx, e);
	TSNode v = b && b->kind == TL_BIND_ASSIGN && b->elem < 0 ? tl_index_unparen(b->value) : (TSNode){ 0 };
	if (!ts_node_is_null(v)) {
		/* `device = accelerator() if ... else torch.device("cpu")` in two
		 * branches: a device when any binding of the scope is one. */
		const TlIntArray *all = b->class_body || b->cls >= 0 ? NULL : tl_index_bindings_of(idx, b->func, b->name);
		for (uint32_t i = 0; all && i < all->size; i++) {
			const TlBinding *o = &idx->bindings.items[all->items[i]];
			TSNode ov = o->kind == TL_BIND_ASSIGN && o->elem < 0 ? tl_index_unparen(o->value) : (TSNode){ 0 };
			if (o != b && !ts_node_is_null(ov) &&
			    !(ts_node_start_byte(ov) <= ts_node_start_byte(e) && ts_node_end_byte(e) <= ts_node_end_byte(ov)) &&
			    tl_model__names_device_at(idx, ov, depth + 1))
				return true;
		}
		if (tl_model__names_device_at(idx, v, depth + 1))
			return true;
		/* A literal or torch.device(...) decides; other values (rank =
		 * dist.get_rank()) leave it to the name. */
		TSSymbol vs = ts_node_symbol(v);
		const TlCall *vc = vs == sy->call ? tl_index_call_at(idx, v) : NULL;
		if (vs == sy->string || vs == sy->conditional_expression ||
		    (vc && vc->qname && strcmp(vc->qname, "torch.device") == 0))
			return false;
	}
	return tl_model__device_name(idx, e);
}

bool tl_model_names_device(const TlIndex *idx, TSNode e)
{
	return tl_model__names_device_at(idx, e, 0);
}
