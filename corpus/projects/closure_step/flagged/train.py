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
            # expect: TL101
            curve.append(loss)
    return curve
