import torch
import torch.nn.functional as F
from torch.utils.data.distributed import DistributedSampler

from graphlib.loader import DataLoader, StreamLoader


def step(model, opt, data):
    opt.zero_grad()
    loss = F.mse_loss(model(data.x), data.y)
    loss.backward()
    opt.step()


def train(model, dataset, world_size, rank):
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank)
    loader = DataLoader(dataset, batch_size=128, sampler=sampler)
    opt = torch.optim.Adam(model.parameters(), lr=0.001)
    for epoch in range(1, 51):
        model.train()
        # expect: TL215
        for data in loader:
            step(model, opt, data)


def train_fixed(model, dataset, world_size, rank):
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank)
    loader = DataLoader(dataset, batch_size=128, sampler=sampler)
    opt = torch.optim.Adam(model.parameters(), lr=0.001)
    for epoch in range(1, 51):
        loader.sampler.set_epoch(epoch)
        # ok: TL215
        for data in loader:
            step(model, opt, data)


def train_stream(model, dataset, world_size, rank):
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank)
    loader = StreamLoader(dataset, batch_size=128, sampler=sampler)
    opt = torch.optim.Adam(model.parameters(), lr=0.001)
    for epoch in range(1, 51):
        # ok: TL215
        for data in loader:
            step(model, opt, data)
