#!/usr/bin/env bash
# Where the network's time goes on this CPU: `perf record` over
# `damone bench --suite net` at one setting, then the functions that take
# the most samples (flat profile, self time).
# Usage: scripts/net_profile.sh [--train] BATCH THREADS [KERNEL_PATH]
#   --train: profile the training step (batch >= 16) instead of inference;
#   KERNEL_PATH: DAMONE_SIMD's value (auto, avx512, avx2, portable).
# Needs `perf` (Debian: linux-perf) and perf_event_paranoid <= 2. Run it
# alone on the machine; write `lscpu`'s model beside its figures.
set -euo pipefail
cd "$(dirname "$0")/.."
train=0
if [ "${1:-}" = --train ]; then train=1; shift; fi
batch=${1:?usage: scripts/net_profile.sh [--train] BATCH THREADS [KERNEL_PATH]}
threads=${2:?usage: scripts/net_profile.sh [--train] BATCH THREADS [KERNEL_PATH]}
path=${3:-auto}
command -v perf >/dev/null || { echo "perf not found: install linux-perf" >&2; exit 1; }
cargo build --release --quiet
data=$(mktemp)
trap 'rm -f "$data"' EXIT
args=(bench --suite net --batch "$batch" --threads "$threads" --seconds 4)
if [ "$train" = 1 ]; then args+=(--no-inference); else args+=(--no-train); fi
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'); kernels: DAMONE_SIMD=$path"
DAMONE_SIMD=$path perf record -q -F 1999 -o "$data" -- target/release/damone "${args[@]}"
perf report -i "$data" --stdio --no-children --sort symbol --percent-limit 1.5 2>/dev/null \
    | grep -v '^#' | grep -v '^$' | head -30
