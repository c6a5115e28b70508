"""TL207: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "forward-called-directly"
CLAIM = "module hooks are skipped: a registered forward hook never runs"
ITERS = 20
WARMUP = 3
CPU = "the number of forward-hook calls (device-independent)"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("forward-hook calls", fs["hook_calls"], xs["hook_calls"], "of %d" % fs["iterations"],
            shows=fs["hook_calls"] == 0 and xs["hook_calls"] == xs["iterations"]),
        row("loss at the last step", fs["final_loss"], xs["final_loss"], "",
            note="the same: this hook only observes; a hook that changes the output would change results"),
    ]
