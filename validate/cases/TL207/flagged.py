"""TL207 forward-called-directly reproduction.

A small MLP trains with a forward hook registered on it that records the
output's statistics (as activation monitors and feature extractors do).
flagged.py calls `model.forward(x)`; fixed.py calls `model(x)` (the one line
that differs). Module hooks run only through `__call__`.

Signal: how many times the hook ran. Not shown here: DDP, whose gradient
synchronisation in recent versions runs inside DistributedDataParallel.forward.
"""
import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    features, batch = 32, 64
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters, batch, features, generator=g).to(device)
    ys = torch.randn(iters, batch, 1, generator=g).to(device)
    model = nn.Sequential(nn.Linear(features, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)
    seen = []
    model.register_forward_hook(lambda module, inputs, output: seen.append(output.detach().std().item()))
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for it in range(iters):
        optimizer.zero_grad()
        # expect: TL207
        out = model.forward(xs[it])
        loss = criterion(out, ys[it])
        loss.backward()
        optimizer.step()
        meter.tick()
    return {"hook_calls": len(seen), "iterations": iters, "final_loss": loss.item()}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
