#!/usr/bin/env python3
"""Points this mirror at one torchlint release.

    python3 stamp_version.py VERSION [DIR]

Rewrites, in DIR (default: this script's folder), the pinned torchlint and
the package version in pyproject.toml and every `rev: v...` in README.md,
then prints the tag the commit must carry (v<VERSION>). Each place must be
found exactly once (README: at least once): a template that no longer
matches is an error, not a silent no-op.
"""
import os
import re
import sys

VERSION = re.compile(r"^\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?$")


def stamp(path, subs, version):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for pattern, template, at_most_one in subs:
        text, n = re.subn(pattern, template.replace("VERSION", version), text, flags=re.M)
        if n == 0 or (at_most_one and n != 1):
            raise SystemExit("stamp_version: %s: %d matches of %s" % (path, n, pattern))
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv):
    if len(argv) not in (1, 2) or not VERSION.match(argv[0].lstrip("v")):
        print("usage: stamp_version.py VERSION [DIR]   (VERSION like 0.2.0)", file=sys.stderr)
        return 2
    version = argv[0].lstrip("v")
    where = argv[1] if len(argv) == 2 else os.path.dirname(os.path.abspath(__file__))
    stamp(os.path.join(where, "pyproject.toml"), [
        (r'^version = "[^"]*"$', 'version = "VERSION"', True),
        (r'"torchlint==[^"]*"', '"torchlint==VERSION"', True),
    ], version)
    stamp(os.path.join(where, "README.md"), [(r"rev: v[0-9][^\s]*", "rev: vVERSION", False)], version)
    print("v" + version)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
