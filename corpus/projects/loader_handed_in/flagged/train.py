import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from engine.fit import fit_epoch, warm_up


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--distributed", action="store_true")
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()

    data = TensorDataset(torch.randn(256, 8), torch.randn(256, 1))
    held_out = TensorDataset(torch.randn(64, 8), torch.randn(64, 1))
    if args.distributed:
        train_sampler = DistributedSampler(data, shuffle=True)
        shuffle = False
    else:
        train_sampler = None
        shuffle = True
    train_iter = DataLoader(data, batch_size=16, shuffle=shuffle, sampler=train_sampler, drop_last=True)
    val_iter = DataLoader(held_out, batch_size=16)

    net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    warm_up(net, opt, train_iter)
    for epoch in range(args.epochs):
        fit_epoch(net, opt, epoch, train_iter, val_iter, len(data) // 16)


if __name__ == "__main__":
    main()
