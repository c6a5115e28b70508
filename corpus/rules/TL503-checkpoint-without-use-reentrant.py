"""TL503 checkpoint-without-use-reentrant: fixtures.

An `expect` annotation sits before a call of
`torch.utils.checkpoint.checkpoint` / `checkpoint_sequential` (written in
full, imported by name, renamed, through a module alias) that does not
pass `use_reentrant=`. An `ok` annotation sits before calls that pass it
(either value, or through `**kwargs`, or through `functools.partial`), and
before other things called `checkpoint` (saving a training checkpoint, a
local helper, a checkpoint dictionary).
"""
import functools

import torch
import torch.nn as nn
import torch.utils.checkpoint as cp
from torch.utils.checkpoint import checkpoint
from torch.utils.checkpoint import checkpoint as ckpt
from torch.utils.checkpoint import checkpoint_sequential


class Block(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        return x + self.ff(x)


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


class CheckpointedStack(nn.Module):
    def __init__(self, n=4, d=64):
        super().__init__()
        self.blocks = nn.ModuleList(Block(d) for _ in range(n))
        self.seq = nn.Sequential(*[Block(d) for _ in range(n)])

    def forward(self, x):
        for blk in self.blocks:
            # expect: TL503
            x = checkpoint(blk, x)
        return x

    def forward_full_name(self, x):
        for blk in self.blocks:
            # expect: TL503
            x = torch.utils.checkpoint.checkpoint(blk, x, preserve_rng_state=False)
        return x

    def forward_alias(self, x):
        # expect: TL503
        return cp.checkpoint(self.blocks[0], x)

    def forward_renamed(self, x):
        # expect: TL503
        return ckpt(self.blocks[0], x)

    def forward_sequential(self, x):
        # expect: TL503
        return checkpoint_sequential(self.seq, 2, x)

    def forward_sequential_alias(self, x):
        # expect: TL503
        return cp.checkpoint_sequential(self.seq, 2, x)

    def forward_lambda(self, x, mask):
        # expect: TL503
        return checkpoint(lambda t: self.blocks[0](t) * mask, x)

    def forward_multi_line(self, x):
        # expect: TL503
        return checkpoint(
            self.blocks[1],
            x,
            preserve_rng_state=True,
        )


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


class ExplicitStack(nn.Module):
    def __init__(self, n=4, d=64):
        super().__init__()
        self.blocks = nn.ModuleList(Block(d) for _ in range(n))
        self.seq = nn.Sequential(*[Block(d) for _ in range(n)])

    def forward(self, x):
        for blk in self.blocks:
            # ok: TL503
            x = checkpoint(blk, x, use_reentrant=False)
        return x

    def forward_reentrant(self, x):
        # ok: TL503
        return cp.checkpoint(self.blocks[0], x, use_reentrant=True)

    def forward_sequential(self, x):
        # ok: TL503
        return checkpoint_sequential(self.seq, 2, x, use_reentrant=False)

    def forward_kwargs(self, x, **ckpt_kwargs):
        # ok: TL503
        return checkpoint(self.blocks[0], x, **ckpt_kwargs)

    def forward_partial(self, x):
        ckpt_fn = functools.partial(checkpoint, use_reentrant=False)
        # ok: TL503
        return ckpt_fn(self.blocks[0], x)


def save_training_checkpoint(model, optimizer, epoch, path):
    # ok: TL503
    checkpoint = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}
    torch.save(checkpoint, path)


class Trainer:
    def checkpoint(self, path):
        torch.save({}, path)

    def fit(self, path):
        # ok: TL503
        self.checkpoint(path)


def local_checkpoint(fn, x):
    return fn(x)


def uses_local_helper(blk, x):
    # ok: TL503
    return local_checkpoint(blk, x)


def shadowed_by_local_def(model, path):
    def checkpoint(m, p):
        torch.save(m.state_dict(), p)

    # ok: TL503
    checkpoint(model, path)


# ---------------------------------------------------------------------------
# Version-guarded code: a project that still runs on an old PyTorch keeps
# the call without use_reentrant= in the branch only an old PyTorch takes
# (the keyword does not exist there). The branch that runs on the target
# version is still judged.
from packaging import version

_TORCH_1_11 = version.parse(torch.__version__) >= version.parse("1.11")


class CompatStack(nn.Module):
    def __init__(self, depth=4):
        super().__init__()
        self.blocks = nn.ModuleList(Block() for _ in range(depth))

    def forward(self, x):
        for blk in self.blocks:
            if version.parse(torch.__version__) >= version.parse("1.11"):
                x = checkpoint(blk, x, use_reentrant=False)
            else:
                # ok: TL503
                x = checkpoint(blk, x)
        return x

    def forward_with_flag(self, x):
        for blk in self.blocks:
            if not _TORCH_1_11:
                # ok: TL503
                x = cp.checkpoint(blk, x)
            else:
                # expect: TL503
                x = cp.checkpoint(blk, x, preserve_rng_state=False)
        return x

    def forward_try(self, x):
        for blk in self.blocks:
            try:
                x = checkpoint(blk, x, use_reentrant=False)
            except TypeError:
                # ok: TL503
                x = checkpoint(blk, x)
        return x


def run_new_guard(blk, x):
    # A guard on a version newer than the target (2.6): its fallback still
    # runs on the target, so the missing keyword matters there.
    if version.parse(torch.__version__) >= version.parse("2.9"):
        return checkpoint(blk, x, use_reentrant=False)
    # expect: TL503
    return checkpoint(blk, x) if x.dim() > 2 else blk(x)
