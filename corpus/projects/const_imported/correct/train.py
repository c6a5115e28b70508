import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from engine import collect, gather


class Classifier(nn.Module):
    def __init__(self, dim=32, classes=10):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Dropout(0.2))
        self.head = nn.Linear(64, classes)

    def forward(self, x):
        return self.head(self.body(x))


def train_epoch(model, loader, optimizer):
    criterion = nn.CrossEntropyLoss()
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()


def report(fn, model, loader):
    scores = fn(model, loader)
    print(scores.argmax(1).float().mean().item())


def main():
    data = TensorDataset(torch.randn(256, 32), torch.randint(0, 10, (256,)))
    train_loader = DataLoader(data, batch_size=32, shuffle=True)
    val_loader = DataLoader(data, batch_size=64)
    model = Classifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(5):
        train_epoch(model, train_loader, optimizer)
        scores = collect(model, val_loader, mode="inference")
        print(epoch, scores.argmax(1).float().mean().item())
        print(gather(model, val_loader, "inference").shape)
    final = collect(model, val_loader)
    print(final.shape)


if __name__ == "__main__":
    main()
