"""TL215: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "sampler-epoch-not-set"
CLAIM = "without set_epoch a DistributedSampler gives every epoch the same example order"
ITERS = 8
WARMUP = 1
CPU = "distinct example orders across epochs, overlap with the first epoch's order (device-independent)"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("different example orders over the epochs", fs["distinct_orders"], xs["distinct_orders"],
            "of %d" % fs["epochs"],
            shows=fs["distinct_orders"] == 1 and xs["distinct_orders"] == xs["epochs"]),
        row("share of positions where an epoch's order matches the first epoch's",
            fs["mean_match_with_first_epoch"], xs["mean_match_with_first_epoch"], "",
            shows=fs["mean_match_with_first_epoch"] == 1.0 and xs["mean_match_with_first_epoch"] < 0.1),
        row("loss after the last step", fs["final_loss"], xs["final_loss"], ""),
    ]
