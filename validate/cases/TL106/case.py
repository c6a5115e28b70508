"""TL106: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "tensor-kept-with-graph"
CLAIM = ("memory grows linearly with iterations: every kept output pins the saved "
         "activations of the forward that produced it, in a loop that trains nothing")
ITERS = 30
WARMUP = 5
CPU = "saved activations held and autograd nodes reachable from the kept outputs, per iteration"


def assess(flagged, fixed, device):
    rows = [
        row("saved activations held, growth per iteration", flagged["saved_bytes_growth_per_iter"],
            fixed["saved_bytes_growth_per_iter"], "B/iter",
            shows=flagged["saved_bytes_growth_per_iter"] > 0 and fixed["saved_bytes_growth_per_iter"] == 0),
        row("saved activations held after the last iteration", flagged["saved_bytes_per_iter"][-1],
            fixed["saved_bytes_per_iter"][-1], "B"),
        row("autograd nodes reachable from the kept outputs, growth per iteration",
            flagged["graph_nodes_growth_per_iter"], fixed["graph_nodes_growth_per_iter"], "nodes/iter",
            shows=flagged["graph_nodes_growth_per_iter"] > 0 and fixed["graph_nodes_growth_per_iter"] == 0),
        row("sum of the last kept features", flagged["signal"]["feature_sum_last"],
            fixed["signal"]["feature_sum_last"], "",
            note="the same values: the graph changes memory, not results"),
    ]
    if device == "cuda":
        g_f, g_x = flagged["memory_growth_per_iter"], fixed["memory_growth_per_iter"]
        rows.append(row("device memory growth per iteration", g_f, g_x, "B/iter",
                        shows=g_f > 0 and g_f > 10 * max(g_x, 0) + 4096))
    return rows
