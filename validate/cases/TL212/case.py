"""TL212: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "evaluation-in-train-mode"
CLAIM = ("an evaluation under no_grad() without model.eval() keeps dropout on and lets batch norm "
         "learn from the evaluation batches: two evaluations of the same weights disagree, and "
         "evaluating moves the running statistics")
ITERS = 40
WARMUP = 5
CPU = "disagreement between repeated evaluations, running-statistics change (device-independent)"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("largest accuracy gap between two evaluations of the same weights",
            fs["max_accuracy_gap"], xs["max_accuracy_gap"], "",
            shows=fs["max_accuracy_gap"] > 0.0 and xs["max_accuracy_gap"] == 0.0),
        row("largest loss gap between two evaluations of the same weights",
            fs["max_loss_gap"], xs["max_loss_gap"], "",
            shows=fs["max_loss_gap"] > 0.0 and xs["max_loss_gap"] == 0.0),
        row("largest change of the batch-norm running mean during one evaluation",
            fs["max_running_mean_move"], xs["max_running_mean_move"], "",
            shows=fs["max_running_mean_move"] > 0.0 and xs["max_running_mean_move"] == 0.0),
        row("held-out accuracy after the last evaluation", fs["final_accuracy"], xs["final_accuracy"], "",
            note="one run: a lower flagged value is typical, not guaranteed"),
    ]
