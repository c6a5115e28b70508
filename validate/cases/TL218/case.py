"""TL218: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "fsdp-optimizer-before-wrap"
CLAIM = ("an optimizer built before FSDP wraps the model steps parameters the wrapped model no "
         "longer uses: the model's weights do not change")
ITERS = 30
WARMUP = 3
CPU = "nothing: FSDP needs CUDA (and Debian's PyTorch 1.13 cannot import it under Python 3.11)"


def _err(v):
    e = v["error"]
    return "%s at iteration %d" % (e["type"], e["iteration"]) if e else "none"


def assess(flagged, fixed, device):
    if flagged["error"] or fixed["error"]:
        return [row("exception", _err(flagged), _err(fixed), "", shows=None,
                    note=(flagged["error"] or fixed["error"])["message"][:90])]
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("largest change of the model's weights after training", fs["weight_change"],
            xs["weight_change"], "", shows=fs["weight_change"] == 0.0 and xs["weight_change"] > 0.0),
        row("optimizer parameters that received a gradient", fs["optimizer_params_with_grad"],
            xs["optimizer_params_with_grad"], "",
            shows=fs["optimizer_params_with_grad"] == 0 and xs["optimizer_params_with_grad"] > 0),
        row("loss at the last step", fs["last_loss"], xs["last_loss"], "",
            note="first step: flagged %.4g, fixed %.4g" % (fs["first_loss"], xs["first_loss"])),
    ]
