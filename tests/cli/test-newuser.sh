#!/bin/sh
# Integration tests of what a new user meets first (issue 12): configuration
# as TOML writes it, noqa directives, SARIF paths for code scanning, the
# command-line conventions ruff users expect, and --fix / --diff.
# usage: test-newuser.sh TORCHLINT
set -u
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)

mkdir -p "$tmp/p"
cd "$tmp/p" || exit 1
cat >train.py <<'PY'
import torch
import torch.nn as nn

def train(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    losses = []
    for x, y in loader:
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss)
    return losses
PY

# --- configuration: the documented example, as written, and TOML as it is written -----------
mkdir -p readme
awk '/^```toml$/ && !done { on = 1; next } /^```$/ && on { on = 0; done = 1 } on' "$here/docs/configuration.md" >readme/pyproject.toml
cp train.py readme/
run readme-config 1 "$bin" --format concise readme/train.py
has readme-config-applies "$tmp/out" "TL101"
mkdir -p forms
cat >forms/pyproject.toml <<'TOML'
[project]
name = "x"  # another tool's table

[tool]
torchlint.ignore = [   # a dotted key under [tool]
    "TL101",  # a comment inside the array
    'TL999x'  ,
]
TOML
cp train.py forms/
run dotted-unknown-selector 2 "$bin" forms/train.py
has dotted-unknown-selector "$tmp/err" "/forms/pyproject.toml:7:5: error: 'TL999x' in 'ignore' matches no rule"
cat >forms/pyproject.toml <<'TOML'
[tool]
torchlint = { ignore = ["TL101"], per-file-ignores = { "train.py" = ["TL201"] } }  # inline tables
TOML
run inline-tables 0 "$bin" forms/train.py
cat >forms/pyproject.toml <<'TOML'
[tool.torchlint]
ignore = """TL101"""
TOML
run wrong-type 2 "$bin" forms/train.py
has wrong-type "$tmp/err" "forms/pyproject.toml:2:10: error: expected a list of strings for 'ignore'"
printf '[tool.torchlint]\nignore = ["TL101"]\n\n[tool.torchlint]\nselect = ["ALL"]\n' >forms/pyproject.toml
run duplicate-table 2 "$bin" forms/train.py
has duplicate-table "$tmp/err" "forms/pyproject.toml:4:1: error: table 'torchlint' is already defined"
printf '[tool.torchlint]\nignore = ["TL101"]\nignore = ["TL201"]\n' >forms/pyproject.toml
run duplicate-key 2 "$bin" forms/train.py
has duplicate-key "$tmp/err" "forms/pyproject.toml:3:1: error: duplicate key 'ignore'"
printf '[tool.torchlint]\nignore = ["TL101",\n' >forms/pyproject.toml
run unclosed-array 2 "$bin" forms/train.py
has unclosed-array "$tmp/err" "forms/pyproject.toml:3:1: error: expected a value"
printf '[tool.torchlint]\n' >forms/pyproject.toml
printf '[tool.torchlint]\nselect = ["TL106"]\n' >pyproject.toml
run empty-table-counts 1 "$bin" --format concise forms/train.py
has empty-table-counts "$tmp/out" "TL201"
has empty-table-counts-2 "$tmp/out" "TL101"
rm pyproject.toml
# A large pyproject.toml (50,000 keys in another tool's table) reads in linear
# time: ten times the keys take about ten times as long (the quadratic
# duplicate check made it a hundred; 17 s for 50,000 keys).
keys() { awk -v n="$1" 'BEGIN { print "[tool.other]"; for (i = 0; i < n; i++) printf "k%d = \"v\"  # c\n", i; print "[tool.torchlint]"; print "ignore = [\"TL101\"]" }'; }
now() { date +%s.%N; }
keys 5000 >forms/pyproject.toml
t0=$(now); "$bin" -q forms/train.py >/dev/null 2>&1; t1=$(now)
keys 50000 >forms/pyproject.toml
t2=$(now)
run big-pyproject 1 "$bin" --format concise forms/train.py
t3=$(now)
if awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" 'BEGIN { exit !((d - c) < 30 * (b - a) + 0.5) }'; then ok; else
	bad "big-pyproject: 50,000 keys took $(awk -v c="$t2" -v d="$t3" 'BEGIN { print d - c }') s, 5,000 keys $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s"; fi
