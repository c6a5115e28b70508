#!/bin/sh
# `torchlint debug model FILE[:LINE]`: the semantic model of the file (or
# of one line): each function's summary, each call's qualified name and
# the API table's rows (api/api.tsv) a lookup by method, builtin or
# qualified name finds, and the abstract value the interpreter gave each
# name, attribute, subscript and call. Line numbers of rows are checked
# against the table itself.
# usage: test-debug.sh TORCHLINT
set -u
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
table="$root/api/api.tsv"
# The line of a row of the table, found without the analyzer.
row() { grep -n -E "^$(printf '%s' "$1" | sed 's/[.*]/\\&/g')[[:space:]]" "$table" | cut -d: -f1; }

cat >"$tmp/t.py" <<'PY'
import torch
import torch.nn.functional as F

def step(model, x, losses):
    out = model(x)
    loss = F.cross_entropy(out, x).mean()
    losses.append(loss.item()); n = len(losses)
    idx = torch.argmax(out, dim=1)
    torch.set_printoptions(precision=3); opt = torch.optim.AdamW(model.parameters())
    gpus = torch.cuda.device_count()
    return sum(losses), out.get("k")
PY

run "debug model FILE:LINE" 0 "$bin" debug model "$tmp/t.py:7"
has "says what it prints" "$tmp/out" "# torchlint debug model: the semantic model of the file"
has "the model's counts" "$tmp/out" "function interpretations in 1 components"
has "the method row of .item" "$tmp/out" "method     .item: api/api.tsv:$(row .item) graph=breaks kind=number device=host dtype=- roles=to-host sets=tensor-method"
has "the builtin row of len" "$tmp/out" "builtin    builtins.len: api/api.tsv:$(row builtins.len) graph=breaks"
has "a method row of roles only" "$tmp/out" "method     .append: api/api.tsv:$(row .append) graph=- kind=- device=- dtype=- roles=mutates,stores sets=-"
has "the call's position" "$tmp/out" "$tmp/t.py:7:19: call \`loss.item(...)\`"
hasnt "only line 7" "$tmp/out" "torch.argmax"
has "a value that breaks the graph" "$tmp/out" "$tmp/t.py:7:19: value \`loss.item()\` number graph=none"
has "a loss's value, read on line 7" "$tmp/out" "$tmp/t.py:7:19: value \`loss\` tensor graph=must"
has "what a list holds once appended to" "$tmp/out" "$tmp/t.py:7:41: value \`losses\` container graph=none of (number graph=none)"
hasnt "no value of another line" "$tmp/out" "$tmp/t.py:6:"
lines "six lines of header, three calls, eight values on line 7" "$tmp/out" 23

run "debug model FILE" 0 "$bin" debug model "$tmp/t.py"
has "qualified name resolved through the import" "$tmp/out" "qualified  torch.nn.functional.cross_entropy"
has "the qualified row of a loss function" "$tmp/out" "qualified  torch.nn.functional.cross_entropy: api/api.tsv:$(row torch.nn.functional.cross_entropy) graph=makes kind=tensor device=keeps dtype=- roles=loss,cross-entropy sets=-"
has "a qualified name with no row" "$tmp/out" "qualified  torch.set_printoptions: no row"
has "a method with no row" "$tmp/out" "method     .parameters: no row"
has "a row by the last part of the name" "$tmp/out" "any        *.AdamW: api/api.tsv:$(row '*.AdamW') graph=- kind=optimizer device=- dtype=- roles=- sets=adaptive-optimizer"
hasnt "no row by the last part is printed" "$tmp/out" "*.set_printoptions"
has "a row for the module a name is under" "$tmp/out" "under      torch.cuda.device_count: api/api.tsv:$(row 'torch.cuda.*') graph=breaks"
has "a device query holds no tensor" "$tmp/out" "value \`gpus\` ⊤ graph=none"
has "the qualified row of torch.argmax" "$tmp/out" "qualified  torch.argmax: api/api.tsv:$(row torch.argmax) graph=breaks kind=tensor device=keeps dtype=integer"
has "an element read" "$tmp/out" "method     .get: api/api.tsv:$(row .get) graph=element"
has "a builtin that keeps" "$tmp/out" "builtin    builtins.sum: api/api.tsv:$(row builtins.sum) graph=keeps"
has "the function's summary: a tuple" "$tmp/out" "$tmp/t.py:4:1: def step returns container graph=none"
has "a parameter's value follows the callers" "$tmp/out" "$tmp/t.py:6:33: value \`x\` ⊤ graph=⊥+params(0x2)"

