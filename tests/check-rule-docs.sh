#!/bin/sh
# The generated documentation is up to date (tools/gen_rule_docs.py --check):
# docs/rules/, one page per built-in rule from `torchlint --explain` with
# its cost plots, the rule index, the rules in mkdocs.yml's navigation, and
# README.md's rule table and first run; and the links that point at the
# rule pages: SARIF helpUri (which the language server's codeDescription repeats)
# and the Documentation line of --explain, all under the Makefile's
# HOMEPAGE; --explain names no path that exists only in a checkout.
# usage: check-rule-docs.sh TORCHLINT
set -u
. "$(dirname "$0")/cli/lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
homepage=$(sed -n 's/^HOMEPAGE ?= //p' Makefile)

if python3 tools/gen_rule_docs.py --check "$bin"; then ok; else
	bad "generated documentation is stale: run 'python3 tools/gen_rule_docs.py ./torchlint' and commit"
fi
# The check fails on a stale page (a copy of the generated files, one edited).
mkdir -p "$tmp/copy/tools"
cp -r Makefile README.md mkdocs.yml docs examples validate "$tmp/copy/"
cp tools/gen_rule_docs.py "$tmp/copy/tools/"
printf 'edited by hand\n' >>"$tmp/copy/docs/rules/TL201.md"
printf '# gone\n' >"$tmp/copy/docs/rules/TL999.md"
python3 "$tmp/copy/tools/gen_rule_docs.py" --check "$bin" >"$tmp/out" 2>&1
status=$?
if [ "$status" = 1 ] && grep -q "docs/rules/TL201.md" "$tmp/out" && grep -q "TL999.md (no such rule)" "$tmp/out"; then ok; else
	bad "gen_rule_docs.py --check missed an edited page or a page of no rule (exit $status)"; cat "$tmp/out"
fi
# Each measured rule's page shows its plots and names the device.
has "TL101's page shows its GPU plot" docs/rules/TL101.md "](../costs/plots/nvidia-h200/TL101-memory.svg)"
has "TL101's page names the device" docs/rules/TL101.md "On NVIDIA H200 (PyTorch"
for f in docs/costs/plots/*/TL*.svg; do
	code=$(basename "$f" | cut -d- -f1)
	grep -qF "](../costs/plots/$(basename "$(dirname "$f")")/$(basename "$f"))" "docs/rules/$code.md" ||
		echo "$f" 
done >"$tmp/unshown"
if [ ! -s "$tmp/unshown" ] && [ "$(ls docs/costs/plots/*/TL*.svg | wc -l)" -gt 50 ]; then ok; else
	bad "plots no rule page shows: $(cat "$tmp/unshown")"; fi
"$bin" --list-rules --format json >"$tmp/rules.json"
n=$(node -p "JSON.parse(require('fs').readFileSync('$tmp/rules.json')).length")
m=$(ls docs/rules/TL*.md | wc -l)
if [ "$n" = "$m" ] && [ "$n" -gt 30 ]; then ok; else bad "$n rules, $m pages"; fi

printf 'x = 1\n' >"$tmp/x.py"
"$bin" --format sarif --select ALL "$tmp/x.py" >"$tmp/x.sarif" 2>/dev/null
json "SARIF helpUri is each rule's page" "$tmp/x.sarif" \
	"d.runs[0].tool.driver.rules.length > 30 && d.runs[0].tool.driver.rules.every(r => r.helpUri === '$homepage/blob/main/docs/rules/' + r.id + '.md' && require('fs').existsSync('docs/rules/' + r.id + '.md'))"
for code in TL101 TL201 TL503 TL000; do
	run "--explain $code" 0 "$bin" --explain "$code"
	has "--explain $code links its page" "$tmp/out" "Documentation: $homepage/blob/main/docs/rules/$code.md"
	hasnt "--explain $code: no checkout-only path" "$tmp/out" "(from skills/"
	hasnt "--explain $code: validate/ as a link, not a checkout path" "$tmp/out" "\`validate/"
	hasnt "--explain $code: docs/ as a link, not a checkout path" "$tmp/out" "\`docs/"
done
run "--explain TL101" 0 "$bin" --explain TL101
has "--explain names the skill on the project's pages" "$tmp/out" "(from $homepage/blob/main/skills/"
has "the page links the skill" "$root/docs/rules/TL101.md" "(from [\`skills/torchlint-memory/SKILL.md\`]($homepage/blob/main/skills/"
has "the page links its section of the report" "$root/docs/rules/TL101.md" "[\`docs/costs/README.md\`](../costs/README.md#tl101)"
# A --rules-dir rule has no page: its link is the README.
mkdir -p "$tmp/r"
printf 'code = "TL599"\nname = "x"\nfamily = "safety"\nseverity = "info"\ndefault = true\nmessage = "m"\n' >"$tmp/r/TL599-x.toml"
printf '((call) @finding)\n' >"$tmp/r/TL599-x.scm"
"$bin" --rules-dir "$tmp/r" --format sarif --select TL599 "$tmp/x.py" >"$tmp/r.sarif" 2>/dev/null
json "a --rules-dir rule links the README" "$tmp/r.sarif" \
	"d.runs[0].tool.driver.rules.find(r => r.id === 'TL599').helpUri === '$homepage/blob/main/README.md'"

echo "rule-docs: $pass passed, $fail failed"
[ "$fail" = 0 ]
