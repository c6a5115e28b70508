#!/usr/bin/env python3
"""End-to-end test of `torchlint server` with a real editor: Neovim (Debian's
package, headless) and its built-in LSP client, configured by
tests/lsp/nvim/init.lua. Checks the diagnostics Neovim shows (codes and
positions, as the CLI reports them), a hover, a code action, that the
diagnostics follow an edit, and the quickfix errorformat of docs/integrations.md.

usage: test-nvim.py TORCHLINT"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

BIN = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: %s%s" % (name, (": " + str(detail)[:2000]) if detail else ""))


def cli(path, text):
    """The CLI's findings as Neovim shows them: 0-based line, byte column."""
    p = subprocess.run([BIN, "--format", "json", "-q", path], capture_output=True)
    lines = re.split(r"\r\n|\r|\n", text)
    out = []
    for f in json.loads(p.stdout or b"[]"):
        def byte(line, col):
            return len(lines[line - 1][:col - 1].encode("utf-8"))
        out.append({"code": f["code"], "lnum": f["start"]["line"] - 1, "col": byte(f["start"]["line"], f["start"]["column"]),
                    "end_lnum": f["end"]["line"] - 1, "end_col": byte(f["end"]["line"], f["end"]["column"])})
    return sorted(out, key=lambda d: (d["lnum"], d["col"], d["code"]))


def strip(ds):
    return [{k: d[k] for k in ("code", "lnum", "col", "end_lnum", "end_col")} for d in ds]


def main():
    if not shutil.which("nvim"):
        print("nvim not found (tests/install-test-deps.sh installs Debian's neovim)")
        sys.exit(1)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "train_cifar.py")
        text = open(os.path.join(ROOT, "examples", "train_cifar.py"), encoding="utf-8").read()
        # A non-ASCII line in front of a finding: Neovim converts the
        # server's UTF-16 columns to bytes, the CLI counts code points.
        text = text.replace("        running += loss\n", "        note = 'é🔥'; running += loss\n")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        # The test follows a TL101, on by default: the project's
        # configuration (its root marker) selects nothing, for the editor's
        # server and the CLI alike.
        with open(os.path.join(tmp, "torchlint.toml"), "w", encoding="utf-8") as f:
            f.write("# the defaults\n")
        want_open = cli(path, text)
        out = os.path.join(tmp, "result.json")
        env = dict(os.environ, TORCHLINT=BIN, TL_FILE=path, TL_OUT=out, XDG_STATE_HOME=tmp,
                   XDG_DATA_HOME=tmp, XDG_CONFIG_HOME=tmp, XDG_CACHE_HOME=tmp)
        p = subprocess.run(["nvim", "--headless", "--clean", "-n", "-u", os.path.join(HERE, "nvim", "init.lua")],
                           env=env, capture_output=True, timeout=120, stdin=subprocess.DEVNULL)
        check("nvim exits 0", p.returncode == 0, (p.returncode, p.stderr.decode(errors="replace")[-2000:]))
        if not os.path.exists(out):
            check("nvim wrote its results", False, p.stdout.decode(errors="replace")[-2000:])
            print("nvim: %d passed, %d failed" % (passed, failed))
            sys.exit(1)
        r = json.load(open(out))
        check("no error in the Lua steps", "error" not in r, r.get("error"))
        opened = r["steps"].get("opened", [])
        check("opened: diagnostics from torchlint", opened and all(d["source"] == "torchlint" for d in opened), opened)
        check("opened: codes and positions equal the CLI's", strip(opened) == want_open, (strip(opened), want_open))
        check("opened: the TL101 after 'é🔥' is at its byte column",
              any(d["code"] == "TL101" and d["col"] == len("        note = 'é🔥'; ".encode()) for d in opened), opened)
        check("hover shows the rule's explanation", "loss-accumulated-with-graph" in (r.get("hover") or ""),
              (r.get("hover") or "")[:300])
        check("code action: noqa", "Suppress TL101 with `# noqa: TL101`" in r.get("actions", []), r.get("actions"))
        edited_text = open(path, encoding="utf-8").read()  # written by the :write after the edit
        want_edit = cli(path, edited_text)
        edited = r["steps"].get("edited", [])
        check("edited: diagnostics follow (line shift, TL101 fixed)", strip(edited) == want_edit, (strip(edited), want_edit))
        check("edited: no TL101 left", "TL101" not in {d["code"] for d in edited}, edited)
        check("edited: the first line was inserted", edited_text.startswith("# edited in Neovim"), edited_text[:80])
        concise = subprocess.run([BIN, "--format", "concise", path], capture_output=True, text=True).stdout
        n = len([l for l in concise.splitlines() if re.match(r".+:\d+:\d+: TL\d+ ", l)])
        qf = r.get("qf", [])
        check("errorformat: one quickfix entry per finding", len(qf) == n and n > 0, (qf, concise))
        check("errorformat: lines and codes", all(q["lnum"] == w["lnum"] + 1 and q["text"].startswith(w["code"])
                                                   for q, w in zip(qf, want_edit)), (qf, want_edit))
        check("errorformat: columns on ASCII lines", all(q["col"] == w["col"] + 1 for q, w in zip(qf, want_edit)), qf)
        check("the client stopped the server", r.get("stopped") is True, r.get("stopped"))
    print("nvim: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
