from torch.utils.data.distributed import DistributedSampler


def start_epoch(loader, epoch):
    if isinstance(loader.sampler, DistributedSampler):
        loader.sampler.set_epoch(epoch)


def reshuffle(sampler, epoch):
    sampler.set_epoch(epoch)


def begin(loader, epoch, log=None):
    # hands the loader on to the helper that sets the epoch
    start_epoch(loader, epoch)
    if log is not None:
        log(f"epoch {epoch}")
