#!/usr/bin/env python3
"""Rule logic beside its rule, counted: which rules each query predicate and
each function of the facts layer serve, and where the logic of one rule
lives (analyzer/facts/ or analyzer/rules/checks/).

Reads queries/*.scm (which rules use each `#NAME?` / `#not-NAME?`, comments
skipped), analyzer/rules/predicates.c (the function each predicate asks:
the table's fact, or what its tl_pred_* wrapper calls; what
tl_predicate_nowhere / tl_predicate_words ask for a predicate counts for
its rules) and every C file of analyzer/ and tests/ (which function names
which: a call graph over the definitions, a static function resolved in
its own file first). A function serves the rules of the predicates that
ask it, the rule of each rules/checks/TLnnn.c that calls it, and, for a
function of the facts layer, what its callers serve (followed to a fixed
point). A caller in any other layer (the engine, the project, the CLI, the
tests; the model and the index call no facts) marks it `<layer>`: it is
then held where it is, whatever rules it serves. A function of one rule
only, with no such mark, is rule logic that may live beside its rule
(rules/checks/TLnnn.c); a predicate of one rule whose function serves
others too is "held".

Prints (Markdown): the predicates table, the facts.h table, the
facts/internal.h table (each with the rules it serves and who else calls
it), then the counts. Run from the repository root:

    python3 tools/rule-logic-census.py            # the tables and counts
    python3 tools/rule-logic-census.py --counts   # the counts only
    python3 tools/rule-logic-census.py --movable  # the facts.h and internal.h
                                                  # functions of one rule
Python 3 standard library only."""
import glob
import os
import re
import sys

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
DEF = re.compile(r"^(static\s+)?(?:inline\s+)?[a-zA-Z_][\w \t*]*?\b(tl_\w+)\s*\(([^;{]*?)\)\s*\{", re.M)
CALL = re.compile(r"\b(tl_\w+)\b")
DECL = re.compile(r"^[a-zA-Z_][\w \t*]*?\b(tl_facts_{1,2}[a-z]\w*)\s*\(", re.M)


def code(path):
    with open(path, encoding="utf-8") as f:
        return STRING.sub('""', COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), f.read()))


def functions(root):
    """(file, name) -> body text, and name -> [files] of the non-static ones."""
    bodies, public = {}, {}
    paths = sorted(glob.glob(os.path.join(root, "analyzer", "**", "*.c"), recursive=True))
    paths += sorted(glob.glob(os.path.join(root, "tests", "**", "*.[ch]"), recursive=True))
    for path in paths:
        rel = os.path.relpath(path, os.path.join(root, "analyzer"))
        if rel.startswith(".." + os.sep):
            rel = os.path.relpath(path, root)  # tests/unit/x.c: the layer "tests"
        text = code(path)
        starts = list(DEF.finditer(text))
        for m in starts:
            # the body runs to the first "}" at column 0
            end = text.find("\n}", m.end())
            body = text[m.end(): end if end >= 0 else len(text)]
            key = (rel, m.group(2))
            bodies[key] = body
            if not m.group(1):
                public.setdefault(m.group(2), []).append(rel)
    return bodies, public


def layer(rel):
    return rel.split("/", 1)[0] if "/" in rel else "main"


def rule_of(rel):
    m = re.match(r"rules/checks/(TL\d{3})\.c$", rel)
    return m.group(1) if m else None


def queries(root):
    used = {}
    for path in sorted(glob.glob(os.path.join(root, "queries", "*.scm"))):
        rule = os.path.basename(path).split("-", 1)[0]
        with open(path, encoding="utf-8") as f:
            text = "\n".join(l for l in f.read().split("\n") if not l.lstrip().startswith(";"))
        for m in re.finditer(r"#(?:not-)?([a-z0-9-]+)\?", text):
            used.setdefault(m.group(1), set()).add(rule)
    return used


