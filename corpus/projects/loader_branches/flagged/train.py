import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, DistributedSampler

from utils.datasets import *


def train(model, optimizer, data, epochs, rank, world_size):
    # the factory comes through the star import; it builds the distributed
    # loader in one branch and a plain one in the other
    dataloader, dataset = create_dataloader(data, 16, rank=rank, world_size=world_size, split=True)
    for epoch in range(epochs):
        model.train()
        pbar = tqdm(enumerate(dataloader), total=len(dataloader))
        # expect: TL215
        for i, (imgs, targets) in pbar:
            loss = F.cross_entropy(model(imgs), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            report(pbar, loss.item())


def main(model, optimizer, train_set, opt, seed):
    # the configuration decides whether the sampler shuffles
    if opt["dist"]:
        train_sampler = DistributedSampler(train_set, shuffle=opt["shuffle"], drop_last=True, seed=seed)
        train_loader = DataLoader(train_set, batch_size=opt["batch_size"], shuffle=False, num_workers=4,
                                  sampler=train_sampler)
    else:
        train_loader = DataLoader(train_set, batch_size=opt["batch_size"], shuffle=opt["shuffle"],
                                  num_workers=4)
    for epoch in range(opt["epochs"]):
        # expect: TL215
        for i, (x, y) in enumerate(train_loader):
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
