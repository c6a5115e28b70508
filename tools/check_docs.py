#!/usr/bin/env python3
"""Checks the documentation beyond what `mkdocs build --strict` checks:

    check_docs.py [--root DIR] SITE TORCHLINT

- every page under docs/ is in mkdocs.yml's navigation, and every page the
  navigation names exists;
- in the built SITE, every link and image between pages reaches a file of
  the site, and every #anchor an id on the page it names (mkdocs 1.4 checks
  neither anchors nor pages left out of the navigation); no page loads a
  script, stylesheet, font or image from the network;
- the figures the pages quote match their sources: the rules with an unsafe
  fix (rules/*.toml) against --help and the table in docs/fixes.md; each
  count of repositories against the ecosystem check's list
  (tools/ecosystem/repos.tsv); each count of rules against --list-rules;
- user-facing text (README.md, docs/, skills/, rules/, --help, server
  --help, --list-predicates, and the developer documents the pages link to:
  tools/ecosystem/README.md, validate/README.md, analyzer/README.md) names
  no file outside the repository (RULES.md, ../shared) and no issue number;
- a link to the project's own files on its homepage (HOMEPAGE/blob/main/PATH,
  as --explain and the rule pages write them) names a file the repository
  has, and a link to the README's #anchor a heading it has;
- a snippet the README and docs/integrations.md both show (pre-commit
  hooks, the Action's workflow: marked <!-- name -->) is the same in both.

DIR (default: this checkout) holds README.md, mkdocs.yml, docs/, rules/,
skills/ and tools/ecosystem/repos.tsv. Prints one line per problem; exit 1
when there is one.
"""
import argparse
import glob
import html.parser
import os
import re
import subprocess
import sys
import tomllib
import urllib.parse

import yaml  # python3-yaml: mkdocs needs it too


