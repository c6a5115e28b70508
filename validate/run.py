#!/usr/bin/env python3
"""Runs the reproductions in validate/cases/ and writes one result file per
rule: validate/results/<device>/<CODE>.json.

    python3 validate/run.py                      # CUDA if available, else the CPU
    python3 validate/run.py --device cuda        # results/<gpu name>/
    python3 validate/run.py --device cpu TL201   # some cases only
    python3 validate/run.py --cuda-bench build/validate-cuda   # also run the CUDA microbenchmarks

Each case's flagged.py and fixed.py run in this process, one after the
other, under identical conditions (same seed, same sizes, allocator emptied
and peak statistics reset before each run). See validate/README.md.
"""
import argparse
import json
import subprocess
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import caselib  # noqa: E402

def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("codes", nargs="*", help="rule codes (default: every case)")
    p.add_argument("--device", default=None, help="cpu, cuda or cuda:N (default: cuda if available)")
    p.add_argument("--out", default=None, help="output directory (default: validate/results/<device>)")
    p.add_argument("--iters", type=int, default=None, help="iterations per run (default: each case's ITERS)")
    p.add_argument("--cuda-bench", default=None, metavar="DIR",
                   help="also run the CUDA microbenchmarks built in DIR (make validate-cuda)")
    p.add_argument("--no-cases", action="store_true", help="run no case (with --cuda-bench: the microbenchmarks only)")
    p.add_argument("--reassess", default=None, metavar="DIR",
                   help="run nothing: judge the measurements already in DIR/<CODE>.json again with each "
                        "case's current assess() (after a case's criteria or claim changed)")
    a = p.parse_args()

    warnings.simplefilter("ignore")  # deprecations and "CUDA not available" notices
    if a.reassess:
        return reassess(Path(a.reassess), a.codes)
    device = caselib.pick_device(a.device)
    out = Path(a.out) if a.out else caselib.ROOT / "results" / caselib.device_slug(device)
    out.mkdir(parents=True, exist_ok=True)
    codes = [] if a.no_cases else (a.codes or caselib.case_codes())
    failed = 0
    for code in codes:
        record = caselib.measure(code, device, a.iters)
        path = out / (code + ".json")
        path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
        verdict = "demonstrated" if record["demonstrated"] else (
            "needs a GPU" if record["needs_gpu"] else "NOT demonstrated")
        print("%s %-36s %s -> %s" % (code, record["name"], verdict, _rel(path)))
        for r in record["evidence"]:
            print("    %-52s flagged %-14s fixed %-14s %s" % (
                r["metric"][:52], _short(r["flagged"]), _short(r["fixed"]),
                {True: "shows it", False: "CONTRADICTS", None: ""}[r["shows"]]))
        if not record["demonstrated"] and not record["needs_gpu"]:
            failed += 1
    if a.cuda_bench:
        run_cuda_benchmarks(Path(a.cuda_bench), out, device)
    return 1 if failed else 0


def reassess(results, codes):
    """Recomputes the evidence of stored results from their measurements (the
    variants' numbers are left as measured); records that it did."""
    for path in sorted(results.glob("TL*.json")):
        record = json.loads(path.read_text())
        if codes and record["code"] not in codes:
            continue
        case, _, _ = caselib.load_case(record["code"])
        evidence = caselib.json_safe(case.assess(record["variants"]["flagged"], record["variants"]["fixed"],
                                                  record["device"]))
        if evidence == record["evidence"] and record["claim"] == case.CLAIM:
            continue
        record["evidence"] = evidence
        record["claim"] = case.CLAIM
        record["demonstrated"] = caselib.demonstrated(evidence)
        record.setdefault("reassessed", []).append(
            "%s: evidence recomputed from the stored measurements by the current case.py"
            % caselib.environment(caselib.pick_device("cpu"))["date"])
        path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
        print("%s reassessed: %s -> %s" % (record["code"], "demonstrated" if record["demonstrated"]
                                            else "NOT demonstrated", _rel(path)))
    return 0


def _rel(path):
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def _short(v):
    if isinstance(v, float):
        return "%.4g" % v
    return str(v)[:14]


def run_cuda_benchmarks(bench_dir, out, device):
    """Runs each microbenchmark binary; each prints one JSON object."""
    env = caselib.environment(device)
    for exe in sorted(bench_dir.iterdir()):
        if not exe.is_file() or exe.suffix:
            continue
        proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            print("cuda %s: failed (exit %d): %s" % (exe.name, proc.returncode, proc.stderr.strip()[:200]))
            continue
        record = {"benchmark": exe.name, "result": json.loads(proc.stdout), "environment": env}
        path = out / ("cuda-%s.json" % exe.name)
        path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
        print("cuda %s -> %s" % (exe.name, _rel(path)))


if __name__ == "__main__":
    sys.exit(main())
