#!/bin/sh
# Rebuilds the BPF object fixtures from src/*.c. Usage: build.sh [output-dir] (default: this dir).
# The committed .o files are checked for drift by ObjectFixtureDriftTest when clang-14 exists.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
CLANG=${CLANG:-clang-14}
arch_inc=/usr/include/$(uname -m)-linux-gnu
# Compile from this directory with relative paths: the compilation directory and file names
# end up in the debug info, and must not depend on where the script was started from.
cd "$here"
for src in src/*.c; do
	name=$(basename "$src" .c)
	# -fdebug-prefix-map keeps the build directory out of the debug info, so rebuilds compare equal.
	"$CLANG" -O2 -g -target bpf -I "$arch_inc" -fdebug-prefix-map="$here"=. \
		-c "$src" -o "$out/$name.o"
done
