import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def init_distributed():
    dist.init_process_group(backend="nccl")
    rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(rank)
    return rank


def wrap(model, rank):
    return DistributedDataParallel(model.cuda(rank), device_ids=[rank])


def unwrap(model):
    return model.module
