#!/bin/sh
# --fix writes safely in a shared tree (issue 26): the repros of the
# reliability run are the inputs.
#  - a planted `v.py.torchlint-fix.tmp` (the old predictable name) as a link
#    to another file, or as a regular file, is never touched;
#  - a symbolic link to a source is fixed at its target and stays a link;
#  - a file with two hard links is refused, not split, and the run says that
#    nothing was fixed in it (no "Fixed N" or "All checks passed" beside it);
#  - the file keeps its mode;
#  - a temporary file left by a killed run is not taken for a source and is
#    removed by the next --fix of that file; one whose process is alive stays.
# usage: test-fixwrite.sh TORCHLINT
set -u
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1

# Six safe TL206 fixes: one per line.
mk() {
	cat >"$1" <<'PY'
import torch


def move():
    a = b = c = d = e = f = torch.zeros(4)
    a.to("cuda")
    b.to("cuda")
    c.to("cuda")
    d.to("cuda")
    e.to("cuda")
    f.to("cuda")
PY
}
fixed() { grep -q '^    f = f.to("cuda")$' "$1" && [ "$(grep -c ' = .\.to("cuda")' "$1")" = 6 ]; }
unfixed() { ! grep -q ' = .\.to' "$1"; }

# The planted link: the old run wrote through it into precious.txt.
mkdir planted && cd planted || exit 1
mk v.py
echo precious >precious.txt
ln -s precious.txt v.py.torchlint-fix.tmp
echo mine >w.py.torchlint-fix.tmp
mk w.py
chmod 640 v.py
run planted 0 "$bin" --isolated --select TL206 --fix v.py w.py
has planted-summary "$tmp/err" "Fixed 12 findings in 2 files."
[ "$(cat precious.txt)" = precious ] && ok || bad "planted: precious.txt was overwritten"
[ -L v.py.torchlint-fix.tmp ] && [ "$(readlink v.py.torchlint-fix.tmp)" = precious.txt ] && ok || bad "planted: the link was changed"
[ "$(cat w.py.torchlint-fix.tmp)" = mine ] && ok || bad "planted: a regular file of the old name was destroyed"
[ -f v.py ] && [ ! -L v.py ] && fixed v.py && ok || bad "planted: v.py is not the fixed regular file"
fixed w.py && ok || bad "planted: w.py not fixed"
[ "$(stat -c %a v.py)" = 640 ] && ok || bad "planted: mode $(stat -c %a v.py), expected 640"
[ -z "$(ls -A | grep 'torchlint-fix\..*\.tmp$' | grep -v '^[vw]\.py\.torchlint-fix\.tmp$')" ] && ok || bad "planted: temporary files left: $(ls -A)"
cd "$tmp" || exit 1

# A symbolic link to a source: the target is fixed, the link stays a link.
mkdir linked && cd linked || exit 1
mkdir real
mk real/t.py
ln -s real/t.py l.py
run symlink 0 "$bin" --isolated --select TL206 --fix l.py
has symlink-summary "$tmp/err" "Fixed 6 findings in 1 file."
[ -L l.py ] && [ "$(readlink l.py)" = real/t.py ] && ok || bad "symlink: l.py is no longer the link"
fixed real/t.py && ok || bad "symlink: the target was not fixed"
[ -z "$(ls -A . real | grep 'torchlint-fix')" ] && ok || bad "symlink: temporary files left"
cd "$tmp" || exit 1

# Two hard links: refused, both names keep the same file, nothing claimed.
mkdir hard && cd hard || exit 1
mk a.py
ln a.py b.py
run hardlink 2 "$bin" --isolated --select TL206 --fix a.py
has hardlink-why "$tmp/err" "cannot write 'a.py': it has 2 hard links"
has hardlink-nothing "$tmp/err" "nothing was fixed in it"
has hardlink-count "$tmp/err" "1 file could not be written (see above): nothing was fixed in it."
hasnt hardlink-no-fixed "$tmp/err" "Fixed 6"
hasnt hardlink-no-pass "$tmp/out" "All checks passed"
# What is reported is the file as it is: its six findings.
has hardlink-findings "$tmp/out" "Found 6 findings"
unfixed a.py && [ a.py -ef b.py ] && ok || bad "hardlink: the file was changed or split"
cd "$tmp" || exit 1

# A folder that cannot be written (skipped as root, who writes anyway).
mkdir ro && mk ro/t.py && chmod 555 ro
if [ ! -w ro ]; then
	run readonly 2 "$bin" --isolated --select TL206 --fix ro/t.py
	has readonly-why "$tmp/err" "cannot write 'ro/t.py': cannot create a temporary file in 'ro': Permission denied"
	hasnt readonly-no-fixed "$tmp/err" "Fixed 6"
	unfixed ro/t.py && ok || bad "readonly: the file changed"
fi
chmod 755 ro

# Leftovers of a killed run: a dead process's temporary file is no source
# and goes at the next --fix; a live one's stays.
mkdir left && cd left || exit 1
mk t.py
sh -c 'exit 0' &
dead=$!
wait $dead
mk ".t.py.torchlint-fix.$dead.AbCdEf12.tmp"
echo live >".t.py.torchlint-fix.$$.Zz000000.tmp"
run leftover-show 0 "$bin" --isolated --show-files .
hasnt leftover-not-source "$tmp/out" "torchlint-fix"
has leftover-source "$tmp/out" "t.py"
run leftover-fix 0 "$bin" --isolated --select TL206 --fix .
has leftover-fix "$tmp/err" "Fixed 6 findings in 1 file."
[ ! -e ".t.py.torchlint-fix.$dead.AbCdEf12.tmp" ] && ok || bad "leftover: the dead run's temporary file is still there"
[ "$(cat ".t.py.torchlint-fix.$$.Zz000000.tmp")" = live ] && ok || bad "leftover: a live run's temporary file was removed"
fixed t.py && ok || bad "leftover: t.py not fixed"
cd "$tmp" || exit 1

echo "fixwrite: $pass passed, $fail failed"
[ "$fail" = 0 ]
