#!/usr/bin/env bash
# Prints, one `name@version` a line, the crates that `cargo test --features
# gpu --test gpu` compiles and the plain `cargo test` does not: those only
# the `gpu` build has (wgpu, naga, cubecl, burn's GPU backend), those whose
# every instance has other features there, and burn's own crates, compiled
# again above the changed burn-backend. damone itself is left out. `.ci/run`
# builds these at a lower optimisation level (docs/ci.md); a crate the two
# builds share is never listed, so that the plain build's copy stays fresh.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tree() { cargo tree --locked --prefix none -f '{p}|{f}' -p damone -e normal,build,dev "$@" | sed 's/ (\*)$//; s/ (proc-macro)//' | sort -u; }
tree >"$work/plain"
tree --features gpu >"$work/gpu"
# name@version|features lines; a crate is listed when none of its gpu
# instances is one of the plain build's.
awk -F'|' '
    function id(p,   f) { split(p, f, " "); return f[1] "@" substr(f[2], 2) }
    FNR == NR { plain[$0] = 1; next }
    {
        c = id($1)
        if (c ~ /^damone@/) next
        seen[c] = 1
        if ($0 in plain) kept[c] = 1
    }
    END {
        for (c in seen) {
            if (c ~ /^burn(-[a-z-]+)?@/ || !(c in kept)) print c
        }
    }' "$work/plain" "$work/gpu" | sort
