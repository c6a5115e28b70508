import torch
import torch.nn as nn

from metrics import DiceMetric
from model import SegNet


def train_net(net, train_batches, val_batches, device, epochs=5, lr=0.1):
    optimizer = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
    criterion = nn.BCEWithLogitsLoss()
    metric = DiceMetric(threshold=0.5).to(device)
    for epoch in range(epochs):
        net.train()
        for img, mask in train_batches:
            loss = criterion(net(img), mask)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, metric.score(net, val_batches))


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = SegNet(3, 1).to(device)
    train_net(net, [], [], device)
