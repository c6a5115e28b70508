#!/bin/sh
# The ecosystem check's own logic (tools/ecosystem/run.py), without the real
# mirrors: ledger matching (line and cell:line keys, pinned commits),
# precision arithmetic, the lists it prints and its exit status, on a tiny
# synthetic ledger and synthetic torchlint results; then blob-by-blob
# extraction and a real torchlint run on a two-commit git repository made
# here, with one blob deleted as a partial clone would lack it.
# usage: check-ecosystem-tool.sh TORCHLINT
set -u
. "$(dirname "$0")/cli/lib.sh"
runpy=$(cd "$(dirname "$0")/.." && pwd)/tools/ecosystem/run.py
c1=1111111111111111111111111111111111111111
c2=2222222222222222222222222222222222222222
c3=3333333333333333333333333333333333333333

printf 'repo\tcommit\tkind\nown/lib\t%s\tlibrary\nown/nb\t%s\tnotebooks\n' "$c1" "$c2" >"$tmp/repos.tsv"

# Results as run.py saves them: per repository, the default run and the ALL run.
cat >"$tmp/results.json" <<'JSON'
{"rules": {"TL000": true, "TL101": true, "TL102": true, "TL304": false},
 "stats": {"repos": 2, "files": 5, "notebooks": 1, "missing": 0, "analysed": 5},
 "repos": {
  "own/lib": {
   "default": [
    {"code": "TL101", "path": "train.py", "line": 10, "column": 5, "cell": null, "message": "m"},
    {"code": "TL101", "path": "train.py", "line": 10, "column": 30, "cell": null, "message": "m"},
    {"code": "TL101", "path": "model.py", "line": 20, "column": 9, "cell": null, "message": "m"},
    {"code": "TL102", "path": "tests/test_model.py", "line": 7, "column": 9, "cell": null, "message": "m"},
    {"code": "TL102", "path": "pkg/test_eval.py", "line": 3, "column": 1, "cell": null, "message": "m"}],
   "all": [
    {"code": "TL101", "path": "train.py", "line": 10, "column": 5, "cell": null, "message": "m"},
    {"code": "TL304", "path": "train.py", "line": 11, "column": 5, "cell": null, "message": "m"},
    {"code": "TL304", "path": "train.py", "line": 12, "column": 5, "cell": null, "message": "m"}]},
  "own/nb": {
   "default": [
    {"code": "TL000", "path": "demo.ipynb", "line": 2, "column": 1, "cell": 4, "message": "m"},
    {"code": "TL102", "path": "demo.ipynb", "line": 5, "column": 1, "cell": 6, "message": "m"}],
   "all": []}}}
JSON

ledger() { # header + rows from stdin
	{ printf 'repo\tcommit\tpath\tline\tcode\tverdict\treason\n'; cat; } >"$tmp/ledger.tsv"
}
cmp_run() { # NAME EXPECTED_EXIT [ARGS...]
	n=$1 e=$2
	shift 2
	run "$n" "$e" python3 "$runpy" --repos "$tmp/repos.tsv" --ledger "$tmp/ledger.tsv" \
		--results "$tmp/results.json" "$@"
}

# Everything judged: exit 0, precision per rule from distinct keys.
ledger <<EOF
own/lib	$c1	train.py	10	TL101	TRUE	kept across steps
own/lib	$c1	model.py	20	TL101	FALSE	tiled computation
own/lib	$c1	tests/test_model.py	7	TL102	TRUE	eval forward in a test
own/lib	$c1	pkg/test_eval.py	3	TL102	TRUE	eval forward
own/nb	$c2	demo.ipynb	4:2	TL000	FALSE	shell continuation line
own/nb	$c2	demo.ipynb	6:5	TL102	TRUE	eval forward in a cell
own/lib	$c1	train.py	11	TL304	TRUE	item every step
EOF
cmp_run all-judged 0
has precision-TL101 "$tmp/out" "  TL101         2       2      1      1     50.0%           0"
has precision-TL102 "$tmp/out" "  TL102         3       3      3      0    100.0%           2"
has precision-TL000 "$tmp/out" "  TL000         1       1      0      1      0.0%           0"
has precision-all "$tmp/out" "  all           6       6      4      2     66.7%           2"
has precision-optin "$tmp/out" "  TL304         2       1      1      0    100.0%           0"
has reported "$tmp/out" "default findings 6 distinct (7 reported), judged 6, TRUE 4, precision 66.7%"
has notebook-tl000 "$tmp/out" "TL000 in notebooks 1; default findings in test files 2"
has false-still "$tmp/out" "== FALSE findings still reported: 2"
has false-listed "$tmp/out" "own/lib model.py:20 TL101  (tiled computation)"
has no-regression "$tmp/out" "== TRUE findings that vanished (regressions): 0"
has optin-unjudged "$tmp/out" "opt-in findings not judged (sampled rules; do not fail the check): 1  (TL304 1)"
has stats "$tmp/out" "repositories 2, files 5 (notebooks 1)"

