"""TL211 requires-grad-typo reproduction.

Fine-tuning: a pretrained-style backbone (two linear layers, seeded) gets a
new head, and the backbone is meant to be frozen so that only the head
trains. flagged.py spells the flag `require_grad` (no `s`); fixed.py spells
it `requires_grad` (the one line differs). Both hand every parameter to the
optimizer, as fine-tuning scripts often do.

Signal: the largest change of a backbone weight after training (0 when it is
really frozen), how many backbone parameters received a gradient, and the
optimizer state kept for them (AdamW keeps two tensors per parameter).
"""
import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    features, hidden, classes, batch = 32, 64, 4, 64
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters, batch, features, generator=g)
    ys = torch.randint(0, classes, (iters, batch), generator=g)
    xs, ys = xs.to(device), ys.to(device)
    backbone = nn.Sequential(nn.Linear(features, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU()).to(device)
    head = nn.Linear(hidden, classes).to(device)
    for p in backbone.parameters():
        # expect: TL211
        p.require_grad = False
    initial = [p.detach().clone() for p in backbone.parameters()]
    model = nn.Sequential(backbone, head)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for it in range(iters):
        optimizer.zero_grad()
        loss = criterion(model(xs[it]), ys[it])
        loss.backward()
        optimizer.step()
        meter.tick()
    change = max((p.detach() - p0).abs().max().item() for p, p0 in zip(backbone.parameters(), initial))
    with_grad = sum(1 for p in backbone.parameters() if p.grad is not None)
    state_bytes = sum(t.numel() * t.element_size()
                      for p in backbone.parameters() for t in optimizer.state.get(p, {}).values()
                      if torch.is_tensor(t) and t.dim() > 0)
    return {"backbone_change": change, "backbone_params_with_grad": with_grad,
            "backbone_optimizer_state_bytes": state_bytes}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
