"""TL501: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "unsafe-torch-load"
CLAIM = "a crafted checkpoint runs arbitrary code when loaded without weights_only=True"
ITERS = 5
WARMUP = 1
CPU = "whether the crafted checkpoint's code ran (device-independent)"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("code in the crafted checkpoint ran", fs["code_ran"], xs["code_ran"], "",
            shows=fs["code_ran"] and not xs["code_ran"]),
        row("loading the crafted checkpoint", fs["crafted_checkpoint"], xs["crafted_checkpoint"], ""),
        row("own checkpoint loads", fs["own_checkpoint_loaded"], xs["own_checkpoint_loaded"], "",
            shows=xs["own_checkpoint_loaded"], note="weights_only=True still loads a real checkpoint"),
    ]
