import torch
import torch.nn.functional as F

from models.classifier import Classifier


def validate(model, loader):
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            # ok: TL212
            pred = model(x).argmax(dim=1)
            correct += (pred == y).sum().item()
            total += y.numel()
    return correct / max(total, 1)


def probe(model, batch):
    model.eval()
    with torch.no_grad():
        return model(batch).softmax(dim=1).max().item()


def main(train_loader, val_loader, epochs=10):
    model = Classifier(32, 64, 10)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(epoch, validate(model, val_loader))


def main_with_probe(train_loader, probe_batch, epochs=10):
    model = Classifier(32, 64, 10)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(epochs):
        model.train()
        for step, (x, y) in enumerate(train_loader):
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 200 == 0:
                # ok: TL203
                print(step, probe(model, probe_batch))
