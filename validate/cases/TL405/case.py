"""TL405: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "clip-before-unscale"
CLAIM = ("clipping the scaled gradients clips every step to max_norm / scale: the applied updates "
         "shrink by about the loss scale and the training loss stays where it started")
ITERS = 60
WARMUP = 5
CPU = "GradScaler's arithmetic emulated in float32 (caselib.EmulatedGradScaler): update norms and loss"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("median norm of the applied update", fs["median_update_norm"], xs["median_update_norm"], "",
            shows=fs["median_update_norm"] * 1000 < xs["median_update_norm"]),
        row("training loss after %d steps" % len(fs["loss"]), fs["final_loss"], xs["final_loss"], "",
            shows=fs["final_loss"] > 2 * xs["final_loss"]),
        row("steps whose gradient norm clipping saw above max_norm=1.0", fs["clipped_steps"], xs["clipped_steps"], "",
            note="flagged: the norm of the scaled gradients; fixed: of the real ones"),
        row("loss scale", fs["scale"], xs["scale"], ""),
    ]
