/**
 * Static analyses the JIT uses to emit less code without changing what a program does.
 * {@link dev.bpf4j.jit.analysis.StackProof} proves loads and stores through registers to lie
 * inside the current stack frame, so their run-time memory check can be left out;
 * {@link dev.bpf4j.jit.analysis.RegionProof} proves them inside the data buffer of the entry
 * r1/r2 convention, for a copy of main that an entry guard picks (docs/jit-performance.md).
 *
 * <p><b>Internal, not API</b>: public only for bpf4j's own modules; it may change in any release.
 */
package dev.bpf4j.jit.analysis;
