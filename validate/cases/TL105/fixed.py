"""TL105 distributed-load-without-map-location reproduction (needs a GPU: NEEDS_GPU).

A job that reads LOCAL_RANK resumes from a checkpoint (model and Adam
state, saved from the GPU) once per iteration, then trains one step.
flagged.py calls `torch.load(path)`: every tensor comes back on the device
it was saved from (cuda:0), in every process that loads it, before
load_state_dict copies it into the model. fixed.py calls
`torch.load(path, map_location="cpu")` (the one line that differs).

With one GPU the case measures one process's share of the cost: the device
memory torch.load itself allocates, and the peak during the resume. With
N processes on N GPUs each allocates the same on GPU 0 (RULES.md: the rule
stays opt-in until a run on two GPUs shows that part).

Signal: the losses after resuming, identical.
"""
import os
import shutil
import tempfile

import torch
import torch.nn as nn


def _model(width, depth, device):
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.Tanh()]
    return nn.Sequential(*layers, nn.Linear(width, 1)).to(device)


def run(device, iters, meter):
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    torch.manual_seed(0)
    width, batch, depth = (4096, 1024, 4) if device.type == "cuda" else (128, 64, 2)
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters + 2, batch, width, generator=g).to(device)
    ys = torch.randn(iters + 2, batch, 1, generator=g).to(device)
    tmp = tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    path = os.path.join(tmp, "rank%d.pt" % local_rank)
    try:
        # The checkpoint, saved from the GPU after two steps.
        model = _model(width, depth, device)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
        for it in range(2):
            optimizer.zero_grad()
            nn.functional.mse_loss(model(xs[it]), ys[it]).backward()
            optimizer.step()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
        del model, optimizer
        losses, loaded = [], []
        for it in range(iters):
            model = _model(width, depth, device)
            optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
            before = torch.cuda.memory_allocated(device) if device.type == "cuda" else None
            checkpoint = torch.load(path, map_location="cpu")
            if before is not None:
                loaded.append(torch.cuda.memory_allocated(device) - before)
            model.load_state_dict(checkpoint["model"])
            optimizer.load_state_dict(checkpoint["optimizer"])
            del checkpoint
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(xs[2]), ys[2])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            del model, optimizer, loss
            meter.tick()
        checkpoint_bytes = os.path.getsize(path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"loss_first": losses[0], "loss_last": losses[-1], "checkpoint_bytes": checkpoint_bytes,
            "device_bytes_allocated_by_load": max(loaded) if loaded else None}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
