"""TL303: what the reproduction claims and how a run's numbers are judged."""
from caselib import row, time_row

NAME = "host-round-trip-in-loop"
CLAIM = "two copies and a host sync per step"
ITERS = 30
WARMUP = 5
CPU = None


def assess(flagged, fixed, device):
    return [
        time_row(flagged, fixed, device),
        row("loss at the last step", flagged["signal"]["final_loss"], fixed["signal"]["final_loss"], "",
            note="the same computation: only where it runs differs"),
    ]
