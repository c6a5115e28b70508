"""TL403 unstable-log-exp reproduction.

A linear classifier on unnormalised features (feature scale 10, as raw
embeddings or un-standardised inputs often are) is trained with a
hand-written cross-entropy, `log(sum(exp(logits))) - logits[y]`, with SGD
(learning rate 0.2).
flagged.py computes the log-sum-exp in linear space,
`torch.log(torch.sum(torch.exp(logits), 1))`; fixed.py calls
`torch.logsumexp(logits, 1)` (the one line differs). After the first
update the largest logits are past 88, where float32's exp overflows to inf:
the loss becomes inf and the next update fills the weights with NaN, while
the fused form trains on.

Signal: the largest logit seen, the number of steps whose loss is not
finite, the first such step, and whether the final weights are finite.
"""
import math

import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    features, classes, batch = 32, 10, 64
    g = torch.Generator().manual_seed(0)
    centers = 10.0 * torch.randn(classes, features, generator=g)
    ys = torch.randint(0, classes, (iters, batch), generator=g)
    xs = centers[ys] + 10.0 * torch.randn(iters, batch, features, generator=g)
    xs, ys = xs.to(device), ys.to(device)
    model = nn.Linear(features, classes).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
    losses, max_logit = [], 0.0
    for it in range(iters):
        optimizer.zero_grad()
        logits = model(xs[it])
        max_logit = max(max_logit, logits.detach().abs().max().item())
        # expect: TL403
        log_norm = torch.log(torch.sum(torch.exp(logits), 1))
        loss = (log_norm - logits.gather(1, ys[it].unsqueeze(1)).squeeze(1)).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        meter.tick()
    bad = [i for i, v in enumerate(losses) if not math.isfinite(v)]
    finite_weights = all(torch.isfinite(p).all().item() for p in model.parameters())
    return {"max_logit": max_logit, "nonfinite_steps": len(bad),
            "first_nonfinite_step": bad[0] if bad else -1, "weights_finite": finite_weights,
            "loss_last": losses[-1]}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
