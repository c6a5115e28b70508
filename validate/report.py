#!/usr/bin/env python3
"""Writes the measured-cost report docs/costs/README.md (a page of the
documentation site), its plots (docs/costs/plots/<device>/*.svg) and
validate/results/summary.json from the result files in validate/results/
(and nothing else: every number comes from a result file).

summary.json holds, per rule, the measured-cost text that `torchlint
--explain CODE` prints (the build embeds it) and that the skills point to.

    python3 validate/report.py          # (re)write the report, plots and summary
    python3 validate/report.py --check  # fail if they differ from what the results give

Needs only the Python standard library (no torch, no matplotlib).
"""
import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results"
CASES = ROOT / "cases"
REPO = ROOT.parent
PLOTS = REPO / "docs" / "costs" / "plots"
REPORT = REPO / "docs" / "costs" / "README.md"
SUMMARY = RESULTS / "summary.json"


# --- reading ----------------------------------------------------------------------

def load_results():
    """{device dir: {code: record}} and {device dir: {benchmark: record}}."""
    cases, benches = {}, {}
    for d in sorted(p for p in RESULTS.iterdir() if p.is_dir()) if RESULTS.is_dir() else []:
        for f in sorted(d.glob("*.json")):
            rec = json.loads(f.read_text())
            if f.name.startswith("cuda-"):
                benches.setdefault(d.name, {})[rec["benchmark"]] = rec
            else:
                cases.setdefault(d.name, {})[rec["code"]] = rec
    return cases, benches


def needs_gpu_text(code):
    p = CASES / code / "NEEDS_GPU"
    return " ".join(p.read_text().split()) if p.is_file() else None


# --- formatting -------------------------------------------------------------------

def _bytes(v):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(v) >= scale:
            return "%.1f %s" % (v / scale, unit)
    return "%d B" % round(v)


def fmt(v, unit=""):
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, str):
        return v
    if unit.startswith("B"):
        return _bytes(v) + unit[1:]
    if unit == "s":
        if abs(v) < 1e-3:
            return "%.3g us" % (v * 1e6)
        if abs(v) < 1:
            return "%.3g ms" % (v * 1e3)
        return "%.3g s" % v
    if isinstance(v, int):
        s = str(v)
    elif v == 0:
        s = "0"
    else:
        s = "%.4g" % v
    return s + (" " + unit if unit else "")


def ratio(f, x):
    num = (int, float)
    if isinstance(f, bool) or isinstance(x, bool) or not isinstance(f, num) or not isinstance(x, num):
        return "-"
    if x == 0:
        return "-" if f == 0 else "fixed is 0"
    return "%.3gx" % (f / x)


def verdict(shows):
    return {True: "yes", False: "**no**", None: "-"}[shows]


def device_label(dev, rec):
    env = rec["environment"]
    return "%s (%s, PyTorch %s)" % (dev, env.get("device_name", dev), env["torch"])


# --- plots ------------------------------------------------------------------------

COLORS = {"flagged": "#c0392b", "fixed": "#2471a3"}


def svg_plot(title, unit, series, first_x=1):
    """A line chart of `series` ({name: [y...]}) over iterations, as SVG text."""
    w, h, left, right, top, bottom = 560, 300, 78, 20, 34, 42
    ys = [y for s in series.values() for y in s if isinstance(y, (int, float))]
    n = max((len(s) for s in series.values()), default=0)
    lo, hi = min(ys + [0]), max(ys + [0])
    if hi == lo:
        hi = lo + 1
    pw, ph = w - left - right, h - top - bottom

    def px(i):
        return left + (pw * i / (n - 1) if n > 1 else pw / 2)

    def py(y):
        return top + ph - ph * (y - lo) / (hi - lo)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif" font-size="11">' % (w, h, w, h),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="18" font-size="13">%s</text>' % (left, _esc(title)),
           '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (left, top, left, top + ph),
           '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (left, top + ph, left + pw, top + ph)]
    for y in (lo, (lo + hi) / 2, hi):
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (left - 4, py(y) + 4, _esc(fmt(y, unit))))
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (left, py(y), left + pw, py(y)))
    out.append('<text x="%d" y="%d" text-anchor="start">%d</text>' % (left, h - 22, first_x))
    out.append('<text x="%d" y="%d" text-anchor="end">%d</text>' % (left + pw, h - 22, first_x + n - 1))
    out.append('<text x="%d" y="%d" text-anchor="middle">iteration</text>' % (left + pw / 2, h - 8))
    for k, (name, s) in enumerate(series.items()):
        pts = " ".join("%.1f,%.1f" % (px(i), py(y)) for i, y in enumerate(s) if isinstance(y, (int, float)))
        color = COLORS.get(name, "black")
        if pts:
            out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (color, pts))
        lx = left + pw - 150 + 75 * k
        out.append('<rect x="%d" y="24" width="12" height="3" fill="%s"/>' % (lx, color))
        out.append('<text x="%d" y="30">%s</text>' % (lx + 16, name))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def plots_for(dev, code, rec):
    """{relative path: svg} for one result: memory and time over iterations."""
    out = {}
    f, x = rec["variants"]["flagged"], rec["variants"]["fixed"]
    if f.get("memory_per_iter") and x.get("memory_per_iter"):
        out["%s-memory.svg" % code] = svg_plot(
            "%s on %s: device memory allocated after each iteration" % (code, dev), "B",
            {"flagged": f["memory_per_iter"], "fixed": x["memory_per_iter"]})
    elif any(f.get("saved_bytes_per_iter") or []) or any(x.get("saved_bytes_per_iter") or []):
        out["%s-memory.svg" % code] = svg_plot(
            "%s on %s: saved activations held after each iteration" % (code, dev), "B",
            {"flagged": f["saved_bytes_per_iter"], "fixed": x["saved_bytes_per_iter"]})
    w = rec["warmup"]
    if f.get("step_times_s") and x.get("step_times_s") and len(f["step_times_s"]) > w and len(x["step_times_s"]) > w:
        out["%s-time.svg" % code] = svg_plot(
            "%s on %s: time per iteration (after %d warm-up)" % (code, dev, w), "s",
            {"flagged": f["step_times_s"][w:], "fixed": x["step_times_s"][w:]}, first_x=w + 1)
    return {"%s/%s" % (dev, name): svg for name, svg in out.items()}


