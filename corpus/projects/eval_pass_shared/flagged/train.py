import torch
import torch.nn as nn
import torch.nn.functional as F

from evaluation import validate


def main(train_loader, val_loader, epochs):
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in train_loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(epoch, validate(model, val_loader))
