"""TL218 fsdp-optimizer-before-wrap reproduction (needs a GPU: NEEDS_GPU).

One process (world size 1, NCCL on a GPU) wraps an MLP in
FullyShardedDataParallel and trains it with SGD on synthetic regression
data. flagged.py builds the optimizer over `model.parameters()` before the
wrap; fixed.py builds it after, over the wrapped model's parameters (the
one line that moves). FSDP replaces the module's parameters by its flat,
sharded ones, so the flagged optimizer holds tensors nothing uses.

Signal: the largest change of the model's weights after training (read
with FSDP.summon_full_params), how many of the optimizer's parameters ever
received a gradient, and the loss at the first and last step.

Debian's PyTorch 1.13 (CPU) cannot import torch.distributed.fsdp under
Python 3.11; the CPU run records that exception.
"""
import tempfile

import torch
import torch.distributed as dist
import torch.nn as nn


def run(device, iters, meter):
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

    torch.manual_seed(0)
    features, hidden, batch = 32, 128, 64
    g = torch.Generator().manual_seed(0)
    w = torch.randn(features, 1, generator=g)
    xs = torch.randn(iters, batch, features, generator=g)
    ys = torch.tanh(xs @ w)
    xs, ys = xs.to(device), ys.to(device)
    store = tempfile.NamedTemporaryFile(delete=False)
    dist.init_process_group("nccl" if device.type == "cuda" else "gloo", init_method="file://" + store.name,
                            rank=0, world_size=1)
    try:
        model = nn.Sequential(nn.Linear(features, hidden), nn.Tanh(), nn.Linear(hidden, 1)).to(device)
        initial = [p.detach().clone() for p in model.parameters()]
        model = FSDP(model, device_id=device if device.type == "cuda" else None)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        losses = []
        for it in range(iters):
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(xs[it]), ys[it])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            meter.tick()
        with_grad = sum(1 for group in optimizer.param_groups for p in group["params"] if p.grad is not None)
        with FSDP.summon_full_params(model):
            final = [model.module[0].weight, model.module[0].bias, model.module[2].weight, model.module[2].bias]
            change = max((p.detach() - p0).abs().max().item() for p, p0 in zip(final, initial))
    finally:
        dist.destroy_process_group()
    return {"weight_change": change, "optimizer_params_with_grad": with_grad,
            "first_loss": losses[0], "last_loss": losses[-1]}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
