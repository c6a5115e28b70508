#!/bin/sh
# One stem per pitfall: every rule in rules/ has its query, flagged and OK
# fixtures in corpus/, a section in skills/ headed "## CODE name", the
# reproduction its metadata names (validate/cases/CODE/), and a link in the
# README's rule table;
# every code a skill or fixture names exists.
# usage: check-stems.sh TORCHLINT
set -u
bin=$1
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

"$bin" --list-rules | awk 'NR > 1 { print $1, $2, $4 }' >/tmp/tl-stems.$$
trap 'rm -f /tmp/tl-stems.$$' EXIT
while read -r code name default; do
	[ -f "rules/$code-$name.toml" ] && ok || bad "$code: no rules/$code-$name.toml"
	# Engine findings (TL0xx) come from the engine, not from a query.
	case $code in
	TL0*) ;;
	*) [ -f "queries/$code-$name.scm" ] && ok || bad "$code: no queries/$code-$name.scm" ;;
	esac
	# TL002 needs a file past a per-file limit (and exits 2): tests/cli/test-limits.sh tests it.
	if [ "$code" = TL002 ]; then
		grep -qs TL002 tests/cli/test-limits.sh && ok || bad "TL002: not tested by tests/cli/test-limits.sh"
	else
		grep -rqsE "^[[:space:]]*# expect: *([A-Z0-9]+, *)*$code" corpus && ok || bad "$code: no '# expect: $code' fixture in corpus/"
	fi
	if [ "$code" != TL000 ] && [ "$code" != TL002 ]; then
		grep -rqsE "^[[:space:]]*# ok: *([A-Z0-9]+, *)*$code" corpus && ok || bad "$code: no '# ok: $code' fixture in corpus/"
	fi
	grep -rqs "^## $code $name\$" skills && ok || bad "$code: no '## $code $name' section in skills/"
	# The reproduction its metadata names (validate = "validate/cases/CODE").
	v=$(sed -n 's/^validate *= *"\(.*\)"[[:space:]]*$/\1/p' "rules/$code-$name.toml" 2>/dev/null)
	if [ -n "$v" ]; then
		[ "$v" = "validate/cases/$code" ] && [ -f "$v/flagged.py" ] && [ -f "$v/fixed.py" ] && ok ||
			bad "$code: validate = \"$v\" is not validate/cases/$code with flagged.py and fixed.py"
	fi
	grep -qF "[$code](docs/rules/$code.md)" README.md && ok || bad "$code: not in the README rule table"
done </tmp/tl-stems.$$

# Codes named by skills headings must exist.
for c in $(grep -rhoE '^## TL[0-9]{3}' skills | awk '{print $2}' | sort -u); do
	grep -q "^$c " /tmp/tl-stems.$$ && ok || bad "skills/ has a section for unknown code $c"
done
# Every skill opens with front matter naming itself and saying when to use it.
for f in skills/*/SKILL.md; do
	dir=$(basename "$(dirname "$f")")
	head -1 "$f" | grep -q '^---$' && ok || bad "$f: no YAML front matter"
	sed -n '2,6p' "$f" | grep -q "^name: $dir\$" && ok || bad "$f: front matter lacks 'name: $dir'"
	sed -n '2,8p' "$f" | grep -q '^description: .\{20,\}' && ok || bad "$f: front matter lacks a description"
done
echo "stems: $pass passed, $fail failed"
[ "$fail" = 0 ]
