"""TL302 loop-invariant-transfer reproduction.

An MLP adds a fixed table (built once, on the host) to every batch.
flagged.py moves the table to the device inside the step loop, a copy per
step; fixed.py moves it once before the loop (the moved line and the loop's
use of it differ).

Measured: median time per step (CUDA). On the CPU the move is free, so the
CPU run shows nothing and claims nothing.
"""
import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    width, batch = (4096, 4096) if device.type == "cuda" else (256, 256)
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters, batch, width, generator=g).to(device)
    ys = torch.randn(iters, batch, 1, generator=g).to(device)
    table = torch.randn(batch, width, generator=g)
    model = nn.Sequential(nn.Linear(width, 256), nn.ReLU(), nn.Linear(256, 1)).to(device)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    table = table.to(device)
    for it in range(iters):
        optimizer.zero_grad()
        # ok: TL302
        loss = criterion(model(xs[it] + table), ys[it])
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
