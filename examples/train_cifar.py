"""Train a small ResNet on CIFAR-10 with mixed precision.

A realistic training script of the kind torchlint is meant for. It runs,
and it trains, but it carries four pitfalls that cost GPU memory, time or
correct results; `make demo` shows torchlint finding them.
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
import torchvision
import torchvision.transforms as T


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)
            )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNet(nn.Module):
    def __init__(self, num_classes=10, width=64):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU()
        )
        self.layers = nn.Sequential(
            BasicBlock(width, width),
            BasicBlock(width, 2 * width, stride=2),
            BasicBlock(2 * width, 4 * width, stride=2),
            BasicBlock(4 * width, 8 * width, stride=2),
        )
        self.head = nn.Linear(8 * width, num_classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.head(x)


def get_loaders(root, batch_size, workers):
    mean, std = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)
    train_tf = T.Compose([
        T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(mean, std)
    ])
    test_tf = T.Compose([T.ToTensor(), T.Normalize(mean, std)])
    train_set = torchvision.datasets.CIFAR10(root, train=True, download=True, transform=train_tf)
    test_set = torchvision.datasets.CIFAR10(root, train=False, download=True, transform=test_tf)
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True,
                              num_workers=workers, pin_memory=True, drop_last=True)
    test_loader = DataLoader(test_set, batch_size=2 * batch_size, shuffle=False,
                             num_workers=workers, pin_memory=True)
    return train_loader, test_loader


def evaluate(model, loader, device):
    model.eval()
    correct, seen = 0, 0
    for images, labels in loader:
        images = images.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)
        logits = model(images)
        correct += (logits.argmax(dim=1) == labels).sum().item()
        seen += labels.numel()
    return correct / seen


def train_one_epoch(model, loader, optimizer, scaler, device, log_every):
    model.train()
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    running = 0.0
    history = []
    start = time.time()
    for step, (images, labels) in enumerate(loader):
        images = images.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)
        with torch.autocast(device_type="cuda", dtype=torch.float16):
            logits = model(images)
        loss = criterion(logits, labels)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        running += loss
        history.append(loss.detach())
        if step % log_every == 0:
            print(f"step {step}: loss {running.item() / (step + 1):.4f} "
                  f"({time.time() - start:.1f}s)")
    return torch.stack(history).mean().item()


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", default="./data")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--log-every", type=int, default=50)
    args = parser.parse_args()

    device = torch.device("cuda")
    train_loader, test_loader = get_loaders(args.data, args.batch_size, args.workers)
    model = ResNet().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9,
                                weight_decay=5e-4, nesterov=True)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=args.lr, epochs=args.epochs, steps_per_epoch=len(train_loader)
    )
    scaler = torch.amp.GradScaler("cuda")

    best = 0.0
    for epoch in range(args.epochs):
        optimizer.zero_grad(set_to_none=True)
        train_loss = train_one_epoch(model, train_loader, optimizer, scaler, device,
                                     args.log_every)
        scheduler.step()
        accuracy = evaluate(model, test_loader, device)
        print(f"epoch {epoch}: train loss {train_loss:.4f}, test accuracy {accuracy:.2%}")
        if accuracy > best:
            best = accuracy
            torch.save({"model": model.state_dict(), "epoch": epoch}, "best.pt")


if __name__ == "__main__":
    main()
