"""TL402 deprecated-amp-api: fixtures (torch-version 2.6, the default).

An `expect` annotation sits before a call of a `torch.cuda.amp` or
`torch.cpu.amp` entry point deprecated in PyTorch 2.4 (`autocast`,
`GradScaler`, `custom_fwd`, `custom_bwd`), written in full, imported by
name, renamed on import, through a module alias or a name bound to it, or
used as a decorator. An `ok` annotation sits before the `torch.amp` forms
that replace them, and before things that merely share a name. The same
calls under `torch-version = "2.3"` are in corpus/versions/torch-2.3/,
where none is reported.
"""
import functools

import torch
import torch.cuda.amp as cuda_amp
import torch.nn as nn
import torch.nn.functional as F
from torch import amp
from torch.amp import GradScaler as NewScaler
from torch.cuda.amp import GradScaler, autocast
from torch.cuda.amp import autocast as old_autocast
from torch.cuda.amp import custom_bwd, custom_fwd
from torch.cpu.amp import autocast as cpu_autocast

device = torch.device("cuda")


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


def flagged_forms(model, x):
    # expect: TL402
    with torch.cuda.amp.autocast():
        model(x)
    # expect: TL402
    with autocast(dtype=torch.bfloat16):
        model(x)
    # expect: TL402
    with old_autocast(enabled=True):
        model(x)
    # expect: TL402
    with cuda_amp.autocast():
        model(x)
    # expect: TL402
    with torch.cpu.amp.autocast():
        model(x)
    # the message names "cpu" here (tests/cli checks the wording)
    # expect: TL402
    with cpu_autocast(dtype=torch.bfloat16):
        model(x)


# expect: TL402
scaler = GradScaler()
# expect: TL402
scaler2 = torch.cuda.amp.GradScaler(init_scale=2.0**10)
# expect: TL402
cpu_scaler = torch.cpu.amp.GradScaler()

# A name bound to the deprecated entry point is the entry point.
ctx = torch.cuda.amp.autocast


def through_alias(model, x):
    # expect: TL402
    with ctx():
        return model(x)


class ScaledOp(torch.autograd.Function):
    @staticmethod
    # expect: TL402
    @custom_fwd(cast_inputs=torch.float32)
    def forward(ctx, x):
        return x * 2

    @staticmethod
    # expect: TL402
    @custom_bwd
    def backward(ctx, g):
        return g * 2


class ScaledOp2(torch.autograd.Function):
    @staticmethod
    # expect: TL402
    @torch.cuda.amp.custom_fwd
    def forward(ctx, x):
        return x + 1


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


def replacement_forms(model, x):
    # ok: TL402
    with torch.amp.autocast("cuda"):
        model(x)
    # ok: TL402
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        model(x)
    # ok: TL402
    with amp.autocast("cuda", enabled=False):
        model(x)
    # ok: TL402
    with torch.autocast("cpu"):
        model(x)


# ok: TL402
new_scaler = NewScaler("cuda")
# ok: TL402
new_scaler2 = torch.amp.GradScaler("cuda", init_scale=2.0**10)
# ok: TL402
amp_state = torch.cuda.amp.common if hasattr(torch.cuda.amp, "common") else None


class NewOp(torch.autograd.Function):
    @staticmethod
    # ok: TL402
    @torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)
    def forward(ctx, x):
        return x * 2


class Accelerator:
    def autocast(self):
        return torch.autocast("cuda")


def method_named_autocast(model, x, accelerator: Accelerator):
    # ok: TL402
    with accelerator.autocast():
        return model(x)


def local_autocast():
    return torch.autocast("cuda")


def local_function_named_autocast(model, x):
    # ok: TL402
    with local_autocast():
        return model(x)


# ok: TL402
is_bf16 = torch.cuda.is_bf16_supported()


# Todo: a deprecated entry point handed to functools.partial is a reference, not a call; the call of
# the partial object is not traced back to it.
half_ctx = functools.partial(torch.cuda.amp.autocast, dtype=torch.float16)


def through_partial(model, x):
    # todo-expect: TL402
    with half_ctx():
        return model(x)


# Version-guarded code: the old names in a branch that only a PyTorch older
# than 2.4 takes are the compatibility fallback, not a finding; the same
# call on the path the target version runs still is.
TORCH_GE_2_4 = tuple(int(p) for p in torch.__version__.split(".")[:2]) >= (2, 4)


def make_scaler(enabled):
    # ok: TL402
    return torch.amp.GradScaler("cuda", enabled=enabled) if TORCH_GE_2_4 else torch.cuda.amp.GradScaler(enabled=enabled)


def make_scaler_by_attribute(enabled):
    if hasattr(torch.amp, "GradScaler"):
        return torch.amp.GradScaler("cuda", enabled=enabled)
    else:
        # ok: TL402
        return torch.cuda.amp.GradScaler(enabled=enabled)


try:
    from torch.amp import autocast as amp_autocast
except ImportError:
    # ok: TL402
    amp_autocast = functools.partial(torch.cuda.amp.autocast)


def make_scaler_late(enabled):
    # The guard names 2.8, newer than the target: the fallback still runs on 2.6.
    if TORCH_GE_2_8:
        return torch.amp.GradScaler("cuda", enabled=enabled)
    # expect: TL402
    return torch.cuda.amp.GradScaler(enabled=enabled)
