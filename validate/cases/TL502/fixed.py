"""TL502 ddp-accumulation-without-no-sync reproduction.

A model wrapped in DistributedDataParallel (one process: gloo on the CPU,
nccl on CUDA) accumulates gradients over 4 micro-batches per optimizer step.
flagged.py runs every micro-batch's forward and backward normally, so DDP
all-reduces the gradients after each of them; fixed.py runs the 3
non-stepping ones inside `model.no_sync()` (the context differs). A
communication hook counts the all-reduces and their bytes; it calls DDP's
default all-reduce, so the communication itself is unchanged.

Signal: all-reduce calls and bytes per optimizer step (device-independent).
The time this costs needs several GPUs to measure.
"""
import contextlib
import os
import tempfile
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel


def run(device, iters, meter):
    torch.manual_seed(0)
    accum, width, batch = 4, 256, 32
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters, batch, width, generator=g).to(device)
    ys = torch.randn(iters, batch, 1, generator=g).to(device)
    store = tempfile.NamedTemporaryFile(delete=False)
    store.close()
    dist.init_process_group("nccl" if device.type == "cuda" else "gloo", init_method="file://" + store.name,
                            rank=0, world_size=1)
    try:
        net = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, 1)).to(device)
        model = DistributedDataParallel(net, device_ids=[device.index or 0] if device.type == "cuda" else None)
        calls = {"n": 0, "bytes": 0}

        def counting_allreduce(state, bucket):
            calls["n"] += 1
            calls["bytes"] += bucket.buffer().numel() * bucket.buffer().element_size()
            return default_hooks.allreduce_hook(state, bucket)

        model.register_comm_hook(None, counting_allreduce)
        criterion = nn.MSELoss()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        steps = 0
        for it in range(iters):
            stepping = (it + 1) % accum == 0
            with contextlib.nullcontext() if stepping else model.no_sync():
                loss = criterion(model(xs[it]), ys[it]) / accum
                # ok: TL502
                loss.backward()
            if stepping:
                optimizer.step()
                optimizer.zero_grad()
                steps += 1
            meter.tick()
    finally:
        # gloo's worker threads drop the comm hook's Python callbacks after the
        # futures complete, and need the GIL for it; the process group is torn
        # down (joining those threads) with the GIL held. On a loaded machine
        # PyTorch 1.13 deadlocked there (gdb: ~ProcessGroupGloo joining a
        # thread in PyEval_AcquireThread). Releasing the GIL first lets them
        # finish.
        time.sleep(0.5)
        dist.destroy_process_group()
        os.unlink(store.name)
    return {"allreduce_calls": calls["n"], "allreduce_bytes": calls["bytes"], "optimizer_steps": steps}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
