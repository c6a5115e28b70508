"""TL203: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "eval-mode-not-restored"
CLAIM = ("after the first evaluation, dropout is off and batch norm uses its running "
         "statistics for the rest of training")
ITERS = 40
WARMUP = 5
CPU = "training steps run in eval mode, and batch-norm statistics updates (device-independent)"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("training steps run in eval mode", fs["steps_in_eval_mode"], xs["steps_in_eval_mode"],
            "of %d" % fs["iterations"], shows=fs["steps_in_eval_mode"] > 0 and xs["steps_in_eval_mode"] == 0),
        row("batch-norm running statistics updated", fs["batchnorm_updates"], xs["batchnorm_updates"],
            "steps", shows=fs["batchnorm_updates"] < xs["batchnorm_updates"]),
        row("model.training at the end", fs["training_flag_at_end"], xs["training_flag_at_end"], "",
            shows=(not fs["training_flag_at_end"]) and xs["training_flag_at_end"]),
    ]
