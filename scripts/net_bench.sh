#!/usr/bin/env bash
# Side-by-side network speed: damone vs PyTorch eager vs ONNX Runtime on the
# architecture of a damone config (default: configs/default.toml), inference
# at several batches and thread counts, training at batch 256.
# Installs PyTorch, ONNX and ONNX Runtime from PyPI into .venv-bench on
# first use. Extra arguments go to scripts/net_bench.py (see its --help).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! .venv-bench/bin/python -c "import torch, onnx, onnxruntime" 2>/dev/null; then
  python3 -m venv .venv-bench
  .venv-bench/bin/pip install --quiet torch numpy onnx onnxruntime
fi
cargo build --release --quiet
# OpenBLAS overrides (see the machine notes) are unset for the Python side.
exec env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv-bench/bin/python scripts/net_bench.py "$@"
