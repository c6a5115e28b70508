#!/usr/bin/env python3
"""Default-enabled means demonstrated (RULES.md, principle 7).

For every default-on rule this build knows (`torchlint --list-rules`;
engine findings TL0xx excepted), validate/ must hold one of:
  - a GPU result that demonstrates the cost (validate/results/<gpu>/CODE.json);
  - a CPU result that demonstrates it (validate/results/cpu/CODE.json), for
    the costs a CPU can show (wrong results, an exception, code execution,
    saved activations and autograd nodes kept alive);
  - validate/cases/CODE/NEEDS_GPU, saying what a GPU run must measure: the
    rule is then listed as "no measurement yet", and it cannot stay on by
    default once the GPU run has been made and shows nothing.
A default-on rule with none of these fails. So does a rule whose only GPU
result contradicts its claim. The status is read from
validate/results/summary.json, which validate/report.py generates.

usage: check_evidence.py TORCHLINT
"""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def main():
    rules = json.loads(subprocess.run([sys.argv[1], "--list-rules", "--format", "json"],
                                      check=True, capture_output=True, text=True).stdout)
    summary = json.loads((ROOT / "results" / "summary.json").read_text())["rules"]
    failed, unmeasured, no_gpu, passed = [], [], [], 0
    for r in rules:
        code = r["code"]
        if not r["default"] or code.startswith("TL0"):
            continue
        s = summary.get(code)
        case = ROOT / "cases" / code
        if s is None or not (case / "flagged.py").is_file():
            failed.append("%s: default-on, but validate/cases/%s/ has no reproduction" % (code, code))
            continue
        gpu_records = [p for p in ROOT.glob("results/*/%s.json" % code) if p.parent.name != "cpu"]
        if gpu_records and s["status"] != "measured-gpu":
            failed.append("%s: default-on, but its GPU result does not demonstrate the cost (%s)"
                          % (code, ", ".join(str(p.relative_to(ROOT)) for p in gpu_records)))
        elif s["status"] == "measured-gpu":
            print("ok %s: measured on a GPU" % code)
            passed += 1
        elif s["status"] == "measured-cpu":
            print("ok %s: the CPU result demonstrates it; no GPU measurement yet" % code)
            no_gpu.append(code)
            passed += 1
        elif s["status"] == "needs-gpu":
            print("ok %s: no measurement yet; validate/cases/%s/NEEDS_GPU says what a GPU must measure"
                  % (code, code))
            unmeasured.append(code)
            passed += 1
        else:
            failed.append("%s: default-on, but neither a CPU nor a GPU result demonstrates its cost, "
                          "and validate/cases/%s/NEEDS_GPU does not say what a GPU must measure" % (code, code))
    if no_gpu:
        print("default-on rules shown on the CPU only (no GPU run has been made yet): %s"
              % ", ".join(no_gpu))
    if unmeasured:
        print("default-on rules with no measurement yet (they cannot stay on by default without one): %s"
              % ", ".join(unmeasured))
    for f in failed:
        print("FAIL: " + f)
    print("evidence: %d passed, %d failed" % (passed, len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
