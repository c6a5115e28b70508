from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def build_loaders(train_set, val_set, world_size, rank, batch_size=32):
    sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank)
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=sampler, num_workers=4)
    val_loader = DataLoader(val_set, batch_size=batch_size, num_workers=4)
    return train_loader, val_loader


def loader_dict(train_set, val_set, batch_size=32):
    loaders = {}
    loaders["train"] = DataLoader(train_set, batch_size=batch_size, num_workers=4,
                                  sampler=DistributedSampler(train_set))
    loaders["val"] = DataLoader(val_set, batch_size=batch_size, num_workers=4)
    return loaders


def loader_and_sampler(train_set, batch_size=32):
    sampler = DistributedSampler(train_set)
    return DataLoader(train_set, batch_size=batch_size, sampler=sampler, num_workers=4), sampler


def prepare(model, loader, device):
    # hands back the loader it is given
    model.to(device)
    return model, loader


def checked(sampler):
    assert sampler.num_replicas >= 1
    return sampler
