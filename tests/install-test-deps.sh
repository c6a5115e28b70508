#!/bin/sh
# Installs what the test suite needs on a fresh Debian machine: cmocka for
# the unit tests, valgrind for the memory checks, node (JSON checks, the
# SARIF validators from npm), git and pre-commit (the hook test), clang and
# its runtime (libFuzzer, the warnings check), Neovim and Emacs with eglot (the
# language server's end-to-end tests with real editors), and PyTorch for the CPU tests
# of validate/ (Debian's python3-torch, for /usr/bin/python3), and the Python
# packaging tools (`make dist` and the wheel's install into a fresh venv:
# python3-build, python3-setuptools, python3-wheel, python3-venv; readelf from
# binutils to cross-check tools/check_binary.py), and xmllint (libxml2-utils)
# for the JUnit schema, and Debian's mkdocs for the documentation site. As root it
# uses apt-get; otherwise it only reports what is missing.
set -eu
need=""
[ -f /usr/include/cmocka.h ] || need="$need libcmocka-dev"
command -v valgrind >/dev/null 2>&1 || need="$need valgrind"
command -v npm >/dev/null 2>&1 || need="$need npm"
command -v node >/dev/null 2>&1 || need="$need nodejs"
command -v pre-commit >/dev/null 2>&1 || need="$need pre-commit"
command -v git >/dev/null 2>&1 || need="$need git"
command -v clang >/dev/null 2>&1 || need="$need clang"
dpkg -s libclang-rt-14-dev >/dev/null 2>&1 || need="$need libclang-rt-14-dev"
command -v nvim >/dev/null 2>&1 || need="$need neovim"
command -v emacs >/dev/null 2>&1 || need="$need emacs-nox"
dpkg -s elpa-eglot >/dev/null 2>&1 || need="$need elpa-eglot"
for p in python3-build python3-setuptools python3-wheel python3-venv; do
	dpkg -s $p >/dev/null 2>&1 || need="$need $p"
done
command -v readelf >/dev/null 2>&1 || need="$need binutils"
command -v xmllint >/dev/null 2>&1 || need="$need libxml2-utils"
command -v man >/dev/null 2>&1 || need="$need man-db"
command -v groff >/dev/null 2>&1 || need="$need groff-base"
command -v mkdocs >/dev/null 2>&1 || need="$need mkdocs"
python3 -c 'import torch' >/dev/null 2>&1 || /usr/bin/python3 -c 'import torch' >/dev/null 2>&1 ||
	need="$need python3-torch"
[ -z "$need" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "install-test-deps: installing$need"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
else
	echo "install-test-deps: missing$need; install them (e.g. sudo apt-get install$need)" >&2
	exit 1
fi
