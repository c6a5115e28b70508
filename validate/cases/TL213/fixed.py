"""TL213 ddp-module-bypassed reproduction.

Two processes (gloo on the CPU, two ranks of one machine) train the same
seeded model wrapped in DistributedDataParallel, each on its own shard of
synthetic data, as data-parallel training does. flagged.py runs each
training step's forward through `model.module(x)`, around the wrapper;
fixed.py calls the wrapper, `model(x)` (the one line differs). After
training each rank reports its weights.

Signal: the largest difference between the two ranks' weights (0 when DDP
averaged every step's gradients, as it should) and each rank's loss on the
last step. Device-independent: the ranks run on the CPU whatever device the
harness asks for, and the main process only times their steps.
"""
import os
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel


def worker(rank, world, store_path, iters, steps_out, result_out):
    torch.manual_seed(0)  # the same initial weights on both ranks
    dist.init_process_group("gloo", init_method="file://" + store_path, rank=rank, world_size=world)
    try:
        width, batch = 32, 16
        g = torch.Generator().manual_seed(100 + rank)  # each rank its own shard
        xs = torch.randn(iters, batch, width, generator=g)
        ys = torch.randn(iters, batch, 1, generator=g)
        net = nn.Sequential(nn.Linear(width, width), nn.Tanh(), nn.Linear(width, 1))
        model = DistributedDataParallel(net)
        criterion = nn.MSELoss()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        loss = None
        for it in range(iters):
            optimizer.zero_grad()
            out = model(xs[it])
            loss = criterion(out, ys[it])
            loss.backward()
            optimizer.step()
            if rank == 0:
                steps_out.put(it)
        flat = torch.cat([p.detach().reshape(-1) for p in model.module.parameters()])
        result_out.put((rank, flat.tolist(), loss.item()))
    finally:
        dist.destroy_process_group()


def run(device, iters, meter):
    ctx = mp.get_context("fork")
    store = tempfile.NamedTemporaryFile(delete=False)
    store.close()
    os.unlink(store.name)  # the file store creates it
    steps, results = ctx.Queue(), ctx.Queue()
    procs = [ctx.Process(target=worker, args=(r, 2, store.name, iters, steps, results)) for r in range(2)]
    for p in procs:
        p.start()
    try:
        for _ in range(iters):
            steps.get(timeout=120)
            meter.tick()
        got = dict((r, (w, l)) for r, w, l in (results.get(timeout=120) for _ in procs))
    finally:
        for p in procs:
            p.join(timeout=60)
        if os.path.exists(store.name):
            os.unlink(store.name)
    diff = max(abs(a - b) for a, b in zip(got[0][0], got[1][0]))
    return {"max_weight_difference": diff, "final_loss_rank0": got[0][1], "final_loss_rank1": got[1][1],
            "exit_codes": [p.exitcode for p in procs]}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
