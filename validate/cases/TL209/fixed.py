"""TL209 sigmoid-before-bce reproduction.

A linear binary classifier starts confidently wrong (a large bias makes
every logit about +20, as after a bad initialisation or a learning-rate
spike) and is trained with SGD. flagged.py applies `torch.sigmoid` and nn.BCELoss;
fixed.py uses nn.BCEWithLogitsLoss on the logits (the criterion and the
loss line differ). In float32, sigmoid saturates to exactly 0 or 1, BCELoss
clamps its log, and no gradient flows back through the saturated sigmoid.

Signal: the gradient norm of the first step, and the binary cross-entropy
(computed from the logits, the same way for both) and accuracy after the
last step.
"""
import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    features, batch = 16, 128
    g = torch.Generator().manual_seed(0)
    true_w = torch.randn(1, features, generator=g)
    xs = torch.randn(iters, batch, features, generator=g)
    ys = (xs @ true_w.t() > 0).float()
    xs, ys = xs.to(device), ys.to(device)
    model = nn.Linear(features, 1).to(device)
    with torch.no_grad():
        model.bias.fill_(20.0)
    criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    grad_norms = []
    for it in range(iters):
        optimizer.zero_grad()
        logits = model(xs[it])
        # ok: TL209
        loss = criterion(logits, ys[it])
        loss.backward()
        grad_norms.append(model.weight.grad.norm().item())
        optimizer.step()
        meter.tick()
    with torch.no_grad():
        logits = model(xs.flatten(0, 1))
        true_loss = nn.functional.binary_cross_entropy_with_logits(logits, ys.flatten(0, 1)).item()
        accuracy = ((logits > 0).float() == ys.flatten(0, 1)).float().mean().item()
    return {"first_grad_norm": grad_norms[0], "bce": true_loss, "accuracy": accuracy}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
