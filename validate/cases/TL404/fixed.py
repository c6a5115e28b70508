"""TL404 half-overflow-constant reproduction.

A small attention classifier whose attention scores are kept in float16
(`.half()`, as a float16 model or a float16 activation cache keeps them)
masks its padded positions before the softmax. flagged.py fills them with
-1e9, a constant float16 cannot hold (its largest value is 65504);
fixed.py fills them with `torch.finfo(scores.dtype).min` (the one line
differs). The linear layers and the softmax run in float32, so the case
runs on Debian's CPU-only PyTorch 1.13, which has no float16 matmul.

Signal: whether training raises, and the loss of the last step.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyAttention(nn.Module):
    def __init__(self, vocab, dim, classes):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens, pad):
        h = self.embed(tokens)
        scores = (self.q(h) @ self.k(h).transpose(1, 2) / h.size(-1) ** 0.5).half()
        scores = scores.masked_fill(pad[:, None, :], torch.finfo(scores.dtype).min)
        att = F.softmax(scores.float(), dim=-1)
        return self.head((att @ h).mean(1))


def run(device, iters, meter):
    torch.manual_seed(0)
    vocab, dim, classes, batch, length = 50, 32, 3, 16, 12
    g = torch.Generator().manual_seed(0)
    tokens = torch.randint(1, vocab, (iters, batch, length), generator=g)
    lengths = torch.randint(4, length + 1, (iters, batch), generator=g)
    pad = torch.arange(length)[None, None, :] >= lengths[..., None]
    labels = torch.randint(0, classes, (iters, batch), generator=g)
    tokens, pad, labels = tokens.to(device), pad.to(device), labels.to(device)
    model = TinyAttention(vocab, dim, classes).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss = None
    for it in range(iters):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(tokens[it], pad[it]), labels[it])
        loss.backward()
        optimizer.step()
        meter.tick()
    return {"final_loss": loss.item(), "loss_finite": bool(torch.isfinite(loss).item())}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
