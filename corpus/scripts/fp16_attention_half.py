"""A pure-float16 attention model (`model.half()`): TL404 fixtures.

The model and its inputs are converted to float16 with `.half()`, so every
constant written into a tensor must fit float16 (|c| <= 65504). Flagged: a
padding mask filled with -1e9, and a causal bias built as `mask * -1e9`.
Also a float16 factory filled with -1e9. Correct: the same fills with `torch.finfo(dtype).min` and `-inf`, and a
Python-side learning-rate schedule that uses large numbers, and a mask
written after the scores were upcast to float32.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, pad_mask):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        att = (q @ k.transpose(-2, -1)) * (c ** -0.5)
        # expect: TL404
        att = att.masked_fill(pad_mask[:, None, :], -1e9)
        causal = torch.ones(t, t, device=x.device).triu(1)
        # expect: TL404
        att = att + causal * -1e9
        return self.proj(F.softmax(att, dim=-1) @ v)


class SafeSelfAttention(SelfAttention):
    def forward(self, x, pad_mask):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        att = (q @ k.transpose(-2, -1)) * (c ** -0.5)
        # ok: TL404
        att = att.masked_fill(pad_mask[:, None, :], torch.finfo(att.dtype).min)
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
        # ok: TL404
        att = att.masked_fill(causal, float("-inf"))
        return self.proj(F.softmax(att, dim=-1) @ v)



class UpcastSelfAttention(SelfAttention):
    # The scores are upcast to float32 before the padding mask is written (the
    # usual way to keep the softmax stable in a float16 model): -1e9 fits
    # there. The causal mask written before the upcast still overflows.
    def forward(self, x, pad_mask):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        att = (q @ k.transpose(-2, -1)) * (c ** -0.5)
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
        # expect: TL404
        att = att.masked_fill(causal, -1e9)
        att = att.float()
        # ok: TL404
        att = att.masked_fill(pad_mask[:, None, :], -1e9)
        return self.proj(F.softmax(att, dim=-1).type_as(x) @ v)

def half_bias(n, device):
    # expect: TL404
    return torch.full((n, n), -1e9, dtype=torch.float16, device=device)


def large_half_buffers(n_tokens=70000):
    # Sizes are no values written into the tensor.
    # ok: TL404
    cache = torch.zeros(n_tokens * 1024, dtype=torch.float16, device="cuda")
    # ok: TL404
    flat = torch.empty(2_500_000_000, dtype=torch.half, device="cuda")
    # expect: TL404
    bias = torch.full((8, 8), fill_value=-1e9, dtype=torch.float16, device="cuda")
    return cache, flat, bias

def lr_at(step, warmup=4000):
    # ok: TL404
    return min(step / warmup, 1.0) * 1e-3 * (1e6 / max(step, 1e6))


def main():
    model = SelfAttention(64, 4).cuda().half()
    x = torch.randn(8, 16, 64, device="cuda").half()
    pad = torch.zeros(8, 16, dtype=torch.bool, device="cuda")
    return model(x, pad)
