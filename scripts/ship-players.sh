#!/usr/bin/env bash
# Make the shipped players again from scratch (docs/shipped-players.md):
# Damone's and Italian draughts' learned evaluations self-trained from
# random weights by rounds (seed 1, the default settings), Dameo's the
# self-trained evaluation of `damone train --config configs/dameo.toml`'s
# default hour (40 minutes of the network, 20 of self-training); each
# rated against the hand-written alpha-beta at 10 ms a move and copied
# into players/. The networks: Dameo's from that same hour, those of
# Damone and Italian draughts from each game's default hour on one core
# (`threads=1`); each newest checkpoint exported as a player file and
# rated at equal time. Needs the machine alone for the hours and the
# matches; about four and a half hours on 2 cores. The
# ratings are printed; players/players.toml is edited by hand with them.
#
# Usage: scripts/ship-players.sh [work folder]   (default: checkpoints/ship)
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-checkpoints/ship}"
bin="${CARGO_TARGET_DIR:-target}/release/damone"
cargo build --release --bin damone
mkdir -p "$work"
for entry in damone:118:200:807 italian:80:100:805; do
    IFS=: read -r game rounds games seed <<<"$entry"
    folder="$work/st-$game"
    if [ -e "$folder/self-train.toml" ]; then
        "$bin" self-train "$folder" --resume --rounds "$rounds" --quiet
    else
        "$bin" self-train "$folder" --game "$game" --rounds "$rounds" --seed 1 --quiet
    fi
    "$bin" match "alphabeta:eval=$folder,movetime=10" alphabeta:movetime=10 \
        --game "$game" --games "$games" --seed "$seed" --out "$work/match-$game" | tail -4
    cp "$folder/round_$(printf '%04d' "$rounds").bin" "players/$game.eval"
done
# Dameo: the default hour of its config; its newest checkpoint holds the
# self-trained evaluation.
resume=()
if ls -d "$work"/ship-dameo/iter_* >/dev/null 2>&1; then
    resume=(--resume)
fi
"$bin" train --config configs/dameo.toml --set run=ship-dameo --set "checkpoint_dir=$work" --quiet "${resume[@]}"
"$bin" match "alphabeta:eval=$work/ship-dameo,movetime=10" alphabeta:movetime=10 \
    --game dameo --games 100 --seed 805 --out "$work/match-dameo" | tail -4
newest=$(ls -d "$work"/ship-dameo/iter_* | sort | tail -1)
cp "$newest/learned_eval.bin" players/dameo.eval
"$bin" export --checkpoint "$work/ship-dameo" --latest --out players/dameo-net.dmp
"$bin" rate "$work/ship-dameo" --last --games 100 --no-ladder --policy-depth 0 \
    --equal-time-threads 1 --seed 830 --quiet
# The networks: the default hour of each game on one core.
for entry in damone:200 italian:100; do
    IFS=: read -r game games <<<"$entry"
    config=configs/default.toml
    [ "$game" = damone ] || config="configs/$game.toml"
    resume=()
    if ls -d "$work/net-$game"/iter_* >/dev/null 2>&1; then
        resume=(--resume)
    fi
    taskset -c 1 "$bin" train --config "$config" --set "run=net-$game" --set "checkpoint_dir=$work" \
        --set threads=1 --quiet "${resume[@]}"
    "$bin" export --checkpoint "$work/net-$game" --latest --out "players/$game-net.dmp"
    "$bin" rate "$work/net-$game" --last --games "$games" --no-ladder --policy-depth 0 \
        --equal-time-threads 1 --seed 830 --quiet
done
rm -f players/*-net.safetensors
# The program embeds the files: build it again, then play the shipped
# networks through their specs, at the time a move their rating measured.
cargo build --release --bin damone
for entry in damone:200:net-damone italian:100:net-italian dameo:100:ship-dameo; do
    IFS=: read -r game games run <<<"$entry"
    ms=$(awk -F, '$4 == "equal-time" { ms = $7 } END { printf "%.1f", ms }' "$work/$run/rating.csv")
    "$bin" match "shipped:$game,kind=net,sims=64" "alphabeta:movetime=$ms" --concurrency 1 \
        --game "$game" --games "$games" --seed 831 --out "$work/match-$game-net" | tail -4
done
echo "players/*.eval and players/*-net.dmp written; put the ratings above into players/players.toml"
