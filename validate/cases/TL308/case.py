"""TL308: what the reproduction claims and how a run's numbers are judged."""
from caselib import row, time_row

NAME = "dataloader-in-main-process"
CLAIM = ("with no worker processes, each batch is loaded and augmented in the training process between "
         "steps, so every step also waits for its data")
ITERS = 40
WARMUP = 5
CPU = None


def assess(flagged, fixed, device):
    return [
        time_row(flagged, fixed, device, min_ratio=1.2),
        row("mean loss", flagged["signal"]["mean_loss"], fixed["signal"]["mean_loss"], "",
            note="the same batches in the same order"),
    ]
