"""TL301: what the reproduction claims and how a run's numbers are judged."""
from caselib import memory_row, time_row

NAME = "host-tensor-moved-to-device"
CLAIM = "slower steps: a host allocation, host fill and PCIe copy instead of a device fill"
ITERS = 30
WARMUP = 5
CPU = None


def assess(flagged, fixed, device):
    rows = [time_row(flagged, fixed, device)]
    if device == "cuda":
        rows.append(memory_row(flagged, fixed, device))
    return rows
