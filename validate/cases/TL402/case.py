"""TL402: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "deprecated-amp-api"
CLAIM = ("torch.cuda.amp entry points are deprecated since PyTorch 2.4: each call warns, and the "
         "torch.amp form does the same work without warning")
ITERS = 10
WARMUP = 1
CPU = "deprecation warnings raised per run (none on PyTorch before 2.4)"


def assess(flagged, fixed, device):
    fw, xw = flagged["notes"].get("deprecation_warnings"), fixed["notes"].get("deprecation_warnings")
    return [
        row("deprecation warnings during training", fw, xw, "",
            shows=bool(fw) and xw == 0, note=flagged["notes"].get("first_warning", "")),
        row("training loss at the last step", (flagged["signal"] or {}).get("final_loss"),
            (fixed["signal"] or {}).get("final_loss"), ""),
    ]
