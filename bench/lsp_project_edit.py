#!/usr/bin/env python3
"""A re-analysis round in a project: starts `torchlint server` with no
debounce, opens several files of a project where they lie, waits for their
diagnostics, then edits one of them (a trailing comment on a code line of
its body, changed each time: its import lines stay the same) and times,
per edit, didChange -> the last publishDiagnostics the edit caused (the
edited document's and those of the other open documents whose analyses
read it). The end of a round is the first second with no publication.
Prints a JSON object: per-round wall times (median, p90), publications per
round, and the server's own counters per round (analyses, their summed
time, modules parsed when the server reports it).

With --all, a round ends as soon as every open document has been
published again since the edit (no quiet second: for timing the whole
process, when every open document reads the edited one, as it does in a
project whose modules import each other).

usage: lsp_project_edit.py TORCHLINT ROOT --open FILE... --edit FILE [--edits N] [--all]
(FILEs relative to ROOT; the edited file is opened too)."""

import argparse
import json
import os
import queue
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lsp"))
import lspclient  # noqa: E402

QUIET = 1.0


def uri_of(path):
    return "file://" + path


def publications(c, until_quiet):
    """(count, time of the last) of the publications received until none
    arrives for `until_quiet` seconds."""
    n, last = 0, None
    while True:
        try:
            m = c.messages.get(timeout=until_quiet)
        except queue.Empty:
            return n, last
        if m is None:
            raise EOFError("the server closed its output")
        if m.get("method") == "textDocument/publishDiagnostics":
            n += 1
            last = time.monotonic()


def all_published(c, uris):
    """(count, time of the last) of the publications received until every
    one of `uris` has been published."""
    n, last, left = 0, None, set(uris)
    while left:
        m = c.messages.get(timeout=120)
        if m is None:
            raise EOFError("the server closed its output")
        if m.get("method") == "textDocument/publishDiagnostics":
            n += 1
            last = time.monotonic()
            left.discard(m["params"]["uri"])
    return n, last


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("torchlint")
    ap.add_argument("root")
    ap.add_argument("--open", nargs="+", default=[])
    ap.add_argument("--edit", required=True)
    ap.add_argument("--edits", type=int, default=11)
    ap.add_argument("--all", action="store_true")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    files = [f for f in a.open if f != a.edit] + [a.edit]
    c = lspclient.Client([os.path.abspath(a.torchlint), "server", "--debounce-ms", "0"], cwd=root)
    c.initialize(root_uri=uri_of(root))
    texts = {}
    t0 = time.monotonic()
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8") as fh:
            texts[f] = fh.read()
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri_of(os.path.join(root, f)),
                                                           "languageId": "python", "version": 1,
                                                           "text": texts[f]}})
    if a.all:
        n, last = all_published(c, [uri_of(os.path.join(root, f)) for f in files])
        publications(c, QUIET)  # and what they made due
    else:
        n, last = publications(c, 3 * QUIET)
    open_s = (last - t0) if last else None
    lines = texts[a.edit].split("\n")
    mid = len(lines) // 2
    target = next(i for i in range(mid, len(lines))
                  if lines[i].strip() and not lines[i].lstrip().startswith(("#", "@", '"', "'", "import", "from"))
                  and not lines[i].rstrip().endswith(("\\", ",", "(", "[", "{", ":")))
    col = len(lines[target])
    uri = uri_of(os.path.join(root, a.edit))
    rounds, pubs, stats = [], [], []
    prev = 0
    before = c.call("torchlint/stats", timeout=60)["result"]
    for v in range(2, a.edits + 2):
        new = "  # e%d" % v
        change = {"range": {"start": {"line": target, "character": col},
                            "end": {"line": target, "character": col + prev}}, "text": new}
        prev = len(new)
        t = time.monotonic()
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v},
                                            "contentChanges": [change]})
        if a.all:
            n, last = all_published(c, [uri_of(os.path.join(root, f)) for f in files])
        else:
            n, last = publications(c, QUIET)
        rounds.append(((last or t) - t) * 1e3)
        pubs.append(n)
        after = c.call("torchlint/stats", timeout=60)["result"]
        stats.append({"analyses": after["analyses"] - before["analyses"],
                      "analysisMs": round(after["totalMs"] - before["totalMs"], 1),
                      "parses": (after["projectParses"] - before["projectParses"])
                      if "projectParses" in after else None})
        before = after
    c.close()
    rs = sorted(rounds)
    print(json.dumps({"root": a.root, "open": files, "edited": a.edit, "edited_line": target + 1,
                      "open_s": round(open_s, 3) if open_s else None,
                      "round_ms_median": round(statistics.median(rs), 1),
                      "round_ms_p90": round(rs[int(0.9 * (len(rs) - 1))], 1),
                      "publications_per_round": statistics.median(pubs),
                      "analyses_per_round": statistics.median(s["analyses"] for s in stats),
                      "analysis_ms_per_round": statistics.median(s["analysisMs"] for s in stats),
                      "parses_per_round": stats[-1]["parses"],
                      "rss_kib": before.get("rssKiB")}))


if __name__ == "__main__":
    main()
