"""TL402 deprecated-amp-api reproduction.

A small mixed-precision training loop. flagged.py opens the autocast region
with `torch.cuda.amp.autocast(...)`, deprecated in PyTorch 2.4 in favour of
`torch.autocast(device_type, ...)`, which fixed.py uses (the one line that
differs). Both enable autocast only on CUDA, so the arithmetic is the same.

Signal: the deprecation warnings raised while training (none before
PyTorch 2.4, where the old entry point was not yet deprecated).
"""
import warnings

import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    features, batch = 32, 64
    g = torch.Generator().manual_seed(0)
    x = torch.randn(batch, features, generator=g).to(device)
    y = torch.randn(batch, 1, generator=g).to(device)
    model = nn.Linear(features, 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    criterion = nn.MSELoss()
    use_amp = torch.device(device).type == "cuda"
    caught = []
    for _ in range(iters):
        optimizer.zero_grad()
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            # ok: TL402
            with torch.autocast(device_type="cuda", enabled=use_amp):
                loss = criterion(model(x), y)
        caught += [str(w.message) for w in seen if issubclass(w.category, (FutureWarning, DeprecationWarning))]
        loss.float().backward()
        optimizer.step()
        meter.tick()
    meter.note("deprecation_warnings", len(caught))
    meter.note("first_warning", caught[0][:120] if caught else "")
    return {"final_loss": loss.item()}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
