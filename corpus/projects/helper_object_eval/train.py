from evaluation import encode
from pair import Pair


def validate(model, loader):
    return encode(model, loader)


def train(model, loader, val_loader):
    model.train_start()
    for i, (a, b) in enumerate(loader):
        model.step(a, b)
        if i % 100 == 0:
            # expect: TL203
            validate(model, val_loader)


def train_restoring(model, loader, val_loader):
    for i, (a, b) in enumerate(loader):
        model.train_start()
        model.step(a, b)
        if i % 100 == 0:
            # ok: TL203
            validate(model, val_loader)


def main(loader, val_loader):
    model = Pair()
    train(model, loader, val_loader)
    train_restoring(model, loader, val_loader)
