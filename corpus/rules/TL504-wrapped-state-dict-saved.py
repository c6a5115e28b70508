"""TL504 wrapped-state-dict-saved: fixtures.

An `expect` annotation sits before `X.state_dict()` that torch.save writes
(directly, as an entry of a checkpoint dict, or through a name a later
torch.save passes) where X is bound to DistributedDataParallel(...),
DataParallel(...) or torch.compile(...). An `ok` annotation sits before the
wrapped module's state dict (`X.module`, `X._orig_mod`), unwrapped models,
keys rewritten before saving, state dicts that are not saved, and the
state dicts of optimizers and scalers.
"""
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from accelerate import Accelerator


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        return self.body(x)


# Flagged: a DDP model saved directly by rank 0.
def ddp_main(loader, epochs, path):
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    model = DDP(Net().cuda(rank), device_ids=[rank])
    opt = torch.optim.AdamW(model.parameters())
    for _ in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
        if rank == 0:
            # expect: TL504
            torch.save(model.state_dict(), path)


# Flagged: a checkpoint dict holding it, beside the optimizer's state.
def save_checkpoint(net: nn.Module, opt, epoch, path):
    model = nn.DataParallel(net)
    # expect: TL504
    torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": opt.state_dict()}, path)


# Flagged: the dict is built first and saved later.
def save_later(net, path):
    model = torch.nn.DataParallel(net, device_ids=[0, 1])
    checkpoint = {
        # expect: TL504
        "state_dict": model.state_dict(),
        "arch": "net",
    }
    torch.save(checkpoint, path)


# Flagged: an element assigned into a dict that is saved.
def save_items(net, path):
    wrapped = torch.compile(net)
    ckpt = {}
    # expect: TL504
    ckpt["model"] = wrapped.state_dict()
    torch.save(ckpt, path)


# Flagged: a trainer whose model attribute is the DDP wrapper.
class Trainer:
    def __init__(self, rank):
        self.rank = rank
        self.model = DDP(Net().to(rank), device_ids=[rank])
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def save(self, path):
        # expect: TL504
        state = {"model": self.model.state_dict(), "opt": self.opt.state_dict()}
        torch.save(state, path)


# Flagged: torch.compile's wrapper, saved directly.
def compiled(path):
    model = torch.compile(Net())
    # expect: TL504
    torch.save(model.state_dict(), path)


# Flagged: the wrapper built inline.
def inline(net, path):
    # expect: TL504
    torch.save(nn.DataParallel(net).state_dict(), path)


# Flagged: a list of states.
def ensemble(nets, path):
    first = nn.DataParallel(nets[0])
    # expect: TL504
    torch.save([first.state_dict()], path)


# ---------------------------------------------------------------------------
# Correct
# ---------------------------------------------------------------------------


# OK: the wrapped module's state dict.
def save_module(net, path):
    model = DDP(net)
    # ok: TL504
    torch.save(model.module.state_dict(), path)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    # ok: TL504
    torch.save(opt.state_dict(), path + ".opt")


# OK: torch.compile's original module.
def save_orig(net, path):
    compiled_net = torch.compile(net)
    # ok: TL504
    torch.save(compiled_net._orig_mod.state_dict(), path)


# OK: accelerate unwraps the model.
def save_accelerate(net, opt, path):
    accelerator = Accelerator()
    model, opt = accelerator.prepare(net, opt)
    # ok: TL504
    torch.save(accelerator.unwrap_model(model).state_dict(), path)


# OK: keys stripped before saving.
def save_stripped(net, path):
    model = nn.DataParallel(net)
    # ok: TL504
    state = {k.replace("module.", "", 1): v for k, v in model.state_dict().items()}
    torch.save(state, path)


# OK: a bare model (not wrapped).
def save_bare(path):
    model = Net()
    # ok: TL504
    torch.save(model.state_dict(), path)


# OK: the state dict is compared, not saved.
def compare(net, other):
    model = DDP(net)
    # ok: TL504
    sd = model.state_dict()
    return all(torch.equal(sd[k], v) for k, v in other.items())


# Flagged: the wrapper moved after wrapping is still the wrapper.
def data_parallel_resume(loader, out_dir):
    model = nn.DataParallel(Net()).to("cuda")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    # expect: TL504
    torch.save(obj=model.state_dict(), f=os.path.join(out_dir, "dp.pt"))


# Flagged: the state dict kept in a name, then put in the checkpoint dict.
def best_so_far(model_ddp, metric, best, path):
    if metric > best:
        # expect: TL504
        best_weights = model_ddp.state_dict()
        record = {"weights": best_weights, "metric": metric}
        torch.save(record, path)


def run_best(net, loader, path):
    model_ddp = DDP(net.cuda())
    best = 0.0
    for epoch, metric in enumerate(loader):
        best_so_far(model_ddp, metric, best, path)


