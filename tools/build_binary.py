#!/usr/bin/env python3
"""Builds the torchlint binary with nothing but a C compiler (no make, no npm).

    build_binary.py [--out PATH] [--jobs N]

This is how the Python package builds (setup.py calls build()): from an
sdist, which carries the pinned tree-sitter sources under deps/, or from a
checkout, whose sources come from TORCHLINT_DEPS (a folder laid out like
build/deps), TS_LIB_DIR and TS_PYTHON_DIR as in the Makefile, build/deps
when `make deps` has run, or else tools/fetch-deps.sh (npm).

It compiles the same files with the same definitions as the Makefile's
`torchlint` target (without its warning flags: a user's compiler may be
newer); tests/check-packaging.sh checks that the result reports the same
findings as ./torchlint on the corpus. CC, CFLAGS (default -O2), CPPFLAGS
and LDFLAGS are honoured.

jansson: an sdist carries jansson's pinned release sources under
deps/jansson/ (from Debian's archive, see deps.lock) and compiles them in,
so building it needs no libjansson-dev; TORCHLINT_BUNDLED_JANSSON=1 does
the same from a checkout (fetching the sources when build/deps lacks them).
Otherwise jansson is linked statically (-l:libjansson.a) when the linker
finds it, else shared, with a warning; TORCHLINT_JANSSON_LIBS overrides.
"""
import concurrent.futures
import glob
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def makefile_value(root, name):
    """VERSION := x or HOMEPAGE ?= y from the Makefile: one source for both."""
    with open(os.path.join(root, "Makefile"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^%s\s*[:?]?=\s*(.*?)\s*$" % name, line)
            if m:
                return m.group(1)
    raise SystemExit("build_binary: no %s in the Makefile" % name)


def find_deps(root):
    """(tree-sitter lib dir, tree-sitter-python src dir)."""
    # An sdist builds from the sources it carries (setup.py's sdist command
    # writes them under deps/), whatever the environment says.
    if os.path.isfile(os.path.join(root, "deps", "tree-sitter", "lib", "src", "lib.c")):
        return (os.path.join(root, "deps", "tree-sitter", "lib"),
                os.path.join(root, "deps", "tree-sitter-python", "src"))
    if os.environ.get("TS_LIB_DIR") and os.environ.get("TS_PYTHON_DIR"):
        return os.environ["TS_LIB_DIR"], os.environ["TS_PYTHON_DIR"]
    deps = os.environ.get("TORCHLINT_DEPS") or os.path.join(root, "build", "deps")
    lib = os.path.join(deps, "tree-sitter", "package", "vendor", "tree-sitter", "lib")
    py = os.path.join(deps, "tree-sitter-python", "package", "src")
    if not os.path.isfile(os.path.join(lib, "src", "lib.c")):
        if os.environ.get("TORCHLINT_DEPS"):
            raise SystemExit("build_binary: TORCHLINT_DEPS=%s holds no tree-sitter sources" % deps)
        print("build_binary: fetching the pinned tree-sitter sources (tools/fetch-deps.sh, npm)", flush=True)
        subprocess.run(["sh", os.path.join(root, "tools", "fetch-deps.sh"),
                        os.path.join(root, "deps.lock"), deps], check=True)
    return lib, py


def find_jansson(root):
    """jansson's src/ folder when it is compiled in (an sdist, or
    TORCHLINT_BUNDLED_JANSSON=1), else None: the system's library is linked."""
    bundled = os.path.join(root, "deps", "jansson", "src")
    if os.path.isfile(os.path.join(bundled, "value.c")):
        return bundled
    if os.environ.get("TORCHLINT_BUNDLED_JANSSON") != "1":
        return None
    deps = os.environ.get("TORCHLINT_DEPS") or os.path.join(root, "build", "deps")
    found = sorted(glob.glob(os.path.join(deps, "jansson", "jansson-*", "src", "value.c")))
    if not found:
        subprocess.run(["sh", os.path.join(root, "tools", "fetch-deps.sh"),
                        os.path.join(root, "deps.lock"), deps], check=True)
        found = sorted(glob.glob(os.path.join(deps, "jansson", "jansson-*", "src", "value.c")))
    if not found:
        raise SystemExit("build_binary: no jansson sources under %s" % deps)
    return os.path.dirname(found[-1])


# What jansson's configure script finds on a POSIX system with GCC or Clang
# (C11 with the atomic builtins): its two generated headers, written here so
# that compiling the bundled sources needs no autotools or cmake.
JANSSON_CONFIG = {"json_inline": "inline", "json_have_long_long": "1", "json_have_localeconv": "1",
                  "json_have_atomic_builtins": "1", "json_have_sync_builtins": "1"}
JANSSON_PRIVATE_CONFIG = """/* Written by tools/build_binary.py for the bundled jansson sources. */
#define HAVE_ENDIAN_H 1
#define HAVE_FCNTL_H 1
#define HAVE_LOCALE_H 1
#define HAVE_SCHED_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_PARAM_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_STDINT_H 1
#define HAVE_CLOSE 1
#define HAVE_GETPID 1
#define HAVE_GETTIMEOFDAY 1
#define HAVE_LOCALECONV 1
#define HAVE_OPEN 1
#define HAVE_READ 1
#define HAVE_SCHED_YIELD 1
#define HAVE_STRTOLL 1
#define HAVE_SYNC_BUILTINS 1
#define HAVE_ATOMIC_BUILTINS 1
#define USE_URANDOM 1
#define INITIAL_HASHTABLE_ORDER 3
"""


def write_jansson_config(src, gen):
    """gen/jansson_config.h (from src/jansson_config.h.in) and
    gen/jansson_private_config.h."""
    os.makedirs(gen, exist_ok=True)
    with open(os.path.join(src, "jansson_config.h.in"), encoding="utf-8") as f:
        text = f.read()
    for key, value in JANSSON_CONFIG.items():
        text = text.replace("@%s@" % key, value)
    left = re.findall(r"^#define \w+ @\w+@", text, re.M)
    if left:
        raise SystemExit("build_binary: jansson_config.h.in has placeholders this script does not fill: %s"
                         % " ".join(sorted(set(left))))
    for name, body in (("jansson_config.h", text), ("jansson_private_config.h", JANSSON_PRIVATE_CONFIG)):
        with open(os.path.join(gen, name), "w", encoding="utf-8") as f:
            f.write(body)


def embed_files(root):
    """The Makefile's EMBED_FILES, in its sorted order, relative to root."""
    pats = ["rules/*.toml", "queries/*.scm", "skills/*/SKILL.md", "validate/results/summary.json", "api/*.tsv"]
    found = set()
    for p in pats:
        found.update(os.path.relpath(f, root) for f in glob.glob(os.path.join(root, p)))
    return sorted(found)


def analyzer_sources(root):
    srcs = glob.glob(os.path.join(root, "analyzer", "*.c")) + glob.glob(os.path.join(root, "analyzer", "*", "*.c"))
    # Rule logic is one folder deeper (analyzer/rules/checks/).
    srcs += glob.glob(os.path.join(root, "analyzer", "rules", "checks", "*.c"))
    return sorted(os.path.relpath(s, root) for s in srcs)


def _run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return cmd, p.returncode, p.stdout


def build(root=ROOT, out=None, jobs=None, log=print):
    """Compiles and links; returns the binary's path."""
    out = os.path.abspath(out or os.path.join(root, "build", "python", "torchlint"))
    work = os.path.join(os.path.dirname(out), "obj")
    os.makedirs(os.path.join(work, "gen"), exist_ok=True)
    cc = shlex.split(os.environ.get("CC") or "cc")
    cflags = shlex.split(os.environ.get("CFLAGS", "-O2"))
    cppflags = shlex.split(os.environ.get("CPPFLAGS", ""))
    ldflags = shlex.split(os.environ.get("LDFLAGS", ""))
    version = makefile_value(root, "VERSION")
    homepage = makefile_value(root, "HOMEPAGE")
    ts_lib, ts_py = find_deps(root)
    log("build_binary: tree-sitter sources from %s and %s" % (os.path.relpath(ts_lib, root), os.path.relpath(ts_py, root)))
    posix = ["-std=c11", "-D_DEFAULT_SOURCE", "-D_POSIX_C_SOURCE=200809L", "-pthread"]
    tl = posix + ["-I", "analyzer", "-I", os.path.join(work, "gen"), "-I", os.path.join(ts_lib, "include"),
                  "-isystem", ts_lib, '-DTL_VERSION="%s"' % version, '-DTL_HOMEPAGE="%s"' % homepage]
    dep = posix + ["-w"]
    jansson = find_jansson(root)
    jansson_units = []
    if jansson:
        gen = os.path.join(work, "gen", "jansson")
        write_jansson_config(jansson, gen)
        inc = ["-I", gen, "-I", jansson]
        tl = inc + tl
        jansson_units = [(src, dep + inc + ["-DHAVE_CONFIG_H"])
                         for src in sorted(glob.glob(os.path.join(jansson, "*.c")))]
        log("build_binary: jansson compiled in from %s" % os.path.relpath(jansson, root))

    # The embedded rules, queries, skills and measured costs.
    # The API tables are checked first, with the analyzer's own parser.
    embed = os.path.join(work, "embed")
    apicheck = os.path.join(work, "apicheck")
    tables = sorted(os.path.relpath(f, root) for f in glob.glob(os.path.join(root, "api", "*.tsv")))
    for cmd in ([*cc, "-std=c11", "-O1", "-I", "analyzer", "-o", apicheck, "tools/apicheck.c",
                 "analyzer/model/apiparse.c"],
                [apicheck, *tables],
                [*cc, "-std=c11", "-O1", "-o", embed, "tools/embed.c"],
                [embed, os.path.join(work, "gen", "embedded.c"), *embed_files(root)]):
        _cmd, rc, text = _run(cmd, root)
        if rc:
            raise SystemExit("build_binary: %s failed:\n%s" % (" ".join(cmd), text))

    units = [(os.path.join(ts_lib, "src", "lib.c"), dep + ["-I", os.path.join(ts_lib, "include"), "-I", os.path.join(ts_lib, "src")]),
             (os.path.join(ts_py, "parser.c"), dep + ["-I", ts_py]),
             (os.path.join(ts_py, "scanner.c"), dep + ["-DTREE_SITTER_REUSE_ALLOCATOR", "-I", ts_py]),
             (os.path.join(work, "gen", "embedded.c"), tl)]
    units += jansson_units
    units += [(src, tl) for src in analyzer_sources(root)]
    cmds, objs = [], []
    for i, (src, flags) in enumerate(units):
        obj = os.path.join(work, "%03d-%s.o" % (i, os.path.basename(src)[:-2]))
        objs.append(obj)
        cmds.append([*cc, *cppflags, *cflags, *flags, "-c", src, "-o", obj])
    # The big grammar first: it is the longest single compile.
    order = sorted(range(len(cmds)), key=lambda i: "parser.c" not in units[i][0])
    jobs = jobs or int(os.environ.get("TORCHLINT_BUILD_JOBS") or 0) or min(os.cpu_count() or 1, 8)
    log("build_binary: compiling %d files (%d at a time) with %s" % (len(cmds), jobs, " ".join(cc)))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for cmd, rc, text in pool.map(lambda i: _run(cmds[i], root), order):
            if rc:
                raise SystemExit("build_binary: compile failed: %s\n%s" % (" ".join(cmd), text))
            if text.strip():
                log(text.rstrip())

    if jansson:
        tries = [[]]
    elif os.environ.get("TORCHLINT_JANSSON_LIBS"):
        tries = [shlex.split(os.environ["TORCHLINT_JANSSON_LIBS"])]
    else:
        tries = [["-l:libjansson.a"], ["-ljansson"]]
    for n, libs in enumerate(tries):
        cmd = [*cc, *cflags, *ldflags, "-o", out, *objs, *libs, "-pthread"]
        _cmd, rc, text = _run(cmd, root)
        if rc == 0:
            if n and not jansson:
                log("build_binary: warning: no static jansson (libjansson.a); linked %s, so the binary "
                    "needs libjansson.so at run time" % " ".join(libs))
            log("build_binary: wrote %s" % out)
            return out
    raise SystemExit("build_binary: link failed (jansson is needed: apt-get install libjansson-dev):\n%s" % text)


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="build torchlint with only a C compiler")
    ap.add_argument("--out")
    ap.add_argument("--jobs", type=int)
    a = ap.parse_args(argv)
    build(out=a.out, jobs=a.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
