"""TL401: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "loss-outside-autocast"
CLAIM = ("the loss runs in the reduced precision of the forward's outputs instead of "
         "autocast's float32 policy: coarser loss values (and overflow risk in float16)")
ITERS = 20
WARMUP = 3
CPU = "loss dtype and rounding error under CPU autocast (bfloat16)"


def assess(flagged, fixed, device):
    fs, xs = flagged["signal"], fixed["signal"]
    return [
        row("loss dtype", fs["loss_dtype"], xs["loss_dtype"], "",
            shows=fs["loss_dtype"] != "torch.float32" and xs["loss_dtype"] == "torch.float32"),
        row("mean relative error of the loss vs float64", fs["mean_relative_error"],
            xs["mean_relative_error"], "",
            shows=fs["mean_relative_error"] > 10 * xs["mean_relative_error"]),
        row("max relative error of the loss vs float64", fs["max_relative_error"],
            xs["max_relative_error"], ""),
        row("loss after the last step", fs["final_loss"], xs["final_loss"], "",
            note="training itself is barely affected at this scale"),
    ]
