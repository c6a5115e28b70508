"""TL306: what the reproduction claims and how a run's numbers are judged."""
from caselib import time_row

NAME = "non-blocking-without-pinned-memory"
CLAIM = "pageable copies run at lower bandwidth and cannot overlap with compute"
ITERS = 30
WARMUP = 5
CPU = None


def assess(flagged, fixed, device):
    return [time_row(flagged, fixed, device, min_ratio=1.02)]
