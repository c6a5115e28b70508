#!/bin/sh
# `make dist`: writes dist/torchlint-VERSION.tar.gz (the sdist, holding the
# pinned tree-sitter sources) and dist/torchlint-VERSION-py3-none-PLATFORM.whl
# (the binary compiled from that sdist, in the wheel's scripts), offline,
# with Debian's python3-build, python3-setuptools and python3-wheel
# (installed through apt when run as root and missing).
# usage: make-dist.sh VERSION   (TS_LIB_DIR and TS_PYTHON_DIR: the sources)
set -eu
version=$1
cd "$(dirname "$0")/.."
has_tools() { "$1" -c 'import build, setuptools, wheel' >/dev/null 2>&1; }
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
rm -f dist/torchlint-"$version".tar.gz dist/torchlint-"$version"-*.whl
# --no-isolation: the build tools installed here, nothing fetched. build
# makes the sdist, then the wheel from the unpacked sdist.
"$py" -m build --no-isolation --outdir dist . >build/dist.log 2>&1 || {
	cat build/dist.log >&2
	echo "make-dist: python3 -m build failed (log above)" >&2
	exit 1
}
grep '^build_binary:' build/dist.log
ls dist/torchlint-"$version".tar.gz dist/torchlint-"$version"-py3-none-*.whl
