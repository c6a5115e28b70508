import torch.nn.functional as F

from data import loader
from data.epochs import begin


def train_epoch(train_loader, model, optimizer, cur_epoch):
    model.train()
    # ok: TL215
    for cur_iter, (inputs, labels) in enumerate(train_loader):
        loss = F.cross_entropy(model(inputs), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train(model, optimizer, dataset, max_epoch, num_gpus):
    train_loader = loader.construct_loader(dataset, 8, num_gpus)
    for cur_epoch in range(max_epoch):
        # Shuffle the dataset.
        loader.shuffle_dataset(train_loader, cur_epoch)
        train_epoch(train_loader, model, optimizer, cur_epoch)


def train_beside(model, optimizer, dataset, max_epoch):
    train_loader, sampler = loader.loader_and_sampler(dataset, 8)
    for epoch in range(max_epoch):
        loader.reshuffle(sampler, epoch)
        # ok: TL215
        for inputs, labels in train_loader:
            loss = F.cross_entropy(model(inputs), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


def train_one_epoch(model, optimizer, data_loader):
    # ok: TL215
    for inputs, labels in data_loader:
        loss = F.cross_entropy(model(inputs), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_through_begin(model, optimizer, dataset, max_epoch):
    data_loader = loader.construct_loader(dataset, 8, 2)
    for epoch in range(max_epoch):
        begin(data_loader, epoch, log=print)
        train_one_epoch(model, optimizer, data_loader)