# Flagged: a trainer that wraps its model in place in a setup method.
class SnapshotTrainer:
    def __init__(self, model, gpu_id):
        self.gpu_id = gpu_id
        self.model = model.to(gpu_id)
        self.optimizer = torch.optim.AdamW(self.model.parameters())

    def wrap(self):
        self.model = DDP(self.model, device_ids=[self.gpu_id])

    def snapshot(self, epoch, path):
        # expect: TL504
        torch.save({"model_state": self.model.state_dict(), "epochs_run": epoch}, path)


# OK: a wrapped name re-bound to the inner module before saving.
def rebind(net, path):
    model = DDP(net)
    model = model.module
    # ok: TL504
    torch.save(model.state_dict(), path)


# OK: a helper that unwraps.
def unwrap(model):
    return model.module if hasattr(model, "module") else model


def save_unwrapped(net, path):
    model = DDP(net)
    # ok: TL504
    torch.save(unwrap(model).state_dict(), path)


# OK: the model is wrapped only under `if use_ddp:`, and the plain save is
# the else of the same test (the ddp branch saves `.module`).
def train_autoencoder(net, disc, loader, use_ddp, rank, path_g, path_d):
    if use_ddp:
        net = DDP(net, device_ids=[rank])
        disc = DDP(disc, device_ids=[rank])
    opt = torch.optim.Adam(net.parameters())
    for x in loader:
        opt.zero_grad()
        net(x).mean().backward()
        opt.step()
    if rank == 0:
        if use_ddp:
            torch.save(net.module.state_dict(), path_g)
            torch.save(disc.module.state_dict(), path_d)
        else:
            # ok: TL504
            torch.save(net.state_dict(), path_g)
            # ok: TL504
            torch.save(disc.state_dict(), path_d)


# OK: the trainer picks the module to save on each branch of the same flag
# the script wraps under (`args.distributed`), through a parameter.
def train(args, loader, generator, g_opt):
    if args.distributed:
        g_module = generator.module
    else:
        g_module = generator
    for i, x in enumerate(loader):
        g_opt.zero_grad()
        generator(x).mean().backward()
        g_opt.step()
        if i % 1000 == 0:
            # ok: TL504
            torch.save({"g": g_module.state_dict(), "g_optim": g_opt.state_dict()}, "%06d.pt" % i)


def launch(args, loader):
    generator = Net().cuda()
    if args.distributed:
        generator = DDP(generator, device_ids=[args.local_rank])
    train(args, loader, generator, torch.optim.Adam(generator.parameters()))


# OK: a single-process run returns early; below it the model is never wrapped.
def finetune(net, loader, distributed, path):
    if not distributed:
        torch.save(net.state_dict(), path)
        return
    model = DDP(net)
    for x in loader:
        model(x).mean().backward()
    # expect: TL504
    torch.save(model.state_dict(), path)


# Flagged: wrapped under the flag, saved after the if/else, where both
# branches reach: a wrapper on the `use_ddp` path (every binding that may
# reach the save counts, not only the name's last one, `net.cuda()`).
def train_flagged(net, loader, use_ddp, rank, path):
    if use_ddp:
        net = DDP(net, device_ids=[rank])
    else:
        net = net.cuda()
    opt = torch.optim.Adam(net.parameters())
    for x in loader:
        opt.zero_grad()
        net(x).mean().backward()
        opt.step()
    if rank == 0:
        # expect: TL504
        torch.save(net.state_dict(), path)


# Flagged: the checkpoint is written by a helper that receives the state
# (its summary saves its first parameter).
def write(state, path):
    torch.save(state, path)


def save_through_helper(net, path):
    model = DDP(net)
    # expect: TL504
    write(model.state_dict(), path)


# Silent: the `else:` of the author's own isinstance test against the
# wrapper class (the other arm strips the prefix from the keys).
def save_checked(net, path, gpus):
    model = nn.DataParallel(net) if gpus > 1 else net
    if isinstance(model, nn.DataParallel):
        state = {k[len("module."):]: v for k, v in model.state_dict().items()}
    else:
        # ok: TL504
        state = model.state_dict()
    torch.save(state, path)


# A model handed in by the only caller, which wraps it when there is more
# than one GPU: flagged where it is saved as it is, silent in the `else:`
# of an isinstance test against the wrapper class (whatever the other arm
# saves).
def save_handed(model, path):
    # expect: TL504
    torch.save(model.state_dict(), path)


def save_handed_checked(model, path):
    if isinstance(model, nn.DataParallel):
        torch.save(model.inner_state(), path)
    else:
        # ok: TL504
        torch.save(model.state_dict(), path)


def launch_handed(path):
    model = nn.Linear(4, 4)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    save_handed(model, path)
    save_handed_checked(model, path)


