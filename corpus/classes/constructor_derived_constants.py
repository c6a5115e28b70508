# A construction's constants carried further through `__init__`: a local
# computed from them (`width = len(bins)`, the length of a list display the
# call passes), a small helper function of the module applied to them (one
# `return` of a test on its parameters, or the first of its `*args` a test
# selects), and attributes stored before a `self.register_buffer(...)` that
# names another attribute. When they decide that the projections are
# `nn.Identity()`, the quantizer holds only buffers: its evaluation forward,
# and a method of it run on what that forward returned, record no graph.
# When they select `nn.Linear`, or a helper the model does not read decides,
# the findings stay.
import torch
from torch import nn


def is_set(v):
    return v is not None


def fallback(v, d):
    return v if is_set(v) else d


def first_given(*vals):
    for v in vals:
        if v is not None:
            return v
    return None


def pick(v, d):
    if v is None:
        v = d
    return v


class Binner(nn.Module):
    def __init__(self, bins, dim=None):
        super().__init__()
        width = len(bins)
        self.width = width
        self.dim = first_given(dim, self.width)
        self.register_buffer("edges", torch.tensor(bins, dtype=torch.float32))
        self.projects = self.dim != self.width
        if self.projects:
            self.inp = nn.Linear(self.dim, self.width)
            self.out = nn.Linear(self.width, self.dim)
        else:
            self.inp = nn.Identity()
            self.out = nn.Identity()

    def decode(self, ids):
        return self.out(self.edges[ids])

    def forward(self, x):
        h = self.inp(x)
        ids = torch.bucketize(h, self.edges)
        return self.decode(ids), ids


class Rounder(nn.Module):
    def __init__(self, width, dim=None, use_pick=False):
        super().__init__()
        self.width = width
        self.dim = pick(dim, width) if use_pick else fallback(dim, width)
        if self.dim != self.width:
            self.inp = nn.Linear(self.dim, self.width)
        else:
            self.inp = nn.Identity()
        self.register_buffer("step", torch.tensor(0.5))

    def forward(self, x):
        return torch.round(self.inp(x) / self.step)


def check_length_selects_identity():
    b = Binner([0.1, 0.5, 0.9])
    b.eval()
    x = torch.rand(4, 3)
    # ok: TL102
    out, ids = b(x)
    # ok: TL102
    again = b.decode(ids)
    return out, again


def check_equal_dim_selects_identity():
    b = Binner([0.1, 0.5, 0.9], dim=3)
    b.eval()
    x = torch.rand(4, 3)
    # ok: TL102
    out, ids = b(x)
    return out, ids


def check_other_dim_selects_linear():
    b = Binner([0.1, 0.5, 0.9], dim=8)
    b.eval()
    x = torch.rand(4, 8)
    # expect: TL102
    out, ids = b(x)
    # expect: TL102
    again = b.decode(ids)
    return out, again


def check_helper_of_one_return():
    r = Rounder(4)
    r.eval()
    x = torch.rand(2, 4)
    # ok: TL102
    return r(x)


def check_helper_selects_linear():
    r = Rounder(4, dim=6)
    r.eval()
    x = torch.rand(2, 6)
    # expect: TL102
    return r(x)


def check_helper_not_read():
    # `pick` rebinds its parameter before it returns: not read, so the
    # projection may be a linear layer
    r = Rounder(4, use_pick=True)
    r.eval()
    x = torch.rand(2, 4)
    # expect: TL102
    return r(x)
