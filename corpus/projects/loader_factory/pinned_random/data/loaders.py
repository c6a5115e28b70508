from torch.utils.data import DataLoader, RandomSampler
from torch.utils.data.distributed import DistributedSampler


def build_loaders(train_set, val_set, batch_size=32):
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=RandomSampler(train_set),
                              num_workers=4, pin_memory=True)
    val_loader = DataLoader(val_set, batch_size=batch_size, num_workers=4, pin_memory=True)
    return {"train": train_loader, "val": val_loader}


def ordered_loader(train_set, batch_size=32):
    sampler = DistributedSampler(train_set, shuffle=False)
    return DataLoader(train_set, batch_size=batch_size, sampler=sampler, num_workers=4)
