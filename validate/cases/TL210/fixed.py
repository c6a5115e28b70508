"""TL210 softmax-into-nll-loss reproduction.

A linear classifier learns 10 linearly separable classes with SGD.
flagged.py feeds `softmax(logits)` to F.nll_loss, which expects
log-probabilities; fixed.py feeds `log_softmax(logits)` (the one line that
differs). The flagged loss is minus a probability: a wrong value (between
-1 and 0) with weak gradients.

Signal: the loss value the loop reports, and the true cross-entropy and
accuracy after the last step (computed the same way for both).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def run(device, iters, meter):
    torch.manual_seed(0)
    features, classes, batch = 32, 10, 128
    g = torch.Generator().manual_seed(0)
    centers = 3 * torch.randn(classes, features, generator=g)
    ys = torch.randint(0, classes, (iters, batch), generator=g)
    xs = centers[ys] + torch.randn(iters, batch, features, generator=g)
    xs, ys = xs.to(device), ys.to(device)
    model = nn.Linear(features, classes).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    reported = []
    for it in range(iters):
        optimizer.zero_grad()
        logits = model(xs[it])
        # ok: TL210
        loss = F.nll_loss(F.log_softmax(logits, dim=1), ys[it])
        loss.backward()
        optimizer.step()
        reported.append(loss.item())
        meter.tick()
    with torch.no_grad():
        logits = model(xs.flatten(0, 1))
        true_loss = F.cross_entropy(logits, ys.flatten()).item()
        accuracy = (logits.argmax(dim=1) == ys.flatten()).float().mean().item()
    return {"reported_loss_last": reported[-1], "cross_entropy": true_loss, "accuracy": accuracy}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
