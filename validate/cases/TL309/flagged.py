"""TL309 anomaly-detection-enabled reproduction.

A small MLP regression trained with SGD. flagged.py turns on autograd's
anomaly detection for the whole run with
`torch.autograd.set_detect_anomaly(True)` before the loop (left over from a
debugging session); fixed.py does not (the one line that differs). Both
compute the same losses.

Signal: the losses (identical); the time per step is the cost, measured by
the harness.
"""
import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    features, hidden, size = 16, 32, 16
    model = nn.Sequential(nn.Linear(features, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                          nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                          nn.Linear(hidden, 1)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    criterion = nn.MSELoss()
    xs = torch.randn(iters, size, features, generator=g).to(device)
    ys = torch.randn(iters, size, 1, generator=g).to(device)
    # expect: TL309
    torch.autograd.set_detect_anomaly(True)
    losses = []
    for i in range(iters):
        opt.zero_grad()
        loss = criterion(model(xs[i]), ys[i])
        loss.backward()
        opt.step()
        losses.append(loss.item())
        meter.tick()
    torch.autograd.set_detect_anomaly(False)  # the harness runs other cases in this process
    return {"loss": losses}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
