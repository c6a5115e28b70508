import torch
import torch.distributed.autograd as dist_autograd
from torch import nn
from torch.distributed import rpc

from pkg import ChunkedTrainer, DistributedLoss, TensorTrainer


def train_chunked(loader, steps):
    trainer = ChunkedTrainer(nn.Linear(8, 8))
    opt = torch.optim.SGD(trainer.parameters(), lr=0.1)
    history = torch.zeros(steps)
    for i, x in enumerate(loader):
        # expect: TL207
        loss = trainer.forward(x)
        opt.step()
        opt.zero_grad()
        # ok: TL101
        history[i % steps] = loss
    return history


def train_tensor(loader):
    trainer = TensorTrainer(nn.Linear(8, 8))
    opt = torch.optim.SGD(trainer.parameters(), lr=0.1)
    history = []
    for x in loader:
        # expect: TL207
        loss = trainer.forward(x)
        opt.step()
        opt.zero_grad()
        # expect: TL101
        history.append(loss)
    return history


def train_remote(pipe, opt, x, target):
    criterion = DistributedLoss(nn.MSELoss)
    losses = []
    for _ in range(2):
        with dist_autograd.context() as context_id:
            loss = criterion(pipe(x), rpc.RRef(target))
            # ok: TL101
            losses.append(loss)
            loss.backward(context_id)
            opt.step(context_id)
    return losses
