#!/bin/sh
# `--explain CODE` cites the measured cost generated from validate/results/
# (validate/results/summary.json, embedded at build time), verbatim but for
# its repository paths, printed as links to the homepage, and
# says "Not yet measured" for a rule with no result: never a number that no
# result file holds. The summary itself must be what validate/report.py
# generates from the committed results.
# usage: check-validate-explain.sh TORCHLINT
set -u
bin=$1
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
summary=validate/results/summary.json
homepage=$(sed -n 's/^HOMEPAGE *[:?]*= *//p' Makefile)

if python3 validate/report.py --check; then ok; else bad "docs/costs/ (the report, its plots) or validate/results/summary.json are stale"; fi

"$bin" --list-rules | awk 'NR > 1 && $1 !~ /^TL0/ { print $1 }' >"$tmp/codes"
while read -r code; do
	"$bin" --explain "$code" >"$tmp/out" 2>&1 || { bad "$code: --explain failed"; continue; }
	# The summary's text, as --explain must print it.
	# Repository paths become links to the homepage (an installed binary has no checkout).
	python3 -c 'import json, re, sys
r = json.load(open(sys.argv[1]))["rules"].get(sys.argv[2])
link = lambda t: re.sub(r"(^|(?<=[ (\n`]))validate/", sys.argv[3] + "/blob/main/validate/", t)
print(link(r["text"]) if r else "Not yet measured: validate/results/ holds no result for %s." % sys.argv[2])' \
		"$summary" "$code" "$homepage" >"$tmp/want"
	# The section runs to the end, but for the page link that closes --explain.
	sed -n '/^### Measured cost (validate\/)$/,$p' "$tmp/out" | sed '1,2d' | sed '/^Documentation: /d' |
		sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$tmp/got"
	if cmp -s "$tmp/want" "$tmp/got"; then ok; else
		bad "$code: --explain does not print the generated measurement:"
		diff "$tmp/want" "$tmp/got" | sed 's/^/    /'
	fi
done <"$tmp/codes"

# A rule validate/ knows nothing about: "not yet measured", no number.
mkdir "$tmp/rules"
printf 'code = "TL598"\nname = "print-call"\nfamily = "safety"\nseverity = "info"\ndefault = false\nmessage = "print"\n' \
	>"$tmp/rules/TL598-print-call.toml"
printf '((call function: (identifier) @_fn) @finding\n  (#eq? @_fn "print"))\n' >"$tmp/rules/TL598-print-call.scm"
"$bin" --rules-dir "$tmp/rules" --explain TL598 >"$tmp/out" 2>&1
if grep -qx "Not yet measured: validate/results/ holds no result for TL598." "$tmp/out" &&
	! sed -n '/^### Measured cost/,$p' "$tmp/out" | sed 's/TL598//g' | grep -q '[0-9]'; then ok; else
	bad "TL598 (no result): --explain must say 'Not yet measured' and cite no number:"
	cat "$tmp/out"
fi
echo "validate-explain: $pass passed, $fail failed"
[ "$fail" = 0 ]
