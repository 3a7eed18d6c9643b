#!/usr/bin/env bash
# Figures for self-play on many machines, on one machine:
#  1. self-play games/s of one process (damone train) against one learner
#     plus two actors on a local folder, same config and the same cores,
#     legs interleaved;
#  2. the store's cost per shard (damone store --bench) on a local folder
#     and on moto's S3 server on loopback.
# Usage: scripts/dist_figures.sh [minutes per leg] [rounds]   (default 3 2)
set -euo pipefail
cd "$(dirname "$0")/.."
minutes="${1:-3}"
rounds="${2:-2}"
bin="$(pwd)/${CARGO_TARGET_DIR:-target}/release/damone"
[ -x "$bin" ] || { echo "no binary at $bin (cargo build --release first)" >&2; exit 1; }
work="$(mktemp -d)"
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
common=(--set time_limit_minutes="$minutes" --set eval.interval=0 --set self_train.minutes_in_run=0)

echo "leg,round,wall_s,games_played,games_per_s,games_trained,steps"
for r in $(seq "$rounds"); do
    # One process: self-play and training alternate on both cores.
    "$bin" train "${common[@]}" --set checkpoint_dir="$work" --set run="single$r" --quiet
    python3 - "$work/single$r/metrics.csv" "$r" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
last = rows[-1]
wall, games = float(last["wall_s"]), int(last["total_games"])
print(f"one process,{sys.argv[2]},{wall:.1f},{games},{games / wall:.3f},{games},{last['total_steps']}")
PY
    # One learner (1 thread) and two actors (1 thread each) on a folder.
    store="file://$work/store$r"
    t0="$(date +%s.%N)"
    "$bin" learner --store "$store" "${common[@]}" --set threads=1 --quiet 2>"$work/learner$r.log" &
    lp=$!; pids+=("$lp")
    sleep 1
    for i in 0 1; do
        "$bin" actor --store "$store" --index "$i" --threads 1 2>"$work/actor$r-$i.log" &
        pids+=($!)
    done
    wait "$lp"
    t1="$(date +%s.%N)"
    wait
    "$bin" store --store "$store" >"$work/status$r.txt"
    python3 - "$work" "$r" "$t0" "$t1" <<'PY'
import glob, re, sys
work, r, t0, t1 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
wall = t1 - t0
games = 0
for f in glob.glob(f"{work}/actor{r}-*.log"):
    games += sum(int(m.group(1)) for m in re.finditer(r": (\d+) games,", open(f).read()))
rows = [l for l in open(f"{work}/status{r}.txt") if re.match(r"\| \d", l)]
cells = [c.strip() for c in rows[-1].strip("|\n").split("|")]
print(f"learner + 2 actors,{r},{wall:.1f},{games},{games / wall:.3f},{cells[3]},{cells[2]}")
PY
done

echo
echo "store cost per shard (copies of the last round's newest shard):"
"$bin" store --store "file://$work/store$rounds" --bench 50
venv="${DAMONE_MOTO_VENV:-$HOME/.cache/damone-moto-venv}"
if [ -x "$venv/bin/moto_server" ]; then
    port=$((20000 + RANDOM % 20000))
    "$venv/bin/moto_server" -H 127.0.0.1 -p "$port" >"$work/moto.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/" >/dev/null 2>&1 && break; sleep 0.2; done
    curl -sf -X PUT "http://127.0.0.1:$port/damone-bench" >/dev/null
    export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_REGION=us-east-1
    s3=(--store s3://damone-bench/run --endpoint "http://127.0.0.1:$port")
    # One shard to copy: a short actor run against a store holding the same run.
    mkdir -p "$work/one"
    "$bin" learner "${s3[@]}" --set iterations=1 --set threads=1 --quiet 2>/dev/null &
    lp=$!; pids+=("$lp")
    "$bin" actor "${s3[@]}" --threads 1 --shards 1 --quiet 2>/dev/null
    kill "$lp" 2>/dev/null || true
    "$bin" store "${s3[@]}" --bench 50
else
    echo "(moto is not installed: run scripts/s3-e2e.sh once to install it)"
fi
