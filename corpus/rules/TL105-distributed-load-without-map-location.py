"""TL105 distributed-load-without-map-location (opt-in): fixtures.

This file runs distributed training (it calls init_process_group, wraps
models in DistributedDataParallel and reads LOCAL_RANK). An `expect`
annotation sits before a `torch.load(...)` with no map_location whose
result reaches a load_state_dict: every process then builds the whole
checkpoint on the device it was saved from before copying it. An `ok`
annotation sits before loads that pass a map_location (a string, a device,
a dict, a lambda, positionally), loads that only rank 0 runs, loads of a
file this script wrote from host memory, and loads whose result never
reaches a state dict.
"""
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 10))

    def forward(self, x):
        return self.body(x)


def setup():
    dist.init_process_group(backend="nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    return local_rank


# Flagged: the classic resume at the top of a DDP script.
def main(args):
    local_rank = setup()
    model = DDP(Net().cuda(local_rank), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scaler = torch.amp.GradScaler("cuda")
    start_epoch = 0
    if args.resume:
        # expect: TL105
        checkpoint = torch.load(args.resume)
        model.module.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        scaler.load_state_dict(checkpoint["scaler"])
        start_epoch = checkpoint["epoch"] + 1
    return model, optimizer, start_epoch


# Flagged: loaded straight into the model.
def load_pretrained(model, path):
    # expect: TL105
    model.load_state_dict(torch.load(path), strict=False)


# Flagged: weights_only does not say where the tensors go.
def load_backbone(model, path):
    # expect: TL105
    state = torch.load(path, weights_only=True)
    model.backbone.load_state_dict(state)


# Flagged: a trainer's resume method, entries read with get().
class Trainer:
    def __init__(self, model, optimizer, rank):
        self.rank = rank
        self.model = DDP(model.cuda(rank), device_ids=[rank])
        self.optimizer = optimizer

    def resume(self, path):
        # expect: TL105
        state = torch.load(path)
        self.model.module.load_state_dict(state.get("model", state))
        self.optimizer.load_state_dict(state["optimizer"])
        return state.get("step", 0)


# Flagged: the keys renamed before loading (the wrapper's prefix stripped).
def load_stripped(model, path):
    # expect: TL105
    state_dict = torch.load(path)
    state_dict = {k.replace("module.", "", 1): v for k, v in state_dict.items()}
    model.load_state_dict(state_dict)


# Flagged: a helper that reads the file, its result loaded by the caller.
def read_checkpoint(path):
    # expect: TL105
    return torch.load(path)


def restore(model, path):
    ckpt = read_checkpoint(path)
    weights = ckpt["state_dict"] if "state_dict" in ckpt else ckpt
    model.load_state_dict(weights)


# Flagged: the state dict passed by keyword.
def warm_start(model, path):
    # expect: TL105
    model.load_state_dict(state_dict=torch.load(path), strict=True)


# Flagged: an FSDP job restoring its optimizer.
def fsdp_resume(net, opt_path):
    model = FSDP(net)
    optimizer = torch.optim.AdamW(model.parameters())
    # expect: TL105
    optimizer.load_state_dict(torch.load(opt_path)["optimizer"])
    return model, optimizer


# Flagged: every rank loads (the branch is about the file, not the rank).
def maybe_resume(model, args):
    if args.resume and os.path.isfile(args.resume):
        print("resuming from", args.resume)
        # expect: TL105
        ckpt = (torch.load(args.resume))
        model.load_state_dict(ckpt["model"])


# OK: the checkpoint goes to the CPU first.
def resume_cpu(model, path):
    # ok: TL105
    model.load_state_dict(torch.load(path, map_location="cpu"))


# OK: a lambda that keeps the storages on the CPU.
def resume_lambda(model, path):
    # ok: TL105
    ckpt = torch.load(path, map_location=lambda storage, loc: storage)
    model.load_state_dict(ckpt["model"])


# OK: a dict that maps the saving device to this process's own.
def resume_remap(model, path, local_rank):
    # ok: TL105
    ckpt = torch.load(path, map_location={"cuda:0": "cuda:%d" % local_rank})
    model.load_state_dict(ckpt["model"])


# OK: this process's own device, positionally.
def resume_device(model, path, local_rank):
    device = torch.device("cuda", local_rank)
    # ok: TL105
    model.load_state_dict(torch.load(path, device))


# OK: the options come from elsewhere (**kwargs may hold map_location).
def resume_kwargs(model, path, **load_kwargs):
    # ok: TL105
    model.load_state_dict(torch.load(path, **load_kwargs))


# OK: only rank 0 loads (it then broadcasts).
def resume_rank0(model, path):
    if dist.get_rank() == 0:
        # ok: TL105
        model.load_state_dict(torch.load(path))
    for p in model.parameters():
        dist.broadcast(p.data, src=0)


# OK: the other ranks return first.
def export_best(model, path, local_rank):
    if local_rank != 0:
        return
    # ok: TL105
    state = torch.load(path)
    model.load_state_dict(state["model"])
    torch.onnx.export(model, torch.randn(1, 128), "best.onnx")


# OK: a function only ever called on the main process.
def evaluate_best(model, path):
    # ok: TL105
    model.load_state_dict(torch.load(path)["model"])


def finish(model, args):
    if args.rank in (-1, 0) and args.eval_best:
        evaluate_best(model, os.path.join(args.out, "best.pt"))


# OK: the file this script wrote from host memory.
def save_and_reload(model, out_dir, epoch):
    ckpt_path = os.path.join(out_dir, "last.pt")
    host_state = {k: v.cpu() for k, v in model.state_dict().items()}
    torch.save({"model": host_state, "epoch": epoch}, ckpt_path)
    dist.barrier()
    # ok: TL105
    ckpt = torch.load(ckpt_path)
    model.load_state_dict(ckpt["model"])


# OK: a scheduler's and a scaler's state are Python numbers, no tensors.
def resume_schedule(optimizer, scaler, ckpt_dir):
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=100)
    # ok: TL105
    scheduler.load_state_dict(torch.load(os.path.join(ckpt_dir, "scheduler.pt")))
    # ok: TL105
    scaler.load_state_dict(torch.load(os.path.join(ckpt_dir, "scaler.pt")))
    return scheduler


# OK: the single process (rank -1) or rank 0 reloads what it saved.
def reload_final(model, args, weights_path):
    if args.do_train and (args.local_rank == -1 or dist.get_rank() == 0):
        torch.save(model.module.state_dict(), weights_path)
        # ok: TL105
        model.module.load_state_dict(torch.load(weights_path))


# OK: not a checkpoint for a model: cached features used as data.
def load_features(feature_path):
    # ok: TL105
    feats = torch.load(feature_path)
    return torch.utils.data.TensorDataset(feats["x"], feats["y"])


# Known miss: the state dict is handed to a helper that loads it.
def apply_state(model, state):
    model.load_state_dict(state)


def resume_through_helper(model, path):
    # todo-expect: TL105
    apply_state(model, torch.load(path))


# Flagged: a load on each branch of an if, both without map_location;
# both reach the state dict after the join.
def resume_either(model, args):
    if args.resume_best:
        # expect: TL105
        checkpoint = torch.load(args.best_path)
    else:
        # expect: TL105
        checkpoint = torch.load(args.resume)
    model.load_state_dict(checkpoint["state_dict"])


# OK: the map_location is chosen per branch: the load without one is on
# the branch that keeps no GPU of its own (one process drives them all).
def resume_on_gpu(model, args):
    if args.gpu is None:
        # ok: TL105
        checkpoint = torch.load(args.resume)
    else:
        # ok: TL105
        checkpoint = torch.load(args.resume, map_location="cuda:{}".format(args.gpu))
    model.load_state_dict(checkpoint["state_dict"])
    # ok: TL105
    extra = torch.load(args.extra) if args.gpu is None else torch.load(args.extra, map_location="cpu")
    model.load_state_dict(extra, strict=False)


# Flagged: the keys renamed in a loop before the load.
def load_renamed(model, path):
    # expect: TL105
    ckpt = torch.load(path)
    renamed = {}
    for k, v in ckpt.get("model", ckpt).items():
        renamed[k.replace("module.", "", 1)] = v
    model.load_state_dict(renamed)


# OK: what the model loads is computed from the checkpoint's tensors.
def load_scaled(model, path):
    # ok: TL105
    ckpt = torch.load(path)
    model.load_state_dict({"w": ckpt["w"] * 2})


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default="")
    main(parser.parse_args())
