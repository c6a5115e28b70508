/* Where a value goes (model.h: tl_model_reaches_backward,
 * tl_model_stored): the answers to "is what this expression computes
 * differentiated by a backward?" and "is this object saved (loaded into
 * a state dict)?".
 *
 * Each value of the analysed file's model carries a small set of flow
 * nodes (TlVal.flow): the calls, operators, bindings and parameters that
 * made it, as the interpreter evaluated them. Where a node is made, the
 * nodes of its operands get an edge to it, so the edges form a graph of
 * what was computed from what, finer than a parameter bit (prov.c):
 *
 * - a call or a binary operator is a node; its operands' sets (the callee's
 *   or receiver's value, every argument; a container's elements and
 *   positions too, TL_VAL_NEST deep) lead to it, unless the table's row
 *   of the call says its result has no history (`x.item()`, `.argmax()`,
 *   `.detach()`, `float(x)`, `len(xs)`): nothing flows through; a
 *   comparison, a `not`, a literal start afresh;
 * - a binding (an assignment's target, an augmented one's, a `for` target,
 *   a parameter at the function's entry) is a node: the value stored gets
 *   the set of that node alone, so sets stay small;
 * - a field, an element or a position read out of a value keeps the
 *   value's set (`out.logits`, `outs[0]`, `for l in losses`);
 * - a backward (`loss.backward()`, `torch.autograd.grad(...)`, a call of a
 *   function of the project that reaches one) leads every operand to the
 *   sink; a return statement leads its value to the function's return
 *   node, and that node to each call of the function the model evaluated
 *   in this module (the summary applied there): a return a caller
 *   differentiates counts.
 *
 * Joins unite the sets (at most TL_VAL_FLOW_SET nodes: past it, the top).
 * The edges only grow; the analysed file's model records them (another
 * module's model, read for its summaries, records none). A question walks
 * the edges forward from the nodes of the expression's value.
 *
 * Each edge has a kind: the value at its end is the same object as at its
 * start, a copy with the same keys or a container holding it (a binding,
 * a return, a literal's entry, a store under a key, an append, a spread,
 * `copy.deepcopy`, `.copy()`: the table's role copy); read out of it
 * (`.get`, `.items()`: graph element, role parts; a set marked
 * TL_VAL_FLOW_PART, of an element, a field or a `for` target, gives
 * edges of this kind at most); or computed from it (every other call and
 * operator). A call of the table's role saves (`torch.save`) or
 * loads-state (`.load_state_dict`) leads its first argument to a store
 * sink of its own; tl_model_stored follows the edges of kind same to a
 * save, of kind same or part to a load (a checkpoint whose keys are
 * renamed in a comprehension is still loaded; a state dict whose keys
 * are is no longer the one saved).
 *
 * A function of the project whose summary saves a parameter
 * (TlFuncSum.saves: it writes the parameter with torch.save as it is, or
 * hands it as it is to a function that does, tl_in__save_call) is a store
 * too: a call of it leads each such argument to a sink of its own.
 *
 * Owns: the flow sets (tl_val_flow_*), the summary's `saves` bits
 * (tl_in__save_call), the interpreter's tl_in__flow_*
 * hooks, tl_model_reaches_backward and tl_model_stored. */
#include "model/interp_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "model/apitable.h"

/* ---- sets in the pool --------------------------------------------------------- */

bool tl_val_flow_nodes(const TlValPool *p, uint32_t set, const uint32_t **nodes, uint32_t *n)
{
	*nodes = NULL;
	*n = 0;
	if (set == TL_VAL_FLOW_TOP)
		return false;
	set &= ~TL_VAL_FLOW_PART;
	if (set && set <= p->flows.size) {
		*n = p->flows.items[set - 1];
		*nodes = &p->flows.items[set];
	}
	return true;
}

static uint32_t tl_flow__add(TlValPool *p, const uint32_t *ids, uint32_t n)
{
	tl_array_push(&p->flows, n);
	uint32_t at = p->flows.size;
	for (uint32_t i = 0; i < n; i++)
		tl_array_push(&p->flows, ids[i]);
	return at;
}

uint32_t tl_val_flow_one(TlValPool *p, uint32_t node)
{
	return tl_flow__add(p, &node, 1);
}

uint32_t tl_val_flow_union(TlValPool *p, uint32_t a, uint32_t b)
{
	if (a == b || !b)
		return a;
	if (!a)
		return b;
	if (a == TL_VAL_FLOW_TOP || b == TL_VAL_FLOW_TOP)
		return TL_VAL_FLOW_TOP;
	uint32_t mark = (a | b) & TL_VAL_FLOW_PART;
	a &= ~TL_VAL_FLOW_PART;
	b &= ~TL_VAL_FLOW_PART;
	if (a == b)
		return a | mark;
	const uint32_t *x, *y;
	uint32_t nx, ny;
	tl_val_flow_nodes(p, a, &x, &nx);
	tl_val_flow_nodes(p, b, &y, &ny);
	uint32_t out[2 * TL_VAL_FLOW_SET], n = 0, i = 0, k = 0;
	while (i < nx || k < ny) {
		uint32_t v;
		if (k >= ny || (i < nx && x[i] < y[k]))
			v = x[i++];
		else if (i >= nx || y[k] < x[i])
			v = y[k++];
		else {
			v = x[i++];
			k++;
		}
		out[n++] = v;
	}
	if (n > TL_VAL_FLOW_SET) {
		if (!p->flow_merge)
			return TL_VAL_FLOW_TOP;
		uint32_t node = p->flow_merge(p->flow_ctx, out, n);
		return tl_flow__add(p, &node, 1) | mark;
	}
	if (n == nx)
		return a | mark; /* b's nodes are a's */
	if (n == ny)
		return b | mark;
	return tl_flow__add(p, out, n) | mark;
}

uint32_t tl_val_flow_part(uint32_t set)
{
	return set && set != TL_VAL_FLOW_TOP ? set | TL_VAL_FLOW_PART : set;
}

bool tl_val_flow_same(const TlValPool *p, uint32_t a, uint32_t b)
{
	if (a == b)
		return true;
	const uint32_t *x, *y;
	uint32_t nx, ny;
	if (((a ^ b) & TL_VAL_FLOW_PART) || !tl_val_flow_nodes(p, a, &x, &nx) || !tl_val_flow_nodes(p, b, &y, &ny) ||
	    nx != ny)
		return false;
	return !nx || memcmp(x, y, nx * sizeof *x) == 0;
}

/* ---- the graph ----------------------------------------------------------------- */

/* Kinds of node, in the top two bits of the first key; a backward's
 * sink is of kind PARAM with bit 29 set, a merge node with bit 28. */
enum { TL_FLOW_EXPR = 0, TL_FLOW_BIND = 1, TL_FLOW_PARAM = 2, TL_FLOW_RET = 3 };
#define TL_FLOW_SINK_BIT (1u << 29)
#define TL_FLOW_MERGE_BIT (1u << 28) /* ... and a merge node, bit 28; a store's sink both */

/* Kinds of edge, by what the value at its end is of the value at its
 * start: computed from it; read out of it (an element, an entry of
 * `.items()`, `.get(key)`); the same object, a copy of it with the same
 * keys (`copy.deepcopy`, `.copy()`) or a container that holds it (a
 * binding, a literal, a return). An edge made twice keeps the nearer. */
