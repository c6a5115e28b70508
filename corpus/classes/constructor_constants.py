# What a module holds, under the constants its construction passes: a
# literal argument, or a default the call leaves, decides the tests of
# `__init__` (`if dim != codebook_dim:`, `nn.Linear(...) if proj else
# nn.Identity()`, `self.has_proj = has_proj` read later in `__init__`), and
# a submodule a class of the project builds in `__init__` is judged under
# the constants that call passes in turn. A construction whose constants
# select the parameter-free branch holds nothing that requires grad: its
# evaluation forward on an input that requires none records no graph. One
# that selects a layer with parameters, or whose test no constant decides,
# keeps the finding.
import torch
from torch import nn


class Quantizer(nn.Module):
    def __init__(self, codebook_dim, dim=None, use_proj=False):
        super().__init__()
        self.codebook_dim = codebook_dim
        if dim is not None and dim != codebook_dim:
            self.project_in = nn.Linear(dim, codebook_dim)
        else:
            self.project_in = nn.Identity()
        if use_proj:
            self.project_out = nn.Linear(codebook_dim, codebook_dim)
        else:
            self.project_out = nn.Identity()
        self.register_buffer("codes", torch.arange(codebook_dim))

    def forward(self, x):
        return self.project_out(self.project_in(x)).round()


class Scaler(nn.Module):
    def __init__(self, dim, learnable=False):
        super().__init__()
        self.learnable = learnable
        self.scale = nn.Linear(dim, dim) if learnable else nn.Identity()
        self.act = nn.ReLU()
        if self.learnable:
            self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x):
        return self.act(self.scale(x))


class Stack(nn.Module):
    def __init__(self, dim, mode="fixed"):
        super().__init__()
        self.inner = Scaler(dim, learnable=mode == "learned")
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        return self.drop(self.inner(x))


def test_defaults_select_identity():
    q = Quantizer(4)
    q.eval()
    x = torch.randn(2, 4)
    # ok: TL102
    y = q(x)
    assert y.shape == x.shape


def test_equal_dim_selects_identity():
    q = Quantizer(4, dim=4)
    q.eval()
    x = torch.randn(2, 4)
    # ok: TL102
    assert q(x).shape == (2, 4)


def test_other_dim_selects_linear():
    q = Quantizer(4, dim=8)
    q.eval()
    x = torch.randn(2, 8)
    # expect: TL102
    assert q(x).shape == (2, 4)


def test_flag_selects_linear():
    q = Quantizer(4, use_proj=True)
    q.eval()
    x = torch.randn(2, 4)
    # expect: TL102
    assert q(x).shape == (2, 4)


def test_conditional_expression_identity():
    s = Scaler(8)
    s.eval()
    x = torch.randn(3, 8)
    # ok: TL102
    assert s(x).shape == (3, 8)


def test_conditional_expression_linear():
    s = Scaler(8, learnable=True)
    s.eval()
    x = torch.randn(3, 8)
    # expect: TL102
    assert s(x).shape == (3, 8)


def test_submodule_under_its_own_constants():
    net = Stack(8)
    net.eval()
    x = torch.randn(3, 8)
    # ok: TL102
    assert net(x).shape == (3, 8)


def test_submodule_selects_parameters():
    net = Stack(8, mode="learned")
    net.eval()
    x = torch.randn(3, 8)
    # expect: TL102
    assert net(x).shape == (3, 8)


def test_flag_not_known(flag):
    s = Scaler(8, learnable=flag)
    s.eval()
    x = torch.randn(3, 8)
    # expect: TL102
    assert s(x).shape == (3, 8)
