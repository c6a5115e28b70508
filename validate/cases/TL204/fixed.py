"""TL204 scaler-step-without-update reproduction.

Mixed-precision training with a GradScaler: autocast (float16 on CUDA,
bfloat16 on the CPU), a scaled backward, `scaler.step(optimizer)`.
fixed.py calls `scaler.update()` after every step; flagged.py never does
(the one line that differs).

Signal: the exception raised and at which iteration (on CUDA, GradScaler
refuses a second step() before update()), and whether the scaler was
enabled: without CUDA, torch.cuda.amp.GradScaler disables itself, and then
nothing can be observed.
"""
import warnings

import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    amp_dtype = torch.float16 if device.type == "cuda" else torch.bfloat16
    features, batch = 64, 128
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters, batch, features, generator=g).to(device)
    ys = torch.randn(iters, batch, 1, generator=g).to(device)
    model = nn.Sequential(nn.Linear(features, 128), nn.ReLU(), nn.Linear(128, 1)).to(device)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated in 2.4; disabled without CUDA
        scaler = torch.cuda.amp.GradScaler()
    meter.note("scaler_enabled", scaler.is_enabled())
    for it in range(iters):
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, dtype=amp_dtype):
            loss = criterion(model(xs[it]), ys[it])
        scaler.scale(loss).backward()
        # ok: TL204
        scaler.step(optimizer)
        scaler.update()
        meter.note("scale", scaler.get_scale() if scaler.is_enabled() else None)
        meter.tick()
    return {"final_loss": loss.item()}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
