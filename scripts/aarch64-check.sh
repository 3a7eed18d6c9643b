#!/usr/bin/env bash
# The network's contract on aarch64: cross-builds the network tests
# (tests/fastnet.rs, tests/board.rs: the fast path against burn's forward
# pass, on the portable kernels) for aarch64-unknown-linux-gnu and runs
# them under qemu's user-mode emulation.
# Installs the Rust target (rustup), the cross compiler and qemu (apt, as
# root) on first use. Builds into target/aarch64 (about 13 minutes cold on
# 2 cores); the emulated tests take about 4 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
target=aarch64-unknown-linux-gnu
rustup target list --installed | grep -qx "$target" || rustup target add "$target"
if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
  apt-get install -y -q gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
fi
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
cargo test --release --target "$target" --target-dir target/aarch64 --test integration -- fastnet:: board::
