/* Layers: what a module holds that behaves differently in train and eval
 * mode (dropout, batch norm and what reads `self.training`), looked up where
 * the module was constructed: a torch.nn layer, an nn.Sequential's layers,
 * the body of a local module class and the local classes it builds or
 * derives from, such a class of another module of the project (scanned
 * there), what a factory of the project returns (a local function or one
 * of another module, called or kept in a list or dict to be called later),
 * a torchvision.models / timm model, another library's model the
 * API table marks mode-dependent (api/api.tsv). (TL212's mode-dependent,
 * which judges a parameter by what the project hands it, is in
 * rules/checks/TL212.c.)
 *
 * Owns: tl_facts__layers_of, tl_facts__layers_at. */
#include "facts/internal.h"
#include "model/apitable.h"
#include "model/model.h"

#include <stdio.h>

/* A literal 0 / 0.0 / False (a dropout probability or flag that turns the
 * layer's mode dependence off). */
static bool tl_facts__zero_literal(const TlIndex *idx, TSNode v)
{
	const TlSyms *sy = tl_syms();
	v = tl_index_unparen(v);
	if (ts_node_is_null(v))
		return false;
	TSSymbol s = ts_node_symbol(v);
	if (s == sy->false_)
		return true;
	if (s != sy->integer && s != sy->float_)
		return false;
	uint32_t len;
	const char *t = tl_index_text(idx, v, &len);
	for (uint32_t i = 0; i < len; i++)
		if (t[i] != '0' && t[i] != '.' && t[i] != '_')
			return false;
	return true;
}

/* The value passed for a layer's option: keyword `name`, else positional
 * argument `pos` (-1: keyword only). Null when not passed. */
static TSNode tl_facts__layer_option(const TlIndex *idx, TSNode call, const char *name, int pos)
{
	TSNode v = tl_facts__kwarg(idx, call, name);
	if (ts_node_is_null(v) && pos >= 0)
		v = tl_facts__arg(call, (uint32_t)pos);
	return v;
}

/* Another library's model that its defaults make mode dependent
 * (monai.networks.nets.DenseNet121: batch norm): the table's set. */
static bool tl_facts__mode_dependent_row(const char *q)
{
	const TlApiRow *r = tl_api_qualified(q);
	return r && (r->sets & TL_APIS_MODE_DEPENDENT);
}

/* What constructor `qname` (import-resolved) called at `call` builds. */
static int tl_facts__layer_kind(const TlIndex *idx, const char *q, TSNode call)
{
	if (tl_facts__starts(q, "torchvision.models.") || tl_facts__starts(q, "timm.models.") ||
	    strcmp(q, "timm.create_model") == 0 || tl_facts__mode_dependent_row(q))
		return TL_LAYER_DEPENDENT;
	if (tl_api_qualified_sets(q) & TL_APIS_LAYER_CONTAINER)
		return TL_LAYER_LOOK_INSIDE;
	if (!tl_facts__starts(q, "torch.nn."))
		return TL_LAYER_NONE;
	/* The sets of the row of torch.nn.<last part> (api/api.tsv), for the
	 * spellings under torch.nn's submodules (torch.nn.modules.batchnorm.
	 * BatchNorm2d). */
	const char *last = tl_facts__last(q);
	char row[128];
	int n = snprintf(row, sizeof row, "torch.nn.%s", last);
	uint64_t sets = n > 0 && (size_t)n < sizeof row ? tl_api_qualified_sets(row) : 0;
	/* Dropout(0.0) and BatchNorm2d(c, track_running_stats=False) do the
	 * same in both modes. */
	if (sets & TL_APIS_DROPOUT_MODULE)
		return tl_facts__zero_literal(idx, tl_facts__layer_option(idx, call, "p", 0))
			       ? TL_LAYER_NONE : TL_LAYER_DEPENDENT;
	if (sets & TL_APIS_BATCH_NORM)
		return tl_facts__zero_literal(idx, tl_facts__kwarg(idx, call, "track_running_stats"))
			       ? TL_LAYER_NONE : TL_LAYER_DEPENDENT;
	if (sets & TL_APIS_INSTANCE_NORM) {
		TSNode t = tl_index_unparen(tl_facts__kwarg(idx, call, "track_running_stats"));
		return !ts_node_is_null(t) && ts_node_symbol(t) == tl_syms()->true_
			       ? TL_LAYER_TRACKED : TL_LAYER_NONE;
	}
	/* The transformer layers' dropout defaults to 0.1; a recurrent
	 * network's (between its layers) to 0. */
	if (sets & TL_APIS_TRANSFORMER_LAYER) {
		TSNode p = tl_facts__kwarg(idx, call, "dropout");
		return !ts_node_is_null(p) && tl_facts__zero_literal(idx, p) ? TL_LAYER_NONE
									 : TL_LAYER_DEPENDENT;
	}
	if (sets & TL_APIS_DROPOUT_ARGUMENT) {
		TSNode p = tl_facts__kwarg(idx, call, "dropout");
		return !ts_node_is_null(p) && !tl_facts__zero_literal(idx, p) ? TL_LAYER_DEPENDENT
									  : TL_LAYER_NONE;
	}
	return TL_LAYER_NONE;
}

