import torch.distributed as dist
from torch.utils.data.distributed import DistributedSampler

try:
    from torch_geometric.loader import DataLoader
except ImportError:
    from torch_geometric.data import DataLoader


def build_loaders(train_graphs, test_graphs, batch_size):
    """Graph batches; sharded over the processes when run distributed."""
    if dist.is_initialized():
        sampler = DistributedSampler(train_graphs)
        train = DataLoader(train_graphs, batch_size=batch_size, shuffle=False, sampler=sampler)
    else:
        train = DataLoader(train_graphs, batch_size=batch_size, shuffle=True)
    test = DataLoader(test_graphs, batch_size=batch_size)
    return train, test