# --- the summary --explain prints -------------------------------------------------------

def rule_summary(code, by_device):
    """The measured-cost text for one rule, from its result records: the
    evidence of each run that demonstrates the cost (GPU runs first), and
    "not yet measured" for what no run shows. Never a number otherwise."""
    gpu = sorted(d for d in by_device if d != "cpu")
    ng = needs_gpu_text(code)
    lines, measured, not_shown = [], [], []

    def run_lines(dev, shown):
        """The header and the metric rows of one device's run: the metrics
        that show the cost, or (shown False) every metric measured, saying
        which contradict the claim."""
        rec = by_device[dev]
        env = rec["environment"]
        lines.append("Measured on %s (PyTorch %s, %s; validate/results/%s/%s.json)%s:" % (
            env.get("device_name", dev), env["torch"], env["date"][:10], dev, code,
            "" if shown else ": the cost was NOT shown"))
        for r in rec["evidence"]:
            if shown and not r["shows"]:
                continue
            if not shown and (r["flagged"] is None or r["fixed"] is None):
                continue
            lines.append("- %s: flagged %s, fixed %s%s" % (
                r["metric"], fmt(r["flagged"], r["unit"]), fmt(r["fixed"], r["unit"]),
                " (contradicts the claim)" if not shown and r["shows"] is False else ""))

    for dev in gpu + (["cpu"] if "cpu" in by_device else []):
        if by_device[dev]["demonstrated"]:
            run_lines(dev, True)
            measured.append(dev)
        elif dev != "cpu":
            not_shown.append(dev)
    for dev in not_shown:
        run_lines(dev, False)
    if not measured and not not_shown:
        lines.append("Not yet measured: no result in validate/results/ demonstrates this cost.")
    if not any(d in measured for d in gpu) and not not_shown:
        if ng:
            lines.append("On a GPU: not yet measured (validate/cases/%s/NEEDS_GPU says what to measure)." % code)
        else:
            lines.append("On a GPU: not yet measured (python3 validate/run.py --device cuda).")
    if any(d in measured for d in gpu):
        status = "measured-gpu"
    elif not_shown:
        status = "not-shown-gpu"
    elif measured:
        status = "measured-cpu"
    else:
        status = "needs-gpu" if ng else "not-measured"
    return {"status": status, "text": "\n".join(lines), "needs_gpu": ng,
            "results": ["validate/results/%s/%s.json" % (d, code) for d in sorted(by_device)]}


# --- the report ---------------------------------------------------------------------

