"""TL215 sampler-epoch-not-set: fixtures.

An `expect` annotation sits before the loop over a DataLoader that draws
from a shuffling DistributedSampler (its `sampler`, or the sampler of its
BatchSampler), iterated by a training step loop that an epoch loop runs
again and again (in the same function, or in a function the epoch loop
calls), when nothing in the file calls `set_epoch` on that sampler: every
epoch then repeats the same order. The finding points at the loop's
iterable. An `ok` annotation sits before loops whose sampler's epoch is
set (by its name, through `loader.sampler`, in a called function), samplers
that do not shuffle, single passes, loaders handed to accelerate, samplers
handed to helpers that may set the epoch, and other samplers.
"""
import pytorch_lightning as pl
import torch
import torch.distributed as dist
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, SequentialSampler
from torch.utils.data import DistributedSampler as DS
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm

from .utils import set_sampler_epoch


def step(model, opt, x, y):
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


def train_ddp(model, dataset, opt, epochs, rank, world_size):
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank)
    loader = DataLoader(dataset, batch_size=64, num_workers=4, sampler=sampler)
    for epoch in range(epochs):
        # expect: TL215
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()


def train_inline_sampler(model, dataset, opt, epochs):
    loader = DataLoader(dataset, batch_size=32, num_workers=4, sampler=DS(dataset, shuffle=True))
    for epoch in range(epochs):
        # expect: TL215
        for i, (x, y) in enumerate(tqdm(loader)):
            step(model, opt, x, y)


def train_optional_sampler(model, dataset, opt, args):
    train_sampler = DistributedSampler(dataset) if args.distributed else None
    train_loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=train_sampler is None, num_workers=4,
                              sampler=train_sampler)
    for epoch in range(args.start_epoch, args.epochs):
        model.train()
        # expect: TL215
        for images, target in train_loader:
            step(model, opt, images, target)


def train_one_epoch(model, loader, opt):
    model.train()
    # expect: TL215
    for batch_idx, (x, y) in enumerate(loader):
        step(model, opt, x, y)


def main_with_helper(model, dataset, opt, epochs):
    dist.init_process_group("nccl")
    loader = DataLoader(dataset, batch_size=16, num_workers=4, sampler=DistributedSampler(dataset))
    for epoch in range(epochs):
        train_one_epoch(model, loader, opt)


def train_while_epochs(model, dataset, opt, max_epochs):
    loader = DataLoader(dataset, batch_size=16, num_workers=4, sampler=DistributedSampler(dataset, seed=1234))
    epoch = 0
    while epoch < max_epochs:
        # expect: TL215
        for x, y in loader:
            step(model, opt, x, y)
        epoch += 1


def train_batch_sampler(model, dataset, opt, epochs):
    sampler = DistributedSampler(dataset)
    batches = BatchSampler(sampler, batch_size=32, drop_last=True)
    loader = DataLoader(dataset, batch_sampler=batches, num_workers=4)
    for epoch in range(epochs):
        # expect: TL215
        for x, y in loader:
            step(model, opt, x, y)


class Trainer:
    def __init__(self, model, dataset, opt, rank, world):
        self.model = model
        self.opt = opt
        self.sampler = DistributedSampler(dataset, rank=rank, num_replicas=world)
        self.loader = DataLoader(dataset, batch_size=8, num_workers=4, sampler=self.sampler)

    def train_epoch(self):
        # expect: TL215
        for x, y in self.loader:
            step(self.model, self.opt, x, y)

    def fit(self, epochs):
        for epoch in range(epochs):
            self.train_epoch()


def train_two_loaders(model, train_set, val_set, opt, epochs):
    train_sampler = DistributedSampler(train_set)
    val_sampler = DistributedSampler(val_set, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=8, num_workers=4, sampler=train_sampler)
    val_loader = DataLoader(val_set, batch_size=8, num_workers=4, sampler=val_sampler)
    for epoch in range(epochs):
        # the validation sampler's epoch is set, not the training one's
        val_sampler.set_epoch(epoch)
        # expect: TL215
        for x, y in train_loader:
            step(model, opt, x, y)
        with torch.no_grad():
            # ok: TL215
            for x, y in val_loader:
                model(x)


