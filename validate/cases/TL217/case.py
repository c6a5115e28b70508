"""TL217: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "softmax-implicit-dim"
CLAIM = ("a 3-D (batch, time, classes) output is normalised across the batch: each position's "
         "class probabilities do not sum to 1, and the tagger trained on them ends at a worse loss")
ITERS = 60
WARMUP = 5
CPU = "probability-sum error, cross-entropy and accuracy after training (device-independent)"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("largest distance of a position's class probabilities from summing to 1",
            fs["max_tag_sum_error"], xs["max_tag_sum_error"], "",
            shows=fs["max_tag_sum_error"] > 0.1 and xs["max_tag_sum_error"] < 1e-4),
        row("cross-entropy over the classes after training", fs["cross_entropy"], xs["cross_entropy"], "",
            shows=fs["cross_entropy"] > 1.5 * xs["cross_entropy"]),
        row("training accuracy after training", fs["accuracy"], xs["accuracy"], "",
            note="close: the argmax over the classes survives; the probabilities do not"),
    ]
