"""Distributed data-parallel image classification with gradient accumulation (corpus script).

torchrun-style DDP training: one process per GPU, a DistributedSampler, a
pinned DataLoader, `model.no_sync()` on the micro-steps that do not step,
an all-reduced validation accuracy once per epoch, and rank-0
checkpoints. A second, "quick" fine-tuning stage was written in a hurry.
Pitfalls with `expect` annotations: the fine-tuning stage all-reduces on
every micro-step (TL502, opt-in), copies its pageable batches with
`non_blocking=True` (TL306), moves the loss weights to the device on
every step (TL302), and reads the loss on every step (TL304, opt-in).
"""
import argparse
import contextlib
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from torchvision import datasets, transforms


class SmallResNet(nn.Module):
    def __init__(self, num_classes=10, width=64):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        self.body = nn.Sequential(
            nn.Conv2d(width, width, 3, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, 2 * width, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(2 * width), nn.ReLU(),
        )
        self.head = nn.Linear(2 * width, num_classes)

    def forward(self, x):
        x = self.body(self.stem(x))
        return self.head(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="./data")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--finetune-epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--accum", type=int, default=4)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--log-every", type=int, default=50)
    p.add_argument("--out", default="./ckpt")
    return p.parse_args()


def setup():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    return local_rank, dist.get_rank(), dist.get_world_size()


def build_loaders(args, rank, world):
    tf = transforms.Compose([transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(), transforms.ToTensor()])
    train_set = datasets.CIFAR10(args.data, train=True, download=rank == 0, transform=tf)
    val_set = datasets.CIFAR10(args.data, train=False, transform=transforms.ToTensor())
    train_sampler = DistributedSampler(train_set, num_replicas=world, rank=rank, shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=world, rank=rank, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                              num_workers=args.workers, pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=256, sampler=val_sampler, num_workers=args.workers, pin_memory=True)
    return train_loader, val_loader, train_sampler


def train_one_epoch(model, loader, opt, scheduler, local_rank, accum, log_every, rank):
    model.train()
    running = torch.zeros((), device=local_rank)
    for step, (images, targets) in enumerate(loader):
        # ok: TL306
        images = images.to(local_rank, non_blocking=True)
        # ok: TL306
        targets = targets.to(local_rank, non_blocking=True)
        last_micro_step = (step + 1) % accum == 0
        # Micro-steps that do not update skip the all-reduce.
        with (contextlib.nullcontext() if last_micro_step else model.no_sync()):
            loss = F.cross_entropy(model(images), targets) / accum
            # ok: TL502
            loss.backward()
        running += loss.detach()
        if last_micro_step:
            opt.step()
            scheduler.step()
            opt.zero_grad(set_to_none=True)
        if step % log_every == 0 and rank == 0:
            # ok: TL304
            print(f"step {step} loss {running.item() * accum / (step + 1):.4f}")


@torch.no_grad()
def evaluate(model, loader, local_rank):
    model.eval()
    correct = torch.zeros((), device=local_rank)
    total = torch.zeros((), device=local_rank)
    for images, targets in loader:
        # ok: TL306
        images = images.to(local_rank, non_blocking=True)
        # ok: TL306
        targets = targets.to(local_rank, non_blocking=True)
        correct += (model(images).argmax(1) == targets).sum()
        total += targets.numel()
    dist.all_reduce(correct)
    dist.all_reduce(total)
    # ok: TL304
    return (correct / total).item()


def finetune_head(model, dataset, local_rank, args, class_counts):
    """The quick stage: rebalanced loss on a subset, no sampler, no no_sync."""
    loader = DataLoader(dataset, batch_size=args.batch_size // 2, shuffle=True, num_workers=2)
    weights = 1.0 / torch.tensor(class_counts, dtype=torch.float32)
    opt = torch.optim.SGD(model.module.head.parameters(), lr=args.lr * 0.1, momentum=0.9)
    for epoch in range(args.finetune_epochs):
        for i, (images, targets) in enumerate(loader):
            # expect: TL306
            images = images.to(local_rank, non_blocking=True)
            targets = targets.to(local_rank)
            # expect: TL302
            loss = F.cross_entropy(model(images), targets, weight=weights.to(local_rank)) / args.accum
            # expect: TL502
            loss.backward()
            # expect: TL304
            print(f"finetune {epoch}:{i} {loss.item():.4f}")
            if (i + 1) % args.accum == 0:
                opt.step()
                opt.zero_grad(set_to_none=True)


def main():
    args = parse_args()
    local_rank, rank, world = setup()
    train_loader, val_loader, train_sampler = build_loaders(args, rank, world)
    model = SmallResNet().to(local_rank)
    model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    model = DDP(model, device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4, nesterov=True)
    steps_per_epoch = len(train_loader) // args.accum
    scheduler = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, epochs=args.epochs, steps_per_epoch=steps_per_epoch)
    os.makedirs(args.out, exist_ok=True)
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        train_one_epoch(model, train_loader, opt, scheduler, local_rank, args.accum, args.log_every, rank)
        acc = evaluate(model, val_loader, local_rank)
        if rank == 0:
            print(f"epoch {epoch} val acc {acc:.4f}")
            torch.save({"model": model.module.state_dict(), "optimizer": opt.state_dict(), "epoch": epoch},
                       os.path.join(args.out, "last.pt"))
        dist.barrier()
        # ok: TL305
        torch.cuda.empty_cache()
    finetune_head(model, train_loader.dataset, local_rank, args, class_counts=[5000] * 10)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
