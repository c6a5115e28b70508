#!/usr/bin/env python3
"""Protocol tests of `torchlint server`, driven by a scripted stdio client.

usage: test-server.py TORCHLINT [--quick]

The oracle for diagnostics is the CLI itself: for every document state the
test runs `torchlint --format json --stdin-filename PATH -` on the text it
expects the server to hold (edits applied here in Python, in UTF-16 units),
converts the CLI's code-point columns to UTF-16 and compares. So a wrong
incremental edit, a wrong position conversion or a stale configuration
shows up as a difference. TORCHLINT_WRAPPER (e.g. "valgrind -q
--error-exitcode=99 ...") runs the server under a tool; a non-zero exit
after shutdown + exit then fails the test. --quick skips the 10,000-edit
memory run (for slow wrappers)."""

import json
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import Client  # noqa: E402

# The documents here carry a TL201 and a TL101 (`losses.append(loss)` in a
# training loop), both on by default: the client sets no options, as a new
# user's editor does, and the CLI runs the diagnostics are compared with add
# no selection either.
Client.default_options = None
OPT_IN = []

BIN = os.path.abspath(sys.argv[1])
QUICK = "--quick" in sys.argv
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WRAPPER = shlex.split(os.environ.get("TORCHLINT_WRAPPER", ""))
passed = 0
failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: %s%s" % (name, (": " + str(detail)[:2000]) if detail else ""))


def server(debounce=0, extra=(), cwd=None):
    argv = WRAPPER + [BIN, "server", "--debounce-ms", str(debounce)] + list(extra)
    return Client(argv, cwd=cwd, stderr=subprocess.DEVNULL)


def uri_of(path):
    return "file://" + "/".join(_quote(part) for part in path.split("/"))


def _quote(part):
    out = []
    for b in part.encode("utf-8"):
        c = chr(b)
        out.append(c if (c.isascii() and (c.isalnum() or c in "-._~")) else "%%%02X" % b)
    return "".join(out)


# ---- text model (what the server must hold) -------------------------------------------
LINE_END = re.compile(r"\r\n|\r|\n")


def line_starts(text):
    starts = [0]
    for m in LINE_END.finditer(text):
        starts.append(m.end())
    return starts


def line_content_end(text, starts, i):
    end = starts[i + 1] if i + 1 < len(starts) else len(text)
    while end > starts[i] and text[end - 1] in "\r\n":
        end -= 1
    return end


def index_of(text, line, character):
    """String index of an LSP position (UTF-16 units), clamped as the spec says."""
    starts = line_starts(text)
    if line >= len(starts):
        return len(text)
    i, end, units = starts[line], line_content_end(text, starts, line), 0
    while i < end and units < character:
        u = 2 if ord(text[i]) > 0xFFFF else 1
        if units + u > character:
            break
        units += u
        i += 1
    return i


def utf16_col(text, line1, col1):
    """The LSP character of the CLI's (1-based line, 1-based code-point column)."""
    starts = line_starts(text)
    s = starts[line1 - 1]
    end = line_content_end(text, starts, line1 - 1)
    prefix = text[s:min(s + col1 - 1, end)]
    return len(prefix.encode("utf-16-le")) // 2


def apply(text, change):
    if "range" not in change:
        return change["text"]
    r = change["range"]
    a = index_of(text, r["start"]["line"], r["start"]["character"])
    b = index_of(text, r["end"]["line"], r["end"]["character"])
    return text[:a] + change["text"] + text[max(a, b):]


def cli_expected(text, path, cwd, extra=()):
    """(code, start, end, message) tuples the CLI reports for `text` as `path`."""
    p = subprocess.run([BIN, "--format", "json", "-q", "--stdin-filename", path] + OPT_IN + list(extra) + ["-"],
                       input=text.encode("utf-8"), capture_output=True, cwd=cwd)
    out = []
    for f in json.loads(p.stdout.decode("utf-8") or "[]"):
        s = (f["start"]["line"] - 1, utf16_col(text, f["start"]["line"], f["start"]["column"]))
        e = (f["end"]["line"] - 1, utf16_col(text, f["end"]["line"], f["end"]["column"]))
        out.append((f["code"], s, e, f["message"]))
    return sorted(out)


def got(diags):
    return sorted((d["code"], (d["range"]["start"]["line"], d["range"]["start"]["character"]),
                   (d["range"]["end"]["line"], d["range"]["end"]["character"]), d["message"])
                  for d in diags)


def open_doc(c, uri, text, version=1, lang="python"):
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": lang,
                                                       "version": version, "text": text}})


def change(c, uri, version, changes):
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                        "contentChanges": changes})


def rng(l1, c1, l2, c2):
    return {"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}}


TRAIN = '''import torch
import torch.nn as nn


def train(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    total = 0
    for x, y in loader:
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        total += loss
    return total
'''


# ---- tests ----------------------------------------------------------------------------------
def test_lifecycle_and_bad_input(tmp):
    c = server()
    # Requests before initialize: ServerNotInitialized.
    r = c.call("textDocument/hover", {"textDocument": {"uri": "file:///x.py"},
                                      "position": {"line": 0, "character": 0}})
    check("request before initialize", r.get("error", {}).get("code") == -32002, r)
    r = c.initialize(root_uri=uri_of(tmp))
    caps = r["result"]["capabilities"]
    check("initialize: utf-16", caps.get("positionEncoding") == "utf-16", caps)
    check("initialize: incremental sync", caps["textDocumentSync"]["change"] == 2, caps)
    check("initialize: hover, code actions, notebooks",
          caps.get("hoverProvider") and "codeActionProvider" in caps and "notebookDocumentSync" in caps, caps)
    check("initialize: serverInfo", r["result"]["serverInfo"]["name"] == "torchlint", r)
    r = c.call("initialize", {"capabilities": {}})
    check("second initialize is refused", r.get("error", {}).get("code") == -32600, r)
    # Malformed JSON: a parse error with a null id, and the server goes on.
    body = b'{"jsonrpc": "2.0", "id": 99, "method": '
    c.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    r = c.wait(lambda m: m.get("error", {}).get("code") == -32700)
    check("malformed JSON: parse error, id null", r.get("id") is None, r)
    # Junk instead of a header, then a header without Content-Length.
    c.send_raw(b"hello, this is not a header\n")
    r = c.wait(lambda m: m.get("error", {}).get("code") == -32700)
    check("junk bytes: parse error", r.get("id") is None, r)
    c.send_raw(b"Content-Type: application/vscode-jsonrpc\r\n\r\n")
    r = c.wait(lambda m: m.get("error", {}).get("code") == -32700)
    check("header without Content-Length: parse error", "Content-Length" in r["error"]["message"], r)
    c.send_raw(b"Content-Length: abc\r\n\r\n")
    r = c.wait(lambda m: m.get("error", {}).get("code") == -32700)
    check("bad Content-Length: parse error", r.get("id") is None, r)
    # A frame split across writes still arrives whole.
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "torchlint/stats"}).encode()
    frame = b"Content-Length: %d\r\n\r\n" % len(body) + body
    for k in range(0, len(frame), 5):
        c.send_raw(frame[k:k + 5])
        time.sleep(0.001)
    r = c.response(7)
    check("frame split into 5-byte writes", "result" in r, r)
    # JSON that is not a request.
    c.send({"jsonrpc": "2.0", "id": 8})
    r = c.response(8)
    check("no method: invalid request", r.get("error", {}).get("code") == -32600, r)
    c.send([{"jsonrpc": "2.0", "id": 9, "method": "shutdown"}])
    r = c.wait(lambda m: m.get("error", {}).get("code") == -32600)
    check("batch (array): invalid request", r.get("id") is None, r)
    c.send({"jsonrpc": "2.0", "id": {"x": 1}, "method": "shutdown"})
    r = c.wait(lambda m: m.get("error", {}).get("code") == -32600)
    check("object id: invalid request", r.get("id") is None, r)
    r = c.call("textDocument/formatting", {"textDocument": {"uri": "file:///x.py"}})
    check("unknown request: MethodNotFound", r.get("error", {}).get("code") == -32601, r)
    c.notify("$/cancelRequest", {"id": 1})
    c.notify("workspace/unknownNotification", {})
    r = c.call("textDocument/hover", {"textDocument": {}})
    check("hover without position: InvalidParams", r.get("error", {}).get("code") == -32602, r)
    sid = c.request("torchlint/stats", None)
    r = c.response(sid)
    check("string-less stats still answers after bad input", "analyses" in r.get("result", {}), r)
    # Shutdown: then requests are refused; exit gives 0.
    r = c.call("shutdown")
    check("shutdown answers null", "result" in r and r["result"] is None, r)
    r = c.call("torchlint/stats")
    check("request after shutdown: invalid request", r.get("error", {}).get("code") == -32600, r)
    c.notify("exit")
    check("exit after shutdown: status 0", c.proc.wait(60) == 0)

    c = server()
    c.initialize()
    c.notify("exit")
    check("exit without shutdown: status 1", c.proc.wait(60) == 1)
    c = server()
    c.initialize()
    c.proc.stdin.close()
    check("end of input without shutdown: status 1", c.proc.wait(60) == 1)