class Page(html.parser.HTMLParser):
    """The ids of a page, and its links and loaded assets."""

    def __init__(self):
        super().__init__()
        self.ids, self.links, self.assets = set(), [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if tag in ("img", "script") and a.get("src"):
            self.assets.append(a["src"])
            if tag == "img":
                self.links.append(a["src"])
        if tag == "link" and a.get("href"):
            self.assets.append(a["href"])


def nav_pages(nav):
    out = []
    for item in nav:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            for v in item.values():
                out += nav_pages(v) if isinstance(v, list) else [v]
    return out


def check_nav(root, problems):
    with open(os.path.join(root, "mkdocs.yml"), encoding="utf-8") as f:
        cfg = yaml.safe_load(f)
    docs = os.path.join(root, cfg.get("docs_dir", "docs"))
    listed = nav_pages(cfg["nav"])
    pages = sorted(os.path.relpath(p, docs) for p in glob.glob(os.path.join(docs, "**", "*.md"), recursive=True))
    for p in pages:
        if p not in listed:
            problems.append("docs/%s: not in mkdocs.yml's nav" % p)
    for p in listed:
        if p not in pages:
            problems.append("mkdocs.yml: nav names %s, which docs/ does not have" % p)


def check_site(site, problems):
    pages = {}
    for path in glob.glob(os.path.join(site, "**", "*.html"), recursive=True):
        rel = os.path.relpath(path, site)
        p = Page()
        with open(path, encoding="utf-8") as f:
            p.feed(f.read())
        pages[rel] = p
    if not pages:
        problems.append("%s: no HTML pages" % site)
    for rel, p in sorted(pages.items()):
        if rel == "404.html":  # its links are relative to the site's root, wherever it is served
            continue
        for src in p.assets:
            if re.match(r"^(https?:)?//", src):
                problems.append("%s: loads %s from the network" % (rel, src))
        for href in p.links:
            u = urllib.parse.urlsplit(href)
            if u.scheme or u.netloc or href.startswith("//"):
                continue
            target = os.path.normpath(os.path.join(os.path.dirname(rel), urllib.parse.unquote(u.path))) if u.path else rel
            if target.startswith(".."):
                problems.append("%s: link %s leaves the site" % (rel, href))
                continue
            full = os.path.join(site, target)
            if os.path.isdir(full):
                target = os.path.join(target, "index.html")
                full = os.path.join(site, target)
            if not os.path.isfile(full):
                problems.append("%s: dead link %s" % (rel, href))
            elif u.fragment and target.endswith(".html"):
                if target not in pages:
                    continue
                if urllib.parse.unquote(u.fragment) not in pages[target].ids:
                    problems.append("%s: link %s names an anchor %s does not have" % (rel, href, target))


def run(exe, *args):
    p = subprocess.run([exe] + list(args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return p.stdout.decode()


def fix_applicability(root):
    """{code: {"safe", "unsafe"}} from the rules' [[fix]] tables."""
    out = {}
    for path in sorted(glob.glob(os.path.join(root, "rules", "*.toml"))):
        with open(path, "rb") as f:
            doc = tomllib.load(f)
        for fix in doc.get("fix", []):
            out.setdefault(doc["code"], set()).add(fix.get("applicability", "safe"))
    return out


def check_fixes(root, exe, problems):
    fixes = fix_applicability(root)
    unsafe = sorted(c for c, a in fixes.items() if "unsafe" in a)
    help_text = run(exe, "--help")
    m = re.search(r"^  --unsafe-fixes .*?\n(?=  -)", help_text, re.S | re.M)
    listed = sorted(set(re.findall(r"TL\d{3}", m.group(0)))) if m else None
    if listed != unsafe:
        problems.append("--help lists the unsafe fixes of %s; rules/*.toml has them for %s" % (listed, unsafe))
    table = {}
    with open(os.path.join(root, "docs", "fixes.md"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^\| (TL\d{3}) \|.*\| (safe|unsafe) \|\s*$", line)
            if m:
                table.setdefault(m.group(1), set()).add(m.group(2))
    for code in sorted(set(table) | set(fixes)):
        if table.get(code) != fixes.get(code):
            problems.append("docs/fixes.md: %s's fixes are %s in its table, %s in rules/%s-*.toml" % (
                code, sorted(table.get(code, [])) or "absent", sorted(fixes.get(code, [])) or "none", code))


def user_texts(root, exe):
    """(name, text) of every user-facing text."""
    paths = [os.path.join(root, "README.md")]
    paths += glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True)
    paths += glob.glob(os.path.join(root, "skills", "*", "SKILL.md"))
    paths += glob.glob(os.path.join(root, "rules", "*.toml"))
    out = []
    for p in sorted(paths):
        with open(p, encoding="utf-8") as f:
            out.append((os.path.relpath(p, root), f.read()))
    out.append(("--help", run(exe, "--help")))
    out.append(("server --help", run(exe, "server", "--help")))
    out.append(("--list-predicates", run(exe, "--list-predicates")))
    return out


def check_figures(root, exe, texts, problems):
    with open(os.path.join(root, "tools", "ecosystem", "repos.tsv"), encoding="utf-8") as f:
        rows = [l for l in f if l.strip() and not l.startswith("#")]
    repos = len(rows) - 1  # the header
    rules = len(run(exe, "--list-rules").splitlines()) - 1
    for name, text in texts:
        flat = " ".join(text.split())
        for m in re.finditer(r"\b(\d[\d,]*) (?:real |pinned |real-world )?repositories", flat):
            if int(m.group(1).replace(",", "")) != repos:
                problems.append("%s: says '%s'; the ecosystem check has %d (tools/ecosystem/repos.tsv)" % (
                    name, m.group(0), repos))
        for m in re.finditer(r"\b(\d+) rules\b", flat):
            if int(m.group(1)) != rules:
                problems.append("%s: says '%s'; --list-rules has %d" % (name, m.group(0), rules))


OUTSIDE = [(r"\bRULES\.md\b", "RULES.md, which is not in the repository"),
           (r"\.\./shared\b", "../shared, outside the repository"),
           (r"\b(?:DESIGN|STYLE)\.md\b", "a design document outside the repository"),
           (r"\b[Ii]ssues? #?\d+", "an issue number"),
           (r"/work/notes\b", "a session's notes, outside the repository")]


def dev_texts(root):
    """The developer documents the pages link to."""
    out = []
    for rel in ("tools/ecosystem/README.md", "validate/README.md", "analyzer/README.md"):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            out.append((rel, f.read()))
    return out


def check_references(texts, problems):
    for name, text in texts:
        for n, line in enumerate(text.splitlines(), 1):
            for pat, what in OUTSIDE:
                if re.search(pat, line):
                    problems.append("%s:%d: names %s: %s" % (name, n, what, line.strip()[:100]))


def slug(heading):
    """GitHub's anchor for a Markdown heading."""
    s = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return s.replace(" ", "-")


def check_repo_links(root, texts, problems):
    """Links to the project's own files on its homepage name files that
    exist, and a link to the README's #anchor a heading it has."""
    homepage = None
    with open(os.path.join(root, "Makefile"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^HOMEPAGE\s*[?:]?=\s*(\S+)", line)
            if m:
                homepage = m.group(1)
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        anchors = {slug(l.lstrip("#")) for l in f if l.startswith("#")}
    blob = re.compile(re.escape(homepage) + r"/blob/main/([^\s)`'\"<>#]+)")
    anchor = re.compile(re.escape(homepage) + r"#([\w-]+)")
    for name, text in texts:
        for m in blob.finditer(text):
            path = m.group(1).rstrip(".,;:")
            if not os.path.exists(os.path.join(root, path)):
                problems.append("%s: links %s, which the repository does not have" % (name, path))
        for m in anchor.finditer(text):
            if m.group(1) not in anchors:
                problems.append("%s: links the README's #%s, which it has no heading for" % (name, m.group(1)))


def marked_blocks(text):
    """{marker: the code block after a `<!-- marker -->` line}."""
    out = {}
    for m in re.finditer(r"^<!-- ([a-z-]+) -->\n(```[a-z]*\n.*?\n```)\n", text, re.S | re.M):
        out[m.group(1)] = m.group(2)
    return out


def check_snippets(root, problems):
    """A snippet the README and docs/integrations.md both show (marked
    <!-- name --> before its code block; tests run the README's) is the same
    in both."""
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        readme = marked_blocks(f.read())
    with open(os.path.join(root, "docs", "integrations.md"), encoding="utf-8") as f:
        page = marked_blocks(f.read())
    for name in sorted(set(readme) & set(page)):
        if readme[name] != page[name]:
            problems.append("docs/integrations.md: the <!-- %s --> snippet differs from README.md's" % name)
    if not set(readme) & set(page):
        problems.append("README.md and docs/integrations.md share no marked snippet")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("site")
    ap.add_argument("torchlint")
    a = ap.parse_args()
    exe = os.path.abspath(a.torchlint)
    problems = []
    check_nav(a.root, problems)
    check_site(a.site, problems)
    check_fixes(a.root, exe, problems)
    texts = user_texts(a.root, exe)
    check_figures(a.root, exe, texts, problems)
    check_references(texts + dev_texts(a.root), problems)
    check_repo_links(a.root, texts, problems)
    check_snippets(a.root, problems)
    for p in problems:
        print("check_docs: " + p)
    if not problems:
        print("check_docs: navigation, links, anchors, assets, figures and references are right")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
