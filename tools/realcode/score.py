#!/usr/bin/env python3
"""Score torchlint against real training code kept in local git mirrors.

NOT PART OF CI: the files scored here are third-party code that is never
committed to this repository; they are read from local clones (mirrors) of
public repositories, which CI (no network) does not have.  Run it by hand:

    python3 tools/realcode/score.py --torchlint ./torchlint --mirrors /work/.mirror

Two manifests (tab-separated, '#' starts a comment line, first line a header):

  correct.tsv   repo, commit, path, expected, note
      Real, correct, popular training code.  Every finding of a default rule
      that is not listed in `expected` (`none`, or `CODE@line,CODE@line`) is a
      false positive; the script exits 1 when there is any.
  bugfixes.tsv  repo, fix_commit, parent_commit, path, expected, pattern,
                args, found_by, note
      Real commits that fixed one of the catalogued pitfalls.  `expected`
      lists `CODE@line` in the parent's file where RULES.md says the finding
      is reported.  A hit is that code reported on exactly that line.  The
      fix commit's file is also analysed, to show whether the code is gone
      near the fixed place (the line mapped through a diff, +-3 lines).
      `args` are extra torchlint arguments for that entry (`-` for none),
      e.g. `--torch-version 2.4` for TL501 fixes written for older PyTorch.
      An `expected` item written `!CODE@line` is a place the fix changed
      that the rule as written does not report (re-judged against the
      rule's definition): it is not counted in recall, and a report of it
      there counts as a false positive.

A mirror is `<mirrors>/<owner>+<name>/repo` (a bare git directory, or a
clone with `.git`). Each entry is analysed inside the repository's tree at
its commit, as a user runs torchlint there, so that the modules it imports
resolve (RULES.md principle 2): the commit's Python files and project files
(pyproject.toml, setup.cfg, setup.py) are written under a temporary folder
(read with `git ls-tree` and `git cat-file --batch`), with a `.git` marker
at its top, and only the entry's file is named on the command line.
An entry whose `pattern` names `module` is a bug that needs another module
of the project; its recall is also reported on its own (cross-file).
When a repository is too large to mirror, single files may be placed at
`<mirrors>/<owner>+<name>/files/<commit>/<path>`.  An entry whose mirror or
commit is missing is reported as skipped and never counted as a pass.

Options:
  --select LIST   run torchlint with `--select LIST` instead of its defaults
  --all           also run with `--select ALL` and report what the opt-in
                  rules add (informational: never fails the run)
  --json FILE     write every result as JSON
  --only TEXT     only entries whose repo or path contains TEXT
Exit: 0 no false positive on correct.tsv, 1 false positives, 2 usage or
tool errors (torchlint crashed, a manifest is malformed).
"""

import argparse
import difflib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
NEAR = 3  # lines around the fixed place in the fix commit's file


def read_manifest(path, required):
    """Rows of a TSV manifest as dicts; '#' lines and blank lines skipped."""
    rows = []
    header = None
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cells = line.split("\t")
            if header is None:
                header = cells
                missing = [c for c in required if c not in header]
                if missing:
                    sys.exit("score.py: %s: header lacks %s" % (path, ", ".join(missing)))
                continue
            if len(cells) < len(required):
                sys.exit("score.py: %s:%d: %d columns, expected %d" %
                         (path, lineno, len(cells), len(header)))
            row = dict(zip(header, cells + [""] * (len(header) - len(cells))))
            row["_line"] = lineno
            rows.append(row)
    return rows


def parse_expected(text, where, excluded=None):
    """`none` or `CODE@line,...` -> list of (code, line). An item written
    `!CODE@line` (bugfixes.tsv only) is a place the fix changed that the
    rule as written does not report: it goes to `excluded`, not to the
    expected findings."""
    text = text.strip()
    if text in ("", "none", "-"):
        return []
    out = []
    for item in text.replace(" ", "").split(","):
        bang = item.startswith("!")
        if bang:
            item = item[1:]
        code, sep, line = item.partition("@")
        if not sep or not code.startswith("TL") or not line.isdigit() or (bang and excluded is None):
            sys.exit("score.py: %s: bad expected item '%s'" % (where, item))
        (excluded if bang else out).append((code, int(line)))
    return out


