#!/bin/sh
# docs/rules/: one generated page per built-in rule (tools/gen_rule_docs.py
# from `torchlint --explain`), up to date, and the links that point at
# them: SARIF helpUri (which the language server's codeDescription repeats)
# and the Documentation line of --explain, all under the Makefile's
# HOMEPAGE; --explain names no path that exists only in a checkout.
# usage: check-rule-docs.sh TORCHLINT
set -u
. "$(dirname "$0")/cli/lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
homepage=$(sed -n 's/^HOMEPAGE ?= //p' Makefile)

python3 tools/gen_rule_docs.py "$bin" "$tmp/rules" || bad "gen_rule_docs.py failed"
if diff -r docs/rules "$tmp/rules" >"$tmp/diff"; then ok; else
	bad "docs/rules is not what the rules say now: run 'python3 tools/gen_rule_docs.py ./torchlint' and commit"
	head -20 "$tmp/diff"
fi
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
done
has "--explain names the skill on the project's pages" "$root/docs/rules/TL101.md" "(from $homepage/blob/main/skills/"
# A --rules-dir rule has no page: its link is the README.
mkdir -p "$tmp/r"
printf 'code = "TL599"\nname = "x"\nfamily = "safety"\nseverity = "info"\ndefault = true\nmessage = "m"\n' >"$tmp/r/TL599-x.toml"
printf '((call) @finding)\n' >"$tmp/r/TL599-x.scm"
"$bin" --rules-dir "$tmp/r" --format sarif --select TL599 "$tmp/x.py" >"$tmp/r.sarif" 2>/dev/null
json "a --rules-dir rule links the README" "$tmp/r.sarif" \
	"d.runs[0].tool.driver.rules.find(r => r.id === 'TL599').helpUri === '$homepage/blob/main/README.md'"

echo "rule-docs: $pass passed, $fail failed"
[ "$fail" = 0 ]
