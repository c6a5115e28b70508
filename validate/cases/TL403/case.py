"""TL403: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "unstable-log-exp"
CLAIM = ("inf/NaN: exp overflows on logits a confident classifier reaches, where logsumexp "
         "stays finite")
ITERS = 40
WARMUP = 5
CPU = "largest logit, steps with a non-finite loss, finite weights (device-independent)"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("largest logit seen", fs["max_logit"], xs["max_logit"], "",
            shows=None, note="float32 exp overflows above about 88.7"),
        row("steps whose loss is inf or NaN", fs["nonfinite_steps"], xs["nonfinite_steps"], "",
            shows=fs["nonfinite_steps"] > 0 and xs["nonfinite_steps"] == 0),
        row("weights finite after training", fs["weights_finite"], xs["weights_finite"], "",
            shows=(not fs["weights_finite"]) and xs["weights_finite"]),
    ]