/* Bounds the constructions, classes and names one question looks into: a
 * model's definition in a script needs a few dozen. */
#define TL_LAYERS_TODO 64

typedef struct TlLayerScan {
	TlArray(TSNode) todo;   /* subtrees still to scan */
	TlIntArray classes;     /* local classes already queued */
	bool dependent;
	/* An instance norm that tracks running statistics (TL_LAYER_TRACKED). */
	bool tracked;
	/* Something the module may hold is not known: a library's model, what
	 * a local function builds, a module handed in (`self.backbone =
	 * backbone`), a base class from elsewhere, more than TL_LAYERS_TODO
	 * subtrees. Only a scan that ends neither dependent nor unknown says
	 * the module acts the same in both modes. */
	bool unknown;
	/* The classes of other modules this question scanned or is scanning
	 * (shared by the scans one question starts inside another): each is
	 * scanned once; one met again while its scan is under way (classes of
	 * modules that build each other) is not known. */
	struct TlLayerVisits *visits;
	/* The forward call the question is about (tl_facts__layers_at), the
	 * construction it runs and that construction's local class (-1 none
	 * yet): a dropout layer built in that class's `forward` at a rate its
	 * parameter carries is judged at the rate this call hands it. */
	TSNode site, root;
	int32_t site_cls;
} TlLayerScan;

typedef struct TlLayerVisit {
	const TlIndex *mod;
	/* a class; -2 - f a factory function f, `sub` the element of its
	 * returned tuple (-1 the whole); -1 a module-level binding (`sub`) */
	int32_t cls, sub;
	int kind; /* TL_LAYER_*, or -1 while its scan is under way */
} TlLayerVisit;

typedef struct TlLayerVisits {
	TlArray(TlLayerVisit) items;
} TlLayerVisits;

static void tl_facts__layers_push(TlLayerScan *s, TSNode n)
{
	if (ts_node_is_null(n))
		return;
	if (s->todo.size < TL_LAYERS_TODO)
		tl_array_push(&s->todo, n);
	else
		s->unknown = true;
}

static int tl_facts__ext_layers(TlLayerScan *s, const TlIndex *idx, const char *q);
static int tl_facts__ext_class_layers(TlLayerScan *s, const TlIndex *idx, const TlIndex *mod, int32_t cls);
static int tl_facts__ext_scan(TlLayerScan *outer, const TlIndex *idx, const TlIndex *mod, int32_t func,
			      int32_t sub, TSNode node);
static bool tl_facts__made_target(const TlIndex *idx, const TlModStop *stop, const TlIndex **mod_out,
				  int32_t *func_out, int32_t *sub_out, TSNode *node_out);

/* What function `func` of `idx` returns, a factory's model (`def
 * resnet50(...): model = ResNet(...); return model`): each return's value,
 * a construction call or the construction a name holds, queued for the
 * scan; with `elem` >= 0, that element of each returned tuple (`return
 * model, optimizer`: elem 0, the model; never the whole tuple, which would
 * take the optimizer for the same module). What is not known stays so
 * (s->unknown, set by the caller): the returns only add the layers they
 * show. */
