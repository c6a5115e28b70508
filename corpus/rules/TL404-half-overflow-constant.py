"""TL404 half-overflow-constant: fixtures (autocast regions).

An `expect` annotation sits before a constant beyond float16's range
(|c| > 65504) written into a tensor inside a float16 autocast region:
`masked_fill(mask, -1e9)`, `fill_`, `index_fill_`, `full_like`, a factory
with `dtype=torch.float16`, and arithmetic that meets a tensor
(`scores + mask * -1e9`), also through a name bound once to the constant
and `float("-1e10")`. An `ok` annotation sits before constants float16
holds, infinities, `torch.finfo(dtype).min`, bfloat16 and CPU autocast
(float32's range), regions turned off, and plain Python arithmetic. The
file converts nothing to float16 itself; files that do (`.half()`) are in
corpus/scripts/fp16_attention_half.py.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

NEG_INF = -1e9
SMALL_NEG = -1e4


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, mask):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        scores = scores.masked_fill(mask == 0, float("-inf"))
        return F.softmax(scores, dim=-1) @ v


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


def masked_scores(q, k, mask):
    with torch.autocast("cuda"):
        scores = q @ k.transpose(-2, -1)
        # expect: TL404
        scores = scores.masked_fill(mask == 0, -1e9)
        return scores.softmax(-1)


def masked_scores_module_constant(q, k, mask):
    with torch.autocast(device_type="cuda", dtype=torch.float16):
        scores = torch.matmul(q, k.transpose(-1, -2))
        # expect: TL404
        scores.masked_fill_(~mask, NEG_INF)
        return scores


def masked_scores_float_string(logits, pad):
    # expect: TL402
    with torch.cuda.amp.autocast():
        # expect: TL404
        return logits.masked_fill(pad, value=float("-1e10")).log_softmax(-1)


def filled_buffer(x):
    with torch.autocast("cuda", dtype=torch.half):
        out = torch.empty_like(x)
        # expect: TL404
        out.fill_(1e5)
        return out


def index_filled(logits, banned):
    with torch.autocast("cuda"):
        # expect: TL404
        return logits.index_fill(1, banned, -1e30)


def full_like_bias(scores):
    with torch.autocast("cuda"):
        # expect: TL404
        bias = torch.full_like(scores, -1e9)
        return scores + bias


def additive_mask(loader):
    model = nn.Linear(64, 10).cuda()
    for x, pad in loader:
        with torch.autocast("cuda"):
            scores = model(x)
            # expect: TL404
            scores = scores + pad * -1e9
            loss = scores.logsumexp(-1).mean()
        loss.backward()


def inverted_mask(loader):
    model = nn.Linear(64, 10).cuda()
    for x, keep in loader:
        with torch.autocast("cuda"):
            logits = model(x)
            # expect: TL404
            logits = logits + (1.0 - keep) * -10000000.0
            loss = logits.logsumexp(-1).mean()
        loss.backward()


def causal_bias(x, y, t):
    model = Attention(64).cuda()
    with torch.autocast("cuda"):
        scores = model(x)
        causal = torch.tril(torch.ones(t, t, device="cuda")) == 0
        # expect: TL404
        scores = scores - 1e9 * causal
        loss = F.cross_entropy(scores, y)
    return loss


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


def finfo_min(scores, mask):
    with torch.autocast("cuda"):
        # ok: TL404
        return scores.masked_fill(mask == 0, torch.finfo(scores.dtype).min)


def negative_infinity(scores, mask):
    with torch.autocast("cuda"):
        # ok: TL404
        scores = scores.masked_fill(mask == 0, float("-inf"))
        # ok: TL404
        return scores.masked_fill(mask == 0, -math.inf)


def within_half_range(scores, mask):
    with torch.autocast("cuda"):
        # ok: TL404
        scores = scores.masked_fill(mask == 0, -1e4)
        # ok: TL404
        return scores.masked_fill(mask == 0, SMALL_NEG)


def bfloat16_autocast(scores, mask):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        # ok: TL404
        return scores.masked_fill(mask == 0, -1e9)


def cpu_autocast(scores, mask):
    with torch.autocast("cpu"):
        # ok: TL404
        return scores.masked_fill(mask == 0, -1e9)


def autocast_disabled(scores, mask):
    with torch.autocast("cuda"):
        with torch.autocast("cuda", enabled=False):
            # ok: TL404
            return scores.float().masked_fill(mask == 0, -1e9)


def float32_everywhere(scores, mask):
    # no autocast, nothing converted to float16 in this file
    # ok: TL404
    return scores.masked_fill(mask == 0, -1e9)


def python_arithmetic(step, total):
    with torch.autocast("cuda"):
        # ok: TL404
        warmup = step * 1e6
        # ok: TL404
        budget = total - 1e9
        return warmup, budget


def float32_factory(n, device):
    with torch.autocast("cuda"):
        # factories are not autocast: this is float32
        # ok: TL404
        return torch.full((n, n), -1e9, device=device)


def rebound_constant(scores, mask, fp32):
    neg = -1e9
    if not fp32:
        neg = -1e4
    with torch.autocast("cuda"):
        # ok: TL404
        return scores.masked_fill(mask == 0, neg)


# OK: a number of the allocator divided by 1e9 under autocast: a Python float, no tensor
# (`torch.cuda.memory_reserved()` is not a tensor operation).
def log_memory(model, x):
    with torch.autocast("cuda"):
        out = model(x)
        # ok: TL404
        mem = torch.cuda.memory_reserved() / 1e9
    return out, mem
