"""TL219: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "out-of-place-result-discarded"
CLAIM = ("the masked scores are thrown away: padded positions take part in the softmax, so "
         "the outputs depend on the padding's content and differ from the masked model's")
ITERS = 60
WARMUP = 5
CPU = "attention mass on padded positions, output change when only the padding changes"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("attention mass on padded positions (last step)", fs["pad_mass"][-1], xs["pad_mass"][-1], "",
            shows=fs["pad_mass"][-1] > 0.1 and xs["pad_mass"][-1] == 0),
        row("largest output change when only the padding changes", fs["padding_sensitivity"],
            xs["padding_sensitivity"], "", shows=fs["padding_sensitivity"] > 1e-3 and xs["padding_sensitivity"] < 1e-5),
        row("held-out accuracy", fs["accuracy"], xs["accuracy"], ""),
        row("training loss at the last step", fs["loss"][-1], xs["loss"][-1], ""),
    ]
