# Shared by the shell suites of tests/cli and tests/check-fixes.sh,
# check-precommit.sh and check-sarif.sh (sourced after `set -u`, with the
# torchlint binary as $1): `bin` (its absolute path), `tmp` (removed on
# exit), the pass/fail counters and the checks below.
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# run NAME EXPECTED_EXIT CMD...: runs CMD, stdout in $tmp/out, stderr in $tmp/err.
run() {
	name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" = "$want" ]; then ok; else bad "$name: exit $got, expected $want"; sed 's/^/    /' "$tmp/err" | head -5; fi
}
# has / hasnt NAME FILE PATTERN: the file contains (not) the fixed string.
has() { if grep -qF -- "$3" "$2"; then ok; else bad "$1: '$3' not in output"; sed 's/^/    /' "$2" | head -8; fi; }
hasnt() { if grep -qF -- "$3" "$2"; then bad "$1: '$3' unexpectedly in output"; sed 's/^/    /' "$2" | head -5; else ok; fi; }
# lines NAME FILE N: the file has N lines.
lines() { n=$(wc -l <"$2" | tr -d ' '); if [ "$n" = "$3" ]; then ok; else bad "$1: $n lines, expected $3"; fi; }
# json NAME FILE JS-EXPRESSION: node evaluates the expression with `d` the parsed file.
json() {
	if node -e "const d = JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8')); if (!($3)) process.exit(1)" "$2"; then ok; else bad "$1: JSON check failed: $3"; fi
}
