#!/bin/sh
# The pre-commit hooks, as a user meets them, with Debian's pre-commit and
# nothing fetched (PIP_NO_INDEX=1; PIP_FIND_LINKS: dist/ and Debian's
# setuptools and wheel wheels for pip's build environments):
#  1. torchlint-system (`language: system`) through `try-repo`, with the
#     built torchlint on PATH, and the README's local-hook snippet;
#  2. torchlint (`language: python`) pinned by `rev: v<version>` on a
#     snapshot of this working tree: pre-commit pip-installs the repository,
#     which compiles the binary (tree-sitter sources from build/deps);
#  3. the mirror repository made from packaging/pre-commit/ and stamped with
#     this version: pre-commit installs torchlint==<version> from dist/.
# For 2 and 3, torchlint is not on PATH: `pre-commit run --all-files`, then
# `pre-commit install` and a real `git commit` of a flagged file, which must
# be refused, and of the fixed file, which must go in.
# usage: check-precommit.sh TORCHLINT
set -u
. "$(dirname "$0")/cli/lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^VERSION := //p' "$root/Makefile")

mkdir -p "$tmp/bin" "$tmp/home"
ln -s "$bin" "$tmp/bin/torchlint"
export HOME="$tmp/home" PRE_COMMIT_HOME="$tmp/cache"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
export PIP_FIND_LINKS="$root/dist /usr/share/python-wheels"
basepath=$PATH
withbin="$tmp/bin:$PATH"

# A snapshot of the working tree (tracked and untracked files git does not
# ignore) as a repository of its own, tagged v<version> as a release is, so
# that uncommitted changes are tested too.
mkdir "$tmp/hookrepo"
(cd "$root" && git ls-files -z -co --exclude-standard | xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
	xargs -0 tar cf -) | (cd "$tmp/hookrepo" && tar xf -)
(cd "$tmp/hookrepo" && git init -q . && git add -A && git commit -qm snapshot && git tag "v$version")

flagged() {
	cat >train.py <<'PY'
import torch

def train(model, loader, criterion):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
PY
}
fixed() { sed -i 's/        optimizer.step()/        optimizer.step()\n        optimizer.zero_grad()/' train.py; }
scratch() {
	rm -rf "$tmp/scratch"
	mkdir "$tmp/scratch"
	cd "$tmp/scratch" || exit 1
	git init -q .
	flagged
	printf 'notes\n' >README.txt
	git add train.py README.txt
}

# --- 1. torchlint-system ------------------------------------------------------
export PATH="$withbin"
scratch
pre-commit try-repo "$tmp/hookrepo" torchlint-system --all-files >out.txt 2>&1
status=$?
if [ $status -ne 0 ] && grep -q "train.py:8:9: TL201" out.txt && grep -q "Failed" out.txt; then ok; else
	bad "system hook on a flagged file: exit $status"; cat out.txt; fi
fixed
git add train.py
pre-commit try-repo "$tmp/hookrepo" torchlint-system --all-files >out.txt 2>&1
status=$?
if [ $status -eq 0 ] && grep -q "Passed" out.txt; then ok; else
	bad "system hook on a correct file: exit $status"; cat out.txt; fi

# The hook definitions: the fields pre-commit needs to run torchlint once on
# Python files and notebooks, for both hooks and the mirror's.
for f in "$root/.pre-commit-hooks.yaml" "$root/packaging/pre-commit/.pre-commit-hooks.yaml"; do
	for field in 'require_serial: true' 'types_or: [python, jupyter]' 'minimum_pre_commit_version: "2.9.0"' \
		'entry: torchlint --force-exclude' 'language: python' '- id: torchlint'; do
		if grep -qF -- "$field" "$f"; then ok; else bad "$f lacks '$field'"; fi
	done
done
for field in '- id: torchlint-system' 'language: system'; do
	if grep -qF -- "$field" "$root/.pre-commit-hooks.yaml"; then ok; else bad ".pre-commit-hooks.yaml lacks '$field'"; fi
done

# The README's local-hook snippet, as written (the yaml block after the
# <!-- local-hook --> marker): a local hook that runs torchlint from PATH.
scratch
awk '/<!-- local-hook -->/ { mark = 1 } mark && /^```yaml$/ { on = 1; next } on && /^```$/ { exit } on' \
	"$root/README.md" >.pre-commit-config.yaml
if grep -q 'language: system' .pre-commit-config.yaml; then ok; else bad "no local-hook snippet in the README"; fi
git add .pre-commit-config.yaml
pre-commit run --all-files >out.txt 2>&1
status=$?
if [ $status -ne 0 ] && grep -q "train.py:8:9: TL201" out.txt && grep -q "Failed" out.txt; then ok; else
	bad "the README's snippet on a flagged file: exit $status"; cat out.txt; fi
fixed
git add train.py
pre-commit run --all-files >out.txt 2>&1
status=$?
if [ $status -eq 0 ] && grep -q "Passed" out.txt; then ok; else
	bad "the README's snippet on a correct file: exit $status"; cat out.txt; fi

