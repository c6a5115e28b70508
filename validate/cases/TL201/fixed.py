"""TL201 missing-zero-grad reproduction.

Linear regression on synthetic data with plain SGD. fixed.py resets the
gradients every iteration with `optimizer.zero_grad()`; flagged.py never
does (the one line that differs), so backward() keeps adding to .grad and
each step applies the sum of all gradients so far.

Signal: the norm of the gradient each step applies, the loss after the last
step, and how far the weights end up from the ones that generated the data.
Memory and time are not expected to differ.
"""
import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    features, batch = 32, 64
    g = torch.Generator().manual_seed(0)
    true_w = torch.randn(features, 1, generator=g)
    xs = torch.randn(iters, batch, features, generator=g)
    ys = xs @ true_w + 0.01 * torch.randn(iters, batch, 1, generator=g)
    xs, ys, true_w = xs.to(device), ys.to(device), true_w.to(device)
    model = nn.Linear(features, 1, bias=False).to(device)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    grad_norms, losses = [], []
    for it in range(iters):
        optimizer.zero_grad()
        loss = criterion(model(xs[it]), ys[it])
        loss.backward()
        grad_norms.append(model.weight.grad.norm().item())
        losses.append(loss.item())
        # ok: TL201
        optimizer.step()
        meter.tick()
    with torch.no_grad():
        distance = (model.weight.t() - true_w).norm().item()
    return {"grad_norm": grad_norms, "loss": losses, "weight_error": distance}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