def get_problem(model, dataset):
    sampler = DistributedSampler(dataset)
    batches = BatchSampler(sampler, 32, drop_last=True)
    return model, DataLoader(dataset, batch_sampler=batches, num_workers=4)


def train_unpacked(model, dataset, opt, epochs):
    model, loader = get_problem(model, dataset)
    for epoch in range(epochs):
        # a loader unpacked from the tuple a helper returns
        # expect: TL215
        for x, y in loader:
            step(model, opt, x, y)


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


def train_set_epoch(model, dataset, opt, epochs):
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=64, num_workers=4, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        # ok: TL215
        for x, y in loader:
            step(model, opt, x, y)


def train_through_loader(model, dataset, opt, epochs):
    loader = DataLoader(dataset, batch_size=64, num_workers=4, sampler=DistributedSampler(dataset))
    for epoch in range(epochs):
        if isinstance(loader.sampler, DistributedSampler):
            loader.sampler.set_epoch(epoch)
        # ok: TL215
        for x, y in loader:
            step(model, opt, x, y)


def one_epoch_setting_it(model, loader, sampler, opt, epoch):
    sampler.set_epoch(epoch)
    # ok: TL215
    for x, y in loader:
        step(model, opt, x, y)


def main_helper_sets_epoch(model, dataset, opt, epochs):
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=64, num_workers=4, sampler=sampler)
    for epoch in range(epochs):
        one_epoch_setting_it(model, loader, sampler, opt, epoch)


def train_no_shuffle(model, dataset, opt, epochs):
    loader = DataLoader(dataset, batch_size=64, num_workers=4, sampler=DistributedSampler(dataset, shuffle=False))
    for epoch in range(epochs):
        # ok: TL215
        for x, y in loader:
            step(model, opt, x, y)


def train_single_pass(model, dataset, opt):
    loader = DataLoader(dataset, batch_size=64, num_workers=4, sampler=DistributedSampler(dataset))
    # one pass: no epoch to repeat
    # ok: TL215
    for x, y in loader:
        step(model, opt, x, y)


def train_accelerate(model, dataset, opt, epochs):
    accelerator = Accelerator()
    loader = DataLoader(dataset, batch_size=64, num_workers=4, sampler=DistributedSampler(dataset))
    model, opt, loader = accelerator.prepare(model, opt, loader)
    for epoch in range(epochs):
        # accelerate's prepared loader sets the epoch itself
        # ok: TL215
        for x, y in loader:
            step(model, opt, x, y)


def train_helper_from_elsewhere(model, dataset, opt, epochs):
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=64, num_workers=4, sampler=sampler)
    for epoch in range(epochs):
        set_sampler_epoch(sampler, epoch)
        # ok: TL215
        for x, y in loader:
            step(model, opt, x, y)


def train_random_sampler(model, dataset, opt, epochs):
    loader = DataLoader(dataset, batch_size=64, num_workers=4, sampler=RandomSampler(dataset))
    for epoch in range(epochs):
        # ok: TL215
        for x, y in loader:
            step(model, opt, x, y)


def train_by_iterations(model, dataset, opt, max_steps):
    loader = DataLoader(dataset, batch_size=64, num_workers=4, sampler=DistributedSampler(dataset))
    it = iter(loader)
    for _ in range(max_steps):
        x, y = next(it)
        step(model, opt, x, y)


def evaluate_every_epoch(model, dataset, epochs):
    loader = DataLoader(dataset, batch_size=64, num_workers=4, sampler=DistributedSampler(dataset))
    for epoch in range(epochs):
        with torch.no_grad():
            # an evaluation pass: no training step in it
            # ok: TL215
            for x, y in loader:
                model(x)


class LitModel(pl.LightningModule):
    def train_dataloader(self):
        # Lightning iterates the loader and sets the epoch
        return DataLoader(self.dataset, batch_size=64, num_workers=4, sampler=DistributedSampler(self.dataset))