static void tl_facts__layers_returns(const TlIndex *idx, TlLayerScan *s, int32_t func, int32_t elem)
{
	const TlSyms *sy = tl_syms();
	const TlFunc *f = &idx->funcs.items[func];
	for (uint32_t i = 0; i < f->returns.size; i++) {
		TSNode v = ts_node_named_child_count(f->returns.items[i])
				   ? tl_index_unparen(ts_node_named_child(f->returns.items[i], 0))
				   : (TSNode){ 0 };
		if (ts_node_is_null(v))
			continue;
		TSSymbol vs = ts_node_symbol(v);
		if (elem >= 0) {
			if ((vs != sy->tuple && vs != sy->expression_list) ||
			    (uint32_t)elem >= ts_node_named_child_count(v))
				continue;
			v = tl_index_unparen(ts_node_named_child(v, (uint32_t)elem));
			if (ts_node_is_null(v))
				continue;
			vs = ts_node_symbol(v);
		}
		if (vs == sy->call) {
			tl_facts__layers_push(s, v);
		} else if (vs == sy->identifier || vs == sy->attribute) {
			TlBuf path;
			tl_buf_init(&path);
			TlModStop stop;
			TSNode r = tl_facts__module_source(idx, v, &path, &stop);
			if (path.len == 0)
				tl_facts__layers_push(s, ts_node_is_null(r) && stop.elem < 0 ? stop.call : r);
			tl_buf_release(&path);
		}
	}
}

/* A factory of the project named where a module is built or kept:
 * binding `b` (a local function, or an import of another module's
 * function); its returns are scanned. True when `b` is one. */
static bool tl_facts__layers_factory(const TlIndex *idx, TlLayerScan *s, const TlBinding *b)
{
	if (b->kind == TL_BIND_DEF && b->ref >= 0 && idx->funcs.items[b->ref].cls < 0) {
		tl_facts__layers_returns(idx, s, b->ref, -1);
		return true;
	}
	if (b->kind != TL_BIND_IMPORT || !b->qname || !idx->imports || tl_facts__starts(b->qname, "torch."))
		return false;
	tl_facts__ext_enter(idx);
	TlExtDef d;
	bool found = tl_facts__ext_def(idx, b->qname, &d) && d.idx != idx;
	tl_facts__ext_leave(idx);
	if (!found)
		return false;
	int e = d.func >= 0 ? (d.cls < 0 ? tl_facts__ext_scan(s, idx, d.idx, d.func, -1, (TSNode){ 0 }) : TL_LAYER_UNKNOWN)
			    : tl_facts__ext_class_layers(s, idx, d.idx, d.cls);
	if (e == TL_LAYER_DEPENDENT)
		s->dependent = true;
	else if (e == TL_LAYER_UNKNOWN)
		s->unknown = true;
	else if (e == TL_LAYER_TRACKED)
		s->tracked = true;
	return true;
}

/* What class `q` of another module (or a library) says: dependent, or
 * unknown (a class nobody can read here). */
static void tl_facts__layers_ext(TlLayerScan *s, const TlIndex *idx, const char *q)
{
	int e = tl_facts__ext_layers(s, idx, q);
	if (e == TL_LAYER_DEPENDENT)
		s->dependent = true;
	else if (e == TL_LAYER_UNKNOWN)
		s->unknown = true;
	else if (e == TL_LAYER_TRACKED)
		s->tracked = true;
}

static void tl_facts__layers_class(const TlIndex *idx, TlLayerScan *s, int32_t cls)
{
	for (uint32_t i = 0; i < s->classes.size; i++)
		if (s->classes.items[i] == cls)
			return;
	tl_array_push(&s->classes, cls);
	const TlClass *c = &idx->classes.items[cls];
	tl_facts__layers_push(s, c->node);
	for (uint32_t i = 0; i < c->bases.size; i++)
		tl_facts__layers_class(idx, s, c->bases.items[i]);
	/* class Net(torchvision.models.ResNet) */
	for (uint32_t i = 0; i < c->base_qnames.size; i++) {
		const char *q = c->base_qnames.items[i];
		if (tl_facts__starts(q, "torchvision.models.") || tl_facts__starts(q, "timm.models.") ||
		    tl_facts__mode_dependent_row(q))
			s->dependent = true;
		else if (!tl_facts__starts(q, "torch."))
			tl_facts__layers_ext(s, idx, q);
	}
}

