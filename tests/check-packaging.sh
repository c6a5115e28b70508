#!/bin/sh
# The self-contained binary and the Python package, as a user meets them:
#  - tools/check_binary.py reads what the binary needs (shared libraries,
#    highest glibc symbol version), agrees with readelf, and fails on a
#    binary that links a library beyond the C runtime; the README states
#    both facts as measured;
#  - `make dist` writes the sdist (with the pinned tree-sitter and jansson
#    sources) and two wheels whose binaries are compiled from that sdist,
#    each tagged with the platform its binary meets: glibc (manylinux_2_X)
#    and fully static with musl (manylinux2014 + musllinux);
#  - the wheel installs offline (pip --no-index) into a fresh venv, its
#    torchlint and `python -m torchlint` run from another folder, and the
#    binary built from the sdist reports what ./torchlint reports.
# usage: check-packaging.sh TORCHLINT
set -u
. "$(dirname "$0")/cli/lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
version=$(sed -n 's/^VERSION := //p' Makefile)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
check="$py tools/check_binary.py"

# --- the binary ---------------------------------------------------------------
run "check_binary on the binary" 0 $check "$bin"
has "check_binary names libc" "$tmp/out" "libc.so.6"
$check --json "$bin" >"$tmp/facts.json"
needed=$(node -p "JSON.parse(require('fs').readFileSync('$tmp/facts.json')).needed.join(' ')")
glibc=$(node -p "JSON.parse(require('fs').readFileSync('$tmp/facts.json')).glibc")
tag=$($check --tag "$bin")
# readelf's reading of the same file.
if command -v readelf >/dev/null 2>&1; then
	re_needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ' | sed 's/ $//')
	re_glibc=$(readelf -V -W "$bin" | grep -o 'Name: GLIBC_[0-9.]*' | sed 's/Name: GLIBC_//' |
		sort -t. -k1,1n -k2,2n -k3,3n | tail -1 | cut -d. -f1,2)
	if [ "$needed" = "$re_needed" ]; then ok; else bad "needed libraries: check_binary '$needed', readelf '$re_needed'"; fi
	if [ "$glibc" = "$re_glibc" ]; then ok; else bad "glibc: check_binary '$glibc', readelf '$re_glibc'"; fi
else
	bad "readelf (binutils) is not installed"
fi
case " $needed " in
*libjansson*) bad "the binary links jansson as a shared library: $needed" ;;
*) ok ;;
esac
if [ "$tag" = "manylinux_$(echo "$glibc" | tr . _)_$(uname -m)" ]; then ok; else bad "platform tag '$tag' for glibc $glibc"; fi
# The README and the install page state what the binary needs, as measured here.
for doc in README.md docs/install.md; do
	for lib in $needed; do has "$doc names $lib" $doc "\`$lib\`"; done
	has "$doc states the glibc version" $doc "\`GLIBC_$glibc\`"
done
has "README names the wheel make dist writes" README.md "dist/torchlint-$version-py3-none-$tag.whl"

# The check fails on a binary that needs more (jansson as a shared library),
# and passes one that needs only libc.
printf '#include <jansson.h>\nint main(void) { json_t *j = json_object(); json_decref(j); return 0; }\n' >"$tmp/j.c"
printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' >"$tmp/p.c"
if cc -o "$tmp/j" "$tmp/j.c" -ljansson && cc -o "$tmp/p" "$tmp/p.c"; then
	run "check_binary on a program linking libjansson.so" 1 $check "$tmp/j"
	has "check_binary names the extra library" "$tmp/out" "not self-contained: needs libjansson.so.4"
	if [ "$($check --tag "$tmp/j")" = "linux_$(uname -m)" ]; then ok; else bad "a non-self-contained binary must be tagged linux_*"; fi
	run "check_binary on a libc-only program" 0 $check "$tmp/p"
else
	bad "cannot compile the check's control programs"
fi
run "check_binary on a file that is not ELF" 2 $check README.md

