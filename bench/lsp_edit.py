#!/usr/bin/env python3
"""Server re-analysis latency after an edit: starts `torchlint server` with no
debounce, opens a file where it lies (so the project's modules it imports are
read for context, as in an editor), then makes one-character edits to a code
line, each a new version, and times didChange -> the publishDiagnostics of
that version. Prints a JSON object (median and p90 in ms, over --edits).

usage: lsp_edit.py TORCHLINT FILE [--edits N]"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lsp"))
import lspclient  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("torchlint")
    ap.add_argument("file")
    ap.add_argument("--edits", type=int, default=41)
    a = ap.parse_args()
    path = os.path.abspath(a.file)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    lines = text.split("\n")
    # The edit: a trailing comment on the middle code line, its text changed each time.
    mid = len(lines) // 2
    target = next(i for i in range(mid, len(lines))
                  if lines[i].strip() and not lines[i].lstrip().startswith(("#", "@", '"', "'"))
                  and not lines[i].rstrip().endswith(("\\", ",", "(", "[", "{")))
    col = len(lines[target])
    uri = "file://" + path
    c = lspclient.Client([os.path.abspath(a.torchlint), "server", "--debounce-ms", "0"],
                         cwd=os.path.dirname(path))
    c.initialize(root_uri="file://" + os.path.dirname(path))
    t0 = time.monotonic()
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                       "version": 1, "text": text}})
    first = c.diagnostics(uri, timeout=60, version=1)
    open_ms = (time.monotonic() - t0) * 1e3
    times = []
    prev = 0
    for v in range(2, a.edits + 2):
        new = "  # e%d" % v
        change = {"range": {"start": {"line": target, "character": col},
                            "end": {"line": target, "character": col + prev}}, "text": new}
        prev = len(new)
        t = time.monotonic()
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v},
                                            "contentChanges": [change]})
        c.diagnostics(uri, timeout=60, version=v)
        times.append((time.monotonic() - t) * 1e3)
    c.close()
    times.sort()
    print(json.dumps({"file": a.file, "lines": len(lines), "edited_line": target + 1,
                      "open_ms": round(open_ms, 1), "edits": len(times),
                      "diagnostics": len(first),
                      "median_ms": round(statistics.median(times), 2),
                      "p90_ms": round(times[int(len(times) * 0.9) - 1], 2),
                      "min_ms": round(times[0], 2)}))


if __name__ == "__main__":
    main()
