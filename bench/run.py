#!/usr/bin/env python3
"""`make bench`: torchlint against the parse floor, on Debian's PyTorch sources.

Runs, over the same file list (every *.py of the installed torch and
torchvision packages), after one warm-up each, REPS repetitions interleaved:
  - bench/parse_only (reads and parses each file with the tree-sitter
    objects torchlint links; nothing else): the floor;
  - torchlint with the default rules and with --select ALL, -j1 and -j2;
  - the optional peers, when present: ast-grep (npm @ast-grep/cli) with the
    rules in bench/astgrep/ that approximate a few torchlint rules by syntax,
    -j1 and -j2; ruff's WebAssembly build (npm @astral-sh/ruff-wasm-nodejs)
    under node, default settings, one thread.
Per configuration: median wall and CPU (user + system) time, ratio of the CPU
time to the floor's, files/s and lines/s (on the median wall), peak RSS
(wait4's ru_maxrss of that process). The same rows over a multi-module
project (bench/gen_project.py: packages that import each other, re-exports,
a base trainer subclassed across packages, a training script per package).
Then the single-file latency of torchlint on each examples/ file, on an empty
file, on a file plus the project modules it imports (read for context), and
for --list-rules and --version (median of LATENCY_REPS runs); and the
language server's re-analysis after a one-character edit (bench/lsp_edit.py:
didChange to the new version's diagnostics, no debounce). Writes
bench/results.json and bench/results.md (the table the README quotes).

Usage: bench/run.py --torchlint ./torchlint --floor build/bench/parse_only
                    [--peers DIR] [--reps N] [--latency-reps N] [--out bench]
"""
import argparse
import datetime
import glob
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

SITE = "/usr/lib/python3/dist-packages"
PACKAGES = ("torch", "torchvision")


