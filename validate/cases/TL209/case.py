"""TL209: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "sigmoid-before-bce"
CLAIM = ("saturation for large logits: sigmoid rounds to 0 or 1, no gradient flows and the "
         "model stays wrong (inside autocast, BCELoss raises instead)")
ITERS = 60
WARMUP = 5
CPU = "first-step gradient norm, loss and accuracy after the last step (device-independent)"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("gradient norm of the first step", fs["first_grad_norm"], xs["first_grad_norm"], "",
            shows=fs["first_grad_norm"] < 0.01 * xs["first_grad_norm"]),
        row("binary cross-entropy after training", fs["bce"], xs["bce"], "",
            shows=fs["bce"] > 2 * xs["bce"]),
        row("accuracy after training", fs["accuracy"], xs["accuracy"], "",
            shows=fs["accuracy"] < xs["accuracy"]),
    ]
