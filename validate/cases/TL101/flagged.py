"""TL101 loss-accumulated-with-graph reproduction.

A small MLP trains on synthetic regression data and, every iteration, logs
the loss on a held-out batch. flagged.py keeps each held-out loss tensor (with
the autograd graph of its forward, which no backward ever frees); fixed.py
keeps `.item()`. The two files differ only in that line.

Measured: device memory after each iteration (CUDA), bytes of saved
activations still held and autograd nodes reachable from the log (any
device). Signal: the logged losses are the same numbers in both.
"""
import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    width, batch = (2048, 1024) if device.type == "cuda" else (256, 128)
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters, batch, width, generator=g).to(device)
    ys = torch.randn(iters, batch, 1, generator=g).to(device)
    x_val = torch.randn(batch, width, generator=g).to(device)
    y_val = torch.randn(batch, 1, generator=g).to(device)
    model = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                          nn.Linear(width, 1)).to(device)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    val_losses = []
    for it in range(iters):
        optimizer.zero_grad()
        loss = criterion(model(xs[it]), ys[it])
        loss.backward()
        optimizer.step()
        val_loss = criterion(model(x_val), y_val)
        # expect: TL101
        val_losses.append(val_loss)
        meter.tick(retained=val_losses)
    return {"val_loss_first": float(val_losses[0]), "val_loss_last": float(val_losses[-1])}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
