#!/usr/bin/env bash
# The web page under load, on loopback: trains a one-iteration tiny run,
# serves it, and runs the load generator (examples/serve_load.rs) against
# it: 200 clients each playing a game against the run's network and asking
# for two analyses, one client watching the run's events. Prints the
# latencies, the busy answers, the server's memory and whether every game
# finished. Arguments go to the load generator (see its --help).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release --quiet --bin damone --example serve_load
bin="$CARGO_TARGET_DIR/release/damone"
work="$(mktemp -d)"
server=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
"$bin" train --config configs/tiny.toml --quiet --set checkpoint_dir="$work" \
    --set iterations=1 --set eval.interval=0
port=$((20000 + RANDOM % 20000))
"$bin" serve --run "$work/tiny" --bind "127.0.0.1:$port" 2>"$work/serve.log" &
server=$!
for _ in $(seq 100); do grep -q "open http" "$work/serve.log" 2>/dev/null && break; sleep 0.1; done
"$CARGO_TARGET_DIR/release/examples/serve_load" --addr "127.0.0.1:$port" --server-pid "$server" "$@"
kill -TERM "$server"
wait "$server"
server=""
tail -n 1 "$work/serve.log"
