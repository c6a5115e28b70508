#!/bin/sh
# The GitHub Action (action.yml), run here by tests/action_runner.py as a
# runner would run its steps (bash -eo pipefail, GITHUB_OUTPUT, GITHUB_PATH),
# installing the wheel from dist/ with no network (PIP_NO_INDEX=1), on a
# scratch repository with a flagged and a correct file: each format, the
# inputs that change what it does, bad inputs; and the README's workflow.
# usage: check-action.sh TORCHLINT
set -u
. "$(dirname "$0")/cli/lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^VERSION := //p' "$root/Makefile")
py=/usr/bin/python3
[ -x "$py" ] || py=python3
runner="$py $root/tests/action_runner.py $root/action.yml"

whl=$(ls "$root"/dist/torchlint-"$version"-py3-none-*.whl 2>/dev/null | head -1)
if [ -z "$whl" ] || [ -n "$(cd "$root" && find analyzer rules queries skills setup.py tools packaging -newer "$whl" -type f | head -1)" ]; then
	make -C "$root" --no-print-directory -s dist >"$tmp/dist.log" 2>&1 || { bad "make dist failed"; cat "$tmp/dist.log"; }
fi
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_FIND_LINKS="$root/dist" RUNNER_TEMP="$tmp/runner"
mkdir -p "$tmp/runner" "$tmp/ws/src"
cd "$tmp/ws" || exit 1
git init -q .
cat >src/train.py <<'PY'
import torch

def train(model, loader, criterion):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
PY
printf 'x = 1\n' >src/ok.py

# The defaults pin this release, and the README's workflow uses it.
has "the action pins this version" "$root/action.yml" "default: \"$version\""
awk '/<!-- github-action -->/ { mark = 1 } mark && /^```yaml$/ { on = 1; next } on && /^```$/ { exit } on' \
	"$root/README.md" >"$tmp/workflow.yml"
# Before a release the README's workflow builds the action's checkout.
has "README workflow builds from the checkout" "$tmp/workflow.yml" "uses: torchlint/torchlint@main"
has "README workflow: source" "$tmp/workflow.yml" 'source: "true"'
# Every input the README's workflow passes exists, and the runner takes them.
"$py" - "$tmp/workflow.yml" "$root/action.yml" >"$tmp/readme-inputs" <<'EOF' || bad "README workflow: inputs the action lacks"
import sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
inputs = yaml.safe_load(open(sys.argv[2]))["inputs"]
step = [s for s in wf["jobs"]["torchlint"]["steps"] if s.get("uses", "").startswith("torchlint/torchlint@")][0]
missing = [k for k in step.get("with", {}) if k not in inputs]
print("\n".join("%s=%s" % (k, v) for k, v in step.get("with", {}).items()))
sys.exit(1 if missing else 0)
EOF

# 1. Defaults: annotations, the job fails on findings.
run "format github on a flagged file" 1 $runner "$tmp/ws"
has "installed the pinned version" "$tmp/out" "torchlint $version"
has "annotation" "$tmp/out" "::error file=src/train.py,line=8,col=9"
has "output exit-code" "$tmp/out" "output exit-code=1"
has "the last step fails the job" "$tmp/out" "step failed: Fail on findings"
run "fail-on-findings false" 0 $runner "$tmp/ws" fail-on-findings=false
has "reports without failing" "$tmp/out" "::error file=src/train.py"
run "a correct file" 0 $runner "$tmp/ws" args=src/ok.py
has "output exit-code 0" "$tmp/out" "output exit-code=0"
has "fail step skipped" "$tmp/out" "skipped: Fail on findings"

# 2. SARIF: written, valid, uploaded before the job fails on findings.
run "format sarif" 1 $runner "$tmp/ws" format=sarif "args=src --select ALL"
has "upload step" "$tmp/out" 'uses: github/codeql-action/upload-sarif@v3 with {"category": "torchlint", "sarif_file": "./torchlint.sarif"}'
has "sarif output" "$tmp/out" "output sarif-file=torchlint.sarif"
if [ -f torchlint.sarif ]; then
	json "SARIF has the finding" torchlint.sarif \
		"d.version === '2.1.0' && d.runs[0].results.some(r => r.ruleId === 'TL201' && r.locations[0].physicalLocation.artifactLocation.uri === 'src/train.py')"