enum { TL_FLOW_COMPUTED = 0, TL_FLOW_PARTOF = 1, TL_FLOW_SAME = 2 };
/* With an edge's kind: the value at its end keeps the autograd history of
 * the value at its start (arithmetic, a binding, a container, a call
 * whose table row keeps its receiver's or its arguments' history, a
 * function of the project whose summary follows that parameter's, with
 * the grad mode on); an edge without it cuts that history (`.detach()`
 * makes none, a forward or a loss makes its own, an unknown call says
 * nothing, grad-disabled code keeps none). An edge made twice keeps it
 * if either did. backprop.c follows these edges back from a backward. */
#define TL_FLOW_KEEP 4u
#define TL_FLOW_KEEP_PART 8u /* ... from a set marked TL_VAL_FLOW_PART too */

struct TlFlow {
	TlScopeMap ids;   /* (kind << 30 | start byte, end byte) -> node */
	/* per node: the function of a return node; -2 - i: the sink of call i
	 * of the index, a backward (it differentiates what reaches it); else -1 */
	TlIntArray func;
	TlIntArray one;   /* per node: its set of one node in the pool, or 0 */
	TlScopeMap seen;  /* (from, to) -> the edge's index */
	TlIntArray from, to;
	TlIntArray kind;  /* per edge: TL_FLOW_COMPUTED, _PARTOF, _SAME */
	/* per node: the sink of a store (a `torch.save`, a `load_state_dict`):
	 * 4 * its call's index in the index + TL_MODEL_SAVED or
	 * TL_MODEL_LOADED; else 0 */
	TlIntArray store;
	uint32_t changes; /* edges whose kind grew */
	/* The edges that keep history (TL_FLOW_KEEP), per function interpreted
	 * when they were made: per edge, the previous one of that function
	 * (-1: none; -2: the edge keeps none); (function + 1, 0) -> its last.
	 * `cur`: the function being interpreted (-1: the module's code); `on`:
	 * another module's model records its flow (only the functions that
	 * run a backward, for backprop.c). */
	TlIntArray hnext;
	TlScopeMap hhead;
	int32_t cur;
	bool on;
	/* Built at a question when nodes or edges were added since: the
	 * edges by source; per node, whether it leads to a backward's sink
	 * (bit 1) or to the return of a function whose callers the index does
	 * not all show (bit 2), so that most questions walk nothing. */
	uint32_t built_edges, built_nodes, built_changes;
	uint32_t *first;
	int32_t *adj;
	uint8_t *kinds;   /* per entry of adj: its edge's kind */
	uint8_t *leads;
	/* Per node, the stores it leads to: over edges of kind same to a
	 * torch.save (TL_MODEL_SAVED), of kind same or part to a
	 * load_state_dict (TL_MODEL_LOADED). */
	uint8_t *stores;
	/* Per node that leads to open returns: the first two functions whose
	 * returns it leads to (-1: none), and whether it leads to more
	 * (`many`: then a question walks). */
	int32_t *open1, *open2;
	uint8_t *many;
	/* The calls `self.m(...)` that may run an override of `m` in a class
	 * derived from the caller's (the index counts each among the
	 * override's call sites): pairs (call index, override), sorted by
	 * call; made at the first call the interpreter meets. */
	TlIntArray overrides;
	bool overrides_made;
};

/* Frees the arrays tl_flow__build derives from the edges. */
static void tl_flow__free_built(TlFlow *fl)
{
	tl_free(fl->first);
	tl_free(fl->adj);
	tl_free(fl->kinds);
	tl_free(fl->leads);
	tl_free(fl->stores);
	tl_free(fl->open1);
	tl_free(fl->open2);
	tl_free(fl->many);
}

void tl_model__flow_release(TlModel *m)
{
	TlFlow *fl = m->flow;
	if (!fl)
		return;
	tl_scopemap_release(&fl->ids);
	tl_array_release(&fl->func);
	tl_array_release(&fl->overrides);
	tl_array_release(&fl->one);
	tl_scopemap_release(&fl->seen);
	tl_array_release(&fl->from);
	tl_array_release(&fl->to);
	tl_array_release(&fl->kind);
	tl_array_release(&fl->store);
	tl_array_release(&fl->hnext);
	tl_scopemap_release(&fl->hhead);
	tl_flow__free_built(fl);
	tl_free(fl);
	m->flow = NULL;
}

static uint32_t tl_flow__node(TlFlow *fl, unsigned kind, uint32_t a, uint32_t b, int32_t func);
static void tl_flow__edge(TlFlow *fl, uint32_t from, uint32_t to, unsigned kind);

/* The node that stands for a union of more than TL_VAL_FLOW_SET nodes
 * (`loss` bound on a dozen branches, then returned): one per set of
 * nodes, each of which leads to it. */
static uint32_t tl_flow__merge(void *ctx, const uint32_t *ids, uint32_t n)
{
	TlFlow *fl = ctx;
	uint64_t h = 1469598103934665603ull;
	for (uint32_t i = 0; i < n; i++) {
		h ^= ids[i];
		h *= 1099511628211ull;
	}
	uint32_t node = tl_flow__node(fl, TL_FLOW_PARAM, TL_FLOW_MERGE_BIT | ((uint32_t)h & 0x0fffffffu),
				      (uint32_t)(h >> 32) & 0x7fffffffu, -1);
	for (uint32_t i = 0; i < n; i++)
		tl_flow__edge(fl, ids[i], node, TL_FLOW_SAME | TL_FLOW_KEEP);
	return node;
}

static TlFlow *tl_flow__new(TlModel *m)
{
	if (!m->flow) {
		TlFlow *fl = tl_calloc(1, sizeof *fl);
		tl_scopemap_init(&fl->ids);
		tl_scopemap_init(&fl->seen);
		tl_array_init(&fl->func);
		tl_array_init(&fl->one);
		tl_array_init(&fl->from);
		tl_array_init(&fl->to);
		tl_array_init(&fl->kind);
		tl_array_init(&fl->store);
		tl_array_init(&fl->hnext);
		tl_scopemap_init(&fl->hhead);
		fl->cur = -1;
		tl_array_push(&fl->func, -1); /* node 0: none (0 is no set) */
		tl_array_push(&fl->one, 0);
		tl_array_push(&fl->store, 0);
		m->flow = fl;
		m->pool.flow_merge = tl_flow__merge;
		m->pool.flow_ctx = fl;
	}
	return m->flow;
}

/* The flow graph the interpreter records into: the analysed file's, or
 * another module's while `on`; NULL when none is recorded. */
static TlFlow *tl_flow__of(TlModel *m)
{
	if (m->quiet)
		return m->flow && m->flow->on ? m->flow : NULL;
	return tl_flow__new(m);
}

void tl_model__flow_begin(TlModel *m, int32_t func, bool record)
{
	TlFlow *fl = m->quiet ? (record ? tl_flow__new(m) : m->flow) : tl_flow__new(m);
	if (!fl)
		return;
	fl->cur = func;
	fl->on = record;
}

int32_t tl_model__flow_bind_node(const TlModel *m, TSNode target)
{
	int32_t at;
	if (!m->flow || !tl_scopemap_get(&m->flow->ids, ((uint32_t)TL_FLOW_BIND << 30) | (ts_node_start_byte(target) & 0x3fffffffu),
					   ts_node_end_byte(target), &at))
		return -1;
	return at;
}

