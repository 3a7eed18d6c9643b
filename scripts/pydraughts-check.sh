#!/usr/bin/env bash
# damone's Hub and DXP engines driven by pydraughts (from PyPI, pinned), a
# real client of both: whole Italian draughts games through `damone hub`
# and `damone dxp`, every move checked by pydraughts' own rules, bad lines
# answered, no protocol error (scripts/pydraughts_check.py says what each
# part checks).
#
# Usage: scripts/pydraughts-check.sh [path/to/damone]   (default: the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-${CARGO_TARGET_DIR:-target}/release/damone}"
[ -x "$bin" ] || { echo "pydraughts-check: no binary at $bin (cargo build --release first)" >&2; exit 1; }
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
venv="${DAMONE_PYDRAUGHTS_VENV:-$HOME/.cache/damone-pydraughts-venv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import draughts' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q 'pydraughts==0.6.7'
fi
"$venv/bin/python" -W ignore::ResourceWarning scripts/pydraughts_check.py "$bin"