def git_dir(mirrors, repo):
    base = os.path.join(mirrors, repo.replace("/", "+"))
    for cand in (os.path.join(base, "repo", ".git"), os.path.join(base, "repo")):
        if os.path.isfile(os.path.join(cand, "HEAD")):
            return cand
    return None


def read_blob(mirrors, repo, commit, path):
    """(text, None) or (None, why)."""
    gd = git_dir(mirrors, repo)
    if gd:
        r = subprocess.run(["git", "--git-dir=" + gd, "show", "%s:%s" % (commit, path)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode == 0:
            return r.stdout.decode("utf-8", "replace"), None
        why = r.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, "git show %s:%s: %s" % (commit[:12], path, why[-1] if why else "failed")
    cached = os.path.join(mirrors, repo.replace("/", "+"), "files", commit, path)
    if os.path.isfile(cached):
        with open(cached, encoding="utf-8", errors="replace") as f:
            return f.read(), None
    return None, "no mirror of %s under %s" % (repo, mirrors)


TREE_FILES = ("pyproject.toml", "setup.cfg", "setup.py")


def materialize(mirrors, repo, commit, dest):
    """Writes the Python and project files of `repo` at `commit` under
    `dest` (a `.git` marker at its top). True when the mirror has it."""
    gd = git_dir(mirrors, repo)
    if not gd:
        return False
    r = subprocess.run(["git", "--git-dir=" + gd, "ls-tree", "-r", "-z", commit],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        return False
    blobs = []
    for rec in r.stdout.split(b"\0"):
        if not rec:
            continue
        meta, _, path = rec.partition(b"\t")
        parts = meta.split()
        if len(parts) < 3 or parts[1] != b"blob":
            continue
        name = path.decode("utf-8", "replace")
        if name.endswith(".py") or os.path.basename(name) in TREE_FILES:
            blobs.append((parts[2].decode(), name))
    os.makedirs(dest, exist_ok=True)
    open(os.path.join(dest, ".git"), "w").close()
    if not blobs:
        return True
    proc = subprocess.Popen(["git", "--git-dir=" + gd, "cat-file", "--batch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    proc.stdin.write(b"".join(sha.encode() + b"\n" for sha, _ in blobs))
    proc.stdin.close()
    out = proc.stdout
    for sha, name in blobs:
        header = out.readline().split()
        size = int(header[2]) if len(header) == 3 else 0
        data = out.read(size) if len(header) == 3 else b""
        out.read(1)
        target = os.path.normpath(os.path.join(dest, name))
        if not target.startswith(dest + os.sep):
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
    proc.wait()
    return True


def place(tmp, trees, mirrors, repo, commit, path, tag, text):
    """The file to analyse for one entry: `path` inside the repository's
    tree at `commit` (written once per repository and commit), or, without
    a mirror, the text alone in a folder of its own."""
    key = (repo, commit)
    if key not in trees:
        dest = os.path.join(tmp, "t%03d" % len(trees))
        trees[key] = dest if materialize(mirrors, repo, commit, dest) else None
    root = trees[key]
    if root:
        f = os.path.join(root, path)
        if os.path.isfile(f):
            return f
    return write_file(tmp, tag, path, text)


def run_torchlint(torchlint, files, extra):
    """Map file path -> list of findings (dicts); raises on tool failure."""
    result = {p: [] for p in files}
    if not files:
        return result
    fd, out = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        cmd = [torchlint, "--isolated", "--format", "json", "-q", "--exit-zero",
               "-o", out] + extra + ["--"] + files
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode not in (0, 1):
            raise RuntimeError("torchlint exited %d: %s" %
                               (r.returncode, r.stderr.decode("utf-8", "replace")[-2000:]))
        with open(out, encoding="utf-8") as f:
            text = f.read()
        findings = json.loads(text) if text.strip() else []
    finally:
        os.unlink(out)
    for fnd in findings:
        p = fnd.get("path")
        if p in result:
            result[p].append(fnd)
        else:  # paths are echoed as given; fall back to a real-path match
            rp = os.path.realpath(p)
            for q in result:
                if os.path.realpath(q) == rp:
                    result[q].append(fnd)
                    break
    return result


def line_map(old_text, new_text):
    """Function mapping a 1-based line of old_text to the nearest line of new_text."""
    a = old_text.splitlines()
    b = new_text.splitlines()
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    blocks = sm.get_opcodes()

    def m(line):
        i = line - 1
        for tag, i1, i2, j1, j2 in blocks:
            if i1 <= i < i2 or (i1 == i2 == i):
                if tag == "equal":
                    return j1 + (i - i1) + 1
                return j1 + 1  # replaced or deleted: where the new text stands
        return len(b)
    return m


def group_by_args(jobs):
    groups = {}
    for job in jobs:
        groups.setdefault(tuple(job["args"]), []).append(job)
    return groups


def analyse(torchlint, jobs, base_extra):
    """Run torchlint over every job's file, grouped by the job's extra args."""
    for args, group in group_by_args(jobs).items():
        res = run_torchlint(torchlint, [j["file"] for j in group], list(base_extra) + list(args))
        for j in group:
            j.setdefault("findings", {})
            j["findings"][tuple(base_extra)] = res[j["file"]]


def write_file(tmp, tag, path, text):
    d = os.path.join(tmp, tag)
    os.makedirs(d, exist_ok=True)
    dest = os.path.join(d, os.path.basename(path))
    with open(dest, "w", encoding="utf-8") as f:
        f.write(text)
    return dest


def brief(f):
    return "%s@%d" % (f["code"], f["start"]["line"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--torchlint", default="./torchlint")
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--correct", default=os.path.join(HERE, "correct.tsv"))
    ap.add_argument("--bugfixes", default=os.path.join(HERE, "bugfixes.tsv"))
    ap.add_argument("--select", default=None)
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--json", default=None)
    ap.add_argument("--only", default=None)
    ap.add_argument("--verbose", "-v", action="store_true")
    opt = ap.parse_args()

    if not os.access(opt.torchlint, os.X_OK):
        print("score.py: cannot run '%s'" % opt.torchlint, file=sys.stderr)
        return 2
    torchlint = os.path.abspath(opt.torchlint)
    base = ["--select", opt.select] if opt.select else []
    modes = [tuple(base)] + ([("--select", "ALL")] if opt.all else [])

    correct = read_manifest(opt.correct, ["repo", "commit", "path", "expected"])
    fixes = read_manifest(opt.bugfixes, ["repo", "fix_commit", "parent_commit", "path", "expected"])
    if opt.only:
        keep = lambda r: opt.only in r["repo"] or opt.only in r["path"]
        correct = [r for r in correct if keep(r)]
        fixes = [r for r in fixes if keep(r)]

    report = {"torchlint": torchlint, "select": opt.select, "correct": [], "bugfixes": []}
    with tempfile.TemporaryDirectory(prefix="realcode-") as tmp:
        jobs = []
        trees = {}
        for n, r in enumerate(correct):
            ent = {"repo": r["repo"], "commit": r["commit"], "path": r["path"],
                   "expected": parse_expected(r["expected"], "%s:%d" % (opt.correct, r["_line"])),
                   "skipped": None}
            report["correct"].append(ent)
            text, why = read_blob(opt.mirrors, r["repo"], r["commit"], r["path"])
            if text is None:
                ent["skipped"] = why
                continue
            ent["job"] = {"file": place(tmp, trees, opt.mirrors, r["repo"], r["commit"], r["path"],
                                        "c%03d" % n, text), "args": []}
            jobs.append(ent["job"])
        for n, r in enumerate(fixes):
            args = r.get("args", "").strip()
            args = [] if args in ("", "-") else args.split()
            excluded = []
            ent = {"repo": r["repo"], "fix": r["fix_commit"], "parent": r["parent_commit"],
                   "path": r["path"], "pattern": r.get("pattern", ""), "args": args,
                   "expected": parse_expected(r["expected"], "%s:%d" % (opt.bugfixes, r["_line"]),
                                              excluded),
                   "excluded": excluded, "skipped": None}
            report["bugfixes"].append(ent)
            ptext, why = read_blob(opt.mirrors, r["repo"], r["parent_commit"], r["path"])
            if ptext is None:
                ent["skipped"] = why
                continue
            ftext, fwhy = read_blob(opt.mirrors, r["repo"], r["fix_commit"], r["path"])
            ent["job"] = {"file": place(tmp, trees, opt.mirrors, r["repo"], r["parent_commit"],
                                        r["path"], "p%03d" % n, ptext), "args": args}
            jobs.append(ent["job"])
            if ftext is not None:
                ent["fixjob"] = {"file": place(tmp, trees, opt.mirrors, r["repo"], r["fix_commit"],
                                               r["path"], "f%03d" % n, ftext), "args": args}
                ent["map"] = line_map(ptext, ftext)
                jobs.append(ent["fixjob"])
            else:
                ent["fix_missing"] = fwhy
        try:
            for mode in modes:
                analyse(torchlint, jobs, mode)
        except RuntimeError as e:
            print("score.py: %s" % e, file=sys.stderr)
            return 2

        # ---- correct code -------------------------------------------------
        fp_total = 0
        print("== correct.tsv: default rules%s must be silent except the listed true findings" %
              (" (--select %s)" % opt.select if opt.select else ""))
        n_ok = n_skip = listed_found = listed_missing = 0
        all_extra = {}
        for ent in report["correct"]:
            label = "%s %s %s" % (ent["repo"], ent["commit"][:10], ent["path"])
            if ent["skipped"]:
                n_skip += 1
                print("  SKIP  %s: %s" % (label, ent["skipped"]))
                continue
            found = ent["job"]["findings"][tuple(base)]
            exp = set(ent["expected"])
            got = set((f["code"], f["start"]["line"]) for f in found)
            unexpected = [f for f in found if (f["code"], f["start"]["line"]) not in exp]
            ent["findings"] = [brief(f) for f in found]
            ent["false_positives"] = [brief(f) + " " + f["message"] for f in unexpected]
            ent["listed_missing"] = ["%s@%d" % e for e in sorted(exp - got)]
            listed_found += len(exp & got)
            listed_missing += len(exp - got)
            fp_total += len(unexpected)
            if unexpected:
                print("  FP    %s" % label)
                for f in unexpected:
                    print("          %s:%d:%d %s %s" % (ent["path"], f["start"]["line"],
                                                      f["start"]["column"], f["code"],
                                                      f["message"][:160]))
            else:
                n_ok += 1
                if opt.verbose:
                    print("  ok    %s %s" % (label, " ".join(ent["findings"]) or ""))
            if ent["listed_missing"]:
                print("  note  %s: listed but not reported: %s" %
                      (label, ", ".join(ent["listed_missing"])))
            if opt.all:
                extra = [f for f in ent["job"]["findings"][("--select", "ALL")]
                         if (f["code"], f["start"]["line"]) not in got]
                ent["all_extra"] = [brief(f) for f in extra]
                for f in extra:
                    all_extra[f["code"]] = all_extra.get(f["code"], 0) + 1
        checked = len(report["correct"]) - n_skip
        print("  files: %d checked, %d skipped; clean or only listed findings: %d" %
              (checked, n_skip, n_ok))
        print("  false positives (default rules): %d; listed true findings reported: %d, "
              "listed but not reported: %d" % (fp_total, listed_found, listed_missing))
        if opt.all:
            print("  --select ALL adds (opt-in rules, informational): %s" %
                  (", ".join("%s=%d" % kv for kv in sorted(all_extra.items())) or "nothing"))
        report["correct_summary"] = {"checked": checked, "skipped": n_skip,
                                     "false_positives": fp_total,
                                     "listed_found": listed_found,
                                     "listed_missing": listed_missing,
                                     "all_extra": all_extra}

        # ---- bug fixes ----------------------------------------------------
        print("\n== bugfixes.tsv: recall (hit = expected code on the expected line of the parent)")
        per_code = {}
        per_pattern = {}
        hits = items = skipped = 0
        cross = [0, 0]
        n_excl = [0, 0]
        entries_hit = entries_scored = 0
        for ent in report["bugfixes"]:
            label = "%s %s %s" % (ent["repo"], ent["fix"][:10], ent["path"])
            if ent["skipped"]:
                skipped += 1
                print("  SKIP  %s: %s" % (label, ent["skipped"]))
                continue
            entries_scored += bool(ent["expected"])
            found = ent["job"]["findings"][tuple(base)]
            fixfound = ent["fixjob"]["findings"][tuple(base)] if "fixjob" in ent else None
            res = []
            all_hit = True
            for code, line in ent["expected"]:
                hit = any(f["code"] == code and f["start"]["line"] == line for f in found)
                other = sorted(set(f["start"]["line"] for f in found if f["code"] == code))
                clean = None
                if fixfound is not None:
                    ml = ent["map"](line)
                    clean = not any(f["code"] == code and abs(f["start"]["line"] - ml) <= NEAR
                                    for f in fixfound)
                hit_all = None
                if opt.all:
                    hit_all = any(f["code"] == code and f["start"]["line"] == line
                                  for f in ent["job"]["findings"][("--select", "ALL")])
                res.append({"code": code, "line": line, "hit": hit, "same_code_lines": other,
                            "fix_clean": clean, "hit_with_all": hit_all})
                items += 1
                hits += hit
                all_hit = all_hit and hit
                pc = per_code.setdefault(code, [0, 0])
                pc[0] += hit
                pc[1] += 1
                pp = per_pattern.setdefault(ent["pattern"] or "-", [0, 0])
                pp[0] += hit
                pp[1] += 1
                if "module" in (ent["pattern"] or "").split("+"):
                    cross[0] += hit
                    cross[1] += 1
            entries_hit += all_hit and bool(ent["expected"])
            ent["results"] = res
            ent["parent_findings"] = [brief(f) for f in found]
            for r in res:
                print("  %-4s  %s@%d  %s  [%s]%s%s" % (
                    "HIT" if r["hit"] else "MISS", r["code"], r["line"], label,
                    ent["pattern"] or "-",
                    "" if r["fix_clean"] is None else
                    ("  fix: clean" if r["fix_clean"] else "  fix: STILL REPORTED"),
                    "" if r["hit"] or not r["same_code_lines"] else
                    "  (same code on lines %s)" % ",".join(map(str, r["same_code_lines"]))))
            # places the rule as written does not report: reporting one
            # contradicts the rule (counted with the false positives)
            ent["excluded_reported"] = []
            for code, line in ent["excluded"]:
                rep = any(f["code"] == code and f["start"]["line"] == line for f in found)
                n_excl[0] += 1
                if rep:
                    n_excl[1] += 1
                    fp_total += 1
                    ent["excluded_reported"].append("%s@%d" % (code, line))
                print("  %-4s  %s@%d  %s  [%s]  not a finding by the rule: %s" % (
                    "EXCL", code, line, label, ent["pattern"] or "-",
                    "REPORTED (false positive)" if rep else "silent"))
            if "fix_missing" in ent:
                print("          fix commit's file not read: %s" % ent["fix_missing"])
        print("  entries: %d scored, %d skipped (not counted); all expected found: %d/%d" %
              (entries_scored, skipped, entries_hit, entries_scored))
        print("  recall: %d/%d = %.1f%%" % (hits, items, 100.0 * hits / items if items else 0.0))
        print("  cross-file (pattern has 'module'): %d/%d = %.1f%%" %
              (cross[0], cross[1], 100.0 * cross[0] / cross[1] if cross[1] else 0.0))
        if n_excl[0]:
            print("  not findings by the rule (`!CODE@line`, outside recall): %d, reported: %d" %
                  (n_excl[0], n_excl[1]))
        print("  per code:    " + ", ".join("%s %d/%d" % (c, v[0], v[1])
                                             for c, v in sorted(per_code.items())))
        print("  per pattern: " + ", ".join("%s %d/%d" % (c, v[0], v[1])
                                             for c, v in sorted(per_pattern.items())))
        report["bugfix_summary"] = {"scored": entries_scored, "skipped": skipped,
                                    "hits": hits, "items": items, "cross_file": cross,
                                    "entries_all_hit": entries_hit,
                                    "excluded": n_excl[0], "excluded_reported": n_excl[1],
                                    "per_code": per_code, "per_pattern": per_pattern}

    if opt.json:
        for ent in report["correct"] + report["bugfixes"]:
            ent.pop("job", None)
            ent.pop("fixjob", None)
            ent.pop("map", None)
            ent["expected"] = ["%s@%d" % e for e in ent["expected"]]
            if "excluded" in ent:
                ent["excluded"] = ["%s@%d" % e for e in ent["excluded"]]
        with open(opt.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1)
    return 1 if fp_total else 0


if __name__ == "__main__":
    sys.exit(main())
