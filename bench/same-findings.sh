#!/bin/sh
# Speed work must not change a finding. This writes every finding of
# `torchlint --select ALL` (JSON, one thread) over the trees it can reach
# into a folder, one file per tree, so that two binaries' folders can be
# compared with `diff -r`:
#
#   bench/same-findings.sh ./torchlint-before /tmp/before [EXTRA_DIR...]
#   bench/same-findings.sh ./torchlint /tmp/after [EXTRA_DIR...]
#   diff -r /tmp/before /tmp/after && echo same findings
#
# Trees: corpus/, validate/cases/, examples/, Debian's torch and
# torchvision sources when installed (make bench installs them), and any
# EXTRA_DIR (for example checkouts of real projects). Exit status 0 unless
# a run crashed (torchlint's own 0 or 1 both count as a run).
set -u
if [ $# -lt 2 ]; then
	echo "usage: $0 TORCHLINT OUT_DIR [EXTRA_DIR...]" >&2
	exit 2
fi
bin=$1
out=$2
shift 2
mkdir -p "$out"
status=0
run() { # name, dirs...
	name=$1
	shift
	"$bin" --select ALL --format json -j1 "$@" > "$out/$name.json" 2> "$out/$name.err"
	rc=$?
	if [ "$rc" -gt 1 ]; then
		echo "same-findings: $name: torchlint exited with $rc" >&2
		status=1
	fi
}
run corpus corpus
run validate-cases validate/cases
run examples examples
for pkg in torch torchvision; do
	d=/usr/lib/python3/dist-packages/$pkg
	[ -d "$d" ] && run "debian-$pkg" "$d"
done
for d in "$@"; do
	run "extra-$(basename "$d")" "$d"
done
exit $status
