"""A loss module that returns the loss and the batch's statistics.

The trainer holds the loss module (built by a classmethod's `cls(...)`) in
`self.train_loss`; its forward returns `loss, stats`: a tensor with the
graph and an object of plain numbers (`loss.item()`). The positions are
told apart: accumulating the statistics keeps no graph, accumulating the
loss itself does.
"""
import torch
import torch.nn as nn


class Statistics(object):
    def __init__(self, loss=0.0, n_words=0):
        self.loss = loss
        self.n_words = n_words

    def update(self, stat):
        self.loss += stat.loss
        self.n_words += stat.n_words


class LossCompute(nn.Module):
    def __init__(self, criterion, generator):
        super().__init__()
        self.criterion = criterion
        self.generator = generator

    @classmethod
    def from_opts(cls, opt, model):
        criterion = nn.CrossEntropyLoss(reduction="sum")
        return cls(criterion, model.generator)

    def forward(self, output, target):
        scores = self.generator(output)
        loss = self.criterion(scores, target)
        stats = self._stats(loss.item(), target)
        return loss, stats

    def _stats(self, loss, target):
        return Statistics(loss=loss, n_words=target.numel())


class Optimizer(object):
    def __init__(self, optimizer):
        self._optimizer = optimizer

    def backward(self, loss):
        loss.backward()

    def step(self):
        self._optimizer.step()

    def zero_grad(self):
        self._optimizer.zero_grad()


class Trainer(object):
    def __init__(self, model, train_loss, optim):
        self.model = model
        self.train_loss = train_loss
        self.optim = optim

    def train(self, batches):
        total_stats = Statistics()
        for src, tgt in batches:
            self.optim.zero_grad()
            out = self.model(src)
            loss, batch_stats = self.train_loss(out, tgt)
            self.optim.backward(loss)
            self.optim.step()
            # ok: TL101
            total_stats.update(batch_stats)
        return total_stats

    def train_summing_losses(self, batches):
        total_loss = 0
        for src, tgt in batches:
            self.optim.zero_grad()
            out = self.model(src)
            loss, batch_stats = self.train_loss(out, tgt)
            self.optim.backward(loss)
            self.optim.step()
            # expect: TL101
            total_loss += loss
        return total_loss


def build_trainer(opt, model):
    train_loss = LossCompute.from_opts(opt, model)
    optim = Optimizer(torch.optim.SGD(model.parameters(), lr=0.1))
    return Trainer(model, train_loss, optim)
