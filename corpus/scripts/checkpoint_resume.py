"""Language-model pre-training that resumes from checkpoints (corpus script).

A small GPT-style model with activation checkpointing, trained on a token
file with periodic checkpoints (model, optimizer, scheduler, scaler, RNG
state, step) and automatic resumption from the latest one; pretrained
weights can be loaded from a `.pt` file with only tensors in it. The
resume path needs the Python objects in the checkpoint (RNG state, a
config dataclass), so it is written for `weights_only=True` plus an
allow-list. Pitfalls with `expect` annotations: a legacy fallback loader
that unpickles anything (TL501), a blocks stack checkpointed without
`use_reentrant=` (TL503), and the cache emptied on every step (TL305).
"""
import argparse
import dataclasses
import glob
import os
import pickle

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


@dataclasses.dataclass
class GPTConfig:
    vocab: int = 50304
    block: int = 512
    d: int = 512
    heads: int = 8
    layers: int = 8


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(cfg.d), nn.LayerNorm(cfg.d)
        self.attn = nn.MultiheadAttention(cfg.d, cfg.heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(cfg.d, 4 * cfg.d), nn.GELU(), nn.Linear(4 * cfg.d, cfg.d))

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, cfg, grad_ckpt=True):
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(cfg.vocab, cfg.d)
        self.pos = nn.Embedding(cfg.block, cfg.d)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.layers))
        self.ln = nn.LayerNorm(cfg.d)
        self.grad_ckpt = grad_ckpt
        self.register_buffer("mask", torch.triu(torch.ones(cfg.block, cfg.block, dtype=torch.bool), 1))

    def forward(self, idx):
        t = idx.size(1)
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        mask = self.mask[:t, :t]
        for i, blk in enumerate(self.blocks):
            if self.grad_ckpt and i % 2 == 0:
                # ok: TL503
                x = checkpoint(blk, x, mask, use_reentrant=False)
            elif self.grad_ckpt:
                # expect: TL503
                x = checkpoint(blk, x, mask)
            else:
                x = blk(x, mask)
        return self.ln(x) @ self.tok.weight.t()


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="train.bin")
    p.add_argument("--out", default="./out")
    p.add_argument("--init-from", default="")
    p.add_argument("--max-steps", type=int, default=20000)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr", type=float, default=6e-4)
    p.add_argument("--save-every", type=int, default=1000)
    p.add_argument("--log-every", type=int, default=100)
    return p.parse_args()


def get_batch(data, cfg, batch_size, device):
    # expect: TL307
    ix = torch.randint(len(data) - cfg.block - 1, (batch_size,))
    x = torch.stack([torch.from_numpy(data[i:i + cfg.block].astype(np.int64)) for i in ix])
    y = torch.stack([torch.from_numpy(data[i + 1:i + 1 + cfg.block].astype(np.int64)) for i in ix])
    return x.pin_memory().to(device, non_blocking=True), y.pin_memory().to(device, non_blocking=True)


def latest_checkpoint(out_dir):
    paths = sorted(glob.glob(os.path.join(out_dir, "step_*.pt")))
    return paths[-1] if paths else None


def save_checkpoint(path, model, opt, sched, scaler, step, cfg):
    torch.save({
        "model": model.state_dict(),
        "optimizer": opt.state_dict(),
        "scheduler": sched.state_dict(),
        "scaler": scaler.state_dict(),
        "step": step,
        "config": cfg,
        "rng": torch.get_rng_state(),
        "cuda_rng": torch.cuda.get_rng_state_all(),
    }, path)


def load_resume_state(path):
    # The checkpoint holds a GPTConfig and RNG states: allow them explicitly.
    with torch.serialization.safe_globals([GPTConfig]):
        # ok: TL501
        return torch.load(path, map_location="cpu", weights_only=True)


def load_legacy(path):
    """Checkpoints from the old trainer pickled the whole model object."""
    # expect: TL501
    return torch.load(path, map_location="cpu", weights_only=False)


def load_pretrained(model, path):
    # ok: TL501
    state = torch.load(path, map_location="cpu")
    missing, unexpected = model.load_state_dict(state, strict=False)
    print(f"pretrained: {len(missing)} missing, {len(unexpected)} unexpected keys")


def load_vocab_stats(path):
    with open(path, "rb") as f:
        # ok: TL501
        return pickle.load(f)


def main():
    args = parse_args()
    device = torch.device("cuda")
    cfg = GPTConfig()
    model = GPT(cfg).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95), weight_decay=0.1)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.max_steps)
    scaler = torch.amp.GradScaler("cuda")
    start = 0
    resume = latest_checkpoint(args.out)
    if resume is not None:
        try:
            state = load_resume_state(resume)
        except pickle.UnpicklingError:
            state = load_legacy(resume)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        sched.load_state_dict(state["scheduler"])
        scaler.load_state_dict(state["scaler"])
        torch.set_rng_state(state["rng"])
        torch.cuda.set_rng_state_all(state["cuda_rng"])
        start = state["step"] + 1
        del state
        # ok: TL305
        torch.cuda.empty_cache()
    elif args.init_from:
        load_pretrained(model, args.init_from)
    data = np.memmap(args.data, dtype=np.uint16, mode="r")
    os.makedirs(args.out, exist_ok=True)
    model.train()
    running = torch.zeros((), device=device)
    for step in range(start, args.max_steps):
        x, y = get_batch(data, cfg, args.batch_size, device)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)
        sched.step()
        running += loss.detach()
        # expect: TL305
        torch.cuda.empty_cache()
        if step % args.log_every == 0:
            # ok: TL304
            print(f"step {step} loss {running.item() / args.log_every:.4f}")
            running.zero_()
        if step > 0 and step % args.save_every == 0:
            save_checkpoint(os.path.join(args.out, f"step_{step:07d}.pt"), model, opt, sched, scaler, step, cfg)


if __name__ == "__main__":
    main()
