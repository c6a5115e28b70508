"""TL401 loss-outside-autocast reproduction.

A linear classifier's forward runs under autocast (float16 on CUDA, bfloat16
on the CPU). flagged.py computes the cross-entropy loss after the `with`
block, from the reduced-precision logits; fixed.py computes it inside, where
autocast runs cross_entropy in float32. Only the loss line's indentation
differs.

Signal: the loss dtype, and the loss's error against the same loss computed
in float64 from the same logits (so the error is the loss's own rounding).
"""
import torch
import torch.nn as nn


def run(device, iters, meter):
    torch.manual_seed(0)
    amp_dtype = torch.float16 if device.type == "cuda" else torch.bfloat16
    features, classes, batch = 512, 1000, 256
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(iters, batch, features, generator=g).to(device)
    ys = torch.randint(0, classes, (iters, batch), generator=g).to(device)
    model = nn.Linear(features, classes).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    errors, dtype = [], None
    for it in range(iters):
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, dtype=amp_dtype):
            logits = model(xs[it])
        # expect: TL401
        loss = criterion(logits, ys[it])
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            exact = nn.functional.cross_entropy(logits.double(), ys[it])
            errors.append(abs(loss.double().item() - exact.item()) / exact.item())
        dtype = str(loss.dtype)
        meter.tick()
    return {"loss_dtype": dtype, "logits_dtype": str(logits.dtype),
            "mean_relative_error": sum(errors) / len(errors), "max_relative_error": max(errors),
            "final_loss": loss.item()}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
