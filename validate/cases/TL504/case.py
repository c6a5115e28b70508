"""TL504: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "wrapped-state-dict-saved"
CLAIM = ("the wrapper's state_dict keys carry its `module.` prefix: a strict load into the bare "
         "model fails, and a strict=False load fills nothing, leaving the initial weights")
ITERS = 40
WARMUP = 5
CPU = "strict load error, keys a strict=False load fills, accuracy of the loaded model"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("strict load_state_dict into the bare model", fs["strict_load"], xs["strict_load"], "",
            shows=fs["strict_load"].startswith("Unexpected key(s)") and xs["strict_load"] == "loaded"),
        row("keys a strict=False load fills", fs["keys_loaded"], xs["keys_loaded"], "",
            shows=fs["keys_loaded"] == 0 and xs["keys_loaded"] == xs["keys_expected"]),
        row("held-out accuracy of the loaded model", fs["loaded_accuracy"], xs["loaded_accuracy"], "",
            shows=fs["loaded_accuracy"] < 0.5 and xs["loaded_accuracy"] > 0.9,
            note="4 classes: chance is 0.25"),
        row("accuracy of the model that was trained", fs["trained_accuracy"], xs["trained_accuracy"], ""),
    ]
