from torch.utils.data.distributed import DistributedSampler


def create_sampler(dataset, shuffle, num_gpus):
    sampler = DistributedSampler(dataset) if num_gpus > 1 else None
    return sampler