/* `F.dropout(x, p, training=self.training)` depends on the mode;
 * `F.dropout(x, p)` is always on (its `training` defaults to True). */
static bool tl_facts__functional_dropout(const TlIndex *idx, const char *q, TSNode call)
{
	if (!tl_facts__starts(q, "torch.nn.functional.") || !strstr(tl_facts__last(q), "dropout"))
		return false;
	TSNode t = tl_facts__layer_option(idx, call, "training", 2);
	t = tl_index_unparen(t);
	return !ts_node_is_null(t) && ts_node_symbol(t) != tl_syms()->true_ &&
	       ts_node_symbol(t) != tl_syms()->false_;
}

/* A name spelled as a class's (CapWords, PEP 8; leading underscores
 * aside). */
static bool tl_facts__class_like(const char *name)
{
	if (!name)
		return false;
	while (*name == '_')
		name++;
	return isupper((unsigned char)*name);
}

/* True when construction `call` (of `q`, a dropout layer) is built in the
 * `forward` of the class the scan's forward call runs (s->site_cls) at a
 * rate a parameter of that forward carries (bound nowhere else there), and
 * that call hands it a literal zero (`nn.Dropout(d)(x)` in forward, called
 * `net(x, 0.0, ...)`): under that call's constants the layer is the
 * identity. */
static bool tl_facts__site_rate_off(const TlIndex *idx, const TlLayerScan *s, const char *q, TSNode call)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_is_null(s->site) || s->site_cls < 0 || !tl_facts__starts(q, "torch.nn."))
		return false;
	char row[128];
	int w = snprintf(row, sizeof row, "torch.nn.%s", tl_facts__last(q));
	if (w <= 0 || (size_t)w >= sizeof row || !(tl_api_qualified_sets(row) & TL_APIS_DROPOUT_MODULE))
		return false;
	TSNode v = tl_index_unparen(tl_facts__layer_option(idx, call, "p", 0));
	if (ts_node_is_null(v) || ts_node_symbol(v) != sy->identifier)
		return false;
	const TlBinding *b = tl_index_resolve_node(idx, v);
	if (!b || b->kind != TL_BIND_PARAM || b->func < 0 || !b->name)
		return false;
	const TlFunc *fn = &idx->funcs.items[b->func];
	const TlIntArray *all = tl_index_bindings_of(idx, b->func, b->name);
	if (fn->cls != s->site_cls || !fn->name || strcmp(fn->name, "forward") != 0 || !all || all->size != 1)
		return false;
	uint32_t i = 0;
	while (i < fn->params.size && &idx->bindings.items[fn->params.items[i]] != b)
		i++;
	if (i == 0 || i == fn->params.size)
		return false;
	TSNode args = tl_tree_field(s->site, sy->f_arguments);
	uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
	for (uint32_t k = 0; k < count; k++) {
		TSSymbol a = ts_node_symbol(ts_node_named_child(args, k));
		if (a == sy->list_splat || a == sy->dictionary_splat)
			return false;
	}
	TSNode got = tl_facts__kwarg(idx, s->site, b->name);
	if (ts_node_is_null(got))
		got = tl_facts__arg(s->site, i - 1);
	return tl_facts__zero_literal(idx, got);
}

/* Scans one subtree: a construction call, a class body, the value a name
 * holds. Names are followed to the value they are bound to and, for a
 * list of layers built up (`layers.append(nn.BatchNorm2d(c))`), to what is
 * appended to them. */
