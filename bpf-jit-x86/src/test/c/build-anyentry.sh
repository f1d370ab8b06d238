#!/bin/sh
# Builds anyentry.c into the libraries the any-entry probe tests probe, in directory $1:
#   libanyentry-O2.so    -O2 -fPIC (frameless prologues, RIP-relative operands, short branches)
#   libanyentry-O2fp.so  -O2 -fPIC -fno-omit-frame-pointer (stack ids: frame-pointer walks)
#   libanyentry-O0.so    -O0 -fPIC (push rbp; mov rbp, rsp; stores of the arguments)
#   libanyentry-cet.so   -O2 -fPIC -fcf-protection=full (endbr64 first)
set -eu
out=${1:?usage: build-anyentry.sh OUTDIR}
src=$(dirname "$0")/anyentry.c
mkdir -p "$out"
gcc -O2 -fPIC -shared -o "$out/libanyentry-O2.so" "$src"
gcc -O2 -fPIC -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -shared -o "$out/libanyentry-O2fp.so" "$src"
gcc -O0 -fPIC -fno-omit-frame-pointer -shared -o "$out/libanyentry-O0.so" "$src"
gcc -O2 -fPIC -fcf-protection=full -shared -o "$out/libanyentry-cet.so" "$src"
