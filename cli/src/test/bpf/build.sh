#!/bin/sh
# Rebuilds the CLI tests' BPF objects (src/test/bpf/*.c) with clang-14 into the test resources:
# retsum.o (package trace). Usage: build.sh.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
res=$here/../resources/dev/bpf4j/cli
CLANG=${CLANG:-clang-14}
arch_inc=/usr/include/$(uname -m)-linux-gnu
cd "$here"
"$CLANG" -O2 -g -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -I "$arch_inc" -fdebug-prefix-map="$here"=. \
	-c retsum.c -o "$res/trace/retsum.o"
