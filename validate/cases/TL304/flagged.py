"""TL304 sync-in-hot-loop reproduction.

A small, launch-bound MLP trains on synthetic data and sums its losses for
logging. flagged.py adds `loss.item()` every step, which waits for the GPU
to finish the step; fixed.py adds `loss.detach()` on the device and
converts once after the loop (the one line that differs).

Measured: median time per step (CUDA). On the CPU nothing runs
asynchronously, so the CPU run shows nothing and claims nothing.
"""
import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    width, batch = 256, 64
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters, batch, width, generator=g).to(device)
    ys = torch.randn(iters, batch, 1, generator=g).to(device)
    layers = []
    for _ in range(8):
        layers += [nn.Linear(width, width), nn.ReLU()]
    model = nn.Sequential(*layers, nn.Linear(width, 1)).to(device)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    total = 0.0
    for it in range(iters):
        optimizer.zero_grad()
        loss = criterion(model(xs[it]), ys[it])
        loss.backward()
        optimizer.step()
        # expect: TL304
        total += loss.item()
        meter.tick()
    return {"mean_loss": float(total) / iters}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
