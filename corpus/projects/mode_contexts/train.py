import torch
import torch.nn as nn

from evaluate import run_epoch, score, score_train


def build():
    return nn.Sequential(nn.Linear(16, 32), nn.BatchNorm1d(32), nn.Dropout(0.1), nn.Linear(32, 4))


def main(train_loader, valid_loader, epochs):
    model = build()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        run_epoch(model, train_loader, opt, "train")
        run_epoch(model, valid_loader, None, mode="valid")
    model.train()
    score(model, valid_loader, train=True)
    score(model, valid_loader, train=False)


def check(valid_loader):
    model = build()
    model.train()
    score_train(model, valid_loader)
    score_train(model, valid_loader, train=True)
