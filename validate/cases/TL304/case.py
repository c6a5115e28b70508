"""TL304: what the reproduction claims and how a run's numbers are judged."""
from caselib import row, time_row

NAME = "sync-in-hot-loop"
CLAIM = "slower steps for a launch-bound model: the host waits for the GPU every step"
ITERS = 200
WARMUP = 20
CPU = None


def assess(flagged, fixed, device):
    return [
        time_row(flagged, fixed, device),
        row("mean loss", flagged["signal"]["mean_loss"], fixed["signal"]["mean_loss"], "",
            note="the same value"),
    ]
