"""TL502: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "ddp-accumulation-without-no-sync"
CLAIM = "gradients are all-reduced on every micro-step instead of once per optimizer step"
ITERS = 16
WARMUP = 4
CPU = "all-reduce calls and bytes per optimizer step, counted by a communication hook"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    per = lambda s, k: s[k] / max(s["optimizer_steps"], 1)
    return [
        row("all-reduce calls per optimizer step", per(fs, "allreduce_calls"), per(xs, "allreduce_calls"), "",
            shows=per(fs, "allreduce_calls") > per(xs, "allreduce_calls") > 0),
        row("bytes all-reduced per optimizer step", per(fs, "allreduce_bytes"), per(xs, "allreduce_bytes"), "B",
            shows=per(fs, "allreduce_bytes") > per(xs, "allreduce_bytes")),
    ]
