/* When a module's functions are interpreted (model_internal.h): the call
 * graph of its functions and classes, its strongly connected components
 * (Tarjan's algorithm with an explicit stack) callees first and the graph
 * of the components; the passes, each component interpreted to a fixpoint
 * callees first, then the module's own code; and what a question needs
 * interpreted, on demand (tl_model__ensure), or all of it.
 *
 * Owns: tl_model__order, tl_model__run, tl_model__globals_ready,
 * tl_model__ensure, tl_model__ensure_all. */
#include "model/model_internal.h"

#include <string.h>

#include "base/alloc.h"

/* Times a question's components run again for functions reached only
 * through values (the call graph of the index does not show them). */
#define TL_MODEL_DEMAND_ROUNDS 4

/* The call graph's nodes: the module's functions (0 .. funcs - 1), then
 * one node per class (funcs + class): a method reads its class's
 * attributes, which the methods that store into `self` write, so a method
 * leads to its class's node and the class's node to those methods (edges
 * linear in the code, not one per pair of methods). */
static bool tl_model__stores_self(const TlIndex *idx, int32_t f)
{
	uint32_t scope = (uint32_t)(f + 1);
	const TlIntArray *bs = scope < idx->scope_binds.size ? &idx->scope_binds.items[scope] : NULL;
	for (uint32_t i = 0; bs && i < bs->size; i++) {
		const TlBinding *b = &idx->bindings.items[bs->items[i]];
		if (b->cls >= 0 && !b->class_body && b->name && strncmp(b->name, "self.", 5) == 0)
			return true;
	}
	return false;
}

/* Appends the nodes node `v` leads to: for a function, the functions it
 * may call (local targets, closures handed to a step, the methods of a
 * class it instantiates: its class node) and, for a method, its class's
 * node; for a class node, its methods that store into `self`. */
static void tl_model__callees(const TlIndex *idx, int32_t v, TlIntArray *out)
{
	tl_array_clear(out);
	int32_t nf = (int32_t)idx->funcs.size;
	if (v >= nf) {
		int32_t cls = v - nf;
		for (int32_t k = 0; k < nf; k++)
			if (idx->funcs.items[k].cls == cls && tl_model__stores_self(idx, k))
				tl_array_push(out, k);
		return;
	}
	uint32_t scope = (uint32_t)(v + 1);
	const TlIntArray *calls = scope < idx->scope_calls.size ? &idx->scope_calls.items[scope] : NULL;
	for (uint32_t i = 0; calls && i < calls->size; i++) {
		const TlCall *c = &idx->calls.items[calls->items[i]];
		if (c->target >= 0)
			tl_array_push(out, c->target);
		if (c->arg_target >= 0)
			tl_array_push(out, c->arg_target);
		if (!c->receiver.id && c->method) {
			const TlIntArray *bs = tl_index_bindings_of(idx, -1, c->method);
			if (bs && bs->size) {
				const TlBinding *b = &idx->bindings.items[bs->items[bs->size - 1]];
				if (b->kind == TL_BIND_CLASS && b->ref >= 0)
					tl_array_push(out, nf + b->ref);
			}
		}
	}
	if (v >= 0 && idx->funcs.items[v].cls >= 0)
		tl_array_push(out, nf + idx->funcs.items[v].cls);
}

typedef struct TlTarjan {
	int32_t node;
	uint32_t next; /* the next callee to visit */
} TlTarjanFrame;

/* The components of the module's call graph in the order Tarjan's
 * algorithm finds them (callees first): comp[i] is the component of
 * function i, order lists functions component by component, starts[c]
 * where component c begins in order. */
