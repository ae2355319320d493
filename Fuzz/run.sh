#!/usr/bin/env bash
# Fuzz/run.sh — builds each libFuzzer target (swiftc -sanitize=fuzzer,address) and runs it
# for a bounded time from its committed seed corpus. Usage:
#   Fuzz/run.sh [SECONDS_PER_TARGET] [TARGET…]     (default 60 s; targets: see TARGETS)
# New inputs go to .build/fuzz/corpus/<target> (not the committed seeds); a crash leaves
# .build/fuzz/crashes/<target>-crash-<sha1> and makes the script exit 1. See Fuzz/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH="${1:-60}"
shift || true
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then TARGETS=(resp-decoder inline-splitter query-parser log-reader snapshot-reader); fi

OUT=.build/fuzz
LIB="$OUT/lib"
mkdir -p "$LIB" "$OUT/bin" "$OUT/crashes"
FLAGS=(-sanitize=fuzzer,address -parse-as-library -O -package-name graphd)
quiet() { grep -v "ld.gold: warning: Cannot export local symbol" || true; }

build_library() {   # name, source directory
    "$SWIFTC" "${FLAGS[@]}" -enable-testing -module-name "$1" -emit-library -static -emit-module \
        -emit-module-path "$LIB/$1.swiftmodule" -I "$LIB" $(find "$2" -name '*.swift' | sort) \
        -o "$LIB/lib$1.a" 2>&1 | quiet
}

SWIFTC="${SWIFTC:-swiftc}"
needs_libraries=0
for target in "${TARGETS[@]}"; do
    case "$target" in query-parser|log-reader|snapshot-reader) needs_libraries=1 ;; esac
done
if [ "$needs_libraries" = 1 ]; then
    echo "fuzz: building GraphStore and GraphQuery with fuzzer instrumentation"
    build_library GraphStore Sources/GraphStore
    build_library GraphQuery Sources/GraphQuery
fi

status=0
for target in "${TARGETS[@]}"; do
    binary="$OUT/bin/$target"
    case "$target" in
        resp-decoder)
            "$SWIFTC" "${FLAGS[@]}" -module-name FuzzRESPDecoder Fuzz/RESPDecoder/FuzzEntry.swift \
                Sources/graphd/Protocol/{RESPDecoder,ProtocolLimits,RESPProtocolError,InlineSplitter}.swift \
                -o "$binary" 2>&1 | quiet
            options=(-max_len=4096) ;;
        inline-splitter)
            "$SWIFTC" "${FLAGS[@]}" -module-name FuzzInlineSplitter Fuzz/InlineSplitter/FuzzEntry.swift \
                Sources/graphd/Protocol/InlineSplitter.swift -o "$binary" 2>&1 | quiet
            options=(-max_len=1024) ;;
        query-parser)
            "$SWIFTC" "${FLAGS[@]}" -I "$LIB" -L "$LIB" Fuzz/QueryParser/FuzzEntry.swift \
                -lGraphQuery -lGraphStore -o "$binary" 2>&1 | quiet
            options=(-max_len=1024) ;;
        log-reader)
            "$SWIFTC" "${FLAGS[@]}" -I "$LIB" -L "$LIB" Fuzz/LogReader/FuzzEntry.swift Fuzz/Support/ScratchGraphDirectory.swift \
                -lGraphStore -o "$binary" 2>&1 | quiet
            options=(-max_len=4096) ;;
        snapshot-reader)
            "$SWIFTC" "${FLAGS[@]}" -I "$LIB" -L "$LIB" Fuzz/SnapshotReader/FuzzEntry.swift Fuzz/Support/ScratchGraphDirectory.swift \
                -lGraphStore -o "$binary" 2>&1 | quiet
            options=(-max_len=4096) ;;
        *) echo "fuzz: unknown target '$target'" >&2; exit 2 ;;
    esac
    seeds="Fuzz/corpus/$target"
    found="$OUT/corpus/$target"
    mkdir -p "$found"
    echo "fuzz: $target for ${SECONDS_EACH}s (seeds: $seeds)"
    # -rss_limit_mb catches unbounded memory growth; -timeout a hang on one input.
    if ! "$binary" "${options[@]}" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$OUT/crashes/$target-" "$found" "$seeds" > "$OUT/$target.log" 2>&1; then
        echo "fuzz: $target FAILED; see $OUT/$target.log and $OUT/crashes/" >&2
        tail -30 "$OUT/$target.log" >&2
        status=1
    else
        grep -E "stat::number_of_executed_units|Done" "$OUT/$target.log" | tail -1
    fi
done
exit $status
