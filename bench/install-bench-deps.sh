#!/bin/sh
# What `make bench` measures on: Debian's PyTorch sources (python3-torch,
# python3-torchvision, installed with apt when we are root and they are
# missing), and the optional peers from npm, pinned, into PREFIX. A peer
# that cannot be had is reported and left out; the benchmark still runs.
# Usage: bench/install-bench-deps.sh PREFIX
set -u
prefix=$1
AST_GREP=0.51.1
RUFF_WASM=0.17.4
missing=""
for p in python3-torch python3-torchvision; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		apt-get install -y --no-install-recommends $missing || {
			apt-get update && apt-get install -y --no-install-recommends $missing; } || exit 1
	else
		echo "bench: install$missing (as root: apt-get install$missing)" >&2
		exit 1
	fi
fi
if ! command -v npm >/dev/null 2>&1; then
	echo "bench: npm not found: the peers (ast-grep, ruff wasm) are left out" >&2
	exit 0
fi
mkdir -p "$prefix"
have() { [ -f "$prefix/node_modules/$1/package.json" ] && grep -q "\"version\": \"$2\"" "$prefix/node_modules/$1/package.json"; }
for spec in "@ast-grep/cli $AST_GREP" "@astral-sh/ruff-wasm-nodejs $RUFF_WASM"; do
	set -- $spec
	have "$1" "$2" && continue
	npm install --no-audit --no-fund --prefix "$prefix" "$1@$2" >/dev/null 2>&1 ||
		echo "bench: could not install $1@$2 from npm: left out" >&2
done
exit 0