def run_once(cmd, stdin_path=None, cwd=None):
    """Runs cmd; returns (wall s, cpu s, peak RSS KiB, exit status)."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, cwd=cwd)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if stdin_path:
        stdin.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, p.returncode


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def tool_version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return None


def debian_version(pkg):
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg],
                             capture_output=True, text=True)
        return out.stdout.strip() or None
    except OSError:
        return None


def file_list():
    files = []
    for pkg in PACKAGES:
        root = os.path.join(SITE, pkg)
        for d, _, names in os.walk(root):
            files.extend(os.path.join(d, n) for n in names if n.endswith(".py"))
    files.sort()
    lines = 0
    for f in files:
        with open(f, "rb") as fh:
            lines += fh.read().count(b"\n")
    return files, lines


def machine():
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = os.getloadavg()
    return {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
            "load_average_at_start": round(load[0], 2)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torchlint", default="./torchlint")
    ap.add_argument("--floor", required=True)
    ap.add_argument("--peers", help="npm prefix holding @ast-grep/cli and @astral-sh/ruff-wasm-nodejs")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--latency-reps", type=int, default=21)
    ap.add_argument("--out", default="bench")
    args = ap.parse_args()
    tl = os.path.abspath(args.torchlint)
    floor = os.path.abspath(args.floor)
    here = os.path.dirname(os.path.abspath(__file__))

    files, lines = file_list()
    if not files:
        sys.exit("bench: no torch/torchvision sources under %s (apt-get install python3-torch "
                 "python3-torchvision)" % SITE)
    tmp = tempfile.mkdtemp(prefix="tl-bench-")
    listing = os.path.join(tmp, "files.txt")
    with open(listing, "w") as fh:
        fh.write("\n".join(files) + "\n")

    # Same files for everyone; torchlint without configuration files.
    tl_common = [tl, "--isolated", "--no-respect-gitignore", "-q", "--exit-zero"]
    configs = [
        ("parse only (floor)", [floor], listing),
        ("torchlint default -j1", tl_common + ["-j1"] + files, None),
        ("torchlint default -j2", tl_common + ["-j2"] + files, None),
        ("torchlint --select ALL -j1", tl_common + ["--select", "ALL", "-j1"] + files, None),
        ("torchlint --select ALL -j2", tl_common + ["--select", "ALL", "-j2"] + files, None),
    ]
    # The multi-module project: the same floor and torchlint rows, run on the
    # project's folder (its pyproject.toml makes it the root).
    proj = os.path.join(tmp, "project")
    subprocess.run([sys.executable, os.path.join(here, "gen_project.py"), proj],
                         stdout=subprocess.PIPE, check=True)
    pfiles = sorted(os.path.join(d, n) for d, _, ns in os.walk(proj) for n in ns if n.endswith(".py"))
    plines = sum(open(f, "rb").read().count(b"\n") for f in pfiles)
    plisting = os.path.join(tmp, "project-files.txt")
    with open(plisting, "w") as fh:
        fh.write("\n".join(pfiles) + "\n")
    pconfigs = [
        ("project: parse only (floor)", [floor], plisting),
        ("project: torchlint default -j1", tl_common + ["-j1", proj], None),
        ("project: torchlint default -j2", tl_common + ["-j2", proj], None),
        ("project: torchlint --select ALL -j2", tl_common + ["--select", "ALL", "-j2", proj], None),
    ]
    peers = {}
    if args.peers:
        sg = os.path.join(args.peers, "node_modules", ".bin", "ast-grep")
        if os.access(sg, os.X_OK):
            peers["ast-grep"] = tool_version([sg, "--version"])
            sgconf = os.path.join(here, "astgrep", "sgconfig.yml")
            for j in ("1", "2"):
                configs.append(("ast-grep (%d approximate rules) -j%s" %
                                (len(glob.glob(os.path.join(here, "astgrep", "rules", "*.yml"))), j),
                                [sg, "scan", "-c", sgconf, "-j", j] + files, None))
        ruff = os.path.join(args.peers, "node_modules", "@astral-sh", "ruff-wasm-nodejs")
        node = shutil.which("node")
        if os.path.isdir(ruff) and node:
            with open(os.path.join(ruff, "package.json")) as fh:
                peers["ruff-wasm"] = "ruff (wasm) " + json.load(fh)["version"]
            peers["node"] = "node " + (tool_version([node, "--version"]) or "?")
            configs.append(("ruff wasm (node, default rules) -j1",
                            [node, os.path.join(here, "ruff_wasm.js"), ruff], listing))

    configs += pconfigs  # last: the project table follows the peers' rows
    for name, cmd, stdin in configs:  # warm-up: page cache, lazy loading
        wall, cpu, rss, rc = run_once(cmd, stdin)
        if rc not in (0, 1):
            sys.exit("bench: '%s' exited with %d" % (name, rc))
    samples = {name: [] for name, _, _ in configs}
    for rep in range(args.reps):
        for name, cmd, stdin in configs:
            samples[name].append(run_once(cmd, stdin))
        print("bench: repetition %d/%d done" % (rep + 1, args.reps), file=sys.stderr)
    tfloor_cpu = median([x[1] for x in samples["parse only (floor)"]])
    pfloor_cpu = median([x[1] for x in samples["project: parse only (floor)"]])

    rows = []
    for name, _, _ in configs:
        s = samples[name]
        if name.startswith("project: "):
            floor_cpu, nfiles, nlines = pfloor_cpu, len(pfiles), plines
        else:
            floor_cpu, nfiles, nlines = tfloor_cpu, len(files), lines
        wall, cpu = median([x[0] for x in s]), median([x[1] for x in s])
        rows.append({
            "config": name, "runs": len(s), "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
            "cpu_vs_floor": round(cpu / floor_cpu, 2), "cpu_per_wall": round(cpu / wall, 2),
            "files_per_s": round(nfiles / wall), "lines_per_s": round(nlines / wall),
            "peak_rss_mib": round(max(x[2] for x in s) / 1024, 1),
            "wall_samples_s": [round(x[0], 3) for x in s], "cpu_samples_s": [round(x[1], 3) for x in s],
        })
    by = {r["config"]: r for r in rows}
    speedups = {}
    for sel in ("default", "--select ALL"):
        one, two = by["torchlint %s -j1" % sel], by["torchlint %s -j2" % sel]
        speedups[sel] = {"wall_speedup_j2": round(one["wall_s"] / two["wall_s"], 2),
                         "cores_used_j2": two["cpu_per_wall"]}

    # Single-file latency.
    empty = os.path.join(tmp, "empty.py")
    open(empty, "w").close()
    latency = []
    singles = [("--version", [tl, "--version"]), ("--list-rules", [tl, "--list-rules"]),
               ("empty file", [tl, "--isolated", empty])]
    repo = os.path.dirname(here)
    for ex in sorted(glob.glob(os.path.join(repo, "examples", "*.py"))):
        with open(ex, "rb") as fh:
            n = fh.read().count(b"\n")
        rel = os.path.relpath(ex, repo)
        singles.append(("%s (%d lines)" % (rel, n), [tl, "--isolated", ex]))
        singles.append(("%s (%d lines) -j1" % (rel, n), [tl, "--isolated", "-j1", ex]))
    # One file plus the local modules it imports (read for context): the
    # generated project's sweep over six packages' trainers, one training
    # script of it, and a corpus project whose criteria come through a
    # package's re-exports. (Not a module of torch: its relative imports
    # name PyTorch's own API, which is known by name and not read.)
    multi = [os.path.join(proj, "sweep.py"),
             os.path.join(proj, "train_p00.py"),
             os.path.join(repo, "corpus", "projects", "loss_stats", "train.py")]
    for path in multi:
        if not os.path.isfile(path):
            continue
        shown = subprocess.run([tl, "--isolated", "--show-files=context", path],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode()
        ctx = sum(1 for l in shown.splitlines() if l.endswith(" (context)"))
        with open(path, "rb") as fh:
            n = fh.read().count(b"\n")
        rel = (os.path.relpath(path, repo) if path.startswith(repo) else
               "generated project: " + os.path.relpath(path, proj) if path.startswith(proj) else
               os.path.relpath(path, SITE))
        singles.append(("%s (%d lines) + %d modules it imports, read for context" % (rel, n, ctx),
                        [tl, "--isolated", path]))
    for name, cmd in singles:
        run_once(cmd)
        s = [run_once(cmd) for _ in range(args.latency_reps)]
        latency.append({"what": name, "runs": len(s),
                        "wall_ms": round(median([x[0] for x in s]) * 1e3, 1),
                        "cpu_ms": round(median([x[1] for x in s]) * 1e3, 1),
                        "peak_rss_mib": round(max(x[2] for x in s) / 1024, 1)})

    # The server: re-analysis after an edit, on a 1,000-line module of torch
    # (read where it lies, with the modules it imports) and on the example.
    server = []
    for path in (os.path.join(SITE, "torch", "testing", "_internal", "common_fsdp.py"),
                 os.path.join(repo, "examples", "train_cifar.py")):
        if not os.path.isfile(path):
            continue
        r = subprocess.run([sys.executable, os.path.join(here, "lsp_edit.py"), tl, path,
                            "--edits", str(args.latency_reps * 2)], stdout=subprocess.PIPE)
        if r.returncode != 0:
            sys.exit("bench: lsp_edit.py failed on %s" % path)
        one = json.loads(r.stdout)
        one["file"] = os.path.relpath(path, repo) if path.startswith(repo) else os.path.relpath(path, SITE)
        server.append(one)

    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "versions": {"torchlint": tool_version([tl, "--version"]),
                     "python3-torch": debian_version("python3-torch"),
                     "python3-torchvision": debian_version("python3-torchvision"), **peers},
        "corpus": {"files": len(files), "lines": lines, "packages": list(PACKAGES), "site": SITE},
        "project": {"generator": "bench/gen_project.py", "files": len(pfiles), "lines": plines},
        "reps": args.reps, "throughput": rows, "speedup": speedups, "latency": latency,
        "server": server,
    }
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "results.json"), "w") as fh:
        json.dump(result, fh, indent=1)
        fh.write("\n")
    md = [
        "Measured %s on %s (%s cores; load average %.2f at the start), %s, "
        "Debian python3-torch %s and python3-torchvision %s: %d files, %d lines; "
        "median of %d interleaved runs after a warm-up (`make bench`)." % (
            result["date"], result["machine"]["cpu"], result["machine"]["cores"],
            result["machine"]["load_average_at_start"], result["versions"]["torchlint"],
            result["versions"]["python3-torch"], result["versions"]["python3-torchvision"],
            len(files), lines, args.reps),
        "",
        "| run | wall s | CPU s | CPU / floor | cores used | files/s | lines/s | peak RSS MiB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if r["config"] == "project: parse only (floor)":
            md += ["", "Multi-module project (bench/gen_project.py: %d files, %d lines, %d packages "
                   "importing each other):" % (len(pfiles), plines, len(pfiles) // 8), "",
                   "| run | wall s | CPU s | CPU / floor | cores used | files/s | lines/s | peak RSS MiB |",
                   "|---|---:|---:|---:|---:|---:|---:|---:|"]
        md.append("| %s | %.2f | %.2f | %.2f | %.2f | %d | %d | %.1f |" % (
            r["config"], r["wall_s"], r["cpu_s"], r["cpu_vs_floor"], r["cpu_per_wall"],
            r["files_per_s"], r["lines_per_s"], r["peak_rss_mib"]))
    md += ["", "-j2 against -j1 (wall): default %.2fx (%.2f cores used), --select ALL %.2fx (%.2f cores used)." % (
        speedups["default"]["wall_speedup_j2"], speedups["default"]["cores_used_j2"],
        speedups["--select ALL"]["wall_speedup_j2"], speedups["--select ALL"]["cores_used_j2"]), ""]
    if peers:
        md += ["Peers: " + ", ".join("%s" % v for k, v in peers.items() if v) +
               " (the ast-grep rules approximate a few torchlint rules by syntax; ruff runs its own "
               "default rules: neither does torchlint's work).", ""]
    md += ["| single file | wall ms | CPU ms | peak RSS MiB |", "|---|---:|---:|---:|"]
    for l in latency:
        md.append("| %s | %.1f | %.1f | %.1f |" % (l["what"], l["wall_ms"], l["cpu_ms"], l["peak_rss_mib"]))
    if server:
        md += ["", "| server: re-analysis after a one-character edit | lines | median ms | p90 ms | "
               "open ms |", "|---|---:|---:|---:|---:|"]
        for one in server:
            md.append("| %s | %d | %.1f | %.1f | %.1f |" % (one["file"], one["lines"], one["median_ms"],
                                                            one["p90_ms"], one["open_ms"]))
    with open(os.path.join(args.out, "results.md"), "w") as fh:
        fh.write("\n".join(md) + "\n")
    print("\n".join(md))
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