void tl_model__flow_kept(const TlModel *m, int32_t func, TlIntArray *from, TlIntArray *to)
{
	const TlFlow *fl = m->flow;
	int32_t e;
	if (!fl || !tl_scopemap_get(&fl->hhead, (uint32_t)(func + 1), 0, &e))
		return;
	for (; e >= 0; e = fl->hnext.items[e]) {
		tl_array_push(from, fl->from.items[e]);
		tl_array_push(to, fl->to.items[e]);
	}
}

/* Links edge `at` into the chain of the function being interpreted. */
static void tl_flow__keep(TlFlow *fl, int32_t at)
{
	int32_t last = -1;
	(void)tl_scopemap_get(&fl->hhead, (uint32_t)(fl->cur + 1), 0, &last);
	fl->hnext.items[at] = last;
	tl_scopemap_put(&fl->hhead, (uint32_t)(fl->cur + 1), 0, at);
}

static uint32_t tl_flow__node(TlFlow *fl, unsigned kind, uint32_t a, uint32_t b, int32_t func)
{
	uint32_t key = ((uint32_t)kind << 30) | (a & 0x3fffffffu);
	int32_t at;
	if (tl_scopemap_get(&fl->ids, key, b, &at))
		return (uint32_t)at;
	at = (int32_t)fl->func.size;
	tl_scopemap_put(&fl->ids, key, b, at);
	tl_array_push(&fl->func, func);
	tl_array_push(&fl->one, 0);
	tl_array_push(&fl->store, 0);
	return (uint32_t)at;
}

static uint32_t tl_flow__span(TlFlow *fl, unsigned kind, TSNode n)
{
	return tl_flow__node(fl, kind, ts_node_start_byte(n), ts_node_end_byte(n), -1);
}

/* The set of node `node` alone (made once per node). */
static uint32_t tl_flow__single(TlModel *m, TlFlow *fl, uint32_t node)
{
	if (!fl->one.items[node])
		fl->one.items[node] = (int32_t)tl_val_flow_one(&m->pool, node);
	return (uint32_t)fl->one.items[node];
}

static void tl_flow__edge(TlFlow *fl, uint32_t from, uint32_t to, unsigned kind)
{
	int32_t at;
	bool keep = (kind & TL_FLOW_KEEP) != 0;
	kind &= ~(TL_FLOW_KEEP | TL_FLOW_KEEP_PART);
	if (from == to)
		return;
	if (tl_scopemap_get(&fl->seen, from, to, &at)) {
		if ((unsigned)fl->kind.items[at] < kind) {
			fl->kind.items[at] = (int32_t)kind;
			fl->changes++;
		}
		if (keep && fl->hnext.items[at] == -2)
			tl_flow__keep(fl, at);
		return;
	}
	at = (int32_t)fl->from.size;
	tl_scopemap_put(&fl->seen, from, to, at);
	tl_array_push(&fl->from, (int32_t)from);
	tl_array_push(&fl->to, (int32_t)to);
	tl_array_push(&fl->kind, (int32_t)kind);
	tl_array_push(&fl->hnext, -2);
	if (keep)
		tl_flow__keep(fl, at);
}

/* Edges of kind `kind` from every node of `v`, its elements' and
 * positions' included (TL_VAL_NEST deep), to `to`; from a set marked
 * TL_VAL_FLOW_PART, of kind part at most. */
static void tl_flow__into(TlModel *m, TlFlow *fl, const TlVal *v, uint32_t to, unsigned kind)
{
	const TlValPool *p = &m->pool;
	struct { TlVal v; unsigned nest; } stack[48];
	uint32_t n = 0;
	stack[n].v = *v;
	stack[n++].nest = 0;
	while (n) {
		n--;
		TlVal x = stack[n].v;
		unsigned nest = stack[n].nest;
		const uint32_t *ids;
		uint32_t k;
		/* What is read out of a value (a field, an element) keeps
		 * none of the value's history (`args.lr`, `out.logits`), but
		 * for a method's receiver (`x.sum()`: the callee `x.sum` is
		 * read out of `x`): TL_FLOW_KEEP_PART. */
		unsigned ek = kind & ~TL_FLOW_KEEP_PART;
		if (x.flow & TL_VAL_FLOW_PART) {
			if (!(kind & TL_FLOW_KEEP_PART))
				ek &= ~TL_FLOW_KEEP;
			if ((ek & ~TL_FLOW_KEEP) > TL_FLOW_PARTOF)
				ek = TL_FLOW_PARTOF | (ek & TL_FLOW_KEEP);
		}
		if (tl_val_flow_nodes(p, x.flow, &ids, &k))
			for (uint32_t i = 0; i < k; i++)
				tl_flow__edge(fl, ids[i], to, ek);
		if (x.kind != TL_VK_CONTAINER || nest >= TL_VAL_NEST)
			continue;
		if (x.elem >= 0 && (uint32_t)x.elem < p->vals.size && n < 48) {
			stack[n].v = p->vals.items[x.elem];
			stack[n++].nest = nest + 1;
		}
		for (int32_t q = x.parts; q >= 0 && (uint32_t)q < p->vals.size && n < 48; q = p->vals.items[q].next) {
			stack[n].v = p->vals.items[q];
			stack[n++].nest = nest + 1;
		}
	}
}

/* The table's row of call `c` (NULL: none), and whether it is a
 * method's (`*method`: its receiver is operand 0). A row whose graph
 * breaks says the result carries no history (`.item()`, `.argmax()`,
 * `.detach()`, `len(x)`), whatever the model knows of its receiver. */
static const TlApiRow *tl_flow__row(const TlCall *c, bool *method)
{
	const TlApiRow *row = c->qname ? tl_api_qualified(c->qname) : NULL;
	*method = false;
	if (!row && c->method) {
		*method = c->receiver.id != NULL;
		row = *method ? tl_api_method(c->method) : tl_api_builtin(c->method);
	}
	return row;
}

/* The operand of call `n` (1 + its place among the arguments) that is its
 * first positional argument, or its keyword argument `kw`; 0: neither. */
static uint32_t tl_flow__arg(const In *in, TSNode n, const char *kw)
{
	const TlSyms *sy = in->sy;
	TSNode args = tl_tree_field(n, sy->f_arguments);
	if (ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list)
		return 0;
	uint32_t k = 0, nc = ts_node_named_child_count(args);
	for (uint32_t j = 0; j < nc; j++) {
		TSNode a = ts_node_named_child(args, j);
		TSSymbol s = ts_node_symbol(a);
		if (s == sy->comment)
			continue;
		k++;
		if (k == 1 && s != sy->keyword_argument && s != sy->list_splat && s != sy->dictionary_splat)
			return k;
		if (s == sy->keyword_argument && tl_index_text_is(in->idx, tl_tree_field(a, sy->f_name), kw))
			return k;
	}
	return 0;
}

/* The kind of the edge from operand `i` of call `n` (row `row`, of a
 * method when `method`) to its result: the object itself for a copy's
 * argument (`copy.deepcopy(sd)`: role copy) or receiver (`sd.copy()`),
 * read out of the receiver for an element (`ckpt.get("model")`: graph
 * element) or a view of its entries (`sd.items()`: role parts). */
static unsigned tl_flow__op_kind(const In *in, TSNode n, const TlApiRow *row, bool method, uint32_t i)
{
	if (!row)
		return TL_FLOW_COMPUTED;
	if (method && i == 0) {
		if (row->roles & TL_APIR_COPY)
			return TL_FLOW_SAME;
		if (row->graph == TL_APIG_ELEMENT || (row->roles & TL_APIR_PARTS))
			return TL_FLOW_PARTOF;
	}
	if (!method && i >= 1 && (row->roles & TL_APIR_COPY) && tl_flow__arg(in, n, "") == i)
		return TL_FLOW_SAME;
	return TL_FLOW_COMPUTED;
}

