"""TL212 evaluation-in-train-mode reproduction.

A small classifier with batch norm and dropout trains on synthetic data; every
few steps it is evaluated twice in a row on the same held-out batches (the
same weights both times), under torch.no_grad(). flagged.py's evaluate()
never calls model.eval(); fixed.py's calls model.eval() before the pass and
model.train() after it (the two lines that differ).

Signal: how far two evaluations of the same weights disagree (accuracy and
loss), the accuracy at the end, and how far one evaluation moves the
batch-norm running statistics (which training does not use, but every
later evaluation in eval mode and the saved checkpoint do).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def evaluate(model, batches):
    correct, total, loss = 0, 0, 0.0
    with torch.no_grad():
        for x, y in batches:
            # expect: TL212
            logits = model(x)
            loss += F.cross_entropy(logits, y, reduction="sum").item()
            correct += (logits.argmax(1) == y).sum().item()
            total += y.numel()
    return correct / total, loss / total


def run(device, iters, meter):
    torch.manual_seed(0)
    features, classes, batch, eval_every = 32, 4, 64, 5
    g = torch.Generator().manual_seed(0)
    centers = torch.randn(classes, features, generator=g) * 0.4

    def sample(n):
        y = torch.randint(0, classes, (n,), generator=g)
        return (centers[y] + torch.randn(n, features, generator=g)).to(device), y.to(device)

    train = [sample(batch) for _ in range(iters)]
    held_out = [sample(batch) for _ in range(8)]
    model = nn.Sequential(nn.Linear(features, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.5),
                          nn.Linear(128, classes)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    acc_gaps, loss_gaps, stat_moves = [], [], []
    acc = None
    for it in range(iters):
        model.train()
        x, y = train[it]
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
        if (it + 1) % eval_every == 0:
            before = model[1].running_mean.clone()
            acc, loss = evaluate(model, held_out)
            stat_moves.append((model[1].running_mean - before).abs().max().item())
            acc_again, loss_again = evaluate(model, held_out)
            acc_gaps.append(abs(acc - acc_again))
            loss_gaps.append(abs(loss - loss_again))
        meter.tick()
    return {"max_accuracy_gap": max(acc_gaps), "max_loss_gap": max(loss_gaps),
            "max_running_mean_move": max(stat_moves), "final_accuracy": acc,
            "evaluations": len(acc_gaps)}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