class NamedLoader(DataLoader):
    """A DataLoader of the file's own: what it makes is its base's."""

    def __init__(self, name, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.name = name


class ShardLoader(DataLoader):
    """It says how it is iterated: its order is its own."""

    def __iter__(self):
        return iter(self.dataset)


def train_named_loader(model, dataset, opt, epochs):
    loader = NamedLoader("train", dataset, batch_size=64, sampler=DistributedSampler(dataset))
    for epoch in range(epochs):
        # expect: TL215
        for x, y in loader:
            step(model, opt, x, y)


def train_shard_loader(model, dataset, opt, epochs):
    loader = ShardLoader(dataset, batch_size=64, sampler=DistributedSampler(dataset))
    for epoch in range(epochs):
        # ok: TL215
        for x, y in loader:
            step(model, opt, x, y)


def run_engine_epoch(engine, batches, device):
    # an engine that backpropagates and steps itself (a DeepSpeed-style
    # object), handed the loader by its caller
    engine.train()
    # expect: TL215
    for i, batch in enumerate(batches):
        out = engine(batch["ids"].to(device))
        engine.backward(out["loss"])
        engine.step()


def fit_engine_picked_sampler(engine, dataset, rank, epochs, device):
    # a plain RandomSampler for one process, a DistributedSampler under the
    # launcher: the distributed run repeats its first order every epoch
    picker = RandomSampler(dataset) if rank == -1 else DistributedSampler(dataset, seed=7)
    batches = DataLoader(dataset, batch_size=8, sampler=picker, num_workers=2)
    for epoch in range(epochs):
        run_engine_epoch(engine, batches, device)


def run_engine_epoch_reshuffled(engine, batches, device):
    engine.train()
    # ok: TL215
    for i, batch in enumerate(batches):
        out = engine(batch["ids"].to(device))
        engine.backward(out["loss"])
        engine.step()


def fit_engine_picked_sampler_reshuffled(engine, dataset, rank, epochs, device):
    picker = DistributedSampler(dataset, seed=7) if rank != -1 else RandomSampler(dataset)
    batches = DataLoader(dataset, batch_size=8, sampler=picker, num_workers=2)
    for epoch in range(epochs):
        if rank != -1:
            picker.set_epoch(epoch)
        run_engine_epoch_reshuffled(engine, batches, device)


def fit_branch_picked_sampler(model, opt, dataset, world_size, epochs):
    # the same choice made by an if statement
    if world_size > 1:
        order = DistributedSampler(dataset)
    else:
        order = torch.utils.data.SequentialSampler(dataset)
    batches = DataLoader(dataset, batch_size=8, sampler=order, num_workers=2)
    for epoch in range(epochs):
        # expect: TL215
        for x, y in batches:
            step(model, opt, x, y)


def fit_two_plain_samplers(model, opt, dataset, weighted, weights, epochs):
    # no DistributedSampler on either side: nothing to set
    order = torch.utils.data.WeightedRandomSampler(weights, len(weights)) if weighted else RandomSampler(dataset)
    batches = DataLoader(dataset, batch_size=8, sampler=order, num_workers=2)
    for epoch in range(epochs):
        # ok: TL215
        for x, y in batches:
            step(model, opt, x, y)


def gate_saliency(model, gates, batches):
    # backpropagates to the gates only and steps nothing: a sum over every
    # batch, whatever their order
    total = torch.zeros_like(gates)
    # ok: TL215
    for x, y in batches:
        loss = F.cross_entropy(model(x, gates=gates), y)
        loss.backward()
        total += gates.grad.abs().detach()
        gates.grad = None
    return total


def prune_rounds(model, gates, dataset, rounds):
    picker = SequentialSampler(dataset) if dist.get_world_size() == 1 else DistributedSampler(dataset)
    batches = DataLoader(dataset, batch_size=8, sampler=picker, num_workers=2)
    for _ in range(rounds):
        scores = gate_saliency(model, gates, batches)
        gates = gates * (scores > scores.median())
