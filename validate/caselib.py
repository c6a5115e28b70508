"""Shared measurement code for the reproductions in validate/cases/.

Every case directory holds two training programs, flagged.py and fixed.py,
that differ only in one pitfall. Each defines

    run(device, iters, meter) -> dict

which builds a small seeded model and synthetic data on `device`, runs
`iters` iterations calling `meter.tick()` at the end of each one, and returns
the rule's correctness signal (losses, gradient norms, flags, ...). The
harness (validate/run.py) and the CPU tests (validate/test_cpu.py) call
`measure()` below; `python3 flagged.py` runs one variant on its own through
`main()`.

Works with PyTorch 1.13 (Debian's python3-torch, CPU) and 2.x (CUDA).
"""
import datetime
import gc
import importlib.util
import json
import platform
import statistics
import subprocess
import sys
import time
import traceback
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent
CASES = ROOT / "cases"


def pick_device(name=None):
    """`name` ("cpu", "cuda", "cuda:1") or, when None, CUDA if available."""
    if name is None:
        name = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise SystemExit("validate: --device %s asked for, but CUDA is not available" % name)
    return device


def _sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


# --- device-independent probes ---------------------------------------------------

def _storage(t):
    # untyped_storage() from 2.0 on; storage() (typed) in 1.13.
    return t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()


def _is_parameter_memory(t):
    """Parameters (and views of them) are saved for backward by every layer, but
    they exist anyway: the probe counts the extra memory a graph keeps alive."""
    base = t._base if t._base is not None else t
    return base.is_leaf and base.requires_grad


class SavedTensors:
    """Counts the bytes of the tensors autograd keeps for backward (activations,
    not parameters), for as long as the graph keeps them. A tensor saved by
    several nodes is counted once.

    Uses torch.autograd.graph.saved_tensors_hooks: pack() wraps each saved
    tensor in a holder that lives exactly as long as autograd's reference to it
    (released after backward, or when the graph is dropped)."""

    def __init__(self):
        self.live = 0  # bytes held right now
        self.peak = 0
        self._refs = {}  # view key -> [holders, bytes]
        self._ctx = None

    def _pack(self, t):
        return _Held(self, t)

    @staticmethod
    def _unpack(held):
        return held.tensor

    def _add(self, key, nbytes):
        entry = self._refs.get(key)
        if entry is None:
            self._refs[key] = [1, nbytes]
            self.live += nbytes
            self.peak = max(self.peak, self.live)
        else:
            entry[0] += 1

    def _remove(self, key):
        entry = self._refs[key]
        entry[0] -= 1
        if entry[0] == 0:
            self.live -= entry[1]
            del self._refs[key]

    def __enter__(self):
        self._ctx = torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)
        self._ctx.__enter__()
        return self

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)


class _Held:
    __slots__ = ("tensor", "owner", "key")

    def __init__(self, owner, t):
        # Detached: a tensor that its own node saves (an output such as
        # relu's) would otherwise hold that node through its grad_fn, a
        # reference cycle through C++ that nothing collects. The detached
        # tensor shares storage and version counter, which is all backward needs.
        self.tensor = t.detach()
        self.owner = None
        if _is_parameter_memory(t) or t.layout != torch.strided:
            return
        # One entry per distinct view: a slice of a larger tensor counts its own
        # bytes, not the whole storage; the same view saved twice counts once.
        self.owner = owner
        self.key = (t.device.type, t.device.index, _storage(t).data_ptr(), t.storage_offset(),
                    tuple(t.shape), tuple(t.stride()))
        owner._add(self.key, t.numel() * t.element_size())

    def __del__(self):
        if self.owner is not None:
            self.owner._remove(self.key)


