"""Valid Python that the pinned tree-sitter-python grammar (0.25.0) cannot
parse. torchlint reports TL000 there although CPython accepts the code;
the findings are known false positives kept visible until the grammar
handles them.
"""
import torch


def split_endpoint(endpoint):
    if endpoint[0] == "[":
        # A starred element on both sides of an unparenthesised assignment.
        # todo-ok: TL000
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
