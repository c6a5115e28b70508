"""TL211: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "requires-grad-typo"
CLAIM = ("the backbone meant to be frozen keeps training: its weights change, receive gradients "
         "and carry optimizer state")
ITERS = 40
WARMUP = 5
CPU = "backbone weight change, parameters with a gradient, optimizer state (device-independent)"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("largest change of a frozen backbone weight", fs["backbone_change"], xs["backbone_change"], "",
            shows=fs["backbone_change"] > 0.0 and xs["backbone_change"] == 0.0),
        row("backbone parameters that received a gradient", fs["backbone_params_with_grad"],
            xs["backbone_params_with_grad"], "",
            shows=fs["backbone_params_with_grad"] > 0 and xs["backbone_params_with_grad"] == 0),
        row("optimizer state kept for the backbone", fs["backbone_optimizer_state_bytes"],
            xs["backbone_optimizer_state_bytes"], "B",
            shows=fs["backbone_optimizer_state_bytes"] > xs["backbone_optimizer_state_bytes"]),
    ]
