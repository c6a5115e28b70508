#!/usr/bin/env python3
"""End-to-end test of `torchlint server` with Emacs (Debian's emacs-nox) and
eglot (Debian's elpa-eglot), in batch mode, driven by tests/lsp/emacs/test.el:
the diagnostics flymake shows (positions as the CLI reports them, in
characters) on opening a training script and after an edit.

usage: test-emacs.py TORCHLINT"""

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


def cli(path):
    """The CLI's findings: 0-based line, code-point column, message."""
    p = subprocess.run([BIN, "--format", "json", "-q", path], capture_output=True)
    return sorted((f["start"]["line"] - 1, f["start"]["column"] - 1, f["end"]["line"] - 1, f["end"]["column"] - 1,
                   f["code"], f["message"]) for f in json.loads(p.stdout or b"[]"))


def seen(ds):
    return sorted((d["line"], d["col"], d["end_line"], d["end_col"], d["text"]) for d in ds)


def main():
    if not shutil.which("emacs"):
        print("emacs not found (tests/install-test-deps.sh installs Debian's emacs-nox and elpa-eglot)")
        sys.exit(1)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "train_cifar.py")
        text = open(os.path.join(ROOT, "examples", "train_cifar.py"), encoding="utf-8").read()
        text = text.replace("        running += loss\n", "        note = 'é🔥'; running += loss\n")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        # The test follows a TL101, on by default: the project's
        # configuration (its root marker) selects nothing, for the editor's
        # server and the CLI alike.
        with open(os.path.join(tmp, "torchlint.toml"), "w", encoding="utf-8") as f:
            f.write("# the defaults\n")
        want_open = cli(path)
        out = os.path.join(tmp, "result.json")
        env = dict(os.environ, TORCHLINT=BIN, TL_FILE=path, TL_OUT=out, HOME=tmp)
        p = subprocess.run(["emacs", "--batch", "-l", os.path.join(HERE, "emacs", "test.el")],
                           env=env, capture_output=True, timeout=180, stdin=subprocess.DEVNULL)
        check("emacs exits 0", p.returncode == 0, (p.returncode, p.stderr.decode(errors="replace")[-2000:]))
        if not os.path.exists(out):
            print("emacs: %d passed, %d failed" % (passed, failed))
            sys.exit(1)
        r = json.load(open(out, encoding="utf-8"))
        check("no error in the Lisp steps", "error" not in r, r.get("error"))

        def match(ds, want):
            # flymake's text is eglot's rendering of the message; it must
            # hold torchlint's message.
            got = seen(ds)
            return len(got) == len(want) and all(g[:4] == w[:4] and w[5] in g[4] for g, w in zip(got, want))

        opened = r.get("opened", [])
        check("opened: positions and messages equal the CLI's", match(opened, want_open), (seen(opened), want_open))
        check("opened: the TL101 after 'é🔥' is at its character column",
              any(d["col"] == len("        note = 'é🔥'; ") and "autograd graph" in d["text"] for d in opened), opened)
        want_edit = cli(path)  # the edited buffer, written by test.el
        edited = r.get("edited", [])
        check("edited: diagnostics follow (line shift, TL101 fixed)", match(edited, want_edit), (seen(edited), want_edit))
        check("edited: the file holds the edit", open(path, encoding="utf-8").read().startswith("# edited in Emacs"))
        check("eglot shut the server down", r.get("stopped") is True, r.get("stopped"))
    print("emacs: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
