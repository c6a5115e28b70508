"""TL208 softmax-before-cross-entropy reproduction.

A linear classifier learns 10 linearly separable classes with SGD.
flagged.py feeds `torch.softmax(logits)` to nn.CrossEntropyLoss, which
applies log-softmax again; fixed.py feeds the logits (the one line that
differs). The doubled softmax squashes the gradients.

Signal: the true cross-entropy of the logits and the accuracy on the
training data after the last step, computed the same way for both.
"""
import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    features, classes, batch = 32, 10, 128
    g = torch.Generator().manual_seed(0)
    centers = 3 * torch.randn(classes, features, generator=g)
    ys = torch.randint(0, classes, (iters, batch), generator=g)
    xs = centers[ys] + torch.randn(iters, batch, features, generator=g)
    xs, ys = xs.to(device), ys.to(device)
    model = nn.Linear(features, classes).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for it in range(iters):
        optimizer.zero_grad()
        logits = model(xs[it])
        # ok: TL208
        loss = criterion(logits, ys[it])
        loss.backward()
        optimizer.step()
        meter.tick()
    with torch.no_grad():
        logits = model(xs.flatten(0, 1))
        true_loss = nn.functional.cross_entropy(logits, ys.flatten()).item()
        accuracy = (logits.argmax(dim=1) == ys.flatten()).float().mean().item()
    return {"cross_entropy": true_loss, "accuracy": accuracy}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
