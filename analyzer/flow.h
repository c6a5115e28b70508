/* Semantic questions about values, answered from the index: is this an
 * optimizer, a module, a graph tensor; which contexts does a node run
 * under; does a value reach a backward. These are the facts that the query
 * predicates (predicates.c) expose to rules.
 *
 * Every question that follows bindings or calls does so a bounded number of
 * steps (TL_FLOW_DEPTH): enough for real code, and a guarantee that no input
 * makes the analysis recurse deeply. */
#ifndef TL_FLOW_H
#define TL_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include <tree_sitter/api.h>

#include "index.h"

#define TL_FLOW_DEPTH 16

enum { TL_GRAD_UNKNOWN = 0, TL_GRAD_OFF = 1, TL_GRAD_ON = 2 };
enum { TL_MODE_UNKNOWN = 0, TL_MODE_EVAL = 1, TL_MODE_TRAIN = 2 };

/* True for a dotted base-class name that makes a class an nn.Module. */
bool tl_flow_is_module_class_name(const char *qname);
/* The TL_EV_* bits of one call. Used while the index is built. */
uint32_t tl_flow_call_events(const TlIndex *idx, const TlCall *c);
/* The TL_CTX_* bits that a `with` item value or a decorator opens. */
uint32_t tl_flow_context_kind(const TlIndex *idx, TSNode expr);

/* Grad mode of `node` from its own function only: enclosing with blocks
 * (`with` = innermost with index), earlier `torch.set_grad_enabled(...)`
 * statements, the function's decorators. TL_GRAD_UNKNOWN if none says. */
int tl_flow_local_grad(const TlIndex *idx, TSNode node, int32_t func, int32_t with);
/* Same, and when the function says nothing, its call sites (principle 2). */
int tl_flow_grad_state(const TlIndex *idx, TSNode node);
/* True when `node` runs under a context of kind `ctx` (TL_CTX_GRAD_OFF or
 * TL_CTX_AUTOCAST): an enclosing with block, a decorator, or every call
 * site of its function. */
bool tl_flow_under(const TlIndex *idx, TSNode node, uint32_t ctx);

bool tl_flow_is_optimizer(const TlIndex *idx, TSNode expr);
bool tl_flow_is_scaler(const TlIndex *idx, TSNode expr);
bool tl_flow_is_module(const TlIndex *idx, TSNode expr);
bool tl_flow_is_loss_call(const TlIndex *idx, const TlCall *c);
bool tl_flow_is_forward(const TlIndex *idx, const TlCall *c);
/* A value that carries autograd history (RULES.md, "graph tensor"). */
bool tl_flow_is_graph(const TlIndex *idx, TSNode expr);

/* The train/eval mode of the module named `recv` ("model", "self.net") at
 * `node`: the last `.eval()` / `.train()` on it before `node` in the same
 * function, else what every call site of the function says. */
int tl_flow_mode_at(const TlIndex *idx, TSNode node, const char *recv);

/* True when the value of `expr` (a name, or the result of the expression
 * whose assignment contains it) may flow into a backward: in its function,
 * through local functions it is passed to, or by being returned to callers
 * that backpropagate it or that the file does not show (precision first:
 * an unknown caller may). */
bool tl_flow_reaches_backward(const TlIndex *idx, TSNode expr);

/* True when `expr` reads a module forward's output that was bound inside a
 * `with` block of kind `ctx` (TL_CTX_*) which does not enclose `expr`. */
bool tl_flow_from_context(const TlIndex *idx, TSNode expr, uint32_t ctx);

/* The dotted name a store writes through: `history["loss"]` -> "history",
 * `self.losses` -> "self.losses". Caller frees; NULL if none. */
char *tl_flow_root_name(const TlIndex *idx, TSNode expr);
/* True when the root name of `expr` is not re-bound inside the innermost
 * loop that encloses it (other than by the statement containing `expr` or
 * by augmented assignment): the value survives from one iteration to the
 * next. False outside loops. */
bool tl_flow_outlives_iteration(const TlIndex *idx, TSNode expr);

/* The step loops of `node`: the innermost loop of its function whose
 * iteration runs a backward, or, when there is none, the step loops of its
 * function's call sites. Returns how many were found, and in *missing how
 * many of them lack every bit of `events` in their iteration. */
uint32_t tl_flow_step_loops(const TlIndex *idx, TSNode node, uint32_t events,
			    uint32_t *missing);

#endif
