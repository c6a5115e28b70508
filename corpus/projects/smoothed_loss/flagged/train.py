import torch
from torch import nn

from utils.tracking import History, Smoothed


def run(model, loader, epochs=1):
    opt = torch.optim.Adam(model.parameters(), lr=2e-4)
    loss_fn = nn.CrossEntropyLoss()
    smooth, history = Smoothed(), History()
    for epoch in range(epochs):
        for i, (images, labels) in enumerate(loader):
            loss = loss_fn(model(images), labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            # expect: TL101
            shown = smooth.update(loss)
            # expect: TL101
            history.update(loss)
            if i % 50 == 0:
                print(f"epoch {epoch} step {i} loss {float(shown):.4f}")
    return history.last()