def test_diagnostics(tmp):
    path = os.path.join(tmp, "train.py")
    c = server()
    c.initialize(root_uri=uri_of(tmp))
    uri = uri_of(path)
    open_doc(c, uri, TRAIN)
    d = c.diagnostics(uri, version=1)
    want = cli_expected(TRAIN, path, tmp)
    check("didOpen: diagnostics equal the CLI's", got(d) == want, (got(d), want))
    codes = {x["code"] for x in d}
    check("didOpen: TL101 and TL201 reported", {"TL101", "TL201"} <= codes, codes)
    sarif = json.loads(subprocess.run([BIN, "--format", "sarif", "-q", "--stdin-filename", path] + OPT_IN + ["-"],
                                      input=TRAIN.encode(), capture_output=True).stdout)
    help_uri = {r["id"]: r["helpUri"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    for x in d:
        ok = (x["source"] == "torchlint" and x["severity"] in (1, 2, 3) and
              x["codeDescription"]["href"] == help_uri[x["code"]])
        check("diagnostic %s: source, severity, codeDescription = SARIF helpUri" % x["code"], ok, x)
    tl101 = [x for x in d if x["code"] == "TL101"][0]
    check("TL101 position", tl101["range"] == rng(12, 8, 12, 21), tl101["range"])
    # Hover on the finding: the --explain text; off it: null.
    r = c.call("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 12, "character": 10}})
    explain = subprocess.run([BIN, "--explain", "TL101"], capture_output=True, text=True).stdout
    value = r["result"]["contents"]["value"]
    check("hover: markdown", r["result"]["contents"]["kind"] == "markdown", r)
    check("hover: the --explain text", value == "## " + explain, (value[:200], explain[:200]))
    check("hover: range of the finding", r["result"]["range"] == tl101["range"], r)
    r = c.call("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
    check("hover off a finding: null", r["result"] is None, r)
    # Full-document change.
    text2 = TRAIN.replace("        total += loss\n", "        total += loss.item()\n")
    change(c, uri, 2, [{"text": text2}])
    d = c.diagnostics(uri, version=2)
    check("full change: diagnostics follow", got(d) == cli_expected(text2, path, tmp), got(d))
    check("full change: TL101 gone", "TL101" not in {x["code"] for x in d})
    # didSave re-publishes; didClose clears.
    c.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    d = c.diagnostics(uri, version=2)
    check("didSave: published again", got(d) == cli_expected(text2, path, tmp))
    c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    d = c.diagnostics(uri)
    check("didClose: diagnostics cleared", d == [], d)
    # A syntax error: TL000, and the rest still analysed.
    bad = TRAIN.replace("    total = 0\n", "    total = = 0\n")
    open_doc(c, uri, bad, 3)
    d = c.diagnostics(uri, version=3)
    check("syntax error: TL000 plus the others", "TL000" in {x["code"] for x in d} and
          got(d) == cli_expected(bad, path, tmp), got(d))
    # A NUL byte: the document cannot be analysed; one TL000 says why.
    change(c, uri, 4, [{"text": "x = 1\x00\n"}])
    d = c.diagnostics(uri, version=4)
    check("NUL byte: one TL000", len(d) == 1 and d[0]["code"] == "TL000" and "NUL" in d[0]["message"], d)
    # Untitled documents are analysed too.
    open_doc(c, "untitled:Untitled-1", TRAIN)
    d = c.diagnostics("untitled:Untitled-1")
    check("untitled: document analysed", {"TL101", "TL201"} <= {x["code"] for x in d}, d)
    check("shutdown + exit: status 0", c.close() == 0)


UNICODE = '''import torch


def train(model, loader, opt, crit):
    total = 0
    for x, y in loader:
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        label = "é中🔥𝔸"; total += loss  # 🔥 astral before the finding
    return total
'''


def test_utf16_and_incremental(tmp):
    path = os.path.join(tmp, "uni.py")
    uri = uri_of(path)
    c = server()
    c.initialize(root_uri=uri_of(tmp))
    text = UNICODE
    open_doc(c, uri, text)
    d = c.diagnostics(uri, version=1)
    tl101 = [x for x in d if x["code"] == "TL101"]
    # '        label = "é中🔥𝔸"; ' is 24 code points but 26 UTF-16 units.
    check("UTF-16: TL101 after astral characters", tl101 and tl101[0]["range"]["start"] == {"line": 9, "character": 26},
          tl101)
    check("UTF-16: all diagnostics equal the CLI's", got(d) == cli_expected(text, path, tmp), got(d))
    # Incremental edits around the astral characters, in UTF-16 units: on
    # line 9, é is at 17, 中 at 18, 🔥 at 19-20, 𝔸 at 21-22.
    steps = [
        [{"range": rng(9, 19, 9, 19), "text": "ü"}],            # between 中 and 🔥
        [{"range": rng(9, 22, 9, 24), "text": ""}],            # delete 𝔸 (now at 22-23)
        [{"range": rng(9, 17, 9, 17), "text": "🎉"}],           # before é
        [{"range": rng(6, 8, 6, 12), "text": "lossy"},          # two changes in one message,
         {"range": rng(6, 8, 6, 13), "text": "loss"}],          # applied in order
        [{"range": rng(3, 0, 4, 0), "text": "def train(model, loader, opt, crit):  # ünïcode\n"}],
        [{"range": rng(11, 0, 11, 0), "text": "\r\n# crlf line\r\n"}],
        [{"range": rng(2, 0, 2, 0), "text": "# a line ended by a lone CR\r"}],  # the parser sees a LF
        [{"range": rng(9, 200, 9, 300), "text": "  # past the end of the line"}],
        [{"range": rng(500, 0, 500, 0), "text": "\n# past the last line\n"}],
    ]
    for v, ch in enumerate(steps, start=2):
        for one in ch:
            text = apply(text, one)
        change(c, uri, v, ch)
        d = c.diagnostics(uri, version=v)
        want = cli_expected(text, path, tmp)
        check("incremental step %d: diagnostics equal the CLI's on the edited text" % v, got(d) == want,
              (got(d), want))
    # Random edits: insertions and deletions anywhere, astral characters included.
    rnd = random.Random(11)
    pieces = ["x", "é", "🔥", "\n", "  ", "loss", "(", ")", "中", "𝔸b", "\r\n", "#", "\r"]
    v = 100
    for k in range(60):
        starts = line_starts(text)
        line = rnd.randrange(len(starts))
        s = starts[line]
        end = line_content_end(text, starts, line)
        i = rnd.randint(s, end)
        j = rnd.randint(i, min(end, i + 3))
        units = lambda a, b: len(text[a:b].encode("utf-16-le")) // 2  # noqa: E731
        r = rng(line, units(s, i), line, units(s, j))
        one = {"range": r, "text": rnd.choice(pieces) if rnd.random() < 0.7 else ""}
        text = apply(text, one)
        v += 1
        change(c, uri, v, [one])
        if k % 10 == 9:
            d = c.diagnostics(uri, version=v)
            want = cli_expected(text, path, tmp)
            check("random edits (%d): diagnostics equal the CLI's" % (k + 1), got(d) == want, (got(d), want))
    check("shutdown + exit: status 0", c.close() == 0)


def test_debounce(tmp):
    path = os.path.join(tmp, "deb.py")
    uri = uri_of(path)
    c = server(debounce=300)
    c.initialize(root_uri=uri_of(tmp))
    open_doc(c, uri, TRAIN)
    c.diagnostics(uri, version=1)
    t0 = time.monotonic()
    for v in range(2, 7):
        change(c, uri, v, [{"range": rng(0, 0, 0, 0), "text": "#"}])
    d = c.diagnostics(uri, version=6)
    waited = time.monotonic() - t0
    c.call("torchlint/stats")
    early = [m for m in c.pending if m.get("method") == "textDocument/publishDiagnostics"]
    check("debounce: one publication for a burst of 5 edits", not early, early)
    check("debounce: published after the debounce (%.2f s)" % waited, waited >= 0.25, waited)
    stats = c.call("torchlint/stats")["result"]
    check("debounce: 2 analyses in all (open + burst)", stats["analyses"] == 2, stats)
    # Hover does not wait for a pending analysis: it answers at once from
    # the last published diagnostics (the TL101 on line 12 is still there).
    change(c, uri, 7, [{"range": rng(0, 0, 0, 5), "text": ""}])
    r = c.call("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 12, "character": 10}})
    check("hover with edits pending: from the published diagnostics", r["result"] is not None, r)
    early = [m for m in c.pending if m.get("method") == "textDocument/publishDiagnostics"
             and m["params"].get("version") == 7]
    check("hover with edits pending: answered before the debounce ends", not early, early)
    c.diagnostics(uri, version=7)
    c.close()


def test_config(tmp):
    proj = os.path.join(tmp, "proj")
    os.makedirs(os.path.join(proj, "sub"))
    path = os.path.join(proj, "sub", "train.py")
    other = os.path.join(proj, "sub", "other.py")
    uri, uri2 = uri_of(path), uri_of(other)
    # TL501 (torch.load without weights_only) is reported only for code that
    # must run on PyTorch older than 2.6 (the default torch-version).
    amp = TRAIN + "\nckpt = torch.load('model.pt')\n"
    c = server()
    c.initialize(root_uri=uri_of(proj),
                 capabilities={"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}})
    reg = c.wait(lambda m: m.get("method") == "client/registerCapability")
    c.send({"jsonrpc": "2.0", "id": reg["id"], "result": None})
    check("registers watchers for configuration files",
          "pyproject.toml" in json.dumps(reg["params"]) and "torchlint.toml" in json.dumps(reg["params"]), reg)
    open_doc(c, uri, amp)
    d = c.diagnostics(uri, version=1)
    check("no configuration: no TL501 at the default torch version", "TL501" not in {x["code"] for x in d}, got(d))

    def reopen_expect(name, version, extra=()):
        """Publications arrive as the server notices changes: the last one
        within the time limit must equal the CLI's answer."""
        want = cli_expected(amp, path, proj, extra)
        d, deadline = None, time.monotonic() + 8
        while time.monotonic() < deadline:
            try:
                d = c.diagnostics(uri, version=version, timeout=max(0.05, deadline - time.monotonic()))
            except TimeoutError:
                break
            if got(d) == want:
                break
        check(name, d is not None and got(d) == want, (d and got(d), want))
        return {x["code"] for x in d or []}

    # pyproject.toml with [tool.torchlint], announced by didChangeWatchedFiles.
    with open(os.path.join(proj, "pyproject.toml"), "w") as f:
        f.write('[tool.torchlint]\nignore = ["TL201"]\ntorch-version = "2.3"\n')
    c.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri_of(os.path.join(proj, "pyproject.toml")), "type": 1}]})
    codes = reopen_expect("pyproject.toml: ignore and torch-version apply", 1)
    check("pyproject.toml: TL201 ignored, TL501 on under torch 2.3", "TL201" not in codes and "TL501" in codes, codes)
    # torchlint.toml closer to the file wins; per-file-ignores; noticed by its
    # mtime alone (no notification), within the 2-second re-check.
    time.sleep(0.05)
    with open(os.path.join(proj, "sub", "torchlint.toml"), "w") as f:
        f.write('[per-file-ignores]\n"train.py" = ["TL101"]\n')
    codes = reopen_expect("torchlint.toml found by the periodic check: per-file-ignores", 1)
    check("per-file-ignores: TL101 off for train.py, TL201 back", "TL101" not in codes and "TL201" in codes, codes)
    open_doc(c, uri2, TRAIN)
    d = c.diagnostics(uri2, version=1)
    check("per-file-ignores: other.py keeps TL101", "TL101" in {x["code"] for x in d}, got(d))
    # An invalid configuration: an error message, the defaults apply.
    with open(os.path.join(proj, "sub", "torchlint.toml"), "w") as f:
        f.write('select = ["TL9999"]\n')
    c.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri_of(os.path.join(proj, "sub", "torchlint.toml")), "type": 2}]})
    m = c.wait(lambda m: m.get("method") == "window/showMessage")
    check("invalid configuration: showMessage error", m["params"]["type"] == 1 and "TL9999" in m["params"]["message"], m)
    os.remove(os.path.join(proj, "sub", "torchlint.toml"))
    c.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri_of(os.path.join(proj, "sub", "torchlint.toml")), "type": 3}]})
    reopen_expect("configuration removed: pyproject.toml applies again", 1)
    # The editor's settings: a layer over the files, like the command line.
    c.drain()
    c.notify("workspace/didChangeConfiguration", {"settings": {"torchlint": {"extendSelect": ["TL001"], "ignore": "TL101", "torchVersion": "2.6"}}})
    codes = reopen_expect("didChangeConfiguration: settings as command-line options", 1,
                          ["--extend-select", "TL001", "--ignore", "TL101", "--torch-version", "2.6"])
    check("settings: TL101 ignored, torch 2.6 turns TL501 off", "TL101" not in codes and "TL501" not in codes, codes)
    c.notify("workspace/didChangeConfiguration", {"settings": {}})
    time.sleep(0.2)
    early = [m for m in c.pending if m.get("method") == "textDocument/publishDiagnostics"]
    check("empty settings object changes nothing", not early, early)
    c.notify("workspace/didChangeConfiguration", {"settings": {"torchlint": {"select": ["NOPE"]}}})
    m = c.wait(lambda m: m.get("method") == "window/showMessage")
    check("bad selector in settings: warning", m["params"]["type"] == 2 and "NOPE" in m["params"]["message"], m)
    c.close()
    # initializationOptions carry the same settings.
    c = server()
    c.initialize(root_uri=uri_of(proj), options={"torchlint": {"ignore": ["TL201", "TL101"]}})
    open_doc(c, uri2, TRAIN)
    d = c.diagnostics(uri2, version=1)
    check("initializationOptions: ignore applies", not ({"TL101", "TL201"} & {x["code"] for x in d}), got(d))
    c.close()


