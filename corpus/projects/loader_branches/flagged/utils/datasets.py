import os

import torch
from tqdm import tqdm


def create_dataloader(dataset, batch_size, rank=0, world_size=1, split=False):
    workers = min(os.cpu_count() or 1, 8)
    if split:
        sampler = torch.utils.data.distributed.DistributedSampler(dataset, num_replicas=world_size, rank=rank)
        dataloader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, num_workers=workers,
                                                 sampler=sampler)
    else:
        dataloader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, num_workers=workers,
                                                 shuffle=True)
    return dataloader, dataset


def report(pbar, loss):
    pbar.set_description("loss %.4f" % loss)
