import torch
import torch.nn as nn

from evaluate_model import run_validation


def main(loader, val_batch):
    model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1), nn.Linear(8, 2))
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step, (x, y) in enumerate(loader):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        if step % 100 == 0:
            # expect: TL203
            run_validation(model, val_batch)
