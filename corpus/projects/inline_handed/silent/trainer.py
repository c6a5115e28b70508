import torch
import torch.nn as nn


def train_net(net, train_batches, val_batches, epochs=5, lr=0.1):
    optimizer = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
    criterion = nn.BCEWithLogitsLoss()
    for epoch in range(epochs):
        net.train()
        for img, mask in train_batches:
            loss = criterion(net(img), mask)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        dice = 0.0
        net.eval()
        with torch.no_grad():
            for img, mask in val_batches:
                # ok: TL212
                pred = net(img).sigmoid().round()
                dice += (2 * (pred * mask).sum() / (pred.sum() + mask.sum() + 1e-6)).item()
        print(epoch, dice / max(len(val_batches), 1))
