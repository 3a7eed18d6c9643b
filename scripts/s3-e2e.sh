#!/usr/bin/env bash
# End-to-end test of self-play on many machines against a real S3 server:
# moto's server (from PyPI) on loopback, one learner and two actors on the
# tiny config. The learner is stopped with SIGTERM (it must exit 0 within
# 20 s, saying what it kept) and restarted; actor 0 is killed with SIGKILL
# and restarted; actor 1 is stopped with SIGTERM and restarted; then the
# learner is killed with SIGKILL and restarted. In between, the S3 server
# is frozen for 65 s (DAMONE_E2E_OUTAGE) and every process must wait it
# out. At the end `damone store --check` must find no shard lost or used
# twice, and the model versions must have advanced to the limit.
#
# Usage: scripts/s3-e2e.sh [path/to/damone]   (default: the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-${CARGO_TARGET_DIR:-target}/release/damone}"
[ -x "$bin" ] || { echo "s3-e2e: no binary at $bin (cargo build --release first)" >&2; exit 1; }
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
venv="${DAMONE_MOTO_VENV:-$HOME/.cache/damone-moto-venv}"
if [ ! -x "$venv/bin/moto_server" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q 'moto[server]>=5,<6'
fi
versions=6
port=$((20000 + RANDOM % 20000))
endpoint="http://127.0.0.1:$port"
work="$(mktemp -d)"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "s3-e2e: FAILED: $*" >&2
    for f in "$work"/*.log; do echo "--- $f" >&2; tail -n 20 "$f" >&2; done
    exit 1
}

"$venv/bin/moto_server" -H 127.0.0.1 -p "$port" >"$work/moto.log" 2>&1 &
moto_pid=$!; pids+=($moto_pid)
for _ in $(seq 100); do curl -sf "$endpoint/" >/dev/null 2>&1 && break; sleep 0.2; done
curl -sf -X PUT "$endpoint/damone-e2e" >/dev/null || fail "cannot create the bucket on moto"

export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_REGION=us-east-1
store=(--store s3://damone-e2e/run --endpoint "$endpoint")
sets=(--set iterations=$versions --set selfplay.games_per_iteration=8 --set dist.games_per_shard=4
      --set dist.poll_seconds=0.2 --set train.min_samples=1)

models() { "$bin" store "${store[@]}" 2>/dev/null | grep -c '^| [0-9]' || true; }
wait_models() { # wait until at least $1 model versions exist (or a process died)
    for _ in $(seq 600); do
        [ "$(models)" -ge "$1" ] && return 0
        sleep 0.5
    done
    fail "timed out waiting for $1 model versions"
}
learner() { "$bin" learner "${store[@]}" --config configs/tiny.toml "${sets[@]}" >>"$work/learner.log" 2>&1 & }
actor() { "$bin" actor "${store[@]}" --index "$1" --threads 1 >>"$work/actor$1.log" 2>&1 & }

# SIGTERM: the process stops at a safe point within 20 s with status 0.
term() { # term PID NAME
    kill -TERM "$1"
    for _ in $(seq 200); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$1" 2>/dev/null && fail "$2 did not stop within 20 s of SIGTERM"
    wait "$1" || fail "$2 exited with status $? after SIGTERM"
}

learner; learner_pid=$!; pids+=($learner_pid)
actor 0; a0=$!; pids+=($a0)
actor 1; a1=$!; pids+=($a1)

wait_models 2
term "$learner_pid" "the learner"
grep -q "learner stopped on request" "$work/learner.log" || fail "the learner did not say what it kept"
echo "s3-e2e: stopped the learner with SIGTERM at $(models) models; restarting it"
learner; learner_pid=$!; pids+=($learner_pid)

wait_models 3
kill -9 "$a0"; wait "$a0" 2>/dev/null || true
echo "s3-e2e: killed actor 0 at $(models) models; restarting it"
actor 0; a0=$!; pids+=($a0)

# An outage: the S3 server frozen (SIGSTOP: connections hang, its objects
# kept) for OUTAGE seconds. The learner and the actors wait it out.
outage="${DAMONE_E2E_OUTAGE:-65}"
kill -STOP "$moto_pid"
echo "s3-e2e: S3 server stopped for $outage s at $(date +%T)"
sleep "$outage"
for p in "$learner_pid" "$a0" "$a1"; do
    kill -0 "$p" 2>/dev/null || { kill -CONT "$moto_pid"; fail "a process exited during the outage"; }
done
kill -CONT "$moto_pid"
echo "s3-e2e: S3 server back at $(date +%T); learner and actors still running"

wait_models 4
term "$a1" "actor 1"
grep -q "actor stopped on request" "$work/actor1.log" || fail "actor 1 did not say what it kept"
echo "s3-e2e: stopped actor 1 with SIGTERM at $(models) models; restarting it"
actor 1; a1=$!; pids+=($a1)

wait_models 5
kill -9 "$learner_pid"; wait "$learner_pid" 2>/dev/null || true
echo "s3-e2e: killed the learner at $(models) models; restarting it"
learner; learner_pid=$!; pids+=($learner_pid)

for _ in $(seq 600); do kill -0 "$learner_pid" 2>/dev/null || break; sleep 0.5; done
wait "$learner_pid" || fail "the restarted learner failed"
for p in "$a0" "$a1"; do
    for _ in $(seq 240); do kill -0 "$p" 2>/dev/null || break; sleep 0.5; done
    wait "$p" || fail "an actor did not stop cleanly after the learner was done"
done

"$bin" store "${store[@]}" --check | tee "$work/status.txt" || fail "store check"
n="$(grep -c '^| [0-9]' "$work/status.txt")"
[ "$n" -eq $((versions + 1)) ] || fail "expected model versions 0..$versions, found $n records"
grep -q "learner done" "$work/status.txt" || fail "the learner did not write its done marker"
grep -q "resumed from model" "$work/learner.log" || fail "the restarted learner did not resume"
[ "$(grep -c '^actor a0000-' "$work/actor0.log")" -eq 2 ] || fail "actor 0 did not start twice"
[ "$(grep -c '^actor a0001-' "$work/actor1.log")" -eq 2 ] || fail "actor 1 did not start twice"
echo "s3-e2e: passed ($n model versions; learner and actor 1 stopped by SIGTERM, learner and actor 0 killed, each restarted; a $outage s outage waited out)"
