#!/bin/sh
# Validates torchlint's SARIF against the SARIF 2.1.0 JSON schema (the one
# shipped in npm's @microsoft/sarif-multitool-linux, checked with ajv-cli
# and ajv-formats) and with `sarif-multitool validate --rule-kind Sarif;Gh`
# (SARIF's own rules plus GitHub code scanning's). Zero errors and zero
# warnings are required; the multitool exits 0 even when it finds
# problems, so its output log is read instead.
# usage: check-sarif.sh TORCHLINT
set -u
. "$(dirname "$0")/cli/lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
tools=$root/build/sarif-tools

# Pinned validators, installed once into build/ (never committed).
if [ ! -x "$tools/node_modules/.bin/ajv" ] || [ ! -f "$tools/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool" ]; then
	mkdir -p "$tools"
	(cd "$tools" && printf '{"name":"torchlint-sarif-tools","private":true}\n' >package.json &&
		npm install --silent --no-audit --no-fund --ignore-scripts \
			@microsoft/sarif-multitool-linux@5.7.0 ajv-cli@5.0.0 ajv-formats@3.0.1 >/dev/null 2>npm.log) || {
		echo "check-sarif: installing the validators from npm failed:"; cat "$tools/npm.log"; exit 1; }
fi
multitool=$tools/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
schema=$tools/node_modules/@microsoft/sarif-multitool-linux/sarif-2.1.0.json
chmod u+x "$multitool"

# Reports to validate: the corpus and examples (many rules, a parse error),
# a clean run (no results), a run with an unreadable file (a notification),
# and a notebook.
cd "$root" || exit 1
"$bin" --format sarif --select ALL corpus examples >"$tmp/corpus.json" 2>/dev/null
printf 'x = 1\n' >"$tmp/clean.py"
(cd "$tmp" && "$bin" --format sarif clean.py >"$tmp/clean.json" 2>/dev/null)
printf 'x = "\377"\n' >"$tmp/latin1.py"
(cd "$tmp" && "$bin" --format sarif latin1.py clean.py >"$tmp/unreadable.json" 2>/dev/null)
cat >"$tmp/nb.ipynb" <<'NB'
{"cells": [{"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],
  "source": ["import torch\n", "for x, y in loader:\n", "    loss = crit(model(x), y)\n", "    loss.backward()\n", "    opt.step()\n"]}],
 "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
NB
(cd "$tmp" && "$bin" --format sarif nb.ipynb >"$tmp/notebook.json" 2>/dev/null)

for report in corpus clean unreadable notebook; do
	f=$tmp/$report.json
	if "$tools/node_modules/.bin/ajv" validate --spec=draft2020 -c ajv-formats -s "$schema" -d "$f" >"$tmp/ajv.out" 2>&1; then ok; else
		bad "$report: schema validation failed:"; head -20 "$tmp/ajv.out"; fi
	rm -f "$tmp/log.sarif"
	"$multitool" validate --rule-kind "Sarif;Gh" -o "$tmp/log.sarif" "$f" >"$tmp/mt.out" 2>&1
	if node -e "
		const d = JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8'));
		const rs = (d.runs[0].results || []).filter(r => r.level !== 'none' && r.level !== 'note');
		for (const r of rs) console.log(r.level || 'warning', r.ruleId, JSON.stringify(r.message));
		const notes = ((d.runs[0].invocations || [])[0] || {}).toolExecutionNotifications || [];
		for (const n of notes) console.log('tool', JSON.stringify(n.message));
		process.exit(rs.length || notes.length ? 1 : 0);" "$tmp/log.sarif" >"$tmp/mt.txt" 2>&1; then ok; else
		bad "$report: sarif-multitool reports problems:"; cat "$tmp/mt.txt" "$tmp/mt.out" | head -20; fi
done

# The facts GitHub code scanning relies on, checked directly.
check() {
	if node -e "const d = JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8')); const run = d.runs[0]; if (!($3)) process.exit(1)" "$2"; then ok; else bad "$1: $3"; fi
}
c=$tmp/corpus.json
check version "$c" "d.version === '2.1.0' && d.runs.length === 1"
check driver "$c" "run.tool.driver.name === 'torchlint' && /^[0-9]+[.][0-9]+[.][0-9]+/.test(run.tool.driver.semanticVersion) && /^https:[/][/]/.test(run.tool.driver.informationUri)"
check rules "$c" "run.tool.driver.rules.every(r => /^TL[0-9]{3}$/.test(r.id) && r.name && r.shortDescription.text && r.fullDescription.text && r.help.text && r.help.markdown && r.helpUri && ['error','warning','note'].includes(r.defaultConfiguration.level) && r.properties.tags.length >= 1 && r.properties.precision)"
check rule-index "$c" "run.results.every(r => run.tool.driver.rules[r.ruleIndex].id === r.ruleId)"
check srcroot "$c" "run.originalUriBaseIds['%SRCROOT%'].uri.endsWith('/') && run.originalUriBaseIds['%SRCROOT%'].uri.startsWith('file:///')"
check relative-uris "$c" "run.results.every(r => { const a = r.locations[0].physicalLocation.artifactLocation; return a.uriBaseId === '%SRCROOT%' && !a.uri.startsWith('/') && !a.uri.includes('://'); })"
check regions "$c" "run.results.every(r => { const g = r.locations[0].physicalLocation.region; return g.startLine >= 1 && g.startColumn >= 1 && (g.endLine > g.startLine || g.endColumn > g.startColumn); })"
check column-kind "$c" "run.columnKind === 'unicodeCodePoints'"
check fingerprints "$c" "run.results.every(r => /^[0-9a-f]+:[0-9]+$/.test(r.partialFingerprints.primaryLocationLineHash))"
check parse-error-notification "$c" "run.invocations[0].toolExecutionNotifications.some(n => n.level === 'warning' && /syntax error/.test(n.message.text))"
check limits "$c" "run.results.length <= 25000 && run.tool.driver.rules.length <= 25000 && run.results.every(r => r.locations.length <= 10 && r.message.text.length <= 1000)"
check clean "$tmp/clean.json" "Array.isArray(run.results) && run.results.length === 0 && run.invocations[0].executionSuccessful === true"
check unreadable "$tmp/unreadable.json" "run.invocations[0].executionSuccessful === false && run.invocations[0].toolExecutionNotifications.some(n => n.level === 'error' && /not valid UTF-8/.test(n.message.text) && n.locations[0].physicalLocation.artifactLocation.uri === 'latin1.py')"
check notebook "$tmp/notebook.json" "run.results.length === 1 && run.results[0].properties.cell === 1 && run.results[0].locations[0].physicalLocation.artifactLocation.uri === 'nb.ipynb' && run.results[0].locations[0].physicalLocation.region.startLine === 2"
# A known column: examples/train_cifar.py line 95, `criterion(...)` at column 16.
check column "$c" "run.results.some(r => r.ruleId === 'TL401' && r.locations[0].physicalLocation.artifactLocation.uri === 'examples/train_cifar.py' && r.locations[0].physicalLocation.region.startLine === 95 && r.locations[0].physicalLocation.region.startColumn === 16)"

echo "sarif: $pass passed, $fail failed"
[ "$fail" = 0 ]
