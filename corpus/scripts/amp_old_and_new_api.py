"""Mixed-precision training that mixes the old and new AMP entry points (corpus script).

A transformer encoder classifier trained with float16 autocast and a
GradScaler, half migrated from `torch.cuda.amp` to `torch.amp`: the
training step uses `torch.amp.autocast("cuda")` and a `torch.amp`
GradScaler, while older helpers still import `autocast` / `GradScaler`
from `torch.cuda.amp` (directly and under aliases) and a custom autograd
function uses the old `custom_fwd` / `custom_bwd` decorators. The
evaluation runs under `torch.autocast` with bfloat16. Pitfalls with
`expect` annotations: every deprecated `torch.cuda.amp` call (TL402, info),
and a per-step host round trip for a confidence mask (TL303).
"""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import amp
from torch.cuda.amp import GradScaler, autocast
from torch.cuda.amp import GradScaler as LegacyScaler
from torch.cuda.amp import autocast as cuda_autocast
from torch.cuda.amp import custom_bwd, custom_fwd
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda")


class ScaledGELU(torch.autograd.Function):
    """A fused op written for the old decorators."""

    @staticmethod
    # expect: TL402
    @custom_fwd(cast_inputs=torch.float16)
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return F.gelu(x) * scale

    @staticmethod
    # expect: TL402
    @custom_bwd
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        cdf = 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))
        pdf = torch.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
        return grad * ctx.scale * (cdf + x * pdf), None


class Classifier(nn.Module):
    def __init__(self, vocab=32000, d=256, heads=4, layers=4, num_classes=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(d, num_classes)

    def forward(self, tokens):
        h = self.encoder(self.embed(tokens))
        h = ScaledGELU.apply(h, 1.0)
        return self.head(h.mean(1))


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--threshold", type=float, default=0.9)
    return p.parse_args()


def synthetic_data(n=4096, seq=128, vocab=32000, num_classes=5):
    tokens = torch.randint(0, vocab, (n, seq))
    labels = torch.randint(0, num_classes, (n,))
    return TensorDataset(tokens, labels)


def make_scaler(init_scale=2.0**14):
    # expect: TL402
    return LegacyScaler(init_scale=init_scale)


def warmup_step(model, batch, opt, scaler):
    """Old code path kept for the warm-up epoch."""
    tokens, labels = batch
    opt.zero_grad(set_to_none=True)
    # expect: TL402
    with cuda_autocast():
        loss = F.cross_entropy(model(tokens), labels)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    return loss.detach()


def train_step(model, batch, opt, scaler, threshold):
    tokens, labels = batch
    opt.zero_grad(set_to_none=True)
    with amp.autocast("cuda", dtype=torch.float16):
        logits = model(tokens)
        loss = F.cross_entropy(logits, labels, reduction="none")
        # expect: TL304
        probs = logits.float().softmax(-1).max(-1).values.detach().cpu().numpy()
        # expect: TL303
        confident = torch.from_numpy(probs > threshold).to(device)
        loss = (loss * (1.0 + confident.float())).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(opt)
    scaler.update()
    return loss.detach()


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct = torch.zeros((), device=device)
    for tokens, labels in loader:
        tokens, labels = tokens.to(device), labels.to(device)
        # ok: TL402
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
            correct += (model(tokens).argmax(-1) == labels).sum()
    model.train()
    return correct.item() / len(loader.dataset)


def legacy_eval(model, loader):
    model.eval()
    total = torch.zeros((), device=device)
    with torch.no_grad():
        for tokens, labels in loader:
            tokens, labels = tokens.to(device), labels.to(device)
            # expect: TL402
            with autocast(dtype=torch.float16):
                total += F.cross_entropy(model(tokens), labels, reduction="sum")
    model.train()
    return total.item() / len(loader.dataset)


def main():
    args = parse_args()
    data = synthetic_data()
    # expect: TL308
    loader = DataLoader(data, batch_size=args.batch_size, shuffle=True, pin_memory=True, drop_last=True)
    # expect: TL308
    val_loader = DataLoader(data, batch_size=256, pin_memory=True)
    model = Classifier().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.05)
    # ok: TL402
    scaler = torch.amp.GradScaler("cuda")
    # expect: TL402
    warm_scaler = GradScaler()
    # expect: TL402
    spare_scaler = torch.cuda.amp.GradScaler(enabled=False)
    del spare_scaler
    model.train()
    for step, (tokens, labels) in enumerate(loader):
        batch = (tokens.to(device, non_blocking=True), labels.to(device, non_blocking=True))
        warmup_step(model, batch, opt, warm_scaler)
        if step >= 100:
            break
    old_scaler = make_scaler()
    for epoch in range(args.epochs):
        running = torch.zeros((), device=device)
        for step, (tokens, labels) in enumerate(loader):
            batch = (tokens.to(device, non_blocking=True), labels.to(device, non_blocking=True))
            running += train_step(model, batch, opt, scaler, args.threshold)
        print(f"epoch {epoch} loss {running.item() / len(loader):.4f} acc {evaluate(model, val_loader):.4f}")
        print(f"legacy eval loss {legacy_eval(model, val_loader):.4f}")
    print(old_scaler.get_scale())


if __name__ == "__main__":
    main()
