#!/bin/sh
# The documentation site: docs/ builds with Debian's mkdocs in strict mode
# (a link to a page or image that does not exist fails), offline; then
# tools/check_docs.py checks what mkdocs 1.4 does not: every page in the
# navigation, every anchor a link names, no asset from the network, the
# figures the pages quote (unsafe fixes, repositories, rules) against their
# sources, and no reference outside the repository (a session's notes
# included) or to an issue number in user-facing text. Then the same
# checks on a doctored copy, which must fail on each thing doctored. The
# README's length is bounded: it is the front door, the rest is in docs/.
# usage: check-docs.sh TORCHLINT
set -u
. "$(dirname "$0")/cli/lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1

if ! command -v mkdocs >/dev/null 2>&1; then
	bad "mkdocs is not installed (tests/install-test-deps.sh installs Debian's mkdocs)"
	echo "docs: $pass passed, $fail failed"
	exit 1
fi

# 1. The site, strict, as `make docs` builds it.
run "mkdocs build --strict" 0 mkdocs build --strict --site-dir "$tmp/site"
cat "$tmp/out" "$tmp/err" >"$tmp/build.log"
hasnt "mkdocs: no warning" "$tmp/build.log" "WARNING"
hasnt "mkdocs: every page in the nav" "$tmp/build.log" "are not included in the \"nav\""
for page in index.html rules/index.html rules/TL101.html costs/index.html usage.html development.html; do
	if [ -f "$tmp/site/$page" ]; then ok; else bad "the site has no $page"; fi
done
has "a rule page shows its plot" "$tmp/site/rules/TL101.html" "../costs/plots/nvidia-h200/TL101-memory.svg"
if [ -f "$tmp/site/costs/plots/nvidia-h200/TL101-memory.svg" ]; then ok; else bad "the site lacks the plots"; fi
run "check_docs.py on the site" 0 python3 tools/check_docs.py "$tmp/site" "$bin"
[ "$fail" = 0 ] || cat "$tmp/out"

# 2. make docs, into the build folder.
run "make docs" 0 make --no-print-directory -s docs BUILD="$tmp/mk"
if [ -f "$tmp/mk/site/index.html" ]; then ok; else bad "make docs wrote no $tmp/mk/site/index.html"; fi

# 3. A doctored copy: each fault must be reported.
c=$tmp/copy
mkdir -p "$c/tools/ecosystem"
cp -r Makefile README.md mkdocs.yml docs rules skills examples "$c/"
mkdir -p "$c/validate" "$c/analyzer"
cp tools/ecosystem/repos.tsv tools/ecosystem/README.md "$c/tools/ecosystem/"
cp validate/README.md "$c/validate/"
cp analyzer/README.md "$c/analyzer/"
printf '# Left out\n\nNo nav entry.\n' >"$c/docs/orphan.md"
printf '\n[a dead anchor](usage.md#no-such-section)\n' >>"$c/docs/notebooks.md"
printf '\nOver 12 repositories, 99 rules, as RULES.md and issue 7 say.\n' >>"$c/docs/configuration.md"
printf '\nCounted by /work/notes/count.py.\n' >>"$c/docs/configuration.md"
printf '\nSee https://github.com/torchlint/torchlint/blob/main/no/such/file.md and https://github.com/torchlint/torchlint#no-such-heading.\n' >>"$c/docs/configuration.md"
sed -i '/^| TL503 |/d' "$c/docs/fixes.md"
sed -i 's/entry: torchlint --force-exclude/entry: torchlint/' "$c/docs/integrations.md"
sed -i 's/^applicability = "unsafe"/applicability = "safe"/' "$c/rules/TL504-"*.toml
(cd "$c" && mkdocs build --site-dir "$c/site" >/dev/null 2>&1) || bad "the doctored copy does not build"
sed -i 's|</head>|<script src="https://cdn.example.org/x.js"></script></head>|' "$c/site/notebooks.html"
run "check_docs.py on the doctored copy" 1 python3 tools/check_docs.py --root "$c" "$c/site" "$bin"
has "orphan page" "$tmp/out" "docs/orphan.md: not in mkdocs.yml's nav"
has "dead anchor" "$tmp/out" "link usage.html#no-such-section names an anchor usage.html does not have"
has "network asset" "$tmp/out" "notebooks.html: loads https://cdn.example.org/x.js from the network"
has "repository count" "$tmp/out" "docs/configuration.md: says '12 repositories'"
has "rule count" "$tmp/out" "docs/configuration.md: says '99 rules'"
has "outside reference" "$tmp/out" "names RULES.md, which is not in the repository"
has "issue number" "$tmp/out" "names an issue number"
has "session notes" "$tmp/out" "names a session's notes, outside the repository"
has "fix table row missing" "$tmp/out" "docs/fixes.md: TL503's fixes are absent in its table"
has "help against the rules" "$tmp/out" "--help lists the unsafe fixes of"
has "dead link into the repository" "$tmp/out" "links no/such/file.md, which the repository does not have"
has "snippets that drifted" "$tmp/out" "docs/integrations.md: the <!-- local-hook --> snippet differs from README.md's"
has "dead README anchor" "$tmp/out" "links the README's #no-such-heading, which it has no heading for"

# 4. The README is the front door.
n=$(wc -l <README.md)
if [ "$n" -le 250 ]; then ok; else bad "README.md has $n lines (at most 250: the rest belongs in docs/)"; fi

echo "docs: $pass passed, $fail failed"
[ "$fail" = 0 ]
