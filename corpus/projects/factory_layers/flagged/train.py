import torch
import torch.nn as nn
import torch.nn.functional as F

from models import build_detector
from models.detector import Detector


def validate(net, loader):
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            # expect: TL212
            out = net(x)
            correct += (out.argmax(1) == y).sum().item()
    return correct


def evaluate(net, loader):
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            # expect: TL212
            out = net(x)
            correct += (out.argmax(1) == y).sum().item()
    return correct


def check(net, loader):
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            # expect: TL212
            out = net(x)
            correct += (out.argmax(1) == y).sum().item()
    return correct


def make_body(width):
    # a local factory
    return nn.Sequential(nn.Linear(width, width), nn.Dropout(0.2), nn.ReLU())


class Tagger(nn.Module):
    def __init__(self, width, num_classes):
        super().__init__()
        self.body = make_body(width)
        self.head = nn.Linear(width, num_classes)

    def forward(self, x):
        return self.head(self.body(x))


def fit(model, train_loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(epochs):
        model.train()
        for x, y in train_loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()


def main(train_loader, val_loader, epochs):
    # the class builds its backbone through factories of another module
    model = Detector(0, 10)
    fit(model, train_loader, epochs)
    print(validate(model, val_loader))


def main_factory(train_loader, val_loader, epochs):
    # a factory of another module returns the model
    model = build_detector(1, 10)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(epoch, evaluate(model, val_loader))


def main_local(train_loader, val_loader, epochs):
    model = Tagger(32, 10)
    fit(model, train_loader, epochs)
    print(check(model, val_loader))