static void tl_facts__layers_scan(const TlIndex *idx, TlLayerScan *s, TSNode top)
{
	const TlSyms *sy = tl_syms();
	TSTreeCursor cur = ts_tree_cursor_new(top);
	bool descend = true;
	do {
		TSNode n = ts_tree_cursor_current_node(&cur);
		TSSymbol sym = ts_node_symbol(n);
		descend = true;
		if (sym == sy->attribute && tl_index_text_is(idx, n, "self.training")) {
			s->dependent = true;
		} else if (sym == sy->call) {
			const TlCall *c = tl_index_call_at(idx, n);
			if (!c)
				continue;
			if (c->qname) {
				int kind = tl_facts__layer_kind(idx, c->qname, n);
				if (kind == TL_LAYER_DEPENDENT && tl_facts__site_rate_off(idx, s, c->qname, n))
					kind = TL_LAYER_NONE;
				if (kind == TL_LAYER_DEPENDENT || tl_facts__functional_dropout(idx, c->qname, n))
					s->dependent = true;
				else if (kind == TL_LAYER_TRACKED)
					s->tracked = true;
				else if (kind == TL_LAYER_NONE && !tl_facts__starts(c->qname, "torch."))
					tl_facts__layers_ext(s, idx, c->qname);
				continue; /* the arguments are still walked */
			}
			const TlBinding *cb = tl_index_resolve_node(idx, c->callee);
			const TlIndex *smod;
			int32_t scls;
			if (cb && cb->kind == TL_BIND_CLASS &&
			    (idx->classes.items[cb->ref].is_module || tl_model_class_module(idx, cb->ref))) {
				if (!ts_node_is_null(s->site) && ts_node_eq(n, s->root))
					s->site_cls = cb->ref;
				tl_facts__layers_class(idx, s, cb->ref); /* (a base a star import binds) */
			}
			else if (!cb && !c->receiver.id && c->method &&
				 tl_model_star_class(idx, c->method, &smod, &scls)) {
				/* a class a star import binds (`from .parts import *`,
				 * then `block(c)`), scanned in its module */
				int e = tl_facts__ext_class_layers(s, idx, smod, scls);
				if (e == TL_LAYER_DEPENDENT)
					s->dependent = true;
				else if (e == TL_LAYER_UNKNOWN)
					s->unknown = true;
				else if (e == TL_LAYER_TRACKED)
					s->tracked = true;
			} else if (!c->receiver.id && !ts_node_is_null(c->callee) &&
				   ts_node_symbol(tl_index_unparen(c->callee)) == sy->subscript) {
				/* MODELS[name](): the entries of the list or dict
				 * of factories or classes (here, or a module-level
				 * one of another module) */
				TlModStop st = { n, -1 };
				const TlIndex *tm = NULL;
				int32_t tf, tsub;
				TSNode tn;
				if (tl_facts__made_target(idx, &st, &tm, &tf, &tsub, &tn) && tm == idx) {
					tl_facts__layers_push(s, tn);
				} else if (tm && tm != idx) {
					int e = tl_facts__ext_scan(s, idx, tm, tf, tsub, tn);
					if (e == TL_LAYER_DEPENDENT)
						s->dependent = true;
					else
						s->unknown = true;
				}
			} else if ((!c->receiver.id && c->target >= 0) || tl_facts__class_like(c->method)) {
				s->unknown = true; /* what a local function, or a class
						    * held in an attribute
						    * (`self._ENCODER_CLASS(...)`), builds */
				/* a local factory: the layers its returns show */
				if (!c->receiver.id && c->target >= 0 && idx->funcs.items[c->target].cls < 0)
					tl_facts__layers_returns(idx, s, c->target, -1);
			}
			/* layers.append(nn.BatchNorm2d(c)) is walked as a call;
			 * its receiver names the list. */
		} else if (sym == sy->assignment) {
			/* self.backbone = backbone: a module handed in */
			TSNode l = tl_index_unparen(tl_tree_field(n, sy->f_left));
			TSNode r = tl_index_unparen(tl_tree_field(n, sy->f_right));
			const TlBinding *rb = !ts_node_is_null(r) && ts_node_symbol(r) == sy->identifier
						      ? tl_index_resolve_node(idx, r) : NULL;
			if (!ts_node_is_null(l) && ts_node_symbol(l) == sy->attribute && rb &&
			    rb->kind == TL_BIND_PARAM)
				s->unknown = true;
		} else if (sym == sy->identifier && !ts_node_eq(n, top)) {
			/* nn.Sequential(*layers), nn.Sequential(block, head),
			 * nn.ModuleList([stem, *blocks]): names passed as layers
			 * (not the names a class body computes with). */
			TSNode p = tl_index_parent(idx, n);
			TSSymbol ps = ts_node_is_null(p) ? 0 : ts_node_symbol(p);
			bool value_of_pair = ps == sy->pair && ts_node_eq(tl_tree_field(p, sy->f_value), n);
			if (ps != sy->argument_list && ps != sy->list_splat && ps != sy->list &&
			    ps != sy->tuple && !value_of_pair)
				continue;
			const TlBinding *b = tl_index_resolve_node(idx, n);
			/* [resnet18, resnet50], {"vgg": vgg16}: the factories
			 * (or classes) of the project a container holds, called
			 * through it later (`self.edition[phi](...)`). */
			if (b && ps != sy->argument_list && ps != sy->list_splat) {
				if (b->kind == TL_BIND_CLASS &&
				    (idx->classes.items[b->ref].is_module || tl_model_class_module(idx, b->ref))) {
					tl_facts__layers_class(idx, s, b->ref);
					continue;
				}
				if (tl_facts__layers_factory(idx, s, b))
					continue;
			}
			if (value_of_pair)
				continue;
			if (!b || (b->kind != TL_BIND_ASSIGN && b->kind != TL_BIND_AUG)) {
				/* nn.Sequential(*blocks) of blocks handed in */
				if (ps == sy->list_splat)
					s->unknown = true;
				continue;
			}
			tl_facts__layers_push(s, b->value);
			/* What the enclosing function appends to the list. */
			uint32_t len;
			const char *name = tl_index_text(idx, n, &len);
			const TlIntArray *calls = tl_index_scope_calls(idx, b->func);
			for (uint32_t i = 0; calls && i < calls->size && s->todo.size < TL_LAYERS_TODO; i++) {
				const TlCall *k = &idx->calls.items[calls->items[i]];
				if (k->recv_name && k->method && strlen(k->recv_name) == len &&
				    memcmp(k->recv_name, name, len) == 0 &&
				    (strcmp(k->method, "append") == 0 || strcmp(k->method, "extend") == 0 ||
				     strcmp(k->method, "add_module") == 0 || strcmp(k->method, "insert") == 0))
					tl_facts__layers_push(s, tl_tree_field(k->node, sy->f_arguments));
			}
		}
	} while (!s->dependent && tl_walk_next(&cur, top, descend));
	ts_tree_cursor_delete(&cur);
}

