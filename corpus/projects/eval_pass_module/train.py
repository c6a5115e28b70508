import torch
import torch.nn as nn
import torch.nn.functional as F

from evaluation import validate, validate_eval_mode, validate_properly


def main(train_loader, val_loader, epochs):
    model = nn.Sequential(nn.Linear(16, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(epoch, validate(model, val_loader), validate_properly(model, val_loader))
        model.eval()
        print(epoch, validate_eval_mode(model, val_loader))
