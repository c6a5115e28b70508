"""TL103 hidden-state-not-detached reproduction.

A GRU reads a long synthetic sequence chunk by chunk (truncated
backpropagation through time) and carries its hidden state from one chunk to
the next. fixed.py detaches the state at the start of every iteration;
flagged.py does not (the one line that differs), so the second backward
reaches into the first chunk's graph, whose buffers the first backward freed.

Signal: the exception raised (and at which iteration), the loss per chunk.
"""
import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    features, hidden, batch, chunk = 16, 64, 32, 20
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters, batch, chunk, features, generator=g).to(device)
    ys = torch.randn(iters, batch, chunk, 1, generator=g).to(device)
    rnn = nn.GRU(features, hidden, batch_first=True).to(device)
    head = nn.Linear(hidden, 1).to(device)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(list(rnn.parameters()) + list(head.parameters()), lr=0.05)
    h = torch.zeros(1, batch, hidden, device=device)
    losses = []
    for it in range(iters):
        optimizer.zero_grad()
        h = h.detach()
        # ok: TL103
        out, h = rnn(xs[it], h)
        loss = criterion(head(out), ys[it])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        meter.tick()
    return {"loss_first": losses[0], "loss_last": losses[-1]}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
