#!/usr/bin/env bash
# The Python package's source distribution: build the sdist with maturin,
# install it with pip into a fresh virtual environment (pip builds the
# native module from the sdist's Rust sources, as on a platform with no
# wheel), and check the installed package: every game's perft from the
# start and a step of the vectorised environment.
# CARGO_TARGET_DIR is kept, so that the crates the build shares with the
# wheel's are not compiled again.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/build"
"$work/build/bin/pip" install --quiet "maturin>=1.5,<2"
"$work/build/bin/maturin" sdist -m python/Cargo.toml -o "$work/dist"
sdist=$(ls "$work"/dist/damone-*.tar.gz)
echo "sdist: $(basename "$sdist") ($(du -k "$sdist" | cut -f1) KiB)"
python3 -m venv "$work/fresh"
"$work/fresh/bin/pip" install --quiet --upgrade pip
"$work/fresh/bin/pip" install --quiet "$sdist"
cd "$work"
"$work/fresh/bin/python" - <<'PY'
import damone
counts = {name: damone.perft(2, game=name) for name in damone.GAMES}
print("perft(2) from the start:", counts)
assert counts == {"damone": 64, "italian": 49, "dameo": 2704}, counts
obs, info = damone.VecEnv(4).reset(seed=1)
assert obs.shape[0] == 4 and info["action_mask"].any(axis=1).all()
print("VecEnv(4) observations:", obs.shape)
PY
