"""TL302: what the reproduction claims and how a run's numbers are judged."""
from caselib import time_row

NAME = "loop-invariant-transfer"
CLAIM = "a host-to-device copy per step of something that never changes"
ITERS = 30
WARMUP = 5
CPU = None


def assess(flagged, fixed, device):
    return [time_row(flagged, fixed, device)]
