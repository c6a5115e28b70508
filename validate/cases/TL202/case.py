"""TL202: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "zero-grad-before-step"
CLAIM = "parameters do not change: every step applies an empty gradient"
ITERS = 40
WARMUP = 5
CPU = "largest parameter change after all steps, and the loss (device-independent)"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("largest parameter change", fs["max_param_change"], xs["max_param_change"], "",
            shows=fs["max_param_change"] == 0.0 and xs["max_param_change"] > 0.0),
        row("loss at the last step", fs["loss_last"], xs["loss_last"], "",
            shows=xs["loss_last"] < 0.8 * fs["loss_last"]),
    ]
