#!/bin/sh
# The pre-commit hook, as a user meets it: Debian's pre-commit runs
# `try-repo` of this repository on a scratch git repository, with the built
# torchlint on PATH (the hook is `language: system`). The hook must fail on
# a flagged file and pass on a correct one.
# usage: check-precommit.sh TORCHLINT
set -u
. "$(dirname "$0")/cli/lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)

mkdir -p "$tmp/bin" "$tmp/home"
ln -s "$bin" "$tmp/bin/torchlint"
export PATH="$tmp/bin:$PATH" HOME="$tmp/home" PRE_COMMIT_HOME="$tmp/cache"
# try-repo needs the hook definition committed; work from a snapshot of the
# repository's files so that uncommitted changes are tested too.
git clone -q "$root" "$tmp/hookrepo"
cp "$root/.pre-commit-hooks.yaml" "$tmp/hookrepo/"
(cd "$tmp/hookrepo" && git add .pre-commit-hooks.yaml &&
	git -c user.email=t@example.com -c user.name=t commit -qm hooks --allow-empty)

mkdir "$tmp/scratch"
cd "$tmp/scratch" || exit 1
git init -q .
cat >train.py <<'PY'
import torch

def train(model, loader, criterion):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
PY
printf 'notes\n' >README.txt
git add train.py README.txt
pre-commit try-repo "$tmp/hookrepo" torchlint --all-files >out.txt 2>&1
status=$?
if [ $status -ne 0 ] && grep -q "train.py:8:9: TL201" out.txt && grep -q "Failed" out.txt; then ok; else
	bad "hook on a flagged file: exit $status"; cat out.txt; fi
sed -i 's/        optimizer.step()/        optimizer.step()\n        optimizer.zero_grad()/' train.py
git add train.py
pre-commit try-repo "$tmp/hookrepo" torchlint --all-files >out.txt 2>&1
status=$?
if [ $status -eq 0 ] && grep -q "Passed" out.txt; then ok; else
	bad "hook on a correct file: exit $status"; cat out.txt; fi

# The hook definition: the fields pre-commit needs to run torchlint once on
# Python files and notebooks.
for field in 'require_serial: true' 'types_or: [python, jupyter]' 'minimum_pre_commit_version:' 'language: system'; do
	if grep -qF "$field" "$root/.pre-commit-hooks.yaml"; then ok; else bad ".pre-commit-hooks.yaml lacks '$field'"; fi
done

# The README's snippet, as written: a local hook that runs torchlint from PATH.
sed -i 's/        optimizer.zero_grad()//' train.py
git add train.py
awk '/^```yaml$/ { on = 1; next } /^```$/ { on = 0 } on' "$root/README.md" >.pre-commit-config.yaml
git add .pre-commit-config.yaml
pre-commit run --all-files >out.txt 2>&1
status=$?
if [ $status -ne 0 ] && grep -q "train.py:8:9: TL201" out.txt && grep -q "Failed" out.txt; then ok; else
	bad "the README's snippet on a flagged file: exit $status"; cat out.txt; fi
sed -i 's/        optimizer.step()/        optimizer.step()\n        optimizer.zero_grad()/' train.py
git add train.py
pre-commit run --all-files >out.txt 2>&1
status=$?
if [ $status -eq 0 ] && grep -q "Passed" out.txt; then ok; else
	bad "the README's snippet on a correct file: exit $status"; cat out.txt; fi

echo "pre-commit: $pass passed, $fail failed"
[ "$fail" = 0 ]
