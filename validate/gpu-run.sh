#!/bin/sh
# One prepared, offline command for a GPU machine (validate/README.md, "Run it
# on a GPU in one step"): builds the CUDA microbenchmarks when nvcc is there,
# runs the cases in groups, each group under its own time limit, and leaves
# everything in $OUT as three files: gpu-run.log, environment.txt and
# results.tgz (validate/results/<device>/*.json, to unpack on the CPU side).
#
#   OUT=/tmp/out sh validate/gpu-run.sh                 # on the GPU machine
#   DEVICE=cpu OUT=/tmp/dry sh validate/gpu-run.sh      # the dry run, same code path
#
# Environment: DEVICE (cuda), PYTHON (python3), BUDGET_S (seconds for the whole
# run, 420), OUT (build/gpu-run). Needs no network and builds nothing but the
# microbenchmarks; torchlint itself is not needed here.
set -u
DEVICE=${DEVICE:-cuda}
PYTHON=${PYTHON:-python3}
BUDGET_S=${BUDGET_S:-420}
OUT=${OUT:-build/gpu-run}
mkdir -p "$OUT"
work=$(mktemp -d)
res=$work/results
mkdir -p "$res"
start=$(date +%s)
log=$OUT/gpu-run.log
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1

say() { echo "[$(($(date +%s) - start))s] $*" | tee -a "$log"; }
left() { echo $((BUDGET_S - ($(date +%s) - start))); }

# The groups, most wanted first: memory and precision, the speed rules, the
# new rules that wait for a GPU, then every other case (already shown on the
# CPU; the GPU run repeats them on the device).
G_MEMORY="TL101 TL102 TL103 TL104 TL401 TL404"
G_SPEED="TL301 TL302 TL303 TL304 TL305 TL306 TL307 TL308 TL309"
G_NEW="TL105 TL218 TL204 TL205 TL402"
all=$(ls -d validate/cases/TL* | sed 's|.*/||')
G_REST=$(for c in $all; do case " $G_MEMORY $G_SPEED $G_NEW " in *" $c "*) ;; *) printf '%s ' "$c" ;; esac; done)

{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "host: $(uname -srm)"
	command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
	$PYTHON -c 'import torch, sys; print("python", sys.version.split()[0]); print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version()); print("device", torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none")'
	command -v nvcc >/dev/null && nvcc --version | tail -2
} >"$OUT/environment.txt" 2>&1
cat "$OUT/environment.txt" >>"$log"

# The microbenchmarks: built here for the GPU present (-arch=native); without
# -Werror on a second try, since a newer toolkit may warn on what the pinned
# flags reject.
bench=""
if command -v nvcc >/dev/null 2>&1 && [ "$DEVICE" != cpu ]; then
	mkdir -p "$work/cuda"
	for src in validate/cuda/*.cu; do
		exe=$work/cuda/$(basename "$src" .cu)
		nvcc -O2 -std=c++17 -arch=native -Xcompiler -Wall,-Wextra,-Werror -o "$exe" "$src" >>"$log" 2>&1 ||
			nvcc -O2 -std=c++17 -arch=native -o "$exe" "$src" >>"$log" 2>&1 ||
			say "nvcc failed on $src"
	done
	bench=$work/cuda
	say "microbenchmarks built: $(ls "$bench" | tr '\n' ' ')"
else
	say "no nvcc (or DEVICE=cpu): the CUDA microbenchmarks are skipped"
fi

# run_group NAME LIMIT CODES...: the cases the group still lacks, under LIMIT
# seconds (capped by what is left of the budget); a case cut off is logged.
run_group() {
	name=$1 limit=$2
	shift 2
	todo=""
	for c in "$@"; do [ -f "$res/$c.json" ] || todo="$todo $c"; done
	[ -n "$todo" ] || return 0
	l=$(left)
	[ "$limit" -lt "$l" ] || limit=$((l - 15))
	if [ "$limit" -lt 10 ]; then
		say "$name: no time left for$todo"
		return 0
	fi
	say "$name ($limit s):$todo"
	timeout -k 5 "$limit" $PYTHON validate/run.py --device "$DEVICE" --out "$res" $todo >>"$log" 2>&1
	rc=$?
	[ $rc -eq 124 ] || [ $rc -eq 137 ] && say "$name: cut off at $limit s"
	say "$name: exit $rc, results: $(ls "$res" | grep -c json)"
}

run_group memory 120 $G_MEMORY
run_group speed 120 $G_SPEED
run_group new 60 $G_NEW
if [ -n "$bench" ]; then
	say "microbenchmarks"
	timeout -k 5 90 $PYTHON validate/run.py --device "$DEVICE" --out "$res" --no-cases --cuda-bench "$bench" >>"$log" 2>&1
	say "microbenchmarks: exit $?"
fi
run_group rest 150 $G_REST
# A second pass for whatever a cut-off group left, one case at a time.
for c in $all; do run_group "retry-$c" 40 "$c"; done

missing=$(for c in $all; do [ -f "$res/$c.json" ] || printf '%s ' "$c"; done)
say "done: $(ls "$res" | grep -c json) result files; missing: ${missing:-none}"
tar czf "$OUT/results.tgz" -C "$res" .
rm -rf "$work"
