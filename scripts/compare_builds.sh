#!/usr/bin/env bash
# Two builds of damone side by side, for a change that must not move
# training or self-play: for each game,
#   1. a tiny run (configs/tiny.toml, one thread, a fixed seed) with each
#      build: its losses per iteration must be the same bits;
#   2. self-play speed: two iterations of the game's default config with
#      each build, interleaved OLD, NEW, OLD, NEW; positions per second of
#      self-play (scripts/selfplay_figures.py) as NEW / OLD.
# Usage: scripts/compare_builds.sh OLD_BINARY NEW_BINARY [OUT_DIR]
# Run it alone on the machine; write `lscpu`'s model beside its figures.
# Both binaries read this checkout's configs: an older build refuses a key
# added after it, so to compare with one, run the script from its checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: scripts/compare_builds.sh OLD_BINARY NEW_BINARY [OUT_DIR]}
new=${2:?usage: scripts/compare_builds.sh OLD_BINARY NEW_BINARY [OUT_DIR]}
out=${3:-$(mktemp -d)}
mkdir -p "$out"
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p')"
echo "output: $out"
status=0
for game in damone italian dameo; do
    config=configs/default.toml
    [ "$game" = damone ] || config=configs/$game.toml
    for build in old new; do
        bin=$old
        [ "$build" = new ] && bin=$new
        "$bin" train --config configs/tiny.toml --set game="$game" --set run="tiny-$game-$build" \
            --set checkpoint_dir="$out" --set threads=1 --set iterations=3 --quiet >/dev/null 2>&1
    done
    losses() { cut -d, -f1,"$(head -1 "$1" | tr ',' '\n' | grep -nx 'loss_policy\|loss_value' | cut -d: -f1 | paste -sd,)" "$1"; }
    if diff <(losses "$out/tiny-$game-old/metrics.csv") <(losses "$out/tiny-$game-new/metrics.csv") >/dev/null; then
        echo "$game tiny run: the same losses ($(losses "$out/tiny-$game-new/metrics.csv" | tail -1))"
    else
        echo "$game tiny run: LOSSES DIFFER"
        diff <(losses "$out/tiny-$game-old/metrics.csv") <(losses "$out/tiny-$game-new/metrics.csv") || true
        status=1
    fi
    for round in 1 2; do
        for build in old new; do
            bin=$old
            [ "$build" = new ] && bin=$new
            "$bin" train --config "$config" --set run="speed-$game-$build-$round" --set checkpoint_dir="$out" \
                --set iterations=2 --set time_limit_minutes=0 --set eval.interval=0 \
                --set learned_eval.train_in_run=false --set self_train.minutes_in_run=0 --quiet >/dev/null 2>&1
        done
    done
    python3 - "$out" "$game" <<'PY'
import csv, sys
from pathlib import Path
out, game = Path(sys.argv[1]), sys.argv[2]
def speed(build):
    pos = sp = 0.0
    for r in (1, 2):
        for row in csv.DictReader(open(out / f"speed-{game}-{build}-{r}" / "metrics.csv")):
            pos += float(row["positions"]); sp += float(row["selfplay_s"])
    return pos / sp
o, n = speed("old"), speed("new")
print(f"{game} self-play: old {o:.0f} positions/s, new {n:.0f}, new / old {n / o:.3f}")
PY
done
exit $status