NB_CELLS = [
    (1, "# Training\nSome *Markdown*."),
    (2, "import torch\n%matplotlib inline\nmodel = torch.nn.Linear(2, 2)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)"),
    (2, "total = 0\nfor x, y in loader:\n    loss = (model(x) - y).pow(2).mean()\n    loss.backward()\n    opt.step()\n    total += loss  # é🔥"),
]


def test_notebooks(tmp):
    # 1. An .ipynb opened as JSON text: positions inside the JSON strings.
    fixture = os.path.join(ROOT, "tests", "fixtures", "notebook.ipynb")
    raw = open(fixture, encoding="utf-8").read()
    path = os.path.join(tmp, "nb.ipynb")
    uri = uri_of(path)
    c = server()
    c.initialize(root_uri=uri_of(tmp))
    open_doc(c, uri, raw, lang="json")
    d = c.diagnostics(uri, version=1)
    cli = json.loads(subprocess.run([BIN, "--format", "json", "-q"] + OPT_IN + [fixture], capture_output=True).stdout)
    check(".ipynb as JSON: the CLI's findings", sorted(x["code"] for x in d) == sorted(f["code"] for f in cli), (got(d), cli))
    nb = json.loads(raw)
    for x in d:
        f = [f for f in cli if f["code"] == x["code"]][0]
        cell_src = "".join(nb["cells"][f["cell"] - 1]["source"]).split("\n")
        snippet = cell_src[f["start"]["line"] - 1][f["start"]["column"] - 1:f["end"]["column"] - 1]
        r = x["range"]
        lines = re.split(r"\r\n|\r|\n", raw)
        at = lines[r["start"]["line"]][r["start"]["character"]:r["end"]["character"]]
        check(".ipynb as JSON: %s's range covers `%s` in the JSON" % (x["code"], snippet), at == snippet, (at, snippet))
    # An .ipynb whose JSON breaks (a file cut off while saving): one TL000 where
    # it breaks, as the CLI reports it.
    broken = '{"cells": [\n  {"cell_type": "code",\n'
    bpath = os.path.join(tmp, "cut.ipynb")
    with open(bpath, "w", encoding="utf-8") as fh:
        fh.write(broken)
    buri = uri_of(bpath)
    open_doc(c, buri, broken, lang="json")
    d = c.diagnostics(buri, version=1)
    cli = json.loads(subprocess.run([BIN, "--format", "json", "-q", bpath], capture_output=True).stdout)
    check("broken .ipynb: one TL000", [x["code"] for x in d] == ["TL000"] and [f["code"] for f in cli] == ["TL000"],
          (got(d), cli))
    if d and cli:
        check("broken .ipynb: where the JSON breaks, as the CLI says",
              d[0]["range"]["start"] == {"line": cli[0]["start"]["line"] - 1, "character": cli[0]["start"]["column"] - 1}
              and "invalid notebook JSON" in d[0]["message"], (d[0], cli[0]))
    # 2. notebookDocument sync: cells are text documents; diagnostics per cell.
    nb_uri = uri_of(os.path.join(tmp, "sync.ipynb"))
    cell_uris = ["vscode-notebook-cell:%s#cell%d" % (os.path.join(tmp, "sync.ipynb"), i) for i in range(len(NB_CELLS))]
    c.notify("notebookDocument/didOpen", {
        "notebookDocument": {"uri": nb_uri, "notebookType": "jupyter-notebook", "version": 1,
                             "cells": [{"kind": k, "document": u} for (k, _), u in zip(NB_CELLS, cell_uris)]},
        "cellTextDocuments": [{"uri": u, "languageId": "python" if k == 2 else "markdown", "version": 1, "text": t}
                              for (k, t), u in zip(NB_CELLS, cell_uris)]})
    per = {u: c.diagnostics(u) for u in cell_uris}
    ipynb = {"cells": [{"cell_type": "code" if k == 2 else "markdown", "source": t, "metadata": {}, "outputs": []}
                       for k, t in NB_CELLS], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    ref = os.path.join(tmp, "ref.ipynb")
    with open(ref, "w", encoding="utf-8") as f:
        json.dump(ipynb, f, ensure_ascii=False)
    cli = json.loads(subprocess.run([BIN, "--format", "json", "-q"] + OPT_IN + [ref], capture_output=True).stdout)
    want = {u: [] for u in cell_uris}
    for f in cli:
        k = f["cell"] - 1
        t = NB_CELLS[k][1]
        want[cell_uris[k]].append((f["code"], (f["start"]["line"] - 1, utf16_col(t, f["start"]["line"], f["start"]["column"])),
                                   (f["end"]["line"] - 1, utf16_col(t, f["end"]["line"], f["end"]["column"])), f["message"]))
    check("notebook sync: findings in cell 3", {x[0] for x in want[cell_uris[2]]} >= {"TL101", "TL201"}, want)
    for u in cell_uris:
        check("notebook sync: %s equals the CLI's cell positions" % u[-5:], got(per[u]) == sorted(want[u]), (got(per[u]), want[u]))
    # Edit a cell (the `# é🔥` comment moves TL101 nowhere; fix the step instead).
    c.notify("notebookDocument/didChange", {
        "notebookDocument": {"uri": nb_uri, "version": 2},
        "change": {"cells": {"textContent": [{"document": {"uri": cell_uris[2], "version": 2},
                                              "changes": [{"range": rng(5, 13, 5, 17), "text": "loss.item()"}]}]}}})
    d = c.diagnostics(cell_uris[2], version=2)
    check("notebook sync: edit in a cell updates its diagnostics", "TL101" not in {x["code"] for x in d}, got(d))
    # Insert a code cell in front: the others keep their own positions.
    new_cell = "vscode-notebook-cell:%s#cell9" % os.path.join(tmp, "sync.ipynb")
    c.notify("notebookDocument/didChange", {
        "notebookDocument": {"uri": nb_uri, "version": 3},
        "change": {"cells": {"structure": {"array": {"start": 0, "deleteCount": 0, "cells": [{"kind": 2, "document": new_cell}]},
                                           "didOpen": [{"uri": new_cell, "languageId": "python", "version": 1,
                                                        "text": "import torch\nm = torch.nn.Linear(2, 2)\no = torch.optim.SGD(m.parameters(), lr=0.1)\n"
                                                                "for i in range(3):\n    l = m(torch.randn(2)).sum()\n    l.backward()\n    o.step()\n"}]}}}})
    d = c.diagnostics(new_cell)
    check("notebook sync: inserted cell analysed (TL201)", "TL201" in {x["code"] for x in d}, got(d))
    d2 = c.diagnostics(cell_uris[2], version=2)
    check("notebook sync: later cell keeps its positions",
          [x for x in d2 if x["code"] == "TL201"][0]["range"]["start"]["line"] == 4, got(d2))
    # A code action inside a cell edits that cell.
    step = [x for x in d2 if x["code"] == "TL201"][0]
    r = c.call("textDocument/codeAction", {"textDocument": {"uri": cell_uris[2]}, "range": step["range"], "context": {"diagnostics": [step]}})
    acts = r["result"]
    check("notebook sync: noqa action edits the cell",
          acts and list(acts[0]["edit"]["changes"].keys()) == [cell_uris[2]], acts)
    c.notify("notebookDocument/didClose", {"notebookDocument": {"uri": nb_uri},
                                           "cellTextDocuments": [{"uri": u} for u in cell_uris + [new_cell]]})
    d = c.diagnostics(cell_uris[2])
    check("notebook close: cell diagnostics cleared", d == [], d)
    check("shutdown + exit: status 0", c.close() == 0)


def test_hostile_numbers(tmp):
    """Issue 26: client-supplied counts and positions beyond any document."""
    c = server()
    c.initialize(root_uri=uri_of(tmp))
    # The repro: deleteCount 2^63-1 from cell 1 (start + deleteCount overflowed).
    nb_uri = uri_of(os.path.join(tmp, "big.ipynb"))
    cells = ["vscode-notebook-cell:%s#c%d" % (os.path.join(tmp, "big.ipynb"), i) for i in range(3)]
    c.notify("notebookDocument/didOpen", {
        "notebookDocument": {"uri": nb_uri, "notebookType": "jupyter-notebook", "version": 1,
                             "cells": [{"kind": 2, "document": u} for u in cells]},
        "cellTextDocuments": [{"uri": u, "languageId": "python", "version": 1, "text": "x = %d\n" % i}
                              for i, u in enumerate(cells)]})
    c.diagnostics(cells[0])
    for n, arr in enumerate([{"start": 1, "deleteCount": 9223372036854775807},
                             {"start": 9223372036854775807, "deleteCount": 9223372036854775807},
                             {"start": -9223372036854775808, "deleteCount": -1},
                             {"start": 0, "deleteCount": "all"},
                             {"start": 1.5, "deleteCount": 1e300}]):
        c.notify("notebookDocument/didChange", {
            "notebookDocument": {"uri": nb_uri, "version": 2 + n},
            "change": {"cells": {"structure": {"array": arr}}}})
        r = c.call("torchlint/stats")
        check("notebook structure %s: the server answers after it" % json.dumps(arr), "result" in r, r)
    # The same counts past 2^63 (jansson refuses them): the message and its
    # id survive, the numbers read as non-integers.
    body = (b'{"jsonrpc": "2.0", "method": "notebookDocument/didChange", "params": {"notebookDocument": '
            b'{"uri": "%s", "version": 18446744073709551616}, "change": {"cells": {"structure": {"array": '
            b'{"start": 1, "deleteCount": 99999999999999999999999}}}}}}' % nb_uri.encode())
    c.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    r = c.call("torchlint/stats")
    check("notebook structure beyond 2^63: the server answers after it", "result" in r, r)
    body = (b'{"jsonrpc": "2.0", "id": 4242, "method": "textDocument/hover", "params": {"textDocument": '
            b'{"uri": "file:///x.py"}, "position": {"line": 18446744073709551616, "character": -99999999999999999999}}}')
    c.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    r = c.response(4242)
    check("integer >= 2^63 in a request: answered with its id", r.get("id") == 4242 and "error" in r, r)
    body = b'{"jsonrpc": "2.0", "id": 4243, "method": "torchlint/stats", "params": {"s": "18446744073709551616 \\" 1"}}'
    c.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    r = c.response(4243)
    check("digits inside a string are left alone", "result" in r, r)
    # Text documents: positions past 2^32 and 2^63 in incremental edits.
    uri = uri_of(os.path.join(tmp, "t.py"))
    open_doc(c, uri, TRAIN)
    c.diagnostics(uri, version=1)
    change(c, uri, 2, [{"range": rng(4294967295, 4294967295, 4294967295, 4294967295), "text": "# end\n"},
                       {"range": rng(0, 4294967295, 0, 0), "text": ""}])
    body = (b'{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": "%s", '
            b'"version": 3}, "contentChanges": [{"range": {"start": {"line": 9223372036854775808, "character": 0}, '
            b'"end": {"line": 0, "character": 0}}, "text": "x"}]}}' % uri.encode())
    c.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    change(c, uri, 4, [{"range": rng(0, 0, 0, 0), "text": "# top\n"}])
    d = c.diagnostics(uri, version=4)
    want = cli_expected("# top\n" + TRAIN + "# end\n", os.path.join(tmp, "t.py"), tmp)
    check("text edits at huge positions: clamped to the end, the CLI's findings", got(d) == want, (got(d), want))
    # Top-level scalars: invalid requests, not parse errors.
    for body in (b"42", b'"text"', b"null", b"true", b"18446744073709551616"):
        c.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        r = c.wait(lambda m: "error" in m and m.get("id") is None)
        check("top-level %s: invalid request (-32600)" % body.decode(), r["error"]["code"] == -32600, r)
    check("shutdown + exit: status 0", c.close() == 0)


def reloops(n):
    # With `return total` the value-flow questions stay quadratic in the
    # copies (without it they are linear since issue 26's fix): a document
    # whose analysis is long.
    out = ["import torch", "def train(model, loader, opt):", "    total = 0"]
    for _ in range(n):
        out += ["    for x, y in loader:", "        loss = model(x).sum()", "        loss.backward()",
                "        total += loss"]
    out.append("    return total")
    return "\n".join(out) + "\n"


def long_document(path):
    """A document whose analysis takes a while (>= 1.5 s), calibrated with
    the CLI: (text, copies, seconds)."""
    n, full = 1500, 0.0
    while True:
        big = reloops(n)
        t0 = time.monotonic()
        subprocess.run([BIN, "-q", "--format", "json", "--stdin-filename", path] + OPT_IN + ["-"],
                       input=big.encode(), capture_output=True)
        full = time.monotonic() - t0
        if full >= 1.5 or n >= 24000:
            return big, n, full
        n *= 2


def test_stale_analysis(tmp):
    """Issue 26: a long analysis stops when its document changes or the client
    leaves, instead of blocking the server until it ends."""
    path = os.path.join(tmp, "long.py")
    uri = uri_of(path)
    big, n, full = long_document(path)
    check("stale: a document whose analysis takes >= 1.5 s (%d loops: %.1f s)" % (n, full), full >= 1.5)
    small = "import torch\nx = 1\n"
    # A newer version while the first is analysed: the first stops, nothing
    # is published for it, the newer one is answered in much less time.
    c = server()
    c.initialize(root_uri=uri_of(tmp))
    open_doc(c, uri, big)
    time.sleep(0.3)
    t0 = time.monotonic()
    change(c, uri, 2, [{"text": small}])
    d = c.diagnostics(uri, version=2, timeout=30)
    took = time.monotonic() - t0
    check("stale: the newer version answered in %.2f s (the whole analysis: %.1f s)" % (took, full),
          took < full * 0.5, took)
    check("stale: no diagnostics published for the stale version",
          not any(m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == 1
                  for m in c.pending), c.pending)
    check("stale: the newer version's diagnostics", d == [], d)
    check("shutdown + exit: status 0", c.close() == 0)
    # exit while a long analysis runs: the server leaves at once.
    c = server()
    c.initialize(root_uri=uri_of(tmp))
    open_doc(c, uri, big)
    time.sleep(0.3)
    t0 = time.monotonic()
    r = c.call("shutdown", timeout=30)
    c.notify("exit")
    status = c.proc.wait(30)
    took = time.monotonic() - t0
    check("stale: shutdown + exit during an analysis: status 0 in %.2f s (analysis %.1f s)" % (took, full),
          status == 0 and "result" in r and took < full * 0.5, (status, r, took))
    # A hover on another document while a long analysis runs is answered
    # at once (the analysis runs on the worker thread), not after it.
    c = server()
    c.initialize(root_uri=uri_of(tmp))
    small_uri = uri_of(os.path.join(tmp, "small.py"))
    open_doc(c, small_uri, TRAIN)
    d = c.diagnostics(small_uri, version=1)
    tl101 = [x for x in d if x["code"] == "TL101"]
    check("hover during analysis: the small document has a TL101", len(tl101) == 1, got(d))
    at = tl101[0]["range"]["start"] if tl101 else {"line": 0, "character": 0}
    open_doc(c, uri, big)
    time.sleep(0.3)
    t0 = time.monotonic()
    r = c.call("textDocument/hover", {"textDocument": {"uri": small_uri}, "position": at}, timeout=30)
    took = time.monotonic() - t0
    published = any(m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
                    for m in c.pending)
    print("hover during analysis: answered in %.2f s, the long document's analysis %.1f s" % (took, full))
    check("hover during analysis: answered in %.2f s (the whole analysis: %.1f s), before the long "
          "document's diagnostics" % (took, full),
          took < full * 0.5 and not published and "TL101" in r["result"]["contents"]["value"],
          (took, published, r))
    c.diagnostics(uri, version=1, timeout=60)
    st = c.call("torchlint/stats")["result"]
    check("hover during analysis: counted as answered during an analysis",
          st.get("hoversDuringAnalysis") == 1, st)
    # A hover on the document being analysed is answered at once too, from
    # its last published diagnostics (test_responsive checks more).
    change(c, uri, 2, [{"text": big + "# again\n"}])
    time.sleep(0.3)
    t0 = time.monotonic()
    r = c.call("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
               timeout=60)
    took = time.monotonic() - t0
    check("hover on the document being analysed: answered in %.2f s, before its diagnostics" % took,
          not any(m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == 2
                  for m in c.pending) and "result" in r and took < full * 0.5, (took, r))
    check("shutdown + exit: status 0", c.close() == 0)


def test_responsive(tmp):
    """Issue 26: analyses run on a worker thread. While a document's analysis
    takes seconds, requests on that same document are answered at once from
    its last published diagnostics; a newer version cancels the stale
    analysis (never published) and is published; shutdown and exit are
    prompt. Latencies are printed; the bounds are loose (a loaded machine)."""
    path = os.path.join(tmp, "resp.py")
    uri = uri_of(path)
    big, n, full = long_document(path)
    check("responsive: a document whose analysis takes >= 1.5 s (%d loops: %.1f s)" % (n, full), full >= 1.5)
    bound = min(1.0, full * 0.5)
    c = server()
    c.initialize(root_uri=uri_of(tmp))
    open_doc(c, uri, TRAIN)
    d1 = c.diagnostics(uri, version=1)
    tl101 = [x for x in d1 if x["code"] == "TL101"]
    check("responsive: version 1 has a TL101", len(tl101) == 1, got(d1))
    at = tl101[0]["range"] if tl101 else rng(0, 0, 0, 0)
    # Version 2: the same script with the long document after it.
    change(c, uri, 2, [{"text": TRAIN + big}])
    time.sleep(0.3)  # its analysis is under way
    lat = {}
    t0 = time.monotonic()
    r = c.call("textDocument/hover", {"textDocument": {"uri": uri}, "position": at["start"]}, timeout=60)
    lat["hover"] = time.monotonic() - t0
    check("responsive: hover on the document being analysed, from version 1's diagnostics",
          "TL101" in ((r.get("result") or {}).get("contents") or {}).get("value", ""), r)
    t0 = time.monotonic()
    r = c.call("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": at,
                                            "context": {"diagnostics": tl101}}, timeout=60)
    lat["codeAction"] = time.monotonic() - t0
    # Version 1's edits are byte ranges of version 1's text: none is offered
    # until the diagnostics of the text now held are published.
    check("responsive: code action while the text is being analysed: an empty list",
          r.get("result") == [], r)
    t0 = time.monotonic()
    st = c.call("torchlint/stats", timeout=60)["result"]
    lat["stats"] = time.monotonic() - t0
    published = [m for m in c.pending if m.get("method") == "textDocument/publishDiagnostics"
                 and m["params"].get("version") == 2]
    check("responsive: answered before version 2's analysis ended", not published, published)
    # Version 3 makes version 2 stale: its analysis stops, version 3 is published.
    t0 = time.monotonic()
    change(c, uri, 3, [{"text": TRAIN}])
    d3 = c.diagnostics(uri, version=3, timeout=60)
    lat["newer version published"] = time.monotonic() - t0
    check("responsive: version 3's diagnostics are version 1's (the same text)", got(d3) == got(d1),
          (got(d3), got(d1)))
    st = c.call("torchlint/stats")["result"]
    check("responsive: version 2's analysis was cancelled, never published",
          st.get("cancelled") == 1 and st.get("analyses") == 3 and
          not any(m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == 2
                  for m in c.pending), (st, c.pending))
    # The code action is offered again now that the diagnostics match the text.
    r = c.call("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": at,
                                            "context": {"diagnostics": tl101}})
    check("responsive: code actions once the diagnostics match the text",
          any("noqa: TL101" in a["title"] for a in r.get("result") or []), r)
    # Shutdown and exit while a long analysis runs.
    change(c, uri, 4, [{"text": TRAIN + big}])
    time.sleep(0.3)
    t0 = time.monotonic()
    r = c.call("shutdown", timeout=60)
    lat["shutdown"] = time.monotonic() - t0
    c.notify("exit")
    status = c.proc.wait(60)
    lat["exit"] = time.monotonic() - t0 - lat["shutdown"]
    print("responsive (analysis %.1f s, %d loops): %s" % (full, n, ", ".join(
        "%s %.3f s" % (k, v) for k, v in lat.items())))
    for k, v in lat.items():
        check("responsive: %s answered in %.3f s (bound %.2f s; the analysis %.1f s)" % (k, v, bound, full),
              v < bound, lat)
    check("responsive: shutdown + exit mid-analysis: status 0", status == 0 and "result" in r, (status, r))


