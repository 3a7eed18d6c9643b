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
if ! "$venv/bin/python" -c "import maturin, pytest, pettingzoo, gymnasium, pyspiel, mypy" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --upgrade pip
    "$venv/bin/pip" install --quiet "maturin>=1.5,<2" "pytest>=7" "pettingzoo>=1.24" "gymnasium>=0.29" open_spiel mypy numpy
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