# --- make dist -------------------------------------------------------------------
# Run as on a machine without Debian's python3-build, after `make` (the
# build output folder build/ is there): the first Python make-dist tries
# has setuptools and wheel but no `build` module. Python puts the current
# folder first on its path, where build/ once passed for that module: the
# probe said yes and `python3 -m build` then failed ("No module named
# build.__main__"). Now that Python is passed over for one that has it.
[ -d build ] && ok || bad "no build/ folder: the check needs make's output there"
"$py" -m venv --without-pip "$tmp/nobuild" >/dev/null 2>&1 || bad "python3 -m venv --without-pip failed"
mkdir -p "$tmp/nobuild-tools"
site=$("$py" -c 'import os, setuptools; print(os.path.dirname(setuptools.__path__[0]))')
for m in setuptools pkg_resources _distutils_hack wheel "$site"/setuptools-*info "$site"/wheel-*info; do
	[ -e "$site/${m##*/}" ] && ln -s "$site/${m##*/}" "$tmp/nobuild-tools/"
done
"$tmp/nobuild/bin/python" -c 'import sys; print(sys.argv[1])' "$tmp/nobuild-tools" \
	>"$("$tmp/nobuild/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/tools.pth"
run "the Python without build has setuptools and wheel" 0 sh -c 'cd / && exec "$0" -c "import setuptools, wheel"' "$tmp/nobuild/bin/python"
run "the Python without build has no build module" 1 sh -c 'cd / && exec "$0" -c "import build"' "$tmp/nobuild/bin/python"
# Only what git tracks is packed (and so compiled into the wheels): an
# untracked source and header under analyzer/ are left out (before,
# MANIFEST.in's patterns packed both). They lie one folder deeper than the
# Makefile's and build_binary.py's patterns reach, so that a make running
# meanwhile does not compile them.
probe=analyzer/base/zz-untracked-probe
trap 'rm -rf "$tmp" "$probe"' EXIT
mkdir -p "$probe"
printf '#error an untracked file was packed\n' >"$probe/probe.c"
printf '/* untracked */\n' >"$probe/probe.h"
run "make dist" 0 env PYTHON_DIST="$tmp/nobuild/bin/python" make --no-print-directory -s dist
rm -rf "$probe"
hasnt "make dist passed over the Python without build" "$tmp/out" "make-dist: building with $tmp/nobuild/bin/python"
has "make dist says which Python builds" "$tmp/out" "make-dist: building with "
cp "$tmp/out" "$tmp/dist.out"
sdist=dist/torchlint-$version.tar.gz
whl=dist/torchlint-$version-py3-none-$tag.whl
if [ -f "$sdist" ] && [ -f "$whl" ]; then ok; else bad "make dist did not write $sdist and $whl"; ls dist; fi
has "the wheel was built from the sdist's own tree-sitter sources" "$tmp/out" \
	"build_binary: tree-sitter sources from deps/tree-sitter/lib and deps/tree-sitter-python/src"
has "the wheel was built with the sdist's own jansson (no libjansson-dev needed)" "$tmp/out" \
	"build_binary: jansson compiled in from deps/jansson/src"
tar tzf "$sdist" >"$tmp/sdist.txt"
for f in deps/tree-sitter/lib/src/lib.c deps/tree-sitter/lib/include/tree_sitter/api.h \
	deps/tree-sitter-python/src/parser.c deps/tree-sitter-python/src/scanner.c \
	deps/tree-sitter/LICENSE deps/tree-sitter-python/LICENSE deps/README \
	deps/jansson/src/value.c deps/jansson/src/jansson.h deps/jansson/src/jansson_config.h.in deps/jansson/LICENSE \
	setup.py pyproject.toml Makefile analyzer/main.c tools/embed.c tools/build_binary.py \
	tools/check_binary.py packaging/python/torchlint/__main__.py validate/results/summary.json; do
	has "sdist holds $f" "$tmp/sdist.txt" "torchlint-$version/$f"