static void tl_facts__layers_start(TlLayerScan *s, TlLayerVisits *visits)
{
	tl_array_init(&s->todo);
	tl_array_init(&s->classes);
	s->dependent = false;
	s->tracked = false;
	s->unknown = false;
	s->visits = visits;
	s->site = s->root = (TSNode){ 0 };
	s->site_cls = -1;
}

static void tl_facts__layers_run(const TlIndex *idx, TlLayerScan *s)
{
	for (uint32_t i = 0; i < s->todo.size && !s->dependent; i++)
		tl_facts__layers_scan(idx, s, s->todo.items[i]);
}

static void tl_facts__layers_end(TlLayerScan *s)
{
	tl_array_release(&s->todo);
	tl_array_release(&s->classes);
}

/* A class of another module of the project that holds such layers
 * (`from models.net import Classifier`): its body, and the classes it
 * builds or derives from, scanned in that module, which may in turn look
 * into the modules it imports; each class once per question (s->visits). */
static int tl_facts__ext_class_layers(TlLayerScan *outer, const TlIndex *idx, const TlIndex *mod, int32_t cls)
{
	TlLayerVisits *v = outer->visits;
	for (uint32_t i = 0; i < v->items.size; i++)
		if (v->items.items[i].mod == mod && v->items.items[i].cls == cls)
			return v->items.items[i].kind < 0 ? TL_LAYER_UNKNOWN : v->items.items[i].kind;
	uint32_t at = v->items.size;
	tl_array_push(&v->items, ((TlLayerVisit){ mod, cls, -1, -1 }));
	tl_facts__ext_enter(idx);
	/* Scanned whether or not its module saw it as an nn.Module (a base
	 * imported from a third module is not seen there): a class that is
	 * none (a config object) holds no layer. */
	TlLayerScan s;
	tl_facts__layers_start(&s, v);
	tl_facts__layers_class(mod, &s, cls);
	tl_facts__layers_run(mod, &s);
	int kind = s.dependent ? TL_LAYER_DEPENDENT : s.unknown ? TL_LAYER_UNKNOWN
		   : s.tracked ? TL_LAYER_TRACKED : TL_LAYER_NONE;
	tl_facts__layers_end(&s);
	tl_facts__ext_leave(idx);
	v->items.items[at].kind = kind;
	return kind;
}

