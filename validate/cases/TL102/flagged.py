"""TL102 eval-without-no-grad reproduction.

A small MLP classifier is evaluated batch by batch after `model.eval()`.
flagged.py runs the evaluation with gradient tracking on; fixed.py decorates
the evaluation function with `@torch.no_grad()` (the one line that differs).

Measured: peak device memory and time per evaluation batch (CUDA), bytes of
activations autograd saves during each batch (any device). Signal: the
accuracy, the same in both.
"""
import torch
import torch.nn as nn


def evaluate(model, xs, ys, meter):
    model.eval()
    correct, recorded = 0, False
    for x, y in zip(xs, ys):
        # expect: TL102
        logits = model(x)
        correct += (logits.argmax(dim=1) == y).sum().item()
        recorded = recorded or logits.requires_grad
        meter.tick()
    return correct / (len(xs) * len(xs[0])), recorded


def run(device, iters, meter):
    torch.manual_seed(0)
    width, batch, depth = (2048, 2048, 8) if device.type == "cuda" else (256, 256, 4)
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters, batch, width, generator=g).to(device)
    ys = torch.randint(0, 10, (iters, batch), generator=g).to(device)
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.GELU()]
    model = nn.Sequential(*layers, nn.Linear(width, 10)).to(device)
    accuracy, recorded = evaluate(model, xs, ys, meter)
    return {"accuracy": accuracy, "graph_recorded": recorded}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