def test_close_frees(tmp):
    """Issue 26: closing a large document gives back what it held (1.75 GB
    stayed resident)."""
    if QUICK:
        return
    c = server()
    c.initialize(root_uri=uri_of(tmp))
    before = c.call("torchlint/stats")["result"]["rssKiB"]
    uri = uri_of(os.path.join(tmp, "big.py"))
    open_doc(c, uri, "import torch\ndata = [" + "1, " * 400000 + "]\n")
    c.diagnostics(uri, timeout=60)
    held = c.call("torchlint/stats")["result"]["rssKiB"]
    c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    c.diagnostics(uri)
    after = c.call("torchlint/stats")["result"]["rssKiB"]
    print("close frees: RSS %d KiB before, %d KiB with the document, %d KiB after closing it" % (before, held, after))
    check("close frees: the document held over 40 MiB", held - before > 40 * 1024, (before, held))
    check("close frees: RSS back within 16 MiB of before", after - before < 16 * 1024, (before, held, after))
    check("shutdown + exit: status 0", c.close() == 0)
    # Many small documents add up as one large one does: 300 of 40
    # functions each, analysed, then all closed (before, the RSS stayed
    # where they had taken it, over a heap back near its start).
    c = server()
    c.initialize(root_uri=uri_of(tmp))
    before = c.call("torchlint/stats")["result"]["rssKiB"]
    text = "import torch\n" + "".join(
        "def f%d(model, loader, opt):\n    for x, y in loader:\n        loss = model(x).sum()\n"
        "        loss.backward()\n        opt.step()\n" % i for i in range(40))
    uris = [uri_of(os.path.join(tmp, "small%d.py" % i)) for i in range(300)]
    for u in uris:
        open_doc(c, u, text)
    for u in uris:
        c.diagnostics(u, timeout=60)
    held = c.call("torchlint/stats")["result"]["rssKiB"]
    for u in uris:
        c.notify("textDocument/didClose", {"textDocument": {"uri": u}})
    for u in uris:
        c.diagnostics(u)
    # The worker gives memory back on its first idle turn after the
    # closes, which a loaded machine may reach after the first stats call:
    # asked again for up to 10 s.
    deadline = time.time() + 10
    while True:
        st = c.call("torchlint/stats")["result"]
        after = st["rssKiB"]
        if after - before < 16 * 1024 or time.time() > deadline:
            break
        time.sleep(0.2)
    print("close frees, 300 small documents: RSS %d KiB before, %d KiB with them, %d KiB after closing them (heap %d bytes)"
          % (before, held, after, st["heapBytes"]))
    check("close frees: 300 small documents held over 40 MiB", held - before > 40 * 1024, (before, held))
    check("close frees: 300 small documents closed, RSS back within 16 MiB of before",
          after - before < 16 * 1024, (before, held, after))
    check("shutdown + exit: status 0", c.close() == 0)