# A TRUE finding that is no longer reported fails the check, also when all else is judged.
cp "$tmp/ledger.tsv" "$tmp/ledger.all"
printf 'own/lib\t%s\ttrain.py\t40\tTL101\tTRUE\tgone now\n' "$c1" >>"$tmp/ledger.tsv"
cmp_run lost-true 1
has lost-count "$tmp/out" "== TRUE findings that vanished (regressions): 1"
has lost-listed "$tmp/out" "own/lib train.py:40 TL101"
cmp_run lost-true-report-only 0 --report-only

# A finding that moved two lines is unjudged and hinted at the lost TRUE one.
sed "s/train.py	10	TL101/train.py	8	TL101/" "$tmp/ledger.all" >"$tmp/ledger.tsv"
cmp_run moved 1
has moved-hint "$tmp/out" "own/lib train.py:10 TL101  m  [moved from line 8?]"
has moved-unjudged "$tmp/out" "== default-rule findings not yet judged: 1"

# An unjudged default finding fails; an unjudged opt-in one does not.
grep -v "model.py" "$tmp/ledger.all" >"$tmp/ledger.tsv"
cmp_run unjudged-default 1
has unjudged-listed "$tmp/out" "own/lib model.py:20 TL101"
cmp_run unjudged-report-only 0 --report-only
grep -v "TL304" "$tmp/ledger.all" >"$tmp/ledger.tsv"
cmp_run unjudged-optin-only 0

# The notebook key is cell:line: a bare line does not match it.
sed "s/demo.ipynb	6:5/demo.ipynb	5/" "$tmp/ledger.all" >"$tmp/ledger.tsv"
cmp_run cell-key 1
has cell-unjudged "$tmp/out" "own/nb demo.ipynb:6:5 TL102"

# An entry judged at another commit does not count, and is listed.
sed "s/$c1	model.py/$c3	model.py/" "$tmp/ledger.all" >"$tmp/ledger.tsv"
cmp_run stale-commit 1
has stale-listed "$tmp/out" "own/lib model.py:20 TL101 at 333333333333"

# A verdict that is neither TRUE nor FALSE, or a missing reason, is an error.
sed "s/FALSE	tiled computation/MAYBE	tiled computation/" "$tmp/ledger.all" >"$tmp/ledger.tsv"
cmp_run bad-verdict 1
has bad-verdict-msg "$tmp/err" "verdict must be TRUE or FALSE"
sed "s/	tiled computation//" "$tmp/ledger.all" >"$tmp/ledger.tsv"
cmp_run no-reason 1
has no-reason-msg "$tmp/err" "no reason given"

# Without mirrors: a clear message and exit 2.
cp "$tmp/ledger.all" "$tmp/ledger.tsv"
run no-mirrors 2 python3 "$runpy" --repos "$tmp/repos.tsv" --ledger "$tmp/ledger.tsv" \
	--mirrors "$tmp/nowhere" --cache "$tmp/cache" --torchlint "$bin"
has no-mirrors-msg "$tmp/err" "2 of 2 mirrors missing under $tmp/nowhere"

# Extraction and a real run: a repository with two commits; the pinned (first)
# one is extracted blob by blob, a blob deleted from the object store is
# skipped and counted, .gitignore applies from the tree's root.
m="$tmp/mirrors/own+real/repo"
mkdir -p "$m" && cd "$m" || exit 1
git init -q . && git config user.email t@example.com && git config user.name t
cat >train.py <<'PY'
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
        losses.append(loss)
    return losses
PY
mkdir -p gen && printf 'x = (\n' >gen/broken.py
printf 'gen/\n' >.gitignore
printf 'this blob will be missing\n' >big.py
git add -A && git add -f gen/broken.py && git commit -qm one
pinned=$(git rev-parse HEAD)
printf 'y = 1\n' >later.py && git add later.py && git commit -qm two
big=$(git rev-parse "$pinned:big.py")
rm -f ".git/objects/$(echo "$big" | cut -c1-2)/$(echo "$big" | cut -c3-)"
cd - >/dev/null || exit 1
printf 'repo\tcommit\tkind\nown/real\t%s\texamples\n' "$pinned" >"$tmp/repos.tsv"
printf 'repo\tcommit\tpath\tline\tcode\tverdict\treason\nown/real\t%s\ttrain.py\t13\tTL101\tTRUE\tloss kept\n' \
	"$pinned" >"$tmp/ledger.tsv"
# (torchlint named by a relative path, as `make ecosystem` does)
cd "$(dirname "$bin")" || exit 1
run real 0 python3 "$runpy" --repos "$tmp/repos.tsv" --ledger "$tmp/ledger.tsv" \
	--mirrors "$tmp/mirrors" --cache "$tmp/cache" --torchlint "./$(basename "$bin")" -j 2
cd - >/dev/null || exit 1
has real-stats "$tmp/out" "repositories 1, files 2 (notebooks 0), blobs missing from partial clones 1, files torchlint analyses (after .gitignore) 1"
has real-precision "$tmp/out" "  TL101         1       1      1      0    100.0%           0"
[ -f "$tmp/cache/trees/own+real/$pinned/train.py" ] && ok || bad "real: train.py not extracted"
[ ! -e "$tmp/cache/trees/own+real/$pinned/later.py" ] && ok || bad "real: a file of a later commit was extracted"
[ ! -e "$tmp/cache/trees/own+real/$pinned/big.py" ] && ok || bad "real: the missing blob was written"

echo "ecosystem tool: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
