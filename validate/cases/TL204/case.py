"""TL204: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "scaler-step-without-update"
CLAIM = ('"step() has already been called since the last update()" at the second iteration '
         "(a GPU job fails; older versions silently never adjust the scale)")
ITERS = 20
WARMUP = 3
CPU = None  # torch.cuda.amp.GradScaler disables itself without CUDA


def _err(v):
    e = v["error"]
    return "%s at iteration %d" % (e["type"], e["iteration"]) if e else "none"


def assess(flagged, fixed, device):
    enabled = flagged["notes"].get("scaler_enabled")
    fe = flagged["error"]
    if not enabled:
        return [row("exception", _err(flagged), _err(fixed), "",
                    note="GradScaler is disabled without CUDA: nothing to observe on this device")]
    return [
        row("exception", _err(flagged), _err(fixed), "",
            shows=bool(fe) and "update()" in fe["message"] and fixed["error"] is None,
            note=fe["message"][:90] if fe else ""),
        row("iterations completed", flagged["iterations_completed"], fixed["iterations_completed"], "",
            shows=flagged["iterations_completed"] < fixed["iterations_completed"]),
    ]