def test_code_actions(tmp):
    path = os.path.join(tmp, "act.py")
    uri = uri_of(path)
    text = TRAIN.replace("        total += loss\n", "        total += loss  # keep: é🔥\n") \
                .replace("        opt.step()\n", "        opt.step()  # noqa: TL101\n")
    text += 'note = f"""{torch.load("x.pt")}\nmore"""\n'
    c = server()
    c.initialize(root_uri=uri_of(tmp), options={"torchlint": {"torchVersion": "2.4", "extendSelect": ["TL101"]}})
    open_doc(c, uri, text)
    d = c.diagnostics(uri, version=1)
    codes = {x["code"] for x in d}
    check("code actions: starting findings", {"TL101", "TL201"} <= codes, got(d))
    v = 1

    def action_for(code):
        x = [x for x in c_diags[0] if x["code"] == code][0]
        r = c.call("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": x["range"],
                                               "context": {"diagnostics": [x]}})
        return [a for a in r["result"] if code in a["title"] and a["title"].startswith("Suppress")]

    c_diags = [d]
    for code, expect_line_end in (("TL101", "# keep: é🔥  # noqa: TL101"), ("TL201", "# noqa: TL101, TL201")):
        acts = action_for(code)
        check("code action offered for %s" % code, len(acts) == 1 and acts[0]["kind"] == "quickfix", acts)
        if not acts:
            continue
        edits = acts[0]["edit"]["changes"][uri]
        for e in sorted(edits, key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]), reverse=True):
            text = apply(text, {"range": e["range"], "text": e["newText"]})
        check("noqa edit for %s: `%s`" % (code, expect_line_end), expect_line_end in text, text)
        v += 1
        change(c, uri, v, [{"text": text}])
        c_diags[0] = c.diagnostics(uri, version=v)
        check("after the noqa edit %s is gone" % code, code not in {x["code"] for x in c_diags[0]}, got(c_diags[0]))
        check("after the noqa edit: the CLI agrees", got(c_diags[0]) == cli_expected(text, path, tmp, ["--torch-version", "2.4"]))
    # A finding inside a multi-line string's line: no comment can go at that
    # line's end, and the statement starts on the same line: no action.
    t501 = [x for x in c_diags[0] if x["code"] == "TL501"]
    check("TL501 in the f-string is reported (torch-version 2.4)", len(t501) == 1, got(c_diags[0]))
    if t501:
        r = c.call("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": t501[0]["range"], "context": {"diagnostics": []}})
        check("no noqa action where the line ends inside a string",
              [a for a in r["result"] if a["title"].startswith("Suppress")] == [], r)
    r = c.call("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": rng(0, 0, 0, 0),
                                           "context": {"diagnostics": [], "only": ["refactor"]}})
    check("code action with only=refactor: none", r["result"] == [], r)
    c.close()


