import copy

import torch
import torch.nn as nn

from utils.parallel import to_devices


def evaluate(model, loader):
    model.eval()
    right = seen = 0
    with torch.no_grad():
        for x, y in loader:
            right += (model(x.cuda()).argmax(1) == y.cuda()).sum().item()
            seen += len(y)
    model.train()
    return right / seen


def fit(train_loader, val_loader, epochs=20):
    model = to_devices(nn.Sequential(nn.Flatten(), nn.Linear(784, 10)))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    best_acc, best_weights = 0.0, None
    for epoch in range(epochs):
        for x, y in train_loader:
            opt.zero_grad()
            loss = criterion(model(x.cuda()), y.cuda())
            loss.backward()
            opt.step()
        acc = evaluate(model, val_loader)
        if acc > best_acc:
            best_acc = acc
            # expect: TL504
            best_weights = copy.deepcopy(model.state_dict())
    torch.save(best_weights, "best.pth")
    return best_acc
