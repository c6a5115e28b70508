#!/usr/bin/env python3
"""The engine's layers (analyzer/README.md): every #include "dir/file.h" in
analyzer/ goes to the same folder or a lower layer, and no file reaches
itself through includes. A file is its .c and .h together (and its private
X_internal.h): a.c including b.h and b.c including a.h is a cycle between
the two, as between folders.
The semantic model's files (analyzer/model/) call no function of the facts
layer (tl_facts_*), so the two form no call cycle.
Rule logic (analyzer/rules/checks/TLnnn.c, analyzer/rules/checks/checks.h)
serves one rule: no file of a lower layer (the facts, the model) nor another
rule's file calls its functions (tl_check_*), and every predicate of
analyzer/rules/predicates.c that asks one of them is used by the queries of
that rule (queries/TLnnn-*.scm) and of no other.
Exits 1 and names each violation."""
import os
import re
import sys

LAYERS = ["base", "syntax", "model", "facts", "rules", "config", "project", "engine", "report", "server", "cli", "main"]
ROOT = sys.argv[1] if len(sys.argv) > 1 else "analyzer"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(rel):
    top = rel.split("/", 1)[0] if "/" in rel else "main"
    return top


def unit_of(rel):
    """A module is its .c and .h; its private header X_internal.h is part of X."""
    base = os.path.splitext(rel)[0]
    if base.endswith("_internal"):
        base = base[: -len("_internal")]
    return base


def main():
    errors = []
    edges = {}
    for dirpath, _, files in os.walk(ROOT):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, ROOT)
            layer = layer_of(rel)
            if layer not in LAYERS:
                errors.append(f"{path}: folder '{layer}' is not a layer ({', '.join(LAYERS)})")
                continue
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for m in INCLUDE.finditer(text):
                target = m.group(1)
                line = text.count("\n", 0, m.start()) + 1
                if "/" not in target:
                    errors.append(f"{path}:{line}: include \"{target}\" names no layer folder")
                    continue
                if not os.path.exists(os.path.join(ROOT, target)):
                    continue  # generated or outside analyzer/
                tl = layer_of(target)
                if LAYERS.index(tl) > LAYERS.index(layer):
                    errors.append(f"{path}:{line}: '{layer}' includes \"{target}\" from the higher layer '{tl}'")
                a, b = unit_of(rel), unit_of(target)
                if a != b:
                    edges.setdefault(a, set()).add(b)
    # Cycles between files (units), found with an iterative depth-first search.
    state = {}
    for start in sorted(edges):
        if state.get(start):
            continue
        stack = [(start, iter(sorted(edges.get(start, ()))))]
        path = [start]
        state[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
                continue
            s = state.get(nxt, 0)
            if s == 1:
                cyc = path[path.index(nxt):] + [nxt]
                errors.append("include cycle between files: " + " -> ".join(cyc))
            elif s == 0:
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, iter(sorted(edges.get(nxt, ())))))
    errors += model_calls(ROOT)
    checks, rule_errors = rule_logic(ROOT)
    errors += rule_errors
    for e in errors:
        print("check-layers: " + e)
    if errors:
        return 1
    print(f"check-layers: {len(edges)} files, includes only downward, no cycles; "
          f"the model calls nothing of the facts; {checks} rule-logic functions, each serving its rule only")
    return 0


CALL = re.compile(r"\b(tl_facts_\w+)\s*\(")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def model_calls(root):
    """The semantic model (analyzer/model/) is computed from the index and
    the API table only: the facts layer calls it, never the reverse, so the
    model's files and the facts files form no call cycle. Includes alone
    would let a file declare a facts function itself; this reads the calls.
    Each call of a tl_facts_* function in a model file is an error."""
    found = []
    folder = os.path.join(root, "model")
    if not os.path.isdir(folder):
        return found
    for name in sorted(os.listdir(folder)):
        if not name.endswith((".c", ".h")):
            continue
        path = os.path.join(folder, name)
        with open(path, encoding="utf-8") as f:
            text = COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), f.read())
        for m in CALL.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(f"{path}:{line}: the model calls {m.group(1)} of the facts layer "
                         "(the facts read the model, not the reverse)")
    return found


