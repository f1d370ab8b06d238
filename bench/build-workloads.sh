#!/usr/bin/env bash
# Rebuilds the committed BPF objects of the benchmark workloads and their raw bytecode.
# Needs clang-14 and llvm-objcopy (apt-get install -y clang-14). The benchmarks themselves
# never need clang: they read the committed .bin files.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$here/src/main/c"
out="${1:-$here/src/main/resources/workloads}"
mkdir -p "$out"
clang-14 -O2 -g -target bpf -mcpu=v3 -c "$src/workloads.bpf.c" -o "$out/workloads.bpf.o"
for w in fnv1a parse xorshift sort; do
  llvm-objcopy -O binary --only-section="bench/$w" "$out/workloads.bpf.o" "$out/$w.bin"
done
echo "rebuilt $(ls "$out" | tr '\n' ' ')"
