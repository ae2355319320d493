#!/usr/bin/env bash
# run.sh — graphd and its peers (FalkorDB, Kuzu) on the same data and the same sample, one table.
#   Benchmarks/peers/run.sh [small|medium|large]     (default small ~4 min; medium ~15 min, mostly FalkorDB's load)
# Builds graphd-bench (release), generates the preset's CSVs once (data/<preset>), runs the checked
# in-process mix, then the peers in a Python 3.12 venv (falkordblite needs 3.12), checking every
# peer answer against graphd's reference. Results: Benchmarks/peers/results/.
set -euo pipefail
preset="${1:-small}"
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"

python312="${PYTHON312:-}"
if [ -z "$python312" ]; then
    python312="$(command -v python3.12 || true)"
    [ -n "$python312" ] || python312="$(ls -d "$HOME"/.pyenv/versions/3.12*/bin/python 2>/dev/null | head -1 || true)"
fi
[ -n "$python312" ] || { echo "run.sh: needs Python 3.12 (falkordblite); set PYTHON312=/path/to/python3.12" >&2; exit 2; }
if [ ! -x .venv/bin/python ]; then "$python312" -m venv .venv; fi
.venv/bin/pip install --quiet --disable-pip-version-check falkordblite falkordb kuzu psutil

swift build -c release --package-path .. --scratch-path ../.build
bench="../.build/release/graphd-bench"
if [ ! -f "data/$preset/friendships.csv" ]; then "$bench" generate --preset "$preset" --out "data/$preset"; fi
# The peers are compared with the kernel and procedure forms; the plain-Cypher forms are measured
# by `embedded --forms cypher` on their own (the plain audience form of a hub host runs for minutes).
"$bench" embedded --data "$here/data/$preset" --forms kernel,procedure --out "results/embedded-$preset.json"
.venv/bin/python bench_peers.py --graphd "results/embedded-$preset.json" --out "results/peers-$preset.json"