FIXABLE = '''import torch
import torch.nn as nn

device = torch.device("cuda")
model = nn.Linear(4, 2)
weights = torch.ones(2)
weights.to(device)  # é🔥 before the fix
for p in model.parameters():
    p.require_grad = False
state = torch.load("model.pt")
'''


def cli_fixed(text, path, cwd, extra):
    """The text `torchlint --fix` makes of `text` (standard input) as `path`."""
    p = subprocess.run([BIN, "-q", "--isolated", "--stdin-filename", path] + OPT_IN + list(extra) + ["--fix", "-"],
                       input=text.encode("utf-8"), capture_output=True, cwd=cwd)
    return p.stdout.decode("utf-8")


def apply_edits(text, edits):
    for e in sorted(edits, key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]), reverse=True):
        text = apply(text, {"range": e["range"], "text": e["newText"]})
    return text


def test_fix_actions(tmp):
    """Rule fixes as quickfixes and source.fixAll.torchlint; the CLI's --fix is the oracle."""
    path = os.path.join(tmp, "fixme.py")
    uri = uri_of(path)
    c = server()
    c.initialize(root_uri=uri_of(tmp), options={"torchlint": {"torchVersion": "2.4", "extendSelect": ["TL101"]}})
    open_doc(c, uri, FIXABLE)
    d = c.diagnostics(uri, version=1)
    codes = {x["code"] for x in d}
    check("fix actions: starting findings", {"TL206", "TL211", "TL501"} <= codes, got(d))

    def actions(x, only=None):
        ctx = {"diagnostics": [x] if x else []}
        if only:
            ctx["only"] = only
        r = c.call("textDocument/codeAction", {"textDocument": {"uri": uri},
                                               "range": x["range"] if x else rng(0, 0, 0, 0), "context": ctx})
        return r["result"]

    for code, safe in (("TL206", True), ("TL211", True), ("TL501", False)):
        x = [x for x in d if x["code"] == code][0]
        fixes = [a for a in actions(x) if a["title"].startswith("Fix " + code)]
        check("fix action offered for %s" % code, len(fixes) == 1 and fixes[0]["kind"] == "quickfix", actions(x))
        if not fixes:
            continue
        a = fixes[0]
        check("%s fix: preferred exactly when safe" % code, a.get("isPreferred", False) == safe, a)
        check("%s fix: unsafe says so in its title" % code, ("unsafe" in a["title"]) == (not safe), a["title"])
        check("%s fix: names its diagnostic" % code, a["diagnostics"] and a["diagnostics"][0]["code"] == code, a)
        fixed = apply_edits(FIXABLE, a["edit"]["changes"][uri])
        # The oracle: --fix with only this rule (and --unsafe-fixes for an unsafe one).
        want = cli_fixed(FIXABLE, path, tmp, ["--torch-version", "2.4", "--select", code] +
                         ([] if safe else ["--unsafe-fixes"]))
        check("%s fix: the document becomes what --fix makes of it" % code, fixed == want, (fixed, want))
    # only=["quickfix"]: no fix-all; only=["source.fixAll"]: the fix-all alone.
    x = [x for x in d if x["code"] == "TL206"][0]
    check("only=quickfix: no source action", all(a["kind"] == "quickfix" for a in actions(x, ["quickfix"])))
    fa = actions(None, ["source.fixAll"])
    check("source.fixAll: one action of kind source.fixAll.torchlint",
          len(fa) == 1 and fa[0]["kind"] == "source.fixAll.torchlint", fa)
    if fa:
        fixed = apply_edits(FIXABLE, fa[0]["edit"]["changes"][uri])
        want = cli_fixed(FIXABLE, path, tmp, ["--torch-version", "2.4"])
        check("source.fixAll: the safe fixes, as --fix makes them", fixed == want, (fixed, want))
        check("source.fixAll: the unsafe TL501 fix is not applied", "weights_only" not in fixed, fixed)
        change(c, uri, 2, [{"text": fixed}])
        d2 = c.diagnostics(uri, version=2)
        check("after fix-all: only TL501 is left", {x["code"] for x in d2} == {"TL501"}, got(d2))
        check("after fix-all: nothing more to fix safely", actions(None, ["source.fixAll.torchlint"]) == [])
    # A document with a byte-order mark: the edits land where the finding is.
    bom_uri = uri_of(os.path.join(tmp, "bom.py"))
    open_doc(c, bom_uri, "\ufeff" + FIXABLE)
    db = c.diagnostics(bom_uri, version=1)
    x = [x for x in db if x["code"] == "TL206"]
    if x:
        r = c.call("textDocument/codeAction", {"textDocument": {"uri": bom_uri}, "range": x[0]["range"],
                                               "context": {"diagnostics": [x[0]]}})
        fixes = [a for a in r["result"] if a["title"].startswith("Fix TL206")]
        fixed = apply_edits("\ufeff" + FIXABLE, fixes[0]["edit"]["changes"][bom_uri]) if fixes else ""
        check("BOM: the TL206 fix edits the right bytes", "weights = weights.to(device)" in fixed, fixed)
    else:
        check("BOM: TL206 reported", False, got(db))
    check("shutdown + exit: status 0", c.close() == 0)
    # Fix on save right after a keystroke: source.fixAll for a text whose
    # analysis is still due waits for it (without the debounce, here 3 s)
    # and fixes the text the editor holds, not the one last published.
    c = server(debounce=3000)
    c.initialize(root_uri=uri_of(tmp), options={"torchlint": {"torchVersion": "2.4", "extendSelect": ["TL101"]}})
    open_doc(c, uri, FIXABLE)
    c.diagnostics(uri, version=1)
    edited = "# saved right after this line was typed\n" + FIXABLE
    change(c, uri, 2, [{"range": rng(0, 0, 0, 0), "text": "# saved right after this line was typed\n"}])
    t0 = time.monotonic()
    r = c.call("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": rng(0, 0, 0, 0),
                                           "context": {"diagnostics": [], "only": ["source.fixAll"]}})
    took = time.monotonic() - t0
    fa = r.get("result") or []
    fixed = apply_edits(edited, fa[0]["edit"]["changes"][uri]) if fa else ""
    want = cli_fixed(edited, path, tmp, ["--torch-version", "2.4"])
    check("fix on save after an edit: the fixes of the text held now (%.2f s, debounce 3 s)" % took,
          fixed == want and took < 2.5, (took, fixed, want))
    published = [m for m in c.pending if m.get("method") == "textDocument/publishDiagnostics"
                 and m["params"].get("version") == 2]
    check("fix on save after an edit: answered after that text's diagnostics", len(published) == 1, c.pending)
    check("shutdown + exit: status 0", c.close() == 0)


