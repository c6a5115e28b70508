"""TL102: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "eval-without-no-grad"
CLAIM = ("higher peak memory: every forward keeps its saved activations until its output "
         "is dropped (the graph is recorded for nothing)")
ITERS = 20
WARMUP = 3
CPU = "bytes of activations autograd saves per evaluation batch"


def assess(flagged, fixed, device):
    f, x = flagged["saved_bytes_peak"], fixed["saved_bytes_peak"]
    rows = [
        row("peak saved activations during evaluation", f, x, "B", shows=f > 0 and x == 0),
        row("graph recorded for evaluation outputs", flagged["signal"]["graph_recorded"],
            fixed["signal"]["graph_recorded"], "",
            shows=flagged["signal"]["graph_recorded"] and not fixed["signal"]["graph_recorded"]),
        row("accuracy", flagged["signal"]["accuracy"], fixed["signal"]["accuracy"], "",
            note="the same: the cost is memory only"),
    ]
    if device == "cuda":
        pf, px = flagged["peak_memory_above_baseline"], fixed["peak_memory_above_baseline"]
        rows.append(row("peak device memory above baseline", pf, px, "B", shows=pf > 1.1 * px))
        tf, tx = flagged["median_step_s"], fixed["median_step_s"]
        # Measured on an H200 (PyTorch 2.11): no slower, in two runs (3.23 vs 3.22 ms and
        # 3.15 vs 3.21 ms per batch); recording the graph costs memory, not measurable time here.
        rows.append(row("median time per evaluation batch", tf, tx, "s",
                        note="reported, not claimed: recording the graph did not slow this evaluation"))
    else:
        rows.append(row("median time per evaluation batch (CPU)", flagged["median_step_s"],
                        fixed["median_step_s"], "s",
                        note="CPU time, for reference; the claim is about GPU time"))
    return rows
