#!/bin/sh
# Rebuilds the demo's native library (committed: the demo must run without gcc).
# Flags as PatchableLibrary.FLAGS: every function starts with the 5-byte nop a native probe patches.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../resources/dev/bpf4j/cli/native/libbpf4j_demo.so"
gcc -O1 -fno-omit-frame-pointer -pg -mfentry -mnop-mcount -fno-pic -shared \
    -o "$out" "$here/demo_native.c"
strip --strip-debug "$out"
