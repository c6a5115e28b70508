"""TL206: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "to-result-discarded"
CLAIM = ("tensors are not converted in place: the batch keeps its device and dtype, and the "
         "forward fails with a device or dtype mismatch (or the work silently stays on the CPU)")
ITERS = 10
WARMUP = 2
CPU = "the batch's dtype after the call and the dtype-mismatch exception"


def _err(v):
    e = v["error"]
    return "%s at iteration %d" % (e["type"], e["iteration"]) if e else "none"


def assess(flagged, fixed, device):
    fb, xb = flagged["notes"].get("batch_after_to"), fixed["notes"].get("batch_after_to")
    fe = flagged["error"]
    return [
        row("batch after the call", fb, xb, "", shows=fb != xb),
        row("exception", _err(flagged), _err(fixed), "",
            shows=bool(fe) and fixed["error"] is None, note=fe["message"][:90] if fe else ""),
    ]
