"""TL213: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "ddp-module-bypassed"
CLAIM = ("a training step through ddp.module(x) skips DDP's gradient averaging: two processes end with "
         "different weights, where calling the wrapper keeps them identical")
ITERS = 30
WARMUP = 3
CPU = "largest difference between the two gloo ranks' weights after training (device-independent)"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("largest weight difference between rank 0 and rank 1", fs["max_weight_difference"],
            xs["max_weight_difference"], "",
            shows=fs["max_weight_difference"] > 0.0 and xs["max_weight_difference"] == 0.0),
    ]
