#!/bin/sh
# Builds every WebAssembly test agent here: tests/agents/<stem>.c -> OUTDIR/<stem>.wasm.
#
#   tests/agents/build.sh OUTDIR
#
# Needs clang and wasm-ld (Debian: apt-get install clang lld). CC and WASM_LD override the
# search. Exits non-zero when a tool is missing or any agent fails to compile or link.
set -eu

if [ $# -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi
out=$1
here=$(cd "$(dirname "$0")" && pwd)

# The first of the names given that is on PATH.
find_tool() {
    for name in "$@"; do
        if command -v "$name" >/dev/null 2>&1; then
            command -v "$name"
            return 0
        fi
    done
    return 1
}

cc=${CC:-}
if [ -z "$cc" ]; then
    cc=$(find_tool clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14) || {
        echo "$0: clang not found (tried clang, clang-19 .. clang-14): apt-get install clang lld" >&2
        exit 1
    }
fi
ld=${WASM_LD:-}
if [ -z "$ld" ]; then
    ld=$(find_tool wasm-ld wasm-ld-19 wasm-ld-18 wasm-ld-17 wasm-ld-16 wasm-ld-15 wasm-ld-14) || {
        echo "$0: wasm-ld not found (tried wasm-ld, wasm-ld-19 .. wasm-ld-14): apt-get install clang lld" >&2
        exit 1
    }
fi

# Freestanding wasm32 (no libc, no WASI), MVP features only; no fused multiply-add, so the
# heuristic's double arithmetic is the engine's operation for operation.
CFLAGS="--target=wasm32 -mcpu=mvp -std=c11 -O2 -nostdlib -ffreestanding -fno-builtin -ffp-contract=off -Wall -Wextra"
# No entry point; only what the export_name attributes name is exported, plus `memory`
# (wasm-ld exports it by default). The imports are declared with import_module/import_name.
LDFLAGS="--no-entry -z stack-size=16384 --initial-memory=65536"

mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

status=0
count=0
for src in "$here"/*.c; do
    [ -e "$src" ] || continue
    stem=$(basename "$src" .c)
    # shellcheck disable=SC2086 # the flags are words
    if "$cc" $CFLAGS -c "$src" -o "$tmp/$stem.o" && "$ld" $LDFLAGS "$tmp/$stem.o" -o "$out/$stem.wasm"; then
        count=$((count + 1))
    else
        echo "$0: $stem failed" >&2
        rm -f "$out/$stem.wasm"
        status=1
    fi
done
if [ "$status" -ne 0 ]; then
    exit "$status"
fi
echo "built $count agents into $out"
