"""TL303 host-round-trip-in-loop reproduction.

An MLP trains with a per-sample weight computed from its own output.
flagged.py computes the weight on the host (`.cpu().numpy()`, then
`torch.from_numpy(...).to(device)`): two copies and a sync per step;
fixed.py computes it on the device (the one line that differs).

Measured: median time per step (CUDA). On the CPU there is no copy to make,
so the CPU run shows nothing and claims nothing.
"""
import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    width, batch = (1024, 8192) if device.type == "cuda" else (128, 256)
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters, batch, width, generator=g).to(device)
    ys = torch.randn(iters, batch, 1, generator=g).to(device)
    model = nn.Sequential(nn.Linear(width, 512), nn.ReLU(), nn.Linear(512, 1)).to(device)
    criterion = nn.MSELoss(reduction="none")
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    for it in range(iters):
        optimizer.zero_grad()
        out = model(xs[it])
        # ok: TL303
        weight = (out.detach() > 0).float()
        loss = (criterion(out, ys[it]) * (1 + weight)).mean()
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
