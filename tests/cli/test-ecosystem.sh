#!/bin/sh
# Integration tests of how torchlint fits CI, editors and projects: output
# formats, configuration discovery, suppressions, .gitignore, standard
# input and notebooks. Drives the built binary as a user would.
# usage: test-ecosystem.sh TORCHLINT
set -u
. "$(dirname "$0")/lib.sh"

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

# --- json ------------------------------------------------------------------
# train.py has a TL201 and a TL101, both on by default (naming TL101 again
# with --extend-select changes nothing).
run json 1 "$bin" --extend-select TL101 --format json train.py
json json-array "$tmp/out" "Array.isArray(d) && d.length === 2"
json json-fields "$tmp/out" "d[0].code === 'TL201' && d[0].name === 'missing-zero-grad' && d[0].family === 'correctness' && d[0].severity === 'error' && d[0].path === 'train.py' && d[0].start.line === 11 && d[0].start.column === 9 && d[0].end.line === 11 && d[0].end.column === 19 && d[0].cell === null && d[0].message.length > 20 && d[0].fix.length > 10"
json json-order "$tmp/out" "d[1].code === 'TL101' && d[1].start.line === 12"
has json-summary-on-stderr "$tmp/err" "Found 2 findings"
printf 'x = 1\n' >clean.py
run json-clean 0 "$bin" --format json clean.py
json json-clean "$tmp/out" "Array.isArray(d) && d.length === 0"
run output-file 1 "$bin" --extend-select TL101 --format json -o "$tmp/report.json" train.py
lines output-file-stdout "$tmp/out" 0
json output-file "$tmp/report.json" "d.length === 2"
run output-file-bad 2 "$bin" -o "$tmp/no/such/dir/x.json" train.py
has output-file-bad "$tmp/err" "cannot write '$tmp/no/such/dir/x.json'"

# --- github ------------------------------------------------------------------
run github 1 "$bin" --extend-select TL101 --format github train.py
has github "$tmp/out" "::error file=train.py,line=11,col=9,endLine=11,endColumn=19,title=TL201 missing-zero-grad::"
has github-warning "$tmp/out" "::warning file=train.py,line=12,col=9,"
mkdir -p "odd,dir:x"
cp train.py "odd,dir:x/t%1.py"
run github-escape 1 "$bin" --format github "odd,dir:x/t%1.py"
has github-escape "$tmp/out" "file=odd%2Cdir%3Ax/t%251.py,line=11"

# --- statistics, explain, catalog -----------------------------------------------
run statistics 1 "$bin" --extend-select TL101 --statistics train.py
has statistics "$tmp/out" "    1  TL101  loss-accumulated-with-graph"
lines statistics-lines "$tmp/out" 2
run explain 0 "$bin" --explain TL101
has explain-title "$tmp/out" "TL101 loss-accumulated-with-graph (memory, warning, on by default)"
has explain-body "$tmp/out" "### Why is this bad?"
run explain-opt-in 0 "$bin" --explain TL106
has explain-opt-in-title "$tmp/out" "TL106 tensor-kept-with-graph (memory, warning, opt-in: enable with --extend-select TL106)"
has explain-source "$tmp/out" "(from https://github.com/torchlint/torchlint/blob/main/skills/torchlint-memory/SKILL.md)"
run explain-unknown 2 "$bin" --explain TL999
has explain-unknown "$tmp/err" "unknown rule 'TL999'"
run rules-json 0 "$bin" --list-rules --format json
json rules-json "$tmp/out" "d.some(r => r.code === 'TL201' && r.default === true && r.family === 'correctness') && d.some(r => r.code === 'TL001' && r.default === false)"