/* Whether grad-disabled code runs here: what it computes keeps no history. */
static bool tl_flow__grad_off(const In *in)
{
	return in->st.grad == TL_MGRAD_OFF || (in->st.grad == TL_MGRAD_ENTRY && in->entry_off);
}

/* A call under `torch.` whose result follows the tensors passed to it
 * (the interpreter's transfer, calls.c): not a module class of `torch.nn`,
 * not an optimizer. */
static bool tl_flow__torch_fn(const char *q)
{
	return strncmp(q, "torch.", 6) == 0 &&
	       (strncmp(q, "torch.nn.", 9) != 0 || strncmp(q, "torch.nn.functional.", 20) == 0) &&
	       strncmp(q, "torch.optim", 11) != 0;
}

/* Whether operand `i` of call `n` (`c`) is a positional argument: the
 * (i)th argument, counting from 1, neither a keyword nor a spread. */
static bool tl_flow__positional(const In *in, TSNode n, uint32_t i)
{
	const TlSyms *sy = in->sy;
	TSNode args = tl_tree_field(n, sy->f_arguments);
	if (i == 0 || ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list)
		return false;
	uint32_t k = 0, nc = ts_node_named_child_count(args);
	for (uint32_t j = 0; j < nc; j++) {
		TSNode a = ts_node_named_child(args, j);
		TSSymbol s = ts_node_symbol(a);
		if (s == sy->comment)
			continue;
		if (++k == i)
			return s != sy->keyword_argument && s != sy->list_splat && s != sy->dictionary_splat;
	}
	return false;
}

/* TL_FLOW_KEEP when the result of call `n` (`c`) keeps the history of
 * its operand `i` (0: the receiver or the callee; i > 0: argument i),
 * else 0: a function of the project whose summary follows that
 * parameter's graph (TlVal.pgraph of its return); a torch function that
 * follows the tensors passed in (no row, or one that keeps or says
 * nothing of the graph and makes a tensor; not a new leaf of the set
 * new-leaf: `torch.tensor(xs)`), its first 4 positional arguments; a copy's argument; a method whose row keeps its receiver's
 * history or reads an element of it (`x.sum()`, `x.view(...)`,
 * `d.get(k)`), its receiver; a builtin that keeps it (`sum(losses)`), its
 * first argument. A forward, a loss, a call the table or the project
 * does not know, grad-disabled code: none. */
static unsigned tl_flow__keeps(const In *in, TSNode n, const TlCall *c, uint32_t i)
{
	if (!c || tl_flow__grad_off(in))
		return 0;
	if (in->callee_mod && in->callee_ref >= 0) {
		const TlIndex *mod = in->callee_mod;
		const TlModel *cm = mod == in->idx ? in->m : mod->model;
		uint32_t p = i - 1 + in->callee_shift;
		if (i == 0 || p >= 16 || !cm || (uint32_t)in->callee_ref >= cm->funcs.size ||
		    !tl_flow__positional(in, n, i))
			return 0;
		return (cm->funcs.items[in->callee_ref].ret.pgraph & (1u << p)) ? TL_FLOW_KEEP : 0;
	}
	const TlApiRow *q = c->qname ? tl_api_qualified(c->qname) : NULL;
	if (q && (q->sets & TL_APIS_NEW_LEAF))
		return 0; /* `torch.tensor(xs)`, `torch.full(shape, v)`: a new leaf */
	if (q && (q->roles & TL_APIR_COPY))
		return i >= 1 && tl_flow__arg(in, n, "") == i ? TL_FLOW_KEEP : 0;
	if (c->qname && tl_flow__torch_fn(c->qname) &&
	    (!q || q->graph == TL_APIG_KEEPS ||
	     (q->graph == TL_APIG_UNSAID && (!q->kind || q->kind == TL_APIK_TENSOR || q->kind == TL_APIK_CONTAINER))))
		return i >= 1 && i <= 4 && tl_flow__positional(in, n, i) ? TL_FLOW_KEEP : 0;
	if (q || !c->method)
		return 0;
	if (c->receiver.id) {
		const TlApiRow *r = tl_api_method(c->method);
		return i == 0 && r &&
			       (r->graph == TL_APIG_KEEPS || r->graph == TL_APIG_ELEMENT || (r->roles & TL_APIR_COPY))
		       ? TL_FLOW_KEEP | TL_FLOW_KEEP_PART : 0;
	}
	const TlApiRow *b = tl_api_builtin(c->method);
	return i == 1 && b && b->graph == TL_APIG_KEEPS && tl_flow__positional(in, n, i) ? TL_FLOW_KEEP : 0;
}

/* Drops the keep of each operand that is a loader's batch (data: a new
 * leaf, `pad` of `for x, pad in loader` in `scores + pad * -1e9`), of
 * `keeps[i]` (TL_FLOW_KEEP or 0). */
static void tl_flow__data(const TlVal *ops, uint32_t nops, unsigned *keeps)
{
	for (uint32_t i = 0; i < nops; i++)
		if (ops[i].made != TL_VM_TOP && (ops[i].made & TL_VM_LOADER))
			keeps[i] = 0;
}

/* Methods that put their arguments into the receiver: the table's role
 * stores (`append`, `add`, `update`, `put`; the interpreter's container
 * stores, calls.c, know `append`, `add`, `insert` and `extend`). */
static bool tl_flow__storing(const char *m)
{
	const TlApiRow *r = tl_api_method(m);
	return r && (r->roles & TL_APIR_STORES);
}

/* ---- the interpreter's hooks --------------------------------------------------- */

void tl_in__flow_op(In *in, TSNode n, const TlVal *ops, uint32_t nops, TlVal *r)
{
	TlFlow *fl = tl_flow__of(in->m);
	if (!fl)
		return;
	uint32_t node = tl_flow__span(fl, TL_FLOW_EXPR, n);
	unsigned keeps[64] = { 0 };
	uint32_t k = nops < 64 ? nops : 64;
	for (uint32_t i = 0; i < k; i++)
		keeps[i] = tl_flow__grad_off(in) ? 0 : TL_FLOW_KEEP;
	tl_flow__data(ops, k, keeps);
	for (uint32_t i = 0; i < k; i++)
		tl_flow__into(in->m, fl, &ops[i], node, TL_FLOW_COMPUTED | keeps[i]);
	r->flow = tl_flow__single(in->m, fl, node);
}

/* The (call, override) pairs of fl->overrides: a function whose call
 * sites hold a call that targets another function (`self.m(...)` in a
 * base class's method, resolved to the base's own `m`). */
