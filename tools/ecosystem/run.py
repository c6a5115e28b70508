#!/usr/bin/env python3
"""Ecosystem check: torchlint over whole real repositories, compared with a
ledger of findings judged by hand.

For each repository pinned in repos.tsv the tree at the pinned commit is
read from a local git mirror blob by blob (git ls-tree + git cat-file
--batch; blobs a partial clone lacks are skipped and counted) into a cache
directory, then torchlint runs over the whole tree as a user would run it:
once with the default rules and once with --select ALL, --format json.
The findings are compared with ledger.tsv, keyed by (repo, path, line, code).

Python 3 standard library only.  See README.md next to this file.
"""

import argparse
import concurrent.futures
import json
import os
import random
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# What is extracted from each tree: what torchlint analyses, and the files
# that steer what it analyses (.gitignore, its configuration files).
EXTRACT_SUFFIXES = (".py", ".ipynb")
EXTRACT_NAMES = (".gitignore", "pyproject.toml", "torchlint.toml")

LEDGER_COLUMNS = ["repo", "commit", "path", "line", "code", "verdict", "reason"]


# --- inputs ------------------------------------------------------------------

def read_tsv(path):
    """Rows of a TSV file with a header line; '#' lines are comments."""
    rows = []
    with open(path, encoding="utf-8") as f:
        header = None
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cells = line.split("\t")
            if header is None:
                header = cells
                continue
            if len(cells) < len(header):
                cells += [""] * (len(header) - len(cells))
            row = dict(zip(header, cells))
            row["_line"] = n
            rows.append(row)
    return rows


def read_repos(path):
    repos = []
    for row in read_tsv(path):
        commit = row["commit"].strip()
        if len(commit) != 40:
            raise SystemExit("%s:%d: commit must be 40 hex digits" % (path, row["_line"]))
        repos.append({"repo": row["repo"].strip(), "commit": commit,
                      "kind": row.get("kind", "").strip()})
    return repos


def read_ledger(path):
    """Ledger entries keyed by (repo, path, line, code)."""
    entries = {}
    problems = []
    if not os.path.exists(path):
        return entries, problems
    for row in read_tsv(path):
        verdict = row["verdict"].strip().upper()
        where = "%s:%d" % (os.path.basename(path), row["_line"])
        if verdict not in ("TRUE", "FALSE"):
            problems.append("%s: verdict must be TRUE or FALSE, not %r" % (where, row["verdict"]))
            continue
        if not row["reason"].strip():
            problems.append("%s: no reason given" % where)
        key = (row["repo"], row["path"], row["line"], row["code"])
        if key in entries:
            problems.append("%s: duplicate entry for %s" % (where, fmt_key(key)))
        entries[key] = {"commit": row["commit"], "verdict": verdict,
                        "reason": row["reason"], "where": where}
    return entries, problems


def fmt_key(key):
    repo, path, line, code = key
    return "%s %s:%s %s" % (repo, path, line, code)


def is_test_path(path):
    """A finding in a test file: under a tests/ or test/ directory, or in
    test_*.py, *_test.py or conftest.py."""
    parts = path.split("/")
    if any(p in ("tests", "test") for p in parts[:-1]):
        return True
    base = parts[-1]
    return (base.startswith("test_") and base.endswith(".py")) or base.endswith("_test.py") \
        or base == "conftest.py"


# --- extraction --------------------------------------------------------------

def git_dir(mirrors, repo):
    base = os.path.join(mirrors, repo.replace("/", "+"), "repo")
    if os.path.isdir(os.path.join(base, ".git")):
        return os.path.join(base, ".git")
    return base


def wanted(path):
    base = path.rsplit("/", 1)[-1]
    return path.endswith(EXTRACT_SUFFIXES) or base in EXTRACT_NAMES