static int tl_facts__ext_layers(TlLayerScan *s, const TlIndex *idx, const char *q)
{
	if (!idx->imports || tl_facts__starts(q, "torch."))
		return TL_LAYER_UNKNOWN;
	tl_facts__ext_enter(idx);
	TlExtDef d;
	bool found = tl_facts__ext_def(idx, q, &d) && d.idx != idx;
	tl_facts__ext_leave(idx);
	if (found && d.func < 0 && d.cls >= 0)
		return tl_facts__ext_class_layers(s, idx, d.idx, d.cls);
	/* build_model(cfg) of another module: what it returns */
	if (found && d.func >= 0 && d.cls < 0)
		return tl_facts__ext_scan(s, idx, d.idx, d.func, -1, (TSNode){ 0 });
	return TL_LAYER_UNKNOWN;
}

/* A factory function `func` of another module `mod` (`from nets.resnet
 * import resnet50`): the layers its returns show (element `sub` of each
 * returned tuple, -1 the whole), scanned in `mod`, each function once per
 * question as classes are (its visit keeps -2 - func as its class); with
 * `func` -1, the value `node` of module-level binding `sub` of `mod` (a
 * dict of factories, `MODELS = {"vgg": vgg16}`). Dependent, or unknown: a
 * factory is never known to build only modules that act the same in both
 * modes. */
static int tl_facts__ext_scan(TlLayerScan *outer, const TlIndex *idx, const TlIndex *mod, int32_t func,
			      int32_t sub, TSNode node)
{
	TlLayerVisits *v = outer->visits;
	int32_t key = func >= 0 ? -2 - func : -1;
	for (uint32_t i = 0; i < v->items.size; i++)
		if (v->items.items[i].mod == mod && v->items.items[i].cls == key && v->items.items[i].sub == sub)
			return v->items.items[i].kind < 0 ? TL_LAYER_UNKNOWN : v->items.items[i].kind;
	if (v->items.size >= TL_LAYERS_TODO)
		return TL_LAYER_UNKNOWN;
	uint32_t at = v->items.size;
	tl_array_push(&v->items, ((TlLayerVisit){ mod, key, sub, -1 }));
	if (mod != idx)
		tl_facts__ext_enter(idx);
	TlLayerScan s;
	tl_facts__layers_start(&s, v);
	if (func >= 0)
		tl_facts__layers_returns(mod, &s, func, sub);
	else
		tl_facts__layers_push(&s, node);
	tl_facts__layers_run(mod, &s);
	int kind = s.dependent ? TL_LAYER_DEPENDENT : TL_LAYER_UNKNOWN;
	tl_facts__layers_end(&s);
	if (mod != idx)
		tl_facts__ext_leave(idx);
	v->items.items[at].kind = kind;
	return kind;
}

/* The layers a construction `root` holds: TL_LAYER_DEPENDENT, _NONE
 * (known to act the same in both modes), _TRACKED or _UNKNOWN. */
int tl_facts__layers_of(const TlIndex *idx, TSNode root)
{
	return tl_facts__layers_at(idx, root, (TSNode){ 0 });
}

int tl_facts__layers_at(const TlIndex *idx, TSNode root, TSNode site)
{
	if (ts_node_is_null(root))
		return TL_LAYER_UNKNOWN;
	TlLayerVisits visits;
	tl_array_init(&visits.items);
	TlLayerScan s;
	tl_facts__layers_start(&s, &visits);
	s.site = site;
	s.root = tl_index_unparen(root);
	tl_facts__layers_push(&s, root);
	tl_facts__layers_run(idx, &s);
	int kind = s.dependent ? TL_LAYER_DEPENDENT : s.unknown ? TL_LAYER_UNKNOWN
		   : s.tracked ? TL_LAYER_TRACKED : TL_LAYER_NONE;
	tl_facts__layers_end(&s);
	tl_array_release(&visits.items);
	return kind;
}


