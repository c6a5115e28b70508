"""TL102 eval-without-no-grad: forwards in lambdas handed to callees the API
table says run them in the caller's grad mode and module modes.

A lambda handed to an unknown function runs where that function runs it (a
library may run it under no_grad): not this scope's question. Python's
`sorted`, `min`, `max` (key=) and `functools.reduce` call it before they
return (role runs-callable); `map`, `filter`, `itertools.starmap` and MONAI's
`TestTimeAugmentation` return an object that calls it when iterated or called
(role defers-callable): the lambda runs where it is handed when that object is
consumed there, or bound to a name whose every use runs in the same grad mode.
"""
import functools
import itertools

import torch
from torch import nn
from monai.data import TestTimeAugmentation


def make_eval_model(device):
    return nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1)).to(device).eval()


# Flagged: the builtins run the lambda here, with gradients on.
def scores_by_map(xs):
    model = make_eval_model("cpu")
    # expect: TL102
    return [y.sum().item() for y in list(map(lambda x: model(x), xs))]


def ranked_by_score(xs):
    model = make_eval_model("cpu")
    # expect: TL102
    return sorted(xs, key=lambda x: model(x).sum().item())


def best_input(xs):
    model = make_eval_model("cpu")
    # expect: TL102
    return max(xs, key=lambda x: model(x).sum().item())


def total_score(xs):
    model = make_eval_model("cpu")
    # expect: TL102
    return functools.reduce(lambda acc, x: acc + model(x).sum().item(), xs, 0.0)


def pair_scores(pairs):
    model = make_eval_model("cpu")
    out = []
    # expect: TL102
    for y in itertools.starmap(lambda a, b: model(a + b), pairs):
        out.append(y.sum().item())
    return out


# Flagged: the object TestTimeAugmentation builds runs its inferrer_fn when
# it is called, here, with gradients on.
def tta_outputs(transforms, files):
    model = make_eval_model("cpu")
    tta = TestTimeAugmentation(
        # expect: TL102
        transforms, batch_size=5, inferrer_fn=lambda x: torch.sigmoid(model(x))
    )
    return [tta(f) for f in files]


# Not: a lambda handed to a function nothing says of (the existing
# calibrate_with_lambda of TL102-eval-without-no-grad.py is another).
def probed(xs, probe):
    model = make_eval_model("cpu")
    # ok: TL102
    return probe(lambda x: model(x), xs)


# Not: map under torch.no_grad().
def scores_by_map_no_grad(xs):
    model = make_eval_model("cpu")
    with torch.no_grad():
        # ok: TL102
        return [y.sum().item() for y in map(lambda x: model(x), xs)]


# Not: the object is used under torch.no_grad() (the lambda runs there).
def tta_outputs_no_grad(transforms, files):
    model = make_eval_model("cpu")
    # ok: TL102
    tta = TestTimeAugmentation(transforms, batch_size=5, inferrer_fn=lambda x: torch.sigmoid(model(x)))
    with torch.no_grad():
        return [tta(f) for f in files]


def scores_bound_then_no_grad(xs):
    model = make_eval_model("cpu")
    # ok: TL102
    outputs = map(lambda x: model(x), xs)
    with torch.no_grad():
        return [y.sum().item() for y in list(outputs)]


# Not: the map object is returned, consumed where the caller consumes it.
def lazy_outputs(xs):
    model = make_eval_model("cpu")
    # ok: TL102
    return map(lambda x: model(x), xs)


# Not: sorted runs the lambda inside another lambda handed to a function
# nothing says of.
def ranked_later(xs, schedule):
    model = make_eval_model("cpu")
    # ok: TL102
    return schedule(lambda: sorted(xs, key=lambda x: model(x).sum().item()))


# Not: a local function named like a builtin is no builtin.
def scores_by_own_map(xs):
    model = make_eval_model("cpu")

    def map(fn, xs):
        with torch.no_grad():
            return [fn(x) for x in xs]

    # ok: TL102
    return [y.sum().item() for y in map(lambda x: model(x), xs)]
