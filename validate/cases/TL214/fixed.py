"""TL214 submodules-in-plain-container reproduction.

A regression MLP keeps its hidden layers in an attribute and trains all of
`model.parameters()` with SGD. flagged.py holds the hidden layers in a
plain list; fixed.py in `nn.ModuleList` (the one line that differs).

Signal: the largest change of a hidden layer's weights after training (0:
they never trained), how many tensors `parameters()` and `state_dict()`
hold, the dtype of a hidden weight after `model.to(torch.float64)`, and the
loss after the last step.
"""
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, features, hidden, depth):
        super().__init__()
        self.inp = nn.Linear(features, hidden)
        self.hidden = nn.ModuleList([nn.Linear(hidden, hidden) for _ in range(depth)])
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        h = torch.tanh(self.inp(x))
        for layer in self.hidden:
            h = torch.tanh(layer(h))
        return self.out(h)


def run(device, iters, meter):
    torch.manual_seed(0)
    features, hidden, depth, batch = 16, 64, 2, 128
    g = torch.Generator().manual_seed(0)
    w = torch.randn(features, 1, generator=g)
    xs = torch.randn(iters, batch, features, generator=g)
    ys = torch.sin(xs @ w)
    xs, ys = xs.to(device), ys.to(device)
    model = MLP(features, hidden, depth).to(device)
    initial = [layer.weight.detach().clone() for layer in model.hidden]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss = None
    for it in range(iters):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(xs[it]), ys[it])
        loss.backward()
        optimizer.step()
        meter.tick()
    change = max((layer.weight.detach() - w0).abs().max().item()
                 for layer, w0 in zip(model.hidden, initial))
    n_params = len(list(model.parameters()))
    n_state = len(model.state_dict())
    model.to(torch.float64)
    return {"hidden_weight_change": change, "parameters": n_params, "state_dict_entries": n_state,
            "hidden_dtype_after_to": str(model.hidden[0].weight.dtype), "final_loss": loss.item()}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