# --- configuration ------------------------------------------------------------------
mkdir -p cfg/sub/deeper cfg/other
cp train.py cfg/sub/deeper/a.py
cp train.py cfg/other/b.py
cp train.py cfg/c.py
printf '[project]\nname = "demo"\n\n[tool.ruff]\nline-length = 88\n\n[tool.torchlint]\nignore = ["TL101"]\n\n[tool.torchlint.per-file-ignores]\n"other/*.py" = ["correctness"]\n' >cfg/pyproject.toml
printf '[tool.ruff]\nselect = ["E"]\n' >cfg/sub/pyproject.toml
run config 1 "$bin" --format concise cfg
has config-root "$tmp/out" "cfg/c.py:11:9: TL201"
hasnt config-ignore "$tmp/out" "TL101"
has config-skip-foreign-pyproject "$tmp/out" "cfg/sub/deeper/a.py:11:9: TL201"
hasnt config-per-file "$tmp/out" "cfg/other/b.py"
printf 'select = ["memory"]\n' >cfg/sub/torchlint.toml
run config-closest 1 "$bin" --format concise cfg
has config-closest "$tmp/out" "cfg/sub/deeper/a.py:12:9: TL101"
hasnt config-closest-2 "$tmp/out" "cfg/sub/deeper/a.py:11:9: TL201"
run config-isolated 1 "$bin" --format concise --isolated cfg
has config-isolated "$tmp/out" "cfg/other/b.py:11:9: TL201"
printf 'select = ["TL201"]\n' >only201.toml
run config-explicit 1 "$bin" --format concise --config only201.toml cfg
hasnt config-explicit "$tmp/out" "TL101"
has config-explicit-2 "$tmp/out" "cfg/other/b.py:11:9: TL201"
run config-cli-wins 1 "$bin" --format concise --select TL101 cfg/c.py
has config-cli-wins "$tmp/out" "cfg/c.py:12:9: TL101"
printf '[tool.torchlint]\nignore = ["TL101"]\nselekt = ["TL1"]\n' >cfg/other/pyproject.toml
run config-unknown-key 2 "$bin" cfg
has config-unknown-key "$tmp/err" "cfg/other/pyproject.toml:3:10: error: unknown key 'selekt'"
printf '[tool.torchlint]\nignore = ["TL9"]\n' >cfg/other/pyproject.toml
run config-bad-selector 2 "$bin" cfg/other
has config-bad-selector "$tmp/err" "pyproject.toml:2:11: error: 'TL9' in 'ignore' matches no rule"
printf '[tool.torchlint]\ntorch-version = "two"\n' >cfg/other/pyproject.toml
run config-bad-version 2 "$bin" cfg/other
has config-bad-version "$tmp/err" "error: expected a version string such as \"2.4\" for 'torch-version'"
printf '[tool.torchlint\nignore = 1\n' >cfg/other/pyproject.toml
run config-syntax 2 "$bin" cfg/other
has config-syntax "$tmp/err" "cfg/other/pyproject.toml:1:"
printf '[tool.torchlint]\nignore = "TL101"\n' >cfg/other/pyproject.toml
run config-type 2 "$bin" cfg/other
has config-type "$tmp/err" "expected a list of strings for 'ignore'"
rm cfg/other/pyproject.toml
rm cfg/sub/torchlint.toml
printf 'extend-exclude = ["other", "deeper/"]\n' >cfg/torchlint.toml
run config-exclude 1 "$bin" --format concise --isolated cfg
has config-exclude-isolated "$tmp/out" "cfg/other/b.py"
run config-extend-exclude 1 "$bin" --format concise cfg
hasnt config-extend-exclude "$tmp/out" "cfg/other/b.py"
hasnt config-extend-exclude-dir "$tmp/out" "deeper/a.py"
has config-extend-exclude-keeps "$tmp/out" "cfg/c.py"
run config-explicit-file 1 "$bin" --format concise cfg/other/b.py
run config-force-exclude 0 "$bin" --format concise --force-exclude cfg/other/b.py
lines config-force-exclude "$tmp/out" 0
rm cfg/torchlint.toml
run torch-version-cli 2 "$bin" --torch-version abc train.py
has torch-version-cli "$tmp/err" "invalid value 'abc' for --torch-version"

# --- suppressions ------------------------------------------------------------------------
cat >noqa.py <<'PY'
import torch
import torch.nn as nn

