"""TL210: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "softmax-into-nll-loss"
CLAIM = "the loss value is wrong (minus a probability) and the model learns far less"
ITERS = 60
WARMUP = 5
CPU = "the reported loss, cross-entropy and accuracy after the last step (device-independent)"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("loss value the loop reports (last step)", fs["reported_loss_last"], xs["reported_loss_last"], "",
            shows=fs["reported_loss_last"] <= 0 < xs["reported_loss_last"],
            note="a cross-entropy is never negative"),
        row("cross-entropy of the logits after training", fs["cross_entropy"], xs["cross_entropy"], "",
            shows=fs["cross_entropy"] > 2 * xs["cross_entropy"]),
        row("training accuracy after training", fs["accuracy"], xs["accuracy"], ""),
    ]