DEFINED = re.compile(r"^(?!static\b)[a-zA-Z][\w \t*]*?\b(tl_check_[a-z]\w*)\s*\([^;]*?\)\s*\{", re.M)
CHECK_CALL = re.compile(r"\b(tl_check_[a-z]\w*)\b")
RULE_FILE = re.compile(r"^(TL\d{3})\.c$")


def _code(path):
    with open(path, encoding="utf-8") as f:
        return COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), f.read())


def rule_logic(root):
    """Rule logic lives beside its rule, above the facts: the files under
    analyzer/rules/checks/ define tl_check_* functions, each in the file of
    the one rule it serves (TLnnn.c). Checked here: (1) no file outside
    rules/ calls a tl_check_* function (the facts and the model cannot
    depend on one rule's logic); (2) a rule's file calls no other rule's
    functions; (3) every predicate whose answer calls a rule's function is
    used, in queries/*.scm, by that rule's queries only. Returns the number
    of rule-logic functions and the errors."""
    found = []
    folder = os.path.join(root, "rules", "checks")
    owner = {}  # tl_check_ function -> rule code of its file
    if os.path.isdir(folder):
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if name.endswith(".h"):
                continue
            m = RULE_FILE.match(name)
            if not m:
                found.append(f"{path}: a rule-logic file is named for its rule (TLnnn.c)")
                continue
            for d in DEFINED.finditer(_code(path)):
                owner[d.group(1)] = m.group(1)
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            text = _code(path)
            mine = RULE_FILE.match(name).group(1) if rel.startswith("rules/checks/") and RULE_FILE.match(name) else None
            for m in CHECK_CALL.finditer(text):
                fn = m.group(1)
                line = text.count("\n", 0, m.start()) + 1
                if not rel.startswith("rules/"):
                    found.append(f"{path}:{line}: {fn} is one rule's logic (rules/checks/); "
                                 f"the layer '{layer_of(rel)}' may not call it")
                elif mine and fn in owner and owner[fn] != mine:
                    found.append(f"{path}:{line}: {mine}'s logic calls {fn} of {owner[fn]}: "
                                 "meaning two rules share belongs to the facts layer")
    found += _predicate_rules(root, owner)
    return len(owner), found


def _predicate_rules(root, owner):
    """Each predicate that asks a rule-logic function is used by that rule's
    queries and no other's."""
    found = []
    preds = os.path.join(root, "rules", "predicates.c")
    queries = os.path.join(root, "..", "queries")
    if not owner or not os.path.exists(preds) or not os.path.isdir(queries):
        return found
    text = _code(preds)
    bodies = {m.group(1): m.group(2) for m in
              re.finditer(r"^static bool (tl_pred_\w+)\(.*?\)\n\{(.*?)^\}", text, re.M | re.S)}
    used = {}
    for name in sorted(os.listdir(queries)):
        if not name.endswith(".scm"):
            continue
        rule = name.split("-", 1)[0]
        with open(os.path.join(queries, name), encoding="utf-8") as f:
            q = "\n".join(l for l in f.read().split("\n") if not l.lstrip().startswith(";"))
        for m in re.finditer(r"#(?:not-)?([a-z0-9-]+)\?", q):
            used.setdefault(m.group(1), set()).add(rule)
    for m in re.finditer(r'^\t\{ "([a-z0-9-]+)", [^,]+, [^,]+, (\w+), (\w+),', text, re.M):
        pred, fn, fact = m.groups()
        asks = {fact} if fact != "NULL" else set(CHECK_CALL.findall(bodies.get(fn, "")))
        for f in sorted(a for a in asks if a in owner):
            rules = used.get(pred, set())
            if rules != {owner[f]}:
                found.append(f"{preds}: the predicate '{pred}' asks {f} ({owner[f]}'s logic) but is used by "
                             f"{', '.join(sorted(rules)) or 'no query'}: a predicate of one rule's logic "
                             "serves that rule only")
    return found


if __name__ == "__main__":
    sys.exit(main())
