"""A DataLoader handed to a trainer's constructor (TL215).

`prepare_dataloader` builds a DataLoader over a shuffling DistributedSampler
and `main` hands it to `Trainer(...)`, whose constructor keeps it as
`self.train_data`; the epoch loop iterates it and nothing calls
`set_epoch`, so every epoch sees the same order (the bug pytorch/examples
fixed in its DDP tutorial series). The loader is followed through every
instantiation of the class in the file. The twins: a trainer that sets the
epoch, and a trainer also instantiated with a loader the file does not
build.
"""
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def prepare_dataloader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size, shuffle=False, sampler=DistributedSampler(dataset))


class Trainer:
    def __init__(self, model, train_data, optimizer):
        self.model = model
        self.train_data = train_data
        self.optimizer = optimizer

    def _run_epoch(self, epoch):
        # expect: TL215
        for source, targets in self.train_data:
            self.optimizer.zero_grad()
            F.cross_entropy(self.model(source), targets).backward()
            self.optimizer.step()

    def train(self, max_epochs):
        for epoch in range(max_epochs):
            self._run_epoch(epoch)


class EpochTrainer:
    def __init__(self, model, train_data, optimizer):
        self.model = model
        self.train_data = train_data
        self.optimizer = optimizer

    def train(self, max_epochs):
        for epoch in range(max_epochs):
            self.train_data.sampler.set_epoch(epoch)
            # ok: TL215
            for source, targets in self.train_data:
                self.optimizer.zero_grad()
                F.cross_entropy(self.model(source), targets).backward()
                self.optimizer.step()


class SharedTrainer:
    def __init__(self, model, train_data, optimizer):
        self.model = model
        self.train_data = train_data
        self.optimizer = optimizer

    def train(self, max_epochs):
        for epoch in range(max_epochs):
            # ok: TL215
            for source, targets in self.train_data:
                self.optimizer.zero_grad()
                F.cross_entropy(self.model(source), targets).backward()
                self.optimizer.step()


def main(dataset, external_loader, epochs):
    model = torch.nn.Linear(20, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    Trainer(model, prepare_dataloader(dataset, 32), optimizer).train(epochs)
    EpochTrainer(model, DataLoader(dataset, sampler=DistributedSampler(dataset)), optimizer).train(epochs)
    SharedTrainer(model, prepare_dataloader(dataset, 32), optimizer).train(epochs)
    SharedTrainer(model, external_loader, optimizer).train(epochs)