def extract(mirrors, cache, repo, commit):
    """Writes the tree of `commit` under cache/trees; returns (dir, stats).
    A tree already extracted whole (its stamp file exists) is reused."""
    dest = os.path.join(cache, "trees", repo.replace("/", "+"), commit)
    stamp = dest + ".json"
    if os.path.exists(stamp) and os.path.isdir(dest):
        with open(stamp, encoding="utf-8") as f:
            return dest, json.load(f)
    gd = git_dir(mirrors, repo)
    if not os.path.isdir(gd):
        raise RuntimeError("no mirror at %s" % gd)
    ls = subprocess.run(["git", "--git-dir=" + gd, "ls-tree", "-r", "-z", "--full-tree", commit],
                        capture_output=True)
    if ls.returncode != 0:
        raise RuntimeError("git ls-tree %s: %s" % (commit, ls.stderr.decode(errors="replace").strip()))
    blobs = []
    for entry in ls.stdout.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, kind, sha = meta.split(b" ")
        path = path.decode("utf-8", errors="surrogateescape")
        if kind != b"blob" or mode == b"120000" or not wanted(path):
            continue
        blobs.append((sha.decode(), path))
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    # The root of a clone: torchlint applies .gitignore files from here down
    # and looks no further up for them.
    os.makedirs(os.path.join(dest, ".git"))
    stats = {"files": 0, "notebooks": 0, "missing": 0, "support": 0}
    proc = subprocess.Popen(["git", "--git-dir=" + gd, "cat-file", "--batch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    # One request at a time keeps the pipe from filling in both directions.
    for sha, path in blobs:
        proc.stdin.write(sha.encode() + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if len(header) < 2 or header[1] == b"missing":
            stats["missing"] += 1
            continue
        size = int(header[2])
        data = proc.stdout.read(size)
        proc.stdout.read(1)
        out = os.path.join(dest, path)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(data)
        if path.endswith(".ipynb"):
            stats["notebooks"] += 1
            stats["files"] += 1
        elif path.endswith(".py"):
            stats["files"] += 1
        else:
            stats["support"] += 1
    proc.stdin.close()
    proc.wait()
    with open(stamp, "w", encoding="utf-8") as f:
        json.dump(stats, f)
    return dest, stats


# --- running torchlint -------------------------------------------------------

def run_torchlint(torchlint, tree, select):
    cmd = [torchlint, "--format", "json", "--exit-zero", "-q", "-j", "1"]
    if select:
        cmd += ["--select", select]
    cmd.append(".")
    t0 = time.time()
    proc = subprocess.run(cmd, cwd=tree, capture_output=True)
    secs = time.time() - t0
    try:
        findings = json.loads(proc.stdout.decode("utf-8"))
    except ValueError:
        raise RuntimeError("%s: no JSON (exit %d): %s" % (" ".join(cmd), proc.returncode,
                                                          proc.stderr.decode(errors="replace")[-500:]))
    errors = proc.stderr.decode("utf-8", errors="replace").strip()
    return findings, secs, proc.returncode, errors


def slim(findings):
    out = []
    for f in findings:
        out.append({"code": f["code"], "path": f["path"], "line": f["start"]["line"],
                    "column": f["start"]["column"], "cell": f.get("cell"),
                    "severity": f.get("severity"), "message": f.get("message", "")})
    return out


def run_one(args, entry):
    repo, commit = entry["repo"], entry["commit"]
    tree, stats = extract(args.mirrors, args.cache, repo, commit)
    result = {"repo": repo, "commit": commit, "stats": dict(stats)}
    shown = subprocess.run([args.torchlint, "--show-files", "."], cwd=tree, capture_output=True)
    result["stats"]["analysed"] = len(shown.stdout.splitlines())
    for label, select in (("default", None), ("all", "ALL")):
        findings, secs, rc, errors = run_torchlint(args.torchlint, tree, select)
        result[label] = slim(findings)
        result[label + "_seconds"] = round(secs, 2)
        result[label + "_exit"] = rc
        result[label + "_stderr"] = errors[-2000:]
    return result


def known_files(cache, entry):
    stamp = os.path.join(cache, "trees", entry["repo"].replace("/", "+"), entry["commit"] + ".json")
    try:
        with open(stamp, encoding="utf-8") as f:
            return json.load(f)["files"]
    except (OSError, ValueError, KeyError):
        return 0


def catalog(torchlint):
    proc = subprocess.run([torchlint, "--list-rules", "--format", "json"], capture_output=True)
    rules = json.loads(proc.stdout.decode("utf-8"))
    return {r["code"]: bool(r.get("default")) for r in rules}


# --- comparison --------------------------------------------------------------

def loc(f):
    """The ledger's line column: the line, or cell:line in a notebook."""
    return "%s:%s" % (f["cell"], f["line"]) if f.get("cell") else str(f["line"])


def compare(results, repos, ledger, defaults):
    """Pure comparison of run results with the ledger.

    results: {repo: {"default": [finding], "all": [finding]}} (slim findings)
    repos: {repo: commit}; ledger: read_ledger()'s entries;
    defaults: {code: default-on?}.
    Returns a dict of everything the report prints."""
    current = {}   # key -> (which run, finding)
    raw = {"default": 0, "all": 0}
    for repo, res in results.items():
        for f in res.get("default", []):
            raw["default"] += 1
            current.setdefault((repo, f["path"], loc(f), f["code"]), ("default", f))
        for f in res.get("all", []):
            raw["all"] += 1
            if defaults.get(f["code"], False):
                continue  # the default run is the reference for default rules
            current.setdefault((repo, f["path"], loc(f), f["code"]), ("opt-in", f))

    stale = []      # ledger entries for another commit than the pinned one
    unjudged = []
    false_still = []
    true_now = []
    lost = []
    per_rule = {}

    def rule(code):
        return per_rule.setdefault(code, {"findings": 0, "judged": 0, "true": 0, "false": 0,
                                          "test_files": 0, "default": defaults.get(code, False)})

    for key, (which, f) in sorted(current.items()):
        r = rule(key[3])
        r["findings"] += 1
        if is_test_path(key[1]):
            r["test_files"] += 1
        e = ledger.get(key)
        if e is not None and e["commit"] != repos.get(key[0]):
            e = None
        if e is None:
            unjudged.append((key, which, f))
        else:
            r["judged"] += 1
            if e["verdict"] == "TRUE":
                r["true"] += 1
                true_now.append(key)
            else:
                r["false"] += 1
                false_still.append((key, e))
    for key, e in sorted(ledger.items()):
        if key[0] not in results:
            continue  # the repository was not run this time
        if e["commit"] != repos.get(key[0]):
            stale.append((key, e))
            continue
        if e["verdict"] == "TRUE" and key not in current:
            lost.append((key, e))
    return {"current": current, "raw": raw, "unjudged": unjudged, "false_still": false_still,
            "true_now": true_now, "lost": lost, "stale": stale, "per_rule": per_rule}


def precision(r):
    return r["true"] / r["judged"] if r["judged"] else None


def pct(x):
    return "  n/a" if x is None else "%5.1f%%" % (100.0 * x)


def near(key, lost_keys):
    """A lost TRUE finding of the same code and file within 3 lines: the
    finding probably moved rather than appeared."""
    repo, path, line, code = key
    if ":" in line:
        return None
    for k in lost_keys:
        if k[0] == repo and k[1] == path and k[3] == code and ":" not in k[2] \
                and abs(int(k[2]) - int(line)) <= 3:
            return k
    return None


def totals(per_rule, default):
    t = {"findings": 0, "judged": 0, "true": 0, "false": 0, "test_files": 0}
    for r in per_rule.values():
        if r["default"] == default:
            for k in t:
                t[k] += r[k]
    return t


def report(cmp, out, limit, stats=None):
    w = out.write
    unj_default = [u for u in cmp["unjudged"] if u[1] == "default"]
    unj_optin = [u for u in cmp["unjudged"] if u[1] == "opt-in"]
    lost_keys = [k for k, _ in cmp["lost"]]

    def listing(title, items, fmt):
        w("\n== %s: %d\n" % (title, len(items)))
        for item in items[:limit]:
            w("  " + fmt(item) + "\n")
        if len(items) > limit:
            w("  ... %d more (--limit)\n" % (len(items) - limit))

    def fmt_unjudged(u):
        key, which, f = u
        hint = near(key, lost_keys)
        s = "%s  %s" % (fmt_key(key), f.get("message", "")[:110])
        return s + ("  [moved from line %s?]" % hint[2] if hint else "")

    listing("default-rule findings not yet judged", unj_default, fmt_unjudged)
    listing("TRUE findings that vanished (regressions)", cmp["lost"],
            lambda x: "%s  (%s: %s)" % (fmt_key(x[0]), x[1]["where"], x[1]["reason"]))
    listing("FALSE findings still reported", cmp["false_still"],
            lambda x: "%s  (%s)" % (fmt_key(x[0]), x[1]["reason"]))
    if cmp["stale"]:
        listing("ledger entries for another commit than the pinned one (ignored)", cmp["stale"],
                lambda x: "%s at %s" % (fmt_key(x[0]), x[1]["commit"][:12]))
    by_code = {}
    for u in unj_optin:
        by_code[u[0][3]] = by_code.get(u[0][3], 0) + 1
    w("\n== opt-in findings not judged (sampled rules; do not fail the check): %d%s\n"
      % (len(unj_optin), "  (" + ", ".join("%s %d" % kv for kv in sorted(by_code.items())) + ")"
         if by_code else ""))

    for default in (True, False):
        w("\n== precision per rule, %s (distinct repo/path/line/code keys)\n"
          % ("default rules" if default else "opt-in rules (--select ALL)"))
        w("  %-6s %8s %7s %6s %6s %9s %11s\n" % ("rule", "findings", "judged", "TRUE", "FALSE",
                                                   "precision", "test files"))
        for code in sorted(cmp["per_rule"]):
            r = cmp["per_rule"][code]
            if r["default"] != default:
                continue
            w("  %-6s %8d %7d %6d %6d %9s %11d\n" % (code, r["findings"], r["judged"], r["true"],
                                                      r["false"], pct(precision(r)), r["test_files"]))
        t = totals(cmp["per_rule"], default)
        w("  %-6s %8d %7d %6d %6d %9s %11d\n" % ("all", t["findings"], t["judged"], t["true"],
                                                  t["false"], pct(precision(t)), t["test_files"]))

    nb000 = sum(1 for k in cmp["current"] if k[3] == "TL000" and k[1].endswith(".ipynb"))
    t = totals(cmp["per_rule"], True)
    w("\n== summary\n")
    if stats:
        w("  repositories %d, files %d (notebooks %d), blobs missing from partial clones %d,"
          " files torchlint analyses (after .gitignore) %d\n"
          % (stats["repos"], stats["files"], stats["notebooks"], stats["missing"],
             stats.get("analysed", 0)))
    w("  default findings %d distinct (%d reported), judged %d, TRUE %d, precision %s\n"
      % (t["findings"], cmp["raw"]["default"], t["judged"], t["true"], pct(precision(t)).strip()))
    w("  TL000 in notebooks %d; default findings in test files %d\n" % (nb000, t["test_files"]))
    w("  unjudged default %d, lost TRUE %d, FALSE still reported %d\n"
      % (len(unj_default), len(cmp["lost"]), len(cmp["false_still"])))


# --- main --------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--torchlint", default=os.path.join(ROOT, "torchlint"))
    ap.add_argument("--mirrors", default=os.environ.get("ECOSYSTEM_MIRRORS", "/work/.mirror"))
    ap.add_argument("--repos", default=os.path.join(HERE, "repos.tsv"))
    ap.add_argument("--ledger", default=os.path.join(HERE, "ledger.tsv"))
    ap.add_argument("--cache", default=os.path.join(ROOT, "build", "ecosystem"))
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--only", action="append", help="run only this repository (repeatable)")
    ap.add_argument("--results", help="compare these saved results (a results.json written by an "
                    "earlier run) instead of running torchlint")
    ap.add_argument("--report-only", action="store_true", help="exit 0 whatever the comparison says")
    ap.add_argument("--limit", type=int, default=200, help="items printed per list (default 200)")
    ap.add_argument("--unjudged-tsv", help="write the unjudged findings here as ledger rows "
                    "with the verdict and reason empty, for judging")
    ap.add_argument("--context", type=int, default=0,
                    help="with --unjudged-tsv, also write FILE.ctx: N lines of code around each")
    ap.add_argument("--sample", type=int, default=0,
                    help="with --unjudged-tsv, at most N random opt-in findings per rule")
    ap.add_argument("--seed", type=int, default=22)
    args = ap.parse_args()
    # torchlint runs in each tree's root: a relative path would no longer resolve.
    args.torchlint = os.path.abspath(args.torchlint)

    repos = read_repos(args.repos)
    if args.only:
        repos = [r for r in repos if r["repo"] in args.only]
        if not repos:
            raise SystemExit("no repository in %s matches --only" % args.repos)
    pinned = {r["repo"]: r["commit"] for r in repos}
    ledger, problems = read_ledger(args.ledger)
    for p in problems:
        print("ledger: " + p, file=sys.stderr)

    if args.results:
        with open(args.results, encoding="utf-8") as f:
            saved = json.load(f)
        defaults = saved["rules"]
        results = {k: v for k, v in saved["repos"].items() if k in pinned}
        stats = saved.get("stats")
    else:
        missing = [r["repo"] for r in repos if not os.path.isdir(git_dir(args.mirrors, r["repo"]))]
        if missing:
            print("ecosystem: %d of %d mirrors missing under %s (set ECOSYSTEM_MIRRORS); first: %s"
                  % (len(missing), len(repos), args.mirrors, ", ".join(missing[:5])), file=sys.stderr)
            print("ecosystem: fetch them first (see tools/ecosystem/README.md)", file=sys.stderr)
            return 2
        if not os.access(args.torchlint, os.X_OK):
            print("ecosystem: no torchlint at %s (run make)" % args.torchlint, file=sys.stderr)
            return 2
        defaults = catalog(args.torchlint)
        results = {}
        stats = {"repos": len(repos), "files": 0, "notebooks": 0, "missing": 0, "analysed": 0}
        t0 = time.time()
        # Largest trees first (sizes known from an earlier extraction), so
        # that one big repository does not run alone at the end.
        order = sorted(repos, key=lambda r: -known_files(args.cache, r))
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futs = {pool.submit(run_one, args, r): r["repo"] for r in order}
            for fut in concurrent.futures.as_completed(futs):
                res = fut.result()
                results[res["repo"]] = res
                for k in ("files", "notebooks", "missing", "analysed"):
                    stats[k] += res["stats"][k]
                for label in ("default", "all"):
                    if res[label + "_exit"] not in (0, 1) or res[label + "_stderr"]:
                        print("ecosystem: %s (%s): exit %d: %s" % (res["repo"], label,
                              res[label + "_exit"], res[label + "_stderr"][:300]), file=sys.stderr)
        os.makedirs(args.cache, exist_ok=True)
        with open(os.path.join(args.cache, "results.json"), "w", encoding="utf-8") as f:
            json.dump({"rules": defaults, "stats": stats, "repos": results}, f)
        print("ran torchlint over %d repositories in %.1f s (-j %d); results in %s"
              % (len(repos), time.time() - t0, args.jobs, os.path.join(args.cache, "results.json")))

    cmp = compare(results, pinned, ledger, defaults)
    report(cmp, sys.stdout, args.limit, stats)

    if args.unjudged_tsv:
        write_unjudged(args, cmp, pinned)

    if problems:
        return 1 if not args.report_only else 0
    failing = [u for u in cmp["unjudged"] if u[1] == "default"] or cmp["lost"]
    if failing and not args.report_only:
        return 1
    return 0


def write_unjudged(args, cmp, pinned):
    rows = [u for u in cmp["unjudged"] if u[1] == "default"]
    optin = {}
    for u in cmp["unjudged"]:
        if u[1] == "opt-in":
            optin.setdefault(u[0][3], []).append(u)
    rng = random.Random(args.seed)
    for code in sorted(optin):
        items = optin[code]
        if args.sample and len(items) > args.sample:
            items = sorted(rng.sample(items, args.sample))
        rows += items
    with open(args.unjudged_tsv, "w", encoding="utf-8") as f:
        f.write("\t".join(LEDGER_COLUMNS) + "\n")
        for key, which, fd in rows:
            repo, path, line, code = key
            f.write("\t".join([repo, pinned[repo], path, line, code, "", ""]) + "\n")
    if args.context:
        with open(args.unjudged_tsv + ".ctx", "w", encoding="utf-8") as f:
            for i, (key, which, fd) in enumerate(rows):
                f.write("#%d %s [%s]\n   %s\n" % (i, fmt_key(key), which, fd.get("message", "")))
                f.write(context(args, key, fd, args.context))
                f.write("\n")


def context(args, key, f, n):
    repo, path, line, code = key
    tree = os.path.join(args.cache, "trees", repo.replace("/", "+"), pinned_commit(args, repo))
    full = os.path.join(tree, path)
    try:
        with open(full, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return "   (file not in cache)\n"
    if f.get("cell"):
        try:
            nb = json.loads(text)
            cells = nb.get("cells", [])
            src = cells[f["cell"] - 1].get("source", "")
            text = "".join(src) if isinstance(src, list) else src
        except (ValueError, IndexError, AttributeError):
            return "   (notebook cell not readable)\n"
    lines = text.split("\n")
    at = f["line"]
    lo, hi = max(1, at - n), min(len(lines), at + max(2, n // 3))
    return "".join("%s%5d| %s\n" % (">>" if i == at else "  ", i, lines[i - 1][:160])
                   for i in range(lo, hi + 1))


_PINNED = {}


def pinned_commit(args, repo):
    if not _PINNED:
        for r in read_repos(args.repos):
            _PINNED[r["repo"]] = r["commit"]
    return _PINNED[repo]


if __name__ == "__main__":
    sys.exit(main())
