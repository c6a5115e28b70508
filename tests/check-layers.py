#!/usr/bin/env python3
"""The engine's layers (analyzer/README.md): every #include "dir/file.h" in
analyzer/ goes to the same folder or a lower layer, and no file reaches
itself through includes. A file is its .c and .h together (and its private
X_internal.h): a.c including b.h and b.c including a.h is a cycle between
the two, as between folders.
The semantic model's files (analyzer/model/) call no function of the facts
layer (tl_facts_*), so the two form no call cycle.
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
    for e in errors:
        print("check-layers: " + e)
    if errors:
        return 1
    print(f"check-layers: {len(edges)} files, includes only downward, no cycles; "
          "the model calls nothing of the facts")
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


if __name__ == "__main__":
    sys.exit(main())
