"""TL501 unsafe-torch-load reproduction.

A small model trains, saves a checkpoint and resumes from it; then it is
asked to resume from a checkpoint someone else made, which carries a pickled
object whose unpickling runs code (here: it writes a marker file).
flagged.py loads checkpoints with `weights_only=False`; fixed.py with
`weights_only=True` (the one line that differs), which refuses to unpickle
anything but tensors and plain containers.

Signal: whether the crafted checkpoint's code ran (the marker exists), what
loading it did, and whether the real checkpoint still loads. Runs the same
on any device; no GPU needed.
"""
import os
import tempfile

import torch
import torch.nn as nn


class Payload:
    """What a malicious checkpoint carries: unpickling it calls exec()."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (exec, ("open(%r, 'w').write('code ran inside torch.load')" % self.marker,))


def load_checkpoint(path):
    # expect: TL501
    return torch.load(path, map_location="cpu", weights_only=False)


def run(device, iters, meter):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters, 32, 8, generator=g).to(device)
    ys = torch.randn(iters, 32, 1, generator=g).to(device)
    model = nn.Linear(8, 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for it in range(iters):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(xs[it]), ys[it])
        loss.backward()
        optimizer.step()
        meter.tick()
    with tempfile.TemporaryDirectory() as tmp:
        mine, theirs = os.path.join(tmp, "mine.pt"), os.path.join(tmp, "theirs.pt")
        marker = os.path.join(tmp, "marker")
        torch.save({"model": model.state_dict(), "step": iters}, mine)
        torch.save({"model": model.state_dict(), "step": Payload(marker)}, theirs)
        model.load_state_dict(load_checkpoint(mine)["model"])
        try:
            load_checkpoint(theirs)
            outcome = "loaded"
        except Exception as exc:  # weights_only=True raises UnpicklingError
            outcome = "refused (%s)" % type(exc).__name__
        code_ran = os.path.exists(marker)
    return {"own_checkpoint_loaded": True, "crafted_checkpoint": outcome, "code_ran": code_ran}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
