#!/usr/bin/env bash
# OpenSpiel's AlphaZero beside damone (docs/peers.md).
#
#   scripts/openspiel-peer.sh setup
#       the pinned OpenSpiel stack from PyPI in .venv-openspiel, with
#       damone's wheel (built here) installed into it
#   scripts/openspiel-peer.sh train --game damone --out DIR --minutes 60 [--compiled] [--cores 0]
#       OpenSpiel's trainer on the game, pinned to the cores given
#   scripts/openspiel-peer.sh match --game damone --run DIR --opponent SPEC --games 100 --movetime 100 --out FILE [--cores 0,1]
#       its trained bot against a damone player at equal time per move
#   scripts/openspiel-peer.sh profile --game damone --run DIR [--compiled] [--cores 0]
#       where its self-play spends its time (cProfile)
#
# Each process is kept to one thread (JAX on the CPU, XLA's intra-op pool of
# one), so a run given N cores uses N.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
venv=.venv-openspiel
# The versions OpenSpiel 2.0.2 itself pins (open_spiel/scripts/python_extra_deps.sh).
stack=(open-spiel==2.0.2 jax==0.8.1 jaxlib==0.8.1 flax==0.12.1 optax==0.2.6 chex==0.1.91)

setup() {
    if ! "$venv/bin/python" -c "import pyspiel, jax, flax, maturin" 2>/dev/null; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --upgrade pip
        "$venv/bin/pip" install --quiet "${stack[@]}" "maturin>=1.5,<2"
    fi
    cargo build --release --quiet --bin damone
    local wheels
    wheels=$(mktemp -d)
    "$venv/bin/maturin" build --release --quiet -m python/Cargo.toml -o "$wheels"
    "$venv/bin/pip" install --quiet --force-reinstall --no-deps "$wheels"/damone-*.whl
    rm -rf "$wheels"
}

# Runs the driver on the cores named by --cores (all by default).
run_driver() {
    local cores="" args=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --cores) cores=$2; shift 2 ;;
            *) args+=("$1"); shift ;;
        esac
    done
    [ -x "$venv/bin/python" ] || { echo "error: run '$0 setup' first" >&2; exit 2; }
    local pin=()
    [ -n "$cores" ] && pin=(taskset -c "$cores")
    JAX_PLATFORMS=cpu \
        XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" \
        OMP_NUM_THREADS=1 \
        "${pin[@]}" "$venv/bin/python" scripts/openspiel_peer.py "${args[@]}"
}

case "${1:-}" in
    setup) setup ;;
    train | match | profile) run_driver "$@" ;;
    *) sed -n '2,15p' "$0" >&2; exit 2 ;;
esac
