import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from engine.fit import Engine
from engine.fit import fit_epoch as run_epoch


class Runner:
    def __init__(self, net, opt):
        self.engine = Engine(net, opt)

    def epoch(self, loader):
        self.engine.run(loader)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()

    data = TensorDataset(torch.randn(256, 8), torch.randn(256, 1))
    sampler = DistributedSampler(data, shuffle=True)
    loader = DataLoader(data, batch_size=16, sampler=sampler)

    net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    runner = Runner(net, opt)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        run_epoch(net, opt, loader)
        runner.epoch(loader)


if __name__ == "__main__":
    main()
