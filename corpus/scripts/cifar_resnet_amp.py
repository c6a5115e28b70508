"""CIFAR-10 ResNet-18 training with automatic mixed precision (corpus script).

A complete script in the shape people write: GradScaler + autocast training
with an optional mixup branch, one-cycle schedule, a guarded evaluation,
checkpoint/resume and a final per-class report with test-time augmentation.
Real pitfalls carry `expect` annotations: the mixup losses computed after the
autocast block (TL401), per-step loss tensors kept for a loss plot (TL101),
and the per-class report run after model.eval() without no_grad (TL102).
Tricky correct spots carry `ok` annotations.
"""
import argparse
import os
import time

import numpy as np
import torch
import torch.nn.functional as F
import torchvision
import torchvision.transforms as transforms
from torch import nn

CIFAR_MEAN = (0.4914, 0.4822, 0.4465)
CIFAR_STD = (0.2470, 0.2435, 0.2616)


class BasicBlock(nn.Module):
    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Identity()
        if stride != 1 or in_planes != planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_planes, planes, 1, stride=stride, bias=False), nn.BatchNorm2d(planes)
            )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNet18(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.in_planes = 64
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1, bias=False), nn.BatchNorm2d(64), nn.ReLU())
        self.stages = nn.Sequential(
            self._make_stage(64, 2, 1),
            self._make_stage(128, 2, 2),
            self._make_stage(256, 2, 2),
            self._make_stage(512, 2, 2),
        )
        self.fc = nn.Linear(512, num_classes)

    def _make_stage(self, planes, blocks, stride):
        layers = []
        for s in [stride] + [1] * (blocks - 1):
            # ok: TL101
            layers.append(BasicBlock(self.in_planes, planes, s))
            self.in_planes = planes
        return nn.Sequential(*layers)

    def forward(self, x):
        out = self.stages(self.stem(x))
        return self.fc(F.adaptive_avg_pool2d(out, 1).flatten(1))


def parse_args():
    p = argparse.ArgumentParser(description="CIFAR-10 ResNet-18 with AMP")
    p.add_argument("--data", default="./data")
    p.add_argument("--out", default="./runs/cifar")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--lr", type=float, default=0.2)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--mixup", type=float, default=0.0, help="mixup alpha; 0 disables")
    p.add_argument("--clip", type=float, default=5.0)
    p.add_argument("--label-smoothing", type=float, default=0.1)
    p.add_argument("--log-every", type=int, default=50)
    p.add_argument("--resume", default="")
    return p.parse_args()


def get_loaders(data_dir, batch_size, workers):
    train_tf = transforms.Compose([
        transforms.RandomCrop(32, padding=4),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(CIFAR_MEAN, CIFAR_STD),
    ])
    test_tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize(CIFAR_MEAN, CIFAR_STD)])
    train_set = torchvision.datasets.CIFAR10(data_dir, train=True, download=True, transform=train_tf)
    test_set = torchvision.datasets.CIFAR10(data_dir, train=False, download=True, transform=test_tf)
    train_loader = torch.utils.data.DataLoader(
        train_set, batch_size=batch_size, shuffle=True, num_workers=workers, pin_memory=True, drop_last=True
    )
    test_loader = torch.utils.data.DataLoader(
        test_set, batch_size=2 * batch_size, shuffle=False, num_workers=workers, pin_memory=True
    )
    return train_loader, test_loader


def mix_batch(images, targets, alpha):
    lam = float(np.random.beta(alpha, alpha))
    perm = torch.randperm(images.size(0), device=images.device)
    return lam * images + (1.0 - lam) * images[perm], targets, targets[perm], lam


def train_one_epoch(model, loader, optimizer, scheduler, criterion, scaler, device, args, loss_curve):
    model.train()
    running = torch.zeros((), device=device)
    correct, seen = 0, 0
    for step, (images, targets) in enumerate(loader):
        images = images.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        if args.mixup > 0:
            images, y_a, y_b, lam = mix_batch(images, targets, args.mixup)
            with torch.autocast("cuda", dtype=torch.float16):
                logits = model(images)
            # expect: TL401
            loss_a = criterion(logits, y_a)
            # expect: TL401
            loss_b = criterion(logits, y_b)
            loss = lam * loss_a + (1.0 - lam) * loss_b
        else:
            with torch.autocast("cuda", dtype=torch.float16):
                logits = model(images)
                # ok: TL401
                loss = criterion(logits, targets)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        # ok: TL201
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        # expect: TL101
        loss_curve.append(loss)
        # ok: TL101
        running += loss.detach()
        # expect: TL304
        correct += (logits.argmax(dim=1) == targets).sum().item()
        seen += targets.size(0)
        if step % args.log_every == 0:
            print(f"  step {step:4d}/{len(loader)}  loss {loss.item():.4f}  lr {scheduler.get_last_lr()[0]:.4f}")
    return running.item() / len(loader), correct / seen