# Flagged: the test rules out DataParallel only; the model may be a
# DistributedDataParallel there.
def save_checked_other(net, path, distributed):
    model = DDP(net) if distributed else nn.DataParallel(net)
    if not isinstance(model, nn.DataParallel):
        # expect: TL504
        torch.save(model.state_dict(), path)


# Silent: helpers that save something else than what they are handed (a
# size; the keys renamed first, the `module.` prefix stripped).
def write_size(state, path):
    torch.save(len(state), path)


def write_stripped(state, path):
    state = {k.replace("module.", "", 1): v for k, v in state.items()}
    torch.save(state, path)


def save_others_through_helpers(net, path):
    model = DDP(net)
    # ok: TL504
    write_size(model.state_dict(), path)
    # ok: TL504
    write_stripped(model.state_dict(), path)


def to_gpus(net):
    return nn.DataParallel(net).cuda()


# The best epoch's weights kept as a deep copy and saved after training;
# the wrapper comes from a local helper whose summary says it returns one.
def keep_best_copy(net, loader, scores, path):
    import copy

    model = to_gpus(net)
    best, best_state = 0.0, None
    for epoch, score in enumerate(scores):
        if score > best:
            best = score
            # expect: TL504
            best_state = copy.deepcopy(model.state_dict())
            # ok: TL504
            bare_state = copy.deepcopy(model.module.state_dict())
    torch.save(best_state, path)
    torch.save(bare_state, path + ".bare")


# OK: an isinstance test tells the two cases apart: where the test fails
# the model is no DataParallel, so its own state dict has no prefix; where
# it holds, the module inside is read. Flagged: the wrapped model on a test
# for another wrapper class, which says nothing of DataParallel.
def save_on_interrupt(net, cfg, path):
    model = net
    if cfg.gpus > 1:
        model = nn.DataParallel(model)
    try:
        train(model)
    except KeyboardInterrupt:
        if isinstance(model, nn.DataParallel):
            # ok: TL504
            torch.save(model.module.state_dict(), path)
        else:
            # ok: TL504
            torch.save(model.state_dict(), path)
        if not isinstance(model, DDP):
            # expect: TL504
            torch.save(model.state_dict(), path + ".other")


# OK: the wrapper unwrapped in place under the same test, then one save for
# both paths (the bare module either way).
def save_unwrapped_in_place(net, cfg, path):
    model = nn.DataParallel(net) if cfg.gpus > 1 else net
    if isinstance(model, torch.nn.DataParallel):
        model = model.module
    # ok: TL504
    state = {"model": model.state_dict(), "epoch": cfg.epoch}
    torch.save(state, path)


# Flagged: the state dict chosen by a conditional expression, then saved.
def save_if(net, keep_all, path):
    model = DDP(net)
    # expect: TL504
    state = model.state_dict() if keep_all else {}
    torch.save(state, path)


# Flagged: a list of states appended to, then saved.
def save_states(net, opt, path):
    model = nn.DataParallel(net)
    states = [opt.state_dict()]
    # expect: TL504
    states.append(model.state_dict())
    torch.save(states, path)


# Flagged: a method of the trainer builds the checkpoint, its caller saves it.
class Coach:
    def __init__(self, net):
        self.net = DDP(net)

    def get_save_dict(self):
        # expect: TL504
        return {"state_dict": self.net.state_dict()}

    def checkpoint(self, path):
        torch.save(self.get_save_dict(), path)


# OK: the name is bound again before the save: what is saved is the
# wrapped module's state dict, the wrapper's is only sent.
def save_after_send(net, queue, path):
    model = DDP(net)
    # ok: TL504
    state = model.state_dict()
    queue.put(state)
    state = model.module.state_dict()
    torch.save(state, path)


# OK: keys stripped in a loop before saving.
def save_stripped_loop(net, path):
    model = DDP(net)
    stripped = {}
    # ok: TL504
    for k, v in model.state_dict().items():
        stripped[k[len("module."):]] = v
    torch.save(stripped, path)


# OK: the other arm of the conditional saves the wrapped module, so this
# arm is written for the bare one (the wrapper comes under another test).
def save_either(net, use_ddp, world_size, path):
    model = net
    if use_ddp:
        model = DDP(net)
    # ok: TL504
    state = model.module.state_dict() if world_size > 1 else model.state_dict()
    torch.save(state, path)


# OK: the same with an if / else.
def save_if_else(net, use_ddp, world_size, path):
    model = net
    if use_ddp:
        model = DDP(net)
    if world_size > 1:
        state = model.module.state_dict()
    else:
        # ok: TL504
        state = model.state_dict()
    torch.save(state, path)


# Flagged: wrapped on every path: the bare arm saves the wrapper.
def save_either_wrapped(net, distributed, path):
    model = DDP(net)
    # expect: TL504
    state = model.module.state_dict() if distributed else model.state_dict()
    torch.save(state, path)