def train(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    losses = []
    for x, y in loader:
        loss = crit(model(x), y)
        loss.backward()
        opt.step()  # noqa: TL201
        losses.append(loss)  # noqa
    for x, y in loader:
        crit(model(x), y).backward()
        opt.step()  # NOQA:TL101,TL201
        opt.step()  # noqa: TL101

def evaluate(model, loader):
    model.eval()
    for x in loader:
        out = (  # noqa: TL102 -- on the statement's first line
            model(x))
        print(out.argmax(1))
PY
run noqa 1 "$bin" --format concise -q noqa.py
lines noqa-count "$tmp/out" 1
has noqa-wrong-code "$tmp/out" "noqa.py:16:9: TL201"
run noqa-unused 1 "$bin" --format concise -q --extend-select TL001 noqa.py
has noqa-unused "$tmp/out" "noqa.py:15:21: TL001 unused \`noqa\` directive: no TL101 finding on this line; remove \`TL101\`"
has noqa-unused-2 "$tmp/out" "noqa.py:16:21: TL001"
hasnt noqa-used "$tmp/out" "noqa.py:11:"
hasnt noqa-used-2 "$tmp/out" "noqa.py:21:"
lines noqa-unused-count "$tmp/out" 3
printf '# torchlint: noqa: TL201\n' | cat - noqa.py >fileqa.py
run noqa-file-codes 0 "$bin" --format concise fileqa.py
printf '# torchlint: noqa\n' | cat - train.py >fileall.py
run noqa-file-all 0 "$bin" fileall.py
printf 'x = "# noqa"\n' | cat - train.py >instring.py
run noqa-in-string 1 "$bin" --extend-select TL101 --format concise -q instring.py
lines noqa-in-string "$tmp/out" 2

# --- .gitignore ------------------------------------------------------------------------
mkdir -p repo/src/gen repo/src/keep repo/notes
(cd repo && git init -q .)
cp train.py repo/src/a.py
cp train.py repo/src/gen/b.py
cp train.py repo/src/keep/c.py
cp train.py repo/src/skip_me.py
cp train.py repo/notes/d.py
printf 'gen/\n*_me.py\n' >repo/src/.gitignore
printf 'notes/\n!notes/\n' >repo/.gitignore
printf 'keep/\n' >repo/.git/info/exclude
run gitignore 1 "$bin" --format concise repo
has gitignore-kept "$tmp/out" "repo/src/a.py:11:9"
hasnt gitignore-dir "$tmp/out" "gen/b.py"
hasnt gitignore-glob "$tmp/out" "skip_me.py"
hasnt gitignore-info-exclude "$tmp/out" "keep/c.py"
has gitignore-negation "$tmp/out" "repo/notes/d.py"
run gitignore-subdir 1 "$bin" --format concise repo/src
hasnt gitignore-subdir "$tmp/out" "gen/b.py"
run no-gitignore 1 "$bin" --format concise --no-respect-gitignore repo
has no-gitignore "$tmp/out" "repo/src/gen/b.py"
run gitignore-explicit 1 "$bin" --format concise repo/src/gen/b.py
run gitignore-force 0 "$bin" --format concise --force-exclude repo/src/gen/b.py repo/src/skip_me.py

# --- standard input ------------------------------------------------------------------------
run stdin 1 sh -c "\"$bin\" --format concise --stdin-filename pkg/train.py - <train.py"
has stdin "$tmp/out" "pkg/train.py:11:9: TL201"
run stdin-default-name 1 sh -c "\"$bin\" --format concise - <train.py"
has stdin-default-name "$tmp/out" "-:11:9: TL201"
printf 'extend-exclude = ["vendored"]\nignore = ["TL201"]\n' >torchlint.toml
run stdin-config 1 sh -c "\"$bin\" --extend-select TL101 --format concise --stdin-filename train.py - <train.py"
hasnt stdin-config "$tmp/out" "TL201"
run stdin-force-exclude 0 sh -c "\"$bin\" --format concise --force-exclude --stdin-filename vendored/x.py - <train.py"
rm torchlint.toml

# --- notebooks ---------------------------------------------------------------------------
cat >nb.ipynb <<'NB'
{
 "cells": [
  {"cell_type": "markdown", "metadata": {}, "source": ["# Training\n", "notes"]},
  {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
   "source": ["%matplotlib inline\n", "!pip install torch\n", "import torch\n", "import torch.nn as nn\n", "files = !ls\n"]},
  {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [],
   "source": "model = nn.Linear(4, 2)\ncriterion = nn.CrossEntropyLoss()\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\nmodel?"},
  {"cell_type": "code", "execution_count": 3, "metadata": {}, "outputs": [],
   "source": ["%%time\n", "losses = []\n", "for x, y in loader:\n", "    loss = criterion(model(x), y)  # \u00e9 \"q\"\n", "    loss.backward()\n", "    opt.step()\n", "    losses.append(loss)\n"]},
  {"cell_type": "code", "execution_count": 4, "metadata": {}, "outputs": [],
   "source": ["%%bash\n", "echo 'not python ((('\n"]}
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
NB
run notebook 1 "$bin" --extend-select TL101 --format concise -q nb.ipynb
lines notebook-count "$tmp/out" 2
has notebook-cell "$tmp/out" "nb.ipynb:cell 4:6:5: TL201"
has notebook-cell-2 "$tmp/out" "nb.ipynb:cell 4:7:5: TL101"
run notebook-full 1 "$bin" --color never nb.ipynb
has notebook-full-gutter "$tmp/out" "6 |     opt.step()"
run notebook-json 1 "$bin" --format json nb.ipynb
json notebook-json "$tmp/out" "d[0].cell === 4 && d[0].start.line === 6 && d[0].start.column === 5 && d[0].end.column === 15"
run notebook-sarif 1 "$bin" --format sarif nb.ipynb
raw_line=$(grep -n '"    opt.step()' nb.ipynb | cut -d: -f1)
json notebook-sarif-raw "$tmp/out" "(r => { const g = r.locations[0].physicalLocation.region; const line = require('fs').readFileSync('nb.ipynb', 'utf8').split('\\n')[g.startLine - 1]; return g.startLine === $raw_line && line.substring(g.startColumn - 1, g.endColumn - 1) === 'opt.step()' && r.properties.cell === 4 && r.properties.cellRegion.startLine === 6; })(d.runs[0].results[0])"
run notebook-dir 1 "$bin" --format concise .
has notebook-dir "$tmp/out" "nb.ipynb:cell 4:6:5"
printf '{"cells": [ {"cell_type": "code", "source": "x = 1' >broken.ipynb
# A file that is read but is no notebook is a TL000 finding at the place
# its JSON breaks (exit 1, the other files analysed); an empty one too.
run notebook-malformed 1 "$bin" --format concise broken.ipynb train.py
has notebook-malformed "$tmp/out" "broken.ipynb:1:50: TL000 invalid notebook JSON: "
has notebook-malformed-others "$tmp/out" "TL201"
printf '{"nbformat": 4}' >nocells.ipynb
: >empty.ipynb
run notebook-not 1 "$bin" --format concise nocells.ipynb empty.ipynb
has notebook-not "$tmp/out" "nocells.ipynb:1:1: TL000 not a notebook: no \"cells\" list"
has notebook-empty "$tmp/out" "empty.ipynb:1:1: TL000 invalid notebook JSON"
run notebook-malformed-fix 1 "$bin" --fix --format concise empty.ipynb
has notebook-malformed-fix "$tmp/out" "empty.ipynb:1:1: TL000"
hasnt notebook-malformed-fix-note "$tmp/err" "warning"
rm -f empty.ipynb
# Notebooks as IPython runs them: its help syntax (wildcards too), magics
# and shell escapes are never a syntax error; a cell that does not parse is
# one TL000 at its first error (found in that cell alone) and nothing else
# of it, the cells after it analysed as usual; IPython reads its syntax
# only at the start of a logical line: a `%` that continues an expression in
# brackets, or a line of a string, is Python; Jupyter displays the
# expression ending a cell, so TL206 is silent on top-level expression
# statements (the `displayed` fact, as for TL219), not in a loop.
python3 - <<'PY'
import json
cells = [
    "import torch\ndev = torch.device('cuda')\n",
    "torch.*Tensor?\n?torch.nn\nnn.Lin*??\n%timeit torch.ones(1)\n!pip list\nfiles = !ls\n",
    "w = torch.zeros(3)\nfor i in range(3:\n    w.to(dev)\nw.to(dev)\nprint(w)\n",
    "import os\nz = torch.ones(2)\nfor i in range(2):\n    z.cpu()\nprint('epoch %d, loss %.4f'\n      % (1, 2.0))\ns = '''\n!not a shell\n%not a magic\n'''\n",
    "def f(:\n    pass\nclass C(:\n    pass\n",
    "y = torch.ones(2).to(dev)\ny.cpu()",
    "q = torch.ones(2)\nq.cpu();\n",
    "epoch = 3\nmsg = (\n    'epoch %d'\n    % (epoch,))\ndoc = \"\"\"\n%not a magic\n\"\"\"\n%time x = 1\nr = torch.ones(2)\nfor _ in range(1):\n    r.cpu()\nprint(r, msg, doc)\n",
]
nb = {"cells": [{"cell_type": "code", "source": c.splitlines(True), "metadata": {}, "outputs": [],
                 "execution_count": None} for c in cells],
      "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
json.dump(nb, open("ipy.ipynb", "w"), indent=1)
PY
run notebook-ipython 1 "$bin" --isolated --format concise -q ipy.ipynb
cat >"$tmp/want" <<'OUT'
ipy.ipynb:cell 3:2:17: TL000 syntax error: missing ')'; the rest of this cell is not analysed, the other cells are
ipy.ipynb:cell 4:4:5: TL206 [*] `z.cpu()` returns a converted copy and leaves `z` as it was (tensors are not moved in place, unlike modules); assign the result: `z = z.cpu()`
ipy.ipynb:cell 5:1:7: TL000 syntax error: missing ')'; the rest of this cell is not analysed, the other cells are
ipy.ipynb:cell 8:11:5: TL206 [*] `r.cpu()` returns a converted copy and leaves `r` as it was (tensors are not moved in place, unlike modules); assign the result: `r = r.cpu()`
OUT
if cmp -s "$tmp/want" "$tmp/out"; then ok; else bad "notebook-ipython:"; diff "$tmp/want" "$tmp/out"; fi
# One TL000 per broken cell, in the JSON report too.
run notebook-ipython-json 1 "$bin" --isolated --format json ipy.ipynb
json notebook-ipython-json-cells "$tmp/out" "d.filter(f => f.code === 'TL000').map(f => f.cell).join() === '3,5'"

echo "ecosystem: $pass passed, $fail failed"
[ "$fail" = 0 ]
