#!/usr/bin/env bash
# Build the Python package's wheel with maturin, install it into a fresh
# virtual environment (.venv-python) with its test dependencies from PyPI,
# and run its pytest suite (python/tests). The network-player tests train a
# tiny run with the release binary (built here if missing).
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
venv=.venv-python
# OpenSpiel with the versions of JAX and flax its AlphaZero pins (the test
# that drives its trainer, docs/peers.md).
openspiel=(open-spiel==2.0.2 jax==0.8.1 jaxlib==0.8.1 flax==0.12.1 optax==0.2.6 chex==0.1.91)
if ! "$venv/bin/python" -c "import maturin, pytest, pettingzoo, gymnasium, pyspiel, mypy, jax, flax" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --upgrade pip
    "$venv/bin/pip" install --quiet "maturin>=1.5,<2" "pytest>=7" "pettingzoo>=1.24" "gymnasium>=0.29" "${openspiel[@]}" mypy numpy
fi
cargo build --release --quiet --bin damone
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
"$venv/bin/maturin" build --release --quiet -m python/Cargo.toml -o "$wheels"
"$venv/bin/pip" install --quiet --force-reinstall --no-deps "$wheels"/damone-*.whl
export DAMONE_BIN="$CARGO_TARGET_DIR/release/damone"
# Run from the tests folder so that `import damone` finds the installed
# wheel, not the source folder python/damone.
cd python/tests
exec "../../$venv/bin/python" -m pytest -q "$@"
