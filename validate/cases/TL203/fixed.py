"""TL203 eval-mode-not-restored reproduction.

A small MLP with dropout and batch norm trains on synthetic data and is
evaluated every few iterations after `model.eval()`. fixed.py calls
`model.train()` after each evaluation; flagged.py does not (the one line
that differs), so every training step after the first evaluation runs with
dropout off and batch norm frozen on its running statistics.

Signal: how many training steps ran in eval mode, `model.training` at the
end, and the batch-norm running mean (not updated in eval mode).
"""
import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    features, batch, eval_every = 32, 64, 5
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters, batch, features, generator=g).to(device)
    ys = torch.randint(0, 4, (iters, batch), generator=g).to(device)
    x_val = torch.randn(batch, features, generator=g).to(device)
    model = nn.Sequential(nn.Linear(features, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.5),
                          nn.Linear(64, 4)).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    steps_in_eval_mode, bn_updates, val_logits = 0, 0, None
    for it in range(iters):
        steps_in_eval_mode += not model.training
        before = model[1].running_mean.clone()
        optimizer.zero_grad()
        loss = criterion(model(xs[it]), ys[it])
        loss.backward()
        optimizer.step()
        bn_updates += not torch.equal(before, model[1].running_mean)
        if (it + 1) % eval_every == 0:
            # ok: TL203
            model.eval()
            with torch.no_grad():
                val_logits = model(x_val)
            model.train()
        meter.tick()
    return {"steps_in_eval_mode": steps_in_eval_mode, "training_flag_at_end": model.training,
            "batchnorm_updates": bn_updates, "iterations": iters}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