static int tl_flow__cmp_pair(const void *a, const void *b)
{
	const int32_t *x = a, *y = b;
	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

static void tl_flow__make_overrides(const TlIndex *idx, TlFlow *fl)
{
	fl->overrides_made = true;
	for (uint32_t f = 0; f < idx->funcs.size; f++) {
		const TlFunc *fn = &idx->funcs.items[f];
		if (fn->cls < 0)
			continue;
		for (uint32_t i = 0; i < fn->call_sites.size; i++) {
			int32_t ci = fn->call_sites.items[i];
			if (idx->calls.items[ci].target != (int32_t)f) {
				tl_array_push(&fl->overrides, ci);
				tl_array_push(&fl->overrides, (int32_t)f);
			}
		}
	}
	if (fl->overrides.size)
		qsort(fl->overrides.items, fl->overrides.size / 2, 2 * sizeof(int32_t), tl_flow__cmp_pair);
}

/* What an override returns is call `ci`'s too (node `node`). */
static void tl_flow__override_edges(In *in, TlFlow *fl, int32_t ci, uint32_t node)
{
	if (!fl->overrides_made)
		tl_flow__make_overrides(in->idx, fl);
	uint32_t lo = 0, hi = fl->overrides.size / 2;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (fl->overrides.items[2 * mid] < ci)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < fl->overrides.size / 2 && fl->overrides.items[2 * lo] == ci; lo++) {
		int32_t f = fl->overrides.items[2 * lo + 1];
		tl_flow__edge(fl, tl_flow__node(fl, TL_FLOW_RET, (uint32_t)f, 0, f), node, TL_FLOW_SAME);
	}
}

/* Call `n` (`c`, row `row`) stores an operand: `torch.save(obj, f)` (role
 * saves) its first argument or `obj`, `X.load_state_dict(sd)` (role
 * loads-state) its first argument or `state_dict`: an edge of kind same
 * from it to the call's store sink. */
static void tl_flow__store(In *in, TlFlow *fl, TSNode n, const TlCall *c, const TlApiRow *row, const TlVal *ops,
			   uint32_t nops)
{
	bool save = (row->roles & TL_APIR_SAVES) != 0;
	uint32_t at = tl_flow__arg(in, n, save ? "obj" : "state_dict");
	if (!at || at >= nops)
		return;
	uint32_t sink = tl_flow__node(fl, TL_FLOW_PARAM, TL_FLOW_SINK_BIT | TL_FLOW_MERGE_BIT | ts_node_start_byte(n),
				      ts_node_end_byte(n), -1);
	fl->store.items[sink] =
		(int32_t)(4 * (uint32_t)(c - in->idx->calls.items) + (save ? TL_MODEL_SAVED : TL_MODEL_LOADED));
	tl_flow__into(in->m, fl, &ops[at], sink, TL_FLOW_SAME);
}

/* The saves bits of the function of the project call `in`'s current call
 * runs (in->callee_mod, in->callee_ref), shifted to its arguments: bit
 * a for its positional argument a. */
static uint16_t tl_flow__callee_saves(In *in)
{
	if (!in->callee_mod || in->callee_ref < 0)
		return 0;
	const TlIndex *mod = in->callee_mod;
	const TlModel *cm = mod == in->idx ? in->m : mod->model;
	if (!cm || (uint32_t)in->callee_ref >= cm->funcs.size)
		return 0;
	if (cm == in->m)
		tl_model__dep_summary(in->m, in->callee_ref, false);
	uint16_t bits = cm->funcs.items[in->callee_ref].saves;
	return in->callee_shift < 16 ? (uint16_t)(bits >> in->callee_shift) : 0;
}

/* The positional argument `a` (from 0) of call node `n`, or a null node. */
static TSNode tl_flow__pos_arg(const In *in, TSNode n, uint32_t a)
{
	const TlSyms *sy = in->sy;
	TSNode args = tl_tree_field(n, sy->f_arguments);
	if (ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list)
		return (TSNode){ 0 };
	uint32_t i = 0, nc = ts_node_named_child_count(args);
	for (uint32_t j = 0; j < nc; j++) {
		TSNode x = ts_node_named_child(args, j);
		TSSymbol s = ts_node_symbol(x);
		if (s == sy->comment)
			continue;
		if (s == sy->keyword_argument || s == sy->list_splat || s == sy->dictionary_splat)
			return (TSNode){ 0 };
		if (i++ == a)
			return x;
	}
	return (TSNode){ 0 };
}

/* The parameter (bit i) of the function being interpreted that name `e`
 * is: a plain name bound nowhere else in the function (so it holds the
 * object the caller passed); 0 otherwise (`self` too). */
static uint16_t tl_flow__param_name(const In *in, TSNode e)
{
	const TlIndex *idx = in->idx;
	e = tl_index_unparen(e);
	if (ts_node_is_null(e) || ts_node_symbol(e) != in->sy->identifier)
		return 0;
	const TlBinding *b = tl_index_resolve_node(idx, e);
	if (!b || b->kind != TL_BIND_PARAM || b->func != in->func || !b->name)
		return 0;
	const TlIntArray *all = tl_index_bindings_of(idx, in->func, b->name);
	if (!all || all->size != 1)
		return 0;
	const TlFunc *fn = &idx->funcs.items[in->func];
	for (uint32_t i = 0; i < fn->params.size && i < 16; i++)
		if (&idx->bindings.items[fn->params.items[i]] == b)
			return in->param_roots[i] >= 0 && in->param_roots[i] == in->self_id ? 0 : (uint16_t)(1u << i);
	return 0;
}

/* The parameters argument `e` is, or a list, tuple or dict literal holds
 * (one level: `{"model": model}`). */
static uint16_t tl_flow__param_obj(const In *in, TSNode e)
{
	const TlSyms *sy = in->sy;
	e = tl_index_unparen(e);
	if (ts_node_is_null(e))
		return 0;
	TSSymbol s = ts_node_symbol(e);
	if (s != sy->dictionary && s != sy->list && s != sy->tuple)
		return tl_flow__param_name(in, e);
	uint16_t bits = 0;
	uint32_t nc = ts_node_named_child_count(e);
	for (uint32_t j = 0; j < nc; j++) {
		TSNode x = ts_node_named_child(e, j);
		if (ts_node_symbol(x) == sy->pair)
			x = tl_tree_field(x, sy->f_value);
		bits |= tl_flow__param_name(in, x);
	}
	return bits;
}

void tl_in__save_call(In *in, TSNode n, const TlCall *c, uint32_t npos)
{
	if (in->func < 0 || !in->nparams)
		return;
	uint16_t args = 0; /* bit a: positional argument a is written */
	bool method = false;
	const TlApiRow *row = tl_flow__row(c, &method);
	if (row && (row->roles & TL_APIR_SAVES) && !method)
		args |= 1u;
	args |= tl_flow__callee_saves(in);
	uint16_t bits = 0;
	for (uint32_t a = 0; a < npos && a < 16 && args; a++)
		if (args & (1u << a))
			bits |= tl_flow__param_obj(in, tl_flow__pos_arg(in, n, a));
	in->psaved = (uint16_t)(in->psaved | bits);
}

/* Call `n` (`c`) of a function of the project whose summary saves its
 * parameters (TlFuncSum.saves: `utils.save_checkpoint(state, dir)` of a
 * helper that calls `torch.save(state, path)`): each such positional
 * argument leads to a store sink of the call's own, as for a torch.save. */
static void tl_flow__store_through(In *in, TlFlow *fl, TSNode n, const TlCall *c, const TlVal *ops, uint32_t nops)
{
	uint16_t args = tl_flow__callee_saves(in);
	if (!args)
		return;
	uint32_t sink = 0;
	for (uint32_t a = 0; a < 16 && a + 1 < nops; a++) {
		if (!(args & (1u << a)) || !tl_flow__positional(in, n, a + 1))
			continue;
		if (!sink) {
			sink = tl_flow__node(fl, TL_FLOW_PARAM, TL_FLOW_SINK_BIT | TL_FLOW_MERGE_BIT | ts_node_start_byte(n),
					     ts_node_end_byte(n), -1);
			fl->store.items[sink] = (int32_t)(4 * (uint32_t)(c - in->idx->calls.items) + TL_MODEL_SAVED);
		}
		tl_flow__into(in->m, fl, &ops[a + 1], sink, TL_FLOW_SAME);
	}
}

