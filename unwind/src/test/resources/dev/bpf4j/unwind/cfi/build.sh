#!/bin/sh
# Rebuilds the CFI test libraries from cfichain.c: the same code without and with frame pointers.
# The tests build the same thing with these flags at test time (skipped without gcc); this script
# is for looking at the code: objdump -d, readelf -wF.
set -eu
cd "$(dirname "$0")"
out=${1:-/tmp/bpf4j-cfichain}
mkdir -p "$out"
gcc -O2 -fomit-frame-pointer -fPIC -shared -pthread -o "$out/libcfichain-nofp.so" cfichain.c
gcc -O2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fPIC -shared -pthread -o "$out/libcfichain-fp.so" cfichain.c
echo "built $out/libcfichain-nofp.so $out/libcfichain-fp.so"
gcc -O2 -fomit-frame-pointer -pthread -o "$out/cfichain" cfichain.c cfimain.c
echo "built $out/cfichain (run under gdb by CfiGdbTest)"
