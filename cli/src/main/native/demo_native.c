/*
 * The native library of `bpf4j demo`: Java calls demo_native_work through jffi, which calls
 * demo_native_mix once per round. The demo attaches its JIT subprogram chain as a native probe on
 * demo_native_mix, so samples show Java -> this library -> trampoline -> bpf_prog chain.
 * Built by build.sh with gcc -pg -mfentry -mnop-mcount -fno-pic (docs/native-probes.md): every
 * function starts with the 5-byte nop a probe patches. The .so is committed: the demo needs no gcc.
 */

/* Probed: noinline so that demo_native_work really calls it. */
__attribute__((noinline)) long demo_native_mix(long x) {
    x ^= x >> 29;
    x *= 0x5bd1e995L;
    return x ^ (x >> 13);
}

/* The call from Java: n rounds, each a little native work then a call of the probed function. */
long demo_native_work(long n) {
    long acc = 0;
    for (long i = 0; i < n; i++) {
        long v = acc + i;
        for (int k = 0; k < 64; k++) v = v * 31 + k;
        acc += demo_native_mix(v);
        __asm__ volatile("" : "+r"(acc));
    }
    return acc;
}
