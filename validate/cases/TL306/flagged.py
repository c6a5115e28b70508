"""TL306 non-blocking-without-pinned-memory reproduction.

Batches of image-sized inputs come from a DataLoader and are copied with
`.to(device, non_blocking=True)`. flagged.py builds the DataLoader without
`pin_memory=True`, so the copies come from pageable memory and cannot run
asynchronously; fixed.py pins (the one line that differs).

Measured: median time per step (CUDA). Without CUDA there is no copy and
nothing to pin, so the CPU run shows nothing and claims nothing.
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def run(device, iters, meter):
    torch.manual_seed(0)
    shape, batch = ((3, 128, 128), 256) if device.type == "cuda" else ((3, 16, 16), 64)
    g = torch.Generator().manual_seed(0)
    data = TensorDataset(torch.randn(iters * batch, *shape, generator=g),
                         torch.randint(0, 10, (iters * batch,), generator=g))
    loader = DataLoader(data, batch_size=batch)
    model = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                          nn.Linear(16, 10)).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for xb, yb in loader:
        # expect: TL306
        xb = xb.to(device, non_blocking=True)
        # expect: TL306
        yb = yb.to(device, non_blocking=True)
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
