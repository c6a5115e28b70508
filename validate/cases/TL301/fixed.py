"""TL301 host-tensor-moved-to-device reproduction.

An MLP trains with input noise drawn fresh every step. flagged.py draws it
with `torch.randn(...)` on the host and moves it with `.to(device)` (a host
allocation, a host fill and a copy to the GPU every step); fixed.py draws it
on the device with `device=` (the one line that differs).

Measured: median time per step and peak memory (CUDA). On the CPU, "moving"
to the CPU is free, so the CPU run shows nothing and claims nothing.
"""
import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    width, batch = (4096, 4096) if device.type == "cuda" else (256, 256)
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters, batch, width, generator=g).to(device)
    ys = torch.randn(iters, batch, 1, generator=g).to(device)
    model = nn.Sequential(nn.Linear(width, 256), nn.ReLU(), nn.Linear(256, 1)).to(device)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    for it in range(iters):
        optimizer.zero_grad()
        # ok: TL301
        noise = torch.randn(batch, width, device=device)
        loss = criterion(model(xs[it] + 0.01 * noise), ys[it])
        loss.backward()
        optimizer.step()
        meter.tick()
    return {"final_loss": loss.item()}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
