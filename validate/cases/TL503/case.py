"""TL503: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "checkpoint-without-use-reentrant"
CLAIM = ("left to its default, checkpoint() uses the reentrant implementation, which gives a "
         "checkpointed block called on inputs that do not require grad no gradient: the block "
         "never trains")
ITERS = 30
WARMUP = 2
CPU = "whether the checkpointed block gets gradients, how far its weights move, the final loss"


def assess(flagged, fixed, device):
    fn, xn = flagged["notes"], fixed["notes"]
    fg, xg = fn.get("block_has_grad"), xn.get("block_has_grad")
    fc, xc = fn.get("block_weight_change"), xn.get("block_weight_change")
    fl, xl = (flagged["signal"] or {}).get("final_loss"), (fixed["signal"] or {}).get("final_loss")
    return [
        row("checkpointed block received a gradient", "yes" if fg else "no", "yes" if xg else "no", "",
            shows=bool(fg is False and xg)),
        row("largest change of the block's weights", fc, xc, "",
            shows=fc is not None and xc is not None and fc == 0 and xc > 0),
        row("training loss at the last step", fl, xl, ""),
    ]