done
hasnt "sdist holds no build output" "$tmp/sdist.txt" "torchlint-$version/build/"
hasnt "sdist holds no untracked .c" "$tmp/sdist.txt" "zz-untracked-probe/probe.c"
hasnt "sdist holds no untracked .h" "$tmp/sdist.txt" "zz-untracked-probe/probe.h"
git ls-files 'analyzer/*.c' 'analyzer/*.h' | sed "s|^|torchlint-$version/|" | sort >"$tmp/tracked"
grep "^torchlint-$version/analyzer/.*\.[ch]\$" "$tmp/sdist.txt" | sort >"$tmp/packed"
if cmp -s "$tmp/tracked" "$tmp/packed"; then ok; else
	bad "the sdist's analyzer/ is not the tracked files: $(diff "$tmp/tracked" "$tmp/packed" | head -5)"; fi
# The licences: torchlint's, and those of what the binary compiles in, each
# text the one its package (as `make` fetched it) ships, at the version
# deps.lock pins.
has "sdist holds LICENSE" "$tmp/sdist.txt" "torchlint-$version/LICENSE"
has "sdist holds THIRD_PARTY_LICENSES" "$tmp/sdist.txt" "torchlint-$version/THIRD_PARTY_LICENSES"
has "LICENSE is MIT" LICENSE "MIT License"
for lic in build/deps/tree-sitter/package/LICENSE build/deps/tree-sitter-python/package/LICENSE build/deps/jansson/jansson-*/LICENSE; do
	if [ -f "$lic" ] && "$py" -c 'import sys; sys.exit(open(sys.argv[1]).read().strip() not in open(sys.argv[2]).read())' "$lic" THIRD_PARTY_LICENSES; then
		ok; else bad "THIRD_PARTY_LICENSES lacks the text of $lic"; fi
done
grep -v '^#' deps.lock | grep . | while read -r name ver rest; do
	grep -q "^$name $ver " THIRD_PARTY_LICENSES || echo "$name $ver"
done >"$tmp/missing"
if [ ! -s "$tmp/missing" ]; then ok; else bad "THIRD_PARTY_LICENSES lacks: $(cat "$tmp/missing")"; fi
tar xzf "$sdist" -O "torchlint-$version/deps/README" >"$tmp/depsreadme"
grep -v '^#' deps.lock | grep . | while read -r name ver sum; do
	grep -q "$name *$ver *$sum" "$tmp/depsreadme" || echo "$name $ver"
done >"$tmp/missing"
if [ ! -s "$tmp/missing" ]; then ok; else bad "deps/README lacks pins: $(cat "$tmp/missing")"; fi
"$py" -m zipfile -l "$whl" >"$tmp/whl.txt"
has "the wheel holds the binary in its scripts" "$tmp/whl.txt" "torchlint-$version.data/scripts/torchlint "
has "the wheel holds the package" "$tmp/whl.txt" "torchlint/__main__.py"
has "the wheel holds the manual page" "$tmp/whl.txt" "torchlint-$version.data/data/share/man/man1/torchlint.1 "
"$py" -c "import zipfile,sys; z = zipfile.ZipFile('$whl'); sys.stdout.write(z.read('torchlint-$version.dist-info/METADATA').decode())" >"$tmp/METADATA"
has "METADATA: License" "$tmp/METADATA" "License: MIT"
has "METADATA: the licence classifier" "$tmp/METADATA" "Classifier: License :: OSI Approved :: MIT License"
for f in LICENSE THIRD_PARTY_LICENSES; do
	if "$py" -c "import zipfile,sys; z = zipfile.ZipFile('$whl'); sys.exit(z.read([n for n in z.namelist() if n.startswith('torchlint-$version.dist-info/') and n.endswith('/$f')][0]) != open('$f', 'rb').read())"; then
		ok; else bad "the wheel's .dist-info lacks $f as the repository has it"; fi
