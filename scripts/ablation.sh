#!/usr/bin/env bash
# One row of the ablation table (docs/experiments.md): train the default
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
#
# Two training runs of one config with different seeds can differ by more
# than a rating's interval (docs/experiments.md), so a
# row that claims a gain needs several seeds. With ABLATION_SEEDS (a list,
# e.g. "1 2 3") the script trains and rates NAME-s1, NAME-s2, ... in turn
# (a seed whose folder already holds a rating.csv is not run again) and
# ends with scripts/seeds_summary.py: each seed's score, their mean with a
# t interval over the seeds, and the games pooled.
#
#   ABLATION_SEEDS="1 2 3" scripts/ablation.sh minlr 30 --set train.min_lr_factor=0.3
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 NAME MINUTES [--set key=value ...]" >&2
    exit 2
fi
name=$1
minutes=$2
shift 2
dir=${ABLATION_DIR:-/tmp/damone-ablation}
if [ -n "${ABLATION_SEEDS:-}" ]; then
    for s in $ABLATION_SEEDS; do
        case $s in
        *[!0-9]*)
            echo "ABLATION_SEEDS: '$s' is not a seed (a whole number)" >&2
            exit 2
            ;;
        esac
    done
    runs=()
    for s in $ABLATION_SEEDS; do
        runs+=("$dir/$name-s$s")
        if [ -f "$dir/$name-s$s/rating.csv" ]; then
            echo "$name-s$s: rated already ($dir/$name-s$s/rating.csv), not run again"
            continue
        fi
        ABLATION_SEEDS='' "$0" "$name-s$s" "$minutes" "$@" --set seed="$s"
    done
    python3 "$(dirname "$0")/seeds_summary.py" "${runs[@]}"
    exit 0
fi
bin=${DAMONE:-target/release/damone}
[ -x "$bin" ] || cargo build --release --bin damone
mkdir -p "$dir"
"$bin" train --quiet \
    --set run="$name" --set checkpoint_dir="$dir" --set seed=1 \
    --set time_limit_minutes="$minutes" --set eval.interval=0 --set self_train.minutes_in_run=0 "$@"
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
