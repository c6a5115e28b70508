"""TL503 checkpoint-without-use-reentrant reproduction.

A block of the model runs under activation checkpointing, called on the
raw input batch (which does not require grad). flagged.py leaves
`use_reentrant` to its default, the reentrant implementation on PyTorch
1.13 up to 2.x; fixed.py passes `use_reentrant=False` (the one line that
differs). The reentrant variant only backpropagates into a checkpointed
call when one of its inputs requires grad, so here the block gets no
gradient at all and never trains.

Signal: whether the block's weights received a gradient, how far they
moved, and the loss after training.
"""
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class Net(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.block = nn.Sequential(nn.Linear(features, features), nn.Tanh())
        self.head = nn.Linear(features, 1)

    def forward(self, x):
        # ok: TL503
        h = checkpoint(self.block, x, use_reentrant=False)
        return self.head(h)


def run(device, iters, meter):
    torch.manual_seed(0)
    features, batch = 32, 64
    g = torch.Generator().manual_seed(0)
    x = torch.randn(batch, features, generator=g).to(device)
    y = torch.randn(batch, 1, generator=g).to(device)
    model = Net(features).to(device)
    start = model.block[0].weight.detach().clone()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    criterion = nn.MSELoss()
    for _ in range(iters):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        meter.tick()
    meter.note("block_has_grad", model.block[0].weight.grad is not None)
    moved = (model.block[0].weight.detach() - start).abs().max().item()
    meter.note("block_weight_change", moved)
    return {"final_loss": loss.item()}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
