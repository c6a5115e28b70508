#!/usr/bin/env python3
"""Which rules use each query predicate, and where its answer lives.

Reads analyzer/rules/predicates.c (the predicate table), queries/*.scm (the
rules' queries; comments skipped) and the analyzer's sources, and prints a
Markdown table: each predicate, the function that answers it (the table's
fact, or what its tl_pred_* wrapper calls), the file defining that
function, and the rules whose queries use the predicate; then the counts.
analyzer/rules/README.md holds its output ("Which rules use each
predicate"). Run from the repository root:

    python3 tools/predicate_rules.py
"""
import glob
import os
import re
import sys

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def main(root="."):
    src = COMMENT.sub("", open(os.path.join(root, "analyzer/rules/predicates.c"), encoding="utf-8").read())
    bodies = {m.group(1): m.group(2) for m in
              re.finditer(r"^static bool (tl_pred_\w+)\(.*?\)\n\{(.*?)^\}", src, re.M | re.S)}
    used = {}
    for path in sorted(glob.glob(os.path.join(root, "queries", "*.scm"))):
        rule = os.path.basename(path).split("-", 1)[0]
        text = "\n".join(l for l in open(path, encoding="utf-8").read().split("\n")
                         if not l.lstrip().startswith(";"))
        for m in re.finditer(r"#(?:not-)?([a-z0-9-]+)\?", text):
            used.setdefault(m.group(1), set()).add(rule)
    defined = {}
    for path in sorted(glob.glob(os.path.join(root, "analyzer", "**", "*.c"), recursive=True)):
        text = COMMENT.sub("", open(path, encoding="utf-8").read())
        for m in re.finditer(r"^(?!static\b)[a-zA-Z][\w \t*]*?\b(tl_\w+)\s*\([^;]*?\)\s*\{", text, re.M):
            defined.setdefault(m.group(1), os.path.relpath(path, os.path.join(root, "analyzer")))
    rows = []
    for m in re.finditer(r'^\t\{ "([a-z0-9-]+)", [^,]+, [^,]+, (\w+), (\w+),', src, re.M):
        pred, fn, fact = m.groups()
        if fact != "NULL":
            asks = [fact]
        else:
            asks = sorted(set(re.findall(r"\b(tl_(?:facts|check|index)_[a-z]\w*)\s*\(", bodies.get(fn, ""))))
        answer = ", ".join(f"`{a}`" for a in asks) or "(the table's own code)"
        files = ", ".join(sorted({defined.get(a, "?") for a in asks})) or "rules/predicates.c"
        rows.append((pred, answer, files, sorted(used.get(pred, ()))))
    out = ["| Predicate | Answered by | In | Rules |", "|---|---|---|---|"]
    for pred, answer, files, rules in rows:
        out.append(f"| `{pred}` | {answer} | {files} | {' '.join(rules) or '(none)'} |")
    one = [r for r in rows if len(r[3]) == 1]
    beside = [r for r in one if r[2].startswith("rules/checks/")]
    out.append("")
    out.append(f"{len(rows)} predicates: {len(one)} used by exactly one rule "
               f"({len(beside)} of them answered in rules/checks/, {len(one) - len(beside)} elsewhere), "
               f"{sum(1 for r in rows if len(r[3]) > 1)} by several, "
               f"{sum(1 for r in rows if not r[3])} by none.")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
