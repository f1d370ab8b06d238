#!/usr/bin/env bash
# Rebuilds the committed XDP workload objects (src/main/c/xdp_workloads.bpf.c) twice: with clang's
# default CPU, as users build XDP programs, and with -mcpu=v3. Needs clang-14 and libbpf-dev
# (apt-get install -y clang-14 libbpf-dev); the benchmarks read the committed objects.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$here/src/main/c"
out="${1:-$here/src/main/resources/xdp}"
mkdir -p "$out"
clang-14 -O2 -g -target bpf -I/usr/include/x86_64-linux-gnu -c "$src/xdp_workloads.bpf.c" -o "$out/xdp_workloads.o"
clang-14 -O2 -g -target bpf -mcpu=v3 -I/usr/include/x86_64-linux-gnu -c "$src/xdp_workloads.bpf.c" -o "$out/xdp_workloads.v3.o"
echo "rebuilt $(ls "$out" | tr '\n' ' ')"
