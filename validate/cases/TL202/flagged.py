"""TL202 zero-grad-before-step reproduction.

A small MLP regresses synthetic data with SGD. flagged.py resets the
gradients between `loss.backward()` and `optimizer.step()`, so every step
applies no gradient; fixed.py resets them before the forward (the reset
moves; nothing else differs).

Signal: how far the parameters move from their initial values, and the
loss after the last step.
"""
import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    features, batch = 32, 64
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters, batch, features, generator=g).to(device)
    ys = 0.2 * xs.sum(dim=2, keepdim=True)
    model = nn.Sequential(nn.Linear(features, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)
    initial = [p.detach().clone() for p in model.parameters()]
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    losses = []
    for it in range(iters):
        loss = criterion(model(xs[it]), ys[it])
        loss.backward()
        # expect: TL202
        optimizer.zero_grad()
        optimizer.step()
        losses.append(loss.item())
        meter.tick()
    with torch.no_grad():
        moved = max((p - p0).abs().max().item() for p, p0 in zip(model.parameters(), initial))
    return {"max_param_change": moved, "loss_first": losses[0], "loss_last": losses[-1]}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
