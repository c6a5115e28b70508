"""TL218 fsdp-optimizer-before-wrap (opt-in): fixtures.

An `expect` annotation sits before an optimizer built over a model's
parameters when, later in the same function, FSDP (FullyShardedDataParallel,
torch's or fairscale's, or FSDP2's fully_shard) wraps that model and no
optimizer is built after the wrap. An `ok` annotation sits before
optimizers built after wrapping, rebuilt after it, over models that DDP
wraps (DDP keeps the parameters), or handed to accelerate's prepare.
"""
import functools

import torch
import torch.distributed as dist
import torch.nn as nn
from accelerate import Accelerator
from fairscale.nn import FullyShardedDataParallel as ShardedDDP
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp import MixedPrecision, fully_shard
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
from torch.nn.parallel import DistributedDataParallel as DDP


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return x + self.fc(x)


class Transformer(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.layers = nn.ModuleList(Block(dim) for _ in range(depth))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


def setup_fsdp(rank, dim):
    dist.init_process_group("nccl")
    model = Transformer(dim, 12).to(rank)
    # expect: TL218
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
    model = FSDP(model, device_id=rank)
    return model, optimizer


def setup_policy(rank, dim):
    model = Transformer(dim, 12)
    # expect: TL218
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block})
    model = FSDP(model.to(rank), auto_wrap_policy=policy,
                 mixed_precision=MixedPrecision(param_dtype=torch.bfloat16))
    return model, optimizer


def setup_fsdp2(dim):
    model = Transformer(dim, 12)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    # expect: TL218
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                   {"params": no_decay, "weight_decay": 0.0}], lr=1e-3)
    for layer in model.layers:
        fully_shard(layer)
    fully_shard(model)
    return model, optimizer


class Trainer:
    def __init__(self, model, rank):
        self.model = model
        # expect: TL218
        self.opt = torch.optim.Adam(self.model.parameters(), lr=1e-4)
        self.model = FSDP(self.model, device_id=rank)


def setup_fairscale(model):
    # expect: TL218
    opt = torch.optim.AdamW(params=model.parameters())
    model = ShardedDDP(model)
    return model, opt


def setup_two_optimizers(gen, disc):
    # expect: TL218
    opt_g = torch.optim.Adam(gen.parameters(), lr=2e-4)
    # expect: TL218
    opt_d = torch.optim.Adam(disc.parameters(), lr=2e-4)
    gen = FSDP(gen)
    disc = FSDP(disc)
    return gen, disc, opt_g, opt_d


def setup_list_params(model, rank):
    # expect: TL218
    optimizer = torch.optim.AdamW(list(model.parameters()), lr=1e-3)
    if dist.is_initialized():
        model = FSDP(model, device_id=rank, use_orig_params=True)
    return model, optimizer


def setup_filtered(model):
    # expect: TL218
    optimizer = torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()))
    sharded = FSDP(model)
    return sharded, optimizer


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


def setup_after_wrap(rank, dim):
    model = FSDP(Transformer(dim, 12).to(rank), device_id=rank)
    # ok: TL218
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    return model, optimizer


def setup_rebuilt(model):
    # a throwaway optimizer before wrapping, rebuilt after it
    # ok: TL218
    optimizer = torch.optim.AdamW(model.parameters())
    model = FSDP(model)
    optimizer = torch.optim.AdamW(model.parameters())
    return model, optimizer


def setup_ddp(rank, model):
    # DDP keeps the module's own parameters
    # ok: TL218
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model = DDP(model.to(rank), device_ids=[rank])
    return model, optimizer


def setup_accelerate(model):
    accelerator = Accelerator()
    # accelerate wraps the model and re-points the optimizer
    # ok: TL218
    optimizer = torch.optim.AdamW(model.parameters())
    model = FSDP(model)
    model, optimizer = accelerator.prepare(model, optimizer)
    return model, optimizer


def setup_other_model(model, head):
    # the head is not the module FSDP wraps
    # ok: TL218
    optimizer = torch.optim.AdamW(head.parameters())
    model = FSDP(model)
    return model, optimizer


def setup_fsdp2_after(dim):
    model = Transformer(dim, 4)
    for layer in model.layers:
        fully_shard(layer)
    fully_shard(model)
    # ok: TL218
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    return model, optimizer


def make_optimizer(model):
    # another function: whether the model is wrapped later is not this one's question
    # ok: TL218
    return torch.optim.AdamW(model.parameters())


def setup_helper(model):
    model = FSDP(model)
    optimizer = make_optimizer(model)
    return model, optimizer


def setup_scheduler(model, optimizer):
    model = FSDP(model)
    # a scheduler is no optimizer
    # ok: TL218
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 10)
    return model, scheduler
