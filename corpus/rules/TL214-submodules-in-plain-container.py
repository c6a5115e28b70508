"""TL214 submodules-in-plain-container: fixtures.

An `expect` annotation sits before an assignment to `self.<name>`, in a
method of an nn.Module subclass, of a plain list, tuple or dict that holds
layers built there (torch.nn layers with weights or buffers, local module
classes) or nn.Parameters: a literal, a comprehension, list()/dict() of
one, or an empty one filled with append / [k] =, also through a local
list. An `ok` annotation sits before containers that are registered
(nn.ModuleList / ModuleDict / Sequential, wrapped later, add_module or
setattr), lists of modules registered elsewhere (aliases, a local list also
handed to nn.Sequential), lists of values that are not modules, lists of
stateless layers (activations, pooling) or of classes of the project that
hold only such layers and numbers, and plain classes.
"""
import pytorch_lightning as pl
import torch
import torch.nn as nn
from torch import nn as tnn


class ResidualBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc1 = nn.Linear(dim, dim)
        self.fc2 = nn.Linear(dim, dim)

    def forward(self, x):
        return x + self.fc2(torch.relu(self.fc1(x)))


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


class DeepMLP(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        # expect: TL214
        self.hidden = [nn.Linear(dim, dim) for _ in range(depth)]
        self.out = nn.Linear(dim, 1)

    def forward(self, x):
        for layer in self.hidden:
            x = torch.relu(layer(x))
        return self.out(x)


class ResNetLike(nn.Module):
    def __init__(self, dim):
        super().__init__()
        # expect: TL214
        self.blocks = [ResidualBlock(dim), ResidualBlock(dim), ResidualBlock(dim)]

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class MultiTaskHeads(tnn.Module):
    def __init__(self, dim, tasks):
        super().__init__()
        self.backbone = tnn.Linear(dim, dim)
        # expect: TL214
        self.heads = {"age": tnn.Linear(dim, 1), "gender": tnn.Linear(dim, 2)}
        # expect: TL214
        self.extra = {name: tnn.Linear(dim, n) for name, n in tasks.items()}

    def forward(self, x):
        h = self.backbone(x)
        return {k: head(h) for k, head in self.heads.items()}


class ConvStack(nn.Module):
    def __init__(self, channels, device):
        super().__init__()
        # expect: TL214
        self.convs = []
        for c_in, c_out in zip(channels, channels[1:]):
            self.convs.append(nn.Conv2d(c_in, c_out, 3, padding=1).to(device))
        # expect: TL214
        self.norms = list(nn.BatchNorm2d(c) for c in channels[1:])

    def forward(self, x):
        for conv, norm in zip(self.convs, self.norms):
            x = torch.relu(norm(conv(x)))
        return x


class Decoder(nn.Module):
    def __init__(self, dim, layers):
        super().__init__()
        stages = []
        for _ in range(layers):
            stage = ResidualBlock(dim)
            stages.append(stage)
        # expect: TL214
        self.stages = stages

    def forward(self, x):
        for stage in self.stages:
            x = stage(x)
        return x


class PromptTuning(nn.Module):
    def __init__(self, dim, prompts):
        super().__init__()
        # expect: TL214
        self.prompts = [nn.Parameter(torch.zeros(1, dim)) for _ in range(prompts)]
        # expect: TL214
        self.pair = (nn.Embedding(10, dim), nn.Embedding(10, dim))

    def forward(self, x):
        return torch.cat([*self.prompts, x], dim=0)


class PerLanguageAdapters(pl.LightningModule):
    def __init__(self, dim, languages):
        super().__init__()
        # expect: TL214
        self.adapters = {}
        for lang in languages:
            self.adapters[lang] = nn.Linear(dim, dim)

    def forward(self, x, lang):
        return self.adapters[lang](x)


class Pyramid(nn.Module):
    def __init__(self, dim, levels):
        super().__init__()
        # expect: TL214
        self.levels = [[nn.Conv1d(dim, dim, k) for k in (1, 3)] for _ in range(levels)]

    def forward(self, x):
        return [conv(x) for level in self.levels for conv in level]


def build_blocks(dim, n):
    return [ResidualBlock(dim) for _ in range(n)]


class FromHelper(nn.Module):
    def __init__(self, dim):
        super().__init__()
        # a list a local helper returns: not followed yet
        # todo-expect: TL214
        self.blocks = build_blocks(dim, 4)


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


class Registered(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        # ok: TL214
        self.hidden = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])
        # ok: TL214
        self.heads = nn.ModuleDict({"a": nn.Linear(dim, 1)})
        # ok: TL214
        self.prompts = nn.ParameterList([nn.Parameter(torch.zeros(dim))])
        self.enc = nn.Linear(dim, dim)
        self.dec = nn.Linear(dim, dim)
        # aliases of modules registered above
        # ok: TL214
        self.group = [self.enc, self.dec]


