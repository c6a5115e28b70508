import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

import backends


def main(args, model, dataset):
    backend = backends.select(args)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt, dist_loader = backend.distribute(model=model, optimizer=opt, training_data=loader)
    for epoch in range(args.epochs):
        # the loader comes back through a method of a class chosen at run time
        # todo-expect: TL215
        for x, y in dist_loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
