#!/bin/sh
# --format gitlab (Code Quality JSON) and --format junit (JUnit XML), each
# checked against a schema (tests/fixtures/schemas/: ajv for the JSON, as
# for SARIF; xmllint for the XML) on many findings, a clean run, an
# unreadable file, a notebook and hostile file names; GitLab fingerprints
# unique and stable when lines move; and --format github and gitlab naming
# files relative to the repository's root from any working directory.
# usage: check-ci-formats.sh TORCHLINT
set -u
. "$(dirname "$0")/cli/lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
schemas=$root/tests/fixtures/schemas
tools=$root/build/sarif-tools
if [ ! -x "$tools/node_modules/.bin/ajv" ]; then
	mkdir -p "$tools"
	(cd "$tools" && [ -f package.json ] || printf '{"name":"torchlint-sarif-tools","private":true}\n' >package.json
	 cd "$tools" && npm install --silent --no-audit --no-fund --ignore-scripts ajv-cli@5.0.0 ajv-formats@3.0.1 >/dev/null 2>npm.log) || {
		echo "check-ci-formats: installing ajv from npm failed:"; cat "$tools/npm.log"; exit 1; }
fi
ajv=$tools/node_modules/.bin/ajv

# The reports: the corpus (many rules), a clean file, an unreadable one, a
# notebook, names with a newline, an escape and a byte that is not UTF-8.
cd "$tmp" || exit 1
git init -q repo
mkdir -p repo/src/pkg
cd repo || exit 1
cp "$root/examples/train_cifar.py" src/pkg/t.py
printf 'x = 1\n' >src/clean.py
printf 'x = "\377"\n' >src/latin1.py
cat >src/nb.ipynb <<'NB'
{"cells": [{"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],
  "source": ["import torch\n", "for x, y in loader:\n", "    loss = crit(model(x), y)\n", "    loss.backward()\n", "    opt.step()\n"]}],
 "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
NB
odd1=$(printf 'src/a\nb&<"x".py')
odd2=$(printf 'src/c\033[1m\377.py')
cp src/pkg/t.py "$odd1"
cp src/pkg/t.py "$odd2"

for fmt in gitlab junit; do
	ext=json
	[ $fmt = junit ] && ext=xml
	(cd "$root" && "$bin" --format $fmt --select ALL corpus examples >"$tmp/corpus.$ext" 2>/dev/null)
	"$bin" --format $fmt src/clean.py >"$tmp/clean.$ext" 2>/dev/null
	"$bin" --format $fmt src/latin1.py src/clean.py >"$tmp/unreadable.$ext" 2>/dev/null
	"$bin" --format $fmt --select ALL src/nb.ipynb >"$tmp/notebook.$ext" 2>/dev/null
	"$bin" --format $fmt "$odd1" "$odd2" >"$tmp/names.$ext" 2>/dev/null
	for r in corpus clean unreadable notebook names; do
		if [ $fmt = gitlab ]; then
			if "$ajv" validate --spec=draft7 -s "$schemas/gitlab-codequality.schema.json" -d "$tmp/$r.json" >"$tmp/v.out" 2>&1; then ok; else
				bad "gitlab $r: schema validation failed"; head -20 "$tmp/v.out"; fi
			json "gitlab $r: fingerprints unique" "$tmp/$r.json" "new Set(d.map(i => i.fingerprint)).size === d.length"
		else
			if xmllint --noout --schema "$schemas/junit.xsd" "$tmp/$r.xml" >"$tmp/v.out" 2>&1; then ok; else
				bad "junit $r: schema validation failed"; head -20 "$tmp/v.out"; fi
			# The counts agree with the elements.
			t=$(xmllint --xpath 'count(//testcase)' "$tmp/$r.xml")
			f=$(xmllint --xpath 'count(//failure)' "$tmp/$r.xml")
			e=$(xmllint --xpath 'count(//error)' "$tmp/$r.xml")
			at=$(xmllint --xpath 'string(/testsuites/@tests)' "$tmp/$r.xml")
			af=$(xmllint --xpath 'string(/testsuites/@failures)' "$tmp/$r.xml")
			ae=$(xmllint --xpath 'string(/testsuites/@errors)' "$tmp/$r.xml")
			if [ "$t:$f:$e" = "$at:$af:$ae" ]; then ok; else bad "junit $r: counts $at:$af:$ae, elements $t:$f:$e"; fi
		fi
	done
done
json "gitlab corpus: many findings" "$tmp/corpus.json" "d.length > 100 && new Set(d.map(i => i.check_name)).size > 20"
json "gitlab clean: empty" "$tmp/clean.json" "d.length === 0"
json "gitlab notebook: a line of the raw file" "$tmp/notebook.json" \
	"d.length > 0 && d.every(i => i.location.path === 'src/nb.ipynb' && i.location.lines.begin >= 1)"
json "gitlab names: U+FFFD for the bad byte" "$tmp/names.json" "d.some(i => i.location.path.includes('\\ufffd'))"
json "gitlab severities" "$tmp/corpus.json" \
	"d.some(i => i.severity === 'critical') && d.some(i => i.severity === 'major') && d.every(i => i.severity !== 'blocker')"
if [ "$(xmllint --xpath 'count(//testsuite)' "$tmp/corpus.xml")" -gt 50 ]; then ok; else bad "junit corpus: few testsuites"; fi
f=$(xmllint --xpath 'count(//testsuite[@name="src/clean.py"]/testcase[not(*)])' "$tmp/clean.xml")
if [ "$f" = 1 ]; then ok; else bad "junit clean: a passing testcase expected, got $f"; fi
f=$(xmllint --xpath 'count(//testsuite[@name="src/latin1.py"]/testcase/error)' "$tmp/unreadable.xml")
if [ "$f" = 1 ]; then ok; else bad "junit unreadable: an error expected, got $f"; fi
has "junit notebook: cell position" "$tmp/notebook.xml" 'name="TL201 missing-zero-grad at cell 1:5:5"'
has "junit names: escaped markup" "$tmp/names.xml" 'name="src/a&#10;b&amp;&lt;&quot;x&quot;.py"'
hasnt "junit names: no raw escape byte" "$tmp/names.xml" "$(printf '\033')"

# Fingerprints follow the code, not the line numbers.
"$bin" --format gitlab src/pkg/t.py >"$tmp/before.json" 2>/dev/null
{ printf '# a new first line\n\n'; cat src/pkg/t.py; } >"$tmp/moved.py"
cp "$tmp/moved.py" src/pkg/t.py
"$bin" --format gitlab src/pkg/t.py >"$tmp/after.json" 2>/dev/null
node -e "
const fs = require('fs');
const a = JSON.parse(fs.readFileSync(process.argv[1])), b = JSON.parse(fs.readFileSync(process.argv[2]));
const ok = a.length > 2 && a.length === b.length && a.every((x, i) => x.fingerprint === b[i].fingerprint && x.location.lines.begin + 2 === b[i].location.lines.begin);
process.exit(ok ? 0 : 1);" "$tmp/before.json" "$tmp/after.json" && ok || bad "gitlab fingerprints changed when lines moved"
# Two findings of one rule on one line still differ.
printf 'import torch\nx = [torch.load(a), torch.load(b)]\n' >src/two.py
"$bin" --format gitlab --torch-version 2.4 src/two.py >"$tmp/two.json" 2>/dev/null
json "gitlab: same rule twice on a line" "$tmp/two.json" "d.length === 2 && d[0].fingerprint !== d[1].fingerprint"

# From a subdirectory, github and gitlab name files from the repository's
# root, without ./ (SARIF already does); the text formats keep the given path.
cd src/pkg || exit 1
run "github from a subdirectory" 1 "$bin" --format github t.py
has "github path from the root" "$tmp/out" "::error file=src/pkg/t.py,line="
hasnt "github: no ./" "$tmp/out" "file=./"
run "github with ./ and .." 1 "$bin" --format github ./../pkg/t.py
has "github path normalised" "$tmp/out" "::error file=src/pkg/t.py,line="
run "gitlab from a subdirectory" 1 "$bin" --format gitlab .
json "gitlab path from the root" "$tmp/out" "d.length > 0 && d.every(i => i.location.path === 'src/pkg/t.py')"
run "concise keeps the given path" 1 "$bin" --format concise t.py
has "concise path" "$tmp/out" "t.py:"
hasnt "concise path not rewritten" "$tmp/out" "src/pkg/t.py"
cd "$root" || exit 1
run "junit in --help" 0 "$bin" --help
has "help names the formats" "$tmp/out" "gitlab"
run "unknown format" 2 "$bin" --format xml corpus
has "unknown format lists them" "$tmp/err" "expected full, concise, json, sarif, github, gitlab or junit"

echo "ci-formats: $pass passed, $fail failed"
[ "$fail" = 0 ]
