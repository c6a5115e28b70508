"""TL404: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "half-overflow-constant"
CLAIM = ('filling float16 scores with -1e9 fails: "value cannot be converted to type at::Half '
         'without overflow", where torch.finfo(dtype).min trains')
ITERS = 30
WARMUP = 3
CPU = "the exception and the iteration it is raised at, iterations completed (device-independent)"


def _err(v):
    e = v["error"]
    return "%s at iteration %d" % (e["type"], e["iteration"]) if e else "none"


def assess(flagged, fixed, device):
    fe = flagged["error"]
    return [
        row("exception", _err(flagged), _err(fixed), "",
            shows=bool(fe) and "overflow" in fe["message"] and fixed["error"] is None,
            note=fe["message"][:90] if fe else ""),
        row("iterations completed", flagged["iterations_completed"], fixed["iterations_completed"], "",
            shows=flagged["iterations_completed"] < fixed["iterations_completed"]),
    ]