void tl_in__flow_expr(In *in, TSNode n, const TlVal *ops, uint32_t nops, TlVal *r)
{
	if (!tl_flow__of(in->m))
		return;
	const TlSyms *sy = in->sy;
	TSSymbol s = ts_node_symbol(n);
	if (s == sy->call) {
		TlFlow *fl = tl_flow__of(in->m);
		if (!fl)
			return;
		const TlCall *c = tl_index_call_at(in->idx, n);
		if (c && (c->events & TL_EV_BACKWARD))
			tl_in__backprop_call(in, c);
		bool method = false;
		const TlApiRow *row = c ? tl_flow__row(c, &method) : NULL;
		uint32_t node = tl_flow__span(fl, TL_FLOW_EXPR, n);
		if (!row || row->graph != TL_APIG_BREAKS) {
			unsigned keeps[64] = { 0 };
			uint32_t k = nops < 64 ? nops : 64;
			for (uint32_t i = 0; i < k; i++)
				keeps[i] = tl_flow__keeps(in, n, c, i);
			tl_flow__data(ops, k, keeps);
			for (uint32_t i = 0; i < k; i++)
				tl_flow__into(in->m, fl, &ops[i], node, tl_flow__op_kind(in, n, row, method, i) | keeps[i]);
		}
		r->flow = tl_flow__single(in->m, fl, node);
		if (row && (row->roles & (TL_APIR_SAVES | TL_APIR_LOADS_STATE)))
			tl_flow__store(in, fl, n, c, row, ops, nops);
		else if (c)
			tl_flow__store_through(in, fl, n, c, ops, nops);
		unsigned diff = TL_EV_BACKWARD | TL_EV_GRAD_CALL;
		if (c && ((c->events & diff) ||
			  (c->target >= 0 && (in->idx->funcs.items[c->target].reach_events & diff)))) {
			uint32_t sink = tl_flow__node(fl, TL_FLOW_PARAM, TL_FLOW_SINK_BIT | ts_node_start_byte(n),
						      ts_node_end_byte(n), -2 - (int32_t)(c - in->idx->calls.items));
			for (uint32_t i = 0; i < nops; i++)
				tl_flow__into(in->m, fl, &ops[i], sink, TL_FLOW_COMPUTED);
			if (c->events & diff)
				tl_flow__edge(fl, node, sink, TL_FLOW_COMPUTED); /* the backward itself */
		}
		/* `buf.append(x)`, `meter.add(loss)`: what the receiver holds
		 * from now on is computed from the arguments too. */
		if (c && c->method && c->receiver.id && nops >= 2 && tl_flow__storing(c->method)) {
			const uint32_t *ids;
			uint32_t k;
			if (tl_val_flow_nodes(&in->m->pool, ops[0].flow, &ids, &k))
				for (uint32_t j = 0; j < k; j++)
					for (uint32_t i = 1; i < nops; i++)
						tl_flow__into(in->m, fl, &ops[i], ids[j], TL_FLOW_SAME | TL_FLOW_KEEP);
		}
		/* What a function of this module returns is this call's. */
		if (in->callee_mod == (const void *)in->idx && in->callee_ref >= 0)
			tl_flow__edge(fl, tl_flow__node(fl, TL_FLOW_RET, (uint32_t)in->callee_ref, 0, in->callee_ref),
				      node, TL_FLOW_SAME);
		/* `self.m(...)` in a base class's method runs the overrides of
		 * the classes derived from it too: what they return is this
		 * call's (the index counts it among their call sites). */
		if (c)
			tl_flow__override_edges(in, fl, (int32_t)(c - in->idx->calls.items), node);
	} else if (s == sy->binary_operator) {
		tl_in__flow_op(in, n, ops, nops, r);
	} else if (s == sy->unary_operator && nops >= 1) {
		r->flow = tl_val_flow_union(&in->m->pool, r->flow, ops[0].flow);
	} else if ((s == sy->attribute || s == sy->subscript) && nops >= 1) {
		/* A field or an element of a value: the value's too (`acc.total`
		 * of what `acc.add(loss)` kept, `outs[0]`); not a module's or
		 * `self`'s attribute (its own), nor `.data`, `.shape`, `.grad`
		 * (none of its history). */
		unsigned k = ops[0].kind;
		uint32_t len = 0;
		const char *t = s == sy->attribute ? tl_index_text(in->idx, tl_tree_field(n, sy->f_attribute), &len) : NULL;
		TlPath op;
		TSNode obj = tl_tree_field(n, s == sy->attribute ? sy->f_object : sy->f_value);
		bool self = in->self_id >= 0 && tl_path_of(&in->m->names, in->idx, obj, &op) && op.root == in->self_id &&
			    op.n == 0;
		if (k != TL_VK_MODULE && k != TL_VK_WRAPPER && k != TL_VK_CLASS && k != TL_VK_OPTIMIZER &&
		    k != TL_VK_SCALER && k != TL_VK_CRITERION && k != TL_VK_FUNCTION && !self &&
		    !(t && tl_in__plain_attr(t, len)))
			r->flow = tl_val_flow_union(&in->m->pool, r->flow, tl_val_flow_part(ops[0].flow));
	}
}

void tl_in__flow_bind(In *in, TSNode target, TlVal *v)
{
	TlFlow *fl = tl_flow__of(in->m);
	if (!fl)
		return;
	uint32_t node = tl_flow__span(fl, TL_FLOW_BIND, target);
	tl_flow__into(in->m, fl, v, node, TL_FLOW_SAME | TL_FLOW_KEEP);
	v->flow = tl_flow__single(in->m, fl, node);
}

void tl_in__flow_param(In *in, uint32_t i, TlVal *v)
{
	TlFlow *fl = tl_flow__of(in->m);
	if (!fl || in->func < 0)
		return;
	v->flow = tl_flow__single(in->m, fl, tl_flow__node(fl, TL_FLOW_PARAM, (uint32_t)in->func, i, -1));
}

void tl_in__flow_part(In *in, TlVal *part, const TlVal *whole)
{
	if (tl_flow__of(in->m) && !tl_val_is_bot(part))
		part->flow = tl_val_flow_union(&in->m->pool, part->flow, tl_val_flow_part(whole->flow));
}

void tl_in__flow_spread(In *in, TlVal *part, const TlVal *whole)
{
	if (tl_flow__of(in->m) && !tl_val_is_bot(part))
		part->flow = tl_val_flow_union(&in->m->pool, part->flow, whole->flow);
}

void tl_in__flow_return(In *in, const TlVal *v)
{
	TlFlow *fl = tl_flow__of(in->m);
	if (!fl || in->func < 0)
		return;
	tl_flow__into(in->m, fl, v, tl_flow__node(fl, TL_FLOW_RET, (uint32_t)in->func, 0, in->func), TL_FLOW_SAME);
}

