"""TL106 tensor-kept-with-graph reproduction.

A small MLP, already trained, extracts features from a stream of batches to
collect them for later use (a retrieval index, a plot). The loop trains
nothing and runs with gradients on. flagged.py keeps each batch's output
tensor, whose autograd graph holds the forward's saved activations;
fixed.py keeps `.detach()`. The two files differ only in that line.

Measured: device memory after each iteration (CUDA), bytes of saved
activations still held and autograd nodes reachable from the kept outputs
(any device). Signal: the collected features are the same numbers in both.
"""
import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    width, batch = (2048, 1024) if device.type == "cuda" else (256, 128)
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters, batch, width, generator=g).to(device)
    model = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                          nn.Linear(width, 16)).to(device)
    features = []
    for it in range(iters):
        out = model(xs[it])
        # ok: TL106
        features.append(out.detach())
        meter.tick(retained=features)
    return {"feature_sum_first": float(features[0].sum()), "feature_sum_last": float(features[-1].sum())}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
