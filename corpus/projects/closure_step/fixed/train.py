import torch.nn as nn

from optim.radam import PlainRAdam


def train(loader, epochs=5):
    model = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 1))
    criterion = nn.MSELoss()
    opt = PlainRAdam(model.parameters(), lr=1e-3)
    curve = []
    for epoch in range(epochs):
        for x, y in loader:

            def closure():
                opt.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                return loss

            loss = opt.step(closure)
            # ok: TL101
            curve.append(loss.item())
    return curve


def train_detached(loader):
    model = nn.Linear(10, 1)
    opt = PlainRAdam(model.parameters())
    curve = []
    for x, y in loader:

        def closure():
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            return loss.detach()

        # ok: TL101
        curve.append(opt.step(closure))
    return curve