void tl_in__flow_store(In *in, const TlVal *obj, const TlVal *before, TlVal *after, const TlVal *v)
{
	TlFlow *fl = tl_flow__of(in->m);
	if (!fl)
		return;
	if (before && after)
		after->flow = tl_val_flow_union(&in->m->pool, after->flow, before->flow);
	const uint32_t *ids;
	uint32_t k;
	if (tl_val_flow_nodes(&in->m->pool, obj->flow, &ids, &k))
		for (uint32_t j = 0; j < k; j++)
			tl_flow__into(in->m, fl, v, ids[j], TL_FLOW_SAME | TL_FLOW_KEEP);
}

/* ---- the question ---------------------------------------------------------------- */

/* Edges grouped by one end (`by`: from or to) into first/adj, and each
 * entry's kind into kinds. */
static void tl_flow__group(const TlIntArray *by, const TlIntArray *other, const TlIntArray *kind, uint32_t n,
			   uint32_t **pfirst, int32_t **padj, uint8_t **pkinds)
{
	uint32_t e = by->size;
	uint32_t *first = tl_calloc((size_t)n + 1, sizeof *first);
	int32_t *adj = tl_calloc(e ? e : 1, sizeof *adj);
	uint8_t *kinds = tl_calloc(e ? e : 1, 1);
	for (uint32_t k = 0; k < e; k++)
		first[by->items[k] + 1]++;
	for (uint32_t k = 0; k < n; k++)
		first[k + 1] += first[k];
	uint32_t *fill = tl_calloc(n ? n : 1, sizeof *fill);
	for (uint32_t k = 0; k < e; k++) {
		int32_t f = by->items[k];
		kinds[first[f] + fill[f]] = (uint8_t)kind->items[k];
		adj[first[f] + fill[f]++] = other->items[k];
	}
	tl_free(fill);
	*pfirst = first;
	*padj = adj;
	*pkinds = kinds;
}

/* stores[x]: the stores node x leads to (see TlFlow.stores), over the
 * edges by their other end (rfirst, radj, rkinds). */
static void tl_flow__stores(TlFlow *fl, uint32_t n, const uint32_t *rfirst, const int32_t *radj,
			    const uint8_t *rkinds, TlIntArray *todo)
{
	fl->stores = tl_calloc(n ? n : 1, 1);
	for (uint8_t what = TL_MODEL_SAVED; what <= TL_MODEL_LOADED; what++) {
		unsigned least = what == TL_MODEL_SAVED ? TL_FLOW_SAME : TL_FLOW_PARTOF;
		for (uint32_t x = 0; x < n; x++)
			if ((fl->store.items[x] & 3) == what) {
				fl->stores[x] |= what;
				tl_array_push(todo, (int32_t)x);
			}
		while (todo->size) {
			int32_t x = tl_array_pop(todo);
			for (uint32_t q = rfirst[x]; q < rfirst[x + 1]; q++) {
				int32_t y = radj[q];
				if (rkinds[q] >= least && !(fl->stores[y] & what)) {
					fl->stores[y] |= what;
					tl_array_push(todo, y);
				}
			}
		}
	}
}

static void tl_flow__build(const TlIndex *idx, TlFlow *fl)
{
	uint32_t n = fl->func.size, e = fl->from.size;
	if (fl->first && fl->built_edges == e && fl->built_nodes == n && fl->built_changes == fl->changes)
		return;
	tl_flow__free_built(fl);
	tl_flow__group(&fl->from, &fl->to, &fl->kind, n, &fl->first, &fl->adj, &fl->kinds);
	/* Backwards from the sinks (bit 1) and the open returns (bit 2). */
	uint32_t *rfirst;
	int32_t *radj;
	uint8_t *rkinds;
	tl_flow__group(&fl->to, &fl->from, &fl->kind, n, &rfirst, &radj, &rkinds);
	fl->leads = tl_calloc(n ? n : 1, 1);
	TlIntArray todo;
	tl_array_init(&todo);
	for (uint8_t bit = 1; bit <= 2; bit++) {
		for (uint32_t x = 0; x < n; x++) {
			int32_t f = fl->func.items[x];
			bool seed = bit == 1 ? f <= -2
					     : f >= 0 && (uint32_t)f < idx->funcs.size &&
						       (idx->funcs.items[f].escapes || !idx->funcs.items[f].call_sites.size);
			if (seed && !(fl->leads[x] & bit)) {
				fl->leads[x] |= bit;
				tl_array_push(&todo, (int32_t)x);
			}
		}
		while (todo.size) {
			int32_t x = tl_array_pop(&todo);
			for (uint32_t q = rfirst[x]; q < rfirst[x + 1]; q++) {
				int32_t y = radj[q];
				if (!(fl->leads[y] & bit)) {
					fl->leads[y] |= bit;
					tl_array_push(&todo, y);
				}
			}
		}
	}
	/* Which open returns each node leads to: from each, backwards, a node
	 * takes two functions; one that would take a third leads to many, and
	 * so does every node that leads to it. Each node is taken at most
	 * three times, so this is linear in the edges. */
	fl->open1 = tl_calloc(n ? n : 1, sizeof *fl->open1);
	fl->open2 = tl_calloc(n ? n : 1, sizeof *fl->open2);
	fl->many = tl_calloc(n ? n : 1, 1);
	for (uint32_t x = 0; x < n; x++)
		fl->open1[x] = fl->open2[x] = -1;
	TlIntArray manys;
	tl_array_init(&manys);
	for (uint32_t r = 0; r < n; r++) {
		int32_t f = fl->func.items[r];
		if (f < 0 || (uint32_t)f >= idx->funcs.size ||
		    !(idx->funcs.items[f].escapes || !idx->funcs.items[f].call_sites.size))
			continue;
		tl_array_push(&todo, (int32_t)r);
		while (todo.size) {
			int32_t x = tl_array_pop(&todo);
			if (fl->many[x] || fl->open1[x] == f || fl->open2[x] == f)
				continue;
			if (fl->open1[x] < 0)
				fl->open1[x] = f;
			else if (fl->open2[x] < 0)
				fl->open2[x] = f;
			else {
				fl->many[x] = 1;
				tl_array_push(&manys, x);
				continue;
			}
			for (uint32_t q = rfirst[x]; q < rfirst[x + 1]; q++)
				tl_array_push(&todo, radj[q]);
		}
	}
	while (manys.size) {
		int32_t x = tl_array_pop(&manys);
		for (uint32_t q = rfirst[x]; q < rfirst[x + 1]; q++) {
			int32_t y = radj[q];
			if (!fl->many[y]) {
				fl->many[y] = 1;
				tl_array_push(&manys, y);
			}
		}
	}
	tl_array_release(&manys);
	tl_flow__stores(fl, n, rfirst, radj, rkinds, &todo);
	tl_array_release(&todo);
	tl_free(rfirst);
	tl_free(radj);
	tl_free(rkinds);
	fl->built_edges = e;
	fl->built_nodes = n;
	fl->built_changes = fl->changes;
}

