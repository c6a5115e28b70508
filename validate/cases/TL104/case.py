"""TL104: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "retain-graph-in-loop"
CLAIM = "higher peak memory per step: the retained graph's activations outlive the step"
ITERS = 20
WARMUP = 3
CPU = "bytes of saved activations held between steps and at the peak"


def assess(flagged, fixed, device):
    hf, hx = flagged["saved_bytes_per_iter"][-1], fixed["saved_bytes_per_iter"][-1]
    pf, px = flagged["saved_bytes_peak"], fixed["saved_bytes_peak"]
    rows = [
        row("saved activations held between steps", hf, hx, "B", shows=hf > 0 and hx == 0),
        row("peak saved activations", pf, px, "B", shows=pf > 1.5 * px),
        row("loss at the last step", flagged["signal"]["loss_last"], fixed["signal"]["loss_last"], "",
            note="the same: the cost is memory only"),
    ]
    if device == "cuda":
        mf, mx = flagged["peak_memory_above_baseline"], fixed["peak_memory_above_baseline"]
        rows.append(row("peak device memory above baseline", mf, mx, "B", shows=mf > 1.1 * mx))
        rows.append(row("median time per step", flagged["median_step_s"], fixed["median_step_s"], "s"))
    return rows
