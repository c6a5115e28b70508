"""TL216: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "functional-dropout-always-on"
CLAIM = ("dropout stays on after model.eval(): two evaluations of the same batch by the same "
         "weights differ, and held-out accuracy is below the fixed model's")
ITERS = 60
WARMUP = 5
CPU = "gap between two evaluations in eval mode, held-out accuracy (device-independent)"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("largest difference between two evaluations of one batch in eval mode",
            fs["max_eval_gap"], xs["max_eval_gap"], "",
            shows=fs["max_eval_gap"] > 0.0 and xs["max_eval_gap"] == 0.0),
        row("held-out accuracy in eval mode", fs["eval_accuracy"], xs["eval_accuracy"], "",
            shows=fs["eval_accuracy"] < xs["eval_accuracy"]),
    ]