# In its project: a function of another module gives its summary (a loss
# it returns, through a named tuple), not ⊤.
mkdir -p "$tmp/proj/pkg"
touch "$tmp/proj/pyproject.toml" "$tmp/proj/pkg/__init__.py"
cat >"$tmp/proj/pkg/losses.py" <<'PY'
from collections import namedtuple

import torch.nn.functional as F

Losses = namedtuple("Losses", ["ce", "total"])


def compute(logits, target):
    ce = F.cross_entropy(logits, target)
    return Losses(ce, ce * 2)
PY
cat >"$tmp/proj/train.py" <<'PY'
from pkg.losses import compute


def run(model, x, y):
    ce, total = compute(model(x), y)
    return total
PY
run "debug model in a project" 0 "$bin" debug model "$tmp/proj/train.py:5"
has "the other module's summary reaches the call" "$tmp/out" "value \`compute(model(x), y)\` container graph=none of (tensor graph=must)"
has "a position of the named tuple" "$tmp/out" "value \`total\` tensor graph=must"

run "a line without calls" 0 "$bin" debug model "$tmp/t.py:3"
has "says so" "$tmp/out" "# no call starts on line 3"

# A file whose name ends in :N is that file, not a line of another.
cp "$tmp/t.py" "$tmp/odd.py:7"
run "a file named x:7" 0 "$bin" debug model "$tmp/odd.py:7"
has "every call of it" "$tmp/out" "torch.argmax"

run "a missing file" 2 "$bin" debug model "$tmp/missing.py"
has "names it" "$tmp/err" "cannot read '$tmp/missing.py'"
run "no subcommand" 2 "$bin" debug
has "usage" "$tmp/err" "usage: torchlint debug model FILE[:LINE]"
run "an unknown subcommand" 2 "$bin" debug values "$tmp/t.py"
has "names it" "$tmp/err" "unknown subcommand 'values'"
run "a notebook" 2 "$bin" debug model "$root/tests/fixtures/notebook.ipynb"
run "--help" 0 "$bin" debug --help
has "usage on stdout" "$tmp/out" "usage: torchlint debug model FILE[:LINE]"

# The differential mode of a family moving onto the model: the walk the
# build still asks runs beside the model's answer and each place they
# differ is printed. The module read through a DDP wrapper's `.module` is
# one the model sees and the walk does not; the finding is the one the
# model's answer gives (TL207's fix calls the wrapper).
cat > "$tmp/kind.py" <<'PY'
import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def run(net, x):
    ddp_model = DDP(net)
    return ddp_model.module.forward(x)
PY
TORCHLINT_CHECK_MODEL=1 "$bin" -q --select TL207 --format concise "$tmp/kind.py" > "$tmp/out" 2> "$tmp/err"
has "a difference, with the question and both answers" "$tmp/err" "model differs: $tmp/kind.py:7:12 module walk=0 model=1 \`ddp_model.module\`"
has "the model answers" "$tmp/out" "call the module itself: \`ddp_model(...)\`"

# Wrappers are the model's: the kind of wrapper from the table.
cat > "$tmp/wrap.py" <<'PY'
import torch


def save(net, path, cuda):
    if cuda:
        net = torch.nn.DataParallel(net)
    torch.save(net.state_dict(), path)
PY
run "debug model: the wrapper's kind" 0 "$bin" debug model "$tmp/wrap.py:6"
has "a DataParallel wrapper, from the table" "$tmp/out" "value \`net\` wrapper graph=none wrap=data-parallel"

echo "debug: $pass passed, $fail failed"
[ "$fail" = 0 ]