def build(cases, benches):
    files = {}
    codes = sorted({c for recs in cases.values() for c in recs} |
                   {p.name for p in CASES.iterdir() if (p / "flagged.py").is_file()})
    summary = {"generated_by": "validate/report.py from validate/results/*/*.json; do not edit",
               "rules": {}}
    for code in codes:
        by_device = {d: recs[code] for d, recs in cases.items() if code in recs}
        summary["rules"][code] = rule_summary(code, by_device)
    files[SUMMARY] = json.dumps(summary, indent=1, sort_keys=True) + "\n"

    md = ["<!-- Generated by validate/report.py from validate/results/: do not edit. -->", "",
          "# Measured costs", "",
          "What each rule's pitfall costs a training run, measured: every rule has a pair of small "
          "training programs under `validate/cases/CODE/`, `flagged.py` with the pitfall and "
          "`fixed.py` without it, run by one harness that records memory, time and the rule's "
          "correctness signal on each device. Every number below comes from the result files in "
          "`validate/results/`; `torchlint --explain CODE` and each rule's page print the same "
          "measurement. How to run them: [Development](../development.md#measured-costs).", ""]
    devices = sorted(cases, key=lambda d: (d == "cpu", d))
    md.append("## Where the results come from")
    md.append("")
    if not any(d != "cpu" for d in devices):
        md.append("**No GPU results yet.** Only the CPU run exists: it shows the correctness failures, "
                  "the unsafe load and the memory mechanisms measured without a device (bytes of saved "
                  "activations, autograd nodes). Device memory and time per step need a GPU run; the "
                  "rules that can only be shown there are marked *needs a GPU*.")
        md.append("")
    md.append("| results | device | PyTorch | CUDA | driver | date | command |")
    md.append("|---|---|---|---|---|---|---|")
    for d in devices:
        env = next(iter(cases[d].values()))["environment"]
        md.append("| `results/%s/` | %s | %s | %s | %s | %s | `%s` |" % (
            d, env.get("device_name", d), env["torch"], env.get("cuda") or "-", env.get("driver") or "-",
            env["date"], env["command"]))
    md.append("")
    md.append("## Summary")
    md.append("")
    md.append("| rule | device | metric | flagged | fixed | ratio | shows the cost |")
    md.append("|---|---|---|---|---|---|---|")
    for code in codes:
        for d in devices:
            rec = cases[d].get(code)
            if not rec:
                continue
            for r in rec["evidence"]:
                md.append("| [%s](#%s) | %s | %s | %s | %s | %s | %s |" % (
                    code, code.lower(), d, r["metric"], fmt(r["flagged"], r["unit"]), fmt(r["fixed"], r["unit"]),
                    ratio(r["flagged"], r["fixed"]), verdict(r["shows"])))
    md.append("")
    md.append("*shows the cost*: yes when the flagged variant shows the claimed cost and the fixed one "
              "does not; **no** when the run contradicts the claim; - when the metric decides nothing on "
              "that device (context, or CPU time for a GPU claim).")
    md.append("")
    for code in codes:
        md += rule_section(code, cases, devices, files)
    if benches:
        md.append("## CUDA microbenchmarks")
        md.append("")
        for d in sorted(benches):
            for name, rec in sorted(benches[d].items()):
                md.append("### %s on %s" % (name, rec["environment"].get("device_name", d)))
                md.append("")
                md.append("```json")
                md.append(json.dumps(rec["result"], indent=1, sort_keys=True))
                md.append("```")
                md.append("")
    files[REPORT] = "\n".join(md).rstrip("\n") + "\n"
    return files


def rule_section(code, cases, devices, files):
    md = ['<a id="%s"></a>' % code.lower(), ""]
    name = next((cases[d][code]["name"] for d in devices if code in cases[d]), "")
    claim = next((cases[d][code]["claim"] for d in devices if code in cases[d]), "")
    md.append("## %s %s" % (code, name))
    md.append("")
    md.append("The rule: [%s](../rules/%s.md)." % (code, code))
    md.append("")
    if claim:
        md.append("Claim: %s. Reproduction: `validate/cases/%s/` (`flagged.py`, `fixed.py`)." % (claim, code))
        md.append("")
    ng = needs_gpu_text(code)
    if ng and not any(d != "cpu" and code in cases[d] for d in devices):
        md.append("**Needs a GPU; not yet measured there.** %s" % ng)
        md.append("")
    for d in devices:
        rec = cases[d].get(code)
        if not rec:
            continue
        state = "demonstrated" if rec["demonstrated"] else (
            "nothing to show on this device" if d == "cpu" and ng else "**not demonstrated**")
        md.append("On %s, %d iterations (%d warm-up): %s." % (device_label(d, rec), rec["iters"], rec["warmup"], state))
        md.append("")
        for r in rec["evidence"]:
            note = " (%s)" % r["note"] if r["note"] else ""
            md.append("- %s: flagged %s, fixed %s%s" % (r["metric"], fmt(r["flagged"], r["unit"]),
                                                       fmt(r["fixed"], r["unit"]), note))
        for v in ("flagged", "fixed"):
            e = rec["variants"][v]["error"]
            if e:
                md.append("- %s raised %s at iteration %d: `%s`" % (v, e["type"], e["iteration"], e["message"]))
        md.append("")
        plots = plots_for(d, code, rec)
        for rel, svg in sorted(plots.items()):
            files[PLOTS / rel] = svg
            md.append("![%s](plots/%s)" % (rel, rel))
        if plots:
            md.append("")
    return md


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="compare instead of writing")
    a = p.parse_args()
    cases, benches = load_results()
    files = build(cases, benches)
    existing = set(PLOTS.rglob("*.svg")) if PLOTS.is_dir() else set()
    if a.check:
        stale = [str(f.relative_to(REPO)) for f, text in files.items()
                 if not f.is_file() or f.read_text() != text]
        stale += [str(f.relative_to(REPO)) + " (not generated)" for f in existing - set(files)]
        if stale:
            print("report: out of date with validate/results/ (run python3 validate/report.py):")
            for s in sorted(stale):
                print("    " + s)
            return 1
        print("report: %d generated files match validate/results/" % len(files))
        return 0
    for f in existing - set(files):
        f.unlink()
    for f, text in files.items():
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
    print("report: wrote %d files (docs/costs/README.md, docs/costs/plots/, validate/results/summary.json)" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
