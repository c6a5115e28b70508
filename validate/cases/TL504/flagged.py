"""TL504 wrapped-state-dict-saved reproduction.

A classifier trained wrapped in nn.DataParallel (on the CPU it passes the
batch straight to the module, but its state_dict keys still carry the
`module.` prefix). The checkpoint is written with torch.save to memory and
loaded into a bare model for evaluation, as an inference script would.
flagged.py saves the wrapper's state_dict(); fixed.py saves
`model.module.state_dict()` (the one line that differs).

Signal: what a strict load says, the keys a `strict=False` load fills, and
the held-out accuracy of the model that loaded the checkpoint with
`strict=False`.
"""
import io

import torch
import torch.nn as nn


def make_model(features, classes):
    return nn.Sequential(nn.Linear(features, 64), nn.ReLU(), nn.Linear(64, classes))


def run(device, iters, meter):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    features, classes, size = 20, 4, 128
    centers = torch.randn(classes, features, generator=g) * 2

    def batch(n):
        y = torch.randint(0, classes, (n,), generator=g)
        x = centers[y] + torch.randn(n, features, generator=g)
        return x.to(device), y.to(device)

    model = nn.DataParallel(make_model(features, classes).to(device))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    for _ in range(iters):
        x, y = batch(size)
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
        meter.tick()

    buf = io.BytesIO()
    # expect: TL504
    torch.save({"model": model.state_dict(), "step": iters}, buf)

    # The inference side: a bare model, as it was defined.
    bare = make_model(features, classes).to(device)
    buf.seek(0)
    state = torch.load(buf, map_location=device, weights_only=True)["model"]
    try:
        bare.load_state_dict(state)
        strict = "loaded"
    except RuntimeError as err:
        text = str(err)
        at = text.find("Unexpected key(s)")
        strict = text[at:at + 60] if at >= 0 else text.splitlines()[0][:60]
    result = bare.load_state_dict(state, strict=False)
    filled = len(bare.state_dict()) - len(result.missing_keys)
    x, y = batch(1000)
    with torch.no_grad():
        acc = (bare(x).argmax(1) == y).float().mean().item()
        trained = (model(x).argmax(1) == y).float().mean().item()
    return {"strict_load": strict, "keys_loaded": filled, "keys_expected": len(bare.state_dict()),
            "unexpected_keys": len(result.unexpected_keys), "loaded_accuracy": acc,
            "trained_accuracy": trained, "final_loss": loss.item()}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