else bad "no torchlint.sarif written"; fi
rm -f torchlint.sarif
run "upload-sarif false, elsewhere" 0 $runner "$tmp/ws" format=sarif upload-sarif=false fail-on-findings=false \
	working-directory=src sarif-file=out.sarif args=.
hasnt "no upload" "$tmp/out" "uses: github/codeql-action"
if [ -f src/out.sarif ]; then ok; else bad "sarif-file in working-directory not written"; fi

# An absolute sarif-file is uploaded from where it was written (it was
# made relative: working-directory/ before it).
run "sarif-file absolute" 0 $runner "$tmp/ws" format=sarif fail-on-findings=false working-directory=src \
	"sarif-file=$tmp/abs.sarif" args=.
has "upload of the absolute path" "$tmp/out" "\"sarif_file\": \"$tmp/abs.sarif\""
if [ -f "$tmp/abs.sarif" ]; then ok; else bad "the absolute sarif-file was not written"; fi
run "sarif-file relative, in working-directory" 0 $runner "$tmp/ws" format=sarif fail-on-findings=false \
	working-directory=src sarif-file=rel.sarif args=.
has "upload below working-directory" "$tmp/out" '"sarif_file": "src/rel.sarif"'
rm -f "$tmp/abs.sarif" src/rel.sarif

# Install paths that need no release on PyPI: a wheel file, or a build of
# the action's own checkout (version 0.0.0 is in no index: not used).
mkdir -p wheels && cp "$whl" wheels/
wname=$(basename "$whl")
run "wheel input" 1 $runner "$tmp/ws" version=0.0.0 "wheel=wheels/$wname"
has "the wheel's torchlint" "$tmp/out" "torchlint $version"
has "wheel: annotation" "$tmp/out" "::error file=src/train.py,line=8,col=9"
run "wheel input, absolute" 0 $runner "$tmp/ws" version=0.0.0 "wheel=$tmp/ws/wheels/$wname" args=src/ok.py
has "absolute wheel installed" "$tmp/out" "torchlint $version"
run "wheel input, no such file" 1 $runner "$tmp/ws" wheel=wheels/none.whl
has "no such wheel said" "$tmp/out" "no wheel file 'wheels/none.whl'"
run "wheel input, not a wheel" 1 $runner "$tmp/ws" wheel=--index-url=http://x
has "not a wheel said" "$tmp/out" "the wheel input must name a .whl file"
rm -r wheels
run "source input" 1 $runner "$tmp/ws" version=0.0.0 source=true
has "source: built" "$tmp/out" "torchlint $version"
has "source: annotation" "$tmp/out" "::error file=src/train.py,line=8,col=9"
run "source input, bad" 1 $runner "$tmp/ws" source=yes
has "source: bad value said" "$tmp/out" "source must be true or false"

# 3. The README's own inputs.
# One input a line, each one argument.
old_ifs=$IFS
IFS='
'
set -- $(cat "$tmp/readme-inputs")
IFS=$old_ifs
has "README workflow passes args" "$tmp/readme-inputs" "args=src/ --select ALL"
run "README workflow inputs" 1 $runner "$tmp/ws" "$@"
has "README workflow uploads" "$tmp/out" "uses: github/codeql-action/upload-sarif@v3"

# 4. Bad inputs stop with an error (exit 2 inside the step), not a pass.
run "unknown format" 1 $runner "$tmp/ws" format=xml
has "unknown format message" "$tmp/out" "format must be github or sarif"
run "a version input that is not a version" 1 $runner "$tmp/ws" 'version=1.0;touch pwned'
has "version message" "$tmp/out" "bad version input"
if [ ! -e pwned ]; then ok; else bad "the version input ran as a command"; fi
run "a version that is not in the index" 1 $runner "$tmp/ws" version=0.0.0
has "install failed" "$tmp/out" "step failed: Install torchlint"
run "an unreadable path is an error, not findings" 1 $runner "$tmp/ws" args=missing.py fail-on-findings=false
has "the run step fails" "$tmp/out" "step failed: Run torchlint (exit 1)"
has "exit-code 2" "$tmp/out" "output exit-code=2"
# The runner refuses an input the action does not declare.
run "unknown input" 2 $runner "$tmp/ws" colour=yes

echo "action: $pass passed, $fail failed"
[ "$fail" = 0 ]
