import torch
import torch.nn as nn

from evaluate import dice_score
from segnet import SegNet


def train_net(net, train_batches, val_batches, epochs=5, lr=0.1):
    optimizer = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
    criterion = nn.BCELoss()
    for epoch in range(epochs):
        net.train()
        for img, mask in train_batches:
            loss = criterion(net(img), mask)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, dice_score(net, val_batches))


if __name__ == "__main__":
    net = SegNet(channels=3, classes=1)
    train_net(net=net, train_batches=[], val_batches=[])