static void tl_model__components(const TlIndex *idx, TlIntArray *order, TlIntArray *starts)
{
	uint32_t n = idx->funcs.size + idx->classes.size;
	int32_t *index = tl_malloc((n + 1) * sizeof *index);
	int32_t *low = tl_malloc((n + 1) * sizeof *low);
	bool *on = tl_calloc(n + 1, sizeof *on);
	TlIntLists edges;
	tl_array_init(&edges);
	tl_array_reserve(&edges, n);
	for (uint32_t i = 0; i < n; i++) {
		TlIntArray e;
		tl_array_init(&e);
		tl_model__callees(idx, (int32_t)i, &e);
		edges.items[i] = e;
	}
	edges.size = n;
	for (uint32_t i = 0; i < n; i++)
		index[i] = -1;
	TlIntArray stack;
	tl_array_init(&stack);
	TlArray(TlTarjanFrame) dfs;
	tl_array_init(&dfs);
	int32_t counter = 0;
	for (uint32_t s = 0; s < n; s++) {
		if (index[s] >= 0)
			continue;
		TlTarjanFrame f0 = { (int32_t)s, 0 };
		tl_array_push(&dfs, f0);
		index[s] = low[s] = counter++;
		tl_array_push(&stack, (int32_t)s);
		on[s] = true;
		while (dfs.size) {
			TlTarjanFrame *f = tl_array_last(&dfs);
			int32_t v = f->node;
			const TlIntArray *e = &edges.items[v];
			if (f->next < e->size) {
				int32_t w = e->items[f->next++];
				if (w < 0 || (uint32_t)w >= n)
					continue;
				if (index[w] < 0) {
					index[w] = low[w] = counter++;
					tl_array_push(&stack, w);
					on[w] = true;
					TlTarjanFrame fw = { w, 0 };
					tl_array_push(&dfs, fw);
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			/* v is done */
			dfs.size--;
			if (dfs.size) {
				int32_t u = tl_array_last(&dfs)->node;
				if (low[v] < low[u])
					low[u] = low[v];
			}
			if (low[v] == index[v]) {
				tl_array_push(starts, (int32_t)order->size);
				int32_t w;
				do {
					w = tl_array_pop(&stack);
					on[w] = false;
					tl_array_push(order, w);
				} while (w != v);
			}
		}
	}
	for (uint32_t i = 0; i < n; i++)
		tl_array_release(&edges.items[i]);
	tl_array_release(&edges);
	tl_array_release(&stack);
	tl_array_release(&dfs);
	tl_free(index);
	tl_free(low);
	tl_free(on);
}


/* The module's code ran: its globals are what a function reads of them
 * from now on (deps.c: those that read them before run again). */
void tl_model__globals_ready(TlModel *m)
{
	if (!m->globals_ready)
		m->globals_at = m->clock;
	m->globals_ready = true;
}

/* Passes over the whole module: its code, then every component callees
 * first; another pass when a summary, an attribute or a global rose. */
#define TL_MODEL_PASSES 3

/* The components of the call graph as a graph of their own: comp_of[node]
 * and, per component, the components its nodes lead to. */
static void tl_model__component_graph(TlModel *m)
{
	const TlIndex *idx = m->idx;
	uint32_t nodes = idx->funcs.size + idx->classes.size, nc = m->starts.size;
	m->comp_of = tl_malloc((nodes ? nodes : 1) * sizeof *m->comp_of);
	m->comp_done = tl_calloc(nc ? nc : 1, 1);
	tl_array_init(&m->comp_edges);
	tl_array_reserve(&m->comp_edges, nc);
	tl_array_init(&m->comp_from);
	tl_array_reserve(&m->comp_from, nc);
	for (uint32_t c = 0; c < nc; c++) {
		uint32_t from = (uint32_t)m->starts.items[c];
		uint32_t to = c + 1 < nc ? (uint32_t)m->starts.items[c + 1] : m->order.size;
		for (uint32_t k = from; k < to; k++)
			m->comp_of[m->order.items[k]] = (int32_t)c;
		TlIntArray e;
		tl_array_init(&e);
		m->comp_edges.items[c] = e;
		m->comp_from.items[c] = e;
	}
	m->comp_edges.size = nc;
	m->comp_from.size = nc;
	TlIntArray out;
	tl_array_init(&out);
	for (uint32_t v = 0; v < nodes; v++) {
		tl_model__callees(idx, (int32_t)v, &out);
		for (uint32_t i = 0; i < out.size; i++) {
			int32_t w = out.items[i];
			if (w < 0 || (uint32_t)w >= nodes || m->comp_of[w] == m->comp_of[v])
				continue;
			tl_array_push(&m->comp_edges.items[m->comp_of[v]], m->comp_of[w]);
			tl_array_push(&m->comp_from.items[m->comp_of[w]], m->comp_of[v]);
		}
	}
	tl_array_release(&out);
}

void tl_model__order(TlModel *m)
{
	tl_model__components(m->idx, &m->order, &m->starts);
	tl_model__component_graph(m);
}

/* Interprets the components marked in `want` (every one when NULL),
 * callees first, each to a fixpoint; then, with `module_code`, the
 * module's own code; again while an interpretation read a value not
 * computed yet and something rose (at most TL_MODEL_PASSES times). */
void tl_model__run(TlModel *m, const uint8_t *want, bool module_code)
{
	const TlIndex *idx = m->idx;
	tl_model__nesting++;
	for (uint32_t pass = 0; pass < TL_MODEL_PASSES && !m->cut; pass++) {
		m->changed = false;
		m->epoch++;
		bool pass_pending = false;
		for (uint32_t c = 0; c < m->starts.size && !m->cut; c++) {
			if (want && !want[c])
				continue;
			uint32_t from = (uint32_t)m->starts.items[c];
			uint32_t to = c + 1 < m->starts.size ? (uint32_t)m->starts.items[c + 1] : m->order.size;
			for (uint32_t round = 0; round < TL_MODEL_COMPONENT_ROUNDS && !m->cut; round++) {
				bool before = m->changed;
				m->changed = false;
				m->pending = false;
				for (uint32_t k = from; k < to && !m->cut; k++) {
					int32_t f = m->order.items[k];
					if ((uint32_t)f >= idx->funcs.size)
						continue; /* a class's node */
					/* Only when something it read changed (deps.c). */
					if (tl_model__dep_clean(m, f))
						tl_model__dep_skip(m, f);
					else
						tl_model__interpret(m, f);
				}
				bool rose = m->changed;
				m->changed = before || rose;
				pass_pending = pass_pending || m->pending;
				/* Another round only when something rose and something read
				 * was not computed yet (a function that calls nothing of its
				 * own component is done in one round). */
				if (!rose || !m->pending)
					break;
				if (round + 1 == TL_MODEL_COMPONENT_ROUNDS) {
					for (uint32_t k = from; k < to; k++) {
						if ((uint32_t)m->order.items[k] >= idx->funcs.size)
							continue;
						TlFuncSum *s = &m->funcs.items[m->order.items[k]];
						s->ret = tl_val_top();
						s->changed_at = m->clock;
					}
					m->stats.widened++;
				}
			}
		}
		/* Another module's model: again only where a function read a
		 * summary not computed yet (a method of a class defined further
		 * down, called through an instance the call graph does not
		 * see) and something rose. */
		if (m->quiet) {
			if (!m->changed || !pass_pending)
				break;
			continue;
		}
		/* The module's own code, last: its globals are what the next
		 * pass's functions read. */
		if (module_code) {
			m->pending = false;
			tl_model__interpret(m, -1);
			pass_pending = pass_pending || m->pending;
			tl_model__globals_ready(m);
		}
		if (!m->changed || !pass_pending)
			break;
	}
	if (module_code)
		tl_model__topdown(m);
	tl_model__nesting--;
}

/* Marks in `want` the components that are not done and connected to
 * component `c` through not-done components, both ways (an explicit
 * stack): the components it leads to, for their summaries, and those
 * that lead to it, for their entry contexts (context.c: a function's
 * parameters take a context only once every call site was interpreted).
 * Those callers' contexts come from their own callers, and their calls
 * reach more functions whose other callers count too: what one question
 * interprets is closed under both, so a component is done only when
 * everything its answers depend on ran with it, and the answers are the
 * same whatever was asked first. */
static void tl_model__reach(const TlModel *m, int32_t c, uint8_t *want, TlIntArray *stack)
{
	tl_array_clear(stack);
	if (c < 0 || want[c] || m->comp_done[c])
		return;
	want[c] = 1;
	tl_array_push(stack, c);
	while (stack->size) {
		int32_t x = tl_array_pop(stack);
		for (int way = 0; way < 2; way++) {
			const TlIntArray *e = way ? &m->comp_from.items[x] : &m->comp_edges.items[x];
			for (uint32_t i = 0; i < e->size; i++) {
				int32_t y = e->items[i];
				if (!want[y] && !m->comp_done[y]) {
					want[y] = 1;
					tl_array_push(stack, y);
				}
			}
		}
	}
}

/* Interprets what a question about function `func` (-1: the module's own
 * code) needs, once: the module's code and the components connected to it
 * the first time, then the components connected to `func`
 * (tl_model__reach). A summary read of a function none of them reached (a
 * call through a value: `model(x)` of a class made elsewhere) asks for
 * that function's component too, and the components that read it run
 * again, a bounded number of times. */
void tl_model__ensure(TlModel *m, int32_t func)
{
	if (m->quiet || m->running)
		return;
	const TlIndex *idx = m->idx;
	uint32_t nc = m->starts.size;
	bool module_code = !m->module_done;
	if (!module_code && (func < 0 || m->comp_done[m->comp_of[func]]))
		return;
	m->running = true;
	uint8_t *want = tl_calloc(nc ? nc : 1, 1);
	TlIntArray stack, seeds;
	tl_array_init(&stack);
	tl_array_init(&seeds);
	if (module_code) {
		TlIntArray out;
		tl_array_init(&out);
		tl_model__callees(idx, -1, &out);
		for (uint32_t i = 0; i < out.size; i++)
			if (out.items[i] >= 0 && (uint32_t)out.items[i] < idx->funcs.size + idx->classes.size)
				tl_array_push(&seeds, m->comp_of[out.items[i]]);
		tl_array_release(&out);
	}
	if (func >= 0)
		tl_array_push(&seeds, m->comp_of[func]); /* and its callers: tl_model__reach */
	for (uint32_t round = 0; round < TL_MODEL_DEMAND_ROUNDS && !m->cut; round++) {
		for (uint32_t i = 0; i < seeds.size; i++)
			tl_model__reach(m, seeds.items[i], want, &stack);
		tl_array_clear(&m->requested);
		tl_model__run(m, want, module_code);
		if (!m->requested.size)
			break;
		/* Functions asked for that none of these reached: theirs, then
		 * these again. */
		bool more = false;
		for (uint32_t i = 0; i < m->requested.size; i++) {
			int32_t c = m->comp_of[m->requested.items[i]];
			if (!want[c]) {
				tl_array_push(&seeds, c);
				more = true;
			}
		}
		if (!more)
			break;
	}
	tl_model__grad_phase(m, want, module_code); /* entry modes, top-down */
	for (uint32_t c = 0; c < nc; c++)
		if (want[c])
			m->comp_done[c] = 1;
	m->module_done = true;
	tl_model__globals_ready(m);
	tl_free(want);
	tl_array_release(&stack);
	tl_array_release(&seeds);
	m->running = false;
}

void tl_model__ensure_all(TlModel *m)
{
	if (m->quiet || m->running)
		return;
	uint32_t nc = m->starts.size;
	uint8_t *want = tl_calloc(nc ? nc : 1, 1);
	bool any = false;
	for (uint32_t c = 0; c < nc; c++)
		any |= (want[c] = !m->comp_done[c]) != 0;
	if (any || !m->module_done) {
		m->running = true;
		tl_model__run(m, want, !m->module_done);
		tl_model__grad_phase(m, want, !m->module_done); /* entry modes, top-down */
		memset(m->comp_done, 1, nc);
		m->module_done = true;
		tl_model__globals_ready(m);
		m->running = false;
	}
	tl_free(want);
}
