"""TL103: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "hidden-state-not-detached"
CLAIM = ('the second backward fails with "Trying to backward through the graph a second time" '
         "(with retain_graph=True instead, memory and time would grow with every chunk)")
ITERS = 20
WARMUP = 3
CPU = "the exception and the iteration it is raised at"


def _err(v):
    e = v["error"]
    return "%s at iteration %d" % (e["type"], e["iteration"]) if e else "none"


def assess(flagged, fixed, device):
    fe = flagged["error"]
    return [
        row("exception", _err(flagged), _err(fixed), "",
            shows=bool(fe) and "second time" in fe["message"] and fixed["error"] is None,
            note=fe["message"][:90] if fe else ""),
        row("iterations completed", flagged["iterations_completed"], fixed["iterations_completed"], "",
            shows=flagged["iterations_completed"] < fixed["iterations_completed"]),
    ]
