"""TL307 allocation-in-loop reproduction.

An MLP trains on inputs pre-scaled into a scratch buffer. flagged.py
allocates the buffer (`torch.zeros(..., device=device)`) every step;
fixed.py allocates it once before the loop (the allocation moves; nothing
else differs). PyTorch's caching allocator may make the per-step allocation
cheap: the GPU run measures whether it costs anything.

Measured: median time per step (CUDA). The CPU run claims nothing.
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
    # ok: TL307
    scratch = torch.zeros(batch, width, device=device)
    for it in range(iters):
        torch.mul(xs[it], 0.5, out=scratch)
        optimizer.zero_grad()
        loss = criterion(model(scratch), ys[it])
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
