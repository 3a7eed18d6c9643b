#!/usr/bin/env bash
# One row of the README's ablation table (issue 11): train the default
# config for MINUTES with the given overrides (seed 1, evaluation off so
# every run spends its time the same way), then rate its newest checkpoint
# with `damone rate` against alpha-beta depth 4: 100 games (ABLATION_GAMES)
# from half as many seeded openings, each with both colours, at the
# protocol's 64 simulations.
#
#   scripts/ablation.sh NAME MINUTES [--set key=value ...]
#   scripts/ablation.sh base 30
#   scripts/ablation.sh reuse6 30 --set train.sample_reuse=6
#
# Run it alone on the machine: the figure is strength per hour of this CPU.
# The run goes to $ABLATION_DIR/NAME (default /tmp/damone-ablation); the
# last lines printed are the rating row and the run's totals.
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 NAME MINUTES [--set key=value ...]" >&2
    exit 2
fi
name=$1
minutes=$2
shift 2
dir=${ABLATION_DIR:-/tmp/damone-ablation}
bin=${DAMONE:-target/release/damone}
[ -x "$bin" ] || cargo build --release --bin damone
mkdir -p "$dir"
"$bin" train --quiet \
    --set run="$name" --set checkpoint_dir="$dir" --set seed=1 \
    --set time_limit_minutes="$minutes" --set eval.interval=0 "$@"
"$bin" rate "$dir/$name" --last --depths 4 --no-equal-time --policy-depth 0 \
    --games "${ABLATION_GAMES:-100}" --seed 1 --quiet
python3 - "$dir/$name/metrics.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
last = rows[-1]
sp = sum(float(r["selfplay_s"]) for r in rows)
tr = sum(float(r["train_s"]) for r in rows)
print(f"iterations {last['iteration']}, minutes {float(last['wall_s'])/60:.1f}, "
      f"games {last['total_games']}, positions {last['total_positions']}, "
      f"steps {last['total_steps']}, self-play {sp/(sp+tr):.0%} of self-play+training")
PY