done
"$py" -m zipfile -e "$whl" "$tmp/unzipped" 2>/dev/null
wbin=$tmp/unzipped/torchlint-$version.data/scripts/torchlint
chmod +x "$wbin" 2>/dev/null
run "check_binary on the wheel's binary" 0 $check "$wbin"
if [ "$($check --tag "$wbin")" = "$tag" ]; then ok; else bad "the wheel's binary meets $($check --tag "$wbin"), named $tag"; fi
unzip -p "$whl" "torchlint-$version.dist-info/WHEEL" >"$tmp/WHEEL" 2>/dev/null ||
	"$py" -c "import zipfile,sys; sys.stdout.write(zipfile.ZipFile('$whl').read('torchlint-$version.dist-info/WHEEL').decode())" >"$tmp/WHEEL"
has "WHEEL names the tag" "$tmp/WHEEL" "Tag: py3-none-$tag"
has "WHEEL is not pure" "$tmp/WHEEL" "Root-Is-Purelib: false"

# The binary built from the sdist reports what ./torchlint reports.
"$bin" --format json --select ALL -q corpus examples >"$tmp/make.json"
mstatus=$?
"$wbin" --format json --select ALL -q corpus examples >"$tmp/sdist.json"
sstatus=$?
if [ $mstatus = 1 ] && [ $sstatus = 1 ] && cmp -s "$tmp/make.json" "$tmp/sdist.json"; then ok; else
	bad "the sdist's binary differs from ./torchlint on corpus/ (exit $sstatus vs $mstatus)"; fi
json "the corpus report is not empty" "$tmp/make.json" "d.length > 100"

# --- the static wheel (musl): any Linux of this architecture ------------------------
arch=$(uname -m)
stag=manylinux_2_17_$arch.manylinux2014_$arch.musllinux_1_1_$arch
swhl=dist/torchlint-$version-py3-none-$stag.whl
if [ -f "$swhl" ]; then
	ok
	"$py" -m zipfile -e "$swhl" "$tmp/static" 2>/dev/null
	sbin=$tmp/static/torchlint-$version.data/scripts/torchlint
	chmod +x "$sbin" 2>/dev/null
	run "check_binary on the static wheel's binary" 0 $check "$sbin"
	has "the static binary needs no shared library" "$tmp/out" "shared libraries needed: none"
	if [ "$($check --tag "$sbin")" = "$stag" ]; then ok; else bad "the static binary meets $($check --tag "$sbin"), named $stag"; fi
	has "the static wheel was built with musl" "$tmp/dist.out" "static: build_binary: compiling"
	"$sbin" --format json --select ALL -q corpus examples >"$tmp/static.json"
	if [ $? = 1 ] && cmp -s "$tmp/make.json" "$tmp/static.json"; then ok; else
		bad "the static binary differs from ./torchlint on corpus/"; fi
	"$py" -m venv "$tmp/svenv" >/dev/null 2>&1
	run "pip install --no-index the static wheel" 0 "$tmp/svenv/bin/pip" install -q --no-index "$root/$swhl"
	run "the static wheel's torchlint runs" 0 "$tmp/svenv/bin/torchlint" --version
elif [ "$(id -u)" = 0 ]; then
	bad "make dist wrote no static wheel ($swhl) although it can install musl-tools as root"
else
	echo "skipped: no static wheel (musl-gcc missing and not root)"
fi