int tl_model_reaches_backward(const TlIndex *idx, TSNode expr, TSNode site, TlIntArray *rets, TlIntArray *backs)
{
	const TlModel *cm = tl_model_of(idx);
	expr = tl_index_unparen(expr);
	if (!cm || ts_node_is_null(expr))
		return -1;
	TlModel *m = (TlModel *)cm; /* computed on demand: no answer changes */
	tl_model__ensure_all(m);
	int32_t at;
	if (!tl_scopemap_get(&m->vals, ts_node_start_byte(expr), ts_node_end_byte(expr), &at))
		return -1;
	TlVal v = m->pool.vals.items[at];
	const uint32_t *ids;
	uint32_t k;
	if (!tl_val_flow_nodes(&m->pool, v.flow, &ids, &k))
		return 1; /* computed from more than the sets keep: it may */
	TlFlow *fl = m->flow;
	if (!fl || !k)
		return 0;
	tl_flow__build(idx, fl);
	uint8_t leads = 0;
	for (uint32_t i = 0; i < k; i++)
		if (ids[i] < fl->func.size)
			leads |= fl->leads[ids[i]];
	if (!leads)
		return 0;
	if ((leads & 1) && ts_node_is_null(site) && !backs)
		return 1;
	/* No backward: the open returns it leads to, as marked, unless it
	 * leads to many (then walked below). */
	if (!(leads & 1) && ts_node_is_null(site)) {
		bool many = false;
		for (uint32_t i = 0; i < k && !many; i++)
			many = ids[i] < fl->func.size && fl->many[ids[i]];
		if (!many) {
			for (uint32_t i = 0; i < k && rets; i++) {
				if (ids[i] >= fl->func.size)
					continue;
				int32_t two[2] = { fl->open1[ids[i]], fl->open2[ids[i]] };
				for (int j = 0; j < 2; j++) {
					bool dup = two[j] < 0;
					for (uint32_t q = 0; q < rets->size && !dup; q++)
						dup = rets->items[q] == two[j];
					if (!dup)
						tl_array_push(rets, two[j]);
				}
			}
			return 0;
		}
	}
	/* With `site` (a call of the expression's function), only what that
	 * call does with the function's return. */
	int32_t own = tl_index_func_of(idx, expr), site_node = -1;
	if (!ts_node_is_null(site) && own >= 0 &&
	    !tl_scopemap_get(&fl->ids, ((uint32_t)TL_FLOW_EXPR << 30) | ts_node_start_byte(site),
			     ts_node_end_byte(site), &site_node))
		site_node = -2; /* the call was not evaluated: it leads nowhere */
	uint32_t n = fl->func.size;
	uint8_t *seen = tl_calloc(n ? n : 1, 1);
	TlIntArray todo;
	tl_array_init(&todo);
	for (uint32_t i = 0; i < k; i++)
		if (ids[i] < n && !seen[ids[i]]) {
			seen[ids[i]] = 1;
			tl_array_push(&todo, (int32_t)ids[i]);
		}
	int yes = 0;
	while (todo.size && (!yes || backs)) {
		int32_t x = tl_array_pop(&todo);
		int32_t f = fl->func.items[x];
		if (f <= -2) {
			yes = 1;
			if (backs)
				tl_array_push(backs, -2 - f);
			continue;
		}
		bool restricted = f >= 0 && f == own && site_node != -1;
		if (f >= 0 && rets && !restricted)
			tl_array_push(rets, f);
		for (uint32_t q = fl->first[x]; q < fl->first[x + 1]; q++) {
			int32_t y = fl->adj[q];
			if ((restricted && y != site_node) || !fl->leads[y])
				continue;
			if (!seen[y]) {
				seen[y] = 1;
				tl_array_push(&todo, y);
			}
		}
	}
	tl_array_release(&todo);
	tl_free(seen);
	return yes;
}

/* Whether a call of module `idx` has a row of role `role`. */
static bool tl_flow__has_row(const TlIndex *idx, uint64_t role)
{
	for (uint32_t i = 0; role && i < idx->calls.size; i++) {
		bool method;
		const TlApiRow *row = tl_flow__row(&idx->calls.items[i], &method);
		if (row && (row->roles & role))
			return true;
	}
	return false;
}

bool tl_model_calls_store(const TlIndex *idx, unsigned what)
{
	uint64_t role = what == TL_MODEL_SAVED ? TL_APIR_SAVES : what == TL_MODEL_LOADED ? TL_APIR_LOADS_STATE : 0;
	if (tl_flow__has_row(idx, role))
		return true;
	if (what != TL_MODEL_SAVED)
		return false;
	/* A function of another module that saves what it is handed
	 * (TlFuncSum.saves) is a store too: a call by name of a module of the
	 * project that calls torch.save itself (one module away: a helper
	 * that saves through a third module's is not looked for here). */
	TlArray(const TlIndex *) asked; /* each module read once */
	tl_array_init(&asked);
	bool yes = false;
	for (uint32_t i = 0; i < idx->calls.size && !yes; i++) {
		const TlCall *c = &idx->calls.items[i];
		bool method;
		if (!c->qname || tl_flow__row(c, &method))
			continue;
		const TlIndex *mod = tl_model__module_of_name(idx, c->qname);
		if (!mod || mod == idx)
			continue;
		bool seen = false;
		for (uint32_t k = 0; k < asked.size && !seen; k++)
			seen = asked.items[k] == mod;
		if (seen)
			continue;
		tl_array_push(&asked, mod);
		tl_model__enter(idx);
		yes = tl_flow__has_row(mod, role);
		tl_model__leave(idx);
	}
	tl_array_release(&asked);
	return yes;
}

int tl_model_stored(const TlIndex *idx, TSNode expr, unsigned what, TlIntArray *calls)
{
	const TlModel *cm = tl_model_of(idx);
	expr = tl_index_unparen(expr);
	if (!cm || ts_node_is_null(expr) || (what != TL_MODEL_SAVED && what != TL_MODEL_LOADED))
		return -1;
	TlModel *m = (TlModel *)cm; /* computed on demand: no answer changes */
	tl_model__ensure_all(m);
	int32_t at;
	if (!tl_scopemap_get(&m->vals, ts_node_start_byte(expr), ts_node_end_byte(expr), &at))
		return -1;
	const uint32_t *ids;
	uint32_t k;
	TlFlow *fl = m->flow;
	/* computed from more than the sets keep: not known to be the object */
	if (!fl || !tl_val_flow_nodes(&m->pool, m->pool.vals.items[at].flow, &ids, &k) || !k)
		return 0;
	tl_flow__build(idx, fl);
	uint32_t n = fl->func.size;
	bool any = false;
	for (uint32_t i = 0; i < k && !any; i++)
		any = ids[i] < n && (fl->stores[ids[i]] & what);
	if (!any)
		return 0;
	if (!calls)
		return 1;
	/* Forwards over the edges of the kinds `what` follows, through the
	 * nodes that lead to such a store, to each store. */
	unsigned least = what == TL_MODEL_SAVED ? TL_FLOW_SAME : TL_FLOW_PARTOF;
	uint8_t *seen = tl_calloc(n ? n : 1, 1);
	TlIntArray todo;
	tl_array_init(&todo);
	for (uint32_t i = 0; i < k; i++)
		if (ids[i] < n && (fl->stores[ids[i]] & what) && !seen[ids[i]]) {
			seen[ids[i]] = 1;
			tl_array_push(&todo, (int32_t)ids[i]);
		}
	while (todo.size) {
		int32_t x = tl_array_pop(&todo);
		if ((fl->store.items[x] & 3) == (int32_t)what)
			tl_array_push(calls, fl->store.items[x] / 4);
		for (uint32_t q = fl->first[x]; q < fl->first[x + 1]; q++) {
			int32_t y = fl->adj[q];
			if (fl->kinds[q] >= least && (fl->stores[y] & what) && !seen[y]) {
				seen[y] = 1;
				tl_array_push(&todo, y);
			}
		}
	}
	tl_array_release(&todo);
	tl_free(seen);
	return 1;
}
