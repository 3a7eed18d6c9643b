#!/usr/bin/env bash
# Check damone's Dameo move generator against AbstractPlay's rules engine
# (github.com/AbstractPlay/gameslib, src/games/dameo.ts, MIT licence):
# random playouts under their engine record each position and their moves;
# damone's test then checks every position's moves are the same set.
#
#   scripts/dameo-crosscheck.sh [--positions N] [--seed S] [--perft D] [--gameslib DIR] [--write-fixture]
#
# --perft D       also count the start position's move tree to depth D
#                 under both engines (default 4; 0 skips it)
# --gameslib DIR  a checkout of gameslib (default: cloned from GitHub at the
#                 commit below into .cache/dameo-crosscheck/gameslib)
# --write-fixture replace tests/dameo-abstractplay.fixture with the new file
#
# Needs git, Node.js 18 or later and npm (the registry) for the engine's
# runtime dependencies, which are installed next to the checkout; the
# @abstractplay packages gameslib lists are types only here and are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

COMMIT=b8c3115648a7614570229683d1c3115345e19b89
POSITIONS=10000
SEED=1
PERFT=4
GAMESLIB=""
WRITE=0
while [ $# -gt 0 ]; do
    case "$1" in
        --positions) POSITIONS="$2"; shift 2 ;;
        --seed) SEED="$2"; shift 2 ;;
        --perft) PERFT="$2"; shift 2 ;;
        --gameslib) GAMESLIB="$2"; shift 2 ;;
        --write-fixture) WRITE=1; shift ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        *) echo "unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done

WORK=.cache/dameo-crosscheck
mkdir -p "$WORK"
if [ -z "$GAMESLIB" ]; then
    GAMESLIB="$WORK/gameslib"
    if [ ! -d "$GAMESLIB/.git" ]; then
        git clone --quiet https://github.com/AbstractPlay/gameslib "$GAMESLIB"
    fi
    git -C "$GAMESLIB" checkout --quiet "$COMMIT"
fi
[ -f "$GAMESLIB/src/games/dameo.ts" ] || { echo "$GAMESLIB has no src/games/dameo.ts" >&2; exit 1; }

# The engine's runtime dependencies, in a folder of their own beside its
# sources (gameslib's own package.json names private packages).
RUNTIME="$WORK/runtime"
if [ ! -d "$RUNTIME/node_modules/tsx" ]; then
    rm -rf "$RUNTIME" && mkdir -p "$RUNTIME"
    echo '{ "name": "dameo-crosscheck", "private": true }' > "$RUNTIME/package.json"
    (cd "$RUNTIME" && npm install --silent --no-audit --no-fund --ignore-scripts \
        tsx@4 i18next@21 rfdc lodash json-stringify-deterministic fnv-plus graphology@0.25 \
        graphology-components graphology-shortest-path graphology-simple-path graphology-traversal \
        honeycomb-grid@4.1.1 js-combinatorics@2 nanoid@5 pako earcut@2 buffer \
        @turf/boolean-contains@6 @turf/boolean-intersects@6 @turf/boolean-point-in-polygon@6 \
        @turf/boolean-within@6 @turf/difference@6 @turf/helpers@6 @turf/points-within-polygon@6 \
        minmax-wt-alpha-beta-pruning)
fi
SOURCES="$RUNTIME/gameslib"
rm -rf "$SOURCES" && mkdir -p "$SOURCES" && cp -r "$GAMESLIB/src" "$GAMESLIB/locales" "$SOURCES/"

OUT="$WORK/positions-$SEED-$POSITIONS.txt"
echo "recording $POSITIONS positions (seed $SEED) under gameslib $(git -C "$GAMESLIB" rev-parse --short HEAD 2>/dev/null || echo '(not a git checkout)')"
(cd "$RUNTIME" && node --import tsx "$OLDPWD/scripts/dameo-crosscheck/driver.ts" "$PWD/gameslib" "$POSITIONS" "$SEED") > "$OUT.tmp"
{
    echo "# Dameo positions of random playouts under AbstractPlay's gameslib ($COMMIT),"
    echo "# seed $SEED, with the moves that engine generates: setup|moves."
    echo "# Recorded by scripts/dameo-crosscheck.sh; checked by tests/dameo.rs."
    cat "$OUT.tmp"
} > "$OUT" && rm "$OUT.tmp"
echo "wrote $OUT ($(grep -vc '^#' "$OUT") positions)"

DAMEO_CROSSCHECK="$PWD/$OUT" cargo test --release --test integration dameo::every_recorded_position -- --nocapture
if [ "$PERFT" -gt 0 ]; then
    echo "perft of the start position, gameslib then damone:"
    (cd "$RUNTIME" && node --import tsx "$OLDPWD/scripts/dameo-crosscheck/driver.ts" "$PWD/gameslib" perft "$PERFT") | tee "$WORK/perft-gameslib.txt"
    cargo run --release --quiet -- perft --game dameo --depth "$PERFT" 2>/dev/null | tee "$WORK/perft-damone.txt"
    if diff -q "$WORK/perft-gameslib.txt" "$WORK/perft-damone.txt" > /dev/null; then
        echo "perft: the same to depth $PERFT"
    else
        echo "perft: the counts differ" >&2
        exit 1
    fi
fi
if [ "$WRITE" = 1 ]; then
    cp "$OUT" tests/dameo-abstractplay.fixture
    echo "tests/dameo-abstractplay.fixture replaced"
fi