/* The layers of what call `stop.call` returns, where
 * tl_facts__module_source stopped (no construction it could tell): a
 * factory of the project (a local function, another module's) whose
 * returned tuples' element `stop.elem` a name took (`model, opt, loss =
 * get_model(cfg)`), or an entry of a module-level list or dict of
 * factories or classes called through it (`MODELS[name](...)`, `MODELS`
 * here or imported from another module, looked up there). Dependent, or
 * unknown. */
static bool tl_facts__made_target(const TlIndex *idx, const TlModStop *stop, const TlIndex **mod_out,
				  int32_t *func_out, int32_t *sub_out, TSNode *node_out)
{
	const TlSyms *sy = tl_syms();
	const TlCall *c = ts_node_is_null(stop->call) ? NULL : tl_index_call_at(idx, stop->call);
	if (!c)
		return false;
	TSNode callee = tl_index_unparen(c->callee);
	const TlIndex *mod = NULL;
	int32_t func = -1, sub = stop->elem;
	TSNode node = { 0 };
	if (stop->elem >= 0) {
		/* the factory's returns, element elem */
		const TlBinding *b = tl_index_resolve_node(idx, callee);
		if (b && b->kind == TL_BIND_DEF && b->ref >= 0 && idx->funcs.items[b->ref].cls < 0) {
			mod = idx;
			func = b->ref;
		} else if (b && b->kind == TL_BIND_IMPORT && c->qname && !tl_facts__foreign_qname(c->qname) &&
			   !tl_facts__starts(c->qname, "torch.")) {
			TlExtDef d;
			if (tl_facts__ext_def(idx, c->qname, &d) && d.func >= 0 && d.cls < 0) {
				mod = d.idx;
				func = d.func;
			}
		}
	} else if (!ts_node_is_null(callee) && ts_node_symbol(callee) == sy->subscript) {
		/* MODELS[name](...): the container's entries */
		TSNode obj = tl_index_unparen(tl_tree_field(callee, sy->f_value));
		const TlBinding *b = !ts_node_is_null(obj) && ts_node_symbol(obj) == sy->identifier
					     ? tl_index_resolve_node(idx, obj) : NULL;
		if (b && b->kind == TL_BIND_ASSIGN && b->func < 0 && b->elem < 0) {
			mod = idx;
			sub = (int32_t)(b - idx->bindings.items);
			node = tl_index_unparen(b->value);
		} else if (b && b->kind == TL_BIND_IMPORT && b->qname && idx->imports) {
			const TlBinding *g = NULL;
			if (tl_model_project_global(idx, b->qname, &mod, &g) && mod != idx) {
				sub = (int32_t)(g - mod->bindings.items);
				node = tl_index_unparen(g->value);
			} else {
				mod = NULL;
			}
		}
		TSSymbol ns = ts_node_is_null(node) ? 0 : ts_node_symbol(node);
		if (ns != sy->dictionary && ns != sy->list && ns != sy->tuple)
			mod = NULL;
	}
	*mod_out = mod;
	*func_out = func;
	*sub_out = sub;
	*node_out = node;
	return mod != NULL;
}

int tl_facts__layers_made(const TlIndex *idx, const TlModStop *stop)
{
	const TlIndex *mod;
	int32_t func, sub;
	TSNode node;
	if (!tl_facts__made_target(idx, stop, &mod, &func, &sub, &node))
		return TL_LAYER_UNKNOWN;
	TlLayerVisits visits;
	tl_array_init(&visits.items);
	TlLayerScan s;
	tl_facts__layers_start(&s, &visits);
	int kind = tl_facts__ext_scan(&s, idx, mod, func, sub, node);
	tl_facts__layers_end(&s);
	tl_array_release(&visits.items);
	return kind == TL_LAYER_DEPENDENT ? kind : TL_LAYER_UNKNOWN;
}