hasnt big-pyproject "$tmp/out" "TL101"

# --- noqa -----------------------------------------------------------------------------------
cat >noqa.py <<'PY'
import torch

def train(model, loader, opt, crit):
    losses = []
    for x, y in loader:
        loss = crit(model(x), y)
        loss.backward()
        opt.step()  # noqa: tl201
        losses.append(loss)  # NoQA: Tl101
        losses.append(loss)  # noqa: memory
        losses.append(loss)  # noqa: TL1
        losses.append(loss)  # noqa: loss-accumulated-with-graph
        losses.append(loss)  # noqa: tl
        losses.append(loss)  # noqa: E501, TL101 -- a reason
        losses.append(loss)  # torchlint: noqa
    return losses
PY
run noqa 1 "$bin" --isolated --extend-select TL101 --format concise noqa.py
hasnt noqa-lowercase-code "$tmp/out" "noqa.py:8:"
hasnt noqa-mixed-case "$tmp/out" "noqa.py:9:"
has noqa-family-not-blanket "$tmp/out" "noqa.py:10:9: TL101"
has noqa-family-warns "$tmp/err" "noqa.py:10:38: warning: \`# noqa: memory\` suppresses nothing: a noqa takes exact codes, not families"
has noqa-prefix-not-blanket "$tmp/out" "noqa.py:11:9: TL101"
has noqa-prefix-warns "$tmp/err" "noqa.py:11:38: warning: \`# noqa: TL1\` suppresses nothing"
has noqa-name-warns "$tmp/err" "write the rule's code, \`# noqa: TL101\`"
has noqa-no-codes-not-blanket "$tmp/out" "noqa.py:13:9: TL101"
has noqa-no-codes-warns "$tmp/err" "noqa.py:13:30: warning: \`# noqa:\` lists no codes"
hasnt noqa-free-text "$tmp/out" "noqa.py:14:"
has noqa-file-level-own-line "$tmp/out" "noqa.py:15:9: TL101"
has noqa-file-level-warns "$tmp/err" "noqa.py:15:30: warning: \`# torchlint: noqa\` is ignored here"
run noqa-quiet 1 "$bin" --isolated --extend-select TL101 -q --format concise noqa.py
lines noqa-quiet-no-warnings "$tmp/err" 0
run noqa-tl001 1 "$bin" --isolated --format concise --select TL001 noqa.py
hasnt noqa-other-tool-not-reported "$tmp/out" "E501"
printf 'x = 1  # noqa B950\ny = 2  # noqa: E501\nz = 3  # noqa\n' >othertools.py
run noqa-other-tools 0 "$bin" --isolated -q --format concise --select TL001 othertools.py
lines noqa-other-tools-silent "$tmp/out" 0
lines noqa-other-tools-no-warning "$tmp/err" 0
printf 'x = 1  # noqa TL101\n' >colonless.py
run noqa-colonless-ours 0 "$bin" --isolated --format concise colonless.py
has noqa-colonless-ours-warns "$tmp/err" "colonless.py:1:8: warning: \`# noqa\` codes need a colon"
mkdir -p ext
cp noqa.py ext/
printf '[tool.torchlint]\nextend-select = ["TL001"]\nexternal = ["E5", "F401"]\n' >ext/pyproject.toml
run noqa-external 1 "$bin" --format concise ext/noqa.py
hasnt noqa-external-silent "$tmp/out" "E501"
printf '[tool.torchlint]\nexternal = ["E-5"]\n' >ext/pyproject.toml
run external-invalid 2 "$bin" ext/noqa.py
has external-invalid "$tmp/err" "'E-5' in 'external' is not a rule code or prefix"

