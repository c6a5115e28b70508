import torch

from nets.wavenet import WaveNet


def train(loader, steps):
    model = WaveNet(16)
    optimizer = torch.optim.Adam(model.parameters())
    for x, y in loader:
        model.train()
        # ok: TL102
        model.fit_batch(x, y, optimizer)
        model.eval()
        # ok: TL102
        loss = model.training_loss(x, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.train()
    # ok: TL102
    return model.incremental_forward(torch.zeros(1, 1, 1), steps)
