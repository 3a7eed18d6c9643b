#!/usr/bin/env bash
# Checks that the commands people and CI run build each dependency once.
#
# Cargo turns on a crate's features per command, and a crate whose features
# differ between two commands is compiled twice, with every crate above it.
# This compares, for every dependency the plain build has, the features that
# `cargo build` (the binary), `cargo test` (with the dev-dependencies), the
# Python wheel (python/) and `--features gpu` give it. Under `gpu` only burn's
# own crates may differ (they gain the wgpu backend). A difference is fixed by
# turning the feature on in Cargo.toml's "One build" block.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tree() { cargo tree --locked --prefix none -f '{p}|{f}' "$@" | sed 's/ (\*)$//' | sort -u; }
tree -p damone -e normal,build >"$work/build"
tree -p damone -e normal,build,dev >"$work/test"
tree -p damone-python -e normal,build >"$work/python"
tree -p damone -e normal,build,dev --features gpu >"$work/gpu"
# The crates that the gpu feature is meant to change: burn's own and the
# crates only burn's use.
gpu_changes='^(damone|burn|burn-backend|burn-core|burn-dispatch|burn-tensor|cubecl-common|cubecl-zspace|derive_more|derive_more-impl) '
# Each crate of the plain build, with the feature sets of its instances (a
# crate can be built twice, for the target and for build scripts and
# proc-macros), one line: name version|features;features...
instances() { awk -F'|' '{ sets[$1] = sets[$1] ";" $2 } END { for (c in sets) print c "|" sets[c] }' "$1" | sort; }
instances "$work/build" >"$work/build.instances"
status=0
for set in test python gpu; do
    instances "$work/$set" >"$work/$set.instances"
    # A crate of the plain build with an instance whose features this build
    # does not have. (Extra instances are new crates to build, not rebuilds;
    # cargo tree does not say which instance is the build scripts' one, so
    # a changed instance that another one happens to match goes unseen.)
    differ=$(join -t'|' "$work/build.instances" "$work/$set.instances" | awk -F'|' '{
        n = split($2, mine, ";"); m = split($3, theirs, ";"); delete have
        for (i = 1; i <= m; i++) have[theirs[i]] = 1
        for (i = 1; i <= n; i++) if (!(mine[i] in have)) { print $1; break }
    }')
    [ "$set" = gpu ] && differ=$(grep -Ev "$gpu_changes" <<<"$differ" || true)
    if [ -n "$differ" ]; then
        status=1
        echo "feature sets differ between \`cargo build\` and the $set build for:"
        while read -r crate; do
            grep -hF "$crate|" "$work/build" | sed 's/^/    build: /'
            grep -hF "$crate|" "$work/$set" | sed "s/^/    $set: /"
        done <<<"$differ"
    fi
done
[ "$status" = 0 ] && echo "feature sets: cargo build, cargo test, the Python wheel and --features gpu share every dependency"
exit "$status"
