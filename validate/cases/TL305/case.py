"""TL305: what the reproduction claims and how a run's numbers are judged."""
from caselib import row, time_row

NAME = "empty-cache-in-loop"
CLAIM = "slower steps: the allocator cache is thrown away every step (and no leak is fixed)"
ITERS = 30
WARMUP = 5
CPU = None


def assess(flagged, fixed, device):
    rows = [time_row(flagged, fixed, device)]
    if device == "cuda":
        rows.append(row("device memory growth per step", flagged["memory_growth_per_iter"],
                        fixed["memory_growth_per_iter"], "B/iter",
                        note="allocated memory is the same: empty_cache only frees cached blocks"))
    return rows