@torch.no_grad()
def evaluate(model, loader, criterion, device):
    model.eval()
    total_loss = torch.zeros((), device=device)
    correct, n = 0, 0
    for images, targets in loader:
        images = images.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.float16):
            # ok: TL102
            logits = model(images)
            loss = criterion(logits, targets)
        # ok: TL101
        total_loss += loss * targets.size(0)
        correct += (logits.argmax(dim=1) == targets).sum().item()
        n += targets.size(0)
    return total_loss.item() / n, correct / n


def per_class_report(model, loader, device, classes):
    model.eval()
    hits = torch.zeros(len(classes), device=device)
    counts = torch.zeros(len(classes), device=device)
    for images, targets in loader:
        images, targets = images.to(device), targets.to(device)
        # expect: TL102
        probs = model(images).softmax(dim=1)
        # expect: TL102
        probs = probs + model(torch.flip(images, dims=[3])).softmax(dim=1)
        right = (probs.argmax(dim=1) == targets).float()
        hits.index_add_(0, targets, right)
        counts.index_add_(0, targets, torch.ones_like(right))
    for name, acc in zip(classes, (hits / counts).tolist()):
        print(f"{name:>12s}  {acc:.3f}")


def save_checkpoint(path, model, optimizer, scheduler, scaler, epoch, best_acc):
    torch.save({
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "scaler": scaler.state_dict(),
        "epoch": epoch,
        "best_acc": best_acc,
    }, path)


def load_checkpoint(path, model, optimizer, scheduler, scaler, device):
    ckpt = torch.load(path, map_location=device, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    scheduler.load_state_dict(ckpt["scheduler"])
    scaler.load_state_dict(ckpt["scaler"])
    return ckpt["epoch"] + 1, ckpt["best_acc"]


def main():
    args = parse_args()
    os.makedirs(args.out, exist_ok=True)
    device = torch.device("cuda")
    torch.backends.cudnn.benchmark = True

    train_loader, test_loader = get_loaders(args.data, args.batch_size, args.workers)
    model = ResNet18(num_classes=10).to(device)
    criterion = nn.CrossEntropyLoss(label_smoothing=args.label_smoothing)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4, nesterov=True)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=args.lr, epochs=args.epochs, steps_per_epoch=len(train_loader)
    )
    scaler = torch.amp.GradScaler("cuda")

    start_epoch, best_acc = 0, 0.0
    if args.resume and os.path.isfile(args.resume):
        start_epoch, best_acc = load_checkpoint(args.resume, model, optimizer, scheduler, scaler, device)
        print(f"resumed from epoch {start_epoch}, best acc {best_acc:.4f}")

    loss_curve = []
    for epoch in range(start_epoch, args.epochs):
        t0 = time.time()
        train_loss, train_acc = train_one_epoch(
            model, train_loader, optimizer, scheduler, criterion, scaler, device, args, loss_curve
        )
        test_loss, test_acc = evaluate(model, test_loader, criterion, device)
        print(
            f"epoch {epoch:3d}  train {train_loss:.4f}/{train_acc:.4f}  "
            f"test {test_loss:.4f}/{test_acc:.4f}  {time.time() - t0:.0f}s"
        )
        save_checkpoint(os.path.join(args.out, "last.pt"), model, optimizer, scheduler, scaler, epoch, best_acc)
        if test_acc > best_acc:
            best_acc = test_acc
            torch.save(model.state_dict(), os.path.join(args.out, "best.pt"))

    np.save(os.path.join(args.out, "loss_curve.npy"), np.array([l.item() for l in loss_curve]))
    model.load_state_dict(torch.load(os.path.join(args.out, "best.pt"), map_location=device, weights_only=True))
    per_class_report(model, test_loader, device, test_loader.dataset.classes)


if __name__ == "__main__":
    main()