# --- 2 and 3: hooks that install torchlint, which is not on PATH -------------
export PATH="$basepath"
if command -v torchlint >/dev/null 2>&1; then
	# Run from PATH entries that hold no torchlint.
	PATH=$(printf '%s' "$PATH" | tr ':' '\n' | while read -r d; do [ -x "$d/torchlint" ] || printf '%s:' "$d"; done)
	export PATH=${PATH%:}
fi
if command -v torchlint >/dev/null 2>&1; then bad "torchlint is still on PATH"; else ok; fi

# installed_version STAMP: the version of the torchlint in the hook environment
# pre-commit made after STAMP was touched.
installed_version() {
	t=$(find "$PRE_COMMIT_HOME" -path '*py_env-*/bin/torchlint' -newer "$1" 2>/dev/null | head -1)
	[ -n "$t" ] && "$t" --version
}

# hook_end_to_end NAME REPO: run --all-files, then commits through the hook.
hook_end_to_end() {
	name=$1 repo=$2
	scratch
	cat >.pre-commit-config.yaml <<EOF
repos:
  - repo: $repo
    rev: v$version
    hooks:
      - id: torchlint
EOF
	git add .pre-commit-config.yaml
	touch "$tmp/stamp-$name"
	pre-commit run --all-files >out.txt 2>&1
	status=$?
	if [ $status -eq 1 ] && grep -q "train.py:8:9: TL201" out.txt && grep -q "Failed" out.txt; then ok; else
		bad "$name: run --all-files on a flagged file: exit $status"; tail -30 out.txt; fi
	if [ "$(installed_version "$tmp/stamp-$name")" = "torchlint $version" ]; then ok; else
		bad "$name: the hook environment has no torchlint $version"; fi
	pre-commit install >/dev/null 2>&1 || bad "$name: pre-commit install failed"
	git commit -qm flagged >out.txt 2>&1
	status=$?
	if [ $status -ne 0 ] && grep -q "train.py:8:9: TL201" out.txt && ! git rev-parse -q --verify HEAD >/dev/null; then ok; else
		bad "$name: git commit of a flagged file: exit $status"; cat out.txt; fi
	fixed
	git add train.py
	git commit -qm fixed >out.txt 2>&1
	status=$?
	if [ $status -eq 0 ] && grep -q "Passed" out.txt && git rev-parse -q --verify HEAD >/dev/null; then ok; else
		bad "$name: git commit of a correct file: exit $status"; cat out.txt; fi
}

# 2. This repository's own hook builds the binary; its tree-sitter sources
# come from this checkout (no npm): TS_LIB_DIR and TS_PYTHON_DIR as make
# has them, else build/deps.
[ -n "${TS_LIB_DIR:-}" ] || export TORCHLINT_DEPS="$root/build/deps"
hook_end_to_end "repository hook" "$tmp/hookrepo"

# 3. The mirror, stamped with this version, installs the wheel from dist/.
whl=$(ls "$root"/dist/torchlint-"$version"-py3-none-*.whl 2>/dev/null | head -1)
if [ -z "$whl" ] || [ -n "$(cd "$root" && find analyzer rules queries skills setup.py tools packaging -newer "$whl" -type f | head -1)" ]; then
	make -C "$root" --no-print-directory -s dist >"$tmp/dist.log" 2>&1 || { bad "make dist failed"; cat "$tmp/dist.log"; }
fi
cp -r "$root/packaging/pre-commit" "$tmp/mirror"
cd "$tmp/mirror" || exit 1
sed -i 's/"torchlint==[^"]*"/"torchlint==0.0.1"/; s/^version = .*/version = "0.0.1"/' pyproject.toml
sed -i 's/rev: v[0-9.]*/rev: v0.0.1/' README.md
if [ "$(python3 stamp_version.py "$version")" = "v$version" ]; then ok; else bad "stamp_version.py did not print v$version"; fi
has "stamped pin" pyproject.toml "\"torchlint==$version\""
has "stamped version" pyproject.toml "version = \"$version\""
has "stamped README" README.md "rev: v$version"
hasnt "nothing left of the old version" README.md "v0.0.1"
git init -q . && git add -A && git commit -qm "torchlint $version" && git tag "v$version"
hook_end_to_end "mirror hook" "$tmp/mirror"
# The stamping script refuses what it cannot do.
cp -r "$root/packaging/pre-commit" "$tmp/mirror2"
run "stamp_version.py with no version" 2 python3 "$tmp/mirror2/stamp_version.py"
run "stamp_version.py with a bad version" 2 python3 "$tmp/mirror2/stamp_version.py" "latest"
sed -i 's/"torchlint==[^"]*"//' "$tmp/mirror2/pyproject.toml"
run "stamp_version.py on a template without the pin" 1 python3 "$tmp/mirror2/stamp_version.py" 1.2.3
has "stamp_version.py says what it missed" "$tmp/err" "torchlint=="

echo "pre-commit: $pass passed, $fail failed"
[ "$fail" = 0 ]