def graph_nodes(obj):
    """Number of distinct autograd nodes reachable from the tensors in `obj`
    (a tensor, or a list/tuple/dict of them; other values count nothing)."""
    stack, seen, keep = [], set(), []
    todo = [obj]
    while todo:
        o = todo.pop()
        if isinstance(o, torch.Tensor):
            if o.grad_fn is not None:
                stack.append(o.grad_fn)
        elif isinstance(o, dict):
            todo.extend(o.values())
        elif isinstance(o, (list, tuple)):
            todo.extend(o)
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        keep.append(node)  # keeps ids unique while we walk
        stack.extend(n for n, _ in node.next_functions)
    return len(seen)


# --- the meter the cases call ------------------------------------------------------

class Meter:
    """Records one variant's run. The case calls tick() at the end of every
    iteration, optionally naming the values it keeps across iterations.

    timing pass (probe=False): time per iteration (CUDA events on a GPU,
        perf_counter on the CPU) and device memory after each iteration;
    probe pass (probe=True): bytes of saved tensors held after each iteration
        and their peak, and autograd nodes reachable from `retained`. The
        probe's hooks cost time, so the two passes are separate runs."""

    def __init__(self, device, probe=False):
        self.device = device
        self.probe = probe
        self.iteration = 0
        self.saved = SavedTensors() if probe else None
        self.memory = []  # device bytes allocated after each iteration (CUDA)
        self.saved_bytes = []
        self.nodes = []
        self.notes = {}  # observations a case records along the way
        self._marks = []
        self._t0 = None

    def _mark(self):
        if self.device.type == "cuda":
            e = torch.cuda.Event(enable_timing=True)
            e.record()
            return e
        return time.perf_counter()

    def begin(self):
        self._t0 = self._mark()

    def tick(self, retained=None):
        """End of one iteration. `retained`: what the program keeps across
        iterations (a list, a running total), for the graph-node count."""
        self.iteration += 1
        if self.probe:
            self.saved_bytes.append(self.saved.live)
            self.nodes.append(graph_nodes(retained) if retained is not None else 0)
            return
        self._marks.append(self._mark())
        if self.device.type == "cuda":
            self.memory.append(torch.cuda.memory_allocated(self.device))

    def note(self, key, value):
        """Records an observation that must survive an exception (the last
        value per key wins)."""
        self.notes[key] = value

    def step_times(self):
        """Seconds per iteration, in order (the first includes the set-up)."""
        _sync(self.device)
        times, prev = [], self._t0
        for m in self._marks:
            if self.device.type == "cuda":
                times.append(prev.elapsed_time(m) / 1000.0)
            else:
                times.append(m - prev)
            prev = m
        return times


def _slope(ys):
    """Least-squares slope of ys over 0..n-1 (per iteration)."""
    n = len(ys)
    if n < 2:
        return None
    mx = (n - 1) / 2.0
    my = sum(ys) / n
    num = sum((i - mx) * (y - my) for i, y in enumerate(ys))
    den = sum((i - mx) ** 2 for i in range(n))
    return num / den


def _error(exc, meter):
    return {
        "type": type(exc).__name__,
        "message": str(exc).strip().splitlines()[0] if str(exc).strip() else "",
        "iteration": meter.iteration + 1,
    }