def test_memory_and_latency(tmp):
    """10,000 edits: heap in use and RSS must not grow; and the time of a
    re-analysis of a 1,000-line file (printed, with a loose bound)."""
    lines = []
    for f in sorted(os.listdir(os.path.join(ROOT, "corpus", "scripts"))):
        if f.endswith(".py"):
            lines += open(os.path.join(ROOT, "corpus", "scripts", f), encoding="utf-8").read().splitlines(True)
    text = "".join(lines[:1000])
    path = os.path.join(tmp, "big.py")
    uri = uri_of(path)
    c = server()
    c.initialize(root_uri=uri_of(tmp))
    open_doc(c, uri, text)
    c.diagnostics(uri, version=1)
    # Latency: one keystroke, then its deletion, 100 times; server-side timers.
    wall, cpu, seen = [], [], []
    line = 500
    for v in range(2, 12 if QUICK else 202):
        if v % 2 == 0:
            ch = {"range": rng(line, 8, line, 8), "text": "x"}
        else:
            ch = {"range": rng(line, 8, line, 9), "text": ""}
        t0 = time.monotonic()
        change(c, uri, v, [ch])
        c.diagnostics(uri, version=v)
        seen.append((time.monotonic() - t0) * 1000)
        st = c.call("torchlint/stats")["result"]
        wall.append(st["lastMs"])
        cpu.append(st["lastCpuMs"])
    wall.sort()
    cpu.sort()
    seen.sort()
    med_wall, med_cpu = wall[len(wall) // 2], cpu[len(cpu) // 2]
    print("latency: re-analysis of a %d-line file after a one-character edit, server time over 200 edits: "
          "median %.2f ms (p90 %.2f, max %.2f) wall, median %.2f ms CPU; the client saw the diagnostics "
          "a median %.2f ms (p90 %.2f) after sending the edit" %
          (st["lastLines"], med_wall, wall[int(len(wall) * 0.9)], wall[-1], med_cpu,
           seen[len(seen) // 2], seen[int(len(seen) * 0.9)]))
    c.close()
    if QUICK:
        return  # a sanitizer's or valgrind's timings say nothing
    check("latency: median CPU time under 100 ms (loose bound; see the printed numbers)", med_cpu < 100, med_cpu)
    # Memory: 10,000 edits (in batches of 5, each batch analysed) of a training script.
    text = open(os.path.join(ROOT, "examples", "train_cifar.py"), encoding="utf-8").read()
    c = server()
    c.initialize(root_uri=uri_of(tmp))
    uri = uri_of(os.path.join(tmp, "mem.py"))
    open_doc(c, uri, text)
    c.diagnostics(uri, version=1)
    samples = {}
    v = 1
    rnd = random.Random(5)
    for n in range(1, 10001):
        v += 1
        line = rnd.randrange(20, 120)
        if n % 2:
            ch = {"range": rng(line, 0, line, 0), "text": "# edit %d é🔥\n" % n}
        else:
            ch = {"range": rng(line, 0, line + 1, 0), "text": ""}
        change(c, uri, v, [ch])
        if n % 5 == 0:
            c.diagnostics(uri, version=v)
        if n in (1000, 5000, 10000):
            samples[n] = c.call("torchlint/stats")["result"]
    print("memory over 10,000 edits: heap in use %s bytes, RSS %s KiB (after 1,000 / 5,000 / 10,000 edits; %d analyses)" %
          (" / ".join(str(samples[k]["heapBytes"]) for k in (1000, 5000, 10000)),
           " / ".join(str(samples[k]["rssKiB"]) for k in (1000, 5000, 10000)), samples[10000]["analyses"]))
    growth = samples[10000]["heapBytes"] - samples[1000]["heapBytes"]
    check("memory: heap in use grows < 64 KiB from edit 1,000 to 10,000", growth < 65536, samples)
    rss = samples[10000]["rssKiB"] - samples[1000]["rssKiB"]
    check("memory: RSS grows < 1 MiB from edit 1,000 to 10,000", rss < 1024, samples)
    check("shutdown + exit: status 0", c.close() == 0)


PROJ_TRAIN = '''import torch
import torch.nn as nn
from losses import make_loss


def train(loader):
    model = nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    total = 0.0
    for x, y in loader:
        opt.zero_grad()
        total += make_loss(model(x), y)
        opt.step()
'''
LOSS_GRAPH = "import torch.nn.functional as F\n\n\ndef make_loss(a, b):\n    return F.cross_entropy(a, b)\n"
LOSS_ITEM = "import torch.nn.functional as F\n\n\ndef make_loss(a, b):\n    return F.cross_entropy(a, b).item()\n"


def test_project(tmp):
    """An open document's diagnostics follow the modules it imports: on
    disk, as another open document holds it, and after that document
    changes or closes, or the file changes on disk."""
    open(os.path.join(tmp, "pyproject.toml"), "w").close()
    train_path, loss_path = os.path.join(tmp, "train.py"), os.path.join(tmp, "losses.py")
    with open(loss_path, "w") as f:
        f.write(LOSS_ITEM)
    c = server()
    c.initialize(root_uri=uri_of(tmp))
    turi, luri = uri_of(train_path), uri_of(loss_path)
    open_doc(c, turi, PROJ_TRAIN)
    d = c.diagnostics(turi, version=1)
    check("project: a helper returning a number on disk: nothing", not d, got(d))
    # The module opened with a loss that keeps its graph: train.py again.
    open_doc(c, luri, LOSS_GRAPH)
    d = c.diagnostics(turi, version=1)
    check("project: the open module's text counts", [x["code"] for x in d] == ["TL101"], got(d))
    change(c, luri, 2, [{"text": LOSS_ITEM}])
    d = c.diagnostics(turi, version=1)
    check("project: an edit of the module re-analyses the importer", not d, got(d))
    change(c, luri, 3, [{"text": LOSS_GRAPH}])
    d = c.diagnostics(turi, version=1)
    check("project: and back", [x["code"] for x in d] == ["TL101"], got(d))
    # Closed: the file on disk (a number) counts again.
    c.notify("textDocument/didClose", {"textDocument": {"uri": luri}})
    d = c.diagnostics(turi, version=1)
    check("project: closing the module goes back to the file", not d, got(d))
    # Changed on disk, as a file watcher reports it.
    with open(loss_path, "w") as f:
        f.write(LOSS_GRAPH)
    c.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": luri, "type": 2}]})
    d = c.diagnostics(turi, version=1)
    check("project: a module changed on disk", [x["code"] for x in d] == ["TL101"], got(d))
    c.close()


SOFTMAX_MODEL = """import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return F.softmax(self.fc(x), dim=1)
"""
FIT = """import torch
import torch.nn as nn


def fit(classifier, loader):
    crit = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(classifier.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        loss = crit(classifier(x), y)
        loss.backward()
        opt.step()
"""
IMPORTER = "import model\nimport train\n\ntrain.fit(model.Net(), [])\n"


def test_project_scan(tmp):
    """The scan for the modules that import a document walks as the CLI
    does (configured excludes, .gitignore), once: an edit of a loaded
    module updates it in place; and exit is answered within a second while
    a module the document imports is being loaded."""
    with open(os.path.join(tmp, "pyproject.toml"), "w") as f:
        f.write('[tool.torchlint]\nextend-exclude = ["tools"]\n')
    for name, text in (("model.py", SOFTMAX_MODEL), ("train.py", FIT), ("tools/main.py", IMPORTER)):
        os.makedirs(os.path.dirname(os.path.join(tmp, name)), exist_ok=True)
        with open(os.path.join(tmp, name), "w") as f:
            f.write(text)
    turi, muri = uri_of(os.path.join(tmp, "train.py")), uri_of(os.path.join(tmp, "model.py"))
    c = server()
    c.initialize(root_uri=uri_of(tmp))
    open_doc(c, turi, FIT)
    d = c.diagnostics(turi, version=1)
    check("scan: an importer in a folder the configuration excludes is not read", not d, got(d))
    c.close()
    # The same importer in a folder .gitignore ignores; then read once
    # nothing ignores it.
    with open(os.path.join(tmp, "pyproject.toml"), "w") as f:
        f.write("")
    os.makedirs(os.path.join(tmp, ".git"), exist_ok=True)
    with open(os.path.join(tmp, ".gitignore"), "w") as f:
        f.write("tools/\n")
    c = server()
    c.initialize(root_uri=uri_of(tmp))
    open_doc(c, turi, FIT)
    d = c.diagnostics(turi, version=1)
    check("scan: an importer in a folder .gitignore ignores is not read", not d, got(d))
    c.close()
    os.remove(os.path.join(tmp, ".gitignore"))
    c = server()
    c.initialize(root_uri=uri_of(tmp))
    open_doc(c, turi, FIT)
    d = c.diagnostics(turi, version=1)
    check("scan: the importer read when nothing excludes it", [x["code"] for x in d] == ["TL208"], got(d))
    scans = c.call("torchlint/stats")["result"].get("projectScans")
    check("scan: one walk for the first analysis", scans == 1, scans)
    # Edits of a loaded module (model.py, read for context): the importer
    # is analysed again each time, the folder is not walked again.
    open_doc(c, muri, SOFTMAX_MODEL)
    for v in range(2, 6):
        text = SOFTMAX_MODEL + "\n" * v
        change(c, muri, v, [{"text": text}])
        c.diagnostics(muri, version=v)
        d = c.diagnostics(turi, version=1)
    check("scan: after 4 edits of a loaded module, TL208 still", [x["code"] for x in d] == ["TL208"], got(d))
    scans = c.call("torchlint/stats")["result"].get("projectScans")
    check("scan: edits of a loaded module walk nothing again (walks: %s)" % scans, scans == 1, scans)
    check("shutdown + exit: status 0", c.close() == 0)
    # exit while the document's analysis loads a module whose build is
    # long: the build reads the cancel flag too, and the server leaves
    # within a second (before: after the whole build).
    user = ("import torch\nimport torch.nn as nn\nfrom big import train as run\n\n\ndef main(loader):\n"
            "    model = nn.Linear(4, 2)\n    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
            "    hist = []\n    for x, y in loader:\n        opt.zero_grad()\n"
            "        hist.append(run(model, loader, opt))\n        opt.step()\n")
    with open(os.path.join(tmp, "user.py"), "w") as f:
        f.write(user)
    n = 3000
    while True:
        with open(os.path.join(tmp, "big.py"), "w") as f:
            f.write(reloops(n))
        t0 = time.monotonic()
        subprocess.run([BIN, "-q", os.path.join(tmp, "user.py")], capture_output=True)
        whole = time.monotonic() - t0
        if whole >= 1.5 or n >= 48000:
            break
        n *= 2
    c = server()
    c.initialize(root_uri=uri_of(tmp))
    open_doc(c, uri_of(os.path.join(tmp, "user.py")), user)
    time.sleep(0.3)
    t0 = time.monotonic()
    c.notify("exit")
    status = c.proc.wait(60)
    took = time.monotonic() - t0
    print("exit while an imported module loads: left in %.2f s (the CLI's run: %.1f s, %d loops)" % (took, whole, n))
    check("exit while an imported module loads: left in %.2f s (the CLI's run: %.1f s, %d loops)"
          % (took, whole, n), took < 1.0 and whole > 1.3, (took, whole, status))


def settle(c, timeout=60.0, every=None):
    """Waits until the server has no analysis due or running (the stats'
    `pending`), then returns the diagnostics last published per URI among
    the messages received since the previous call (and appends each
    publication to every[uri] when `every` is a dict)."""
    deadline = time.monotonic() + timeout * float(os.environ.get("TORCHLINT_TIMEOUT_SCALE", "1"))
    while True:
        r = c.call("torchlint/stats", timeout=timeout)["result"]
        if "pending" not in r:
            time.sleep(3.0)  # a server without the count: let it finish
            break
        if r["pending"] == 0:
            break
        if time.monotonic() > deadline:
            raise TimeoutError("analyses still pending after %.0f s" % timeout)
        time.sleep(0.02)
    last = {}
    msgs, c.pending = c.pending, []
    while True:
        try:
            m = c.messages.get_nowait()
        except Exception:
            break
        if m is None:
            c.messages.put(None)
            break
        msgs.append(m)
    for m in msgs:
        if m.get("method") == "textDocument/publishDiagnostics":
            last[m["params"]["uri"]] = m["params"]["diagnostics"]
            if every is not None:
                every.setdefault(m["params"]["uri"], []).append(m["params"]["diagnostics"])
    return last


def cli_project(root):
    """{path relative to root: sorted (code, start, end, message)} the CLI
    reports for every file of the project at `root`, run from there."""
    p = subprocess.run([BIN, "--format", "json", "-q", "."], capture_output=True, cwd=root)
    out = {}
    for f in json.loads(p.stdout.decode("utf-8") or "[]"):
        with open(os.path.join(root, f["path"]), encoding="utf-8") as fh:
            text = fh.read()
        s = (f["start"]["line"] - 1, utf16_col(text, f["start"]["line"], f["start"]["column"]))
        e = (f["end"]["line"] - 1, utf16_col(text, f["end"]["line"], f["end"]["column"]))
        out.setdefault(os.path.normpath(f["path"]), []).append((f["code"], s, e, f["message"]))
    return {k: sorted(v) for k, v in out.items()}


SAME_AS_CLI = ["nograd_callsites", "nograd_decorator", "epoch_shuffler", "eval_pass_module"]


def test_project_same_as_cli(tmp):
    """With every file of a project open and the buffers equal to the files
    on disk, the server reports for each document what the CLI reports for
    that file: the same entry contexts (grad mode over call sites in other
    modules, arguments bound at call sites, epochs set by importers)."""
    import shutil
    for name in SAME_AS_CLI:
        root = os.path.join(tmp, name)
        shutil.copytree(os.path.join(ROOT, "corpus", "projects", name), root)
        want = cli_project(root)
        check("same as the CLI: %s: the CLI reports something" % name, any(want.values()), want)
        files = sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root)
                       for f in fs if f.endswith(".py"))
        c = server()
        c.initialize(root_uri=uri_of(root))
        for rel in files:
            with open(os.path.join(root, rel), encoding="utf-8") as fh:
                open_doc(c, uri_of(os.path.join(root, rel)), fh.read())
        last = settle(c)
        for rel in files:
            d = last.get(uri_of(os.path.join(root, rel)))
            check("same as the CLI: %s/%s published" % (name, rel), d is not None)
            check("same as the CLI: %s/%s" % (name, rel), got(d or []) == want.get(rel, []),
                  (got(d or []), want.get(rel, [])))
        check("same as the CLI: %s: shutdown + exit: status 0" % name, c.close() == 0)


CALLEE = """import torch


def evaluate(model, loader):
    correct = 0
    for x, y in loader:
        out = model(x)
        correct += (out.argmax(1) == y).sum().item()
    model.train()
    return correct
"""
CALLER = """import torch
import torch.nn as nn
import torch.nn.functional as F

from callee import evaluate


def main(train_loader, val_loader, epochs):
    model = nn.Sequential(nn.Linear(16, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        acc = evaluate(model, val_loader)
"""
CALLER_NOGRAD = CALLER.replace("        acc = evaluate(model, val_loader)\n",
                               "        with torch.no_grad():\n            acc = evaluate(model, val_loader)\n")


def test_project_callers(tmp):
    """An edit of a caller in another open module re-analyses the callee's
    document: `evaluate` runs a model with gradients on (TL102) unless its
    one call site, in caller.py (open, never saved), is under no_grad."""
    open(os.path.join(tmp, "pyproject.toml"), "w").close()
    callee, caller = os.path.join(tmp, "callee.py"), os.path.join(tmp, "caller.py")
    with open(callee, "w") as f:
        f.write(CALLEE)
    with open(caller, "w") as f:
        f.write(CALLER)
    cli = cli_project(tmp)
    check("callers: the CLI flags evaluate's forward", [x[0] for x in cli.get("callee.py", [])] == ["TL102"], cli)
    with open(caller, "w") as f:
        f.write(CALLER_NOGRAD)
    cli = cli_project(tmp)
    check("callers: the CLI does not once the call is under no_grad", not cli.get("callee.py"), cli)
    with open(caller, "w") as f:
        f.write(CALLER)
    euri, ruri = uri_of(callee), uri_of(caller)
    c = server(debounce=50)
    c.initialize(root_uri=uri_of(tmp))
    open_doc(c, euri, CALLEE)
    open_doc(c, ruri, CALLER)
    last = settle(c)
    check("callers: flagged while the caller calls it with gradients on",
          [x["code"] for x in last.get(euri, [])] == ["TL102"], last)
    before = c.call("torchlint/stats")["result"]["analyses"]
    # The caller edited, not saved: the callee's diagnostics are published again.
    change(c, ruri, 2, [{"text": CALLER_NOGRAD}])
    last = settle(c)
    check("callers: an edit of the caller republishes the callee", euri in last, sorted(last))
    check("callers: unflagged once its call is under no_grad (unsaved)", not last.get(euri), last)
    after = c.call("torchlint/stats")["result"]["analyses"]
    check("callers: one edit, two analyses (the caller, the callee): %d" % (after - before),
          after - before == 2, after - before)
    change(c, ruri, 3, [{"text": CALLER}])
    last = settle(c)
    check("callers: and flagged again", [x["code"] for x in last.get(euri, [])] == ["TL102"], last)
    # What did not change is kept: an edit of the caller's body parses the
    # caller's module again, and no other (the callee's is indexed again
    # on its kept parse: its entry contexts read the caller).
    st = c.call("torchlint/stats")["result"]
    change(c, ruri, 4, [{"text": CALLER + "\n# a comment\n"}])
    last = settle(c)
    st2 = c.call("torchlint/stats")["result"]
    check("callers: a body edit parses one module again (%s -> %s)"
          % (st.get("projectParses"), st2.get("projectParses")),
          st2.get("projectParses", 0) - st.get("projectParses", -9) == 1, (st, st2))
    check("callers: and is still flagged", [x["code"] for x in last.get(euri, [])] == ["TL102"], last)
    change(c, ruri, 5, [{"text": CALLER}])
    settle(c)
    # Both edited at once (the callee first in the server's list): the
    # callee's analysis reads the caller's new text, and no publication of
    # the callee shows the old caller's finding.
    every = {}
    change(c, euri, 2, [{"text": CALLEE + "\n"}])
    change(c, ruri, 6, [{"text": CALLER_NOGRAD}])
    last = settle(c, every=every)
    check("callers: both edited: the callee published once, unflagged",
          every.get(euri) == [[]], every.get(euri))
    change(c, euri, 3, [{"text": CALLEE}])
    change(c, ruri, 7, [{"text": CALLER}])
    settle(c)
    # A third document that neither imports nor is imported by caller.py is
    # not analysed again when it changes.
    other = os.path.join(tmp, "other.py")
    with open(other, "w") as f:
        f.write(TRAIN)
    open_doc(c, uri_of(other), TRAIN)
    settle(c)
    change(c, ruri, 8, [{"text": CALLER_NOGRAD}])
    last = settle(c)
    check("callers: an unrelated open document is not republished", uri_of(other) not in last, sorted(last))
    check("callers: the callee is", euri in last and not last[euri], last)
    # Closing the caller: the file on disk (gradients on) counts again.
    c.notify("textDocument/didClose", {"textDocument": {"uri": ruri}})
    last = settle(c)
    check("callers: closing the caller goes back to its file",
          [x["code"] for x in last.get(euri, [])] == ["TL102"], last)
    check("callers: shutdown + exit: status 0", c.close() == 0)
    # A caller that did not import the callee starts to (its import lines
    # change): the callee's importers are found again.
    bare = CALLER.replace("from callee import evaluate\n", "").replace(
        "        acc = evaluate(model, val_loader)\n", "")
    with open(caller, "w") as f:
        f.write(bare)
    c = server(debounce=50)
    c.initialize(root_uri=uri_of(tmp))
    open_doc(c, euri, CALLEE)
    open_doc(c, ruri, bare)
    last = settle(c)
    check("callers: no caller, nothing reported", not last.get(euri), last)
    change(c, ruri, 2, [{"text": CALLER}])
    last = settle(c)
    check("callers: a new import of the callee, with gradients on, flags it",
          [x["code"] for x in last.get(euri, [])] == ["TL102"], last)
    change(c, ruri, 3, [{"text": bare}])
    last = settle(c)
    check("callers: and the import removed, not", euri in last and not last[euri], last)
    check("callers: shutdown + exit: status 0", c.close() == 0)


def test_project_untitled(tmp):
    """Documents that are no local file (untitled buffers, which share one
    stand-in path) stand for no module: an edit of one re-analyses no other
    open document."""
    open(os.path.join(tmp, "pyproject.toml"), "w").close()
    with open(os.path.join(tmp, "train.py"), "w") as f:
        f.write(TRAIN)
    c = server(debounce=20)
    c.initialize(root_uri=uri_of(tmp))
    turi = uri_of(os.path.join(tmp, "train.py"))
    open_doc(c, turi, TRAIN)
    open_doc(c, "untitled:Untitled-1", "import torch\nx = torch.zeros(2)\n")
    open_doc(c, "untitled:Untitled-2", "import numpy\ny = 1\n")
    settle(c)
    for v in range(2, 5):
        change(c, "untitled:Untitled-1", v, [{"text": "import torch\nx = torch.zeros(%d)\n" % v}])
        last = settle(c)
        check("untitled: edit %d publishes the edited document" % v, "untitled:Untitled-1" in last, sorted(last))
        check("untitled: edit %d re-analyses no other document" % v, sorted(last) == ["untitled:Untitled-1"],
              sorted(last))
    check("untitled: shutdown + exit: status 0", c.close() == 0)


def main():
    tests = [test_lifecycle_and_bad_input, test_diagnostics, test_utf16_and_incremental, test_debounce,
             test_config, test_notebooks, test_hostile_numbers, test_stale_analysis, test_responsive, test_close_frees, test_code_actions, test_fix_actions,
             test_memory_and_latency, test_project, test_project_scan,
             test_project_same_as_cli, test_project_callers, test_project_untitled]
    only = [a for a in sys.argv[2:] if a.startswith("test_")]
    for t in tests:
        if only and t.__name__ not in only:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            try:
                t(os.path.realpath(tmp))
            except Exception as e:  # a hang or crash fails the test, not the run
                import traceback
                traceback.print_exc()
                check(t.__name__ + " ran to the end", False, repr(e))
    print("lsp: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
