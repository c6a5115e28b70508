"""TL206 to-result-discarded reproduction.

Batches come from a DataLoader over float64 data (as numpy arrays often
are); each batch is converted for the model with `.to(device, float32)`.
flagged.py calls it as a statement and discards the result, as if `.to()`
worked in place; fixed.py re-binds the name (the one line that differs).

Signal: the device and dtype the batch still has after the call, and the
exception the forward then raises.
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def run(device, iters, meter):
    torch.manual_seed(0)
    features, batch = 32, 64
    g = torch.Generator().manual_seed(0)
    data = TensorDataset(torch.randn(iters * batch, features, generator=g, dtype=torch.float64),
                         torch.randn(iters * batch, 1, generator=g, dtype=torch.float64))
    loader = DataLoader(data, batch_size=batch)
    model = nn.Linear(features, 1).to(device)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for xb, yb in loader:
        # expect: TL206
        xb.to(device, torch.float32)
        yb = yb.to(device, torch.float32)
        meter.note("batch_after_to", "%s %s" % (xb.device.type, xb.dtype))
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        meter.tick()
    return {"final_loss": loss.item()}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