def json_safe(v):
    """`v` with every NaN and infinity written as a string (JSON has no
    literal for them), through dicts, lists and tuples."""
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return repr(v)  # "nan", "inf": JSON has no literal for them
    if isinstance(v, dict):
        return {k: json_safe(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [json_safe(x) for x in v]
    return v


def run_variant(run, device, iters, warmup, probe):
    """One call of a variant's run(); returns what the meter saw."""
    gc.collect()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)
    meter = Meter(device, probe=probe)
    base = torch.cuda.memory_allocated(device) if device.type == "cuda" else None
    out = {"error": None, "signal": None}
    try:
        if probe:
            with meter.saved:
                meter.begin()
                out["signal"] = run(device, iters, meter)
        else:
            meter.begin()
            out["signal"] = run(device, iters, meter)
    except Exception as exc:  # the failure is the signal for some rules
        out["error"] = _error(exc, meter)
        out["traceback"] = traceback.format_exc().splitlines()[-3:]
    out["iterations_completed"] = meter.iteration
    out["notes"] = meter.notes
    if probe:
        out["saved_bytes_per_iter"] = meter.saved_bytes
        out["saved_bytes_peak"] = meter.saved.peak
        out["saved_bytes_growth_per_iter"] = _slope(meter.saved_bytes[warmup:])
        out["graph_nodes_per_iter"] = meter.nodes
        out["graph_nodes_growth_per_iter"] = _slope(meter.nodes[warmup:])
        return out
    times = meter.step_times()
    steady = times[warmup:]
    out["step_times_s"] = times
    out["median_step_s"] = statistics.median(steady) if steady else None
    if device.type == "cuda":
        out["memory_baseline"] = base
        out["memory_per_iter"] = meter.memory
        out["peak_memory"] = torch.cuda.max_memory_allocated(device)
        out["peak_memory_above_baseline"] = out["peak_memory"] - base
        out["memory_growth_per_iter"] = _slope(meter.memory[warmup:])
    return out


def load_case(code):
    """The case module (case.py) and its two variants' run functions."""
    d = CASES / code
    mods = {}
    for name in ("case", "flagged", "fixed"):
        spec = importlib.util.spec_from_file_location("tlcase_%s_%s" % (code, name), d / (name + ".py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mods[name] = mod
    return mods["case"], mods["flagged"].run, mods["fixed"].run


def case_codes():
    return sorted(p.name for p in CASES.iterdir() if (p / "flagged.py").is_file())


# On the CPU, a case that can show its cost only on a GPU (it has a NEEDS_GPU
# file) runs briefly: the run confirms both variants work; its times claim nothing.
CPU_SMOKE_ITERS = 10


def measure(code, device, iters=None):
    """Runs a case's two variants under identical conditions: for each, a
    timing pass and a probe pass, from the same seed. Returns the result
    record that validate/results/<device>/<CODE>.json holds. `iters`
    defaults to the case's ITERS (CPU_SMOKE_ITERS for GPU-only cases on the CPU)."""
    case, flagged, fixed = load_case(code)
    needs_gpu = CASES / code / "NEEDS_GPU"
    if iters is None:
        iters = CPU_SMOKE_ITERS if device.type == "cpu" and needs_gpu.is_file() else case.ITERS
    warmup = min(case.WARMUP, max(iters - 2, 0))
    variants = {}
    for name, run in (("flagged", flagged), ("fixed", fixed)):
        timing = run_variant(run, device, iters, warmup, probe=False)
        probe = run_variant(run, device, iters, warmup, probe=True)
        v = dict(timing)
        for k, x in probe.items():
            if k.startswith(("saved_", "graph_")):
                v[k] = x
        if probe["error"] != timing["error"]:
            v["probe_error"] = probe["error"]
        variants[name] = v
    evidence = case.assess(variants["flagged"], variants["fixed"], device.type)
    record = {
        "code": code,
        "name": case.NAME,
        "claim": case.CLAIM,
        "device": device.type,
        "iters": iters,
        "warmup": warmup,
        "variants": variants,
        "evidence": evidence,
        "demonstrated": demonstrated(evidence),
        "needs_gpu": needs_gpu.read_text().strip() if needs_gpu.is_file() else None,
        "environment": environment(device),
    }
    return json_safe(record)


def row(metric, flagged, fixed, unit="", shows=None, note=""):
    """One line of evidence. shows: True when the flagged variant shows the
    claimed cost and the fixed one does not, False when this run contradicts
    the claim, None when the metric says nothing on this device."""
    return {"metric": metric, "unit": unit, "flagged": flagged, "fixed": fixed,
            "shows": shows, "note": note}


def time_row(flagged, fixed, device, label="median time per step", min_ratio=1.05):
    """The speed evidence: on CUDA it shows the cost when the flagged variant is
    at least `min_ratio` times slower; CPU time is reported but decides nothing."""
    tf, tx = flagged["median_step_s"], fixed["median_step_s"]
    if device == "cuda":
        return row(label, tf, tx, "s", shows=tf is not None and tx is not None and tf > min_ratio * tx)
    return row(label + " (CPU)", tf, tx, "s",
               note="CPU time, for reference only: the cost claimed is GPU time")


def memory_row(flagged, fixed, device):
    """Peak device memory above the baseline (CUDA only; decides nothing)."""
    return row("peak device memory above baseline", flagged.get("peak_memory_above_baseline"),
               fixed.get("peak_memory_above_baseline"), "B")


def demonstrated(evidence):
    """The run demonstrates the cost: some evidence shows it, none contradicts it."""
    decided = [r["shows"] for r in evidence if r["shows"] is not None]
    return bool(decided) and all(decided)


def environment(device):
    env = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": " ".join([Path(sys.executable).name] + sys.argv),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "platform": platform.platform(),
        "cpu": _cpu_name(),
        "threads": torch.get_num_threads(),
    }
    if device.type == "cuda":
        env["device_name"] = torch.cuda.get_device_name(device)
        cap = torch.cuda.get_device_capability(device)
        env["capability"] = "%d.%d" % cap
        env["driver"] = _driver_version()
        env["cudnn"] = torch.backends.cudnn.version()
    else:
        env["device_name"] = "cpu: " + env["cpu"]
    return env


def _cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _driver_version():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, IndexError):
        return None


def main(run):
    """`python3 flagged.py [--device D] [--iters N]`: one variant, one timing pass."""
    import argparse
    p = argparse.ArgumentParser()
    p.add_argument("--device", default=None)
    p.add_argument("--iters", type=int, default=20)
    a = p.parse_args()
    device = pick_device(a.device)
    out = run_variant(run, device, a.iters, min(5, a.iters // 2), probe=False)
    json.dump(json_safe(out), sys.stdout, indent=1)
    print()
    return 0 if out["error"] is None else 1


def device_slug(device):
    """Directory name for results: 'cpu', or the GPU's name in lower case."""
    if device.type != "cuda":
        return "cpu"
    name = torch.cuda.get_device_name(device).lower()
    return "".join(c if c.isalnum() else "-" for c in name).strip("-").replace("--", "-")



class EmulatedGradScaler:
    """GradScaler's arithmetic where CUDA is missing (torch.cuda.amp.GradScaler
    disables itself there, and Debian's PyTorch 1.13 has no CPU GradScaler):
    scale() multiplies the loss by a constant scale (65536, GradScaler's
    initial one, which it keeps for 2000 steps without an overflow),
    unscale_() divides the optimizer's gradients by it once per step, step()
    unscales what unscale_() did not and skips the step on inf/NaN gradients,
    update() starts the next step. Used by the TL405 case (clip-before-unscale)."""

    def __init__(self, init_scale=65536.0):
        self.scale_value = float(init_scale)
        self._unscaled = set()

    def scale(self, loss):
        return loss * self.scale_value

    def unscale_(self, optimizer):
        if id(optimizer) in self._unscaled:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        with torch.no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.grad.div_(self.scale_value)
        self._unscaled.add(id(optimizer))

    def step(self, optimizer):
        if id(optimizer) not in self._unscaled:
            self.unscale_(optimizer)
        finite = all(torch.isfinite(p.grad).all().item()
                     for group in optimizer.param_groups for p in group["params"] if p.grad is not None)
        if finite:
            optimizer.step()

    def update(self):
        self._unscaled.clear()

    def get_scale(self):
        return self.scale_value


def grad_scaler(device):
    """torch's GradScaler on CUDA, the emulation above elsewhere."""
    if device.type == "cuda":
        return torch.cuda.amp.GradScaler()
    return EmulatedGradScaler()