# --- SARIF for code scanning ------------------------------------------------------------------
mkdir -p repo/src/sub repo/docs
(cd repo && git init -q . 2>/dev/null)
cp train.py repo/src/sub/train.py
ln -s train.py repo/src/sub/link.py
printf 'import torch\nm = torch.load("w.pt")  # noqa: memory\n' >repo/src/load.py
cd repo/src/sub || exit 1
run sarif-subdir 2 "$bin" --isolated --format sarif --torch-version 2.4 . ../load.py ../../docs/../src/sub/train.py missing.py
cd "$tmp/p" || exit 1
cp "$tmp/out" sarif.json
json sarif-root "sarif.json" "d.runs[0].originalUriBaseIds['%SRCROOT%'].uri.endsWith('/repo/') && d.runs[0].originalUriBaseIds['%SRCROOT%'].uri.startsWith('file:///')"
json sarif-uri-from-root "sarif.json" "d.runs[0].results.filter(r => r.ruleId === 'TL201').every(r => r.locations[0].physicalLocation.artifactLocation.uri === 'src/sub/train.py' && r.locations[0].physicalLocation.artifactLocation.uriBaseId === '%SRCROOT%')"
json sarif-symlink-once "sarif.json" "d.runs[0].results.filter(r => r.ruleId === 'TL201').length === 1"
json sarif-dotdot "sarif.json" "d.runs[0].results.some(r => r.locations[0].physicalLocation.artifactLocation.uri === 'src/load.py')"
json sarif-security "sarif.json" "(() => { const r = d.runs[0].tool.driver.rules.find(x => x.id === 'TL501'); return r.properties.tags.includes('security') && r.properties['security-severity'] === '8.1' })()"
json sarif-problem-severity "sarif.json" "d.runs[0].tool.driver.rules.every(r => ['error', 'warning', 'recommendation'].includes(r.properties['problem.severity']))"
json sarif-full-description "sarif.json" "d.runs[0].tool.driver.rules.every(r => r.fullDescription.text.length <= 1024 && r.fullDescription.text.length > 0)"
json sarif-short-description "sarif.json" "d.runs[0].tool.driver.rules.every(r => { const t = r.shortDescription.text.replace(/\`[^\`]*\`/g, 'X').replace(/\([^()]*\)/g, 'X'); return t.endsWith('.') && !/[.!?] /.test(t) && t.length <= 1024 })"
json sarif-help-keeps-all "sarif.json" "d.runs[0].tool.driver.rules.find(x => x.id === 'TL101').help.markdown.length > 1024"
json sarif-missing-input "sarif.json" "d.runs[0].invocations[0].toolExecutionNotifications.some(n => n.level === 'error' && n.message.text.includes(\"cannot read 'missing.py'\")) && d.runs[0].invocations[0].executionSuccessful === false"
json sarif-noqa-warning "sarif.json" "d.runs[0].invocations[0].toolExecutionNotifications.some(n => n.level === 'warning' && n.message.text.includes('not families') && n.locations[0].physicalLocation.artifactLocation.uri === 'src/load.py')"
has missing-input-says-so "$tmp/err" "cannot read 'missing.py'"

