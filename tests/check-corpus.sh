#!/bin/sh
# Corpus expectation runner: runs torchlint over fixture files and compares
# every finding with the annotations on the line before it:
#   # expect: TL101        the next code line must be reported with TL101
#   # ok: TL101            ... must not be
#   # todo-expect: TL101   a known miss: must not be reported (yet)
#   # todo-ok: TL101       a known false positive: is reported (for now)
# Several codes may be listed, comma-separated. Any finding on a line
# without an annotation for its code fails the run.
# Multi-file projects (a folder under a `projects/` folder of PATH, e.g.
# corpus/projects/NAME/) are also run the way a user runs them: from the
# project's root, one file named at a time (as pre-commit passes staged
# files), so that facts from the modules a file imports must come from the
# project model, not from those modules being named too.
# usage: check-corpus.sh TORCHLINT PATH...
set -u
bin=$1
case $bin in /*) ;; */*) bin=$(pwd)/$bin ;; esac
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# All rules, opt-in ones too: fixtures document every rule.
"$bin" --format concise --select ALL --color never -q "$@" >"$tmp/out" 2>"$tmp/err"
status=$?
if [ $status -gt 1 ]; then
	echo "check-corpus: torchlint failed (exit $status):"
	cat "$tmp/err"
	exit 1
fi
"$bin" --list-rules | awk 'NR > 1 { print $1 }' >"$tmp/codes"

# check FINDINGS FILES LABEL: the annotations of FILES against FINDINGS.
check() {
awk -v codes="$tmp/codes" -v findings="$1" -v files="$2" -v label="$3" '
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
BEGIN {
	while ((getline c < codes) > 0) known[c] = 1
	while ((getline line < findings) > 0) {
		# path:line:col: CODE message
		if (match(line, /:[0-9]+:[0-9]+: TL[0-9][0-9][0-9] /)) {
			path = substr(line, 1, RSTART - 1)
			rest = substr(line, RSTART + 1)
			split(rest, parts, ":")
			code = substr(rest, index(rest, " TL") + 1, 5)
			key = path ":" parts[1] ":" code
			found[key] = line
		}
	}
	while ((getline f < files) > 0) {
		n = 0
		delete pending
		ln = 0
		while ((getline src < f) > 0) {
			ln++
			if (match(src, /^[ \t]*# *(expect|ok|todo-expect|todo-ok): */)) {
				kind = src
				sub(/^[ \t]*# */, "", kind)
				sub(/:.*/, "", kind)
				list = substr(src, RSTART + RLENGTH)
				sub(/[ \t]+#.*$/, "", list)
				m = split(list, cs, /[ ,]+/)
				for (i = 1; i <= m; i++) {
					c = trim(cs[i])
					if (c == "") continue
					if (!(c in known)) {
						printf "%s:%d: annotation names unknown code %s\n", f, ln, c
						bad++
						continue
					}
					pending[++n] = kind " " c
				}
				continue
			}
			if (n && src ~ /[^ \t]/ && src !~ /^[ \t]*#/) {
				for (i = 1; i <= n; i++) {
					split(pending[i], kc, " ")
					ann[f ":" ln ":" kc[2]] = kc[1]
				}
				n = 0
				delete pending
			}
		}
		close(f)
	}
	for (key in ann) {
		kind = ann[key]
		hit = (key in found)
		if (kind == "expect" && !hit) { printf "MISSING     %s  (# expect)\n", key; bad++ }
		else if (kind == "ok" && hit) { printf "UNEXPECTED  %s  (# ok)\n    %s\n", key, found[key]; bad++ }
		else if (kind == "todo-expect" && hit) { printf "NOW FOUND   %s  (# todo-expect: make it # expect)\n", key; bad++ }
		else if (kind == "todo-ok" && !hit) { printf "NOW SILENT  %s  (# todo-ok: make it # ok)\n", key; bad++ }
		else good++
	}
	for (key in found) {
		if (!(key in ann)) { printf "UNEXPECTED  %s  (no annotation)\n    %s\n", key, found[key]; bad++ }
	}
	printf "%s: %d passed, %d failed\n", label, good, bad + 0
	exit bad > 0
}' </dev/null
}

find "$@" -name '*.py' -type f | sort >"$tmp/files"
check "$tmp/out" "$tmp/files" corpus
rc=$?

# Each project from its root, one file at a time.
find "$@" -type d -path '*/projects/*' -prune -name '*' -print 2>/dev/null | sort >"$tmp/projects"
: >"$tmp/pout"
: >"$tmp/pfiles"
while read -r proj; do
	case $proj in */projects/*/*) continue ;; esac
	find "$proj" -name '*.py' -type f | sort | while read -r f; do
		rel=${f#"$proj"/}
		echo "$f" >>"$tmp/pfiles"
		(cd "$proj" && "$bin" --format concise --select ALL --color never -q "$rel") 2>>"$tmp/err" |
			sed "s|^|$proj/|" >>"$tmp/pout"
	done
done <"$tmp/projects"
if [ -s "$tmp/pfiles" ]; then
	check "$tmp/pout" "$tmp/pfiles" "corpus projects, one file each from the project root" || rc=1
fi
exit $rc