class WrappedLater(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        # ok: TL214
        self.blocks = [ResidualBlock(dim) for _ in range(depth)]
        self.blocks = nn.ModuleList(self.blocks)
        layers = []
        for _ in range(depth):
            layers.append(nn.Linear(dim, dim))
            layers.append(nn.ReLU())
        # the same layers are registered through nn.Sequential
        # ok: TL214
        self.layer_list = layers
        self.net = nn.Sequential(*layers)


class RegisteredByHand(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        # ok: TL214
        self.layers = []
        for i in range(depth):
            layer = nn.Linear(dim, dim)
            self.add_module("layer%d" % i, layer)
            self.layers.append(layer)


class RegisteredWithSetattr(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        # ok: TL214
        self.blocks = [ResidualBlock(dim) for _ in range(depth)]
        for i, block in enumerate(self.blocks):
            setattr(self, "block_%d" % i, block)


class NotModules(nn.Module):
    def __init__(self, dim, sizes):
        super().__init__()
        # ok: TL214
        self.sizes = [dim * s for s in sizes]
        # ok: TL214
        self.names = {"encoder": "enc", "decoder": "dec"}
        # ok: TL214
        self.cache = [torch.zeros(dim)]
        # activations hold no weights, buffers or mode
        # ok: TL214
        self.activations = [nn.ReLU(), nn.GELU(), nn.Identity()]
        # ok: TL214
        self.pools = {"max": nn.MaxPool2d(2), "avg": nn.AvgPool2d(2)}
        # ok: TL214
        self.losses = [nn.MSELoss(), nn.L1Loss()]
        self.proj = nn.Linear(dim, dim)


class Distiller(nn.Module):
    def __init__(self, student, teacher):
        super().__init__()
        self.student = student
        # the teacher is kept out of the state_dict on purpose: an alias
        # ok: TL214
        self._teacher = [teacher]
        # modules handed in from outside: built and registered elsewhere
        # ok: TL214
        self.hooks = list(student.children())


class SharedProjectionAttention(nn.Module):
    def __init__(self, dim, projection):
        super().__init__()
        self.proj = projection
        self.out = nn.Linear(dim, dim)


class SharedProjectionLayer(nn.Module):
    def __init__(self, dim, shared=None):
        super().__init__()
        # kept in a list on purpose (not registered here); its element is
        # handed to the attention below, which registers it
        # ok: TL214
        self.shared_proj = [shared if shared is not None else nn.Linear(dim, dim)]
        self.attn = SharedProjectionAttention(dim, self.shared_proj[0])

    def reset_projection(self, dim):
        # ok: TL214
        self.shared_proj = [nn.Linear(dim, dim)]
        self.attn = SharedProjectionAttention(dim, projection=self.shared_proj[0])


class PlainHolder:
    """Not an nn.Module: nothing would register them anyway."""

    def __init__(self, dim):
        # ok: TL214
        self.models = [nn.Linear(dim, 1) for _ in range(3)]


def make_ensemble(dim):
    # a local list of models, not an attribute of a module
    # ok: TL214
    models = [nn.Linear(dim, 1) for _ in range(5)]
    return models


# ---------------------------------------------------------------------------
# Classes of the project that hold no state: a plain list of them loses
# nothing (no parameter, buffer or dropout to register), unlike one of a
# class that holds a dropout, a buffer, a layer with weights, or a module it
# was handed.


class WindowMean(nn.Module):
    def __init__(self, width, stride):
        super().__init__()
        self.width = width
        self.pool = nn.AvgPool1d(kernel_size=width, stride=stride)

    def forward(self, x):
        edge = x[:, :1, :].repeat(1, (self.width - 1) // 2, 1)
        return self.pool(torch.cat([edge, x], dim=1).permute(0, 2, 1)).permute(0, 2, 1)


class Detrend(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.mean = WindowMean(width, stride=1)

    def forward(self, x):
        m = self.mean(x)
        return x - m, m


class NoisyPool(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.pool = nn.MaxPool1d(width)
        self.drop = nn.Dropout(0.2)

    def forward(self, x):
        return self.drop(self.pool(x))


class Standardise(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.register_buffer("std", torch.ones(channels))

    def forward(self, x):
        return x / self.std


class Wrapped(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        return self.inner(x)


class DecompositionBank(nn.Module):
    def __init__(self, widths, channels):
        super().__init__()
        # ok: TL214
        self.detrenders = [Detrend(w) for w in widths]
        # ok: TL214
        self.means = [WindowMean(w, 1) for w in widths]
        # a dropout's mode is what a plain list loses
        # expect: TL214
        self.noisy = [NoisyPool(w) for w in widths]
        # a buffer: missing from state_dict() and .to()
        # expect: TL214
        self.scalers = [Standardise(channels) for _ in widths]
        # expect: TL214
        self.wrapped = [Wrapped(nn.Linear(channels, channels)) for _ in widths]
