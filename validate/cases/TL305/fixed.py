"""TL305 empty-cache-in-loop reproduction.

An MLP with large activations trains on synthetic data. flagged.py calls
`torch.cuda.empty_cache()` every step, handing the allocator's cached blocks
back to the driver so the next step must cudaMalloc them again; fixed.py
does not (the one line that differs).

Measured: median time per step and memory per step (CUDA). Without CUDA,
empty_cache() does nothing, so the CPU run shows nothing and claims nothing.
"""
import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    width, batch = (4096, 4096) if device.type == "cuda" else (256, 256)
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters, batch, width, generator=g).to(device)
    ys = torch.randn(iters, batch, 1, generator=g).to(device)
    model = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                          nn.Linear(width, 1)).to(device)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
    for it in range(iters):
        optimizer.zero_grad()
        loss = criterion(model(xs[it]), ys[it])
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
