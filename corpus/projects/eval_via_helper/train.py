import torch
import torch.nn as nn


def eval_model(model, step):
    import synthesis

    return synthesis.tts(model, torch.randn(1, 8))


def train(loader, eval_interval):
    model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))
    opt = torch.optim.Adam(model.parameters())
    model.train()
    for step, (x, y) in enumerate(loader):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        if step % eval_interval == 0:
            # expect: TL203
            eval_model(model, step)
        loss.backward()
        opt.step()
