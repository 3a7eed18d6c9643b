#!/usr/bin/env bash
# Make the shipped players again from scratch (docs/shipped-players.md):
# each game's learned evaluation self-trained from random weights by rounds
# (seed 1, the default settings), rated against the hand-written alpha-beta
# at 10 ms a move, and copied into players/. Needs the machine alone for
# the matches; about an hour and a half on 2 cores. The ratings are printed;
# players/players.toml is edited by hand with them.
#
# Usage: scripts/ship-players.sh [work folder]   (default: checkpoints/ship)
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-checkpoints/ship}"
bin="${CARGO_TARGET_DIR:-target}/release/damone"
cargo build --release --bin damone
mkdir -p "$work"
for entry in damone:118:200:807 italian:80:100:805 dameo:100:100:805; do
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
echo "players/*.eval written; put the ratings above into players/players.toml"
