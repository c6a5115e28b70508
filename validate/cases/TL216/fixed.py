"""TL216 functional-dropout-always-on reproduction.

An MLP classifier with dropout (p=0.5) between its layers learns 10 noisy
classes with SGD, then is put in eval mode and evaluated twice on the same
held-out batch. flagged.py calls `F.dropout(h, p=self.p)`; fixed.py passes
`training=self.training` (the one line that differs). Training is the same
in both (the module is in train mode, dropout is on, the same random
numbers are drawn), so the two differ only after `model.eval()`.

Signal: the largest difference between two evaluations of the same batch
by the same weights in eval mode, and the held-out accuracy in eval mode.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, features, hidden, classes, p):
        super().__init__()
        self.fc1 = nn.Linear(features, hidden)
        self.fc2 = nn.Linear(hidden, classes)
        self.p = p

    def forward(self, x):
        h = F.relu(self.fc1(x))
        h = F.dropout(h, p=self.p, training=self.training)
        return self.fc2(h)


def run(device, iters, meter):
    torch.manual_seed(0)
    features, hidden, classes, batch = 32, 128, 10, 128
    g = torch.Generator().manual_seed(0)
    centers = torch.randn(classes, features, generator=g)
    ys = torch.randint(0, classes, (iters + 1, batch), generator=g)
    xs = centers[ys] + 0.8 * torch.randn(iters + 1, batch, features, generator=g)
    xs, ys = xs.to(device), ys.to(device)
    model = MLP(features, hidden, classes, p=0.5).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for it in range(iters):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xs[it]), ys[it])
        loss.backward()
        optimizer.step()
        meter.tick()
    model.eval()
    with torch.no_grad():
        first = model(xs[iters])
        second = model(xs[iters])
    gap = (first - second).abs().max().item()
    accuracy = (first.argmax(dim=1) == ys[iters]).float().mean().item()
    return {"max_eval_gap": gap, "eval_accuracy": accuracy}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
