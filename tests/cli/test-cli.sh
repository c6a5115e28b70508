#!/bin/sh
# Integration tests: drive the built binary as a user would and check exit
# codes, output formats, selection, bad input and determinism.
# usage: test-cli.sh TORCHLINT
set -u
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)


cat >"$tmp/flagged.py" <<'PY'
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
cat >"$tmp/clean.py" <<'PY'
import torch
import torch.nn as nn

def train(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    losses = []
    for x, y in loader:
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses
PY

# --- basics ---------------------------------------------------------------
run version 0 "$bin" --version; has version "$tmp/out" "torchlint "
run help 0 "$bin" --help; has help "$tmp/out" "usage: torchlint"
# No path means the working directory, as in ruff.
mkdir -p "$tmp/nopath" && cp "$tmp/clean.py" "$tmp/nopath/"
run no-paths 0 sh -c "cd '$tmp/nopath' && '$bin' --isolated"; has no-paths "$tmp/out" "All checks passed (1 file checked)"
run unknown-option 2 "$bin" --frobnicate x.py; has unknown-option "$tmp/err" "unknown option '--frobnicate'"
run missing-value 2 "$bin" x.py --format; has missing-value "$tmp/err" "needs a value"
run bad-format 2 "$bin" --format xml "$tmp/clean.py"; has bad-format "$tmp/err" "invalid value 'xml' for --format"
run bad-jobs 2 "$bin" -j 0 "$tmp/clean.py"
run bad-select 2 "$bin" --select TL999 "$tmp/clean.py"; has bad-select "$tmp/err" "'TL999' matches no rule"
run list-rules 0 "$bin" --list-rules; has list-rules "$tmp/out" "TL101  loss-accumulated-with-graph"
run list-predicates 0 "$bin" --list-predicates; has list-predicates "$tmp/out" "#graph-tensor? @capture"

# --- findings and exit codes ---------------------------------------------------
run clean 0 "$bin" "$tmp/clean.py"; has clean "$tmp/out" "All checks passed (1 file checked)."
# One file under two names is checked once: named twice, through a symbolic
# link, through a path with `..`; a hard link is a second file (its own
# name, found by comparing real paths only when the inode repeats).
mkdir -p "$tmp/names/sub" && cp "$tmp/flagged.py" "$tmp/names/a.py"
ln -s a.py "$tmp/names/link.py" && ln "$tmp/names/a.py" "$tmp/names/hard.py"
run names-once 1 "$bin" --isolated --extend-select TL101 --format concise -q "$tmp/names/a.py" "$tmp/names/link.py" \
	"$tmp/names/sub/../a.py" "$tmp/names/a.py"
lines names-once "$tmp/out" 2
run names-hard-link 1 "$bin" --isolated --extend-select TL101 --format concise -q "$tmp/names/a.py" "$tmp/names/hard.py" "$tmp/names/link.py"
lines names-hard-link "$tmp/out" 4
has names-hard-link "$tmp/out" "hard.py:"
# A file's modules are looked up from its real folder: a link to a project's
# script (its own folder holds none of them) and a script in a linked folder
# find the project's modules as the script itself does (TL101 twice, through
# its pkg/ package).
mkdir -p "$tmp/linked" && ln -s "$root/corpus/projects/loss_stats/train.py" "$tmp/linked/train.py" &&
	ln -s "$root/corpus/projects/loss_stats" "$tmp/linked/proj"
run project-linked-file 1 "$bin" --isolated --format concise -q "$tmp/linked/train.py"
has project-linked-file "$tmp/out" "train.py:24:9: TL101"
lines project-linked-file "$tmp/out" 2
run project-linked-folder 1 "$bin" --isolated --format concise -q "$tmp/linked/proj/train.py"
has project-linked-folder "$tmp/out" "train.py:22:9: TL101"
lines project-linked-folder "$tmp/out" 2
# The pre-filter skips a pattern that requires #api? in a file without the
# API's identifier; an alias import still names it, so TL305 still fires.
printf 'import torch\nfrom torch.cuda import empty_cache as ec\n\ndef train(model, loader, opt):\n    for x, y in loader:\n        loss = model(x).sum()\n        loss.backward()\n        opt.step()\n        opt.zero_grad()\n        ec()\n' >"$tmp/alias_api.py"
run api-alias 1 "$bin" --isolated --format concise --select TL305 "$tmp/alias_api.py"
has api-alias "$tmp/out" "alias_api.py:10:9: TL305"
# A plain run reports the canonical bug, `losses.append(loss)` in a training
# loop (TL101), beside the missing zero_grad (TL201).
run flagged-default 1 "$bin" --format concise -q "$tmp/flagged.py"
lines flagged-default-concise "$tmp/out" 2
has flagged-default-tl101 "$tmp/out" "flagged.py:12:9: TL101 "
has flagged-default-tl201 "$tmp/out" "flagged.py:11:9: TL201 "
run flagged 1 "$bin" --extend-select TL101 --format concise "$tmp/flagged.py"
has flagged-tl201 "$tmp/out" "flagged.py:11:9: TL201 "
has flagged-tl101 "$tmp/out" "flagged.py:12:9: TL101 "
# The summary follows the findings on standard output, as in the full
# format (and in ruff's concise one).
has flagged-summary "$tmp/out" "Found 2 findings"
hasnt flagged-summary-not-on-stderr "$tmp/err" "Found 2 findings"
grep -c "^[^ ]*flagged.py:[0-9]*:[0-9]*: TL" "$tmp/out" >"$tmp/n"
if [ "$(cat "$tmp/n")" = 2 ]; then ok; else bad "flagged-concise: $(cat "$tmp/n") findings, expected 2"; fi
run full 1 "$bin" --color never "$tmp/flagged.py"
has full-source "$tmp/out" "11 |         opt.step()"
has full-caret "$tmp/out" "   |         ^^^^^^^^^^ TL201"
has full-help "$tmp/out" "= help:"
hasnt full-nocolor "$tmp/out" "$(printf '\033[')"
run color-always 1 "$bin" --color always "$tmp/flagged.py"; has color-always "$tmp/out" "$(printf '\033[')"
NO_COLOR=1 run no-color 1 "$bin" --color auto "$tmp/flagged.py"; hasnt no-color "$tmp/out" "$(printf '\033[')"
run quiet 1 "$bin" -q --format concise "$tmp/flagged.py"; lines quiet-stderr "$tmp/err" 0
run exit-zero 0 "$bin" --exit-zero "$tmp/flagged.py"; has exit-zero "$tmp/out" "TL201"

# --- selection -------------------------------------------------------------------
run select-family 1 "$bin" --format concise --select memory "$tmp/flagged.py"
has select-family "$tmp/out" "TL101"; hasnt select-family-2 "$tmp/out" "TL201"
run select-prefix 1 "$bin" --format concise --select TL2 "$tmp/flagged.py"
has select-prefix "$tmp/out" "TL201"; hasnt select-prefix-2 "$tmp/out" "TL101"
run ignore 1 "$bin" --format concise --extend-select TL101 --ignore TL201 "$tmp/flagged.py"
hasnt ignore "$tmp/out" "TL201"; has ignore-2 "$tmp/out" "TL101"
run ignore-all 0 "$bin" --ignore ALL "$tmp/flagged.py"
run extend-select 1 "$bin" --format concise --select TL1 --extend-select correctness "$tmp/flagged.py"
has extend-select "$tmp/out" "TL201"

# --- bad input: the other files are still analysed -----------------------------------
run missing-path 2 "$bin" --format concise "$tmp/nope.py" "$tmp/flagged.py"
has missing-path "$tmp/err" "torchlint: cannot read '$tmp/nope.py': No such file or directory"
has missing-path-others "$tmp/out" "TL201"
printf 'import torch\nx = 1\000\n' >"$tmp/binary.py"
run binary 2 "$bin" "$tmp/binary.py" "$tmp/clean.py"; has binary "$tmp/err" "binary file"
printf 'x = "\377\376"\n' >"$tmp/latin1.py"
run not-utf8 2 "$bin" "$tmp/latin1.py"; has not-utf8 "$tmp/err" "not valid UTF-8 (byte 0xFF at line 1, column 6)"
: >"$tmp/empty.py"
run empty 0 "$bin" "$tmp/empty.py"
head -c 17000000 /dev/zero | tr '\0' '#' >"$tmp/huge.py"
run huge 2 "$bin" "$tmp/huge.py"; has huge "$tmp/err" "file too large"
mkdir "$tmp/adir.py"
run dir-named-py 0 "$bin" "$tmp/adir.py"

# --- syntax errors: TL000, and the rest of the file is analysed ---------------------
cat "$tmp/flagged.py" >"$tmp/broken.py"
printf 'def oops(:\n    pass\n' >>"$tmp/broken.py"
printf 'def again(model, loader, opt):\n    for x in loader:\n        model(x).sum().backward()\n        opt.step()\n' >>"$tmp/broken.py"
run syntax 1 "$bin" --format concise "$tmp/broken.py"
has syntax-tl000 "$tmp/out" "broken.py:14:"
has syntax-tl000-code "$tmp/out" "TL000 syntax error"
has syntax-before "$tmp/out" "broken.py:11:9: TL201"
has syntax-after "$tmp/out" "broken.py:19:9: TL201"
printf 'total = (1,\n    2\n' >"$tmp/unclosed.py"
run unclosed 1 "$bin" --format concise "$tmp/unclosed.py"; has unclosed "$tmp/out" "unclosed.py:1:"
has unclosed-code "$tmp/out" "TL000 syntax error"
run ignore-tl000 0 "$bin" --ignore TL000 "$tmp/unclosed.py"

# --- encodings and line endings give the same findings --------------------------------
sed 's/$/\r/' "$tmp/flagged.py" >"$tmp/crlf.py"
run crlf 1 "$bin" --format concise "$tmp/crlf.py"
has crlf "$tmp/out" "crlf.py:11:9: TL201"
printf '\357\273\277' | cat - "$tmp/flagged.py" >"$tmp/bom.py"
run bom 1 "$bin" --format concise "$tmp/bom.py"
has bom "$tmp/out" "bom.py:11:9: TL201"
sed 's/^        opt.step()/        é = "日本"; opt.step()/' "$tmp/flagged.py" >"$tmp/unicode.py"
run unicode-columns 1 "$bin" --format concise "$tmp/unicode.py"
has unicode-columns "$tmp/out" "unicode.py:11:19: TL201"

# --- deep nesting does not crash ----------------------------------------------------
awk 'BEGIN { s = "x = "; for (i = 0; i < 20000; i++) s = s "("; s = s "1"; for (i = 0; i < 20000; i++) s = s ")"; print s }' >"$tmp/deep.py"
run deep-parens 0 "$bin" "$tmp/deep.py"
awk 'BEGIN { print "import torch"; ind = ""; for (i = 0; i < 1500; i++) { print ind "if x:"; ind = ind " " } print ind "for b in loader:"; print ind " loss = crit(model(b), y); loss.backward(); opt.step()" }' >"$tmp/deepif.py"
run deep-blocks 1 "$bin" --format concise "$tmp/deepif.py"; has deep-blocks "$tmp/out" "TL201"

# --- directories: discovery, skipping, determinism -------------------------------------
mkdir -p "$tmp/proj/pkg" "$tmp/proj/.git" "$tmp/proj/__pycache__" "$tmp/proj/build" "$tmp/proj/myenv"
cp "$tmp/flagged.py" "$tmp/proj/pkg/a.py"
cp "$tmp/clean.py" "$tmp/proj/b.py"
for d in .git __pycache__ build myenv; do cp "$tmp/flagged.py" "$tmp/proj/$d/skip.py"; done
touch "$tmp/proj/myenv/pyvenv.cfg"
cp "$tmp/flagged.py" "$tmp/proj/notes.txt"
run discover 1 "$bin" --format concise "$tmp/proj"
has discover "$tmp/out" "proj/pkg/a.py:11:9: TL201"
hasnt discover-skips "$tmp/out" "skip.py"
hasnt discover-txt "$tmp/out" "notes.txt"
has discover-count "$tmp/out" "in 1 of 2 files checked"
"$bin" --format concise -q --select ALL -j 1 "$root/corpus" >"$tmp/j1" 2>/dev/null
"$bin" --format concise -q --select ALL -j 4 "$root/corpus" >"$tmp/j4" 2>/dev/null
if cmp -s "$tmp/j1" "$tmp/j4" && [ -s "$tmp/j1" ]; then ok; else bad "determinism: -j 1 and -j 4 differ"; fi
sort -t: -k1,1 -k2,2n -k3,3n -c "$tmp/j1" 2>/dev/null && ok || bad "order: findings not sorted by path, line, column"

# --- user rules: --rules-dir ----------------------------------------------------------
mkdir "$tmp/rules"
cat >"$tmp/rules/TL599-print-call.toml" <<'TOML'
code = "TL599"
name = "print-call"
family = "safety"
severity = "info"
default = true
message = "`{_fn}` called; use logging"
TOML
cat >"$tmp/rules/TL599-print-call.scm" <<'SCM'
((call function: (identifier) @_fn) @finding
  (#eq? @_fn "print")
  (#in-loop? @finding))
SCM
printf 'for i in range(3):\n    print(i)\nprint("done")\n' >"$tmp/prints.py"
run rules-dir 1 "$bin" --format concise -q --rules-dir "$tmp/rules" "$tmp/prints.py"
has rules-dir "$tmp/out" "prints.py:2:5: TL599 \`print\` called; use logging"
lines rules-dir-count "$tmp/out" 1
printf '((call function: (identifer) @finding))\n' >"$tmp/rules/TL599-print-call.scm"
run bad-query 2 "$bin" --rules-dir "$tmp/rules" "$tmp/prints.py"
has bad-query "$tmp/err" "TL599-print-call.scm:1:19: error: unknown node type"
has bad-query-caret "$tmp/err" "^"
printf '((call) @finding (#frobnicate? @finding))\n' >"$tmp/rules/TL599-print-call.scm"
run unknown-predicate 2 "$bin" --rules-dir "$tmp/rules" "$tmp/prints.py"
has unknown-predicate "$tmp/err" "TL599-print-call.scm:1:19: error: unknown predicate #frobnicate?"
run missing-rules-dir 2 "$bin" --rules-dir "$tmp/none" "$tmp/prints.py"

# --- the bundled example matches its snapshot -------------------------------------------
(cd "$root" && "$bin" --format concise -q examples) >"$tmp/examples.txt" 2>/dev/null
if diff -u "$here/expected/examples.txt" "$tmp/examples.txt" >"$tmp/diff"; then ok; else
	bad "examples snapshot differs (update tests/cli/expected/examples.txt if intended):"
	cat "$tmp/diff"
fi

# Message properties: a pattern's (#set! name "value") fills {name}.
cat >"$tmp/props.py" <<'PY'
import torch
from torch.cpu.amp import autocast as cpu_autocast
from torch.cuda.amp import autocast

def run(model, x, url):
    with cpu_autocast():
        model(x)
    with autocast():
        model(x)
    return torch.hub.load_state_dict_from_url(url)
PY
run "set! properties" 1 "$bin" --select TL402,TL501 --format concise "$tmp/props.py"
has "set! cpu device" "$tmp/out" 'cpu_autocast()` is deprecated since PyTorch 2.4; use its `torch.amp` form with the device type "cpu" (`torch.amp.autocast("cpu")`'
has "set! cuda device" "$tmp/out" 'autocast()` is deprecated since PyTorch 2.4; use its `torch.amp` form with the device type "cuda" (`torch.amp.autocast("cuda")`'
has "set! hub default" "$tmp/out" 'pass `weights_only=True` (its default stays weights_only=False at every PyTorch version)'

echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
