#!/usr/bin/env bash
# Side-by-side inference benchmark: damone (burn, flex CPU backend) against
# PyTorch CPU on the same architecture and batch. Installs PyTorch from PyPI
# into .venv-bench on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
BLOCKS=${BLOCKS:-4}; CHANNELS=${CHANNELS:-32}; BATCH=${BATCH:-256}; THREADS=${THREADS:-2}
if [ ! -x .venv-bench/bin/python ] || ! .venv-bench/bin/python -c "import torch" 2>/dev/null; then
  python3 -m venv .venv-bench
  .venv-bench/bin/pip install --quiet torch numpy
fi
printf '[model]\nblocks = %s\nchannels = %s\nvalue_hidden = 64\n' "$BLOCKS" "$CHANNELS" > /tmp/damone-bench-model.toml
cargo run --release --quiet -- bench --suite net --config /tmp/damone-bench-model.toml --batch "$BATCH" --threads "$THREADS"
# Unset OpenBLAS overrides for this command only (see the machine notes).
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv-bench/bin/python scripts/pytorch_bench.py \
  --blocks "$BLOCKS" --channels "$CHANNELS" --batch "$BATCH" --threads "$THREADS"
