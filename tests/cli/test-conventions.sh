#!/bin/sh
# The command-line conventions a ruff user expects (issue 24), each as a new
# user meets it: `torchlint check`, --select by any case or rule name,
# --show-settings DIR, --extend-exclude, -s/--silent, FORCE_COLOR,
# --fail-on, fixable findings marked [*], --exit-non-zero-on-fix and
# --fix-only; standard input with --fix reporting what is left, the summary
# line's one place per format, the warning for no Python file, `version`
# and `rule CODE`, the hint for an unknown option, --exclude, --fixable and
# --unfixable.
# usage: test-conventions.sh TORCHLINT
set -u
. "$(dirname "$0")/lib.sh"

mkdir -p "$tmp/p/sub/gen"
cd "$tmp/p" || exit 1
cat >train.py <<'PY'
import torch
import torch.nn as nn

def train(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    for x, y in loader:
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
PY
# One error-severity finding with a safe fix (TL206), one warning whose
# fix is unsafe (TL501 under PyTorch 2.4), nothing else.
cat >fixme.py <<'PY'
import torch
x = torch.zeros(3)
x.to("cuda")
y = torch.load("a")
PY
printf 'import torch\ny = torch.load("a")\n' >warnonly.py
cp train.py sub/t.py
cp train.py sub/gen/g.py

# --- torchlint check -------------------------------------------------------------
run "check" 1 "$bin" check --format concise train.py
cp "$tmp/out" "$tmp/check.txt"
run "without check" 1 "$bin" --format concise train.py
if cmp -s "$tmp/out" "$tmp/check.txt"; then ok; else bad "check PATH differs from PATH"; fi
has "check finds" "$tmp/check.txt" "train.py:10:9: TL201"
(cd sub && "$bin" check --format concise >"$tmp/out" 2>&1)
has "check with no path: the working directory" "$tmp/out" "gen/g.py:10:9: TL201"
run "help shows check" 0 "$bin" --help
has "help usage" "$tmp/out" "usage: torchlint [check] [OPTIONS] PATH..."

# --- --select as --explain reads rules ----------------------------------------------
for sel in TL201 tl201 Tl201 missing-zero-grad MISSING-ZERO-GRAD tl2 correctness; do
	run "--select $sel" 1 "$bin" --select "$sel" --format concise -q train.py
	has "--select $sel finds TL201" "$tmp/out" "TL201"
done
run "--select a list mixing forms" 1 "$bin" --select "tl101, missing-zero-grad" --format concise -q train.py
has "mixed list" "$tmp/out" "TL201"
run "--ignore by name" 0 "$bin" --ignore missing-zero-grad -q train.py
run "--extend-select lower case" 1 "$bin" --select TL101 --extend-select tl201 -q train.py
run "--select all" 1 "$bin" --select all -q train.py
run "--select unknown name" 2 "$bin" --select missing-zero-grads train.py
has "unknown name said" "$tmp/err" "--select: 'missing-zero-grads' matches no rule"

# --- --show-settings DIR ----------------------------------------------------------------
printf '[tool.torchlint]\nselect = ["ALL"]\n' >sub/pyproject.toml
run "--show-settings DIR" 0 "$bin" --show-settings sub
has "settings for a directory" "$tmp/out" "Settings for the files in: sub"
has "its own pyproject" "$tmp/out" "Configuration file: $tmp/p/sub/pyproject.toml"
run "--show-settings DIR/" 0 "$bin" --show-settings sub/
has "trailing slash" "$tmp/out" "Configuration file: $tmp/p/sub/pyproject.toml"
run "--show-settings a file in DIR" 0 "$bin" --show-settings sub/t.py
has "the file's configuration is the directory's" "$tmp/out" "Configuration file: $tmp/p/sub/pyproject.toml"
run "--show-settings . (no configuration)" 0 "$bin" --show-settings .
has "no configuration here" "$tmp/out" "Configuration file: none"
(cd sub && "$bin" --show-settings . >"$tmp/out" 2>&1)
has "--show-settings . inside sub" "$tmp/out" "Configuration file: $tmp/p/sub/pyproject.toml"
rm sub/pyproject.toml

# --- --extend-exclude ----------------------------------------------------------------------
run "--extend-exclude a name" 0 "$bin" --show-files --extend-exclude gen sub
has "kept" "$tmp/out" "sub/t.py"
hasnt "excluded" "$tmp/out" "gen/g.py"
run "--extend-exclude a list and a path" 0 "$bin" --show-files --extend-exclude "nothing, sub/gen/" .
hasnt "excluded by path" "$tmp/out" "gen/g.py"
has "others kept" "$tmp/out" "train.py"
run "--extend-exclude twice" 0 "$bin" --show-files --extend-exclude gen --extend-exclude t.py sub
lines "both applied" "$tmp/out" 0
run "--extend-exclude and a named file" 1 "$bin" -q --extend-exclude gen sub/gen/g.py
run "--extend-exclude with --force-exclude" 0 "$bin" -q --force-exclude --extend-exclude gen sub/gen/g.py
# On top of the configuration's own excludes.
printf '[tool.torchlint]\nextend-exclude = ["t.py"]\n' >sub/pyproject.toml
run "--extend-exclude and the configuration's" 0 "$bin" --show-files --extend-exclude gen sub
lines "both kinds applied" "$tmp/out" 0
run "--show-settings shows --extend-exclude" 0 "$bin" --show-settings sub --extend-exclude gen
has "command-line excludes shown" "$tmp/out" "--extend-exclude   **/gen  (command line, relative to $tmp/p/)"
rm sub/pyproject.toml

# --- -s / --silent ---------------------------------------------------------------------
run "--silent" 1 "$bin" --silent train.py
lines "--silent prints nothing" "$tmp/out" 0
lines "--silent: no summary" "$tmp/err" 0
run "-s with JSON" 1 "$bin" -s --format json train.py
lines "-s json prints nothing" "$tmp/out" 0
run "-s on a clean file" 0 "$bin" -s warnonly.py
run "-s still reports errors" 2 "$bin" -s train.py nope.py
has "-s error" "$tmp/err" "cannot read 'nope.py'"
lines "-s: no findings" "$tmp/out" 0

# --- FORCE_COLOR -----------------------------------------------------------------------
esc=$(printf '\033[')
run "FORCE_COLOR through a pipe" 1 env FORCE_COLOR=1 "$bin" --format concise train.py
has "colour forced" "$tmp/out" "$esc"
run "FORCE_COLOR over NO_COLOR" 1 env FORCE_COLOR=1 NO_COLOR=1 "$bin" --format concise train.py
has "FORCE_COLOR wins over NO_COLOR" "$tmp/out" "$esc"
run "--color never over FORCE_COLOR" 1 env FORCE_COLOR=1 "$bin" --color never --format concise train.py
hasnt "--color never wins" "$tmp/out" "$esc"
run "empty FORCE_COLOR" 1 env FORCE_COLOR= "$bin" --format concise train.py
hasnt "empty FORCE_COLOR is unset" "$tmp/out" "$esc"
run "FORCE_COLOR and -o" 1 env FORCE_COLOR=1 "$bin" --format concise -o "$tmp/report.txt" train.py
hasnt "no colour in a report file" "$tmp/report.txt" "$esc"

# --- --fail-on -------------------------------------------------------------------------
run "default: a warning fails" 1 "$bin" --torch-version 2.4 -q warnonly.py
run "--fail-on error: a warning passes" 0 "$bin" --torch-version 2.4 --fail-on error --format concise warnonly.py
has "still reported" "$tmp/out" "warnonly.py:2:5: TL501"
run "--fail-on warning: a warning fails" 1 "$bin" --torch-version 2.4 --fail-on warning -q warnonly.py
run "--fail-on error: an error fails" 1 "$bin" --fail-on error -q train.py
run "--fail-on info" 1 "$bin" --torch-version 2.4 --fail-on info -q warnonly.py
run "--fail-on bad" 2 "$bin" --fail-on fatal train.py
has "--fail-on bad said" "$tmp/err" "invalid value 'fatal' for --fail-on: expected error, warning or info"
run "--fail-on error with an unreadable file" 2 "$bin" --fail-on error -q warnonly.py nope.py

# --- [*] fixable markers -----------------------------------------------------------------
run "[*] concise" 1 "$bin" --torch-version 2.4 --format concise -q fixme.py
has "safe fix marked" "$tmp/out" 'fixme.py:3:1: TL206 [*] `x.to("cuda")`'
has "unsafe fix unmarked" "$tmp/out" 'fixme.py:4:5: TL501 `torch.load'
run "[*] with --unsafe-fixes" 1 "$bin" --torch-version 2.4 --unsafe-fixes --format concise -q fixme.py
has "unsafe fix marked" "$tmp/out" 'fixme.py:4:5: TL501 [*] `torch.load'
run "[*] full" 1 "$bin" --torch-version 2.4 -q fixme.py
has "full format marked" "$tmp/out" 'fixme.py:3:1: TL206 [*] `x.to("cuda")`'
run "no [*] without a fix" 1 "$bin" --format concise -q train.py
hasnt "unfixable unmarked" "$tmp/out" "[*]"

# --- --exit-non-zero-on-fix, --fix-only ---------------------------------------------------
printf 'import torch\nx = torch.zeros(3)\nx.to("cuda")\n' >onlyfix.py
cp onlyfix.py a.py
run "--fix fixes everything: exit 0" 0 "$bin" --fix a.py
has "fixed" a.py 'x = x.to("cuda")'
cp onlyfix.py a.py
run "--fix --exit-non-zero-on-fix" 1 "$bin" --fix --exit-non-zero-on-fix a.py
has "fixed too" a.py 'x = x.to("cuda")'
run "--exit-non-zero-on-fix, nothing to fix" 0 "$bin" --fix --exit-non-zero-on-fix a.py
cp fixme.py b.py
run "--fix-only leaves the rest unreported" 0 "$bin" --torch-version 2.4 --fix-only b.py
has "--fix-only fixed" b.py 'x = x.to("cuda")'
hasnt "--fix-only reports no finding" "$tmp/out" "TL501"
has "--fix-only says what it fixed" "$tmp/err" "Fixed 1 finding in 1 file."
cp fixme.py b.py
run "--fix-only --exit-non-zero-on-fix" 1 "$bin" --torch-version 2.4 --fix-only --exit-non-zero-on-fix b.py
run "--fix-only, nothing to fix" 0 "$bin" --fix-only --exit-non-zero-on-fix train.py
run "--fix-only --no-fix reports" 1 "$bin" --fix-only --no-fix -q train.py

# --- --show-fixes, --no-unsafe-fixes, --statistics ------------------------------------------
printf 'import torch\nx = torch.zeros(3)\nx.to("cuda")\ny = torch.zeros(3)\ny.to("cuda")\nz = torch.load("a")\n' >c.py
cp c.py d.py
run "--fix --show-fixes" 0 "$bin" --torch-version 2.4 --fix --unsafe-fixes --show-fixes c.py d.py
has "--show-fixes summary" "$tmp/err" "Fixed 6 findings in 2 files:"
has "--show-fixes file" "$tmp/err" "- c.py:"
has "--show-fixes per rule" "$tmp/err" "    2 × TL206 (to-result-discarded)"
has "--show-fixes unsafe rule" "$tmp/err" "    1 × TL501 (unsafe-torch-load)"
has "--show-fixes second file" "$tmp/err" "- d.py:"
cp fixme.py e.py
run "--diff --show-fixes" 1 "$bin" --torch-version 2.4 --diff --show-fixes e.py
has "--diff --show-fixes" "$tmp/err" "Would fix 1 finding in 1 file:"
has "--diff lists the rule" "$tmp/err" "    1 × TL206 (to-result-discarded)"
hasnt "--diff without --unsafe-fixes" "$tmp/err" "TL501 (unsafe-torch-load)"
run "without --show-fixes" 1 "$bin" --torch-version 2.4 --diff e.py
hasnt "no list without --show-fixes" "$tmp/err" "×"
run "--no-unsafe-fixes after --unsafe-fixes" 1 "$bin" --torch-version 2.4 --unsafe-fixes --no-unsafe-fixes --diff --show-fixes e.py
hasnt "--no-unsafe-fixes wins" "$tmp/err" "TL501 (unsafe-torch-load)"
run "--statistics" 1 "$bin" --torch-version 2.4 --statistics fixme.py train.py
has "statistics: safe" "$tmp/out" "TL206  to-result-discarded                correctness  fixable"
has "statistics: unsafe only" "$tmp/out" "TL501  unsafe-torch-load                  safety       unsafe-fixable"
has "statistics: no fix" "$tmp/out" "TL201  missing-zero-grad                  correctness"
if grep -qx '    1  TL201  missing-zero-grad                  correctness' "$tmp/out"; then ok; else bad "statistics: a rule without a fix has no fix word"; fi
run "--statistics json" 1 "$bin" --torch-version 2.4 --statistics --format json fixme.py train.py
json "statistics json applicability" "$tmp/out" \
	"d.find(r => r.code === 'TL501').fix_applicability === 'unsafe' && d.find(r => r.code === 'TL206').fix_applicability === 'safe' && d.find(r => r.code === 'TL201').fix_applicability === null && d.find(r => r.code === 'TL501').fixable === true"
# The machine formats but JSON hold findings, not counts: --statistics is
# refused there before anything runs, as ruff refuses it (it wrote the
# text table, so `-o report.xml` was not XML), and no report file is made.
for f in junit gitlab sarif github; do
	rm -f "stats.$f"
	run "--statistics --format $f" 2 "$bin" --torch-version 2.4 --statistics --format "$f" -o "stats.$f" fixme.py train.py
	has "statistics $f refused" "$tmp/err" "--statistics cannot be written as --format $f"
	if [ -e "stats.$f" ]; then bad "statistics $f: a report file was written"; else ok; fi
done

# --- .torchlint.toml, every configuration error at once --------------------------------------
mkdir -p cfg
cp fixme.py cfg/
printf 'select = ["TL501"]\n' >cfg/torchlint.toml
printf '[tool.torchlint]\nselect = ["TL201"]\n' >cfg/pyproject.toml
printf 'select = ["tl206"]\n' >cfg/.torchlint.toml
run ".torchlint.toml first" 1 "$bin" --torch-version 2.4 --format concise -q cfg/fixme.py
has ".torchlint.toml applies" "$tmp/out" "TL206"
hasnt "torchlint.toml does not" "$tmp/out" "TL501"
rm cfg/.torchlint.toml
run "torchlint.toml next" 1 "$bin" --torch-version 2.4 --format concise -q cfg/fixme.py
has "torchlint.toml applies" "$tmp/out" "TL501"
printf 'select = ["TL999", "memory", "nope"]\nignore = 3\ncolour = "x"\ntorch-version = "latest"\n[per-file-ignores]\n"a.py" = ["bad1"]\n' >cfg/.torchlint.toml
run "every configuration error at once" 2 "$bin" cfg/fixme.py
has "error 1" "$tmp/err" ".torchlint.toml:1:11: error: 'TL999' in 'select' matches no rule"
has "error 2, same list" "$tmp/err" ".torchlint.toml:1:30: error: 'nope' in 'select' matches no rule"
has "error 3" "$tmp/err" ".torchlint.toml:2:10: error: expected a list of strings for 'ignore'"
has "error 4" "$tmp/err" ".torchlint.toml:3:10: error: unknown key 'colour'"
has "error 5" "$tmp/err" ".torchlint.toml:4:17: error: expected a version string"
has "error 6" "$tmp/err" ".torchlint.toml:6:11: error: 'bad1' in 'a.py' matches no rule"
rm -r cfg

# --- --config KEY=VALUE ------------------------------------------------------------------------
mkdir -p ov
cp fixme.py ov/
printf '[tool.torchlint]\nselect = ["TL201"]\ntorch-version = "2.4"\n' >ov/pyproject.toml
run "--config select replaces the file's" 1 "$bin" --config 'select = ["tl206"]' --format concise -q ov/fixme.py
has "override applies" "$tmp/out" "TL206"
hasnt "the file's select is replaced" "$tmp/out" "TL501"
run "the file's torch-version stays" 1 "$bin" --config 'select = ["TL501"]' --format concise -q ov/fixme.py
has "torch-version from the file" "$tmp/out" "TL501"
run "two overrides" 0 "$bin" --config 'select = ["TL501"]' --config 'torch-version = "2.6"' -q ov/fixme.py
run "override without a configuration file" 1 "$bin" --config 'select = ["TL206"]' --format concise -q fixme.py
lines "defaults overridden" "$tmp/out" 1
run "per-file-ignores override" 0 "$bin" --config 'select = ["TL206"]' --config 'per-file-ignores = {"fixme.py" = ["TL206"]}' -q ov/fixme.py
run "--config FILE still a file" 1 "$bin" --config ov/pyproject.toml --extend-select TL501 --format concise -q fixme.py
has "--config FILE (its torch-version)" "$tmp/out" "TL501"
run "override with --config FILE" 1 "$bin" --config ov/pyproject.toml --config 'select = ["TL206"]' --format concise -q fixme.py
has "override over --config FILE" "$tmp/out" "TL206"
run "unknown key" 2 "$bin" --config 'colour = 1' fixme.py
has "unknown key said" "$tmp/err" "--config override 1: unknown key 'colour'"
run "bad TOML" 2 "$bin" --config 'select = ["TL101"]' --config 'select = [' fixme.py
has "bad TOML said, numbered" "$tmp/err" "--config override 2:"
run "bad selector" 2 "$bin" --config 'select = ["TL999"]' fixme.py
has "bad selector said" "$tmp/err" "'TL999' in 'select' matches no rule"
run "exclude refused" 2 "$bin" --config 'exclude = ["x"]' fixme.py
has "exclude: use --extend-exclude" "$tmp/err" "use --extend-exclude"
run "--show-settings shows overrides" 0 "$bin" --show-settings ov/fixme.py --config 'select = ["TL206"]'
has "override shown" "$tmp/out" '--config           select = ["TL206"]  (command line; replaces that key everywhere)'
has "the effect shown" "$tmp/out" "Rules that run on this file (2):"
rm -r ov

# --- --per-file-ignores on the command line --------------------------------------------------
run "--per-file-ignores a name" 0 "$bin" --per-file-ignores 'train.py:TL201' -q train.py
run "--per-file-ignores by rule name, a path glob" 1 "$bin" --per-file-ignores 'sub/*.py:missing-zero-grad' --format concise -q sub
hasnt "sub/t.py ignored" "$tmp/out" "sub/t.py:"
has "sub/gen/g.py not matched by sub/*.py" "$tmp/out" "sub/gen/g.py:10:9: TL201"
printf '[tool.torchlint]\nselect = ["ALL"]\n' >sub/pyproject.toml
run "--per-file-ignores on top of a configuration" 1 "$bin" --per-file-ignores 't.py:TL2' --format concise -q sub
hasnt "configured file ignored too" "$tmp/out" "sub/t.py:10:9: TL201"
has "other rules stay" "$tmp/out" "sub/gen/g.py:10:9: TL201"
run "--show-settings lists it" 0 "$bin" --show-settings sub/t.py --per-file-ignores 't.py:TL201'
has "shown" "$tmp/out" '"**/t.py" = ["TL201"]  (--per-file-ignores; applies when the glob matches)'
rm sub/pyproject.toml
run "--per-file-ignores without codes" 2 "$bin" --per-file-ignores 'train.py' train.py
has "format said" "$tmp/err" "expected GLOB:CODES"
run "--per-file-ignores unknown code" 2 "$bin" --per-file-ignores 'train.py:TL999' train.py
has "unknown code said" "$tmp/err" "'TL999' matches no rule"

# --- extend = "PATH" ------------------------------------------------------------------------------
mkdir -p ext/sub/gen ext/sub/tests
cp fixme.py ext/sub/a.py
cp fixme.py ext/sub/gen/b.py
cp fixme.py ext/sub/tests/c.py
printf '[tool.torchlint]\nselect = ["TL206", "TL501"]\ntorch-version = "2.4"\nextend-exclude = ["sub/gen/"]\n[tool.torchlint.per-file-ignores]\n"sub/tests/*.py" = ["TL501"]\n' >ext/pyproject.toml
printf 'extend = "../pyproject.toml"\nignore = ["TL206"]\n' >ext/sub/.torchlint.toml
run "extend: the base's select, torch-version, excludes and per-file-ignores" 1 "$bin" --format concise -q ext
has "base select and torch-version" "$tmp/out" "ext/sub/a.py:4:5: TL501"
hasnt "this file's ignore" "$tmp/out" "TL206"
hasnt "base extend-exclude, relative to the base" "$tmp/out" "gen/b.py"
hasnt "base per-file-ignores, relative to the base" "$tmp/out" "tests/c.py"
run "--show-settings names the chain" 0 "$bin" --show-settings ext/sub
has "extends shown" "$tmp/out" "  which extends: $tmp/p/ext/pyproject.toml"
printf 'extend = "../pyproject.toml"\nselect = ["TL206"]\n' >ext/sub/.torchlint.toml
run "extend: select replaces the base's" 1 "$bin" --format concise -q ext/sub/a.py
has "child select" "$tmp/out" "TL206"
hasnt "base select replaced" "$tmp/out" "TL501"
printf 'extend = "missing.toml"\n' >ext/sub/.torchlint.toml
run "extend: a missing file" 2 "$bin" ext/sub/a.py
has "missing said" "$tmp/err" "cannot read configuration '$tmp/p/ext/sub/missing.toml'"
has "where it is named" "$tmp/err" ".torchlint.toml:1:10: error: the configuration 'extend' names is invalid"
printf 'extend = "b.toml"\n' >ext/a.toml
printf 'extend = "a.toml"\n' >ext/b.toml
run "extend: a cycle" 2 "$bin" --config ext/a.toml fixme.py
has "cycle said" "$tmp/err" "'extend' goes 8 files deep (a cycle?)"
printf 'extend = 3\n' >ext/sub/.torchlint.toml
run "extend: not a path" 2 "$bin" ext/sub/a.py
has "type said" "$tmp/err" "expected the path of a configuration file for 'extend'"
rm -r ext

# --- more of ruff's habits --------------------------------------------------------------
mkdir -p habits && cd habits || exit 1
cat >s.py <<'PY'
import torch


def train(model, loader, opt, dev):
    w = torch.zeros(4)
    w.to(dev)
    for x, y in loader:
        loss = model(x).sum()
        loss.backward()
        opt.step()
PY
# Standard input with --fix: the fixed source on standard output, what is
# left (TL201: no fix) reported on standard error with the summary.
run "stdin --fix" 1 sh -c 'exec "$0" --isolated --stdin-filename s.py --fix - <s.py' "$bin"
has "stdin --fix: the fixed source" "$tmp/out" "    w = w.to(dev)"
hasnt "stdin --fix: no report in the source" "$tmp/out" "TL201"
has "stdin --fix: what is left on stderr" "$tmp/err" "s.py:10:9: TL201"
has "stdin --fix: the summary on stderr" "$tmp/err" "Found 1 finding (1 error, 0 warnings, 0 info) in 1 of 1 file checked."
if python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' "$tmp/out" 2>/dev/null; then ok; else bad "stdin --fix: the output is not Python"; fi
run "stdin --fix --format json" 1 sh -c 'exec "$0" --isolated --stdin-filename s.py --fix --format json - <s.py' "$bin"
has "stdin --fix --format json: the findings left on stderr" "$tmp/err" '"code": "TL201"'
hasnt "stdin --fix --format json: the source is not JSON" "$tmp/out" '"code"' 
# The summary: on standard output after the findings in the full and
# concise formats, on standard error for every machine format.
for f in full concise; do
	run "summary with --format $f" 1 "$bin" --isolated --format "$f" s.py
	has "summary on stdout ($f)" "$tmp/out" "Found 2 findings"
	hasnt "no summary on stderr ($f)" "$tmp/err" "Found 2 findings"
done
for f in json sarif github gitlab junit; do
	run "summary with --format $f" 1 "$bin" --isolated --format "$f" s.py
	has "summary on stderr ($f)" "$tmp/err" "Found 2 findings"
	hasnt "no summary on stdout ($f)" "$tmp/out" "Found 2 findings"
done
run "summary with -o" 1 "$bin" --isolated --format concise -o report.txt s.py
has "summary on stderr with -o" "$tmp/err" "Found 2 findings"
hasnt "the report file holds the findings only" report.txt "Found"
rm report.txt
# A folder with no Python file: a warning, not "All checks passed".
mkdir -p nopy && printf 'hello\n' >nopy/notes.txt
run "no Python file" 0 "$bin" --isolated nopy
has "no Python file: a warning" "$tmp/err" "warning: no Python files (*.py, *.ipynb) found under the given paths; nothing was checked"
hasnt "no Python file: not passed as clean" "$tmp/out" "All checks passed"
run "no Python file, -q" 0 "$bin" --isolated -q nopy
lines "no Python file, -q: quiet" "$tmp/err" 0
run "all excluded" 0 "$bin" --isolated --extend-exclude s.py s.py nopy --force-exclude
has "all excluded: the warning" "$tmp/err" "no Python files"
# Subcommands, as ruff's.
run "version subcommand" 0 "$bin" version
has "version subcommand prints the version" "$tmp/out" "torchlint "
"$bin" --version >"$tmp/v"
if cmp -s "$tmp/out" "$tmp/v"; then ok; else bad "torchlint version differs from --version"; fi
run "version subcommand takes no argument" 2 "$bin" version s.py
run "rule subcommand" 0 "$bin" rule TL201
"$bin" --explain TL201 >"$tmp/x"
if cmp -s "$tmp/out" "$tmp/x" && [ -s "$tmp/x" ]; then ok; else bad "torchlint rule TL201 differs from --explain TL201"; fi
run "rule subcommand by name" 0 "$bin" rule missing-zero-grad
has "rule by name" "$tmp/out" "TL201 missing-zero-grad"
run "rule subcommand without a code" 2 "$bin" rule
has "rule without a code says how" "$tmp/err" "usage: torchlint rule CODE"
run "rule: an unknown rule" 2 "$bin" rule TL999
has "rule: unknown" "$tmp/err" "unknown rule 'TL999'"
# A file named like a subcommand is ./version, ./rule.
cp s.py version && cp s.py rule
run "a file named version" 1 "$bin" --isolated --format concise -q ./version
has "./version analysed" "$tmp/out" "./version:10:9: TL201"
rm version rule
# Unknown options: the closest, and where to look.
run "unknown option" 2 "$bin" --selct TL201 s.py
has "did you mean" "$tmp/err" "torchlint: unknown option '--selct' (did you mean '--select'?)"
has "try --help" "$tmp/err" "Try 'torchlint --help' for more information."
run "unknown option with a value" 2 "$bin" --fromat=json s.py
has "did you mean (with =value)" "$tmp/err" "unknown option '--fromat=json' (did you mean '--format'?)"
run "unknown option, nothing close" 2 "$bin" --zzzzzzzz s.py
has "nothing close" "$tmp/err" "torchlint: unknown option '--zzzzzzzz'"
hasnt "nothing close: no guess" "$tmp/err" "did you mean"
run "ambiguous option" 2 "$bin" --show s.py
has "ambiguous: the candidates" "$tmp/err" "ambiguous option '--show' (could be --show-fixes, --show-files, --show-settings)"
run "unknown short option" 2 "$bin" -x s.py
has "unknown short option" "$tmp/err" "unknown option '-x'"
has "short: try --help" "$tmp/err" "Try 'torchlint --help'"
run "option without its value" 2 "$bin" s.py --select
has "missing value: try --help" "$tmp/err" "Try 'torchlint --help'"
# --exclude replaces the configuration's excludes (the defaults too);
# --extend-exclude adds to them.
mkdir -p ex/gen ex/build ex/keep
cp s.py ex/gen/a.py && cp s.py ex/build/b.py && cp s.py ex/keep/c.py
printf '[tool.torchlint]\nexclude = ["keep"]\n' >ex/pyproject.toml
run "config exclude" 0 "$bin" --show-files ex
hasnt "config exclude: keep/ skipped" "$tmp/out" "keep/c.py"
run "--exclude replaces it" 0 "$bin" --show-files --exclude gen ex
has "--exclude: keep/ back" "$tmp/out" "ex/keep/c.py"
has "--exclude: build/ no longer skipped (the defaults replaced)" "$tmp/out" "ex/build/b.py"
hasnt "--exclude: gen/ skipped" "$tmp/out" "ex/gen/a.py"
run "--exclude, a path relative to the working directory" 0 "$bin" --show-files --exclude ex/gen,ex/build ex
hasnt "--exclude ex/gen" "$tmp/out" "ex/gen/a.py"
hasnt "--exclude ex/build" "$tmp/out" "ex/build/b.py"
has "--exclude: the rest" "$tmp/out" "ex/keep/c.py"
run "--extend-exclude adds" 0 "$bin" --show-files --extend-exclude gen ex
hasnt "--extend-exclude: gen/" "$tmp/out" "ex/gen/a.py"
hasnt "--extend-exclude: the file's keep/ stays skipped" "$tmp/out" "ex/keep/c.py"
rm -r ex
# --fixable / --unfixable: which rules' fixes apply.
cat >f.py <<'PY'
import torch


def run(dev, path):
    w = torch.zeros(4)
    w.to(dev)
    return torch.load(path)
PY
# TL501 (unsafe fix) where torch.load's default is not weights_only yet.
printf '[tool.torchlint]\ntorch-version = "2.4"\n' >pyproject.toml
run "--diff: both fixes (TL206 safe, TL501 unsafe)" 1 "$bin" --diff --unsafe-fixes f.py
has "diff has TL206's fix" "$tmp/out" "+    w = w.to(dev)"
has "diff has TL501's fix" "$tmp/out" "weights_only=True"
run "--unfixable TL206" 1 "$bin" --diff --unsafe-fixes --unfixable TL206 f.py
hasnt "--unfixable: TL206 not fixed" "$tmp/out" "w = w.to(dev)"
has "--unfixable: TL501 still fixed" "$tmp/out" "weights_only=True"
run "--fixable TL206" 1 "$bin" --diff --unsafe-fixes --fixable TL206 f.py
has "--fixable: TL206 fixed" "$tmp/out" "w = w.to(dev)"
hasnt "--fixable: TL501 not fixed" "$tmp/out" "weights_only"
run "--fixable by family, --unfixable wins" 0 "$bin" --diff --fixable correctness --unfixable to-result-discarded f.py
lines "nothing left to fix" "$tmp/out" 0
cp f.py g.py
run "--fix --unfixable TL206" 1 "$bin" --fix --unfixable TL206 g.py
if cmp -s f.py g.py; then ok; else bad "--fix --unfixable TL206 changed the file"; fi
hasnt "--unfixable: no fix hint for it" "$tmp/out" "1 fixable with --fix (see"
has "--unfixable: the unsafe one still hinted" "$tmp/out" "1 more fixable with --fix --unsafe-fixes"
hasnt "--unfixable: not marked [*]" "$tmp/out" "TL206 [*]"
run "TL206 marked fixable otherwise" 1 "$bin" g.py
has "TL206 [*] otherwise" "$tmp/out" "TL206 [*]"
run "--fixable with an unknown rule" 2 "$bin" --fixable TL999 f.py
has "--fixable: unknown said" "$tmp/err" "--fixable: 'TL999' matches no rule"
cd .. && rm -r habits

echo "conventions: $pass passed, $fail failed"
[ "$fail" = 0 ]