def census(root="."):
    bodies, public = functions(root)
    statics = {}
    for (rel, name) in bodies:
        statics.setdefault(rel, set()).add(name)

    def resolve(rel, name):
        if name in statics.get(rel, ()) and rel not in public.get(name, []):
            return (rel, name)
        if name in public:
            return (public[name][0], name)
        return None

    callers = {}  # callee key -> set of caller keys
    for key, body in bodies.items():
        for m in CALL.finditer(body):
            target = resolve(key[0], m.group(1))
            if target and target != key:
                callers.setdefault(target, set()).add(key)

    # predicates: name -> (asked function keys), rules
    preds_path = os.path.join(root, "analyzer", "rules", "predicates.c")
    src = code(preds_path)
    used = queries(root)
    rows = []
    serves = {}  # function key -> set of rules (direct)
    raw = COMMENT.sub("", open(preds_path, encoding="utf-8").read())
    for m in re.finditer(r'^\t\{ "([a-z0-9-]+)", [^,]+, [^,]+, (\w+), (\w+),', raw, re.M):
        pred, fn, fact = m.groups()
        if fact != "NULL":
            asks = [fact]
        else:
            body = bodies.get(("rules/predicates.c", fn), "")
            asks = sorted({n for n in CALL.findall(body)
                           if re.match(r"tl_(facts|check|index)_[a-z]", n) and n in public})
        keys = [resolve("rules/predicates.c", a) for a in asks]
        keys = [k for k in keys if k]
        rules = used.get(pred, set())
        for k in keys:
            serves.setdefault(k, set()).update(rules)
        rows.append((pred, keys, rules))

    # rules/checks/TLnnn.c functions serve their rule; a function of a layer
    # that is no rule logic (the engine, the CLI, the project, the model, the
    # index) serves every rule: "<layer>" marks it
    for key in bodies:
        r = rule_of(key[0])
        if r:
            serves.setdefault(key, set()).add(r)
        elif layer(key[0]) not in ("facts", "rules"):
            serves.setdefault(key, set()).add(f"<{layer(key[0])}>")
    # tl_predicate_nowhere and tl_predicate_words answer for one predicate
    # per `if`: what each block calls serves that predicate's rules
    by_fn = {}
    for pred, keys, rules in rows:
        by_fn.setdefault(pred, rules)
    pred_names = {}
    for m in re.finditer(r'^\t\{ "([a-z0-9-]+)", [^,]+, [^,]+, (\w+), (\w+),', raw, re.M):
        for n in m.group(2, 3):
            if n != "NULL":
                pred_names.setdefault(n, set()).add(m.group(1))
    for helper in ("tl_predicate_nowhere", "tl_predicate_words"):
        body = bodies.get(("rules/predicates.c", helper), "")
        for seg in re.split(r"\bif \(", body)[1:]:
            names = set(CALL.findall(seg)) | set(re.findall(r"\b(tl_pred_\w+)\b", seg))
            rules = set()
            for n in names:
                for pred in pred_names.get(n, ()):
                    rules |= used.get(pred, set())
            for n in names:
                if n in pred_names or not re.match(r"tl_(facts|check)_[a-z]", n):
                    continue
                k = resolve("rules/predicates.c", n)
                if k:
                    serves.setdefault(k, set()).update(rules)

    # propagate: a function serves what its callers serve
    total = {k: set(v) for k, v in serves.items()}
    changed = True
    while changed:
        changed = False
        for callee, cs in callers.items():
            # the rules reach the facts through the predicate table and
            # their own files: follow calls into the facts layer only
            if layer(callee[0]) != "facts":
                continue
            acc = total.setdefault(callee, set())
            before = len(acc)
            for c in cs:
                acc |= total.get(c, set())
            if len(acc) != before:
                changed = True

    def other_users(key):
        """Callers outside the facts layer and the rules (model, syntax,
        engine, cli, ...), and facts callers outside the function's file."""
        out, facts_files = set(), set()
        for c in callers.get(key, ()):
            lc = layer(c[0])
            if lc in ("rules",):
                continue
            if lc == "facts":
                if c[0] != key[0]:
                    facts_files.add(c[0])
                continue
            out.add(c[0])
        return out, facts_files

    def declared(header):
        path = os.path.join(root, "analyzer", "facts", header)
        return sorted(set(DECL.findall(code(path))), key=lambda n: code(path).find(n))

    return rows, total, callers, public, resolve, other_users, declared, bodies


def fmt_rules(rules):
    return " ".join(sorted(rules)) or "(none)"


