from torch.utils.data import DataLoader, DistributedSampler


class Experiment:
    def get_loaders(self):
        raise NotImplementedError


class ConfigExperiment(Experiment):
    def __init__(self, datasets, distributed):
        self.datasets = datasets
        self.distributed = distributed

    def get_loaders(self):
        loaders = {}
        for name, ds in self.datasets.items():
            params = {"dataset": ds, "batch_size": 8, "num_workers": 2}
            if self.distributed:
                params["sampler"] = DistributedSampler(ds)
            loaders[name] = DataLoader(**params)
        return loaders