# --- command-line conventions ---------------------------------------------------------------
mkdir -p conv
cp train.py conv/
cd conv || exit 1
run no-path-is-dot 1 "$bin" --isolated --format concise
has no-path-is-dot "$tmp/out" "train.py:11:9: TL201"
run output-format 1 "$bin" --isolated --output-format concise train.py
has output-format "$tmp/out" "train.py:11:9: TL201"
run statistics-json 1 "$bin" --isolated --extend-select TL101 --statistics --format json train.py
json statistics-json "$tmp/out" "d.length === 2 && d.some(s => s.code === 'TL201' && s.name === 'missing-zero-grad' && s.count === 1 && s.fixable === false) && d.some(s => s.code === 'TL101' && s.fixable === true)"
run explain-lowercase 0 "$bin" --explain tl101
has explain-lowercase "$tmp/out" "TL101 loss-accumulated-with-graph"
run explain-name 0 "$bin" --explain missing-zero-grad
has explain-name "$tmp/out" "TL201 missing-zero-grad"
run stdin-filename-alone 1 sh -c "'$bin' --isolated --format concise --stdin-filename sub/named.py <train.py"
has stdin-filename-alone "$tmp/out" "sub/named.py:11:9: TL201"
run show-files 0 "$bin" --isolated --show-files .
has show-files "$tmp/out" "train.py"
lines show-files "$tmp/out" 1
# Symbolic links in a walked folder (issue 26): --show-files names what the
# walk passed over (a folder link) and which names are one file.
mkdir -p sl/t sl/elsewhere
cp train.py sl/t/real.py
ln -s real.py sl/t/alias.py
ln -s ../elsewhere sl/t/more
cp train.py sl/elsewhere/x.py
run show-files-links 0 "$bin" --isolated --show-files sl/t
has show-files-links "$tmp/out" "sl/t/alias.py"
lines show-files-links "$tmp/out" 1
has show-files-folder-link "$tmp/err" "torchlint: skipped 'sl/t/more': a symbolic link to a folder: a walk does not follow it"
has show-files-merged "$tmp/err" "torchlint: 'sl/t/real.py' names the same file as 'sl/t/alias.py' (through a symbolic link): analysed once, as 'sl/t/alias.py'"
run links-quiet 1 "$bin" --isolated --format concise sl/t
hasnt links-quiet "$tmp/err" "skipped"
rm -rf sl
printf '[tool.torchlint]\nignore = ["TL101"]\ntorch-version = "2.4"\n' >pyproject.toml
run show-settings 0 "$bin" --show-settings train.py --extend-select TL207
has show-settings-file "$tmp/out" "Configuration file: $tmp/p/conv/pyproject.toml"
has show-settings-ignore "$tmp/out" "ignore             [\"TL101\"]  ($tmp/p/conv/pyproject.toml)"
has show-settings-cli "$tmp/out" "--extend-select    [\"TL207\"]  (command line)"
has show-settings-version "$tmp/out" "torch-version      2.4  ($tmp/p/conv/pyproject.toml)"
hasnt show-settings-rules "$tmp/out" "TL101,"
has show-settings-rules "$tmp/out" "TL207"
rm pyproject.toml
run missing-path 2 "$bin" --isolated nowhere.py
has missing-path "$tmp/err" "cannot read 'nowhere.py'"
hasnt missing-path-not-passed "$tmp/out" "All checks passed"
has missing-path-says "$tmp/out" "Nothing was checked"
# Lone CR line endings are line breaks (old Mac files), not syntax errors.
printf 'import torch\rdef f(model, loader, opt, crit):\r    for x, y in loader:\r        loss = crit(model(x), y)\r        loss.backward()\r        opt.step()\r' >cr.py
run lone-cr 1 "$bin" --isolated --format concise cr.py
has lone-cr "$tmp/out" "cr.py:6:9: TL201"
hasnt lone-cr-no-syntax-error "$tmp/out" "TL000"
# Carets under wide characters and tabs: one per terminal column.
printf 'import torch\n\ndef f(device):\n\tx = torch.zeros(4)\n\ts = "\344\270\255\346\226\207"; x.to(device)\n' >wide.py
run wide-carets 1 "$bin" --isolated --color never wide.py
has wide-carets-line "$tmp/out" "5 |     s = \"$(printf '\344\270\255\346\226\207')\"; x.to(device)"
has wide-carets "$tmp/out" "  |                 ^^^^^^^^^^^^ TL206"
cd "$tmp/p" || exit 1

# --- --fix, --diff, --unsafe-fixes, --add-noqa --------------------------------------------------
mkdir -p fx
cat >fx/t.py <<'PY'
import torch
from torch.utils.checkpoint import checkpoint


def train(model, loader, opt, crit, block):
    x0 = torch.zeros(4)
    x0.to("cuda")
    losses = []
    for x, y in loader:
        opt.zero_grad()
        loss = crit(model(checkpoint(block, x)), y)
        loss.backward()
        opt.step()
        losses.append(loss)
    return losses
