"""TL217 softmax-implicit-dim: fixtures.

An `expect` annotation sits before a softmax whose dimension PyTorch picks
from the input's rank (dim 0 for 0-, 1- and 3-D input, dim 1 otherwise):
`F.softmax(x)`, `F.log_softmax(x)`, `F.softmin(x)`, `nn.Softmax()`,
`nn.LogSoftmax()`, `nn.Softmin()`, through any import alias. An `ok`
annotation sits before softmaxes that name their dimension (by keyword, by
position, through `*args` / `**kwargs` that may hold it) and the forms that
require one (`torch.softmax(x, d)`, `x.softmax(d)`), `nn.Softmax2d`,
softmax functions of other libraries, and `F.softmax` of a numpy array
(which raises before any dimension is picked).
"""
import numpy as np
import scipy.special
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import nn as tnn
from torch.nn import LogSoftmax
from torch.nn.functional import log_softmax as lsm


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


class SequenceTagger(nn.Module):
    """(batch, time, classes) scores: the implicit dim is 0, the batch."""

    def __init__(self, vocab, tags):
        super().__init__()
        self.embed = nn.Embedding(vocab, 64)
        self.rnn = nn.LSTM(64, 64, batch_first=True)
        self.proj = nn.Linear(64, tags)
        # expect: TL217
        self.norm = nn.LogSoftmax()

    def forward(self, tokens):
        h, _ = self.rnn(self.embed(tokens))
        return self.norm(self.proj(h))


class Classifier(tnn.Module):
    def __init__(self):
        super().__init__()
        self.net = tnn.Sequential(
            tnn.Linear(784, 128),
            tnn.ReLU(),
            tnn.Linear(128, 10),
            # expect: TL217
            tnn.Softmax(),
        )

    def forward(self, x):
        return self.net(x)


def attention(q, k, v):
    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5
    # expect: TL217
    weights = F.softmax(scores)
    return weights @ v


def nll_of_batch(model, x, y):
    logits = model(x)
    # expect: TL217
    return F.nll_loss(lsm(logits), y)


def temperature_probs(logits, temperature=2.0):
    # expect: TL217
    return torch.nn.functional.softmax(logits / temperature)


def min_weighting(distances):
    # expect: TL217
    return F.softmin(distances)


def build_head(hidden, classes):
    # expect: TL217
    return nn.Sequential(nn.Linear(hidden, classes), LogSoftmax())


class Policy(nn.Module):
    def __init__(self, obs, actions):
        super().__init__()
        self.body = nn.Linear(obs, actions)

    def act(self, obs):
        # expect: TL217
        probs = F.softmax(self.body(obs)).detach()
        return torch.multinomial(probs, 1)


def segmentation_loss(logits, target):
    # (N, C, H, W): the implicit dim is 1 here, but only the rank says so
    # expect: TL217
    return F.nll_loss(F.log_softmax(logits), target)


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


class ExplicitHead(nn.Module):
    def __init__(self, hidden, classes):
        super().__init__()
        self.proj = nn.Linear(hidden, classes)
        # ok: TL217
        self.norm = nn.LogSoftmax(dim=-1)
        # ok: TL217
        self.probs = nn.Softmax(1)

    def forward(self, x):
        return self.norm(self.proj(x))


def attention_explicit(q, k, v):
    scores = q @ k.transpose(-2, -1)
    # ok: TL217
    weights = F.softmax(scores, -1)
    return weights @ v


def probabilities(logits):
    # the dimension is required here: these never use the implicit rule
    # ok: TL217
    a = torch.softmax(logits, 1)
    # ok: TL217
    b = logits.softmax(-1)
    # ok: TL217
    c = logits.log_softmax(dim=-1)
    return a, b, c


def spatial(features):
    # Softmax2d normalises over the channels of a 4-D input: it has no dim
    # ok: TL217
    return nn.Softmax2d()(features)


def forwarded(x, *args, **kwargs):
    # the caller's arguments may carry the dim
    # ok: TL217
    a = F.softmax(x, *args)
    # ok: TL217
    b = F.log_softmax(x, **kwargs)
    return a, b


def keyword_first(logits, dtype):
    # ok: TL217
    return F.softmax(input=logits, dim=1, dtype=dtype)


def other_libraries(scores):
    # scipy's and numpy-based softmaxes are not PyTorch's
    # ok: TL217
    a = scipy.special.softmax(scores)
    # ok: TL217
    b = np.exp(scores) / np.exp(scores).sum()
    return a, b


def own_softmax(x):
    return torch.exp(x) / torch.exp(x).sum(-1, keepdim=True)


def uses_own(x):
    # a local function that happens to be called softmax
    # ok: TL217
    return own_softmax(x)


def softmax(x):
    return x.exp() / x.exp().sum(-1, keepdim=True)


def calls_local_name(x):
    # ok: TL217
    return softmax(x)


def class_reference(make_head):
    # the class itself, passed along: not a construction
    # ok: TL217
    return make_head(activation=nn.Softmax)


def scores_of_array(model, batch):
    # the argument is a host array: F.softmax raises on it before a dim is
    # picked (a different defect, not this one)
    with torch.no_grad():
        # ok: TL217
        return F.softmax(model(batch).data.cpu().numpy())


def scores_of_named_array(model, batch):
    with torch.no_grad():
        host = model(batch).cpu().numpy()
        # ok: TL217
        return F.softmax(host)


def scores_maybe_array(model, batch, to_host):
    # a tensor on one path, an array on the other: the tensor path matters
    out = model(batch)
    if to_host:
        out = out.detach().numpy()
    # expect: TL217
    return F.softmax(out)
