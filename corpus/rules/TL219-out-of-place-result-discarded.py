"""TL219 out-of-place-result-discarded: fixtures.

An `expect` annotation sits before an out-of-place tensor operation used as
a whole statement: a method with an in-place twin (`masked_fill`, `clamp`,
`add`, `relu`, ...) or a view / shape method (`unsqueeze`, `view`,
`transpose`, ...) on a value known to be a tensor, or the torch function
form (`torch.clamp(x, 0, 1)`) without `out=`. An `ok` annotation sits
before the in-place twins, assigned results, `out=`, methods with side
effects, receivers of unknown kind, test functions and top-level notebook
style statements.
"""
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader
import torch as T


class MaskedAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.scale = dim ** -0.5

    # Flagged: the padding mask is applied to a copy that is thrown away.
    def forward(self, x, pad_mask):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) * self.scale
        # expect: TL219
        scores.masked_fill(pad_mask, float("-inf"))
        return scores.softmax(dim=-1) @ v


# Flagged: clamping a parameter-annotated tensor.
def clip_boxes(boxes: torch.Tensor, width: int, height: int) -> torch.Tensor:
    # expect: TL219
    boxes[:, 0::2].clamp(0, width)
    # expect: TL219
    boxes[:, 1::2].clamp(0, height)
    return boxes


# Flagged: the function form through an alias, without out=.
def normalise_logits(logits: torch.Tensor):
    # expect: TL219
    T.clamp(logits, -10, 10)
    return logits


# Flagged: a batch element from a DataLoader is "unsqueezed" in a training loop.
def train(model, dataset, opt):
    loader = DataLoader(dataset, batch_size=32, num_workers=4)
    for images, labels in loader:
        # expect: TL219
        images.unsqueeze(1)
        loss = F.cross_entropy(model(images), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: a factory result in a trainer method, several operations.
class Trainer:
    def __init__(self, model, opt):
        self.model = model
        self.opt = opt

    def noisy_targets(self, n):
        noise = torch.randn(n, 10)
        # expect: TL219
        noise.mul(0.1)
        # expect: TL219
        noise.add(1.0)
        return noise


# Flagged: a graph tensor detached in a statement (the intent was to cut the graph).
def teacher_student(student: nn.Module, teacher: nn.Module, x):
    target = teacher(x)
    # expect: TL219
    target.detach()
    return F.mse_loss(student(x), target)


# Flagged: torch.where-free masking with torch.masked_fill.
def mask_scores(scores: torch.Tensor, mask: torch.Tensor):
    # expect: TL219
    torch.masked_fill(scores, mask, -1e4)
    return scores


# Flagged: an activation applied out of place to a tensor attribute's copy.
def activate(h: torch.Tensor):
    # expect: TL219
    h.relu()
    return h


# ---------------------------------------------------------------------------
# Correct
# ---------------------------------------------------------------------------


# OK: the in-place twins.
def clip_in_place(boxes: torch.Tensor, width):
    # ok: TL219
    boxes.clamp_(0, width)
    mask = boxes < 0
    # ok: TL219
    boxes.masked_fill_(mask, 0)
    return boxes


# OK: the result is assigned (also to the same name).
def masked(scores: torch.Tensor, mask):
    # ok: TL219
    scores = scores.masked_fill(mask, float("-inf"))
    # ok: TL219
    probs = torch.clamp(scores.softmax(-1), 1e-6, 1.0)
    return probs


# OK: out= writes into an existing tensor.
def add_into(a: torch.Tensor, b: torch.Tensor, buf: torch.Tensor):
    # ok: TL219
    torch.add(a, b, out=buf)
    return buf


# OK: methods with side effects.
def hooks(model, x: torch.Tensor, stream):
    loss = model(x).sum()
    # ok: TL219
    loss.backward()
    # ok: TL219
    x.register_hook(print)
    # ok: TL219
    x.record_stream(stream)
    # ok: TL219
    x.copy_(x * 2)


# OK: a receiver of unknown kind (a pandas frame, a list, a config object).
def frames(df, numbers, cfg):
    # ok: TL219
    df.clip(0, 1)
    # ok: TL219
    numbers.reshape(3, 2)
    # ok: TL219
    cfg.add("lr", 0.1)


# OK: a module: add / float / apply are not tensor operations here.
def modules():
    seq = nn.Sequential(nn.Linear(2, 2))
    # ok: TL219
    seq.add_module("act", nn.ReLU())
    # ok: TL219
    seq.float()


# OK: test functions run an operation for the error it raises or for a profiler.
def test_view_raises():
    x = torch.zeros(3, 4)
    try:
        # ok: TL219
        x.view(5, 7)
    except RuntimeError:
        pass
    with torch.autograd.profiler.profile():
        # ok: TL219
        torch.add(x, x)


# OK: the returned value is used (a chained call, a return, an argument).
def chained(x: torch.Tensor):
    print(x.unsqueeze(0).shape)
    # ok: TL219
    return x.view(-1)


# Known miss: the first argument of the function form is an expression.
def expression_argument(x: torch.Tensor):
    # todo-expect: TL219
    torch.clamp(x * 2, 0, 1)
    return x