PY
cp fx/t.py fx/orig.py
run fix-diff 1 "$bin" --isolated --diff fx/t.py
has fix-diff "$tmp/out" "+    x0 = x0.to(\"cuda\")"
hasnt fix-diff-safe-only "$tmp/out" "use_reentrant"
has fix-diff-summary "$tmp/err" "Would fix 1 finding in 1 file."
cmp -s fx/t.py fx/orig.py && ok || bad "--diff changed the file"
run fix-hint 1 "$bin" --isolated --extend-select TL101 fx/t.py
has fix-hint-safe "$tmp/out" "1 fixable with --fix"
has fix-hint-unsafe "$tmp/out" "2 more fixable with --fix --unsafe-fixes"
run fix-safe 1 "$bin" --isolated --fix --format concise fx/t.py
has fix-safe-summary "$tmp/err" "Fixed 1 finding in 1 file."
hasnt fix-safe-left "$tmp/out" "TL206"
has fix-safe-left-others "$tmp/out" "TL503"
grep -q '    x0 = x0.to("cuda")' fx/t.py && ok || bad "--fix did not write the file"
run fix-unsafe 0 "$bin" --isolated --extend-select TL101 --fix --unsafe-fixes --format concise fx/t.py
has fix-unsafe-summary "$tmp/err" "Fixed 2 findings in 1 file."
grep -q 'checkpoint(block, x, use_reentrant=False)' fx/t.py && grep -q 'losses.append(loss.detach())' fx/t.py && ok || bad "--unsafe-fixes did not apply TL503 and TL101"
run fix-nothing-left 0 "$bin" --isolated --diff fx/t.py
lines fix-nothing-left "$tmp/out" 0
# JSON carries each fix beside the rule's hint (`fix` stays the hint text).
run fix-json 1 "$bin" --isolated --format json fx/orig.py
json fix-json "$tmp/out" "d.find(f => f.code === 'TL206').autofix.applicability === 'safe' && d.find(f => f.code === 'TL206').autofix.edits[0].content === 'x0 = ' && d.find(f => f.code === 'TL206').autofix.edits[0].location.line === 7 && typeof d.find(f => f.code === 'TL206').fix === 'string' && d.find(f => f.code === 'TL201') === undefined"
json fix-json-unsafe "$tmp/out" "d.find(f => f.code === 'TL503').autofix.applicability === 'unsafe'"
run fix-sarif 1 "$bin" --isolated --format sarif fx/orig.py
json fix-sarif "$tmp/out" "d.runs[0].results.find(r => r.ruleId === 'TL206').fixes[0].artifactChanges[0].replacements[0].insertedContent.text === 'x0 = '"
# Standard input: the fixed source goes to the output.
run fix-stdin 0 sh -c "'$bin' --isolated --extend-select TL101 --fix --unsafe-fixes --stdin-filename t.py - <fx/orig.py"
has fix-stdin "$tmp/out" "    x0 = x0.to(\"cuda\")"
cmp -s "$tmp/out" fx/t.py && ok || bad "fix-stdin: output differs from the fixed file"
# --add-noqa: every finding gets its noqa, merged into one already there.
cat >fx/n.py <<'PY'
import torch


def train(model, loader, opt, crit):
    losses = []
    for x, y in loader:
        loss = crit(model(x), y)
        loss.backward()
        opt.step()  # noqa: TL101 -- kept
        losses.append(loss)
    s = """multi
    line"""; torch.zeros(1).to("cuda")
    return losses
PY
run add-noqa 0 "$bin" --isolated --extend-select TL101 --add-noqa fx/n.py
has add-noqa-summary "$tmp/err" "Added 2 noqa directives in 1 file."
grep -q 'opt.step()  # noqa: TL101, TL201 -- kept' fx/n.py && ok || bad "add-noqa did not merge into the existing directive"; 
grep -q 'losses.append(loss)  # noqa: TL101$' fx/n.py && ok || bad "add-noqa did not add a directive"
run add-noqa-clean 0 "$bin" --isolated --extend-select TL101 fx/n.py

echo "newuser: $pass passed, $fail failed"
[ "$fail" = 0 ]
