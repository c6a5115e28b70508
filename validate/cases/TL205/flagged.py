"""TL205 scaler-bypassed reproduction.

Mixed-precision training with a GradScaler. fixed.py steps through the
scaler (`scaler.step(optimizer)`), which unscales the gradients first;
flagged.py calls `optimizer.step()` directly after a scaled backward (the
one line that differs), so every update is as many times too large as the
scale factor (65536 at the start).

Signal: the size of each update (norm of the parameter change, recorded
before scaler.update(), which on CUDA may refuse to run after a step that
bypassed the scaler: "No inf checks were recorded"), the loss afterwards,
and any exception. Without CUDA, torch.cuda.amp.GradScaler disables itself
(scale() returns the loss unchanged), and then nothing can be observed.
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
    update_norms, losses = [], []
    meter.note("update_norm", update_norms)  # kept if update() raises
    for it in range(iters):
        before = [p.detach().clone() for p in model.parameters()]
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, dtype=amp_dtype):
            loss = criterion(model(xs[it]), ys[it])
        scaler.scale(loss).backward()
        # expect: TL205
        optimizer.step()
        with torch.no_grad():
            update_norms.append(sum((p - b).pow(2).sum() for p, b in zip(model.parameters(), before)).sqrt().item())
        scaler.update()
        losses.append(loss.item())
        meter.tick()
    return {"first_update_norm": update_norms[0], "update_norm": update_norms, "loss": losses,
            "scale": scaler.get_scale() if scaler.is_enabled() else None}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
