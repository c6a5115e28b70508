"""TL308 dataloader-in-main-process (opt-in): a script that trains on the CPU.

Nothing in this file puts work on an accelerator, so loading in the training
process competes with nothing that waits: no finding.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def main():
    data = TensorDataset(torch.randn(512, 20), torch.randint(0, 3, (512,)))
    model = nn.Linear(20, 3)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    # ok: TL308
    loader = DataLoader(data, batch_size=32, shuffle=True)
    for epoch in range(5):
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()


if __name__ == "__main__":
    main()
