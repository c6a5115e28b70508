#!/bin/sh
# `make dist`: writes dist/torchlint-VERSION.tar.gz (the sdist, holding the
# pinned tree-sitter and jansson sources) and two wheels built from that
# sdist, each holding the binary in its scripts, offline, with Debian's
# python3-build, python3-setuptools and python3-wheel (installed through apt
# when run as root and missing):
#   dist/torchlint-VERSION-py3-none-manylinux_2_X_ARCH.whl   glibc, dynamic
#   dist/torchlint-VERSION-py3-none-manylinux_2_17_ARCH.manylinux2014_ARCH.musllinux_1_1_ARCH.whl
#                                      fully static, with musl (musl-gcc, from
#                                      Debian's musl-tools): any Linux of ARCH
# pip picks the glibc wheel where glibc is 2.X or newer, the static one on
# older glibc and on musl systems (Alpine). STATIC=0 skips the static wheel.
# usage: make-dist.sh VERSION   (TS_LIB_DIR and TS_PYTHON_DIR: the sources)
set -eu
version=$1
cd "$(dirname "$0")/.."
root=$(pwd)
# Python puts the current folder first on its path, and the repository's
# build output folder `build/` would pass for the `build` module there (a
# namespace package): probe and build from the filesystem root, where no
# folder of ours shadows a module.
has_tools() { (cd / && "$1" -c 'import build, setuptools, wheel') >/dev/null 2>&1; }
py=""
for p in ${PYTHON_DIST:-} python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null 2>&1 && has_tools "$p"; then py=$p; break; fi
done
if [ -z "$py" ]; then
	need="python3-build python3-setuptools python3-wheel"
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "make-dist: installing $need"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
		py=/usr/bin/python3
	else
		echo "make-dist: a Python with build, setuptools and wheel is needed (e.g. sudo apt-get install $need)" >&2
		exit 1
	fi
fi
echo "make-dist: building with $py"
rm -f dist/torchlint-"$version".tar.gz dist/torchlint-"$version"-*.whl
# The sdist packs the files git tracks and nothing else, as the working
# tree holds them, and the wheels are built from it: an untracked file
# (a scratch .c under analyzer/, which MANIFEST.in's patterns would take
# and build_binary.py would compile) stays out. They are copied to
# build/dist-src, which is what is built.
if ! git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "make-dist: $root is not a git checkout: make dist packs the files git tracks (git ls-files)" >&2
	exit 1
fi
stage=$root/build/dist-src
rm -rf "$stage"
mkdir -p "$stage"
git -C "$root" ls-files -z >build/dist-files
"$py" - "$root" "$stage" build/dist-files <<'PY'
import os, shutil, sys
root, stage, listing = sys.argv[1:]
for rel in open(listing, "rb").read().split(b"\0"):
    if not rel:
        continue
    src = os.path.join(os.fsencode(root), rel)
    if not os.path.lexists(src):
        continue  # deleted in the working tree, not yet committed
    dst = os.path.join(os.fsencode(stage), rel)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copy2(src, dst, follow_symlinks=False)
PY
echo "make-dist: $(tr -cd '\0' <build/dist-files | wc -c) files git tracks, copied to build/dist-src"
# The pinned sources the sdist adds (setup.py) are found outside the copy.
TORCHLINT_DEPS=${TORCHLINT_DEPS:-$root/build/deps}
export TORCHLINT_DEPS
# --no-isolation: the build tools installed here, nothing fetched. build
# makes the sdist, then the wheel from the unpacked sdist.
(cd / && "$py" -m build --no-isolation --outdir "$root/dist" "$stage") >build/dist.log 2>&1 || {
	cat build/dist.log >&2
	echo "make-dist: python3 -m build failed (log above)" >&2
	exit 1
}
grep '^build_binary:' build/dist.log
# The static wheel, from the unpacked sdist, with musl.
if [ "${STATIC:-1}" != 0 ]; then
	if ! command -v musl-gcc >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "make-dist: installing musl-tools (for the static wheel)"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq musl-tools >/dev/null
	fi
	if command -v musl-gcc >/dev/null 2>&1; then
		rm -rf build/dist-static
		mkdir -p build/dist-static
		tar xzf dist/torchlint-"$version".tar.gz -C build/dist-static
		(cd / && CC=musl-gcc LDFLAGS=-static "$py" -m build --no-isolation --wheel --outdir "$root/dist" \
			"$root/build/dist-static/torchlint-$version") >build/dist-static.log 2>&1 || {
			cat build/dist-static.log >&2
			echo "make-dist: the static wheel failed (log above)" >&2
			exit 1
		}
		grep '^build_binary:' build/dist-static.log | sed 's/^/static: /'
	else
		echo "make-dist: no musl-gcc (apt-get install musl-tools): no static wheel" >&2
	fi
fi
ls dist/torchlint-"$version".tar.gz dist/torchlint-"$version"-py3-none-*.whl
