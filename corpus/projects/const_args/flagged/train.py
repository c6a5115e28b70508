import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from models import Classifier


def collect(model, loader, mode="inference"):
    model.eval()
    outputs = []
    for x, _ in loader:
        if mode == "inference":
            with torch.no_grad():
                out = model(x)
        else:
            # expect: TL102
            out = model(x)
        # expect: TL106
        outputs.append(out)
    model.train()
    return torch.cat(outputs)


def train_epoch(model, loader, optimizer):
    criterion = nn.CrossEntropyLoss()
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()


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
    final = collect(model, val_loader, mode="finetune")
    print(final.shape)


if __name__ == "__main__":
    main()