# --- the wheel in a fresh venv, run from elsewhere --------------------------------
"$py" -m venv "$tmp/venv" >"$tmp/venv.log" 2>&1 || { bad "python3 -m venv failed"; cat "$tmp/venv.log"; }
run "pip install --no-index the wheel" 0 "$tmp/venv/bin/pip" install -q --no-index "$root/$whl"
mkdir -p "$tmp/elsewhere"
cp examples/train_cifar.py "$tmp/elsewhere/train.py"
cd "$tmp/elsewhere" || exit 1
run "installed torchlint --version" 0 "$tmp/venv/bin/torchlint" --version
has "installed version" "$tmp/out" "torchlint $version"
run "installed torchlint on a file" 1 env PATH="$tmp/venv/bin:/usr/bin:/bin" torchlint --format concise train.py
cp "$tmp/out" "$tmp/installed.txt"
"$bin" --format concise train.py >"$tmp/built.txt" 2>/dev/null
if cmp -s "$tmp/installed.txt" "$tmp/built.txt" && [ -s "$tmp/built.txt" ]; then ok; else bad "installed and built binaries differ on train.py"; fi
run "python -m torchlint" 1 "$tmp/venv/bin/python" -m torchlint --format concise train.py
if cmp -s "$tmp/out" "$tmp/built.txt"; then ok; else bad "python -m torchlint output differs"; fi
run "python -m torchlint --version" 0 "$tmp/venv/bin/python" -m torchlint --version
has "python -m torchlint --version" "$tmp/out" "torchlint $version"
# pip install --target: the binary lands in TARGET/bin, the package finds it.
run "pip install --target" 0 "$tmp/venv/bin/pip" install -q --no-index --target "$tmp/target" "$root/$whl"
run "python -m torchlint from a --target install" 0 env PYTHONPATH="$tmp/target" "$py" -m torchlint --version
# Without the binary the package says so (exit 2), it does not crash.
rm "$tmp/target/bin/torchlint"
run "python -m torchlint without its binary" 2 env PYTHONPATH="$tmp/target" "$py" -I -c \
	"import sys; sys.path.insert(0, '$tmp/target'); import runpy; runpy.run_module('torchlint', run_name='__main__')"
has "missing binary message" "$tmp/err" "the binary is not installed"
cd "$root" || exit 1
# man torchlint finds the page next to the venv's bin/ (man-db's path from PATH).
if [ -f "$tmp/venv/share/man/man1/torchlint.1" ]; then ok; else bad "no share/man/man1/torchlint.1 in the venv"; fi
run "man -w torchlint in the venv" 0 env -u MANPATH PATH="$tmp/venv/bin:/usr/bin:/bin" man -w torchlint
has "man finds the venv's page" "$tmp/out" "$tmp/venv/share/man/man1/torchlint.1"
run "pip uninstall" 0 "$tmp/venv/bin/pip" uninstall -q -y torchlint
if [ ! -e "$tmp/venv/bin/torchlint" ]; then ok; else bad "pip uninstall left the binary"; fi

# --- make install and the manual page -------------------------------------------------
run "make install DESTDIR" 0 make --no-print-directory -s install DESTDIR="$tmp/dest" PREFIX=/usr
if [ -x "$tmp/dest/usr/bin/torchlint" ] && [ -f "$tmp/dest/usr/share/man/man1/torchlint.1" ]; then ok; else
	bad "make install did not install the binary and the page"; fi
if cmp -s LICENSE "$tmp/dest/usr/share/doc/torchlint/LICENSE" &&
	cmp -s THIRD_PARTY_LICENSES "$tmp/dest/usr/share/doc/torchlint/THIRD_PARTY_LICENSES"; then ok; else
	bad "make install did not install the licences in share/doc/torchlint"; fi
page=$tmp/dest/usr/share/man/man1/torchlint.1
run "the page renders without groff warnings" 0 groff -man -Tutf8 -ww -z "$page"
lines "no groff warnings" "$tmp/err" 0
MANWIDTH=100 man -l "$page" >"$tmp/man.txt" 2>/dev/null
has "man: NAME" "$tmp/man.txt" "torchlint - find PyTorch training-loop pitfalls"
has "man: version" "$tmp/man.txt" "torchlint $version"
has "man: EXIT STATUS" "$tmp/man.txt" "EXIT STATUS"
has "man: an example from docs/usage.md" "$tmp/man.txt" "torchlint --explain TL101"
# Every option of --help is in the page.
"$bin" --help | grep -o -- '--[a-z][a-z-]*' | sort -u >"$tmp/opts"
while read -r o; do grep -q -- "$o" "$tmp/man.txt" || echo "$o"; done <"$tmp/opts" >"$tmp/missing-opts"
if [ ! -s "$tmp/missing-opts" ] && [ "$(wc -l <"$tmp/opts")" -gt 30 ]; then ok; else bad "options missing from the page: $(cat "$tmp/missing-opts")"; fi

echo "packaging: $pass passed, $fail failed"
[ "$fail" = 0 ]
