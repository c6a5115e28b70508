"""TL219 out-of-place-result-discarded reproduction.

A one-head attention pooling classifier over padded sequences: each
sequence has a length, the positions past it are padding filled with noise,
and the attention scores of those positions are masked to -inf before the
softmax. flagged.py calls `scores.masked_fill(pad, -inf)` as a statement
and throws the masked copy away; fixed.py assigns it (the one line that
differs).

Signal: the attention mass that lands on padded positions, and how much
the model's output changes when only the padding's content changes (a
correct mask makes the output independent of it).
"""
import torch
import torch.nn as nn


class AttnPool(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.query = nn.Parameter(torch.randn(dim) / dim ** 0.5)
        self.proj = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x, lengths):
        keys = self.proj(x)                                   # (batch, seq, dim)
        scores = keys @ self.query                            # (batch, seq)
        positions = torch.arange(x.shape[1], device=x.device)
        pad = positions[None, :] >= lengths[:, None]
        scores = scores.masked_fill(pad, float("-inf"))
        weights = scores.softmax(dim=-1)
        self.pad_mass = (weights * pad).sum(dim=-1).mean().item()
        return self.head((weights[..., None] * x).sum(dim=1))


def batch(g, size, seq, dim, device):
    lengths = torch.randint(2, seq // 2, (size,), generator=g)
    x = torch.randn(size, seq, dim, generator=g)
    y = (x[:, 0, 0] > 0).long()                              # the label lives in real positions
    return x.to(device), lengths.to(device), y.to(device)


def run(device, iters, meter):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    dim, seq, size = 16, 32, 64
    model = AttnPool(dim, 2).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    criterion = nn.CrossEntropyLoss()
    losses, pad_mass = [], []
    for _ in range(iters):
        x, lengths, y = batch(g, size, seq, dim, device)
        loss = criterion(model(x, lengths), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        pad_mass.append(model.pad_mass)
        meter.tick()
    # The same sequences twice, with different noise in the padding only.
    x, lengths, y = batch(g, 256, seq, dim, device)
    noise = torch.randn(x.shape, generator=g).to(device)
    pad = (torch.arange(seq, device=device)[None, :] >= lengths[:, None])[..., None]
    x2 = torch.where(pad, noise, x)
    with torch.no_grad():
        out1, out2 = model(x, lengths), model(x2, lengths)
        acc = (out1.argmax(1) == y).float().mean().item()
    return {"loss": losses, "pad_mass": pad_mass,
            "padding_sensitivity": (out1 - out2).abs().max().item(), "accuracy": acc}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
