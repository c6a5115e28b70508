"""TL104 retain-graph-in-loop reproduction.

An MLP trains on synthetic data. flagged.py calls
`loss.backward(retain_graph=True)` although the graph is never
backpropagated again; fixed.py calls `loss.backward()` (the one line that
differs). The retained graph keeps its saved activations until `loss` is
re-bound, i.e. through the next iteration's forward.

Measured: peak device memory (CUDA), bytes of saved activations held after
each iteration and at the peak (any device). Signal: the losses, identical.
"""
import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    width, batch, depth = (2048, 2048, 8) if device.type == "cuda" else (256, 256, 4)
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters, batch, width, generator=g).to(device)
    ys = torch.randn(iters, batch, 1, generator=g).to(device)
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.Tanh()]
    model = nn.Sequential(*layers, nn.Linear(width, 1)).to(device)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    losses = []
    for it in range(iters):
        optimizer.zero_grad()
        loss = criterion(model(xs[it]), ys[it])
        # ok: TL104
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        meter.tick()
    return {"loss_first": losses[0], "loss_last": losses[-1]}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
