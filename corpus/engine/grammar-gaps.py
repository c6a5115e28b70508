"""Valid Python that the pinned tree-sitter-python grammar (0.25.0) cannot
parse. torchlint recognises each construct and reports no TL000 there
although the statement stays unparsed; a known gap it does not recognise
would be kept here as a todo-ok.
"""
import torch


def split_endpoint(endpoint):
    if endpoint[0] == "[":
        # A starred element on both sides of an unparenthesised assignment.
        # ok: TL000
        host, *rest = endpoint, *[]
    else:
        host, *rest = endpoint.rsplit(":", 1)
    return host, rest


# PEP 696 type-parameter defaults (Python 3.13): the grammar cannot parse
# the `= default`, but torchlint recognises the construct and reports
# nothing there (issue 26); the code around it is analysed as usual.
# ok: TL000
def first[T = int](items: list[T]) -> T:
    return items[0]


# ok: TL000
class Batch[T = float, *Ts = *tuple[int], **P = [int]]:
    pass


# ok: TL000
type Pair[T = int] = tuple[T, T]


# ok: TL000
def train[M = object](model, loader, opt, crit):
    total = 0
    for x, y in loader:
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        # expect: TL101
        total += loss
    return total


# A starred bracketed operand in a tuple without parentheses: the grammar
# takes a starred name or call there, not `*(...)` nor `*[...]`.
def layer_index(name, parts, count):
    # ok: TL000
    return name, *(int(p) for p in parts[:count])


def broadcast_shape(x):
    # ok: TL000
    view = *((1,) * (x.ndim - 3)), -1, 1, 1
    return x.view(view)
