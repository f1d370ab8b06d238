#!/bin/sh
# What Linux gives a uretprobe program (the oracle for bpf4j's return probes, docs/native-probes.md):
# builds lib.c as ReturnProbeTest's library is built, attaches regs.bpf.c's uprobe and uretprobe to
# mid with libbpf, calls top(5) and prints the entry's sp/ip and the return's sp, ip and ax, with
# objdump's return sites in top. Needs root, clang-14, gcc, libbpf-dev. Usage: run.sh [workdir].
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-$(mktemp -d)}
gcc -O1 -fno-omit-frame-pointer -pg -mfentry -mnop-mcount -fno-pic -shared -o "$dir/lib.so" "$here/lib.c"
clang-14 -O2 -g -target bpf -D__TARGET_ARCH_x86 -I "/usr/include/$(uname -m)-linux-gnu" -c "$here/regs.bpf.c" -o "$dir/regs.bpf.o"
gcc -O1 -o "$dir/load" "$here/load.c" -lbpf -ldl
cd "$dir" && ./load "$dir/lib.so"
objdump -d --no-show-raw-insn "$dir/lib.so" | awk '/<top>:/ {p = 1; print; next} p && /^$/ {exit} p && prev ~ /call.*<mid/ {print "return site: " $0} {prev = $0}'
