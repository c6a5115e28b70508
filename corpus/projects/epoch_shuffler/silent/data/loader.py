import torch
from torch.utils.data import BatchSampler, DataLoader
from torch.utils.data.distributed import DistributedSampler

from data import utils


def construct_loader(dataset, batch_size, num_gpus):
    sampler = utils.create_sampler(dataset, True, num_gpus)
    return DataLoader(dataset, batch_size=batch_size, shuffle=(False if sampler else True), sampler=sampler)


def loader_and_sampler(dataset, batch_size):
    sampler = DistributedSampler(dataset, num_replicas=2, rank=0)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler), sampler


def shuffle_dataset(loader, cur_epoch):
    sampler = (
        loader.batch_sampler.sampler
        if isinstance(loader.batch_sampler, BatchSampler)
        else loader.sampler
    )
    if isinstance(sampler, DistributedSampler):
        sampler.set_epoch(cur_epoch)


def reshuffle(sampler, epoch):
    if sampler is not None:
        sampler.set_epoch(epoch)
