#!/bin/sh
# Rebuilds the CLI's bundled BPF programs (src/main/bpf/*.c) with clang-14 into the cli resources:
# stackcount.o for `bpf4j trace` (package trace), profile.o for `bpf4j profile` and `demo`, and
# profile_threads.o for `bpf4j profile --threads` with a program (package
# profile). Usage: build.sh. Compiles from this directory with relative paths so the debug info
# does not depend on where the script was started from.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
res=$here/../resources/dev/bpf4j/cli
CLANG=${CLANG:-clang-14}
arch_inc=/usr/include/$(uname -m)-linux-gnu
cd "$here"
build() {
	"$CLANG" -O2 -g -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -I "$arch_inc" -fdebug-prefix-map="$here"=. \
		-c "$1.c" -o "$res/$2/$1.o"
}
build stackcount trace
build profile profile
build profile_threads profile