def main(argv):
    root = "."
    mode = "all"
    for a in argv:
        if a in ("--counts", "--movable"):
            mode = a[2:]
        else:
            root = a
    rows, total, callers, public, resolve, other_users, declared, bodies = census(root)
    out = []

    # ---- predicates
    p_one = p_one_checks = p_several = p_none = 0
    p_one_facts = []
    out.append("| Predicate | Answered by | In | Rules |")
    out.append("|---|---|---|---|")
    for pred, keys, rules in rows:
        where = ", ".join(sorted({k[0] for k in keys})) or "rules/predicates.c"
        names = ", ".join(f"`{k[1]}`" for k in keys) or "(the table's own code)"
        out.append(f"| `{pred}` | {names} | {where} | {fmt_rules(rules)} |")
        if len(rules) == 1:
            p_one += 1
            if keys and all(k[0].startswith("rules/checks/") for k in keys):
                p_one_checks += 1
            elif keys and any(k[0].startswith("facts/") for k in keys):
                held = any(len(total.get(k, set())) > 1 for k in keys)
                p_one_facts.append(pred + (" (held)" if held else ""))
        elif len(rules) > 1:
            p_several += 1
        else:
            p_none += 1

    # ---- facts functions
    def facts_table(header):
        lines = [f"| `{header}` function | Defined in | Rules it serves | Also called by |",
                 "|---|---|---|---|"]
        stats = {"one": 0, "several": 0, "infra": 0, "none": 0, "one_free": []}
        for name in declared(header):
            key = resolve("facts/x.c", name)
            if not key:
                continue
            rules = total.get(key, set())
            others, facts_files = other_users(key)
            also = ", ".join(sorted(others | facts_files)) or "-"
            lines.append(f"| `{name}` | {key[0]} | {fmt_rules(rules)} | {also} |")
            real = {r for r in rules if not r.startswith("<")}
            if len(real) == 1 and real == rules:
                stats["one"] += 1
                stats["one_free"].append((name, key[0], next(iter(rules)), facts_files))
            elif real:
                stats["several"] += 1
            elif rules:
                stats["infra"] += 1
            else:
                stats["none"] += 1
        return lines, stats

    pub_lines, pub = facts_table("facts.h")
    int_lines, inn = facts_table("internal.h")
    out.append("")
    out += pub_lines
    out.append("")
    out += int_lines

    # lines of the functions (any linkage) whose every use serves one rule
    one_lines = {"facts": 0, "checks": 0}
    for key, body in bodies.items():
        rules = total.get(key, set())
        if len(rules) != 1 or next(iter(rules)).startswith("<"):
            continue
        if key[0].startswith("facts/"):
            one_lines["facts"] += body.count("\n") + 1
        elif key[0].startswith("rules/checks/"):
            one_lines["checks"] += body.count("\n") + 1
    checks = sorted({k for k in bodies if k[0].startswith("rules/checks/") and not k[1].startswith("tl_check__")})
    counts = [
        f"predicates: {len(rows)}; used by one rule {p_one} ({p_one_checks} answered in rules/checks/, "
        + (f"{p_one - p_one_checks - len(p_one_facts)} by the table's own code or the index, "
           if p_one - p_one_checks - len(p_one_facts) else "")
        + f"{len(p_one_facts)} in facts/: {', '.join(p_one_facts) or '-'}; held: its function serves other rules too); by several {p_several}; by none {p_none}",
        f"facts.h functions: {pub['one'] + pub['several'] + pub['infra'] + pub['none']}; serving one rule {pub['one']}, "
        f"several {pub['several']}, only the engine or the tests {pub['infra']}, none {pub['none']}",
        f"facts/internal.h functions: {inn['one'] + inn['several'] + inn['infra'] + inn['none']}; serving one rule {inn['one']}, "
        f"several {inn['several']}, only the engine or the tests {inn['infra']}, none {inn['none']}",
        f"rules/checks/ public functions: {len(checks)} in {len({k[0] for k in checks})} files",
        f"code serving one rule (function bodies, lines): {one_lines['facts']} in facts/, "
        f"{one_lines['checks']} in rules/checks/",
    ]
    if mode == "counts":
        print("\n".join(counts))
        return 0
    if mode == "movable":
        for label, st in (("facts.h", pub), ("internal.h", inn)):
            for name, rel, rule, facts_files in st["one_free"]:
                via = f" (facts callers in {', '.join(sorted(facts_files))})" if facts_files else ""
                print(f"{label}\t{name}\t{rel}\t{rule}{via}")
        return 0
    out.append("")
    out += counts
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
