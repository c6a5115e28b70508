"""TL205: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "scaler-bypassed"
CLAIM = "updates as many times too large (or too small) as the loss scale, 65536 at the start"
ITERS = 20
WARMUP = 3
CPU = None  # torch.cuda.amp.GradScaler disables itself without CUDA


def _err(v):
    e = v["error"]
    return "%s at iteration %d" % (e["type"], e["iteration"]) if e else "none"


def assess(flagged, fixed, device):
    fu, xu = flagged["notes"].get("update_norm") or [], fixed["notes"].get("update_norm") or []
    f, x = (fu[0] if fu else None), (xu[0] if xu else None)
    if not flagged["notes"].get("scaler_enabled"):
        return [row("first update norm", f, x, "",
                    note="GradScaler is disabled without CUDA: nothing to observe on this device")]
    fe = flagged["error"]
    return [
        row("first update norm", f, x, "", shows=f is not None and bool(x) and f / x > 1000,
            note="with plain SGD the ratio is the loss scale"),
        row("exception", _err(flagged), _err(fixed), "",
            note=fe["message"][:90] if fe else "no exception: the oversized updates go on silently"),
    ]
