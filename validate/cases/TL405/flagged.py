"""TL405 clip-before-unscale reproduction.

A regression model trained with a GradScaler and gradient-norm clipping at
1.0. fixed.py calls `scaler.unscale_(optimizer)` before
`clip_grad_norm_`; flagged.py clips right after the scaled backward (the one
line that differs), so the threshold applies to gradients multiplied by the
loss scale and the step then divides the clipped gradients by that scale.

On CUDA the scaler is torch's GradScaler (float16 autocast); without CUDA it
is caselib.EmulatedGradScaler, the same arithmetic (GradScaler disables
itself without CUDA), with bfloat16 autocast.

Signal: the norm of each applied update (parameter change), the gradient
norm clip_grad_norm_ saw, how many steps clipping changed, and the training
loss over the run.
"""
import torch
import torch.nn as nn


def train_step(model, optimizer, scaler, criterion, x, y, device, max_norm=1.0):
    optimizer.zero_grad(set_to_none=True)
    amp_dtype = torch.float16 if device.type == "cuda" else torch.bfloat16
    with torch.autocast(device_type=device.type, dtype=amp_dtype):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    # expect: TL405
    seen = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.detach(), seen


def run(device, iters, meter):
    from caselib import grad_scaler
    torch.manual_seed(0)
    features, batch = 32, 256
    g = torch.Generator().manual_seed(0)
    w_true = torch.randn(features, 1, generator=g)
    xs = torch.randn(iters, batch, features, generator=g)
    ys = xs @ w_true + 0.1 * torch.randn(iters, batch, 1, generator=g)
    xs, ys = xs.to(device), ys.to(device)
    model = nn.Sequential(nn.Linear(features, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    criterion = nn.MSELoss()
    scaler = grad_scaler(device)
    update_norms, losses, seen_norms = [], [], []
    for it in range(iters):
        before = [p.detach().clone() for p in model.parameters()]
        loss, seen = train_step(model, optimizer, scaler, criterion, xs[it], ys[it], device)
        with torch.no_grad():
            update_norms.append(sum((p - b).pow(2).sum() for p, b in zip(model.parameters(), before)).sqrt().item())
        losses.append(loss.item())
        seen_norms.append(float(seen))
        meter.tick()
    with torch.no_grad():
        final = criterion(model(xs.flatten(0, 1)), ys.flatten(0, 1)).item()
    return {"update_norm": update_norms, "loss": losses, "clip_input_norm": seen_norms,
            "clipped_steps": sum(1 for n in seen_norms if n > 1.0),
            "median_update_norm": sorted(update_norms)[len(update_norms) // 2],
            "first_loss": losses[0], "final_loss": final, "scale": scaler.get_scale()}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))
