"""TL214: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "submodules-in-plain-container"
CLAIM = ("layers kept in a plain list are not registered: their weights never train, they are "
         "missing from parameters() and state_dict(), and .to(dtype) leaves them behind")
ITERS = 60
WARMUP = 5
CPU = "hidden-layer weight change, parameter and state_dict counts, dtype after .to() (device-independent)"


def _err(v):
    e = v["error"]
    return "%s at iteration %d" % (e["type"], e["iteration"]) if e else "none"


def assess(flagged, fixed, device):
    if flagged["error"] or fixed["error"]:
        # On a GPU, model.to(device) leaves the listed layers on the CPU: the
        # first forward fails with a device mismatch (the fixed model trains).
        return [row("exception", _err(flagged), _err(fixed), "",
                    shows=bool(flagged["error"]) and not fixed["error"],
                    note=(flagged["error"] or fixed["error"])["message"][:90])]
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("largest change of a hidden layer's weights after training",
            fs["hidden_weight_change"], xs["hidden_weight_change"], "",
            shows=fs["hidden_weight_change"] == 0.0 and xs["hidden_weight_change"] > 0.0),
        row("tensors in parameters()", fs["parameters"], xs["parameters"], "",
            shows=fs["parameters"] < xs["parameters"]),
        row("entries in state_dict()", fs["state_dict_entries"], xs["state_dict_entries"], "",
            shows=fs["state_dict_entries"] < xs["state_dict_entries"]),
        row("dtype of a hidden weight after model.to(torch.float64)", fs["hidden_dtype_after_to"],
            xs["hidden_dtype_after_to"], "",
            shows=fs["hidden_dtype_after_to"] == "torch.float32"
            and xs["hidden_dtype_after_to"] == "torch.float64"),
        row("loss after the last step", fs["final_loss"], xs["final_loss"], ""),
    ]
