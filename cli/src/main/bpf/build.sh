#!/bin/sh
# Rebuilds the CLI's bundled BPF programs (src/main/bpf/*.c) with clang-14 into the cli resources,
# where `bpf4j trace` finds them. Usage: build.sh [output-dir]. Compiles from this directory with
# relative paths so the debug info does not depend on where the script was started from.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../resources/dev/bpf4j/cli/trace}
CLANG=${CLANG:-clang-14}
arch_inc=/usr/include/$(uname -m)-linux-gnu
cd "$here"
for src in *.c; do
	name=$(basename "$src" .c)
	"$CLANG" -O2 -g -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -I "$arch_inc" -fdebug-prefix-map="$here"=. \
		-c "$src" -o "$out/$name.o"
done
