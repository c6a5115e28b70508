"""TL309: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "anomaly-detection-enabled"
CLAIM = ("anomaly mode checks every backward's results and records a traceback for every "
         "forward operation: each training step is slower, and the results are the same")
ITERS = 60
WARMUP = 5
CPU = "median time per step with and without anomaly mode (the same losses)"


def assess(flagged, fixed, device):
    tf, tx = flagged["median_step_s"], fixed["median_step_s"]
    same = flagged["signal"]["loss"] == fixed["signal"]["loss"]
    return [
        row("median time per step", tf, tx, "s",
            shows=tf is not None and tx is not None and tf > 1.2 * tx,
            note="ratio %.2f" % (tf / tx) if tf and tx else ""),
        row("losses identical", same, True, "", note="anomaly mode changes no result"),
    ]
