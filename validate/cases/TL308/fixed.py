"""TL308 dataloader-in-main-process reproduction.

A small convolutional classifier trains on a synthetic image dataset whose
__getitem__ does real work per sample (it renders an image from its seed,
blurs it, crops, flips and normalises it), as decoding and augmentation do.
flagged.py builds the DataLoader without worker processes, so every batch
is prepared in the training process between steps; fixed.py passes
num_workers=2 (the one line that differs), so batches are prepared in
worker processes while the step runs.

Signal: the median time per step (the meter ticks once per step, so a step
includes waiting for its batch) and the loss, which is the same for both:
the workers produce the same batches in the same order.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class RenderedImages(Dataset):
    """Images made on demand: the per-sample work a real dataset's decode
    and augmentation pipeline does."""

    def __init__(self, n, size=64, crop=56):
        self.n, self.size, self.crop = n, size, crop

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        img = torch.rand(3, self.size, self.size, generator=g)
        for _ in range(3):  # blur
            img = F.avg_pool2d(F.pad(img[None], (1, 1, 1, 1), mode="reflect"), 3, stride=1)[0]
        top, left = (int(v) for v in torch.randint(0, self.size - self.crop, (2,), generator=g))
        img = img[:, top:top + self.crop, left:left + self.crop]
        if i % 2:
            img = img.flip(2)
        img = (img - img.mean((1, 2), keepdim=True)) / (img.std((1, 2), keepdim=True) + 1e-5)
        return img, i % 10


def run(device, iters, meter):
    torch.manual_seed(0)
    torch.set_num_threads(1)
    dataset = RenderedImages(iters * 32)
    loader = DataLoader(dataset, batch_size=32, num_workers=2)
    model = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2), nn.ReLU(), nn.Conv2d(16, 32, 3, stride=2), nn.ReLU(),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    losses = []
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        meter.tick()
    return {"mean_loss": sum(losses) / len(losses), "steps": len(losses)}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
