"""TL217 softmax-implicit-dim reproduction.

A sequence tagger: each position of a (batch, time, features) input gets one
of 8 tags from a linear layer, trained with NLLLoss on log-probabilities.
flagged.py calls `F.log_softmax(scores)` with no dim, which on a 3-D tensor
normalises over dim 0, the batch; fixed.py passes `dim=-1`, the tags (the
one line that differs). Both are trained and judged the same way.

Signal: how far each position's tag probabilities are from summing to 1
(as the model's own output), and the true cross-entropy and accuracy of the
trained tagger on the training data (computed over the tags for both).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def run(device, iters, meter):
    torch.manual_seed(0)
    features, tags, batch, time = 16, 8, 32, 12
    g = torch.Generator().manual_seed(0)
    centers = torch.randn(tags, features, generator=g)
    ys = torch.randint(0, tags, (iters, batch, time), generator=g)
    xs = centers[ys] + torch.randn(iters, batch, time, features, generator=g)
    xs, ys = xs.to(device), ys.to(device)
    model = nn.Linear(features, tags).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    sum_error = 0.0
    for it in range(iters):
        optimizer.zero_grad()
        scores = model(xs[it])
        log_probs = F.log_softmax(scores, dim=-1)
        sum_error = max(sum_error, (log_probs.exp().sum(-1) - 1).abs().max().item())
        loss = F.nll_loss(log_probs.flatten(0, 1), ys[it].flatten())
        loss.backward()
        optimizer.step()
        meter.tick()
    with torch.no_grad():
        scores = model(xs.flatten(0, 2))
        true_loss = F.cross_entropy(scores, ys.flatten()).item()
        accuracy = (scores.argmax(dim=-1) == ys.flatten()).float().mean().item()
    return {"max_tag_sum_error": sum_error, "cross_entropy": true_loss, "accuracy": accuracy}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
