"""TL201: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "missing-zero-grad"
CLAIM = ("gradients accumulate: every step applies the sum of all earlier gradients, so "
         "updates are wrong; memory does not grow")
ITERS = 40
WARMUP = 5
CPU = "gradient norm per step, final loss and weight error (device-independent)"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    rows = [
        row("gradient norm applied by the last step", fs["grad_norm"][-1], xs["grad_norm"][-1], "",
            shows=fs["grad_norm"][-1] > 10 * xs["grad_norm"][-1]),
        row("training loss at the last step", fs["loss"][-1], xs["loss"][-1], "",
            shows=fs["loss"][-1] > 10 * xs["loss"][-1]),
        row("distance of the weights from the true ones", fs["weight_error"], xs["weight_error"], "",
            shows=fs["weight_error"] > 2 * xs["weight_error"]),
    ]
    if device == "cuda":
        rows.append(row("device memory growth per iteration", flagged["memory_growth_per_iter"],
                        fixed["memory_growth_per_iter"], "B/iter",
                        note="no growth expected: the .grad buffers are reused in place"))
    return rows