# OK: the test code writes to know whether it wrapped the model: where
# `hasattr(net, "module")` fails, `net` is no DDP / DataParallel wrapper.
def save_checked(net, path):
    net = DDP(net)
    # ok: TL504
    state = net.module.state_dict() if hasattr(net, "module") else net.state_dict()
    torch.save(state, path)


def save_checked_if(net, path):
    net = DDP(net)
    if hasattr(net, "module"):
        state = net.module.state_dict()
    else:
        # ok: TL504
        state = net.state_dict()
    torch.save(state, path)


# The test is about another object: `student` is saved wrapped.
def save_other(teacher, student, path):
    student = DDP(student)
    # expect: TL504
    state = teacher.module.state_dict() if hasattr(teacher, "module") else student.state_dict()
    torch.save(state, path)


# A reader object that records whether it wrapped its network: the flag is
# set where the wrapper is made, and the save picks the network by it.
class FlaggedReader(object):
    def __init__(self, network):
        self.parallel = False
        self.network = network
        self.teacher = nn.DataParallel(Net())

    def parallelize(self):
        self.parallel = True
        self.network = nn.DataParallel(self.network)

    # OK: the statement form of `self.network.module if self.parallel
    # else self.network`.
    def save(self, path):
        if self.parallel:
            network = self.network.module
        else:
            network = self.network
        # ok: TL504
        torch.save({"state_dict": network.state_dict()}, path)

    # OK: the same, the other way round.
    def save_negated(self, path):
        if not self.parallel:
            network = self.network
        else:
            network = self.network.module
        # ok: TL504
        torch.save(network.state_dict(), path)

    # OK: bound first, unwrapped where the flag says it was wrapped.
    def checkpoint(self, path):
        network = self.network
        if self.parallel:
            network = self.network.module
        # ok: TL504
        torch.save(network.state_dict(), path)

    # Flagged: the wrapper itself, whatever the flag says.
    def save_wrapper(self, path):
        # expect: TL504
        torch.save(self.network.state_dict(), path)

    # Flagged: the flag unwraps another object; `network` keeps the
    # wrapper where the test fails.
    def save_other(self, path):
        network = self.network
        if self.parallel:
            network = self.teacher.module
        # expect: TL504
        torch.save(network.state_dict(), path)


# OK: a script that unwraps its own name under the flag it wrapped by.
def save_flag_unwrapped(net, distributed, path):
    model = net
    if distributed:
        model = DDP(net)
    train_some(model)
    if distributed:
        model = model.module
    # ok: TL504
    torch.save(model.state_dict(), path)


def train_some(model):
    pass


# A trainer that may compile its network and then wrap it in DDP: the save
# unwraps DDP by its flag, then torch.compile by the module's class.
class CompiledTrainer(object):
    def __init__(self, network, is_ddp, local_rank):
        self.is_ddp = is_ddp
        self.network = torch.compile(network)
        if is_ddp:
            self.network = DDP(self.network, device_ids=[local_rank])

    # OK: both wrappers taken off before the state dict is read.
    def save_checkpoint(self, path):
        if self.is_ddp:
            mod = self.network.module
        else:
            mod = self.network
        if isinstance(mod, torch._dynamo.eval_frame.OptimizedModule):
            mod = mod._orig_mod
        # ok: TL504
        torch.save({"network_weights": mod.state_dict()}, path)

    # Should be flagged: DDP taken off, the compiled module's `_orig_mod.`
    # prefix kept. Missed: a module read through wrappers carries their
    # kinds, not how many of them are still around it.
    def save_compiled(self, path):
        if self.is_ddp:
            mod = self.network.module
        else:
            mod = self.network
        # todo-expect: TL504
        torch.save({"network_weights": mod.state_dict()}, path)


# The entries of a dict of networks handed to a helper: flagged where the
# caller's dict holds a DataParallel (`dict(...)` with keywords is a dict
# of them under their names), and for a `**nets` parameter, whose entries
# are the keyword arguments its callers pass.
def save_networks(nets, path):
    for name, net in nets.items():
        # expect: TL504
        torch.save(net.state_dict(), os.path.join(path, name + ".pt"))


def save_keyword_networks(path, **nets):
    for net in nets.values():
        # expect: TL504
        torch.save(net.state_dict(), path)


def save_plain_networks(nets, path):
    for name, net in nets.items():
        # ok: TL504
        torch.save(net.state_dict(), os.path.join(path, name + ".pt"))


def save_networks_main(path):
    nets = dict(generator=nn.DataParallel(Net()), critic=Net())
    save_networks(nets, path)
    save_keyword_networks(path, generator=nn.DataParallel(Net()))
    save_plain_networks(dict(generator=Net(), critic=Net()), path)
