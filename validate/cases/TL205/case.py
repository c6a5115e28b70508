"""TL205: what the reproduction claims and how a run's numbers are judged."""
import math

from caselib import row

NAME = "scaler-bypassed"
CLAIM = "updates as many times too large (or too small) as the loss scale, 65536 at the start"
ITERS = 20
WARMUP = 3
CPU = None  # torch.cuda.amp.GradScaler disables itself without CUDA


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"] or {}, fixed["signal"] or {}
    if not flagged["notes"].get("scaler_enabled"):
        return [row("first update norm", fs.get("first_update_norm"), xs.get("first_update_norm"), "",
                    note="GradScaler is disabled without CUDA: nothing to observe on this device")]
    f, x = fs["first_update_norm"], xs["first_update_norm"]
    last_f = fs["loss"][-1]
    return [
        row("first update norm", f, x, "", shows=x > 0 and f / x > 1000,
            note="the ratio is the loss scale when the optimizer is plain SGD"),
        row("loss at the last step", last_f, xs["loss"][-1], "",
            shows=not math.isfinite(last_f) or last_f > 10 * xs["loss"][-1]),
    ]
