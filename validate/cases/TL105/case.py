"""TL105: what the reproduction claims and how a run's numbers are judged."""
from caselib import row

NAME = "distributed-load-without-map-location"
CLAIM = ("torch.load without map_location materialises the whole checkpoint on the device it was "
         "saved from (GPU 0) in every process before load_state_dict copies it")
ITERS = 4
WARMUP = 1
CPU = "nothing: a checkpoint saved from the CPU loads onto the CPU either way"


def _err(v):
    e = v["error"]
    return "%s at iteration %d" % (e["type"], e["iteration"]) if e else "none"


def assess(flagged, fixed, device):
    if flagged["error"] or fixed["error"]:
        return [row("exception", _err(flagged), _err(fixed), "", shows=False,
                    note=(flagged["error"] or fixed["error"])["message"][:90])]
    fs, xs = flagged["signal"], fixed["signal"]
    rows = [row("loss after resuming (last iteration)", fs["loss_last"], xs["loss_last"], "",
                note="the same: the cost is device memory only")]
    if device != "cuda":
        return rows
    lf, lx = fs["device_bytes_allocated_by_load"], xs["device_bytes_allocated_by_load"]
    size = fs["checkpoint_bytes"]
    rows.insert(0, row("device memory allocated by torch.load itself", lf, lx, "B",
                       shows=lf >= 0.9 * size and lx == 0,
                       note="checkpoint file: %d B" % size))
    mf, mx = flagged["peak_memory_above_baseline"], fixed["peak_memory_above_baseline"]
    rows.insert(1, row("peak device memory above baseline", mf, mx, "B",
                       note="the training step's own peak (Adam state, activations) dominates one "
                            "process's peak; the copy on the saved-from device is what each process adds there"))
    return rows
