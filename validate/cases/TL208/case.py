"""TL208: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "softmax-before-cross-entropy"
CLAIM = "gradients are squashed and training crawls: higher loss after the same number of steps"
ITERS = 60
WARMUP = 5
CPU = "cross-entropy and accuracy after the last step (device-independent)"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("cross-entropy of the logits after training", fs["cross_entropy"], xs["cross_entropy"], "",
            shows=fs["cross_entropy"] > 2 * xs["cross_entropy"]),
        row("training accuracy after training", fs["accuracy"], xs["accuracy"], ""),
    ]
