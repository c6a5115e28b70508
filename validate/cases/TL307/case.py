"""TL307: what the reproduction claims and how a run's numbers are judged."""
from caselib import time_row

NAME = "allocation-in-loop"
CLAIM = ("an allocation per step; whether it costs time depends on the caching allocator "
         "(to be measured, not assumed)")
ITERS = 30
WARMUP = 5
CPU = None


def assess(flagged, fixed, device):
    return [time_row(flagged, fixed, device, min_ratio=1.02)]
