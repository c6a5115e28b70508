import torch
import torch.nn as nn

import synthesis


def sample(path):
    return synthesis.tts_from_checkpoint(path, torch.randn(1, 8))


def train(loader, eval_interval, path):
    model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))
    opt = torch.optim.Adam(model.parameters())
    model.train()
    for step, (x, y) in enumerate(loader):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        if step % eval_interval == 0:
            torch.save(model.state_dict(), path)
            # ok: TL203
            sample(path)
        loss.backward()
        opt.step()
